"""Issue 30: an upload the scheduler would refuse is answered from its first bytes,
before its body is read (``webui.net.early``); one it would take is read whole, as before.
Bounded in time by the socket's timeout, without timing thresholds."""

from __future__ import annotations

import http.client
import io
import socket
import threading
from pathlib import Path

import cv2
import numpy as np
import pytest

from bench.attack_server import with_comment
from web_helpers import CHECK_CASES, CSRF, CheckCase, app_admits, case_headers, check_apps, make_app
from webui.app import edge
from webui.net import early
from webui.net.early import PEEK


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


class _Pieces(io.BytesIO):
    """A body that arrives ``piece`` bytes a read, as granian hands it over."""

    def __init__(self, data: bytes, piece: int) -> None:
        super().__init__(data)
        self.piece = piece

    def read(self, size: int | None = -1) -> bytes:
        return super().read(self.piece if size is None or size < 0 else min(size, self.piece))


def _judged_early(app, case: CheckCase, data: bytes, upto: int = PEEK + 4096,
                  piece: int = 1 << 30, content_type: str = "image/jpeg") -> bool:
    """Whether the server's body reader, given the case's headers and the first ``upto``
    bytes of ``data`` (in pieces of ``piece`` bytes), answers it early (the app's
    scheduler refusing it)."""
    environ = {"REQUEST_METHOD": "POST", "PATH_INFO": "/api/detect",
               "QUERY_STRING": case.query, "wsgi.url_scheme": case.scheme,
               "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8000",
               "CONTENT_TYPE": content_type, "CONTENT_LENGTH": str(len(data)),
               "wsgi.input": _Pieces(data[:upto], piece)}
    for key, value in case_headers(app, case).items():
        environ["HTTP_" + key.upper().replace("-", "_")] = value
    got = early.read_body(environ, len(data), edge.judge_for(app), "127.0.0.1")
    return not isinstance(got, bytes)


def test_only_what_the_app_admits_is_judged_early(tmp_path: Path) -> None:
    """The early judge asks the app's own checks (``webui.app.security.admitted``): an
    upload the app refuses for its token, Host, CSRF header or Origin is read whole and
    refused by the app, and every one it admits is judged (the budget refusing it)."""
    apps = check_apps(tmp_path, IMAGE_BUDGET=3_000_000)    # under this image's cost
    data = _progressive()
    for case in CHECK_CASES:
        app = apps[case.token]
        assert _judged_early(app, case, data) == app_admits(app, case) == case.admitted, \
            case.name


def test_a_refused_upload_is_answered_before_its_body_is_sent(tmp_path: Path) -> None:
    from webui.net.server import make_server
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


def _answer(port: int, request: bytes) -> tuple[bytes, bytes]:
    """Send ``request`` (a body cut short) and read the server's JSON answer before it
    is all sent: (head, body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        s.sendall(request)
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.endswith(b"}"):
            chunk = s.recv(65536)
            assert chunk, "closed without an answer"
            answer += chunk
    head, body = answer.split(b"\r\n\r\n", 1)
    return head, body


def test_a_progressive_jpeg_over_its_cap_is_refused_from_its_header(tmp_path: Path) -> None:
    """Issue 45: a progressive JPEG holds its whole image while it decodes, so one over
    ``PROGRESSIVE_PIXELS`` is answered 413 from its first bytes (the rest never sent),
    and a baseline JPEG of the same size is taken."""
    from scorer.vision.image import ImageLimits, ImageTooLarge, check
    from webui.net.server import make_server
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
        head, body = _answer(server.effective_port, _head(len(data)) + data[:PEEK + 4096])
        assert head.lower().startswith(b"http/1.1 413") and b"progressive" in body
        assert scheduler.stats["run"] == 0
        conn = http.client.HTTPConnection("127.0.0.1", server.effective_port, timeout=20)
        conn.request("POST", "/api/detect", body=baseline,
                     headers={**CSRF, "Content-Type": "image/jpeg"})
        assert conn.getresponse().status == 200
        conn.close()
    finally:
        server.close()


def test_the_frame_header_is_found_however_far_in_and_however_it_arrives() -> None:
    from scorer.vision.imageheader import FrameHeaderScan, sniff
    data = with_comment(_progressive(), 140_000)
    for piece in (1, 7, 4096, 1 << 20):
        scan = FrameHeaderScan(len(data))
        for i in range(0, min(len(data), 200_000), piece):
            scan.feed(data[i:i + piece])
            if scan.found is not None:
                break
        assert scan.found is not None and len(scan.found) < 64, piece
        assert sniff(scan.found) == sniff(data)                 # 2000x1500, progressive
    short = FrameHeaderScan(100_000)                            # past the limit: given up
    short.feed(data[:200_000])
    assert short.failed and short.found is None
    png = FrameHeaderScan(10**6)
    png.feed(b"\x89PNG\r\n\x1a\n" + bytes(100))
    assert png.failed


def test_a_jpeg_whose_frame_header_lies_past_the_peek_is_refused_early(tmp_path: Path) -> None:
    """Issue 49: 140 kB of comment before a progressive JPEG's frame header, past the
    first ``PEEK`` bytes: answered 413 (over the progressive cap) once its frame header
    arrives, the rest never sent; as a form's file too, the budget refusing it (503)."""
    from webui.net.server import make_server
    data = with_comment(_progressive(), 140_000)
    frame = data.find(b"\xff\xc2")
    assert frame > PEEK
    app = make_app(tmp_path, PROGRESSIVE_PIXELS=2_000_000)
    server = make_server(app, "127.0.0.1", 0)
    threading.Thread(target=server.run, daemon=True).start()
    scheduler = app.extensions["hanafuda"]["detection"].scheduler
    try:
        head, body = _answer(server.effective_port, _head(len(data)) + data[:frame + 4096])
        assert head.lower().startswith(b"http/1.1 413") and b"progressive" in body
        assert scheduler.stats["run"] == 0
    finally:
        server.close()
    budget = make_app(tmp_path / "budget", IMAGE_BUDGET=3_000_000)
    case = CheckCase("loopback", {"Host": "127.0.0.1:8000", **CSRF}, True)
    boundary = "b0undary"
    form = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; "
            f"filename=\"a.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n").encode() + data \
        + f"\r\n--{boundary}--\r\n".encode()
    for piece in (1400, 1 << 30):
        assert _judged_early(budget, case, form, upto=frame + 4096, piece=piece,
                             content_type=f"multipart/form-data; boundary={boundary}")
    assert not _judged_early(budget, case, form, upto=frame - 100,
                             content_type=f"multipart/form-data; boundary={boundary}")


def test_the_attack_bench_waits_for_its_attackers_together_at_most_the_time_given():
    """Each attacker still blocked takes what its join is given: 20 of them share one
    minute instead of taking a minute each."""
    from bench.attack_server import join_all

    now = [0.0]
    given = []

    class Blocked:
        def join(self, timeout: float) -> None:
            given.append(timeout)
            now[0] += timeout           # blocked for all it is given

    join_all([Blocked() for _ in range(20)], 60.0, clock=lambda: now[0])
    assert given[0] == 60.0 and given[1:] == [0.0] * 19
