"""Hardening, safe defaults: loopback by default and a token beyond it (never in the
logs), cross-site state changes refused on every route, security headers on every page
and error, caps on names, counts, uploads and image dimensions, export names that cannot
escape, ids beyond SQLite's range and absurdly nested JSON refused cleanly."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from support.servers import CSRF, Client, FakeDetector, Server
from bench.fuzz_inputs import (bmp_header, image_material, jpeg_header,
                               png_header, webp_header)

TOKEN = "s3cret-token-for-the-hardening-test"


def app_for(tmp_path: Path, **config):
    from webui import create_app
    cfg = {"DB_PATH": tmp_path / "g.db", "DETECTOR": FakeDetector(), **config}
    return create_app(cfg)


@pytest.fixture
def client(tmp_path: Path):
    c = app_for(tmp_path).test_client()
    r = c.post("/api/games", json={"players": ["Ann", "Bob"]}, headers=CSRF)
    assert r.status_code == 201 and r.json["id"] == 1
    return c


def routes(app, methods: set[str]):
    """Every route of the app, with sample values for its arguments."""
    sample = {"game_id": "1", "number": "1", "fmt": "csv", "filename": "css/app.css",
              "name": "family"}
    for rule in app.url_map.iter_rules():
        for method in sorted(rule.methods & methods):
            url = rule.rule
            for arg in rule.arguments:
                url = re.sub(rf"<(\w+:)?{arg}>", sample[arg], url)
            yield method, url


def assert_security_headers(r, what) -> None:
    csp = r.headers.get("Content-Security-Policy", "")
    assert "frame-ancestors 'none'" in csp and "default-src 'self'" in csp, what
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp, what
    assert r.headers.get("X-Content-Type-Options") == "nosniff", what
    assert r.headers.get("X-Frame-Options") == "DENY", what


# ------------------------------------------------------------------ headers
def test_security_headers_on_every_route_and_error(tmp_path: Path, client) -> None:
    app = client.application
    seen = 0
    for _method, url in routes(app, {"GET"}):
        assert_security_headers(client.get(url), url)
        seen += 1
    assert seen >= 9
    for method, url in routes(app, {"POST", "PUT", "DELETE"}):
        assert_security_headers(client.open(url, method=method), ("no CSRF", url))   # 403
        assert_security_headers(client.open(url, method=method, headers=CSRF, data=b"x",
                                            content_type="text/plain"), ("bad body", url))
    for r in [client.get("/nothing", headers={"Accept": "text/html"}),          # 404 page
              client.get("/api/nothing"), client.patch("/api/games", headers=CSRF),  # 405
              client.post("/api/detect", data=b"\0" * (9 << 20), headers=CSRF),     # 413
              app_for(tmp_path / "t", ACCESS_TOKEN=TOKEN).test_client().get("/")]:  # 401
        assert_security_headers(r, r.status_code)


# ------------------------------------------------------------------ cross-site
def test_cross_site_state_changes_refused_on_every_route(client) -> None:
    app = client.application
    attempts = [{},                                                   # a plain cross-site form
                {**CSRF, "Origin": "http://evil.example"},
                {**CSRF, "Origin": "null"},
                {**CSRF, "Sec-Fetch-Site": "cross-site"}]
    unsafe = list(routes(app, {"POST", "PUT", "DELETE", "PATCH"}))
    assert len(unsafe) >= 6
    for method, url in unsafe:
        for headers in attempts:
            for body in [dict(json={"players": ["Eve", "Mal"], "owner": "Ann",
                                    "codes": ["01-1"]}),
                         dict(data={"players": "Eve"}, content_type="application/x-www-form-urlencoded")]:
                r = client.open(url, method=method, headers=headers, **body)
                assert r.status_code == 403, (method, url, headers, r.status_code)
    game = client.get("/api/games/1").json                           # nothing changed
    assert game["rounds"] == [] and len(client.get("/api/games").json["games"]) == 1
    pre = client.options("/api/games", headers={"Origin": "http://evil.example",
                                                "Access-Control-Request-Method": "POST"})
    assert "Access-Control-Allow-Origin" not in pre.headers


# ------------------------------------------------------------------ caps
@pytest.mark.parametrize("data", [png_header(100_000, 100_000), png_header(2**32 - 1, 1),
                                  png_header(12_001, 10), jpeg_header(65_535, 65_535),
                                  bmp_header(100_000, 1), bmp_header(-20_000, 20_000),
                                  webp_header(16_384, 16_384)])
def test_image_dimensions_capped(client, data: bytes) -> None:
    r = client.post("/api/detect", data=data, headers={**CSRF, "Content-Type": "image/png"})
    assert r.status_code == 413 and "over the cap" in r.json["error"]
    assert client.application.config["DETECTOR"].calls == 0          # never decoded


def test_upload_size_capped(client) -> None:
    big = b"\xff\xd8\xff" + b"\0" * (8 * 1024 * 1024)
    assert client.post("/api/detect", data=big, headers={**CSRF, "Content-Type": "image/jpeg"}
                       ).status_code == 413
    body = b'{"players": ["' + b"x" * (9 << 20) + b'"]}'
    r = client.post("/api/games", data=body, headers={**CSRF, "Content-Type": "application/json"})
    assert r.status_code == 413 and r.is_json


@pytest.mark.parametrize("body", [
    {"players": ["A" * 25, "Bob"]},                     # name over 24 characters
    {"players": ["Ann", "B" * 100_000]},
    {"players": ["P%d" % i for i in range(8)]},         # over 7 players
    {"players": ["Ann"]},
    {"players": ["Ann", "Bob"], "rounds": 49},
    {"players": ["Ann", "Bob"], "rounds": 10**30},
    {"players": ["Ann", "Bob"], "options": {f"k{i}": "1" for i in range(41)}},
    {"players": ["Ann", "Bob"], "options": {"yellow_paulownia": "x" * 65}},
    {"players": ["Ann", "ann"]},                        # the same name twice
    {"players": ["Ann", "Bob"], "preset": "p" * 1000},
])
def test_names_and_counts_bounded(client, body) -> None:
    r = client.post("/api/games", json=body, headers=CSRF)
    assert r.status_code == 400 and r.is_json and len(r.json["error"]) < 400


@pytest.mark.parametrize("pile", [
    {"owner": "Ann", "codes": ["01-1"] * 49},
    {"owner": "Ann", "codes": ["01-1", "01-1"]},
    {"owner": "Ann", "codes": ["13-1"]},
    {"owner": "Ann", "codes": ["01-1"], "crops": {"01-1": "data:image/jpeg;base64," + "A" * 16_001}},
    {"owner": "A" * 100_000, "codes": []},
])
def test_pile_size_and_codes_bounded(client, pile) -> None:
    r = client.put("/api/games/1/rounds/1/piles", json={**pile, "version": 0}, headers=CSRF)
    assert r.status_code == 400 and len(r.json["error"]) < 400


# ------------------------------------------------------------------ export names, ids
def test_export_file_name_cannot_escape(client) -> None:
    from webui.app import export
    for fmt in ("csv", "json"):
        r = client.get(f"/api/games/1/export.{fmt}")
        assert r.headers["Content-Disposition"] == f'attachment; filename="hanafuda-game-1.{fmt}"'
    for url in ["/api/games/1/export.xml", "/api/games/1/export..%2F..%2Fx",
                "/api/games/1/export.csv%00.sh", "/api/games/1/export.csv/../../../etc/passwd",
                "/api/games/..%2F1/export.csv"]:
        r = client.get(url)
        assert r.status_code in (400, 404) and "Content-Disposition" not in r.headers, url
    with pytest.raises(ValueError):
        export.filename(1, "../../etc/passwd")


def test_ids_beyond_sqlite_range_and_deep_json(client) -> None:
    for method, url in [("GET", "/api/games/99999999999999999999999"),
                        ("GET", "/games/9223372036854775808"),
                        ("DELETE", "/api/games/9223372036854775808"),
                        ("GET", "/api/games/18446744073709551616/export.json")]:
        r = client.open(url, method=method, headers=CSRF)
        assert r.status_code == 404, url
    deep = "[" * 50_000 + "]" * 50_000
    for url in ["/api/games", "/api/games/1/rounds/1/confirm"]:
        r = client.post(url, data=deep, headers={**CSRF, "Content-Type": "application/json"})
        assert r.status_code == 400 and "nested" in r.json["error"]


# ------------------------------------------------------------------ binding, token, logs
def _listening_addresses(port: int) -> set[str]:
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            addr, p = local.split(":")
            if state == "0A" and int(p, 16) == port:
                found.add(addr)
    return found


def test_serve_binds_loopback_by_default(tmp_path: Path) -> None:
    server = Server.hanafuda(tmp_path / "g.db", tmp_path / "log")
    try:
        server.wait_ready()
        status, _, _ = Client(server.port).call("GET", "/api/games")
        assert status == 200                                 # no token on loopback
        if Path("/proc/net/tcp").exists():
            assert _listening_addresses(server.port) == {"0100007F"}    # 127.0.0.1 only
    finally:
        server.stop()


def test_token_required_beyond_loopback_and_never_logged(tmp_path: Path) -> None:
    log = tmp_path / "log"
    server = Server.hanafuda(tmp_path / "g.db", log, "--host", "0.0.0.0", "--no-https")
    try:
        server.wait_ready()
        text = log.read_text()
        token = re.search(r"\?token=([\w-]+)", text).group(1)
        assert len(token) >= 24
        for url in ["/", "/api/games", "/static/css/app.css", "/api/health"]:
            status, _, _ = Client(server.port).call("GET", url)
            assert status == 401, url
        assert Client(server.port, headers={"X-Access-Token": "wrong" * 5}).call(
            "GET", "/api/games")[0] == 401
        assert Client(server.port).call("POST", "/api/games", {"players": ["A", "B"]})[0] == 401
        ok = Client(server.port, headers={"X-Access-Token": token})
        assert ok.call("GET", "/api/games")[0] == 200
        assert ok.call("POST", "/api/games", {"players": ["Ann", "Bob"]})[0] == 201
        assert ok.call("GET", "/api/games/77")[0] == 404
        assert ok.call("POST", "/api/detect", raw=b"junk", content_type="image/jpeg")[0] == 400
        status, _, headers = Client(server.port).call("GET", f"/?token={token}")
        assert status == 303 and token not in headers["Location"]
        cookie = headers["Set-Cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    finally:
        server.stop()
    logged = log.read_text()
    assert logged.count(token) == 1                          # only in the URL printed to open
    assert "Open http://" in logged and "Traceback" not in logged


def test_error_log_carries_no_token(tmp_path: Path, caplog) -> None:
    class Broken(FakeDetector):
        def detect(self, image, **kw):
            raise RuntimeError("model blew up")

    c = app_for(tmp_path, ACCESS_TOKEN=TOKEN, DETECTOR=Broken()).test_client()
    c.set_cookie("hanafuda_token", TOKEN)
    with caplog.at_level(logging.DEBUG):
        r = c.post(f"/api/detect?token={TOKEN}", data=image_material()[0],
                   headers={**CSRF, "X-Access-Token": TOKEN, "Content-Type": "image/jpeg"})
        c.get(f"/?token={TOKEN}")
        c.get("/?token=wrong-guess")
    assert r.status_code == 500 and "internal error" in r.json["error"]
    assert "model blew up" in caplog.text                    # the error is logged...
    assert TOKEN not in caplog.text and "wrong-guess" not in caplog.text   # ...the token is not


def test_dns_rebinding_refused_without_token(tmp_path: Path, client) -> None:
    """A foreign page whose name now points at 127.0.0.1 is same-origin to itself: its
    Origin matches its Host, so only the Host check keeps it out."""
    for base in ["http://evil.example:8000", "http://localhost.evil.example",
                 "http://192.168.1.5:8000"]:
        h = {**CSRF, "Origin": base, "Sec-Fetch-Site": "same-origin"}
        assert client.post("/api/games", json={"players": ["Eve", "Mal"]}, headers=h,
                           base_url=base).status_code == 403, base
        r = client.get("/api/games", base_url=base)
        assert r.status_code == 403 and "games" not in r.json, base
        assert_security_headers(r, base)
    for base in ["http://127.0.0.1:8000", "http://localhost:8000", "http://[::1]:8000"]:
        assert client.get("/api/games", base_url=base).status_code == 200, base
    # beyond loopback the token is what keeps other sites out, whatever the Host
    c = app_for(tmp_path / "t", ACCESS_TOKEN=TOKEN).test_client()
    assert c.get("/api/games", base_url="http://192.168.1.5:8000",
                 headers={"X-Access-Token": TOKEN}).status_code == 200
