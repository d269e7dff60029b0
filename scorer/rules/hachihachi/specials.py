"""Hachi-Hachi's special yaku (tokushu-yaku), found from a month as a whole rather than
from one pile's sets: su-jūroku (16 chaff), ni-hachi (168 card points), sō-hachi (all
three at 88) and tobikomi (a dealt three whose fourth card was captured)."""

from __future__ import annotations

from collections import Counter
from typing import Collection, Mapping, Sequence

from scorer.cards import Kind, card
from scorer.rules.hachihachi.cards import (NIHACHI, PAR, SOHACHI, SUJUROKU, TOBIKOMI,
                                           card_points, kind_of)
from scorer.rules.records import YakuHit
from scorer.rules.ruleset import RuleSet
from scorer.rules.yaku import enabled, points


def sujuroku(pile: Collection[str], rs: RuleSet) -> YakuHit | None:
    """Su-jūroku: 16 or more chaff (the willows too with the willow rule), 12 kan and
    ``sujuroku_extra`` kan for each chaff beyond 16 [PORG-CUR][IMPL-FR]."""
    chaff = sorted(c for c in pile if kind_of(c, rs) is Kind.CHAFF)
    if not enabled(SUJUROKU, rs) or len(chaff) < SUJUROKU.need:
        return None
    extra = len(chaff) - SUJUROKU.need
    kan = points(SUJUROKU, rs) + extra * int(rs["sujuroku_extra"])
    label = SUJUROKU.label + (f" (+{extra} beyond 16)" if extra else "")
    return YakuHit(SUJUROKU.name, kan, tuple(chaff), label)


def nihachi(pile: Collection[str], rs: RuleSet) -> YakuHit | None:
    """Ni-hachi: 168 card points or more (88 + 80), 10 kan and one more for each point
    beyond 168 [IMPL-FR]."""
    pts = card_points(pile)
    if not enabled(NIHACHI, rs) or pts < NIHACHI.need:
        return None
    extra = pts - NIHACHI.need
    label = NIHACHI.label + (f" (+{extra} beyond 168)" if extra else "")
    return YakuHit(NIHACHI.name, points(NIHACHI, rs) + extra, tuple(sorted(pile)), label)


def sohachi(piles: Mapping[str, Collection[str]], rs: RuleSet) -> YakuHit | None:
    """Sō-hachi: every active player at exactly 88 card points; the dealer collects 10
    kan from each [IMPL-FR]."""
    if not enabled(SOHACHI, rs) or any(card_points(p) != PAR for p in piles.values()):
        return None
    return YakuHit(SOHACHI.name, points(SOHACHI, rs), (), SOHACHI.label)


def tobikomi(hand: Sequence[str], pile: Collection[str], rs: RuleSet) -> YakuHit | None:
    """Tobikomi: the dealt hand held three cards of a month (and no four), and the pile
    holds all four cards of that month; 1 kan for each such month [PORG-SCH][IMPL-FR]."""
    if not hand or not enabled(TOBIKOMI, rs):
        return None
    months = Counter(card(c).month for c in hand)
    if 4 in months.values():
        return None
    dived = [m for m, n in months.items() if n == 3 and
             sum(card(c).month == m for c in pile) == 4]
    if not dived:
        return None
    cards = tuple(sorted(c for c in pile if card(c).month in dived))
    return YakuHit(TOBIKOMI.name, points(TOBIKOMI, rs) * len(dived), cards,
                   TOBIKOMI.label + "".join(f" ({m:02d})" for m in sorted(dived)))
