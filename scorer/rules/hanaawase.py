"""Hana-Awase: card values 20/10/5/1, the yaku table of RULES.md section 3 with its exclusive
groups (brights, seven/six ribbons, viewing), additive or zero-sum settlement."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from scorer.cards import DECK, Kind, card
from scorer.rules.records import PileSummary, PlayerResult, RoundResult, YakuHit
from scorer.rules.validate import Round

if TYPE_CHECKING:
    from scorer.rules.ruleset import RuleSet

# name: (points, cards, label); groups below pick their best member only.
TABLE: dict[str, tuple[int, tuple[str, ...], str]] = {
    "five_brights": (100, ("01-1", "03-1", "08-1", "11-1", "12-1"), "Five Brights 五光"),
    "four_brights": (60, ("01-1", "03-1", "08-1", "12-1"), "Four Brights 四光"),
    "spring": (30, ("01-1", "02-1", "03-1"), "Spring 表菅原 (crane, bush warbler, curtain)"),
    "pine_paulownia_moon": (20, ("01-1", "08-1", "12-1"), "Pine-Paulownia-Moon 松桐坊主"),
    "seven_ribbons": (40, (), "Seven Ribbons 七短 (not the willow ribbon)"),
    "six_ribbons": (30, (), "Six Ribbons 六短 (not the willow ribbon)"),
    "akatan": (40, ("01-2", "02-2", "03-2"), "Akatan 赤短 (poetry ribbons)"),
    "aotan": (40, ("06-2", "09-2", "10-2"), "Aotan 青短 (blue ribbons)"),
    "kusatan": (20, ("04-2", "05-2", "07-2"), "Kusatan 草短 (grass ribbons)"),
    "ino_shika_cho": (20, ("06-1", "07-1", "10-1"), "Ino-shika-cho 猪鹿蝶"),
    "drinking": (40, ("03-1", "08-1", "09-1"), "Drinking 飲み (curtain, moon, sake cup)"),
    "hanami": (20, ("03-1", "09-1"), "Hanami 花見 (curtain, sake cup)"),
    "tsukimi": (20, ("08-1", "09-1"), "Tsukimi 月見 (moon, sake cup)"),
    "willow_row": (10, ("11-1", "11-2", "11-3", "11-4"), "Willow row 柳島"),
    "wisteria_row": (10, ("04-1", "04-2", "04-3", "04-4"), "Wisteria row 藤島"),
    "paulownia_row": (10, ("12-1", "12-2", "12-3", "12-4"), "Paulownia row 桐島"),
}
YAKU_NAMES: tuple[str, ...] = tuple(TABLE)
GROUPS: tuple[tuple[str, ...], ...] = (
    ("five_brights", "four_brights", "spring", "pine_paulownia_moon"),
    ("seven_ribbons", "six_ribbons"),
    ("drinking", "hanami", "tsukimi"),
)
SHORT_RIBBONS = tuple(c.code for c in DECK if c.kind is Kind.RIBBON and c.code != "11-3")


def points(name: str, rs: RuleSet) -> int:
    default = int(rs["five_brights"]) if name == "five_brights" else TABLE[name][0]
    return int(rs.options.get(f"points.{name}", default))


def card_values(rs: RuleSet) -> dict[str, int]:
    by_kind = {Kind.BRIGHT: 20, Kind.ANIMAL: 10, Kind.RIBBON: 5,
               Kind.CHAFF: int(rs["chaff_points"])}
    return {c.code: by_kind[c.kind] for c in DECK}


def find_yaku(codes: Iterable[str], rs: RuleSet) -> PileSummary:
    pile = {card(c).code for c in codes}
    values = card_values(rs)
    found: list[YakuHit] = []
    ribbons = [c for c in SHORT_RIBBONS if c in pile]
    for name, (_, cards, label) in TABLE.items():
        if name == "seven_ribbons":
            ok, cards = len(ribbons) >= 7, tuple(ribbons)
        elif name == "six_ribbons":
            ok, cards = len(ribbons) == 6, tuple(ribbons)
        else:
            ok = all(c in pile for c in cards)
        if name == "paulownia_row" and not rs["paulownia_row"]:
            ok = False
        if name in ("drinking", "hanami", "tsukimi") and rs["rain_cancels_viewing"] \
                and "11-1" in pile:
            ok = False
        if ok:
            found.append(YakuHit(name, points(name, rs), tuple(cards), label))
    for group in GROUPS:
        inside = [h for h in found if h.name in group]
        if len(inside) > 1:
            best = max(inside, key=lambda h: (h.points, -group.index(h.name)))
            found = [h for h in found if h.name not in group or h is best]
    cp = sum(values[c] for c in pile)
    return PileSummary(cp, found, cp + sum(h.points for h in found), "hanaawase")


def deck_total(rs: RuleSet) -> int:
    return sum(card_values(rs).values())


def score_round(rnd: Round, rs: RuleSet) -> RoundResult:
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

    n = len(rnd.sides)
    yp = {k: sum(h.points for h in v) for k, v in yaku.items()}
    void = rs["fuke"] and any(s.card_points <= 20 for s in summaries.values())
    zero_sum = rs["settlement"] == "zero_sum"
    total = deck_total(rs)
    par = total // n
    results: dict[str, PlayerResult] = {}
    for s in rnd.sides:
        cp = summaries[s.name].card_points
        own = yp[s.name]
        if void:
            score, penalty = 0, 0
            text = f"cards {cp}; round void (fuke: someone has 20 card points or fewer)"
        elif zero_sum:
            penalty = sum(v for k, v in yp.items() if k != s.name)
            score = cp - par + own * (n - 1) - penalty
            text = (f"(cards {cp} - par {par}) + yaku {own} x {n - 1} - others' yaku "
                    f"{penalty} = {score}")
        else:
            penalty = 0
            score = cp + own
            text = f"cards {cp} + yaku {own} = {score}"
        results[s.name] = PlayerResult(s.name, cp, yaku[s.name], penalty, 1, score, text,
                                       s.members, tuple(sorted(s.codes)))
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
