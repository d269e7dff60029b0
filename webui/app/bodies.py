"""The JSON bodies of the game routes: transport limits on what a request carries, and
each body's fields for ``scorer.table.Table``.

What a game means (the open round, the dealer, the owners, the score, the standings) and
its view are the core's (``scorer.session.GameSession``, ``scorer.table.GameView``); the
core parses every value (``GameSetup.parse``, the game's ``Context.parse``).
"""

from __future__ import annotations

from typing import Any

from scorer.errors import InputError
from scorer.game import GameSetup
from scorer.hwatu import WORDS
from scorer.rules import get_ruleset, get_variant, list_presets
from scorer.store.decks import DeckStore

#: Transport limits only: what a request may carry before the core parses it.
MAX_OPTIONS = 40
MAX_TEXT = 64
MAX_LIST = 64


def presets() -> list[dict[str, Any]]:
    """Each preset (``RuleSet.to_dict``) with what its game calls a round
    (``round_word``: Hachi-Hachi's "month") and whether it has teams (``teams``: not
    Hachi-Hachi), for the new-game form."""
    return [{**rs.to_dict(), "round_word": get_variant(rs.game).round_word,
             "teams": bool(get_variant(rs.game).teams)} for rs in list_presets()]


def _clean_options(raw: Any) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, dict) or len(raw) > MAX_OPTIONS:
        raise InputError(f"options must be an object of at most {MAX_OPTIONS} rule options")
    out: dict[str, str] = {}
    for key, value in raw.items():
        if not isinstance(value, (str, int, float, bool)) or len(str(key)) > MAX_TEXT \
                or len(str(value)) > MAX_TEXT:
            raise InputError(f"option {str(key)[:MAX_TEXT]!r} needs a short text value")
        out[str(key)] = str(value).lower() if isinstance(value, bool) else str(value)
    return out


def new_game(decks: DeckStore, payload: Any) -> dict[str, Any]:
    """A new game's setup, parsed with the core (``GameSetup.parse``): the fields of
    ``Table.create``."""
    if not isinstance(payload, dict):
        raise InputError("send a JSON object: {preset, players, teams, first_dealer, rounds}")
    preset = payload.get("preset") or "sakura"
    if not isinstance(preset, str) or len(preset) > MAX_TEXT:
        raise InputError("preset must be the name of a rules preset")
    for key in ("players", "teams"):
        if isinstance(payload.get(key), list) and len(payload[key]) > MAX_LIST:
            raise InputError(f"{key} must be a list of at most {MAX_LIST} entries")
    options = _clean_options(payload.get("options"))
    rs = get_ruleset(preset, overrides=options)
    setup = GameSetup.parse(payload.get("players"), rs, payload.get("first_dealer"),
                            payload.get("rounds"), payload.get("teams"))
    return dict(preset=rs.name, options=options, players=setup.players, teams=setup.teams,
                first_dealer=str(setup.first_dealer),
                rounds_planned=int(setup.rounds or rs.default_rounds),
                deck=_deck(decks, payload.get("deck")),
                learn=_learn(payload.get("learn", True)))


def _deck(decks: DeckStore, raw: Any) -> str | None:
    """An enrolled deck's name, or None for no deck profile (400 for an unknown deck)."""
    if raw is None or raw == "":
        return None
    if not isinstance(raw, str) or len(raw) > MAX_TEXT:
        raise InputError("deck must be the name of an enrolled deck, or null")
    return decks.check(raw)


def _learn(raw: Any) -> bool:
    if not isinstance(raw, bool):
        raise InputError("learn must be true or false")
    return raw


def game_changes(decks: DeckStore, payload: Any) -> dict[str, Any]:
    """A game's changes: its deck (a name, or null) and/or its learn switch."""
    if not isinstance(payload, dict) or not payload:
        raise InputError("send a JSON object: {deck, learn}")
    changes = dict(payload)
    if "deck" in changes:
        changes["deck"] = _deck(decks, changes["deck"])
    if "learn" in changes:
        changes["learn"] = _learn(changes["learn"])
    return changes


def _owner(payload: Any, fields: str) -> Any:
    """The pile owner a JSON payload names (the game's session checks it)."""
    if not isinstance(payload, dict):
        raise InputError(f"send a JSON object: {{{fields}}}")
    return payload.get("owner")


def _words(raw: Any) -> str | None:
    """How the writing page names cards (its Card names setting), or None: by the game."""
    if raw is not None and raw not in WORDS:
        raise InputError(f"words must be one of {', '.join(WORDS)}, or null")
    return raw


def pile(payload: Any) -> dict[str, Any]:
    """A pile write's fields (``Table.save_pile``), but its version."""
    owner = _owner(payload, "owner, codes, detected, source, version, words")
    return {"owner": owner, "codes": payload.get("codes", []),
            "detected": payload.get("detected") or [],
            "source": payload.get("source") or "manual", "crops": payload.get("crops"),
            "fixes": payload.get("fixes"), "words": _words(payload.get("words"))}


def correction(payload: Any) -> dict[str, Any]:
    """A correction's fields (``Table.correct``), but its version."""
    owner = _owner(payload, "owner, action, old_code, new_code, version, words")
    return {"owner": owner, "action": payload.get("action"),
            "old_code": payload.get("old_code"), "new_code": payload.get("new_code"),
            "words": _words(payload.get("words"))}


def context(payload: Any) -> Any:
    """The round context a confirm sends (``{"context": {...}}``; none: the defaults)."""
    return payload.get("context") if isinstance(payload, dict) else None
