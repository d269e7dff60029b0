"""Sakura: card values, the eight yaku, round scores, teams, ties, gaji leftovers, chu/basa.

Expected values are worked out by hand from RULES.md section 1, not taken from the code.
"""

import pytest

from scorer.cards import CODES
from scorer.errors import InputError
from scorer.rules import RoundInput, find_yaku, get_ruleset, score_round
from scorer.rules.sakura import card_values, victories

SAKURA = get_ruleset("sakura")

TWENTY = {"01-1", "03-1", "08-1", "12-1"}
TEN = {"01-2", "02-2", "03-2", "04-2", "05-2", "06-2", "07-2", "09-2", "10-2", "11-3",
       "12-2"}
FIVE = {"02-1", "04-1", "05-1", "06-1", "07-1", "08-2", "09-1", "10-1", "11-1", "11-2"}

YAKU = {
    "drinking": ("03-1", "08-1", "09-1"),
    "spring": ("01-1", "02-1", "03-1"),
    "akatan": ("01-2", "02-2", "03-2"),
    "aotan": ("06-2", "09-2", "10-2"),
    "aotan_animals": ("06-1", "09-1", "10-1"),
    "kusatan": ("04-2", "05-2", "07-2"),
    "kusatan_animals": ("04-1", "05-1", "07-1"),
    "inoshikagan": ("07-1", "08-2", "10-1"),
}


def names(summary):
    return sorted(y.name for y in summary.yaku)


def test_card_values_by_hand():
    values = card_values(SAKURA)
    for code in CODES:
        expected = 20 if code in TWENTY else 10 if code in TEN else 5 if code in FIVE else 0
        assert values[code] == expected, code
    assert sum(values.values()) == 240
    assert values["11-1"] == 5 and values["11-4"] == 0


def test_yellow_paulownia_option_both_ways():
    assert find_yaku(["12-2"], SAKURA).card_points == 10
    zero = get_ruleset("sakura", overrides={"yellow_paulownia": "0"})
    assert find_yaku(["12-2"], zero).card_points == 0
    assert sum(card_values(zero).values()) == 230


@pytest.mark.parametrize("name", sorted(YAKU))
def test_each_yaku_found(name):
    summary = find_yaku(YAKU[name], SAKURA)
    assert name in names(summary)
    hit = next(y for y in summary.yaku if y.name == name)
    assert hit.points == 50 and sorted(hit.cards) == sorted(YAKU[name])


@pytest.mark.parametrize("name", sorted(YAKU))
@pytest.mark.parametrize("missing", [0, 1, 2])
def test_each_yaku_not_found_without_one_card(name, missing):
    pile = [c for i, c in enumerate(YAKU[name]) if i != missing]
    # add unrelated cards that are in no yaku at all
    pile += ["11-1", "11-2", "11-3", "11-4", "12-1", "12-2", "01-3"]
    assert name not in names(find_yaku(pile, SAKURA))


def test_full_deck_has_all_eight_yaku_and_240():
    summary = find_yaku(CODES, SAKURA)
    assert names(summary) == sorted(YAKU)
    assert summary.card_points == 240 and summary.total == 240


def test_willow_ribbon_is_not_kusatan():
    assert names(find_yaku(["04-2", "05-2", "11-3"], SAKURA)) == []


# RULES 1.9 example 1
A1 = ["01-1", "02-1", "03-1", "01-2", "02-2", "03-2", "08-1", "09-1", "12-2"]
B1 = ["06-2", "09-2", "10-2", "06-1", "10-1", "11-1", "11-3", "12-1"]


def test_worked_example_1():
    res = score_round(RoundInput(["A", "B"], {"A": A1, "B": B1}, "A"), SAKURA)
    a, b = res.results["A"], res.results["B"]
    assert a.card_points == 110 and b.card_points == 75
    assert sorted(y.name for y in a.yaku) == ["akatan", "drinking", "spring"]
    assert [y.name for y in b.yaku] == ["aotan"]
    assert (a.penalty, b.penalty) == (50, 150)
    assert (a.score, b.score) == (60, -75)
    assert res.winner == "A" and res.next_dealer == "A"
    assert res.award["margin"] == 135 and res.award["kind"] == "basa"
    assert res.award["victories"] == 3


def test_worked_example_2_full_deck_one_pile():
    res = score_round(RoundInput(["A", "B"], {"A": list(CODES), "B": []}, "B"), SAKURA)
    assert res.results["A"].score == 240 and len(res.results["A"].yaku) == 8
    assert res.results["B"].score == -400  # 0 - 50 x 8


def test_worked_example_3_teams_share_a_pile():
    # A and C each hold part of the akatan; together the team A+C has it.
    inp = RoundInput(["A", "B", "C", "D"],
                     {"A": ["01-2"], "C": ["02-2", "03-2"], "B": ["06-2"], "D": ["11-1"]},
                     "A", teams=[["A", "C"], ["B", "D"]])
    res = score_round(inp, SAKURA)
    assert set(res.results) == {"A+C", "B+D"}
    assert [y.name for y in res.results["A+C"].yaku] == ["akatan"]
    assert res.results["A+C"].score == 30 and res.results["B+D"].score == 15 - 50
    assert res.results["A+C"].members == ("A", "C")


def test_team_pile_keyed_by_team_name():
    inp = RoundInput(["A", "B", "C", "D"], {"A+C": ["01-2", "02-2", "03-2"], "B+D": []},
                     "B", teams=[["A", "C"], ["B", "D"]])
    res = score_round(inp, SAKURA)
    assert res.results["B+D"].score == -50 and res.winner == "A+C"
    # the winning team's member nearest the dealer (B) in turn order B, C, D, A deals
    assert res.next_dealer == "C"


def test_partners_never_penalised_by_own_team():
    inp = RoundInput(["A", "B", "C", "D"],
                     {"A": ["01-2", "02-2", "03-2"], "C": ["06-2", "09-2", "10-2"],
                      "B": [], "D": []}, "A", teams=[["A", "C"], ["B", "D"]])
    res = score_round(inp, SAKURA)
    assert res.results["A+C"].penalty == 0 and res.results["A+C"].score == 60
    assert res.results["B+D"].penalty == 100


def test_team_piles_separate_option():
    inp = RoundInput(["A", "B", "C", "D"],
                     {"A": ["01-2"], "C": ["02-2", "03-2"], "B": ["06-2"], "D": []},
                     "A", teams=[["A", "C"], ["B", "D"]])
    rs = get_ruleset("sakura", overrides={"team_piles": "separate"})
    res = score_round(inp, rs)
    assert res.results["A+C"].yaku == [] and res.results["B+D"].score == 10
    inp.piles = {"A": ["01-2", "02-2", "03-2"], "B": [], "C": [], "D": []}
    assert score_round(inp, rs).results["B+D"].score == -50
    with pytest.raises(InputError, match="each partner"):
        score_round(RoundInput(["A", "B", "C", "D"], {"A+C": ["01-2"]}, "A",
                               teams=[["A", "C"], ["B", "D"]]), rs)


def test_six_players_three_teams_of_two():
    inp = RoundInput(list("ABCDEF"),
                     {"A": ["01-2", "02-2", "03-2"], "B": ["06-2", "09-2", "10-2"]},
                     "A", teams=[["A", "D"], ["B", "E"], ["C", "F"]])
    res = score_round(inp, SAKURA)
    assert res.scores == {"A+D": 30 - 50, "B+E": 30 - 50, "C+F": -100}


def test_yaku_scoring_bonus_option():
    rs = get_ruleset("sakura", overrides={"yaku_scoring": "bonus"})
    res = score_round(RoundInput(["A", "B"], {"A": A1, "B": B1}, "A"), rs)
    assert res.scores == {"A": 110 + 150, "B": 75 + 50}
    assert res.results["A"].penalty == 0


def test_yaku_points_option():
    rs = get_ruleset("sakura", overrides={"yaku_points": "20"})
    res = score_round(RoundInput(["A", "B"], {"A": A1, "B": B1}, "A"), rs)
    assert res.scores == {"A": 110 - 20, "B": 75 - 60}


# Ties: A and C both score 10; B scores 0.
TIE = {"A": ["01-2"], "B": [], "C": ["02-2"]}


@pytest.mark.parametrize("dealer, winner", [("A", "A"), ("C", "C"), ("B", "C")])
def test_tie_goes_to_dealer_then_dealers_right(dealer, winner):
    res = score_round(RoundInput(["A", "B", "C"], TIE, dealer), SAKURA)
    assert res.winner == winner and sorted(res.tied) == ["A", "C"]
    assert res.next_dealer == winner
    assert res.award["victories"] == 1 and res.award["margin"] == 0


def test_tie_policy_shared():
    rs = get_ruleset("sakura", overrides={"tie_policy": "shared"})
    res = score_round(RoundInput(["A", "B", "C"], TIE, "B"), rs)
    assert res.winner is None and sorted(res.tied) == ["A", "C"]
    assert sorted(res.award["winners"]) == ["A", "C"]
    assert res.next_dealer == "C"  # the tied player nearest the dealer deals


def test_next_dealer_winner_or_loser():
    piles = {"A": ["01-1"], "B": ["01-2"], "C": []}
    assert score_round(RoundInput(["A", "B", "C"], piles, "A"), SAKURA).next_dealer == "A"
    rs = get_ruleset("sakura", overrides={"next_dealer": "loser"})
    res = score_round(RoundInput(["A", "B", "C"], piles, "A"), rs)
    assert res.winner == "A" and res.next_dealer == "C"


def test_gaji_takes_leftovers_of_its_month():
    inp = RoundInput(["A", "B"], {"A": ["11-4", "05-1"], "B": ["01-1"]}, "A",
                     context={"leftovers": ["05-2", "05-3", "06-2"], "gaji_month": 5})
    res = score_round(inp, SAKURA)
    assert res.results["A"].card_points == 5 + 10  # bridge + the iris ribbon
    assert "06-2" not in res.results["A"].cards and "05-3" in res.results["A"].cards
    assert res.results["B"].card_points == 20


def test_gaji_all_leftovers_option():
    rs = get_ruleset("sakura", overrides={"gaji_leftovers": "all"})
    inp = RoundInput(["A", "B"], {"A": ["11-4", "05-1"], "B": ["01-1"]}, "A",
                     context={"leftovers": ["05-2", "05-3", "06-2"], "gaji_month": 5})
    assert score_round(inp, rs).results["A"].card_points == 5 + 10 + 10


def test_leftovers_without_gaji_are_dead_and_can_complete_no_yaku():
    inp = RoundInput(["A", "B"], {"A": ["01-2", "02-2"], "B": []}, "A",
                     context={"leftovers": ["03-2"]})
    res = score_round(inp, SAKURA)
    assert res.results["A"].yaku == [] and res.results["A"].card_points == 20


def test_gaji_leftovers_can_complete_a_yaku():
    inp = RoundInput(["A", "B"], {"A": ["11-4", "03-1", "01-2", "02-2"], "B": []}, "A",
                     context={"leftovers": ["03-2"], "gaji_month": 3})
    res = score_round(inp, SAKURA)
    assert [y.name for y in res.results["A"].yaku] == ["akatan"]
    assert res.results["B"].score == -50


def test_gaji_errors():
    with pytest.raises(InputError, match="lightning"):
        score_round(RoundInput(["A", "B"], {"A": ["05-1"], "B": []}, "A",
                               context={"leftovers": ["05-2"], "gaji_month": 5}), SAKURA)
    with pytest.raises(InputError, match="no card of month 06"):
        score_round(RoundInput(["A", "B"], {"A": ["11-4", "05-1"], "B": []}, "A",
                               context={"leftovers": ["06-2"], "gaji_month": 6}), SAKURA)
    with pytest.raises(InputError, match="gaji_month"):
        score_round(RoundInput(["A", "B"], {"A": ["11-4"], "B": []}, "A",
                               context={"gaji_month": 13}), SAKURA)


@pytest.mark.parametrize("mode, margins", [
    ("combined", {49: (1, "plain"), 50: (2, "chu"), 99: (2, "chu"), 100: (3, "basa")}),
    ("both_two", {49: (1, "plain"), 50: (2, "chu"), 100: (2, "basa")}),
    ("basa", {50: (1, "plain"), 99: (1, "plain"), 100: (2, "basa")}),
    ("chu", {49: (1, "plain"), 50: (2, "chu"), 150: (2, "chu")}),
    ("none", {49: (1, "plain"), 150: (1, "plain")}),
])
def test_chu_basa_modes(mode, margins):
    rs = get_ruleset("sakura-victories", overrides={"chu_basa": mode})
    for margin, expected in margins.items():
        assert victories(margin, rs) == expected, (mode, margin)


def test_chu_basa_margins_configurable():
    rs = get_ruleset("sakura-victories", overrides={"chu_margin": 30, "basa_margin": 60})
    assert victories(30, rs) == (2, "chu") and victories(60, rs) == (3, "basa")


def test_shira_basa_when_no_yaku():
    # A: four 20s + two ribbons = 100, no yaku; B: nothing.
    inp = RoundInput(["A", "B"], {"A": ["01-1", "03-1", "08-1", "12-1", "04-2", "06-2"],
                                  "B": ["11-4"]}, "B")
    res = score_round(inp, get_ruleset("sakura-victories"))
    assert res.scores == {"A": 100, "B": 0}
    assert res.award == {"winners": ["A"], "victories": 3, "kind": "basa", "shira": True,
                         "margin": 100}


def test_margin_is_over_the_best_other_player():
    inp = RoundInput(["A", "B", "C"], {"A": ["01-1", "03-1", "08-1"], "B": ["12-1"],
                                       "C": []}, "A")
    res = score_round(inp, SAKURA)
    assert res.award["margin"] == 40 and res.award["kind"] == "plain"


def test_chu_and_basa_are_explained_only_when_the_game_counts_victories():
    piles = {"A": ["01-1", "03-1", "08-1", "11-1", "12-1"], "B": ["01-3"]}
    for name, shown in (("sakura", False), ("sakura-victories", True)):
        res = score_round(RoundInput(["A", "B"], piles, "A"), get_ruleset(name))
        assert any(line.startswith("margin ") for line in res.explanation) is shown
