"""Placeholder for `hanafuda detect`, replaced by its real implementation."""

import argparse

from scorer.errors import InputError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("detect", help="(not implemented yet)")
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    raise InputError("not implemented yet")
