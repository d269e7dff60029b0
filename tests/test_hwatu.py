"""The one table of hwatu words: Korean month names with paulownia as 11 and rain as 12,
the card roles (11-4 비쌍피, 12-2 똥쌍피), the baks, the presets' titles, as the API
serves them to the page; the card codes stay in the Japanese order."""

from __future__ import annotations

from pathlib import Path

from scorer import hwatu
from scorer.cards import DECK
from scorer.rules import get_ruleset
from scorer.rules.presets import preset_title
from tests.web_helpers import make_app


def test_months_in_hwatu_order_and_names() -> None:
    assert hwatu.MONTHS[12].text == "오동 odong" and hwatu.MONTHS[11].text == "비 bi"
    assert hwatu.HWATU_ORDER == (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 11)
    assert [hwatu.MONTHS[m].korean for m in (4, 5, 7, 8, 9)] == \
        ["흑싸리", "난초", "홍싸리", "공산", "국진"]


def test_card_roles() -> None:
    assert hwatu.card_word("11-4").korean == "비쌍피" and hwatu.role("11-4") == "ssangpi"
    assert hwatu.card_word("12-2").korean == "똥쌍피"
    assert hwatu.card_word("04-3").text == "흑싸리 피 heukssari pi"
    assert {hwatu.role(c.code) for c in DECK} == {"gwang", "yeol", "tti", "pi", "ssangpi"}
    assert sum(hwatu.role(c.code) == "gwang" for c in DECK) == 5


def test_titles_and_the_api(tmp_path: Path) -> None:
    assert get_ruleset("gostop").title == "고스톱 Go-Stop (3 players)"
    assert get_ruleset("matgo").title == "맞고 Matgo (2 players)"
    assert get_ruleset("hanaawase-zero-sum").title == "Hana-Awase (zero sum)"
    assert get_ruleset("koikoi").title == preset_title("koikoi", "Koi-Koi", 2, 2) == "Koi-Koi"
    client = make_app(tmp_path).test_client()
    words = client.get("/api/cards").json["hwatu"]
    assert words["months"]["11"]["number"] == 12 and words["order"][-2:] == [12, 11]
    assert words["baks"]["pi-bak"]["korean"] == "피박" and words["form"]["shakes"]["korean"] == "흔들기"
    assert words["games"] == ["gostop"]
    titles = {p["name"]: p["title"] for p in client.get("/api/presets").json["presets"]}
    assert titles["gostop"].startswith("고스톱") and titles["koikoi-modern"] == "Koi-Koi (modern)"


def test_a_presets_options_for_the_form(tmp_path: Path) -> None:
    client = make_app(tmp_path).test_client()
    rows = client.get("/api/presets/matgo/options").json["options"]
    by = {r["key"]: r for r in rows}
    assert by["stop_minimum"]["value"] == 7 and by["stop_minimum"]["default"] == 3
    assert by["pibak_max"]["group"] == "Baks (박)" and "G4" in by["pibak_max"]["source"]
    assert {r["group"] for r in rows} >= {"Stop and go (스톱, 고)", "Card points"}
    sakura = client.get("/api/presets/sakura/options").json["options"]
    assert {r["group"] for r in sakura} == {"House rules"}
    r = client.get("/api/presets/nope/options")
    assert r.status_code == 400 and "unknown rules preset" in r.json["error"]
