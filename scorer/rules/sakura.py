"""Sakura (Hawaiian hanafuda): card values, the eight 3-card yaku, round scores.

RULES.md section 1: round score = card points - yaku_points x (yaku held by every other
team); yaku are found on each team's (shared) pile.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, cast

from scorer.cards import DECK, LIGHTNING, RAIN_MAN, YELLOW_CHAFF, Kind, card
from scorer.errors import InputError
from scorer.rules.base import MAX_ROUNDS, BaseVariant, Preset
from scorer.rules.ruleset import RuleSet
from scorer.rules.context import Context, ContextField
from scorer.rules.options import Option, choice, integer
from scorer.rules.records import PileSummary, PlayerResult, RoundResult, YakuHit, number_text
from scorer.rules.sides import CheckedRound, Side
from scorer.rules.validate import check_deal_points
from scorer.rules.yaku import Yaku, enabled, hit

# The eight yaku, each exactly 3 cards (RULES 1.4); the letter is the hiragana printed
# on Hanafuda Hawaii cards. They overlap freely: no exclusive groups.
YAKU: tuple[Yaku, ...] = (
    Yaku("drinking", "い Drinking (Nomi): curtain, moon, sake cup", ("03-1", "08-1", "09-1")),
    Yaku("spring", "ろ Spring (Omote-Sugawara): crane, bush warbler, curtain",
         ("01-1", "02-1", "03-1")),
    Yaku("akatan", "は Akatan: the three poetry ribbons", ("01-2", "02-2", "03-2")),
    Yaku("aotan", "に Aotan: the three blue ribbons", ("06-2", "09-2", "10-2")),
    Yaku("aotan_animals", "ほ butterflies, sake cup, deer", ("06-1", "09-1", "10-1")),
    Yaku("kusatan", "へ Kusatan: the grass ribbons of wisteria, iris, bush clover",
         ("04-2", "05-2", "07-2")),
    Yaku("kusatan_animals", "と cuckoo, bridge, boar", ("04-1", "05-1", "07-1")),
    Yaku("inoshikagan", "ち Inoshikagan (Ganbo): boar, geese, deer", ("07-1", "08-2", "10-1")),
)

OPTIONS: tuple[Option, ...] = (
    choice("yellow_paulownia", 10, "card value of the yellow paulownia chaff 12-2",
            "RULES S1",
            (10, "worth 10 (Hanafuda Hawaii, FudaWiki; deck totals 240)"),
            (0, "worth 0 (the 'most common' system of PIPEX; deck totals 230)")),
    choice("team_piles", "shared", "how partners keep their captures", "RULES S2",
            ("shared", "one common pile per team; yaku may be completed across partners"),
            ("separate", "each partner keeps a pile; yaku per player, penalties only "
                         "from the other teams")),
    choice("tie_policy", "dealer_wins", "who wins a tied round (and a tied game)",
            "RULES S3",
            ("dealer_wins", "the dealer, else the tied player nearest the dealer's right"),
            ("shared", "the tie stands: no single winner ('tonton', UNVERIFIED)")),
    choice("game_scoring", "cumulative", "how a game is won", "RULES S4",
            ("cumulative", "sum of round scores; highest total wins (Hanafuda Hawaii)"),
            ("victories", "count round victories with chu/basa (Paradise Factors)")),
    choice("chu_basa", "combined", "extra victories for a big round margin "
            "(victory counting only)", "RULES S5",
            ("combined", "chu (margin >= chu_margin) = 2 victories, basa "
                         "(>= basa_margin) = 3"),
            ("both_two", "chu and basa both = 2 victories"),
            ("basa", "only basa counts: 2 victories"),
            ("chu", "only chu counts: 2 victories"),
            ("none", "every round victory is 1")),
    integer("chu_margin", 50, "lead over the best other side that makes a chu", "RULES 1.8",
         1, 10000),
    integer("basa_margin", 100, "lead over the best other side that makes a basa",
         "RULES 1.8", 1, 10000),
    choice("gaji_leftovers", "paired_month", "who gets the cards left on the field "
            "when the lightning (gaji) was played from hand", "RULES S6",
            ("paired_month", "the gaji user takes the leftovers of the month it captured; "
                             "the rest are dead"),
            ("all", "the gaji user takes every leftover card")),
    choice("next_dealer", "winner", "who deals the next round", "RULES S7",
            ("winner", "the round winner (on a team: the member nearest the dealer)"),
            ("loser", "the lowest scorer")),
    choice("yaku_scoring", "penalty", "what a yaku does", "RULES 1.5",
            ("penalty", "every other team loses yaku_points per yaku"),
            ("bonus", "its holder gains yaku_points instead ('both players score', "
                      "no documentary source)")),
    integer("yaku_points", 50, "points per yaku (penalty or bonus)", "RULES 1.4", 0, 10000),
    integer("rounds", 4, "rounds in a game", "RULES 1.8", 1, MAX_ROUNDS),
)


PRESETS: tuple[Preset, ...] = (
    Preset("sakura", "sakura", "Hanafuda Hawaii: card points minus 50 per yaku held by "
           "each opponent, the rounds' scores added up (the default game)"),
    Preset("sakura-victories", "sakura", "Sakura counted in round victories "
           "(Paradise Factors): chu 2, basa 3",
           {"game_scoring": "victories", "chu_basa": "combined"}),
)


@dataclass(frozen=True)
class SakuraContext(Context):
    """Sakura's round facts: the cards left on the field, and the month of the card the
    lightning (gaji) took when played from hand (RULES 1.6)."""

    leftovers: tuple[str, ...] = ()
    gaji_month: int | None = None

    FIELDS = (
        ContextField("leftovers", "codes", "Cards left on the field",
                     "they go to the gaji user (see gaji_leftovers) or are dead"),
        ContextField("gaji_month", "month", "The lightning took a card of month",
                     "only when the lightning (gaji) was played from hand"),
    )


def card_values(rs: RuleSet) -> dict[str, int]:
    """Sakura card values: 20 for the four non-willow brights; 10 for the ribbons and the
    yellow paulownia (option yellow_paulownia); 5 for the animals and the rain man."""
    values: dict[str, int] = {}
    for c in DECK:
        if c.code == RAIN_MAN:
            v = 5
        elif c.kind is Kind.BRIGHT:
            v = 20
        elif c.kind is Kind.RIBBON:
            v = 10
        elif c.kind is Kind.ANIMAL:
            v = 5
        elif c.code == YELLOW_CHAFF:
            v = int(rs["yellow_paulownia"])
        else:
            v = 0
        values[c.code] = v
    return values


def find_yaku(codes: Iterable[str], rs: RuleSet,
              context: Context | None = None) -> PileSummary:
    """The card points and yaku of one pile (the round context plays no part)."""
    pile = set(codes)
    values = card_values(rs)
    points = sum(values[c] for c in pile)
    hits = []
    for yaku in YAKU:
        held = yaku.held(pile) if enabled(yaku, rs) else None
        if held is not None:
            hits.append(hit(yaku, rs, held, default=int(rs["yaku_points"])))
    return PileSummary(points, hits, points, "sakura")


def _hand_over_leftovers(rnd: CheckedRound, rs: RuleSet, notes: list[str]) -> None:
    """RULES 1.6: the gaji (11-4) user takes the leftovers of the month it captured (or
    all leftovers, option gaji_leftovers); other leftovers are dead."""
    month = cast(SakuraContext, rnd.context).gaji_month
    if month is None or not rnd.leftovers:
        if rnd.leftovers:
            notes.append(f"leftovers {', '.join(rnd.leftovers)} are dead")
        return
    holder = next((s for s in rnd.sides if LIGHTNING in s.codes), None)
    if holder is None:
        raise InputError("gaji_month is given but no pile holds the lightning 11-4")
    others = [c for c in holder.codes if c != LIGHTNING and card(c).month == month]
    if not others:
        raise InputError(f"gaji_month {month}: {holder.name}'s pile, which holds the "
                         f"lightning, has no card of month {month:02d} for it to have taken")
    if rs["gaji_leftovers"] == "all":
        taken = list(rnd.leftovers)
    else:
        taken = [c for c in rnd.leftovers if card(c).month == month]
    dead = [c for c in rnd.leftovers if c not in taken]
    if taken:
        holder.codes.extend(taken)
        member = next((m for m in holder.members if LIGHTNING in holder.member_codes.get(m, [])),
                      None) or next(iter(holder.member_codes), holder.name)
        holder.member_codes.setdefault(member, []).extend(taken)
        notes.append(f"{holder.name} (gaji) takes the leftovers {', '.join(taken)}")
    if dead:
        notes.append(f"leftovers {', '.join(dead)} are dead")


def _side_yaku(side: Side, rs: RuleSet) -> list[YakuHit]:
    if rs["team_piles"] == "separate" and len(side.members) > 1:
        hits: list[YakuHit] = []
        for member in side.members:
            hits.extend(find_yaku(side.member_codes.get(member, []), rs).yaku)
        return hits
    return find_yaku(side.codes, rs).yaku


def rank(rnd: CheckedRound, scores: dict[str, int], tie_policy: str,
         lowest: bool = False) -> tuple[str | None, list[str], str]:
    """(winner or None, tied sides, the side nearest the dealer among the best)."""
    best = (min if lowest else max)(scores.values())
    top = [name for name, s in scores.items() if s == best]
    nearest = rnd.nearest_side(top).name
    if len(top) > 1 and tie_policy == "shared":
        return None, top, nearest
    return nearest, (top if len(top) > 1 else []), nearest


def score_round(rnd: CheckedRound, rs: RuleSet) -> RoundResult:
    notes: list[str] = []
    _hand_over_leftovers(rnd, rs, notes)
    values = card_values(rs)
    yaku = {s.name: _side_yaku(s, rs) for s in rnd.sides}
    results: dict[str, PlayerResult] = {}
    for side in rnd.sides:
        pts = sum(values[c] for c in side.codes)
        own = yaku[side.name]
        if rs["yaku_scoring"] == "bonus":
            penalty = 0
            score = pts + sum(y.points for y in own)
            text = f"cards {pts} + {_times(own)} own yaku = {score}"
        else:
            against = [(o.name, y) for o in rnd.sides if o.name != side.name
                       for y in yaku[o.name]]
            penalty = sum(y.points for _, y in against)
            score = pts - penalty
            who = "; ".join(f"{o}: {', '.join(y.name for n, y in against if n == o)}"
                            for o in dict.fromkeys(n for n, _ in against))
            text = (f"cards {pts} − {_times([y for _, y in against])} opponents' yaku"
                    + (f" ({who})" if who else "") + f" = {number_text(score)}")
        results[side.name] = PlayerResult(
            side.name, pts, own, penalty, 1, score, text, side.members,
            tuple(sorted(side.codes)))
    scores = {k: r.score for k, r in results.items()}
    winner, tied, nearest = rank(rnd, scores, rs["tie_policy"])
    if rs["next_dealer"] == "loser":
        _, _, deal_side = rank(rnd, scores, "dealer_wins", lowest=True)
    else:
        deal_side = nearest
    next_dealer = rnd.nearest_member(next(s for s in rnd.sides if s.name == deal_side))

    award = None
    if winner is not None or tied:
        winners = [winner] if winner is not None else tied
        others = [s for k, s in scores.items() if k != winners[0]]
        margin = scores[winners[0]] - max(others) if others else 0
        count, kind = victories(margin, rs)
        any_yaku = any(yaku.values())
        award = {"winners": winners, "victories": count, "kind": kind,
                 "shira": kind == "basa" and not any_yaku, "margin": margin}

    lines = [f"{k}: {r.explanation}" for k, r in results.items()] + notes
    if winner is None:
        lines.append(f"tie between {', '.join(tied)}: shared (tie_policy=shared)")
    elif tied:
        lines.append(f"tie between {', '.join(tied)}: {winner} wins as the dealer or the "
                     f"nearest to the dealer's right")
    else:
        lines.append(f"{winner} wins the round")
    if award and award["kind"] != "plain" and rs["game_scoring"] == "victories":
        lines.append(f"margin {award['margin']}: {award['kind']}"
                     + (" (shira-basa: no yaku this round)" if award["shira"] else ""))
    lines.append(f"{next_dealer} deals next")
    return RoundResult(results, winner, next_dealer, lines, rs.name, rs.game, rnd.dealer,
                       award, tied)


def _times(hits: list[YakuHit]) -> str:
    """``50 × 2`` when every yaku is worth the same (the usual case), else ``30 + 50``."""
    worth = {y.points for y in hits}
    if len(worth) <= 1:
        return f"{worth.pop() if worth else 50} × {len(hits)}"
    return "(" + " + ".join(str(y.points) for y in hits) + ")"


def victories(margin: int, rs: RuleSet) -> tuple[int, str]:
    """Victories for a round won by ``margin`` over the best other side (RULES 1.8)."""
    mode = rs["chu_basa"]
    basa = margin >= int(rs["basa_margin"])
    chu = margin >= int(rs["chu_margin"])
    if mode == "combined":
        if basa:
            return 3, "basa"
        if chu:
            return 2, "chu"
    elif mode == "both_two":
        if basa:
            return 2, "basa"
        if chu:
            return 2, "chu"
    elif mode == "basa" and basa:
        return 2, "basa"
    elif mode == "chu" and chu:
        return 2, "chu"
    return 1, "plain"


class Sakura(BaseVariant):
    """Sakura (Hawaiian hanafuda), RULES.md section 1."""

    name = "sakura"
    title = "Sakura"
    min_players, max_players = 2, 7
    teams = True
    options = OPTIONS
    presets = PRESETS
    yaku = YAKU
    context = SakuraContext

    card_values = staticmethod(card_values)
    find_yaku = staticmethod(find_yaku)
    score_round = staticmethod(score_round)

    def check_round(self, rnd: CheckedRound, rs: RuleSet) -> None:
        piles = {s.name: s.codes for s in rnd.sides} | {"leftovers": rnd.leftovers}
        check_deal_points(piles, card_values(rs), rs)

    def separate_team_piles(self, rs: RuleSet) -> bool:
        return rs["team_piles"] == "separate"

    def counts_victories(self, rs: RuleSet) -> bool:
        return rs["game_scoring"] == "victories"

    def dealer_breaks_game_ties(self, rs: RuleSet) -> bool:
        return rs["tie_policy"] == "dealer_wins"

    def total_text(self, summary: PileSummary) -> str:
        note = ("  (Sakura: a yaku's points are what each opponent loses)\n"
                if summary.yaku else "")
        return f"{note}card points: {summary.card_points}"


VARIANT = Sakura()
