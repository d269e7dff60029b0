"""Go-Stop (3 players) and Matgo (2 players): the base points of a pile (RULES-gostop.md
section 2), the go count (section 3) and the zero-sum settlement with every multiplier and
penalty (section 4), from the piles and the round's context (section 5). Every disputed
point G1-G19 (section 7) is an option with the spec's default.

Only the player who stops scores; each loser pays
``(B + goes) x go factor x 2^shakes x 2^bombs x meongtta x nagari x his own baks``.

One module a concern: ``cards`` (which card counts as what, the yaku), ``house_rules``
(options and presets), ``context`` (the round's facts), ``points`` (a pile's base
points), ``baks`` (the loser's penalties), ``settlement`` (who pays whom) and ``scoring``
(a round's checks, result and table); ``variant`` ties them into the registry's object.
"""

from __future__ import annotations

from scorer.rules.gostop.baks import Bak, bak_verdicts
from scorer.rules.gostop.cards import DECK_JUNK, PI, SINGLE_PI, YAKU, card_values
from scorer.rules.gostop.context import GostopContext, outcome
from scorer.rules.gostop.house_rules import OPTIONS, PRESETS
from scorer.rules.gostop.points import Tally, find_yaku, readings, tally
from scorer.rules.gostop.scoring import check_round, context_from_log, ignored_counts, score_round
from scorer.rules.gostop.settlement import Share, Stopped, settle, share
from scorer.rules.gostop.variant import VARIANT, Gostop

__all__ = ["DECK_JUNK", "OPTIONS", "PI", "PRESETS", "SINGLE_PI", "VARIANT", "YAKU", "Bak",
           "Gostop", "GostopContext", "Share", "Stopped", "Tally", "bak_verdicts",
           "card_values", "check_round", "context_from_log", "find_yaku", "ignored_counts",
           "outcome", "readings", "score_round", "settle", "share", "tally"]
