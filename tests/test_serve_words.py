"""What ``hanafuda serve`` says agrees with what it does: the help names the loopback
range served without a token (127.0.0.2 is loopback: no token, plain HTTP), and a body
just over the upload cap is refused with two sizes that read apart."""

from __future__ import annotations

import argparse
import io
import json

from webui.command import register, resolve_token
from webui.net.guard import Guard, Limits


def _serve_help() -> str:
    parser = argparse.ArgumentParser(prog="hanafuda")
    sub = parser.add_subparsers()
    register(sub)
    return " ".join(sub.choices["serve"].format_help().split())


def test_the_help_and_the_host_rule_agree() -> None:
    said = _serve_help()
    assert "anything else needs a token" not in said
    assert "a loopback address, any of 127.0.0.0/8, ::1 or localhost, serves plain HTTP with no token" in said
    for host in ("127.0.0.1", "127.0.0.2", "::1", "localhost"):
        assert resolve_token(host, None) is None, host       # loopback: no token, as said
    for host in ("0.0.0.0", "192.168.1.20"):
        assert resolve_token(host, None), host                # any other: a token


def test_a_body_just_over_the_cap_names_two_sizes_that_differ() -> None:
    limit, size = 8 * 1024 * 1024, 8_418_608
    guard = Guard(lambda environ, start: [], Limits(body=limit, shown=limit))
    said: list = []
    body = guard({"REQUEST_METHOD": "POST", "PATH_INFO": "/api/detect", "REMOTE_ADDR": "10.0.0.1",
                  "CONTENT_LENGTH": str(size), "wsgi.input": io.BytesIO(b"0" * size)},
                 lambda status, headers: said.append(status))
    assert said == ["413 Content Too Large"]
    error = json.loads(b"".join(body))["error"]
    assert error == "upload too large: this upload is 8.42 MB; the limit is 8.39 MB", error
