"""The database schema as numbered migrations, and opening a connection.

``schema_version`` holds one row: the number of the last migration applied. Opening a
database applies the missing migrations in order, each in its own transaction, so an
old file is brought up to date and a new one is created from scratch the same way.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

MIGRATIONS: tuple[str, ...] = (
    # 1: games, rounds, piles, corrections
    """
    CREATE TABLE games (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        created_at TEXT NOT NULL,
        preset TEXT NOT NULL,
        options TEXT NOT NULL,            -- JSON object of rule overrides
        players TEXT NOT NULL,            -- JSON list, turn order
        teams TEXT,                       -- JSON list of lists, or NULL
        first_dealer TEXT NOT NULL,
        rounds_planned INTEGER NOT NULL
    );
    CREATE TABLE rounds (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        number INTEGER NOT NULL,
        dealer TEXT NOT NULL,
        context TEXT NOT NULL DEFAULT '{}',
        result TEXT,                      -- JSON RoundResult, once confirmed
        confirmed_at TEXT,
        UNIQUE (game_id, number)
    );
    CREATE TABLE piles (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        round_id INTEGER NOT NULL REFERENCES rounds(id) ON DELETE CASCADE,
        owner TEXT NOT NULL,
        codes TEXT NOT NULL,              -- JSON list of card codes
        detected TEXT NOT NULL,           -- JSON list: what the camera found
        source TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (round_id, owner)
    );
    CREATE TABLE corrections (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        round_id INTEGER NOT NULL REFERENCES rounds(id) ON DELETE CASCADE,
        owner TEXT NOT NULL,
        action TEXT NOT NULL,
        old_code TEXT,
        new_code TEXT,
        created_at TEXT NOT NULL
    );
    CREATE INDEX rounds_game ON rounds(game_id);
    CREATE INDEX piles_round ON piles(round_id);
    CREATE INDEX corrections_round ON corrections(round_id);
    """,
    # 2: the crop of each card as the camera saw it (JSON {code: data URL})
    """
    ALTER TABLE piles ADD COLUMN crops TEXT NOT NULL DEFAULT '{}';
    """,
    # 3: enrolled decks (scorer.store.decks): each card's crops, and their embeddings
    # by the classifier named in `model` (recomputed from the crops for another model)
    """
    CREATE TABLE decks (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE deck_cards (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        deck_id INTEGER NOT NULL REFERENCES decks(id) ON DELETE CASCADE,
        code TEXT NOT NULL,
        crop BLOB NOT NULL,               -- PNG of the upright crop
        source TEXT NOT NULL,             -- the file (or round) it came from
        model TEXT,                       -- the classifier of `embedding`
        embedding BLOB,                   -- float32 embeddings: the crop, then turned
        created_at TEXT NOT NULL
    );
    CREATE INDEX deck_cards_deck ON deck_cards(deck_id);
    """,
    # 4: the deck a game reads its cards with (an enrolled deck's name, kept if the deck
    # goes), whether its confirmed rounds teach that deck (NULL: on), and how many crops
    # each confirmed round taught it
    """
    ALTER TABLE games ADD COLUMN deck TEXT;
    ALTER TABLE games ADD COLUMN learn INTEGER;
    ALTER TABLE rounds ADD COLUMN learned INTEGER;
    """,
    # 5: each pile's version (a write names the version it replaces: no lost update),
    # and the game a learned deck crop came from (deleted with that game)
    """
    ALTER TABLE piles ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE deck_cards ADD COLUMN game_id INTEGER REFERENCES games(id) ON DELETE CASCADE;
    CREATE INDEX deck_cards_game ON deck_cards(game_id);
    """,
    # 6: a confirmed round reopened and scored again: the correction log keeps each
    # round's result before and after (JSON RoundResult; actions "reopen", "rescore")
    """
    ALTER TABLE corrections ADD COLUMN before TEXT;
    ALTER TABLE corrections ADD COLUMN after TEXT;
    """,
    # 7: what the game's last confirmation changed when it confirmed a reopened round
    # again (JSON {"round": N, "corrections": [ids of its "rescore" entries]}; NULL
    # after any other confirmation or a reopen): the page lists it with that result
    """
    ALTER TABLE games ADD COLUMN rescored TEXT;
    """,
)

SCHEMA_VERSION = len(MIGRATIONS)


def connect(path: Path | str) -> sqlite3.Connection:
    """Open the database (creating its folder), in WAL mode with foreign keys on.

    The connection is in autocommit mode; callers open transactions explicitly
    (``BEGIN IMMEDIATE``) so that each write is one atomic transaction.
    """
    if str(path) != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), timeout=10.0, isolation_level=None,
                           check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute("PRAGMA busy_timeout=10000")
    return conn


def current_version(conn: sqlite3.Connection) -> int:
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='schema_version'").fetchone()
    if not exists:
        return 0
    row = conn.execute("SELECT version FROM schema_version").fetchone()
    return int(row[0]) if row else 0


def migrate(conn: sqlite3.Connection, migrations: tuple[str, ...] = MIGRATIONS) -> int:
    """Apply the migrations this database lacks; return the resulting version."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        if conn.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0] == 0:
            conn.execute("INSERT INTO schema_version (version) VALUES (0)")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    version = current_version(conn)
    if version > len(migrations):
        raise RuntimeError(f"database schema version {version} is newer than this program "
                           f"({len(migrations)}); upgrade hanafuda-scorer")
    for number in range(version + 1, len(migrations) + 1):
        conn.execute("BEGIN IMMEDIATE")
        try:
            if current_version(conn) >= number:   # another process got there first
                conn.execute("ROLLBACK")
                continue
            for statement in _statements(migrations[number - 1]):
                conn.execute(statement)
            conn.execute("UPDATE schema_version SET version = ?", (number,))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return current_version(conn)


def _statements(script: str) -> list[str]:
    """Split a migration script into statements (executescript would commit early)."""
    text = "\n".join(line.split("--", 1)[0] for line in script.splitlines())
    out: list[str] = []
    buf = ""
    for part in text.split(";"):
        buf += part + ";"
        if sqlite3.complete_statement(buf):
            if buf.strip(" \n\t;"):
                out.append(buf.strip())
            buf = ""
    return out
