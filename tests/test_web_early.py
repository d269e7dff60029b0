"""Issue 30: an upload the scheduler would refuse is answered from its first bytes,
before its body is read (``webui.early``); one it would take is read whole, as before.
Bounded in time by the socket's timeout, without timing thresholds."""

from __future__ import annotations

import http.client
import socket
import threading
from pathlib import Path

import cv2
import numpy as np
import pytest
from waitress.adjustments import Adjustments

from web_helpers import CHECK_CASES, CSRF, CheckCase, app_admits, case_headers, check_apps, make_app
from webui import early
from webui.early import PEEK


def _progressive(width: int = 2000, height: int = 1500) -> bytes:
    """A progressive JPEG of more than PEEK bytes: heavy (its whole decode is 3+ MP)."""
    rng = np.random.default_rng(0)
    img = cv2.resize(rng.integers(0, 255, (60, 80, 3), dtype=np.uint8), (width, height))
    data = cv2.imencode(".jpg", cv2.GaussianBlur(img, (0, 0), 2),
                        [cv2.IMWRITE_JPEG_QUALITY, 95, cv2.IMWRITE_JPEG_PROGRESSIVE, 1])[1]
    assert data.nbytes > 2 * PEEK
    return data.tobytes()


def _head(length: int, headers: dict[str, str] | None = None, query: str = "") -> bytes:
    headers = {"Host": "127.0.0.1", **CSRF} if headers is None else headers
    lines = [f"POST /api/detect{'?' + query if query else ''} HTTP/1.1",
             "Content-Type: image/jpeg", f"Content-Length: {length}",
             *(f"{k}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def _judged_early(app, case: CheckCase, data: bytes) -> bool:
    """Whether the server's parser, given the case's headers and the first bytes of
    ``data``, answers it early (the app's scheduler refusing it)."""
    cap = int(app.config.get("MAX_CONTENT_LENGTH") or 8 * 1024 * 1024)
    parser = early.parser_for(cap + 65536, cap, early.judge_for(app))(
        Adjustments(url_scheme=case.scheme))
    sent = _head(len(data), case_headers(app, case), case.query) + data[:PEEK + 4096]
    while sent and not parser.completed:       # as a channel feeds it
        used = parser.received(sent)
        if not used:
            break
        sent = sent[used:]
    return isinstance(parser.error, early.Refused)


def test_only_what_the_app_admits_is_judged_early(tmp_path: Path) -> None:
    """The early judge asks the app's own checks (``webui.security.admitted``): an
    upload the app refuses for its token, Host, CSRF header or Origin is read whole and
    refused by the app, and every one it admits is judged (the budget refusing it)."""
    apps = check_apps(tmp_path, IMAGE_BUDGET=3_000_000)    # under this image's cost
    data = _progressive()
    for case in CHECK_CASES:
        app = apps[case.token]
        assert _judged_early(app, case, data) == app_admits(app, case) == case.admitted, \
            case.name


def test_a_refused_upload_is_answered_before_its_body_is_sent(tmp_path: Path) -> None:
    from webui.server import make_server
    app = make_app(tmp_path, IMAGE_BUDGET=3_000_000)        # under this image's cost
    server = make_server(app, "127.0.0.1", 0)
    threading.Thread(target=server.run, daemon=True).start()
    scheduler = app.extensions["hanafuda"]["detection"].scheduler
    data = _progressive()
    try:
        # only the headers and the first bytes, then the client waits: the answer
        # comes without the rest (read whole, it would wait for it until the timeout)
        with socket.create_connection(("127.0.0.1", server.effective_port), timeout=20) as s:
            s.sendall(_head(len(data)) + data[:PEEK + 4096])
            answer = b""
            while b"\r\n\r\n" not in answer:
                chunk = s.recv(65536)
                assert chunk, "closed without an answer"
                answer += chunk
        head = answer.split(b"\r\n\r\n", 1)[0].decode().lower()
        assert head.startswith("http/1.1 503") and "retry-after:" in head \
            and "connection: close" in head
        assert scheduler.stats["early"] == 1 and scheduler.stats["run"] == 0

        # the budget allowing it, the same upload is read whole and detected
        scheduler.heavy_budget = 80_000_000
        conn = http.client.HTTPConnection("127.0.0.1", server.effective_port, timeout=20)
        conn.request("POST", "/api/detect", body=data,
                     headers={**CSRF, "Content-Type": "image/jpeg"})
        assert conn.getresponse().status == 200
        conn.close()
        assert scheduler.stats["early"] == 1 and scheduler.stats["heavy"] == 1
    finally:
        server.close()
        server.task_dispatcher.shutdown(timeout=1)


def test_a_progressive_jpeg_over_its_cap_is_refused_from_its_header(tmp_path: Path) -> None:
    """Issue 45: a progressive JPEG holds its whole image while it decodes, so one over
    ``PROGRESSIVE_PIXELS`` is answered 413 from its first bytes (the rest never sent),
    and a baseline JPEG of the same size is taken."""
    from scorer.vision.image import ImageLimits, ImageTooLarge, check
    from webui.server import make_server
    data = _progressive()                                   # 2000x1500: 3 MP
    limits = ImageLimits(max_progressive=2_000_000)
    with pytest.raises(ImageTooLarge, match="progressive"):
        check(data, limits)
    baseline = cv2.imencode(".jpg", cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR),
                            [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes()
    assert check(baseline, limits).info.width == 2000
    app = make_app(tmp_path, PROGRESSIVE_PIXELS=2_000_000)
    server = make_server(app, "127.0.0.1", 0)
    threading.Thread(target=server.run, daemon=True).start()
    scheduler = app.extensions["hanafuda"]["detection"].scheduler
    try:
        with socket.create_connection(("127.0.0.1", server.effective_port), timeout=20) as s:
            s.sendall(_head(len(data)) + data[:PEEK + 4096])
            answer = b""
            while b"\r\n\r\n" not in answer or not answer.endswith(b"}"):
                chunk = s.recv(65536)
                assert chunk, "closed without an answer"
                answer += chunk
        head, body = answer.split(b"\r\n\r\n", 1)
        assert head.lower().startswith(b"http/1.1 413") and b"progressive" in body
        assert scheduler.stats["run"] == 0
        conn = http.client.HTTPConnection("127.0.0.1", server.effective_port, timeout=20)
        conn.request("POST", "/api/detect", body=baseline,
                     headers={**CSRF, "Content-Type": "image/jpeg"})
        assert conn.getresponse().status == 200
        conn.close()
    finally:
        server.close()
        server.task_dispatcher.shutdown(timeout=1)
