"""Smaller things at the table, in headless Chromium: a "check" mark the player can
dismiss (the count then reaches "all there"), the willow's lightning marks no ribbon,
a pile says it was saved by hand when the photo found few of its cards, a Fix made
before saving is logged as one fix, Confirm round
is the red button only once every pile is saved and says when a round is confirmed,
and a browser with no camera points to Upload photo."""

from __future__ import annotations

from pathlib import Path

import cv2

from e2e_harness import ServerThread, write_y4m
from gate import SCENE_JPEG
from test_browser import (CHROMIUM, choose_photo, fill_new_game, launch, pick, pick_several, save_pile,
                          start_game, wait_ready)
from tests.web_helpers import FakeDetector, make_app


def new_game(page, url: str) -> None:
    fill_new_game(page, url, ("Ann", "Bob"))
    start_game(page)


def upload(page, owner: str, photo: Path) -> None:
    choose_photo(page, owner, photo)
    page.wait_for_selector(f"article.pile.draft[data-owner='{owner}'] li.card-item")


def test_checks_saved_by_hand_and_the_confirm(playwright_sync, tmp_path: Path) -> None:
    photo = tmp_path / "pile.jpg"
    cv2.imwrite(str(photo), cv2.imread(str(SCENE_JPEG)))
    app = make_app(tmp_path, DETECTOR=FakeDetector(["05-2", "05-4"]))   # a ribbon by its chaff
    with ServerThread(app) as server:
        browser = launch(playwright_sync, write_y4m(tmp_path / "a.y4m", cv2.imread(str(SCENE_JPEG))))
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        new_game(page, server.url)
        assert "primary" not in (page.get_attribute("#confirm-round", "class") or "")
        upload(page, "Ann", photo)
        ann = page.locator("article.pile[data-owner='Ann']")
        ann.locator("input.expected").fill("2")
        assert "1 marked card may be misread" in ann.locator(".count-note").text_content()
        ann.locator("li[data-code='05-2'] button.check-flag").click()     # checked: it is right
        assert ann.locator("button.check-flag").count() == 0
        assert ann.locator(".count-note").text_content() == "2 found of 2 — all there"
        # the willow ribbon beside the lightning is no misread
        page.click("article.pile[data-owner='Ann'] button.add")
        pick_several(page, ["11-3", "11-4", "01-1"])
        assert ann.locator("button.check-flag").count() == 0
        ann.locator("li[data-code='05-4'] button.fix").click()            # a Fix before saving
        pick(page, "05-3")
        save_pile(page, "Ann")
        assert "saved (photo)" not in ann.locator(".status").text_content()
        assert "saved (by hand; the photo found 1 of 5)" in ann.locator(".status").text_content()
        gid = page.url.rsplit("/", 1)[1]
        log = page.evaluate(f"fetch('/api/games/{gid}').then(r => r.json()).then(g => g.corrections"
                            ".map(c => [c.action, c.old_code, c.new_code]))")
        assert ["replace", "05-4", "05-3"] in log and ["remove", "05-4", None] not in log, log
        save_pile(page, "Bob")
        assert "primary" in page.get_attribute("#confirm-round", "class")
        page.click("#confirm-round")
        page.wait_for_selector("#toast:text('Round 1 confirmed')")
        browser.close()


def test_no_camera_points_to_upload_photo(playwright_sync, tmp_path: Path) -> None:
    with ServerThread(make_app(tmp_path)) as server:
        browser = playwright_sync.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                                   args=["--no-sandbox", "--disable-gpu",
                                                         "--use-fake-ui-for-media-stream"])
        page = browser.new_page(viewport={"width": 390, "height": 844})
        new_game(page, server.url)
        page.click("article.pile[data-owner='Ann'] button.capture")
        page.wait_for_selector("#capture-progress:text('no camera')", timeout=20_000)
        assert "Upload photo" in page.text_content("#camera-status")
        browser.close()


def test_a_sakura_table_with_a_korean_deck_names_its_cards_in_hwatu(playwright_sync, tmp_path: Path) -> None:
    """Card names is a setting of the game page: a Sakura game shown with hwatu words
    (12 비 bi for the willow, 비쌍피 for 11-4), kept across a reload; the codes stay."""
    with ServerThread(make_app(tmp_path)) as server:
        browser = launch(playwright_sync, write_y4m(tmp_path / "a.y4m", cv2.imread(str(SCENE_JPEG))))
        page = browser.new_page(viewport={"width": 390, "height": 844})
        new_game(page, server.url)
        assert page.input_value("#card-words") == "japanese"
        page.click("article.pile[data-owner='Ann'] button.add")
        pick_several(page, ["11-4"])
        assert "Willow: lightning" in page.text_content("article.pile[data-owner='Ann'] li[data-code='11-4']")
        page.select_option("#card-words", "hwatu")
        assert "비쌍피" in page.text_content("article.pile[data-owner='Ann'] li[data-code='11-4']")
        page.reload()
        wait_ready(page)
        assert page.input_value("#card-words") == "hwatu"
        page.click("article.pile[data-owner='Bob'] button.add")
        page.wait_for_selector("#picker[open]")
        months = page.eval_on_selector_all("#picker-month option", "els => els.map(e => e.textContent)")
        assert months[-1] == "12 비 bi"
        browser.close()
