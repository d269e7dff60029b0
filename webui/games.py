"""The web's game logic: validate a new game, score a round, build the game's view.

It glues the store (persistence) to the rules engine (``scorer.rules``/``scorer.game``);
the engine stays free of I/O and knows nothing of this module.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from scorer.cards import card
from scorer.errors import InputError
from scorer.store import GameRecord, GameStore, RoundRecord, normalise_codes

MAX_NAME = 24
MAX_ROUNDS = 48
MAX_OPTIONS = 40
MAX_TEXT = 64
CONTEXT_KEYS = ("stopped_by", "koikoi_calls", "month", "teyaku", "leftovers", "gaji_month")


def presets() -> list[dict[str, Any]]:
    from scorer.rules import list_presets
    return [rs.to_dict() for rs in list_presets()]


def ruleset(game: GameRecord):
    from scorer.rules import get_ruleset
    return get_ruleset(game.preset, overrides=game.options)


def clean_name(value: Any, what: str = "player name") -> str:
    if not isinstance(value, str):
        raise InputError(f"{what} must be text, not {type(value).__name__}")
    name = " ".join(value.split())
    if not name:
        raise InputError(f"{what} is empty")
    if len(name) > MAX_NAME:
        raise InputError(f"{what} {name[:MAX_NAME]!r}... is longer than {MAX_NAME} characters")
    if "+" in name or any(unicodedata.category(ch)[0] == "C" for ch in name):
        raise InputError(f"{what} {name!r} may not contain '+' or control characters")
    return name


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
    """Validate a new game's setup (through the rules engine) and store it."""
    from scorer.game import GameSetup
    from scorer.rules import get_ruleset

    if not isinstance(payload, dict):
        raise InputError("send a JSON object: {preset, players, teams, first_dealer, rounds}")
    preset = payload.get("preset") or "sakura"
    if not isinstance(preset, str) or len(preset) > MAX_TEXT:
        raise InputError("preset must be the name of a rules preset")
    options = _clean_options(payload.get("options"))
    rs = get_ruleset(preset, overrides=options)
    raw_players = payload.get("players")
    if not isinstance(raw_players, list) or not 2 <= len(raw_players) <= 7:
        raise InputError("players must be a list of 2 to 7 names")
    players = [clean_name(p) for p in raw_players]
    lowered = [p.casefold() for p in players]
    for i, p in enumerate(lowered):
        if p in lowered[:i]:
            raise InputError(f"player name {players[i]!r} is used twice")
    if not rs.min_players <= len(players) <= rs.max_players:
        raise InputError(f"{rs.name} is for {rs.min_players} to {rs.max_players} players, "
                         f"not {len(players)}")
    teams = _clean_teams(payload.get("teams"), players)
    dealer = payload.get("first_dealer") or players[0]
    if dealer not in players:
        raise InputError(f"first dealer {str(dealer)[:MAX_NAME]!r} is not one of the players")
    rounds = payload.get("rounds")
    rounds = rs.default_rounds if rounds is None else rounds
    if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= MAX_ROUNDS:
        raise InputError(f"rounds must be a whole number from 1 to {MAX_ROUNDS}")
    GameSetup(players=players, ruleset=rs, first_dealer=dealer, rounds=rounds, teams=teams)
    return store.create_game(preset=rs.name, options=options, players=players, teams=teams,
                             first_dealer=dealer, rounds_planned=rounds)


def _clean_teams(raw: Any, players: list[str]) -> list[list[str]] | None:
    if not raw:
        return None
    if not isinstance(raw, list) or not all(isinstance(t, list) and t for t in raw):
        raise InputError("teams must be a list of lists of player names")
    teams = [[clean_name(p) for p in team] for team in raw]
    flat = [p for team in teams for p in team]
    if sorted(flat) != sorted(players) or len(teams) < 2:
        raise InputError("teams must split all the players into at least two teams, "
                         "each player once")
    return teams


def current_round(game: GameRecord) -> int | None:
    done = len(game.confirmed_rounds)
    return None if done >= game.rounds_planned else done + 1


def dealer_for(game: GameRecord, number: int) -> str:
    """Round 1: the first dealer; later: the previous round's next dealer."""
    previous = [r for r in game.confirmed_rounds if r.number == number - 1]
    if previous and previous[0].result:
        return str(previous[0].result.get("next_dealer") or game.first_dealer)
    return game.first_dealer


def clean_context(raw: Any, game: GameRecord) -> dict[str, Any]:
    """The round's extra facts (Koi-Koi stopper and calls, Sakura leftovers...), checked
    for shape so the engine only ever sees well-typed values."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise InputError("context must be an object")
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in CONTEXT_KEYS:
            raise InputError(f"unknown context key {str(key)[:MAX_TEXT]!r} "
                             f"(known: {', '.join(CONTEXT_KEYS)})")
        if value is None or value == "":
            continue
        if key == "stopped_by":
            if value not in game.owners and value not in game.players:
                raise InputError(f"stopped_by {str(value)[:MAX_NAME]!r} is not a player")
            out[key] = value
        elif key in ("koikoi_calls", "teyaku"):
            if not isinstance(value, dict):
                raise InputError(f"{key} must be an object keyed by player")
            sub: dict[str, Any] = {}
            for player, v in value.items():
                if player not in game.players and player not in game.owners:
                    raise InputError(f"{key}: {str(player)[:MAX_NAME]!r} is not a player")
                if key == "koikoi_calls":
                    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 20:
                        raise InputError("koikoi_calls must be whole numbers from 0 to 20")
                elif not isinstance(v, str) or len(v) > MAX_TEXT:
                    raise InputError("teyaku must name a hand yaku")
                sub[player] = v
            out[key] = sub
        elif key in ("month", "gaji_month"):
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 12:
                raise InputError(f"{key} must be a month number from 1 to 12")
            out[key] = value
        elif key == "leftovers":
            out[key] = normalise_codes(value)
    return out


def _round_input(game: GameRecord, rnd: RoundRecord):
    from scorer.rules import RoundInput
    return RoundInput(players=list(game.players),
                      piles={o: list(p.codes) for o, p in rnd.piles.items()},
                      dealer=rnd.dealer, teams=game.teams, context=dict(rnd.context))


def score(game: GameRecord, rnd: RoundRecord) -> tuple[dict[str, Any], str]:
    """Score one round with the engine: (result as JSON, next dealer)."""
    from scorer.rules import score_round
    result = score_round(_round_input(game, rnd), ruleset(game))
    return result.to_dict(), result.next_dealer


def standings(game: GameRecord) -> dict[str, Any]:
    """Totals, running totals and the winner, from the results stored when each round
    was confirmed (so a game reads the same whatever later versions of the rules do)."""
    from scorer.game import GameSetup, standings as game_standings
    from scorer.rules import RoundResult
    rs = ruleset(game)
    results = [RoundResult.from_dict(r.result) for r in game.confirmed_rounds if r.result]
    setup = GameSetup(players=list(game.players), ruleset=rs, first_dealer=game.first_dealer,
                      rounds=game.rounds_planned, teams=game.teams)
    return game_standings(setup, results).to_dict()


def view(game: GameRecord, crops: bool = True) -> dict[str, Any]:
    """The game as the page and the API show it (card crops for the open round only)."""
    open_round = current_round(game)
    out = game.to_dict(crops)
    out["ruleset"] = ruleset(game).to_dict()
    out["open_round"] = open_round
    out["dealer"] = dealer_for(game, open_round) if open_round else None
    out["standings"] = standings(game)
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


def confirm(store: GameStore, game: GameRecord, number: int, payload: Any) -> RoundRecord:
    payload = payload if isinstance(payload, dict) else {}
    context = clean_context(payload.get("context"), game)
    return store.confirm_round(game.id, number, context, score,
                               dealer=dealer_for(game, number))


def card_json(code: str) -> dict[str, Any]:
    c = card(code)
    return {"code": c.code, "name": c.name, "month": c.month, "kind": c.kind.value}
