"""`hanafuda score`'s round-context options, drawn from every game's ``Context.schema()``
(the page draws its form from the same schema), so a new context field is declared once,
in its game's ``FIELDS``.

Each field key gives one option, ``--`` and the key with dashes (``stopped_by`` ->
``--stopped-by``); its command-line shape follows the field's kind:

* a kind ending in ``_per_player`` (a value per player, e.g. ``{"B": 1}``):
  ``--opt NAME=VALUE``, repeatable, one player each;
* ``player``: ``--opt NAME`` (repeated, every name is passed on and the game judges);
* any other kind (``month``, ``codes``...): ``--opt VALUE``, the last one given counts.

Values stay text: the game's ``Context.parse`` checks and types them, as for JSON.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from scorer.i18n import command_language, gettext, sentence
from scorer.errors import InputError
from scorer.rules import VARIANTS, list_presets

METAVARS = {"player": "NAME", "players": "NAME,NAME...", "month": "M", "count": "N",
            "codes": "CODE,CODE..."}


@dataclass(frozen=True)
class ContextOption:
    """One context field as a command-line option, with the games that have it."""

    field: dict[str, Any]          # the field's schema entry (the first game's)
    games: tuple[str, ...]         # titles of the games whose context has the key

    @property
    def key(self) -> str:
        return str(self.field["key"])

    @property
    def flag(self) -> str:
        return "--" + self.key.replace("_", "-")

    @property
    def dest(self) -> str:
        return "context_" + self.key

    @property
    def per_player(self) -> bool:
        return str(self.field["kind"]).endswith("_per_player")

    @property
    def metavar(self) -> str:
        if self.per_player:
            return "NAME=N" if "minimum" in self.field else "NAME=VALUE"
        return METAVARS.get(str(self.field["kind"]), "VALUE")

    @property
    def help(self) -> str:
        """The games, the label and help of the schema, and the values allowed, in the
        shell's language (the values as they are typed)."""
        lang = command_language()
        text = ", ".join(sentence(lang, g) for g in self.games) + ": " + sentence(lang, self.field["label"])
        if self.field.get("help"):
            text += f" — {sentence(lang, self.field['help'])}"
        if "minimum" in self.field:
            text += f"; {self.field['minimum']}-{self.field['maximum']}"
        if self.field.get("choices"):
            text += "; " + gettext(lang, "one of %(values)s", values=", ".join(self.field["choices"]))
        if self.per_player:
            text += "; " + gettext(lang, "repeatable, one player each")
        return text


def context_options() -> list[ContextOption]:
    """Every context field of every game, once per key, in the games' order (a help
    text that differs between the games sharing a key is left out)."""
    fields: dict[str, dict[str, Any]] = {}
    games: dict[str, list[str]] = {}
    for game in VARIANTS.values():
        for entry in game.context.schema():
            first = fields.setdefault(entry["key"], dict(entry))
            if first.get("help") != entry.get("help"):
                first["help"] = ""
            games.setdefault(entry["key"], []).append(game.title)
    return [ContextOption(entry, tuple(games[key])) for key, entry in fields.items()]


def add_context_args(parser: argparse.ArgumentParser) -> None:
    for opt in context_options():
        parser.add_argument(opt.flag, dest=opt.dest, action="append", default=[],
                            metavar=opt.metavar, help=opt.help)


def flag_words() -> dict[str, str]:
    """Every context key -> its flag, to reword the engine's messages (``reword``)."""
    return {opt.key: opt.flag for opt in context_options()}


def check_flags_fit(args: argparse.Namespace, game: str, rules: str) -> None:
    """A context flag the chosen game does not take is refused naming the flag and the
    rules that do take it (``--stopped-by`` without ``--rules gostop``)."""
    own = {f["key"] for f in VARIANTS[game].context.schema()}
    for opt in context_options():
        if getattr(args, opt.dest, []) and opt.key not in own:
            presets = [rs.name for rs in list_presets() if VARIANTS[rs.game].title in opt.games]
            raise InputError(f"{opt.flag} is for {' and '.join(opt.games)}, not the rules "
                             f"{rules}: give --rules {', '.join(presets[:-1])} or "
                             f"{presets[-1]}" if len(presets) > 1 else
                             f"{opt.flag} is for {opt.games[0]}, not the rules {rules}: give "
                             f"--rules {presets[0]}")


def context_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The raw context given by the options (only the fields given)."""
    context: dict[str, Any] = {}
    for opt in context_options():
        given: list[str] = getattr(args, opt.dest, [])
        if not given:
            continue
        if opt.per_player:
            context[opt.key] = pairs(given, opt.flag)
        elif opt.field["kind"] == "player":
            context[opt.key] = given if len(given) > 1 else given[0]
        else:
            context[opt.key] = given[-1]
    return context


def pairs(items: list[str], flag: str) -> dict[str, str]:
    """``NAME=VALUE`` items as a mapping; InputError for a malformed or repeated name."""
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise InputError(f"{flag} expects NAME=VALUE, got {item!r}")
        if name.strip() in out:
            raise InputError(f"{flag} given twice for {name.strip()!r}")
        out[name.strip()] = value.strip()
    return out
