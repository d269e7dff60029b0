"""A game at the table, as one service: its piles, their fixes, confirming a round (which
teaches the game's deck), reopening one, the game's view, and the camera's frames read
with the game's deck.

    table = Table(GameStore(db), EnrolledDecks(DeckStore(db)), images)
    table.save_pile(game_id, 1, "Ann", ["08-1"], version=0)   # -> GameView
    table.confirm(game_id, 1, context) -> GameView (.round, .learned)
    table.reopen_round(game_id, 1) -> GameView
    table.detect(upload, deck="home") -> Report

Each call is one unit of work: one database connection for everything it reads and
writes (each write still its own transaction). ``images`` (``scorer.images.Images``) is
where image work runs: the web's scheduler for one client, or ``Inline``. The web
parses requests and answers with ``GameView.to_dict()``; nothing here knows HTTP.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from scorer.enrolled import PROFILE_PIXELS, EnrolledDecks
from scorer.images import Images, Inline
from scorer.rules import house_rules
from scorer.session import GameSession
from scorer.store import GameNotFound, GameRecord, GameStore, PileRecord, RoundRecord
from scorer.vision.image import Upload, decode
from scorer.vision.report import Report, detect_report


@dataclass(frozen=True)
class GameView:
    """A game as the page and the API show it, after a read or a write: the game's
    session, and what the write gave (the pile it saved; the round it confirmed or
    reopened, and what confirming taught the deck)."""

    session: GameSession
    pile: PileRecord | None = None
    round: RoundRecord | None = None
    learned: dict[str, Any] = field(default_factory=dict)

    @property
    def record(self) -> GameRecord:
        return self.session.record      # type: ignore[return-value]

    def to_dict(self, crops: bool = True) -> dict[str, Any]:
        """The game's JSON (card crops for the open round only, unless ``crops`` is
        False): the stored game, and what it means under its rules."""
        session, game = self.session, self.record
        open_round = session.open_round
        out = game.to_dict(crops)
        out["owners"] = session.owners
        out["finished"] = session.finished
        out["ruleset"] = {**session.ruleset.to_dict(), "house_rules": house_rules(session.ruleset)}
        out["round_word"] = session.variant.round_word
        out["context_fields"] = session.context_fields()
        out["context_defaults"] = session.context_defaults(open_round) if open_round else {}
        out["open_round"] = open_round
        out["dealer"] = session.dealer(open_round) if open_round else None
        out["standings"] = session.standings().to_dict()
        if game.deck and not game.deck_enrolled:
            out["deck_note"] = (f"deck {game.deck!r} is no longer enrolled: cards are read "
                                "without a deck profile")
        return out

    def answer(self) -> dict[str, Any]:
        """The API's answer to the write: ``{"pile", "game"}`` for a pile, ``{"round",
        "game", "learned"...}`` for a round, else the game."""
        if self.pile is not None:
            return {"pile": self.pile.to_dict(crops=False), "game": self.to_dict()}
        if self.round is not None:
            return {"round": self.round.to_dict(), "game": self.to_dict(), **self.learned}
        return self.to_dict()


class Table:
    """The games of one database played at the table (see the module)."""

    def __init__(self, games: GameStore, decks: EnrolledDecks,
                 images: Images | None = None) -> None:
        self.games = games
        self.decks = decks
        self.images: Images = images if images is not None else Inline()

    # ------------------------------------------------------------------ games
    def view(self, game_id: int) -> GameView:
        return GameView(GameSession(self.games.get_game(game_id)))

    def create(self, **setup: Any) -> GameView:
        """A new game (``GameStore.create_game``'s fields, parsed by the caller)."""
        return GameView(GameSession(self.games.create_game(**setup)))

    def update(self, game_id: int, changes: dict[str, Any]) -> GameView:
        """Change a game's ``deck`` and/or ``learn`` switch."""
        return GameView(GameSession(self.games.update_game(game_id, changes)))

    def delete(self, game_id: int) -> None:
        self.games.delete_game(game_id)

    # ------------------------------------------------------------------ piles
    def save_pile(self, game_id: int, number: int, owner: str, codes: Sequence[Any], *,
                  version: int | None, detected: Sequence[Any] = (),
                  source: str = "manual", crops: Any = None, fixes: Any = None,
                  words: str | None = None) -> GameView:
        """Save (or replace) one pile of the open round (``GameStore.save_pile``; ``fixes``:
        the [old, new] pairs fixed before saving, each logged as one replace; ``words``:
        how the page names cards, for a refusal)."""
        with self.games.db.connection():
            pile = self.games.save_pile(game_id, number, owner, codes, detected=detected,
                                        source=source, crops=crops, version=version,
                                        fixes=fixes, words=words)
            return GameView(GameSession(self.games.get_game(game_id)), pile=pile)

    def correct(self, game_id: int, number: int, owner: str, action: Any,
                old_code: Any = None, new_code: Any = None, *,
                version: int | None, words: str | None = None) -> GameView:
        """One hand correction to a saved pile of the open round, logged (``words`` as
        for ``save_pile``)."""
        with self.games.db.connection():
            pile = self.games.correct(game_id, number, owner, action, old_code, new_code,
                                      version=version, words=words)
            return GameView(GameSession(self.games.get_game(game_id)), pile=pile)

    # ----------------------------------------------------------------- rounds
    def confirm(self, game_id: int, number: int, context: Any = None) -> GameView:
        """Score and confirm the open round (a reopened one: it and the later rounds
        scored again), then teach the game's deck its crops (after the commit: learning
        never fails a confirmation) and build that deck's profile anew."""
        with self.games.db.connection():
            done = self.games.confirm_round(game_id, number, context)
            learned = self.decks.learn(done, self.images)
            session = done.session
            if done.game.learns:            # the round's learned count, unless deleted since
                try:
                    session = session.with_record(self.games.get_game(game_id))
                except GameNotFound:        # the round was committed: the answer says so
                    pass
        rnd = next(r for r in session.record.rounds if r.number == number)
        return GameView(session, round=rnd, learned=learned)   # type: ignore[arg-type]

    def reopen_round(self, game_id: int, number: int) -> GameView:
        """Reopen confirmed round ``number`` for fixes (a finished game is open again);
        the decks it taught forget what it taught until it is confirmed again."""
        with self.games.db.connection():
            game = self.games.reopen_round(game_id, number)
            self.decks.unlearn(game_id, number, self.images)
        rnd = next(r for r in game.rounds if r.number == number)
        return GameView(GameSession(game), round=rnd)

    # ----------------------------------------------------------------- frames
    def detect(self, upload: Upload, deck: str | None = None, crops: bool = False,
               weak: bool = False, follow: tuple[Any, Any] | None = None) -> Report:
        """The cards of one checked image (``scorer.vision.image.check``), read with deck
        ``deck``'s profile when given (kept until the deck changes; built as a job on
        ``images`` when it is not kept), decoded and detected as a job on ``images``;
        ``weak``: with the weak readings too (``detect_report``; the camera's frames);
        ``follow``: the page's tracks to follow instead of running the localiser
        (``scorer.vision.follow.parse_follow``'s quads and flags; ``detect_report``)."""
        det = self.images.detector()
        profile = None
        if deck:
            profile = self.decks.cached_profile(deck, det) or self.images.run(
                PROFILE_PIXELS, lambda: self.decks.build_profile(deck, det))
        side = det.useful_side
        return self.images.run(upload.cost(side), lambda: detect_report(
            det, decode(upload, side), profile, crops, weak, follow))
