"""Sakura (Hawaiian hanafuda): card values, the eight 3-card yaku, round scores.

RULES.md section 1: round score = card points - yaku_points x (yaku held by every other
team); yaku are found on each team's (shared) pile.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

from scorer.cards import DECK, Kind
from scorer.rules.records import PileSummary, PlayerResult, RoundResult, YakuHit
from scorer.rules.validate import Round, Side

if TYPE_CHECKING:
    from scorer.rules.ruleset import RuleSet


@dataclass(frozen=True)
class SakuraYaku:
    name: str
    letter: str  # Hanafuda Hawaii card letter, romanised
    label: str
    cards: tuple[str, ...]


YAKU: tuple[SakuraYaku, ...] = (
    SakuraYaku("drinking", "i", "い Drinking (Nomi): curtain, moon, sake cup",
               ("03-1", "08-1", "09-1")),
    SakuraYaku("spring", "ro", "ろ Spring (Omote-Sugawara): crane, bush warbler, curtain",
               ("01-1", "02-1", "03-1")),
    SakuraYaku("akatan", "ha", "は Akatan: the three poetry ribbons",
               ("01-2", "02-2", "03-2")),
    SakuraYaku("aotan", "ni", "に Aotan: the three blue ribbons", ("06-2", "09-2", "10-2")),
    SakuraYaku("aotan_animals", "ho", "ほ butterflies, sake cup, deer",
               ("06-1", "09-1", "10-1")),
    SakuraYaku("kusatan", "he", "へ Kusatan: the grass ribbons of wisteria, iris, "
               "bush clover", ("04-2", "05-2", "07-2")),
    SakuraYaku("kusatan_animals", "to", "と cuckoo, bridge, boar", ("04-1", "05-1", "07-1")),
    SakuraYaku("inoshikagan", "chi", "ち Inoshikagan (Ganbo): boar, geese, deer",
               ("07-1", "08-2", "10-1")),
)
YAKU_NAMES: tuple[str, ...] = tuple(y.name for y in YAKU)


def card_values(rs: RuleSet) -> dict[str, int]:
    """Sakura card values: 20 for the four non-willow brights; 10 for the ribbons and the
    yellow paulownia (option yellow_paulownia); 5 for the animals and the rain man."""
    values: dict[str, int] = {}
    for c in DECK:
        if c.code == "11-1":
            v = 5
        elif c.kind is Kind.BRIGHT:
            v = 20
        elif c.kind is Kind.RIBBON:
            v = 10
        elif c.kind is Kind.ANIMAL:
            v = 5
        elif c.code == "12-2":
            v = int(rs["yellow_paulownia"])
        else:
            v = 0
        values[c.code] = v
    return values


def find_yaku(codes: Iterable[str], rs: RuleSet) -> PileSummary:
    pile = set(codes)
    values = card_values(rs)
    points = sum(values[c] for c in pile)
    hits = [YakuHit(y.name, int(rs["yaku_points"]), y.cards, y.label)
            for y in YAKU if set(y.cards) <= pile]
    return PileSummary(points, hits, points, "sakura")


def _hand_over_leftovers(rnd: Round, rs: RuleSet, notes: list[str]) -> None:
    """RULES 1.6: the gaji (11-4) user takes the leftovers of the month it captured (or
    all leftovers, option gaji_leftovers); other leftovers are dead."""
    month = rnd.context.get("gaji_month")
    if month is None or not rnd.leftovers:
        if rnd.leftovers:
            notes.append(f"leftovers {', '.join(rnd.leftovers)} are dead")
        return
    holder = next((s for s in rnd.sides if "11-4" in s.codes), None)
    if holder is None:
        from scorer.errors import InputError
        raise InputError("gaji_month is given but no pile holds the lightning 11-4")
    others = [c for c in holder.codes if c != "11-4" and int(c[:2]) == month]
    if not others:
        from scorer.errors import InputError
        raise InputError(f"gaji_month {month}: {holder.name}'s pile, which holds the "
                         f"lightning, has no card of month {month:02d} for it to have taken")
    if rs["gaji_leftovers"] == "all":
        taken = list(rnd.leftovers)
    else:
        taken = [c for c in rnd.leftovers if int(c[:2]) == month]
    dead = [c for c in rnd.leftovers if c not in taken]
    if taken:
        holder.codes.extend(taken)
        member = next((m for m in holder.members if "11-4" in holder.member_codes.get(m, [])),
                      None) or next(iter(holder.member_codes), holder.name)
        holder.member_codes.setdefault(member, []).extend(taken)
        notes.append(f"{holder.name} (gaji) takes the leftovers {', '.join(taken)}")
    if dead:
        notes.append(f"leftovers {', '.join(dead)} are dead")


def _side_yaku(side: Side, rs: RuleSet) -> list[YakuHit]:
    if rs["team_piles"] == "separate" and len(side.members) > 1:
        hits: list[YakuHit] = []
        for member in side.members:
            hits.extend(find_yaku(side.member_codes.get(member, []), rs).yaku)
        return hits
    return find_yaku(side.codes, rs).yaku


def rank(rnd: Round, scores: dict[str, int], tie_policy: str,
         lowest: bool = False) -> tuple[str | None, list[str], str]:
    """(winner or None, tied sides, the side nearest the dealer among the best)."""
    best = (min if lowest else max)(scores.values())
    top = [name for name, s in scores.items() if s == best]
    nearest = rnd.nearest_side(top).name
    if len(top) > 1 and tie_policy == "shared":
        return None, top, nearest
    return nearest, (top if len(top) > 1 else []), nearest


def score_round(rnd: Round, rs: RuleSet) -> RoundResult:
    notes: list[str] = []
    _hand_over_leftovers(rnd, rs, notes)
    values = card_values(rs)
    per = int(rs["yaku_points"])
    yaku = {s.name: _side_yaku(s, rs) for s in rnd.sides}
    results: dict[str, PlayerResult] = {}
    for side in rnd.sides:
        pts = sum(values[c] for c in side.codes)
        own = yaku[side.name]
        if rs["yaku_scoring"] == "bonus":
            penalty = 0
            bonus = per * len(own)
            score = pts + bonus
            text = f"cards {pts} + {per} x {len(own)} own yaku = {score}"
        else:
            against = [(o.name, y.name) for o in rnd.sides if o.name != side.name
                       for y in yaku[o.name]]
            penalty = per * len(against)
            score = pts - penalty
            who = "; ".join(f"{o}: {', '.join(y for n, y in against if n == o)}"
                            for o in dict.fromkeys(n for n, _ in against))
            text = (f"cards {pts} - {per} x {len(against)} opponents' yaku"
                    + (f" ({who})" if who else "") + f" = {score}")
        results[side.name] = PlayerResult(
            side.name, pts, own, penalty, 1, score, text, side.members,
            tuple(sorted(side.codes)))
    scores = {k: r.score for k, r in results.items()}
    winner, tied, nearest = rank(rnd, scores, rs["tie_policy"])
    if rs["next_dealer"] == "loser":
        _, _, deal_side = rank(rnd, scores, "dealer_wins", lowest=True)
    else:
        deal_side = nearest
    next_dealer = rnd.nearest_member(next(s for s in rnd.sides if s.name == deal_side))

    award = None
    if winner is not None or tied:
        winners = [winner] if winner is not None else tied
        others = [s for k, s in scores.items() if k != winners[0]]
        margin = scores[winners[0]] - max(others) if others else 0
        count, kind = victories(margin, rs)
        any_yaku = any(yaku.values())
        award = {"winners": winners, "victories": count, "kind": kind,
                 "shira": kind == "basa" and not any_yaku, "margin": margin}

    lines = [f"{k}: {r.explanation}" for k, r in results.items()] + notes
    if winner is None:
        lines.append(f"tie between {', '.join(tied)}: shared (tie_policy=shared)")
    elif tied:
        lines.append(f"tie between {', '.join(tied)}: {winner} wins as the dealer or the "
                     f"nearest to the dealer's right")
    else:
        lines.append(f"{winner} wins the round")
    if award and award["kind"] != "plain":
        lines.append(f"margin {award['margin']}: {award['kind']}"
                     + (" (shira-basa: no yaku this round)" if award["shira"] else ""))
    lines.append(f"{next_dealer} deals next")
    return RoundResult(results, winner, next_dealer, lines, rs.name, rs.game, rnd.dealer,
                       award, tied)


def victories(margin: int, rs: RuleSet) -> tuple[int, str]:
    """Victories for a round won by ``margin`` over the best other side (RULES 1.8)."""
    mode = rs["chu_basa"]
    basa = margin >= int(rs["basa_margin"])
    chu = margin >= int(rs["chu_margin"])
    if mode == "combined":
        if basa:
            return 3, "basa"
        if chu:
            return 2, "chu"
    elif mode == "both_two":
        if basa:
            return 2, "basa"
        if chu:
            return 2, "chu"
    elif mode == "basa" and basa:
        return 2, "basa"
    elif mode == "chu" and chu:
        return 2, "chu"
    return 1, "plain"
