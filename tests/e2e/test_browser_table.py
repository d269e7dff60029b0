"""The table in a real headless Chromium: two screens on one game never lose a card the
server acknowledged (a stale save, a reload in between, a correction on a newer pile),
and a confirmed round is reopened on the page, fixed and scored again with the rounds
after it (the hand calculation is tests/test_table.py's). And smaller things at the
table: a "check" mark the player can dismiss (the count then reaches "all there"), the
willow's lightning marks no ribbon, a pile says it was saved by hand when the photo
found few of its cards, a Fix made before saving is logged as one fix, Confirm round is
the red button only once every pile is saved and says when a round is confirmed, and a
browser with no camera points to Upload photo."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np

from e2e_harness import ServerThread, write_y4m
from gate import SCENE_JPEG
from test_browser import (CHROMIUM, choose_photo, fill_new_game, launch, pick, pick_several, pile_codes,
                          save_pile, start_game, wait_ready)
from tests.web_helpers import CSRF, FakeDetector, make_app


def _call(request, method: str, url: str, body: Any = None) -> Any:
    r = request.fetch(url, method=method, data=body, headers={**CSRF})
    assert r.ok, (url, r.status, r.text())
    return r.json()


def _pile(request, gid: int, owner: str) -> list[str]:
    game = _call(request, "GET", f"/api/games/{gid}")
    rnd = next(r for r in game["rounds"] if r["number"] == game["open_round"])
    return sorted(rnd["piles"][owner]["codes"])


def _changes(page, owner: str) -> list[tuple[str, str]]:
    page.wait_for_selector(f"article.pile[data-owner='{owner}'] .pile-changes")
    return [tuple(x) for x in page.eval_on_selector_all(
        f"article.pile[data-owner='{owner}'] li.change",
        "els => els.map(e => [e.dataset.action, e.dataset.code])")]


def _apply(page, owner: str) -> None:
    page.click(f"article.pile[data-owner='{owner}'] button.apply-changes")
    page.wait_for_selector(f"article.pile[data-owner='{owner}'] .pile-changes", state="detached")
    page.wait_for_selector(f"article.pile[data-owner='{owner}'].saved")


def _by_hand(page, owner: str, codes: list[str]) -> None:
    page.click(f"article.pile[data-owner='{owner}'] button.add")
    pick_several(page, codes)


def test_two_screens_never_lose_an_acknowledged_card(playwright_sync, tmp_path: Path) -> None:
    y4m = write_y4m(tmp_path / "blank.y4m", np.zeros((48, 64, 3), np.uint8))
    with ServerThread(make_app(tmp_path)) as server:
        browser = launch(playwright_sync, y4m)
        here, other = (browser.new_context(base_url=server.url) for _ in range(2))
        api = other.request
        gid = _call(api, "POST", server.url + "/api/games",
                    {"players": ["Ann", "Bob"], "rounds": 2})["id"]
        base = f"{server.url}/api/games/{gid}/rounds/1"
        page = here.new_page()
        page.goto(f"{server.url}/games/{gid}")
        wait_ready(page)

        # 1. a stale save, then a second save: this screen's draft is 01-1 and 09-1; the
        # other screen saves Ann's pile (01-1) and adds 02-1, both acknowledged
        _by_hand(page, "Ann", ["01-1", "09-1"])
        _call(api, "PUT", base + "/piles", {"owner": "Ann", "codes": ["01-1"], "version": 0})
        _call(api, "POST", base + "/corrections",
              {"owner": "Ann", "action": "add", "new_code": "02-1", "version": 1})
        page.click("article.pile[data-owner='Ann'] button.save-pile")
        assert _changes(page, "Ann") == [("add", "09-1")]
        assert sorted(pile_codes(page, "Ann")) == ["01-1", "02-1"]      # the pile as it is
        # the conflict is said once, in the pile's box beside what to do (not again
        # under Confirm round nor in a toast)
        said = page.evaluate("""() => ['#toast', '#round-error', '.pile-changes > p']
            .flatMap(s => [...document.querySelectorAll(s)])
            .filter(e => e.checkVisibility() && e.textContent.includes('changed on another screen'))
            .map(e => e.id || e.className || e.parentElement.className)""")
        assert said == ["pile-changes"], said
        _apply(page, "Ann")
        assert _pile(api, gid, "Ann") == ["01-1", "02-1", "09-1"]
        assert sorted(pile_codes(page, "Ann")) == ["01-1", "02-1", "09-1"]

        # 2. a reload in between: Bob's draft (12-1, 11-1) is kept in the tab; meanwhile
        # the other screen saves Bob's pile (12-1, 06-1)
        _by_hand(page, "Bob", ["11-1", "12-1"])
        _call(api, "PUT", base + "/piles", {"owner": "Bob", "codes": ["12-1", "06-1"],
                                            "version": 0})
        page.reload()
        wait_ready(page)
        assert _changes(page, "Bob") == [("add", "11-1")]
        _apply(page, "Bob")
        assert _pile(api, gid, "Bob") == ["06-1", "11-1", "12-1"]

        # 3. a correction on a pile changed since: this screen removes 02-1 from the pile
        # it shows, after the other screen added 03-1
        version = _call(api, "GET", f"{server.url}/api/games/{gid}")["rounds"][0]["piles"]["Ann"]["version"]
        _call(api, "POST", base + "/corrections",
              {"owner": "Ann", "action": "add", "new_code": "03-1", "version": version})
        page.click("article.pile[data-owner='Ann'] li[data-code='02-1'] button.remove")
        assert _changes(page, "Ann") == [("remove", "02-1")]
        _apply(page, "Ann")
        assert _pile(api, gid, "Ann") == ["01-1", "03-1", "09-1"]
        browser.close()


def test_reopen_round_2_of_4_on_the_page(playwright_sync, tmp_path: Path) -> None:
    rounds = ((["08-1", "01-1"], ["12-1"]), (["08-1"], ["12-1", "03-1"]),
              (["01-1"], ["12-1"]), (["08-1"], ["12-1"]))
    y4m = write_y4m(tmp_path / "blank.y4m", np.zeros((48, 64, 3), np.uint8))
    with ServerThread(make_app(tmp_path)) as server:
        browser = launch(playwright_sync, y4m)
        context = browser.new_context(base_url=server.url)
        api = context.request
        gid = _call(api, "POST", server.url + "/api/games",
                    {"players": ["Ann", "Bob"], "first_dealer": "Bob"})["id"]
        for n, (ann, bob) in enumerate(rounds, 1):
            base = f"{server.url}/api/games/{gid}/rounds/{n}"
            for owner, codes in (("Ann", ann), ("Bob", bob)):
                _call(api, "PUT", base + "/piles", {"owner": owner, "codes": codes, "version": 0})
            _call(api, "POST", base + "/confirm", {})
        page = context.new_page()
        page.goto(f"{server.url}/games/{gid}")
        wait_ready(page)
        assert page.text_content("#winner-banner") == "Game over — Bob wins"

        # reopening asks first: one click only asks, Keep it leaves the game as it was
        page.click("#history details.round[data-round='2'] summary")
        page.click("#history details.round[data-round='2'] button.reopen")
        asked = page.text_content("#history details.round[data-round='2'] button.confirm-reopen")
        assert "scored again" in asked, asked
        page.click("#history details.round[data-round='2'] button.keep")
        assert page.is_hidden("#round-panel") and page.is_visible("#winner-banner")
        assert _call(api, "GET", f"{server.url}/api/games/{gid}")["finished"]
        page.click("#history details.round[data-round='2'] summary")
        page.click("#history details.round[data-round='2'] button.reopen")
        page.click("#history details.round[data-round='2'] button.confirm-reopen")
        page.wait_for_selector("#round-panel:not([hidden])")
        # the chart while round 2 is reopened: rounds 1, 3, 4 each at their own label
        at = page.eval_on_selector_all(
            "#chart circle[data-owner='Ann']", "els => els.map(e => [e.dataset.round, e.getAttribute('cx')])")
        labels = dict(page.eval_on_selector_all(
            "#chart text.round-label", "els => els.map(e => [e.textContent, e.getAttribute('x')])"))
        assert [r for r, _ in at] == ["0", "1", "3", "4"], at
        assert [x for _, x in at] == [labels["start"], labels["R1"], labels["R3"], labels["R4"]], (at, labels)
        assert page.text_content("#round-title") == "Round 2 of 4"
        assert "3, 4 will be scored again" in page.text_content("#round-info")
        assert page.is_hidden("#winner-banner")
        page.click("article.pile[data-owner='Bob'] li[data-code='03-1'] button.fix")
        pick(page, "03-3")
        page.wait_for_selector("article.pile[data-owner='Bob'] li[data-code='03-3']")
        page.click("#confirm-round")
        page.wait_for_selector("#round-panel", state="hidden")

        # what changed in round 2 and in every round after it; the toast points to the
        # list where it is, above the result
        told = page.text_content("#toast")
        assert "rounds 3, 4 re-scored (what changed is listed above round 2's result)" in told, told
        above = page.evaluate("""() => document.getElementById('rescore-changes')
            .getBoundingClientRect().bottom
            <= document.getElementById('last-result-body').getBoundingClientRect().top""")
        assert above
        said = ["Round 2: Bob 40 → 20 · winner Bob → Ann",
                "Round 3: winner Bob → Ann · dealer Bob → Ann",
                "Round 4: winner Bob → Ann · dealer Bob → Ann"]
        changes = page.eval_on_selector_all("#rescore-changes li", "els => els.map(e => e.textContent)")
        assert changes == said, changes
        assert page.is_visible("#rescore-changes")
        # the list is kept with the game: a reload shows it again, under round 2's title
        page.reload()
        wait_ready(page)
        assert page.text_content("#last-result-title") == "Round 2 result"
        changes = page.eval_on_selector_all("#rescore-changes li", "els => els.map(e => e.textContent)")
        assert changes == said and page.is_visible("#rescore-changes"), changes
        # the earlier result beside the corrected one
        assert page.text_content("#history details.round[data-round='3'] .earlier-result p") == \
            "dealer Bob · Ann 20, Bob 20 · winner Bob"
        assert page.locator("#history details.round[data-round='1'] .earlier-result").count() == 0
        assert page.text_content("#winner-banner") == "Game over — Ann wins"
        totals = dict(page.eval_on_selector_all(
            "#standings tbody tr", "rows => rows.map(r => [r.dataset.owner, "
            "r.querySelector('td.total').textContent])"))
        assert totals == {"Ann": "100", "Bob": "80"}
        summaries = page.eval_on_selector_all("#history details.round summary",
                                              "els => els.map(e => e.textContent)")
        # round 2 was fixed; rounds 3 and 4 only scored again with it
        was = {1: "", 2: " (corrected; was Bob)", 3: " (re-scored; was Bob)", 4: " (re-scored; was Bob)"}
        assert summaries == [f"Round {n} — dealer {d} — winner Ann" + was[n]
                             for n, d in ((4, "Ann"), (3, "Ann"), (2, "Ann"), (1, "Bob"))]
        csv = api.get(f"{server.url}/api/games/{gid}/export.csv").text().splitlines()
        assert csv[-2].split(",")[2:5] == ["4", "Ann", "Ann"] and csv[-1].endswith(",Ann,Ann,80")
        log = api.get(f"{server.url}/api/games/{gid}/export.json").json()["corrections"]
        assert [(c["round_number"], c["action"], (c["before"] or {}).get("winner"),
                 (c["after"] or {}).get("winner")) for c in log] == [
            (2, "reopen", "Bob", None), (2, "replace", None, None), (2, "rescore", "Bob", "Ann"),
            (3, "rescore", "Bob", "Ann"), (4, "rescore", "Bob", "Ann")]
        browser.close()


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


def test_a_phone_shows_each_card_on_one_line(playwright_sync, tmp_path: Path) -> None:
    """At 390 px each card of a 14-card pile takes one line (it took two: the pile was
    about 1,100 px tall), a card marked check too; a name too long for its line is cut
    inside it, and a tap on it shows it whole (and a second tap cuts it again)."""
    photo = tmp_path / "pile.jpg"
    cv2.imwrite(str(photo), cv2.imread(str(SCENE_JPEG)))
    fourteen = ["01-1", "01-2", "02-2", "03-2", "04-2", "05-2", "05-4", "06-2", "07-2", "08-1",
                "09-2", "10-2", "11-4", "12-2"]          # long names: "Chrysanthemum: blue ribbon"
    app = make_app(tmp_path, DETECTOR=FakeDetector(fourteen))
    with ServerThread(app) as server:
        browser = launch(playwright_sync, write_y4m(tmp_path / "a.y4m", cv2.imread(str(SCENE_JPEG))))
        page = browser.new_page(viewport={"width": 390, "height": 844})
        new_game(page, server.url)
        upload(page, "Ann", photo)
        ann = page.locator("article.pile[data-owner='Ann']")
        assert ann.locator("li.card-item").count() == 14 and ann.locator("li.check").count() >= 1
        rows = ann.locator("li.card-item").evaluate_all("""els => els.map(li => {
            const parts = [...li.children].filter(e => e.checkVisibility())
                .map(e => e.getBoundingClientRect()).filter(r => r.width && r.height);
            const l = li.getBoundingClientRect(), n = li.querySelector('.name').getBoundingClientRect();
            const oneLine = Math.max(...parts.map(r => r.top)) < Math.min(...parts.map(r => r.bottom));
            return [li.dataset.code, oneLine,
                    n.left >= l.left - 1 && n.right <= l.right + 1 && n.width > 0]; })""")
        for code, one_line, inside in rows:
            assert one_line and inside, (code, one_line, inside)
        cut = ann.locator("li.card-item .name").evaluate_all(
            "els => els.filter(n => n.scrollWidth > n.clientWidth + 1)"
            ".map(n => n.closest('li').dataset.code)")
        assert cut, "no name is cut at 390 px: the tap is not tested"
        name = ann.locator(f"li[data-code='{cut[0]}'] .name")
        full = page.evaluate("async (code) => (await (await fetch('/api/cards')).json())"
                             ".cards.find(c => c.code === code).name", cut[0])
        assert name.text_content() == full and name.get_attribute("title") == full
        name.click()
        assert name.evaluate("n => n.scrollWidth <= n.clientWidth + 1 && n.getBoundingClientRect().width > 0")
        name.click()
        assert name.evaluate("n => n.scrollWidth > n.clientWidth + 1")
        browser.close()


def test_a_new_player_names_and_another_tabs_unsaved_pile(playwright_sync, tmp_path: Path) -> None:
    """The names are placeholders (an empty one plays as "Player 2"), and a pile not saved
    yet in one tab is known in another tab of the browser, whose "No cards: save an empty
    pile" asks before saving over it."""
    with ServerThread(make_app(tmp_path)) as server:
        browser = launch(playwright_sync, write_y4m(tmp_path / "a.y4m", cv2.imread(str(SCENE_JPEG))))
        context = browser.new_context(base_url=server.url, viewport={"width": 1280, "height": 900})
        one = context.new_page()
        one.goto("/")
        wait_ready(one)
        assert [(one.input_value(f"input[name='player-{i}']"),
                 one.get_attribute(f"input[name='player-{i}']", "placeholder")) for i in (1, 2)] == \
            [("", "Player 1"), ("", "Player 2")]
        one.fill("input[name='player-1']", "Ann")
        start_game(one)
        gid = int(one.url.rsplit("/", 1)[1])
        assert _call(context.request, "GET", f"/api/games/{gid}")["players"] == ["Ann", "Player 2"]

        _by_hand(one, "Ann", ["01-1", "02-1"])              # Ann's pile, not saved, in tab one
        two = context.new_page()
        two.goto(f"/games/{gid}")
        wait_ready(two)
        ann = two.locator("article.pile[data-owner='Ann']")
        assert ann.locator(".elsewhere").text_content() == \
            "2 cards of Ann's pile are not saved yet in another tab"
        _by_hand(two, "Ann", ["03-1"])                     # and one card in tab two
        ann.locator("button.save-pile").click()
        # each button says what it does: save over the other tab's, save nothing, or
        # throw this tab's card away (not "Keep it" beside "Discard")
        buttons = ann.locator(".pile-save button").all_text_contents()
        assert buttons == ["Save this pile over the 2 cards not saved in the other tab",
                           "Cancel: save nothing", "Discard this tab's 1 card"], buttons
        ann.locator("button.keep").click()
        assert ann.locator(".pile-save button").all_text_contents() == \
            ["Save pile", "Discard this tab's 1 card"]
        ann.locator("button.discard").click()
        game = _call(context.request, "GET", f"/api/games/{gid}")
        assert not [r for r in game["rounds"] if "Ann" in r["piles"]]       # nothing saved over it
        # once tab one saves it, tab two has nothing to ask about
        save_pile(one, "Ann")
        two.wait_for_selector("article.pile[data-owner='Ann'] .elsewhere", state="detached")
        browser.close()


def test_the_game_header_says_its_rounds_once(playwright_sync, tmp_path: Path) -> None:
    """The header under the game's title names the number of rounds once, the game's own:
    a default Sakura game "4 rounds" once (not the preset's "4 rounds, cumulative" and
    again "· 4 rounds"), a 6-round one "6 rounds" and no "4 rounds", a 3-round Koi-Koi
    game no "12 rounds"."""
    import re
    with ServerThread(make_app(tmp_path)) as server:
        browser = launch(playwright_sync, write_y4m(tmp_path / "a.y4m", cv2.imread(str(SCENE_JPEG))))
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        for preset, rounds, said in (("sakura", None, 4), ("sakura", 6, 6), ("koikoi", 3, 3)):
            fill_new_game(page, server.url, ("Ann", "Bob"), preset)
            if rounds:
                page.fill("#rounds", str(rounds))
            start_game(page)
            info = page.text_content("#game-info")
            assert re.findall(r"\d+ rounds?", info) == [f"{said} rounds"], info
        browser.close()
