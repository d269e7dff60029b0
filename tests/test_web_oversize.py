"""A body over the upload cap through the real server (``hanafuda serve``'s granian and
``webui.net.guard``): an ordinary client (urllib) reads a JSON 413 naming the size and
the cap, not a connection reset; the body is read into nothing. And the requests whose
work the guard bounds (issue 68): a chunked upload (411), thousands of headers (431,
granian's), of cookie pairs (431) or of query parameters (414), each refused before
Flask parses it."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.web_helpers import CSRF, jpeg, make_app


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
                         tls=(cert.cert, cert.key))
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


def _many_headers(count: int) -> bytes:
    lines = "".join(f"{i:x}:v\r\n" for i in range(count))
    return f"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n{lines}\r\n".encode()


def test_a_request_with_thousands_of_headers_is_refused_before_they_are_parsed(tmp_path) -> None:
    """Issue 49: 7,000 one-line headers (55 kB) are answered 431 by granian, never seen
    by the app; a browser's 100 are served."""
    import socket

    from webui.net.server import make_server
    flood = _many_headers(7000)
    assert 50_000 < len(flood) < 64 * 1024
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


@pytest.fixture
def seen_server(tmp_path: Path):
    """(port, seen): a server whose app notes each request it sees."""
    from webui.net.server import make_server
    app = make_app(tmp_path)
    seen: list[str] = []
    app.before_request(lambda: seen.append("seen") and None)
    server = make_server(app, "127.0.0.1", 0)
    threading.Thread(target=server.run, daemon=True).start()
    yield server.effective_port, seen
    server.close()


def _raw(port: int, request: bytes) -> tuple[bytes, bytes]:
    """(head, body) of the answer to ``request`` sent whole on a new connection."""
    import socket
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        s.sendall(request)
        answer = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            answer += chunk
            head, _, body = answer.partition(b"\r\n\r\n")
            length = [line.split(b":")[1] for line in head.lower().split(b"\r\n")
                      if line.startswith(b"content-length:")]
            if length and len(body) >= int(length[0]):
                break
    head, _, body = answer.partition(b"\r\n\r\n")
    return head, body


def test_a_chunked_upload_is_refused_411_unread(seen_server) -> None:
    """Issue 68, N15: a chunked body (1-byte chunks held the old server's loop for 25 s)
    is answered 411 before a byte of it reaches Python; the page sends its lengths."""
    port, seen = seen_server
    chunks = b"1\r\nx\r\n" * 5000
    head, body = _raw(port, b"POST /api/detect HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                      b"X-Requested-With: hanafuda\r\nContent-Type: image/jpeg\r\n"
                      b"Transfer-Encoding: chunked\r\n\r\n" + chunks)
    assert head.startswith(b"HTTP/1.1 411"), head
    assert json.loads(body)["status"] == 411 and "Content-Length" in json.loads(body)["error"]
    assert seen == []
    assert _post(port, jpeg())[0] == 200


@pytest.mark.parametrize("where, status", [("cookie", b"431"), ("query", b"414")])
def test_thousands_of_cookie_or_query_pairs_are_refused_uncounted_by_flask(seen_server, where,
                                                                          status) -> None:
    """Issue 68, N13b: 7,000 pairs in one Cookie header, or 7,000 query parameters, were
    parsed by Werkzeug on every request; refused from a count of their separators, the
    app never sees them; 99 are served."""
    port, seen = seen_server
    for count, expect in ((7000, status), (99, b"200")):
        pairs = [f"k{i:x}=v" for i in range(count)]
        line, extra = "/api/health", ""
        if where == "cookie":
            extra = "Cookie: " + "; ".join(pairs) + "\r\n"
        else:
            line += "?" + "&".join(pairs)
        head, body = _raw(port, f"GET {line} HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}"
                                f"Connection: close\r\n\r\n".encode())
        assert head[9:12] == expect, head
        if expect != b"200":
            assert json.loads(body)["status"] == int(expect)
            assert b"x-frame-options: deny" in head.lower()
    assert seen == ["seen"]                             # only the 99-pair request
