"""What every game's engine provides (the ``Game`` protocol), and the records it is built
from: ``Preset`` (a named set of option values) and ``RuleSet`` (a preset resolved).

A game is one module with one ``Game`` object; ``scorer.rules.registry.GAMES`` lists
them (as python-chess lists its variants). Nothing here imports a game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Protocol

from scorer.rules.context import Context
from scorer.rules.options import Alias, Option
from scorer.rules.records import PileSummary, RoundResult
from scorer.rules.yaku import Yaku

if TYPE_CHECKING:
    from scorer.rules.validate import CheckedRound

#: The most rounds a game can have (every game's ``rounds`` option, GameSetup, the web).
MAX_ROUNDS = 48


@dataclass(frozen=True)
class Preset:
    """A named set of option values over one game (RULES.md 6.1)."""

    name: str
    game: str
    description: str
    values: Mapping[str, Any] = field(default_factory=dict)


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

    @property
    def default_rounds(self) -> int:
        return int(self.options["rounds"])

    def __getitem__(self, key: str) -> Any:
        return self.options[key]

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "game": self.game, "description": self.description,
                "options": dict(self.options), "changed": list(self.changed),
                "default_rounds": self.default_rounds, "min_players": self.min_players,
                "max_players": self.max_players}


class Game(Protocol):
    """One game's engine. ``BaseGame`` gives the defaults a game may keep."""

    name: str                      # the key of GAMES and of RuleSet.game
    title: str                     # shown to people
    min_players: int
    max_players: int
    teams: bool                    # may players play in teams?
    options: tuple[Option, ...]
    aliases: tuple[Alias, ...]     # old option names and values still accepted
    presets: tuple[Preset, ...]
    yaku: tuple[Yaku, ...]
    context: type[Context]         # the typed round context and its field schema
    multiplies: bool               # does a round score carry a multiplier (Koi-Koi)?

    def card_values(self, rs: RuleSet) -> dict[str, int]:
        """Each card's point value (the deck's total is their sum)."""

    def find_yaku(self, codes: Iterable[str], rs: RuleSet,
                  context: Context) -> PileSummary:
        """The card points and yaku of one pile on its own (codes already checked)."""

    def check_round(self, rnd: CheckedRound, rs: RuleSet) -> None:
        """Game-specific checks of a round, after the common ones (InputError)."""

    def score_round(self, rnd: CheckedRound, rs: RuleSet) -> RoundResult:
        """Score a checked round."""

    def separate_team_piles(self, rs: RuleSet) -> bool:
        """Do partners keep one pile each (rather than one per team)?"""

    def counts_victories(self, rs: RuleSet) -> bool:
        """Is the game won on round victories (rather than points)?"""

    def dealer_breaks_game_ties(self, rs: RuleSet) -> bool:
        """Does a tie for first place in the game go to the side nearest the dealer?"""

    def total_text(self, summary: PileSummary) -> str:
        """One line that says what a pile's ``total`` is."""


class BaseGame:
    """Defaults for the optional parts of ``Game``: no teams, no extra checks, won on
    points, ties shared, no multipliers."""

    teams = False
    aliases: tuple[Alias, ...] = ()
    multiplies = False

    def check_round(self, rnd: CheckedRound, rs: RuleSet) -> None:
        return None

    def separate_team_piles(self, rs: RuleSet) -> bool:
        return False

    def counts_victories(self, rs: RuleSet) -> bool:
        return False

    def dealer_breaks_game_ties(self, rs: RuleSet) -> bool:
        return False

    def total_text(self, summary: PileSummary) -> str:
        return (f"card points {summary.card_points} + yaku {summary.yaku_points} = "
                f"{summary.total}")
