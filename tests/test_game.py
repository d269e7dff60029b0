"""Games: rounds, cumulative totals, victory counting with chu/basa, winner and ties."""

import pytest

from scorer.errors import InputError
from scorer.game import GameSetup, standings
from scorer.rules import RoundInput, get_ruleset, score_round

SAKURA = get_ruleset("sakura")
VICT = get_ruleset("sakura-victories")


def play(setup, rounds):
    """Score rounds given as (dealer, piles[, context]) with the setup's players/teams."""
    results = []
    for r in rounds:
        dealer, piles = r[0], r[1]
        ctx = r[2] if len(r) > 2 else {}
        inp = RoundInput(setup.players, piles, dealer, setup.teams, ctx)
        results.append(score_round(inp, setup.ruleset))
    return results


def test_defaults_and_validation():
    g = GameSetup(["A", "B"], SAKURA)
    assert g.rounds == 4 and g.first_dealer == "A" and g.owners == ["A", "B"]
    assert GameSetup(["A", "B"], get_ruleset("koikoi")).rounds == 12
    assert GameSetup(["A", "B", "C"], get_ruleset("hanaawase")).rounds == 12
    with pytest.raises(InputError, match="first dealer 'Z'"):
        GameSetup(["A", "B"], SAKURA, first_dealer="Z")
    with pytest.raises(InputError, match="2 to 7 players, not 8"):
        GameSetup(list("ABCDEFGH"), SAKURA)
    with pytest.raises(InputError, match="for 2 players, not 3"):
        GameSetup(["A", "B", "C"], get_ruleset("koikoi"))
    with pytest.raises(InputError, match="rounds must be"):
        GameSetup(["A", "B"], SAKURA, rounds=0)
    with pytest.raises(InputError, match="unknown player 'X'"):
        GameSetup(list("ABCD"), SAKURA, teams=[["A", "X"], ["B", "D"]])
    with pytest.raises(InputError, match="listed twice"):
        GameSetup(["A", "A"], SAKURA)


def test_cumulative_game_totals_and_winner():
    g = GameSetup(["A", "B"], SAKURA, rounds=2)
    rounds = play(g, [("A", {"A": ["01-2", "02-2", "03-2"], "B": ["01-1"]}),  # A 30, B -30
                      ("A", {"A": ["08-1"], "B": ["12-1", "03-1"]})])          # A 20, B 40
    st = standings(g, rounds[:1])
    assert st.totals == {"A": 30, "B": -30} and not st.finished and st.winner is None
    assert st.leader == "A"
    st = standings(g, rounds)
    assert st.running == [{"A": 30, "B": -30}, {"A": 50, "B": 10}]
    assert st.totals == {"A": 50, "B": 10} and st.finished and st.winner == "A"
    assert st.victories is None and st.next_dealer == "B"
    assert st.to_dict()["totals"] == {"A": 50, "B": 10}


def test_victory_counting_with_chu_and_basa():
    g = GameSetup(["A", "B"], VICT, rounds=3)
    rounds = play(g, [
        ("A", {"A": ["01-1", "03-1", "08-1"], "B": []}),   # A 60: chu -> 2
        ("A", {"A": ["01-1"], "B": ["03-1", "08-1"]}),     # B wins by 20 -> 1
        ("B", {"A": [], "B": ["01-1", "03-1", "08-1", "12-1", "01-2", "02-2"]}),  # B 100
    ])
    st = standings(g, rounds)
    # victories: A 2 (chu), B 1 + 3 (basa) = 4; points A 60+20=80, B 0+40+100=140
    assert st.victories == {"A": 2, "B": 4}
    assert st.totals == {"A": 60 + 20, "B": 40 + 100}
    assert st.winner == "B"


def test_victories_rank_before_points():
    g = GameSetup(["A", "B"], get_ruleset("sakura-victories", overrides={"chu_basa": "none"}),
                  rounds=3)
    rounds = play(g, [
        ("A", {"A": ["01-1", "03-1", "08-1", "12-1"], "B": []}),  # A +80
        ("A", {"A": [], "B": ["01-2"]}),                          # B +10
        ("B", {"A": [], "B": ["02-2"]}),                          # B +10
    ])
    st = standings(g, rounds)
    assert st.victories == {"A": 1, "B": 2} and st.totals["A"] > st.totals["B"]
    assert st.winner == "B"


def test_team_game_totals():
    g = GameSetup(list("ABCD"), SAKURA, rounds=1, teams=[["A", "C"], ["B", "D"]])
    assert g.owners == ["A+C", "B+D"]
    rounds = play(g, [("A", {"A": ["01-2"], "C": ["02-2", "03-2"], "B": ["01-1"]})])
    st = standings(g, rounds)
    assert st.totals == {"A+C": 30, "B+D": 20 - 50} and st.winner == "A+C"


def test_game_tie_dealer_wins_or_shared():
    g = GameSetup(["A", "B", "C"], SAKURA, rounds=1)
    rounds = play(g, [("B", {"A": ["01-2"], "B": [], "C": ["02-2"]})])
    st = standings(g, rounds)
    # round tie A/C with dealer B goes to C (B's right); C deals next and wins the game tie
    assert rounds[0].winner == "C" and st.winner == "C" and sorted(st.tied) == ["A", "C"]
    shared = GameSetup(["A", "B", "C"], get_ruleset("sakura", overrides={"tie_policy":
                                                                       "shared"}), rounds=1)
    st = standings(shared, play(shared, [("B", {"A": ["01-2"], "B": [], "C": ["02-2"]})]))
    assert st.winner is None and sorted(st.tied) == ["A", "C"] and st.finished


def test_koikoi_game_sums_rounds():
    g = GameSetup(["A", "B"], get_ruleset("koikoi"), rounds=2)
    rounds = play(g, [
        ("A", {"A": ["01-2", "02-2", "03-2"], "B": []}, {"stopped_by": "A"}),   # A 5
        ("A", {"A": [], "B": ["06-1", "07-1", "10-1"]},
         {"stopped_by": "B", "koikoi_calls": {"A": 1}}),                         # B 10
    ])
    st = standings(g, rounds)
    assert st.totals == {"A": 5, "B": 10} and st.winner == "B"


def test_standings_errors():
    g = GameSetup(["A", "B"], SAKURA, rounds=1)
    r = play(g, [("A", {"A": ["01-1"]})])
    with pytest.raises(InputError, match="2 rounds given for a 1-round game"):
        standings(g, r + r)
    other = GameSetup(["A", "C"], SAKURA, rounds=1)
    with pytest.raises(InputError, match="round 1 scores A, B"):
        standings(other, r)


def test_no_rounds_yet():
    st = standings(GameSetup(["A", "B"], SAKURA), [])
    assert st.totals == {"A": 0, "B": 0} and st.running == [] and not st.finished
    assert st.winner is None and st.next_dealer == "A"


def test_round_results_round_trip_through_dicts():
    import json
    from scorer.rules import RoundResult
    g = GameSetup(["A", "B"], VICT, rounds=2)
    rounds = play(g, [("A", {"A": ["01-1", "03-1", "08-1"], "B": []}),
                      ("A", {"A": ["01-1"], "B": ["03-1", "08-1"]})])
    again = [RoundResult.from_dict(json.loads(json.dumps(r.to_dict()))) for r in rounds]
    assert [r.to_dict() for r in again] == [r.to_dict() for r in rounds]
    assert standings(g, again).to_dict() == standings(g, rounds).to_dict()
