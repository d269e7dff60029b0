"""The rain and the viewing yaku (hanami, tsukimi, drinking): one switch that Koi-Koi and
Hana-Awase share. RULES.md 2.3 lists the local rule "ame-nagare" with three readings:
the rain man cancels them, or also the lightning, or any willow card."""

from __future__ import annotations

from typing import TYPE_CHECKING, Collection

from scorer.cards import LIGHTNING, RAIN_MAN, month_codes
from scorer.rules.options import Option, choice

if TYPE_CHECKING:
    from scorer.rules.ruleset import RuleSet

WILLOWS = month_codes(11)
CANCELLERS: dict[str, tuple[str, ...]] = {
    "none": (),
    "rain_man": (RAIN_MAN,),
    "rain_man_or_lightning": (RAIN_MAN, LIGHTNING),
    "any_willow": WILLOWS,
}


def rain_option(source: str) -> Option:
    """The ``rain_cancels_viewing`` option (old values true/false still accepted)."""
    return choice(
        "rain_cancels_viewing", "none", "which willow card in a pile cancels its viewing "
        "yaku (ame-nagare)", source,
        ("none", "the viewing yaku always count"),
        ("rain_man", "the rain man 11-1 cancels them"),
        ("rain_man_or_lightning", "the rain man 11-1 or the lightning 11-4 cancels them"),
        ("any_willow", "any willow card (11-1..11-4) cancels them"),
        renamed=(("false", "none"), ("true", "rain_man")))


def rained_off(pile: Collection[str], rs: RuleSet) -> bool:
    """True when the pile holds a card that cancels its viewing yaku."""
    return any(c in pile for c in CANCELLERS[rs["rain_cancels_viewing"]])
