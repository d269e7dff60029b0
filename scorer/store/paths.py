"""Where the game database lives by default."""

from __future__ import annotations

import os
from pathlib import Path

APP_DIR = "hanafuda-scorer"
DB_FILE = "games.db"


def default_db_path(env: dict[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME/hanafuda-scorer/games.db``, else ``~/.local/share/...``
    (``%LOCALAPPDATA%`` on Windows)."""
    env = dict(os.environ) if env is None else env
    base = env.get("XDG_DATA_HOME") or env.get("LOCALAPPDATA")
    root = Path(base) if base else Path.home() / ".local" / "share"
    return root / APP_DIR / DB_FILE
