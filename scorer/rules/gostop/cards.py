"""Go-Stop's cards by role (RULES-gostop.md section 2): which hwatu card is a bright
(gwang), an animal (yeol), a ribbon (tti) or junk (pi), the double junk (ssangpi), the
sets that form yaku (godori's birds, the three dan) and the yaku themselves."""

from __future__ import annotations

from scorer.cards import DECK, LIGHTNING, RAIN_MAN, SAKE_CUP, YELLOW_CHAFF, Kind
from scorer.rules.ruleset import RuleSet
from scorer.rules.yaku import Yaku

# The cards the double_junk_animal option may name: the sake cup, or the iris bridge.
SAKE, BRIDGE = SAKE_CUP, "05-1"
GWANG = tuple(c.code for c in DECK if c.kind is Kind.BRIGHT)
DRY = tuple(c for c in GWANG if c != RAIN_MAN)
YEOL = tuple(c.code for c in DECK if c.kind is Kind.ANIMAL)
TTI = tuple(c.code for c in DECK if c.kind is Kind.RIBBON)
SSANGPI = (LIGHTNING, YELLOW_CHAFF)               # the double junk (2 pi each)
PI = tuple(c.code for c in DECK if c.kind is Kind.CHAFF)
SINGLE_PI = tuple(c for c in PI if c not in SSANGPI)
BIRDS = ("02-1", "04-1", "08-2")                 # bush warbler, cuckoo, geese
SWALLOW = "11-2"
HONGDAN, CHEONGDAN, CHODAN = ("01-2", "02-2", "03-2"), ("06-2", "09-2", "10-2"), \
    ("04-2", "05-2", "07-2")
#: Junk value of a whole deck's cards (22 single + 2 double); the sake cup adds 2 as junk.
DECK_JUNK = len(SINGLE_PI) + 2 * len(SSANGPI)
# What the double-junk animal may count as in a pile, and how the texts name each role.
ROLES = ("animal", "junk")
ROLE_TEXT = {"animal": "an animal", "junk": "a double junk", "both": "an animal and a double "
             "junk"}
# The junk value of all bonus (joker) cards under each bonus_cards option.
BONUS_DECKS = {"2+2+3": 7, "2+3": 5, "2+2+2": 6, "none": 0}

YAKU: tuple[Yaku, ...] = (
    Yaku("ogwang", "Ogwang 오광 (five brights)", GWANG, 15, group="gwang"),
    Yaku("sagwang", "Sagwang 사광 (four brights)", GWANG, 4, need=4, group="gwang"),
    Yaku("samgwang", "Samgwang 삼광 (three brights, no rain man)", DRY, 3, need=3,
         group="gwang"),
    Yaku("bi-samgwang", "Bi-samgwang 비삼광 (rain man + two brights)", DRY, 2, need=2,
         requires=(RAIN_MAN,), group="gwang"),
    Yaku("godori", "Godori 고도리 (five birds)", BIRDS, 5),
    Yaku("hongdan", "Hongdan 홍단 (poetry ribbons)", HONGDAN, 3),
    Yaku("cheongdan", "Cheongdan 청단 (blue ribbons)", CHEONGDAN, 3),
    Yaku("chodan", "Chodan 초단 (plain red ribbons)", CHODAN, 3),
    Yaku("yeol", "Yeol 열끗 (5+ animals)", YEOL, 1, need=5, per_card=True),
    Yaku("tti", "Tti 띠 (5+ ribbons)", TTI, 1, need=5, per_card=True),
    Yaku("pi", "Pi 피 (junk value 10+)", SINGLE_PI, 1, need=10),
)
BRIGHT_YAKU = tuple(y.name for y in YAKU if y.group == "gwang")

#: The four kinds of card and the yaku each kind scores (points by role).
ROLE_YAKU = {"gwang": BRIGHT_YAKU, "yeol": ("yeol", "godori"),
             "tti": ("tti", "hongdan", "cheongdan", "chodan"), "pi": ("pi",)}


def card_values(rs: RuleSet) -> dict[str, int]:
    """Each card's junk value (the double-junk animal counts 0 here: it is an animal
    unless taken as junk)."""
    return {c.code: (2 if c.code in SSANGPI else 1 if c.kind is Kind.CHAFF else 0)
            for c in DECK}
