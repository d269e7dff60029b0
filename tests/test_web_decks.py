"""The *Your decks* page and its JSON API (issue 17): enrolment from layout photos or
card images through the page's endpoints (the command's code), confirmed or fixed names
saved, list, export, delete; bad input is one line and saves nothing.

The enrolment tests need a classifier with card embeddings (``deck_helpers.emb_detector``);
the others run on the fake detector."""

from __future__ import annotations

import base64
import json
from io import BytesIO

import cv2
import numpy as np
import pytest

from deck_helpers import layouts, no_decks_saved
from scorer.cards import CODES, card
from scorer.store.decks import DeckStore
from training.data.scenes import get_library, render_scene
from web_helpers import CSRF, jpeg, make_app, png, png_header


def _jpeg(img: np.ndarray) -> bytes:
    return cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes()


@pytest.fixture(scope="module")
def photos() -> list[bytes]:
    """The four layout photos of 12 cards the page asks for (as JPEG, as it sends them)."""
    return [_jpeg(img) for _, img in layouts("hwatu-commons", 1_096_000)]


@pytest.fixture
def client(emb_detector, tmp_path):
    return make_app(tmp_path, DETECTOR=emb_detector).test_client()


def preview(client, files: list[tuple[bytes, str]]):
    return client.post("/api/decks/preview", headers=CSRF, content_type="multipart/form-data",
                       data={"images": [(BytesIO(data), name) for data, name in files]})


def layout_files(photos: list[bytes]) -> list[tuple[bytes, str]]:
    return [(data, f"photo-{i + 1}.jpg") for i, data in enumerate(photos)]


def send(client, method: str, url: str, body):
    return client.open(url, method=method, json=body, headers=CSRF)


def decoded(url: str) -> np.ndarray:
    data = base64.b64decode(url.split(",", 1)[1])
    return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)


# --------------------------------------------------------------------- the page
def test_the_page_draws_the_layout_the_enrolment_reads(tmp_path) -> None:
    client = make_app(tmp_path).test_client()
    html = client.get("/decks").get_data(as_text=True)
    for title in ("Photo 1: January ×4, February ×4, March ×4 — 3 rows of 4",
                  "Photo 4: October ×4, November ×4, December ×4 — 3 rows of 4"):
        assert title in html
    slots = [html[i + 11:i + 15] for i in range(len(html)) if html.startswith('data-code="', i)]
    assert slots == list(CODES)            # the layout order: month by month, in rows
    assert 'href="/decks"' in client.get("/").get_data(as_text=True)   # header and set-up


# ------------------------------------------------------------------- enrolment
@pytest.mark.art
def test_preview_of_layout_photos_names_every_card_and_saves_nothing(client, photos,
                                                                     tmp_path) -> None:
    r = preview(client, layout_files(photos))
    assert r.status_code == 200, r.json
    body = r.json
    assert [c["code"] for c in body["cards"]] == list(CODES)
    assert body["missing"] == [] and body["photos"] == 4 and body["scans"] == 0
    first = body["cards"][0]
    assert first["name"] == card("01-1").name and first["source"] == "photo-1.jpg"
    assert decoded(first["crop"]).shape == (112, 72, 3)
    # each card read back: a clean layout reads as its places, none unclear (issue 67)
    assert [c["reading"] for c in body["cards"]] == list(CODES)
    assert all(c["unclear"] == [] and 0.5 <= c["confidence"] <= 1 for c in body["cards"])
    assert no_decks_saved(tmp_path / "games.db")


@pytest.mark.art
def test_save_keeps_the_fixed_names_then_list_export_and_delete(client, photos,
                                                                tmp_path) -> None:
    cards = preview(client, layout_files(photos)).json["cards"]
    sent = [{"code": c["code"], "crop": c["crop"], "source": c["source"]} for c in cards]
    sent[2]["code"] = "01-1"           # the player names the third crop 01-1 ...
    del sent[0]                        # ... and leaves the first out
    r = send(client, "POST", "/api/decks", {"name": "home", "cards": sent})
    assert r.status_code == 201, r.json
    assert r.json["name"] == "home" and r.json["cards"] == 47 and r.json["missing"] == ["01-3"]
    rec = DeckStore(tmp_path / "games.db").get("home")
    fixed = [c for c in rec.cards if c.code == "01-1"]
    assert len(fixed) == 1 and np.array_equal(fixed[0].crop, decoded(cards[2]["crop"]))
    assert all(c.embedding is not None and c.embedding.shape[0] == 2 for c in rec.cards)
    listed = client.get("/api/decks").json["decks"]
    assert [(d["name"], d["cards"], d["crops"]) for d in listed] == [("home", 47, 47)]

    # the name is taken: POST refuses (nothing changes), PUT replaces
    full = [{"code": c["code"], "crop": c["crop"]} for c in cards]
    r = send(client, "POST", "/api/decks", {"name": "home", "cards": full})
    assert r.status_code == 409 and "exists" in r.json["error"]
    assert DeckStore(tmp_path / "games.db").get("home").codes[0] == "01-1"
    r = send(client, "PUT", "/api/decks/home", {"cards": full})
    assert r.status_code == 200 and r.json["cards"] == 48, r.json

    doc = client.get("/api/decks/home").json
    assert doc["name"] == "home" and len(doc["crops"]) == 48
    r = client.get("/api/decks/home/export.json")
    assert r.status_code == 200 and "attachment" in r.headers["Content-Disposition"]
    exported = json.loads(r.data)
    assert len(exported["crops"]) == 48 and exported["missing"] == []
    assert exported["crops"][0]["png"].startswith("data:image/png;base64,")

    r = client.delete("/api/decks/home", headers=CSRF)
    assert r.status_code == 200 and r.json == {"deleted": "home"}
    assert client.get("/api/decks").json["decks"] == []
    assert no_decks_saved(tmp_path / "games.db")
    for method in ("GET", "DELETE"):
        r = client.open("/api/decks/home", method=method, headers=CSRF)
        assert r.status_code == 404 and "no deck named 'home'" in r.json["error"]


@pytest.mark.art
def test_card_images_named_by_code_make_a_partial_deck(client, tmp_path) -> None:
    lib = get_library()
    files = [(png_face(lib, code), f"{code}.png") for code in ("12-2", "01-1", "08-1")]
    r = preview(client, files)
    assert r.status_code == 200, r.json
    cards = r.json["cards"]
    assert [c["code"] for c in cards] == ["01-1", "08-1", "12-2"]
    assert len(r.json["missing"]) == 45 and r.json["scans"] == 3
    r = send(client, "POST", "/api/decks", {"name": "scans", "cards": cards})
    assert r.status_code == 201 and r.json["cards"] == 3, r.json


@pytest.mark.art
def test_deck_names_are_trimmed_as_the_page_trims_them(client) -> None:
    """'home ' and 'home  ' are home, through the API as on the page (issue 29)."""
    lib = get_library()
    cards = preview(client, [(png_face(lib, "01-1"), "01-1.png")]).json["cards"]
    r = send(client, "POST", "/api/decks", {"name": "home ", "cards": cards})
    assert r.status_code == 201 and r.json["name"] == "home", r.json
    r = send(client, "POST", "/api/decks", {"name": " home  ", "cards": cards})
    assert r.status_code == 409 and "'home'" in r.json["error"]
    r = send(client, "POST", "/api/decks", {"name": "my   deck", "cards": cards})
    assert r.status_code == 201 and r.json["name"] == "my deck"
    assert [d["name"] for d in client.get("/api/decks").json["decks"]] == ["home", "my deck"]
    from scorer.store.decks import clean_name
    assert clean_name("  home\t ") == "home"


def png_face(lib, code: str, blur: float = 0) -> bytes:
    face = lib.face("hwatu-commons", card(code).class_index)[0]
    if blur:
        face = cv2.GaussianBlur(face, (0, 0), blur)
    return cv2.imencode(".png", face)[1].tobytes()


# -------------------------------------------------- read back, retake (issue 67 item 5)
@pytest.mark.art
def test_the_preview_reads_each_card_back_and_marks_the_unclear(client, tmp_path) -> None:
    """Each crop comes with the network's reading and why it is unclear: 01-1.png holds
    the moon (another card), 12-2.png is blurred; 03-1.png is its card, clear."""
    lib = get_library()
    files = [(png_face(lib, "08-1"), "01-1.png"), (png_face(lib, "03-1"), "03-1.png"),
             (png_face(lib, "12-2", blur=4), "12-2.png")]
    r = preview(client, files)
    assert r.status_code == 200, r.json
    got = {c["code"]: c for c in r.json["cards"]}
    assert got["01-1"]["reading"] == "08-1" and got["01-1"]["reading_name"] == card("08-1").name
    assert got["01-1"]["unclear"] == ["other card"]
    assert got["03-1"]["reading"] == "03-1" and got["03-1"]["unclear"] == []
    assert got["03-1"]["confidence"] >= 0.5
    assert "blurred" in got["12-2"]["unclear"]
    assert no_decks_saved(tmp_path / "games.db")


def test_the_unclear_rule() -> None:
    """Another card or none, the place's card under 0.5, a blurred crop, a small card."""
    from scorer.vision.enrol import reading, unclear
    rng = np.random.default_rng(0)
    sharp = rng.integers(0, 255, (112, 72, 3), dtype=np.uint8)
    flat = cv2.GaussianBlur(sharp, (0, 0), 5)          # its detail blurred away ...
    ramp = np.tile(np.linspace(0, 255, 72, dtype=np.uint8)[None, :, None], (112, 1, 3))
    assert unclear("01-1", "01-1", 0.9, sharp, 400, 112) == ()
    assert unclear("01-1", "08-1", 0.9, sharp, 400, 112) == ("other card",)
    assert unclear("01-1", None, 0.9, sharp, 400, 112) == ("other card",)
    assert unclear("01-1", "01-1", 0.4, sharp, 400, 112) == ("unsure",)
    assert unclear("01-1", "01-1", 0.9, flat, 400, 112) == ("blurred",)
    assert unclear("01-1", "01-1", 0.9, ramp, 400, 112) == ("blurred",)   # ... or none
    assert unclear("01-1", "01-1", 0.9, sharp, 60, 112) == ("small",)
    probs = np.zeros(49, np.float32)
    probs[card("01-3").class_index], probs[card("01-4").class_index] = 0.3, 0.35
    assert reading(probs, "01-3") == ("01-3", pytest.approx(0.65))   # one month's chaff: one art
    probs[48] = 0.9
    assert reading(probs, "01-3") == (None, pytest.approx(0.9))


@pytest.mark.art
def test_a_retake_replaces_one_crop_and_leaves_the_others(client, tmp_path) -> None:
    """A card taken again (a photo of it on the table, as the page's camera takes it) is
    found in its photo and read; the page puts it in place of the old crop, and the save
    keeps the new crop and the others as they were."""
    lib = get_library()
    first = preview(client, [(png_face(lib, "08-1"), "01-1.png"),
                             (png_face(lib, "03-1"), "03-1.png")]).json["cards"]
    assert [c["unclear"] for c in first] == [["other card"], []]
    photo = render_scene(["01-1"], art_set="hwatu-commons", seed=5)[0]
    files = [(_jpeg(photo), "01-1.jpg")]
    r = client.post("/api/decks/preview?retake=1", headers=CSRF,
                    content_type="multipart/form-data",
                    data={"images": [(BytesIO(data), name) for data, name in files]})
    assert r.status_code == 200, r.json
    (again,) = r.json["cards"]
    assert again["code"] == again["reading"] == "01-1" and again["unclear"] == []
    assert decoded(again["crop"]).shape == (112, 72, 3)
    # the whole photo as a scan is no card: the retake found the card in it
    assert preview(client, files).json["cards"][0]["unclear"] == ["other card"]
    assert no_decks_saved(tmp_path / "games.db")

    cards = [again if c["code"] == "01-1" else c for c in first]
    r = send(client, "POST", "/api/decks", {"name": "home", "cards": cards})
    assert r.status_code == 201 and r.json["cards"] == 2, r.json
    rec = {c.code: c.crop for c in DeckStore(tmp_path / "games.db").get("home").cards}
    assert np.array_equal(rec["01-1"], decoded(again["crop"]))
    assert np.array_equal(rec["03-1"], decoded(first[1]["crop"]))


@pytest.mark.art
def test_bad_uploads_give_one_line_and_save_nothing(client, photos, tmp_path) -> None:
    lays = layout_files(photos)
    blank = (_jpeg(np.full((480, 640, 3), 120, np.uint8)), "photo-1.jpg")
    face = png_face(get_library(), "01-1")
    cases = [
        ([blank], 400, "no cards found in photo-1.jpg"),
        (lays[:3], 400, "too few cards: found 36"),
        (lays + [lays[0]], 400, "too many cards"),
        ([lays[1], lays[0], lays[2], lays[3]], 400, "does not match"),
        ([(face, "01-1.png"), (face, "1-1.png")], 400, "card 01-1 is given twice"),
        ([(face, "13-1.png")], 400, "13-1 is not a card code"),
        ([(b"hello, not an image", "photo-1.jpg")], 400, "photo-1.jpg: not an image"),
        ([(jpeg()[:200], "photo-1.jpg")], 400, "photo-1.jpg: corrupt"),
        ([(png_header(20_000, 10), "big.png")], 413, "big.png"),
        # each under the 12 MP cap of an image decoded whole (issue 68), too many together
        ([(png_header(3400, 3400), f"p{i}.png") for i in range(8)], 413, "together"),
        ([(png_header(6000, 6000), "p0.png")], 413, "decoded whole"),
        ([], 400, "send layout photos"),
    ]
    for files, status, message in cases:
        r = preview(client, files)
        assert r.status_code == status, (message, r.json)
        error = r.json["error"]
        assert message in error and "\n" not in error and "Traceback" not in error, error
    assert no_decks_saved(tmp_path / "games.db")


def test_bad_saves_give_one_line_and_save_nothing(client, tmp_path) -> None:
    crop = "data:image/png;base64," + base64.b64encode(png(72, 112)).decode()
    good = {"code": "01-1", "crop": crop}
    cases = [
        ({"name": "home", "cards": [good, dict(good, source="again")]}, 400, "given twice"),
        ({"name": "home", "cards": []}, 400, "send the deck's cards"),
        ({"name": "home", "cards": [{"code": "13-1", "crop": crop}]}, 400, "13-1"),
        ({"name": "home", "cards": [{"code": "01-1", "crop": "http://x/y.png"}]}, 400,
         "image data URL"),
        ({"name": "home", "cards": [{"code": "01-1", "crop": "data:image/png;base64,aGVsbG8="}]},
         400, "card 1: not an image"),
        ({"name": "../etc", "cards": [good]}, 400, "deck name"),
        ({"cards": [good]}, 400, "deck name"),
        ({"name": "home", "cards": [good] * 49}, 400, "a deck has 48"),
    ]
    for body, status, message in cases:
        r = send(client, "POST", "/api/decks", body)
        assert r.status_code == status, (message, r.json)
        assert message in r.json["error"] and "\n" not in r.json["error"], r.json
    assert no_decks_saved(tmp_path / "games.db")


def test_without_card_embeddings_enrolment_says_so(tmp_path) -> None:
    client = make_app(tmp_path).test_client()        # the fake detector has no embeddings
    r = preview(client, [(jpeg(), "photo-1.jpg")])
    assert r.status_code == 400 and "embeddings" in r.json["error"]
    assert no_decks_saved(tmp_path / "games.db")
