"""End to end in headless Chromium: a whole 6-month Hachi-Hachi game on the page. Played-out
months' piles come from photos (all 48 cards), months ended by a dekiyaku are entered by
hand; the field is read from a photo of the table cards at the deal (and carried to the
next month), chosen on the page, or left small; teyaku come from a photo of a dealt hand
or are chosen by name; every month's payments, the standings in kan and mon and the CSV
export are checked against the engine."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import cv2
import numpy as np

from e2e_harness import ServerThread, write_y4m
from gate import SCENE_JPEG
from test_browser import (choose_photo, fill_new_game, launch, pick_several, save_pile,
                          screenshot_path, start_game)
from scorer.cards import DECK
from scorer.rules import RoundInput, get_ruleset, score_round
from scorer.rules.hachihachi import text
from tests.web_helpers import FakeDetector, make_app

PLAYERS = ["Ann", "Bob", "Cy"]
CHAFF = [c.code for c in DECK if c.kind.value == "chaff"]
# Three piles of a month played out with no dekiyaku: 98, 93 and 73 card points.
P98 = ["01-1", "11-1", "02-1", "04-1", "06-1", "01-2", "06-2", "04-2", "11-3"] + CHAFF[:8]
P93 = ["03-1", "12-1", "05-1", "07-1", "11-2", "02-2", "09-2", "05-2"] + CHAFF[8:16]
P73 = ["08-1", "08-2", "09-1", "10-1", "03-2", "10-2", "07-2"] + CHAFF[16:]
TABLE = ["01-1", "12-1", "02-3", "04-3", "05-3", "06-3"]        # crane and phoenix: grand
HAND = ["03-1", "03-3", "03-4", "05-1", "07-1", "11-2", "02-2"]  # three cherries: sanbon
# each photo is told apart by its width: what the (fake) detector reads in it
PHOTOS = {400: P98, 420: P93, 440: P73, 460: TABLE, 480: HAND}

# (piles by photo width or by hand, the form: field cards by photo, field chosen,
#  dealt hands by photo, teyaku chosen, who ended the month, hatto)
MONTHS = [
    ({"Ann": 400, "Bob": 420, "Cy": 440}, {"field_cards": 460, "dealt_hands": {"Bob": 480}}),
    ({"Ann": ["01-2", "02-2", "03-2"], "Bob": ["01-3"], "Cy": []}, {"stopped_by": "Ann"}),
    ({"Ann": 440, "Bob": 400, "Cy": 420}, {"field": "big"}),
    ({"Ann": ["01-3"], "Bob": ["01-4"], "Cy": ["01-1", "03-1", "08-1", "12-1"]},
     {"stopped_by": "Cy", "hatto": "Ann"}),
    ({"Ann": 420, "Bob": 440, "Cy": 400}, {"teyaku_chaff": {"Cy": "tanichi"}}),
    ({"Ann": ["02-3"], "Bob": ["06-1", "07-1", "10-1"], "Cy": []}, {"stopped_by": "Bob"}),
]


def photo(tmp_path: Path, width: int) -> Path:
    path = tmp_path / f"photo-{width}.jpg"
    rng = np.random.default_rng(width)
    cv2.imwrite(str(path), rng.integers(0, 255, (300, width, 3), dtype=np.uint8))
    return path


def read(image) -> list[str]:
    return list(PHOTOS.get(int(image.shape[1]), []))


def expected_months() -> list[tuple[str, dict[str, int]]]:
    """Each month's dealer and scores as the engine gives them, the page's inputs given
    as the engine takes them (the field carried from the month before)."""
    rs = get_ruleset("hachihachi-half")
    out, dealer, carried = [], "Ann", None
    for piles, form in MONTHS:
        codes = {p: (PHOTOS[v] if isinstance(v, int) else v) for p, v in piles.items()}
        ctx = {k: v for k, v in form.items() if k not in ("field_cards", "dealt_hands")}
        if "field_cards" in form:
            ctx["field_cards"] = PHOTOS[form["field_cards"]]
        if "dealt_hands" in form:
            ctx["dealt_hands"] = {p: PHOTOS[w] for p, w in form["dealt_hands"].items()}
        if carried:
            ctx["carried_field"] = carried
        res = score_round(RoundInput(PLAYERS, codes, dealer, None, ctx), rs)
        out.append((dealer, res.scores))
        carried = next(iter(res.results.values())).details["field"]["carry"]
        dealer = res.next_dealer
    return out


def read_from_photo(page, selector: str, path: Path) -> None:
    """*Read from photo* beside a round-form field, choosing the file ``path``."""
    with page.expect_file_chooser() as chooser:
        page.click(f"span.photo-field:has({selector}) button.context-photo")
    chooser.value.set_files(str(path))
    page.wait_for_selector(f"span.photo-field:has({selector}) .photo-note:text('read from the photo')")


def test_six_month_hachihachi_game_in_chromium(playwright_sync, tmp_path: Path) -> None:
    months = expected_months()
    app = make_app(tmp_path, DETECTOR=FakeDetector(read))
    paths = {w: photo(tmp_path, w) for w in PHOTOS}
    with ServerThread(app) as server:
        browser = launch(playwright_sync, write_y4m(tmp_path / "a.y4m", cv2.imread(str(SCENE_JPEG))))
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        fill_new_game(page, server.url, (), "hachihachi-half")
        counts = page.eval_on_selector_all("#player-count option", "els => els.map(e => e.value)")
        assert counts == ["3", "4", "5", "6", "7"]
        for i, name in enumerate(PLAYERS, start=1):
            page.fill(f"input[name='player-{i}']", name)
        assert page.input_value("#rounds") == "6"
        assert page.text_content("#rounds-label") == "Months"   # a game of months
        page.select_option("#preset", "sakura")
        assert page.text_content("#rounds-label") == "Rounds"
        page.select_option("#preset", "hachihachi-half")
        for i, name in enumerate(PLAYERS, start=1):
            page.fill(f"input[name='player-{i}']", name)
        start_game(page)
        # with three at the table nobody sits out: the form does not ask
        assert page.locator("[data-key='sitting_out']").count() == 0
        running = {p: 0 for p in PLAYERS}
        for n, ((piles, form), (dealer, scores)) in enumerate(zip(MONTHS, months), start=1):
            page.wait_for_selector(f"#round-title:text('Month {n} of 6')")
            assert f"Dealer: {dealer}." in page.text_content("#round-info")
            if n == 2:              # the second light of month 1's deal carries a big field
                assert page.input_value("#ctx-carried_field") == "big"
            for owner, source in piles.items():
                if isinstance(source, int):
                    choose_photo(page, owner, paths[source])
                    page.wait_for_selector(f"article.pile.draft[data-owner='{owner}'] li.card-item")
                elif source:
                    page.click(f"article.pile[data-owner='{owner}'] button.add")
                    pick_several(page, source)
                save_pile(page, owner)
            if "field_cards" in form:
                read_from_photo(page, "#ctx-field_cards", paths[form["field_cards"]])
                assert page.input_value("#ctx-field_cards") == " ".join(sorted(TABLE))
            if any(k in form for k in ("dealt_hands", "teyaku_chaff", "hatto")):
                page.click("#round-context details.context-extra summary")
            for player, width in form.get("dealt_hands", {}).items():
                read_from_photo(page, f"[data-key='dealt_hands'][data-player='{player}']", paths[width])
            for player, name in form.get("teyaku_chaff", {}).items():
                page.select_option(f"[data-key='teyaku_chaff'][data-player='{player}']", name)
            for key in ("field", "stopped_by", "hatto"):
                if key in form:
                    page.select_option(f"#ctx-{key}", form[key])
            # no field given (none chosen, no table cards, none carried): asked first
            unsaid = not {"field", "field_cards"} & set(form) and not page.input_value("#ctx-carried_field")
            page.click("#confirm-round")
            assert page.locator("button.confirm-small").count() == (1 if unsaid else 0)
            if unsaid:
                page.click("button.confirm-small")
            page.wait_for_selector(f"#history details.round[data-round='{n}']")
            table = page.locator("#last-result table.hachihachi")
            for p in PLAYERS:
                running[p] += scores[p]
                assert table.locator(f"tr[data-owner='{p}'] td.score").text_content() == \
                    text(scores[p], signed=True)
                assert page.text_content(f"#standings tr[data-owner='{p}'] .total") == \
                    text(running[p], signed=True)
            # the year's log: each month with the totals after it, in kan and mon
            log = page.locator(f"#history details.round[data-round='{n}'] .running-totals")
            assert log.text_content() == "Totals after this month: " + " · ".join(
                f"{p} {text(running[p], signed=True)}" for p in PLAYERS)
            if n == 1:
                field = page.text_content("#last-result .field-line")
                assert "grand field 絶場 ×4" in field and "carried to next month: big field" in field
                bob = table.locator("tr[data-owner='Bob']")
                assert "Sanbon 三本 (three of a month): 2 kan" in bob.locator("td.yaku").text_content()
                assert "receives 8 kan from Ann: teyaku sanbon 2 kan × 4" in \
                    bob.locator("td.payments-cell").text_content()
                ann = table.locator("tr[data-owner='Ann'] td.card-points")
                assert "98 (10 over 88)" in ann.text_content()
                shot = screenshot_path("screenshot-hachihachi.png", tmp_path)
                page.locator("#last-result").screenshot(path=str(shot))
            if n == 4:              # Ann threw the forbidden bright: she pays the shikō alone
                assert "pays Cy 20 kan: dekiyaku shiko 10 kan; Ann threw the forbidden bright" in \
                    table.locator("tr[data-owner='Ann'] td.payments-cell").text_content()
                assert table.locator("tr[data-owner='Bob'] td.score").text_content() == "0 mon"
        assert sum(running.values()) == 0
        leader = max(PLAYERS, key=lambda p: running[p])
        assert f"{leader} wins" in page.text_content("#winner-banner")
        gid = page.url.rsplit("/", 1)[1]
        csv_text = page.evaluate(f"fetch('/api/games/{gid}/export.csv').then(r => r.text())")
        lines = csv_text.strip().splitlines()
        assert len(lines) == 1 + 18 and lines[0].startswith("game,preset,month,dealer,player")
        assert "teyaku sanbon 2 kan × 4 (grand field 絶場 ×4)" in csv_text
        browser.close()


def test_four_at_the_table_and_a_house_rule(playwright_sync, tmp_path: Path) -> None:
    """Four at the table: the form asks who sits out, whose pile need not be saved (he
    pays the winner 1 kan); a house rule chosen on the new-game form (a yaku split between
    the two, as BGA) changes the payments and the game's header says it; the page says
    month wherever the other games say round."""
    app = make_app(tmp_path)
    with ServerThread(app) as server:
        browser = launch(playwright_sync, write_y4m(tmp_path / "a.y4m", cv2.imread(str(SCENE_JPEG))))
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        fill_new_game(page, server.url, (), "hachihachi")
        page.select_option("#player-count", "4")
        for i, name in enumerate(("Ann", "Bob", "Cy", "Dee"), start=1):
            page.fill(f"input[name='player-{i}']", name)
        page.click("#house-rules-summary")
        page.click("details.option-group[data-group='Payments'] > summary")
        page.select_option("#house-rules-body select[data-key='yaku_payment']", "split")
        assert "its value is split between the two other active players" in \
            page.text_content("#house-rules-summary")
        start_game(page)
        assert "house rules: A yaku (teyaku or dekiyaku): its value is split between the two" \
            in page.text_content("#game-info")
        page.check("[data-key='sitting_out'][value='Dee']")
        for owner, codes in {"Ann": ["01-2", "02-2", "03-2"], "Bob": ["01-3"], "Cy": []}.items():
            if codes:
                page.click(f"article.pile[data-owner='{owner}'] button.add")
                pick_several(page, codes)
            save_pile(page, owner)
        page.select_option("#ctx-stopped_by", "Ann")
        page.click("#confirm-round")                  # Dee's pile was never saved
        page.click("button.confirm-small")            # no field given: a small one, said so
        page.wait_for_selector("#history details.round[data-round='1']")
        page.wait_for_selector("#toast:text('Month 1 confirmed: Ann wins it')")
        table = page.locator("#last-result table.hachihachi")
        ann = table.locator("tr[data-owner='Ann'] td.payments-cell").text_content()
        assert "receives 3 kan 6 mon from Bob: dekiyaku akatan 7 kan, split between the two" in ann
        assert "receives 1 kan from Dee: sitting out, 1 kan, to the month's winner" in ann
        assert table.locator("tr[data-owner='Dee'] td.card-points").text_content() == "sat out"
        assert table.locator("tr[data-owner='Ann'] td.score").text_content() == "+8 kan"
        # the page says month where the other games say round: headers, log, button, chart
        assert page.text_content("#round-title") == "Month 2 of 12"
        assert page.text_content("#last-result-title") == "Month 1 result"
        assert page.text_content("#history details.round summary").startswith("Month 1 — dealer")
        assert page.text_content("#history button.reopen") == "Reopen month 1 to fix it"
        assert "· 12 months" in page.text_content("#game-info")
        ticks = page.eval_on_selector_all("#chart text.round-label", "els => els.map(e => e.textContent)")
        assert ticks[:2] == ["start", "M1"], ticks
        assert "round" not in page.inner_text("body").lower()
        browser.close()



FOUR = ["Ann", "Bob", "Cy", "Dee-Anne Long"]


@contextmanager
def four_at_the_table(playwright_sync, tmp_path: Path, players=FOUR):
    """A Hachi-Hachi game of four (or ``players``) just started on the page: (page, server
    url)."""
    app = make_app(tmp_path)
    with ServerThread(app) as server:
        browser = launch(playwright_sync, write_y4m(tmp_path / "a.y4m", cv2.imread(str(SCENE_JPEG))))
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        fill_new_game(page, server.url, (), "hachihachi")
        page.select_option("#player-count", str(len(players)))
        for i, name in enumerate(players, start=1):
            page.fill(f"input[name='player-{i}']", name)
        start_game(page)
        try:
            yield page, server.url
        finally:
            browser.close()


def options_of(page, selector: str, enabled: bool = False) -> list[str]:
    """The texts of a select's options (``enabled``: the values of those that can be chosen)."""
    script = ("s => [...s.options].filter(o => !o.disabled).map(o => o.value)" if enabled
              else "s => [...s.options].map(o => o.textContent)")
    return page.eval_on_selector(selector, script)


def test_no_teams_are_offered_for_hachihachi(playwright_sync, tmp_path: Path) -> None:
    """No teams offered for a game without them; the new-game form says month."""
    with ServerThread(make_app(tmp_path)) as server:
        browser = launch(playwright_sync, write_y4m(tmp_path / "a.y4m", cv2.imread(str(SCENE_JPEG))))
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        fill_new_game(page, server.url, (), "sakura")
        page.select_option("#player-count", "4")
        assert page.is_visible("#teams") and page.locator("#teams option").count() == 2
        page.select_option("#preset", "hachihachi")
        page.select_option("#player-count", "4")
        assert page.is_hidden("#teams")
        # the form counts months: what a deck learns from too
        assert page.text_content("label:has(#learn)").strip() == "Learn this deck from confirmed months"
        assert "round" not in page.inner_text("#new-game-form").lower()
        browser.close()


def test_teyaku_by_their_names_and_the_dealt_hand_in_view(playwright_sync, tmp_path: Path) -> None:
    """The dealt hand, the main way to a teyaku, is in view (not folded under More); a
    teyaku is chosen by its Japanese name, with its shape and its kan, not by a key."""
    with four_at_the_table(playwright_sync, tmp_path) as (page, _):
        assert page.is_visible("[data-key='dealt_hands'][data-player='Ann']")
        chaff = options_of(page, "[data-key='teyaku_chaff'][data-player='Ann']")
        assert "短一 Tan-ichi: one ribbon, six chaff · 3 kan (+1 over 88)" in chaff
        assert "素無 Sunashi: seven scoring cards, no chaff · 4 kan" in chaff
        sets = options_of(page, "[data-key='teyaku_sets'][data-player='Ann']")
        assert "三本 Sanbon: three of a month · 2 kan" in sets
        assert not {"tanichi", "sanbontatesanbon"} & set(chaff + sets)


def test_sitting_out_is_ticked_and_drops_his_pile_and_his_places(playwright_sync, tmp_path: Path) -> None:
    with four_at_the_table(playwright_sync, tmp_path) as (page, _):
        dee = FOUR[3]
        assert page.locator(f"article.pile[data-owner='{dee}']").count() == 1
        page.check(f"[data-key='sitting_out'][value='{dee}']")
        assert page.locator(f"article.pile[data-owner='{dee}']").count() == 0
        for key in ("dealt_hands", "teyaku_sets", "teyaku_chaff"):
            assert page.is_hidden(f"[data-key='{key}'][data-player='{dee}']")
        for key in ("stopped_by", "sage_by", "hatto"):
            offered = options_of(page, f"#ctx-{key}", enabled=True)
            assert dee not in offered and "Ann" in offered, (key, offered)
        page.uncheck(f"[data-key='sitting_out'][value='{dee}']")
        assert page.locator(f"article.pile[data-owner='{dee}']").count() == 1


def test_table_cards_at_the_deal_are_picked_like_a_pile(playwright_sync, tmp_path: Path) -> None:
    with four_at_the_table(playwright_sync, tmp_path) as (page, _):
        page.click("span.photo-field:has(#ctx-field_cards) button.context-pick")
        pick_several(page, TABLE)
        page.wait_for_function("() => document.querySelector('#ctx-field_cards').value.trim() !== ''")
        assert sorted(page.input_value("#ctx-field_cards").split()) == sorted(TABLE)
        # seen as cards, by name, not only as codes
        named = page.eval_on_selector_all("span.photo-field:has(#ctx-field_cards) .named-card",
                                          "els => els.map(e => e.dataset.code)")
        assert sorted(named) == sorted(TABLE)
        assert "Paulownia" in page.text_content("span.photo-field:has(#ctx-field_cards) .codes-named")


def test_the_months_typed_facts_survive_a_reload(playwright_sync, tmp_path: Path) -> None:
    with four_at_the_table(playwright_sync, tmp_path) as (page, _):
        page.check(f"[data-key='sitting_out'][value='{FOUR[3]}']")
        page.fill("#ctx-field_cards", " ".join(TABLE))
        page.fill("[data-key='dealt_hands'][data-player='Bob']", " ".join(HAND))
        page.click("#round-context details.context-extra summary")
        page.select_option("[data-key='teyaku_chaff'][data-player='Cy']", "tanichi")
        page.reload()
        page.wait_for_selector("body[data-ready='1']")
        assert page.is_checked(f"[data-key='sitting_out'][value='{FOUR[3]}']")
        assert page.locator(f"article.pile[data-owner='{FOUR[3]}']").count() == 0
        assert page.input_value("#ctx-field_cards") == " ".join(TABLE)
        assert page.locator("span.photo-field:has(#ctx-field_cards) .named-card").count() == 6
        assert page.input_value("[data-key='dealt_hands'][data-player='Bob']") == " ".join(HAND)
        assert page.input_value("[data-key='teyaku_chaff'][data-player='Cy']") == "tanichi"


def test_no_players_name_breaks_across_lines_in_the_form(playwright_sync, tmp_path: Path) -> None:
    with four_at_the_table(playwright_sync, tmp_path) as (page, _):
        page.click("#round-context details.context-extra summary")
        for width in (1280, 390):
            page.set_viewport_size({"width": width, "height": 900})
            lines = page.eval_on_selector_all(
                "#round-context .per-player .who",
                "els => els.filter(e => e.offsetParent).map(e => [e.textContent, e.getClientRects().length])")
            assert len(lines) >= 4 * 3, lines        # the dealt hand and two teyaku, four players
            assert all(n == 1 for _, n in lines), (width, lines)


def test_a_card_picked_by_hand_is_not_marked_check(playwright_sync, tmp_path: Path) -> None:
    """A ribbon beside its month's chaff, picked by hand: the player's word, no check."""
    with four_at_the_table(playwright_sync, tmp_path, PLAYERS) as (page, _):
        page.click("article.pile[data-owner='Ann'] button.add")
        pick_several(page, ["01-2", "02-2", "03-2", "03-3"])
        page.wait_for_selector("article.pile[data-owner='Ann'] li[data-code='03-3']")
        assert page.locator("article.pile[data-owner='Ann'] li.card-item").count() == 4
        assert page.locator("article.pile[data-owner='Ann'] li.check").count() == 0


def stopped_by_ann(page) -> None:
    """Ann's akatan ends the month; Bob and Cy saved empty."""
    page.click("article.pile[data-owner='Ann'] button.add")
    pick_several(page, ["01-2", "02-2", "03-2"])
    page.wait_for_selector("article.pile[data-owner='Ann'] li[data-code='03-2']")
    for owner in PLAYERS:
        save_pile(page, owner)
    page.select_option("#ctx-stopped_by", "Ann")


def test_a_month_with_no_field_asks_before_it_is_scored_small(playwright_sync, tmp_path: Path) -> None:
    with four_at_the_table(playwright_sync, tmp_path, PLAYERS) as (page, _):
        stopped_by_ann(page)
        page.click("#confirm-round")
        assert "No field is given for this month" in page.text_content("#round-error")
        page.click("#round-error button.keep")            # no: the players give it
        assert page.locator("#history details.round").count() == 0
        page.fill("#ctx-field_cards", " ".join(TABLE))    # the crane and the phoenix: grand
        page.click("#confirm-round")
        page.wait_for_selector("#history details.round[data-round='1']")
        # akatan 7 kan × 4 from each of two
        assert page.text_content("#last-result tr[data-owner='Ann'] td.score") == \
            text(2 * 7 * 48, signed=True)


def test_the_chart_is_in_kan_and_the_home_page_counts_months(playwright_sync, tmp_path: Path) -> None:
    with four_at_the_table(playwright_sync, tmp_path, PLAYERS) as (page, url):
        stopped_by_ann(page)
        page.select_option("#ctx-field", "big")
        page.click("#confirm-round")
        page.wait_for_selector("#history details.round[data-round='1']")
        labels = page.eval_on_selector_all("#chart svg text", "els => els.map(e => e.textContent)")
        standing = page.text_content("#standings tr[data-owner='Ann'] .total")
        assert standing == "+28 kan" and f"Ann {standing}" in labels, labels   # 7 kan × 2 × 2
        assert "Bob −14 kan" in labels and "Ann +336" not in labels
        page.goto(url + "/")
        page.wait_for_selector("body[data-ready='1']")
        assert page.text_content("#games-body tr td:nth-child(5)") == "1/12 months"
        assert "Rounds" not in page.text_content("table.games thead")
