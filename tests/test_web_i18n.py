"""The page in the players' language (issue 66): Japanese, Korean or English, chosen from
the browser and switchable on the page; a Korean game starts in Korean. The catalogues
are gettext files (scorer/locales), read with no build step; every word the page's
templates and scripts say has its translation, and a translated page keeps no English."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from scorer import i18n
from web_helpers import CSRF, make_app

REPO = Path(__file__).resolve().parents[1]
KEYWORDS = {"_": None, "gettext": (2,), "ngettext": (1, 2), "say": None, "t": None, "tr": None}
METHODS = [("webui/templates/**.html", "jinja2"), ("webui/static/js/**.js", "javascript"),
           ("webui/app/**.py", "python"), ("scorer/cli.py", "python"), ("scorer/commands/**.py", "python")]
# words a translated page may keep: codes and names the players type, the language
# switcher's "English", file formats, the command and URL a paragraph quotes
KEPT = {"English", "CSV", "JSON", "QR", "Wi", "Fi", "README", "hanafuda", "serve", "detect",
        "deck", "NAME", "api", "png", "BGA", "Ann", "Bob", "Cy", "https", "localhost"}


@pytest.fixture()
def client(tmp_path: Path):
    return make_app(tmp_path).test_client()


def new_game(client, preset: str, players: list[str]) -> int:
    r = client.post("/api/games", json={"preset": preset, "players": players}, headers=CSRF)
    assert r.status_code == 201, r.get_json()
    return int(r.get_json()["id"])


def shown_words(page: str) -> set[str]:
    """The Latin words a page shows: its text and its titles, alts and labels, less its
    scripts and the catalogue it carries for them."""
    page = re.sub(r"<script.*?</script>|<style.*?</style>", " ", page, flags=re.S)
    attrs = " ".join(re.findall(r'(?:title|alt|aria-label|placeholder)="([^"]*)"', page))
    text = re.sub(r"<[^>]+>", " ", page) + " " + attrs
    return set(re.findall(r"[A-Za-z]{2,}", html.unescape(text)))


def page(client, path: str, lang: str | None = None, accept: str = "en-US,en;q=0.9") -> str:
    url = path + (("&" if "?" in path else "?") + f"lang={lang}" if lang else "")
    r = client.get(url, headers={"Accept-Language": accept, "Accept": "text/html"})
    assert r.status_code == 200
    return r.get_data(as_text=True)


def test_the_browser_chooses_the_language_and_the_switcher_keeps_one(client) -> None:
    assert '<html lang="ko">' in page(client, "/", accept="ko-KR,ko;q=0.9,en;q=0.5")
    assert "새 게임" in page(client, "/", accept="ko-KR,ko;q=0.9")
    assert "新しい対局" in page(client, "/", accept="ja,en;q=0.5")
    assert '<html lang="en">' in page(client, "/", accept="fr-FR,fr;q=0.9")
    # the switcher: one link a language, named in itself, the current one marked
    home = page(client, "/", accept="ja")
    assert 'href="?lang=ko"' in home and ">한국어</a>" in home and ">English</a>" in home
    assert 'data-lang="ja" aria-current="true"' in home
    r = client.get("/?lang=ko", headers={"Accept-Language": "ja"})
    assert "lang=ko" in r.headers["Set-Cookie"]
    assert '<html lang="ko">' in page(client, "/decks", accept="ja")      # the cookie holds it
    assert '<html lang="en">' in page(client, "/decks", lang="en", accept="ja")


def test_a_korean_game_starts_in_korean_unless_the_players_chose(client) -> None:
    gostop = new_game(client, "gostop", ["Ann", "Bob", "Cy"])
    sakura = new_game(client, "sakura", ["Ann", "Bob"])
    assert '<html lang="ko">' in page(client, f"/games/{gostop}")
    assert "패 저장" not in page(client, f"/games/{gostop}")       # (the scripts say that)
    assert "판 확정" in page(client, f"/games/{gostop}")
    assert '<html lang="en">' in page(client, f"/games/{sakura}")
    assert '<html lang="en">' in page(client, f"/games/{gostop}", lang="en")   # chosen: kept
    assert '<html lang="en">' in page(client, f"/games/{gostop}")


def test_a_translated_page_keeps_no_english(client) -> None:
    hachi = new_game(client, "hachihachi", ["Ann", "Bob", "Cy"])
    gostop = new_game(client, "gostop", ["Ann", "Bob", "Cy"])
    for path in ("/", "/decks", f"/games/{hachi}", f"/games/{gostop}"):
        english = shown_words(page(client, path, lang="en"))
        for lang in ("ja", "ko"):
            left = (shown_words(page(client, path, lang=lang)) & english) - KEPT
            assert not left, (path, lang, sorted(left))


def test_the_english_page_is_as_written(client) -> None:
    home = page(client, "/", lang="en")
    for text in ("<h1>New game</h1>", "Start game", "House rules", "No games yet.",
                 "Learn this deck from confirmed rounds", "花札 Hanafuda scorekeeper"):
        assert text in home
    hachi = new_game(client, "hachihachi", ["Ann", "Bob", "Cy"])
    game = page(client, f"/games/{hachi}", lang="en")
    assert "Confirm month" in game and "Months played" in game and "Standings" in game
    text = re.sub(r"<script.*?</script>|<span id=\"languages\".*?</span>", "", game, flags=re.S)
    assert set(re.findall(r"[\u3040-\u30ff\uac00-\ud7a3]", text)) <= set("화투"), "no other Korean or kana"


def test_every_word_the_page_and_the_command_say_is_in_each_catalogue() -> None:
    said: set[str] = set()
    for pattern, method in METHODS:
        for _, _, message, _, _ in extract_from_dir(str(REPO), method_map=[(pattern, method)],
                                                    keywords=KEYWORDS):
            for text in (message if isinstance(message, tuple) else (message,)):
                if text and "${" not in text:
                    said.add(text)
    assert len(said) > 150
    for lang in ("ja", "ko"):
        missing = sorted(said - set(i18n.catalogue(lang)))
        assert not missing, (lang, missing)


def test_the_template_holds_every_message_a_catalogue_translates() -> None:
    with (REPO / "scorer" / "locales" / "messages.pot").open("rb") as f:
        template = {m.id for m in read_po(f) if m.id}
    for lang in ("ja", "ko"):
        assert set(i18n.catalogue(lang)) <= template, lang


def test_the_catalogues_are_files_read_with_no_build_step(tmp_path: Path) -> None:
    assert i18n.languages() == ("en", "ja", "ko")
    assert not list((REPO / "scorer" / "locales").rglob("*.mo"))     # the .po is read as it is
    assert i18n.gettext("ko", "Save pile") == "패 저장"
    assert i18n.gettext("ja", "Game %(id)s", id=3) == "対局 3"
    assert i18n.gettext("en", "Save pile") == "Save pile"
    assert i18n.best_language(["fr-CA", "ko-KR"]) == "ko"
    assert i18n.language_name("ja") == "日本語"
    text = (REPO / "pyproject.toml").read_text()
    assert '"babel==' in text and 'locales/*/LC_MESSAGES/*.po' in text


def test_the_command_speaks_the_shells_language() -> None:
    def helped(env: dict[str, str]) -> str:
        return subprocess.run([sys.executable, "-m", "scorer.cli", "--help"], capture_output=True, text=True,
                              env={"PATH": "/usr/bin:/bin", **env}, cwd=REPO, check=True).stdout
    korean = helped({"LANG": "ko_KR.UTF-8"})
    assert "화투 패를 알아보고" in korean and "점수를 계산하기" in korean
    assert "花札を認識" in helped({"HANAFUDA_LANG": "ja"})
    assert "Recognise hanafuda cards" in helped({"LANG": "C.UTF-8"})


LINES = ["Ann wins the round", "Ann: samgwang 3 = 3; stops and receives 12",
         "Bob: pays 3 × 2 gwang-bak = 6 + Cy's share 6 (go-bak) = 12",
         "Bob pays Ann 7 kan: dekiyaku akatan 7 kan",
         "Ann: 15 card points (not settled: Ann ended the month); dekiyaku akatan 7 kan; net +14 kan"]


def test_the_engines_sentences_by_shape() -> None:
    assert i18n.sentence("ko", LINES[0]) == "Ann 승리"
    assert i18n.sentence("ja", LINES[3]) == "Bob が Ann に 7 貫 を払う: 出来役 赤短 7 貫"
    for lang in ("ja", "ko"):
        for line in LINES:
            said = i18n.sentence(lang, line)
            assert not set(re.findall(r"[A-Za-z]{2,}", said)) - {"Ann", "Bob", "Cy"}, (lang, said)
    assert i18n.sentence("en", LINES[1]) == LINES[1]
    assert i18n.sentence("ko", "a sentence of no shape") == "a sentence of no shape"


def test_the_command_scores_in_the_shells_language() -> None:
    args = ["score", "--rules", "gostop", "--pile", "Ann=01-1,03-1,08-1", "--pile", "Bob=10-3",
            "--pile", "Cy=10-4", "--stopped-by", "Ann", "--goes", "Bob=1"]

    def scored(env: dict[str, str]) -> str:
        return subprocess.run([sys.executable, "-m", "scorer.cli", *args], capture_output=True, text=True,
                              env={"PATH": "/usr/bin:/bin", **env}, cwd=REPO, check=True).stdout
    korean = scored({"HANAFUDA_LANG": "ko"})
    assert "Ann 승리" in korean and "다음 선은 Ann" in korean and "Bob에게 광이 없음" in korean
    assert "Ann wins the round" in scored({"LANG": "C.UTF-8"})


def test_a_refusal_of_the_command_in_the_shells_language() -> None:
    out = subprocess.run([sys.executable, "-m", "scorer.cli", "score", "--rules", "hachihachi", "--pile",
                          "Ann=01-2", "--pile", "Bob=01-3", "--pile", "Cy="], capture_output=True, text=True,
                         env={"PATH": "/usr/bin:/bin", "HANAFUDA_LANG": "ja"}, cwd=REPO)
    assert out.returncode != 0
    assert "エラー: 取り札は 2 枚ですが" in out.stderr and "(--stopped-by)" in out.stderr


# every game's house rules in each language
GAMES = ("hachihachi", "koikoi", "hanaawase", "sakura", "gostop")
HOUSE_RULES = {"ja": GAMES, "ko": GAMES}


def test_every_games_house_rules_are_in_both_languages() -> None:
    from scorer.rules import list_presets, option_rows
    for lang, games in HOUSE_RULES.items():
        have = i18n.catalogue(lang)
        missing = sorted({text for rs in list_presets() if rs.game in games for row in option_rows(rs)
                          for text in [row["template"], row["group"],
                                       *(row.get("words", {}).values() if row["kind"] == "choice" else [])]
                          if text not in have and not text.isdigit()})
        assert not missing, (lang, missing)


def test_every_games_round_form_is_in_both_languages(client) -> None:
    from scorer.rules import list_presets
    for rs in list_presets():
        game = client.post("/api/games", json={"preset": rs.name, "players": ["Ann", "Bob", "Cy"]},
                           headers=CSRF).get_json()
        if "context_fields" not in game:              # a game for two
            game = client.post("/api/games", json={"preset": rs.name, "players": ["Ann", "Bob"]},
                               headers=CSRF).get_json()
        for f in game["context_fields"]:
            words = [f.get("label"), f.get("help"), f.get("nobody"),
                     *(f.get("choice_labels") or f.get("choices") or [])]
            for lang in ("ja", "ko"):
                missing = [w for w in words if isinstance(w, str) and w and not w.isdigit()
                           and w not in i18n.catalogue(lang)]
                assert not missing, (rs.name, lang, missing)


ROUNDS = [("sakura", {"Ann": ["01-1", "01-2", "02-2", "03-2", "08-1"], "Bob": ["06-2", "09-1"]}, {}),
          ("koikoi", {"Ann": ["01-1", "03-1", "08-1", "02-2"], "Bob": ["06-2"]},
           {"stopped_by": "Ann", "koikoi_calls": {"Bob": 1}}),
          ("hanaawase", {"Ann": ["01-1", "03-1", "08-1"], "Bob": ["06-2"], "Cy": ["09-1"]}, {})]


@pytest.mark.parametrize("preset, piles, context", ROUNDS)
def test_the_japanese_games_rounds_said_in_both_languages(preset, piles, context) -> None:
    from scorer.rules import RoundInput, get_ruleset, score_round
    res = score_round(RoundInput(list(piles), piles, "Ann", None, context), get_ruleset(preset))
    for lang in ("ja", "ko"):
        for line in res.explanation:
            said = i18n.sentence(lang, line)
            assert not set(re.findall(r"[A-Za-z]{2,}", said)) - {"Ann", "Bob", "Cy"}, (lang, line, said)


def test_the_commands_options_in_the_shells_language() -> None:
    out = subprocess.run([sys.executable, "-m", "scorer.cli", "score", "--help"], capture_output=True,
                         text=True, env={"PATH": "/usr/bin:/bin", "HANAFUDA_LANG": "ko", "COLUMNS": "200"},
                         cwd=REPO, check=True).stdout
    options = out.split("options:", 1)[1].split("examples:", 1)[0]
    assert "이 도움말을 보이고 끝냄" in options and "여러 번 가능, 한 사람씩" in options
    assert "stop, nagari, instant 중 하나" in options          # the values as they are typed
    said = " ".join(line.split("  ")[-1] for line in options.splitlines() if line.strip())
    english = set(re.findall(r"\b(?:the|and|each|player|one|of|or|when|who|with)\b", said))
    assert not english, english
