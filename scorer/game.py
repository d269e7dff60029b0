"""A game: players (or teams), a rule set, the first dealer and a number of rounds; the
standings after every round and the final winner. Pure functions, no I/O.

    setup = GameSetup(["A", "B"], get_ruleset("sakura"), first_dealer="A")
    st = standings(setup, [round_result_1, round_result_2, ...])
    st.totals, st.running, st.victories, st.winner, st.finished
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from scorer.errors import InputError
from scorer.rules.base import MAX_ROUNDS
from scorer.rules.ruleset import RuleSet
from scorer.rules.records import RoundResult
from scorer.rules.registry import get_variant
from scorer.rules.validate import check_player_count, parse_teams, player_name, player_names


def owner_names(players: Sequence[str], teams: Sequence[Sequence[str]] | None) -> list[str]:
    """The owners of a game's piles and scores: its teams (members joined by "+") when it
    is played in teams, else its players, in turn order."""
    if teams:
        return ["+".join(t) for t in teams]
    return list(players)


@dataclass
class GameSetup:
    """Who plays, under which rules. ``rounds`` defaults to the rule set's ``rounds``.

    Constructing one checks it (InputError); ``GameSetup.parse`` also reads the raw
    values a user sent (names to tidy, rounds as given); ``GameSetup.stored`` rebuilds
    one that was checked before it was stored, without checking it again."""

    players: list[str]
    ruleset: RuleSet
    first_dealer: str | None = None
    rounds: int | None = None
    teams: list[list[str]] | None = None

    def __post_init__(self) -> None:
        rs = self.ruleset
        players = player_names(self.players or [])
        check_player_count(len(players), rs)
        self.players = players
        game = get_variant(rs.game)
        self.teams = [list(t) for t in parse_teams(self.teams, players, rs, game)] or None
        if self.first_dealer in (None, ""):
            self.first_dealer = players[0]
        if self.first_dealer not in players:
            raise InputError(f"first dealer {str(self.first_dealer)[:40]!r} is not a player "
                             f"(players: {', '.join(players)})")
        if self.rounds is None:
            self.rounds = rs.default_rounds
        if isinstance(self.rounds, bool) or not isinstance(self.rounds, int) or \
                not 1 <= self.rounds <= MAX_ROUNDS:
            shown = str(self.rounds)[:20]
            raise InputError(f"rounds must be a whole number from 1 to {MAX_ROUNDS}, "
                             f"not {shown}")

    @classmethod
    def parse(cls, players: Any, ruleset: RuleSet, first_dealer: Any = None,
              rounds: Any = None, teams: Any = None) -> "GameSetup":
        """A checked setup from raw values (JSON, the command line): the one place a
        game's players, teams, first dealer and rounds are validated."""
        if teams not in (None, [], "") and (
                not isinstance(teams, list) or
                not all(isinstance(t, (list, str)) and t for t in teams)):
            raise InputError("teams must be a list of lists of player names")
        names = player_names(players)
        if isinstance(teams, list):
            teams = [[player_name(p) for p in team] if isinstance(team, list) else team
                     for team in teams]
        return cls(names, ruleset, first_dealer or None, rounds, teams or None)

    @classmethod
    def stored(cls, players: list[str], ruleset: RuleSet, first_dealer: str, rounds: int,
               teams: list[list[str]] | None = None) -> "GameSetup":
        """A setup read back from the store: it was checked when the game was created, so
        it is not checked again (a game's every view and round rebuilds it)."""
        setup = object.__new__(cls)        # not __init__: that runs __post_init__'s checks
        setup.players, setup.ruleset = list(players), ruleset
        setup.first_dealer, setup.rounds = first_dealer, rounds
        setup.teams = [list(t) for t in teams] if teams else None
        return setup

    @property
    def owners(self) -> list[str]:
        """Who owns a pile and a score, in turn order (see ``owner_names``)."""
        return owner_names(self.players, self.teams)

    def to_dict(self) -> dict[str, Any]:
        return {"players": list(self.players), "rules": self.ruleset.to_dict(),
                "first_dealer": self.first_dealer, "rounds": self.rounds,
                "teams": self.teams}


@dataclass
class Standings:
    """``totals``: points per owner; ``running``: the totals after each round;
    ``victories``: round victories (victory-count Sakura only, else None); ``winner``
    once the game is finished (None for a shared tie, see ``tied``)."""

    totals: dict[str, int]
    running: list[dict[str, int]]
    victories: dict[str, int] | None
    winner: str | None
    finished: bool
    leader: str | None = None
    tied: list[str] = field(default_factory=list)
    next_dealer: str | None = None
    rounds_played: int = 0
    rounds: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"totals": dict(self.totals), "running": [dict(r) for r in self.running],
                "victories": dict(self.victories) if self.victories is not None else None,
                "winner": self.winner, "finished": self.finished, "leader": self.leader,
                "tied": list(self.tied), "next_dealer": self.next_dealer,
                "rounds_played": self.rounds_played, "rounds": self.rounds}


def standings(setup: GameSetup, results: Sequence[RoundResult]) -> Standings:
    """Totals after every round, and the winner once all rounds are played.

    Ranking: a game won on victories (Sakura ``game_scoring=victories``) ranks by
    victories, then points; otherwise by points. A tie for first goes to the tied owner
    nearest the player who would deal next where the game says so (Sakura
    ``tie_policy=dealer_wins``); otherwise it stays shared.
    """
    rs = setup.ruleset
    game = get_variant(rs.game)
    owners = setup.owners
    if len(results) > (setup.rounds or 0):
        raise InputError(f"{len(results)} rounds given for a {setup.rounds}-round game")
    totals = {s: 0 for s in owners}
    counting = game.counts_victories(rs)
    wins: dict[str, int] | None = {s: 0 for s in owners} if counting else None
    running: list[dict[str, int]] = []
    for number, res in enumerate(results, 1):
        if set(res.results) != set(owners):
            raise InputError(f"round {number} scores {', '.join(res.results)}, but this "
                             f"game is played by {', '.join(owners)}")
        for owner in owners:
            totals[owner] += res.results[owner].score
        if wins is not None:
            award = res.award or {}
            for winner in award.get("winners", []):
                wins[winner] += int(award.get("victories", 1))
        running.append(dict(totals))
    next_dealer = results[-1].next_dealer if results else setup.first_dealer
    finished = len(results) >= (setup.rounds or 0)

    def key(owner: str) -> tuple[int, int]:
        return ((wins[owner] if wins is not None else 0), totals[owner])

    leader, tied = None, []
    if results:
        best = max(key(s) for s in owners)
        top = [s for s in owners if key(s) == best]
        if len(top) == 1:
            leader = top[0]
        else:
            tied = top
            if game.dealer_breaks_game_ties(rs):
                order = setup.players
                start = order.index(next_dealer) if next_dealer in order else 0
                for player in order[start:] + order[:start]:
                    owner = next(s for s in owners if player in s.split("+"))
                    if owner in top:
                        leader = owner
                        break
    return Standings(totals, running, wins, leader if finished else None, finished,
                     leader, tied, next_dealer, len(results), setup.rounds or 0)
