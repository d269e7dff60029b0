"""How well the camera did in real games: what it found in each pile against the pile
the players confirmed after fixing it by hand.

This is the only accuracy measured on real photographs of real decks: every round scored
from the camera or a photo adds to it. Codes in a pile are unique, so a pile compares as
two sets; "equivalent" counts a mix-up between a month's two plain chaff as right
(DESIGN.md), as the model card's figures do.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from scorer.cards import card


class ScoredPile(Protocol):
    """A confirmed pile, read-only (a frozen record fits)."""

    @property
    def codes(self) -> list[str]:
        """The pile as confirmed."""

    @property
    def detected(self) -> list[str]:
        """What the camera or the photo found."""

    @property
    def source(self) -> str:
        """"camera" | "photo" | "manual"."""


@dataclass(frozen=True)
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn)

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    @property
    def f1(self) -> float | None:
        p, r = self.precision, self.recall
        if p is None or r is None:
            return None
        return 2 * p * r / (p + r) if p + r else 0.0

    def to_dict(self) -> dict[str, Any]:
        def rnd(v: float | None) -> float | None:
            return None if v is None else round(v, 4)
        return {"precision": rnd(self.precision), "recall": rnd(self.recall),
                "f1": rnd(self.f1), "tp": self.tp, "fp": self.fp, "fn": self.fn}


@dataclass(frozen=True)
class FieldAccuracy:
    piles: int = 0
    cards: int = 0                      # in the confirmed piles
    exact: Counts = Counts()
    equivalent: Counts = Counts()
    by_source: dict[str, Counts] = field(default_factory=dict)   # equivalent, per source

    def to_dict(self) -> dict[str, Any]:
        return {"piles": self.piles, "cards": self.cards, "exact": self.exact.to_dict(),
                "equivalent": self.equivalent.to_dict(),
                "by_source": {k: v.to_dict() for k, v in sorted(self.by_source.items())}}


def compare(detected: Sequence[str], confirmed: Sequence[str],
            equivalent: bool = False) -> Counts:
    """Cards found right (tp), found but not in the pile (fp), in the pile but not found
    (fn)."""
    def key(code: str) -> str:
        return card(code).equivalence_key if equivalent else card(code).code
    found = Counter(key(c) for c in detected)
    truth = Counter(key(c) for c in confirmed)
    tp = sum((found & truth).values())
    return Counts(tp, found.total() - tp, truth.total() - tp)


def field_accuracy(piles: Iterable[ScoredPile]) -> FieldAccuracy:
    """Totals over the piles that came from the camera or a photo (manual ones are left
    out: nothing was detected)."""
    n = cards = 0
    exact = equiv = Counts()
    by_source: dict[str, Counts] = {}
    for p in piles:
        if p.source == "manual":
            continue
        n += 1
        cards += len(p.codes)
        exact += compare(p.detected, p.codes)
        c = compare(p.detected, p.codes, equivalent=True)
        equiv += c
        by_source[p.source] = by_source.get(p.source, Counts()) + c
    return FieldAccuracy(n, cards, exact, equiv, by_source)
