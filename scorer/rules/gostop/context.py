"""Go-Stop's round facts (RULES-gostop.md section 5): who stopped, the go calls, shakes,
bombs, the nagari carry, the sake cup's declared role and the bonus junk."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from scorer.rules.context import MAX_CALLS, Context, ContextField
from scorer.rules.gostop.cards import ROLES

OUTCOMES = ("stop", "nagari", "instant")


@dataclass(frozen=True)
class GostopContext(Context):
    """Go-Stop's round facts (RULES-gostop.md section 5)."""

    stopped_by: str | None = None
    outcome: str | None = None
    goes: dict[str, int] = field(default_factory=dict)
    go_order: tuple[str, ...] = ()
    shakes: dict[str, int] = field(default_factory=dict)
    bombs: dict[str, int] = field(default_factory=dict)
    nagari: int = 0
    sake_cup: dict[str, str] = field(default_factory=dict)
    bonus_junk: dict[str, int] = field(default_factory=dict)

    FIELDS = (
        ContextField("stopped_by", "player", "Who stopped?",
                     "the player who called stop (or won at once); nobody: a nagari",
                     required=True, nobody="nobody (nagari)"),
        ContextField("outcome", "choice", "Outcome",
                     "stop, nagari (a draw: nobody stopped) or instant (chongtong, three "
                     "ppeok); default: stop when someone stopped, else nagari; chongtong "
                     "and three_ppeok also mean instant, draw nagari",
                     choices=OUTCOMES),
        ContextField("goes", "count_per_player", "Go calls",
                     "how many times each player called go", 0, MAX_CALLS),
        ContextField("go_order", "players", "Go order",
                     "the players in the order they first called go (for go-bak)",
                     shown_with="goes"),
        ContextField("shakes", "count_per_player", "Shakes",
                     "triplets the winner showed from his hand", 0, 4),
        ContextField("bombs", "count_per_player", "Bombs",
                     "bombs the winner threw", 0, 4),
        ContextField("nagari", "count", "Draws before",
                     "how many nagari (draws) came just before this round", 0, 48),
        ContextField("sake_cup", "choice_per_player", "Sake cup",
                     "what the owner declared the sake cup 09-1 to be (default: the "
                     "scorekeeper's best reading); the old names pi and ssangpi mean "
                     "junk, locked means animal", choices=ROLES),
        ContextField("bonus_junk", "count_per_player",
                     "Bonus junk (joker cards: the camera does not read them)",
                     "the junk value of the bonus cards in each pile (2 or 3 each)", 0, 99),
    )

    @classmethod
    def missing(cls, raw: Mapping[str, Any]) -> list[ContextField]:
        """Who stopped, unless the outcome is given (a nagari needs nobody named)."""
        return [f for f in super().missing(raw) if not (f.key == "stopped_by"
                                                        and raw.get("outcome"))]

    @classmethod
    def parse_field(cls, spec: ContextField, value: Any,
                    players: Sequence[str] | None) -> Any:
        """Reads the old names of the sake cup's role (pi, ssangpi, locked) and the
        outcome's synonyms (chongtong, three_ppeok, draw) before the common parse."""
        if spec.key == "sake_cup" and isinstance(value, Mapping):
            old = {"pi": "junk", "ssangpi": "junk", "locked": "animal"}
            value = {p: old.get(str(v).strip().lower(), v) for p, v in value.items()}
        if spec.key == "outcome" and isinstance(value, str):
            value = {"chongtong": "instant", "three_ppeok": "instant", "draw": "nagari"}.get(
                value.strip().lower(), value)
        return super().parse_field(spec, value, players)


def outcome(ctx: GostopContext) -> str:
    """How the round ended: the context's outcome, else stop when someone stopped, else
    nagari."""
    return ctx.outcome or ("stop" if ctx.stopped_by else "nagari")
