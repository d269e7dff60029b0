"""`hanafuda score`: score one round of piles, from the command line or a round JSON file."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from scorer.cards import card
from scorer.commands.context_args import (add_context_args, check_flags_fit,
                                          context_from_args, flag_words, pairs)
from scorer.commands.rules import add_rules_args, ruleset_from_args
from scorer.errors import InputError
from scorer.i18n import command_language, gettext, sentence
from scorer.rules import RoundInput, RoundResult, RuleSet, get_variant, score_round
from scorer.rules import gostop
from scorer.rules.context import reword

ROUND_KEYS = ("rules", "preset", "options", "players", "piles", "teams", "dealer", "context")

EPILOG = """\
examples:
  hanafuda score --rules sakura --pile A=01-1,02-1,03-1 --pile B=06-2,09-2,10-2
  hanafuda score --rules sakura --pile A=01-1 --pile B=02-1 --pile C=03-1 --pile D=04-1 \\
      --team A+C --team B+D --dealer B
  hanafuda score --rules koikoi --pile A=01-1,03-1,08-1 --pile B=09-1 \\
      --stopped-by A --koikoi-calls B=1
  Go-Stop (3 players): Ann stops with three brights; Bob had called go once (he
  pays both shares: go-bak); Cy holds a bright (no gwang-bak for him):
  hanafuda score --rules gostop --pile Ann=01-1,03-1,08-1 --pile Bob=10-3 \\
      --pile Cy=12-1,10-4 --stopped-by Ann --goes Bob=1
  Matgo (2 players, stop at 7): Ann stops after one go with a shake:
  hanafuda score --rules matgo --pile Ann=01-1,03-1,08-1,02-1,04-1,08-2 \\
      --pile Bob=01-3 --stopped-by Ann --goes Ann=1 --shakes Ann=1
  A draw (nagari): --stopped-by nobody. House rules: --set stop_minimum=5
  (hanafuda rules gostop lists them).
  Hachi-Hachi (3 play a month, 3-7 at the table; scores in mon, 12 mon a kan): Ann
  ends the month with shikō on a big field (the crane among the table cards):
  hanafuda score --rules hachihachi --pile Ann=01-1,03-1,08-1,12-1 --pile Bob=01-3 \
      --pile Cy=02-3 --stopped-by Ann --field-cards 01-1,02-4,04-3,05-3,06-3,07-3
  A month played out lists all 48 cards in the piles; --dealt-hands Bob=CODE,... (7
  cards) scores his teyaku, --sitting-out Dee with 4 or more at the table.
  hanafuda score round.json --json

ROUND.json (every key but piles is optional):
  {"rules": "sakura",                    preset (or "preset")
   "options": {"yellow_paulownia": 0},   option values over the preset
   "players": ["A", "B", "C", "D"],      turn order (default: see below)
   "piles": {"A": ["01-1", "02-1"],      player (or team "A+C") -> codes,
             "B": "06-2,09-2,10-2"},     as a list or a comma-separated string
   "teams": [["A", "C"], ["B", "D"]],    or ["A+C", "B+D"] (Sakura only)
   "dealer": "A",                        default: the first player
   "context": {"stopped_by": "A",        Koi-Koi: who stopped (called shobu),
               "koikoi_calls": {"B": 1},   koi-koi calls per player,
               "month": 3,                 round month (tsuki-fuda),
               "teyaku": {"A": "teshi"},   dealt-hand yaku: teshi|kuttsuki|both;
               "leftovers": ["05-3"],      cards left on the field,
               "gaji_month": 5}}           Sakura: month the lightning took from hand
  Go-Stop and Matgo ("rules": "gostop" or "matgo"; "stopped_by" is required, null
  or "nobody" for a nagari):
   "context": {"stopped_by": "Ann",       who stopped (or won at once),
               "outcome": "stop",          stop | nagari | instant (default: from stopped_by),
               "goes": {"Bob": 1},         go calls per player,
               "go_order": ["Bob", "Cy"],  who called go first (when two did),
               "shakes": {"Ann": 1},       the winner's shakes (흔들기),
               "bombs": {"Ann": 0},        the winner's bombs (폭탄),
               "nagari": 1,                draws just before (default: none),
               "sake_cup": {"Ann": "junk"},  what 09-1 was declared: animal | junk,
               "bonus_junk": {"Cy": 2}}    junk value of bonus (joker) cards per pile
  Hachi-Hachi ("rules": "hachihachi", "hachihachi-half" or "hachihachi-bga"):
   "context": {"sitting_out": ["Dee"],     who sits the month out (4+ at the table),
               "field": "big",             small | big | grand (default: from field_cards),
               "field_cards": ["01-1"],    the six table cards at the deal,
               "carried_field": "big",     carried from last month (a game carries it),
               "dealt_hands": {"Bob": [...7 codes]},  for the teyaku,
               "teyaku_sets": {"Ann": "sanbon"},   or teyaku declared by name,
               "teyaku_chaff": {"Ann": "tanichi"},
               "stopped_by": "Ann",        who ended the month with a dekiyaku,
               "mizuten": "yes",           the dealer played blind,
               "hatto": "Bob"}             who threw the bright that completed shikō
  Command-line --rules/--set/--rules-file override the file's rules and options, and
  the context options (one per context key, e.g. --stopped-by, --koikoi-calls) the
  file's context.

Turn order: --players if given; else with teams the members alternate (A+C, B+D ->
A, B, C, D); else the order of the --pile options. The dealer plays first; ties go to
the dealer, then to the next in turn order (Sakura: the dealer's right).

JSON output: {"rules", "game", "dealer", "results": {owner: {"owner", "members",
"cards", "card_points", "yaku", "yaku_points", "penalty", "multiplier", "score",
"explanation"}}, "scores", "winner", "tied", "next_dealer", "award", "explanation"}.
Go-Stop: card_points is a pile's base points, penalty what a loser pays, and each
result has "details": {"role", "points" (by role: gwang, yeol, tti, pi), "base",
"counts", "bonus_junk", "goes", "shakes", "bombs", "factors", "baks": [{"name",
"korean", "applies", "reason"}], "pays" | "receives"}.
Hachi-Hachi: score is the net in mon, and each result has "details": {"role" (active
| sitting_out), "card_points", "par", "over_par", "points_settled", "field": {"name",
"multiplier", "reason", "carry", "text"}, "mon_per_kan", "payments": [{"payer",
"payee", "mon", "why"}], "net_text"}.
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "score", help="score one round of captured piles",
        description="Score one round: each player's (or team's) card points, yaku, "
                    "penalties or multipliers, round score, the winner and the next dealer.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("round_file", nargs="?", metavar="ROUND.json",
                        help="a JSON file describing the whole round (instead of --pile)")
    add_rules_args(parser)
    parser.add_argument("--pile", action="append", default=[], metavar="NAME=CODE,CODE...",
                        help="one player's (or team's) captured cards (repeatable; "
                             "NAME= for an empty pile)")
    parser.add_argument("--team", action="append", default=[], metavar="A+B",
                        help="partners sharing a pile, Sakura only (repeatable)")
    parser.add_argument("--players", metavar="A,B,...", default=None,
                        help="turn order, starting anywhere (default: see below)")
    parser.add_argument("--dealer", metavar="NAME", default=None,
                        help="this round's dealer (default: the first player)")
    add_context_args(parser)
    parser.add_argument("--json", action="store_true", help="print JSON for machines")
    parser.set_defaults(func=_run)


def _codes(owner: str, text: str) -> list[str]:
    """One --pile's codes, each checked at once, so a bad code is named before anything
    else about the round (the player count, say) is judged."""
    codes = [c for c in text.replace(",", " ").split() if c]
    for code in codes:
        try:
            card(code)
        except InputError as exc:
            raise InputError(f"--pile {owner}: {exc}") from None
    return codes


def default_players(piles: dict[str, Any], teams: list[Any] | None) -> list[str]:
    """Turn order when none is given: team members alternate, else pile order."""
    if teams:
        lists = [t.split("+") if isinstance(t, str) else list(t) for t in teams]
        order: list[str] = []
        for i in range(max(len(t) for t in lists)):
            for t in lists:
                if i < len(t) and t[i] not in order:
                    order.append(t[i])
        for key in piles:
            for p in str(key).split("+"):
                if p not in order:
                    order.append(p)
        return order
    order = []
    for key in piles:
        for p in str(key).split("+"):
            if p not in order:
                order.append(p)
    return order


def load_round_file(path: str) -> dict[str, Any]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"round file {path!r} not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read round file {path!r}: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"round file {path!r} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise InputError(f"round file {path!r} must hold a JSON object")
    for key in data:
        if key not in ROUND_KEYS:
            raise InputError(f"round file {path!r}: unknown key {key!r} "
                             f"(allowed: {', '.join(ROUND_KEYS)})")
    if "piles" not in data:
        raise InputError(f"round file {path!r} has no \"piles\"")
    return data


def round_from_args(args: argparse.Namespace) -> tuple[RoundInput, RuleSet]:
    if args.round_file and args.pile:
        raise InputError("give either a ROUND.json file or --pile options, not both")
    if args.round_file:
        data = load_round_file(args.round_file)
        if data.get("rules") and data.get("preset") and data["rules"] != data["preset"]:
            raise InputError("round file gives both rules and preset; give one")
        name = data.get("rules") or data.get("preset")
        options = data.get("options") or {}
        if not isinstance(options, dict):
            raise InputError("round file: options must be an object of option values")
        rs = ruleset_from_args(args, name=name, extra=options)
        piles = data["piles"]
        if not isinstance(piles, dict):
            raise InputError("round file: piles must map players to card codes")
        teams = data.get("teams") or None
        context = data.get("context") or {}
        if not isinstance(context, dict):
            raise InputError("round file: context must be an object")
        players = data.get("players") or default_players(piles, teams)
        dealer = data.get("dealer")
    else:
        if not args.pile:
            raise InputError("no piles: give --pile NAME=CODE,CODE... (one per player) "
                             "or a ROUND.json file")
        rs = ruleset_from_args(args)
        piles = {k: _codes(k, v) for k, v in pairs(args.pile, "--pile").items()}
        teams = [t.split("+") for t in args.team] or None
        context = {}
        players = None
        dealer = None
    # Command-line context and turn order override or add to the file's.
    if args.players:
        players = [p.strip() for p in args.players.split(",") if p.strip()]
    if players is None:
        players = default_players(piles, teams)
    if args.dealer:
        dealer = args.dealer
    context.update(context_from_args(args))
    if not isinstance(players, list):
        raise InputError("players must be a list of names in turn order")
    check_flags_fit(args, rs.game, rs.name)
    _say_required(context, rs, from_file=bool(args.round_file))
    return RoundInput(players, piles, dealer, teams, context), rs


def _say_required(context: dict[str, Any], rs: RuleSet, from_file: bool) -> None:
    """Nothing is scored that the players did not say: a round whose game needs to know
    who stopped is refused without it (``--stopped-by nobody`` says nobody did)."""
    for spec in get_variant(rs.game).context.missing(context):
        flag = "--" + spec.key.replace("_", "-")
        what = spec.label.rstrip("?").lower()
        where = f' (or "{spec.key}" in the round file\'s context)' if from_file else ""
        raise InputError(f"{rs.name} needs to know {what}: give {flag} NAME{where}, or "
                         f"{flag} {spec.nobody or 'nobody'}")


def say(lang: str, text: str, **values: object) -> str:
    """``text`` ("{owner} yaku: {list}") in ``lang``, its places filled."""
    return re.sub(r"\{(\w+)\}", lambda m: str(values.get(m.group(1), m.group(0))), gettext(lang, text))


def format_result(res: RoundResult) -> str:
    rows = list(res.results.values())
    width = max([len(r.owner) for r in rows] + [6])
    multiplies = get_variant(res.game).multiplies
    lang = command_language()       # the shell's language: the engine's sentences in it
    cards = gettext(lang, "base") if res.game == "gostop" else gettext(lang, "cards")   # Go-Stop: its base
    head = f"{gettext(lang, 'player'):<{width}}  {cards:>5}  {gettext(lang, 'yaku'):>4}  " + \
        (gettext(lang, "mult") if multiplies else gettext(lang, "penalty")) + "  " + gettext(lang, "score")
    lines = [say(lang, "{ruleset} round, dealer {dealer}", ruleset=res.ruleset, dealer=res.dealer), head]
    for r in rows:
        mid = f"×{r.multiplier:<3}" if multiplies else f"{r.penalty:>7}"
        net = r.details.get("net_text")       # Hachi-Hachi: the net in kan and mon too
        lines.append(f"{r.owner:<{width}}  {r.card_points:>5}  {len(r.yaku):>4}  {mid}  "
                     f"{r.score:>5}" + (f"  ({net})" if net else ""))
    lines.append("")
    for r in rows:
        if r.yaku:
            lines.append(say(lang, "{owner} yaku: {list}", owner=r.owner, list=", ".join(
                f"{sentence(lang, y.name)} ({y.points})" for y in r.yaku)))
    lines += [sentence(lang, line) for line in res.explanation]
    for r in rows:                  # Go-Stop's baks, applied or escaped, with the reason
        for b in r.details.get("baks", []):
            lines.append(f"{r.owner}: {b['name']} {b['korean']} "
                         f"{gettext(lang, 'applies') if b['applies'] else gettext(lang, 'escaped')}: "
                         f"{sentence(lang, b['reason'])}")
    return "\n".join(lines)


def _run(args: argparse.Namespace) -> int:
    inp, rs = round_from_args(args)
    try:
        res = score_round(inp, rs)
    except InputError as exc:       # the engine names context keys: name the flags
        if args.round_file:         # (a round file's keys are what its writer typed)
            raise
        raise InputError(reword(str(exc), flag_words())) from None
    if rs.game == "gostop":         # a loser's shakes or bombs: said, not dropped silently
        ctx = gostop.GostopContext.parse(inp.context, inp.players)
        for key, why in gostop.ignored_counts(ctx, res.winner if gostop.outcome(ctx) ==
                                              "stop" else None):
            raise InputError(f"{why}: leave it out of --{key}")
    if args.json:
        print(json.dumps(res.to_dict(), ensure_ascii=False))
    else:
        print(format_result(res))
    return 0
