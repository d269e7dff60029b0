"""`hanafuda score`: score one round of piles, from the command line or a round JSON file."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from scorer.cards import card
from scorer.commands.context_args import add_context_args, context_from_args, pairs
from scorer.commands.rules import add_rules_args, ruleset_from_args
from scorer.errors import InputError
from scorer.rules import RoundInput, RoundResult, RuleSet, get_variant, score_round

ROUND_KEYS = ("rules", "preset", "options", "players", "piles", "teams", "dealer", "context")

EPILOG = """\
examples:
  hanafuda score --rules sakura --pile A=01-1,02-1,03-1 --pile B=06-2,09-2,10-2
  hanafuda score --rules sakura --pile A=01-1 --pile B=02-1 --pile C=03-1 --pile D=04-1 \\
      --team A+C --team B+D --dealer B
  hanafuda score --rules koikoi --pile A=01-1,03-1,08-1 --pile B=09-1 \\
      --stopped-by A --koikoi-calls B=1
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
  Command-line --rules/--set/--rules-file override the file's rules and options, and
  the context options (one per context key, e.g. --stopped-by, --koikoi-calls) the
  file's context.

Turn order: --players if given; else with teams the members alternate (A+C, B+D ->
A, B, C, D); else the order of the --pile options. The dealer plays first; ties go to
the dealer, then to the next in turn order (Sakura: the dealer's right).

JSON output: {"rules", "game", "dealer", "results": {owner: {"owner", "members",
"cards", "card_points", "yaku", "yaku_points", "penalty", "multiplier", "score",
"explanation"}}, "scores", "winner", "tied", "next_dealer", "award", "explanation"}.
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
    return RoundInput(players, piles, dealer, teams, context), rs


def format_result(res: RoundResult) -> str:
    rows = list(res.results.values())
    width = max([len(r.owner) for r in rows] + [6])
    multiplies = get_variant(res.game).multiplies
    head = f"{'player':<{width}}  {'cards':>5}  {'yaku':>4}  " + \
        ("mult" if multiplies else "penalty") + "  score"
    lines = [f"{res.ruleset} round, dealer {res.dealer}", head]
    for r in rows:
        mid = f"x{r.multiplier:<3}" if multiplies else f"{r.penalty:>7}"
        lines.append(f"{r.owner:<{width}}  {r.card_points:>5}  {len(r.yaku):>4}  {mid}  "
                     f"{r.score:>5}")
    lines.append("")
    for r in rows:
        if r.yaku:
            lines.append(f"{r.owner} yaku: " + ", ".join(f"{y.name} ({y.points})"
                                                       for y in r.yaku))
    lines += res.explanation
    return "\n".join(lines)


def _run(args: argparse.Namespace) -> int:
    inp, rs = round_from_args(args)
    res = score_round(inp, rs)
    if args.json:
        print(json.dumps(res.to_dict(), ensure_ascii=False))
    else:
        print(format_result(res))
    return 0
