"""A Hachi-Hachi month's facts beyond the captured piles: who sat out, the field (chosen,
or read from the table cards at the deal, or carried from the month before), each
player's dealt hand or declared teyaku, who ended the month with a dekiyaku, mizuten and
the shikō hatto."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Sequence

from scorer.errors import InputError
from scorer.rules.context import Context, ContextField
from scorer.rules.hachihachi.cards import (CHAFF_TEYAKU, NUKE_KAN, NUKE_YAKU, SET_TEYAKU,
                                           TEYAKU_BY_NAME)
from scorer.rules.ruleset import RuleSet
from scorer.rules.yaku import enabled, points

FIELDS_ORDER = ("small", "big", "grand")


def teyaku_label(name: str, rs: RuleSet | None = None) -> str:
    """A teyaku as the players call it: its Japanese name first, then its reading, its
    shape and its value on a small field (under the house rules ``rs``): ``短一 Tan-ichi:
    one ribbon, six chaff · 3 kan (+1 over 88)``."""
    t = TEYAKU_BY_NAME[name]
    roman, rest = t.label.split(" ", 1)
    kanji, shape = rest.split(" ", 1)
    kan = t.kan if rs is None else points(t.as_yaku(), rs, t.kan)
    if name == "aka" and rs is not None and rs["aka_ribbons"] == "exactly_two":
        shape = "two ribbons, five chaff"
    nuke = f" (+{NUKE_KAN} over 88)" if name in NUKE_YAKU and \
        (rs is None or rs["nuke_yaku"]) else ""
    return f"{kanji} {roman}: {shape.strip('()')} · {kan} kan{nuke}"


def schema_for(rs: RuleSet) -> list[dict[str, Any]]:
    """The month form's fields under the house rules ``rs``: each teyaku offered with its
    value there, a teyaku switched off not offered."""
    out = []
    for f in HachihachiContext.schema():
        if f["key"] in ("teyaku_sets", "teyaku_chaff"):
            names = [n for n in f["choices"]
                     if enabled(TEYAKU_BY_NAME[n].as_yaku(), rs)]
            f = {**f, "choices": names,
                 "choice_labels": [teyaku_label(n, rs) for n in names]}
        out.append(f)
    return out


@dataclass(frozen=True)
class HachihachiContext(Context):
    """A Hachi-Hachi month's facts (docs/RULES-hachihachi.md section 6)."""

    sitting_out: tuple[str, ...] = ()
    field: str | None = None
    field_cards: tuple[str, ...] = ()
    carried_field: str | None = None
    dealt_hands: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    teyaku_sets: dict[str, str] = dataclasses.field(default_factory=dict)
    teyaku_chaff: dict[str, str] = dataclasses.field(default_factory=dict)
    stopped_by: str | None = None
    sage_by: str | None = None
    mizuten: bool = False
    hatto: str | None = None

    FIELDS = (
        ContextField("sitting_out", "players", "Sitting out",
                     "with 4 or more at the table: who sits this month out (3 play); "
                     "their piles need not be saved", place="view", min_players=4,
                     sits_out=True),
        ContextField("field", "choice", "Field",
                     "small ×1, big ×2 (crane, curtain or moon on the table at the deal), "
                     "grand ×4 (rain man or phoenix); default: read from the table cards",
                     choices=FIELDS_ORDER),
        ContextField("field_cards", "codes", "Table cards at the deal",
                     "the six cards dealt face up: their lights decide the field",
                     photo=True, place="view"),
        ContextField("carried_field", "choice", "Field carried from last month",
                     "a second light at last month's deal carries its field to this month",
                     choices=FIELDS_ORDER[1:], place="more"),
        ContextField("dealt_hands", "codes_per_player", "Dealt hand",
                     "the seven cards a player was dealt: his teyaku are read from them",
                     photo=True, place="view"),
        ContextField("teyaku_sets", "choice_per_player", "Teyaku (sets)",
                     "a set-based dealt-hand yaku the player showed", choices=SET_TEYAKU,
                     choice_labels=tuple(teyaku_label(t) for t in SET_TEYAKU)),
        ContextField("teyaku_chaff", "choice_per_player", "Teyaku (chaff)",
                     "a chaff-based dealt-hand yaku the player showed",
                     choices=CHAFF_TEYAKU,
                     choice_labels=tuple(teyaku_label(t) for t in CHAFF_TEYAKU)),
        ContextField("stopped_by", "player", "Ended by a dekiyaku",
                     "who made a dekiyaku and ended the month (shōbu); nobody: the month "
                     "was played out", nobody="nobody (played out)"),
        ContextField("sage_by", "player", "Called sage",
                     "who made a dekiyaku and played on (sage): another's dekiyaku then "
                     "voids his and he pays it alone; played out, dekiyaku pay half",
                     place="more"),
        ContextField("mizuten", "choice", "Mizuten",
                     "yes: the dealer played blind, and each player sitting out pays him",
                     choices=("yes", "no"), place="more"),
        ContextField("hatto", "player", "Shikō hatto",
                     "who threw the forbidden fourth bright that completed another's "
                     "shikō: he pays the whole shikō alone", place="more"),
    )

    @classmethod
    def parse_field(cls, spec: ContextField, value: Any,
                    players: Sequence[str] | None) -> Any:
        """Mizuten as yes/no (true/false accepted); the rest as every game's."""
        if spec.key == "mizuten":
            if isinstance(value, bool):
                return value
            if value is None or value == "":
                return False
            text = str(value).strip().lower()
            if text in ("yes", "true", "on", "1"):
                return True
            if text in ("no", "false", "off", "0"):
                return False
            raise InputError(f"mizuten: yes or no, not {str(value)[:40]!r}")
        return super().parse_field(spec, value, players)
