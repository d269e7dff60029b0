"""Safe defaults: headers on every response, cross-site protection, the access token,
the pages, and `hanafuda serve`'s binding rules; plus a small no-500 fuzz of the API."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from werkzeug.test import EnvironBuilder

from webui import command as serve
from web_helpers import CHECK_CASES, CSRF, TOKEN, app_admits, case_headers, check_apps, jpeg, make_app
from webui.app.edge import admits_for, request_of
from webui.app.security import admitted, is_loopback


@pytest.fixture
def client(tmp_path: Path):
    return make_app(tmp_path).test_client()


@pytest.mark.parametrize("url", ["/", "/api/games", "/static/js/game.js", "/api/games/77",
                                 "/nothing", "/static/css/app.css"])
def test_security_headers_everywhere(client, url) -> None:
    r = client.get(url)
    csp = r.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.headers["X-Frame-Options"] == "DENY"


def test_pages(client) -> None:
    r = client.get("/")
    assert r.status_code == 200 and b'id="new-game-form"' in r.data
    js = client.get("/static/js/home.js")
    assert js.status_code == 200 and "javascript" in js.mimetype
    r = client.post("/api/games", json={"players": ["Ann", "Bob"]}, headers=CSRF)
    r = client.get(f"/games/{r.json['id']}")
    assert r.status_code == 200 and b'data-game-id="1"' in r.data and b"<video" in r.data
    r = client.get("/games/999", headers={"Accept": "text/html"})
    assert r.status_code == 404 and r.mimetype == "text/html" and b"no game 999" in r.data


def test_pages_load_nothing_from_elsewhere(client) -> None:
    for url in ["/", "/static/js/game.js", "/static/js/home.js", "/static/js/camera.js",
                "/static/css/app.css"]:
        body = client.get(url).data.decode()
        assert "http://" not in body.replace("http://www.w3.org/2000/svg", "")
        assert "https://" not in body and "<script>" not in body


def test_state_changes_need_the_custom_header(client) -> None:
    r = client.post("/api/games", json={"players": ["Ann", "Bob"]})
    assert r.status_code == 403 and "X-Requested-With" in r.json["error"]
    r = client.post("/api/detect", data=jpeg(), headers={"Content-Type": "image/jpeg"})
    assert r.status_code == 403
    assert client.delete("/api/games/1").status_code == 403
    assert client.get("/api/games").status_code == 200          # reads need nothing


def test_foreign_origin_is_refused(client) -> None:
    body = {"players": ["Ann", "Bob"]}
    r = client.post("/api/games", json=body, headers={**CSRF, "Origin": "http://evil.example"})
    assert r.status_code == 403 and "Origin" in r.json["error"]
    r = client.post("/api/games", json=body, headers={**CSRF, "Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 403
    r = client.post("/api/games", json=body, headers={**CSRF, "Origin": "http://localhost"})
    assert r.status_code == 201


def test_access_token(tmp_path: Path) -> None:
    app = make_app(tmp_path, ACCESS_TOKEN=TOKEN)
    c = app.test_client()
    for url in ["/", "/api/games", "/static/js/game.js"]:
        r = c.get(url)
        assert r.status_code == 401 and "access token" in r.get_data(as_text=True), url
    assert c.get("/?token=wrong").status_code == 401
    assert c.get("/api/games", headers={"X-Access-Token": TOKEN}).status_code == 200
    r = c.get(f"/?token={TOKEN}&x=1")
    assert r.status_code == 303 and r.headers["Location"] == "/?x=1"      # token leaves the URL
    cookie = r.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert c.get("/").status_code == 200                                    # cookie now set
    r = c.post("/api/games", json={"players": ["Ann", "Bob"]}, headers=CSRF)
    assert r.status_code == 201


def test_the_checks_predicate_agrees_with_the_app(tmp_path: Path) -> None:
    """``webui.app.security.admitted`` (what ``webui.net.early`` asks) says of each request
    what the app answers it: through to the view, or refused by its checks."""
    apps = check_apps(tmp_path)
    for case in CHECK_CASES:
        app = apps[case.token]
        environ = EnvironBuilder("/api/detect", method="POST", query_string=case.query,
                                 base_url=f"{case.scheme}://localhost",
                                 headers=case_headers(app, case)).get_environ()
        said = admitted(app.request_class(environ), app.extensions.get("credentials"))
        assert said == app_admits(app, case) == case.admitted, case.name


def test_serve_binding_rules() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("[::1]")
    assert is_loopback("localhost") and not is_loopback("0.0.0.0")
    assert serve.resolve_token("127.0.0.1", None) is None
    generated = serve.resolve_token("0.0.0.0", None)
    assert generated and len(generated) >= 24
    assert serve.resolve_token("0.0.0.0", None) != generated
    assert serve.resolve_token("0.0.0.0", TOKEN) == TOKEN
    from scorer.errors import InputError
    with pytest.raises(InputError, match="16"):
        serve.resolve_token("0.0.0.0", "short")
    assert serve.open_url("127.0.0.1", 8000, None) == "http://127.0.0.1:8000/"
    assert serve.open_url("0.0.0.0", 9000, "abc") == "http://127.0.0.1:9000/?token=abc"


def test_serve_command_defaults_and_token(tmp_path: Path, monkeypatch, capsys) -> None:
    import webui.net.server
    from scorer.cli import main as cli_main

    def main(argv):
        return cli_main(argv, extra=[serve])
    seen: dict = {}

    class FakeServer:
        def run(self, ready=None) -> None:
            seen["ran"] = True
            if ready is not None:
                ready()

    def fake_make_server(app, host, port, threads, tls=None):
        seen.update(host=host, port=port, app=app, tls=tls)
        return FakeServer()

    monkeypatch.setattr(webui.net.server, "make_server", fake_make_server)
    assert main(["serve", "--db", str(tmp_path / "g.db")]) == 0
    assert (seen["host"], seen["port"], seen["ran"], seen["tls"]) == ("127.0.0.1", 8000, True, None)
    assert seen["app"].config["ACCESS_TOKEN"] is None
    assert "Open http://127.0.0.1:8000/\n" in capsys.readouterr().out      # loopback: HTTP
    assert not (tmp_path / "tls").exists()
    assert main(["serve", "--host", "0.0.0.0", "--port", "8123", "--db", str(tmp_path / "g.db")]) == 0
    token = seen["app"].config["ACCESS_TOKEN"]
    assert token and seen["host"] == "0.0.0.0" and seen["tls"] is not None    # network: HTTPS
    out = capsys.readouterr().out
    assert f"?token={token}" in out and "Open https://" in out
    assert (tmp_path / "tls" / "cert.pem").is_file() and (tmp_path / "tls" / "ca.pem").is_file()
    assert seen["app"].config["CONNECT_URL"].startswith("https://")
    assert main(["serve", "--host", "0.0.0.0", "--no-https", "--db", str(tmp_path / "g.db")]) == 0
    assert seen["tls"] is None and "Open http://" in capsys.readouterr().out
    assert main(["serve", "--port", "0"]) == 2


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=30)
                    | st.sampled_from(["08-1", "Ann", "Bob", "add", "replace", "camera"]),
                    lambda kids: st.lists(kids, max_size=4)
                    | st.dictionaries(st.sampled_from(
                        ["players", "owner", "codes", "action", "old_code", "new_code",
                         "context", "teams", "rounds", "preset", "detected", "source",
                         "stopped_by", "koikoi_calls", "first_dealer", "options"]), kids, max_size=5),
                    max_leaves=12)


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(body=JSON, target=st.sampled_from(["games", "piles", "corrections", "confirm"]))
def test_no_500_for_any_json(tmp_path_factory, body, target) -> None:
    app = _fuzz_app(tmp_path_factory)
    c = app.test_client()
    urls = {"games": ("POST", "/api/games"), "piles": ("PUT", "/api/games/1/rounds/1/piles"),
            "corrections": ("POST", "/api/games/1/rounds/1/corrections"),
            "confirm": ("POST", "/api/games/1/rounds/1/confirm")}
    method, url = urls[target]
    r = c.open(url, method=method, json=body, headers=CSRF)
    assert r.status_code < 500, (body, r.get_json())
    assert r.is_json


_APPS: dict = {}


def _fuzz_app(factory):
    if "app" not in _APPS:
        app = make_app(factory.mktemp("fuzz"))
        app.test_client().post("/api/games", json={"players": ["Ann", "Bob"]}, headers=CSRF)
        _APPS["app"] = app
    return _APPS["app"]



def test_token_redirect_stays_on_this_site(tmp_path: Path) -> None:
    """A path of //evil.example must not turn the token redirect into an off-site URL
    (Werkzeug's request.path collapses the leading slashes; this guards that)."""
    c = make_app(tmp_path, ACCESS_TOKEN=TOKEN).test_client()
    r = c.get("/", query_string={"token": TOKEN},
              environ_overrides={"PATH_INFO": "//evil.example/"})
    assert r.status_code == 303
    location = r.headers["Location"]
    assert location.startswith("/") and not location.startswith("//"), location


#: Cookie headers (``G``: the app's cookie for its token) on which the request threads'
#: token check and the app's once read the cookie differently (``http.cookies`` against
#: Werkzeug): several of one name, a malformed pair, a reserved name, a comma.
ODD_COOKIES = [
    "hanafuda_token=G", 'hanafuda_token="G"', "hanafuda_token = G", "hanafuda_token=G;Secure",
    "hanafuda_token=wrong; hanafuda_token=G", "hanafuda_token=G; hanafuda_token=wrong",
    "a=b c; hanafuda_token=G", "hanafuda_token=G; a=b c", "x; hanafuda_token=G",
    "=x; hanafuda_token=G", 'a="x; hanafuda_token=G', "a=\\x; hanafuda_token=G",
    "path=/; hanafuda_token=G", "expires=Mon, 01 Jan; hanafuda_token=G",
    "a=b, hanafuda_token=G", "a=b,hanafuda_token=G", "a=\u00e9; hanafuda_token=G",
    "hanafuda_token=G\u00e9", "$Version=1; hanafuda_token=G", "hanafuda_token:G", "",
]


def _environ(path: str, query: str, headers: dict[str, str]) -> dict:
    """The WSGI environ granian makes of a request (header values as latin-1 text)."""
    environ = {"REQUEST_METHOD": "GET", "PATH_INFO": path, "QUERY_STRING": query,
               "wsgi.url_scheme": "http", "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8443"}
    for key, value in headers.items():
        environ["HTTP_" + key.upper().replace("-", "_")] = value
    return environ


@pytest.mark.parametrize("query", ["", "token=&token=T", "token=T&token=", "token=T"])
def test_the_turns_read_the_token_as_the_app(tmp_path: Path, query: str) -> None:
    """Whether the server's turns serve a request as the token's (``admits_for``, asked
    of the request's environ before Flask sees it) is what the app's own check answers
    of it: one reading of the cookie (and query) for both, whatever the Cookie header
    holds."""
    app = make_app(tmp_path, ACCESS_TOKEN=TOKEN)
    creds = app.extensions["credentials"]
    admits = admits_for(app)
    client = app.test_client(use_cookies=False)
    q = query.replace("T", TOKEN)
    for odd in ODD_COOKIES:
        cookie = odd.replace("G", creds.cookie).encode()             # as sent: UTF-8 bytes
        headers = {"Host": "192.168.1.5:8443"}
        if cookie:
            headers["Cookie"] = cookie.decode("latin-1")
        environ = _environ("/api/games", q, headers)
        threads = admits(environ)
        # the app: served (200) or asked for the token (401), or the URL's token set as
        # the cookie (303), which the turns serve first too
        status = client.get("/api/games", query_string=q,
                            headers={k: v for k, v in headers.items() if k != "Host"}
                            ).status_code
        assert status in (200, 303, 401), (odd, query, status)
        assert threads == (status in (200, 303)), (odd, query, status)
        said = admitted(request_of(environ, app.request_class), creds)
        assert said == (status == 200), (odd, query, status)
    # a plain request reads as it always has
    assert admits(_environ("/", "", {"Host": "h", "Cookie": "hanafuda_token=" + creds.cookie}))
    assert not admits(_environ("/", "", {"Host": "h", "Cookie": "hanafuda_token=0123abcd"}))
