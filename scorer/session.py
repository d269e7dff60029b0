"""A game in play: what a stored game means under its rules. Pure, no I/O.

    session = GameSession(record)          # a game as the store keeps it
    session.open_round, session.dealer(n), session.check_open(n), session.check_owner(o)
    context, result = session.score(round_record, raw_context)
    session.standings()

The record is read, never written: the store calls the session inside its transactions
and keeps what it answers. The rule set is resolved once per session, when scoring, the
standings or the view first need it; the open round, the dealer and the owners need no
rules at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Mapping, Protocol, Sequence

from scorer.errors import InputError, StateError
from scorer.game import GameSetup, Standings, owner_names, standings
from scorer.rules import (Variant, RoundInput, RoundResult, RuleSet, get_variant, get_ruleset,
                          score_round)


class PileLike(Protocol):
    @property
    def codes(self) -> Sequence[str]: ...


class RoundLike(Protocol):
    @property
    def number(self) -> int: ...
    @property
    def dealer(self) -> str: ...
    @property
    def piles(self) -> Mapping[str, PileLike]: ...
    @property
    def result(self) -> Mapping[str, Any] | None: ...
    @property
    def confirmed(self) -> bool: ...


class GameLike(Protocol):
    """What a session reads of a game: ``scorer.store.GameRecord`` is one."""

    @property
    def id(self) -> int: ...
    @property
    def preset(self) -> str: ...
    @property
    def options(self) -> Mapping[str, str]: ...
    @property
    def players(self) -> Sequence[str]: ...
    @property
    def teams(self) -> Sequence[Sequence[str]] | None: ...
    @property
    def first_dealer(self) -> str: ...
    @property
    def rounds_planned(self) -> int: ...
    @property
    def rounds(self) -> Sequence[RoundLike]: ...


@dataclass(frozen=True)
class Scored:
    """A round scored by a session: the round context to keep and the result."""

    context: dict[str, Any]
    result: RoundResult


@dataclass(frozen=True)
class Rescored:
    """A round after an earlier one was scored again: its new dealer and its new score
    (None for a round not confirmed yet: only its dealer changes)."""

    number: int
    dealer: str
    scored: Scored | None


class GameSession:
    """One game's state under its rules, from its record (see the module's docstring)."""

    def __init__(self, record: GameLike, ruleset: RuleSet | None = None) -> None:
        self.record = record
        self.owners: list[str] = owner_names(record.players, record.teams)
        self._played = [r for r in record.rounds if r.confirmed]
        if ruleset is not None:
            self.__dict__["ruleset"] = ruleset

    def with_record(self, record: GameLike) -> "GameSession":
        """The session of the same game read again (a round confirmed, a crop count
        kept): the rule set already resolved is kept, unless the rules changed."""
        same = (record.preset, dict(record.options)) == \
            (self.record.preset, dict(self.record.options))
        return GameSession(record, self.__dict__.get("ruleset") if same else None)

    # ------------------------------------------------------------ the rules
    @cached_property
    def ruleset(self) -> RuleSet:
        return get_ruleset(self.record.preset, overrides=self.record.options)

    @property
    def variant(self) -> Variant:
        return get_variant(self.ruleset.game)

    @cached_property
    def setup(self) -> GameSetup:
        r = self.record
        return GameSetup.stored(list(r.players), self.ruleset, r.first_dealer,
                                r.rounds_planned, [list(t) for t in r.teams] if r.teams
                                else None)

    # ---------------------------------------------------------- the rounds
    @property
    def played(self) -> int:
        """How many rounds are confirmed."""
        return len(self._played)

    @property
    def finished(self) -> bool:
        return self.played >= self.record.rounds_planned

    @property
    def open_round(self) -> int | None:
        """The number of the round being played (the first not confirmed: a reopened
        round comes before the rounds after it), or None once the game is finished."""
        if self.finished:
            return None
        done = {r.number for r in self._played}
        return next(n for n in range(1, self.record.rounds_planned + 1) if n not in done)

    def check_open(self, number: int) -> None:
        """StateError unless round ``number`` is the open round."""
        if any(r.number == number for r in self._played):
            raise StateError(f"round {number} is already confirmed (reopen it to fix it)")
        if self.finished:
            raise StateError(f"game {self.record.id} is finished "
                             f"({self.record.rounds_planned} rounds)")
        if number != self.open_round:
            raise StateError(f"round {number} is not open; the open round is "
                             f"{self.open_round}")

    def check_confirmed(self, number: int) -> None:
        """StateError unless round ``number`` is confirmed (what reopening needs)."""
        if not any(r.number == number for r in self._played):
            raise StateError(f"round {number} is not confirmed: there is nothing to reopen")

    def check_owner(self, owner: Any) -> str:
        """``owner`` if it owns a pile in this game, else InputError naming the owners."""
        if not isinstance(owner, str) or owner not in self.owners:
            raise InputError(f"owner must be one of: {', '.join(self.owners)} "
                             f"(not {str(owner)[:40]!r})")
        return owner

    def dealer(self, number: int) -> str:
        """Round 1: the first dealer; later: the previous round's next dealer."""
        previous = [r for r in self._played if r.number == number - 1]
        if previous and previous[0].result:
            return str(previous[0].result.get("next_dealer") or self.record.first_dealer)
        return self.record.first_dealer

    def missing_piles(self, rnd: RoundLike | None, raw_context: Any = None) -> list[str]:
        """The owners whose pile of the round is not saved yet (an owner the round's
        ``raw_context`` says has none, as a Hachi-Hachi player sitting out, needs none)."""
        free = self.variant.without_pile(raw_context) if isinstance(raw_context, Mapping) \
            else set()
        return [o for o in self.owners if (rnd is None or o not in rnd.piles)
                and o not in free]

    def score(self, rnd: RoundLike, raw_context: Any, dealer: str | None = None) -> Scored:
        """Score round ``rnd`` with the round context a caller sent (parsed by the game's
        ``Context``): what confirming the round keeps. ``dealer``: the round's dealer
        when it is not the one stored with it (a later round scored again)."""
        r = self.record
        if isinstance(raw_context, Mapping) or raw_context is None:
            defaults = self.context_defaults(rnd.number)
            raw_context = {**defaults, **{k: v for k, v in (raw_context or {}).items()
                                          if not (k in defaults and v in (None, ""))}}
        context = self.variant.context.parse(raw_context, list(r.players), self.ruleset.game)
        piles = {owner: list(pile.codes) for owner, pile in rnd.piles.items()}
        teams = [list(t) for t in r.teams] if r.teams else None
        result = score_round(RoundInput(list(r.players), piles, dealer or rnd.dealer, teams,
                                        context), self.ruleset)
        return Scored(context.to_dict(), result)

    def rescore_after(self, number: int, scored: Scored) -> list[Rescored]:
        """Round ``number`` scored again as ``scored`` (it was reopened): every later
        confirmed round scored again in turn, each dealt by the round before's new next
        dealer, with the context it was confirmed with; and the next round not confirmed
        yet, if one was started, with its new dealer only (its ``scored`` None)."""
        out: list[Rescored] = []
        dealer = scored.result.next_dealer
        for rnd in sorted(self.record.rounds, key=lambda r: r.number):
            if rnd.number <= number:
                continue
            if not rnd.confirmed:
                out.append(Rescored(rnd.number, dealer, None))
                break
            again = self.score(rnd, dict(getattr(rnd, "context", {}) or {}), dealer)
            out.append(Rescored(rnd.number, dealer, again))
            dealer = again.result.next_dealer
        return out

    @cached_property
    def _results(self) -> list[tuple[int, RoundResult]]:
        """Each confirmed round's stored result, parsed once: (its number, the result)."""
        return [(r.number, RoundResult.from_dict(dict(r.result))) for r in self._played
                if r.result]

    def results(self) -> list[RoundResult]:
        return [res for _, res in self._results]

    def standings(self) -> Standings:
        """Totals, running totals and the winner, from the results stored when each round
        was confirmed (so a game reads the same whatever later versions of the rules do)."""
        return standings(self.setup, self.results())

    def context_defaults(self, number: int) -> dict[str, Any]:
        """Context values round ``number`` takes from the rounds before it (Go-Stop's
        nagari carry), where the round's own context does not give them."""
        before = [res for n, res in self._results if n < number]
        return self.variant.context_from_log(before, self.ruleset)

    def context_fields(self) -> list[dict[str, Any]]:
        """The round context a confirm takes, under this game's rules (the page draws its
        form from it)."""
        return self.variant.context_schema(self.ruleset)

