"""The Hachi-Hachi variant object the registry lists: its options, presets, yaku, context
and scoring functions."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from scorer.rules.base import BaseVariant
from scorer.rules.hachihachi.cards import ALL_YAKU, card_values
from scorer.rules.hachihachi.context import HachihachiContext, schema_for
from scorer.rules.hachihachi.house_rules import OPTION_GROUPS, OPTIONS, PRESETS
from scorer.rules.hachihachi.scoring import context_from_log, find_yaku, score_round
from scorer.rules.records import PileSummary, RoundResult
from scorer.rules.ruleset import RuleSet


class Hachihachi(BaseVariant):
    """Hachi-Hachi 八八, docs/RULES-hachihachi.md: 3 to 7 at the table, 3 play each month;
    card points against 88, teyaku and dekiyaku in kan, the field multiplier; every
    payment goes from one player to another (scores in mon)."""

    name = "hachihachi"
    title = "Hachi-Hachi"
    min_players, max_players = 3, 7
    options = OPTIONS
    presets = PRESETS
    yaku = ALL_YAKU
    context = HachihachiContext
    multiplies = True
    option_groups: Mapping[str, str] = OPTION_GROUPS
    round_word = "month"

    card_values = staticmethod(card_values)
    find_yaku = staticmethod(find_yaku)
    score_round = staticmethod(score_round)

    def context_from_log(self, results: Sequence[RoundResult],
                         rs: RuleSet) -> dict[str, Any]:
        return context_from_log(results, rs)

    def without_pile(self, raw_context: Mapping[str, Any]) -> set[str]:
        """The players sitting the month out (their pile is empty: none need be saved)."""
        out = raw_context.get("sitting_out") or ()
        names = out.split(",") if isinstance(out, str) else out
        return {n.strip() for n in names if isinstance(n, str) and n.strip()} \
            if isinstance(names, (list, tuple, str)) else set()

    def context_schema(self, rs: RuleSet) -> list[dict[str, Any]]:
        """The month form with each teyaku's value under the game's house rules."""
        return schema_for(rs)

    def total_text(self, summary: PileSummary) -> str:
        return (f"card points: {summary.total} ({summary.total - 88:+d} against the par "
                f"of 88; dekiyaku in kan)")


VARIANT = Hachihachi()
