"""scorer.store: schema and migrations, WAL, transactions, card checks, round states."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from scorer.errors import InputError
from scorer.session import GameSession
from scorer.store import (SCHEMA_VERSION, GameNotFound, GameStore, StateError,
                          default_db_path)
from scorer.store.schema import MIGRATIONS, connect, current_version, migrate


@pytest.fixture
def store(tmp_path: Path) -> GameStore:
    return GameStore(tmp_path / "sub" / "games.db")


@pytest.fixture
def game(store: GameStore):
    return store.create_game(preset="sakura", options={"tie_policy": "shared"}, players=["Ann", "Bob"],
                             teams=None, first_dealer="Bob", rounds_planned=2)


def test_default_path_follows_xdg(tmp_path: Path) -> None:
    assert default_db_path({"XDG_DATA_HOME": str(tmp_path)}) == \
        tmp_path / "hanafuda-scorer" / "games.db"
    assert default_db_path({}).parts[-4:] == (".local", "share", "hanafuda-scorer", "games.db")


def test_new_database_is_wal_and_current(store: GameStore) -> None:
    conn = connect(store.path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert current_version(conn) == SCHEMA_VERSION == len(MIGRATIONS)
    assert conn.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0] == 1
    conn.close()


def test_migrations_apply_in_order_and_only_once(tmp_path: Path) -> None:
    conn = connect(tmp_path / "m.db")
    assert migrate(conn, MIGRATIONS[:0]) == 0
    extra = MIGRATIONS + ("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT);",)
    assert migrate(conn, extra) == len(extra)
    assert migrate(conn, extra) == len(extra)        # idempotent
    with pytest.raises(RuntimeError, match="newer"):
        migrate(conn, MIGRATIONS)                    # a file from a newer program
    conn.close()


def test_failed_migration_rolls_back(tmp_path: Path) -> None:
    conn = connect(tmp_path / "m.db")
    broken = MIGRATIONS + ("CREATE TABLE a (x); CREATE TABLE a (x);",)
    with pytest.raises(sqlite3.OperationalError):
        migrate(conn, broken)
    assert current_version(conn) == len(MIGRATIONS)
    assert conn.execute("SELECT name FROM sqlite_master WHERE name='a'").fetchone() is None
    conn.close()


def test_game_roundtrip_and_list(store: GameStore, game) -> None:
    again = store.get_game(game.id)
    assert again == game
    assert again.players == ["Ann", "Bob"] and again.options == {"tie_policy": "shared"}
    assert [g.id for g in store.list_games()] == [game.id]
    assert store.list_games()[0].rounds_confirmed == 0


def test_pile_save_logs_differences_as_corrections(store: GameStore, game) -> None:
    pile = store.save_pile(game.id, 1, "Ann", ["8-1", "01-1"], detected=["08-1", "02-1"],
                           source="camera")
    assert pile.codes == ["08-1", "01-1"]
    g = store.get_game(game.id)
    assert g.rounds[0].dealer == "Bob"
    assert [(c.action, c.old_code, c.new_code) for c in g.corrections] == \
        [("remove", "02-1", None), ("add", None, "01-1")]


def test_corrections_are_applied_and_recorded(store: GameStore, game) -> None:
    store.save_pile(game.id, 1, "Ann", ["08-1"])
    store.correct(game.id, 1, "Ann", "add", new_code="03-1")
    store.correct(game.id, 1, "Ann", "replace", old_code="08-1", new_code="08-2")
    pile = store.correct(game.id, 1, "Ann", "remove", old_code="03-1")
    assert pile.codes == ["08-2"]
    assert store.get_game(game.id).rounds[0].piles["Ann"].codes == ["08-2"]
    assert len(store.get_game(game.id).corrections) == 3


@pytest.mark.parametrize("codes, message", [
    (["13-1"], "13-1"), (["08-1", "8-1"], "08-1"), ("08-1", "list"), ([None], "None"),
])
def test_bad_codes_name_the_card(store: GameStore, game, codes, message) -> None:
    with pytest.raises(InputError, match=message):
        store.save_pile(game.id, 1, "Ann", codes)
    assert store.get_game(game.id).rounds == []          # nothing written


def test_card_in_two_piles_is_refused(store: GameStore, game) -> None:
    store.save_pile(game.id, 1, "Ann", ["08-1"])
    with pytest.raises(InputError, match=r"08-1 \(Susuki: moon\) is already in Ann's pile"):
        store.save_pile(game.id, 1, "Bob", ["01-1", "08-1"])
    store.save_pile(game.id, 1, "Bob", ["01-1"])
    with pytest.raises(InputError, match="08-1"):
        store.correct(game.id, 1, "Bob", "add", new_code="08-1")
    with pytest.raises(InputError, match="is not in"):
        store.correct(game.id, 1, "Bob", "remove", old_code="08-1")
    assert store.get_game(game.id).rounds[0].piles["Bob"].codes == ["01-1"]


def test_concurrent_saves_never_share_a_card(store: GameStore, game) -> None:
    errors: list[Exception] = []

    def save(owner: str) -> None:
        try:
            store.save_pile(game.id, 1, owner, ["08-1"])
        except InputError as exc:
            errors.append(exc)

    threads = [threading.Thread(target=save, args=(o,)) for o in ("Ann", "Bob")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    piles = store.get_game(game.id).rounds[0].piles
    assert len(errors) == 1 and len(piles) == 1


def test_round_lifecycle(store: GameStore, game) -> None:
    with pytest.raises(StateError, match="not open"):
        store.save_pile(game.id, 2, "Ann", [])
    store.save_pile(game.id, 1, "Ann", ["08-1"])
    with pytest.raises(StateError, match="missing: Bob"):
        store.confirm_round(game.id, 1)
    store.save_pile(game.id, 1, "Bob", [])
    done = store.confirm_round(game.id, 1)
    assert done.round.confirmed and done.round.result["winner"] == "Ann"
    assert done.result.next_dealer == "Ann"               # the round's winner deals next
    assert done.round.context == {"leftovers": [], "gaji_month": None}
    assert done.game == store.get_game(game.id)     # the updated game, not reloaded
    with pytest.raises(StateError, match="already confirmed"):
        store.save_pile(game.id, 1, "Ann", [])
    with pytest.raises(StateError, match="already confirmed"):
        store.correct(game.id, 1, "Ann", "remove", old_code="08-1")
    store.save_pile(game.id, 2, "Ann", ["08-1"])   # a new round, same card, dealt by Ann
    store.save_pile(game.id, 2, "Bob", [])
    store.confirm_round(game.id, 2)
    g = store.get_game(game.id)
    assert GameSession(g).finished and [r.dealer for r in g.rounds] == ["Bob", "Ann"]
    with pytest.raises(StateError, match="finished"):
        store.save_pile(game.id, 3, "Ann", [])


def test_failed_scoring_leaves_round_open(store: GameStore, game) -> None:
    store.save_pile(game.id, 1, "Ann", [])
    store.save_pile(game.id, 1, "Bob", [])
    with pytest.raises(InputError, match="gaji_month"):
        store.confirm_round(game.id, 1, {"gaji_month": 13})      # a bad round context
    assert not store.get_game(game.id).rounds[0].confirmed


def test_unknown_owner_and_game(store: GameStore, game) -> None:
    with pytest.raises(InputError, match="owner must be one of: Ann, Bob"):
        store.save_pile(game.id, 1, "Zed", [])
    with pytest.raises(GameNotFound):
        store.get_game(999)
    with pytest.raises(GameNotFound):
        store.delete_game(999)


def test_teams_own_piles(store: GameStore) -> None:
    g = store.create_game(preset="sakura", options={}, players=["A", "B", "C", "D"],
                          teams=[["A", "C"], ["B", "D"]], first_dealer="A", rounds_planned=4)
    assert GameSession(g).owners == ["A+C", "B+D"]
    store.save_pile(g.id, 1, "A+C", ["01-1"])
    with pytest.raises(InputError, match="team A\\+C's pile"):
        store.save_pile(g.id, 1, "B+D", ["01-1"])


def test_delete_cascades_and_survives_reopen(store: GameStore, game) -> None:
    store.save_pile(game.id, 1, "Ann", ["08-1"])
    reopened = GameStore(store.path)
    assert reopened.get_game(game.id).rounds[0].piles["Ann"].codes == ["08-1"]
    reopened.delete_game(game.id)
    conn = connect(store.path)
    for table in ("games", "rounds", "piles", "corrections"):
        assert conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == 0
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


def test_crops_are_kept_moved_and_dropped(store: GameStore, game) -> None:
    url = "data:image/jpeg;base64,AAAA"
    pile = store.save_pile(game.id, 1, "Ann", ["08-1", "01-1"], source="camera",
                           detected=["08-1", "01-1"],
                           crops={"08-1": url, "01-1": url + "B", "12-1": url})
    assert pile.crops == {"08-1": url, "01-1": url + "B"}        # only cards of the pile
    store.correct(game.id, 1, "Ann", "replace", old_code="08-1", new_code="08-2")
    pile = store.correct(game.id, 1, "Ann", "remove", old_code="01-1")
    assert pile.crops == {"08-2": url}
    assert store.get_game(game.id).rounds[0].piles["Ann"].crops == {"08-2": url}
    for bad in ({"08-1": "javascript:alert(1)"}, {"08-1": url + "A" * 20_000}, ["x"]):
        with pytest.raises(InputError, match="crop"):
            store.save_pile(game.id, 1, "Bob", ["08-1"], crops=bad)


def test_a_version_1_file_is_upgraded_in_place(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = connect(path)
    migrate(conn, MIGRATIONS[:1])
    conn.execute("INSERT INTO games (created_at, preset, options, players, first_dealer,"
                 " rounds_planned) VALUES ('t', 'sakura', '{}', '[\"A\", \"B\"]', 'A', 4)")
    conn.execute("INSERT INTO rounds (game_id, number, dealer) VALUES (1, 1, 'A')")
    conn.execute("INSERT INTO piles (round_id, owner, codes, detected, source, updated_at)"
                 " VALUES (1, 'A', '[\"08-1\"]', '[]', 'manual', 't')")
    conn.close()
    store = GameStore(path)
    pile = store.get_game(1).rounds[0].piles["A"]
    assert pile.codes == ["08-1"] and pile.crops == {}
    conn = connect(path)
    assert current_version(conn) == SCHEMA_VERSION == 7
    conn.close()
    assert store.get_game(1).rescored is None       # a game from before migration 7


def test_what_a_reconfirmed_round_changed_is_kept_with_the_game(store: GameStore, game) -> None:
    """Confirming a reopened round again keeps what it changed with the game (the
    round and its "rescore" entries), as stored: a new store on the file reads it back;
    a reopen, or the next confirmation of another round, drops it."""
    for n in (1, 2):
        store.save_pile(game.id, n, "Ann", ["08-1"])
        store.save_pile(game.id, n, "Bob", ["03-1"] if n == 2 else [])
        store.confirm_round(game.id, n)
    assert store.get_game(game.id).rescored is None
    store.reopen_round(game.id, 1)
    store.correct(game.id, 1, "Ann", "remove", old_code="08-1")
    store.confirm_round(game.id, 1)
    again = GameStore(store.path).get_game(game.id)
    rescores = [c.id for c in again.corrections if c.action == "rescore"]
    assert again.rescored == {"round": 1, "corrections": rescores} and len(rescores) == 2
    assert again.to_dict()["rescored"] == again.rescored
    store.reopen_round(game.id, 2)
    assert store.get_game(game.id).rescored is None
