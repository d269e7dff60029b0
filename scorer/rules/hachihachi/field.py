"""The field (場) of a month: small ×1, big ×2, grand ×4, read from the lights among the
six table cards at the deal [KIRISAME][BGA]; a second light carries its field to the next
month [BGA] (two lights of the same field carry that field [KIRISAME])."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from scorer.cards import card
from scorer.errors import InputError
from scorer.rules.hachihachi.context import FIELDS_ORDER

MULTIPLIER = {"small": 1, "big": 2, "grand": 4}
NAMES = {"small": "small field 小場", "big": "big field 大場", "grand": "grand field 絶場"}
#: The lights that make each field [KIRISAME][BGA].
LIGHT_FIELD = {"01-1": "big", "03-1": "big", "08-1": "big", "11-1": "grand", "12-1": "grand"}
TABLE_CARDS = 6


def rank(name: str | None) -> int:
    return FIELDS_ORDER.index(name) if name else 0


@dataclass(frozen=True)
class Field:
    """The month's field, why, and the field it carries to the next month (or None)."""

    name: str
    reason: str
    carry: str | None = None

    @property
    def multiplier(self) -> int:
        return MULTIPLIER[self.name]

    @property
    def text(self) -> str:
        return f"{NAMES[self.name]} ×{self.multiplier}"


def from_table(codes: Iterable[str], carry_on: bool = True) -> Field:
    """The field the table cards at the deal make: the highest light's; the next light's
    field (when there is one) is carried to the next month."""
    codes = list(codes)
    if len(codes) > TABLE_CARDS:
        raise InputError(f"the table cards at the deal are {TABLE_CARDS}, not {len(codes)}")
    lights = sorted((c for c in codes if c in LIGHT_FIELD),
                    key=lambda c: -rank(LIGHT_FIELD[c]))
    if not lights:
        return Field("small", "no light among the table cards")
    names = ", ".join(f"{c} {card(c).english}" for c in lights)
    top = LIGHT_FIELD[lights[0]]
    carry = LIGHT_FIELD[lights[1]] if carry_on and len(lights) > 1 else None
    return Field(top, f"{names} on the table", carry)


def month_field(chosen: str | None, table: Iterable[str], carried: str | None,
                carry_on: bool) -> Field:
    """The field of the month: the one chosen on the page, else the table cards' (both
    given must agree), raised to a field carried from the month before."""
    table = list(table)
    read = from_table(table, carry_on) if table else None
    if chosen and read and chosen != read.name:
        raise InputError(f"the field is given as {chosen} but the table cards make a "
                         f"{read.name} field ({read.reason}): give one of them")
    if read is not None:
        out = read
        if len(table) < TABLE_CARDS:       # a photo that missed a card may miss a light
            out = Field(read.name, f"{read.reason}; only {len(table)} of the "
                        f"{TABLE_CARDS} table cards given", read.carry)
    elif chosen:
        out = Field(chosen, "chosen")
    else:
        out = Field("small", "no table cards given and no field chosen")
    if carry_on and carried and rank(carried) > rank(out.name):
        out = Field(carried, f"carried from last month (this month's own: {out.name})",
                    out.carry)
    return out
