"""The Go-Stop variant object the registry lists: its options, presets, yaku, context
and scoring functions."""

from __future__ import annotations

from typing import Mapping

from scorer.rules.base import BaseVariant
from scorer.rules.gostop.cards import YAKU, card_values
from scorer.rules.gostop.context import GostopContext
from scorer.rules.gostop.house_rules import OPTION_GROUPS, OPTIONS, PRESETS
from scorer.rules.gostop.points import find_yaku
from scorer.rules.gostop.scoring import check_round, context_from_log, score_round
from scorer.rules.records import PileSummary


class Gostop(BaseVariant):
    """Go-Stop and Matgo, RULES-gostop.md: 2 or 3 players (each preset fixes which);
    only the player who stops scores and every other player pays him."""

    name = "gostop"
    title = "Go-Stop"
    min_players, max_players = 2, 3
    options = OPTIONS
    presets = PRESETS
    yaku = YAKU
    context = GostopContext
    multiplies = True
    option_groups: Mapping[str, str] = OPTION_GROUPS

    card_values = staticmethod(card_values)
    find_yaku = staticmethod(find_yaku)
    check_round = staticmethod(check_round)
    score_round = staticmethod(score_round)
    context_from_log = staticmethod(context_from_log)

    def total_text(self, summary: PileSummary) -> str:
        return f"base points: {summary.total} (before go, multipliers and baks)"


VARIANT = Gostop()
