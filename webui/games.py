"""The web's game logic: create a game, score a round, build the game's view.

It glues the store (persistence) to the rules engine (``scorer.rules``/``scorer.game``),
which parses every value (``GameSetup.parse``, the game's ``Context.parse``); this
module keeps only transport limits. The engine knows nothing of this module.
"""

from __future__ import annotations

from typing import Any

from scorer.errors import InputError
from scorer.game import GameSetup
from scorer.game import standings as game_standings
from scorer.rules import (RoundInput, RoundResult, RuleSet, get_game, get_ruleset,
                          list_presets, score_round)
from scorer.store import Confirmation, GameRecord, GameStore, RoundRecord
from scorer.store.decks import DeckStore
from scorer.store.repository import Scorer

#: Transport limits only: what a request may carry before the core parses it.
MAX_OPTIONS = 40
MAX_TEXT = 64
MAX_LIST = 64


def presets() -> list[dict[str, Any]]:
    return [rs.to_dict() for rs in list_presets()]


def ruleset(game: GameRecord) -> RuleSet:
    return get_ruleset(game.preset, overrides=game.options)


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


def create_game(store: GameStore, payload: Any) -> GameRecord:
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
                             deck=_deck(store, payload.get("deck")),
                             learn=_learn(payload.get("learn", True)))


def _deck(store: GameStore, raw: Any) -> str | None:
    """An enrolled deck's name, or None for no deck profile (400 for an unknown deck)."""
    if raw is None or raw == "":
        return None
    if not isinstance(raw, str) or len(raw) > MAX_TEXT:
        raise InputError("deck must be the name of an enrolled deck, or null")
    return DeckStore(store.path).check(raw)


def _learn(raw: Any) -> bool:
    if not isinstance(raw, bool):
        raise InputError("learn must be true or false")
    return raw


def update_game(store: GameStore, game_id: int, payload: Any) -> GameRecord:
    """Change a game's deck (a name, or null) and/or its learn switch."""
    if not isinstance(payload, dict) or not payload:
        raise InputError("send a JSON object: {deck, learn}")
    changes = dict(payload)
    if "deck" in changes:
        changes["deck"] = _deck(store, changes["deck"])
    if "learn" in changes:
        changes["learn"] = _learn(changes["learn"])
    return store.update_game(game_id, changes)


def current_round(game: GameRecord) -> int | None:
    done = len(game.confirmed_rounds)
    return None if done >= game.rounds_planned else done + 1


def dealer_for(game: GameRecord, number: int) -> str:
    """Round 1: the first dealer; later: the previous round's next dealer."""
    previous = [r for r in game.confirmed_rounds if r.number == number - 1]
    if previous and previous[0].result:
        return str(previous[0].result.get("next_dealer") or game.first_dealer)
    return game.first_dealer


def _scorer(raw_context: Any) -> Scorer:
    """The store's scoring step for a confirm: parse the round context against the game
    as it stands in the transaction, then score the round with the engine."""
    def score(game: GameRecord, rnd: RoundRecord) -> tuple[dict[str, Any], RoundResult]:
        rs = ruleset(game)
        raw = raw_context
        if isinstance(raw_context, dict) or raw_context is None:
            defaults = context_defaults(game, rnd.number)
            raw = {**defaults, **{k: v for k, v in (raw_context or {}).items()
                                  if not (k in defaults and v in (None, ""))}}
        context = get_game(rs.game).context.parse(raw, game.players, rs.game)
        piles = {owner: list(pile.codes) for owner, pile in rnd.piles.items()}
        result = score_round(RoundInput(list(game.players), piles, rnd.dealer, game.teams,
                                        context), rs)
        return context.to_dict(), result
    return score


def context_defaults(game: GameRecord, number: int) -> dict[str, Any]:
    """Context values round ``number`` takes from the rounds before it (Go-Stop's nagari
    carry), where the round's own context does not give them."""
    rs = ruleset(game)
    results = [RoundResult.from_dict(r.result) for r in game.confirmed_rounds
               if r.result and r.number < number]
    return get_game(rs.game).context_from_log(results, rs)


def standings(game: GameRecord) -> dict[str, Any]:
    """Totals, running totals and the winner, from the results stored when each round
    was confirmed (so a game reads the same whatever later versions of the rules do)."""
    rs = ruleset(game)
    results = [RoundResult.from_dict(r.result) for r in game.confirmed_rounds if r.result]
    setup = GameSetup(players=list(game.players), ruleset=rs, first_dealer=game.first_dealer,
                      rounds=game.rounds_planned, teams=game.teams)
    return game_standings(setup, results).to_dict()


def view(game: GameRecord, crops: bool = True) -> dict[str, Any]:
    """The game as the page and the API show it (card crops for the open round only)."""
    open_round = current_round(game)
    out = game.to_dict(crops)
    rs = ruleset(game)
    out["ruleset"] = rs.to_dict()
    out["context_fields"] = get_game(rs.game).context.schema()
    out["context_defaults"] = context_defaults(game, open_round) if open_round else {}
    out["open_round"] = open_round
    out["dealer"] = dealer_for(game, open_round) if open_round else None
    out["standings"] = standings(game)
    if game.deck and not game.deck_enrolled:
        out["deck_note"] = (f"deck {game.deck!r} is no longer enrolled: cards are read "
                            "without a deck profile")
    return out


def _owner_of(payload: Any, game: GameRecord, fields: str) -> str:
    """The pile owner a JSON payload names, checked against the game."""
    if not isinstance(payload, dict):
        raise InputError(f"send a JSON object: {{{fields}}}")
    owner = payload.get("owner")
    if not isinstance(owner, str) or owner not in game.owners:
        raise InputError(f"owner must be one of: {', '.join(game.owners)}")
    return owner


def save_pile(store: GameStore, game: GameRecord, number: int, payload: Any):
    owner = _owner_of(payload, game, "owner, codes, detected, source")
    source = payload.get("source") or "manual"
    return store.save_pile(game.id, number, owner, payload.get("codes", []),
                           detected=payload.get("detected") or [], source=source,
                           dealer=dealer_for(game, number), crops=payload.get("crops"))


def correct(store: GameStore, game: GameRecord, number: int, payload: Any):
    owner = _owner_of(payload, game, "owner, action, old_code, new_code")
    action = payload.get("action")
    if not isinstance(action, str):
        raise InputError("action must be add, remove or replace")
    return store.correct(game.id, number, owner, action, payload.get("old_code"),
                         payload.get("new_code"))


def confirm(store: GameStore, game_id: int, number: int, payload: Any) -> Confirmation:
    """Confirm a round: the store loads, scores (see ``_scorer``) and saves it in one
    transaction, and gives back the round, its result and the updated game."""
    payload = payload if isinstance(payload, dict) else {}
    return store.confirm_round(game_id, number, _scorer(payload.get("context")))
