"""The baks (박, RULES-gostop.md section 4.2): the penalties that double what one loser
pays (gwang-bak, pi-bak, meong-bak, go-bak), each with the reason it applies or is
escaped."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scorer import hwatu
from scorer.rules.gostop.cards import BRIGHT_YAKU
from scorer.rules.gostop.points import Tally
from scorer.rules.ruleset import RuleSet


@dataclass(frozen=True)
class Bak:
    """One bak (박) a loser faced: whether it applies, and why it does or is escaped."""

    name: str
    applies: bool
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "korean": hwatu.BAKS[self.name].korean,
                "applies": self.applies, "reason": self.reason}


def _n(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def bak_verdicts(w: Tally, loser: Tally, rs: RuleSet, gobak_double: bool,
                 name: str = "the loser") -> list[Bak]:
    """Every bak the winner's pile puts in play for one loser, applied or escaped, each
    with its reason ("Jun holds no bright"; "Seo has 8 junk"). A bak the winner's pile
    does not call for (no bright yaku, no pi) is not listed."""
    out = []
    mode = rs["gwangbak"]
    if mode != "off" and (w.brights if mode == "any_bright" else w.has(*BRIGHT_YAKU)):
        wet = loser.rain and mode == "rain_no_protect"
        protect = loser.brights - wet
        if protect:
            only_rain = loser.rain and loser.brights == 1
            out.append(Bak("gwang-bak", False, f"{name} holds the rain man" if only_rain
                           else f"{name} holds {_n(loser.brights, 'bright')}"))
        else:
            out.append(Bak("gwang-bak", True, f"{name} holds only the rain man, which does "
                           "not protect here" if wet else f"{name} holds no bright"))
    if w.has("pi"):
        most = int(rs["pibak_max"])
        if loser.junk == 0 and rs["pibak_zero_exempt"]:
            out.append(Bak("pi-bak", False, f"{name} has no junk at all (exempt)"))
        elif loser.junk <= most:
            out.append(Bak("pi-bak", True, f"{name} has {loser.junk} junk (at most {most})"))
        else:
            out.append(Bak("pi-bak", False, f"{name} has {loser.junk} junk (more than "
                                            f"{most})"))
    meong = rs["meongbak"]
    if meong != "off" and ((meong == "winner_5" and w.animals >= 5) or
                           (meong == "winner_7" and w.animals >= 7)
                           or (meong == "animal_yaku" and w.has("yeol", "godori"))):
        out.append(Bak("meong-bak", not loser.animals, f"{name} holds no animal"
                       if not loser.animals else f"{name} holds {_n(loser.animals, 'animal')}"))
    if gobak_double:
        out.append(Bak("go-bak", True, f"{name} called go, and another player stopped"))
    return out
