"""The worked example of docs/RULES-NOTES.md "Adding a game" (kept identical to it)."""
from scorer.cards import DECK
from scorer.rules.base import MAX_ROUNDS, BaseVariant, Preset
from scorer.rules.context import Context
from scorer.rules.options import integer
from scorer.rules.records import PileSummary, PlayerResult, RoundResult
from scorer.rules.yaku import Yaku, enabled, hit

YAKU = (Yaku("akatan", "Akatan 赤短", ("01-2", "02-2", "03-2"), 5),)

class Mini(BaseVariant):
    name, title, min_players, max_players = "mini", "Mini", 2, 2
    options = (integer("rounds", 6, "rounds in a game", "house", 1, MAX_ROUNDS),)
    presets = (Preset("mini", "mini", "poetry ribbons only"),)
    yaku, context = YAKU, Context

    def card_values(self, rs):
        return {c.code: 0 for c in DECK}

    def find_yaku(self, codes, rs, context):
        pile = set(codes)
        hits = [hit(y, rs, y.held(pile)) for y in YAKU
                if enabled(y, rs) and y.held(pile) is not None]
        return PileSummary(0, hits, sum(h.points for h in hits), self.name)

    def score_round(self, rnd, rs):
        results = {}
        for side in rnd.sides:
            found = self.find_yaku(side.codes, rs, rnd.context)
            results[side.name] = PlayerResult(side.name, 0, found.yaku, 0, 1, found.total,
                                              f"yaku {found.total}", side.members)
        winner = max(results, key=lambda k: results[k].score)
        return RoundResult(results, winner, winner, [f"{winner} wins"], rs.name, rs.game,
                           rnd.dealer)

VARIANT = Mini()
