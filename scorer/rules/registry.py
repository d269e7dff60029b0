"""Every game the engine plays, by name (as python-chess's ``VARIANTS``). A new game is one
module with a ``GAME`` object (see ``scorer.rules.base.Game``) plus one line here: its name
in the import below."""

from __future__ import annotations

from types import ModuleType

from scorer.errors import InputError
from scorer.rules import (  # the games' modules: one line each, in the order they are listed
    sakura,
    koikoi,
    hanaawase,
    gostop,
)
from scorer.rules.base import Game

GAMES: dict[str, Game] = {module.GAME.name: module.GAME for module in list(globals().values())
                          if isinstance(module, ModuleType) and hasattr(module, "GAME")}


def get_game(name: str) -> Game:
    """The game called ``name``; InputError listing the games otherwise."""
    if name not in GAMES:
        raise InputError(f"unknown game {name!r} (games: {', '.join(GAMES)})")
    return GAMES[name]
