"""`hanafuda detect`: the JSON contract of DESIGN.md and clear errors (exit 2)."""

from __future__ import annotations

import json

import cv2
import pytest

from gate import SCENE_CODES as CODES
from gate import SCENE_JPEG
from scorer.cli import main


@pytest.fixture(scope="module")
def scene_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("img") / "scene.jpg"
    path.write_bytes(SCENE_JPEG.read_bytes())
    return path


def test_json_contract(scene_file, capsys, tmp_path):
    out_png = tmp_path / "annotated.png"
    assert main(["detect", str(scene_file), "--json", "--annotate", str(out_png)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1
    doc = json.loads(lines[0])
    assert doc["image"] == str(scene_file)
    assert (doc["width"], doc["height"]) == (640, 480)
    assert doc["model"].endswith(".onnx")
    assert set(doc["ms"]) >= {"decode", "infer", "total"}
    assert sorted(c["code"] for c in doc["cards"]) == sorted(CODES)
    assert doc["hints"] == []  # the scene's cards are large enough to read
    for c in doc["cards"]:
        assert set(c) >= {"code", "name", "confidence", "box"}
        x0, y0, x1, y1 = c["box"]
        assert 0 <= x0 < x1 <= 640 and 0 <= y0 < y1 <= 480
        assert isinstance(c["confidence"], float)
    assert cv2.imread(str(out_png)).shape == (480, 640, 3)


def test_several_images_and_table(scene_file, capsys):
    assert main(["detect", str(scene_file), str(scene_file), "--json"]) == 0
    assert len(capsys.readouterr().out.strip().splitlines()) == 2
    assert main(["detect", str(scene_file)]) == 0
    out = capsys.readouterr().out
    assert "08-1" in out and "Susuki: moon" in out


@pytest.mark.parametrize("content", [None, b"this is not an image\n", b"\xff\xd8\xff\xe0garbage"])
def test_bad_inputs_exit_2(tmp_path, capsys, content):
    path = tmp_path / "bad.jpg"
    if content is not None:
        path.write_bytes(content)
    assert main(["detect", str(path), "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("hanafuda detect: error:")
    assert "Traceback" not in captured.err


def test_missing_model_exit_2(scene_file, tmp_path, capsys):
    assert main(["detect", str(scene_file), "--model", str(tmp_path / "nope.onnx")]) == 2
    assert "model file not found" in capsys.readouterr().err


def test_truncated_png_prints_only_our_line(scene_file, tmp_path, capfd):
    """OpenCV's own decoder warnings (written to fd 2) must not precede the message."""
    ok, png = cv2.imencode(".png", cv2.imread(str(scene_file)))
    path = tmp_path / "cut.png"
    path.write_bytes(png.tobytes()[:3000])
    assert main(["detect", str(path)]) == 2
    err = capfd.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("hanafuda detect: error:"), err


@pytest.mark.parametrize("flag, expected", [([], None), (["--tta"], True),
                                            (["--no-tta"], False)])
def test_tta_flag_overrides_the_models_setting_only_when_given(scene_file, monkeypatch,
                                                               capsys, flag, expected):
    import scorer.vision
    from scorer.vision import Detector

    seen = []

    class Spy(Detector):
        def __init__(self, *args, **kwargs):
            seen.append(kwargs.get("tta"))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(scorer.vision, "Detector", Spy)
    assert main(["detect", str(scene_file), "--json", *flag]) == 0
    assert seen == [expected]
    assert json.loads(capsys.readouterr().out)["cards"]
