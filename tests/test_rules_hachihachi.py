"""Hachi-Hachi (docs/RULES-hachihachi.md): every worked example the sources give in
numbers, named after its source, and the properties of a month's payments."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.cards import DECK
from scorer.errors import InputError
from scorer.rules import RoundInput, find_yaku, get_ruleset, score_round
from scorer.rules.hachihachi import (DECK_POINTS, PAR, bga_kan_mon, card_points,
                                     chaff_teyaku, from_table, kan_mon, month_field,
                                     set_teyaku, teyaku_of_hand, text)

ALL = [c.code for c in DECK]
PLAYERS = ["Ann", "Bob", "Cy"]


def rules(name: str = "hachihachi", **options: object):
    return get_ruleset(name, overrides=options)


def deal(ann: list[str], bob: list[str] | None = None) -> dict[str, list[str]]:
    """Three piles of a month played out: Ann's and Bob's cards as given (Bob: none
    else), Cy the rest."""
    bob = bob or []
    rest = [c for c in ALL if c not in ann and c not in bob]
    return {"Ann": list(ann), "Bob": list(bob), "Cy": rest}


def early(ann: list[str]) -> dict[str, list[str]]:
    """The piles of a month ended early by Ann's dekiyaku: Bob and Cy a chaff each."""
    return {"Ann": list(ann), "Bob": ["01-3"], "Cy": ["02-3"]}


def month(piles, rs=None, players=PLAYERS, **context):
    return score_round(RoundInput(list(players), piles, players[0], None, context),
                       rs or rules())


def paid(res, payer: str, payee: str) -> int:
    return sum(p["mon"] for p in res.results[payer].details["payments"]
               if p["payer"] == payer and p["payee"] == payee)


# A pile of exactly 88 card points with no dekiyaku: a bright, four animals, four
# ribbons (no set), and eight chaff = 20 + 40 + 20 + 8.
PAR_PILE = ["01-1", "02-1", "04-1", "05-1", "08-2", "04-2", "05-2", "06-2", "11-3",
            "01-3", "01-4", "02-3", "02-4", "03-3", "03-4", "04-3", "04-4"]


def balanced(ann: list[str]) -> dict[str, list[str]]:
    """Ann's cards as given; Bob and Cy split the rest."""
    rest = [c for c in ALL if c not in ann]
    return {"Ann": ann, "Bob": rest[::2], "Cy": rest[1::2]}


# ------------------------------------------------------------------ the deck and the par
def test_vingel_and_jpcm_pack_points_264_par_88():
    """VINGEL, JPCM: 24 chaff x1, 10 ribbons x5, 9 animals x10, 5 lights x20 = 264;
    a third, 88, is the par."""
    assert DECK_POINTS == 264 and PAR == 88
    assert card_points([c.code for c in DECK if c.kind.value == "bright"]) == 100
    assert card_points([c.code for c in DECK if c.kind.value == "animal"]) == 90
    assert card_points([c.code for c in DECK if c.kind.value == "ribbon"]) == 50
    assert card_points([c.code for c in DECK if c.kind.value == "chaff"]) == 24


def test_par_pile_is_88():
    assert card_points(PAR_PILE) == 88


# ------------------------------------------------------------------ kan and mon
def test_bga_paying_5_mon_is_shown_minus_1_kan_7_mon():
    """BGA: 'if you're forced to pay 5 mon, it will be displayed as -1 kan 7 mon'."""
    assert bga_kan_mon(-5) == (-1, 7)


def test_kan_is_12_mon_and_written_in_words():
    assert kan_mon(29) == (2, 5) and kan_mon(-19) == (-1, -7)
    assert text(120) == "10 kan" and text(29) == "2 kan 5 mon" and text(5) == "5 mon"
    assert text(-19) == "\u22121 kan 7 mon" and text(0) == "0 mon"
    assert text(130, per_kan=10) == "13 kan"


# ------------------------------------------------------------------ the field
def test_kirisame_field_small_big_grand():
    """KIRISAME: no lights small (as normal); pine, sakura or moon: large, doubled; rain
    or phoenix: grand, quadrupled; two lights: the higher field."""
    assert from_table(["02-3", "04-3"]).multiplier == 1
    for light in ("01-1", "03-1", "08-1"):
        assert from_table([light, "02-3"]).name == "big"
    for light in ("11-1", "12-1"):
        assert from_table([light, "02-3"]).multiplier == 4
    assert from_table(["01-1", "12-1", "02-3"]).name == "grand"


def test_kirisame_two_lights_of_one_field_carry_it_to_the_next_month():
    """KIRISAME: 'If there are 2 lights of the same field value (such as Rain and
    Phoenix), the next round's field is the same kind as that of the current round.'"""
    f = from_table(["11-1", "12-1", "02-3", "04-3", "05-3", "06-3"])
    assert (f.name, f.carry) == ("grand", "grand")
    assert month_field(None, ["02-3"], "grand", True).name == "grand"


def test_bga_big_and_great_deal_great_first_big_carried():
    """BGA: 'If both big deal and great deal are issued, great deal takes precedence for
    the month'; the second is carried over to the next month."""
    f = from_table(["01-1", "11-1", "02-3"])
    assert (f.name, f.multiplier, f.carry) == ("grand", 4, "big")
    assert from_table(["01-1", "11-1"], carry_on=False).carry is None


def test_field_carry_reaches_the_next_month_through_the_log():
    rs = rules()
    first = month(balanced(PAR_PILE), rs, field_cards=["01-1", "08-1", "02-3"])
    from scorer.rules.hachihachi import context_from_log
    assert context_from_log([first], rs) == {"carried_field": "big"}
    assert context_from_log([first], rules(field_carry=False)) == {}


def test_fewer_than_six_table_cards_are_said():
    res = month(balanced(PAR_PILE), field_cards=["01-1", "02-3"])
    assert "field: big field 大場 ×2 (01-1 crane on the table; only 2 of the 6 table cards " \
        "given)" in res.explanation
    with pytest.raises(InputError, match="6, not 7"):
        month(balanced(PAR_PILE), field_cards=ALL[:7])


def test_chosen_field_and_table_cards_must_agree():
    with pytest.raises(InputError, match="table cards make a big field"):
        month(balanced(PAR_PILE), field="small", field_cards=["01-1"])


# ------------------------------------------------------------------ teyaku
HAND_SANBON = ["01-1", "01-3", "01-4", "02-1", "03-2", "06-1", "09-2"]


def test_kirisame_three_24_points_from_each_other_player():
    """KIRISAME: Three (三本), 3 cards of a month, 24 points, 'the amount they receive
    from each other player, so the points are effectively doubled'."""
    res = month(balanced(PAR_PILE), dealt_hands={"Ann": HAND_SANBON})
    assert [y.name for y in res.results["Ann"].yaku] == ["sanbon"]
    assert paid(res, "Bob", "Ann") == 24 and paid(res, "Cy", "Ann") == 24


@pytest.mark.parametrize("hand, name", [
    (["05-1", "05-2", "05-3", "01-1", "02-1", "03-1", "06-1"], "tatesanbon"),
    (["12-2", "12-3", "12-4", "01-1", "02-1", "03-1", "06-1"], "tatesanbon"),
    (["12-1", "12-3", "12-4", "01-1", "02-1", "03-1", "06-1"], "sanbon"),
])
def test_kirisame_standing_three_36_points(hand, name):
    """KIRISAME: Standing Three (立三本), 3 cards from April, May or July, or the 3 dregs
    from December: 36 points (a phoenix with two chaff is a plain three)."""
    assert set_teyaku(hand) == name
    res = month(balanced(PAR_PILE), dealt_hands={"Ann": hand})
    assert paid(res, "Bob", "Ann") == (36 if name == "tatesanbon" else 24)


@pytest.mark.parametrize("hand, name", [
    (["01-2", "06-2", "01-3", "02-3", "03-3", "04-3", "05-3"], "aka"),
    (["01-2", "01-3", "02-3", "03-3", "04-3", "05-3", "06-3"], "tanichi"),
])
def test_kirisame_red_and_one_slip_36_points(hand, name):
    """KIRISAME: Red (赤), 2 slips and 5 dregs, and One Slip (短一), 1 slip and 6 dregs:
    36 points each."""
    assert chaff_teyaku(hand, rules()) == name
    res = month(balanced(PAR_PILE), dealt_hands={"Ann": hand})
    assert paid(res, "Cy", "Ann") == 36


def test_porg_one_set_and_one_chaff_teyaku_add():
    """PORG: 'A player can score one combination in each set'; KIRISAME (best_only):
    only one dealt hand counts."""
    hand = ["01-1", "01-3", "01-4", "02-3", "03-3", "04-3", "05-3"]   # sanbon + pika-ichi
    assert teyaku_of_hand(hand, rules()) == ["sanbon", "pikaichi"]
    assert teyaku_of_hand(hand, rules(teyaku_combine="best_only")) == ["pikaichi"]


def test_bga_willow_cards_count_as_chaff_for_teyaku():
    """BGA: 'All Willow suit cards count as Chaff cards when determining hand yakus':
    a crane, the rain man and five chaff is pika-ichi (one light, six chaff)."""
    hand = ["01-1", "11-1", "02-3", "03-3", "04-3", "05-3", "06-3"]
    assert chaff_teyaku(hand, rules()) == "pikaichi"
    assert chaff_teyaku(hand, rules(willow_as_chaff=False)) is None


@pytest.mark.parametrize("hand, name", [
    (["01-1", "01-2", "01-3", "01-4", "02-1", "02-2", "02-3"], "shiso"),
    (["01-1", "01-2", "01-3", "01-4", "02-1", "02-2", "03-3"], "ichinishi"),
    (["01-1", "01-2", "01-3", "01-4", "02-1", "03-2", "06-3"], "teshi"),
    (["01-1", "01-2", "01-3", "02-4", "02-1", "02-2", "06-3"], "futasanbon"),
    (["01-1", "01-2", "01-3", "02-4", "02-1", "03-2", "03-3"], "haneken"),
    (["01-1", "01-2", "02-3", "02-4", "03-1", "03-2", "06-3"], "kuttsuki"),
    (["01-1", "02-2", "03-3", "04-4", "05-1", "06-2", "07-3"], None),
])
def test_set_teyaku_by_the_months_of_the_hand(hand, name):
    assert set_teyaku(hand) == name


def test_declared_teyaku_must_match_the_dealt_hand():
    with pytest.raises(InputError, match="declared teshi"):
        month(balanced(PAR_PILE), dealt_hands={"Ann": HAND_SANBON}, teyaku_sets={"Ann": "teshi"})
    res = month(balanced(PAR_PILE), teyaku_sets={"Ann": "teshi"})     # declared alone
    assert paid(res, "Bob", "Ann") == 6 * 12


def test_a_dealt_hand_is_seven_cards():
    with pytest.raises(InputError, match="7"):
        month(balanced(PAR_PILE), dealt_hands={"Ann": HAND_SANBON[:5]})


# ------------------------------------------------------------------ dekiyaku
SHIKO = ["01-1", "03-1", "08-1", "12-1"]


def test_shiragiku_shiko_10_kan_120_points_from_each():
    """SHIRAGIKU: shikō on a small field: the other two pay 10 kan (120 points) each."""
    res = month(early(SHIKO), stopped_by="Ann")
    assert [y.name for y in res.results["Ann"].yaku] == ["shiko"]
    assert paid(res, "Bob", "Ann") == 120 and paid(res, "Cy", "Ann") == 120
    assert res.results["Ann"].score == 240


def test_shiragiku_shiko_hatto_one_pays_20_kan_240_points_alone():
    """SHIRAGIKU: the player who threw the forbidden card that completed shikō pays
    alone what the two would have paid: 20 kan (240 points) on a small field."""
    res = month(early(SHIKO), stopped_by="Ann", hatto="Bob")
    assert paid(res, "Bob", "Ann") == 240 and paid(res, "Cy", "Ann") == 0


def test_shiragiku_goko_12_kan_144_points():
    """SHIRAGIKU: gokō, all five lights, 12 kan (144 points) on a small field."""
    res = month(early(SHIKO + ["11-1"]), stopped_by="Ann")
    assert [y.name for y in res.results["Ann"].yaku] == ["goko"]
    assert paid(res, "Bob", "Ann") == 144


def test_shiragiku_goko_after_shiko_22_kan_264_points_from_each():
    """SHIRAGIKU: shikō made, then gokō: both paid, 22 kan (264 points) from each."""
    rs = rules(goko_with_shiko="both")
    res = month(early(SHIKO + ["11-1"]), rs, stopped_by="Ann")
    assert [y.name for y in res.results["Ann"].yaku] == ["goko", "shiko"]
    assert paid(res, "Bob", "Ann") == 264 and paid(res, "Cy", "Ann") == 264


def test_shiragiku_rain_shiko_is_no_dekiyaku():
    """SHIRAGIKU: ame-shikō (four lights with the rain man) is not a dekiyaku."""
    assert find_yaku(["01-1", "03-1", "08-1", "11-1"], rules()).yaku == []


@pytest.mark.parametrize("cards, name, mon", [
    (["01-2", "02-2", "03-2"], "akatan", 84), (["06-2", "09-2", "10-2"], "aotan", 84),
    (SHIKO, "shiko", 120), (SHIKO + ["11-1"], "goko", 144)])
def test_porg_curriculum_typical_dekiyaku(cards, name, mon):
    """PORG-CUR: aka-tan 7 kan (84 points), ao-tan 7 kan, shi-kō 10 kan (120 points),
    go-kō 12 kan."""
    res = month(early(cards), stopped_by="Ann")
    assert [y.name for y in res.results["Ann"].yaku] == [name]
    assert paid(res, "Cy", "Ann") == mon


def test_porg_curriculum_sixteen_plain_cards_12_kan_and_2_per_extra():
    """PORG-CUR: no dekiyaku by the end: 16 plain cards 12 kan, 2 kan for each card over
    16, and no payment for card points."""
    chaff = [c.code for c in DECK if c.kind.value == "chaff" and c.month != 11][:17]
    bob = ["01-1", "03-1", "11-1", "02-1", "04-1", "05-1", "06-1", "01-2", "02-2", "06-2",
           "09-2", "04-2"] + [c for c in ALL if c not in chaff and c.endswith(("-3", "-4"))
                              and c[:2] != "11"][:3]
    res = month(deal(chaff, bob))
    assert not any(y.name != "sujuroku" for r in res.results.values() for y in r.yaku)
    hit = next(y for y in res.results["Ann"].yaku if y.name == "sujuroku")
    assert hit.points == 14
    assert paid(res, "Bob", "Ann") == 14 * 12 and paid(res, "Cy", "Ann") == 14 * 12
    assert not res.results["Ann"].details["points_settled"]


def test_bga_a_yaku_split_between_the_two_opponents():
    """BGA: 'if you gained 5 kan from a yaku, you would take 2.5 kan each from your two
    opponents' (kusa, 5 kan, under the BGA preset)."""
    res = month(early(["04-2", "05-2", "07-2"]), rules("hachihachi-bga", **{"yaku.kusa": True}),
                stopped_by="Ann")
    assert paid(res, "Bob", "Ann") == 30 and paid(res, "Cy", "Ann") == 30   # 2.5 kan


def test_ja_wp_ten_mon_a_kan():
    """JA-WP: in places a kan is 10 points: shikō 10 kan is then 100 from each."""
    res = month(early(SHIKO), rules(mon_per_kan=10), stopped_by="Ann")
    assert paid(res, "Bob", "Ann") == 100


def test_willow_ribbon_is_no_ribbon_for_roku_tan_under_the_willow_rule():
    six = ["01-2", "02-2", "03-2", "04-2", "05-2", "11-3"]
    on = {"yaku.rokutan": True}
    assert "rokutan" not in [y.name for y in find_yaku(six, rules()).yaku]     # off: a house rule
    assert "rokutan" not in [y.name for y in find_yaku(six, rules(**on)).yaku]
    assert "rokutan" in [y.name for y in find_yaku(six, rules(willow_as_chaff=False, **on)).yaku]


def test_stopping_needs_a_dekiyaku():
    with pytest.raises(InputError, match="forms no dekiyaku"):
        month(early(["03-3"]), stopped_by="Ann")


# ------------------------------------------------------------------ card points
def test_card_points_against_88_times_the_field():
    """PAGAT: each active player pays or receives the difference of their score from 88;
    KIRISAME: the field multiplies every payment."""
    chaff = [c.code for c in DECK if c.kind.value == "chaff"]
    piles = {"Ann": ["01-1", "11-1", "02-1", "04-1", "06-1", "01-2", "06-2", "04-2", "11-3"]
             + chaff[:8],
             "Bob": ["03-1", "12-1", "05-1", "07-1", "11-2", "02-2", "09-2", "05-2"]
             + chaff[8:16],
             "Cy": ["08-1", "08-2", "09-1", "10-1", "03-2", "10-2", "07-2"] + chaff[16:]}
    pts = {p: card_points(v) for p, v in piles.items()}
    assert pts == {"Ann": 98, "Bob": 93, "Cy": 73}
    res = month(piles, field_cards=["12-1", "02-3"])     # grand field ×4
    over = {p: pts[p] - 88 for p in pts}
    assert res.results["Ann"].details["over_par"] == 10
    assert sum(res.scores.values()) == 0
    for p in pts:
        assert res.scores[p] == over[p] * 4
    assert "Cy pays Ann 3 kan 4 mon: card points, Ann 10 over 88 × 4 (grand field 絶場 ×4)" \
        in res.explanation
    assert "Cy pays Bob 1 kan 8 mon: card points, Bob 5 over 88 × 4 (grand field 絶場 ×4)" \
        in res.explanation
    assert "Ann: 98 card points, 10 over 88; net +3 kan 4 mon" in res.explanation


def test_a_month_played_out_needs_every_card():
    piles = balanced(PAR_PILE)
    piles["Cy"] = piles["Cy"][:-2]
    with pytest.raises(InputError, match="46 cards.*2 missing"):
        month(piles)


# ------------------------------------------------------------------ sitting out
FOUR = ["Ann", "Bob", "Cy", "Dee"]


def test_four_at_the_table_one_sits_out():
    piles = {**balanced(PAR_PILE), "Dee": []}
    with pytest.raises(InputError, match="name the 1 who sits this month out"):
        month(piles, players=FOUR)
    res = month(piles, players=FOUR, sitting_out=["Dee"])
    assert res.results["Dee"].details["role"] == "sitting_out"
    assert res.results["Dee"].score == -12 and paid(res, "Dee", res.winner) == 12   # 1 kan


def test_a_player_sitting_out_has_no_pile():
    piles = {**balanced(PAR_PILE), "Dee": []}
    piles["Dee"], piles["Cy"] = piles["Cy"][:1], piles["Cy"][1:]
    with pytest.raises(InputError, match="Dee sat this month out but has 1 cards"):
        month(piles, players=FOUR, sitting_out=["Dee"])


def test_bga_mizuten_each_player_out_pays_the_dealer_1_kan():
    """BGA: a dealer who calls mizuten 'take[s] 1 kan from each "Get Out of Play"
    player'."""
    piles = {**balanced(PAR_PILE), "Dee": [], "Eve": []}
    res = month(piles, players=FOUR + ["Eve"], sitting_out=["Dee", "Eve"], mizuten="yes")
    assert paid(res, "Dee", "Ann") == 12 and paid(res, "Eve", "Ann") == 12


def test_sitting_out_fee_times_the_field_to_the_winner():
    piles = {**balanced(PAR_PILE), "Dee": []}
    res = month(piles, rules(sit_out_fee=5), players=FOUR, sitting_out=["Dee"],
                field="big")
    assert res.results["Dee"].score == -10
    assert sum(res.scores.values()) == 0


def test_impl_fr_each_further_player_out_pays_half_a_kan_more():
    """IMPL-FR: sitting out costs 1 kan, then 1.5, 2, 2.5 ... (times the field), to the
    month's winner (the pot); KUSABA: the winner takes the fee."""
    six = FOUR + ["Eve", "Fay"]
    piles = {**balanced(PAR_PILE), "Dee": [], "Eve": [], "Fay": []}
    res = month(piles, players=six, sitting_out=["Eve", "Dee", "Fay"])
    assert [res.results[p].score for p in ("Eve", "Dee", "Fay")] == [-12, -18, -24]
    assert paid(res, "Fay", res.winner) == 24
    flat = month(piles, rules(sit_out_rising=False, sit_out_paid_to="dealer"), players=six,
                 sitting_out=["Eve", "Dee", "Fay"])
    assert paid(flat, "Fay", "Ann") == 12


# ------------------------------------------------------------------ properties
@settings(max_examples=60, deadline=None)
@given(st.permutations(ALL), st.integers(1, 46), st.integers(1, 46),
       st.sampled_from(["small", "big", "grand"]), st.sampled_from(["each", "split"]))
def test_payments_sum_to_zero_and_piles_to_264(order, a, b, field, how):
    i, j = sorted((a, b))
    piles = {"Ann": order[:i], "Bob": order[i:j], "Cy": order[j:]}
    assert sum(card_points(v) for v in piles.values()) == 264
    hands = {"Bob": order[:7]}
    res = month(piles, rules(yaku_payment=how), field=field, dealt_hands=hands)
    assert sum(res.scores.values()) == 0
    for p, r in res.results.items():
        mine = r.details["payments"]
        assert r.score == sum(x["mon"] for x in mine if x["payee"] == p) - \
            sum(x["mon"] for x in mine if x["payer"] == p)


# ------------------------------------------------------------------ open implementations
@pytest.mark.parametrize("hand, name, kan", [
    (["01-1", "01-2", "01-3", "01-4", "02-1", "02-2", "02-3"], "shiso", 20),
    (["01-1", "01-2", "01-3", "01-4", "02-1", "02-2", "03-3"], "ichinishi", 8),
    (["04-1", "04-2", "04-3", "05-1", "05-2", "05-3", "06-3"], "futatatesanbon", 8),
    (["01-1", "01-2", "01-3", "05-1", "05-2", "05-3", "06-3"], "sanbontatesanbon", 7),
    (["01-1", "01-2", "01-3", "02-4", "02-1", "03-2", "03-3"], "haneken", 7),
    (["01-1", "01-2", "01-3", "02-4", "02-1", "02-2", "06-3"], "futasanbon", 6),
    (["01-1", "01-2", "01-3", "01-4", "02-1", "03-2", "06-3"], "teshi", 6),
    (["01-1", "01-2", "02-3", "02-4", "03-1", "03-2", "06-3"], "kuttsuki", 4),
    (["01-1", "02-3", "03-3", "04-3", "05-3", "06-3", "07-3"], "pikaichi", 4),
    (["11-1", "02-3", "03-3", "04-3", "05-3", "06-3", "07-3"], "karasu", 4),
    (["02-1", "02-3", "03-3", "04-3", "05-3", "06-3", "07-3"], "toichi", 3),
])
def test_impl_fr_teyaku_table(hand, name, kan):
    """IMPL-FR's rules page: shisō 20, ichi-ni-shi 8, two standing threes 8, a three and
    a standing three 7, haneken 7, futa-sanbon 6, teshi 6, kuttsuki 4, pika-ichi 4,
    karasu 4 (the rain man a chaff), tō-ichi 3 kan."""
    rs = rules()
    found = teyaku_of_hand(hand, rs)
    assert name in found
    res = month(balanced(PAR_PILE), dealt_hands={"Ann": hand})
    hit = next(y for y in res.results["Ann"].yaku if y.name == name)
    assert hit.points == kan


def test_porg_tobikomi_a_dealt_three_completed_in_play_1_kan():
    """PORG-SCH: 'If a 3-of-a-kind becomes a 4-of-a-kind during play, score another 1
    kan' (tobikomi 飛込; IMPL-FR: 1 kan from each)."""
    hand = ["04-1", "04-2", "04-3", "01-1", "02-1", "03-1", "06-1"]     # a standing three
    res = month(balanced(PAR_PILE), dealt_hands={"Ann": hand})        # Ann took 04-4 too
    names = [y.name for y in res.results["Ann"].yaku]
    assert names == ["tatesanbon", "tobikomi"]
    assert paid(res, "Bob", "Ann") == 36 + 12 and paid(res, "Cy", "Ann") == 48


def test_bga_sage_player_overtaken_pays_alone_and_loses_his_yaku():
    """BGA: 'if another player completes a card-set yaku first: the continuing player's
    yaku is nullified' and he pays 'from their stash exclusively (the third player does
    not have to pay)' (IMPL-FR: he pays double)."""
    piles = {"Ann": ["01-2", "02-2", "03-2"], "Bob": ["06-2", "09-2", "10-2"], "Cy": ["01-3"]}
    res = month(piles, stopped_by="Bob", sage_by="Ann")
    assert paid(res, "Ann", "Bob") == 2 * 84 and paid(res, "Cy", "Bob") == 0
    assert paid(res, "Bob", "Ann") == 0 and res.scores["Ann"] == -168
    assert "void" in res.results["Ann"].explanation


def test_impl_fr_played_out_after_sage_dekiyaku_pay_half():
    """IMPL-FR: hands played out after a sage: each is paid half his dekiyaku, no card
    points; the first to call sage wins the month."""
    chaff = [c.code for c in DECK if c.kind.value == "chaff"]
    ann = ["01-2", "02-2", "03-2"] + chaff[:5]
    res = month(deal(ann), sage_by="Ann")
    assert paid(res, "Bob", "Ann") == 42 and res.winner == "Ann"
    assert not res.results["Ann"].details["points_settled"]
    full = month(deal(ann), rules(played_out_dekiyaku="full"), sage_by="Ann")
    assert full.results["Ann"].details["points_settled"]


def test_impl_fr_all_eighty_eight_the_dealer_collects_10_kan():
    """IMPL-FR: 'Tous-les-Huit (each 88): the dealer collects 10 kan from each'."""
    chaff = [c.code for c in DECK if c.kind.value == "chaff"]
    rest = [c for c in ALL if c not in PAR_PILE]
    # Bob: 88 = 2 lights, 3 animals, 2 ribbons + 8 chaff; Cy the rest (88 too)
    bob = ["03-1", "08-1", "07-1", "09-1", "10-1", "01-2", "09-2"] + \
        [c for c in chaff if c in rest][:8]
    piles = {"Ann": PAR_PILE, "Bob": bob, "Cy": [c for c in rest if c not in bob]}
    assert {p: card_points(v) for p, v in piles.items()} == {"Ann": 88, "Bob": 88, "Cy": 88}
    res = month(piles, players=["Bob", "Ann", "Cy"])      # Bob deals
    assert [y.name for y in res.results["Bob"].yaku] == ["sohachi"]
    assert paid(res, "Ann", "Bob") == 120 and paid(res, "Cy", "Bob") == 120


def test_impl_fr_double_eight_168_points_10_kan_and_1_per_point():
    """IMPL-FR: 'Double-Huit (168+): 10 kan from each, +1 per point beyond'."""
    animals = [c.code for c in DECK if c.kind.value == "animal" and c.code != "10-1"]
    ann = ["01-1", "03-1", "08-1", "11-1"] + animals + ["01-2", "04-2"]   # no dekiyaku
    assert card_points(ann) == 170
    chaff = [c.code for c in DECK if c.kind.value == "chaff"]
    res = month(deal(ann, ["02-2", "06-2"] + chaff[:8]))
    hit = next(y for y in res.results["Ann"].yaku if y.name == "nihachi")
    assert hit.points == 12 and paid(res, "Cy", "Ann") == 144
    assert not res.results["Ann"].details["points_settled"]


# ------------------------------------------------------------------ ja.wikipedia, Shiragiku
def teyaku_paid(res, payer: str, payee: str) -> int:
    """What ``payer`` paid ``payee`` for teyaku (returns not counted)."""
    return sum(p["mon"] for p in res.results[payer].details["payments"]
               if p["payer"] == payer and p["payee"] == payee
               and p["why"].startswith("teyaku"))


#: Ann's pile at 89 card points (the par pile and one more chaff): over 88.
OVER_PILE = PAR_PILE + ["05-3"]

CHAFF_HANDS = [
    (["01-2", "06-2", "01-3", "02-3", "03-3", "04-3", "05-3"], "aka", 3, 4),
    (["01-2", "01-3", "02-3", "03-3", "04-3", "05-3", "06-3"], "tanichi", 3, 4),
    (["02-1", "01-3", "02-3", "03-3", "04-3", "05-3", "06-3"], "toichi", 3, 4),
    (["01-3", "01-4", "02-3", "03-3", "04-3", "05-3", "06-3"], "karasu", 4, 5),
    (["01-1", "01-3", "02-3", "03-3", "04-3", "05-3", "06-3"], "pikaichi", 4, 4),
    (["01-1", "02-1", "03-2", "04-1", "05-2", "06-1", "07-1"], "sunashi", 4, 4),
]


@pytest.mark.parametrize("hand, name, kan, kan_over", CHAFF_HANDS)
def test_ja_wp_nuke_yaku_one_kan_more_over_88(hand, name, kan, kan_over):
    """JA-WP (10 points a kan): aka 3+1, tan-ichi 3+1, jū-ichi 3+1, pika-ichi 4, karasu
    4+1, sunashi 4 kan; '+1' is the nuke-yaku (ぬけ役): the holder who ends the month over
    the par of 88 (89 or more) takes one kan more."""
    rs = rules(mon_per_kan=10)
    assert teyaku_of_hand(hand, rs) == [name]
    at_par = month(balanced(PAR_PILE), rs, dealt_hands={"Ann": hand})
    over = month(balanced(OVER_PILE), rs, dealt_hands={"Ann": hand})
    assert card_points(OVER_PILE) == 89
    assert teyaku_paid(at_par, "Bob", "Ann") == kan * 10
    assert teyaku_paid(over, "Bob", "Ann") == kan_over * 10
    assert teyaku_paid(over, "Cy", "Ann") == kan_over * 10
    if kan_over > kan:
        assert "nuke-yaku" in over.results["Ann"].explanation
        off = month(balanced(OVER_PILE), rules(mon_per_kan=10, nuke_yaku=False),
                    dealt_hands={"Ann": hand})
        assert teyaku_paid(off, "Bob", "Ann") == kan * 10


def test_ja_wp_tan_ichi_over_88_is_4_kan_on_a_big_field():
    """The issue's case: tan-ichi held by a player who ends over 88 is 3+1 = 4 kan (the
    field doubles it: 8 kan, 96 mon at 12 a kan)."""
    hand = CHAFF_HANDS[1][0]
    res = month(balanced(OVER_PILE), dealt_hands={"Ann": hand}, field="big")
    hit = next(y for y in res.results["Ann"].yaku if y.name == "tanichi")
    assert hit.points == 4
    assert teyaku_paid(res, "Bob", "Ann") == 96


def test_ja_wp_aka_two_or_more_ribbons_kirisame_exactly_two():
    """JA-WP: aka (赤) is two or more ribbons, the rest chaff ('some books say two');
    KIRISAME: two slips and five dregs. Three ribbons and four chaff: aka 3 kan by
    default, nothing with ``aka_ribbons=exactly_two``."""
    hand = ["01-2", "02-2", "06-2", "03-3", "04-3", "05-3", "07-3"]
    assert chaff_teyaku(hand, rules()) == "aka"
    res = month(balanced(PAR_PILE), rules(mon_per_kan=10), dealt_hands={"Ann": hand})
    assert teyaku_paid(res, "Bob", "Ann") == 30 and teyaku_paid(res, "Cy", "Ann") == 30
    assert chaff_teyaku(hand, rules(aka_ribbons="exactly_two")) is None
    two = ["01-2", "06-2", "01-3", "02-3", "03-3", "04-3", "05-3"]
    assert chaff_teyaku(two, rules(aka_ribbons="exactly_two")) == "aka"
    six = ["01-2", "02-2", "03-2", "04-2", "05-2", "06-2", "07-3"]
    assert chaff_teyaku(six, rules()) == "aka"


def test_ja_wp_sunashi_seven_scoring_cards_4_kan():
    """JA-WP: sunashi (素無), every dealt card a scoring card, 4 kan (40 points at 10 a
    kan); a willow card is a chaff under the willow rule, so it breaks sunashi."""
    hand = CHAFF_HANDS[5][0]
    res = month(balanced(PAR_PILE), rules(mon_per_kan=10), dealt_hands={"Ann": hand})
    assert [y.name for y in res.results["Ann"].yaku] == ["sunashi"]
    assert teyaku_paid(res, "Bob", "Ann") == 40 and teyaku_paid(res, "Cy", "Ann") == 40
    willow = ["11-1"] + hand[1:]
    assert chaff_teyaku(willow, rules()) is None
    assert chaff_teyaku(willow, rules(willow_as_chaff=False)) == "sunashi"
    pair = ["01-1", "01-2", "02-1", "03-2", "04-1", "05-2", "06-1"]   # a pair: no set yaku
    assert teyaku_of_hand(pair, rules()) == ["sunashi"]


def test_shiragiku_sujuroku_voids_the_months_teyaku_and_their_money_is_returned():
    """SHIRAGIKU: su-jūroku, 12 kan (144 points) on a small field; 'the teyaku declared
    that month are voided', and 'even its maker must return the teyaku money received at
    the start of the month'."""
    chaff = [c.code for c in DECK if c.kind.value == "chaff" and c.month != 11][:16]
    bob = ["01-1", "03-1", "11-1", "02-1", "04-1", "05-1", "06-1", "01-2", "02-2", "06-2",
           "09-2", "04-2"] + [c for c in ALL if c not in chaff and c.endswith(("-3", "-4"))
                              and c[:2] != "11"][:3]
    piles = deal(chaff, bob)
    bob_hand = ["10-2", "03-3", "04-3", "05-3", "07-3", "08-3", "12-2"]    # tan-ichi
    hands = {"Ann": HAND_SANBON, "Bob": bob_hand}
    res = month(piles, dealt_hands=hands)
    assert [y.name for y in res.results["Ann"].yaku] == ["sujuroku"]
    assert [y.name for y in res.results["Bob"].yaku] == []
    # paid at the deal, returned at the end: Ann returns her sanbon, Bob his tan-ichi
    assert teyaku_paid(res, "Bob", "Ann") == 24 and teyaku_paid(res, "Cy", "Ann") == 24
    back = [p for p in res.results["Ann"].details["payments"] if p["why"].startswith("returned")]
    assert sorted((p["payer"], p["payee"], p["mon"]) for p in back) == [
        ("Ann", "Bob", 24), ("Ann", "Cy", 24), ("Bob", "Ann", 48)]
    assert res.scores == {"Ann": 288, "Bob": -144, "Cy": -144}
    assert "void" in res.results["Ann"].explanation
    kept = month(piles, rules(sujuroku_voids_teyaku=False), dealt_hands=hands)
    assert kept.scores["Cy"] == -144 - 24 - 48


def test_a_card_in_two_piles_is_named():
    """A played-out month with a card in two piles (49 cards given) names the card."""
    piles = balanced(PAR_PILE)
    piles["Bob"] = piles["Bob"] + ["01-1"]
    with pytest.raises(InputError, match=r"card 01-1 .* is in two piles: pile Ann and pile "
                                         r"Bob"):
        month(piles)


def test_best_only_says_what_its_source_says():
    """KIRISAME's 'they don't stack' is one hand from its list of 47, in which the
    combinations are hands of their own: no source keeps only the better teyaku."""
    from scorer.rules.hachihachi import OPTIONS
    opt = next(o for o in OPTIONS if o.key == "teyaku_combine")
    meaning = dict(opt.choices)
    assert "no source" in meaning["best_only"] and "list of 47" in meaning["best_only"]
    assert "PORG" in meaning["one_each"] and "JA-WP" in opt.source
