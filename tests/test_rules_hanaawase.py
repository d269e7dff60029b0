"""Hana-Awase: card values, every yaku found and not found, exclusive groups, options,
additive and zero-sum settlement. Expected values worked out by hand from RULES.md section 3."""

import pytest

from scorer.cards import CODES
from scorer.rules import RoundInput, find_yaku, get_ruleset, score_round
from scorer.rules.hanaawase import card_values

ADD = get_ruleset("hanaawase")
ZERO = get_ruleset("hanaawase-zero-sum")


def yaku(codes, rs=ADD):
    return {y.name: y.points for y in find_yaku(codes, rs).yaku}


def ha(**overrides):
    return get_ruleset("hanaawase", overrides=overrides)


def test_card_values_264_and_240():
    values = card_values(ADD)
    assert values["01-1"] == 20 and values["11-1"] == 20 and values["09-1"] == 10
    assert values["11-3"] == 5 and values["12-2"] == 1 and values["11-4"] == 1
    assert sum(values.values()) == 264
    assert sum(card_values(ha(chaff_points=0)).values()) == 240


@pytest.mark.parametrize("pile, expected", [
    (["01-1", "03-1", "08-1", "11-1", "12-1"], {"five_brights": 100}),
    (["01-1", "03-1", "08-1", "12-1"], {"four_brights": 60}),
    (["01-1", "02-1", "03-1"], {"spring": 30}),
    (["01-1", "08-1", "12-1"], {"pine_paulownia_moon": 20}),
    (["01-2", "02-2", "03-2"], {"akatan": 40}),
    (["06-2", "09-2", "10-2"], {"aotan": 40}),
    (["04-2", "05-2", "07-2"], {"kusatan": 20}),
    (["06-1", "07-1", "10-1"], {"ino_shika_cho": 20}),
    (["03-1", "08-1", "09-1"], {"drinking": 40}),
    (["03-1", "09-1"], {"hanami": 20}),
    (["08-1", "09-1"], {"tsukimi": 20}),
    (["11-1", "11-2", "11-3", "11-4"], {"willow_row": 10}),
    (["04-1", "04-2", "04-3", "04-4"], {"wisteria_row": 10}),
    (["12-1", "12-2", "12-3", "12-4"], {"paulownia_row": 10}),
])
def test_each_yaku_found_and_not_without_a_card(pile, expected):
    assert yaku(pile) == expected
    for i in range(len(pile)):
        assert not set(yaku(pile[:i] + pile[i + 1:])) & set(expected)


def test_six_and_seven_ribbons_exclude_the_willow_ribbon():
    six = ["01-2", "02-2", "04-2", "05-2", "06-2", "09-2"]  # no complete colour
    assert yaku(six) == {"six_ribbons": 30}
    # any seven of the nine complete one colour, which stacks
    assert yaku(six + ["10-2"]) == {"seven_ribbons": 40, "aotan": 40}
    assert yaku(six + ["10-2", "07-2"]) == {"seven_ribbons": 40, "aotan": 40, "kusatan": 20}
    assert yaku(["01-2", "02-2", "04-2", "05-2", "06-2", "11-3"]) == {}
    assert yaku(six[:5] + ["11-3"]) == {}


def test_full_deck():
    # five 100 + seven ribbons 40 + akatan 40 + aotan 40 + kusatan 20 + ISC 20
    # + drinking 40 + three rows 30 = 330; cards 264
    s = find_yaku(CODES, ADD)
    assert s.yaku_points == 330 and s.card_points == 264 and s.total == 594


def test_options_five_brights_paulownia_row_rain_cancels():
    five = ["01-1", "03-1", "08-1", "11-1", "12-1"]
    assert yaku(five, ha(five_brights=200)) == {"five_brights": 200}
    assert yaku(["12-1", "12-2", "12-3", "12-4"], ha(paulownia_row=False)) == {}
    rs = ha(rain_cancels_viewing=True)
    assert yaku(["03-1", "09-1", "11-1"], rs) == {}
    assert yaku(["03-1", "09-1", "11-2"], rs) == {"hanami": 20}
    assert yaku(["03-1", "09-1", "11-1"]) == {"hanami": 20}


# Three players: A spring (cards 50), B akatan (cards 15), C the rest (cards 199; yaku
# six ribbons 30, aotan 40, kusatan 20, ino-shika-cho 20, tsukimi 20, three rows 30 = 160).
A = ["01-1", "02-1", "03-1"]
B = ["01-2", "02-2", "03-2"]
C = [c for c in CODES if c not in A + B]


def three(rs):
    return score_round(RoundInput(["A", "B", "C"], {"A": A, "B": B, "C": C}, "A"), rs)


def test_additive_round():
    res = three(ADD)
    assert {k: r.card_points for k, r in res.results.items()} == {"A": 50, "B": 15, "C": 199}
    assert {k: r.yaku_points for k, r in res.results.items()} == {"A": 30, "B": 40, "C": 160}
    assert res.scores == {"A": 80, "B": 55, "C": 359}
    assert res.winner == "C" and res.next_dealer == "C"


def test_zero_sum_round():
    res = three(ZERO)
    # par 88; score = (cards - 88) + yaku x 2 - others' yaku
    assert res.scores == {"A": 50 - 88 + 60 - 200, "B": 15 - 88 + 80 - 190,
                          "C": 199 - 88 + 320 - 70}
    assert sum(res.scores.values()) == 0


def test_zero_sum_with_chaff_zero_par_80():
    res = three(get_ruleset("hanaawase-zero-sum", overrides={"chaff_points": 0}))
    # chaff 0: A 50, B 15, C 199 - 24 = 175 -> total 240, par 80
    assert res.scores["A"] == 50 - 80 + 60 - 200
    assert sum(res.scores.values()) == 0


def test_willow_row_options():
    assert three(ha(willow_row="cancels_all")).scores == {"A": 50, "B": 15, "C": 199}
    assert three(ha(willow_row="only_holder")).scores == {"A": 50, "B": 15, "C": 359}


def test_fuke_voids_the_round():
    res = three(ha(fuke=True))
    assert res.scores == {"A": 0, "B": 0, "C": 0} and res.winner is None
    assert res.next_dealer == "A"


def test_rain_cancels_viewing_in_a_round():
    assert three(ha(rain_cancels_viewing=True)).scores["C"] == 199 + 140


def test_tie_goes_to_earliest_in_turn_order_from_dealer():
    piles = {"A": ["01-3"], "B": ["02-3"], "C": []}
    res = score_round(RoundInput(["A", "B", "C"], piles, "B"), ADD)
    assert res.winner == "B" and sorted(res.tied) == ["A", "B"]
    res = score_round(RoundInput(["A", "B", "C"], piles, "C"), ADD)
    assert res.winner == "A"
