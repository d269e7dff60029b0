"""The web's side of a game: transport limits on what a request carries, and the JSON
view of a game.

What a game means (the open round, the dealer, the owners, the score, the standings) is
the core's ``scorer.session.GameSession``, which the store asks inside its transactions;
the core parses every value (``GameSetup.parse``, the game's ``Context.parse``).
"""

from __future__ import annotations

from typing import Any

from scorer.errors import InputError
from scorer.game import GameSetup
from scorer.rules import get_ruleset, list_presets
from scorer.session import GameSession
from scorer.store import Confirmation, GameRecord, GameStore, PileRecord
from scorer.store.decks import DeckStore

#: Transport limits only: what a request may carry before the core parses it.
MAX_OPTIONS = 40
MAX_TEXT = 64
MAX_LIST = 64


def presets() -> list[dict[str, Any]]:
    return [rs.to_dict() for rs in list_presets()]


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


def create_game(store: GameStore, decks: DeckStore, payload: Any) -> GameRecord:
    """Parse a new game's setup with the core (``GameSetup.parse``) and store it."""
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
    return store.create_game(preset=rs.name, options=options, players=setup.players,
                             teams=setup.teams, first_dealer=str(setup.first_dealer),
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


def update_game(store: GameStore, decks: DeckStore, game_id: int,
                payload: Any) -> GameRecord:
    """Change a game's deck (a name, or null) and/or its learn switch."""
    if not isinstance(payload, dict) or not payload:
        raise InputError("send a JSON object: {deck, learn}")
    changes = dict(payload)
    if "deck" in changes:
        changes["deck"] = _deck(decks, changes["deck"])
    if "learn" in changes:
        changes["learn"] = _learn(changes["learn"])
    return store.update_game(game_id, changes)


def view(session: GameSession, crops: bool = True) -> dict[str, Any]:
    """The game as the page and the API show it (card crops for the open round only)."""
    game = session.record
    open_round = session.open_round
    out = game.to_dict(crops)
    out["owners"] = session.owners
    out["finished"] = session.finished
    out["ruleset"] = session.ruleset.to_dict()
    out["context_fields"] = session.context_fields()
    out["context_defaults"] = session.context_defaults(open_round) if open_round else {}
    out["open_round"] = open_round
    out["dealer"] = session.dealer(open_round) if open_round else None
    out["standings"] = session.standings().to_dict()
    if game.deck and not game.deck_enrolled:
        out["deck_note"] = (f"deck {game.deck!r} is no longer enrolled: cards are read "
                            "without a deck profile")
    return out


def _owner(payload: Any, fields: str) -> Any:
    """The pile owner a JSON payload names (the game's session checks it)."""
    if not isinstance(payload, dict):
        raise InputError(f"send a JSON object: {{{fields}}}")
    return payload.get("owner")


def save_pile(store: GameStore, game_id: int, number: int, payload: Any,
              version: int) -> PileRecord:
    owner = _owner(payload, "owner, codes, detected, source, version")
    source = payload.get("source") or "manual"
    return store.save_pile(game_id, number, owner, payload.get("codes", []),
                           detected=payload.get("detected") or [], source=source,
                           crops=payload.get("crops"), version=version,
                           fixes=payload.get("fixes"))


def correct(store: GameStore, game_id: int, number: int, payload: Any,
            version: int) -> PileRecord:
    owner = _owner(payload, "owner, action, old_code, new_code, version")
    return store.correct(game_id, number, owner, payload.get("action"),
                         payload.get("old_code"), payload.get("new_code"), version=version)


def confirm(store: GameStore, game_id: int, number: int, payload: Any) -> Confirmation:
    """Confirm a round: the store loads, scores (with the game's session) and saves it in
    one transaction, and gives back the round, its result and the updated game."""
    payload = payload if isinstance(payload, dict) else {}
    return store.confirm_round(game_id, number, payload.get("context"))
