"""Every validation error is an InputError with a one-line message naming the problem."""

import pytest

from scorer.cards import CODES
from scorer.errors import InputError
from scorer.rules import RoundInput, find_yaku, get_ruleset, score_round
from scorer.rules.sakura import card_values
from scorer.rules.validate import check_deal_points

SAKURA = get_ruleset("sakura")
KOIKOI = get_ruleset("koikoi")
HANA = get_ruleset("hanaawase")


def error(inp, rs=SAKURA):
    with pytest.raises(InputError) as info:
        score_round(inp, rs)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_unknown_code_names_the_pile():
    msg = error(RoundInput(["A", "B"], {"A": ["01-1", "13-2"], "B": []}, "A"))
    assert "pile A" in msg and "13-2" in msg


def test_card_in_two_piles_names_card_and_piles():
    msg = error(RoundInput(["A", "B"], {"A": ["08-1"], "B": ["8-1"]}, "A"))
    assert "08-1" in msg and "moon" in msg.lower() and "pile A" in msg and "pile B" in msg


def test_card_in_a_pile_and_the_leftovers():
    msg = error(RoundInput(["A", "B"], {"A": ["08-1"], "B": []}, "A",
                           context={"leftovers": ["08-1"]}))
    assert "pile A" in msg and "leftovers" in msg


def test_card_twice_in_one_pile():
    assert "listed twice" in error(RoundInput(["A", "B"], {"A": ["08-1", "08-1"]}, "A"))
    with pytest.raises(InputError, match="listed twice"):
        find_yaku(["08-1", "08-1"], SAKURA)


def test_more_than_48_cards():
    msg = error(RoundInput(["A", "B"], {"A": list(CODES), "B": ["01-1"]}, "A"))
    assert "49 cards" in msg and "48" in msg


def test_more_than_48_cards_counting_leftovers():
    msg = error(RoundInput(["A", "B"], {"A": list(CODES)}, "A",
                           context={"leftovers": ["01-1"]}))
    assert "49 cards" in msg


def test_sakura_deal_over_240_points():
    # Unreachable through score_round once duplicates are rejected; the guard itself:
    values = card_values(SAKURA)
    with pytest.raises(InputError, match="250 card points.*only 240"):
        check_deal_points({"A": list(CODES), "leftovers": ["12-2"]}, values, SAKURA)
    check_deal_points({"A": list(CODES)}, values, SAKURA)  # exactly 240 is fine
    zero = get_ruleset("sakura", overrides={"yellow_paulownia": 0})
    with pytest.raises(InputError, match="only 230"):
        check_deal_points({"A": list(CODES), "B": ["01-1"]}, card_values(zero), zero)


def test_pile_for_unknown_player():
    msg = error(RoundInput(["A", "B"], {"A": [], "Z": ["01-1"]}, "A"))
    assert "unknown player 'Z'" in msg


@pytest.mark.parametrize("rs, n, span", [(SAKURA, 1, "2 to 7"), (SAKURA, 8, "2 to 7"),
                                         (KOIKOI, 3, "for 2 players"), (KOIKOI, 1, "2"),
                                         (HANA, 5, "2 to 4"), (HANA, 1, "2 to 4")])
def test_player_counts(rs, n, span):
    players = [f"P{i}" for i in range(n)]
    assert span in error(RoundInput(players, {}, players[0]), rs)


def test_player_listed_twice_and_bad_names():
    assert "listed twice" in error(RoundInput(["A", "A"], {}, "A"))
    assert "'+'" in error(RoundInput(["A+B", "C"], {}, "C"))
    assert "non-empty" in error(RoundInput(["A", ""], {}, "A"))


def test_dealer_must_be_a_player():
    assert "dealer 'Z'" in error(RoundInput(["A", "B"], {}, "Z"))


def test_team_naming_unknown_player():
    msg = error(RoundInput(["A", "B", "C", "D"], {}, "A", teams=[["A", "X"], ["B", "D"]]))
    assert "unknown player 'X'" in msg and "A+X" in msg


def test_player_in_two_teams():
    msg = error(RoundInput(["A", "B", "C", "D"], {}, "A",
                           teams=[["A", "C"], ["B", "C"]]))
    assert "'C' is in two teams" in msg


def test_player_in_no_team_and_unequal_teams():
    assert "in no team" in error(RoundInput(["A", "B", "C", "D"], {}, "A",
                                            teams=[["A", "C"]]))
    msg = error(RoundInput(list("ABCDE"), {}, "A", teams=[["A", "C", "E"], ["B", "D"]]))
    assert "equal size" in msg


def test_teams_as_strings():
    res = score_round(RoundInput(["A", "B", "C", "D"], {"A": ["01-1"]}, "A",
                                 teams=["A+C", "B+D"]), SAKURA)
    assert res.scores == {"A+C": 20, "B+D": 0}


def test_teams_only_in_sakura():
    assert "not played in teams" in error(
        RoundInput(["A", "B"], {}, "A", teams=[["A"], ["B"]]), KOIKOI)


def test_unknown_context_key():
    msg = error(RoundInput(["A", "B"], {}, "A", context={"stopped_by": "A"}))
    assert "unknown context key 'stopped_by'" in msg and "leftovers" in msg


def test_piles_must_be_lists_of_codes():
    assert "list of card codes" in error(RoundInput(["A", "B"], {"A": 5}, "A"))
    assert "piles must map" in error(RoundInput(["A", "B"], [], "A"))  # type: ignore


def test_koikoi_bad_month():
    with pytest.raises(InputError, match="month must be an integer 1..12"):
        score_round(RoundInput(["A", "B"], {}, "A", context={"month": 13}), KOIKOI)
