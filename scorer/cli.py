"""The ``hanafuda`` command: one subcommand per module in ``scorer.commands``, and the
commands other packages add through the ``hanafuda.commands`` entry points (the web
package's ``serve``; the core never imports the web).

Each command module exposes ``register(subparsers)``, which adds its parser and sets
``func`` (taking the parsed args, returning an exit code). An entry point's module is
loaded only when its command is asked for (or for ``--help``), so ``hanafuda yaku`` loads
no web. An InputError anywhere becomes a one-line message on stderr and exit code 2,
never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from importlib.metadata import entry_points
from types import ModuleType
from typing import Iterable, Sequence

from scorer import __version__
from scorer.errors import InputError
from scorer.i18n import command_language, gettext, sentence

COMMAND_MODULES: tuple[str, ...] = (
    "scorer.commands.yaku",
    "scorer.commands.score",
    "scorer.commands.rules",
    "scorer.commands.cards",
    "scorer.commands.detect",
    "scorer.commands.accuracy",
    "scorer.commands.enrol",
    "scorer.commands.decks",
)

EXIT_BAD_INPUT = 2
PLUGIN_GROUP = "hanafuda.commands"


def plugin_commands() -> dict[str, str]:
    """The commands other installed packages add: name -> module with ``register``."""
    return {ep.name: ep.value for ep in entry_points(group=PLUGIN_GROUP)}


def _wanted(argv: Sequence[str] | None) -> str | None:
    """The command named on the command line (None: none, e.g. ``--help``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    return next((a for a in args if not a.startswith("-")), None)


def build_parser(argv: Sequence[str] | None = None,
                 extra: Iterable[ModuleType] = ()) -> argparse.ArgumentParser:
    """The parser of every command: ``scorer.commands``' own, ``extra`` modules, and the
    entry points' (loaded only when the one asked for, or when none is named)."""
    lang = command_language()
    parser = argparse.ArgumentParser(
        prog="hanafuda",
        description=gettext(lang, "Recognise hanafuda cards from a camera or photo and score them "
                            "(Sakura, Koi-Koi, Hana-Awase, and Go-Stop / Matgo with a Korean hwatu deck)."),
        epilog=gettext(lang, "examples:") + "\n"
        "  hanafuda score --rules sakura --pile A=01-1,02-1 --pile B=06-2\n"
        "  hanafuda score --rules gostop --pile Ann=01-1,03-1,08-1 --pile Bob=10-3 \\\n"
        "      --pile Cy=10-4 --stopped-by Ann --goes Bob=1\n"
        "  hanafuda rules gostop          the options (house rules) of a preset\n"
        "  hanafuda serve                 the web page\n"
        + gettext(lang, "`hanafuda COMMAND --help` says more."),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    extra = list(extra)
    for module in extra:
        module.register(subparsers)
    known = set(subparsers.choices)
    wanted = _wanted(argv)
    for name, module_name in plugin_commands().items():
        if name in known:
            continue
        if wanted is None or wanted == name:
            importlib.import_module(module_name).register(subparsers)
        else:                               # listed, not loaded: another command runs
            subparsers.add_parser(name, help=f"(from {module_name}; see hanafuda {name} -h)")
    for choice in subparsers._choices_actions:      # each command's line, in the language
        choice.help = gettext(lang, choice.help) if choice.help else choice.help
    if lang != "en":                                 # each command's words, and its options'
        for sub in [parser, *subparsers.choices.values()]:
            sub.description = gettext(lang, sub.description) if sub.description else sub.description
            for action in sub._actions:             # (the round's facts say theirs: context_args)
                if action.help and action.help != argparse.SUPPRESS:
                    action.help = gettext(lang, action.help).replace("%", "%%")
    return parser


def main(argv: Sequence[str] | None = None, extra: Iterable[ModuleType] = ()) -> int:
    """Run one command; ``extra``: command modules to register beside the built-in ones
    (``python -m webui`` passes its own)."""
    parser = build_parser(argv, extra)
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except InputError as exc:
        lang = command_language()
        print(f"hanafuda {args.command}: {gettext(lang, 'error')}: {sentence(lang, str(exc))}",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(gettext(command_language(), "interrupted"), file=sys.stderr)
        return 130
    except BrokenPipeError:     # `hanafuda rules | head`: the reader left, not an error
        sys.stdout = open(os.devnull, "w")
        return 0


if __name__ == "__main__":
    sys.exit(main())
