"""What every game's engine provides (the ``Variant`` protocol, with ``BaseVariant`` defaults),
and ``Preset``, a named set of option values over one game.

A game is one module with one ``Variant`` object; ``scorer.rules.registry.VARIANTS`` lists
them (as python-chess lists its variants). Nothing here imports a game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Protocol, Sequence

from scorer.rules.context import Context
from scorer.rules.options import Alias, Option
from scorer.rules.records import PileSummary, RoundResult
from scorer.rules.ruleset import RuleSet
from scorer.rules.sides import CheckedRound
from scorer.rules.yaku import Yaku

#: The most rounds a game can have (every game's ``rounds`` option, GameSetup, the web).
MAX_ROUNDS = 48


@dataclass(frozen=True)
class Preset:
    """A named set of option values over one game (RULES.md 6.1)."""

    name: str
    game: str
    description: str
    values: Mapping[str, Any] = field(default_factory=dict)
    players: tuple[int, int] | None = None   # (min, max) where narrower than the game's


class Variant(Protocol):
    """One game's engine. ``BaseVariant`` gives the defaults a game may keep."""

    name: str                      # the key of VARIANTS and of RuleSet.game
    title: str                     # shown to people
    min_players: int
    max_players: int
    teams: bool                    # may players play in teams?
    options: tuple[Option, ...]
    aliases: tuple[Alias, ...]     # old option names and values still accepted
    presets: tuple[Preset, ...]
    yaku: tuple[Yaku, ...]
    multiplies: bool               # does a round score carry a multiplier (Koi-Koi)?
    option_groups: Mapping[str, str]   # option key -> the group the page folds it in
    round_word: str                # what the players call a round (Hachi-Hachi: "month")

    @property
    def context(self) -> type[Context]:
        """The typed round context and its field schema (a game's own Context class)."""

    def card_values(self, rs: RuleSet) -> dict[str, int]:
        """Each card's point value (the deck's total is their sum)."""

    def find_yaku(self, codes: Iterable[str], rs: RuleSet,
                  context: Context) -> PileSummary:
        """The card points and yaku of one pile on its own (codes already checked)."""

    def check_round(self, rnd: CheckedRound, rs: RuleSet) -> None:
        """Variant-specific checks of a round, after the common ones (InputError)."""

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

    def context_from_log(self, results: Sequence[RoundResult],
                         rs: RuleSet) -> dict[str, Any]:
        """Context values the next round takes from the rounds before it (a default
        where the round does not give them), e.g. Go-Stop's nagari carry."""

    def without_pile(self, raw_context: Mapping[str, Any]) -> set[str]:
        """The players a round's raw context says have no pile to save (Hachi-Hachi's
        players sitting the month out)."""

    def context_schema(self, rs: RuleSet) -> list[dict[str, Any]]:
        """The round context's fields as the page draws them under the game's rules (a
        choice named with its value under the house rules)."""


class BaseVariant:
    """Defaults for the optional parts of ``Variant``: no teams, no extra checks, won on
    points, ties shared, no multipliers, a round called a round."""

    teams = False
    context: type[Context]           # each game's own (a class attribute there)
    aliases: tuple[Alias, ...] = ()
    multiplies = False
    option_groups: Mapping[str, str] = {}
    round_word = "round"

    def check_round(self, rnd: CheckedRound, rs: RuleSet) -> None:
        return None

    def separate_team_piles(self, rs: RuleSet) -> bool:
        return False

    def counts_victories(self, rs: RuleSet) -> bool:
        return False

    def dealer_breaks_game_ties(self, rs: RuleSet) -> bool:
        return False

    def context_from_log(self, results: Sequence[RoundResult],
                         rs: RuleSet) -> dict[str, Any]:
        return {}

    def without_pile(self, raw_context: Mapping[str, Any]) -> set[str]:
        return set()

    def context_schema(self, rs: RuleSet) -> list[dict[str, Any]]:
        return self.context.schema()

    def total_text(self, summary: PileSummary) -> str:
        return (f"card points {summary.card_points} + yaku {summary.yaku_points} = "
                f"{summary.total}")
