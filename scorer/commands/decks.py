"""`hanafuda decks`: list, export and delete enrolled decks."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from scorer.commands.enrol import db_argument, open_decks
from scorer.errors import InputError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "decks", help="list, export or delete enrolled decks",
        description="The decks enrolled with `hanafuda enrol` in the games database: "
                    "with no option, list them (cards enrolled, crops kept).",
        epilog='JSON (list): {"db", "decks": [{"name", "cards", "crops", "created_at", '
               '"updated_at"}]}. Export: {"name", "cards", "crops": [{"code", "source", '
               '"png"}], ...}: each crop as a PNG data URL.')
    db_argument(parser)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--export", nargs=2, metavar=("NAME", "FILE"),
                       help="write deck NAME (its crops) to FILE as JSON ('-': stdout)")
    group.add_argument("--delete", metavar="NAME", help="delete deck NAME")
    parser.add_argument("--json", action="store_true", help="print JSON for machines")
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    decks = open_decks(args.db)
    if args.delete:
        decks.delete(args.delete)
        print(f"deleted deck {args.delete!r}")
        return 0
    if args.export:
        name, out = args.export
        text = json.dumps(decks.get(name).to_json(), ensure_ascii=False)
        if out == "-":
            print(text)
            return 0
        try:
            Path(out).write_text(text + "\n")
        except OSError as exc:
            raise InputError(f"cannot write {out}: {exc.strerror}") from None
        print(f"exported deck {name!r} to {out}")
        return 0
    rows = decks.list()
    if args.json:
        print(json.dumps({"db": str(decks.path), "decks": rows}))
        return 0
    if not rows:
        print(f"{decks.path}: no decks enrolled yet (hanafuda enrol NAME PHOTO...)")
        return 0
    print(f"{'name':<24} {'cards':>5} {'crops':>5}  updated")
    for r in rows:
        print(f"{r['name']:<24} {r['cards']:>5} {r['crops']:>5}  {r['updated_at'][:19]}")
    return 0
