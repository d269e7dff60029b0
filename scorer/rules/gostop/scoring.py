"""A Go-Stop round: its checks (RULES-gostop.md section 5), its result (a stop, a
nagari or an instant win), each player's line of the Go-Stop table, and the nagari carry
read from the game's log."""

from __future__ import annotations

from typing import Any, Sequence, cast

from scorer.errors import InputError
from scorer.rules.gostop.baks import Bak
from scorer.rules.gostop.cards import BONUS_DECKS, DECK_JUNK, ROLE_YAKU
from scorer.rules.gostop.context import GostopContext, outcome
from scorer.rules.gostop.points import Tally, readings
from scorer.rules.gostop.settlement import Stopped, may_stop, nagari_factor, settle, winner_terms
from scorer.rules.records import PlayerResult, RoundResult, YakuHit
from scorer.rules.ruleset import RuleSet
from scorer.rules.sides import CheckedRound


def _readings(rnd: CheckedRound, rs: RuleSet) -> dict[str, list[Tally]]:
    """Every reading of each side's pile, with its declared sake cup and bonus junk."""
    ctx = cast(GostopContext, rnd.context)
    return {s.name: readings(s.codes, rs, ctx.sake_cup.get(s.name),
                             ctx.bonus_junk.get(s.name, 0)) for s in rnd.sides}


def check_round(rnd: CheckedRound, rs: RuleSet) -> None:
    """Go-Stop's own checks (RULES-gostop.md section 5)."""
    ctx = cast(GostopContext, rnd.context)
    end = outcome(ctx)
    if end == "nagari" and ctx.stopped_by:
        raise InputError(f"a nagari has no winner, but stopped_by names {ctx.stopped_by}")
    if end != "nagari" and not ctx.stopped_by:
        raise InputError(f"outcome {end} needs the winner: give stopped_by")
    for name in ctx.go_order:
        if not ctx.goes.get(name):
            raise InputError(f"go_order names {name}, who called no go (goes)")
    tallies = _readings(rnd, rs)
    bonus_total = BONUS_DECKS[rs["bonus_cards"]]
    bonus = sum(ctx.bonus_junk.values())
    junk = sum(max(t.junk for t in ts) for ts in tallies.values())
    flex = any(rs["double_junk_animal"] in s.codes for s in rnd.sides)
    limit = DECK_JUNK + 2 * flex + bonus_total
    if junk > limit or bonus > bonus_total:
        raise InputError(
            f"the piles hold {junk} junk (bonus junk {bonus}) but a deck holds at most "
            f"{limit}: {DECK_JUNK} in its cards" + (" + 2 the sake cup" if flex else "")
            + f" + {bonus_total} in bonus cards (bonus_cards={rs['bonus_cards']})")
    if end != "stop":
        return
    winner = ctx.stopped_by
    assert winner is not None
    best = max(t.base for t in tallies[winner])
    if not any(may_stop(t, ctx.goes.get(winner, 0), rs) for t in tallies[winner]):
        goes = ctx.goes.get(winner, 0)
        raise InputError(f"{winner} stopped with {best} points" + (
            f" + {goes} go" if goes else "") + f", below the stop minimum "
            f"{rs['stop_minimum']}")
    callers = [p for p in tallies if p != winner and ctx.goes.get(p, 0) > 0]
    if rs["gobak"] == "both_shares" and len(callers) > 1 and \
            not set(callers) <= set(ctx.go_order):
        raise InputError(f"{' and '.join(callers)} both called go: give go_order (who "
                         f"called first) to tell who is liable for go-bak")


def ignored_counts(ctx: GostopContext, winner: str | None) -> list[tuple[str, str]]:
    """(context key, why) for each player's shakes and bombs that do not count: only the
    winner's multiply (RULES-gostop.md 4.1), and in a nagari or an instant win nobody's.
    ``hanafuda score`` refuses them; the round's explanation says so."""
    out = []
    for key, what in (("shakes", "shake"), ("bombs", "bomb")):
        for p, n in getattr(ctx, key).items():
            if n and p != winner:
                why = f"only the winner's {key} multiply ({winner} stopped)" if winner \
                    else f"nobody stopped, so no {key} count"
                out.append((key, f"{p}'s {n} {what}{'s do' if n != 1 else ' does'} not "
                                 f"count: {why}"))
    return out


def score_round(rnd: CheckedRound, rs: RuleSet) -> RoundResult:
    """The round's result: a nagari (nobody scores), an instant win (each loser pays a
    fixed amount) or a stop (``settle``); each player's line and the next dealer."""
    ctx = cast(GostopContext, rnd.context)
    tallies = _readings(rnd, rs)
    end = outcome(ctx)
    names = list(tallies)
    scores = {p: 0 for p in names}
    mults = {p: 1 for p in names}
    texts = {p: "0 (nagari: nobody scores)" for p in names}
    counted: dict[str, list[YakuHit]] = {p: [] for p in names}
    lines: list[str] = []
    winner = ctx.stopped_by if end != "nagari" else None
    if end == "nagari":
        lines.append(f"nagari: nobody stopped; the next round is ×"
                     f"{nagari_factor(ctx.nagari + 1, rs)}, the same dealer deals")
    elif end == "instant":
        assert winner is not None
        value = int(rs["instant_win_points"]) or int(rs["stop_minimum"])
        for p in names:
            scores[p], texts[p] = -value, f"pays {value} (instant win, no multipliers)"
        scores[winner] = value * (len(names) - 1)
        texts[winner] = f"instant win (chongtong / three ppeok): receives {scores[winner]}"
    stopped = None
    if end == "stop":
        assert winner is not None
        stopped = settle(ctx, rs, tallies, winner)
        scores, texts, mults = stopped.scores, stopped.texts, stopped.mults
        counted[winner] = list(stopped.reading.hits)
    own = {p: stopped.reading if stopped and p == winner else
           max(tallies[p], key=lambda t: t.base) for p in names}
    for p in names:
        if p != winner and own[p].base:
            texts[p] += f"; the pile forms {own[p].base} (" + ", ".join(
                h.name for h in own[p].hits) + ", not scored)"
        if ctx.bonus_junk.get(p):
            texts[p] += f"; {ctx.bonus_junk[p]} bonus junk counted among its {own[p].junk} junk"
    lines += [why for _, why in ignored_counts(ctx, winner if end == "stop" else None)]
    results = {s.name: PlayerResult(
        s.name, own[s.name].base, counted[s.name], max(0, -scores[s.name]), mults[s.name],
        scores[s.name], texts[s.name], s.members, tuple(sorted(s.codes)),
        details(s.name, own[s.name], ctx, end, winner, stopped, rs))
        for s in rnd.sides}
    next_dealer = winner or rnd.dealer
    lines = [f"{k}: {r.explanation}" for k, r in results.items()] + lines
    lines.append(f"{winner} wins the round" if winner else "no winner")
    lines.append(f"{next_dealer} deals next")
    return RoundResult(results, winner, next_dealer, lines, rs.name, rs.game, rnd.dealer)


def details(name: str, own: Tally, ctx: GostopContext, end: str, winner: str | None,
            stopped: Stopped | None, rs: RuleSet) -> dict[str, Any]:
    """One player's line of the Go-Stop table: the pile's points by role and its counts,
    the calls, the multipliers on what he receives or pays, and each bak in play with
    its reason (applied or escaped)."""
    role = "nagari" if end == "nagari" else "instant" if end == "instant" else \
        "winner" if name == winner else "loser"
    out: dict[str, Any] = {
        "role": role,
        "points": {r: sum(h.points for h in own.hits if h.name in yaku)
                   for r, yaku in ROLE_YAKU.items()},
        "base": own.base, "counts": own.counts(),
        "bonus_junk": ctx.bonus_junk.get(name, 0),
        "goes": ctx.goes.get(name, 0), "shakes": ctx.shakes.get(name, 0),
        "bombs": ctx.bombs.get(name, 0),
        "double_junk_animal": own.role, "factors": [], "baks": [],
    }
    if stopped is None:
        return out
    if role == "winner":
        factors = winner_terms(stopped.reading, ctx, name, rs)[2]
        out["factors"] = [{"factor": v, "why": t.strip("()")} for v, t in factors]
        out["receives"] = stopped.scores[name]
        return out
    mine = stopped.shares[name]
    out["factors"] = [{"factor": v, "why": t.strip("()")} for v, t in mine.factors]
    out["baks"] = [b.to_dict() for b in mine.verdicts]
    out["share"] = mine.amount
    out["pays"] = -stopped.scores[name]
    liable = stopped.liable
    if liable is not None and liable != winner and name in stopped.shares:
        if name == liable:
            out["baks"].append(Bak("go-bak", True, f"{name} called go, and {winner} "
                                   "stopped: pays the other losers' shares too").to_dict())
        elif mine.amount:
            out["baks"].append(Bak("go-bak", False, f"{liable} called go: his go-bak covers "
                                   f"{name}'s share").to_dict())
    return out


def context_from_log(results: Sequence[RoundResult], rs: RuleSet) -> dict[str, Any]:
    """The nagari carry: how many rounds just before had no winner."""
    draws = 0
    for res in reversed(results):
        if res.winner is not None:
            break
        draws += 1
    return {"nagari": draws}
