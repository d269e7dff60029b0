"""``RuleSet``: a preset with its option values resolved (``scorer.rules.presets`` builds
them). A leaf module: every part of the engine may import it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping


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
    min_players: int = 2
    max_players: int = 2
    title: str = ""               # what people read: "고스톱 Go-Stop (3 players)"

    @property
    def default_rounds(self) -> int:
        return int(self.options["rounds"])

    def __getitem__(self, key: str) -> Any:
        return self.options[key]

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "game": self.game, "description": self.description,
                "options": dict(self.options), "changed": list(self.changed),
                "default_rounds": self.default_rounds, "min_players": self.min_players,
                "max_players": self.max_players, "title": self.title or self.name}
