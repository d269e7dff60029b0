"""Persistence of games in SQLite (standard library ``sqlite3``).

The store sits at the edge: it checks card codes with :mod:`scorer.cards` and keeps
what the web layer (or any other caller) computed with the rules engine. Nothing in
the core imports it.
"""

from scorer.store.paths import default_db_path
from scorer.store.rows import (Confirmation, CorrectionRecord, GameRecord, GameSummary,
                               PileRecord, RoundRecord)
from scorer.store.repository import GameNotFound, GameStore, StateError
from scorer.store.schema import SCHEMA_VERSION

__all__ = [
    "GameStore", "GameNotFound", "StateError", "GameRecord",
    "GameSummary", "RoundRecord", "PileRecord", "CorrectionRecord", "Confirmation",
    "default_db_path", "SCHEMA_VERSION",
]
