"""Koi-Koi: yaku of a captured pile under a point table and combination options, and the
round score (only the player who stopped scores, with the x2 multipliers). RULES.md section 2.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Collection, Iterable, Mapping, Sequence, cast

from scorer.cards import DECK, RAIN_MAN, SAKE_CUP, Kind
from scorer.errors import InputError
from scorer.rules.base import MAX_ROUNDS, BaseVariant, Preset
from scorer.rules.ruleset import RuleSet
from scorer.rules.hanaawase import VALUES
from scorer.rules.context import MAX_CALLS, Context, ContextField, parse_name
from scorer.rules.options import Alias, Option, boolean, choice, integer
from scorer.rules.records import PileSummary, PlayerResult, RoundResult, YakuHit
from scorer.rules.sides import CheckedRound
from scorer.rules.viewing import rain_option, rained_off
from scorer.rules.yaku import Yaku, enabled, first_of_groups, hit

SAKE = SAKE_CUP
BRIGHTS = tuple(c.code for c in DECK if c.kind is Kind.BRIGHT)
DRY = tuple(c for c in BRIGHTS if c != RAIN_MAN)
ISC = ("06-1", "07-1", "10-1")
AKATAN = ("01-2", "02-2", "03-2")
AOTAN = ("06-2", "09-2", "10-2")
ANIMALS = tuple(c.code for c in DECK if c.kind is Kind.ANIMAL)
RIBBONS = tuple(c.code for c in DECK if c.kind is Kind.RIBBON)
CHAFF = tuple(c.code for c in DECK if c.kind is Kind.CHAFF)
TEYAKU = ("teshi", "kuttsuki", "both")

# In the order they are looked for and listed. ``group``: the Nintendo exclusive groups
# (the animal_group / ribbon_group options may let the sets stack, see _groups).
YAKU: tuple[Yaku, ...] = (
    Yaku("goko", "Goko 五光 (five brights)", BRIGHTS, group="brights"),
    Yaku("shiko", "Shiko 四光 (four dry brights)", DRY, group="brights"),
    Yaku("ame_shiko", "Ame-shiko 雨四光 (rain man + three brights)", DRY, need=3,
         requires=(RAIN_MAN,), group="brights"),
    Yaku("sanko", "Sanko 三光 (three dry brights)", DRY, need=3, group="brights"),
    Yaku("ino_shika_cho", "Ino-shika-cho 猪鹿蝶 (boar, deer, butterflies)", ISC,
         group="animals", extra_from=ANIMALS),
    Yaku("tane", "Tane タネ (5 animals)", ANIMALS, need=5, per_card=True, group="animals"),
    Yaku("akatan_aotan", "Akatan + Aotan 赤短・青短の重複", AKATAN + AOTAN, group="ribbons",
         extra_from=RIBBONS),
    Yaku("akatan", "Akatan 赤短 (poetry ribbons)", AKATAN, group="ribbons",
         extra_from=RIBBONS),
    Yaku("aotan", "Aotan 青短 (blue ribbons)", AOTAN, group="ribbons", extra_from=RIBBONS),
    Yaku("tan", "Tan タン (5 ribbons)", RIBBONS, need=5, per_card=True, group="ribbons"),
    Yaku("kasu", "Kasu カス (10 chaff)", CHAFF + (SAKE,), need=10, per_card=True),
    Yaku("tsukifuda", "Tsuki-fuda 月札 (4 cards of the round's month)", ()),
    Yaku("hanami", "Hanami-zake 花見で一杯 (curtain + sake cup)", ("03-1", SAKE)),
    Yaku("tsukimi", "Tsukimi-zake 月見で一杯 (moon + sake cup)", ("08-1", SAKE)),
)
BY_NAME: dict[str, Yaku] = {y.name: y for y in YAKU}
VIEWING = ("hanami", "tsukimi")

_COMMON = {"ino_shika_cho": 5, "akatan": 5, "aotan": 5, "akatan_aotan": 10, "tane": 1,
           "tan": 1, "kasu": 1, "tsukifuda": 4}
#: Base points per point_table value (RULES K1).
TABLES: dict[str, dict[str, int]] = {
    "10-8-7-5": {"goko": 10, "shiko": 8, "ame_shiko": 7, "sanko": 5, "hanami": 5,
                 "tsukimi": 5, **_COMMON},
    "15-8-7-6": {"goko": 15, "shiko": 8, "ame_shiko": 7, "sanko": 6, "hanami": 5,
                 "tsukimi": 5, **_COMMON},
    "15-10-8-6-view3": {"goko": 15, "shiko": 10, "ame_shiko": 8, "sanko": 6, "hanami": 3,
                        "tsukimi": 3, **_COMMON},
    "15-8-7-6-view3": {"goko": 15, "shiko": 8, "ame_shiko": 7, "sanko": 6, "hanami": 3,
                       "tsukimi": 3, **_COMMON},
    "15-10-8-6-tan6": {"goko": 15, "shiko": 10, "ame_shiko": 8, "sanko": 6, "hanami": 5,
                       "tsukimi": 5, **_COMMON, "akatan": 6, "aotan": 6,
                       "akatan_aotan": 12},
}


def _group_option(key: str, what: str, kind: str) -> Option:
    return choice(
        key, "exclusive_extras", what, "RULES K2",
        ("exclusive_extras", f"the sets take +1 per other {kind}; the generic yaku is not "
                             f"counted beside them" + (" (akatan+aotan is one 10-point "
                                                        "yaku)" if kind == "ribbon" else "")
                             + " (Nintendo)"),
        ("stack_flat", "the sets are flat and stack with the generic yaku"
                       + ("; akatan and aotan count separately" if kind == "ribbon"
                          else "")),
        ("stack_extras", "the sets take +1 extras and the generic yaku counts as well"))


OPTIONS: tuple[Option, ...] = (
    choice("point_table", "10-8-7-5", "base points of the bright yaku "
           "(goko-shiko-ame_shiko-sanko), and of viewing and sets where not 5", "RULES K1",
           ("10-8-7-5", "goko 10, shiko 8, ame-shiko 7, sanko 5, viewing 5, sets 5 "
                        "(Nintendo)"),
           ("15-8-7-6", "goko 15, shiko 8, ame-shiko 7, sanko 6, viewing 5, sets 5 "
                        "(FudaWiki)"),
           ("15-10-8-6-view3", "goko 15, shiko 10, ame-shiko 8, sanko 6, viewing 3, "
                               "sets 5"),
           ("15-8-7-6-view3", "goko 15, shiko 8, ame-shiko 7, sanko 6, viewing 3, sets 5"),
           ("15-10-8-6-tan6", "goko 15, shiko 10, ame-shiko 8, sanko 6, akatan/aotan 6, "
                              "ino-shika-cho 5, viewing 5 (koikoi-modern)"),
           renamed=(("nintendo", "10-8-7-5"), ("fudawiki", "15-8-7-6"),
                    ("video", "15-10-8-6-view3"), ("fudawiki_viewing3", "15-8-7-6-view3"),
                    ("app", "15-10-8-6-tan6"))),
    _group_option("animal_group", "ino-shika-cho versus the generic tane", "animal"),
    _group_option("ribbon_group", "akatan / aotan versus the generic tan", "ribbon"),
    choice("sake_cup", "both", "what the sake cup 09-1 counts as", "RULES K3",
           ("both", "an animal and a chaff at once (Nintendo)"),
           ("animal", "an animal only"),
           ("chaff", "a chaff only, not an animal"),
           ("either", "an animal or a chaff, whichever scores more")),
    choice("viewing", "on", "hanami / tsukimi (flower and moon viewing); yaku.hanami=off "
           "or yaku.tsukimi=off drops one of them", "RULES K4",
           ("on", "always count"),
           ("off", "never count"),
           ("with_other", "count only when the pile has another yaku")),
    rain_option("RULES K4, 2.3"),
    boolean("double_at_seven", True, "double a stopper's score when the base is >= "
          "double_threshold", "RULES K5"),
    integer("double_threshold", 7, "base points from which double_at_seven applies",
         "RULES 2.4", 1, 1000),
    choice("koikoi_multiplier", "opponent", "what koi-koi calls do to the stopper's score",
            "RULES K6",
            ("opponent", "×2 if the opponent called koi-koi (any number of times)"),
            ("anyone", "×2 if anyone called koi-koi"),
            ("self", "×2 if the stopper called koi-koi"),
            ("per_call", "×(1 + all calls in the round)"),
            ("none", "calls change nothing")),
    choice("rain_man_three", "ame_shiko", "rain man plus three dry brights", "RULES K7",
            ("ame_shiko", "ame-shiko (rainy four brights)"),
            ("sanko", "sanko (three brights)")),
    choice("exhaustive_draw", "same_dealer", "a round nobody stops", "RULES K8",
            ("same_dealer", "nobody scores, the dealer deals again"),
            ("dealer_switches", "nobody scores, the other player deals"),
            ("oyaken_6", "the dealer scores 6 and deals again"),
            ("oyaken_1", "the dealer scores 1 and deals again")),
    choice("teyaku_both_players", "draw", "both players claim a dealt-hand yaku",
            "RULES K9",
            ("draw", "the round is a draw, nobody scores"),
            ("ignore", "both claims are ignored and the round is played")),
    integer("teyaku_points", 6, "points of teshi or kuttsuki (no multipliers)", "RULES 2.2",
         0, 1000),
    choice("teyaku_both_kinds", 6, "one player holds both teshi and kuttsuki",
            "RULES 2.2", (6, "6 points"), (12, "12 points")),
    boolean("tsukifuda", False, "tsuki-fuda: 4 cards of the round's month score 4 "
          "(needs the round month)", "RULES 2.3"),
    integer("rounds", 12, "rounds in a game (12 a year, 6 half a year)", "RULES 2.1", 1, MAX_ROUNDS),
)


#: Old option names and values (before the animal/ribbon and rain switches were split).
ALIASES: tuple[Alias, ...] = (
    Alias("set_yaku", keys=("animal_group", "ribbon_group")),
    Alias("viewing", value="rain_cancels",
          sets=(("viewing", "on"), ("rain_cancels_viewing", "rain_man"))),
)

PRESETS: tuple[Preset, ...] = (
    Preset("koikoi", "koikoi", "Nintendo Koi-Koi: 10/8/7/5, +1 extras, exclusive groups, "
           "sake cup also chaff, viewing 5, ×2 at 7+, ×2 if the opponent called"),
    Preset("koikoi-modern", "koikoi", "online/app table: goko 15, shiko 10, ame-shiko 8, "
           "sanko 6, akatan/aotan 6, yaku stack, no viewing yaku, no multipliers",
           {"point_table": "15-10-8-6-tan6", "animal_group": "stack_flat",
            "ribbon_group": "stack_flat", "sake_cup": "both", "viewing": "off",
            "double_at_seven": False, "koikoi_multiplier": "none"}),
    Preset("koikoi-classic", "koikoi", "Koi-Koi where every koi-koi call raises the "
           "multiplier by one (×2, ×3, ...) for whoever stops",
           {"koikoi_multiplier": "per_call"}),
)


@dataclass(frozen=True)
class KoikoiContext(Context):
    """Koi-Koi's round facts: who stopped (called shobu), each player's koi-koi calls, the
    round's month (for tsuki-fuda), dealt-hand yaku claims, cards left on the field."""

    stopped_by: str | None = None
    koikoi_calls: dict[str, int] = field(default_factory=dict)
    month: int | None = None
    teyaku: dict[str, str] = field(default_factory=dict)
    leftovers: tuple[str, ...] = ()

    FIELDS = (
        ContextField("stopped_by", "player", "Who stopped?",
                     "the player who called shobu; nobody: an exhaustive draw",
                     required=True, nobody="nobody (a draw)"),
        ContextField("koikoi_calls", "count_per_player", "Koi-koi calls",
                     "how many times each player called koi-koi", 0, MAX_CALLS),
        ContextField("month", "month", "Round month", "for tsuki-fuda (option tsukifuda)"),
        ContextField("teyaku", "choice_per_player", "Dealt-hand yaku",
                     "teshi (four of a month) or kuttsuki (four pairs) in the dealt hand",
                     choices=TEYAKU),
        ContextField("leftovers", "codes", "Cards left on the field"),
    )

    @classmethod
    def parse_field(cls, spec: ContextField, value: Any,
                    players: Sequence[str] | None) -> Any:
        if spec.key == "stopped_by" and isinstance(value, (list, tuple)):
            names = [parse_name(v, "stopped_by") for v in value]
            if len(set(names)) > 1:
                raise InputError(f"only one player can stop a Koi-Koi round (call shobu); "
                                 f"got {' and '.join(dict.fromkeys(names))}")
            value = names[0] if names else None
        if spec.key == "teyaku" and isinstance(value, Mapping):
            value = {p: _one_kind(p, k) for p, k in value.items()}
        return super().parse_field(spec, value, players)


def _one_kind(player: Any, kind: Any) -> Any:
    """A list of teyaku kinds as one (teshi + kuttsuki = both); "none" as no claim."""
    if isinstance(kind, (list, tuple)):
        kinds = {str(k).strip().lower() for k in kind}
        for k in sorted(kinds - set(TEYAKU)):
            raise InputError(f"teyaku for {player}: unknown {k!r} (allowed: "
                             f"{', '.join(TEYAKU)})")
        return "both" if kinds >= {"teshi", "kuttsuki"} or "both" in kinds else \
            (kinds.pop() if kinds else "")
    return "" if str(kind).strip().lower() == "none" else kind


def _groups(rs: RuleSet) -> list[tuple[str, ...]]:
    """The exclusive groups under the animal_group / ribbon_group options."""
    def members(group: str) -> tuple[str, ...]:
        return tuple(y.name for y in YAKU if y.group == group)

    groups = [members("brights")]
    if rs["animal_group"] == "exclusive_extras":
        groups.append(members("animals"))
    if rs["ribbon_group"] == "exclusive_extras":
        groups.append(members("ribbons"))
    elif rs["ribbon_group"] == "stack_extras":
        groups.append(tuple(n for n in members("ribbons") if n != "tan"))
    return groups


def _off(name: str, rs: RuleSet) -> bool:
    """Is this yaku switched off by an option (beyond ``yaku.<name>=off``)?"""
    if name == "ame_shiko":
        return rs["rain_man_three"] == "sanko"
    if name == "akatan_aotan":
        return rs["ribbon_group"] == "stack_flat"
    if name in VIEWING:
        return rs["viewing"] == "off"
    return name == "tsukifuda" and not rs["tsukifuda"]


def _flat(name: str, rs: RuleSet) -> bool:
    """Sets without their +1 extras (animal_group / ribbon_group = stack_flat)."""
    if name == "ino_shika_cho":
        return rs["animal_group"] == "stack_flat"
    return name in ("akatan", "aotan") and rs["ribbon_group"] == "stack_flat"


def _yaku(pile: Collection[str], rs: RuleSet, sake_animal: bool, sake_chaff: bool,
          month: int | None) -> list[YakuHit]:
    table = TABLES[rs["point_table"]]
    as_animal = set(pile) - ({SAKE} if not sake_animal else set())
    as_chaff = set(pile) - ({SAKE} if not sake_chaff else set())
    hits: list[YakuHit] = []
    for yaku in YAKU:
        if not enabled(yaku, rs) or _off(yaku.name, rs) or yaku.name in VIEWING:
            continue
        seen = as_chaff if yaku.name == "kasu" else as_animal
        if yaku.name == "tsukifuda":
            if month is None:
                continue
            of_month = tuple(c.code for c in DECK if c.month == month)
            yaku = Yaku(yaku.name, yaku.label, of_month)
        held = yaku.held(seen)
        if held is None:
            continue
        extras = () if _flat(yaku.name, rs) else yaku.extras(seen, held)
        hits.append(hit(yaku, rs, held, extras, table[yaku.name], sort=True))
    hits = first_of_groups(hits, YAKU, _groups(rs))
    # The viewing yaku use the sake cup card itself, whatever it counts as.
    if rained_off(pile, rs) or (rs["viewing"] == "with_other" and not hits):
        return hits
    for name in VIEWING:
        yaku = BY_NAME[name]
        held = yaku.held(pile) if enabled(yaku, rs) and not _off(name, rs) else None
        if held is not None:
            hits.append(hit(yaku, rs, held, (), table[name], sort=True))
    return hits


def card_values(rs: RuleSet) -> dict[str, int]:
    """Koi-Koi scores yaku, not cards: the Hana-Awase 20/10/5/1, for information."""
    return {c.code: VALUES[c.kind] for c in DECK}


def find_yaku(codes: Iterable[str], rs: RuleSet,
              context: Context | None = None) -> PileSummary:
    """The yaku of one pile; ``context.month`` is the round month (for tsuki-fuda)."""
    pile = set(codes)
    month = getattr(context, "month", None)
    mode = rs["sake_cup"]
    notes: list[str] = []
    if rs["tsukifuda"] and month is None:
        notes.append("tsukifuda is on but the round's month is not given, so tsuki-fuda "
                     "was not looked for")
    if mode in ("both", "animal", "chaff"):
        hits = _yaku(pile, rs, mode != "chaff", mode != "animal", month)
    else:
        animal_hits = _yaku(pile, rs, True, False, month)
        chaff_hits = _yaku(pile, rs, False, True, month)
        chaff_better = sum(h.points for h in chaff_hits) > sum(h.points for h in animal_hits)
        hits = chaff_hits if chaff_better else animal_hits
        if SAKE in pile:
            notes.append(f"the sake cup counts as {'a chaff' if chaff_better else 'an animal'}")
    return PileSummary(0, hits, sum(h.points for h in hits), "koikoi", tuple(notes))


def multiplier(base: int, stopper: str, calls: dict[str, int],
               rs: RuleSet) -> tuple[int, list[str]]:
    """The Koi-Koi stopper's multiplier and its reasons (RULES 2.4): x2 from
    ``double_threshold`` points (``double_at_seven``), and what the koi-koi calls of the
    round do under ``koikoi_multiplier``. ``calls`` maps players to their calls."""
    times, why = 1, []
    if rs["double_at_seven"] and base >= int(rs["double_threshold"]):
        times *= 2
        why.append(f"×2 for {rs['double_threshold']}+ points")
    own = calls.get(stopper, 0)
    others = sum(n for p, n in calls.items() if p != stopper)
    mode = rs["koikoi_multiplier"]
    if mode == "opponent" and others:
        times *= 2
        why.append("×2: the opponent called koi-koi")
    elif mode == "anyone" and own + others:
        times *= 2
        why.append("×2: koi-koi was called")
    elif mode == "self" and own:
        times *= 2
        why.append("×2: the stopper had called koi-koi")
    elif mode == "per_call" and own + others:
        times *= 1 + own + others
        n = own + others
        why.append(f"×{1 + n}: {n} koi-koi call{'s' if n != 1 else ''}")
    return times, why


def score_round(rnd: CheckedRound, rs: RuleSet) -> RoundResult:
    ctx = cast(KoikoiContext, rnd.context)
    stopper = ctx.stopped_by
    calls = ctx.koikoi_calls
    teyaku = ctx.teyaku
    lines: list[str] = []
    results: dict[str, PlayerResult] = {}
    summaries = {s.name: find_yaku(s.codes, rs, ctx) for s in rnd.sides}
    scores = {s.name: 0 for s in rnd.sides}
    texts = {s.name: "0 (did not stop)" for s in rnd.sides}
    mults = {s.name: 1 for s in rnd.sides}
    winner: str | None = None
    counted: dict[str, list[YakuHit]] = {s.name: [] for s in rnd.sides}

    claims = dict(teyaku)
    if len(claims) > 1 and rs["teyaku_both_players"] == "ignore":
        lines.append("both players hold a dealt-hand yaku: both claims are ignored")
        claims = {}
    if len(claims) > 1:
        if stopper is not None:
            raise InputError("both players claim a dealt-hand yaku, so the round is a draw "
                             "at the deal; nobody can have stopped it")
        lines.append("both players hold a dealt-hand yaku: the round is a draw")
        texts = {k: "0 (teyaku on both sides: draw)" for k in texts}
    elif claims:
        (player, kind), = claims.items()
        if stopper is not None:
            raise InputError(f"{player} won at the deal with {kind}; nobody can also have "
                             f"stopped the round (drop stopped_by or the teyaku)")
        pts = int(rs["teyaku_both_kinds"]) if kind == "both" else int(rs["teyaku_points"])
        label = {"teshi": "Teshi 手四 (four of a month in hand)",
                 "kuttsuki": "Kuttsuki くっつき (four pairs in hand)",
                 "both": "Teshi and Kuttsuki"}[kind]
        winner = player
        scores[player] = pts
        counted[player] = [YakuHit(f"teyaku_{kind}", pts, (), label)]
        texts[player] = f"dealt-hand yaku {kind} = {pts} (no multipliers)"
    elif stopper is not None:
        summary = summaries[stopper]
        if not summary.yaku:
            raise InputError(f"{stopper} stopped the round but their pile forms no yaku "
                             f"under {rs.name}")
        base = summary.total
        times, why = multiplier(base, stopper, calls, rs)
        winner = stopper
        scores[stopper] = base * times
        mults[stopper] = times
        counted[stopper] = summary.yaku
        texts[stopper] = (" + ".join(f"{y.name} {y.points}" for y in summary.yaku)
                          + f" = {base}"
                          + (f"; {', '.join(why)} = {base * times}" if why else ""))
        for p in scores:
            if p != stopper:
                texts[p] = "0 (only the player who stops scores)" + (
                    f"; called koi-koi {calls[p]} time{'s' if calls[p] != 1 else ''}"
                    if calls.get(p) else "")
    else:
        draw = rs["exhaustive_draw"]
        if draw.startswith("oyaken"):
            pts = 6 if draw == "oyaken_6" else 1
            scores[rnd.dealer] = pts
            winner = rnd.dealer
            counted[rnd.dealer] = [YakuHit("oyaken", pts, (), "Oya-ken 親権 (dealer's right)")]
            texts[rnd.dealer] = f"exhaustive draw: the dealer's right (oya-ken) = {pts}"
        else:
            texts = {k: "0 (exhaustive draw: nobody stopped)" for k in texts}
        lines.append("nobody stopped: exhaustive draw")

    for side in rnd.sides:
        summary = summaries[side.name]
        results[side.name] = PlayerResult(
            side.name, 0, counted[side.name], 0, mults[side.name],
            scores[side.name], texts[side.name], side.members, tuple(sorted(side.codes)))
        if side.name != winner and summary.yaku:
            results[side.name].explanation += ("; the pile forms "
                                               + ", ".join(y.name for y in summary.yaku)
                                               + " (not scored)")
    if winner is not None:
        next_dealer = winner
    elif rs["exhaustive_draw"] == "dealer_switches":
        next_dealer = next(p for p in rnd.players if p != rnd.dealer)
    else:
        next_dealer = rnd.dealer
    lines = [f"{k}: {r.explanation}" for k, r in results.items()] + lines
    lines += list(dict.fromkeys(n for s in summaries.values() for n in s.notes))
    lines.append(f"{winner} wins the round" if winner else "no winner")
    lines.append(f"{next_dealer} deals next")
    return RoundResult(results, winner, next_dealer, lines, rs.name, rs.game, rnd.dealer)


class Koikoi(BaseVariant):
    """Koi-Koi, RULES.md section 2: two players; only the player who stops scores."""

    name = "koikoi"
    title = "Koi-Koi"
    min_players, max_players = 2, 2
    options = OPTIONS
    aliases = ALIASES
    presets = PRESETS
    yaku = YAKU
    context = KoikoiContext
    multiplies = True

    card_values = staticmethod(card_values)
    find_yaku = staticmethod(find_yaku)
    score_round = staticmethod(score_round)

    def total_text(self, summary: PileSummary) -> str:
        return f"yaku points: {summary.total} (before multipliers)"


VARIANT = Koikoi()
