"""Hachi-Hachi's house rules: each rule the sources disagree on as an option with the
default of docs/RULES-hachihachi.md, the presets, and how the page groups the options.
Each option's ``source`` names its sources (``scorer.rules.hachihachi.sources``)."""

from __future__ import annotations

from typing import Mapping

from scorer.rules.base import MAX_ROUNDS, Preset
from scorer.rules.hachihachi.sources import cite
from scorer.rules.options import Option, boolean, choice, integer

OPTIONS: tuple[Option, ...] = (
    integer("rounds", 12, "months in a game (12 a year, 6 half a year)",
            cite("BGA", "JA-WP"), 1, MAX_ROUNDS),
    choice("mon_per_kan", 12, "mon (points) in a kan", cite("BGA", "VINGEL", "JA-WP"),
           (12, "12 mon"), (10, "10 mon")),
    choice("yaku_payment", "each", "who pays a yaku (teyaku or dekiyaku)",
           cite("KIRISAME", "SHIRAGIKU", "BGA"),
           ("each", "each other active player pays its whole value"),
           ("split", "its value is split between the two other active players")),
    choice("teyaku_combine", "one_each", "how many dealt-hand yaku one hand scores",
           cite("PORG", "JA-WP", "KIRISAME"),
           ("one_each", "one set-based and one chaff-based, added (PORG: one combination "
            "in each set; JA-WP: teyaku combine)"),
           ("best_only", "only the better one (no source found: KIRISAME's 'they don't "
            "stack' is one hand from its list of 47, whose combined hands are listed "
            "there as hands of their own)")),
    choice("aka_ribbons", "two_or_more", "aka 赤, the red dealt hand",
           cite("JA-WP", "PORG", "KIRISAME"),
           ("two_or_more", "two ribbons or more, the rest chaff (JA-WP, PORG)"),
           ("exactly_two", "exactly two ribbons and five chaff (KIRISAME)")),
    boolean("nuke_yaku", True, "nuke-yaku ぬけ役: aka, tan-ichi, tō-ichi and karasu earn 1 kan "
            "more when their holder ends the month over 88 card points", cite("JA-WP")),
    boolean("sujuroku_voids_teyaku", True, "su-jūroku voids the month's teyaku: their money "
            "is returned, by its maker too", cite("SHIRAGIKU")),
    boolean("willow_as_chaff", True, "every willow card counts as a chaff for the yaku "
            "(its card points stay)", cite("BGA")),
    boolean("field_carry", True, "a second light among the table cards carries its field "
            "over to the next month", cite("BGA", "KIRISAME")),
    choice("goko_with_shiko", "goko_only", "a pile holding all five brights",
           cite("SHIRAGIKU"),
           ("goko_only", "scores gokō only"),
           ("both", "scores gokō and shikō (shikō was made first)")),
    integer("sujuroku_extra", 2, "kan for each chaff beyond 16 in su-jūroku",
            cite("PORG-CUR"), 0, 100),
    choice("played_out_dekiyaku", "half", "a dekiyaku in a month played out (its maker "
           "called sage and nobody ended the month)", cite("IMPL-FR"),
           ("half", "is paid at half, and no card points are settled"),
           ("full", "is paid in full, and the card points are settled too")),
    boolean("stop_voids_card_points", True, "a month ended when a dekiyaku was made "
            "settles no card points", cite("PORG-CUR")),
    integer("sit_out_fee", 12, "mon the first player to sit a month out pays (before the "
            "field multiplier)", cite("IMPL-FR", "KIRISAME", "KUSABA"), 0, 1000),
    boolean("sit_out_rising", True, "each further player sitting out pays half the fee "
            "more (1, 1.5, 2, 2.5 kan)", cite("IMPL-FR")),
    choice("sit_out_paid_to", "winner", "who receives the sitting-out fee",
           cite("KUSABA"),
           ("winner", "the month's winner"), ("dealer", "the dealer"),
           ("active", "the three active players, shared")),
    boolean("yaku.rokutan", False, "roku-tan 六短 (six ribbons, 7 kan) is played",
            cite("UNVERIFIED")),
    boolean("yaku.kusa", False, "kusa 草 (the three grass ribbons, 5 kan) is played",
            cite("UNVERIFIED")),
    integer("mizuten_kan", 1, "kan each player sitting out pays a dealer who declared "
            "mizuten (played blind)", cite("BGA"), 0, 100),
)

OPTION_GROUPS: Mapping[str, str] = {
    "rounds": "The game", "mon_per_kan": "The game",
    "yaku_payment": "Payments", "sit_out_fee": "Payments", "sit_out_paid_to": "Payments",
    "mizuten_kan": "Payments", "stop_voids_card_points": "Payments",
    "sit_out_rising": "Payments", "played_out_dekiyaku": "Payments",
    "yaku.rokutan": "Yaku", "yaku.kusa": "Yaku",
    "teyaku_combine": "Yaku", "willow_as_chaff": "Yaku", "aka_ribbons": "Yaku",
    "nuke_yaku": "Yaku", "sujuroku_voids_teyaku": "Yaku", "goko_with_shiko": "Yaku",
    "sujuroku_extra": "Yaku", "field_carry": "The field",
}

PRESETS: tuple[Preset, ...] = (
    Preset("hachihachi", "hachihachi", "Hachi-Hachi 八八: 3 active players a month (3-7 at "
           "the table), card points against 88, teyaku and dekiyaku in kan, small/big/grand "
           "field ×1/×2/×4 from the table's lights; 12 mon a kan"),
    Preset("hachihachi-half", "hachihachi", "Hachi-Hachi for half a year", {"rounds": 6}),
    Preset("hachihachi-bga", "hachihachi", "Hachi-Hachi as Board Game Arena plays it: a "
           "yaku's value split between the two other players",
           {"yaku_payment": "split"}),
)
