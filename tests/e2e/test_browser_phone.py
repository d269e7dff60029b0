"""A phone at the table (issue 30): Chromium emulating a Pixel 7 with a fake camera opens
the table over HTTPS by a network name (``table.lan``, resolved to 127.0.0.1 inside the
browser, so the page is a secure context only because of HTTPS, not as localhost),
with the token URL that ``hanafuda serve --host 0.0.0.0`` prints, and captures a pile
live: the capture finishes by itself, as on localhost."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

from e2e_harness import SceneDetector, chromium_args, render, write_y4m
from test_browser import CHROMIUM, capture, wait_ready
from webui import create_app

PILE = ["01-1", "01-2", "02-2", "03-2", "08-1"]
TOKEN = "phone-at-the-table-token-0123"


@pytest.mark.art
def test_live_capture_on_a_phone_over_https(playwright_sync, tmp_path: Path) -> None:
    from webui.server import make_server
    from webui.tls import ensure_certificate
    scene = render(PILE, seed=21)
    y4m = write_y4m(tmp_path / "phone.y4m", scene.image)
    cert = ensure_certificate(tmp_path / "tls", ["table.lan", "localhost"], ["127.0.0.1"])
    app = create_app({"DB_PATH": tmp_path / "games.db", "DETECTOR": SceneDetector([scene]),
                      "ACCESS_TOKEN": TOKEN, "TLS_AUTHORITY": cert.ca})
    server = make_server(app, "127.0.0.1", 0, 8, cert.context())
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
        page.click("#start-game")
        page.wait_for_url(re.compile(r"/games/\d+$"))
        wait_ready(page)
        got = capture(page, "Ann", PILE)                # finishes by itself
        assert sorted(got) == sorted(PILE)
        assert not errors, errors
    finally:
        browser.close()
        server.close()
        server.task_dispatcher.shutdown(timeout=1)
