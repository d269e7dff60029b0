"""A Hachi-Hachi month scored: the three active players' card points against the par of
88, their teyaku and dekiyaku, the special yaku, the field multiplier and what each player
pays whom, line by line (docs/RULES-hachihachi.md section 5). Pure: piles and context in,
RoundResult out.

How a month ends decides what is paid:

* ended by a dekiyaku (``stopped_by``, shōbu): its maker's dekiyaku are paid by each other
  active player (a player who had called sage, ``sage_by``, loses his own and pays alone
  for both); no card points are settled (``stop_voids_card_points``);
* played out with a dekiyaku made (its maker called sage): each dekiyaku at half and no
  card points (``played_out_dekiyaku=half``), or in full with the card points;
* played out with none: a special yaku (sō-hachi, ni-hachi, su-jūroku) replaces the card
  points; else the card points against 88.

Teyaku and tobikomi are paid in every month; the sitting-out fees and mizuten last.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Collection, Iterable, Sequence, cast

from scorer.cards import DECK, Kind, card
from scorer.errors import InputError
from scorer.rules.hachihachi.cards import (DEKIYAKU, HAND_SIZE, NUKE_KAN, NUKE_YAKU, PAR,
                                           PLAYERS_ACTIVE, TEYAKU_BY_NAME, card_points,
                                           chaff_teyaku, kind_of, set_teyaku)
from scorer.rules.hachihachi.context import HachihachiContext
from scorer.rules.hachihachi.field import Field, month_field
from scorer.rules.hachihachi.money import Payment, nets, text
from scorer.rules.hachihachi.specials import nihachi, sohachi, sujuroku, tobikomi
from scorer.rules.records import PileSummary, PlayerResult, RoundResult, YakuHit
from scorer.rules.ruleset import RuleSet
from scorer.rules.sides import CheckedRound
from scorer.rules.yaku import enabled, first_of_groups, hit, points


# ------------------------------------------------------------------ a pile's yaku
def dekiyaku(pile: Collection[str], rs: RuleSet) -> list[YakuHit]:
    """The dekiyaku a captured pile holds (kan on a small field). Ribbons are counted as
    the willow rule says (the willow ribbon is a chaff with ``willow_as_chaff``)."""
    ribbons = {c for c in pile if kind_of(c, rs) is Kind.RIBBON}
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
        kept.insert(1, next(h for h in hits if h.name == "shiko"))
    return kept


def find_yaku(codes: Iterable[str], rs: RuleSet, context: Any = None) -> PileSummary:
    """One pile on its own: its card points and the dekiyaku it holds (and su-jūroku or
    ni-hachi); ``total`` is the card points."""
    pile = list(codes)
    hits = dekiyaku(pile, rs)
    notes = []
    for special in (sujuroku(pile, rs), nihachi(pile, rs)):
        if special:
            hits.append(special)
            notes.append(f"{special.name} is paid only in a month played out with no "
                         f"dekiyaku")
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


def _nuke(tey: dict[str, list[YakuHit]], points: dict[str, int],
          rs: RuleSet) -> set[tuple[str, str]]:
    """The nuke-yaku (ぬけ役) [JA-WP]: aka, tan-ichi, tō-ichi and karasu earn ``NUKE_KAN``
    more when their holder ends the month over 88 card points (89 or more). Raises them
    in ``tey``; returns the (player, teyaku) raised."""
    raised: set[tuple[str, str]] = set()
    if not rs["nuke_yaku"]:
        return raised
    for p, hits in tey.items():
        if points.get(p, 0) <= PAR:
            continue
        for i, h in enumerate(hits):
            if h.name in NUKE_YAKU:
                tey[p][i] = YakuHit(h.name, h.points + NUKE_KAN, h.cards,
                                    f"{h.label} +{NUKE_KAN} nuke-yaku ぬけ役 (over {PAR})")
                raised.add((p, h.name))
    return raised


# ------------------------------------------------------------------ the month
@dataclass
class Month:
    """A month being scored: who plays, the field, each active player's yaku and card
    points, how it ended, and the payments so far."""

    players: list[str]
    active: list[str]
    sitting: list[str]
    dealer: str
    field: Field
    per_kan: int
    teyaku: dict[str, list[YakuHit]]
    dekiyaku: dict[str, list[YakuHit]]
    points: dict[str, int]
    ending: str = "points"        # "stop" | "sage" (played out, a dekiyaku) | "special" | "points"
    settles_points: bool = True
    specials: dict[str, list[YakuHit]] = dataclasses.field(default_factory=dict)
    voided: dict[str, str] = dataclasses.field(default_factory=dict)
    nuked: set[tuple[str, str]] = dataclasses.field(default_factory=set)
    teyaku_void: str = ""         # why the month's teyaku (and tobikomi) were voided
    payments: list[Payment] = dataclasses.field(default_factory=list)

    def mon(self, kan: int) -> int:
        return kan * self.per_kan * self.field.multiplier

    def order_from_dealer(self) -> list[str]:
        i = self.players.index(self.dealer)
        return self.players[i:] + self.players[:i]

    def active_from_dealer(self) -> list[str]:
        return [p for p in self.order_from_dealer() if p in self.active]


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


def _check_cards(rnd: CheckedRound) -> None:
    """Every card in the piles of a month played out (it captures all 48)."""
    where = {code for side in rnd.sides for code in side.codes}
    missing = [c.code for c in DECK if c.code not in where]
    if missing:
        shown = " ".join(missing[:8]) + (" ..." if len(missing) > 8 else "")
        raise InputError(f"the piles hold {len(where)} cards, but a month played out "
                         f"captures all {len(DECK)}: {len(missing)} missing ({shown}); "
                         f"add them to the pile that took them, or say who ended the "
                         f"month with a dekiyaku (stopped_by)")


def _times(m: Month) -> str:
    mult = m.field.multiplier
    return "" if mult == 1 else f" × {mult} ({m.field.text})"


def _card_point_payments(m: Month) -> None:
    """Each active player's card points against 88, times the field: those under pay
    those over (one over: each under pays him his shortfall; one under: he pays each
    over his surplus)."""
    diff = {p: m.points[p] - PAR for p in m.active}
    over = [p for p in m.active if diff[p] > 0]
    under = [p for p in m.active if diff[p] < 0]
    mult = m.field.multiplier
    if len(over) == 1:
        for p in under:
            m.payments.append(Payment(p, over[0], -diff[p] * mult,
                                      f"card points, {p} {-diff[p]} under {PAR}{_times(m)}"))
    elif len(under) == 1:
        for p in over:
            m.payments.append(Payment(under[0], p, diff[p] * mult,
                                      f"card points, {p} {diff[p]} over {PAR}{_times(m)}"))


def _pay(m: Month, holder: str, yaku: YakuHit, rs: RuleSet, kind: str,
         alone: str | None = None, why_alone: str = "", half: bool = False,
         note: str = "") -> None:
    """The payments for one yaku: each other active player pays its value (or half of it
    under ``yaku_payment=split``; half again with ``half``); ``alone`` pays every share."""
    others = [p for p in m.active if p != holder]
    split = rs["yaku_payment"] == "split"
    divisor = (len(others) if split else 1) * (2 if half else 1)
    share = m.mon(yaku.points) // divisor
    base = f"{kind} {yaku.name} {yaku.points} kan{note}{_times(m)}"
    if split:
        base += ", split between the two"
    if half:
        base += ", at half (played out after sage)"
    if alone:
        m.payments.append(Payment(alone, holder, share * len(others), f"{base}; {why_alone}"))
        return
    for p in others:
        m.payments.append(Payment(p, holder, share, base))


def _ranked(m: Month, scores: dict[str, int]) -> list[str]:
    """The active players, best first; a tie goes to the nearer the dealer in turn."""
    return sorted(m.active_from_dealer(), key=lambda p: -scores[p])


ORDINALS = ("first", "second", "third", "fourth")


def _sit_out_payments(m: Month, rs: RuleSet, ctx: HachihachiContext, winner: str) -> None:
    """Mizuten: each player sitting out pays the dealer; then the sitting-out fees, each
    further player half the fee more with ``sit_out_rising`` [IMPL-FR], times the field."""
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
    base = int(rs["sit_out_fee"])
    to = rs["sit_out_paid_to"]
    for i, p in enumerate(m.sitting):
        step = i if rs["sit_out_rising"] else 0
        fee = base * (2 + step) // 2
        if not fee:
            continue
        nth = f" {ORDINALS[i]}" if len(m.sitting) > 1 else ""
        why = f"sitting out{nth}, {text(fee, m.per_kan)}" + ("" if mult == 1 else f" × {mult}")
        amount = fee * mult
        if to == "active":
            share, rest = divmod(amount, len(m.active))
            for j, q in enumerate(m.active_from_dealer()):
                if share + (j < rest):
                    m.payments.append(Payment(p, q, share + (j < rest), why + ", shared"))
            continue
        payee = m.dealer if to == "dealer" and m.dealer in m.active else winner
        m.payments.append(Payment(p, payee, amount, why + (", to the dealer" if payee ==
                                                           m.dealer and to == "dealer"
                                                           else ", to the month's winner")))


def _check_stop(ctx: HachihachiContext, active: list[str],
                deki: dict[str, list[YakuHit]]) -> None:
    stopper, sage, hatto = ctx.stopped_by, ctx.sage_by, ctx.hatto
    for key, who in (("stopped_by", stopper), ("sage_by", sage), ("hatto", hatto)):
        if who is not None and who not in active:
            raise InputError(f"{who} sat this month out ({key} names him)")
    if stopper is not None and not deki[stopper]:
        raise InputError(f"{stopper} ended the month, but their pile forms no dekiyaku")
    if sage is not None and not deki[sage]:
        raise InputError(f"{sage} called sage, but their pile forms no dekiyaku")
    if hatto is not None:
        holders = [p for p in active if p != hatto and any(h.name == "shiko" for h in deki[p])]
        if not holders:
            raise InputError(f"hatto names {hatto}, but no other player's pile holds shikō")


def score_round(rnd: CheckedRound, rs: RuleSet) -> RoundResult:
    ctx = cast(HachihachiContext, rnd.context)
    active, sitting = _active(rnd, ctx)
    piles: dict[str, list[str]] = {p: [] for p in active}
    piles.update({s.name: list(s.codes) for s in rnd.sides if s.name in active})
    # the facts of the deal first: the field, the dealt hands and their teyaku
    field_ = month_field(ctx.field, ctx.field_cards, ctx.carried_field, rs["field_carry"])
    table = {c: "the table cards at the deal" for c in ctx.field_cards}
    if len(table) != len(ctx.field_cards):
        raise InputError("a card is listed twice among the table cards at the deal")
    tey = _teyaku(ctx, active, rs, dict(table))
    # then the piles: the dekiyaku, how the month ended, every card when played out
    deki = {p: dekiyaku(piles[p], rs) for p in active}
    _check_stop(ctx, active, deki)
    stopper, sage = ctx.stopped_by, ctx.sage_by
    if stopper is None:
        _check_cards(rnd)
    m = Month(list(rnd.players), active, sitting, rnd.dealer, field_, int(rs["mon_per_kan"]),
              tey, deki, {p: card_points(piles[p]) for p in active})
    m.nuked = _nuke(tey, m.points, rs)
    for p in active:
        for y in tey[p]:
            note = f" ({y.points - NUKE_KAN} + {NUKE_KAN} nuke-yaku, {m.points[p]} card " \
                   f"points over {PAR})" if (p, y.name) in m.nuked else ""
            _pay(m, p, y, rs, "teyaku", note=note)
        dived = tobikomi(ctx.dealt_hands.get(p, ()), piles[p], rs)
        if dived:
            m.specials.setdefault(p, []).append(dived)
            _pay(m, p, dived, rs, "special")
    dealt_payments = list(m.payments)      # the teyaku and tobikomi: the hand's money
    if stopper is not None:
        m.ending = "stop"
        m.settles_points = not rs["stop_voids_card_points"]
        if sage is not None and sage != stopper:
            m.voided[sage] = f"called sage and {stopper} ended the month first"
        for p in active:
            if p in m.voided:
                continue
            for y in deki[p]:
                if p == stopper and sage is not None and sage != stopper:
                    _pay(m, p, y, rs, "dekiyaku", alone=sage,
                         why_alone=f"{sage} had called sage and pays for both")
                elif ctx.hatto and y.name == "shiko":
                    _pay(m, p, y, rs, "dekiyaku", alone=ctx.hatto,
                         why_alone=f"{ctx.hatto} threw the forbidden bright (hatto) and "
                                   f"pays it alone")
                else:
                    _pay(m, p, y, rs, "dekiyaku")
    elif any(deki.values()):
        m.ending = "sage"
        half = rs["played_out_dekiyaku"] == "half"
        m.settles_points = not half
        for p in active:
            for y in deki[p]:
                if ctx.hatto and y.name == "shiko":
                    _pay(m, p, y, rs, "dekiyaku", alone=ctx.hatto, half=half,
                         why_alone=f"{ctx.hatto} threw the forbidden bright (hatto) and "
                                   f"pays it alone")
                else:
                    _pay(m, p, y, rs, "dekiyaku", half=half)
    else:
        month_wide = sohachi({p: piles[p] for p in active}, rs)
        found = {p: [y for y in (nihachi(piles[p], rs), sujuroku(piles[p], rs)) if y]
                 for p in active}
        if month_wide:
            found[m.active_from_dealer()[0]].append(month_wide)
        if any(found.values()):
            m.ending = "special"
            m.settles_points = False
            for p in active:
                for y in found[p]:
                    m.specials.setdefault(p, []).append(y)
                    _pay(m, p, y, rs, "special")
            makers = [p for p in active if any(y.name == "sujuroku" for y in found[p])]
            if makers and rs["sujuroku_voids_teyaku"]:
                _void_teyaku(m, makers[0], dealt_payments)
    if m.settles_points:
        _card_point_payments(m)
    winner = _winner(m, stopper, sage)
    _sit_out_payments(m, rs, ctx, winner)
    return _result(rnd, rs, m, nets(m.payments, m.players), winner, stopper, sage)


def _void_teyaku(m: Month, maker: str, dealt: list[Payment]) -> None:
    """Su-jūroku voids the month's teyaku: every teyaku's money (and a tobikomi's, the
    extra on a dealt three [JA-WP]) is returned, by the su-jūroku's maker too
    [SHIRAGIKU]."""
    m.teyaku_void = f"{maker}'s su-jūroku voids the month's teyaku, money returned"
    for pay in dealt:
        m.payments.append(Payment(pay.payee, pay.payer, pay.mon,
                                  f"returned, {pay.why}: {m.teyaku_void}"))


def _winner(m: Month, stopper: str | None, sage: str | None) -> str:
    """Who won the month (and deals next): who ended it; played out after a sage, the
    first to call sage; else the best net, a tie to the nearer the dealer."""
    if stopper is not None:
        return stopper
    if m.ending == "sage" and sage is not None:
        return sage
    ranked = _ranked(m, nets(m.payments, m.players))
    return ranked[0]


def _line(m: Month, p: str, stopper: str | None) -> str:
    parts = []
    pts = m.points[p]
    diff = pts - PAR
    cp = f"{pts} card point{'s' if pts != 1 else ''}"
    where = "over" if diff > 0 else "under"
    if m.settles_points:
        parts.append(f"{cp}, {abs(diff)} {where} {PAR}" if diff else f"{cp}, exactly {PAR}")
    elif m.ending == "special":
        parts.append(f"{cp} (not settled: a special yaku was paid instead)")
    elif m.ending == "sage":
        parts.append(f"{cp} (not settled: played out after sage, dekiyaku at half)")
    else:
        parts.append(f"{cp} (not settled: {stopper} ended the month)")
    for y in m.teyaku[p]:
        nuke = f" ({y.points - NUKE_KAN} + {NUKE_KAN} nuke-yaku)" if (p, y.name) in m.nuked \
            else ""
        void = f" (void: {m.teyaku_void})" if m.teyaku_void else ""
        parts.append(f"teyaku {y.name} {y.points} kan{nuke}{void}")
    for y in m.dekiyaku[p]:
        parts.append(f"dekiyaku {y.name} {y.points} kan" +
                     (f" (void: {m.voided[p]})" if p in m.voided else ""))
    for y in m.specials.get(p, []):
        void = " (void: su-jūroku, money returned)" if m.teyaku_void and \
            y.name == "tobikomi" else ""
        parts.append(f"{y.name} {y.points} kan{void}")
    return "; ".join(parts)


def _result(rnd: CheckedRound, rs: RuleSet, m: Month, scores: dict[str, int], winner: str,
            stopper: str | None, sage: str | None) -> RoundResult:
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
        line = _line(m, p, stopper) if p in m.active else "sat this month out"
        net = scores[p]
        yaku = ([] if m.teyaku_void else m.teyaku.get(p, [])) + \
            ([] if p in m.voided else m.dekiyaku.get(p, [])) + \
            [y for y in m.specials.get(p, []) if not (m.teyaku_void and y.name == "tobikomi")]
        mine = [pay.to_dict() for pay in m.payments if p in (pay.payer, pay.payee)]
        details = {"role": "active" if p in m.active else "sitting_out",
                   "card_points": m.points.get(p), "par": PAR,
                   "over_par": m.points[p] - PAR if p in m.points else None,
                   "points_settled": m.settles_points, "ending": m.ending,
                   "field": field_info, "mon_per_kan": per, "payments": mine,
                   "net_text": text(net, per, signed=True)}
        results[p] = PlayerResult(p, m.points.get(p, 0), yaku, max(0, -net), f.multiplier,
                                  net, f"{line}; net {text(net, per, signed=True)}",
                                  side.members, tuple(sorted(side.codes)), details)
    lines += [f"{p}: {r.explanation}" for p, r in results.items()]
    lines += [pay.sentence(per) for pay in m.payments]
    if not m.payments:
        lines.append("nobody pays anybody this month")
    how = " (ended it with a dekiyaku)" if m.ending == "stop" else \
        " (called sage first)" if m.ending == "sage" and winner == sage else ""
    lines.append(f"{winner} wins the month{how}")
    lines.append(f"{winner} deals next")
    return RoundResult(results, winner, winner, lines, rs.name, rs.game, rnd.dealer)


def context_from_log(results: Sequence[RoundResult], rs: RuleSet) -> dict[str, Any]:
    """The field the month before carries to this one (a second light at its deal)."""
    if not results or not rs["field_carry"]:
        return {}
    for r in results[-1].results.values():
        carry = (r.details.get("field") or {}).get("carry")
        return {"carried_field": carry} if carry else {}
    return {}
