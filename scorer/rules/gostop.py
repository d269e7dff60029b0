"""Go-Stop (3 players) and Matgo (2 players): the base points of a pile (RULES-gostop.md
section 2), the go count (section 3) and the zero-sum settlement with every multiplier and
penalty (section 4), from the piles and the round's context (section 5). Every disputed
point G1-G19 (section 7) is an option with the spec's default.

Only the player who stops scores; each loser pays
``(B + goes) x go factor x 2^shakes x 2^bombs x meongtta x nagari x his own baks``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import prod
from typing import Any, Iterable, Mapping, Sequence, cast

from scorer.cards import (DECK, LIGHTNING, RAIN_MAN, SAKE_CUP, WILLOW_RIBBON, YELLOW_CHAFF,
                          Kind)
from scorer import hwatu
from scorer.errors import InputError
from scorer.rules.base import MAX_ROUNDS, BaseVariant, Preset
from scorer.rules.context import MAX_CALLS, Context, ContextField
from scorer.rules.options import Option, boolean, choice, integer
from scorer.rules.records import PileSummary, PlayerResult, RoundResult, YakuHit
from scorer.rules.ruleset import RuleSet
from scorer.rules.sides import CheckedRound
from scorer.rules.yaku import Yaku, enabled, first_of_groups, hit, points

SAKE, BRIDGE = SAKE_CUP, "05-1"
GWANG = tuple(c.code for c in DECK if c.kind is Kind.BRIGHT)
DRY = tuple(c for c in GWANG if c != RAIN_MAN)
YEOL = tuple(c.code for c in DECK if c.kind is Kind.ANIMAL)
TTI = tuple(c.code for c in DECK if c.kind is Kind.RIBBON)
SSANGPI = (LIGHTNING, YELLOW_CHAFF)               # the double junk (2 pi each)
PI = tuple(c.code for c in DECK if c.kind is Kind.CHAFF)
SINGLE_PI = tuple(c for c in PI if c not in SSANGPI)
BIRDS = ("02-1", "04-1", "08-2")                 # bush warbler, cuckoo, geese
SWALLOW = "11-2"
HONGDAN, CHEONGDAN, CHODAN = ("01-2", "02-2", "03-2"), ("06-2", "09-2", "10-2"), \
    ("04-2", "05-2", "07-2")
#: Junk value of a whole deck's cards (22 single + 2 double); the sake cup adds 2 as junk.
DECK_JUNK = len(SINGLE_PI) + 2 * len(SSANGPI)
ROLES = ("animal", "junk")
ROLE_TEXT = {"animal": "an animal", "junk": "a double junk", "both": "an animal and a double "
             "junk"}
BONUS_DECKS = {"2+2+3": 7, "2+3": 5, "2+2+2": 6, "none": 0}

YAKU: tuple[Yaku, ...] = (
    Yaku("ogwang", "Ogwang 오광 (five brights)", GWANG, 15, group="gwang"),
    Yaku("sagwang", "Sagwang 사광 (four brights)", GWANG, 4, need=4, group="gwang"),
    Yaku("samgwang", "Samgwang 삼광 (three brights, no rain man)", DRY, 3, need=3,
         group="gwang"),
    Yaku("bi-samgwang", "Bi-samgwang 비삼광 (rain man + two brights)", DRY, 2, need=2,
         requires=(RAIN_MAN,), group="gwang"),
    Yaku("godori", "Godori 고도리 (five birds)", BIRDS, 5),
    Yaku("hongdan", "Hongdan 홍단 (poetry ribbons)", HONGDAN, 3),
    Yaku("cheongdan", "Cheongdan 청단 (blue ribbons)", CHEONGDAN, 3),
    Yaku("chodan", "Chodan 초단 (plain red ribbons)", CHODAN, 3),
    Yaku("yeol", "Yeol 열끗 (5+ animals)", YEOL, 1, need=5, per_card=True),
    Yaku("tti", "Tti 띠 (5+ ribbons)", TTI, 1, need=5, per_card=True),
    Yaku("pi", "Pi 피 (junk value 10+)", SINGLE_PI, 1, need=10),
)
BRIGHT_YAKU = tuple(y.name for y in YAKU if y.group == "gwang")

S = "RULES-gostop"
OPTIONS: tuple[Option, ...] = (
    integer("stop_minimum", 3, "base points needed to stop or go (G3: 7 with 2 players, "
            "3 with 3; hosts use 3/5/7, an app 6)", f"{S} 1, G3; FW-GS, KO-WP", 1, 100),
    choice("sagwang", "4", "four brights (G1)", f"{S} G1; FW-GS, KO-WP, BLOG-US",
           ("4", "4 with or without the rain man"),
           ("rain_3", "3 if the rain man is one of them (FW-GS variant)"),
           ("wet4_dry5", "4 with the rain man, 5 without (SLO-S)"),
           ("5", "5 (older ko.wikipedia text)")),
    choice("go_scheme", "double_from_3", "what go calls add (G2)",
           f"{S} 3, G2; FW-GS, BLOG-KJ, NAMU-3GO",
           ("double_from_3", "+1 point per go; from the 3rd go (base + goes) ×2^(n-2): "
                             "×2, ×4, ×8"),
           ("times_n_minus_1", "+1 per go; from the 3rd go ×(n-1): ×2, ×3, ×4 (EN-WP, "
                               "STOPGO)"),
           ("times_n_from_2", "1 go +1; from 2 goes the base × n, no bonus points "
                              "(FW-GS alternative)"),
           ("flat_double", "+1 per go; ×2 for three goes or more (P-ANDY)"),
           ("capped_bonus", "bonus capped at +2, then ×2^(n-2) (P-MICHAEL)"),
           ("power_of_two", "the base ×2^n, no bonus points (P-RABO)")),
    integer("pibak_max", 5, "pi-bak: a loser whose junk value is at most this pays double "
            "when the winner scores pi (G4: 5 with 3 players, 7 with 2; 6 = 'at least 7 "
            "protects')", f"{S} 4.2, G4; FW-GS, NAMU-PIBAK, BLOG-SP", 0, 30),
    boolean("pibak_zero_exempt", True, "a loser with no junk at all escapes pi-bak (G5)",
            f"{S} 4.2, G5; FW-GS, NAMU-PIBAK, BLOG-SP"),
    choice("godori", "5", "godori, the five birds 02-1 04-1 08-2 (G6)",
           f"{S} 2, G6; FW-GS, KO-WP, SLO-S",
           ("5", "5 points"), ("3", "3 points (FW-GS variant)"),
           ("swallow_10", "the swallow 11-2 is a fourth bird: the four birds score 10, "
                          "the three 5 (P-NBRY house rule)")),
    choice("willow_ribbon", "count_only", "the willow ribbon 11-3 (G7)",
           f"{S} 2, G7; FW-GS, SLO-S",
           ("count_only", "counts among the ribbons (tti) only, in no dan set"),
           ("chodan", "also completes chodan in place of a plain red ribbon (비초단, "
                      "KO-WP copy)"),
           ("chodan_not_counted", "completes chodan but is not counted among the ribbons "
                                  "(P-MICHAEL)")),
    choice("sake_cup", "best", "the sake cup 09-1 (or the card of double_junk_animal): "
           "an animal or a double junk (G8); a round's context sake_cup records what a "
           "player declared", f"{S} 2.5, G8; FW-GS, KO-WP, NAMU-PI, P-IPSE",
           ("best", "not declared: the reading that gives the winner the higher payment "
                    "and each loser the lower one (a pile alone: its higher base)"),
           ("animal", "always an animal"), ("junk", "always a double junk (P-NBRY)"),
           ("both", "an animal and a double junk at once (FW-GS variant)")),
    choice("double_junk_animal", SAKE, "which animal may be taken as a double junk (G9)",
           f"{S} 0, G9; FW-GS", (SAKE, "the sake cup 09-1"),
           (BRIDGE, "the iris bridge 05-1 instead (the sake cup stays an animal; FW-GS "
                    "variant)")),
    choice("ten_ribbons", "n_minus_4", "all ten ribbons (G10)", f"{S} G10; FW-GS, KO-WP",
           ("n_minus_4", "tti 10 - 4 = 6 (plus the dan sets)"),
           ("15", "tti 15 (older ko.wikipedia text)")),
    choice("shake", "double", "each shake (a triplet shown from the hand) of the winner "
           "(G11)", f"{S} 4.1, G11; FW-GS", ("double", "×2 each"),
           ("plus_one", "+1 point each (P-TAETO option)")),
    choice("bomb", "double", "each bomb of the winner (G12)", f"{S} 4.1, G12; FW-GS",
           ("double", "×2 each"), ("as_shake", "counts as a shake (P-IPSE)"),
           ("none", "no multiplier (P-TAETO)"), ("one_flag", "×2 once for any bombs "
                                                           "(P-ANDY)")),
    integer("meongtta_min", 7, "멍따: the winner's score ×2 when he holds this many animals "
            "(0: off) (G13)", f"{S} 4.1, G13; FW-GS, BLOG-US, NONGSARO", 0, 9),
    choice("meongbak", "off", "멍박: a loser with no animal pays double (G13)",
           f"{S} 4.1, G13; P-TAETO, P-BIPARK, FW-GS alt",
           ("off", "no such penalty"),
           ("winner_5", "when the winner holds 5+ animals (P-TAETO)"),
           ("winner_7", "when the winner holds 7+ animals (P-BIPARK)"),
           ("animal_yaku", "when the winner scores yeol or godori (FW-GS alternative)")),
    choice("gwangbak", "bright_yaku", "광박: who pays for a bright yaku (G14)",
           f"{S} 4.2, G14; FW-GS, JON",
           ("bright_yaku", "the winner scores a bright yaku and the loser holds no bright"),
           ("rain_no_protect", "as bright_yaku, but the rain man 11-1 does not protect "
                               "(FW-GS alt)"),
           ("any_bright", "the winner holds any bright and the loser none (P-RABO)"),
           ("off", "no gwang-bak")),
    choice("gwangbak_penalty", "double", "what gwang-bak costs (G14)",
           f"{S} G14; FW-GS alt", ("double", "×2"), ("plus_2", "+2 points")),
    choice("gobak", "both_shares", "고박: a loser who had called go when another player "
           "stopped (3 players: pays both losers' shares; 2 players: pays double)",
           f"{S} 4.2; FW-GS Liability, NAMU-DOKBAK",
           ("both_shares", "pays his own share and the other loser's; the other pays "
                           "nothing (3 players)"),
           ("double", "pays double (2 players)"), ("off", "no go-bak")),
    choice("gobak_liable", "first", "when both losers called go, who is liable (G16)",
           f"{S} 4.2, G16; FW-GS (first), P-IPSE and P-ITSENT (last)",
           ("first", "the first to call go (go_order)"),
           ("last", "the last to call go (go_order)")),
    choice("nagari_multiplier", "double_each", "the carry after draws (G15)",
           f"{S} 4.1, G15; FW-GS, NAMU-NAGARI",
           ("double_each", "×2 per draw just before, no cap"), ("cap_8", "capped at ×8 "
                                                                         "(P-ITSENT)"),
           ("cap_64", "capped at ×64 (P-IPSE)"), ("flat_2", "×2 after any draws (P-ANDY)")),
    choice("five_draws", "nothing", "five draws in a row (G17)", f"{S} 4.3, G17; FW-GS",
           ("nothing", "nothing special: the carry goes on doubling"),
           ("reset", "the carry starts again after five draws (FW-GS variant)")),
    choice("bonus_cards", "2+2+3", "the deck's bonus (joker) cards and their junk value; "
           "a pile's bonus junk may not exceed their sum (G18)",
           f"{S} 0.1, G18; NAMU-PAE, P-BIPARK, P-ITSENT",
           ("2+2+3", "two double-junk jokers and one triple (7)"),
           ("2+3", "one double and one triple (5)"),
           ("2+2+2", "three jokers of 2 each (6, older KO-WP text)"),
           ("none", "no bonus cards")),
    integer("bonus_junk", 0, "the junk value of bonus (joker) cards in a pile scored on "
            "its own (hanafuda yaku); in a round, the context's bonus_junk per player",
            f"{S} 0.1, 5", 0, 99),
    integer("instant_win_points", 0, "chongtong / three ppeok (outcome instant): what each "
            "loser pays (0: the stop minimum) (G19)", f"{S} 4.3, G19; FW-GS", 0, 1000),
    integer("rounds", 10, "rounds in a game (Go-Stop has no fixed length: players agree)",
            f"{S} 1", 1, MAX_ROUNDS),
)

PRESETS: tuple[Preset, ...] = (
    Preset("gostop", "gostop", "Go-Stop for 3 players: stop at 3, pi-bak at 1-5 junk, "
           "go-bak makes the liable loser pay both shares", {}, (3, 3)),
    Preset("matgo", "gostop", "Matgo, 2-player Go-Stop: stop at 7, pi-bak at 1-7 junk, "
           "go-bak pays double",
           {"stop_minimum": 7, "pibak_max": 7, "gobak": "double"}, (2, 2)),
)

#: How the page groups the house rules (RULES-gostop.md section 7's topics).
OPTION_GROUPS = {
    **dict.fromkeys(("stop_minimum", "go_scheme", "instant_win_points", "rounds"),
                    "Stop and go (스톱, 고)"),
    **dict.fromkeys(("sagwang", "godori", "willow_ribbon", "ten_ribbons", "sake_cup",
                     "double_junk_animal", "bonus_cards", "bonus_junk"), "Card points"),
    **dict.fromkeys(("shake", "bomb", "meongtta_min", "nagari_multiplier", "five_draws"),
                    "Multipliers (흔들기, 폭탄, 나가리)"),
    **dict.fromkeys(("pibak_max", "pibak_zero_exempt", "meongbak", "gwangbak",
                     "gwangbak_penalty", "gobak", "gobak_liable"), "Baks (박)"),
}

OUTCOMES = ("stop", "nagari", "instant")


@dataclass(frozen=True)
class GostopContext(Context):
    """Go-Stop's round facts (RULES-gostop.md section 5)."""

    stopped_by: str | None = None
    outcome: str | None = None
    goes: dict[str, int] = field(default_factory=dict)
    go_order: tuple[str, ...] = ()
    shakes: dict[str, int] = field(default_factory=dict)
    bombs: dict[str, int] = field(default_factory=dict)
    nagari: int = 0
    sake_cup: dict[str, str] = field(default_factory=dict)
    bonus_junk: dict[str, int] = field(default_factory=dict)

    FIELDS = (
        ContextField("stopped_by", "player", "Who stopped?",
                     "the player who called stop (or won at once); nobody: a nagari",
                     required=True, nobody="nobody (nagari)"),
        ContextField("outcome", "choice", "Outcome",
                     "stop, nagari (a draw: nobody stopped) or instant (chongtong, three "
                     "ppeok); default: stop when someone stopped, else nagari; chongtong "
                     "and three_ppeok also mean instant, draw nagari",
                     choices=OUTCOMES),
        ContextField("goes", "count_per_player", "Go calls",
                     "how many times each player called go", 0, MAX_CALLS),
        ContextField("go_order", "players", "Go order",
                     "the players in the order they first called go (for go-bak)",
                     shown_with="goes"),
        ContextField("shakes", "count_per_player", "Shakes",
                     "triplets the winner showed from his hand", 0, 4),
        ContextField("bombs", "count_per_player", "Bombs",
                     "bombs the winner threw", 0, 4),
        ContextField("nagari", "count", "Draws before",
                     "how many nagari (draws) came just before this round", 0, 48),
        ContextField("sake_cup", "choice_per_player", "Sake cup",
                     "what the owner declared the sake cup 09-1 to be (default: the "
                     "scorekeeper's best reading); the old names pi and ssangpi mean "
                     "junk, locked means animal", choices=ROLES),
        ContextField("bonus_junk", "count_per_player",
                     "Bonus junk (joker cards: the camera does not read them)",
                     "the junk value of the bonus cards in each pile (2 or 3 each)", 0, 99),
    )

    @classmethod
    def missing(cls, raw: Mapping[str, Any]) -> list[ContextField]:
        """Who stopped, unless the outcome is given (a nagari needs nobody named)."""
        return [f for f in super().missing(raw) if not (f.key == "stopped_by"
                                                        and raw.get("outcome"))]

    @classmethod
    def parse_field(cls, spec: ContextField, value: Any,
                    players: Sequence[str] | None) -> Any:
        if spec.key == "sake_cup" and isinstance(value, Mapping):
            old = {"pi": "junk", "ssangpi": "junk", "locked": "animal"}
            value = {p: old.get(str(v).strip().lower(), v) for p, v in value.items()}
        if spec.key == "outcome" and isinstance(value, str):
            value = {"chongtong": "instant", "three_ppeok": "instant", "draw": "nagari"}.get(
                value.strip().lower(), value)
        return super().parse_field(spec, value, players)


# --- one pile ------------------------------------------------------------------------

@dataclass(frozen=True)
class Tally:
    """One pile read one way: its yaku, base points and counts. ``role`` is what the
    double-junk animal counts as (None when the pile does not hold it)."""

    hits: tuple[YakuHit, ...]
    brights: int
    animals: int
    ribbons: int
    junk: int
    role: str | None
    empty: bool
    rain: bool = False

    @property
    def base(self) -> int:
        return sum(h.points for h in self.hits)

    def has(self, *names: str) -> bool:
        return any(h.name in names for h in self.hits)

    def counts(self) -> dict[str, int]:
        return {"brights": self.brights, "animals": self.animals,
                "ribbons": self.ribbons, "junk": self.junk}


def _sagwang(held: Sequence[str], rs: RuleSet) -> int:
    mode, wet = rs["sagwang"], RAIN_MAN in held
    return {"4": 4, "5": 5, "rain_3": 3 if wet else 4,
            "wet4_dry5": 4 if wet else 5}[mode]


def tally(codes: Iterable[str], rs: RuleSet, role: str | None, bonus: int = 0) -> Tally:
    """The pile's yaku with the double-junk animal counted as ``role`` ("animal",
    "junk" or "both"), plus ``bonus`` junk value from joker cards."""
    pile = set(codes)
    flex = rs["double_junk_animal"]
    if flex not in pile:
        role = None
    animals = [c for c in YEOL if c in pile and (c != flex or role in ("animal", "both"))]
    willow = rs["willow_ribbon"]
    ribbons = [c for c in TTI if c in pile and
               not (c == WILLOW_RIBBON and willow == "chodan_not_counted")]
    junk_cards = [c for c in PI if c in pile]
    if role in ("junk", "both"):
        junk_cards.append(flex)
    junk = sum(2 if c in SSANGPI or c == flex else 1 for c in junk_cards) + bonus
    hits: list[YakuHit] = []
    for yaku in YAKU:
        if not enabled(yaku, rs):
            continue
        found = _hit(yaku, pile, animals, ribbons, junk_cards, junk, rs)
        if found is not None:
            hits.append(found)
    hits = first_of_groups(hits, YAKU)
    return Tally(tuple(hits), sum(c in pile for c in GWANG), len(animals), len(ribbons),
                 junk, role, not pile and not bonus, RAIN_MAN in pile)


def _hit(yaku: Yaku, pile: set[str], animals: list[str], ribbons: list[str],
         junk_cards: list[str], junk: int, rs: RuleSet) -> YakuHit | None:
    name = yaku.name
    if name == "pi":
        if junk < 10:
            return None
        return YakuHit(name, points(yaku, rs, junk - 9), tuple(sorted(junk_cards)),
                       yaku.label.replace("10+", str(junk)))
    if name == "godori" and rs["godori"] == "swallow_10" and SWALLOW in pile and \
            all(c in pile for c in BIRDS):
        return hit(yaku, rs, BIRDS + (SWALLOW,), default=10)
    if name == "chodan" and rs["willow_ribbon"] != "count_only":
        yaku = Yaku(name, yaku.label, CHODAN + (WILLOW_RIBBON,), 3, need=3, most=4)
    seen = {"yeol": animals, "tti": ribbons}.get(name, pile)
    held = yaku.held(seen)
    if held is None:
        return None
    if name == "chodan":
        held = held[:3]
    if name == "sagwang":
        return hit(yaku, rs, held, default=_sagwang(held, rs))
    if name == "godori":
        return hit(yaku, rs, held, default=int(rs["godori"]) if rs["godori"] != "swallow_10"
                   else 5)
    if name == "tti" and len(held) == len(TTI) and rs["ten_ribbons"] == "15":
        return hit(yaku, rs, held, default=15)
    return hit(yaku, rs, held, yaku.extras(seen, held))


def readings(codes: Iterable[str], rs: RuleSet, declared: str | None = None,
             bonus: int = 0) -> list[Tally]:
    """Every reading of a pile the rules allow: one, or both roles of the double-junk
    animal when it is undeclared and ``sake_cup`` is ``best``."""
    codes = list(codes)
    mode = declared or rs["sake_cup"]
    if rs["double_junk_animal"] not in codes:
        return [tally(codes, rs, None, bonus)]
    if mode == "best":
        return [tally(codes, rs, role, bonus) for role in ROLES]
    return [tally(codes, rs, mode, bonus)]


def worth(t: Tally, rs: RuleSet) -> int:
    """What a reading is worth to its owner as a winner on its own: the base, x2 for
    meongtta (the one winner-side factor the pile decides). ``sake_cup = best`` takes the
    reading worth more for a pile alone, and breaks a settlement's ties with it."""
    meongtta = int(rs["meongtta_min"]) and t.animals >= int(rs["meongtta_min"])
    return t.base * (2 if meongtta else 1)


def card_values(rs: RuleSet) -> dict[str, int]:
    """Each card's junk value (the double-junk animal counts 0 here: it is an animal
    unless taken as junk)."""
    return {c.code: (2 if c.code in SSANGPI else 1 if c.kind is Kind.CHAFF else 0)
            for c in DECK}


def find_yaku(codes: Iterable[str], rs: RuleSet,
              context: Context | None = None) -> PileSummary:
    """The base points of one pile (``bonus_junk`` adds joker junk); with ``sake_cup =
    best`` the reading worth more to a winner (see ``worth``; the animal on a tie)."""
    bonus, deck = int(rs["bonus_junk"]), BONUS_DECKS[rs["bonus_cards"]]
    if bonus > deck:
        raise InputError(f"bonus_junk {bonus} is more than the deck's bonus cards hold: "
                         f"{deck} (bonus_cards={rs['bonus_cards']})")
    options = readings(codes, rs, bonus=bonus)
    best = max(options, key=lambda t: worth(t, rs))    # first on a tie: the animal
    notes = (f"{rs['double_junk_animal']} counts as {ROLE_TEXT[best.role]}",) \
        if best.role else ()
    return PileSummary(0, list(best.hits), best.base, "gostop", notes,
                       {"counts": best.counts()})


# --- settlement ----------------------------------------------------------------------

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


@dataclass(frozen=True)
class Bak:
    """One bak (박) a loser faced: whether it applies, and why it does or is escaped."""

    name: str
    applies: bool
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "korean": hwatu.BAKS[self.name].korean,
                "applies": self.applies, "reason": self.reason}


def _n(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def bak_verdicts(w: Tally, loser: Tally, rs: RuleSet, gobak_double: bool,
                 name: str = "the loser") -> list[Bak]:
    """Every bak the winner's pile puts in play for one loser, applied or escaped, each
    with its reason ("Jun holds no bright"; "Seo has 8 junk"). A bak the winner's pile
    does not call for (no bright yaku, no pi) is not listed."""
    out = []
    mode = rs["gwangbak"]
    if mode != "off" and (w.brights if mode == "any_bright" else w.has(*BRIGHT_YAKU)):
        wet = loser.rain and mode == "rain_no_protect"
        protect = loser.brights - wet
        if protect:
            only_rain = loser.rain and loser.brights == 1
            out.append(Bak("gwang-bak", False, f"{name} holds the rain man" if only_rain
                           else f"{name} holds {_n(loser.brights, 'bright')}"))
        else:
            out.append(Bak("gwang-bak", True, f"{name} holds only the rain man, which does "
                           "not protect here" if wet else f"{name} holds no bright"))
    if w.has("pi"):
        most = int(rs["pibak_max"])
        if loser.junk == 0 and rs["pibak_zero_exempt"]:
            out.append(Bak("pi-bak", False, f"{name} has no junk at all (exempt)"))
        elif loser.junk <= most:
            out.append(Bak("pi-bak", True, f"{name} has {loser.junk} junk (at most {most})"))
        else:
            out.append(Bak("pi-bak", False, f"{name} has {loser.junk} junk (more than "
                                            f"{most})"))
    meong = rs["meongbak"]
    if meong != "off" and ((meong == "winner_5" and w.animals >= 5) or
                           (meong == "winner_7" and w.animals >= 7)
                           or (meong == "animal_yaku" and w.has("yeol", "godori"))):
        out.append(Bak("meong-bak", not loser.animals, f"{name} holds no animal"
                       if not loser.animals else f"{name} holds {_n(loser.animals, 'animal')}"))
    if gobak_double:
        out.append(Bak("go-bak", True, f"{name} called go, and another player stopped"))
    return out


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



# --- a round -------------------------------------------------------------------------

def outcome(ctx: GostopContext) -> str:
    return ctx.outcome or ("stop" if ctx.stopped_by else "nagari")


def _readings(rnd: CheckedRound, rs: RuleSet) -> dict[str, list[Tally]]:
    ctx = cast(GostopContext, rnd.context)
    return {s.name: readings(s.codes, rs, ctx.sake_cup.get(s.name),
                             ctx.bonus_junk.get(s.name, 0)) for s in rnd.sides}


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


def check_round(rnd: CheckedRound, rs: RuleSet) -> None:
    """Go-Stop's own checks (RULES-gostop.md section 5)."""
    ctx = cast(GostopContext, rnd.context)
    end = outcome(ctx)
    if end == "nagari" and ctx.stopped_by:
        raise InputError(f"a nagari has no winner, but stopped_by names {ctx.stopped_by}")
    if end != "nagari" and not ctx.stopped_by:
        raise InputError(f"outcome {end} needs the winner: give stopped_by")
    for name in ctx.go_order:
        if not ctx.goes.get(name):
            raise InputError(f"go_order names {name}, who called no go (goes)")
    tallies = _readings(rnd, rs)
    bonus_total = BONUS_DECKS[rs["bonus_cards"]]
    bonus = sum(ctx.bonus_junk.values())
    junk = sum(max(t.junk for t in ts) for ts in tallies.values())
    flex = any(rs["double_junk_animal"] in s.codes for s in rnd.sides)
    limit = DECK_JUNK + 2 * flex + bonus_total
    if junk > limit or bonus > bonus_total:
        raise InputError(
            f"the piles hold {junk} junk (bonus junk {bonus}) but a deck holds at most "
            f"{limit}: {DECK_JUNK} in its cards" + (" + 2 the sake cup" if flex else "")
            + f" + {bonus_total} in bonus cards (bonus_cards={rs['bonus_cards']})")
    if end != "stop":
        return
    winner = ctx.stopped_by
    assert winner is not None
    best = max(t.base for t in tallies[winner])
    if not any(may_stop(t, ctx.goes.get(winner, 0), rs) for t in tallies[winner]):
        goes = ctx.goes.get(winner, 0)
        raise InputError(f"{winner} stopped with {best} points" + (
            f" + {goes} go" if goes else "") + f", below the stop minimum "
            f"{rs['stop_minimum']} of {rs.name}")
    callers = [p for p in tallies if p != winner and ctx.goes.get(p, 0) > 0]
    if rs["gobak"] == "both_shares" and len(callers) > 1 and \
            not set(callers) <= set(ctx.go_order):
        raise InputError(f"{' and '.join(callers)} both called go: give go_order (who "
                         f"called first) to tell who is liable for go-bak")


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


def _stop(rnd: CheckedRound, rs: RuleSet, tallies: dict[str, list[Tally]],
          winner: str) -> Stopped:
    """Scores, texts and multipliers of a stopped round."""
    ctx = cast(GostopContext, rnd.context)
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


def ignored_counts(ctx: GostopContext, winner: str | None) -> list[tuple[str, str]]:
    """(context key, why) for each player's shakes and bombs that do not count: only the
    winner's multiply (RULES-gostop.md 4.1), and in a nagari or an instant win nobody's.
    ``hanafuda score`` refuses them; the round's explanation says so."""
    out = []
    for key, what in (("shakes", "shake"), ("bombs", "bomb")):
        for p, n in getattr(ctx, key).items():
            if n and p != winner:
                why = f"only the winner's {key} multiply ({winner} stopped)" if winner \
                    else f"nobody stopped, so no {key} count"
                out.append((key, f"{p}'s {n} {what}{'s do' if n != 1 else ' does'} not "
                                 f"count: {why}"))
    return out


def score_round(rnd: CheckedRound, rs: RuleSet) -> RoundResult:
    ctx = cast(GostopContext, rnd.context)
    tallies = _readings(rnd, rs)
    end = outcome(ctx)
    names = list(tallies)
    scores = {p: 0 for p in names}
    mults = {p: 1 for p in names}
    texts = {p: "0 (nagari: nobody scores)" for p in names}
    counted: dict[str, list[YakuHit]] = {p: [] for p in names}
    lines: list[str] = []
    winner = ctx.stopped_by if end != "nagari" else None
    if end == "nagari":
        lines.append(f"nagari: nobody stopped; the next round is ×"
                     f"{nagari_factor(ctx.nagari + 1, rs)}, the same dealer deals")
    elif end == "instant":
        assert winner is not None
        value = int(rs["instant_win_points"]) or int(rs["stop_minimum"])
        for p in names:
            scores[p], texts[p] = -value, f"pays {value} (instant win, no multipliers)"
        scores[winner] = value * (len(names) - 1)
        texts[winner] = f"instant win (chongtong / three ppeok): receives {scores[winner]}"
    stopped = None
    if end == "stop":
        assert winner is not None
        stopped = _stop(rnd, rs, tallies, winner)
        scores, texts, mults = stopped.scores, stopped.texts, stopped.mults
        counted[winner] = list(stopped.reading.hits)
    own = {p: stopped.reading if stopped and p == winner else
           max(tallies[p], key=lambda t: t.base) for p in names}
    for p in names:
        if p != winner and own[p].base:
            texts[p] += f"; the pile forms {own[p].base} (" + ", ".join(
                h.name for h in own[p].hits) + ", not scored)"
        if ctx.bonus_junk.get(p):
            texts[p] += f"; {ctx.bonus_junk[p]} bonus junk counted among its {own[p].junk} junk"
    lines += [why for _, why in ignored_counts(ctx, winner if end == "stop" else None)]
    results = {s.name: PlayerResult(
        s.name, own[s.name].base, counted[s.name], max(0, -scores[s.name]), mults[s.name],
        scores[s.name], texts[s.name], s.members, tuple(sorted(s.codes)),
        details(s.name, own[s.name], ctx, end, winner, stopped, rs))
        for s in rnd.sides}
    next_dealer = winner or rnd.dealer
    lines = [f"{k}: {r.explanation}" for k, r in results.items()] + lines
    lines.append(f"{winner} wins the round" if winner else "no winner")
    lines.append(f"{next_dealer} deals next")
    return RoundResult(results, winner, next_dealer, lines, rs.name, rs.game, rnd.dealer)


#: The four kinds of card and the yaku each kind scores (points by role).
ROLE_YAKU = {"gwang": BRIGHT_YAKU, "yeol": ("yeol", "godori"),
             "tti": ("tti", "hongdan", "cheongdan", "chodan"), "pi": ("pi",)}


def details(name: str, own: Tally, ctx: GostopContext, end: str, winner: str | None,
            stopped: Stopped | None, rs: RuleSet) -> dict[str, Any]:
    """One player's line of the Go-Stop table: the pile's points by role and its counts,
    the calls, the multipliers on what he receives or pays, and each bak in play with
    its reason (applied or escaped)."""
    role = "nagari" if end == "nagari" else "instant" if end == "instant" else \
        "winner" if name == winner else "loser"
    out: dict[str, Any] = {
        "role": role,
        "points": {r: sum(h.points for h in own.hits if h.name in yaku)
                   for r, yaku in ROLE_YAKU.items()},
        "base": own.base, "counts": own.counts(),
        "bonus_junk": ctx.bonus_junk.get(name, 0),
        "goes": ctx.goes.get(name, 0), "shakes": ctx.shakes.get(name, 0),
        "bombs": ctx.bombs.get(name, 0),
        "double_junk_animal": own.role, "factors": [], "baks": [],
    }
    if stopped is None:
        return out
    if role == "winner":
        factors = winner_terms(stopped.reading, ctx, name, rs)[2]
        out["factors"] = [{"factor": v, "why": t.strip("()")} for v, t in factors]
        out["receives"] = stopped.scores[name]
        return out
    mine = stopped.shares[name]
    out["factors"] = [{"factor": v, "why": t.strip("()")} for v, t in mine.factors]
    out["baks"] = [b.to_dict() for b in mine.verdicts]
    out["share"] = mine.amount
    out["pays"] = -stopped.scores[name]
    liable = stopped.liable
    if liable is not None and liable != winner and name in stopped.shares:
        if name == liable:
            out["baks"].append(Bak("go-bak", True, f"{name} called go, and {winner} "
                                   "stopped: pays the other losers' shares too").to_dict())
        elif mine.amount:
            out["baks"].append(Bak("go-bak", False, f"{liable} called go: his go-bak covers "
                                   f"{name}'s share").to_dict())
    return out


def context_from_log(results: Sequence[RoundResult], rs: RuleSet) -> dict[str, Any]:
    """The nagari carry: how many rounds just before had no winner."""
    draws = 0
    for res in reversed(results):
        if res.winner is not None:
            break
        draws += 1
    return {"nagari": draws}


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
