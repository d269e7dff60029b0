"""Every game the engine plays, by name (as python-chess's ``VARIANTS``). A new game is one
module of ``scorer.rules`` with a ``GAME`` object (see ``scorer.rules.base.Game``) plus one
line here: its module's name in ``MODULES``."""

from __future__ import annotations

from importlib import import_module

from scorer.errors import InputError
from scorer.rules.base import Game

#: The games' modules in ``scorer.rules``, one line each, in the order they are listed.
#: (``tests/test_imports.py`` reads this tuple as imports of the registry.)
MODULES: tuple[str, ...] = (
    "sakura",
    "koikoi",
    "hanaawase",
    "gostop",
)

GAMES: dict[str, Game] = {game.name: game for game in (
    import_module(f"scorer.rules.{module}").GAME for module in MODULES)}


def get_game(name: str) -> Game:
    """The game called ``name``; InputError listing the games otherwise."""
    if name not in GAMES:
        raise InputError(f"unknown game {name!r} (games: {', '.join(GAMES)})")
    return GAMES[name]
