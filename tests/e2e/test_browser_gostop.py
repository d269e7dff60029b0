"""End to end in headless Chromium: a 3-player Go-Stop game on the page, cards entered by
hand, with a nagari, a go-bak and a pi-bak among its rounds; the round form comes from the
game's context schema and carries the nagari from the log; standings and the CSV export."""

from __future__ import annotations

import re
from pathlib import Path

import cv2

from e2e_harness import ServerThread, write_y4m
from gate import SCENE_JPEG
from test_browser import (choose_photo, fill_new_game, launch, pick_several, places_saying,
                          save_pile, screenshot_path, shown, start_game, wait_ready)
from tests.web_helpers import CSRF, FakeDetector, make_app

TEN_PI = ["01-3", "01-4", "02-3", "02-4", "03-3", "03-4", "04-3", "04-4", "05-3", "05-4"]
ROUNDS = [
    ({"Ann": ["01-1", "03-1", "08-1"], "Bob": [], "Cy": []}, None, {}),            # nagari
    ({"Ann": ["01-1", "03-1", "08-1"], "Bob": ["10-3"], "Cy": ["10-4"]}, "Ann",
     {"Bob": 1}),                                                                     # go-bak
    ({"Ann": ["06-3", "08-1"], "Bob": TEN_PI + ["12-2", "12-1"],
      "Cy": ["07-3", "07-4", "08-3", "08-4", "09-3", "09-4"]}, "Bob", {}),            # pi-bak
]
SCORES = [{"Ann": 0, "Bob": 0, "Cy": 0}, {"Ann": 24, "Bob": -24, "Cy": 0},
          {"Ann": -6, "Bob": 9, "Cy": -3}]


def test_three_player_gostop_game_in_chromium(playwright_sync, tmp_path: Path) -> None:
    app = make_app(tmp_path)
    with ServerThread(app) as server:
        # the cards are entered by hand: any camera picture does (a committed one, no art)
        browser = launch(playwright_sync, write_y4m(tmp_path / "a.y4m", cv2.imread(str(SCENE_JPEG))))
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(server.url + "/?lang=en")     # the players chose English: a Go-Stop game
        wait_ready(page)                         # would start in Korean
        page.select_option("#preset", "gostop")
        assert page.eval_on_selector_all("#player-count option", "els => els.map(e => e.value)") \
            == ["3"]
        for i, name in enumerate(("Ann", "Bob", "Cy"), start=1):
            page.fill(f"input[name='player-{i}']", name)
        page.fill("#rounds", "3")
        page.click("#start-game")
        page.wait_for_url(re.compile(r"/games/\d+$"))
        wait_ready(page)
        assert "camera does not read them" in page.text_content("#round-context")
        # hwatu words: the form's labels in Korean, the picker's months in hwatu order
        assert "흔들기 heundeulgi" in page.text_content("#round-context")
        page.click("article.pile[data-owner='Ann'] button.add")
        page.wait_for_selector("#picker[open]")
        months = page.eval_on_selector_all("#picker-month option", "els => els.map(e => e.textContent)")
        assert months[-2:] == ["11 오동 odong", "12 비 bi"] and "04 흑싸리 heukssari" in months
        assert "비쌍피" in page.text_content("#picker button.pick[data-code='11-4']")
        page.click("#picker button[value='cancel']")
        for n, (piles, stopper, goes) in enumerate(ROUNDS, start=1):
            page.wait_for_selector(f"#round-title:text('Round {n} of 3')")
            assert page.input_value("#ctx-nagari") == ("1" if n == 2 else "0")
            for owner, codes in piles.items():
                if codes:
                    page.click(f"article.pile[data-owner='{owner}'] button.add")
                    pick_several(page, codes)
                save_pile(page, owner)
            if n == 1:                 # who stopped has no default: confirming asks for it
                page.click("#confirm-round")
                page.wait_for_selector("#round-error:text('is not chosen')")
                assert page.locator("#history details.round").count() == 0
            page.select_option("#ctx-stopped_by", stopper or "nobody")
            for player, count in goes.items():
                page.fill(f"[data-key='goes'][data-player='{player}']", str(count))
            page.click("#confirm-round")
            page.wait_for_selector(f"#history details.round[data-round='{n}']")
        # the last round's Go-Stop table: points by role, a bak applied and one escaped
        table = page.locator("#last-result table.gostop")
        assert "피 pi 3 = 3" in table.locator("tr[data-owner='Bob'] td.points").text_content()
        ann = table.locator("tr[data-owner='Ann']")
        assert "✓ 피박 pibak: Ann has 1 junk (at most 5)" in ann.locator("li.bak.applies").text_content()
        assert ann.locator("td.score").text_content() == shown(-6)
        assert "✗ escaped 피박 pibak: Cy has 6 junk (more than 5)" in \
            table.locator("tr[data-owner='Cy'] li.bak.escaped").text_content()
        page.locator("#last-result").screenshot(path=str(screenshot_path("screenshot-gostop.png", tmp_path)))
        totals = {p: sum(s[p] for s in SCORES) for p in ("Ann", "Bob", "Cy")}
        assert totals == {"Ann": 18, "Bob": -15, "Cy": -3}
        for owner, total in totals.items():
            assert page.text_content(f"#standings tr[data-owner='{owner}'] .total") == shown(total)
        assert "Ann wins" in page.text_content("#winner-banner")
        gid = page.url.rsplit("/", 1)[1]
        csv_text = page.evaluate(f"fetch('/api/games/{gid}/export.csv').then(r => r.text())")
        assert len(csv_text.strip().splitlines()) == 1 + 9
        assert "pi-bak: Ann has 1 junk (at most 5)" in csv_text and "pi-bak: Cy has 6 junk" in csv_text
        browser.close()


def test_go_order_shown_when_needed_and_errors_name_the_fields(playwright_sync, tmp_path: Path) -> None:
    """The go order is in view once two players called go, not folded among the
    optional facts; a refused confirm names the form's fields, not the API's keys."""
    app = make_app(tmp_path)
    with ServerThread(app) as server:
        browser = launch(playwright_sync, write_y4m(tmp_path / "a.y4m", cv2.imread(str(SCENE_JPEG))))
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(server.url + "/?lang=en")      # English chosen (a Go-Stop game starts in Korean)
        fill_new_game(page, server.url, ("Ann", "Bob", "Cy"), "gostop")
        start_game(page)
        for owner, codes in {"Ann": ["01-1", "03-1", "08-1"], "Bob": ["01-3"], "Cy": ["01-4"]}.items():
            page.click(f"article.pile[data-owner='{owner}'] button.add")
            pick_several(page, codes)
            save_pile(page, owner)
        # a stop under the minimum: refused once, under Confirm round, naming no preset key
        page.select_option("#ctx-stopped_by", "Bob")
        page.click("#confirm-round")
        page.wait_for_selector("#round-error:text('below the stop minimum')")
        assert page.text_content("#round-error") == "Bob stopped with 0 points, below the stop minimum 3"
        assert places_saying(page, "below the stop minimum") == ["round-error"]
        order = page.locator("label[data-shown-with='goes']")
        assert order.is_hidden() and "Go order" in order.text_content()
        page.select_option("#ctx-stopped_by", "Ann")
        page.fill("[data-key='goes'][data-player='Bob']", "1")
        assert order.is_hidden()                     # one caller: no order to give
        page.fill("[data-key='goes'][data-player='Cy']", "2")
        assert order.is_visible()
        assert not page.locator("details.context-extra label[data-shown-with]").count()
        page.click("#confirm-round")
        page.wait_for_selector("#round-error:text('both called go')")
        error = page.text_content("#round-error")
        assert "“Go order”" in error and "go_order" not in error, error
        page.fill("#ctx-go_order", "Cy, Bob")
        page.click("#confirm-round")
        page.wait_for_selector("#history details.round[data-round='1']")
        browser.close()


def test_a_house_rule_set_on_the_page_changes_the_score(playwright_sync, tmp_path: Path) -> None:
    """Godori at 3 (a house rule chosen on the new-game form, FW-GS's variant) instead of
    the preset's 5: the game keeps it, shows it, and the stopper receives 3 from each
    loser instead of 5."""
    app = make_app(tmp_path)
    with ServerThread(app) as server:
        browser = launch(playwright_sync, write_y4m(tmp_path / "a.y4m", cv2.imread(str(SCENE_JPEG))))
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(server.url + "/?lang=en")      # English chosen (a Go-Stop game starts in Korean)
        fill_new_game(page, server.url, ("Ann", "Bob", "Cy"), "gostop")
        assert page.locator("#house-rules-body details.option-group").count() == 4
        assert page.is_hidden("#house-rules-body select[data-key='godori']")      # folded
        page.click("#house-rules-summary")
        page.click("details.option-group[data-group='Card points'] > summary")
        row = page.locator("#house-rules-body .option[data-key='godori']")
        assert "the game's usual rule" in row.text_content() and "G6" not in row.text_content()
        # each choice reads as its value's words in the list, the sentence once above it
        assert row.inner_text().count("Godori, the five birds") == 1, row.inner_text()
        page.select_option("#house-rules-body select[data-key='godori']", "3")
        assert "1 changed (Godori, the five birds 02-1 04-1 08-2: 3 points.)" in \
            page.text_content("#house-rules-summary")
        # changed: the note under it says so, with the preset's rule it replaces
        assert row.locator(".small").text_content() == "a house rule: this preset has 5 points"
        assert row.inner_text().count("Godori, the five birds") == 1, row.inner_text()
        start_game(page)
        assert "house rules: Godori, the five birds 02-1 04-1 08-2: 3 points." in \
            page.text_content("#game-info")
        for owner, codes in {"Ann": ["02-1", "04-1", "08-2"], "Bob": ["01-3"], "Cy": ["01-4"]}.items():
            page.click(f"article.pile[data-owner='{owner}'] button.add")
            pick_several(page, codes)
            save_pile(page, owner)
        page.select_option("#ctx-stopped_by", "Ann")
        page.click("#confirm-round")
        page.wait_for_selector("#history details.round[data-round='1']")
        assert page.text_content("#standings tr[data-owner='Ann'] .total") == "6"     # 5 + 5 without it
        assert page.text_content("#standings tr[data-owner='Bob'] .total") == shown(-3)
        browser.close()


def test_house_rules_read_as_sentences_and_the_header_agrees(playwright_sync, tmp_path: Path) -> None:
    """Every option on the new-game form is a sentence (no option key, no source tag in
    what the page shows), it follows its input, and a table that stops at 5 reads so in
    the game's header, not the preset's "stop at 3"."""
    app = make_app(tmp_path)
    with ServerThread(app) as server:
        browser = launch(playwright_sync, write_y4m(tmp_path / "a.y4m", cv2.imread(str(SCENE_JPEG))))
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(server.url + "/?lang=en")      # English chosen (a Go-Stop game starts in Korean)
        fill_new_game(page, server.url, ("Ann", "Bob", "Cy"), "gostop")
        page.click("#house-rules-summary")
        for group in page.locator("#house-rules-body details.option-group > summary").all():
            group.click()
        shown_text = page.inner_text("#house-rules-body")
        tags = re.findall(r"\b(?:[A-Z]+(?:-[A-Z0-9]+)+|G\d+)\b|\b[a-z]+_[a-z_]+\b", shown_text)
        assert not tags, tags                            # FW-GS, G3, stop_minimum, ...
        assert page.locator("#house-rules-body code").count() == 0
        stop = page.locator("#house-rules-body .option[data-key='stop_minimum']")
        assert stop.locator(".sentence").text_content() == "A player needs 3 points to stop or go."
        page.fill("#house-rules-body input[data-key='stop_minimum']", "5")
        assert stop.locator(".sentence").text_content() == "A player needs 5 points to stop or go."
        assert "A player needs 5 points to stop or go." in page.text_content("#house-rules-summary")
        start_game(page)
        info = page.text_content("#game-info")
        assert "A player needs 5 points to stop or go." in info and "stop at 3" not in info, info
        assert "stop_minimum" not in info
        browser.close()


def test_a_korean_game_speaks_one_numbering_godori_apart(playwright_sync, tmp_path: Path) -> None:
    """In Go-Stop the picker's row "11 오동" lists 11-x and "12 비" lists 12-x (the hwatu
    numbers; the codes inside stay), and so does the pile; in Matgo the godori's 5 points
    are a term of their own, not inside the 열끗 points."""
    app = make_app(tmp_path)
    with ServerThread(app) as server:
        browser = launch(playwright_sync, write_y4m(tmp_path / "a.y4m", cv2.imread(str(SCENE_JPEG))))
        context = browser.new_context(base_url=server.url, viewport={"width": 1280, "height": 900})
        api = context.request
        gid = api.post("/api/games", headers=CSRF,
                       data={"preset": "gostop", "players": ["Ann", "Bob", "Cy"]}).json()["id"]
        page = context.new_page()
        page.goto(f"/games/{gid}")
        wait_ready(page)
        page.click("article.pile[data-owner='Ann'] button.add")
        page.wait_for_selector("#picker[open]")
        rows = page.eval_on_selector_all("#picker .picker-row", """rows => rows.map(r => [
            r.querySelector('.picker-month').textContent,
            [...r.querySelectorAll('button.pick b')].map(b => b.textContent)])""")
        for label, codes in rows:
            number = label.split()[0]
            assert all(c.startswith(number + "-") for c in codes), (label, codes)
        assert rows[-2][0].startswith("11 오동") and rows[-1][0].startswith("12 비")
        pick_several(page, ["11-4"])
        assert page.text_content("article.pile[data-owner='Ann'] li[data-code='11-4'] .code") == "12-4"

        birds = ["02-1", "04-1", "08-2", "05-1", "03-1", "06-1", "07-1", "10-1"]   # godori, 7 animals
        mid = api.post("/api/games", headers=CSRF,
                       data={"preset": "matgo", "players": ["Ann", "Bob"]}).json()["id"]
        for owner, codes in (("Ann", birds), ("Bob", ["01-3"])):
            assert api.put(f"/api/games/{mid}/rounds/1/piles", headers=CSRF,
                           data={"owner": owner, "codes": codes, "version": 0}).ok
        assert api.post(f"/api/games/{mid}/rounds/1/confirm", headers=CSRF,
                        data={"context": {"stopped_by": "Ann"}}).ok
        page.goto(f"/games/{mid}")
        wait_ready(page)
        cell = page.text_content("#last-result tr[data-owner='Ann'] td.points .role-points")
        assert cell == "고도리 godori 5 + 열끗 yeolkkeut 3 = 8", cell
        browser.close()


def test_a_korean_game_names_each_card_one_way_everywhere(playwright_sync, tmp_path: Path) -> None:
    """A Go-Stop page names a card with the hwatu number and the Korean words wherever it
    does: the refusal of a card already in another pile (once, beside the pile saved;
    with Card names set to Japanese, the hanafuda way), the labels drawn on the photo,
    the tooltips (no "Willow: lightning"), and the result's multipliers (×2 흔들기, not
    ×2 shake)."""
    photo = tmp_path / "pile.jpg"
    cv2.imwrite(str(photo), cv2.imread(str(SCENE_JPEG)))
    app = make_app(tmp_path, DETECTOR=FakeDetector(["11-4", "01-3"]))   # lightning: 12-4 in hwatu
    with ServerThread(app) as server:
        browser = launch(playwright_sync, write_y4m(tmp_path / "a.y4m", cv2.imread(str(SCENE_JPEG))))
        context = browser.new_context(base_url=server.url, viewport={"width": 1280, "height": 900})
        api = context.request
        gid = api.post("/api/games", headers=CSRF,
                       data={"preset": "gostop", "players": ["Ann", "Bob", "Cy"]}).json()["id"]
        round_1 = {"Ann": ["01-1", "03-1", "08-1"], "Bob": ["02-3"], "Cy": ["02-4"]}
        for owner, codes in round_1.items():
            assert api.put(f"/api/games/{gid}/rounds/1/piles", headers=CSRF,
                           data={"owner": owner, "codes": codes, "version": 0}).ok
        assert api.post(f"/api/games/{gid}/rounds/1/confirm", headers=CSRF,
                        data={"context": {"stopped_by": "Ann", "shakes": {"Ann": 1}}}).ok
        assert api.put(f"/api/games/{gid}/rounds/2/piles", headers=CSRF,
                       data={"owner": "Ann", "codes": ["11-4"], "version": 0}).ok
        page = context.new_page()
        page.goto(f"/games/{gid}")
        wait_ready(page)
        factors = page.text_content("#last-result tr[data-owner='Ann'] td.factors")
        assert factors == "×2 흔들기 heundeulgi", factors

        choose_photo(page, "Bob", photo)
        page.wait_for_selector("article.pile.draft[data-owner='Bob'] li.card-item")
        # the labels are drawn on the photo once it has loaded, after the pile's list
        for _ in range(100):  # the page's CSP refuses wait_for_function's polling (eval)
            if page.evaluate("document.getElementById('photo-overlay').dataset.texts || '[]'") != "[]":
                break
            page.wait_for_timeout(100)
        labels = page.evaluate("JSON.parse(document.getElementById('photo-overlay').dataset.texts || '[]')")
        assert sorted(t.split()[0] for t in labels) == ["01-3", "12-4"], labels
        assert "비쌍피" in " ".join(labels), labels
        page.click("article.pile[data-owner='Bob'] button.save-pile")
        error = page.locator("article.pile[data-owner='Bob'] .pile-error")
        error.wait_for()
        assert error.text_content() == "card 12-4 (비쌍피 bi-ssangpi) is already in Ann's pile"
        assert places_saying(page, "is already in") == ["pile-error error-message"]
        page.select_option("#card-words", "japanese")       # the refusal follows the setting
        page.click("article.pile[data-owner='Bob'] button.save-pile")
        page.wait_for_selector("article.pile[data-owner='Bob'] .pile-error:text('Willow')")
        assert error.text_content() == "card 11-4 (Willow: lightning) is already in Ann's pile"
        page.select_option("#card-words", "hwatu")

        page.click("article.pile[data-owner='Cy'] button.add")
        page.wait_for_selector("#picker[open]")
        english = [m["english"] for m in api.get("/api/cards").json()["months"]]
        titles = page.eval_on_selector_all("[title]", "els => els.map(e => e.title)")
        said = [t for t in titles if any(name in t for name in english)]
        assert not said, said
        browser.close()
