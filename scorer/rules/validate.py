"""Checking and normalising a RoundInput before a game engine scores it.

Every problem is an InputError with a one-line message that names what is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

from scorer.cards import DECK, card
from scorer.errors import InputError
from scorer.rules.records import RoundInput

if TYPE_CHECKING:
    from scorer.rules.ruleset import RuleSet

CONTEXT_KEYS: dict[str, tuple[str, ...]] = {
    "sakura": ("leftovers", "gaji_month"),
    "koikoi": ("stopped_by", "koikoi_calls", "month", "teyaku", "leftovers"),
    "hanaawase": ("leftovers",),
}
TEYAKU = ("teshi", "kuttsuki", "both")


@dataclass
class Side:
    """A scoring side: one player, or a team (name = members joined by "+")."""

    name: str
    members: tuple[str, ...]
    codes: list[str]
    member_codes: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class Round:
    players: list[str]
    dealer: str
    sides: list[Side]  # in turn order of each side's first member
    context: dict[str, Any]
    leftovers: list[str]

    def side_of(self, player: str) -> Side:
        for side in self.sides:
            if player in side.members:
                return side
        raise KeyError(player)

    def turn_order_from_dealer(self) -> list[str]:
        i = self.players.index(self.dealer)
        return self.players[i:] + self.players[:i]

    def nearest_side(self, names: Iterable[str]) -> Side:
        """Of the sides named, the one with a member nearest the dealer in turn order
        (the dealer first, then the dealer's right, ...)."""
        wanted = set(names)
        for player in self.turn_order_from_dealer():
            side = self.side_of(player)
            if side.name in wanted:
                return side
        raise KeyError(names)

    def nearest_member(self, side: Side) -> str:
        for player in self.turn_order_from_dealer():
            if player in side.members:
                return player
        raise KeyError(side.name)


def parse_codes(value: Any, where: str) -> list[str]:
    """Codes from a list or a comma/space separated string, normalised to ``MM-K``."""
    if value is None:
        return []
    if isinstance(value, str):
        items = [v for v in value.replace(",", " ").split() if v]
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        raise InputError(f"{where}: expected a list of card codes, not {value!r}")
    out = []
    for item in items:
        try:
            out.append(card(item).code)
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None
    return out


def _name(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{what} must be a non-empty name, not {value!r}")
    return value.strip()


def _int(value: Any, what: str, lo: int, hi: int) -> int:
    if isinstance(value, bool):
        raise InputError(f"{what} must be an integer {lo}..{hi}, not {value!r}")
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit() \
            and len(value.strip()) < 6:
        value = int(value.strip())
    if not isinstance(value, int) or not lo <= value <= hi:
        raise InputError(f"{what} must be an integer {lo}..{hi}, not {value!r}")
    return value


def _teams(raw: Any, players: list[str], rs: RuleSet) -> list[tuple[str, ...]]:
    if not raw:
        return []
    if rs.game != "sakura":
        raise InputError(f"teams are only played in Sakura, not in {rs.name}")
    if not isinstance(raw, (list, tuple)):
        raise InputError(f"teams must be a list like [[\"A\", \"C\"], [\"B\", \"D\"]], "
                         f"not {raw!r}")
    teams: list[tuple[str, ...]] = []
    owner: dict[str, str] = {}
    for entry in raw:
        members = entry.split("+") if isinstance(entry, str) else entry
        if not isinstance(members, (list, tuple)) or not members:
            raise InputError(f"a team must be a list of players or A+B, not {entry!r}")
        members = tuple(_name(m, "a team member") for m in members)
        label = "+".join(members)
        for m in members:
            if m not in players:
                raise InputError(f"team {label} names unknown player {m!r} "
                                 f"(players: {', '.join(players)})")
            if m in owner:
                raise InputError(f"player {m!r} is in two teams: {owner[m]} and {label}")
            owner[m] = label
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


def normalise(inp: RoundInput, rs: RuleSet) -> Round:
    """Check a round and gather each side's pile. Raises InputError on any problem."""
    if not isinstance(inp.players, (list, tuple)):
        raise InputError("players must be a list of names in turn order")
    players: list[str] = []
    for p in inp.players:
        p = _name(p, "a player")
        if p in players:
            raise InputError(f"player {p!r} is listed twice")
        if "+" in p:
            raise InputError(f"player name {p!r} may not contain '+' (it joins team names)")
        players.append(p)
    n = len(players)
    if not rs.min_players <= n <= rs.max_players:
        span = (str(rs.min_players) if rs.min_players == rs.max_players
                else f"{rs.min_players}-{rs.max_players}")
        raise InputError(f"{rs.name} is for {span} players, got {n}"
                         + (f" ({', '.join(players)})" if players else ""))
    teams = _teams(inp.teams, players, rs)
    dealer = players[0] if inp.dealer in (None, "") else _name(inp.dealer, "the dealer")
    if dealer not in players:
        raise InputError(f"dealer {dealer!r} is not a player (players: {', '.join(players)})")

    context = dict(inp.context or {})
    allowed = CONTEXT_KEYS[rs.game]
    for key in context:
        if key not in allowed:
            raise InputError(f"unknown round context {key!r} for {rs.game} "
                             f"(allowed: {', '.join(allowed)})")

    # Sides: one per player, or one per team.
    if teams:
        sides = [Side("+".join(t), t, []) for t in teams]
    else:
        sides = [Side(p, (p,), []) for p in players]
    sides.sort(key=lambda s: min(players.index(m) for m in s.members))
    by_key: dict[str, Side] = {}
    for side in sides:
        by_key[side.name] = side
        for m in side.members:
            by_key[m] = side

    if not isinstance(inp.piles, dict):
        raise InputError("piles must map each player to a list of card codes")
    separate = bool(teams) and rs.game == "sakura" and rs["team_piles"] == "separate"
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
        key_name = _name(key, "a pile's owner")
        side = by_key.get(key_name)
        if side is None:
            raise InputError(f"pile for unknown player {key_name!r} "
                             f"(players: {', '.join(players)})")
        if separate and key_name == side.name and len(side.members) > 1:
            raise InputError(f"with team_piles=separate give each partner's own pile, "
                             f"not one for team {side.name}")
        codes = parse_codes(value, f"pile {key_name}")
        total += len(codes)
        parsed.append((key_name, side, codes))
    leftovers = parse_codes(context.get("leftovers"), "leftovers")
    total += len(leftovers)
    if total > len(DECK):
        raise InputError(f"{total} cards given but a deck has only {len(DECK)}")
    for key_name, side, codes in parsed:
        for code in codes:
            claim(code, f"pile {key_name}")
        side.codes.extend(codes)
        side.member_codes.setdefault(key_name, []).extend(codes)
    for code in leftovers:
        claim(code, "the leftovers")
    context["leftovers"] = leftovers

    if rs.game == "sakura":
        from scorer.rules.sakura import card_values
        values = card_values(rs)
        check_deal_points({s.name: s.codes for s in sides} | {"leftovers": leftovers},
                          values, rs)
        if context.get("gaji_month") not in (None, ""):
            context["gaji_month"] = _int(context["gaji_month"], "gaji_month", 1, 12)
        else:
            context["gaji_month"] = None
    if rs.game == "koikoi":
        _koikoi_context(context, players)
    return Round(players, dealer, sides, context, leftovers)


def check_deal_points(piles: dict[str, list[str]], values: dict[str, int],
                      rs: RuleSet) -> None:
    """A Sakura deal cannot hold more card points than the deck (240, or 230 with the
    yellow paulownia at 0), leftovers included."""
    deck_total = sum(values.values())
    points = sum(values[c] for codes in piles.values() for c in codes)
    if points > deck_total:
        raise InputError(f"the piles hold {points} card points but a {rs.name} deck has "
                         f"only {deck_total}")


def _koikoi_context(context: dict[str, Any], players: list[str]) -> None:
    stopped = context.get("stopped_by")
    if isinstance(stopped, (list, tuple)):
        names = [_name(s, "stopped_by") for s in stopped]
        if len(set(names)) > 1:
            raise InputError(f"only one player can stop a Koi-Koi round (call shobu); got "
                             f"{' and '.join(dict.fromkeys(names))}")
        stopped = names[0] if names else None
    if stopped in ("", None):
        stopped = None
    else:
        stopped = _name(stopped, "stopped_by")
        if stopped not in players:
            raise InputError(f"stopped_by {stopped!r} is not a player "
                             f"(players: {', '.join(players)})")
    context["stopped_by"] = stopped

    calls = context.get("koikoi_calls") or {}
    if not isinstance(calls, dict):
        raise InputError("koikoi_calls must map players to how many times they called")
    clean: dict[str, int] = {p: 0 for p in players}
    for p, n in calls.items():
        p = _name(p, "a koikoi_calls player")
        if p not in players:
            raise InputError(f"koikoi_calls for unknown player {p!r} "
                             f"(players: {', '.join(players)})")
        clean[p] = _int(n, f"koikoi_calls for {p}", 0, 48)
    context["koikoi_calls"] = clean

    month = context.get("month")
    context["month"] = None if month in (None, "") else _int(month, "month", 1, 12)

    teyaku = context.get("teyaku") or {}
    if not isinstance(teyaku, dict):
        raise InputError("teyaku must map a player to teshi, kuttsuki or both")
    clean_t: dict[str, str] = {}
    for p, kind in teyaku.items():
        p = _name(p, "a teyaku player")
        if p not in players:
            raise InputError(f"teyaku for unknown player {p!r} "
                             f"(players: {', '.join(players)})")
        if isinstance(kind, (list, tuple)):
            kinds = {str(k).strip().lower() for k in kind}
            for k in kinds:
                if k not in TEYAKU:
                    raise InputError(f"teyaku for {p}: unknown {k!r} (allowed: "
                                     f"{', '.join(TEYAKU)})")
            kind = "both" if kinds >= {"teshi", "kuttsuki"} or "both" in kinds else \
                (kinds.pop() if kinds else "")
        kind = str(kind).strip().lower() if kind is not None else ""
        if kind in ("", "none"):
            continue
        if kind not in TEYAKU:
            raise InputError(f"teyaku for {p}: unknown {kind!r} (allowed: "
                             f"{', '.join(TEYAKU)})")
        clean_t[p] = kind
    context["teyaku"] = clean_t
