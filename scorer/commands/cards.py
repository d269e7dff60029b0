"""``hanafuda cards``: the 48 card codes with their names, month by month."""

from __future__ import annotations

import argparse
import json

from scorer.i18n import command_language, gettext
from scorer.cards import DECK, MONTHS
from scorer.errors import InputError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "cards", help="list the 48 card codes with their names",
        description="List the 48 cards: code MM-K (month 01-12 in Japanese order, 11 willow, "
                    "12 paulownia; K 1-4 within the month), kind and name.")
    parser.add_argument("--month", type=int, default=None, metavar="M",
                        help="only this month (1-12)")
    parser.add_argument("--json", action="store_true", help="print JSON for machines")
    parser.set_defaults(func=_run)


def rows(month: int | None = None) -> list[dict[str, str | int]]:
    """One record per card (of ``month`` if given), in code order."""
    return [{"code": c.code, "month": c.month, "kind": c.kind.value, "name": c.name,
             "japanese": c.japanese} for c in DECK if month is None or c.month == month]


def _run(args: argparse.Namespace) -> int:
    if args.month is not None and not 1 <= args.month <= 12:
        raise InputError(f"--month must be 1-12, not {args.month}")
    found = rows(args.month)
    if args.json:
        print(json.dumps({"cards": found}, ensure_ascii=False))
        return 0
    lang = command_language()       # the months' and cards' names in the shell's language
    for m in MONTHS:
        if args.month is not None and m.number != args.month:
            continue
        print(f"{m.number:02d} {gettext(lang, m.english)} ({m.japanese})")
        for r in found:
            if r["month"] == m.number:
                print(f"  {r['code']}  {gettext(lang, str(r['kind'])):<6}  {gettext(lang, str(r['name']))}")
    return 0
