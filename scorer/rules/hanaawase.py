"""Hana-Awase: card values 20/10/5/1, the yaku table of RULES.md section 3 with its exclusive
groups (brights, seven/six ribbons, viewing), additive or zero-sum settlement."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from scorer.cards import DECK, WILLOW_RIBBON, Kind
from scorer.rules.base import MAX_ROUNDS, BaseVariant, Preset
from scorer.rules.ruleset import RuleSet
from scorer.rules.context import Context, ContextField
from scorer.rules.options import Alias, Option, boolean, choice, integer
from scorer.rules.records import PileSummary, PlayerResult, RoundResult, YakuHit, number_text
from scorer.rules.sides import CheckedRound
from scorer.rules.viewing import rain_option, rained_off
from scorer.rules.yaku import Yaku, enabled, first_of_groups, hit

SHORT_RIBBONS = tuple(c.code for c in DECK
                      if c.kind is Kind.RIBBON and c.code != WILLOW_RIBBON)
#: Card values by kind (RULES 3; a chaff's value is the chaff_points option).
VALUES: dict[Kind, int] = {Kind.BRIGHT: 20, Kind.ANIMAL: 10, Kind.RIBBON: 5, Kind.CHAFF: 1}

# In table order: within an exclusive group the first yaku found counts.
YAKU: tuple[Yaku, ...] = (
    Yaku("five_brights", "Five Brights 五光", ("01-1", "03-1", "08-1", "11-1", "12-1"), 100,
         group="brights"),
    Yaku("four_brights", "Four Brights 四光", ("01-1", "03-1", "08-1", "12-1"), 60,
         group="brights"),
    Yaku("spring", "Spring 表菅原 (crane, bush warbler, curtain)", ("01-1", "02-1", "03-1"),
         30, group="brights"),
    Yaku("pine_paulownia_moon", "Pine-Paulownia-Moon 松桐坊主", ("01-1", "08-1", "12-1"),
         20, group="brights"),
    Yaku("seven_ribbons", "Seven Ribbons 七短 (not the willow ribbon)", SHORT_RIBBONS, 40,
         need=7, group="ribbons"),
    Yaku("six_ribbons", "Six Ribbons 六短 (not the willow ribbon)", SHORT_RIBBONS, 30,
         need=6, most=6, group="ribbons"),
    Yaku("akatan", "Akatan 赤短 (poetry ribbons)", ("01-2", "02-2", "03-2"), 40),
    Yaku("aotan", "Aotan 青短 (blue ribbons)", ("06-2", "09-2", "10-2"), 40),
    Yaku("kusatan", "Kusatan 草短 (grass ribbons)", ("04-2", "05-2", "07-2"), 20),
    Yaku("ino_shika_cho", "Ino-shika-cho 猪鹿蝶", ("06-1", "07-1", "10-1"), 20),
    Yaku("drinking", "Drinking 飲み (curtain, moon, sake cup)", ("03-1", "08-1", "09-1"), 40,
         group="viewing"),
    Yaku("hanami", "Hanami 花見 (curtain, sake cup)", ("03-1", "09-1"), 20, group="viewing"),
    Yaku("tsukimi", "Tsukimi 月見 (moon, sake cup)", ("08-1", "09-1"), 20, group="viewing"),
    Yaku("willow_row", "Willow row 柳島", ("11-1", "11-2", "11-3", "11-4"), 10),
    Yaku("wisteria_row", "Wisteria row 藤島", ("04-1", "04-2", "04-3", "04-4"), 10),
    Yaku("paulownia_row", "Paulownia row 桐島", ("12-1", "12-2", "12-3", "12-4"), 10),
)

OPTIONS: tuple[Option, ...] = (
    choice("settlement", "zero_sum", "how a round is settled", "RULES 3",
           ("zero_sum", "(card points - par) + yaku x (players-1) - others' yaku"),
           ("additive", "card points + yaku points")),
    choice("five_brights", 100, "points of the five brights", "RULES H1",
           (100, "100 (FudaWiki)"), (200, "200 (an unattributed calculator)")),
    choice("chaff_points", 1, "card value of a chaff", "RULES 3",
           (1, "1 (deck totals 264)"), (0, "0 (deck totals 240)")),
    choice("willow_row", "normal", "what the willow row does", "RULES 3",
           ("normal", "a 10-point yaku"),
           ("cancels_all", "whoever holds it, every yaku of the round is cancelled"),
           ("only_holder", "only its holder's yaku count")),
    rain_option("RULES 3"),
    boolean("fuke", False, "a player with <= 20 card points voids the round", "RULES 3"),
    integer("rounds", 12, "rounds in a game", "RULES 3", 1, MAX_ROUNDS),
)

#: ``paulownia_row=false`` (the row absent in the IndianWolf book) is ``yaku.paulownia_row``.
ALIASES: tuple[Alias, ...] = (Alias("paulownia_row", keys=("yaku.paulownia_row",)),)

PRESETS: tuple[Preset, ...] = (
    Preset("hanaawase", "hanaawase", "Hana-Awase, card values 20/10/5/1 plus yaku "
           "(additive score)", {"settlement": "additive"}),
    Preset("hanaawase-zero-sum", "hanaawase", "Hana-Awase settled zero-sum against the "
           "par (264 / players)", {"settlement": "zero_sum"}),
)


@dataclass(frozen=True)
class HanaawaseContext(Context):
    """Hana-Awase's round facts: the cards left on the field (they score for nobody)."""

    leftovers: tuple[str, ...] = ()

    FIELDS = (ContextField("leftovers", "codes", "Cards left on the field"),)


def card_values(rs: RuleSet) -> dict[str, int]:
    values = {**VALUES, Kind.CHAFF: int(rs["chaff_points"])}
    return {c.code: values[c.kind] for c in DECK}


def find_yaku(codes: Iterable[str], rs: RuleSet,
              context: Context | None = None) -> PileSummary:
    """The card points and yaku of one pile (the round context plays no part)."""
    pile = set(codes)
    found: list[YakuHit] = []
    for yaku in YAKU:
        if not enabled(yaku, rs) or (yaku.group == "viewing" and rained_off(pile, rs)):
            continue
        held = yaku.held(pile)
        if held is not None:
            default = int(rs["five_brights"]) if yaku.name == "five_brights" else None
            found.append(hit(yaku, rs, held, default=default))
    found = first_of_groups(found, YAKU)
    values = card_values(rs)
    card_points = sum(values[c] for c in pile)
    return PileSummary(card_points, found, card_points + sum(h.points for h in found),
                       "hanaawase")


def deck_total(rs: RuleSet) -> int:
    return sum(card_values(rs).values())


def score_round(rnd: CheckedRound, rs: RuleSet) -> RoundResult:
    lines: list[str] = []
    summaries = {s.name: find_yaku(s.codes, rs) for s in rnd.sides}
    yaku = {k: list(v.yaku) for k, v in summaries.items()}
    holders = [k for k, v in yaku.items() if any(h.name == "willow_row" for h in v)]
    if holders and rs["willow_row"] == "cancels_all":
        yaku = {k: [] for k in yaku}
        lines.append(f"{holders[0]} holds the willow row: every yaku is cancelled")
    elif holders and rs["willow_row"] == "only_holder":
        yaku = {k: (v if k in holders else []) for k, v in yaku.items()}
        lines.append(f"{holders[0]} holds the willow row: only their yaku count")

    sides = len(rnd.sides)
    yaku_points = {k: sum(h.points for h in v) for k, v in yaku.items()}
    void = rs["fuke"] and any(s.card_points <= 20 for s in summaries.values())
    zero_sum = rs["settlement"] == "zero_sum"
    total = deck_total(rs)
    par = total // sides
    results: dict[str, PlayerResult] = {}
    for side in rnd.sides:
        cards = summaries[side.name].card_points
        own = yaku_points[side.name]
        if void:
            score, penalty = 0, 0
            text = f"cards {cards}; round void (fuke: someone has 20 card points or fewer)"
        elif zero_sum:
            penalty = sum(v for k, v in yaku_points.items() if k != side.name)
            score = cards - par + own * (sides - 1) - penalty
            text = (f"(cards {cards} − par {par}) + yaku {own} × {sides - 1} − others' yaku "
                    f"{penalty} = {number_text(score)}")
        else:
            penalty = 0
            score = cards + own
            text = f"cards {cards} + yaku {own} = {score}"
        results[side.name] = PlayerResult(side.name, cards, yaku[side.name], penalty, 1,
                                          score, text, side.members, tuple(sorted(side.codes)))
    if zero_sum and not void:
        held = sum(v.card_points for v in summaries.values())
        if held != total:
            lines.append(f"note: the piles hold {held} of the deck's {total} card points, "
                         f"so the settlement is not zero-sum")
    scores = {k: r.score for k, r in results.items()}
    tied: list[str] = []
    if void:
        winner, next_dealer = None, rnd.dealer
        lines.append("fuke: the round is void; the dealer deals again")
    else:
        best = max(scores.values())
        top = [k for k, v in scores.items() if v == best]
        winner = rnd.nearest_side(top).name
        tied = top if len(top) > 1 else []
        next_dealer = winner
        lines.append(f"{winner} wins the round"
                     + (f" (tie with {', '.join(t for t in tied if t != winner)}: earliest "
                        f"in turn order from the dealer)" if tied else ""))
        lines.append(f"{next_dealer} deals next")
    lines = [f"{k}: {r.explanation}" for k, r in results.items()] + lines
    return RoundResult(results, winner, next_dealer, lines, rs.name, rs.game, rnd.dealer,
                       None, tied)


class Hanaawase(BaseVariant):
    """Hana-Awase, RULES.md section 3: 2-4 players, card points and yaku."""

    name = "hanaawase"
    title = "Hana-Awase"
    min_players, max_players = 2, 4
    options = OPTIONS
    aliases = ALIASES
    presets = PRESETS
    yaku = YAKU
    context = HanaawaseContext

    card_values = staticmethod(card_values)
    find_yaku = staticmethod(find_yaku)
    score_round = staticmethod(score_round)


VARIANT = Hanaawase()
