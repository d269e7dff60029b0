"""``hanafuda serve``: the scorekeeper page on waitress, 127.0.0.1:8000 by default.

Binding anything but a loopback address needs an access token (``--token``, or one is
generated and printed once, inside the URL to open); the page and the API refuse
requests without it.
"""

from __future__ import annotations

import argparse
import errno
import secrets
from pathlib import Path

from scorer.errors import InputError

def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve", help="start the scorekeeper web page",
        description="Serve the scorekeeper page and its JSON API (waitress).")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to bind (default 127.0.0.1; anything else needs a token)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--db", type=Path, default=None,
                        help="SQLite file (default $XDG_DATA_HOME/hanafuda-scorer/games.db)")
    parser.add_argument("--model", type=Path, default=None,
                        help="detector model (default: the shipped model)")
    parser.add_argument("--token", default=None,
                        help="access token required beyond localhost (generated if omitted)")
    parser.add_argument("--threads", type=int, default=16,
                        help="request threads (default 16; they mostly wait: the image "
                             "work runs on one worker a CPU core)")
    parser.set_defaults(func=_run)


def resolve_token(host: str, token: str | None) -> str | None:
    """The token the server requires: the given one, a new one beyond loopback, or None."""
    from webui.security import is_loopback  # the web edge loads only for serve

    if token is not None:
        check_token(token)
        return token
    return None if is_loopback(host) else secrets.token_urlsafe(24)


MIN_TOKEN = 16
MIN_DISTINCT = 8


def check_token(token: str) -> None:
    """A token a LAN neighbour cannot guess: at least MIN_TOKEN characters, none of them
    whitespace or control characters, and at least MIN_DISTINCT different ones (so not
    ``aaaaaaaaaaaaaaaa`` nor ``abababababababab``); InputError saying what to fix."""
    if len(token) < MIN_TOKEN:
        raise InputError(f"--token must be at least {MIN_TOKEN} characters")
    if any(c.isspace() or not c.isprintable() for c in token):
        raise InputError("--token must not contain spaces or control characters")
    if len(set(token)) < MIN_DISTINCT:
        raise InputError(f"--token must mix at least {MIN_DISTINCT} different characters "
                         "(omit --token and one is generated)")


def open_url(host: str, port: int, token: str | None) -> str:
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/" + (f"?token={token}" if token else "")


def _run(args: argparse.Namespace) -> int:
    if not 0 < args.port < 65536:
        raise InputError(f"--port must be 1..65535, not {args.port}")
    token = resolve_token(args.host, args.token)
    if args.model is not None and not args.model.is_file():
        raise InputError(f"no model file at {args.model}")
    from scorer.store import default_db_path
    from webui import create_app

    db = args.db or default_db_path()
    app = create_app({"DB_PATH": db, "MODEL_PATH": args.model, "ACCESS_TOKEN": token})
    print(f"hanafuda-scorer: games in {db}", flush=True)
    if token and args.host in ("0.0.0.0", "::"):
        print("Other devices: use this machine's address on your network instead of "
              "127.0.0.1, with the same token.", flush=True)
    server = bind(app, args.host, args.port, max(1, args.threads))
    print(f"Open {open_url(args.host, args.port, token)}", flush=True)
    server.run()
    return 0


def bind(app, host: str, port: int, threads: int):
    """The waitress server (``webui.server``) bound to ``host:port``; a port in use is
    one clear error."""
    from webui.server import make_server

    try:
        return make_server(app, host, port, threads)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise InputError(f"port {port} is in use (another hanafuda serve?): "
                             f"stop it, or choose another port with --port {port + 1}") from None
        if exc.errno in (errno.EADDRNOTAVAIL, errno.EACCES):
            raise InputError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
        raise
