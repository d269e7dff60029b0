"""Go-Stop's house rules: every disputed point G1-G19 of RULES-gostop.md section 7 as
an option with the spec's default, the Go-Stop and Matgo presets, and how the page groups
the options."""

from __future__ import annotations

from scorer.rules.base import MAX_ROUNDS, Preset
from scorer.rules.gostop.cards import BRIDGE, SAKE
from scorer.rules.options import Option, boolean, choice, integer

S = "RULES-gostop"
OPTIONS: tuple[Option, ...] = (
    integer("stop_minimum", 3, "base points needed to stop or go (G3: 7 with 2 players, "
            "3 with 3; hosts use 3/5/7, an app 6)", f"{S} 1, G3; FW-GS, KO-WP", 1, 100),
    choice("sagwang", "4", "four brights (G1)", f"{S} G1; FW-GS, KO-WP, BLOG-US",
           ("4", "4 with or without the rain man"),
           ("rain_3", "3 if the rain man is one of them (FW-GS variant)"),
           ("wet4_dry5", "4 with the rain man, 5 without (SLO-S)"),
           ("5", "5 (older ko.wikipedia text)")),
    choice("go_scheme", "double_from_3", "what go calls add (G2)",
           f"{S} 3, G2; FW-GS, BLOG-KJ, NAMU-3GO",
           ("double_from_3", "+1 point per go; from the 3rd go (base + goes) ×2^(n-2): "
                             "×2, ×4, ×8"),
           ("times_n_minus_1", "+1 per go; from the 3rd go ×(n-1): ×2, ×3, ×4 (EN-WP, "
                               "STOPGO)"),
           ("times_n_from_2", "1 go +1; from 2 goes the base × n, no bonus points "
                              "(FW-GS alternative)"),
           ("flat_double", "+1 per go; ×2 for three goes or more (P-ANDY)"),
           ("capped_bonus", "bonus capped at +2, then ×2^(n-2) (P-MICHAEL)"),
           ("power_of_two", "the base ×2^n, no bonus points (P-RABO)")),
    integer("pibak_max", 5, "pi-bak: a loser whose junk value is at most this pays double "
            "when the winner scores pi (G4: 5 with 3 players, 7 with 2; 6 = 'at least 7 "
            "protects')", f"{S} 4.2, G4; FW-GS, NAMU-PIBAK, BLOG-SP", 0, 30),
    boolean("pibak_zero_exempt", True, "a loser with no junk at all escapes pi-bak (G5)",
            f"{S} 4.2, G5; FW-GS, NAMU-PIBAK, BLOG-SP"),
    choice("godori", "5", "godori, the five birds 02-1 04-1 08-2 (G6)",
           f"{S} 2, G6; FW-GS, KO-WP, SLO-S",
           ("5", "5 points"), ("3", "3 points (FW-GS variant)"),
           ("swallow_10", "the swallow 11-2 is a fourth bird: the four birds score 10, "
                          "the three 5 (P-NBRY house rule)")),
    choice("willow_ribbon", "count_only", "the willow ribbon 11-3 (G7)",
           f"{S} 2, G7; FW-GS, SLO-S",
           ("count_only", "counts among the ribbons (tti) only, in no dan set"),
           ("chodan", "also completes chodan in place of a plain red ribbon (비초단, "
                      "KO-WP copy)"),
           ("chodan_not_counted", "completes chodan but is not counted among the ribbons "
                                  "(P-MICHAEL)")),
    choice("sake_cup", "best", "the sake cup 09-1 (or the card of double_junk_animal): "
           "an animal or a double junk (G8); a round's context sake_cup records what a "
           "player declared", f"{S} 2.5, G8; FW-GS, KO-WP, NAMU-PI, P-IPSE",
           ("best", "not declared: the reading that gives the winner the higher payment "
                    "and each loser the lower one (a pile alone: its higher base)"),
           ("animal", "always an animal"), ("junk", "always a double junk (P-NBRY)"),
           ("both", "an animal and a double junk at once (FW-GS variant)")),
    choice("double_junk_animal", SAKE, "which animal may be taken as a double junk (G9)",
           f"{S} 0, G9; FW-GS", (SAKE, "the sake cup 09-1"),
           (BRIDGE, "the iris bridge 05-1 instead (the sake cup stays an animal; FW-GS "
                    "variant)")),
    choice("ten_ribbons", "n_minus_4", "all ten ribbons (G10)", f"{S} G10; FW-GS, KO-WP",
           ("n_minus_4", "tti 10 - 4 = 6 (plus the dan sets)"),
           ("15", "tti 15 (older ko.wikipedia text)")),
    choice("shake", "double", "each shake (a triplet shown from the hand) of the winner "
           "(G11)", f"{S} 4.1, G11; FW-GS", ("double", "×2 each"),
           ("plus_one", "+1 point each (P-TAETO option)")),
    choice("bomb", "double", "each bomb of the winner (G12)", f"{S} 4.1, G12; FW-GS",
           ("double", "×2 each"), ("as_shake", "counts as a shake (P-IPSE)"),
           ("none", "no multiplier (P-TAETO)"), ("one_flag", "×2 once for any bombs "
                                                           "(P-ANDY)")),
    integer("meongtta_min", 7, "멍따: the winner's score ×2 when he holds this many animals "
            "(0: off) (G13)", f"{S} 4.1, G13; FW-GS, BLOG-US, NONGSARO", 0, 9),
    choice("meongbak", "off", "멍박: a loser with no animal pays double (G13)",
           f"{S} 4.1, G13; P-TAETO, P-BIPARK, FW-GS alt",
           ("off", "no such penalty"),
           ("winner_5", "when the winner holds 5+ animals (P-TAETO)"),
           ("winner_7", "when the winner holds 7+ animals (P-BIPARK)"),
           ("animal_yaku", "when the winner scores yeol or godori (FW-GS alternative)")),
    choice("gwangbak", "bright_yaku", "광박: who pays for a bright yaku (G14)",
           f"{S} 4.2, G14; FW-GS, JON",
           ("bright_yaku", "the winner scores a bright yaku and the loser holds no bright"),
           ("rain_no_protect", "as bright_yaku, but the rain man 11-1 does not protect "
                               "(FW-GS alt)"),
           ("any_bright", "the winner holds any bright and the loser none (P-RABO)"),
           ("off", "no gwang-bak")),
    choice("gwangbak_penalty", "double", "what gwang-bak costs (G14)",
           f"{S} G14; FW-GS alt", ("double", "×2"), ("plus_2", "+2 points")),
    choice("gobak", "both_shares", "고박: a loser who had called go when another player "
           "stopped (3 players: pays both losers' shares; 2 players: pays double)",
           f"{S} 4.2; FW-GS Liability, NAMU-DOKBAK",
           ("both_shares", "pays his own share and the other loser's; the other pays "
                           "nothing (3 players)"),
           ("double", "pays double (2 players)"), ("off", "no go-bak")),
    choice("gobak_liable", "first", "when both losers called go, who is liable (G16)",
           f"{S} 4.2, G16; FW-GS (first), P-IPSE and P-ITSENT (last)",
           ("first", "the first to call go (go_order)"),
           ("last", "the last to call go (go_order)")),
    choice("nagari_multiplier", "double_each", "the carry after draws (G15)",
           f"{S} 4.1, G15; FW-GS, NAMU-NAGARI",
           ("double_each", "×2 per draw just before, no cap"), ("cap_8", "capped at ×8 "
                                                                         "(P-ITSENT)"),
           ("cap_64", "capped at ×64 (P-IPSE)"), ("flat_2", "×2 after any draws (P-ANDY)")),
    choice("five_draws", "nothing", "five draws in a row (G17)", f"{S} 4.3, G17; FW-GS",
           ("nothing", "nothing special: the carry goes on doubling"),
           ("reset", "the carry starts again after five draws (FW-GS variant)")),
    choice("bonus_cards", "2+2+3", "the deck's bonus (joker) cards and their junk value; "
           "a pile's bonus junk may not exceed their sum (G18)",
           f"{S} 0.1, G18; NAMU-PAE, P-BIPARK, P-ITSENT",
           ("2+2+3", "two double-junk jokers and one triple (7)"),
           ("2+3", "one double and one triple (5)"),
           ("2+2+2", "three jokers of 2 each (6, older KO-WP text)"),
           ("none", "no bonus cards")),
    integer("bonus_junk", 0, "the junk value of bonus (joker) cards in a pile scored on "
            "its own (hanafuda yaku); in a round, the context's bonus_junk per player",
            f"{S} 0.1, 5", 0, 99),
    integer("instant_win_points", 0, "chongtong / three ppeok (outcome instant): what each "
            "loser pays (0: the stop minimum) (G19)", f"{S} 4.3, G19; FW-GS", 0, 1000),
    integer("rounds", 10, "rounds in a game (Go-Stop has no fixed length: players agree)",
            f"{S} 1", 1, MAX_ROUNDS),
)

PRESETS: tuple[Preset, ...] = (
    Preset("gostop", "gostop", "Go-Stop for 3 players: stop at 3, pi-bak at 1-5 junk, "
           "go-bak makes the liable loser pay both shares", {}, (3, 3)),
    Preset("matgo", "gostop", "Matgo, 2-player Go-Stop: stop at 7, pi-bak at 1-7 junk, "
           "go-bak pays double",
           {"stop_minimum": 7, "pibak_max": 7, "gobak": "double"}, (2, 2)),
)

#: How the page groups the house rules (RULES-gostop.md section 7's topics).
OPTION_GROUPS = {
    **dict.fromkeys(("stop_minimum", "go_scheme", "instant_win_points", "rounds"),
                    "Stop and go (스톱, 고)"),
    **dict.fromkeys(("sagwang", "godori", "willow_ribbon", "ten_ribbons", "sake_cup",
                     "double_junk_animal", "bonus_cards", "bonus_junk"), "Card points"),
    **dict.fromkeys(("shake", "bomb", "meongtta_min", "nagari_multiplier", "five_draws"),
                    "Multipliers (흔들기, 폭탄, 나가리)"),
    **dict.fromkeys(("pibak_max", "pibak_zero_exempt", "meongbak", "gwangbak",
                     "gwangbak_penalty", "gobak", "gobak_liable"), "Baks (박)"),
}
