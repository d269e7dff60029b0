"""A round after its checks: the scoring sides (a player, or a team with one shared pile)
in turn order, with the typed round context. ``scorer.rules.validate`` builds it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from scorer.rules.context import Context


@dataclass
class Side:
    """A scoring side: one player, or a team (name = members joined by "+")."""

    name: str
    members: tuple[str, ...]
    codes: list[str]
    member_codes: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class CheckedRound:
    """A RoundInput after every check: the sides with their piles, the typed context."""

    players: list[str]
    dealer: str
    sides: list[Side]  # in turn order of each side's first member
    context: Context
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
