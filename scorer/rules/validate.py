"""Checking a RoundInput (and a game's players) before a game's engine scores it: the
one place player names, teams, piles and the round context are parsed.

Every problem is an InputError with a one-line message that names what is wrong.
"""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING, Any, Mapping

from scorer.cards import DECK, card
from scorer.errors import InputError
from scorer.rules.context import Context, parse_codes, parse_name
from scorer.rules.records import RoundInput
from scorer.rules.ruleset import RuleSet
from scorer.rules.sides import CheckedRound, Side

if TYPE_CHECKING:
    from scorer.rules.base import Variant

MAX_NAME = 24


def player_name(value: Any, what: str = "player name") -> str:
    """A player's name: text with its spaces collapsed, 1..MAX_NAME characters, no '+'
    (it joins team names) and no control characters."""
    if not isinstance(value, str):
        raise InputError(f"{what} must be text, not {type(value).__name__}")
    name = " ".join(value.split())
    if not name:
        raise InputError(f"{what} must be a non-empty name, not {value!r}")
    if len(name) > MAX_NAME:
        raise InputError(f"{what} {name[:MAX_NAME]!r}... is longer than {MAX_NAME} "
                         f"characters")
    if "+" in name or any(unicodedata.category(ch)[0] == "C" for ch in name):
        raise InputError(f"{what} {name!r} may not contain '+' or control characters")
    return name


def player_names(raw: Any) -> list[str]:
    """The players in turn order, each name checked, none twice (ignoring case)."""
    if not isinstance(raw, (list, tuple)):
        raise InputError("players must be a list of names in turn order")
    players = [player_name(p) for p in raw]
    folded = [p.casefold() for p in players]
    for i, p in enumerate(folded):
        if p in folded[:i]:
            raise InputError(f"player {players[i]!r} is listed twice")
    return players


def check_player_count(n: int, rs: RuleSet) -> None:
    if not rs.min_players <= n <= rs.max_players:
        span = (str(rs.min_players) if rs.min_players == rs.max_players
                else f"{rs.min_players} to {rs.max_players}")
        raise InputError(f"{rs.name} is for {span} players, not {n}")


def parse_teams(raw: Any, players: list[str], rs: RuleSet,
                game: Variant) -> list[tuple[str, ...]]:
    """Teams as tuples of members ([] for none); InputError for any shape RULES 1.1
    does not allow (teams cover every player, 2 or more of equal size >= 2)."""
    if not raw:
        return []
    if not game.teams:
        raise InputError(f"{game.title} ({rs.name}) is not played in teams")
    if not isinstance(raw, (list, tuple)):
        raise InputError(f"teams must be a list like [[\"A\", \"C\"], [\"B\", \"D\"]], "
                         f"not {raw!r}")
    teams: list[tuple[str, ...]] = []
    owner: dict[str, str] = {}
    for entry in raw:
        members = entry.split("+") if isinstance(entry, str) else entry
        if not isinstance(members, (list, tuple)) or not members:
            raise InputError(f"a team must be a list of players or A+B, not {entry!r}")
        members = tuple(parse_name(m, "a team member") for m in members)
        label = "+".join(members)
        for member in members:
            if member not in players:
                raise InputError(f"team {label} names unknown player {member!r} "
                                 f"(players: {', '.join(players)})")
            if member in owner:
                raise InputError(f"player {member!r} is in two teams: {owner[member]} "
                                 f"and {label}")
            owner[member] = label
        teams.append(members)
    missing = [p for p in players if p not in owner]
    if missing:
        raise InputError(f"player {missing[0]!r} is in no team; with teams every player "
                         f"must be in one")
    sizes = {len(t) for t in teams}
    if len(teams) < 2 or len(sizes) != 1 or sizes == {1}:
        shape = " vs ".join("+".join(t) for t in teams)
        raise InputError(f"teams must be 2 or more teams of equal size (2 or 3 players), "
                         f"got {shape}")
    return teams


def check_round(inp: RoundInput, rs: RuleSet, game: Variant) -> CheckedRound:
    """Check a round and gather each side's pile. Raises InputError on any problem."""
    players = player_names(inp.players)
    check_player_count(len(players), rs)
    teams = parse_teams(inp.teams, players, rs, game)
    dealer = players[0] if inp.dealer in (None, "") else parse_name(inp.dealer, "the dealer")
    if dealer not in players:
        raise InputError(f"dealer {dealer!r} is not a player (players: {', '.join(players)})")
    raw_context = inp.context if inp.context is not None else {}
    if not isinstance(raw_context, (Mapping, Context)):
        raise InputError("the round context must be an object")
    context = game.context.parse(raw_context, players, rs.game)

    # Sides: one per player, or one per team.
    if teams:
        sides = [Side("+".join(t), t, []) for t in teams]
    else:
        sides = [Side(p, (p,), []) for p in players]
    sides.sort(key=lambda s: min(players.index(m) for m in s.members))
    by_key: dict[str, Side] = {}
    for each in sides:
        by_key[each.name] = each
        for member in each.members:
            by_key[member] = each

    if not isinstance(inp.piles, dict):
        raise InputError("piles must map each player to a list of card codes")
    separate = bool(teams) and game.separate_team_piles(rs)
    where: dict[str, str] = {}  # code -> pile it was seen in
    total = 0

    def claim(code: str, pile: str) -> None:
        if code in where:
            if where[code] == pile:
                raise InputError(f"card {code} ({card(code).name}) is listed twice in "
                                 f"{pile}")
            raise InputError(f"card {code} ({card(code).name}) is in two piles: "
                             f"{where[code]} and {pile}")
        where[code] = pile

    parsed: list[tuple[str, Side, list[str]]] = []
    for key, value in inp.piles.items():
        owner = parse_name(key, "a pile's owner")
        side = by_key.get(owner)
        if side is None:
            raise InputError(f"pile for unknown player {owner!r} "
                             f"(players: {', '.join(players)})")
        if separate and owner == side.name and len(side.members) > 1:
            raise InputError(f"with team_piles=separate give each partner's own pile, "
                             f"not one for team {side.name}")
        codes = parse_codes(value, f"pile {owner}")
        total += len(codes)
        parsed.append((owner, side, codes))
    leftovers = list(getattr(context, "leftovers", ()))
    total += len(leftovers)
    # more cards than the deck always hold one given twice: name it, and the count
    try:
        for owner, side, codes in parsed:
            for code in codes:
                claim(code, f"pile {owner}")
            side.codes.extend(codes)
            side.member_codes.setdefault(owner, []).extend(codes)
        for code in leftovers:
            claim(code, "the leftovers")
    except InputError as err:
        if total > len(DECK):
            raise InputError(f"{err} ({total} cards given but a deck has only "
                             f"{len(DECK)})") from None
        raise
    if total > len(DECK):
        raise InputError(f"{total} cards given but a deck has only {len(DECK)}")
    rnd = CheckedRound(players, dealer, sides, context, leftovers)
    game.check_round(rnd, rs)
    return rnd


def check_deal_points(piles: dict[str, list[str]], values: dict[str, int],
                      rs: RuleSet) -> None:
    """A deal cannot hold more card points than the deck (Sakura: 240, or 230 with the
    yellow paulownia at 0), leftovers included."""
    deck_total = sum(values.values())
    points = sum(values[c] for codes in piles.values() for c in codes)
    if points > deck_total:
        raise InputError(f"the piles hold {points} card points but a {rs.name} deck has "
                         f"only {deck_total}")
