"""Rule sets: presets as data, --set parsing, house-rules TOML files, clear errors."""

import pytest

from scorer.errors import InputError
from scorer.rules import VARIANTS, get_ruleset, list_presets, parse_set_args

PRESET_NAMES = ["sakura", "sakura-victories", "koikoi", "koikoi-modern", "koikoi-classic",
                "hanaawase", "hanaawase-zero-sum", "gostop", "matgo", "hachihachi",
                "hachihachi-half", "hachihachi-bga"]


def test_every_preset_of_rules_6_1():
    presets = list_presets()
    assert [p.name for p in presets] == PRESET_NAMES
    games = {p.name: p.game for p in presets}
    assert games["sakura-victories"] == "sakura" and games["koikoi-modern"] == "koikoi"
    assert games["hanaawase-zero-sum"] == "hanaawase"


def test_preset_values():
    s = get_ruleset("sakura")
    assert (s["yellow_paulownia"], s["team_piles"], s["tie_policy"], s["game_scoring"],
            s["gaji_leftovers"], s["next_dealer"], s.default_rounds) == \
        (10, "shared", "dealer_wins", "cumulative", "paired_month", "winner", 4)
    assert (s.min_players, s.max_players) == (2, 7)
    v = get_ruleset("sakura-victories")
    assert v["game_scoring"] == "victories" and v["chu_basa"] == "combined"
    k = get_ruleset("koikoi")
    assert (k["point_table"], k["animal_group"], k["ribbon_group"], k["sake_cup"],
            k["viewing"], k["rain_cancels_viewing"], k["double_at_seven"],
            k["koikoi_multiplier"], k["rain_man_three"], k["exhaustive_draw"],
            k["teyaku_both_players"], k.default_rounds) == \
        ("10-8-7-5", "exclusive_extras", "exclusive_extras", "both", "on", "none", True,
         "opponent", "ame_shiko", "same_dealer", "draw", 12)
    m = get_ruleset("koikoi-modern")
    assert (m["point_table"], m["animal_group"], m["ribbon_group"], m["viewing"],
            m["double_at_seven"], m["koikoi_multiplier"]) == \
        ("15-10-8-6-tan6", "stack_flat", "stack_flat", "off", False, "none")
    assert get_ruleset("koikoi-classic")["koikoi_multiplier"] == "per_call"
    assert get_ruleset("hanaawase")["settlement"] == "additive"
    h = get_ruleset("hanaawase-zero-sum")
    assert (h["settlement"], h["five_brights"], h["chaff_points"]) == ("zero_sum", 100, 1)
    assert (h.min_players, h.max_players) == (2, 4)


def test_default_is_sakura_and_name_is_case_insensitive():
    assert get_ruleset().name == "sakura"
    assert get_ruleset(" KoiKoi ").name == "koikoi"


def test_options_are_read_only_and_to_dict():
    rs = get_ruleset("koikoi")
    with pytest.raises(TypeError):
        rs.options["viewing"] = "off"  # type: ignore[index]
    d = rs.to_dict()
    assert d["name"] == "koikoi" and d["options"]["viewing"] == "on" and d["changed"] == []


@pytest.mark.parametrize("text, value", [("true", True), ("off", False), ("YES", True),
                                         ("0", False)])
def test_bool_values(text, value):
    assert get_ruleset("koikoi", overrides={"double_at_seven": text})["double_at_seven"] \
        is value


def test_int_choice_and_changed():
    rs = get_ruleset("sakura", overrides={"yellow_paulownia": "0", "rounds": "6"})
    assert rs["yellow_paulownia"] == 0 and rs.default_rounds == 6
    assert set(rs.changed) == {"yellow_paulownia", "rounds"}


@pytest.mark.parametrize("key, value, needle", [
    ("viewing", "sometimes", "allowed: on, off, with_other"),
    ("point_table", "nintendo2", "10-8-7-5, 15-8-7-6, 15-10-8-6-view3"),
    ("yellow_paulownia", "5", "allowed: 10, 0"),
    ("rounds", "0", "1..48"),
    ("rounds", "many", "1..48"),
    ("double_at_seven", "maybe", "true, false"),
])
def test_bad_values_name_key_and_allowed(key, value, needle):
    preset = "sakura" if key in ("yellow_paulownia", "rounds") else "koikoi"
    with pytest.raises(InputError) as info:
        get_ruleset(preset, overrides={key: value})
    assert key in str(info.value) and needle in str(info.value)


def test_unknown_key_lists_the_keys():
    with pytest.raises(InputError, match="unknown option 'viewing' for sakura.*yellow_paulownia"):
        get_ruleset("sakura", overrides={"viewing": "off"})


def test_unknown_preset():
    with pytest.raises(InputError, match="unknown rules preset 'go-stop'.*koikoi-modern"):
        get_ruleset("go-stop")


def test_parse_set_args():
    assert parse_set_args(["a=1", " b = x "]) == {"a": "1", "b": "x"}
    with pytest.raises(InputError, match="KEY=VALUE"):
        parse_set_args(["novalue"])


def test_every_option_default_is_allowed():
    for name, game in VARIANTS.items():
        for opt in game.options:
            assert opt.parse_value(opt.default) == opt.default, (name, opt.key)


def test_rules_file(tmp_path):
    f = tmp_path / "house.toml"
    f.write_text('preset = "koikoi"\n[options]\nviewing = "off"\ndouble_at_seven = false\n'
                 '"points.goko" = 12\n', encoding="utf-8")
    rs = get_ruleset(rules_file=f)
    assert rs.name == "koikoi" and rs["viewing"] == "off" and rs["double_at_seven"] is False
    assert rs.options["points.goko"] == 12
    # --set wins over the file
    assert get_ruleset(rules_file=f, overrides={"viewing": "on"})["viewing"] == "on"
    # the same preset named explicitly is fine; another is an error
    assert get_ruleset("koikoi", rules_file=f).name == "koikoi"
    with pytest.raises(InputError, match="rules file presets 'koikoi'"):
        get_ruleset("sakura", rules_file=f)


def test_rules_file_without_preset_uses_the_named_one(tmp_path):
    f = tmp_path / "house.toml"
    f.write_text("[options]\nyellow_paulownia = 0\n", encoding="utf-8")
    assert get_ruleset(rules_file=f)["yellow_paulownia"] == 0
    assert get_ruleset("sakura-victories", rules_file=f).name == "sakura-victories"


@pytest.mark.parametrize("content, needle", [
    ('preset = "koikoi"\n[options]\nviewing = "rarely"\n', "option viewing: bad value"),
    ('preset = "koikoi"\n[options]\ncolour = 1\n', "unknown option 'colour'"),
    ('preset = "koikoi"\nextra = 1\n', "unknown key 'extra'"),
    ('preset = "nope"\n', "unknown rules preset 'nope'"),
    ('preset = 3\n', "preset must be a name"),
    ('options = 3\n', "[options] must be a table"),
    ('this is = not toml = at all', "not valid TOML"),
])
def test_bad_rules_files(tmp_path, content, needle):
    f = tmp_path / "house.toml"
    f.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as info:
        get_ruleset(rules_file=f)
    assert needle in str(info.value) and "\n" not in str(info.value)


def test_missing_and_binary_rules_file(tmp_path):
    with pytest.raises(InputError, match="not found"):
        get_ruleset(rules_file=tmp_path / "nope.toml")
    f = tmp_path / "bin.toml"
    f.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(InputError):
        get_ruleset(rules_file=f)


def test_ruleset_pickles_hashes_and_serialises():
    import copy
    import json
    import pickle
    rs = get_ruleset("koikoi", overrides={"viewing": "off"})
    assert pickle.loads(pickle.dumps(rs)) == rs and copy.deepcopy(rs) == rs
    assert hash(rs) == hash(get_ruleset("koikoi", overrides={"viewing": "off"}))
    assert json.loads(json.dumps(rs.to_dict()))["options"]["viewing"] == "off"
