"""What each loser of a stopped Go-Stop round pays the winner (RULES-gostop.md
sections 3-4): the go calls, the winner's multipliers (shakes, bombs, meongtta, the nagari
carry), each loser's baks, and the go-bak liability that moves shares between losers."""

from __future__ import annotations

from dataclasses import dataclass, field
from math import prod
from typing import Sequence

from scorer.rules.gostop.baks import Bak, bak_verdicts
from scorer.rules.gostop.cards import ROLE_TEXT
from scorer.rules.gostop.context import GostopContext
from scorer.rules.gostop.points import Tally, worth
from scorer.rules.ruleset import RuleSet


def go_terms(goes: int, rs: RuleSet) -> tuple[int, int]:
    """(bonus points, factor) of ``goes`` go calls under ``go_scheme`` (G2)."""
    scheme = rs["go_scheme"]
    if goes <= 0:
        return 0, 1
    if scheme == "double_from_3":
        return goes, 2 ** (goes - 2) if goes >= 3 else 1
    if scheme == "times_n_minus_1":
        return goes, goes - 1 if goes >= 3 else 1
    if scheme == "times_n_from_2":
        return (1, 1) if goes == 1 else (0, goes)
    if scheme == "flat_double":
        return goes, 2 if goes >= 3 else 1
    if scheme == "capped_bonus":
        return min(goes, 2), 2 ** (goes - 2) if goes >= 3 else 1
    return 0, 2 ** goes                                # power_of_two


def nagari_factor(draws: int, rs: RuleSet) -> int:
    """The carry of ``draws`` nagari just before (G15, G17)."""
    if rs["five_draws"] == "reset":
        draws %= 5
    mode = rs["nagari_multiplier"]
    if draws <= 0:
        return 1
    if mode == "flat_2":
        return 2
    cap = {"cap_8": 8, "cap_64": 64}.get(mode)
    return min(2 ** draws, cap) if cap else 2 ** draws


@dataclass
class Share:
    """What one loser owes the winner, with the text that shows every factor."""

    amount: int
    text: str
    baks: list[str]
    verdicts: list[Bak] = field(default_factory=list)
    factors: list[tuple[int, str]] = field(default_factory=list)


def winner_terms(w: Tally, ctx: GostopContext, winner: str,
                 rs: RuleSet) -> tuple[int, str, list[tuple[int, str]]]:
    """(points before the multipliers, how they are written, winner-side factors)."""
    goes = ctx.goes.get(winner, 0)
    shakes, bombs = ctx.shakes.get(winner, 0), ctx.bombs.get(winner, 0)
    if rs["bomb"] == "as_shake":
        shakes, bombs = shakes + bombs, 0
    elif rs["bomb"] == "none":
        bombs = 0
    elif rs["bomb"] == "one_flag":
        bombs = min(bombs, 1)
    bonus, go_factor = go_terms(goes, rs)
    adds = [(bonus, "go")]
    if rs["shake"] == "plus_one":
        adds.append((shakes, "shake" if shakes == 1 else "shakes"))
        shakes = 0
    adds = [(n, t) for n, t in adds if n]
    head = w.base + sum(n for n, _ in adds)
    text = (f"({w.base} + " + " + ".join(f"{n} {t}" for n, t in adds) + ")") if adds \
        else str(w.base)
    factors: list[tuple[int, str]] = []
    if go_factor > 1:
        factors.append((go_factor, f"({goes} goes)"))
    if shakes:
        factors.append((2 ** shakes, "shake" if shakes == 1 else f"({shakes} shakes)"))
    if bombs:
        factors.append((2 ** bombs, "bomb" if bombs == 1 else f"({bombs} bombs)"))
    if rs["meongtta_min"] and w.animals >= int(rs["meongtta_min"]):
        factors.append((2, "meongtta"))
    carry = nagari_factor(ctx.nagari, rs)
    if carry > 1:
        factors.append((carry, "nagari" if ctx.nagari == 1 else f"({ctx.nagari} nagari)"))
    return head, text, factors


def share(w: Tally, loser: Tally, ctx: GostopContext, winner: str, rs: RuleSet,
          gobak_double: bool = False, name: str = "the loser") -> Share:
    """One loser's own payment (before a go-bak liability moves it)."""
    if loser.empty:
        return Share(0, "0 (no cards at all: exempt)", [])
    head, text, factors = winner_terms(w, ctx, winner, rs)
    verdicts = bak_verdicts(w, loser, rs, gobak_double, name)
    baks = [b.name for b in verdicts if b.applies]
    plus = 0
    for bak in baks:
        if bak == "gwang-bak" and rs["gwangbak_penalty"] == "plus_2":
            plus = 2
        else:
            factors.append((2, bak))
    factor = prod(value for value, _ in factors)
    amount = head * factor + plus
    if factors or plus or text != str(amount):
        text += "".join(f" × {v} {t}" for v, t in factors) + \
            (" + 2 gwang-bak" if plus else "") + f" = {amount}"
    return Share(amount, text, baks, verdicts, factors)


def _liable(losers: Sequence[str], ctx: GostopContext, rs: RuleSet) -> str | None:
    """The loser who pays every share (3-player go-bak), or None."""
    callers = [p for p in losers if ctx.goes.get(p, 0) > 0]
    if rs["gobak"] != "both_shares" or not callers:
        return None
    if len(callers) == 1:
        return callers[0]
    order = [p for p in ctx.go_order if p in callers]
    return order[0] if rs["gobak_liable"] == "first" else order[-1]


def may_stop(w: Tally, goes: int, rs: RuleSet) -> bool:
    """Does the pile reach the stop minimum? A player who called go reached it before his
    first go and may have lost junk since, so his go bonus points count too."""
    return w.base + go_terms(goes, rs)[0] >= int(rs["stop_minimum"])


@dataclass
class Stopped:
    """A stopped round's settlement: each player's score, text and multiplier, the
    winner's reading, each loser's own share and who is liable for go-bak."""

    scores: dict[str, int]
    texts: dict[str, str]
    mults: dict[str, int]
    reading: Tally
    shares: dict[str, Share]
    liable: str | None


def settle(ctx: GostopContext, rs: RuleSet, tallies: dict[str, list[Tally]],
           winner: str) -> Stopped:
    """Scores, texts and multipliers of a round ``winner`` stopped: his reading that makes
    the losers pay the most, each loser paying his own cheapest reading."""
    losers = [p for p in tallies if p != winner]
    double = rs["gobak"] == "double"
    best: tuple[int, Tally, dict[str, Share]] | None = None
    for w in tallies[winner]:
        if not may_stop(w, ctx.goes.get(winner, 0), rs):
            continue
        shares = {p: min((share(w, pile, ctx, winner, rs, double and ctx.goes.get(p, 0) > 0, p)
                          for pile in tallies[p]), key=lambda s: s.amount) for p in losers}
        total = sum(s.amount for s in shares.values())
        if best is None or (total, worth(w, rs)) > (best[0], worth(best[1], rs)):
            best = (total, w, shares)
    assert best is not None
    total, w, shares = best
    factors = winner_terms(w, ctx, winner, rs)[2]
    scores = {p: -s.amount for p, s in shares.items()}
    texts = {p: f"pays {s.text}" for p, s in shares.items()}
    mults = {p: 1 for p in tallies}
    for p, s in shares.items():
        mults[p] = 2 ** sum(1 for b in s.baks if b != "gwang-bak" or
                            rs["gwangbak_penalty"] == "double")
    liable = _liable(losers, ctx, rs)
    if liable is not None:
        others = [p for p in losers if p != liable and shares[p].amount]
        for p in others:
            scores[liable] -= shares[p].amount
            scores[p] = 0
            texts[p] = (f"pays 0: {liable} called go, so his go-bak covers this share "
                        f"({shares[p].text})")
        if others:
            texts[liable] += "".join(f" + {p}'s share {shares[p].amount}" for p in others) \
                + f" (go-bak) = {-scores[liable]}"
    mults[winner] = prod(value for value, _ in factors)
    scores[winner] = total
    role = f"; {rs['double_junk_animal']} as {ROLE_TEXT[w.role]}" if w.role else ""
    goes = ctx.goes.get(winner, 0)
    texts[winner] = (" + ".join(f"{h.name} {h.points}" for h in w.hits) + f" = {w.base}"
                     + (f"; {goes} go" if goes else "") + role
                     + f"; stops and receives {total}")
    return Stopped(scores, texts, mults, w, shares, liable)
