"""The scoring engine: games as data (``VARIANTS``), rule sets as named option values, and
small pure functions per game.

    rs = get_ruleset("sakura", overrides={"yellow_paulownia": "0"})
    find_yaku(["01-2", "02-2", "03-2"], rs)          -> PileSummary
    score_round(RoundInput(players, piles, dealer), rs) -> RoundResult

The core does no I/O (except ``load_rules_file``) and imports nothing from vision, store
or web. Every validation error is a ``scorer.errors.InputError``.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from scorer.cards import card
from scorer.errors import InputError
from scorer.rules.base import Variant, Preset
from scorer.rules.context import Context, ContextField
from scorer.rules.koikoi import multiplier as koikoi_multiplier
from scorer.rules.options import Option
from scorer.rules.records import (PileSummary, PlayerResult, RoundInput, RoundResult,
                                  YakuHit)
from scorer.rules.registry import VARIANTS, get_variant
from scorer.rules.ruleset import RuleSet
from scorer.rules.presets import (PRESETS, get_ruleset, house_rules, list_presets,
                                  load_rules_file, option_rows, parse_set_args)
from scorer.rules.validate import check_round
from scorer.rules.yaku import Yaku

__all__ = [
    "VARIANTS", "Variant", "get_variant", "Preset", "RuleSet", "Option", "Yaku", "Context",
    "ContextField", "get_ruleset", "list_presets", "load_rules_file", "parse_set_args",
    "option_rows", "house_rules", "PRESETS", "find_yaku", "score_round", "card_values",
    "koikoi_multiplier", "RoundInput", "RoundResult", "PlayerResult", "YakuHit",
    "PileSummary",
]


def card_values(rs: RuleSet) -> dict[str, int]:
    """Each card's point value under the rule set (Koi-Koi: the Hana-Awase 20/10/5/1,
    shown for information only; Koi-Koi scores yaku, not cards)."""
    return get_variant(rs.game).card_values(rs)


def find_yaku(codes: Iterable[str] | str, rs: RuleSet,
              context: Mapping[str, Any] | Context | None = None) -> PileSummary:
    """The card points and yaku of one pile on its own. ``context`` may give the Koi-Koi
    round ``month`` (for tsuki-fuda). InputError for an unknown or repeated code."""
    if isinstance(codes, str):
        codes = codes.replace(",", " ").split()
    seen: list[str] = []
    for code in (card(c).code for c in codes):
        if code in seen:
            raise InputError(f"card {code} ({card(code).name}) is listed twice")
        seen.append(code)
    game = get_variant(rs.game)
    return game.find_yaku(seen, rs, game.context.parse(context, None, rs.game))


def score_round(inp: RoundInput, rs: RuleSet) -> RoundResult:
    """Score one round (see RoundInput). InputError for anything inconsistent."""
    game = get_variant(rs.game)
    return game.score_round(check_round(inp, rs, game), rs)
