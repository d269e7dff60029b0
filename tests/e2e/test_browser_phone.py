"""The pages on a phone (390x844) and a laptop (1280x720) in headless Chromium: no page is
wider than the window after an upload, a camera capture and the card picker (a phone
would pan sideways), and the picker's Add button stays inside its dialog.

And a phone at the table (issue 30): Chromium emulating a Pixel 7 with a fake camera opens
the table over HTTPS by a network name (``table.lan``, resolved to 127.0.0.1 inside the
browser, so the page is a secure context only because of HTTPS, not as localhost),
with the token URL that ``hanafuda serve --host 0.0.0.0`` prints, and captures a pile
live: the capture finishes by itself, as on localhost."""

from __future__ import annotations

import threading
from pathlib import Path

import cv2
import pytest

from e2e_harness import (SceneDetector, ServerThread, chromium_args,
                         forget_tasks_of_a_stopped_runtime, render, write_y4m)
from gate import SCENE_JPEG
from test_browser import (CHROMIUM, capture, choose_photo, fill_new_game, launch, places_saying,
                          screenshot_path, start_game, wait_ready)
from tests.web_helpers import FakeDetector, make_app
from webui import create_app

VIEWPORTS = [(390, 844), (1280, 720)]
CODES = ["01-1", "01-2", "02-2", "03-2", "05-4", "08-1"]     # long names among them


def overflow(page) -> dict:
    """The page's scroll width against the window's, and the elements that reach past it."""
    return page.evaluate("""() => {
        const wide = [];
        for (const e of document.querySelectorAll('body *')) {
            const r = e.getBoundingClientRect();
            if (r.width && r.right > innerWidth + 0.5 && getComputedStyle(e).position !== 'fixed')
                wide.push(e.id || e.className || e.tagName);
        }
        return { scroll: document.scrollingElement.scrollWidth, window: innerWidth, wide: wide.slice(0, 8) };
    }""")


def fits(page, where: str) -> None:
    got = overflow(page)
    assert got["scroll"] == got["window"], f"{where}: {got}"


def new_game(page, url: str, preset: str = "sakura") -> str:
    fill_new_game(page, url, preset=preset)
    fits(page, "home")
    start_game(page)
    fits(page, "new game")
    return page.get_attribute("article.pile", "data-owner")


@pytest.mark.parametrize("width,height", VIEWPORTS)
def test_game_page_fits_the_window(playwright_sync, tmp_path: Path, width: int, height: int) -> None:
    photo = tmp_path / "pile.jpg"
    cv2.imwrite(str(photo), cv2.imread(str(SCENE_JPEG)))
    app = make_app(tmp_path, DETECTOR=FakeDetector(CODES))
    with ServerThread(app) as server:
        browser = launch(playwright_sync, write_y4m(tmp_path / "a.y4m", cv2.imread(str(SCENE_JPEG))))
        page = browser.new_page(viewport={"width": width, "height": height})
        owner = new_game(page, server.url)
        choose_photo(page, owner, photo)
        page.wait_for_selector("#photo-panel:not([hidden])")
        page.wait_for_selector(f"article.pile.draft[data-owner='{owner}'] li.card-item")
        fits(page, "after upload")
        if width < 500:                  # the README's picture of a phone after an upload
            page.screenshot(path=str(screenshot_path("screenshot-phone.png", tmp_path)))
        page.click("#photo-close")
        page.click(f"article.pile[data-owner='{owner}'] button.capture")
        page.wait_for_selector("#camera-panel:not([hidden])")
        for _ in range(100):                     # the page's CSP allows no wait_for_function
            if page.evaluate("document.getElementById('video').videoWidth"):
                break
            page.wait_for_timeout(100)
        fits(page, "camera")
        page.click("#capture-cancel")
        page.click(f"article.pile[data-owner='{owner}'] button.add")
        page.wait_for_selector("#picker[open]")
        fits(page, "picker")
        page.click("#picker button.pick[data-code='02-1']")
        inside = page.evaluate("""() => { const d = document.getElementById('picker').getBoundingClientRect();
            const b = document.getElementById('picker-add').getBoundingClientRect();
            return b.top >= d.top && b.bottom <= d.bottom && d.bottom <= innerHeight; }""")
        assert inside, "the picker's Add button is outside its dialog"
        page.click("#picker-add")
        for other in page.eval_on_selector_all("article.pile", "els => els.map(e => e.dataset.owner)"):
            page.click(f"article.pile[data-owner='{other}'] button.save-pile")
            page.wait_for_selector(f"article.pile.saved[data-owner='{other}']")
        page.click("#confirm-round")
        page.wait_for_selector("#last-result:not([hidden])")
        fits(page, "result")
        browser.close()


def big_photo(path: Path, orientation: int | None = None) -> Path:
    """A 6000x4000 JPEG of about 12 MB, as a phone takes (noise: it does not compress),
    stored sideways with an EXIF orientation when given (6: turn it 90° to view it)."""
    import numpy as np
    from test_vision import _with_exif_orientation
    rng = np.random.default_rng(0)
    image = cv2.GaussianBlur(rng.integers(0, 256, (4000, 6000, 3), dtype=np.uint8) // 8 * 8, (3, 3), 0)
    image[1500:2500, 2000:4000] = cv2.resize(cv2.imread(str(SCENE_JPEG)), (2000, 1000))
    data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()
    path.write_bytes(_with_exif_orientation(data, orientation) if orientation else data)
    assert path.stat().st_size > 9_000_000          # over the server's 8 MiB cap as it is
    return path


@pytest.mark.parametrize("orientation,seen", [(None, (1280, 1920)), (6, (1920, 1280))])
def test_a_12_mb_phone_photo_gets_its_cards(playwright_sync, tmp_path: Path, orientation,
                                            seen) -> None:
    """The page shrinks the photo before it uploads it: the detector gets the long side
    the page sends (1920), upright by the photo's EXIF orientation, and the pile its
    cards; no error is shown."""
    photo = big_photo(tmp_path / "phone.jpg", orientation)
    sizes: list[tuple[int, int]] = []

    def codes(image):
        sizes.append(image.shape[:2])
        return CODES

    app = make_app(tmp_path, DETECTOR=FakeDetector(codes))
    with ServerThread(app) as server:
        browser = launch(playwright_sync, write_y4m(tmp_path / "a.y4m", cv2.imread(str(SCENE_JPEG))))
        page = browser.new_page(viewport={"width": 390, "height": 844})
        owner = new_game(page, server.url)
        choose_photo(page, owner, photo)
        page.wait_for_selector(f"article.pile.draft[data-owner='{owner}'] li.card-item", timeout=60_000)
        got = page.eval_on_selector_all(f"article.pile[data-owner='{owner}'] li.card-item",
                                        "els => els.map(e => e.dataset.code)")
        assert sorted(got) == sorted(CODES)
        assert sizes == [seen]
        assert f"sent as {seen[1]}×{seen[0]}" in page.text_content("#photo-status")
        assert page.text_content("#round-error") == ""
        fits(page, "after a big photo")
        browser.close()


def test_a_photo_too_large_to_send_says_so_beside_its_pile(playwright_sync, tmp_path: Path) -> None:
    """A file the browser cannot shrink (not a picture it can decode) goes as it is; the
    server's JSON 413 is shown beside the pile with the photo's size and the limit."""
    junk = tmp_path / "odd.jpg"
    junk.write_bytes(b"\xff\xd8\xff" + b"\x00" * 9_000_000)
    with ServerThread(make_app(tmp_path)) as server:
        browser = launch(playwright_sync, write_y4m(tmp_path / "a.y4m", cv2.imread(str(SCENE_JPEG))))
        page = browser.new_page(viewport={"width": 390, "height": 844})
        owner = new_game(page, server.url)
        choose_photo(page, owner, junk)
        note = page.locator(f"article.pile[data-owner='{owner}'] .pile-error")
        note.wait_for()
        assert note.text_content() == "photo not read: this photo is 9.0 MB; the limit is 8.4 MB"
        assert "HTTP 413" not in page.text_content("#round-error")
        fits(page, "after a refused photo")
        browser.close()


def test_a_photo_just_over_the_limit_says_two_sizes_once(playwright_sync, tmp_path: Path) -> None:
    """8,400,000 bytes against the 8 MiB cap (8,388,608 bytes) are both "8.4 MB" to one
    decimal: the sizes are given with the decimals that tell them apart, and the message
    is said once, beside the pile (not again under Confirm round nor in a toast)."""
    junk = tmp_path / "odd.jpg"
    junk.write_bytes(b"\xff\xd8\xff" + b"\x00" * (8_400_000 - 3))
    with ServerThread(make_app(tmp_path)) as server:
        browser = launch(playwright_sync, write_y4m(tmp_path / "a.y4m", cv2.imread(str(SCENE_JPEG))))
        page = browser.new_page(viewport={"width": 390, "height": 844})
        owner = new_game(page, server.url)
        choose_photo(page, owner, junk)
        note = page.locator(f"article.pile[data-owner='{owner}'] .pile-error")
        note.wait_for()
        assert note.text_content() == "photo not read: this photo is 8.40 MB; the limit is 8.39 MB"
        assert places_saying(page, "the limit is") == ["pile-error error-message"]
        browser.close()


PILE = ["01-1", "01-2", "02-2", "03-2", "08-1"]
TOKEN = "phone-at-the-table-token-0123"


@pytest.mark.art
def test_live_capture_on_a_phone_over_https(playwright_sync, tmp_path: Path) -> None:
    from webui.net.server import make_server
    from webui.net.tls import ensure_certificate
    scene = render(PILE, seed=21)
    y4m = write_y4m(tmp_path / "phone.y4m", scene.image)
    cert = ensure_certificate(tmp_path / "tls", ["table.lan", "localhost"], ["127.0.0.1"])
    app = create_app({"DB_PATH": tmp_path / "games.db", "DETECTOR": SceneDetector([scene]),
                      "ACCESS_TOKEN": TOKEN, "TLS_AUTHORITY": cert.ca})
    server = make_server(app, "127.0.0.1", 0, 8, (cert.cert, cert.key))
    port = server.effective_port
    url = f"https://table.lan:{port}/?token={TOKEN}"
    app.config["CONNECT_URL"] = url
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    browser = playwright_sync.chromium.launch(
        executable_path=str(CHROMIUM), headless=True,
        args=chromium_args(y4m) + ["--host-resolver-rules=MAP table.lan 127.0.0.1"])
    try:
        phone = browser.new_context(**playwright_sync.devices["Pixel 7"], ignore_https_errors=True)
        page = phone.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(url)                                  # the printed URL, as the QR code has it
        wait_ready(page)
        assert page.url == f"https://table.lan:{port}/"             # the token left the URL
        assert page.evaluate("window.isSecureContext && !!navigator.mediaDevices")
        assert page.is_visible("#connect-qr")                       # the page's QR code
        page.fill("input[name='player-1']", "Ann")
        page.fill("input[name='player-2']", "Bob")
        start_game(page)
        got = capture(page, "Ann", PILE)                # finishes by itself
        assert sorted(got) == sorted(PILE)
        assert not errors, errors
    finally:
        browser.close()
        server.close()
        forget_tasks_of_a_stopped_runtime()
