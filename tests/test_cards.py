"""The deck: codes, kinds, class indices, names, chaff equivalence, bad codes."""

import pytest

from scorer.cards import (CODES, DECK, MONTHS, Kind, Ribbon, card,
                          card_from_class, cards, equivalent)
from scorer.errors import InputError


def test_48_unique_codes_in_month_order():
    assert len(DECK) == 48 and len(set(CODES)) == 48
    assert CODES[0] == "01-1" and CODES[-1] == "12-4"
    assert [f"{m:02d}-{k}" for m in range(1, 13) for k in range(1, 5)] == list(CODES)
    assert len(MONTHS) == 12 and MONTHS[10].english == "Willow"


def test_kinds_as_in_design():
    by_kind = {k: sorted(c.code for c in DECK if c.kind is k) for k in Kind}
    assert by_kind[Kind.BRIGHT] == ["01-1", "03-1", "08-1", "11-1", "12-1"]
    assert by_kind[Kind.ANIMAL] == ["02-1", "04-1", "05-1", "06-1", "07-1", "08-2", "09-1",
                                    "10-1", "11-2"]
    assert by_kind[Kind.RIBBON] == ["01-2", "02-2", "03-2", "04-2", "05-2", "06-2", "07-2",
                                    "09-2", "10-2", "11-3"]
    assert len(by_kind[Kind.CHAFF]) == 24
    assert "11-4" in by_kind[Kind.CHAFF] and "12-2" in by_kind[Kind.CHAFF]
    colours = {c.code: c.ribbon for c in DECK if c.kind is Kind.RIBBON}
    assert [k for k, v in colours.items() if v is Ribbon.POETRY] == ["01-2", "02-2", "03-2"]
    assert [k for k, v in colours.items() if v is Ribbon.BLUE] == ["06-2", "09-2", "10-2"]
    assert [k for k, v in colours.items() if v is Ribbon.RED] == ["04-2", "05-2", "07-2",
                                                                  "11-3"]


def test_class_index_round_trip():
    for i, c in enumerate(DECK):
        assert c.class_index == i == (c.month - 1) * 4 + (c.index - 1)
        assert card_from_class(i) is c
    assert card("08-1").class_index == 28
    with pytest.raises(InputError):
        card_from_class(48)
    with pytest.raises(InputError):
        card_from_class(-1)


def test_lookup_by_code():
    assert card("8-1") is card("08-1")
    assert card(" 08-1 ").name == "Susuki: moon"
    assert [c.code for c in cards(["01-1", "12-2"])] == ["01-1", "12-2"]
    with pytest.raises(InputError):
        card("no such card")


@pytest.mark.parametrize("bad", ["13-1", "00-1", "01-5", "01-0", "x", "", "0811", "01-1-1",
                                 "²-1", "1" * 5000 + "-1", "٠٨-١"])
def test_bad_codes_are_input_errors(bad):
    with pytest.raises(InputError):
        card(bad)


def test_bad_type_is_input_error():
    with pytest.raises(InputError):
        card(801)  # type: ignore[arg-type]


def test_chaff_equivalence():
    assert equivalent("01-3", "01-4")
    assert equivalent("12-3", "12-4")
    assert not equivalent("12-2", "12-3")  # yellow paulownia is not a plain chaff
    assert not equivalent("11-4", "11-3")  # lightning is not interchangeable
    assert not equivalent("01-2", "01-3")
    assert card("12-4").equivalence_key == "12-3"
    assert card("11-4").equivalence_key == "11-4"
