"""Issue 68's holes that the app itself closes, through the app (the server's are in
tests/test_web_oversize.py, test_web_crowd.py and test_web_network.py): each refused one
clear way, a one-line JSON error, never a 500 and never a decode."""

from __future__ import annotations

from pathlib import Path

from web_helpers import CSRF, jpeg, make_app, png_header


def test_a_follow_of_thousands_of_nested_brackets_is_a_400_not_a_500(tmp_path: Path) -> None:
    """N16: ``?follow=`` holding 5,000 nested ``[`` overflowed the JSON decoder's
    recursion (a 500); it is the API's one-line 400 like any bad ``follow``."""
    client = make_app(tmp_path).test_client()
    for follow in ("[" * 5000, "[" * 5000 + "]" * 5000, "[{\"quad\": " + "[" * 5000 + "}]"):
        r = client.post("/api/detect", query_string={"follow": follow}, data=jpeg(),
                        headers={**CSRF, "Content-Type": "image/jpeg"})
        assert r.status_code == 400, r.get_json()
        assert r.get_json()["error"].startswith("follow:")
        assert "\n" not in r.get_json()["error"]


def test_a_png_decoded_whole_is_capped_from_its_header(tmp_path: Path) -> None:
    """N19: a 116 kB PNG of 40 MP decoded to 120 MB (two senders took the server to 495
    MiB). A PNG, like a progressive JPEG, cannot be decoded smaller, so one over the
    cap for images decoded whole (12 MP) is refused from its header, a 413 saying so;
    one under it is read."""
    app = make_app(tmp_path)
    client = app.test_client()
    detection = app.extensions["hanafuda"]["detection"]
    r = client.post("/api/detect", data=png_header(7680, 5208),
                    headers={**CSRF, "Content-Type": "image/png"})
    assert r.status_code == 413 and "decoded whole" in r.get_json()["error"], r.get_json()
    assert detection.scheduler.stats["run"] == 0                  # never decoded
    r = client.post("/api/detect", data=png_header(4000, 3000),  # 12 MP: to the decoder
                    headers={**CSRF, "Content-Type": "image/png"})
    assert r.status_code == 400 and "decoded whole" not in r.get_json()["error"]
