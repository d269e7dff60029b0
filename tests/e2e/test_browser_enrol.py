"""Enrolment as a player does it (issue 67 item 5), in a real headless Chromium: each
crop of the review shows the network's reading of it, an unclear one is marked, and
*Retake* takes that one card again, from the page's live camera (the fake camera films
the card on a table) or a file, and replaces its crop and reading in the review; the
saved deck holds the retaken crop."""

from __future__ import annotations

from pathlib import Path

import pytest

from e2e_harness import ServerThread, write_y4m
from test_browser import launch, wait_ready
from webui import create_app


def figure(page, i: int) -> str:
    return f"#review-grid figure[data-index='{i}']"


@pytest.mark.art
def test_a_retake_in_the_review_replaces_the_crop_and_its_mark(playwright_sync, tmp_path: Path) -> None:
    import cv2
    from deck_helpers import embedding_detector
    from scorer.cards import card
    from training.data.scenes import get_library, render_scene
    detector = embedding_detector()
    if detector is None:
        pytest.skip("no classifier with card embeddings: enrolment needs one")
    lib = get_library()

    def face(code: str, name: str) -> str:
        path = tmp_path / name
        cv2.imwrite(str(path), lib.face("hwatu-commons", card(code).class_index)[0])
        return str(path)

    # 01-1.png holds the moon (another card: unclear), 03-1.png its own card
    scans = [face("08-1", "01-1.png"), face("03-1", "03-1.png")]
    on_table = render_scene(["01-1"], art_set="hwatu-commons", seed=5)[0]   # the camera's view
    config = {"DB_PATH": tmp_path / "games.db", "DETECTOR": detector}
    with ServerThread(create_app(config)) as server:
        browser = launch(playwright_sync, write_y4m(tmp_path / "card.y4m", on_table))
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(server.url + "/decks")
        wait_ready(page)
        page.set_input_files("#scan-files", scans)
        page.click("#find-cards")
        page.wait_for_selector("#review:not([hidden])", timeout=30_000)
        first, second = figure(page, 0), figure(page, 1)
        names = page.eval_on_selector_all("#review-grid select", "els => els.map(e => e.value)")
        assert names == ["01-1", "03-1"]
        # each crop read back; the moon in 01-1's place is marked
        assert "the network reads 08-1" in page.text_content(f"{first} .reading")
        assert "the network reads 03-1" in page.text_content(f"{second} .reading")
        assert page.is_visible(f"{first}.unclear .unclear-mark")
        assert "the network reads another card" in page.text_content(f"{first} .unclear-mark")
        assert page.locator(f"{second}.unclear").count() == 0
        old = page.get_attribute(f"{first} img", "src")
        kept = page.get_attribute(f"{second} img", "src")

        # Retake 01-1 from the live camera: the crop and its reading are replaced, the mark goes
        page.click(f"{first} button.retake")
        page.wait_for_function("() => document.getElementById('video').videoWidth > 0", timeout=15_000)
        assert page.text_content("#snap") == "Retake 01-1"
        page.click("#snap")
        page.wait_for_selector(f"{first}.retaken", timeout=30_000)
        assert page.is_hidden("#enrol-camera")
        assert page.get_attribute(f"{first} img", "src") != old
        assert page.locator(f"{first}.unclear").count() == 0
        assert page.locator(f"{first} .unclear-mark").count() == 0
        assert "the network reads 01-1" in page.text_content(f"{first} .reading")
        assert page.input_value(f"{first} select") == "01-1"
        assert page.get_attribute(f"{second} img", "src") == kept          # the other left alone
        retaken = page.get_attribute(f"{first} img", "src")

        # Retake 03-1 from a file that shows the moon: replaced, and now marked
        with page.expect_file_chooser() as chooser:
            page.click(f"{second} button.retake-file")
        chooser.value.set_files(face("08-1", "moon.png"))
        page.wait_for_selector(f"{second}.retaken.unclear", timeout=30_000)
        assert page.get_attribute(f"{second} img", "src") != kept
        assert page.get_attribute(f"{first} img", "src") == retaken
        page.select_option(f"{second} select", "")                          # left out

        page.fill("#deck-name", "home")
        page.click("#save-deck")
        page.wait_for_selector("#decks-body tr[data-deck='home']")
        assert page.text_content("#decks-body tr[data-deck='home'] td.cards") == "1/48"
        deck = page.evaluate("fetch('/api/decks/home').then(r => r.json())")
        assert [c["png"] for c in deck["crops"]] == [retaken]              # the retaken crop saved
        browser.close()
    assert not [e for e in errors if "favicon" not in e], errors
