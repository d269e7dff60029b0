"""`hanafuda yaku`: the yaku and card points one pile forms on its own."""

from __future__ import annotations

import argparse
import json

from scorer.cards import card
from scorer.errors import InputError
from scorer.commands.rules import add_rules_args, ruleset_from_args
from scorer.rules import find_yaku, get_variant


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "yaku", help="list the yaku one pile of cards forms",
        description="Show the yaku (scoring combinations) and card points that one pile "
                    "of cards forms on its own under a rules preset.",
        epilog="Cards are codes MM-K (month 01-12, K 1-4), separated by spaces or commas. "
               "JSON: {\"yaku\": [{\"name\", \"points\", \"cards\", \"label\"}], "
               "\"total\": N, \"card_points\": N}. For Sakura each yaku's points are what "
               "each opponent loses and total is the pile's card points; for Koi-Koi total "
               "is the yaku points before multipliers; for Hana-Awase card points + yaku.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    add_rules_args(parser)
    parser.add_argument("--month", default=None, metavar="M",
                        help="Koi-Koi round month 1-12 (for tsuki-fuda)")
    parser.add_argument("codes", nargs="+", metavar="CODE", help="card codes, e.g. 08-1 09-1")
    parser.add_argument("--json", action="store_true", help="print JSON for machines")
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    rs = ruleset_from_args(args)
    codes = [c for arg in args.codes for c in arg.replace(",", " ").split()]
    month = None
    if args.month is not None:
        text = args.month.strip()
        if not (text.isascii() and text.isdigit() and 1 <= int(text) <= 12):
            raise InputError(f"--month must be a month 1-12, not {args.month!r}")
        month = int(text)
    takes_month = any(f.key == "month" for f in get_variant(rs.game).context.FIELDS)
    summary = find_yaku(codes, rs, {"month": month} if takes_month else None)
    if args.json:
        out = summary.to_dict()
        out["rules"] = rs.name
        out["cards"] = [card(c).code for c in codes]
        print(json.dumps(out, ensure_ascii=False))
        return 0
    lines = [f"{rs.name}: {len(codes)} cards"]
    if summary.yaku:
        width = max(len(y.name) for y in summary.yaku)
        lines.append(f"  {'yaku':<{width}}  points  cards")
        for y in summary.yaku:
            lines.append(f"  {y.name:<{width}}  {y.points:>6}  {' '.join(y.cards) or '-'}"
                         f"   {y.label}")
    else:
        lines.append("  no yaku")
    for note in summary.notes:
        lines.append(f"  note: {note}")
    lines.append(get_variant(rs.game).total_text(summary))
    print("\n".join(lines))
    return 0
