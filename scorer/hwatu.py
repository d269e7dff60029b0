"""Hwatu (Korean hanafuda) words, in one table: the month names, the card roles, the round
form's labels, the baks and the presets, each in Korean with its romanisation, and the
hwatu month order, in which **paulownia is 11 and rain (willow) is 12**.

Card codes stay in the Japanese order inside (``MM-K``, 11 willow, 12 paulownia; see
shared/DESIGN.md): this table only changes what a Korean-deck game shows. Go-Stop and
Matgo are such games (``is_hwatu``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scorer.cards import DECK, LIGHTNING, RAIN_MAN, SAKE_CUP, YELLOW_CHAFF, Kind, card


@dataclass(frozen=True)
class Word:
    """A Korean word and its romanisation (Revised Romanization, as players write it)."""

    korean: str
    roman: str

    @property
    def text(self) -> str:
        """``흑싸리 heukssari``: what the page and the command line show."""
        return f"{self.korean} {self.roman}"

    def to_dict(self) -> dict[str, str]:
        return {"korean": self.korean, "roman": self.roman, "text": self.text}


#: Month names by the card code's month (Japanese order: 11 willow, 12 paulownia).
MONTHS: dict[int, Word] = {
    1: Word("송학", "songhak"), 2: Word("매조", "maejo"), 3: Word("벚꽃", "beotkkot"),
    4: Word("흑싸리", "heukssari"), 5: Word("난초", "nancho"), 6: Word("모란", "moran"),
    7: Word("홍싸리", "hongssari"), 8: Word("공산", "gongsan"), 9: Word("국진", "gukjin"),
    10: Word("단풍", "danpung"), 11: Word("비", "bi"), 12: Word("오동", "odong"),
}

#: The month's number as a hwatu player counts it: paulownia 11, rain 12.
HWATU_NUMBER: dict[int, int] = {**{m: m for m in range(1, 11)}, 11: 12, 12: 11}

#: The code months in the order a hwatu player lays them out (1..10, paulownia, rain).
HWATU_ORDER: tuple[int, ...] = tuple(sorted(MONTHS, key=HWATU_NUMBER.__getitem__))

#: The card roles (what Go-Stop counts them as).
ROLES: dict[str, Word] = {
    "gwang": Word("광", "gwang"), "yeol": Word("열끗", "yeolkkeut"),
    "tti": Word("띠", "tti"), "pi": Word("피", "pi"), "ssangpi": Word("쌍피", "ssangpi"),
}
KIND_ROLE = {Kind.BRIGHT: "gwang", Kind.ANIMAL: "yeol", Kind.RIBBON: "tti", Kind.CHAFF: "pi"}
DOUBLE_JUNK = (LIGHTNING, YELLOW_CHAFF)

#: Cards with a name of their own at the table.
CARD_NAMES: dict[str, Word] = {
    RAIN_MAN: Word("비광", "bigwang"), LIGHTNING: Word("비쌍피", "bi-ssangpi"),
    YELLOW_CHAFF: Word("똥쌍피", "ttong-ssangpi"), SAKE_CUP: Word("국진 열끗", "gukjin yeolkkeut"),
}

#: The round form's labels, by context key (and the new-game form's first dealer).
FORM: dict[str, Word] = {
    "stopped_by": Word("스톱", "seutop"), "outcome": Word("결과", "gyeolgwa"),
    "goes": Word("고", "go"), "go_order": Word("고 순서", "go sunseo"),
    "shakes": Word("흔들기", "heundeulgi"), "bombs": Word("폭탄", "poktan"),
    "nagari": Word("나가리", "nagari"), "sake_cup": Word("국진", "gukjin"),
    "bonus_junk": Word("보너스 피", "boneoseu pi"), "first_dealer": Word("선", "seon"),
}

#: The sets a Go-Stop pile scores, and the role whose points hold theirs.
SETS: dict[str, tuple[Word, str]] = {
    "godori": (Word("고도리", "godori"), "yeol"), "hongdan": (Word("홍단", "hongdan"), "tti"),
    "cheongdan": (Word("청단", "cheongdan"), "tti"), "chodan": (Word("초단", "chodan"), "tti"),
}

#: The baks (penalties a loser pays double for).
BAKS: dict[str, Word] = {
    "gwang-bak": Word("광박", "gwangbak"), "pi-bak": Word("피박", "pibak"),
    "meong-bak": Word("멍박", "meongbak"), "go-bak": Word("고박", "gobak"),
}

#: The winner's multipliers that are no bak, by the key the Go-Stop table gives them
#: (its factors' ``why``: "shake", "2 shakes", "3 goes", "meongtta", "nagari").
MULTIPLIERS: dict[str, Word] = {
    "goes": FORM["goes"], "shakes": FORM["shakes"], "bombs": FORM["bombs"],
    "nagari": FORM["nagari"], "meongtta": Word("멍따", "meongtta"),
}

#: The presets' names at the table.
PRESETS: dict[str, Word] = {"gostop": Word("고스톱", "Go-Stop"), "matgo": Word("맞고", "Matgo")}

HWATU_GAMES = ("gostop",)

#: The game page's Card names setting: hanafuda's words, or hwatu's.
WORDS = ("japanese", "hwatu")


def is_hwatu(game: str) -> bool:
    """Is a game of this engine played with a Korean deck (hwatu words and order)?"""
    return game in HWATU_GAMES


def shows_hwatu(game: str, words: str | None = None) -> bool:
    """Are a game's cards named with hwatu words: ``words`` (one of ``WORDS``) as the
    page is set (a Sakura table with a Korean deck), else by the game (Go-Stop, Matgo)."""
    return words == "hwatu" if words else is_hwatu(game)


def role(code: str) -> str:
    """The card's role key: gwang, yeol, tti, pi or ssangpi (the sake cup: yeol)."""
    return "ssangpi" if code in DOUBLE_JUNK else KIND_ROLE[card(code).kind]


def card_word(code: str) -> Word:
    """The card as a hwatu player names it: its own name, else month and role
    (``흑싸리 피``)."""
    if code in CARD_NAMES:
        return CARD_NAMES[code]
    m, r = MONTHS[card(code).month], ROLES[role(code)]
    return Word(f"{m.korean} {r.korean}", f"{m.roman} {r.roman}")


def hwatu_code(code: str) -> str:
    """The code with the hwatu month number, as a hwatu game shows it: ``12-4`` for the
    lightning 11-4 (the codes inside stay Japanese)."""
    c = card(code)
    return f"{HWATU_NUMBER[c.month]:02d}{c.code[2:]}"


def to_dict() -> dict[str, Any]:
    """The whole table as JSON (``/api/cards``'s ``hwatu``)."""
    return {
        "months": {str(m): {**w.to_dict(), "number": HWATU_NUMBER[m]} for m, w in MONTHS.items()},
        "order": list(HWATU_ORDER),
        "roles": {k: w.to_dict() for k, w in ROLES.items()},
        "cards": {c.code: {**card_word(c.code).to_dict(), "role": role(c.code),
                           "named": c.code in CARD_NAMES} for c in DECK},
        "form": {k: w.to_dict() for k, w in FORM.items()},
        "baks": {k: w.to_dict() for k, w in BAKS.items()},
        "multipliers": {k: w.to_dict() for k, w in MULTIPLIERS.items()},
        "sets": {k: {**w.to_dict(), "role": r} for k, (w, r) in SETS.items()},
        "presets": {k: w.to_dict() for k, w in PRESETS.items()},
        "games": list(HWATU_GAMES),
    }
