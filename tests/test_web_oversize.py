"""A body over the upload cap through the real server (``hanafuda serve``'s waitress):
an ordinary client (urllib) reads a JSON 413 naming the size and the cap, not a
connection reset; the body is read into nothing."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.web_helpers import CSRF, jpeg, make_app
from webui.app.edge import too_large_message
from webui.net.oversize import DRAIN_MAX, UploadTooLarge, parser_for


@pytest.fixture
def port(tmp_path: Path):
    from webui.net.server import make_server
    server = make_server(make_app(tmp_path), "127.0.0.1", 0)
    threading.Thread(target=server.run, daemon=True).start()
    yield server.effective_port
    server.close()


def _post(port: int, body: bytes) -> tuple[int, dict]:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/detect", data=body, method="POST",
                                 headers={**CSRF, "Content-Type": "image/jpeg"})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        assert err.headers.get_content_type() == "application/json"
        return err.code, json.loads(err.read())


@pytest.mark.parametrize("megabytes", [9, 12])
def test_a_body_over_the_cap_gets_a_json_413(port: int, megabytes: int) -> None:
    status, answer = _post(port, b"\xff\xd8\xff" + b"0" * (megabytes * 1_000_000))
    assert status == 413, answer
    assert answer["error"].startswith(f"upload too large: this upload is {megabytes}.0 MB")
    assert answer["error"].endswith("the limit is 8.4 MB")
    assert answer["limit_bytes"] == 8 * 1024 * 1024 and answer["size_bytes"] > megabytes * 1e6


def test_the_server_still_answers_after_a_refused_body(port: int) -> None:
    assert _post(port, b"0" * 9_000_000)[0] == 413
    status, answer = _post(port, jpeg())
    assert status == 200 and answer["cards"]


def test_the_parser_drains_only_below_its_bound() -> None:
    """Over the cap and under DRAIN_MAX the body is drained (counted, not kept); a body
    over DRAIN_MAX is left to waitress's own refusal."""
    from waitress.adjustments import Adjustments
    cls = parser_for(1000, 900)
    adj = Adjustments(max_request_body_size=DRAIN_MAX)
    p = cls(adj)
    head = b"POST /api/detect HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n"
    p.received(head)
    assert not p.completed
    for _ in range(5):
        p.received(b"0" * 1000)
    assert p.completed and isinstance(p.error, UploadTooLarge)
    assert len(p.body_rcv.getbuf()) == 5000 and p.get_body_stream().read() == b""
    status, headers, body = p.error.to_response()
    assert status.startswith("413") and json.loads(body)["error"] == too_large_message(5000, 900)
    big = cls(adj)
    big.received(f"POST / HTTP/1.1\r\nContent-Length: {DRAIN_MAX}\r\n\r\n".encode())
    assert big.completed and big.error is not None and not isinstance(big.error, UploadTooLarge)


def test_over_https_a_body_over_the_cap_gets_the_json_413_too(tmp_path: Path) -> None:
    """The drain on the TLS channel that ``hanafuda serve --host 0.0.0.0`` uses (issue 30's
    server): the body is read into nothing and the JSON 413 comes back over TLS; the
    same server then serves the next request with the token."""
    import http.client
    import ssl

    from webui.net.server import make_server
    from webui.net.tls import ensure_certificate
    cert = ensure_certificate(tmp_path / "tls", ["localhost"], ["127.0.0.1"])
    token = "oversize-over-tls-token-0123"
    server = make_server(make_app(tmp_path, ACCESS_TOKEN=token), "127.0.0.1", 0,
                         tls=cert.context())
    threading.Thread(target=server.run, daemon=True).start()
    trusting = ssl.create_default_context(cafile=str(cert.ca))

    def post(body: bytes) -> tuple[int, dict]:
        conn = http.client.HTTPSConnection("127.0.0.1", server.effective_port,
                                           context=trusting, timeout=30)
        try:
            conn.request("POST", "/api/detect", body=body,
                         headers={**CSRF, "Content-Type": "image/jpeg", "X-Access-Token": token})
            resp = conn.getresponse()
            assert resp.getheader("Content-Type") == "application/json"
            return resp.status, json.loads(resp.read())
        finally:
            conn.close()

    try:
        status, answer = post(b"\xff\xd8\xff" + b"0" * 9_000_000)
        assert status == 413, answer
        assert answer["error"].startswith("upload too large: this upload is 9.0 MB")
        assert answer["limit_bytes"] == 8 * 1024 * 1024
        status, answer = post(jpeg())
        assert status == 200 and answer["cards"]
    finally:
        server.close()
        server.task_dispatcher.shutdown(timeout=1)


def _many_headers(count: int) -> bytes:
    lines = "".join(f"{i:x}:v\r\n" for i in range(count))
    return f"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n{lines}\r\n".encode()


def test_a_request_with_thousands_of_headers_is_refused_before_they_are_parsed(tmp_path) -> None:
    """Issue 49: 7,000 one-line headers (55 kB, under the header cap) are answered 431
    from their count, never parsed and never seen by the app; a browser's 100 are
    served."""
    import socket

    from waitress.adjustments import Adjustments

    from webui.net.server import make_server
    flood = _many_headers(7000)
    assert 50_000 < len(flood) < 64 * 1024
    p = parser_for(1000)(Adjustments())
    p.received(flood)
    assert p.completed and p.error.code == 431 and len(p.headers) < 10   # none parsed
    app = make_app(tmp_path)
    seen: list[str] = []
    app.before_request(lambda: seen.append("seen") and None)
    server = make_server(app, "127.0.0.1", 0)
    threading.Thread(target=server.run, daemon=True).start()
    try:
        for request, status in ((flood, b"431"), (_many_headers(99), b"200")):
            with socket.create_connection(("127.0.0.1", server.effective_port), timeout=20) as s:
                try:
                    for i in range(0, len(request), 1400):  # in pieces, as a socket sends
                        s.sendall(request[i:i + 1400])
                    answer = s.recv(12)
                except (ConnectionResetError, BrokenPipeError):
                    # refused and closed before the flood was all sent: the 431 may be lost
                    # with the reset, but only an early refusal closes a request mid-send
                    answer = b"HTTP/1.1 431" if status == b"431" else b""
                assert answer[9:12] == status
        assert seen == ["seen"]                             # only the browser's request
    finally:
        server.close()
        server.task_dispatcher.shutdown(timeout=1)
