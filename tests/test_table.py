"""scorer.table: a game at the table as one service, tested without Flask: the piles,
confirming (which teaches the game's deck and builds its profile as a job), reopening a
confirmed round (checked against a hand calculation), and frames read with a deck."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any, Callable

import cv2
import numpy as np
import pytest

from scorer.enrolled import PROFILE_PIXELS, EnrolledDecks
from scorer.errors import InputError, StateError
from scorer.images import Inline
from scorer.store import Database, GameStore
from scorer.store.decks import DeckCard, DeckStore
from scorer.table import Table
from scorer.vision.image import check
from support.fakes import EmbeddingFakeDetector, FakeDetector


class Counted(Inline):
    """``Inline`` images that note each job's cost."""

    def __init__(self, detector: Any) -> None:
        super().__init__(detector)
        object.__setattr__(self, "costs", [])

    def run(self, cost: int, job: Callable[[], Any]) -> Any:
        self.costs.append(cost)             # type: ignore[attr-defined]
        return job()


def _url(value: int) -> str:
    img = np.full((150, 96, 3), value, np.uint8)
    return "data:image/jpeg;base64," + base64.b64encode(cv2.imencode(".jpg", img)[1]).decode()


def _table(tmp_path: Path, detector: Any = None) -> Table:
    db = Database(tmp_path / "games.db")
    games = GameStore(db)
    return Table(games, EnrolledDecks(DeckStore(db), games), Counted(detector))


def _enrol(table: Table, name: str = "home") -> None:
    table.decks.enrol(name, [DeckCard("08-1", np.full((112, 72, 3), 30, np.uint8))],
                      table.images.detector())


def _game(table: Table, **setup: Any) -> int:
    fields = dict(preset="sakura", options={}, players=["Ann", "Bob"], teams=None,
                  first_dealer="Bob", rounds_planned=4)
    return table.create(**{**fields, **setup}).record.id


def _round(table: Table, gid: int, n: int, ann: list[str], bob: list[str],
           crops: bool = False) -> dict[str, Any]:
    for owner, codes in (("Ann", ann), ("Bob", bob)):
        table.save_pile(gid, n, owner, codes, version=0, source="camera" if crops else "manual",
                        detected=codes if crops else (),
                        crops={c: _url(40 + 10 * i) for i, c in enumerate(codes)} if crops
                        else None)
    return table.confirm(gid, n).answer()


def test_a_round_through_the_table(tmp_path) -> None:
    table = _table(tmp_path, FakeDetector())
    gid = _game(table)
    view = table.save_pile(gid, 1, "Ann", ["01-2", "02-2", "03-2", "08-1"], version=0)
    assert view.pile is not None and view.pile.version == 1
    assert view.answer()["pile"]["codes"] == ["01-2", "02-2", "03-2", "08-1"]
    with pytest.raises(StateError, match="missing: Bob"):
        table.confirm(gid, 1)
    table.save_pile(gid, 1, "Bob", ["12-1", "09-1"], version=0)
    fixed = table.correct(gid, 1, "Bob", "remove", "09-1", version=1)
    assert fixed.pile is not None and fixed.pile.codes == ["12-1"]
    done = table.confirm(gid, 1).answer()
    assert done["round"]["result"]["winner"] == "Ann" and done["learned"] == 0
    game = done["game"]
    assert game["open_round"] == 2 and game["dealer"] == "Ann"
    assert game["standings"]["running"] == [{"Ann": 50, "Bob": -30}]
    assert table.view(gid).to_dict() == game


def test_confirming_teaches_the_deck_and_builds_its_profile_as_a_job(tmp_path) -> None:
    """The first frame read with the deck after a learning confirm finds its profile
    built: the frame is one job, the profile's build was the confirm's."""
    det = EmbeddingFakeDetector()
    table = _table(tmp_path, det)
    _enrol(table)
    gid = _game(table, deck="home")
    costs = table.images.costs              # type: ignore[attr-defined]
    done = _round(table, gid, 1, ["01-1"], ["12-1"], crops=True)
    assert done["learned"] == 2
    assert PROFILE_PIXELS in costs                         # the profile, built as a job
    assert table.decks.cached_profile("home", det) is not None
    assert sorted(set(table.decks.cached_profile("home", det).codes)) == \
        ["01-1", "08-1", "12-1"]
    costs.clear()
    jpeg = cv2.imencode(".jpg", np.full((48, 64, 3), 200, np.uint8))[1].tobytes()
    report = table.detect(check(jpeg), "home")
    assert len(costs) == 1 and costs[0] != PROFILE_PIXELS  # the frame only
    assert det.profiles[-1] is table.decks.cached_profile("home", det)
    assert report.cards[0]["code"] == "08-1"


def test_a_frame_with_no_kept_profile_builds_it_as_a_job(tmp_path) -> None:
    det = EmbeddingFakeDetector()
    table = _table(tmp_path, det)
    _enrol(table)
    costs = table.images.costs              # type: ignore[attr-defined]
    jpeg = cv2.imencode(".jpg", np.full((48, 64, 3), 200, np.uint8))[1].tobytes()
    table.detect(check(jpeg), "home")
    assert costs[0] == PROFILE_PIXELS and len(costs) == 2
    table.detect(check(jpeg), "home")
    assert len(costs) == 3                                 # kept: the frame only
    with pytest.raises(InputError, match="no deck named 'away'"):
        table.detect(check(jpeg), "away")


# ------------------------------------------------------------- reopening a round
# Sakura, Ann and Bob, 4 rounds, Bob deals first; the next dealer is the round's winner,
# a tied round goes to its dealer. Brights are worth 20, chaff 0, and no pile forms a yaku.
#   round 1  Ann 08-1 01-1 (40)  Bob 12-1 (20)       dealer Bob  winner Ann
#   round 2  Ann 08-1 (20)       Bob 12-1 03-1 (40)  dealer Ann  winner Bob
#   round 3  Ann 01-1 (20)       Bob 12-1 (20)       dealer Bob  tie: Bob
#   round 4  Ann 08-1 (20)       Bob 12-1 (20)       dealer Bob  tie: Bob
# Totals 100 each, a tie the dealer's side breaks: Bob (who deals next).
# Round 2's 03-1 was misread: it is the curtain's chaff 03-3 (0). By hand, after the fix:
#   round 2  Ann 20  Bob 20   dealer Ann  tie: Ann
#   round 3  Ann 20  Bob 20   dealer Ann  tie: Ann
#   round 4  Ann 20  Bob 20   dealer Ann  tie: Ann
# Totals Ann 100, Bob 80: Ann wins; running 40/20, 60/40, 80/60, 100/80.
ROUNDS = ((["08-1", "01-1"], ["12-1"]), (["08-1"], ["12-1", "03-1"]),
          (["01-1"], ["12-1"]), (["08-1"], ["12-1"]))


def _played(table: Table, **setup: Any) -> int:
    gid = _game(table, **setup)
    for n, (ann, bob) in enumerate(ROUNDS, 1):
        _round(table, gid, n, ann, bob, crops=True)
    return gid


def _summary(game: dict[str, Any]) -> list[tuple[int, str, str | None, str | None]]:
    return [(r["number"], r["dealer"], (r["result"] or {}).get("winner"),
             (r["result"] or {}).get("next_dealer")) for r in game["rounds"]]


def test_reopening_round_2_of_4_rescores_it_and_the_later_rounds(tmp_path) -> None:
    table = _table(tmp_path, FakeDetector())
    gid = _played(table)
    game = table.view(gid).to_dict()
    assert _summary(game) == [(1, "Bob", "Ann", "Ann"), (2, "Ann", "Bob", "Bob"),
                              (3, "Bob", "Bob", "Bob"), (4, "Bob", "Bob", "Bob")]
    assert game["finished"] and game["standings"]["winner"] == "Bob"
    with pytest.raises(StateError, match="already confirmed"):
        table.correct(gid, 2, "Bob", "replace", "03-1", "03-3", version=1)

    reopened = table.reopen_round(gid, 2).answer()
    game = reopened["game"]
    assert reopened["round"]["number"] == 2 and not reopened["round"]["confirmed"]
    assert (game["finished"], game["open_round"], game["dealer"]) == (False, 2, "Ann")
    assert game["standings"]["winner"] is None
    with pytest.raises(StateError, match="not confirmed"):
        table.reopen_round(gid, 2)
    with pytest.raises(StateError, match="already confirmed"):     # only round 2 is open
        table.save_pile(gid, 3, "Ann", [], version=1)

    table.correct(gid, 2, "Bob", "replace", "03-1", "03-3", version=1)
    done = table.confirm(gid, 2).answer()
    game = done["game"]
    assert done["round"]["result"]["winner"] == "Ann"
    assert _summary(game) == [(1, "Bob", "Ann", "Ann"), (2, "Ann", "Ann", "Ann"),
                              (3, "Ann", "Ann", "Ann"), (4, "Ann", "Ann", "Ann")]
    s = game["standings"]
    assert s["finished"] and s["totals"] == {"Ann": 100, "Bob": 80} and s["winner"] == "Ann"
    assert s["running"] == [{"Ann": 40, "Bob": 20}, {"Ann": 60, "Bob": 40},
                            {"Ann": 80, "Bob": 60}, {"Ann": 100, "Bob": 80}]
    assert s["next_dealer"] == "Ann" and game["open_round"] is None

    log = [(c["round_number"], c["action"], c["old_code"], c["new_code"],
            (c["before"] or {}).get("winner"), (c["after"] or {}).get("winner"))
           for c in game["corrections"] if c["action"] != "add"]
    assert log == [(2, "reopen", None, None, "Bob", None),
                   (2, "replace", "03-1", "03-3", None, None),
                   (2, "rescore", None, None, "Bob", "Ann"),
                   (3, "rescore", None, None, "Bob", "Ann"),
                   (4, "rescore", None, None, "Bob", "Ann")]
    rescored = [c for c in game["corrections"] if c["action"] == "rescore"]
    assert rescored[0]["before"]["results"]["Bob"]["score"] == 40
    assert rescored[0]["after"]["results"]["Bob"]["score"] == 20
    assert rescored[1]["before"]["dealer"] == "Bob" and rescored[1]["after"]["dealer"] == "Ann"


def test_a_reopened_round_unlearns_what_the_fix_removed(tmp_path) -> None:
    table = _table(tmp_path, EmbeddingFakeDetector())
    _enrol(table)
    gid = _played(table, deck="home")

    def learned(number: int) -> list[str]:
        return sorted(c.code for c in table.decks.store.get("home").cards
                      if c.source.startswith(f"game {gid} round {number} "))

    assert learned(2) == ["03-1", "08-1", "12-1"]
    game = table.reopen_round(gid, 2).answer()["game"]
    assert learned(2) == [] and learned(1) == ["01-1", "08-1", "12-1"]
    assert game["rounds"][1]["learned"] is None
    assert table.decks.cached_profile("home", table.images.detector()) is not None
    table.correct(gid, 2, "Bob", "replace", "03-1", "03-3", version=1)
    done = table.confirm(gid, 2).answer()
    assert done["learned"] == 3 and learned(2) == ["03-3", "08-1", "12-1"]
    assert learned(3) == ["01-1", "12-1"]                  # the later rounds' crops stay


def test_reopening_an_earlier_round_deals_the_round_in_play_anew(tmp_path) -> None:
    """Round 3 is in play (a pile saved) when round 2 is reopened: round 2 is the open
    round until it is confirmed again, then round 3 is open again, dealt by round 2's new
    winner."""
    table = _table(tmp_path, FakeDetector())
    gid = _game(table)
    for n, (ann, bob) in enumerate(ROUNDS[:2], 1):
        _round(table, gid, n, ann, bob)
    table.save_pile(gid, 3, "Ann", ["01-1"], version=0)
    assert table.view(gid).to_dict()["dealer"] == "Bob"          # round 2's winner
    game = table.reopen_round(gid, 2).answer()["game"]
    assert (game["open_round"], game["dealer"]) == (2, "Ann")
    with pytest.raises(StateError, match="round 3 is not open; the open round is 2"):
        table.save_pile(gid, 3, "Bob", ["12-1"], version=0)
    table.correct(gid, 2, "Bob", "replace", "03-1", "03-3", version=1)
    game = table.confirm(gid, 2).answer()["game"]
    assert (game["open_round"], game["dealer"]) == (3, "Ann")    # the tie: the dealer's
    assert game["rounds"][2]["dealer"] == "Ann" and game["rounds"][2]["piles"]["Ann"]["codes"] == ["01-1"]
    assert [c["action"] for c in game["corrections"]] == ["reopen", "replace", "rescore"]
