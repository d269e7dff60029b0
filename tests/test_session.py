"""scorer.session: a game in play from its record (the open round, the dealer, the owners,
the score and the standings), the rule set resolved once; and a confirm request that
resolves it once and opens one SQLite connection, counted."""

from __future__ import annotations

import sqlite3

import pytest

from scorer.errors import InputError, StateError
from scorer.game import GameSetup
from scorer.rules import RuleSet
from scorer.session import GameSession
from scorer.store import GameStore
from test_learn_from_play import _call, _enrol, _game, _url
from web_helpers import make_app


@pytest.fixture
def store(tmp_path) -> GameStore:
    return GameStore(tmp_path / "games.db")


@pytest.fixture
def counted(monkeypatch) -> dict[str, int]:
    """Counts rule sets resolved (RuleSet built) and SQLite connections opened."""
    counts = {"rulesets": 0, "connections": 0}
    real_init, real_connect = RuleSet.__init__, sqlite3.connect

    def init(self, *args, **kwargs):
        counts["rulesets"] += 1
        real_init(self, *args, **kwargs)

    def connect(*args, **kwargs):
        counts["connections"] += 1
        return real_connect(*args, **kwargs)

    monkeypatch.setattr(RuleSet, "__init__", init)
    monkeypatch.setattr(sqlite3, "connect", connect)
    return counts


def _new_game(store: GameStore, teams=None):
    players = ["A", "B", "C", "D"] if teams else ["Ann", "Bob"]
    return store.create_game(preset="sakura", options={}, players=players, teams=teams,
                             first_dealer=players[1], rounds_planned=2)


def test_open_round_dealer_and_owners(store) -> None:
    game = _new_game(store)
    session = GameSession(game)
    assert (session.owners, session.open_round, session.dealer(1)) == (["Ann", "Bob"], 1, "Bob")
    with pytest.raises(StateError, match="round 2 is not open; the open round is 1"):
        session.check_open(2)
    with pytest.raises(InputError, match="owner must be one of: Ann, Bob"):
        session.check_owner("Zed")
    store.save_pile(game.id, 1, "Ann", ["08-1"])
    store.save_pile(game.id, 1, "Bob", [])
    done = store.confirm_round(game.id, 1)
    session = done.session
    assert (session.played, session.open_round, session.dealer(2)) == (1, 2, "Ann")
    with pytest.raises(StateError, match="round 1 is already confirmed"):
        session.check_open(1)
    assert session.standings().totals == {"Ann": done.result.results["Ann"].score, "Bob": 0}
    teams = GameSession(_new_game(store, teams=[["A", "C"], ["B", "D"]]))
    assert teams.owners == ["A+C", "B+D"]


def test_the_rule_set_is_resolved_once_and_only_when_needed(store, counted) -> None:
    game = _new_game(store)
    counted["rulesets"] = 0
    session = GameSession(game)
    assert session.open_round == 1 and session.dealer(1) == "Bob"
    assert counted["rulesets"] == 0                 # no rules needed for the round's state
    session.standings()
    session.context_fields()
    session.score(_Round(), None)
    assert counted["rulesets"] == 1
    assert session.with_record(game).ruleset is session.ruleset


class _Round:
    """A round with no piles saved."""
    number, dealer, result, confirmed = 1, "Bob", None, False
    piles: dict = {}


def test_a_stored_setup_is_not_checked_again(store, monkeypatch) -> None:
    game = _new_game(store)

    def refuse(self):
        raise AssertionError("a stored setup was checked again")

    monkeypatch.setattr(GameSetup, "__post_init__", refuse)
    assert GameSession(game).standings().rounds == 2


def test_a_confirm_resolves_the_rules_once_on_one_connection(tmp_path, counted) -> None:
    """A game that learns a deck: the confirm scores, saves, teaches the deck, reads the
    game back and builds its view on one connection, with one rule set."""
    client = make_app(tmp_path).test_client()
    _enrol(tmp_path / "games.db")
    for setup in ({"deck": "home"}, {}):
        game = _game(client, **setup)
        base = f"/api/games/{game['id']}/rounds/1"
        for owner, codes in (("Ann", ["08-1", "01-1"]), ("Bob", ["12-1"])):
            r = _call(client, "PUT", f"{base}/piles",
                      {"owner": owner, "codes": codes, "detected": codes, "source": "camera",
                       "crops": {c: _url(80) for c in codes}})
            assert r.status_code == 200, r.json
        counted.update(rulesets=0, connections=0)
        r = _call(client, "POST", f"{base}/confirm", {})
        assert r.status_code == 200, r.json
        assert r.json["learned"] == (3 if setup else 0)
        assert counted == {"rulesets": 1, "connections": 1}, setup
