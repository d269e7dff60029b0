"""The browser tests' server is ``hanafuda serve``'s own (granian with the guard), so
that what a browser meets in them is what it meets in play."""

from __future__ import annotations

import http.client
import json
from urllib.parse import urlsplit

from e2e_harness import ServerThread
from tests.web_helpers import make_app


def test_the_browser_tests_serve_through_the_product_server(tmp_path) -> None:
    with ServerThread(make_app(tmp_path)) as server:
        url = urlsplit(server.url)
        cookies = "; ".join(f"k{i}=v" for i in range(200))     # the guard's limit
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
        conn.request("GET", "/api/health", headers={"Cookie": cookies})
        resp = conn.getresponse()
        assert resp.status == 431 and "too many cookies" in json.loads(resp.read())["error"]
