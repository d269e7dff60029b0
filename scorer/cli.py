"""The ``hanafuda`` command: one subcommand per module in ``scorer.commands``.

Each command module exposes ``register(subparsers)``, which adds its parser and sets
``func`` (taking the parsed args, returning an exit code). An InputError anywhere
becomes a one-line message on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Sequence

from scorer import __version__
from scorer.errors import InputError

COMMAND_MODULES: tuple[str, ...] = (
    "scorer.commands.yaku",
    "scorer.commands.score",
    "scorer.commands.rules",
    "scorer.commands.cards",
    "scorer.commands.detect",
    "scorer.commands.serve",
    "scorer.commands.accuracy",
    "scorer.commands.enrol",
    "scorer.commands.decks",
)

EXIT_BAD_INPUT = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hanafuda",
        description="Recognise hanafuda cards from a camera or photo and score them "
        "(Sakura, Koi-Koi, Hana-Awase, and Go-Stop / Matgo with a Korean hwatu deck).",
        epilog="examples:\n"
        "  hanafuda score --rules sakura --pile A=01-1,02-1 --pile B=06-2\n"
        "  hanafuda score --rules gostop --pile Ann=01-1,03-1,08-1 --pile Bob=10-3 \\\n"
        "      --pile Cy=10-4 --stopped-by Ann --goes Bob=1\n"
        "  hanafuda rules gostop          the options (house rules) of a preset\n"
        "  hanafuda serve                 the web page\n"
        "`hanafuda COMMAND --help` says more.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except InputError as exc:
        print(f"hanafuda {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:     # `hanafuda rules | head`: the reader left, not an error
        sys.stdout = open(os.devnull, "w")
        return 0


if __name__ == "__main__":
    sys.exit(main())
