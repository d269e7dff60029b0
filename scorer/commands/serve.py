"""``hanafuda serve``: the scorekeeper page on waitress, 127.0.0.1:8000 by default.

Binding anything but a loopback address needs an access token (``--token``, or one is
generated and printed once, inside the URL to open); the page and the API refuse
requests without it.
"""

from __future__ import annotations

import argparse
import errno
import logging
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
    parser.add_argument("--threads", type=int, default=4, help="server threads (default 4)")
    parser.set_defaults(func=_run)


def resolve_token(host: str, token: str | None) -> str | None:
    """The token the server requires: the given one, a new one beyond loopback, or None."""
    from webui.security import is_loopback  # the web edge loads only for serve

    if token is not None:
        if len(token) < 16:
            raise InputError("--token must be at least 16 characters")
        return token
    return None if is_loopback(host) else secrets.token_urlsafe(24)


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
    """A waitress server bound to ``host:port``; a port in use is one clear error."""
    from waitress import create_server

    # waitress warns "Task queue depth is N" whenever a request waits for a thread (a page
    # load fetches a few files at once): ordinary here, and alarming to read
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    try:
        return create_server(app, host=host, port=port, threads=threads,
                             ident="hanafuda-scorer", clear_untrusted_proxy_headers=True)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise InputError(f"port {port} is in use (another hanafuda serve?): "
                             f"stop it, or choose another port with --port {port + 1}") from None
        if exc.errno in (errno.EADDRNOTAVAIL, errno.EACCES):
            raise InputError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
        raise


