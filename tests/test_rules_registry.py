"""The game registry: every game answers the Variant protocol, every yaku record is found
from its own cards and not from one card less, and the rule switches of issue 16."""

import pytest

from scorer.cards import DECK, Kind
from scorer.errors import InputError
from scorer.rules import (VARIANTS, RoundInput, find_yaku, get_variant, get_ruleset,
                          koikoi_multiplier, score_round)
from scorer.rules.yaku import Yaku

PRESET_OF = {name: game.presets[0].name for name, game in VARIANTS.items()}
# Settings under which each yaku can be formed on its own.
ENABLE = {("koikoi", "tsukifuda"): {"tsukifuda": "true"},
          ("hachihachi", "rokutan"): {"yaku.rokutan": "on"},
          ("hachihachi", "kusa"): {"yaku.kusa": "on"}}
CONTEXT = {("koikoi", "tsukifuda"): {"month": 3}}
MONTH_3 = ("03-1", "03-2", "03-3", "03-4")
# Where the first cards of a yaku's pool would also form a better yaku of its group.
SMALLEST = {("koikoi", "tan"): ["01-2", "02-2", "04-2", "05-2", "07-2"],
            ("hachihachi", "sujuroku"): [c.code for c in DECK
                                         if c.kind is Kind.CHAFF and c.month != 11][:16],
            # 168 card points: four lights, eight animals (not the deer), two ribbons
            ("hachihachi", "nihachi"): ["01-1", "03-1", "08-1", "11-1", "02-1", "04-1",
                                        "05-1", "06-1", "07-1", "08-2", "09-1", "11-2",
                                        "01-2", "04-2"]}


def _cases():
    for name, game in VARIANTS.items():
        for yaku in game.yaku:
            if yaku.group.startswith("teyaku_") or yaku.group == "month":
                continue    # Hachi-Hachi's: from a dealt hand, or from the whole month
            yield pytest.param(name, yaku, id=f"{name}-{yaku.name}")


def _smallest(game: str, yaku: Yaku) -> list[str]:
    """The fewest cards that form the yaku."""
    if (game, yaku.name) in SMALLEST:
        return SMALLEST[game, yaku.name]
    if yaku.name == "tsukifuda":
        return list(MONTH_3)
    cards = list(yaku.requires) + list(yaku.cards[:yaku.need or len(yaku.cards)])
    return cards


@pytest.mark.parametrize("game, yaku", list(_cases()))
def test_each_yaku_is_found_from_its_cards_and_not_from_fewer(game, yaku):
    rs = get_ruleset(PRESET_OF[game], overrides=ENABLE.get((game, yaku.name)))
    ctx = CONTEXT.get((game, yaku.name))
    cards = _smallest(game, yaku)
    found = {y.name for y in find_yaku(cards, rs, ctx).yaku}
    assert yaku.name in found, (cards, found)
    fewer = {y.name for y in find_yaku(cards[:-1], rs, ctx).yaku}
    assert yaku.name not in fewer


@pytest.mark.parametrize("name", list(VARIANTS))
def test_every_game_answers_the_protocol(name):
    game = get_variant(name)
    rs = get_ruleset(game.presets[0].name)
    assert game.name == name == rs.game and game.presets[0].game == name
    assert len(game.card_values(rs)) == 48
    assert {f.key for f in game.context.FIELDS} == set(game.context().to_dict())
    assert all(f["kind"] for f in game.context.schema())
    assert len({y.name for y in game.yaku}) == len(game.yaku)
    with pytest.raises(InputError, match="unknown context key"):
        game.context.parse({"weather": "rain"}, ["A", "B"], name)


def test_unknown_game():
    with pytest.raises(InputError, match="unknown game 'go-stop'"):
        get_variant("go-stop")


def names(codes, rs, ctx=None):
    return {y.name: y.points for y in find_yaku(codes, rs, ctx).yaku}


def ko(**options):
    return get_ruleset("koikoi", overrides=options)


def ha(**options):
    return get_ruleset("hanaawase", overrides=options)


# --- the rain and the viewing yaku -------------------------------------------------

@pytest.mark.parametrize("mode, card, cancelled", [
    ("none", "11-1", False), ("rain_man", "11-1", True), ("rain_man", "11-4", False),
    ("rain_man_or_lightning", "11-4", True), ("rain_man_or_lightning", "11-2", False),
    ("any_willow", "11-2", True), ("any_willow", "11-3", True),
])
def test_rain_cancels_viewing_in_both_games(mode, card, cancelled):
    pile = ["03-1", "09-1", card]
    assert ("hanami" not in names(pile, ko(rain_cancels_viewing=mode))) is cancelled
    assert ("hanami" not in names(pile, ha(rain_cancels_viewing=mode))) is cancelled


def test_old_rain_names_still_accepted():
    assert ko(viewing="rain_cancels")["rain_cancels_viewing"] == "rain_man"
    assert ko(viewing="rain_cancels")["viewing"] == "on"
    assert ha(rain_cancels_viewing="true")["rain_cancels_viewing"] == "rain_man"
    assert ha(rain_cancels_viewing=False)["rain_cancels_viewing"] == "none"


# --- the sake cup --------------------------------------------------------------------

def test_sake_cup_chaff_only_is_not_an_animal():
    animals = ["02-1", "04-1", "05-1", "08-2", "09-1"]          # 5 animals with the cup
    chaff9 = ["01-3", "01-4", "02-3", "02-4", "03-3", "03-4", "04-3", "04-4", "11-4"]
    assert "tane" in names(animals, ko())
    assert "tane" not in names(animals, ko(sake_cup="chaff"))
    assert names(chaff9 + ["09-1"], ko(sake_cup="chaff")) == {"kasu": 1}
    assert names(chaff9 + ["09-1"], ko(sake_cup="animal")) == {}
    assert names(["03-1", "09-1"], ko(sake_cup="chaff")) == {"hanami": 5}  # the card itself


# --- one yaku on or off, a yaku at 0 -------------------------------------------------

def test_yaku_off_drops_it_and_lets_the_next_of_its_group_count():
    five = ["01-1", "03-1", "08-1", "11-1", "12-1"]
    assert names(five, ko(**{"yaku.goko": "off"})) == {"shiko": 8}
    assert names(five, ha(**{"yaku.five_brights": "off"})) == {"four_brights": 60}
    assert names(["03-1", "09-1"], ko(**{"yaku.hanami": "off"})) == {}
    assert names(["08-1", "09-1"], ko(**{"yaku.hanami": "off"})) == {"tsukimi": 5}
    assert names(["01-2", "02-2", "03-2"], get_ruleset(
        "sakura", overrides={"yaku.akatan": "off"})) == {}


def test_yaku_at_zero_is_listed_and_keeps_its_group():
    five = ["01-1", "03-1", "08-1", "11-1", "12-1"]
    assert names(five, ko(**{"points.goko": "0"})) == {"goko": 0}
    assert names(five, ha(**{"points.five_brights": "0"})) == {"five_brights": 0}


def test_sakura_points_per_yaku():
    rs = get_ruleset("sakura", overrides={"points.akatan": "30"})
    res = score_round(RoundInput(["A", "B"], {"A": ["01-2", "02-2", "03-2"], "B": []}), rs)
    assert res.results["B"].penalty == 30 and res.results["B"].score == -30


def test_unknown_yaku_switch():
    with pytest.raises(InputError, match="unknown yaku 'gokou'.*goko"):
        ko(**{"yaku.gokou": "off"})


# --- animal and ribbon groups apart --------------------------------------------------

def test_animal_and_ribbon_groups_are_separate_switches():
    pile = ["06-1", "07-1", "10-1", "02-1", "04-1",               # ISC + 2 animals
            "01-2", "02-2", "03-2", "04-2", "05-2"]               # akatan + 2 ribbons
    nintendo = {"ino_shika_cho": 7, "akatan": 7}
    assert names(pile, ko()) == nintendo
    assert names(pile, ko(animal_group="stack_flat")) == {
        "ino_shika_cho": 5, "tane": 1, "akatan": 7}
    assert names(pile, ko(ribbon_group="stack_extras")) == {
        "ino_shika_cho": 7, "akatan": 7, "tan": 1}
    old = ko(set_yaku="stack_flat")                               # the old key: both
    assert (old["animal_group"], old["ribbon_group"]) == ("stack_flat", "stack_flat")


# --- option values named by content --------------------------------------------------

@pytest.mark.parametrize("old, new", [
    ("nintendo", "10-8-7-5"), ("fudawiki", "15-8-7-6"), ("video", "15-10-8-6-view3"),
    ("fudawiki_viewing3", "15-8-7-6-view3"), ("app", "15-10-8-6-tan6")])
def test_point_table_old_names_still_accepted(old, new):
    assert ko(point_table=old)["point_table"] == new


def test_paulownia_row_old_switch():
    row = ["12-1", "12-2", "12-3", "12-4"]
    assert names(row, ha(paulownia_row="false")) == {}
    assert names(row, ha()) == {"paulownia_row": 10}


# --- Koi-Koi multiplier and tsuki-fuda -----------------------------------------------

def test_public_koikoi_multiplier():
    rs = get_ruleset("koikoi")
    assert koikoi_multiplier(6, "A", {"A": 0, "B": 1}, rs)[0] == 2
    assert koikoi_multiplier(7, "A", {"A": 0, "B": 1}, rs)[0] == 4
    assert koikoi_multiplier(7, "A", {"A": 1, "B": 0}, rs)[0] == 2
    classic = get_ruleset("koikoi-classic")
    times, why = koikoi_multiplier(3, "A", {"A": 1, "B": 2}, classic)
    assert times == 4 and "3 koi-koi call" in why[0]


def test_tsukifuda_without_a_month_warns():
    rs = ko(tsukifuda="true")
    summary = find_yaku(MONTH_3, rs)
    assert summary.yaku == [] and any("month" in n for n in summary.notes)
    assert find_yaku(MONTH_3, ko()).notes == ()
    res = score_round(RoundInput(["A", "B"], {"A": list(MONTH_3) + ["01-1", "08-1", "12-1"],
                                              "B": []}, context={"stopped_by": "A"}), rs)
    assert any("tsuki-fuda was not looked for" in line for line in res.explanation)


# --- adding a game: the worked example of docs/RULES-NOTES.md ------------------------

def test_a_new_game_is_one_module_and_one_registry_line(monkeypatch):
    from pathlib import Path

    from scorer.game import GameSetup, standings
    from scorer.rules import PRESETS
    from tests import mini_game

    doc = (Path(__file__).parent.parent / "docs" / "RULES-NOTES.md").read_text("utf-8")
    body = Path(mini_game.__file__).read_text("utf-8").split("\n", 1)[1]
    assert body in doc                                      # the doc shows this module
    monkeypatch.setitem(VARIANTS, "mini", mini_game.VARIANT)      # the registry line
    monkeypatch.setitem(PRESETS, "mini", mini_game.VARIANT.presets[0])
    rs = get_ruleset("mini", overrides={"points.akatan": "7"})
    assert rs.default_rounds == 6 and (rs.min_players, rs.max_players) == (2, 2)
    assert names(["01-2", "02-2", "03-2"], rs) == {"akatan": 7}
    res = score_round(RoundInput(["A", "B"], {"A": ["01-2", "02-2", "03-2"], "B": []}), rs)
    assert res.winner == "A" and res.scores == {"A": 7, "B": 0}
    setup = GameSetup.parse(["A", "B"], rs)
    assert standings(setup, [res]).totals == {"A": 7, "B": 0}
    with pytest.raises(InputError, match="not played in teams"):
        GameSetup.parse(["A", "B"], rs, teams=[["A"], ["B"]])


def test_no_preset_description_names_a_number_of_rounds():
    """The game page's header adds the game's own number of rounds to the preset's
    description: a description with its own ("4 rounds, cumulative") repeats or
    contradicts it (issue 49.3)."""
    import re
    from scorer.rules import list_presets
    for rs in list_presets():
        assert not re.search(r"\d+ rounds?\b", rs.description), (rs.name, rs.description)
