"""Hachi-Hachi 八八 (docs/RULES-hachihachi.md): three active players a month (3-7 at the
table, the rest sitting out), card points against the par of 88, teyaku from the dealt
hands, dekiyaku from the captured piles, the field multiplier (small ×1, big ×2, grand ×4)
read from the table cards at the deal, and payments in kan and mon between the players.

One module a concern: ``sources`` (the rule sources by key), ``cards`` (points, the
willow rule, the yaku as data), ``house_rules`` (options and presets), ``context`` (a
month's facts), ``field`` (the multiplier), ``money`` (kan, mon, payments), ``specials`` (the special
yaku) and ``scoring`` (a month's payments); ``variant`` ties them into the registry's object.
"""

from __future__ import annotations

from scorer.rules.hachihachi.cards import (DECK_POINTS, DEKIYAKU, PAR, TEYAKU, card_points,
                                           card_values, chaff_teyaku, set_teyaku)
from scorer.rules.hachihachi.context import HachihachiContext
from scorer.rules.hachihachi.field import Field, from_table, month_field
from scorer.rules.hachihachi.house_rules import OPTIONS, PRESETS
from scorer.rules.hachihachi.money import Payment, bga_kan_mon, kan_mon, text
from scorer.rules.hachihachi.scoring import (context_from_log, dekiyaku, find_yaku,
                                             score_round, teyaku_of_hand)
from scorer.rules.hachihachi.specials import nihachi, sohachi, sujuroku, tobikomi
from scorer.rules.hachihachi.sources import SOURCES
from scorer.rules.hachihachi.variant import VARIANT, Hachihachi

__all__ = ["DECK_POINTS", "DEKIYAKU", "Field", "Hachihachi", "HachihachiContext", "OPTIONS",
           "PAR", "PRESETS", "Payment", "SOURCES", "TEYAKU", "VARIANT", "bga_kan_mon",
           "card_points", "card_values", "chaff_teyaku", "context_from_log", "dekiyaku",
           "find_yaku", "from_table", "kan_mon", "month_field", "score_round",
           "nihachi", "set_teyaku", "sohachi", "sujuroku", "teyaku_of_hand", "text",
           "tobikomi"]
