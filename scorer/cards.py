"""The 48-card hanafuda deck: codes, months, kinds, names and model class indices.

A card's code is ``MM-K``: month 01..12 in Japanese order (11 willow, 12 paulownia)
and K 1..4 within the month (see shared/DESIGN.md). The model's class index is
``(MM-1)*4 + (K-1)``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Iterable

from scorer.errors import InputError


class Kind(enum.Enum):
    """The card's type in Koi-Koi / Hana-Awase terms (Sakura re-values some cards)."""

    BRIGHT = "bright"
    ANIMAL = "animal"
    RIBBON = "ribbon"
    CHAFF = "chaff"


class Ribbon(enum.Enum):
    POETRY = "poetry"  # red with writing (akatan)
    BLUE = "blue"  # aotan
    RED = "red"  # plain red (grass ribbons, and the willow ribbon)


@dataclass(frozen=True)
class Month:
    number: int
    english: str
    japanese: str
    colour: str  # a display colour for the UI's picker (hex)


MONTHS: tuple[Month, ...] = (
    Month(1, "Pine", "松", "#2e7d32"),
    Month(2, "Plum", "梅", "#c2185b"),
    Month(3, "Cherry", "桜", "#f48fb1"),
    Month(4, "Wisteria", "藤", "#7b1fa2"),
    Month(5, "Iris", "菖蒲", "#3949ab"),
    Month(6, "Peony", "牡丹", "#d81b60"),
    Month(7, "Bush clover", "萩", "#8d6e63"),
    Month(8, "Susuki", "芒", "#9e9d24"),
    Month(9, "Chrysanthemum", "菊", "#fbc02d"),
    Month(10, "Maple", "紅葉", "#e64a19"),
    Month(11, "Willow", "柳", "#546e7a"),
    Month(12, "Paulownia", "桐", "#5d4037"),
)


@dataclass(frozen=True, order=True)
class Card:
    """One card of the deck. Cards order by code (month, then index)."""

    month: int
    index: int
    kind: Kind
    english: str
    japanese: str
    ribbon: Ribbon | None = None

    @property
    def code(self) -> str:
        return f"{self.month:02d}-{self.index}"

    @property
    def class_index(self) -> int:
        """The detector's class index, ``(MM-1)*4 + (K-1)``."""
        return (self.month - 1) * 4 + (self.index - 1)

    @property
    def month_info(self) -> Month:
        return MONTHS[self.month - 1]

    @property
    def name(self) -> str:
        """Display name, e.g. ``Susuki: moon``."""
        return f"{self.month_info.english}: {self.english}"

    @property
    def is_plain_chaff(self) -> bool:
        """A plain chaff (K 3 or 4): interchangeable with its month's other plain chaff."""
        return self.kind is Kind.CHAFF and self.index in (3, 4) and self.month != 11

    @property
    def equivalence_key(self) -> str:
        """Code modulo the chaff equivalence of DESIGN.md: ``MM-3`` and ``MM-4`` of a
        month (not willow, whose 11-4 is the lightning) are the same card for scoring."""
        return f"{self.month:02d}-3" if self.is_plain_chaff else self.code

    def __str__(self) -> str:
        return self.code


def _c(month: int, index: int, kind: Kind, english: str, japanese: str,
       ribbon: Ribbon | None = None) -> Card:
    return Card(month, index, kind, english, japanese, ribbon)


B, A, R, C = Kind.BRIGHT, Kind.ANIMAL, Kind.RIBBON, Kind.CHAFF
P, BL, RD = Ribbon.POETRY, Ribbon.BLUE, Ribbon.RED

DECK: tuple[Card, ...] = (
    _c(1, 1, B, "crane", "松に鶴"), _c(1, 2, R, "poetry ribbon", "松に赤短", P),
    _c(1, 3, C, "chaff", "松のカス"), _c(1, 4, C, "chaff", "松のカス"),
    _c(2, 1, A, "bush warbler", "梅に鶯"), _c(2, 2, R, "poetry ribbon", "梅に赤短", P),
    _c(2, 3, C, "chaff", "梅のカス"), _c(2, 4, C, "chaff", "梅のカス"),
    _c(3, 1, B, "curtain", "桜に幕"), _c(3, 2, R, "poetry ribbon", "桜に赤短", P),
    _c(3, 3, C, "chaff", "桜のカス"), _c(3, 4, C, "chaff", "桜のカス"),
    _c(4, 1, A, "cuckoo", "藤に不如帰"), _c(4, 2, R, "red ribbon", "藤に短冊", RD),
    _c(4, 3, C, "chaff", "藤のカス"), _c(4, 4, C, "chaff", "藤のカス"),
    _c(5, 1, A, "bridge", "菖蒲に八橋"), _c(5, 2, R, "red ribbon", "菖蒲に短冊", RD),
    _c(5, 3, C, "chaff", "菖蒲のカス"), _c(5, 4, C, "chaff", "菖蒲のカス"),
    _c(6, 1, A, "butterflies", "牡丹に蝶"), _c(6, 2, R, "blue ribbon", "牡丹に青短", BL),
    _c(6, 3, C, "chaff", "牡丹のカス"), _c(6, 4, C, "chaff", "牡丹のカス"),
    _c(7, 1, A, "boar", "萩に猪"), _c(7, 2, R, "red ribbon", "萩に短冊", RD),
    _c(7, 3, C, "chaff", "萩のカス"), _c(7, 4, C, "chaff", "萩のカス"),
    _c(8, 1, B, "moon", "芒に月"), _c(8, 2, A, "geese", "芒に雁"),
    _c(8, 3, C, "chaff", "芒のカス"), _c(8, 4, C, "chaff", "芒のカス"),
    _c(9, 1, A, "sake cup", "菊に盃"), _c(9, 2, R, "blue ribbon", "菊に青短", BL),
    _c(9, 3, C, "chaff", "菊のカス"), _c(9, 4, C, "chaff", "菊のカス"),
    _c(10, 1, A, "deer", "紅葉に鹿"), _c(10, 2, R, "blue ribbon", "紅葉に青短", BL),
    _c(10, 3, C, "chaff", "紅葉のカス"), _c(10, 4, C, "chaff", "紅葉のカス"),
    _c(11, 1, B, "rain man", "柳に小野道風"), _c(11, 2, A, "swallow", "柳に燕"),
    _c(11, 3, R, "red ribbon", "柳に短冊", RD), _c(11, 4, C, "lightning", "柳のカス（雷）"),
    _c(12, 1, B, "phoenix", "桐に鳳凰"), _c(12, 2, C, "yellow chaff", "桐のカス（色札）"),
    _c(12, 3, C, "chaff", "桐のカス"), _c(12, 4, C, "chaff", "桐のカス"),
)

CODES: tuple[str, ...] = tuple(card.code for card in DECK)


def _named(month: int, english: str) -> str:
    return next(c.code for c in DECK if c.month == month and c.english == english)


#: The cards rules single out, by name: the willow's rain man, ribbon and lightning (the
#: Sakura gaji), the sake cup, the yellow paulownia chaff.
RAIN_MAN = _named(11, "rain man")
WILLOW_RIBBON = _named(11, "red ribbon")
LIGHTNING = _named(11, "lightning")
SAKE_CUP = _named(9, "sake cup")
YELLOW_CHAFF = _named(12, "yellow chaff")


def month_codes(month: int) -> tuple[str, ...]:
    """The four cards of ``month`` (1-12), in deck order."""
    return tuple(c.code for c in DECK if c.month == month)

_BY_CODE: dict[str, Card] = {card.code: card for card in DECK}


def _normalise_code(text: str) -> str | None:
    """Accept ``08-1``, ``8-1``, ``0801``-less forms like ``8-1`` / `` 08-1 ``."""
    parts = text.strip().split("-")
    # ASCII digits only, and short: str.isdigit() is also true for characters such as
    # "²" that int() rejects, and int() refuses strings over 4300 digits (ValueError).
    if len(parts) != 2 or not all(p.isascii() and p.isdigit() and len(p) <= 3
                                  for p in parts):
        return None
    return f"{int(parts[0]):02d}-{int(parts[1])}"


def card(code: object) -> Card:
    """The card with this code (``08-1``; ``8-1`` is accepted too).

    Raises InputError naming the bad code otherwise.
    """
    if not isinstance(code, str):
        raise InputError(f"card code must be a string like 08-1, not {code!r}")
    normal = _normalise_code(code)
    found = _BY_CODE.get(normal) if normal else None
    if found is None:
        raise InputError(f"unknown card code {code!r} (expected MM-K, month 01-12, K 1-4)")
    return found


def card_from_class(index: int) -> Card:
    """The card for a model class index 0..47."""
    if not 0 <= index < len(DECK):
        raise InputError(f"class index {index} out of range 0..47")
    return DECK[index]


def cards(codes: Iterable[str]) -> list[Card]:
    """Parse many codes, keeping their order."""
    return [card(c) for c in codes]


def equivalent(a: str, b: str) -> bool:
    """True if two codes are the same card modulo the plain-chaff equivalence."""
    return card(a).equivalence_key == card(b).equivalence_key
