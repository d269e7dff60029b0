"""Hachi-Hachi's cards: their points (20/10/5/1, 264 in all: the par of 88 is a third),
the kind each card counts as for the yaku (the willow rule), and the dekiyaku (captured
combinations) and teyaku (dealt-hand combinations) as data, each with its source."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Collection, Iterable

from scorer.cards import DECK, RAIN_MAN, Kind, card
from scorer.rules.ruleset import RuleSet
from scorer.rules.yaku import Yaku

#: Card points by kind [VINGEL][JPCM][PAGAT]: 5 brights x 20 + 9 animals x 10 +
#: 10 ribbons x 5 + 24 chaff x 1 = 264.
POINTS = {Kind.BRIGHT: 20, Kind.ANIMAL: 10, Kind.RIBBON: 5, Kind.CHAFF: 1}
DECK_POINTS = sum(POINTS[c.kind] for c in DECK)
PLAYERS_ACTIVE = 3
#: The par: a third of the deck's points [PORG][PAGAT][JPCM].
PAR = DECK_POINTS // PLAYERS_ACTIVE

BRIGHTS = tuple(c.code for c in DECK if c.kind is Kind.BRIGHT)
DRY = tuple(c for c in BRIGHTS if c != RAIN_MAN)
AKATAN = ("01-2", "02-2", "03-2")
AOTAN = ("06-2", "09-2", "10-2")
KUSA = ("04-2", "05-2", "07-2")           # the grass (plain red) ribbons
ISC = ("06-1", "07-1", "10-1")           # boar, deer, butterflies
RIBBONS = tuple(c.code for c in DECK if c.kind is Kind.RIBBON)
WILLOW = tuple(c.code for c in DECK if c.month == 11)
#: Tatesanbon: three of wisteria, iris or bush clover, or the three paulownia chaff
#: [KIRISAME].
TATE_MONTHS = (4, 5, 7)
PAULOWNIA_CHAFF = ("12-2", "12-3", "12-4")


def card_values(rs: RuleSet | None = None) -> dict[str, int]:
    """Each card's points (the willow rule does not change them)."""
    return {c.code: POINTS[c.kind] for c in DECK}


def card_points(codes: Iterable[str]) -> int:
    return sum(POINTS[card(c).kind] for c in codes)


def kind_of(code: str, rs: RuleSet) -> Kind:
    """The kind a card counts as for the yaku: with ``willow_as_chaff`` every willow card
    is a chaff [BGA] (its card points stay)."""
    c = card(code)
    if rs["willow_as_chaff"] and c.month == 11:
        return Kind.CHAFF
    return c.kind


# --------------------------------------------------------------------------- dekiyaku
#: The dekiyaku, in the order they are looked for; ``points`` are kan on a small field.
#: Exclusive groups: go-ko over shi-ko, nana-tan over roku-tan.
DEKIYAKU: tuple[Yaku, ...] = (
    Yaku("goko", "Gokō 五光 (all five brights)", BRIGHTS, 12, group="brights"),
    Yaku("shiko", "Shikō 四光 (four brights, not the rain man)", DRY, 10, group="brights"),
    Yaku("nanatan", "Nana-tan 七短 (seven ribbons)", RIBBONS, 10, need=7, group="tan"),
    Yaku("rokutan", "Roku-tan 六短 (six ribbons)", RIBBONS, 7, need=6, most=6, group="tan"),
    Yaku("akatan", "Akatan 赤短 (poetry ribbons)", AKATAN, 7),
    Yaku("aotan", "Aotan 青短 (blue ribbons)", AOTAN, 7),
    Yaku("inoshikacho", "Ino-shika-chō 猪鹿蝶 (boar, deer, butterflies)", ISC, 7),
    Yaku("kusa", "Kusa 草 (grass ribbons)", KUSA, 5),
)
#: Round-end special yaku (tokushu-yaku) [PORG-CUR][IMPL-FR]: paid only in a month played
#: out with no dekiyaku, and then no card points are settled.
SUJUROKU = Yaku("sujuroku", "Su-jūroku 素十六 (16 or more chaff)", (), 12, need=16)
NIHACHI = Yaku("nihachi", "Ni-hachi 二八 (168 card points or more)", (), 10, need=168)
SOHACHI = Yaku("sohachi", "Sō-hachi 総八 (all three exactly 88: the dealer collects)", (), 10,
               group="month")
#: A three dealt in hand whose fourth card the player captured [PORG-SCH][IMPL-FR].
TOBIKOMI = Yaku("tobikomi", "Tobikomi 飛込 (a dealt three, its fourth card captured)", (), 1,
                group="month")
SPECIALS: tuple[Yaku, ...] = (SUJUROKU, NIHACHI, SOHACHI, TOBIKOMI)

#: Where each yaku's default value comes from (docs/RULES-hachihachi.md section 4).
YAKU_SOURCES: dict[str, str] = {
    "goko": "SHIRAGIKU, PORG-CUR", "shiko": "SHIRAGIKU, PORG-CUR",
    "akatan": "PORG-CUR", "aotan": "PORG-CUR", "sujuroku": "PORG-CUR, SHIRAGIKU",
    "nanatan": "IMPL-FR", "rokutan": "UNVERIFIED", "inoshikacho": "IMPL-FR",
    "kusa": "UNVERIFIED", "nihachi": "IMPL-FR", "sohachi": "IMPL-FR",
    "tobikomi": "PORG-SCH, IMPL-FR",
}


# ---------------------------------------------------------------------------- teyaku
@dataclass(frozen=True)
class Teyaku:
    """One dealt-hand yaku: its name, label, group ("sets" or "chaff") and default kan."""

    name: str
    label: str
    group: str
    kan: int
    source: str

    def as_yaku(self) -> Yaku:
        return Yaku(self.name, self.label, (), self.kan, group="teyaku_" + self.group)


TEYAKU: tuple[Teyaku, ...] = (
    # set-based: by how the seven cards fall into months [KIRISAME][PORG-SCH][IMPL-FR]
    Teyaku("shiso", "Shisō 四三 (four and three of two months)", "sets", 20, "IMPL-FR"),
    Teyaku("ichinishi", "Ichi-ni-shi 一二四 (four of a month and a pair)", "sets", 8,
           "IMPL-FR"),
    Teyaku("futatatesanbon", "Futa-tate-sanbon 二立三本 (two standing threes)", "sets", 8,
           "IMPL-FR, IMPL-NIM"),
    Teyaku("sanbontatesanbon", "Sanbon-tate-sanbon 三本立三本 (a three and a standing three)",
           "sets", 7, "IMPL-FR, IMPL-NIM"),
    Teyaku("haneken", "Haneken はねけん (a three and two pairs)", "sets", 7, "IMPL-FR"),
    Teyaku("teshi", "Teshi 手四 (four of a month)", "sets", 6, "IMPL-FR"),
    Teyaku("futasanbon", "Futa-sanbon 二三本 (two threes)", "sets", 6, "IMPL-FR, IMPL-NIM"),
    Teyaku("kuttsuki", "Kuttsuki 喰付 (three pairs)", "sets", 4, "IMPL-FR"),
    Teyaku("tatesanbon", "Tate-sanbon 立三本 (three of wisteria, iris or bush clover, or "
           "the three paulownia chaff)", "sets", 3, "KIRISAME, IMPL-FR, IMPL-NIM"),
    Teyaku("sanbon", "Sanbon 三本 (three of a month)", "sets", 2, "KIRISAME, IMPL-FR, IMPL-NIM"),
    # chaff-based: by the kinds of the seven cards (willows as chaff) [KIRISAME][IMPL-FR]
    Teyaku("nanatan_te", "Nana-tan 七短 (seven ribbons dealt)", "chaff", 10, "UNVERIFIED"),
    Teyaku("pikaichi", "Pika-ichi 光一 (one bright, six chaff)", "chaff", 4, "IMPL-FR, JA-WP"),
    Teyaku("karasu", "Karasu 空素 (seven chaff)", "chaff", 4, "IMPL-FR, JA-WP"),
    Teyaku("sunashi", "Sunashi 素無 (seven scoring cards, no chaff)", "chaff", 4, "JA-WP"),
    Teyaku("aka", "Aka 赤 (two or more ribbons, the rest chaff)", "chaff", 3,
           "KIRISAME, JA-WP, PORG"),
    Teyaku("tanichi", "Tan-ichi 短一 (one ribbon, six chaff)", "chaff", 3,
           "KIRISAME, IMPL-FR, JA-WP"),
    Teyaku("toichi", "Tō-ichi 十一 (one animal, six chaff)", "chaff", 3, "IMPL-FR, JA-WP"),
)
#: The nuke-yaku (ぬけ役): chaff-heavy hands shown face up, so hard to win with; each earns
#: one kan more when its holder ends the month over 88 card points [JA-WP].
NUKE_YAKU = ("aka", "tanichi", "toichi", "karasu")
NUKE_KAN = 1
TEYAKU_BY_NAME = {t.name: t for t in TEYAKU}
SET_TEYAKU = tuple(t.name for t in TEYAKU if t.group == "sets")
CHAFF_TEYAKU = tuple(t.name for t in TEYAKU if t.group == "chaff")
HAND_SIZE = 7

#: Every yaku a ``points.<name>`` / ``yaku.<name>`` option may name.
ALL_YAKU: tuple[Yaku, ...] = DEKIYAKU + SPECIALS + tuple(t.as_yaku() for t in TEYAKU)


def _is_tate(codes: Collection[str]) -> bool:
    months = {card(c).month for c in codes}
    return (len(months) == 1 and months.pop() in TATE_MONTHS) or \
        set(codes) == set(PAULOWNIA_CHAFF)


def set_teyaku(hand: Collection[str]) -> str | None:
    """The set-based teyaku of a seven-card hand (its months' counts), or None."""
    by_month: dict[int, list[str]] = {}
    for code in hand:
        by_month.setdefault(card(code).month, []).append(code)
    shape = sorted((len(v) for v in by_month.values()), reverse=True)
    if shape[:2] == [4, 3]:
        return "shiso"
    if shape[:2] == [4, 2]:
        return "ichinishi"
    if shape[0] == 4:
        return "teshi"
    if shape[:2] == [3, 3]:
        tate = sum(_is_tate(v) for v in by_month.values() if len(v) == 3)
        return ("futasanbon", "sanbontatesanbon", "futatatesanbon")[tate]
    if shape[:3] == [3, 2, 2]:
        return "haneken"
    if shape[0] == 3:
        three = next(v for v in by_month.values() if len(v) == 3)
        return "tatesanbon" if _is_tate(three) else "sanbon"
    if shape[:3] == [2, 2, 2]:
        return "kuttsuki"
    return None


def chaff_teyaku(hand: Collection[str], rs: RuleSet) -> str | None:
    """The chaff-based teyaku of a seven-card hand (the kinds its cards count as).

    Aka is two ribbons and five chaff (``aka_ribbons=exactly_two`` [KIRISAME]) or two or
    more ribbons with the rest chaff (``two_or_more`` [JA-WP][PORG]); sunashi is seven
    scoring cards, no chaff [JA-WP]."""
    kinds = Counter(kind_of(c, rs) for c in hand)
    chaff, ribbons = kinds[Kind.CHAFF], kinds[Kind.RIBBON]
    if ribbons == HAND_SIZE:
        return "nanatan_te"
    if chaff == HAND_SIZE:
        return "karasu"
    if chaff == 0:
        return "sunashi"
    if chaff == HAND_SIZE - 1:
        return {Kind.BRIGHT: "pikaichi", Kind.RIBBON: "tanichi", Kind.ANIMAL: "toichi"}[
            next(k for k in kinds if k is not Kind.CHAFF)]
    aka_ok = ribbons == 2 if rs["aka_ribbons"] == "exactly_two" else ribbons >= 2
    if aka_ok and chaff + ribbons == HAND_SIZE:
        return "aka"
    return None
