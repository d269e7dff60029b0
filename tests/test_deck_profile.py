"""Deck profiles (issue 17): enrolment, the profile's blend, storage, the commands.

Tests marked by the ``emb_detector`` fixture need a classifier with card embeddings:
the shipped model, or the one named by $HANAFUDA_EMB_MODEL (a localiser .onnx with its
classifier beside it); they are skipped when neither has them.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from scorer.cards import CODES, card
from scorer.cli import main
from scorer.errors import InputError
from scorer.store import GameStore
from scorer.store.decks import MAX_CROPS_PER_CARD, DeckCard, DeckNotFound, DeckStore
from scorer.store.schema import MIGRATIONS, connect, current_version, migrate
from scorer.vision.enrol import (LAYOUT_THRESHOLD, OTHER, EnrolledCard, enrol_folder,
                                enrol_images, enrol_layouts, layout_order, read_back)
from scorer.vision.profile import (CONFIDENT, PARTIAL_VIEWS, DeckProfile, profile_from_cards,
                                   require_embedding)
from training.data.scenes import get_library, render_scene

from deck_helpers import layouts as _layouts
from deck_helpers import no_decks_saved as _no_decks_saved


def _unit(v):
    v = np.asarray(v, np.float32)
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def _fake_profile(codes, dim=8):
    """One orthogonal prototype per card: card i's prototype is basis vector i % dim."""
    emb = np.eye(dim, dtype=np.float32)[[card(c).class_index % dim for c in codes]]
    return DeckProfile("fake", list(codes), emb)


# ---------------------------------------------------------- the blend itself

def test_profile_reranks_what_the_network_finds_plausible() -> None:
    prof = _fake_profile(["04-1", "07-1"])
    probs = np.zeros((1, 49), np.float32)
    probs[0, card("07-1").class_index] = 0.55      # the network's April/July confusion
    probs[0, card("04-1").class_index] = 0.40
    probs[0, 48] = 0.05
    emb = np.eye(8, dtype=np.float32)[[card("04-1").class_index % 8]]
    out = prof.adjust(probs, emb)
    assert out[0].argmax() == card("04-1").class_index
    assert out[0].sum() == pytest.approx(1.0, abs=1e-5)
    assert out[0, 48] == pytest.approx(0.05)       # not-a-card keeps the network's share


def test_a_profile_never_makes_a_card_surer_than_the_network_was() -> None:
    """It re-ranks the enrolled cards but hands out the network's own probabilities: a box
    the thresholds would drop stays dropped, the best card's confidence never rises."""
    prof = _fake_profile(CODES)
    rng = np.random.default_rng(1)
    probs = rng.dirichlet(np.full(49, 0.3), 200).astype(np.float32)
    probs = np.where(probs.max(1, keepdims=True) >= CONFIDENT, probs * 0.5, probs)
    probs /= probs.sum(1, keepdims=True)
    emb = np.eye(8, dtype=np.float32)[rng.integers(0, 8, 200)]
    out = prof.adjust(probs, emb)
    assert (out[:, :48].max(1) <= probs[:, :48].max(1) + 1e-6).all()
    np.testing.assert_allclose(np.sort(out, 1), np.sort(probs, 1), atol=1e-6)
    assert (out.argmax(1) != probs.argmax(1)).any()  # it did re-rank some
    assert ((out.argmax(1) == 48) == (probs.argmax(1) == 48)).all()


def test_partial_profile_falls_back_to_the_network_for_missing_cards() -> None:
    prof = _fake_profile(["01-1", "01-2"])           # two cards enrolled of 48
    rng = np.random.default_rng(0)
    probs = rng.dirichlet(np.ones(49), 5).astype(np.float32)
    emb = _unit(rng.normal(size=(5, 8)))
    out = prof.adjust(probs, emb)
    enrolled = [card("01-1").class_index, card("01-2").class_index]
    others = [i for i in range(49) if i not in enrolled]
    np.testing.assert_allclose(out[:, others], probs[:, others], atol=1e-6)
    np.testing.assert_allclose(out[:, enrolled].sum(1), probs[:, enrolled].sum(1), atol=1e-5)
    # a crop the network is sure of keeps its reading
    sure = np.zeros((1, 49), np.float32)
    sure[0, enrolled[1]] = 0.97
    sure[0, 48] = 0.03
    np.testing.assert_allclose(prof.adjust(sure, np.eye(8, dtype=np.float32)[[
        enrolled[0] % 8]]), sure)


def test_without_embeddings_the_error_is_one_line() -> None:
    old = SimpleNamespace(has_embedding=False, classifier_path=None)
    with pytest.raises(InputError, match="embeddings") as info:
        require_embedding(old)
    assert "\n" not in str(info.value)
    with pytest.raises(InputError, match="embeddings"):
        _fake_profile(["01-1"]).adjust(np.full((1, 49), 1 / 49, np.float32), None)


# ----------------------------------------------------------------- enrolment

def test_layout_order_reads_rows_top_to_bottom_left_to_right() -> None:
    rng = np.random.default_rng(3)
    grid = [(x * 100 + rng.normal(0, 5), y * 150 + rng.normal(0, 12), 60, 100, 0)
            for y in range(4) for x in range(12)]
    perm = rng.permutation(48)
    rects = np.array(grid, np.float32)[perm]
    assert perm[layout_order(rects)].tolist() == list(range(48))


class _LayoutReader:
    """A stand-in detector: one layout photo of the 48 cards in four rows of 12, each
    read as ``reads`` says (else as the card its place names)."""

    def __init__(self, reads: dict[str, str], weak: int = 0) -> None:
        self.reads = reads
        self.weak = weak  # the last cards, found only below the detector's thresholds
        self.thresholds: list[float | None] = []

    def localise(self, img, threshold=None):
        self.thresholds.append(threshold)
        rects = [(x * 100 + 50, y * 150 + 75, 60, 100, 0) for y in range(4) for x in range(12)]
        if threshold is None and self.weak:
            rects = rects[:-self.weak]
        return np.array(rects, np.float32), np.ones(len(rects), np.float32)

    def cut(self, img, rects):
        return None, np.zeros((len(rects), 8, 8, 3), np.uint8)

    def classify(self, crops):
        probs = np.zeros((len(crops), 49), np.float32)
        for i, code in enumerate(CODES[:len(crops)]):
            probs[i, card(self.reads.get(code, code)).class_index] = 1.0
        return probs


def test_enrolment_tells_a_willow_ribbon_from_the_lightning() -> None:
    """A month's two plain chaff are interchangeable; willow's 11-3 and 11-4 are not."""
    reads = {"01-4": "01-3", "11-4": "11-3", "12-3": "12-4"}
    reader = _LayoutReader(reads)
    cards = enrol_layouts(reader, [("layout.png", np.zeros((600, 1200, 3)))])
    read_as = {c.code: c.read_as for c in cards if c.read_as}
    assert read_as == {"11-4": "11-3"}
    # every card found at the detector's own thresholds: no second look
    assert reader.thresholds == [None]


def test_enrolment_looks_again_lower_when_a_layout_misses_cards() -> None:
    reader = _LayoutReader({}, weak=1)
    cards = enrol_layouts(reader, [("layout.png", np.zeros((600, 1200, 3)))])
    assert [c.code for c in cards] == list(CODES)
    assert reader.thresholds == [None, LAYOUT_THRESHOLD]


class _CountingReader(_LayoutReader):
    """A layout reader whose crops carry their place in the layout (so a crop reads the
    same in any batch) and that counts the crops it classifies."""

    crop_w, crop_h = 8, 8

    def __init__(self, reads: dict[str, str]) -> None:
        super().__init__(reads)
        self.classified = 0

    def cut(self, img, rects):
        crops = np.zeros((len(rects), 8, 8, 3), np.uint8)
        for crop, (x, y, *_) in zip(crops, rects):
            crop[:] = int((y - 75) // 150) * 12 + int((x - 50) // 100)
        return None, crops

    def classify(self, crops):
        self.classified += len(crops)
        probs = np.zeros((len(crops), 49), np.float32)
        for i, crop in enumerate(crops):
            code = CODES[int(crop[0, 0, 0])]
            probs[i, card(self.reads.get(code, code)).class_index] = 0.9
            probs[i, 48] = 0.1
        return probs


def test_a_layout_photos_crops_are_classified_once_and_read_back_as_before() -> None:
    """``read_as``, the layout's check and the read-back share one classifier run a crop;
    the readings are those a second run over the crops gave."""
    reader = _CountingReader({"01-4": "01-3", "11-4": "11-3", "05-2": "06-2"})
    cards = enrol_images(reader, [], [("layout.png", np.zeros((600, 1200, 3), np.uint8))])
    assert reader.classified == 48
    assert {c.code: c.read_as for c in cards if c.read_as} == {"11-4": "11-3", "05-2": "06-2"}
    # the old second run: the same crops classified again, from scratch
    again = read_back(reader, [EnrolledCard(c.code, c.crop, c.source, c.read_as, c.size)
                               for c in cards])
    assert [(c.reading, c.confidence, c.unclear) for c in cards] == \
        [(c.reading, c.confidence, c.unclear) for c in again]
    byc = {c.code: c for c in cards}
    assert (byc["01-4"].reading, byc["11-4"].reading) == ("01-4", "11-3")
    assert byc["11-4"].unclear[0] == OTHER and byc["01-1"].confidence == pytest.approx(0.9)


@pytest.mark.art
def test_enrolment_from_a_rendered_layout_names_every_card(emb_detector) -> None:
    cards = enrol_layouts(emb_detector, _layouts("hwatu-commons", 1_090_500))
    assert [c.code for c in cards] == list(CODES)
    # each crop's nearest prototype in a profile enrolled from other renders is its own
    # card, or a card scored the same (a month's two chaff cards, near-identical in
    # hwatu-commons): the crops are the cards their names say
    other = enrol_layouts(emb_detector, _layouts("hwatu-commons", 1_091_500))
    prof = DeckProfile.from_crops("h", [c.code for c in other],
                                  np.stack([c.crop for c in other]), emb_detector)
    sim = prof.similarity(emb_detector.embed(np.stack([c.crop for c in cards])))
    nearest = [card(CODES[i]).equivalence_key for i in sim.argmax(1)]
    assert nearest == [card(c).equivalence_key for c in CODES]


@pytest.mark.art
def test_enrolment_from_a_folder_of_scans(tmp_path) -> None:
    lib = get_library()
    for code in ("01-1", "08-1", "12-2"):
        face = lib.face("louie-mantia", card(code).class_index)[0]
        cv2.imwrite(str(tmp_path / f"{code}.png"), face)
    cv2.imwrite(str(tmp_path / "8-2.jpg"), cv2.rotate(lib.face("louie-mantia", 29)[0],
                                                      cv2.ROTATE_90_CLOCKWISE))
    (tmp_path / "notes.txt").write_text("not a card")
    cards = enrol_folder(tmp_path, 72, 112)
    assert [c.code for c in cards] == ["01-1", "08-1", "08-2", "12-2"]
    assert all(c.crop.shape == (112, 72, 3) for c in cards)


@pytest.mark.art
def test_wrong_profile_does_not_change_a_scene(emb_detector) -> None:
    codes = ["01-1", "03-1", "04-1", "07-1", "08-1", "11-1", "11-4", "12-2"]
    img, _ = render_scene(codes, art_set="louie-mantia", seed=1_093_000)
    plain = sorted(emb_detector.detect(img).codes)
    assert plain == sorted(codes)
    for art_set in ("freegostop-pencil", "louie-mantia"):
        cards = enrol_layouts(emb_detector, _layouts(art_set, 1_092_000))
        prof = DeckProfile.from_crops(art_set, [c.code for c in cards],
                                      np.stack([c.crop for c in cards]), emb_detector)
        assert sorted(emb_detector.detect(img, profile=prof).codes) == plain


# -------------------------------------------------------------------- storage

def _crop(v: int) -> np.ndarray:
    return np.full((112, 72, 3), v, np.uint8)


def test_deck_store_roundtrip_replace_add_delete_export(tmp_path) -> None:
    decks = DeckStore(tmp_path / "g.db")
    decks.save("home", [DeckCard("1-1", _crop(10), "a.png"), DeckCard("08-1", _crop(20))])
    rec = decks.get("home")
    assert rec.codes == ["01-1", "08-1"] and rec.cards[0].source == "a.png"
    assert np.array_equal(rec.cards[1].crop, _crop(20))
    decks.save("home", [DeckCard("08-1", _crop(30))], replace=False)
    assert [c.code for c in decks.get("home").cards] == ["01-1", "08-1", "08-1"]
    decks.save("home", [DeckCard("12-2", _crop(40))] * (MAX_CROPS_PER_CARD + 3), replace=False)
    assert sum(c.code == "12-2" for c in decks.get("home").cards) == MAX_CROPS_PER_CARD
    decks.save("home", [DeckCard("02-1", _crop(50))])           # replace
    assert decks.get("home").codes == ["02-1"]
    doc = decks.get("home").to_json()
    assert doc["crops"][0]["png"].startswith("data:image/png;base64,")
    assert [d["name"] for d in decks.list()] == ["home"]
    decks.delete("home")
    with pytest.raises(DeckNotFound):
        decks.get("home")
    with pytest.raises(InputError, match="deck name"):
        decks.save("../x", [DeckCard("02-1", _crop(1))])


def test_profile_reembeds_crops_of_another_model() -> None:
    class Fake:
        has_embedding = has_cells = True
        classifier_path = __file__
        batches: list[tuple[str, int]] = []

        def embed(self, crops):
            Fake.batches.append(("embed", len(crops)))
            return _unit(np.stack([[c.mean(), 1.0] for c in crops]))

        def cells(self, crops):
            Fake.batches.append(("cells", len(crops)))
            return np.stack([np.full((3, 7, 4), c.mean() + 1.0, np.float32) for c in crops])

    cards = [DeckCard("01-1", _crop(10), model="old", embedding=np.ones((2, 7))),
             DeckCard("01-2", _crop(200))]
    prof = profile_from_cards("d", cards, Fake())
    views = 2 * PARTIAL_VIEWS       # the deck's own partial views, read at each build
    assert Fake.batches == [("embed", 4), ("cells", 4), ("cells", views)]
    assert prof.embeddings.shape == (4, 2) and prof.decides
    assert all(c.embedding.shape == (2, 2) and c.model != "old" for c in cards)
    assert prof.own is not None and len(prof.own) == views
    Fake.batches.clear()
    profile_from_cards("d", cards, Fake())
    assert Fake.batches == [("cells", 4), ("cells", views)]   # stored embeddings reused


def test_migration_keeps_old_games(tmp_path) -> None:
    path = tmp_path / "old.db"
    conn = connect(path)
    migrate(conn, MIGRATIONS[:2])           # a database from before decks
    conn.execute("INSERT INTO games (created_at, preset, options, players, teams, "
                 "first_dealer, rounds_planned) VALUES ('2026-01-01', 'sakura', '{}', "
                 "'[\"Ann\", \"Bob\"]', NULL, 'Ann', 4)")
    conn.close()
    store = GameStore(path)
    games = store.list_games()
    assert len(games) == 1 and store.get_game(games[0].id).players == ["Ann", "Bob"]
    conn = connect(path)
    assert current_version(conn) == len(MIGRATIONS)
    conn.close()
    assert DeckStore(path).list() == []


# ------------------------------------------------------------------ commands

def _write_layouts(folder, art_set, seed, per_photo=12):
    paths = []
    for k, (_name, img) in enumerate(_layouts(art_set, seed, per_photo)):
        p = folder / f"lay{k}.png"
        cv2.imwrite(str(p), img)
        paths.append(p)
    return [str(p) for p in paths]


def _model_args(det):
    return ["--model", str(det.model_path)]


@pytest.mark.art
def test_bad_enrolment_inputs_give_one_line_and_save_nothing(emb_detector, tmp_path,
                                                             capsys) -> None:
    db = tmp_path / "g.db"
    lays = _write_layouts(tmp_path, "hwatu-commons", 1_094_000)
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 120, np.uint8))
    twice = tmp_path / "twice"
    twice.mkdir()
    face = get_library().face("hwatu-commons", 0)[0]
    cv2.imwrite(str(twice / "01-1.png"), face)
    cv2.imwrite(str(twice / "1-1.jpg"), face)
    empty = tmp_path / "empty"
    empty.mkdir()
    cases = {
        "no cards found": [str(blank)],
        "too few cards": lays[:3],
        "too many cards": lays + [lays[0]],
        "does not match": [lays[1], lays[0], lays[2], lays[3]],
        "given twice": [str(twice)],
        "no card images": [str(empty)],
        "no such file": [str(tmp_path / "nope.png")],
    }
    for message, paths in cases.items():
        assert main(["enroll", "home", *paths, "--db", str(db),
                     *_model_args(emb_detector)]) == 2, message
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1, (message, err)
        assert _no_decks_saved(db), message


@pytest.mark.art
def test_enroll_detect_and_decks_commands(emb_detector, tmp_path, capsys) -> None:
    db = tmp_path / "g.db"
    lays = _write_layouts(tmp_path, "hwatu-commons", 1_094_500)
    assert main(["enrol", "home", *lays, "--db", str(db), "--json",
                 *_model_args(emb_detector)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["cards"] == 48 and doc["enrolled"] == 48 and doc["missing"] == []
    codes = ["04-1", "07-1", "11-2"]
    img, _ = render_scene(codes, art_set="hwatu-commons", seed=1_094_900)
    scene = tmp_path / "scene.jpg"
    cv2.imwrite(str(scene), img)
    assert main(["detect", str(scene), "--json", "--deck", "home", "--db", str(db),
                 *_model_args(emb_detector)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["deck"] == "home" and sorted(c["code"] for c in out["cards"]) == codes
    assert main(["detect", str(scene), "--deck", "other", "--db", str(db),
                 *_model_args(emb_detector)]) == 2
    assert "no deck named 'other'" in capsys.readouterr().err
    assert main(["decks", "--db", str(db), "--json"]) == 0
    assert [d["name"] for d in json.loads(capsys.readouterr().out)["decks"]] == ["home"]
    assert main(["decks", "--db", str(db), "--export", "home", str(tmp_path / "h.json")]) == 0
    assert len(json.loads((tmp_path / "h.json").read_text())["crops"]) == 48
    assert main(["decks", "--db", str(db), "--delete", "home"]) == 0
    capsys.readouterr()
    assert main(["decks", "--db", str(db), "--delete", "home"]) == 2
    assert main(["decks", "--db", str(tmp_path / "none.db")]) == 2
    assert "no games database" in capsys.readouterr().err


@pytest.mark.art
def test_api_detect_with_a_deck(emb_detector, tmp_path) -> None:
    from web_helpers import CSRF, make_app
    app = make_app(tmp_path, DETECTOR=emb_detector)
    cards = enrol_layouts(emb_detector, _layouts("louie-mantia", 1_095_500, per_photo=48))
    DeckStore(tmp_path / "games.db").save("home", [DeckCard(c.code, c.crop) for c in cards])
    img, _ = render_scene(["02-1", "08-1"], art_set="louie-mantia", seed=1_095_900)
    data = cv2.imencode(".jpg", img)[1].tobytes()
    client = app.test_client()
    resp = client.post("/api/detect?deck=home", data=data,
                       headers={**CSRF, "Content-Type": "image/jpeg"})
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    assert body["deck"] == "home" and sorted(c["code"] for c in body["cards"]) == \
        ["02-1", "08-1"]
    resp = client.post("/api/detect?deck=nope", data=data,
                       headers={**CSRF, "Content-Type": "image/jpeg"})
    assert resp.status_code == 400 and "no deck named" in resp.get_json()["error"]


@pytest.mark.art
def test_learning_from_confirmed_rounds_adds_the_confirmed_crops(emb_detector, tmp_path,
                                                                  capsys) -> None:
    import base64

    db = tmp_path / "g.db"
    games = GameStore(db)
    game = games.create_game(preset="sakura", options={}, players=["Ann", "Bob"], teams=None,
                             first_dealer="Ann", rounds_planned=2)
    lib = get_library()

    def url(code):
        face = cv2.resize(lib.face("hwatu-commons", card(code).class_index)[0], (96, 150))
        return "data:image/jpeg;base64," + base64.b64encode(
            cv2.imencode(".jpg", face, [cv2.IMWRITE_JPEG_QUALITY, 80])[1]).decode()

    games.save_pile(game.id, 1, "Ann", ["07-1", "08-1"], detected=["07-1", "08-1"],
                    source="camera",
                    crops={"07-1": url("04-1"), "08-1": url("08-1")})  # read wrong
    games.correct(game.id, 1, "Ann", "replace", old_code="07-1", new_code="04-1")
    games.save_pile(game.id, 1, "Bob", ["12-1"], source="manual")
    args = ["enroll", "home", "--from-games", "--db", str(db), *_model_args(emb_detector)]
    assert main(args) == 2                      # no confirmed round yet: nothing saved
    assert "no card crops" in capsys.readouterr().err and _no_decks_saved(db)
    games.confirm_round(game.id, 1)
    games.save_pile(game.id, 2, "Ann", ["09-1"], detected=["09-1"], source="camera",
                    crops={"09-1": url("09-1")})    # open round: not used
    assert main(args) == 0, capsys.readouterr().err
    rec = DeckStore(db).get("home")
    assert rec.codes == ["04-1", "08-1"]        # the corrected card under its right name
    assert main(args + ["--game", "99"]) == 2
    assert "no game 99" in capsys.readouterr().err
    assert main(args) == 0                      # learning adds crops, keeps the old ones
    assert len(DeckStore(db).get("home").cards) == 4


@pytest.mark.art
def test_the_measuring_tool_enrols_an_art_set_as_scans_or_layouts(emb_detector) -> None:
    from training.measure.deck_profile import enrol_set
    for how in ("scans", "layout"):
        prof, secs = enrol_set(emb_detector, "hwatu-commons", 1_092_000, how)
        assert prof.cards == list(CODES) and len(prof.codes) == 96 and secs > 0


def test_similarity_is_each_cards_best_prototype() -> None:
    """A card's similarity is its best prototype's, whatever order the crops came in."""
    rng = np.random.default_rng(3)
    codes = [CODES[i] for i in rng.integers(0, 48, 200)]
    emb = rng.normal(size=(200, 8)).astype(np.float32)
    prof = DeckProfile("d", codes, emb)
    frame = rng.normal(size=(5, 8)).astype(np.float32)
    sims = frame @ emb.T
    want = np.full((5, 48), -np.inf, np.float32)
    for j, code in enumerate(codes):
        want[:, card(code).class_index] = np.maximum(want[:, card(code).class_index], sims[:, j])
    assert np.allclose(prof.similarity(frame), want)


@pytest.mark.art
def test_the_measuring_tool_picks_cards_as_detect_does(emb_detector) -> None:
    """Without a profile, the deck-profile tool's F1 is what ``Detector.detect`` scores on
    the same scenes (its thresholds for close-up boxes and its overlap rule included)."""
    from training.measure.deck_profile import scene_cache, score
    from training.measure.counting import EQUIV, multiset_hits
    from training.data.realistic import KINDS, realistic_scene, realistic_seed
    from training.data.scenes import SEED_RANGES
    cache = scene_cache(emb_detector, "louie-mantia", "val", 2)
    lib, start = get_library(), SEED_RANGES["val"][0]
    tp = fp = fn = 0
    for (kind, _, _, _, req, opt), (k, j) in zip(cache, [(k, j) for k in KINDS
                                                            for j in range(2)]):
        assert kind == k
        img, _, _ = realistic_scene(lib, realistic_seed(start, k, j), k, ["louie-mantia"])
        pred = [EQUIV[i] for i in emb_detector.detect(img).class_id]
        t, f, n = multiset_hits(pred, [EQUIV[i] for i in req], [EQUIV[i] for i in opt])
        tp, fp, fn = tp + t, fp + f, fn + n
    assert score(emb_detector, cache, None)["f1"] == pytest.approx(
        2 * tp / max(2 * tp + fp + fn, 1), abs=1e-4)
