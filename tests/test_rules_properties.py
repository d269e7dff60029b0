"""Property tests (hypothesis): invariants of the scoring that must hold for any deal."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorer.cards import CODES
from scorer.rules import RoundInput, find_yaku, get_ruleset, score_round

SAKURA = get_ruleset("sakura")
KOIKOI = get_ruleset("koikoi")
ZERO = get_ruleset("hanaawase-zero-sum")
FAST = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])

# The eight Sakura yaku, written out here independently of the engine (RULES.md 1.4).
SAKURA_SETS = [{"03-1", "08-1", "09-1"}, {"01-1", "02-1", "03-1"}, {"01-2", "02-2", "03-2"},
               {"06-2", "09-2", "10-2"}, {"06-1", "09-1", "10-1"}, {"04-2", "05-2", "07-2"},
               {"04-1", "05-1", "07-1"}, {"07-1", "08-2", "10-1"}]


@st.composite
def deals(draw, min_players=2, max_players=7, whole_deck=False):
    """(players, piles): some cards of a shuffled deck split among 2..7 players."""
    n = draw(st.integers(min_players, max_players))
    deck = draw(st.permutations(CODES))
    used = 48 if whole_deck else draw(st.integers(0, 48))
    cuts = sorted(draw(st.lists(st.integers(0, used), min_size=n - 1, max_size=n - 1)))
    bounds = [0] + cuts + [used]
    players = [f"P{i}" for i in range(n)]
    piles = {p: list(deck[bounds[i]:bounds[i + 1]]) for i, p in enumerate(players)}
    return players, piles


@FAST
@given(st.permutations(CODES))
def test_sakura_full_deck_in_any_order(deck):
    s = find_yaku(deck, SAKURA)
    assert s.card_points == 240 and len(s.yaku) == 8


@FAST
@given(st.data())
def test_yaku_do_not_depend_on_card_order(data):
    pile = data.draw(st.lists(st.sampled_from(CODES), unique=True, max_size=48))
    shuffled = data.draw(st.permutations(pile))
    for rs in (SAKURA, KOIKOI, ZERO):
        assert find_yaku(pile, rs).to_dict() == find_yaku(shuffled, rs).to_dict()


@FAST
@given(deals(), st.data())
def test_round_scores_do_not_depend_on_card_or_player_order(deal, data):
    players, piles = deal
    dealer = data.draw(st.sampled_from(players))
    base = score_round(RoundInput(players, piles, dealer), SAKURA).scores
    order = data.draw(st.permutations(players))
    shuffled = {p: data.draw(st.permutations(piles[p])) for p in
                data.draw(st.permutations(players))}
    again = score_round(RoundInput(list(order), shuffled, dealer), SAKURA).scores
    assert again == base


@FAST
@given(deals())
def test_sakura_penalty_is_50_per_yaku_of_the_others(deal):
    players, piles = deal
    res = score_round(RoundInput(players, piles, players[0]), SAKURA)
    held = {p: sum(1 for y in SAKURA_SETS if y <= set(piles[p])) for p in players}
    for p in players:
        r = res.results[p]
        assert r.penalty == 50 * sum(held[q] for q in players if q != p)
        assert len(r.yaku) == held[p]
        assert r.score == r.card_points - r.penalty


@FAST
@given(deals(min_players=4, max_players=4), st.data())
def test_sakura_team_penalty_counts_only_other_teams(deal, data):
    players, piles = deal
    teams = [[players[0], players[2]], [players[1], players[3]]]
    res = score_round(RoundInput(players, piles, players[0], teams=teams), SAKURA)
    union = {"+".join(t): set(piles[t[0]]) | set(piles[t[1]]) for t in teams}
    held = {k: sum(1 for y in SAKURA_SETS if y <= cards) for k, cards in union.items()}
    for k in union:
        other = next(o for o in union if o != k)
        assert res.results[k].penalty == 50 * held[other]


@FAST
@given(deals(min_players=2, max_players=2), st.data())
def test_koikoi_only_the_stopper_scores(deal, data):
    players, piles = deal
    stopper = data.draw(st.sampled_from(players))
    if not find_yaku(piles[stopper], KOIKOI).yaku:
        piles = {stopper: piles[stopper] + piles[players[0] if stopper != players[0]
                                                   else players[1]],
                 **{p: [] for p in players if p != stopper}}
        if not find_yaku(piles[stopper], KOIKOI).yaku:
            return
    calls = {p: data.draw(st.integers(0, 3)) for p in players}
    res = score_round(RoundInput(players, piles, players[0],
                                 context={"stopped_by": stopper, "koikoi_calls": calls}),
                      KOIKOI)
    assert res.winner == stopper and res.next_dealer == stopper
    assert res.results[stopper].score > 0
    assert all(res.results[p].score == 0 for p in players if p != stopper)
    base = find_yaku(piles[stopper], KOIKOI).total
    assert res.results[stopper].score in (base, 2 * base, 4 * base)


@FAST
@given(deals(min_players=2, max_players=4, whole_deck=True))
def test_hanaawase_zero_sum_when_every_card_is_captured(deal):
    players, piles = deal
    res = score_round(RoundInput(players, piles, players[0]), ZERO)
    assert sum(res.scores.values()) == 0
