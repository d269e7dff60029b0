"""The scoring engine: rule sets as data and small pure functions per game.

    rs = get_ruleset("sakura", overrides={"yellow_paulownia": "0"})
    find_yaku(["01-2", "02-2", "03-2"], rs)          -> PileSummary
    score_round(RoundInput(players, piles, dealer), rs) -> RoundResult

The core does no I/O (except ``load_rules_file``) and imports nothing from vision, store
or web. Every validation error is a ``scorer.errors.InputError``.
"""

from __future__ import annotations

from typing import Any, Iterable

from scorer.cards import card
from scorer.errors import InputError
from scorer.rules import hanaawase, koikoi, sakura
from scorer.rules.options import OPTIONS, Option
from scorer.rules.records import (PileSummary, PlayerResult, RoundInput, RoundResult,
                                  YakuHit)
from scorer.rules.ruleset import (PRESETS, RuleSet, get_ruleset, list_presets,
                                  load_rules_file, option_rows, parse_set_args)
from scorer.rules.validate import normalise

__all__ = [
    "RuleSet", "get_ruleset", "list_presets", "load_rules_file", "find_yaku", "score_round",
    "card_values", "RoundInput", "RoundResult", "PlayerResult", "YakuHit", "PileSummary",
    "PRESETS", "OPTIONS", "Option", "option_rows", "parse_set_args",
]


def card_values(rs: RuleSet) -> dict[str, int]:
    """Each card's point value under the rule set (Koi-Koi: the Hana-Awase 20/10/5/1,
    shown for information only; Koi-Koi scores yaku, not cards)."""
    if rs.game == "sakura":
        return sakura.card_values(rs)
    if rs.game == "hanaawase":
        return hanaawase.card_values(rs)
    return hanaawase.card_values(get_ruleset("hanaawase"))


def find_yaku(codes: Iterable[str], rs: RuleSet,
              context: dict[str, Any] | None = None) -> PileSummary:
    """The card points and yaku of one pile on its own. ``context`` may give the Koi-Koi
    round ``month`` (for tsuki-fuda). InputError for an unknown or repeated code."""
    if isinstance(codes, str):
        codes = codes.replace(",", " ").split()
    seen: list[str] = []
    for c in codes:
        code = card(c).code
        if code in seen:
            raise InputError(f"card {code} ({card(code).name}) is listed twice")
        seen.append(code)
    if rs.game == "sakura":
        return sakura.find_yaku(seen, rs)
    if rs.game == "koikoi":
        return koikoi.find_yaku(seen, rs, context)
    return hanaawase.find_yaku(seen, rs)


def score_round(inp: RoundInput, rs: RuleSet) -> RoundResult:
    """Score one round (see RoundInput). InputError for anything inconsistent."""
    rnd = normalise(inp, rs)
    engine = {"sakura": sakura, "koikoi": koikoi, "hanaawase": hanaawase}[rs.game]
    return engine.score_round(rnd, rs)
