"""Options as data: key, kind, allowed values with their meaning, default, and source.
Each game declares its own (every disputed point of RULES.md section 5, with its
default marked there, plus the variants of sections 1-3) in its module.

``parse_value`` turns text (``--set KEY=VALUE``) or a TOML value into the typed value, or
raises InputError naming the key and listing what is allowed. Old value names stay
accepted (``renamed``), and so do old keys (``Alias``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scorer.errors import InputError
from scorer.rules.yaku import POINTS_PREFIX, SWITCH_PREFIX

_TRUE = {"true", "on", "yes", "1"}
_FALSE = {"false", "off", "no", "0"}


@dataclass(frozen=True)
class Option:
    key: str
    kind: str  # "choice" | "int" | "bool"
    default: Any
    help: str
    source: str = ""
    choices: tuple[tuple[Any, str], ...] = ()  # (value, meaning) for "choice"
    minimum: int | None = None
    maximum: int | None = None
    renamed: tuple[tuple[Any, Any], ...] = ()  # (old value name, value) still accepted

    @property
    def allowed(self) -> list[Any]:
        if self.kind == "choice":
            return [v for v, _ in self.choices]
        if self.kind == "bool":
            return [True, False]
        return []

    def allowed_text(self) -> str:
        if self.kind == "choice":
            old = ", ".join(str(o) for o, _ in self.renamed)
            return ", ".join(str(v) for v in self.allowed) + (f" (old names: {old})"
                                                              if old else "")
        if self.kind == "bool":
            return "true, false"
        lo = "" if self.minimum is None else str(self.minimum)
        hi = "" if self.maximum is None else str(self.maximum)
        return f"an integer {lo}..{hi}".rstrip(".") if lo or hi else "an integer"

    def parse_value(self, value: Any) -> Any:
        """The typed value for text or a TOML/JSON value; InputError if not allowed."""
        bad = InputError(f"option {self.key}: bad value {value!r} "
                         f"(allowed: {self.allowed_text()})")
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
                return value.strip().lower() in _TRUE
            if isinstance(value, int) and value in (0, 1):
                return bool(value)
            raise bad
        if self.kind == "int":
            number = _as_int(value)
            if number is None:
                raise bad
            if (self.minimum is not None and number < self.minimum) or \
                    (self.maximum is not None and number > self.maximum):
                raise bad
            return number
        # choice: values may be ints or strings; old names map to their new value
        for old, new in self.renamed:
            if str(value).strip().lower() == str(old).lower():
                return new
        for allowed in self.allowed:
            if isinstance(allowed, int) and not isinstance(allowed, bool):
                if _as_int(value) == allowed:
                    return allowed
            elif isinstance(value, str) and value.strip().lower() == allowed:
                return allowed
        raise bad

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"key": self.key, "kind": self.kind, "default": self.default,
                               "help": self.help, "source": self.source}
        if self.kind == "choice":
            out["allowed"] = self.allowed
            out["meanings"] = {str(v): m for v, m in self.choices}
            if self.renamed:
                out["renamed"] = {str(o): v for o, v in self.renamed}
        elif self.kind == "bool":
            out["allowed"] = [True, False]
        else:
            out["minimum"], out["maximum"] = self.minimum, self.maximum
        return out


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip()
        if text.lstrip("+-").isascii() and text.lstrip("+-").isdigit() and len(text) < 12:
            return int(text)
    return None


def choice(key: str, default: Any, help: str, source: str, *choices: tuple[Any, str],
           renamed: tuple[tuple[Any, Any], ...] = ()) -> Option:
    """A choice among named values; ``renamed`` pairs (old name, value) still accepted."""
    if default not in [v for v, _ in choices]:
        raise ValueError(f"option {key}: default {default!r} is not a choice")
    return Option(key, "choice", default, help, source, tuple(choices), renamed=renamed)


def integer(key: str, default: int, help: str, source: str, lo: int, hi: int) -> Option:
    return Option(key, "int", default, help, source, minimum=lo, maximum=hi)


def boolean(key: str, default: bool, help: str, source: str) -> Option:
    return Option(key, "bool", default, help, source)


@dataclass(frozen=True)
class Alias:
    """An old option key still accepted. Without ``value`` the given value goes to each
    of ``keys``; with ``value`` only that (text) value is meant, and it sets ``sets``."""

    key: str
    keys: tuple[str, ...] = ()
    value: str | None = None
    sets: tuple[tuple[str, Any], ...] = ()

    def describe(self) -> str:
        if self.value is None:
            return f"{self.key}=X sets {' and '.join(f'{k}=X' for k in self.keys)}"
        return f"{self.key}={self.value} sets " + " and ".join(
            f"{k}={v}" for k, v in self.sets)

    def expand(self, raw: Any) -> list[tuple[str, Any]] | None:
        """The (key, value) pairs the old setting stands for, or None if it does not
        apply to this value."""
        if self.value is None:
            return [(k, raw) for k in self.keys]
        if isinstance(raw, str) and raw.strip().lower() == self.value:
            return list(self.sets)
        return None


def option_for(game: str, options: tuple[Option, ...], key: str,
               yaku_names: tuple[str, ...] = ()) -> Option:
    """The option ``key`` of a game (``points.<yaku>`` and ``yaku.<yaku>`` included);
    InputError naming the key and listing the keys."""
    for opt in options:
        if opt.key == key:
            return opt
    for prefix in (POINTS_PREFIX, SWITCH_PREFIX):
        if key.startswith(prefix) and yaku_names:
            name = key[len(prefix):]
            if name not in yaku_names:
                raise InputError(f"unknown yaku {name!r} in option {key!r} for {game} "
                                 f"(yaku: {', '.join(yaku_names)})")
            if prefix == POINTS_PREFIX:
                return integer(key, 0, f"points of the yaku {name}", "added", 0, 100000)
            return boolean(key, True, f"the yaku {name} is played (off: never found)",
                           "added")
    known = [o.key for o in options]
    if yaku_names:
        known += [POINTS_PREFIX + "<yaku>", SWITCH_PREFIX + "<yaku>"]
    raise InputError(f"unknown option {key!r} for {game} (options: {', '.join(known)})")


def defaults(options: tuple[Option, ...]) -> dict[str, Any]:
    return {opt.key: opt.default for opt in options}
