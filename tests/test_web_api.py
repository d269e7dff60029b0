"""The JSON API through Flask's test client, with a fake detector: every endpoint and
every error the page relies on (400 naming the card, 404, 409, 413, 503; never a 500)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from web_helpers import (CSRF, FakeDetector, detections_of, with_version, jpeg, make_app, png,
                         png_header)


@pytest.fixture
def app(tmp_path: Path):
    return make_app(tmp_path)


@pytest.fixture
def client(app):
    return app.test_client()


def post(client, url, body=None, method="POST"):
    return client.open(url, method=method, json=with_version(client, url, body), headers=CSRF)


def new_game(client, **body):
    body.setdefault("players", ["Ann", "Bob"])
    r = post(client, "/api/games", body)
    assert r.status_code == 201, r.json
    return r.json


def save(client, gid, owner, codes, n=1, **extra):
    return post(client, f"/api/games/{gid}/rounds/{n}/piles",
                {"owner": owner, "codes": codes, **extra}, method="PUT")


# ------------------------------------------------------------------ reference data
def test_health_cards_presets(client) -> None:
    assert client.get("/api/health").json["ok"] is True
    cards = client.get("/api/cards").json
    assert len(cards["cards"]) == 48 and len(cards["months"]) == 12
    assert cards["months"][0]["colour"].startswith("#")
    presets = client.get("/api/presets").json
    names = [p["name"] for p in presets["presets"]]
    assert presets["default"] == "sakura" and {"sakura", "koikoi", "hanaawase"} <= set(names)
    sakura = presets["presets"][names.index("sakura")]
    assert sakura["default_rounds"] == 4 and sakura["max_players"] == 7


# ------------------------------------------------------------------ detect
def test_detect_raw_jpeg(client) -> None:
    r = client.post("/api/detect", data=jpeg(64, 48), headers={**CSRF, "Content-Type": "image/jpeg"})
    assert r.status_code == 200, r.json
    d = r.json
    assert (d["width"], d["height"], d["format"]) == (64, 48, "jpeg")
    assert d["cards"][0]["code"] == "08-1" and len(d["cards"][0]["box"]) == 4
    assert set(d["ms"]) >= {"decode", "infer", "total"} and d["model"] == "fake-detector"
    assert d["hints"] == []  # the fake's cards are 50 px tall: readable


def test_detect_hints_when_the_cards_are_small(tmp_path) -> None:
    class Far(FakeDetector):
        def detect(self, image, **kw):
            return detections_of([{"code": "08-1", "box": [5.0, 5.0, 17.0, 25.0]},
                                  {"code": "01-1", "box": [30.0, 5.0, 42.0, 24.0]}], image)

    client = make_app(tmp_path, DETECTOR=Far()).test_client()
    r = client.post("/api/detect", data=jpeg(64, 48), headers={**CSRF, "Content-Type": "image/jpeg"})
    assert r.status_code == 200, r.json
    assert len(r.json["hints"]) == 1 and "closer" in r.json["hints"][0]


def test_detect_multipart_upload(client) -> None:
    from io import BytesIO
    r = client.post("/api/detect", data={"image": (BytesIO(png()), "x.png")},
                    headers=CSRF, content_type="multipart/form-data")
    assert r.status_code == 200 and r.json["format"] == "png"


@pytest.mark.parametrize("data, status, message", [
    (b"", 400, "empty"),
    (b"hello, this is text", 400, "not an image"),
    (b"%PDF-1.4 fake", 400, "not an image"),
    (b"\xff\xd8\xff\xe0\x00\x10JFIF", 400, "corrupt"),       # JPEG cut inside its header
    (jpeg()[:200], 400, "corrupt"),                           # JPEG cut inside its data
    (png_header(0, 10), 400, "corrupt"),
    (png_header(100_000, 100_000), 413, "over the cap"),   # a decompression bomb's header
    (png_header(20_000, 10), 413, "over the cap"),
])
def test_detect_bad_images(client, data, status, message) -> None:
    r = client.post("/api/detect", data=data, headers={**CSRF, "Content-Type": "image/png"})
    assert r.status_code == status, r.json
    assert message in r.json["error"] and r.json["status"] == status


def test_detect_upload_over_the_size_cap_is_413(tmp_path: Path) -> None:
    client = make_app(tmp_path, MAX_CONTENT_LENGTH=10_000).test_client()
    r = client.post("/api/detect", data=b"\xff\xd8\xff" + b"0" * 20_000,
                    headers={**CSRF, "Content-Type": "image/jpeg"})
    assert r.status_code == 413 and "upload too large" in r.json["error"]
    from io import BytesIO
    r = client.post("/api/detect", data={"image": (BytesIO(b"1" * 20_000), "a.jpg")},
                    headers=CSRF, content_type="multipart/form-data")
    assert r.status_code == 413 and r.is_json


def _post_frame(app, port: int, data: bytes | None = None):
    """A frame from one client (its own connection: address and port)."""
    return app.test_client().post("/api/detect", data=data or jpeg(),
                                  headers={**CSRF, "Content-Type": "image/jpeg"},
                                  environ_overrides={"REMOTE_PORT": port})


def test_detect_waits_for_a_worker_instead_of_refusing(tmp_path: Path) -> None:
    """One worker, held: a second client's frame waits its turn and is answered 200 once
    the worker frees within the deadline (the old fixed cap answered it 503)."""
    gate = threading.Event()
    detector = FakeDetector(gate=gate)
    app = make_app(tmp_path, DETECTOR=detector, DETECT_WORKERS=1, DETECT_DEADLINE=30)
    out: dict = {}
    first = threading.Thread(target=lambda: out.setdefault("a", _post_frame(app, 1)))
    first.start()
    assert detector.entered.wait(5)
    second = threading.Thread(target=lambda: out.setdefault("b", _post_frame(app, 2)))
    second.start()
    svc = app.extensions["hanafuda"]["detection"]
    while svc.scheduler.snapshot()["light_waiting"] == 0:
        time.sleep(0.01)
    gate.set()
    first.join(10), second.join(10)
    assert out["a"].status_code == 200 and out["b"].status_code == 200
    assert detector.max_running == 1


def test_detect_503_only_when_the_deadline_cannot_be_met(tmp_path: Path) -> None:
    gate = threading.Event()
    detector = FakeDetector(gate=gate)
    app = make_app(tmp_path, DETECTOR=detector, DETECT_WORKERS=1, DETECT_DEADLINE=0.2)
    first = threading.Thread(target=lambda: _post_frame(app, 1))
    first.start()
    assert detector.entered.wait(5)
    r = _post_frame(app, 2)                     # the worker stays held past its deadline
    assert r.status_code == 503 and r.headers["Retry-After"] == "1" and "busy" in r.json["error"]
    assert detector.calls == 1                  # the late frame was never run
    gate.set()
    first.join(10)
    assert _post_frame(app, 3).status_code == 200


def test_a_clients_stale_frame_is_dropped_for_its_newest(tmp_path: Path) -> None:
    """A client that posts again while its frame waits: the older one is answered 409
    (superseded) without being run, the newest is answered."""
    gate = threading.Event()
    seen: list[int] = []
    detector = FakeDetector(codes=lambda img: seen.append(int(img.shape[1])) or ["08-1"],
                            gate=gate)
    app = make_app(tmp_path, DETECTOR=detector, DETECT_WORKERS=1, DETECT_DEADLINE=30)
    out: dict = {}
    busy = threading.Thread(target=lambda: _post_frame(app, 1))
    busy.start()
    assert detector.entered.wait(5)
    svc = app.extensions["hanafuda"]["detection"]
    old = threading.Thread(target=lambda: out.setdefault("old", _post_frame(app, 2, jpeg(80, 48))))
    old.start()
    while svc.scheduler.snapshot()["light_waiting"] == 0:
        time.sleep(0.01)
    new = threading.Thread(target=lambda: out.setdefault("new", _post_frame(app, 2, jpeg(96, 48))))
    new.start()
    old.join(10)
    assert out["old"].status_code == 409 and out["old"].json["superseded"] is True
    gate.set()
    new.join(10), busy.join(10)
    assert out["new"].status_code == 200
    assert 80 not in seen and 96 in seen


def test_detector_created_once_lazily(tmp_path: Path, monkeypatch) -> None:
    import scorer.vision as vision
    made: list[object] = []

    class Counting(FakeDetector):
        def __init__(self, model_path=None, threads=2) -> None:
            super().__init__()
            made.append(model_path)

    monkeypatch.setattr(vision, "Detector", Counting, raising=False)
    app = make_app(tmp_path, DETECTOR=None, MODEL_PATH="m.onnx")
    c = app.test_client()
    assert c.get("/api/health").json["detector_loaded"] is False
    for _ in range(3):
        headers = {**CSRF, "Content-Type": "image/jpeg"}
        assert c.post("/api/detect", data=jpeg(), headers=headers).status_code == 200
    assert made == ["m.onnx"]


def test_missing_model_is_503_with_reason(tmp_path: Path, monkeypatch) -> None:
    import scorer.vision as vision

    def broken(model_path=None, threads=2):
        raise FileNotFoundError(f"no model at {model_path}")

    monkeypatch.setattr(vision, "Detector", broken, raising=False)
    c = make_app(tmp_path, DETECTOR=None, MODEL_PATH="nowhere.onnx").test_client()
    r = c.post("/api/detect", data=jpeg(), headers={**CSRF, "Content-Type": "image/jpeg"})
    assert r.status_code == 503 and "no card detector" in r.json["error"]


# ------------------------------------------------------------------ games
def test_create_list_get_delete(client) -> None:
    g = new_game(client, players=["Ann", "Bob", "Cy"], first_dealer="Bob")
    assert g["preset"] == "sakura" and g["rounds_planned"] == 4 and g["open_round"] == 1
    assert g["dealer"] == "Bob" and g["standings"]["totals"] == {"Ann": 0, "Bob": 0, "Cy": 0}
    assert [x["id"] for x in client.get("/api/games").json["games"]] == [g["id"]]
    assert client.get(f"/api/games/{g['id']}").json["players"] == ["Ann", "Bob", "Cy"]
    r = post(client, f"/api/games/{g['id']}", method="DELETE")
    assert r.status_code == 200 and r.json == {"deleted": g["id"]}
    assert client.get(f"/api/games/{g['id']}").status_code == 404
    assert post(client, f"/api/games/{g['id']}", method="DELETE").status_code == 404


def test_teams_and_presets(client) -> None:
    g = new_game(client, players=["A", "B", "C", "D"], teams=[["A", "C"], ["B", "D"]])
    assert g["owners"] == ["A+C", "B+D"]
    k = new_game(client, preset="koikoi")
    assert k["rounds_planned"] == k["ruleset"]["default_rounds"] and k["ruleset"]["game"] == "koikoi"


@pytest.mark.parametrize("body, message", [
    ({"players": ["Ann"]}, "2 to 7"),
    ({"players": [f"P{i}" for i in range(8)]}, "2 to 7"),
    ({"players": ["Ann", "ann"]}, "listed twice"),
    ({"players": ["Ann", "x" * 200]}, "longer than"),
    ({"players": ["Ann", ""]}, "empty"),
    ({"players": ["Ann", 5]}, "must be text"),
    ({"players": ["Ann", "B+C"]}, "'+'"),
    ({"players": ["Ann", "Bo\x00b"]}, "control"),
    ({"players": ["Ann", "Bob"], "preset": "poker"}, "unknown rules preset"),
    ({"players": ["Ann", "Bob", "Cy"], "preset": "koikoi"}, "koikoi is for 2 players"),
    ({"players": ["Ann", "Bob"], "first_dealer": "Zed"}, "first dealer"),
    ({"players": ["Ann", "Bob"], "rounds": 0}, "rounds"),
    ({"players": ["Ann", "Bob"], "rounds": "4"}, "rounds"),
    ({"players": ["Ann", "Bob"], "rounds": 10**9}, "rounds"),
    ({"players": ["A", "B", "C", "D"], "teams": [["A", "B"], ["C"]]}, "teams"),
    ({"players": ["A", "B", "C", "D"], "teams": "AB"}, "teams"),
    ({"players": ["Ann", "Bob"], "options": {"no_such_option": "1"}}, "no_such_option"),
    ({"players": ["Ann", "Bob"], "options": ["x"]}, "options"),
    ([1, 2], "JSON object"),
])
def test_bad_game_setups_are_400(client, body, message) -> None:
    r = post(client, "/api/games", body)
    assert r.status_code == 400, r.json
    assert message in r.json["error"]


def test_non_json_body_is_400(client) -> None:
    r = client.post("/api/games", data="players=Ann", headers={**CSRF, "Content-Type": "text/plain"})
    assert r.status_code == 400 and "JSON" in r.json["error"]
    r = client.post("/api/games", data="{bad json", headers={**CSRF, "Content-Type": "application/json"})
    assert r.status_code == 400


def test_unknown_game_is_404_everywhere(client) -> None:
    for method, url in [("GET", "/api/games/999"), ("DELETE", "/api/games/999"),
                        ("PUT", "/api/games/999/rounds/1/piles"),
                        ("POST", "/api/games/999/rounds/1/corrections"),
                        ("POST", "/api/games/999/rounds/1/confirm"),
                        ("GET", "/api/games/999/export.csv"), ("GET", "/api/games/999/export.json")]:
        r = client.open(url, method=method, json={"owner": "Ann", "codes": [], "version": 0}, headers=CSRF)
        assert r.status_code == 404 and r.json["error"] == "no game 999", (method, url)
    assert client.get("/api/nothing").status_code == 404
    assert client.get("/api/games/abc").status_code == 404


# ------------------------------------------------------------------ piles and corrections
def test_piles_corrections_and_flags(client) -> None:
    g = new_game(client)
    gid = g["id"]
    r = save(client, gid, "Ann", ["01-1", "8-1"], detected=["01-1", "08-1", "12-2"], source="camera")
    assert r.status_code == 200, r.json
    assert r.json["pile"]["codes"] == ["01-1", "08-1"]
    r = save(client, gid, "Bob", ["12-1", "08-1"])
    assert r.status_code == 400 and "08-1 (Susuki: moon) is already in Ann's pile" in r.json["error"]
    r = save(client, gid, "Bob", ["13-5"])
    assert r.status_code == 400 and "'13-5'" in r.json["error"]
    r = save(client, gid, "Bob", ["12-1", "12-1"])
    assert r.status_code == 400 and "12-1" in r.json["error"] and "twice" in r.json["error"]
    r = save(client, gid, "Zed", ["12-1"])
    assert r.status_code == 400 and "owner" in r.json["error"]
    r = save(client, gid, "Bob", ["12-1"], source="telepathy")
    assert r.status_code == 400 and "source" in r.json["error"]
    assert save(client, gid, "Bob", ["12-1"]).status_code == 200

    url = f"/api/games/{gid}/rounds/1/corrections"
    r = post(client, url, {"owner": "Ann", "action": "replace", "old_code": "01-1", "new_code": "01-2"})
    assert r.status_code == 201 and r.json["pile"]["codes"] == ["01-2", "08-1"]
    for body, status, message in [
        ({"owner": "Ann", "action": "add", "new_code": "12-1"}, 400,
         "12-1 (Paulownia: phoenix) is already in Bob's pile"),
        ({"owner": "Ann", "action": "add", "new_code": "99-9"}, 400, "99-9"),
        ({"owner": "Ann", "action": "remove", "old_code": "03-1"}, 400, "03-1"),
        ({"owner": "Ann", "action": "explode", "old_code": "03-1"}, 400, "action"),
        ({"owner": "Ann", "action": ["add"]}, 400, "action"),
        ({"owner": "Nobody", "action": "add", "new_code": "03-1"}, 400, "owner"),
    ]:
        r = post(client, url, body)
        assert (r.status_code, message in r.json["error"]) == (status, True), (body, r.json)
    assert post(client, url, {"owner": "Bob", "action": "add", "new_code": "03-1"}).status_code == 201
    assert post(client, url, {"owner": "Bob", "action": "remove", "old_code": "03-1"}).status_code == 201
    view = client.get(f"/api/games/{gid}").json
    assert [(c["action"], c["old_code"], c["new_code"]) for c in view["corrections"]] == [
        ("remove", "12-2", None), ("replace", "01-1", "01-2"), ("add", None, "03-1"),
        ("remove", "03-1", None)]
    r = save(client, gid, "Ann", [], n=2)
    assert r.status_code == 409 and "open round is 1" in r.json["error"]


def test_correction_needs_a_saved_pile(client) -> None:
    gid = new_game(client)["id"]
    save(client, gid, "Ann", [])
    r = post(client, f"/api/games/{gid}/rounds/1/corrections",
             {"owner": "Bob", "action": "add", "new_code": "03-1"})
    assert r.status_code == 409 and "not saved" in r.json["error"]


# ------------------------------------------------------------------ rounds
AKATAN = ["01-2", "02-2", "03-2"]


def test_accuracy_counts_the_camera_piles_of_confirmed_rounds(client) -> None:
    assert client.get("/api/accuracy").json["piles"] == 0
    gid = new_game(client)["id"]
    save(client, gid, "Ann", AKATAN, detected=AKATAN[:2] + ["09-1"], source="camera")
    save(client, gid, "Bob", ["12-1"])
    assert client.get("/api/accuracy").json["piles"] == 0  # the round is still open
    assert post(client, f"/api/games/{gid}/rounds/1/confirm", {}).status_code == 200
    acc = client.get("/api/accuracy").json
    assert acc["piles"] == 1 and acc["cards"] == 3
    assert acc["equivalent"]["tp"] == 2 and acc["equivalent"]["fp"] == 1
    assert acc["equivalent"]["fn"] == 1


def test_confirm_round_scores_and_moves_the_dealer(client) -> None:
    gid = new_game(client, first_dealer="Bob")["id"]
    save(client, gid, "Ann", AKATAN + ["08-1"])
    r = post(client, f"/api/games/{gid}/rounds/1/confirm", {})
    assert r.status_code == 409 and "missing: Bob" in r.json["error"]
    save(client, gid, "Bob", ["12-1"])
    r = post(client, f"/api/games/{gid}/rounds/1/confirm", {})
    assert r.status_code == 200, r.json
    res = r.json["round"]["result"]
    ann, bob = res["results"]["Ann"], res["results"]["Bob"]
    assert ann["card_points"] == 50 and [y["name"] for y in ann["yaku"]] == ["akatan"]
    assert bob["penalty"] == 50 and bob["score"] == 20 - 50 and res["winner"] == "Ann"
    game = r.json["game"]
    assert game["open_round"] == 2 and game["dealer"] == res["next_dealer"] == "Ann"
    assert game["standings"]["running"] == [{"Ann": 50, "Bob": -30}]
    r = post(client, f"/api/games/{gid}/rounds/1/confirm", {})
    assert r.status_code == 409 and "already confirmed" in r.json["error"]


def test_a_whole_sakura_game(client) -> None:
    gid = new_game(client)["id"]
    for n in range(1, 5):
        save(client, gid, "Ann", ["08-1"] if n % 2 else ["01-1", "03-1"], n=n)
        save(client, gid, "Bob", ["12-1"], n=n)
        assert post(client, f"/api/games/{gid}/rounds/{n}/confirm").status_code == 200
    g = client.get(f"/api/games/{gid}").json
    s = g["standings"]
    assert g["finished"] and g["open_round"] is None and s["finished"]
    assert s["totals"] == {"Ann": 120, "Bob": 80} and s["winner"] == "Ann"
    assert len(s["running"]) == 4
    r = save(client, gid, "Ann", [], n=5)
    assert r.status_code == 409 and "finished" in r.json["error"]
    assert client.get("/api/games").json["games"][0]["finished"] is True


def test_koikoi_context(client) -> None:
    gid = new_game(client, preset="koikoi")["id"]
    save(client, gid, "Ann", ["01-1", "03-1", "08-1"])
    save(client, gid, "Bob", [])
    for ctx, message in [({"stopped_by": "Zed"}, "stopped_by"), ({"koikoi_calls": {"Ann": -1}}, "0 to 20"),
                         ({"koikoi_calls": "lots"}, "object"), ({"weather": "rain"}, "unknown context key"),
                         ({"month": 13}, "month"), ("x", "object")]:
        r = post(client, f"/api/games/{gid}/rounds/1/confirm", {"context": ctx})
        assert r.status_code == 400 and message in r.json["error"], (ctx, r.json)
    r = post(client, f"/api/games/{gid}/rounds/1/confirm",
             {"context": {"stopped_by": "Ann", "koikoi_calls": {"Ann": 0, "Bob": 0}}})
    assert r.status_code == 200, r.json
    res = r.json["round"]["result"]
    assert res["winner"] == "Ann" and res["results"]["Ann"]["score"] > 0
    assert r.json["round"]["context"]["stopped_by"] == "Ann"


# ------------------------------------------------------------------ export
def test_export_csv_and_json(client) -> None:
    gid = new_game(client, players=["=cmd()", "Bob"])["id"]
    save(client, gid, "=cmd()", AKATAN)
    save(client, gid, "Bob", ["12-1"])
    post(client, f"/api/games/{gid}/rounds/1/confirm")
    r = client.get(f"/api/games/{gid}/export.csv")
    assert r.status_code == 200 and r.mimetype == "text/csv"
    assert r.headers["Content-Disposition"] == f'attachment; filename="hanafuda-game-{gid}.csv"'
    lines = r.data.decode().splitlines()
    assert lines[0].startswith("game,preset,round,dealer,pile,cards")
    assert "'=cmd()" in lines[1] and ",-30," in lines[2]      # no formula; negatives stay numbers
    r = client.get(f"/api/games/{gid}/export.json")
    data = json.loads(r.data)
    assert r.headers["Content-Disposition"].endswith(f'filename="hanafuda-game-{gid}.json"')
    assert data["rounds"][0]["result"]["winner"] == "=cmd()" and data["standings"]["running"]
    r = client.get(f"/api/games/{gid}/export.xml")
    assert r.status_code == 400 and "csv or json" in r.json["error"]


def test_export_filename_cannot_escape() -> None:
    from webui.app.export import filename
    assert filename(7, "csv") == "hanafuda-game-7.csv"
    with pytest.raises(ValueError):
        filename(7, "../../etc/passwd")
    with pytest.raises(ValueError):
        filename("../x", "csv")   # type: ignore[arg-type]


# ------------------------------------------------------------------ persistence
def test_games_survive_a_new_app_on_the_same_file(tmp_path: Path) -> None:
    c1 = make_app(tmp_path).test_client()
    gid = new_game(c1)["id"]
    save(c1, gid, "Ann", AKATAN)
    c2 = make_app(tmp_path).test_client()
    assert c2.get(f"/api/games/{gid}").json["rounds"][0]["piles"]["Ann"]["codes"] == AKATAN


def test_sakura_leftovers_go_to_the_gaji_user(client) -> None:
    gid = new_game(client)["id"]
    save(client, gid, "Ann", ["11-4", "08-1"])
    save(client, gid, "Bob", ["12-1"])
    r = post(client, f"/api/games/{gid}/rounds/1/confirm",
             {"context": {"gaji_month": 8, "leftovers": ["08-2", "3-1"]}})
    assert r.status_code == 200, r.json
    result = r.json["round"]["result"]
    assert result["results"]["Ann"]["card_points"] > 20        # the moon, plus the geese
    assert any("takes the leftovers 08-2" in line for line in result["explanation"])
    save(client, gid, "Ann", [], n=2)                           # piles first: a round
    save(client, gid, "Bob", [], n=2)                           # without them is a 409
    r = post(client, f"/api/games/{gid}/rounds/2/confirm",
             {"context": {"leftovers": ["99-1"]}})
    assert r.status_code == 400 and "99-1" in r.json["error"]


def test_detect_with_crops_gives_each_card_a_small_upright_jpeg(client) -> None:
    import base64

    import cv2
    import numpy as np
    r = client.post("/api/detect?crops=1", data=jpeg(640, 480),
                    headers={**CSRF, "Content-Type": "image/jpeg"})
    cards = r.get_json()["cards"]
    assert cards
    for c in cards:
        assert c["crop"].startswith("data:image/jpeg;base64,") and len(c["crop"]) < 16_000
        img = cv2.imdecode(np.frombuffer(base64.b64decode(c["crop"].split(",", 1)[1]), np.uint8),
                           cv2.IMREAD_COLOR)
        assert img.shape[0] > img.shape[1]          # portrait: the card upright
    plain = client.post("/api/detect", data=jpeg(640, 480),
                        headers={**CSRF, "Content-Type": "image/jpeg"}).get_json()["cards"]
    assert all("crop" not in c for c in plain)


def test_health_names_all_three_models(tmp_path: Path) -> None:
    """Before the detector loads, the shipped files it would use; all three networks."""
    from scorer.vision import default_model_path
    if not default_model_path().is_file():
        pytest.skip("no shipped model")
    models = make_app(tmp_path, DETECTOR=None).test_client().get("/api/health").json["models"]
    assert set(models) == {"localiser", "classifier", "refiner"}
    assert models["localiser"].endswith("hanafuda-localiser.onnx")
    assert models["classifier"].endswith("hanafuda-classifier.onnx")
    assert models["refiner"].endswith("hanafuda-refiner.onnx")


def test_export_csv_lists_gaji_leftovers_and_signs_the_penalty_as_the_page(client) -> None:
    import csv
    import io
    gid = new_game(client)["id"]
    save(client, gid, "Ann", ["01-1", "11-4", "03-1"])
    save(client, gid, "Bob", AKATAN)
    r = post(client, f"/api/games/{gid}/rounds/1/confirm",
             {"context": {"gaji_month": 3, "leftovers": ["03-3", "07-4"]}})
    assert r.status_code == 200, r.json
    rows = {row["pile"]: row for row in
            csv.DictReader(io.StringIO(client.get(f"/api/games/{gid}/export.csv").data.decode()))}
    assert rows["Ann"]["cards"] == "01-1 11-4 03-1" and rows["Ann"]["leftovers_taken"] == "03-3"
    assert rows["Ann"]["penalty"] == "-50" and rows["Bob"]["penalty"] == "0"
    assert int(rows["Ann"]["score"]) == int(rows["Ann"]["card_points"]) - 50


def test_the_game_serves_its_context_schema_and_keeps_the_parsed_context(client) -> None:
    koikoi = new_game(client, preset="koikoi")
    fields = {f["key"]: f for f in koikoi["context_fields"]}
    assert fields["stopped_by"]["kind"] == "player"
    assert fields["koikoi_calls"]["kind"] == "count_per_player"
    assert fields["koikoi_calls"]["maximum"] == 20
    assert fields["teyaku"]["choices"] == ["teshi", "kuttsuki", "both"]
    sakura = new_game(client)
    assert [f["key"] for f in sakura["context_fields"]] == ["leftovers", "gaji_month"]
    gid = koikoi["id"]
    save(client, gid, "Ann", ["01-1", "03-1", "08-1"])
    save(client, gid, "Bob", [])
    r = post(client, f"/api/games/{gid}/rounds/1/confirm",
             {"context": {"stopped_by": "Ann", "koikoi_calls": {"Bob": "1"}, "month": "3"}})
    assert r.status_code == 200, r.json
    ctx = r.json["round"]["context"]
    assert ctx["koikoi_calls"] == {"Ann": 0, "Bob": 1} and ctx["month"] == 3
    assert r.json["round"]["result"]["results"]["Ann"]["multiplier"] == 2


def test_a_fix_before_saving_is_logged_as_a_fix(client) -> None:
    """A card read another way and fixed in the draft is one replace in the corrections,
    not a remove and an add (issue 29); a pair that does not hold is left to the diff."""
    gid = client.post("/api/games", json={"players": ["Ann", "Bob"]}, headers=CSRF).json["id"]
    r = client.put(f"/api/games/{gid}/rounds/1/piles", headers=CSRF, json={
        "owner": "Ann", "codes": ["05-3", "08-1", "01-1"], "detected": ["05-2", "08-1", "03-1"],
        "source": "photo", "version": 0, "fixes": [["05-2", "05-3"], ["09-1", "01-1"]]})
    assert r.status_code == 200, r.json
    log = [(c["action"], c["old_code"], c["new_code"]) for c in r.json["game"]["corrections"]]
    assert sorted(log, key=str) == sorted([("replace", "05-2", "05-3"), ("remove", "03-1", None),
                                           ("add", None, "01-1")], key=str)
    r = client.put(f"/api/games/{gid}/rounds/1/piles", headers=CSRF, json={
        "owner": "Bob", "codes": [], "version": 0, "fixes": "05-2"})
    assert r.status_code == 400 and "fixes must be" in r.json["error"]


def test_reopen_a_confirmed_round_and_export_the_corrected_game(client) -> None:
    """Round 2 of 4 fixed after round 4 (the hand calculation is tests/test_table.py's):
    the export and the standings show the corrected game."""
    gid = new_game(client, first_dealer="Bob")["id"]
    for n, (ann, bob) in enumerate(((["08-1", "01-1"], ["12-1"]), (["08-1"], ["12-1", "03-1"]),
                                    (["01-1"], ["12-1"]), (["08-1"], ["12-1"])), 1):
        save(client, gid, "Ann", ann, n=n)
        save(client, gid, "Bob", bob, n=n)
        assert post(client, f"/api/games/{gid}/rounds/{n}/confirm").status_code == 200
    assert client.get(f"/api/games/{gid}").json["standings"]["winner"] == "Bob"
    r = post(client, f"/api/games/{gid}/rounds/2/piles", {"owner": "Bob", "codes": []},
             method="PUT")
    assert r.status_code == 409 and "reopen it" in r.json["error"]
    r = post(client, f"/api/games/{gid}/rounds/2/reopen")
    assert r.status_code == 200, r.json
    assert r.json["round"]["number"] == 2 and r.json["game"]["open_round"] == 2
    assert post(client, f"/api/games/{gid}/rounds/2/reopen").status_code == 409
    assert post(client, f"/api/games/{gid}/rounds/9/reopen").status_code == 409
    assert post(client, "/api/games/999/rounds/1/reopen").status_code == 404
    r = post(client, f"/api/games/{gid}/rounds/2/corrections",
             {"owner": "Bob", "action": "replace", "old_code": "03-1", "new_code": "03-3"})
    assert r.status_code == 201, r.json
    r = post(client, f"/api/games/{gid}/rounds/2/confirm")
    assert r.status_code == 200 and r.json["game"]["standings"]["winner"] == "Ann"
    rows = client.get(f"/api/games/{gid}/export.csv").data.decode().splitlines()
    fields = rows[0].split(",")
    table = [dict(zip(fields, row.split(","))) for row in rows[1:]]
    assert [(t["round"], t["pile"], t["dealer"], t["round_winner"], t["running_total"])
            for t in table] == [("1", "Ann", "Bob", "Ann", "40"), ("1", "Bob", "Bob", "Ann", "20"),
                                ("2", "Ann", "Ann", "Ann", "60"), ("2", "Bob", "Ann", "Ann", "40"),
                                ("3", "Ann", "Ann", "Ann", "80"), ("3", "Bob", "Ann", "Ann", "60"),
                                ("4", "Ann", "Ann", "Ann", "100"), ("4", "Bob", "Ann", "Ann", "80")]
    exported = json.loads(client.get(f"/api/games/{gid}/export.json").data)
    assert [c["action"] for c in exported["corrections"]] == \
        ["reopen", "replace", "rescore", "rescore", "rescore"]
