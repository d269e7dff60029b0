"""Each option of a game as a sentence a player reads ("A player needs 5 points to stop or
go."), for the new-game form's house rules and the game page's header: no option key, no
source tag (those stay in ``Option.key`` and ``Option.source``).

A sentence is the option's template with its value's words in place of ``{}``: the
choice's meaning (the rule's sources, in brackets, left out), the number, or yes/no. The
template is written here where the option's own ``help`` does not read as a sentence;
else it is that help, as a sentence. ``VALUES`` rewords a choice whose meaning names
other options' keys.
"""

from __future__ import annotations

import re
from typing import Any

from scorer import hwatu
from scorer.cards import card
from scorer.rules.options import Option

#: (game, key) -> the sentence with ``{}`` for the value's words.
TEMPLATES: dict[tuple[str, str], str] = {
    # Sakura
    ("sakura", "yellow_paulownia"): "The yellow paulownia chaff 12-2 is {}.",
    ("sakura", "team_piles"): "Partners' captures: {}.",
    ("sakura", "tie_policy"): "A tied round (and a tied game) goes to {}.",
    ("sakura", "game_scoring"): "How the game is won: {}.",
    ("sakura", "chu_basa"): "A big winning margin (when counting victories): {}.",
    ("sakura", "chu_margin"): "A round won by {} points or more over the next side is a chu.",
    ("sakura", "basa_margin"): "A round won by {} points or more over the next side is a basa.",
    ("sakura", "gaji_leftovers"): "When the lightning (gaji) is played from the hand, {}.",
    ("sakura", "next_dealer"): "The next round is dealt by {}.",
    ("sakura", "yaku_scoring"): "A yaku: {}.",
    ("sakura", "yaku_points"): "Each yaku is worth {} points.",
    # Koi-Koi
    ("koikoi", "point_table"): "The bright yaku score {}.",
    ("koikoi", "animal_group"): "Boar-deer-butterflies and the other animal yaku: {}.",
    ("koikoi", "ribbon_group"): "The red and blue ribbon sets and the other ribbon yaku: {}.",
    ("koikoi", "sake_cup"): "The sake cup 09-1 counts as {}.",
    ("koikoi", "viewing"): "The flower and moon viewing yaku: {}.",
    ("koikoi", "double_at_seven"): "A stopper's score doubles from the doubling threshold on: {}.",
    ("koikoi", "double_threshold"): "Doubling starts at {} points.",
    ("koikoi", "koikoi_multiplier"): "Koi-koi calls: {}.",
    ("koikoi", "rain_man_three"): "The rain man with three other brights scores {}.",
    ("koikoi", "exhaustive_draw"): "When nobody stops: {}.",
    ("koikoi", "teyaku_both_players"): "When both players claim a dealt-hand yaku: {}.",
    ("koikoi", "teyaku_points"): "A dealt-hand yaku (teshi or kuttsuki) scores {} points.",
    ("koikoi", "teyaku_both_kinds"): "Teshi and kuttsuki in one hand score {}.",
    ("koikoi", "tsukifuda"): "The four cards of the round's month score 4 (tsuki-fuda): {}.",
    # Hana-Awase
    ("hanaawase", "settlement"): "A round is settled as {}.",
    ("hanaawase", "five_brights"): "The five brights score {}.",
    ("hanaawase", "chaff_points"): "A chaff is worth {}.",
    ("hanaawase", "willow_row"): "The willow row: {}.",
    ("hanaawase", "fuke"): "A player with 20 card points or fewer voids the round: {}.",
    # Go-Stop and Matgo
    ("gostop", "stop_minimum"): "A player needs {} points to stop or go.",
    ("gostop", "sagwang"): "Four brights score {}.",
    ("gostop", "go_scheme"): "Go calls: {}.",
    ("gostop", "pibak_max"): "Pi-bak: a loser with {} junk or less pays double when the "
                             "winner scores junk.",
    ("gostop", "pibak_zero_exempt"): "A loser with no junk at all escapes pi-bak: {}.",
    ("gostop", "godori"): "Godori, the five birds 02-1 04-1 08-2: {}.",
    ("gostop", "willow_ribbon"): "The willow ribbon 11-3 {}.",
    ("gostop", "sake_cup"): "The sake cup 09-1: {}.",
    ("gostop", "double_junk_animal"): "The animal that may count as a double junk: {}.",
    ("gostop", "ten_ribbons"): "All ten ribbons score {}.",
    ("gostop", "shake"): "Each shake of the winner: {}.",
    ("gostop", "bomb"): "Each bomb of the winner: {}.",
    ("gostop", "meongtta_min"): "The winner's score doubles when he holds {} animals "
                                "(0: never).",
    ("gostop", "meongbak"): "Meong-bak (a loser with no animal pays double): {}.",
    ("gostop", "gwangbak"): "Gwang-bak (a loser pays double for the winner's brights): {}.",
    ("gostop", "gwangbak_penalty"): "Gwang-bak costs {}.",
    ("gostop", "gobak"): "Go-bak, a loser who had called go when another stopped: {}.",
    ("gostop", "gobak_liable"): "When both losers called go, go-bak falls on {}.",
    ("gostop", "nagari_multiplier"): "After drawn rounds (nagari): {}.",
    ("gostop", "five_draws"): "Five drawn rounds in a row: {}.",
    ("gostop", "bonus_cards"): "The deck's bonus cards: {}.",
    ("gostop", "bonus_junk"): "Bonus junk in a pile scored on its own: {}.",
    ("gostop", "instant_win_points"): "An instant win (chongtong, three ppeok) costs each "
                                      "loser {} points (0: the stop minimum).",
    # Hachi-Hachi
    ("hachihachi", "rounds"): "A game is {} months.",
    ("hachihachi", "mon_per_kan"): "A kan is {}.",
    ("hachihachi", "yaku_payment"): "A yaku (teyaku or dekiyaku): {}.",
    ("hachihachi", "teyaku_combine"): "A dealt hand scores {}.",
    ("hachihachi", "willow_as_chaff"): "Every willow card counts as a chaff for the yaku: {}.",
    ("hachihachi", "field_carry"): "A second light among the table cards carries its field "
                                   "to the next month: {}.",
    ("hachihachi", "goko_with_shiko"): "A pile holding all five brights {}.",
    ("hachihachi", "sujuroku_extra"): "Su-jūroku (16 chaff) scores {} more kan for each "
                                      "chaff beyond 16.",
    ("hachihachi", "stop_voids_card_points"): "A month ended by a dekiyaku settles no card "
                                              "points: {}.",
    ("hachihachi", "sit_out_fee"): "The first player to sit a month out pays {} mon (times "
                                   "the field).",
    ("hachihachi", "sit_out_rising"): "Each further player sitting out pays half that fee "
                                      "more: {}.",
    ("hachihachi", "played_out_dekiyaku"): "A dekiyaku in a month played out after sage {}.",
    ("hachihachi", "sit_out_paid_to"): "The sitting-out fee goes to {}.",
    ("hachihachi", "mizuten_kan"): "Against a dealer who played blind (mizuten), each player "
                                   "sitting out pays {} kan.",
}

#: (game, key, value) -> the value's words where its meaning names other options' keys.
VALUES: dict[tuple[str, str, Any], str] = {
    ("sakura", "chu_basa", "combined"): "a chu counts 2 victories, a basa 3",
    ("sakura", "yaku_scoring", "penalty"): "every other side loses the yaku's points",
    ("sakura", "yaku_scoring", "bonus"): "its holder gains the yaku's points",
    ("sakura", "tie_policy", "shared"): "nobody: the tie stands",
    ("gostop", "gwangbak", "rain_no_protect"): "the winner scores a bright yaku and the "
                                               "loser holds no bright; the rain man 11-1 "
                                               "does not protect",
    ("gostop", "gobak_liable", "first"): "the first to call go",
    ("gostop", "gobak_liable", "last"): "the last to call go",
    ("hanaawase", "settlement", "zero_sum"): "card points less the par, plus each yaku "
                                             "from every other player",
    ("hanaawase", "settlement", "additive"): "card points plus yaku points",
}

_SOURCE = re.compile(r"\s*\((?:[^()]*?)(?:\b[A-Z]+(?:-[A-Z0-9]+)+\b|Nintendo|FudaWiki|"
                     r"wikipedia|PIPEX|Hawaii|Paradise|UNVERIFIED|koikoi-modern|"
                     r"documentary|unattributed|G\d+\b)[^()]*\)")


def plain(text: str) -> str:
    """``text`` without its bracketed sources: ``3 points (FW-GS variant)`` -> ``3 points``."""
    return _SOURCE.sub("", text).strip()


def _value_words(game: str, option: Option, value: Any) -> str:
    if (game, option.key, value) in VALUES:
        return VALUES[(game, option.key, value)]
    if option.kind == "bool":
        return "yes" if value else "no"
    if option.kind == "choice":
        meaning = dict(option.choices).get(value)
        return plain(meaning) if meaning else str(value)
    return str(value)


def template(game: str, option: Option) -> str:
    """The option's sentence with ``{}`` for the value's words."""
    if (game, option.key) in TEMPLATES:
        return TEMPLATES[(game, option.key)]
    text = plain(option.help)
    return f"{text[:1].upper()}{text[1:]}: {{}}."


_CODE = re.compile(r"\b\d\d-[1-4]\b")


def shown(game: str, text: str) -> str:
    """``text`` with its cards' codes as the game's page shows them: in a hwatu game with
    the hwatu month numbers (the willow ribbon 11-3 is 12-3), else as they are."""
    return _CODE.sub(lambda m: hwatu.hwatu_code(m.group()), text) if hwatu.is_hwatu(game) else text


def sentence(game: str, option: Option, value: Any) -> str:
    """The option at ``value`` as a player reads it (in a hwatu game its cards' codes
    with the hwatu month numbers: the willow ribbon 11-3 is 12-3)."""
    return shown(game, template(game, option).replace("{}", _value_words(game, option, value)))


def card_name(game: str, code: str, words: str | None = None) -> str:
    """A card as the game's page names it: ``11-4 (Willow: lightning)``, or in a hwatu
    game with its hwatu number and words, ``12-4 (비쌍피 bi-ssangpi)``; ``words``: as the
    page is set to name cards (``hwatu.shows_hwatu``)."""
    if hwatu.shows_hwatu(game, words):
        return f"{hwatu.hwatu_code(code)} ({hwatu.card_word(code).text})"
    return f"{code} ({card(code).name})"


def value_words(game: str, option: Option, value: Any) -> str:
    """The value's own words, as the sentence has them ("3 points"; in a hwatu game its
    cards' codes with the hwatu month numbers): what a choice's list shows."""
    text = _value_words(game, option, value)
    return _CODE.sub(lambda m: hwatu.hwatu_code(m.group()), text) if hwatu.is_hwatu(game) else text


def words(game: str, option: Option) -> dict[str, str]:
    """A choice's or switch's value words for each of its values (by the value as text)."""
    return {str(v).lower() if isinstance(v, bool) else str(v): value_words(game, option, v)
            for v in option.allowed}


def sentences(game: str, option: Option) -> dict[str, str]:
    """A choice's or switch's sentence for each of its values (by the value as text, as
    the page's form has it): what the form shows as the player changes it."""
    return {str(v).lower() if isinstance(v, bool) else str(v): sentence(game, option, v)
            for v in option.allowed}
