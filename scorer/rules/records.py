"""Plain records the engine takes and returns. Every record has ``to_dict()`` (JSON-ready)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from scorer.rules.context import Context


def number_text(n: int) -> str:
    """A whole number as the explanations write it: a negative with the minus sign
    (U+2212), as the page writes scores (``−15``, not ``-15``)."""
    return f"\u2212{-n}" if n < 0 else str(n)


@dataclass(frozen=True)
class YakuHit:
    """One yaku found in a pile.

    ``points`` is what the yaku is worth under the rule set (Sakura: what each opponent
    loses; Koi-Koi: its base points including any +1 extras; Hana-Awase: its points).
    ``cards`` are the codes that form it (for +1 yaku, every card counted).
    """

    name: str
    points: int
    cards: tuple[str, ...]
    label: str

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "points": self.points, "cards": list(self.cards),
                "label": self.label}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "YakuHit":
        return cls(d["name"], int(d["points"]), tuple(d.get("cards", ())), d.get("label", ""))


@dataclass(frozen=True)
class PileSummary:
    """What one pile is worth on its own: card points and the yaku it forms.

    ``total`` is the pile's headline number: Sakura the card points; Koi-Koi the sum of
    the yaku (before multipliers); Hana-Awase card points plus yaku (the additive score).
    """

    card_points: int
    yaku: list[YakuHit]
    total: int = 0
    game: str = ""
    notes: tuple[str, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)  # a game's own keys (counts)

    @property
    def yaku_points(self) -> int:
        return sum(y.points for y in self.yaku)

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, "card_points": self.card_points,
                "yaku": [y.to_dict() for y in self.yaku],
                "yaku_points": self.yaku_points, "total": self.total,
                "notes": list(self.notes), **self.extra}


@dataclass
class RoundInput:
    """One round to score.

    ``players`` is the turn order (the dealer plays first; Sakura plays counter-clockwise,
    so the next in the list sits on the dealer's right). ``piles`` maps a player - or, with
    teams, a team name (members joined by "+") or any member - to the codes captured.
    ``context``: the round's facts beyond the piles, as a mapping or already parsed; each
    game's ``Context`` lists its keys (Koi-Koi ``stopped_by``, ``koikoi_calls``, ``month``,
    ``teyaku``; Sakura ``leftovers``, ``gaji_month``; every game ``leftovers``).
    """

    players: list[str]
    piles: dict[str, list[str]]
    dealer: str | None = None
    teams: list[list[str]] | None = None
    context: Mapping[str, Any] | Context = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        context = self.context.to_dict() if isinstance(self.context, Context) else \
            dict(self.context)
        return {"players": list(self.players),
                "piles": {k: list(v) for k, v in self.piles.items()},
                "dealer": self.dealer,
                "teams": [list(t) for t in self.teams] if self.teams else None,
                "context": context}


@dataclass
class PlayerResult:
    """One owner's (a player's or a team's) result in a round.

    ``score = card_points + bonus - penalty`` (Sakura, additive Hana-Awase), or
    ``base yaku points x multiplier`` for the Koi-Koi stopper (0 for everyone else);
    zero-sum Hana-Awase also subtracts the par (see ``explanation``). Go-Stop:
    ``card_points`` the base points the pile forms, ``penalty`` what a loser pays
    (``score = -penalty``), and ``details`` the table's line (``gostop.scoring.details``).
    """

    owner: str                 # who owns the pile: a player, or a team ("A+C")
    card_points: int
    yaku: list[YakuHit]
    penalty: int
    multiplier: int
    score: int
    explanation: str
    members: tuple[str, ...] = ()
    cards: tuple[str, ...] = ()
    details: Mapping[str, Any] = field(default_factory=dict)   # a game's own (Go-Stop's table)

    @property
    def yaku_points(self) -> int:
        return sum(y.points for y in self.yaku)

    def to_dict(self) -> dict[str, Any]:
        out = {"owner": self.owner, "members": list(self.members),
               "cards": list(self.cards), "card_points": self.card_points,
               "yaku": [y.to_dict() for y in self.yaku], "yaku_points": self.yaku_points,
               "penalty": self.penalty, "multiplier": self.multiplier,
               "score": self.score, "explanation": self.explanation}
        if self.details:
            out["details"] = dict(self.details)
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "PlayerResult":
        # rounds stored before the pile's owner had one name keep it under "player"
        return cls(d["owner"] if "owner" in d else d["player"], int(d["card_points"]),
                   [YakuHit.from_dict(y) for y in d.get("yaku", [])], int(d["penalty"]),
                   int(d["multiplier"]), int(d["score"]), d.get("explanation", ""),
                   tuple(d.get("members", ())), tuple(d.get("cards", ())),
                   dict(d.get("details") or {}))


@dataclass
class RoundResult:
    """A scored round. ``results`` is keyed by player, or by team name with teams.

    ``winner`` is None for a drawn round (Koi-Koi exhaustive draw, a shared tie, a void
    Hana-Awase round). ``next_dealer`` is always a player. ``award`` is the round's
    victory count for victory-count Sakura: {"winners": [...], "victories": n,
    "kind": "plain"|"chu"|"basa", "shira": bool, "margin": int}.
    """

    results: dict[str, PlayerResult]
    winner: str | None
    next_dealer: str
    explanation: list[str]
    ruleset: str = ""
    game: str = ""
    dealer: str = ""
    award: dict[str, Any] | None = None
    tied: list[str] = field(default_factory=list)

    @property
    def scores(self) -> dict[str, int]:
        return {k: r.score for k, r in self.results.items()}

    def to_dict(self) -> dict[str, Any]:
        return {"rules": self.ruleset, "game": self.game, "dealer": self.dealer,
                "results": {k: r.to_dict() for k, r in self.results.items()},
                "scores": self.scores, "winner": self.winner, "tied": list(self.tied),
                "next_dealer": self.next_dealer, "award": self.award,
                "explanation": list(self.explanation)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "RoundResult":
        """Rebuild a result saved with ``to_dict()`` (e.g. by the store) for ``standings``."""
        return cls({k: PlayerResult.from_dict(v) for k, v in d["results"].items()},
                   d.get("winner"), d["next_dealer"], list(d.get("explanation", [])),
                   d.get("rules", ""), d.get("game", ""), d.get("dealer", ""),
                   d.get("award"), list(d.get("tied", [])))
