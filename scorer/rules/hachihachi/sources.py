"""The sources of Hachi-Hachi's rules, by key, as docs/RULES-hachihachi.md cites them.

Every option and every yaku of ``scorer.rules.hachihachi`` names its source by these keys;
``UNVERIFIED`` marks a value no stored source text confirmed (kept as a house-rule default
and said so in the docs).
"""

from __future__ import annotations

SOURCES: dict[str, str] = {
    "PORG": "https://games.porg.es/games/hachi-hachi",
    "PORG-CUR": "https://www.notion.so/Curriculum-eaa9ca175b1b4cff903db2dcc426b485",
    "PORG-SCH": "https://porges.notion.site/Scoring-Schedules-c20c1d5115e24f189100f78f262a53a2",
    "FW-HH": "https://fudawiki.org/en/hanafuda/games/hachi-hachi",
    "FW-NUKI": "https://fudawiki.org/en/hanafuda/games/nuki-hachi-hachi",
    "BGA": "https://en.doc.boardgamearena.com/Gamehelpeightyeight",
    "KIRISAME": "https://web.archive.org/web/20051125014841/http://hana.kirisame.org:80/"
                "hachihachi.html",
    "SHIRAGIKU": "https://marguerite.gingerbeardman.com/Nihongo/Games/しらぎく花札/"
                 "はちはちの役/",
    "PAGAT": "https://www.pagat.com/fishing/88.html",
    "VINGEL": "https://vingel8.neocities.org/hachihachi.html",
    "JA-WP": "http://ja.wikipedia.org/wiki/八八",
    "JPCM": "https://japanplayingcardmuseum.com/111-3-3-fashionable-newmethod-hachihachigame/",
    "KUSABA": "https://kusabazyun.banjoyugi.net/草場純さんの研究博物館-on-web/文書/"
              "ゲーム歴史の館/花札古ゲームをたずねて",
    # open implementations found in the code index (its answers name no repository):
    # evidence of practice, not authorities (as RULES-gostop.md cites its implementations)
    "IMPL-FR": "an open French Hachi-Hachi web game (hachi-hachi rules page and engine, "
               "code index id 57376185254)",
    "IMPL-NIM": "an open Nim hanafuda engine's teyaku table (nf_cards, code index id "
                "51961899741)",
}

#: Marks a default that no stored source text confirmed.
UNVERIFIED = "UNVERIFIED"


def cite(*keys: str) -> str:
    """The source tags of a rule, as the option's ``source`` carries them:
    ``"HH: BGA, KIRISAME"``."""
    for key in keys:
        if key not in SOURCES and key != UNVERIFIED:
            raise KeyError(key)
    return "HH: " + ", ".join(keys)
