"""Persistence of games in SQLite (standard library ``sqlite3``).

The store sits at the edge: it checks card codes with :mod:`scorer.cards`, asks the
core's ``scorer.session.GameSession`` what a game's state means inside its transactions,
and keeps what it answers. Nothing in the core imports it.
"""

from scorer.errors import StateError
from scorer.store.database import Database
from scorer.store.paths import default_db_path
from scorer.store.rows import (Confirmation, CorrectionRecord, GameRecord, GameSummary,
                               PileRecord, RoundRecord)
from scorer.store.repository import GameNotFound, GameStore
from scorer.store.schema import SCHEMA_VERSION

__all__ = [
    "Database", "GameStore", "GameNotFound", "StateError", "GameRecord",
    "GameSummary", "RoundRecord", "PileRecord", "CorrectionRecord", "Confirmation",
    "default_db_path", "SCHEMA_VERSION",
]
