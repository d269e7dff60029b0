"""Every game the engine plays, by name (as python-chess's ``VARIANTS``). A new game is one
module with a ``GAME`` object (see ``scorer.rules.base.Game``) plus one line here."""

from __future__ import annotations

from scorer.errors import InputError
from scorer.rules import hanaawase, koikoi, sakura
from scorer.rules.base import Game

GAMES: dict[str, Game] = {game.name: game for game in (
    sakura.GAME,
    koikoi.GAME,
    hanaawase.GAME,
)}


def get_game(name: str) -> Game:
    """The game called ``name``; InputError listing the games otherwise."""
    if name not in GAMES:
        raise InputError(f"unknown game {name!r} (games: {', '.join(GAMES)})")
    return GAMES[name]
