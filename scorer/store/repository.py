"""``GameStore``: the games, rounds, piles and corrections of one SQLite file.

Every write is one ``BEGIN IMMEDIATE`` transaction that checks the game's state and
the cards before it changes anything, so two requests cannot put one card in two
piles, and a crash leaves either the whole change or none of it. What a game's state
means (the open round, the dealer, the owners, the score) is the core's
``scorer.session.GameSession``, asked inside the transaction.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

from scorer.cards import card
from scorer.errors import InputError, StalePile, StateError
from scorer.rules.wording import card_name
from scorer.session import GameSession
from scorer.store.database import Database
from scorer.store.rows import (Confirmation, CorrectionRecord, GameRecord, GameSummary,
                               PileRecord, RoundRecord)

SOURCES = ("camera", "photo", "manual")
CROP_PREFIX = "data:image/jpeg;base64,"
MAX_CROP = 16_000
ACTIONS = ("add", "remove", "replace")
MAX_ID = 2**63 - 1          # SQLite's largest INTEGER


def _next(row: sqlite3.Row | None) -> int:
    """The version a write gives a pile (its first save: 1)."""
    return 1 if row is None else int(row["version"]) + 1


def _pile_record(row: sqlite3.Row) -> PileRecord:
    return PileRecord(row["owner"], json.loads(row["codes"]), json.loads(row["detected"]),
                      row["source"], row["updated_at"], json.loads(row["crops"]),
                      int(row["version"]))


class GameNotFound(LookupError):
    """No game with this id."""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _inserted_id(cur: sqlite3.Cursor) -> int:
    """The id of the row an INSERT on ``cur`` just added."""
    if cur.lastrowid is None:
        raise sqlite3.DatabaseError("the INSERT added no row")
    return cur.lastrowid


def _check_id(game_id: int) -> None:
    """An id SQLite cannot hold (a URL may carry any integer) names no game."""
    if not 0 <= game_id <= MAX_ID:
        text = str(game_id)
        raise GameNotFound(f"no game {text if len(text) <= 24 else text[:24] + '...'}")


def _owner_label(owner: str) -> str:
    return f"{owner}'s" if "+" not in owner else f"team {owner}'s"


def _fixes(raw: Any, found: Sequence[str], final: Sequence[str]) -> list[tuple[str, str]]:
    """The [old, new] fixes of a pile being saved that hold: old detected and gone, new
    not detected and kept, each card in one fix. Others are dropped (the diff of detected
    and saved records them as a remove and an add)."""
    if raw is None:
        return []
    if not isinstance(raw, (list, tuple)) or len(raw) > 48 or not all(
            isinstance(f, (list, tuple)) and len(f) == 2 for f in raw):
        raise InputError("fixes must be a list of [old code, new code] pairs")
    out: list[tuple[str, str]] = []
    for old, new in raw:
        old, new = card(old).code, card(new).code
        if old in found and old not in final and new in final and new not in found and \
                all(old != o and new != n for o, n in out):
            out.append((old, new))
    return out


def normalise_codes(codes: Sequence[Any]) -> list[str]:
    """Canonical codes (``8-1`` -> ``08-1``); InputError naming an unknown or repeated card."""
    if not isinstance(codes, (list, tuple)):
        raise InputError("codes must be a list of card codes like 08-1")
    if len(codes) > 48:
        raise InputError(f"a pile holds at most 48 cards, not {len(codes)}")
    out: list[str] = []
    for code in codes:
        c = card(code)
        if c.code in out:
            raise InputError(f"card {c.code} ({c.name}) is listed twice")
        out.append(c.code)
    return out


def _moved(crops: Any, fixes: Any, found: Sequence[str], final: Sequence[str]) -> Any:
    """``crops`` with the crop of each detected card the players fixed (old -> new, ``fixes``
    as ``_fixes`` checked them) under the code they chose: the crop shows the physical
    card, so it teaches that card, and never the code fixed away (even where that code
    is in the pile again, added by hand)."""
    if not fixes or not isinstance(crops, dict):
        return crops
    out = dict(crops)
    for old, new in ((card(o).code, card(n).code) for o, n in fixes):
        if old not in found or new not in final:
            continue
        for code in [k for k in out if _same(k, old)]:
            url = out.pop(code)
            if not any(_same(k, new) for k in out):
                out[new] = url
    return out


def _same(code: str, canonical: str) -> bool:
    try:
        return card(code).code == canonical
    except InputError:
        return False


def clean_crops(crops: Any, codes: Sequence[str]) -> dict[str, str]:
    """Crops kept with a pile: small JPEG data URLs, one per card of the pile."""
    if not crops:
        return {}
    if not isinstance(crops, dict):
        raise InputError("crops must be an object {code: JPEG data URL}")
    out: dict[str, str] = {}
    for code, url in crops.items():
        c = card(code).code
        if c not in codes:
            continue
        if not isinstance(url, str) or not url.startswith(CROP_PREFIX) or len(url) > MAX_CROP:
            raise InputError(f"the crop of {c} must be a JPEG data URL under {MAX_CROP} bytes")
        out[c] = url
    return out


class GameStore:
    """The games of one database (a ``Database``, or a file opened as one)."""

    def __init__(self, db: Database | Path | str) -> None:
        self.db = Database.of(db)
        self._connection = self.db.connection
        self._write = self.db.write

    @property
    def path(self) -> Path:
        return self.db.path

    # ----------------------------------------------------------------- games
    def create_game(self, *, preset: str, options: dict[str, str], players: list[str],
                    teams: list[list[str]] | None, first_dealer: str,
                    rounds_planned: int, deck: str | None = None,
                    learn: bool = True) -> GameRecord:
        with self._write() as conn:
            cur = conn.execute(
                "INSERT INTO games (created_at, preset, options, players, teams, first_dealer,"
                " rounds_planned, deck, learn) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (_now(), preset, json.dumps(options), json.dumps(players),
                 json.dumps(teams) if teams else None, first_dealer, int(rounds_planned),
                 deck or None, int(bool(learn))))
            game_id = _inserted_id(cur)
        return self.get_game(game_id)

    def update_game(self, game_id: int, changes: dict[str, Any]) -> GameRecord:
        """Change a game's ``deck`` (a name, or None) and/or ``learn`` switch."""
        unknown = set(changes) - {"deck", "learn"}
        if unknown:
            raise InputError(f"a game's {', '.join(sorted(unknown))} cannot be changed "
                             "(only deck and learn)")
        values = {k: (changes[k] or None) if k == "deck" else int(bool(changes[k]))
                  for k in changes}
        with self._write() as conn:
            self._load_game(conn, game_id)
            for key, value in values.items():
                conn.execute(f"UPDATE games SET {key} = ? WHERE id = ?", (value, game_id))
        return self.get_game(game_id)

    def set_learned(self, game_id: int, number: int, learned: int) -> None:
        """Record how many card crops a confirmed round taught the game's deck."""
        with self._write() as conn:
            conn.execute("UPDATE rounds SET learned = ? WHERE game_id = ? AND number = ?",
                         (int(learned), game_id, number))

    def list_games(self, limit: int = 500) -> list[GameSummary]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT g.*, (SELECT COUNT(*) FROM rounds r WHERE r.game_id = g.id"
                " AND r.confirmed_at IS NOT NULL) AS done FROM games g"
                " ORDER BY g.id DESC LIMIT ?", (limit,)).fetchall()
        return [GameSummary(id=r["id"], created_at=r["created_at"], preset=r["preset"],
                            players=json.loads(r["players"]),
                            rounds_planned=r["rounds_planned"], rounds_confirmed=r["done"],
                            finished=r["done"] >= r["rounds_planned"]) for r in rows]

    def get_game(self, game_id: int) -> GameRecord:
        with self._connection() as conn:
            return self._load_game(conn, game_id)

    def delete_game(self, game_id: int) -> None:
        _check_id(game_id)
        with self._write() as conn:
            if conn.execute("DELETE FROM games WHERE id = ?", (game_id,)).rowcount == 0:
                raise GameNotFound(f"no game {game_id}")

    def scored_piles(self) -> list[PileRecord]:
        """Every pile of a confirmed round, oldest first: what was detected and what the
        players confirmed (``scorer.field_accuracy`` compares them)."""
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT p.* FROM piles p JOIN rounds r ON r.id = p.round_id"
                " WHERE r.confirmed_at IS NOT NULL ORDER BY p.id").fetchall()
        return [PileRecord(p["owner"], json.loads(p["codes"]), json.loads(p["detected"]),
                           p["source"], p["updated_at"]) for p in rows]

    # ----------------------------------------------------------------- piles
    def save_pile(self, game_id: int, number: int, owner: str, codes: Sequence[Any], *,
                  detected: Sequence[Any] = (), source: str = "manual",
                  crops: Any = None, version: int | None = None,
                  fixes: Any = None, words: str | None = None) -> PileRecord:
        """Save (or replace) one pile of the open round, with the corrections that turn
        what was detected into ``codes``, in one transaction (the round's first pile
        opens it, dealt by the session's dealer). ``version`` is the version this write
        replaces (0: the pile is not saved yet); StalePile when it is not the pile's.
        None replaces whatever is there: only for a single writer (a script, a test);
        the web API refuses a write that names no version. ``fixes``: [old, new] pairs of
        cards the players fixed before saving (a detected card read another way): each
        is recorded as one replace, not as a remove and an add. ``words``: how the page
        that writes names cards (``card_name``), for a refusal."""
        if source not in SOURCES:
            raise InputError(f"source must be one of {', '.join(SOURCES)}, not {source!r}")
        final = normalise_codes(codes)
        found = normalise_codes(detected) if source != "manual" else []
        fixed = _fixes(fixes, found, final)
        kept = clean_crops(_moved(crops, fixes, found, final), final)
        with self._write() as conn:
            session = GameSession(self._load_game(conn, game_id))
            round_id = self._open_round(conn, session, number, owner, create=True)
            row = self._pile_at(conn, round_id, owner, version)
            self._check_conflicts(conn, round_id, owner, final, session.ruleset.game, words)
            now = _now()
            conn.execute(
                "INSERT INTO piles (round_id, owner, codes, detected, source, updated_at, crops,"
                " version) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (round_id, owner) DO"
                " UPDATE SET codes = excluded.codes, detected = excluded.detected,"
                " source = excluded.source, updated_at = excluded.updated_at,"
                " crops = excluded.crops, version = excluded.version",
                (round_id, owner, json.dumps(final), json.dumps(found), source, now,
                 json.dumps(kept), _next(row)))
            if source != "manual":
                for old, new in fixed:
                    self._log(conn, round_id, owner, "replace", old, new, now)
                for code in found:
                    if code not in final and code not in dict(fixed):
                        self._log(conn, round_id, owner, "remove", code, None, now)
                for code in final:
                    if code not in found and code not in dict(fixed).values():
                        self._log(conn, round_id, owner, "add", None, code, now)
        return PileRecord(owner, final, found, source, now, kept, _next(row))

    def correct(self, game_id: int, number: int, owner: str, action: str,
                old_code: str | None = None, new_code: str | None = None, *,
                version: int | None = None, words: str | None = None) -> PileRecord:
        """Apply one hand correction to a saved pile and record it, in one transaction;
        ``version``: the pile's version the correction was made on (StalePile if not;
        None as for ``save_pile``); ``words`` as for ``save_pile``."""
        with self._write() as conn:
            session = GameSession(self._load_game(conn, game_id))
            if action not in ACTIONS:
                raise InputError(f"action must be one of {', '.join(ACTIONS)}, "
                                 f"not {str(action)[:20]!r}")
            old = card(old_code).code if action in ("remove", "replace") else None
            new = card(new_code).code if action in ("add", "replace") else None
            round_id = self._open_round(conn, session, number, owner, create=False)
            row = self._pile_at(conn, round_id, owner, version)
            if row is None:
                raise StateError(f"{_owner_label(owner)} pile is not saved yet")
            codes: list[str] = json.loads(row["codes"])
            game = session.ruleset.game
            if old is not None and old not in codes:
                raise InputError(f"card {card_name(game, old, words)} is not in "
                                 f"{_owner_label(owner)} pile")
            if new is not None and new in codes and new != old:
                raise InputError(f"card {card_name(game, new, words)} is already in "
                                 f"{_owner_label(owner)} pile")
            crops: dict[str, str] = json.loads(row["crops"])
            if action == "remove" and old is not None:
                codes.remove(old)
                crops.pop(old, None)
            elif action == "add" and new is not None:
                codes.append(new)
            elif old is not None and new is not None:       # replace
                codes[codes.index(old)] = new
                if old in crops:            # the crop shows the physical card: keep it
                    crops[new] = crops.pop(old)
            self._check_conflicts(conn, round_id, owner, codes, game, words)
            now = _now()
            conn.execute("UPDATE piles SET codes = ?, crops = ?, updated_at = ?, version = ?"
                         " WHERE id = ?", (json.dumps(codes), json.dumps(crops), now,
                                           _next(row), row["id"]))
            self._log(conn, round_id, owner, action, old, new, now)
        return PileRecord(owner, codes, json.loads(row["detected"]), row["source"], now, crops,
                          _next(row))

    @staticmethod
    def _pile_at(conn: sqlite3.Connection, round_id: int, owner: str,
                 version: int | None) -> sqlite3.Row | None:
        """The pile's row (None: not saved yet, version 0) if it is at ``version``, else
        StalePile carrying the pile as it is: a write names the version it replaces."""
        row = conn.execute("SELECT * FROM piles WHERE round_id = ? AND owner = ?",
                           (round_id, owner)).fetchone()
        have = int(row["version"]) if row is not None else 0
        if version is not None and version != have:
            current = None if row is None else _pile_record(row)
            raise StalePile(f"{_owner_label(owner)} pile has changed since (it is at version "
                            f"{have}, this change was made on {str(version)[:12]}): see the "
                            "pile as it is now and apply your change again", current)
        return row

    # ---------------------------------------------------------------- rounds
    def confirm_round(self, game_id: int, number: int, context: Any = None) -> Confirmation:
        """Score the open round with the round ``context`` a caller sent and mark it
        confirmed, in one transaction (the piles cannot change meanwhile): the game's
        session scores the game and the round as they stand. A reopened round is scored
        again, and so is every later confirmed round (its dealer from the round before),
        each change in the correction log with the result before and after. The game
        comes back with the round confirmed, and its session with the rule set it
        resolved."""
        with self._write() as conn:
            game = self._load_game(conn, game_id)
            session = GameSession(game)
            session.check_open(number)
            existing = next((r for r in game.rounds if r.number == number), None)
            missing = session.missing_piles(existing, context)
            if existing is None or missing:
                raise StateError("save every pile before confirming the round; missing: "
                                 + ", ".join(missing))
            scored = session.score(existing, context)
            saved = scored.result.to_dict()
            now = _now()
            round_id = self._round_id(conn, game_id, number)
            conn.execute("UPDATE rounds SET context = ?, result = ?, confirmed_at = ?"
                         " WHERE id = ?", (json.dumps(scored.context), json.dumps(saved),
                                           now, round_id))
            before = self._reopened_result(conn, round_id)
            rescored: list[int] = []
            if before is not None:
                rescored.append(self._log(conn, round_id, "", "rescore", None, None, now,
                                          before, saved))
            later = {r.number: r for r in game.rounds}
            for again in session.rescore_after(number, scored):
                later_id = self._round_id(conn, game_id, again.number)
                if again.scored is None:
                    conn.execute("UPDATE rounds SET dealer = ? WHERE id = ?",
                                 (again.dealer, later_id))
                    continue
                result = again.scored.result.to_dict()
                conn.execute("UPDATE rounds SET dealer = ?, result = ? WHERE id = ?",
                             (again.dealer, json.dumps(result), later_id))
                if json.loads(json.dumps(result)) != later[again.number].result:
                    rescored.append(self._log(conn, later_id, "", "rescore", None, None, now,
                                              later[again.number].result, result))
            # what this confirmation changed, kept with the game (the page lists it with
            # the round's result, after a reload too); none: a first confirmation
            conn.execute("UPDATE games SET rescored = ? WHERE id = ?",
                         (json.dumps({"round": number, "corrections": rescored})
                          if before is not None else None, game_id))
            game = self._load_game(conn, game_id)
        rnd = next(r for r in game.rounds if r.number == number)
        return Confirmation(rnd, scored.result, game, session.with_record(game))

    def reopen_round(self, game_id: int, number: int) -> GameRecord:
        """Reopen confirmed round ``number`` for fixes, in one transaction: it is the open
        round again (a finished game is open again), its result and the crops it taught
        are gone until it is confirmed again (``confirm_round`` scores it and the later
        rounds anew). The correction log keeps its result as it was ("reopen")."""
        with self._write() as conn:
            game = self._load_game(conn, game_id)
            GameSession(game).check_confirmed(number)
            rnd = next(r for r in game.rounds if r.number == number)
            round_id = self._round_id(conn, game_id, number)
            conn.execute("UPDATE rounds SET result = NULL, confirmed_at = NULL, learned = NULL"
                         " WHERE id = ?", (round_id,))
            conn.execute("UPDATE games SET rescored = NULL WHERE id = ?", (game_id,))
            self._log(conn, round_id, "", "reopen", None, None, _now(), rnd.result, None)
            return self._load_game(conn, game_id)

    @staticmethod
    def _round_id(conn: sqlite3.Connection, game_id: int, number: int) -> int:
        row = conn.execute("SELECT id FROM rounds WHERE game_id = ? AND number = ?",
                           (game_id, number)).fetchone()
        return int(row["id"])

    @staticmethod
    def _reopened_result(conn: sqlite3.Connection, round_id: int) -> dict[str, Any] | None:
        """The result a round had when it was last reopened, if it was reopened since it
        was last scored (None: a first confirm)."""
        row = conn.execute("SELECT action, before FROM corrections WHERE round_id = ? AND "
                           "action IN ('reopen', 'rescore') ORDER BY id DESC LIMIT 1",
                           (round_id,)).fetchone()
        if row is None or row["action"] != "reopen" or row["before"] is None:
            return None
        return dict(json.loads(row["before"]))

    # --------------------------------------------------------------- helpers
    def _open_round(self, conn: sqlite3.Connection, session: GameSession, number: int,
                    owner: str, create: bool) -> int:
        session.check_open(number)
        session.check_owner(owner)
        game_id = session.record.id
        row = conn.execute("SELECT id FROM rounds WHERE game_id = ? AND number = ?",
                           (game_id, number)).fetchone()
        if row is not None:
            return int(row["id"])
        if not create:
            raise StateError(f"round {number} has no saved pile yet")
        cur = conn.execute("INSERT INTO rounds (game_id, number, dealer) VALUES (?, ?, ?)",
                           (game_id, number, session.dealer(number)))
        return _inserted_id(cur)

    @staticmethod
    def _check_conflicts(conn: sqlite3.Connection, round_id: int, owner: str,
                         codes: Sequence[str], game: str, words: str | None) -> None:
        """A card already in another pile of the round is refused, named as the game's
        page names it (``words``; none: in a hwatu game, hwatu number and words)."""
        rows = conn.execute("SELECT owner, codes FROM piles WHERE round_id = ? AND owner != ?",
                            (round_id, owner)).fetchall()
        for row in rows:
            taken = set(json.loads(row["codes"]))
            for code in codes:
                if code in taken:
                    raise InputError(f"card {card_name(game, code, words)} is already in "
                                     f"{_owner_label(row['owner'])} pile")

    @staticmethod
    def _log(conn: sqlite3.Connection, round_id: int, owner: str, action: str,
             old: str | None, new: str | None, now: str, before: Any = None,
             after: Any = None) -> int:
        """Add one entry to the correction log; its id."""
        cur = conn.execute("INSERT INTO corrections (round_id, owner, action, old_code,"
                           " new_code, created_at, before, after)"
                           " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                           (round_id, owner, action, old, new, now,
                            None if before is None else json.dumps(before),
                            None if after is None else json.dumps(after)))
        return _inserted_id(cur)

    @staticmethod
    def _load_game(conn: sqlite3.Connection, game_id: int) -> GameRecord:
        _check_id(game_id)
        game = conn.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        if game is None:
            raise GameNotFound(f"no game {game_id}")
        rounds: list[RoundRecord] = []
        numbers: dict[int, int] = {}
        for row in conn.execute("SELECT * FROM rounds WHERE game_id = ? ORDER BY number",
                                (game_id,)).fetchall():
            piles = {
                pile["owner"]: _pile_record(pile)
                for pile in conn.execute("SELECT * FROM piles WHERE round_id = ? ORDER BY id",
                                         (row["id"],)).fetchall()}
            numbers[row["id"]] = row["number"]
            rounds.append(RoundRecord(row["number"], row["dealer"], piles,
                                      json.loads(row["context"]),
                                      json.loads(row["result"]) if row["result"] else None,
                                      row["confirmed_at"], row["learned"]))
        corrections = [
            CorrectionRecord(fix["id"], numbers[fix["round_id"]], fix["owner"], fix["action"],
                             fix["old_code"], fix["new_code"], fix["created_at"],
                             json.loads(fix["before"]) if fix["before"] else None,
                             json.loads(fix["after"]) if fix["after"] else None)
            for fix in conn.execute(
                "SELECT c.* FROM corrections c JOIN rounds r ON r.id = c.round_id"
                " WHERE r.game_id = ? ORDER BY c.id", (game_id,)).fetchall()]
        teams = json.loads(game["teams"]) if game["teams"] else None
        enrolled = game["deck"] is not None and conn.execute(
            "SELECT 1 FROM decks WHERE name = ?", (game["deck"],)).fetchone() is not None
        return GameRecord(id=game["id"], created_at=game["created_at"], preset=game["preset"],
                          options=json.loads(game["options"]),
                          players=json.loads(game["players"]), teams=teams,
                          first_dealer=game["first_dealer"],
                          rounds_planned=game["rounds_planned"], rounds=rounds,
                          corrections=corrections, deck=game["deck"],
                          learn=game["learn"] is None or bool(game["learn"]),
                          deck_enrolled=enrolled,
                          rescored=json.loads(game["rescored"]) if game["rescored"] else None)
