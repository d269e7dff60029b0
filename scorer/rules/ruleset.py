"""Rule sets: a preset is a named set of option values over one engine per game.

``get_ruleset(name, overrides, rules_file)`` layers: the game's defaults, the preset's
values, a house-rules TOML file's ``[options]``, then ``overrides`` (``--set``).
The TOML loader is the only I/O in the rules core.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from scorer.errors import InputError
from scorer.rules.options import OPTIONS, POINTS_PREFIX, defaults, option_for

PLAYERS: dict[str, tuple[int, int]] = {"sakura": (2, 7), "koikoi": (2, 2),
                                       "hanaawase": (2, 4)}


@dataclass(frozen=True)
class Preset:
    name: str
    game: str
    description: str
    values: Mapping[str, Any] = field(default_factory=dict)


PRESETS: dict[str, Preset] = {p.name: p for p in (
    Preset("sakura", "sakura", "Hanafuda Hawaii: card points minus 50 per yaku held by "
           "each opponent; 4 rounds, cumulative (the default game)"),
    Preset("sakura-victories", "sakura", "Sakura counted in round victories "
           "(Paradise Factors): chu 2, basa 3",
           {"game_scoring": "victories", "chu_basa": "combined"}),
    Preset("koikoi", "koikoi", "Nintendo Koi-Koi: 10/8/7/5, +1 extras, exclusive groups, "
           "sake cup also chaff, viewing 5, x2 at 7+, x2 if the opponent called; 12 rounds"),
    Preset("koikoi-modern", "koikoi", "online/app table: goko 15, shiko 10, ame-shiko 8, "
           "sanko 6, akatan/aotan 6, yaku stack, no viewing yaku, no multipliers",
           {"point_table": "app", "set_yaku": "stack_flat", "sake_cup": "both",
            "viewing": "off", "double_at_seven": False, "koikoi_multiplier": "none"}),
    Preset("koikoi-classic", "koikoi", "Koi-Koi where every koi-koi call raises the "
           "multiplier by one (x2, x3, ...) for whoever stops",
           {"koikoi_multiplier": "per_call"}),
    Preset("hanaawase", "hanaawase", "Hana-Awase, card values 20/10/5/1 plus yaku "
           "(additive score); 12 rounds", {"settlement": "additive"}),
    Preset("hanaawase-zero-sum", "hanaawase", "Hana-Awase settled zero-sum against the "
           "par (264 / players)", {"settlement": "zero_sum"}),
)}

DEFAULT_PRESET = "sakura"


def yaku_names(game: str) -> tuple[str, ...]:
    """Names of the yaku a game's engine can find (for ``points.<yaku>`` overrides)."""
    if game == "koikoi":
        from scorer.rules.koikoi import YAKU_NAMES
        return YAKU_NAMES
    if game == "hanaawase":
        from scorer.rules.hanaawase import YAKU_NAMES
        return YAKU_NAMES
    return ()


class FrozenOptions(dict):
    """A read-only dict of option values: JSON-serialisable, hashable, picklable."""

    def _read_only(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("rule set options are read-only; use get_ruleset(..., overrides=...)")

    __setitem__ = __delitem__ = __ior__ = _read_only  # type: ignore[assignment]
    clear = pop = popitem = setdefault = update = _read_only  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenOptions, (dict(self),))

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted((k, repr(v)) for k, v in self.items())))


@dataclass(frozen=True)
class RuleSet:
    """A preset with its option values resolved. ``options`` is a read-only dict."""

    name: str
    game: str
    description: str
    options: Mapping[str, Any]
    changed: tuple[str, ...] = ()  # option keys that differ from the preset

    @property
    def default_rounds(self) -> int:
        return int(self.options["rounds"])

    @property
    def min_players(self) -> int:
        return PLAYERS[self.game][0]

    @property
    def max_players(self) -> int:
        return PLAYERS[self.game][1]

    def __getitem__(self, key: str) -> Any:
        return self.options[key]

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "game": self.game, "description": self.description,
                "options": dict(self.options), "changed": list(self.changed),
                "default_rounds": self.default_rounds, "min_players": self.min_players,
                "max_players": self.max_players}


def _preset(name: str) -> Preset:
    if not isinstance(name, str) or name.strip().lower() not in PRESETS:
        raise InputError(f"unknown rules preset {name!r} (presets: {', '.join(PRESETS)})")
    return PRESETS[name.strip().lower()]


def _apply(game: str, values: dict[str, Any], updates: Mapping[str, Any],
           where: str) -> None:
    names = yaku_names(game)
    for key, raw in updates.items():
        if not isinstance(key, str):
            raise InputError(f"{where}: option names must be text, not {key!r}")
        key = key.strip()
        values[key] = option_for(game, key, names).parse_value(raw)


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
    file_preset, file_options = (None, {})
    if rules_file is not None:
        file_preset, file_options = load_rules_file(rules_file)
    if name is not None and file_preset is not None and \
            _preset(name).name != _preset(file_preset).name:
        raise InputError(f"rules file presets {file_preset!r} but the rules asked for are "
                         f"{name!r}; give one of them")
    preset = _preset(name or file_preset or DEFAULT_PRESET)
    values = defaults(preset.game)
    values.update(preset.values)
    base = dict(values)
    if file_options:
        _apply(preset.game, values, file_options, f"rules file {str(rules_file)!r}")
    if overrides:
        _apply(preset.game, values, overrides, "--set")
    changed = tuple(k for k in values if k not in base or values[k] != base[k])
    return RuleSet(preset.name, preset.game, preset.description, FrozenOptions(values),
                   changed)


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


def option_rows(rs: RuleSet) -> list[dict[str, Any]]:
    """Each option of the rule set's game with its value here and its default."""
    rows = []
    for opt in OPTIONS[rs.game]:
        row = opt.to_dict()
        row["value"] = rs.options[opt.key]
        rows.append(row)
    for key in rs.options:
        if key.startswith(POINTS_PREFIX):
            rows.append({"key": key, "kind": "int", "default": None,
                         "help": "per-yaku point override", "source": "added",
                         "value": rs.options[key]})
    return rows
