"""The live camera's weak readings in a real headless Chromium (issue 48): a card the
detector reads only below the still thresholds, but the same way in every frame, joins the
pile marked "seen only faintly" with one tap to accept it; a card glimpsed now and then
never joins; a photo upload never asks for weak readings."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from e2e_harness import FaintDetector, SceneDetector, ServerThread, render, write_y4m
from test_browser import (check_js_stability_matches_python, choose_photo, fill_new_game,
                          launch, pile_codes, start_game)
from webui import create_app

SCENE = ["01-1", "08-1", "12-1", "03-1"]    # crane, moon, phoenix, curtain
FAINT = "03-1"                               # the curtain: read only weakly, every frame
FLICKER = "09-1"                             # glimpsed weakly in one frame of three
FLICKER_BOX = [420.0, 300.0, 550.0, 510.0]  # under the moon: no card there


@pytest.mark.art
def test_a_card_seen_only_faintly_joins_marked_for_one_tap_and_a_flicker_never(
        playwright_sync, tmp_path: Path) -> None:
    import cv2
    scene = render(SCENE, seed=21)
    detector = FaintDetector(SceneDetector([scene]), FAINT, FLICKER, FLICKER_BOX)
    photo = tmp_path / "pile.jpg"
    cv2.imwrite(str(photo), scene.image)
    with ServerThread(create_app({"DB_PATH": tmp_path / "games.db",
                                  "DETECTOR": detector})) as server:
        browser = launch(playwright_sync, write_y4m(tmp_path / "faint.y4m", scene.image))
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        fill_new_game(page, server.url, ["Ann", "Bob"])
        check_js_stability_matches_python(page)          # the rule the page runs, weak too
        start_game(page)
        page.click("article.pile[data-owner='Ann'] button.capture")
        page.wait_for_selector("#camera-panel:not([hidden])")
        listed: set[str] = set()
        dashed = 0
        deadline = time.time() + 60
        while time.time() < deadline and page.is_visible("#camera-panel"):
            listed |= set(pile_codes(page, "Ann"))
            dashed = max(dashed, int(page.get_attribute("#overlay", "data-weak") or 0))
            page.wait_for_timeout(150)
        listed |= set(pile_codes(page, "Ann"))
        assert page.is_hidden("#camera-panel"), "the capture did not finish by itself"
        assert sorted(pile_codes(page, "Ann")) == sorted(SCENE)
        assert FLICKER not in listed, listed                # never, not even for a frame
        assert detector.weak_calls >= 10 and detector.plain_calls == 0
        assert dashed >= 1                                  # weak boxes drawn (dashed)
        # the faint card is marked, alone, with one button to accept it
        pile = "article.pile[data-owner='Ann']"
        item = f"{pile} li[data-code='{FAINT}']"
        assert page.locator(f"{pile} li.faint").count() == 1
        flag = page.locator(f"{item} button.check-flag")
        assert "seen only faintly" in (flag.get_attribute("title") or "")
        assert flag.text_content() == "accept ✓"
        flag.click()
        assert page.locator(f"{item} .check-flag").count() == 0
        assert page.locator(f"{pile} li.faint").count() == 0
        page.click(f"{pile} button.save-pile")
        page.wait_for_selector("article.pile.saved[data-owner='Ann']")
        assert page.locator(f"{item} .check-flag").count() == 0   # accepted stays accepted
        game = page.evaluate("fetch(location.pathname.replace('/games/', '/api/games/'))"
                             ".then(r => r.json())")
        assert sorted(game["rounds"][0]["piles"]["Ann"]["codes"]) == sorted(SCENE)
        # a photo is a still: no weak readings asked, so the faint card is not in it
        choose_photo(page, "Bob", photo)
        page.wait_for_selector("article.pile.draft[data-owner='Bob']")
        assert detector.plain_calls == 1
        assert sorted(pile_codes(page, "Bob")) == sorted(set(SCENE) - {FAINT})
        browser.close()
    assert not [e for e in errors if "favicon" not in e], errors
