"""Go-Stop and Matgo: every rule of RULES-gostop.md sections 2-4 with a small test, the
options both ways, the checks of section 5, the six worked examples of section 6 through
`hanafuda yaku` and `hanafuda score`, and hypothesis properties.

Expected figures are worked out by hand from the spec.
"""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorer.cards import CODES
from scorer.cli import main
from scorer.errors import InputError
from scorer.rules import RoundInput, find_yaku, get_ruleset, score_round
from scorer.rules.gostop import DECK_JUNK, VARIANT, PI, SINGLE_PI

GOSTOP, MATGO = get_ruleset("gostop"), get_ruleset("matgo")
TEN_PI = list(SINGLE_PI[:10])                      # ten single junk: pi 1
DRY3 = ["01-1", "03-1", "08-1"]                    # samgwang 3
BIRDS = ["02-1", "04-1", "08-2"]


def gs(**overrides):
    return get_ruleset("gostop", overrides=overrides)


def mg(**overrides):
    return get_ruleset("matgo", overrides=overrides)


def yaku(codes, rs=GOSTOP):
    return {y.name: y.points for y in find_yaku(codes, rs).yaku}


def total(codes, rs=GOSTOP):
    return find_yaku(codes, rs).total


def counts(codes, rs=GOSTOP):
    return find_yaku(codes, rs).to_dict()["counts"]


def play(piles, rs=GOSTOP, **context):
    players = list(piles)
    return score_round(RoundInput(players, piles, players[0], None, context), rs)


# --- 0. the cards ------------------------------------------------------------------------

def test_deck_counts_and_junk_value():
    assert counts(CODES, gs(sake_cup="animal")) == {"brights": 5, "animals": 9,
                                                    "ribbons": 10, "junk": 26}
    assert counts(CODES, gs(sake_cup="junk"))["junk"] == 28 and DECK_JUNK == 26
    assert len(PI) == 24 and VARIANT.card_values(GOSTOP)["12-2"] == 2
    assert VARIANT.card_values(GOSTOP)["12-3"] == 1 and VARIANT.card_values(GOSTOP)["11-4"] == 2


def test_double_junk_cards_count_two():
    assert counts(["12-2", "11-4", "12-3"])["junk"] == 5
    assert total(["12-2", "11-4"] + TEN_PI[:6]) == 1          # 2 + 2 + 6 = 10
    assert total(["12-3", "12-4"] + TEN_PI[:7]) == 0          # 9: 12-3/12-4 are single


# --- 2. base points ----------------------------------------------------------------------

def test_ogwang():
    assert yaku(["01-1", "03-1", "08-1", "11-1", "12-1"]) == {"ogwang": 15}


def test_sagwang_with_or_without_rain():
    assert yaku(["01-1", "03-1", "08-1", "12-1"]) == {"sagwang": 4}
    assert yaku(["01-1", "03-1", "08-1", "11-1"]) == {"sagwang": 4}


def test_samgwang_and_bi_samgwang():
    assert yaku(DRY3) == {"samgwang": 3}
    assert yaku(["11-1", "01-1", "12-1"]) == {"bi-samgwang": 2}
    assert yaku(["01-1", "12-1"]) == {}


def test_godori():
    assert yaku(BIRDS) == {"godori": 5}
    assert yaku(["02-1", "04-1", "11-2"]) == {}               # the swallow is no bird


@pytest.mark.parametrize("dan, cards", [("hongdan", ["01-2", "02-2", "03-2"]),
                                        ("cheongdan", ["06-2", "09-2", "10-2"]),
                                        ("chodan", ["04-2", "05-2", "07-2"])])
def test_dan_sets(dan, cards):
    assert yaku(cards) == {dan: 3}


def test_willow_ribbon_is_in_no_dan():
    assert yaku(["04-2", "05-2", "11-3"]) == {}


def test_yeol_tti_and_pi_counts():
    animals = ["02-1", "05-1", "06-1", "07-1", "10-1", "11-2"]
    assert yaku(animals[:4]) == {} and yaku(animals[:5]) == {"yeol": 1}
    assert yaku(animals) == {"yeol": 2}
    ribbons = ["01-2", "04-2", "06-2", "11-3", "05-2", "09-2"]
    assert yaku(ribbons[:5]) == {"tti": 1} and yaku(ribbons) == {"tti": 2}
    assert yaku(TEN_PI[:9]) == {} and yaku(TEN_PI) == {"pi": 1}
    assert yaku(TEN_PI + ["12-2"]) == {"pi": 3}


def test_bright_yaku_exclusive_everything_else_stacks():
    pile = ["01-2", "02-2", "03-2", "06-2", "09-2", "10-2"]     # SLO-S: 3 + 3 + 2 = 8
    assert yaku(pile) == {"hongdan": 3, "cheongdan": 3, "tti": 2} and total(pile) == 8
    assert yaku(BIRDS + ["05-1", "06-1"]) == {"godori": 5, "yeol": 1}


# --- 2.5 the sake cup ---------------------------------------------------------------------

def test_sake_cup_animal_or_junk_not_both():
    pile = ["09-1", "02-1", "05-1", "06-1", "07-1"] + TEN_PI[:8]
    assert yaku(pile, gs(sake_cup="animal")) == {"yeol": 1}
    assert yaku(pile, gs(sake_cup="junk")) == {"pi": 1}
    assert counts(pile, gs(sake_cup="junk")) == {"brights": 0, "animals": 4, "ribbons": 0,
                                                 "junk": 10}
    assert yaku(pile, gs(sake_cup="both")) == {"yeol": 1, "pi": 1}


def test_sake_cup_best_takes_the_reading_worth_more_animal_on_a_tie():
    more_junk = ["09-1"] + TEN_PI[:9]
    assert yaku(more_junk) == {"pi": 2}
    assert "a double junk" in find_yaku(more_junk, GOSTOP).notes[0]
    assert counts(["09-1"])["animals"] == 1
    # 7 animals with the cup: 12 x2 meongtta beats 13 without it (example 3)
    pile = TEN_PI + ["02-1", "04-1", "05-1", "06-1", "07-1", "08-2", "09-1"] + DRY3
    assert total(pile) == 12 and total(pile, gs(sake_cup="junk")) == 13
    assert total(pile, gs(meongtta_min=0)) == 13


def test_bridge_takes_the_double_junk_role():
    rs = gs(double_junk_animal="05-1", sake_cup="junk")
    assert counts(["05-1", "09-1"], rs) == {"brights": 0, "animals": 1, "ribbons": 0,
                                            "junk": 2}


# --- 3. go ---------------------------------------------------------------------------------

def round_pay(goes, rs=MATGO, base_pile=("01-1", "03-1", "08-1", "12-1", "02-1", "04-1",
                                         "08-2")):
    # base 4 + 5 = 9 (matgo may stop), loser holds a bright and no junk: no bak
    res = play({"W": list(base_pile), "L": ["11-1"]}, rs, stopped_by="W",
               goes={"W": goes})
    return res.scores["W"]


@pytest.mark.parametrize("goes, pay", [(0, 9), (1, 10), (2, 11), (3, 24), (4, 52),
                                       (5, 112)])
def test_go_bonus_and_factor(goes, pay):
    assert round_pay(goes) == pay


def test_three_goes_on_three_points_is_twelve():
    res = play({"W": DRY3, "L": ["11-1"], "M": ["12-1"]}, stopped_by="W", goes={"W": 3})
    assert res.scores == {"W": 24, "L": -12, "M": -12}


@pytest.mark.parametrize("scheme, pays", [
    ("times_n_minus_1", [10, 11, 24, 39]), ("times_n_from_2", [10, 18, 27, 36]),
    ("flat_double", [10, 11, 24, 26]), ("capped_bonus", [10, 11, 22, 44]),
    ("power_of_two", [18, 36, 72, 144])])
def test_go_schemes(scheme, pays):
    assert [round_pay(g, mg(go_scheme=scheme)) for g in (1, 2, 3, 4)] == pays


# --- 4.1 winner-side doubles -----------------------------------------------------------------

def test_shakes_and_bombs_double_each():
    piles = {"W": DRY3, "L": ["12-1"], "M": ["11-1"]}
    assert play(piles, stopped_by="W", shakes={"W": 2}).scores["L"] == -12
    assert play(piles, stopped_by="W", bombs={"W": 1}, shakes={"W": 1}).scores["L"] == -12
    assert play(piles, stopped_by="W", shakes={"L": 3}).scores["L"] == -3  # not the winner


def test_shake_plus_one_and_bomb_variants():
    piles = {"W": DRY3, "L": ["12-1"], "M": ["11-1"]}
    assert play(piles, gs(shake="plus_one"), stopped_by="W", shakes={"W": 2}).scores["L"] \
        == -5
    assert play(piles, gs(bomb="none"), stopped_by="W", bombs={"W": 2}).scores["L"] == -3
    assert play(piles, gs(bomb="one_flag"), stopped_by="W", bombs={"W": 2}).scores["L"] == -6
    assert play(piles, gs(bomb="as_shake", shake="plus_one"), stopped_by="W",
                bombs={"W": 1}).scores["L"] == -4


SEVEN_ANIMALS = ["02-1", "04-1", "05-1", "06-1", "07-1", "10-1", "08-2"]   # godori 5 + yeol 3


def test_meongtta_seven_animals():
    res = play({"W": SEVEN_ANIMALS, "L": ["01-3"], "M": ["01-4"]}, stopped_by="W")
    assert res.scores["L"] == -8 * 2 == res.scores["M"]
    assert "meongtta" in res.results["L"].explanation
    res = play({"W": SEVEN_ANIMALS, "L": ["01-3"], "M": ["01-4"]}, gs(meongtta_min=0),
               stopped_by="W")
    assert res.scores["L"] == -8


def test_meongbak_variants():
    piles = {"W": SEVEN_ANIMALS[:5] + DRY3, "L": ["12-1", "11-2"], "M": ["11-1"]}
    # W: samgwang 3 + yeol 1 = 4; M has no animal
    assert play(piles, stopped_by="W").scores == {"W": 8, "L": -4, "M": -4}
    assert play(piles, gs(meongbak="winner_5"), stopped_by="W").scores["M"] == -8
    assert play(piles, gs(meongbak="winner_7"), stopped_by="W").scores["M"] == -4
    assert play(piles, gs(meongbak="animal_yaku"), stopped_by="W").scores["M"] == -8


@pytest.mark.parametrize("draws, factor, mode", [(0, 1, "double_each"), (1, 2, "double_each"),
                                                 (3, 8, "double_each"), (4, 16, "double_each"),
                                                 (4, 8, "cap_8"), (3, 2, "flat_2")])
def test_nagari_carry(draws, factor, mode):
    res = play({"W": DRY3, "L": ["12-1"], "M": ["11-1"]}, gs(nagari_multiplier=mode),
               stopped_by="W", nagari=draws)
    assert res.scores["L"] == -3 * factor


def test_five_draws_reset():
    piles = {"W": DRY3, "L": ["12-1"], "M": ["11-1"]}
    assert play(piles, gs(five_draws="reset"), stopped_by="W", nagari=5).scores["L"] == -3
    assert play(piles, stopped_by="W", nagari=5).scores["L"] == -96


# --- 4.2 loser-side penalties ------------------------------------------------------------------

def test_gwang_bak_needs_a_bright_yaku_and_a_loser_without_brights():
    res = play({"W": DRY3, "L": ["01-3"], "M": ["12-1"]}, stopped_by="W")
    assert res.scores == {"W": 9, "L": -6, "M": -3}
    res = play({"W": ["01-1"] + TEN_PI + ["12-2"], "L": ["10-3"], "M": ["12-1"]},
               stopped_by="W")  # no bright yaku: pi 3, L pi-bak only (junk 1)
    assert res.scores["L"] == -6 and res.scores["M"] == -3


def test_bi_samgwang_triggers_gwang_bak_and_the_rain_man_protects():
    piles = {"W": ["11-1", "01-1", "03-1", "02-1", "04-1"], "L": ["08-1"], "M": ["12-2"]}
    # bi-samgwang 2 + ... no: add a dan for 3+
    piles["W"] += ["01-2", "02-2", "03-2"]                    # + hongdan 3 = 5
    assert play(piles, stopped_by="W").scores == {"W": 15, "L": -5, "M": -10}
    rain = {"W": DRY3, "L": ["11-1"], "M": ["12-1"]}
    assert play(rain, stopped_by="W").scores["L"] == -3
    assert play(rain, gs(gwangbak="rain_no_protect"), stopped_by="W").scores["L"] == -6


def test_gwang_bak_variants():
    piles = {"W": ["01-1"] + TEN_PI + ["12-2", "11-4"], "L": ["10-3"], "M": ["12-1"]}
    # W: pi 5 (14 junk), one bright, no bright yaku; L pi-bak (1 junk)
    assert play(piles, stopped_by="W").scores["L"] == -10
    assert play(piles, gs(gwangbak="any_bright"), stopped_by="W").scores["L"] == -20
    dry = {"W": DRY3, "L": ["10-3"], "M": ["12-1"]}
    assert play(dry, gs(gwangbak_penalty="plus_2"), stopped_by="W").scores["L"] == -5
    assert play(dry, gs(gwangbak="off"), stopped_by="W").scores["L"] == -3


def test_pi_bak_thresholds_and_the_zero_junk_exemption():
    winner = TEN_PI + DRY3[:1] + ["12-2", "11-4"]              # pi 5 (14 junk)
    def pay(loser_junk, rs=GOSTOP):
        loser = list(PI[10:10 + loser_junk])
        loser = [c for c in loser if c not in ("11-4", "12-2")]
        piles = {"W": winner, "L": loser + ["08-1"], "M": ["12-1"]}
        return -play(piles, rs, stopped_by="W").scores["L"]
    assert [pay(n) for n in (0, 1, 5, 6)] == [5, 10, 10, 5]
    assert pay(0, gs(pibak_zero_exempt=False)) == 10
    assert pay(6, gs(pibak_max=6)) == 10


def test_matgo_pi_bak_up_to_seven():
    winner = TEN_PI + ["12-2", "11-4", "01-1"] + list(SINGLE_PI[10:12])  # 16 junk: pi 7
    loser = list(SINGLE_PI[12:19]) + ["08-1"]                        # 7 junk
    assert play({"W": winner, "L": loser}, MATGO, stopped_by="W").scores["L"] == -14
    assert play({"W": winner, "L": loser + [SINGLE_PI[19]]}, MATGO,
                stopped_by="W").scores["L"] == -7


def test_ssangpi_counts_two_for_pi_bak():
    winner = TEN_PI + ["01-1", "08-1", "03-1"]                # samgwang 3 + pi 1 = 4
    piles = {"W": winner, "L": ["12-2", "11-4", "12-3", "12-4", "10-3", "12-1"],
             "M": ["11-1"]}
    # L junk 2+2+1+1+1 = 7 > 5: no pi-bak; holds a bright: no gwang-bak
    assert play(piles, stopped_by="W").scores["L"] == -4


def test_go_bak_three_players_liable_pays_both_shares():
    res = play({"W": DRY3, "P1": ["01-3"], "P2": ["01-4"]}, stopped_by="W", goes={"P1": 1})
    assert res.scores == {"W": 12, "P1": -12, "P2": 0}
    assert "go-bak" in res.results["P1"].explanation


def test_go_bak_first_or_last_caller():
    piles = {"W": DRY3, "P1": ["01-3"], "P2": ["12-1"]}
    ctx = dict(stopped_by="W", goes={"P1": 1, "P2": 2}, go_order=["P2", "P1"])
    assert play(piles, **ctx).scores == {"W": 9, "P1": 0, "P2": -9}
    assert play(piles, gs(gobak_liable="last"), **ctx).scores == {"W": 9, "P1": -9, "P2": 0}
    assert play(piles, gs(gobak="off"), **ctx).scores == {"W": 9, "P1": -6, "P2": -3}


def test_go_bak_two_players_pays_double():
    piles = {"W": DRY3 + ["12-1", "02-1", "04-1", "08-2"], "L": ["11-1"]}   # sagwang 4 + 5
    assert play(piles, MATGO, stopped_by="W", goes={"L": 1}).scores["L"] == -18
    assert play(piles, MATGO, stopped_by="W").scores["L"] == -9


def test_a_loser_with_no_cards_pays_nothing():
    res = play({"W": DRY3, "L": [], "M": ["12-1"]}, stopped_by="W")
    assert res.scores == {"W": 3, "L": 0, "M": -3}
    res = play({"W": DRY3, "L": [], "M": ["12-1"]}, stopped_by="W", bonus_junk={"L": 2})
    assert res.scores["L"] == -6                              # a joker is a card


def test_baks_are_per_loser_and_zero_sum():
    res = play({"W": DRY3 + TEN_PI, "A": ["11-3"] + list(SINGLE_PI[10:15]),
                "B": ["12-1"] + list(SINGLE_PI[15:21])}, stopped_by="W")
    assert res.scores == {"W": 16 + 4, "A": -16, "B": -4}
    assert sum(res.scores.values()) == 0


# --- 4.3 rounds without a normal stop --------------------------------------------------------

def test_nagari_scores_nothing_and_the_dealer_deals_again():
    res = play({"A": DRY3, "B": ["12-1"], "C": []}, outcome="nagari")
    assert res.scores == {"A": 0, "B": 0, "C": 0} and res.winner is None
    assert res.next_dealer == "A" and any("×2" in line for line in res.explanation)
    res = play({"A": DRY3, "B": ["12-1"], "C": []})          # nobody stopped: a nagari
    assert res.winner is None


def test_instant_win_pays_the_stop_minimum():
    res = play({"A": [], "B": ["12-1"], "C": []}, stopped_by="A", outcome="instant")
    assert res.scores == {"A": 6, "B": -3, "C": -3}
    res = play({"A": [], "B": ["12-1"]}, mg(instant_win_points=10), stopped_by="A",
               outcome="chongtong")
    assert res.scores == {"A": 10, "B": -10}


def test_winner_deals_next_and_the_nagari_carry_comes_from_the_log():
    res = play({"B": DRY3, "A": ["12-1"], "C": ["11-1"]}, stopped_by="B")
    assert res.next_dealer == "B"
    draw = play({"A": [], "B": [], "C": []})
    assert VARIANT.context_from_log([res, draw, draw], GOSTOP) == {"nagari": 2}
    assert VARIANT.context_from_log([draw, res], GOSTOP) == {"nagari": 0}


# --- options of section 2 ----------------------------------------------------------------------

def test_sagwang_variants():
    wet, dry = ["01-1", "03-1", "08-1", "11-1"], ["01-1", "03-1", "08-1", "12-1"]
    assert (total(wet, gs(sagwang="rain_3")), total(dry, gs(sagwang="rain_3"))) == (3, 4)
    assert (total(wet, gs(sagwang="wet4_dry5")), total(dry, gs(sagwang="wet4_dry5"))) == (4, 5)
    assert total(wet, gs(sagwang="5")) == 5


def test_godori_variants():
    assert total(BIRDS, gs(godori="3")) == 3
    four = BIRDS + ["11-2"]
    assert yaku(four, gs(godori="swallow_10")) == {"godori": 10}
    assert yaku(BIRDS, gs(godori="swallow_10")) == {"godori": 5}


def test_willow_ribbon_variants():
    pile = ["04-2", "05-2", "11-3", "01-2", "06-2"]
    assert yaku(pile) == {"tti": 1}
    assert yaku(pile, gs(willow_ribbon="chodan")) == {"chodan": 3, "tti": 1}
    assert yaku(pile, gs(willow_ribbon="chodan_not_counted")) == {"chodan": 3}


def test_ten_ribbons():
    ribbons = [c for c in CODES if c.endswith("-2") and c not in ("08-2", "11-2", "12-2")]
    ribbons += ["11-3"]
    assert yaku(ribbons)["tti"] == 6 and total(ribbons) == 15
    assert yaku(ribbons, gs(ten_ribbons="15"))["tti"] == 15


def test_points_and_yaku_switches():
    assert total(BIRDS, gs(**{"points.godori": "7"})) == 7
    assert yaku(["01-1", "03-1", "08-1", "12-1"], gs(**{"yaku.sagwang": "off"})) == \
        {"samgwang": 3}


def test_bonus_junk_option_for_one_pile():
    assert yaku(TEN_PI[:7], gs(bonus_junk=3)) == {"pi": 1}
    assert counts([], gs(bonus_junk=2))["junk"] == 2
    with pytest.raises(InputError, match="more than the deck's bonus cards hold: 7"):
        find_yaku(TEN_PI, gs(bonus_junk=8))


def test_house_rules_file(tmp_path):
    f = tmp_path / "house.toml"
    f.write_text('preset = "matgo"\n[options]\nstop_minimum = 5\ngo_scheme = "flat_double"\n')
    rs = get_ruleset(rules_file=f)
    assert rs.name == "matgo" and rs["stop_minimum"] == 5 and rs["pibak_max"] == 7
    assert set(rs.changed) == {"stop_minimum", "go_scheme"}


def test_presets():
    assert (GOSTOP.min_players, GOSTOP.max_players) == (3, 3)
    assert (MATGO.min_players, MATGO.max_players) == (2, 2)
    assert (GOSTOP["stop_minimum"], GOSTOP["pibak_max"], GOSTOP["gobak"]) == \
        (3, 5, "both_shares")
    assert (MATGO["stop_minimum"], MATGO["pibak_max"], MATGO["gobak"]) == (7, 7, "double")
    assert all(o.source.startswith("RULES-gostop") for o in VARIANT.options)
    tokens = {t for o in VARIANT.options for t in o.source.replace(",", " ").replace(";", " ")
              .split()}
    assert {f"G{i}" for i in range(1, 20)} <= tokens          # every disputed point


# --- 5. validation -------------------------------------------------------------------------------

def bad(piles, rs=GOSTOP, needle="", **context):
    with pytest.raises(InputError, match=needle):
        play(piles, rs, **context)


def test_card_in_two_piles():
    bad({"A": DRY3, "B": ["01-1"], "C": []}, needle="in two piles", stopped_by="A")


def test_winner_below_the_stop_minimum():
    bad({"A": ["01-1", "03-1"], "B": [], "C": []}, needle="below the stop minimum 3",
        stopped_by="A")
    bad({"A": DRY3 + BIRDS[:2], "B": []}, MATGO, needle="3 points, below the stop minimum 7",
        stopped_by="A")


def test_go_counts_for_a_player_not_in_the_round():
    bad({"A": DRY3, "B": [], "C": []}, needle="goes for unknown player 'Z'", stopped_by="A",
        goes={"Z": 1})


def test_more_junk_than_a_deck_holds():
    bad({"A": DRY3, "B": [], "C": []}, needle="but a deck holds at most", stopped_by="A",
        bonus_junk={"B": 5, "C": 5})
    bad({"A": DRY3, "B": [], "C": []}, needle=r"hold 40 junk \(bonus junk 40\) but a deck "
        r"holds at most 33", stopped_by="A", bonus_junk={"B": 40})
    bad({"A": DRY3, "B": []}, mg(bonus_cards="none"), needle="0 in bonus cards",
        stopped_by="A", bonus_junk={"B": 2})


def test_four_players_in_gostop():
    bad({"A": DRY3, "B": [], "C": [], "D": []}, needle="gostop is for 3 players, not 4",
        stopped_by="A")
    bad({"A": DRY3, "B": [], "C": []}, MATGO, needle="matgo is for 2 players, not 3")


def test_outcome_and_go_order_checks():
    bad({"A": DRY3, "B": [], "C": []}, needle="a nagari has no winner", stopped_by="A",
        outcome="nagari")
    bad({"A": DRY3, "B": [], "C": []}, needle="needs the winner", outcome="stop")
    bad({"A": DRY3, "B": ["01-3"], "C": ["01-4"]}, needle="give go_order", stopped_by="A",
        goes={"B": 1, "C": 1})
    bad({"A": DRY3, "B": [], "C": []}, needle="called no go", stopped_by="A",
        go_order=["B"])
    bad({"A": DRY3, "B": [], "C": []}, needle="unknown 'maybe'", stopped_by="A",
        outcome="maybe")


def test_a_go_caller_below_the_minimum_is_allowed_and_still_liable():
    res = play({"W": DRY3, "P1": ["01-3"], "P2": ["01-4"]}, stopped_by="W",
               goes={"P1": 2})
    assert res.scores["P1"] == -12


def test_sake_cup_declared_per_player():
    pile = ["09-1"] + TEN_PI[:9] + DRY3                     # junk: pi 2 + 3; animal: 3
    res = play({"W": pile, "L": ["12-1"], "M": ["11-1"]}, stopped_by="W",
               sake_cup={"W": "animal"})
    assert res.scores["L"] == -3
    res = play({"W": pile, "L": ["12-1"], "M": ["11-1"]}, stopped_by="W")
    assert res.scores["L"] == -5


def test_best_sake_cup_lets_a_loser_escape_pi_bak():
    loser = ["09-1"] + list(SINGLE_PI[10:14]) + ["12-1"]    # 4 junk; with the cup 6
    res = play({"W": TEN_PI + DRY3, "L": loser, "M": ["11-1"]}, stopped_by="W")
    assert res.scores["L"] == -4                            # the cup as junk: no pi-bak
    res = play({"W": TEN_PI + DRY3, "L": loser, "M": ["11-1"]}, stopped_by="W",
               sake_cup={"L": "animal"})
    assert res.scores["L"] == -8


# --- 6. the worked examples, through the command line -----------------------------------------

EXAMPLES = [
    # (rules, piles, context, winner's base, payments)
    ("matgo", {"W": "01-1 03-1 08-1 02-1 04-1 08-2", "L": "01-3"},
     {"goes": {"W": 1}, "shakes": {"W": 1}}, 8, {"L": 36}),
    ("matgo", {"W": "01-1 03-1 08-1 12-1", "L": "11-1"}, {"goes": {"W": 3}}, 4, {"L": 14}),
    ("matgo", {"W": "01-3 01-4 02-3 02-4 03-3 03-4 04-3 04-4 05-3 05-4 "
                    "02-1 04-1 05-1 06-1 07-1 08-2 09-1 01-1 03-1 08-1", "L": "06-3 06-4"},
     {}, 12, {"L": 96}),
    ("gostop", {"W": "01-1 03-1 08-1", "P1": "01-3", "P2": "01-4"}, {"goes": {"P1": 1}}, 3,
     {"P1": 12, "P2": 0}),
    ("gostop", {"W": "01-1 03-1 08-1 " + " ".join(TEN_PI) + " 02-1 04-1 05-1 06-1 07-1",
                "A": "06-3 06-4 07-3 07-4 08-3", "B": "12-1 08-4 09-3 09-4 10-3 10-4 12-3"},
     {}, 5, {"A": 20, "B": 5}),
    ("matgo", {"W": " ".join(CODES), "L": ""}, {}, 58, {"L": 0}),
]
EXAMPLE_TEXT = ["(8 + 1 go) × 2 shake × 2 gwang-bak = 36", "(4 + 3 go) × 2 (3 goes) = 14",
                "12 × 2 meongtta × 2 gwang-bak × 2 pi-bak = 96", "= 12", "× 2 pi-bak = 20",
                "no cards at all"]


def cli_json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("number", range(1, 7))
def test_worked_example_through_yaku(capsys, number):
    rules, piles, _, base, _ = EXAMPLES[number - 1]
    out = cli_json(capsys, "yaku", "--rules", rules, *piles["W"].split())
    assert out["total"] == base
    assert set(out["counts"]) == {"brights", "animals", "ribbons", "junk"}
    assert all(set(y) >= {"name", "points", "cards"} for y in out["yaku"])


def test_example_six_both_readings_of_the_sake_cup(capsys):
    for mode, base, junk in (("junk", 58, 28), ("animal", 57, 26), ("best", 58, 28)):
        out = cli_json(capsys, "yaku", "--rules", "matgo", "--set", f"sake_cup={mode}",
                       *CODES)
        assert (out["total"], out["counts"]["junk"]) == (base, junk)
        assert {y["name"] for y in out["yaku"]} == {"ogwang", "godori", "hongdan",
                                                    "cheongdan", "chodan", "yeol", "tti",
                                                    "pi"}


@pytest.mark.parametrize("number", range(1, 7))
def test_worked_example_through_score(capsys, tmp_path, number):
    rules, piles, context, base, pays = EXAMPLES[number - 1]
    f = tmp_path / "round.json"
    f.write_text(json.dumps({"rules": rules, "players": list(piles),
                             "piles": {k: v.split() for k, v in piles.items()},
                             "context": {"stopped_by": "W", **context}}))
    out = cli_json(capsys, "score", str(f))
    assert out["scores"] == {"W": sum(pays.values()), **{k: -v for k, v in pays.items()}}
    assert sum(out["scores"].values()) == 0 and out["winner"] == "W"
    assert f"= {base};" in out["results"]["W"]["explanation"]
    assert any(EXAMPLE_TEXT[number - 1] in line for line in out["explanation"])


def test_the_installed_command_keeps_the_contract():
    from tests.test_cli_scoring import ok_json
    out = ok_json("yaku", "--rules", "gostop", "--set", "bonus_junk=2", *TEN_PI[:8])
    assert out["total"] == 1 and out["counts"]["junk"] == 10
    assert out["yaku"][0]["name"] == "pi"


def test_rules_lists_every_option_with_its_source(capsys):
    for preset in ("gostop", "matgo"):
        out = cli_json(capsys, "rules", preset)
        rows = {r["key"]: r for r in out["options"]}
        assert {o.key for o in VARIANT.options} <= set(rows)
        assert all(rows[o.key]["source"] for o in VARIANT.options)
    assert main(["rules", "gostop"]) == 0
    text = capsys.readouterr().out
    assert all(o.key in text for o in VARIANT.options) and "[RULES-gostop 4.2, G16" in text


# --- properties ------------------------------------------------------------------------------------

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def rounds(draw):
    rs = draw(st.sampled_from([GOSTOP, MATGO, gs(gobak_liable="last", meongbak="winner_5"),
                               mg(gwangbak_penalty="plus_2", shake="plus_one")]))
    n = rs.max_players
    players = [f"P{i}" for i in range(n)]
    deck = draw(st.permutations(CODES))
    cuts = sorted(draw(st.lists(st.integers(0, 48), min_size=n - 1, max_size=n - 1)))
    bounds = [0] + cuts + [48]
    piles = {p: list(deck[bounds[i]:bounds[i + 1]]) for i, p in enumerate(players)}
    counts = st.dictionaries(st.sampled_from(players), st.integers(0, 4), max_size=n)
    goes = draw(counts)
    ctx = {"goes": goes, "shakes": draw(counts), "bombs": draw(counts),
           "nagari": draw(st.integers(0, 3)),
           "go_order": draw(st.permutations([p for p, g in goes.items() if g]))}
    return rs, players, piles, ctx


def _stopped(rs, players, piles, ctx):
    """Score the round with the first player who may stop as the winner (or None)."""
    for p in players:
        try:
            return score_round(RoundInput(players, piles, players[0], None,
                                          {**ctx, "stopped_by": p}), rs), p
        except InputError as exc:
            assert "below the stop minimum" in str(exc)
    return None, None


@FAST
@given(rounds())
def test_settlement_sums_to_zero(r):
    res, winner = _stopped(*r)
    if res is not None:
        assert sum(res.scores.values()) == 0
        assert res.scores[winner] >= 0 and all(v <= 0 for k, v in res.scores.items()
                                               if k != winner)


@FAST
@given(rounds())
def test_baks_never_apply_to_the_winner(r):
    res, winner = _stopped(*r)
    if res is not None:
        assert "bak" not in res.results[winner].explanation


@FAST
@given(st.data())
def test_adding_a_junk_never_lowers_the_total(data):
    rs = data.draw(st.sampled_from([GOSTOP, MATGO, gs(sake_cup="junk"),
                                    gs(willow_ribbon="chodan_not_counted")]))
    pile = data.draw(st.lists(st.sampled_from(CODES), unique=True, max_size=47))
    junk = [c for c in PI if c not in pile]
    if junk:
        extra = data.draw(st.sampled_from(junk))
        assert total(pile + [extra], rs) >= total(pile, rs)
    assert total(pile, gs(bonus_junk=2)) >= total(pile, GOSTOP)
