"""Every option of every game reads as a sentence: its value in words, no option key and
no source tag (scorer.rules.wording); a rule set's house rules are its changed options so."""

from __future__ import annotations

import re

from scorer.rules import get_ruleset, house_rules, list_presets, option_rows

TAG_OR_KEY = re.compile(r"\b(?:[A-Z]+(?:-[A-Z0-9]+)+|G\d+)\b|\b[a-z]+_[a-z_]+\b")


def test_every_option_and_value_reads_as_a_sentence() -> None:
    for rs in list_presets():
        for row in option_rows(rs):
            for text in [row["sentence"], *(row.get("sentences") or {}).values()]:
                assert text.endswith(".") and text[0].isupper(), (rs.name, row["key"], text)
                assert not TAG_OR_KEY.search(text), (rs.name, row["key"], text)


def test_house_rules_are_the_changed_options_in_words() -> None:
    rs = get_ruleset("gostop", overrides={"stop_minimum": "5", "godori": "3"})
    assert house_rules(rs) == ["A player needs 5 points to stop or go.",
                               "Godori, the five birds 02-1 04-1 08-2: 3 points."]
    assert house_rules(get_ruleset("gostop")) == []


def test_a_hwatu_games_tooltip_and_template_name_cards_as_its_sentence() -> None:
    """Issue 66: Go-Stop's willow-ribbon rule said 12-3 in its sentence, 11-3 in its
    tooltip; every card code an option row shows is the sentence's numbering."""
    row = next(r for r in option_rows(get_ruleset("gostop")) if r["key"] == "willow_ribbon")
    assert "12-3" in row["help"] and "11-3" not in row["help"] + row["template"]
    assert "12-3" in row["sentence"]
