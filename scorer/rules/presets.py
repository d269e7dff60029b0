"""Presets and resolving rule sets: a preset (each game lists its own) is a named set of option values.

``get_ruleset(name, overrides, rules_file)`` layers: the game's defaults, the preset's
values, a house-rules TOML file's ``[options]``, then ``overrides`` (``--set``).
The TOML loader is the only I/O in the rules core.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Mapping

from scorer import hwatu
from scorer.errors import InputError
from scorer.rules.base import Variant, Preset
from scorer.rules.ruleset import FrozenOptions, RuleSet
from scorer.rules import wording
from scorer.rules.options import Option, defaults, option_for
from scorer.rules.registry import VARIANTS, get_variant
from scorer.rules.yaku import POINTS_PREFIX, SWITCH_PREFIX

PRESETS: dict[str, Preset] = {p.name: p for game in VARIANTS.values() for p in game.presets}
DEFAULT_PRESET = "sakura"


def preset_title(name: str, game_title: str, low: int, high: int) -> str:
    """What a person reads for a preset: ``고스톱 Go-Stop (3 players)``, ``Koi-Koi
    (modern)``, ``Hana-Awase (zero sum)`` (the key stays the preset's name)."""
    if name in hwatu.PRESETS:
        return hwatu.PRESETS[name].text + (f" ({low} players)" if low == high
                                           else f" ({low}-{high} players)")
    game = game_title.lower().replace("-", "")
    rest = name.removeprefix(game).strip("-").replace("-", " ")
    return game_title + (f" ({rest})" if rest else "")


def yaku_names(game: str) -> tuple[str, ...]:
    """Names of the yaku a game can find (for ``points.<yaku>`` and ``yaku.<yaku>``)."""
    return tuple(y.name for y in get_variant(game).yaku)


def _preset(name: str) -> Preset:
    if not isinstance(name, str) or name.strip().lower() not in PRESETS:
        raise InputError(f"unknown rules preset {name!r} (presets: {', '.join(PRESETS)})")
    return PRESETS[name.strip().lower()]


def _apply(game: Variant, values: dict[str, Any], updates: Mapping[str, Any],
           where: str) -> None:
    names = yaku_names(game.name)
    for key, raw in updates.items():
        if not isinstance(key, str):
            raise InputError(f"{where}: option names must be text, not {key!r}")
        key = key.strip()
        for new_key, new_raw in _unalias(game, key, raw):
            option = option_for(game.name, game.options, new_key, names)
            values[new_key] = option.parse_value(new_raw)


def _unalias(game: Variant, key: str, raw: Any) -> list[tuple[str, Any]]:
    """An old option key (or key=value) as the new settings it stands for."""
    for alias in game.aliases:
        if alias.key == key:
            expanded = alias.expand(raw)
            if expanded is not None:
                return expanded
    return [(key, raw)]


def load_rules_file(path: str | Path) -> tuple[str | None, dict[str, Any]]:
    """Read a house-rules TOML file: ``preset = "koikoi"`` and an ``[options]`` table.

    Returns (preset or None, raw option values). InputError for a missing or bad file.
    """
    path = Path(path)
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise InputError(f"rules file {str(path)!r} not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read rules file {str(path)!r}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"rules file {str(path)!r} is not valid TOML: {exc}") from None
    allowed = {"preset", "options", "description"}
    for key in data:
        if key not in allowed:
            raise InputError(f"rules file {str(path)!r}: unknown key {key!r} "
                             f"(allowed: preset, options, description)")
    preset = data.get("preset")
    if preset is not None and not isinstance(preset, str):
        raise InputError(f"rules file {str(path)!r}: preset must be a name like \"koikoi\"")
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise InputError(f"rules file {str(path)!r}: [options] must be a table")
    return preset, dict(options)


def get_ruleset(name: str | None = None, overrides: Mapping[str, Any] | None = None,
                rules_file: str | Path | None = None) -> RuleSet:
    """Resolve a rule set: preset ``name`` (or the file's ``preset``, else ``sakura``),
    then the file's options, then ``overrides``. InputError names any bad key or value."""
    file_preset: str | None = None
    file_options: dict[str, Any] = {}
    if rules_file is not None:
        file_preset, file_options = load_rules_file(rules_file)
    if name is not None and file_preset is not None and \
            _preset(name).name != _preset(file_preset).name:
        raise InputError(f"rules file presets {file_preset!r} but the rules asked for are "
                         f"{name!r}; give one of them")
    preset = _preset(name or file_preset or DEFAULT_PRESET)
    game = get_variant(preset.game)
    values = defaults(game.options)
    values.update(preset.values)
    base = dict(values)
    if file_options:
        _apply(game, values, file_options, f"rules file {str(rules_file)!r}")
    if overrides:
        _apply(game, values, overrides, "--set")
    changed = tuple(k for k in values if k not in base or values[k] != base[k])
    low, high = preset.players or (game.min_players, game.max_players)
    return RuleSet(preset.name, preset.game, preset.description, FrozenOptions(values),
                   changed, low, high, preset_title(preset.name, game.title, low, high))


def list_presets() -> list[RuleSet]:
    """Every shipped preset, resolved, in a stable order."""
    return [get_ruleset(name) for name in PRESETS]


def parse_set_args(items: list[str] | None) -> dict[str, str]:
    """``["KEY=VALUE", ...]`` from ``--set`` into a dict; InputError for a missing ``=``."""
    out: dict[str, str] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--set expects KEY=VALUE, got {item!r}")
        out[key.strip()] = value.strip()
    return out


def _option(rs: RuleSet, key: str) -> Option:
    variant = get_variant(rs.game)
    return option_for(rs.game, variant.options, key, yaku_names(rs.game))


def option_rows(rs: RuleSet) -> list[dict[str, Any]]:
    """Each option of the rule set's game with its value here, its default, the group
    the page folds it in, and what a player reads (``scorer.rules.wording``): the
    ``sentence`` at its value, the ``template`` with ``{}`` for a number, the
    ``sentences`` of a choice's or switch's values and their ``words`` alone."""
    rows = []
    variant = get_variant(rs.game)
    for opt in variant.options:
        rows.append({**opt.to_dict(), "value": rs.options[opt.key],
                     "group": variant.option_groups.get(opt.key, "House rules"),
                     **_words(rs, opt)})
    declared = {opt.key for opt in variant.options}    # a game may declare a switch itself
    for key in rs.options:
        if key.startswith((POINTS_PREFIX, SWITCH_PREFIX)) and key not in declared:
            what = "points" if key.startswith(POINTS_PREFIX) else "on or off"
            rows.append({"key": key, "kind": "int" if what == "points" else "bool",
                         "default": None, "help": f"one yaku's {what}", "source": "added",
                         "value": rs.options[key], **_words(rs, _option(rs, key))})
    return rows


def _words(rs: RuleSet, opt: Option) -> dict[str, Any]:
    # the template and the tooltip's help name the cards as the sentence does (issue 66:
    # the willow ribbon's tooltip said 11-3 beside its sentence's 12-3)
    out: dict[str, Any] = {"sentence": wording.sentence(rs.game, opt, rs.options[opt.key]),
                           "template": wording.shown(rs.game, wording.template(rs.game, opt)),
                           "help": wording.shown(rs.game, opt.help)}
    if opt.kind != "int":
        out["sentences"] = wording.sentences(rs.game, opt)
        out["words"] = wording.words(rs.game, opt)
    return out


def house_rules(rs: RuleSet) -> list[str]:
    """The options the rule set changes from its preset, each as a player reads it."""
    return [wording.sentence(rs.game, _option(rs, key), rs.options[key]) for key in rs.changed]
