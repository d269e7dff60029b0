"""A round's context: the facts beyond the piles that a game needs (who stopped a Koi-Koi
round, the cards left on the field...), typed per game and parsed once.

Each game declares a frozen dataclass derived from ``Context`` whose ``FIELDS`` describe
its fields; ``Context.parse(raw, players)`` checks a raw mapping (JSON, CLI flags) and
returns the typed value, and ``schema()`` is what the web page draws its form from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Mapping, Sequence, TypeVar, cast

from scorer.cards import card
from scorer.errors import InputError

#: The most koi-koi calls one player can make in a round (one per turn, 8 turns).
MAX_CALLS = 20

FIELD_KINDS = ("player", "count_per_player", "choice_per_player", "codes_per_player", "month",
               "codes", "choice", "count", "players")

C = TypeVar("C", bound="Context")


@dataclass(frozen=True)
class ContextField:
    """One field of a round context. ``kind`` is one of FIELD_KINDS:

    ``player`` a player's name or nobody; ``count_per_player`` {player: integer
    ``minimum``..``maximum``}; ``choice_per_player`` {player: one of ``choices``};
    ``codes_per_player`` {player: card codes} (a player's dealt hand);
    ``month`` 1..12 or none; ``codes`` card codes; ``choice`` one of ``choices`` or none;
    ``count`` one integer ``minimum``..``maximum`` (0 if not given); ``players`` player
    names in an order (each once).

    ``required``: the players must say it, even when the answer is nobody (who stopped:
    left unsaid it would score a draw nobody called); the page and ``hanafuda score``
    refuse a round without it (``Context.missing``). ``nobody``: how the page names the
    explicit none of a ``player`` field ("nobody (nagari)"); the value ``nobody`` (or
    null) says it. ``shown_with``: a per-player count field; the page shows this one,
    among the fields in view, once two players have a count there (the go order, once
    two players called go). ``photo``: the page offers to read the codes from a photo of
    the cards (the table cards at the deal, a dealt hand). ``place``: ``view`` or
    ``more`` where the page puts the field (default: by its kind). ``min_players``: the
    page shows the field only in a game of at least that many players. ``choice_labels``:
    how the page names each of ``choices`` (the same order; a teyaku by its Japanese name,
    its shape and its value). ``sits_out``: a ``players`` field of the players who sit the
    round out (any order): the page offers a box to tick for each player, and drops a
    ticked player's pile panel and his place in the other fields.
    """

    key: str
    kind: str
    label: str
    help: str = ""
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()
    required: bool = False
    nobody: str = ""
    shown_with: str = ""
    photo: bool = False
    place: str = ""
    min_players: int = 0
    choice_labels: tuple[str, ...] = ()
    sits_out: bool = False

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"key": self.key, "kind": self.kind, "label": self.label,
                               "help": self.help}
        if self.required:
            out["required"] = True
        if self.nobody:
            out["nobody"] = self.nobody
        if self.shown_with:
            out["shown_with"] = self.shown_with
        if self.photo:
            out["photo"] = True
        if self.place:
            out["place"] = self.place
        if self.min_players:
            out["min_players"] = self.min_players
        if self.minimum is not None:
            out["minimum"], out["maximum"] = self.minimum, self.maximum
        if self.choices:
            out["choices"] = list(self.choices)
        if self.choice_labels:
            out["choice_labels"] = list(self.choice_labels)
        if self.sits_out:
            out["sits_out"] = True
        return out


def reword(message: str, words: Mapping[str, str]) -> str:
    """An engine message with each context key it names (``stopped_by``, ``go_order``;
    ``goes`` in brackets) as the edge shows that field: a flag (``--stopped-by``) on the
    command line, a label on the page. Keys stay keys where no word is given."""
    def one(match: re.Match[str]) -> str:
        return words.get(match.group(0), match.group(0))
    keys = [k for k in words if "_" in k]
    out = re.sub(r"(?<![\w-])(" + "|".join(map(re.escape, keys)) + r")(?![\w-])", one,
                 message) if keys else message
    for k in (k for k in words if "_" not in k):      # a plain word only as "(key)"
        out = out.replace(f"({k})", f"({words[k]})")
    return out


def parse_name(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{what} must be a non-empty name, not {value!r}")
    return value.strip()


def parse_int(value: Any, what: str, lo: int, hi: int) -> int:
    """An integer lo..hi from an int or a short digit string."""
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit() \
            and len(value.strip()) < 6:
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise InputError(f"{what} must be an integer {lo}..{hi}, not {value!r}")
    return value


def parse_codes(value: Any, where: str) -> list[str]:
    """Codes from a list or a comma/space separated string, normalised to ``MM-K``."""
    if value is None:
        return []
    if isinstance(value, str):
        items: list[Any] = [v for v in value.replace(",", " ").split() if v]
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        raise InputError(f"{where}: expected a list of card codes, not {value!r}")
    out = []
    for item in items:
        try:
            out.append(card(item).code)
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None
    return out


#: The value that names nobody in a ``player`` field (unless a player has that name).
NOBODY = "nobody"


def is_nobody(value: Any, players: Sequence[str] | None) -> bool:
    return isinstance(value, str) and value.strip().lower() == NOBODY and \
        not (players and value.strip() in players)


def _player(value: Any, key: str, players: Sequence[str] | None) -> str:
    name = parse_name(value, key)
    if players is not None and name not in players:
        raise InputError(f"{key} {name!r} is not a player (players: {', '.join(players)})")
    return name


def _choice(value: Any, spec: ContextField, where: str = "") -> str:
    """``value`` as one of ``spec.choices``; InputError naming ``where`` (the key)."""
    choice = str(value).strip().lower()
    if choice not in spec.choices:
        raise InputError(f"{where or spec.key}: unknown {choice[:40]!r} (allowed: "
                         f"{', '.join(spec.choices)})")
    return choice


def _players(value: Any, key: str, players: Sequence[str] | None) -> tuple[str, ...]:
    items = [v for v in value.split(",") if v.strip()] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)):
        raise InputError(f"{key} must be a list of player names, not {value!r}")
    names = tuple(_player(v, key, players) for v in items)
    for i, name in enumerate(names):
        if name in names[:i]:
            raise InputError(f"{key} names {name!r} twice")
    return names


def _per_player(value: Any, spec: ContextField,
                players: Sequence[str] | None) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise InputError(f"{spec.key} must be an object mapping each player to a value")
    out: dict[str, Any] = {}
    for raw_name, raw in value.items():
        name = parse_name(raw_name, f"a {spec.key} player")
        if players is not None and name not in players:
            raise InputError(f"{spec.key} for unknown player {name!r} "
                             f"(players: {', '.join(players)})")
        if spec.kind == "count_per_player":
            lo, hi = spec.minimum or 0, spec.maximum or 0
            if isinstance(raw, str) and raw.strip().isascii() and raw.strip().isdigit() \
                    and len(raw.strip()) < 6:
                raw = int(raw.strip())
            if isinstance(raw, bool) or not isinstance(raw, int) or not lo <= raw <= hi:
                raise InputError(f"{spec.key} for {name} must be a whole number from "
                                 f"{lo} to {hi}, not {raw!r}")
            out[name] = raw
            continue
        if spec.kind == "codes_per_player":
            codes = parse_codes(raw, f"{spec.key} for {name}")
            if codes:
                out[name] = tuple(codes)
            continue
        if raw is None or not str(raw).strip():
            continue                       # no choice for this player
        out[name] = _choice(raw, spec, f"{spec.key} for {name}")
    return out


@dataclass(frozen=True)
class Context:
    """The base of every game's round context (a game with none keeps it as is)."""

    FIELDS: ClassVar[tuple[ContextField, ...]] = ()

    @classmethod
    def parse(cls: type[C], raw: Mapping[str, Any] | Context | None,
              players: Sequence[str] | None = None, game: str = "") -> C:
        """The typed context from a raw mapping; InputError for an unknown key or a bad
        value. ``players`` (None: a pile on its own) checks the names given."""
        if raw is None:
            raw = {}
        if isinstance(raw, Context):
            return cast(C, raw)     # already parsed
        if not isinstance(raw, Mapping):
            raise InputError("the round context must be an object")
        specs = {f.key: f for f in cls.FIELDS}
        for key in raw:
            if key not in specs:
                allowed = ", ".join(specs) or "none"
                raise InputError(f"unknown context key {str(key)[:40]!r} of a round"
                                 + (f" of {game}" if game else "")
                                 + f" (allowed: {allowed})")
        values: dict[str, Any] = {}
        for key, spec in specs.items():
            value = raw.get(key)
            values[key] = cls.parse_field(spec, value, players)
        return cls(**values)

    @classmethod
    def parse_field(cls, spec: ContextField, value: Any,
                    players: Sequence[str] | None) -> Any:
        """One field's typed value (a game may override it for one of its fields)."""
        empty = value is None or value == "" or value == [] or value == {}
        if spec.kind == "codes":
            return tuple(parse_codes(value, spec.key))
        if spec.kind == "month":
            return None if empty else parse_int(value, spec.key, 1, 12)
        if spec.kind == "player":
            return None if empty or is_nobody(value, players) else \
                _player(value, spec.key, players)
        if spec.kind == "choice":
            return None if empty else _choice(value, spec)
        if spec.kind == "count":
            return 0 if empty else parse_int(value, spec.key, spec.minimum or 0,
                                             spec.maximum or 0)
        if spec.kind == "players":
            return () if empty else _players(value, spec.key, players)
        per = {} if empty else _per_player(value, spec, players)
        if spec.kind == "count_per_player" and players is not None:
            per = {p: per.get(p, 0) for p in players}
        return per

    @classmethod
    def missing(cls, raw: Mapping[str, Any]) -> list[ContextField]:
        """The required fields that ``raw`` does not give (a key given as null or
        ``nobody`` is given); a game may drop one that another key makes needless."""
        return [f for f in cls.FIELDS if f.required and f.key not in raw]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = list(value) if isinstance(value, tuple) else (
                {k: list(v) if isinstance(v, tuple) else v for k, v in value.items()}
                if isinstance(value, dict) else value)
        return out

    @classmethod
    def schema(cls) -> list[dict[str, Any]]:
        return [f.to_dict() for f in cls.FIELDS]
