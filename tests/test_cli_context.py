"""`hanafuda score`'s context options come from the games' context schemas: one option
per field key, shaped by the field's kind, so a new field needs no change to the command."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import pytest

from scorer.commands.context_args import add_context_args, context_from_args, context_options
from scorer.errors import InputError
from scorer.rules import VARIANTS
from scorer.rules.context import Context, ContextField


def parse(*argv: str) -> dict:
    parser = argparse.ArgumentParser()
    add_context_args(parser)
    return context_from_args(parser.parse_args(list(argv)))


def test_every_schema_field_is_an_option():
    keys = {f["key"] for game in VARIANTS.values() for f in game.context.schema()}
    assert {o.key for o in context_options()} == keys
    assert {o.flag for o in context_options()} >= {"--stopped-by", "--koikoi-calls",
                                                   "--teyaku", "--gaji-month"}


def test_each_kind_has_its_shape():
    assert parse("--stopped-by", "A", "--koikoi-calls", "B=1", "--koikoi-calls", "A=2",
                 "--teyaku", "A=teshi", "--month", "3", "--leftovers", "05-3,05-4") == {
        "stopped_by": "A", "koikoi_calls": {"B": "1", "A": "2"}, "teyaku": {"A": "teshi"},
        "month": "3", "leftovers": "05-3,05-4"}
    assert parse("--stopped-by", "A", "--stopped-by", "B") == {"stopped_by": ["A", "B"]}
    assert parse() == {}
    with pytest.raises(InputError, match="--koikoi-calls expects NAME=VALUE"):
        parse("--koikoi-calls", "B")


@dataclass(frozen=True)
class _GoesContext(Context):
    goes: dict
    FIELDS = (ContextField("goes", "count_per_player", "Go calls", "", 0, 9),)


@dataclass(frozen=True)
class _FakeGame:
    name: str = "fake"
    title: str = "Fake"
    context: type[Context] = _GoesContext


def test_a_new_games_per_player_field_needs_no_change_here(monkeypatch):
    monkeypatch.setitem(VARIANTS, "fake", _FakeGame())
    assert parse("--goes", "A=2", "--goes", "B=0") == {"goes": {"A": "2", "B": "0"}}
    goes = _GoesContext.parse(parse("--goes", "A=2"), ["A", "B"])
    assert goes.goes == {"A": 2, "B": 0}
