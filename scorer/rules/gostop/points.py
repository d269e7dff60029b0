"""The base points of one Go-Stop pile (RULES-gostop.md section 2): its yaku read with
the double-junk animal as an animal, as junk or (by a house rule) both."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from scorer.cards import RAIN_MAN, WILLOW_RIBBON
from scorer.errors import InputError
from scorer.rules.context import Context
from scorer.rules.gostop.cards import (BIRDS, BONUS_DECKS, CHODAN, GWANG, PI, ROLE_TEXT, ROLES,
                                       SSANGPI, SWALLOW, TTI, YAKU, YEOL)
from scorer.rules.records import PileSummary, YakuHit
from scorer.rules.ruleset import RuleSet
from scorer.rules.yaku import Yaku, enabled, first_of_groups, hit, points


@dataclass(frozen=True)
class Tally:
    """One pile read one way: its yaku, base points and counts. ``role`` is what the
    double-junk animal counts as (None when the pile does not hold it)."""

    hits: tuple[YakuHit, ...]
    brights: int
    animals: int
    ribbons: int
    junk: int
    role: str | None
    empty: bool
    rain: bool = False

    @property
    def base(self) -> int:
        return sum(h.points for h in self.hits)

    def has(self, *names: str) -> bool:
        return any(h.name in names for h in self.hits)

    def counts(self) -> dict[str, int]:
        return {"brights": self.brights, "animals": self.animals,
                "ribbons": self.ribbons, "junk": self.junk}


def _sagwang(held: Sequence[str], rs: RuleSet) -> int:
    """Sagwang's points under the sagwang option (G1): it may depend on the rain man."""
    mode, wet = rs["sagwang"], RAIN_MAN in held
    return {"4": 4, "5": 5, "rain_3": 3 if wet else 4,
            "wet4_dry5": 4 if wet else 5}[mode]


def tally(codes: Iterable[str], rs: RuleSet, role: str | None, bonus: int = 0) -> Tally:
    """The pile's yaku with the double-junk animal counted as ``role`` ("animal",
    "junk" or "both"), plus ``bonus`` junk value from joker cards."""
    pile = set(codes)
    flex = rs["double_junk_animal"]
    if flex not in pile:
        role = None
    animals = [c for c in YEOL if c in pile and (c != flex or role in ("animal", "both"))]
    willow = rs["willow_ribbon"]
    ribbons = [c for c in TTI if c in pile and
               not (c == WILLOW_RIBBON and willow == "chodan_not_counted")]
    junk_cards = [c for c in PI if c in pile]
    if role in ("junk", "both"):
        junk_cards.append(flex)
    junk = sum(2 if c in SSANGPI or c == flex else 1 for c in junk_cards) + bonus
    hits: list[YakuHit] = []
    for yaku in YAKU:
        if not enabled(yaku, rs):
            continue
        found = _hit(yaku, pile, animals, ribbons, junk_cards, junk, rs)
        if found is not None:
            hits.append(found)
    hits = first_of_groups(hits, YAKU)
    return Tally(tuple(hits), sum(c in pile for c in GWANG), len(animals), len(ribbons),
                 junk, role, not pile and not bonus, RAIN_MAN in pile)


def _hit(yaku: Yaku, pile: set[str], animals: list[str], ribbons: list[str],
         junk_cards: list[str], junk: int, rs: RuleSet) -> YakuHit | None:
    """One yaku in a pile, or None: the house rules (G1, G6, G7, G10) change what
    sagwang, godori, chodan and tti take and score."""
    name = yaku.name
    if name == "pi":
        if junk < 10:
            return None
        return YakuHit(name, points(yaku, rs, junk - 9), tuple(sorted(junk_cards)),
                       yaku.label.replace("10+", str(junk)))
    if name == "godori" and rs["godori"] == "swallow_10" and SWALLOW in pile and \
            all(c in pile for c in BIRDS):
        return hit(yaku, rs, BIRDS + (SWALLOW,), default=10)
    if name == "chodan" and rs["willow_ribbon"] != "count_only":
        yaku = Yaku(name, yaku.label, CHODAN + (WILLOW_RIBBON,), 3, need=3, most=4)
    seen = {"yeol": animals, "tti": ribbons}.get(name, pile)
    held = yaku.held(seen)
    if held is None:
        return None
    if name == "chodan":
        held = held[:3]
    if name == "sagwang":
        return hit(yaku, rs, held, default=_sagwang(held, rs))
    if name == "godori":
        return hit(yaku, rs, held, default=int(rs["godori"]) if rs["godori"] != "swallow_10"
                   else 5)
    if name == "tti" and len(held) == len(TTI) and rs["ten_ribbons"] == "15":
        return hit(yaku, rs, held, default=15)
    return hit(yaku, rs, held, yaku.extras(seen, held))


def readings(codes: Iterable[str], rs: RuleSet, declared: str | None = None,
             bonus: int = 0) -> list[Tally]:
    """Every reading of a pile the rules allow: one, or both roles of the double-junk
    animal when it is undeclared and ``sake_cup`` is ``best``."""
    codes = list(codes)
    mode = declared or rs["sake_cup"]
    if rs["double_junk_animal"] not in codes:
        return [tally(codes, rs, None, bonus)]
    if mode == "best":
        return [tally(codes, rs, role, bonus) for role in ROLES]
    return [tally(codes, rs, mode, bonus)]


def worth(t: Tally, rs: RuleSet) -> int:
    """What a reading is worth to its owner as a winner on its own: the base, x2 for
    meongtta (the one winner-side factor the pile decides). ``sake_cup = best`` takes the
    reading worth more for a pile alone, and breaks a settlement's ties with it."""
    meongtta = int(rs["meongtta_min"]) and t.animals >= int(rs["meongtta_min"])
    return t.base * (2 if meongtta else 1)


def find_yaku(codes: Iterable[str], rs: RuleSet,
              context: Context | None = None) -> PileSummary:
    """The base points of one pile (``bonus_junk`` adds joker junk); with ``sake_cup =
    best`` the reading worth more to a winner (see ``worth``; the animal on a tie)."""
    bonus, deck = int(rs["bonus_junk"]), BONUS_DECKS[rs["bonus_cards"]]
    if bonus > deck:
        raise InputError(f"bonus_junk {bonus} is more than the deck's bonus cards hold: "
                         f"{deck} (bonus_cards={rs['bonus_cards']})")
    options = readings(codes, rs, bonus=bonus)
    best = max(options, key=lambda t: worth(t, rs))    # first on a tie: the animal
    notes = (f"{rs['double_junk_animal']} counts as {ROLE_TEXT[best.role]}",) \
        if best.role else ()
    return PileSummary(0, list(best.hits), best.base, "gostop", notes,
                       {"counts": best.counts()})
