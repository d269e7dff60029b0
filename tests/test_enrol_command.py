"""`hanafuda enrol` names the cards to look at again (``scorer.vision.enrol.unclear``), as
the decks page marks them."""

from __future__ import annotations

import json

import cv2

from gate import SCENE_JPEG
from scorer.cli import main
from scorer.vision import Detector, decode_image


def test_enrol_names_a_blurred_card_to_look_at_again(tmp_path, capsys) -> None:
    det = Detector(threads=1)
    seen = det.detect(decode_image(SCENE_JPEG.read_bytes()), crops=True)
    assert seen.crops is not None and len(seen) == 4
    scans = tmp_path / "scans"
    scans.mkdir()
    for code, crop in zip(seen.codes, seen.crops):
        cv2.imwrite(str(scans / f"{code}.png"), crop)
    blurred = seen.codes[1]
    cv2.imwrite(str(scans / f"{blurred}.png"), cv2.GaussianBlur(seen.crops[1], (0, 0), 3))
    db = str(tmp_path / "g.db")
    assert main(["enrol", "table", str(scans), "--db", db, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["enrolled"] == 4 and list(doc["unclear"]) == [blurred]
    assert "blurred" in doc["unclear"][blurred]
    assert main(["enrol", "table", str(scans), "--db", db]) == 0
    err = capsys.readouterr().err
    assert "look again at 1 card" in err and f"{blurred} (" in err and "blurred" in err
