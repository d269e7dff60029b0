"""The page in the players' language (issue 66), in headless Chromium: a Go-Stop round
played in Korean (the game starts in Korean by itself) and a Hachi-Hachi month in
Japanese (chosen with the switcher) leave no English word on the page; the English page
says what it always said."""

from __future__ import annotations

import re
from pathlib import Path

import cv2

from e2e_harness import ServerThread, write_y4m
from gate import SCENE_JPEG
from test_browser import (fill_new_game, launch, pile_by_hand, save_pile,
                          start_game, wait_ready)
from tests.web_helpers import make_app

PLAYERS = ("Ann", "Bob", "Cy")
# words the page may show in any language: the players' names, the switcher's "English",
# the export formats' names, and (a hwatu game) each Korean word's romanisation, which
# the page writes beside it
KEPT = {*PLAYERS, "English", "CSV", "JSON", "BGA"}


def latin_words(page) -> list[str]:
    """The Latin words the page shows: its visible text, each list's chosen entry and
    each visible button's and link's words."""
    text = page.evaluate("""() => {
        const parts = [document.body.innerText];
        for (const s of document.querySelectorAll('select')) if (s.checkVisibility())
            parts.push(...[...s.options].map((o) => o.textContent));
        return parts.join('\\n');
    }""")
    return sorted(set(re.findall(r"[A-Za-z]{2,}", text)))


def romanised(page) -> set[str]:
    hwatu = page.evaluate("fetch('/api/cards').then((r) => r.json()).then((d) => d.hwatu)")
    words: set[str] = set()

    def walk(v) -> None:
        if isinstance(v, dict):
            if "roman" in v:
                words.update(re.findall(r"[A-Za-z]{2,}", v["roman"]))
            for w in v.values():
                walk(w)
        elif isinstance(v, list):
            for w in v:
                walk(w)
    walk(hwatu)
    return words


def test_a_gostop_round_in_korean_and_the_english_page(playwright_sync, tmp_path: Path) -> None:
    app = make_app(tmp_path)
    with ServerThread(app) as server:
        browser = launch(playwright_sync, write_y4m(tmp_path / "a.y4m", cv2.imread(str(SCENE_JPEG))))
        page = browser.new_page(viewport={"width": 1280, "height": 900})   # a browser in English
        fill_new_game(page, server.url, PLAYERS, "gostop")
        assert page.text_content("#new-game h1") == "New game"             # the English page
        assert page.text_content("#start-game") == "Start game"
        start_game(page)
        assert page.get_attribute("html", "lang") == "ko"                  # a Korean game
        assert page.text_content("#round-title") == "판 1 / 1" or "판 1" in page.text_content("#round-title")
        pile_by_hand(page, "Ann", ["01-1", "03-1", "08-1"])
        pile_by_hand(page, "Bob", ["10-3"])
        pile_by_hand(page, "Cy", ["10-4"])
        page.click("#confirm-round")                          # who stopped is not chosen: said in Korean
        page.wait_for_selector("#round-error:text('선택되지 않았습니다')")
        page.select_option("#ctx-stopped_by", "Ann")
        page.fill("[data-key='goes'][data-player='Bob']", "1")
        during = latin_words(page)
        page.click("#confirm-round")
        page.wait_for_selector("#history details.round[data-round='1']")
        after = latin_words(page)
        allowed = KEPT | romanised(page)
        left = sorted({*during, *after} - allowed)
        assert not left, " ".join(left)
        # a game with a house rule: its header says the rule in Korean too
        gid = page.evaluate("""() => fetch('/api/games', { method: 'POST', headers: { 'Content-Type':
            'application/json', 'X-Requested-With': 'hanafuda' }, body: JSON.stringify({ preset: 'gostop',
            players: ['Ann', 'Bob', 'Cy'], options: { stop_minimum: '5' } }) })
            .then((r) => r.json()).then((g) => g.id)""")
        page.goto(f"{server.url}/games/{gid}")
        wait_ready(page)
        page.wait_for_selector("#game-info:has-text('5점이 있어야 스톱이나 고를 할 수 있습니다')")
        left = sorted(set(latin_words(page)) - allowed)
        assert not left, " ".join(left)
        # the new-game form in Korean, its house rules opened: Go-Stop's rules in Korean
        page.goto(server.url + "/?lang=ko")
        wait_ready(page)
        page.select_option("#preset", "gostop")
        page.click("#house-rules-summary")
        for group in page.locator("#house-rules-body details.option-group > summary").all():
            group.click()
        assert "스톱이나 고를 할 수 있습니다" in page.text_content("#house-rules-body")
        left = sorted(set(latin_words(page)) - allowed)
        assert not left, " ".join(left)
        # the switcher: English again, the same page as it always was
        page.goto(page.url.split("?")[0].rsplit("/", 1)[0] + "/games/1")
        wait_ready(page)
        page.click("#languages a[data-lang='en']")
        wait_ready(page)
        assert page.get_attribute("html", "lang") == "en"
        assert "Standings" in page.text_content("#standings-panel h2")
        browser.close()


def test_a_hachihachi_month_in_japanese(playwright_sync, tmp_path: Path) -> None:
    app = make_app(tmp_path)
    with ServerThread(app) as server:
        browser = launch(playwright_sync, write_y4m(tmp_path / "a.y4m", cv2.imread(str(SCENE_JPEG))))
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(server.url + "/")
        wait_ready(page)
        page.click("#languages a[data-lang='ja']")                          # the switcher
        wait_ready(page)
        assert page.get_attribute("html", "lang") == "ja"
        page.select_option("#preset", "hachihachi")
        for i, name in enumerate(PLAYERS, start=1):
            page.fill(f"input[name='player-{i}']", name)
        page.click("#house-rules-summary")                                 # its rules opened
        for group in page.locator("#house-rules-body details.option-group > summary").all():
            group.click()
        assert "1 貫は" in page.text_content("#house-rules-body")
        home = latin_words(page)
        start_game(page)
        assert page.get_attribute("html", "lang") == "ja"                  # the choice is kept
        pile_by_hand(page, "Ann", ["01-2", "02-2", "03-2"])
        pile_by_hand(page, "Bob", ["01-3"])
        save_pile(page, "Cy")
        page.select_option("#ctx-stopped_by", "Ann")
        page.select_option("#ctx-field", "small")
        during = latin_words(page)
        page.click("#confirm-round")
        page.wait_for_selector("#history details.round[data-round='1']")
        after = latin_words(page)
        left = sorted({*home, *during, *after} - KEPT)
        assert not left, " ".join(left)
        browser.close()
