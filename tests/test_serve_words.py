"""What ``hanafuda serve`` says agrees with what it does: the help names the loopback
range served without a token (127.0.0.2 is loopback: no token, plain HTTP), and a body
just over the upload cap is refused with two sizes that read apart."""

from __future__ import annotations

import argparse
import json

from waitress.adjustments import Adjustments

from webui.command import register, resolve_token
from webui.net.oversize import UploadTooLarge, parser_for


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
    p = parser_for(limit)(Adjustments())
    p.received(f"POST /api/detect HTTP/1.1\r\nHost: x\r\nContent-Length: {size}\r\n\r\n".encode())
    chunk = b"0" * 65536
    while not p.completed:
        p.received(chunk)
    assert isinstance(p.error, UploadTooLarge)
    error = json.loads(p.error.to_response()[2])["error"]
    assert error == "upload too large: this upload is 8.42 MB; the limit is 8.39 MB", error
