"""A Hachi-Hachi month scored: the three active players' card points against the par of
88, their teyaku and dekiyaku, the field multiplier and what each player pays whom, line
by line (docs/RULES-hachihachi.md section 5). Pure: piles and context in, RoundResult out.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Collection, Iterable, Sequence, cast

from scorer.cards import DECK, Kind, card
from scorer.errors import InputError
from scorer.rules.hachihachi.cards import (DEKIYAKU, HAND_SIZE, PAR,
                                           PLAYERS_ACTIVE, SUJUROKU, TEYAKU_BY_NAME,
                                           card_points, chaff_teyaku, kind_of, set_teyaku)
from scorer.rules.hachihachi.context import HachihachiContext
from scorer.rules.hachihachi.field import Field, month_field
from scorer.rules.hachihachi.money import Payment, nets, text
from scorer.rules.records import PileSummary, PlayerResult, RoundResult, YakuHit
from scorer.rules.ruleset import RuleSet
from scorer.rules.sides import CheckedRound
from scorer.rules.yaku import enabled, first_of_groups, hit, points


# ------------------------------------------------------------------ a pile's yaku
def _counting(pile: Collection[str], rs: RuleSet, kind: Kind) -> list[str]:
    return sorted(c for c in pile if kind_of(c, rs) is kind)


def dekiyaku(pile: Collection[str], rs: RuleSet) -> list[YakuHit]:
    """The dekiyaku a captured pile holds (kan on a small field). Ribbons are counted as
    the willow rule says (the willow ribbon is a chaff with ``willow_as_chaff``)."""
    ribbons = set(_counting(pile, rs, Kind.RIBBON))
    hits: list[YakuHit] = []
    for yaku in DEKIYAKU:
        if not enabled(yaku, rs):
            continue
        seen = ribbons if yaku.name in ("nanatan", "rokutan") else set(pile)
        held = yaku.held(seen)
        if held is not None:
            hits.append(hit(yaku, rs, held, (), sort=True))
    both = rs["goko_with_shiko"] == "both" and any(h.name == "goko" for h in hits)
    kept = first_of_groups(hits, DEKIYAKU)
    if both:
        shiko = next(h for h in hits if h.name == "shiko")
        kept.insert(1, shiko)
    return kept


def sujuroku(pile: Collection[str], rs: RuleSet) -> YakuHit | None:
    """Su-jūroku: 16 or more chaff (willows too with the willow rule), 12 kan and
    ``sujuroku_extra`` kan for each chaff beyond 16 [PORG-CUR]."""
    chaff = _counting(pile, rs, Kind.CHAFF)
    if not enabled(SUJUROKU, rs) or len(chaff) < SUJUROKU.need:
        return None
    extra = len(chaff) - SUJUROKU.need
    kan = points(SUJUROKU, rs) + extra * int(rs["sujuroku_extra"])
    label = SUJUROKU.label + (f" (+{extra} beyond 16)" if extra else "")
    return YakuHit(SUJUROKU.name, kan, tuple(chaff), label)


def find_yaku(codes: Iterable[str], rs: RuleSet, context: Any = None) -> PileSummary:
    """One pile on its own: its card points and the dekiyaku it holds (and su-jūroku);
    ``total`` is the card points."""
    pile = list(codes)
    hits = dekiyaku(pile, rs)
    special = sujuroku(pile, rs)
    notes = []
    if special:
        hits.append(special)
        notes.append("su-jūroku is paid only when nobody made a dekiyaku")
    pts = card_points(pile)
    notes.append(f"{pts} card points: {pts - PAR:+d} against the par of {PAR}")
    return PileSummary(pts, hits, pts, "hachihachi", tuple(notes))


# ------------------------------------------------------------------ teyaku
def teyaku_of_hand(hand: Sequence[str], rs: RuleSet) -> list[str]:
    """The teyaku a dealt hand of seven cards shows: one set-based and one chaff-based
    (``teyaku_combine=one_each``) or the better one (``best_only``)."""
    found = [t for t in (set_teyaku(hand), chaff_teyaku(hand, rs)) if t]
    return _combine(found, rs)


def _kan(name: str, rs: RuleSet) -> int:
    t = TEYAKU_BY_NAME[name]
    return points(t.as_yaku(), rs, t.kan)


def _combine(found: list[str], rs: RuleSet) -> list[str]:
    found = [t for t in found if enabled(TEYAKU_BY_NAME[t].as_yaku(), rs)]
    if rs["teyaku_combine"] == "best_only" and len(found) > 1:
        return [max(found, key=lambda t: _kan(t, rs))]
    return found


def _teyaku(ctx: HachihachiContext, active: list[str], rs: RuleSet,
            taken: dict[str, str]) -> dict[str, list[YakuHit]]:
    """Each active player's teyaku: read from his dealt hand, or as declared (both given
    must agree)."""
    out: dict[str, list[YakuHit]] = {p: [] for p in active}
    named = set(ctx.dealt_hands) | set(ctx.teyaku_sets) | set(ctx.teyaku_chaff)
    for p in sorted(named):
        if p not in active:
            raise InputError(f"{p} sat this month out, so has no dealt hand or teyaku")
    for p in active:
        declared = [t for t in (ctx.teyaku_sets.get(p), ctx.teyaku_chaff.get(p)) if t]
        hand = ctx.dealt_hands.get(p)
        if hand:
            if len(hand) != HAND_SIZE:
                raise InputError(f"{p}'s dealt hand has {len(hand)} cards; a hand is "
                                 f"{HAND_SIZE}")
            for code in hand:
                if code in taken:
                    raise InputError(f"card {code} ({card(code).name}) is in {taken[code]} "
                                     f"and in {p}'s dealt hand")
                taken[code] = f"{p}'s dealt hand"
            found = teyaku_of_hand(hand, rs)
            for name in declared:
                if name not in found:
                    shown = ", ".join(found) or "no teyaku"
                    raise InputError(f"{p} declared {name}, but the dealt hand "
                                     f"{' '.join(hand)} shows {shown}")
        else:
            found = _combine(declared, rs)
        hand_cards = tuple(sorted(hand)) if hand else ()
        out[p] = [YakuHit(t, _kan(t, rs), hand_cards, "Teyaku: " + TEYAKU_BY_NAME[t].label)
                  for t in found]
    return out


# ------------------------------------------------------------------ the month
@dataclass
class Month:
    """A month being scored: who plays, the field, each active player's yaku and card
    points, and the payments so far."""

    players: list[str]
    active: list[str]
    sitting: list[str]
    dealer: str
    field: Field
    per_kan: int
    teyaku: dict[str, list[YakuHit]]
    dekiyaku: dict[str, list[YakuHit]]
    points: dict[str, int]
    settles_points: bool
    payments: list[Payment] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)

    def mon(self, kan: int) -> int:
        return kan * self.per_kan * self.field.multiplier

    def order_from_dealer(self) -> list[str]:
        i = self.players.index(self.dealer)
        return self.players[i:] + self.players[:i]


def _active(rnd: CheckedRound, ctx: HachihachiContext) -> tuple[list[str], list[str]]:
    players = rnd.players
    sitting = list(ctx.sitting_out)
    need = len(players) - PLAYERS_ACTIVE
    if len(sitting) != need:
        if need == 0:
            raise InputError(f"with {len(players)} players everyone plays: nobody sits out "
                             f"(sitting_out names {', '.join(sitting)})")
        raise InputError(f"{len(players)} players at the table: name the {need} who "
                         f"sit{'s' if need == 1 else ''} this month out (sitting_out), "
                         f"so that {PLAYERS_ACTIVE} play")
    for side in rnd.sides:
        if side.name in sitting and side.codes:
            raise InputError(f"{side.name} sat this month out but has {len(side.codes)} "
                             f"cards in a pile")
    return [p for p in players if p not in sitting], sitting


def _check_cards(rnd: CheckedRound, settles: bool) -> None:
    """Every card in the piles when card points are settled (a month played out
    captures all 48)."""
    if not settles:
        return
    where = {code for side in rnd.sides for code in side.codes}
    missing = [c.code for c in DECK if c.code not in where]
    if missing:
        shown = " ".join(missing[:8]) + (" ..." if len(missing) > 8 else "")
        raise InputError(f"the piles hold {len(where)} cards, but a month played out "
                         f"captures all {len(DECK)}: {len(missing)} missing ({shown}); "
                         f"add them to the pile that took them, or say who ended the "
                         f"month with a dekiyaku (stopped_by)")


def _card_point_payments(m: Month) -> None:
    """Each active player's card points against 88, times the field: those under pay
    those over (one over: each under pays him his shortfall; one under: he pays each
    over his surplus)."""
    diff = {p: m.points[p] - PAR for p in m.active}
    over = [p for p in m.active if diff[p] > 0]
    under = [p for p in m.active if diff[p] < 0]
    mult = m.field.multiplier
    tag = "" if mult == 1 else f" × {mult} ({m.field.text})"
    if len(over) == 1:
        for p in under:
            m.payments.append(Payment(p, over[0], -diff[p] * mult,
                                      f"card points, {p} {-diff[p]} under {PAR}{tag}"))
    elif len(under) == 1:
        for p in over:
            m.payments.append(Payment(under[0], p, diff[p] * mult,
                                      f"card points, {p} {diff[p]} over {PAR}{tag}"))


def _yaku_payments(m: Month, holder: str, yaku: YakuHit, rs: RuleSet,
                   hatto: str | None) -> None:
    others = [p for p in m.active if p != holder]
    value = m.mon(yaku.points)
    share = value if rs["yaku_payment"] == "each" else value // len(others)
    mult = m.field.multiplier
    kind = "teyaku" if yaku.name in TEYAKU_BY_NAME else "dekiyaku"
    base = f"{kind} {yaku.name} {yaku.points} kan" + ("" if mult == 1 else
                                                       f" × {mult} ({m.field.text})")
    if rs["yaku_payment"] == "split":
        base += ", split between the two"
    if hatto and yaku.name == "shiko":
        m.payments.append(Payment(hatto, holder, share * len(others),
                                  f"{base}; {hatto} threw the forbidden bright (hatto) and "
                                  f"pays it alone"))
        return
    for p in others:
        m.payments.append(Payment(p, holder, share, base))


def _ranked(m: Month, scores: dict[str, int]) -> list[str]:
    """The active players, best first; a tie goes to the nearer the dealer in turn."""
    order = [p for p in m.order_from_dealer() if p in m.active]
    return sorted(order, key=lambda p: -scores[p])


def _sit_out_payments(m: Month, rs: RuleSet, ctx: HachihachiContext) -> None:
    mult = m.field.multiplier
    if ctx.mizuten:
        if m.dealer in m.sitting:
            raise InputError(f"{m.dealer} dealt and declared mizuten, so cannot sit out")
        kan = int(rs["mizuten_kan"])
        for p in m.sitting:
            if kan:
                m.payments.append(Payment(p, m.dealer, m.mon(kan),
                                          f"sat out against a mizuten dealer, {kan} kan" +
                                          ("" if mult == 1 else f" × {mult}")))
    fee = int(rs["sit_out_fee"]) * mult
    if not fee or not m.sitting:
        return
    to = rs["sit_out_paid_to"]
    why = f"sitting out, {rs['sit_out_fee']} mon" + ("" if mult == 1 else f" × {mult}")
    for p in m.sitting:
        if to == "active":
            share, rest = divmod(fee, len(m.active))
            order = [q for q in m.order_from_dealer() if q in m.active]
            for i, q in enumerate(order):
                amount = share + (1 if i < rest else 0)
                if amount:
                    m.payments.append(Payment(p, q, amount, why + ", shared"))
            continue
        payee = m.dealer if to == "dealer" else _ranked(m, nets(m.payments, m.players))[0]
        if payee == p:
            continue
        m.payments.append(Payment(p, payee, fee, why))


def score_round(rnd: CheckedRound, rs: RuleSet) -> RoundResult:
    ctx = cast(HachihachiContext, rnd.context)
    active, sitting = _active(rnd, ctx)
    stopper = ctx.stopped_by
    if stopper is not None and stopper not in active:
        raise InputError(f"{stopper} sat this month out, so cannot have ended it")
    piles = {s.name: list(s.codes) for s in rnd.sides}
    # the facts of the deal first: the field, the dealt hands and their teyaku
    field_ = month_field(ctx.field, ctx.field_cards, ctx.carried_field, rs["field_carry"])
    table = {c: "the table cards at the deal" for c in ctx.field_cards}
    if len(table) != len(ctx.field_cards):
        raise InputError("a card is listed twice among the table cards at the deal")
    tey = _teyaku(ctx, active, rs, dict(table))
    # then the piles: the dekiyaku, who ended the month, every card when played out
    deki = {p: dekiyaku(piles.get(p, []), rs) for p in active}
    if stopper is not None and not deki[stopper]:
        raise InputError(f"{stopper} ended the month, but their pile forms no dekiyaku")
    settles = not (stopper is not None and rs["stop_voids_card_points"])
    specials: dict[str, YakuHit] = {}
    if settles and not any(deki.values()):
        specials = {p: y for p in active if (y := sujuroku(piles.get(p, []), rs))}
    _check_cards(rnd, settles)
    if ctx.hatto is not None:
        holders = [p for p in active if any(h.name == "shiko" for h in deki[p])]
        if ctx.hatto not in active:
            raise InputError(f"{ctx.hatto} sat this month out, so threw no forbidden card")
        if not holders or holders == [ctx.hatto]:
            raise InputError(f"hatto names {ctx.hatto}, but no other player's pile "
                             f"holds shikō")
    points_ = {p: card_points(piles.get(p, [])) for p in active}
    m = Month(list(rnd.players), active, sitting, rnd.dealer, field_, int(rs["mon_per_kan"]),
              tey, deki, points_, settles and not specials)
    for p in active:
        for y in tey[p]:
            _yaku_payments(m, p, y, rs, None)
    for p in active:
        for y in deki[p]:
            _yaku_payments(m, p, y, rs, ctx.hatto if ctx.hatto != p else None)
        if p in specials:
            _yaku_payments(m, p, specials[p], rs, None)
    if m.settles_points:
        _card_point_payments(m)
    _sit_out_payments(m, rs, ctx)
    scores = nets(m.payments, m.players)
    ranked = _ranked(m, scores)
    if stopper is not None:
        ranked.remove(stopper)
        ranked.insert(0, stopper)
    winner = ranked[0]
    return _result(rnd, rs, m, scores, winner, specials, stopper)


def _line(m: Month, p: str, specials: dict[str, YakuHit], stopper: str | None) -> str:
    parts = []
    pts = m.points[p]
    diff = pts - PAR
    cp = f"card point{'s' if pts != 1 else ''}"
    where = "over" if diff > 0 else "under" if diff < 0 else "exactly"
    if m.settles_points:
        parts.append(f"{pts} {cp}, {abs(diff)} {where} {PAR}" if diff else
                     f"{pts} {cp}, exactly {PAR}")
    elif specials:
        parts.append(f"{pts} {cp} (not settled: su-jūroku was paid instead)")
    else:
        parts.append(f"{pts} {cp} (not settled: {stopper} ended the month)")
    for y in m.teyaku[p]:
        parts.append(f"teyaku {y.name} {y.points} kan")
    for y in m.dekiyaku[p] + ([specials[p]] if p in specials else []):
        parts.append(f"dekiyaku {y.name} {y.points} kan")
    return "; ".join(parts)


def _result(rnd: CheckedRound, rs: RuleSet, m: Month, scores: dict[str, int], winner: str,
            specials: dict[str, YakuHit], stopper: str | None) -> RoundResult:
    per = m.per_kan
    f = m.field
    field_info = {"name": f.name, "multiplier": f.multiplier, "reason": f.reason,
                  "carry": f.carry, "text": f.text}
    lines = [f"field: {f.text} ({f.reason})"]
    if f.carry:
        lines.append(f"carried to next month: {f.carry} field (a second light on the table)")
    results: dict[str, PlayerResult] = {}
    for side in rnd.sides:
        p = side.name
        line = _line(m, p, specials, stopper) if p in m.active else "sat this month out"
        net = scores[p]
        explanation = f"{line}; net {text(net, per, signed=True)}"
        yaku = (m.teyaku.get(p, []) + m.dekiyaku.get(p, []) +
                ([specials[p]] if p in specials else []))
        mine = [pay.to_dict() for pay in m.payments if p in (pay.payer, pay.payee)]
        details = {"role": "active" if p in m.active else "sitting_out",
                   "card_points": m.points.get(p), "par": PAR,
                   "over_par": m.points[p] - PAR if p in m.points else None,
                   "points_settled": m.settles_points, "field": field_info,
                   "mon_per_kan": per, "payments": mine,
                   "net_text": text(net, per, signed=True)}
        results[p] = PlayerResult(p, m.points.get(p, 0), yaku, max(0, -net), f.multiplier,
                                  net, explanation, side.members, tuple(sorted(side.codes)),
                                  details)
    lines += [f"{p}: {r.explanation}" for p, r in results.items()]
    lines += [pay.sentence(per) for pay in m.payments]
    if not m.payments:
        lines.append("nobody pays anybody this month")
    lines.append(f"{winner} wins the month" + (" (ended it with a dekiyaku)"
                                               if stopper else ""))
    lines.append(f"{winner} deals next")
    return RoundResult(results, winner, winner, lines, rs.name, rs.game, rnd.dealer)


def context_from_log(results: Sequence[RoundResult], rs: RuleSet) -> dict[str, Any]:
    """The field the month before carries to this one (a second light at its deal)."""
    if not results or not rs["field_carry"]:
        return {}
    last = results[-1]
    for r in last.results.values():
        carry = (r.details.get("field") or {}).get("carry")
        if carry:
            return {"carried_field": carry}
        break
    return {}
