"""A yaku as data: a small frozen record (its cards, default points and exclusive group),
in the style of the ``mahjong`` hand calculator, and the rules every game shares for
turning records into hits.

Two switches work the same in every game (``scorer.rules.options`` parses them):

* ``points.<yaku>=N`` changes a yaku's points. A yaku at 0 is still found and listed
  (at 0 points) and still holds its exclusive group, so a lower yaku of the group does
  not take its place.
* ``yaku.<yaku>=off`` removes a yaku: it is not found, and the next yaku of its group
  in table order may count instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Collection, Iterable, Sequence

from scorer.rules.records import YakuHit

if TYPE_CHECKING:
    from scorer.rules.ruleset import RuleSet

POINTS_PREFIX = "points."
SWITCH_PREFIX = "yaku."


@dataclass(frozen=True)
class Yaku:
    """One yaku. ``cards``: the set it needs, or with ``need`` the cards it counts."""

    name: str
    label: str
    cards: tuple[str, ...]
    points: int = 0            # default points (a game may read them from an option)
    need: int = 0              # 0: every card of ``cards``; n: at least n of them
    most: int = 0              # at most this many of ``cards`` (0: no limit)
    group: str = ""            # exclusive group: only its first yaku in table order counts
    per_card: bool = False     # +1 point for each card beyond ``need`` (tane, tan, kasu)
    extra_from: tuple[str, ...] = ()  # +1 for each of these held beyond ``cards``
    requires: tuple[str, ...] = ()    # cards needed besides ``cards`` (ame-shiko: rain man)

    def held(self, pile: Collection[str]) -> tuple[str, ...] | None:
        """The cards of the pile that form this yaku, or None if it is not formed."""
        if any(c not in pile for c in self.requires):
            return None
        held = self.requires + tuple(c for c in self.cards if c in pile)
        if self.need == 0:
            return held if len(held) == len(self.cards) + len(self.requires) else None
        count = len(held) - len(self.requires)
        if count < self.need or (self.most and count > self.most):
            return None
        return held

    def extras(self, pile: Collection[str], held: Sequence[str]) -> tuple[str, ...]:
        """The cards that each add one point beyond the yaku's base."""
        if self.per_card:
            return tuple(held[self.need:])
        return tuple(c for c in self.extra_from if c in pile and c not in held)


def enabled(yaku: Yaku, rs: RuleSet) -> bool:
    """False when ``yaku.<name>=off``."""
    return bool(rs.options.get(SWITCH_PREFIX + yaku.name, True))


def points(yaku: Yaku, rs: RuleSet, default: int | None = None) -> int:
    """The yaku's points: ``points.<name>`` if set, else ``default`` (a game's table or
    option), else the record's own."""
    base = yaku.points if default is None else default
    return int(rs.options.get(POINTS_PREFIX + yaku.name, base))


def hit(yaku: Yaku, rs: RuleSet, held: Iterable[str], extras: Sequence[str] = (),
        default: int | None = None, sort: bool = False) -> YakuHit:
    """A found yaku: its points (plus one per extra card) and every card counted, once
    (a per-card yaku's extras are already among the cards it holds)."""
    held = tuple(held)
    cards = held + tuple(c for c in extras if c not in held)
    n = len(extras)
    label = yaku.label + (f" (+{n} extra card{'s' if n != 1 else ''})" if n else "")
    return YakuHit(yaku.name, points(yaku, rs, default) + len(extras),
                   tuple(sorted(cards)) if sort else cards, label)


def first_of_groups(hits: list[YakuHit], table: Sequence[Yaku],
                    groups: Iterable[Sequence[str]] | None = None) -> list[YakuHit]:
    """Keep only the first hit (in table order) of each exclusive group. ``groups``
    defaults to the records' own ``group`` fields."""
    if groups is None:
        by_group: dict[str, list[str]] = {}
        for y in table:
            if y.group:
                by_group.setdefault(y.group, []).append(y.name)
        groups = by_group.values()
    order = {y.name: i for i, y in enumerate(table)}
    dropped: set[str] = set()
    for group in groups:
        inside = sorted((h for h in hits if h.name in group), key=lambda h: order[h.name])
        dropped.update(h.name for h in inside[1:])
    return [h for h in hits if h.name not in dropped]
