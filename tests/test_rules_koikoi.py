"""Koi-Koi: every yaku found and not found, the options both ways, the round score.

Expected points are worked out by hand from RULES.md section 2.
"""

import pytest

from scorer.cards import CODES
from scorer.errors import InputError
from scorer.rules import RoundInput, find_yaku, get_ruleset, score_round

KOIKOI = get_ruleset("koikoi")
CHAFF9 = ["01-3", "01-4", "02-3", "02-4", "03-3", "03-4", "04-3", "04-4", "11-4"]


def yaku(codes, rs=KOIKOI, **ctx):
    return {y.name: y.points for y in find_yaku(codes, rs, ctx or None).yaku}


def ko(**overrides):
    return get_ruleset("koikoi", overrides=overrides)


# --- brights -------------------------------------------------------------------------

def test_goko_only_the_best_bright_yaku():
    assert yaku(["01-1", "03-1", "08-1", "11-1", "12-1"]) == {"goko": 10}


def test_shiko():
    assert yaku(["01-1", "03-1", "08-1", "12-1"]) == {"shiko": 8}


def test_ame_shiko_and_option_sanko():
    pile = ["11-1", "01-1", "03-1", "12-1"]
    assert yaku(pile) == {"ame_shiko": 7}
    assert yaku(pile, ko(rain_man_three="sanko")) == {"sanko": 5}


def test_sanko():
    assert yaku(["01-1", "03-1", "12-1"]) == {"sanko": 5}


def test_rain_man_plus_two_dry_is_nothing():
    assert yaku(["11-1", "01-1", "12-1"]) == {}
    assert yaku(["01-1", "12-1"]) == {}


# --- viewing -------------------------------------------------------------------------

def test_hanami_and_tsukimi():
    assert yaku(["03-1", "09-1"]) == {"hanami": 5}
    assert yaku(["08-1", "09-1"]) == {"tsukimi": 5}
    assert yaku(["03-1", "08-1", "09-1"]) == {"hanami": 5, "tsukimi": 5}
    assert yaku(["03-1", "08-1"]) == {}


def test_viewing_off():
    assert yaku(["03-1", "08-1", "09-1"], ko(viewing="off")) == {}


def test_viewing_only_with_another_yaku():
    rs = ko(viewing="with_other")
    assert yaku(["03-1", "09-1"], rs) == {}
    assert yaku(["01-1", "03-1", "08-1", "09-1"], rs) == {"sanko": 5, "hanami": 5,
                                                          "tsukimi": 5}


def test_viewing_rain_cancels():
    rs = ko(viewing="rain_cancels")
    assert yaku(["03-1", "09-1", "11-1"], rs) == {}
    assert yaku(["03-1", "09-1", "11-2"], rs) == {"hanami": 5}
    assert yaku(["03-1", "09-1", "11-1"]) == {"hanami": 5}  # default: no cancelling


# --- animals -------------------------------------------------------------------------

ISC = ["06-1", "07-1", "10-1"]


def test_ino_shika_cho_plus_one_per_extra_animal_and_no_tane():
    assert yaku(ISC) == {"ino_shika_cho": 5}
    assert yaku(ISC + ["02-1", "04-1"]) == {"ino_shika_cho": 7}
    all_animals = ISC + ["02-1", "04-1", "05-1", "08-2", "09-1", "11-2"]
    assert yaku(all_animals) == {"ino_shika_cho": 11}


def test_set_yaku_stack_flat():
    rs = ko(set_yaku="stack_flat")
    assert yaku(ISC + ["02-1", "04-1"], rs) == {"ino_shika_cho": 5, "tane": 1}
    assert yaku(ISC + ["02-1"], rs) == {"ino_shika_cho": 5}


def test_set_yaku_stack_extras():
    rs = ko(set_yaku="stack_extras")
    assert yaku(ISC + ["02-1", "04-1"], rs) == {"ino_shika_cho": 7, "tane": 1}


def test_tane():
    assert yaku(["02-1", "04-1", "05-1", "08-2", "11-2"]) == {"tane": 1}
    assert yaku(["02-1", "04-1", "05-1", "08-2", "11-2", "06-1"]) == {"tane": 2}
    assert yaku(["02-1", "04-1", "05-1", "08-2"]) == {}


# --- ribbons -------------------------------------------------------------------------

AKA = ["01-2", "02-2", "03-2"]
AO = ["06-2", "09-2", "10-2"]


def test_akatan_aotan_with_extras():
    assert yaku(AKA) == {"akatan": 5}
    assert yaku(AO) == {"aotan": 5}
    assert yaku(AKA + ["04-2", "11-3"]) == {"akatan": 7}
    assert yaku(AKA + AO) == {"akatan_aotan": 10}
    all_ribbons = AKA + AO + ["04-2", "05-2", "07-2", "11-3"]
    assert yaku(all_ribbons) == {"akatan_aotan": 14}


def test_ribbons_stack_flat():
    all_ribbons = AKA + AO + ["04-2", "05-2", "07-2", "11-3"]
    assert yaku(all_ribbons, ko(set_yaku="stack_flat")) == {"akatan": 5, "aotan": 5,
                                                            "tan": 6}


def test_tan():
    assert yaku(["04-2", "05-2", "07-2", "11-3", "01-2"]) == {"tan": 1}
    assert yaku(["04-2", "05-2", "07-2", "11-3"]) == {}


# --- chaff and the sake cup ----------------------------------------------------------

def test_kasu_counts_lightning_and_yellow_paulownia():
    assert yaku(CHAFF9 + ["12-2"]) == {"kasu": 1}
    assert yaku(CHAFF9 + ["12-2", "12-3", "12-4"]) == {"kasu": 3}
    assert yaku(CHAFF9) == {}


def test_sake_cup_both_animal_and_chaff():
    assert yaku(CHAFF9 + ["09-1"]) == {"kasu": 1}
    assert yaku(CHAFF9 + ["09-1", "02-1", "04-1", "05-1", "08-2"]) == {"kasu": 1, "tane": 1}


def test_sake_cup_animal_only():
    rs = ko(sake_cup="animal")
    assert yaku(CHAFF9 + ["09-1"], rs) == {}
    assert yaku(["09-1", "02-1", "04-1", "05-1", "08-2"], rs) == {"tane": 1}


def test_sake_cup_either_takes_the_better():
    rs = ko(sake_cup="either")
    assert yaku(CHAFF9 + ["09-1"], rs) == {"kasu": 1}
    assert yaku(["09-1", "02-1", "04-1", "05-1", "08-2"], rs) == {"tane": 1}
    # not both at once
    assert sum(yaku(CHAFF9 + ["09-1", "02-1", "04-1", "05-1", "08-2"], rs).values()) == 1


def test_full_deck():
    # goko 10 + ino-shika-cho 5+6 + akatan/aotan 10+4 + kasu (24 chaff + sake cup) 1+15
    # + hanami 5 + tsukimi 5
    assert yaku(CODES) == {"goko": 10, "ino_shika_cho": 11, "akatan_aotan": 14,
                           "kasu": 16, "hanami": 5, "tsukimi": 5}
    assert find_yaku(CODES, KOIKOI).total == 61


# --- tsuki-fuda, tables, overrides ---------------------------------------------------

def test_tsukifuda_option():
    march = ["03-1", "03-2", "03-3", "03-4"]
    assert yaku(march, ko(tsukifuda=True), month=3) == {"tsukifuda": 4}
    assert yaku(march, ko(tsukifuda=True), month=4) == {}
    assert yaku(march, KOIKOI, month=3) == {}


@pytest.mark.parametrize("table, pile, expected", [
    ("fudawiki", ["01-1", "03-1", "08-1", "11-1", "12-1"], {"goko": 15}),
    ("fudawiki", ["01-1", "03-1", "12-1"], {"sanko": 6}),
    ("video", ["01-1", "03-1", "08-1", "12-1"], {"shiko": 10}),
    ("video", ["03-1", "09-1"], {"hanami": 3}),
    ("video", ["11-1", "01-1", "03-1", "12-1"], {"ame_shiko": 8}),
    ("fudawiki_viewing3", ["08-1", "09-1"], {"tsukimi": 3}),
    ("app", AKA, {"akatan": 6}),
])
def test_point_tables(table, pile, expected):
    assert yaku(pile, ko(point_table=table)) == expected


def test_points_override():
    rs = get_ruleset("koikoi", overrides={"points.goko": "12"})
    assert yaku(["01-1", "03-1", "08-1", "11-1", "12-1"], rs) == {"goko": 12}
    with pytest.raises(InputError, match="unknown yaku 'gokou'"):
        get_ruleset("koikoi", overrides={"points.gokou": "12"})


# --- rounds --------------------------------------------------------------------------

SANKO_VIEW = ["01-1", "03-1", "08-1", "09-1"]  # sanko 5 + hanami 5 + tsukimi 5 = 15


def rnd(rs=KOIKOI, stopped_by="A", calls=None, a=SANKO_VIEW, b=("12-3",), **ctx):
    context = {"stopped_by": stopped_by, "koikoi_calls": calls or {}, **ctx}
    return score_round(RoundInput(["A", "B"], {"A": list(a), "B": list(b)}, "A",
                                  context=context), rs)


def test_only_the_stopper_scores_and_doubles_at_seven():
    res = rnd()
    assert res.scores == {"A": 30, "B": 0} and res.winner == "A"
    assert res.results["A"].multiplier == 2 and res.next_dealer == "A"


def test_opponent_koikoi_doubles_again():
    assert rnd(calls={"B": 1}).scores == {"A": 60, "B": 0}
    assert rnd(calls={"B": 3}).scores == {"A": 60, "B": 0}  # number of calls irrelevant
    assert rnd(calls={"A": 2}).scores == {"A": 30, "B": 0}  # own calls do not count


def test_double_at_seven_off_and_threshold():
    assert rnd(ko(double_at_seven=False)).scores["A"] == 15
    six = ISC + ["02-1"]  # ino-shika-cho 5 +1 = 6
    seven = ISC + ["02-1", "04-1"]  # 7
    assert rnd(a=six).scores["A"] == 6
    assert rnd(a=seven).scores["A"] == 14
    assert rnd(ko(double_threshold=6), a=six).scores["A"] == 12


@pytest.mark.parametrize("mode, calls, expected", [
    ("anyone", {"A": 1}, 60), ("anyone", {"B": 1}, 60), ("anyone", {}, 30),
    ("self", {"A": 1}, 60), ("self", {"B": 1}, 30),
    ("per_call", {"A": 1, "B": 2}, 30 * 4), ("per_call", {}, 30),
    ("none", {"B": 2}, 30),
])
def test_koikoi_multiplier_modes(mode, calls, expected):
    assert rnd(ko(koikoi_multiplier=mode), calls=calls).scores["A"] == expected


def test_stopper_without_yaku_is_an_error():
    with pytest.raises(InputError, match="forms no yaku"):
        rnd(a=["01-1"])


def test_exhaustive_draw_options():
    res = rnd(stopped_by=None)
    assert res.scores == {"A": 0, "B": 0} and res.winner is None and res.next_dealer == "A"
    assert rnd(ko(exhaustive_draw="dealer_switches"), stopped_by=None).next_dealer == "B"
    res = rnd(ko(exhaustive_draw="oyaken_6"), stopped_by=None)
    assert res.scores == {"A": 6, "B": 0} and res.winner == "A"
    assert rnd(ko(exhaustive_draw="oyaken_1"), stopped_by=None).scores["A"] == 1


def test_teyaku():
    res = rnd(stopped_by=None, teyaku={"B": "teshi"}, calls={"A": 1})
    assert res.scores == {"A": 0, "B": 6} and res.winner == "B" and res.next_dealer == "B"
    assert rnd(stopped_by=None, teyaku={"B": "both"}).scores["B"] == 6
    assert rnd(ko(teyaku_both_kinds=12), stopped_by=None,
               teyaku={"B": ["teshi", "kuttsuki"]}).scores["B"] == 12
    assert rnd(ko(teyaku_points=4), stopped_by=None, teyaku={"A": "kuttsuki"}).scores["A"] == 4


def test_teyaku_both_players():
    res = rnd(stopped_by=None, teyaku={"A": "teshi", "B": "kuttsuki"})
    assert res.scores == {"A": 0, "B": 0} and res.winner is None
    rs = ko(teyaku_both_players="ignore")
    res = rnd(rs, teyaku={"A": "teshi", "B": "kuttsuki"})
    assert res.scores == {"A": 30, "B": 0}


def test_teyaku_and_stopper_conflict():
    with pytest.raises(InputError, match="won at the deal"):
        rnd(teyaku={"B": "teshi"})
    with pytest.raises(InputError, match="teyaku for B: unknown"):
        rnd(teyaku={"B": "four"})
    with pytest.raises(InputError, match="teyaku for B: unknown 'four'"):
        rnd(stopped_by=None, teyaku={"B": ["teshi", "four"]})
    with pytest.raises(InputError, match="teyaku for unknown player 'Z'"):
        rnd(stopped_by=None, teyaku={"Z": "teshi"})


def test_koikoi_modern_preset():
    rs = get_ruleset("koikoi-modern")
    # akatan 6 + aotan 6 + tan (6 ribbons) 2 = 14; no doubling at 7+, no koi-koi multiplier
    res = rnd(rs, a=AKA + AO, calls={"B": 1})
    assert res.scores["A"] == 14
    assert yaku(["03-1", "08-1", "09-1"], rs) == {}
    assert yaku(["01-1", "03-1", "08-1", "11-1", "12-1"], rs) == {"goko": 15}
    assert yaku(["01-1", "03-1", "08-1", "12-1"], rs) == {"shiko": 10}
    assert yaku(CHAFF9 + ["09-1", "02-1", "04-1", "05-1", "08-2"], rs) == {"kasu": 1,
                                                                          "tane": 1}


def test_koikoi_classic_preset():
    rs = get_ruleset("koikoi-classic")
    assert rnd(rs, calls={"A": 1, "B": 1}).scores["A"] == 30 * 3
    assert rnd(rs, calls={"A": 1}).scores["A"] == 30 * 2


def test_two_scorers_and_unknown_stopper():
    with pytest.raises(InputError, match="only one player can stop"):
        rnd(stopped_by=["A", "B"])
    with pytest.raises(InputError, match="stopped_by 'C' is not a player"):
        rnd(stopped_by="C")
    with pytest.raises(InputError, match="koikoi_calls for unknown player"):
        rnd(calls={"Z": 1})
    with pytest.raises(InputError, match="koikoi_calls for A"):
        rnd(calls={"A": -1})


@pytest.mark.parametrize("name, pile", [
    ("tane", ["02-1", "04-1", "05-1", "08-2", "09-1", "11-2"]),
    ("tan", ["01-2", "04-2", "05-2", "06-2", "07-2", "11-3"]),
    ("kasu", CHAFF9 + ["05-3", "05-4", "12-2"]),
])
def test_a_yaku_with_extras_lists_each_card_once(name, pile):
    found = {y.name: y for y in find_yaku(pile, KOIKOI).yaku}[name]
    assert sorted(found.cards) == sorted(pile)
    assert found.points == len(pile) - {"tane": 4, "tan": 4, "kasu": 9}[name]
