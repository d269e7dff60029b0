"""Koi-Koi: yaku of a captured pile under a point table and combination options, and the
round score (only the player who stopped scores, with the x2 multipliers). RULES.md section 2.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from scorer.cards import DECK, Kind, card
from scorer.errors import InputError
from scorer.rules.records import PileSummary, PlayerResult, RoundResult, YakuHit
from scorer.rules.validate import Round

if TYPE_CHECKING:
    from scorer.rules.ruleset import RuleSet

BRIGHTS = ("01-1", "03-1", "08-1", "11-1", "12-1")
RAIN = "11-1"
SAKE = "09-1"
ISC = ("06-1", "07-1", "10-1")
AKATAN = ("01-2", "02-2", "03-2")
AOTAN = ("06-2", "09-2", "10-2")
ANIMALS = tuple(c.code for c in DECK if c.kind is Kind.ANIMAL)
RIBBONS = tuple(c.code for c in DECK if c.kind is Kind.RIBBON)
CHAFF = tuple(c.code for c in DECK if c.kind is Kind.CHAFF)

LABELS: dict[str, str] = {
    "goko": "Goko 五光 (five brights)",
    "shiko": "Shiko 四光 (four dry brights)",
    "ame_shiko": "Ame-shiko 雨四光 (rain man + three brights)",
    "sanko": "Sanko 三光 (three dry brights)",
    "hanami": "Hanami-zake 花見で一杯 (curtain + sake cup)",
    "tsukimi": "Tsukimi-zake 月見で一杯 (moon + sake cup)",
    "ino_shika_cho": "Ino-shika-cho 猪鹿蝶 (boar, deer, butterflies)",
    "akatan": "Akatan 赤短 (poetry ribbons)",
    "aotan": "Aotan 青短 (blue ribbons)",
    "akatan_aotan": "Akatan + Aotan 赤短・青短の重複",
    "tane": "Tane タネ (5 animals)",
    "tan": "Tan タン (5 ribbons)",
    "kasu": "Kasu カス (10 chaff)",
    "tsukifuda": "Tsuki-fuda 月札 (4 cards of the round's month)",
}
YAKU_NAMES: tuple[str, ...] = tuple(LABELS)

_COMMON = {"ino_shika_cho": 5, "akatan": 5, "aotan": 5, "akatan_aotan": 10, "tane": 1,
           "tan": 1, "kasu": 1, "tsukifuda": 4}
TABLES: dict[str, dict[str, int]] = {
    "nintendo": {"goko": 10, "shiko": 8, "ame_shiko": 7, "sanko": 5, "hanami": 5,
                 "tsukimi": 5, **_COMMON},
    "fudawiki": {"goko": 15, "shiko": 8, "ame_shiko": 7, "sanko": 6, "hanami": 5,
                 "tsukimi": 5, **_COMMON},
    "video": {"goko": 15, "shiko": 10, "ame_shiko": 8, "sanko": 6, "hanami": 3,
              "tsukimi": 3, **_COMMON},
    "fudawiki_viewing3": {"goko": 15, "shiko": 8, "ame_shiko": 7, "sanko": 6, "hanami": 3,
                          "tsukimi": 3, **_COMMON},
    "app": {"goko": 15, "shiko": 10, "ame_shiko": 8, "sanko": 6, "hanami": 5, "tsukimi": 5,
            **_COMMON, "akatan": 6, "aotan": 6, "akatan_aotan": 12},
}


def points(name: str, rs: RuleSet) -> int:
    """Base points of a yaku: the point table's value unless ``points.<name>`` is set."""
    return int(rs.options.get(f"points.{name}", TABLES[rs["point_table"]][name]))


def _hit(name: str, rs: RuleSet, cards: Iterable[str], extra: int = 0) -> YakuHit:
    label = LABELS[name] + (f" +{extra}" if extra else "")
    return YakuHit(name, points(name, rs) + extra, tuple(sorted(cards)), label)


def _yaku(pile: set[str], rs: RuleSet, sake_animal: bool, sake_chaff: bool,
          month: int | None) -> list[YakuHit]:
    hits: list[YakuHit] = []
    # Brights: exclusive group, best one only.
    brights = [c for c in BRIGHTS if c in pile]
    dry = [c for c in brights if c != RAIN]
    if len(brights) == 5:
        hits.append(_hit("goko", rs, brights))
    elif len(dry) == 4:
        hits.append(_hit("shiko", rs, dry))
    elif len(dry) == 3 and RAIN in pile:
        name = "ame_shiko" if rs["rain_man_three"] == "ame_shiko" else "sanko"
        hits.append(_hit(name, rs, brights))
    elif len(dry) == 3:
        hits.append(_hit("sanko", rs, dry))

    mode = rs["set_yaku"]
    # Animals.
    animals = [c for c in ANIMALS if c in pile and (c != SAKE or sake_animal)]
    has_isc = all(c in pile for c in ISC)
    if has_isc:
        extra = len(animals) - 3 if mode != "stack_flat" else 0
        hits.append(_hit("ino_shika_cho", rs, ISC + tuple(
            c for c in animals if c not in ISC) if extra else ISC, extra))
    if len(animals) >= 5 and (not has_isc or mode != "exclusive_extras"):
        hits.append(_hit("tane", rs, animals, len(animals) - 5))

    # Ribbons.
    ribbons = [c for c in RIBBONS if c in pile]
    aka = all(c in pile for c in AKATAN)
    ao = all(c in pile for c in AOTAN)
    if mode == "stack_flat":
        if aka:
            hits.append(_hit("akatan", rs, AKATAN))
        if ao:
            hits.append(_hit("aotan", rs, AOTAN))
    elif aka and ao:
        hits.append(_hit("akatan_aotan", rs, ribbons, len(ribbons) - 6))
    elif aka or ao:
        name = "akatan" if aka else "aotan"
        hits.append(_hit(name, rs, ribbons, len(ribbons) - 3))
    if len(ribbons) >= 5 and (not (aka or ao) or mode != "exclusive_extras"):
        hits.append(_hit("tan", rs, ribbons, len(ribbons) - 5))

    # Chaff.
    chaff = [c for c in CHAFF if c in pile] + ([SAKE] if sake_chaff and SAKE in pile else [])
    if len(chaff) >= 10:
        hits.append(_hit("kasu", rs, chaff, len(chaff) - 10))

    # Tsuki-fuda.
    if rs["tsukifuda"] and month is not None:
        of_month = [c.code for c in DECK if c.month == month]
        if all(c in pile for c in of_month):
            hits.append(_hit("tsukifuda", rs, of_month))

    # Viewing yaku (they use the sake cup card itself, whatever it counts as).
    viewing = rs["viewing"]
    if viewing != "off" and SAKE in pile:
        view = [_hit(n, rs, (b, SAKE)) for n, b in (("hanami", "03-1"), ("tsukimi", "08-1"))
                if b in pile]
        if viewing == "with_other" and not hits:
            view = []
        if viewing == "rain_cancels" and RAIN in pile:
            view = []
        hits.extend(view)
    return hits


def find_yaku(codes: Iterable[str], rs: RuleSet,
              context: dict[str, Any] | None = None) -> PileSummary:
    pile = {card(c).code for c in codes}
    month = (context or {}).get("month")
    mode = rs["sake_cup"]
    notes: tuple[str, ...] = ()
    if mode == "both":
        hits = _yaku(pile, rs, True, True, month)
    elif mode == "animal":
        hits = _yaku(pile, rs, True, False, month)
    else:
        as_animal = _yaku(pile, rs, True, False, month)
        as_chaff = _yaku(pile, rs, False, True, month)
        chaff_better = sum(h.points for h in as_chaff) > sum(h.points for h in as_animal)
        hits = as_chaff if chaff_better else as_animal
        if SAKE in pile:
            notes = (f"the sake cup counts as {'a chaff' if chaff_better else 'an animal'}",)
    total = sum(h.points for h in hits)
    return PileSummary(0, hits, total, "koikoi", notes)


def multiplier(base: int, player: str, calls: dict[str, int], rs: RuleSet) -> tuple[int, list[str]]:
    """The stopper's multiplier and the reasons (RULES 2.4)."""
    m, why = 1, []
    if rs["double_at_seven"] and base >= int(rs["double_threshold"]):
        m *= 2
        why.append(f"x2 for {rs['double_threshold']}+ points")
    own = calls.get(player, 0)
    others = sum(n for p, n in calls.items() if p != player)
    mode = rs["koikoi_multiplier"]
    if mode == "opponent" and others:
        m *= 2
        why.append("x2: the opponent called koi-koi")
    elif mode == "anyone" and own + others:
        m *= 2
        why.append("x2: koi-koi was called")
    elif mode == "self" and own:
        m *= 2
        why.append("x2: the stopper had called koi-koi")
    elif mode == "per_call" and own + others:
        m *= 1 + own + others
        why.append(f"x{1 + own + others}: {own + others} koi-koi call(s)")
    return m, why


def score_round(rnd: Round, rs: RuleSet) -> RoundResult:
    ctx = rnd.context
    stopper: str | None = ctx["stopped_by"]
    calls: dict[str, int] = ctx["koikoi_calls"]
    teyaku: dict[str, str] = ctx["teyaku"]
    month = ctx["month"]
    lines: list[str] = []
    results: dict[str, PlayerResult] = {}
    summaries = {s.name: find_yaku(s.codes, rs, {"month": month}) for s in rnd.sides}
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
        m, why = multiplier(base, stopper, calls, rs)
        winner = stopper
        scores[stopper] = base * m
        mults[stopper] = m
        counted[stopper] = summary.yaku
        texts[stopper] = (" + ".join(f"{y.name} {y.points}" for y in summary.yaku)
                          + f" = {base}" + (f"; {', '.join(why)} -> {base * m}" if why else ""))
        for p in scores:
            if p != stopper:
                texts[p] = "0 (only the player who stops scores)" + (
                    f"; called koi-koi {calls[p]}x" if calls.get(p) else "")
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

    for s in rnd.sides:
        summ = summaries[s.name]
        results[s.name] = PlayerResult(
            s.name, 0, counted[s.name], 0, mults[s.name],
            scores[s.name], texts[s.name], s.members, tuple(sorted(s.codes)))
        if s.name != winner and summ.yaku:
            results[s.name].explanation += (" - pile forms "
                                            + ", ".join(y.name for y in summ.yaku))
    if winner is not None:
        next_dealer = winner
    elif rs["exhaustive_draw"] == "dealer_switches":
        next_dealer = next(p for p in rnd.players if p != rnd.dealer)
    else:
        next_dealer = rnd.dealer
    lines = [f"{k}: {r.explanation}" for k, r in results.items()] + lines
    lines.append(f"{winner} wins the round" if winner else "no winner")
    lines.append(f"{next_dealer} deals next")
    return RoundResult(results, winner, next_dealer, lines, rs.name, rs.game, rnd.dealer)
