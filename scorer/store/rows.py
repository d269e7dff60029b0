"""The rows the store reads and writes, as plain records (JSON-ready through ``to_dict``)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scorer.rules.records import RoundResult
    from scorer.session import GameSession


@dataclass(frozen=True)
class PileRecord:
    owner: str                 # a player, or a team ("A+B"): see scorer.game.owner_names
    codes: list[str]           # the pile as it stands now
    detected: list[str]        # what the camera (or photo) found when the pile was saved
    source: str                # "camera" | "photo" | "manual"
    updated_at: str
    crops: dict[str, str] = field(default_factory=dict)   # code -> JPEG data URL
    version: int = 1           # each write adds one; a write names the one it replaces

    def to_dict(self, crops: bool = True) -> dict[str, Any]:
        out = asdict(self)
        if not crops:
            out.pop("crops")
        return out


@dataclass(frozen=True)
class CorrectionRecord:
    id: int
    round_number: int
    owner: str
    action: str                # "add" | "remove" | "replace" | "reopen" | "rescore"
    old_code: str | None
    new_code: str | None
    created_at: str
    before: dict[str, Any] | None = None   # reopen, rescore: the round's result before
    after: dict[str, Any] | None = None    # rescore: its result after

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class RoundRecord:
    number: int                # 1-based
    dealer: str
    piles: dict[str, PileRecord]
    context: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] | None = None      # RoundResult.to_dict() once confirmed
    confirmed_at: str | None = None
    learned: int | None = None     # card crops this round taught the game's deck

    @property
    def confirmed(self) -> bool:
        return self.confirmed_at is not None

    def to_dict(self, crops: bool = True) -> dict[str, Any]:
        return {
            "number": self.number, "dealer": self.dealer, "confirmed": self.confirmed,
            "confirmed_at": self.confirmed_at, "context": self.context,
            "piles": {owner: pile.to_dict(crops) for owner, pile in self.piles.items()},
            "result": self.result, "learned": self.learned,
        }


@dataclass(frozen=True)
class GameSummary:
    id: int
    created_at: str
    preset: str
    players: list[str]
    rounds_planned: int
    rounds_confirmed: int
    finished: bool

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class GameRecord:
    id: int
    created_at: str
    preset: str
    options: dict[str, str]
    players: list[str]         # turn order
    teams: list[list[str]] | None
    first_dealer: str
    rounds_planned: int
    rounds: list[RoundRecord]
    corrections: list[CorrectionRecord]
    deck: str | None = None    # the enrolled deck the cards are read with (by name)
    learn: bool = True         # confirmed rounds add their card crops to that deck
    deck_enrolled: bool = False   # whether that deck is still enrolled (it may be deleted)
    #: what the last confirmation changed when it confirmed a reopened round again:
    #: {"round": N, "corrections": [ids of its "rescore" entries]}; None after any other
    rescored: dict[str, Any] | None = None

    @property
    def learns(self) -> bool:
        """Whether a confirmed round teaches a deck (learning needs one)."""
        return bool(self.deck) and self.learn

    @property
    def confirmed_rounds(self) -> list[RoundRecord]:
        return [r for r in self.rounds if r.confirmed]

    def setup_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "created_at": self.created_at, "preset": self.preset,
            "options": self.options, "players": self.players, "teams": self.teams,
            "first_dealer": self.first_dealer,
            "rounds_planned": self.rounds_planned, "deck": self.deck, "learn": self.learn,
            "deck_enrolled": self.deck_enrolled,
        }

    def to_dict(self, crops: bool = True) -> dict[str, Any]:
        """Card crops are included for the open round only (unless ``crops`` is False)."""
        return {
            **self.setup_dict(),
            "rounds": [r.to_dict(crops and not r.confirmed) for r in self.rounds],
            "corrections": [c.to_dict() for c in self.corrections],
            "rescored": self.rescored,
        }


@dataclass(frozen=True)
class Confirmation:
    """What confirming a round gives back: the round, its result, the updated game and
    its session (the rule set it resolved kept)."""

    round: RoundRecord
    result: RoundResult
    game: GameRecord
    session: GameSession
