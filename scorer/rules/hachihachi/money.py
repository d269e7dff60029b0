"""Kan and mon: Hachi-Hachi's payments are counted in mon (a card point is a mon) and
written in kan and mon, 12 mon a kan [BGA][VINGEL] (10 in places [JA-WP])."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scorer.rules.records import number_text


def kan_mon(mon: int, per_kan: int = 12) -> tuple[int, int]:
    """``mon`` as (kan, mon), both with the amount's sign: -19 -> (-1, -7)."""
    sign = -1 if mon < 0 else 1
    kan, rest = divmod(abs(mon), per_kan)
    return sign * kan, sign * rest


def bga_kan_mon(mon: int, per_kan: int = 12) -> tuple[int, int]:
    """``mon`` as Board Game Arena writes it, the mon never negative: paying 5 mon is
    ``-1 kan 7 mon`` [BGA]."""
    return divmod(mon, per_kan)


def text(mon: int, per_kan: int = 12, signed: bool = False) -> str:
    """``1 kan 4 mon``; ``−1 kan 4 mon`` for a negative amount; ``+`` with ``signed``."""
    kan, rest = kan_mon(abs(mon), per_kan)
    parts = ([f"{kan} kan"] if kan else []) + ([f"{rest} mon"] if rest or not kan else [])
    words = " ".join(parts)
    if mon < 0:
        return number_text(-1)[:1] + words
    return ("+" if signed and mon > 0 else "") + words


@dataclass(frozen=True)
class Payment:
    """One payment of a month: ``payer`` gives ``payee`` ``mon`` for ``why``."""

    payer: str
    payee: str
    mon: int
    why: str

    def to_dict(self) -> dict[str, Any]:
        return {"payer": self.payer, "payee": self.payee, "mon": self.mon, "why": self.why}

    def sentence(self, per_kan: int) -> str:
        return f"{self.payer} pays {self.payee} {text(self.mon, per_kan)}: {self.why}"


def nets(payments: list[Payment], players: list[str]) -> dict[str, int]:
    """Each player's net of the payments (they sum to zero)."""
    out = {p: 0 for p in players}
    for pay in payments:
        out[pay.payer] -= pay.mon
        out[pay.payee] += pay.mon
    return out
