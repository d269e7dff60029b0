"""`hanafuda rules [PRESET]`: the presets and every option with its default, allowed values
and meaning. Also the shared ``--rules/--set/--rules-file`` arguments of yaku and score."""

from __future__ import annotations

import argparse
import json
import textwrap
from typing import Any

from scorer.i18n import command_language, gettext
from scorer.rules import (VARIANTS, PRESETS, RuleSet, get_variant, get_ruleset, list_presets,
                          option_rows, parse_set_args)
from scorer.rules.presets import yaku_names
from scorer.rules.yaku import POINTS_PREFIX, SWITCH_PREFIX

RULES_FILE_HELP = ('house rules in TOML: preset = "koikoi" and an [options] table, e.g. '
                   '[options] viewing = "off"')


def add_rules_args(parser: argparse.ArgumentParser, required: bool = False) -> None:
    """Add --rules, --set and --rules-file to a command."""
    parser.add_argument("--rules", metavar="PRESET", default=None,
                        help=gettext(command_language(), "rules preset: %(presets)s (default: the "
                                     "rules file's preset, else sakura)", presets=", ".join(PRESETS)))
    parser.add_argument("--set", metavar="KEY=VALUE", action="append", default=[],
                        dest="set_options",
                        help="change one option of the preset (repeatable); "
                             "`hanafuda rules PRESET` lists the keys and values")
    parser.add_argument("--rules-file", metavar="FILE", default=None, help=RULES_FILE_HELP)


def ruleset_from_args(args: argparse.Namespace, name: str | None = None,
                      extra: dict[str, Any] | None = None) -> RuleSet:
    """The rule set from --rules / --rules-file / --set (``name``/``extra`` are defaults
    from a round file, overridden by the command line)."""
    overrides: dict[str, Any] = dict(extra or {})
    overrides.update(parse_set_args(getattr(args, "set_options", None)))
    return get_ruleset(getattr(args, "rules", None) or name, overrides=overrides,
                       rules_file=getattr(args, "rules_file", None))


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "rules", help="list the rules presets and their options",
        description="List the rules presets, or one preset's options with their values, "
                    "defaults, allowed values and meanings.",
        epilog='House rules: a TOML file with preset = "sakura" and an [options] table, '
               'passed as --rules-file to yaku/score; options also change one at a time '
               'with --set KEY=VALUE. Every game also takes points.<yaku>=N to change '
               'one yaku\'s points (a yaku at 0 is still listed and still keeps a lower '
               'yaku of its group out) and yaku.<yaku>=off to drop one yaku.',
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("preset", nargs="?", metavar="PRESET",
                        help="show this preset's options (default: list every preset and "
                             "every option)")
    add_rules_args(parser)
    parser.add_argument("--json", action="store_true", help="print JSON for machines")
    parser.set_defaults(func=_run)


def _wrap(text: str, indent: int, width: int = 92) -> str:
    return textwrap.fill(text, width, initial_indent=" " * indent,
                         subsequent_indent=" " * indent)


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _option_lines(rows: list[dict[str, Any]], with_value: bool) -> list[str]:
    out = []
    for row in rows:
        head = f"  {row['key']}"
        if with_value:
            mark = "" if row.get("default") is None or row["value"] == row["default"] \
                else f"  (default {_show(row['default'])})"
            head += f" = {_show(row['value'])}{mark}"
        else:
            head += f"  (default {_show(row['default'])})"
        out.append(head)
        out.append(_wrap(f"{row['help']} [{row.get('source', '')}]", 6))
        if "meanings" in row:
            for v, meaning in row["meanings"].items():
                out.append(_wrap(f"{v}: {meaning}", 8))
            if row.get("renamed"):
                old = ", ".join(f"{o} = {_show(v)}" for o, v in row["renamed"].items())
                out.append(_wrap(f"(old names still accepted: {old})", 8))
        elif row["kind"] == "bool":
            out.append("        true | false")
        elif row.get("minimum") is not None:
            out.append(f"        integer {row['minimum']}..{row['maximum']}")
    return out


def _run(args: argparse.Namespace) -> int:
    if args.preset or args.rules or args.rules_file or args.set_options:
        rs = ruleset_from_args(args, name=args.preset)
        rows = option_rows(rs)
        if args.json:
            print(json.dumps({"preset": rs.to_dict(), "options": rows,
                              "yaku": list(yaku_names(rs.game))}, ensure_ascii=False,
                             indent=2))
            return 0
        lines = [f"{rs.name} ({rs.game}, {rs.min_players}-{rs.max_players} players, "
                 f"{rs.default_rounds} rounds)", _wrap(rs.description, 2), "",
                 "options:"] + _option_lines(rows, True)
        aliases = get_variant(rs.game).aliases
        if aliases:
            lines += ["", _wrap("old options still accepted: "
                                + "; ".join(a.describe() for a in aliases), 2)]
        lines += ["", _wrap(f"{POINTS_PREFIX}<yaku>=N changes one yaku's points, "
                            f"{SWITCH_PREFIX}<yaku>=off drops it; yaku: "
                            f"{', '.join(yaku_names(rs.game))}", 2)]
        print("\n".join(lines))
        return 0
    presets = list_presets()
    if args.json:
        print(json.dumps({"presets": [p.to_dict() for p in presets],
                          "options": {name: [o.to_dict() for o in game.options]
                                      for name, game in VARIANTS.items()}},
                         ensure_ascii=False, indent=2))
        return 0
    lines = ["presets:"]
    width = max(len(p.name) for p in presets)
    for p in presets:
        changed = ", ".join(f"{k}={_show(v)}" for k, v in PRESETS[p.name].values.items())
        lines.append(f"  {p.name:<{width}}  {p.game:<9} {p.min_players}-{p.max_players} "
                     f"players  {p.default_rounds} rounds")
        lines.append(_wrap(p.description + (f" [{changed}]" if changed else ""), 4))
    for name, game in VARIANTS.items():
        lines += ["", f"{name} options (default values):"]
        lines += _option_lines([o.to_dict() for o in game.options], False)
    lines += ["", f"Every game also takes {POINTS_PREFIX}<yaku>=N and {SWITCH_PREFIX}<yaku>=off; "
                  "`hanafuda rules PRESET` shows one preset and its yaku."]
    print("\n".join(lines))
    return 0
