"""``hanafuda serve``: the scorekeeper page on granian, 127.0.0.1:8000 by default.

Binding anything but a loopback address needs an access token (``--token``, or one is
generated and printed once, inside the URL to open); the page and the API refuse
requests without it. Beyond loopback the server speaks HTTPS (browsers give a phone's
camera only to localhost or HTTPS) with a certificate made on the first run and kept
beside the database (``webui.net.tls``); ``--no-https`` keeps plain HTTP. The URL to open
is printed once, with a QR code of it when the output is a terminal (``webui.app.connect``).

This module is the web package's command: ``scorer.cli`` finds it through the
``hanafuda.commands`` entry point, and ``python -m webui`` runs it directly.
"""

from __future__ import annotations

import argparse
import errno
import secrets
import sys
from pathlib import Path
from typing import Any

from scorer.errors import InputError

#: The addresses served without a token (``webui.app.security.is_loopback``), as the help says.
LOOPBACK = "any of 127.0.0.0/8, ::1 or localhost"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve", help="start the scorekeeper web page",
        description="Serve the scorekeeper page and its JSON API (granian). On a loopback "
                    "address (" + LOOPBACK + ") it serves plain HTTP with no token; on any "
                    "other (--host 0.0.0.0: phones on the same Wi-Fi) it needs a token and "
                    "speaks HTTPS, so a phone's browser allows its camera.")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to bind (default 127.0.0.1; a loopback address, "
                             + LOOPBACK + ", serves plain HTTP with no token; any other "
                             "needs a token and serves HTTPS)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--db", type=Path, default=None,
                        help="SQLite file (default $XDG_DATA_HOME/hanafuda-scorer/games.db)")
    parser.add_argument("--model", type=Path, default=None,
                        help="detector model (default: the shipped model)")
    parser.add_argument("--token", default=None,
                        help="access token required beyond loopback (generated if omitted)")
    parser.add_argument("--threads", type=int, default=16,
                        help="requests run in the app at once (default 16; they mostly "
                             "wait: the image work runs on one worker a CPU core)")
    parser.add_argument("--no-https", dest="https", action="store_false",
                        help="plain HTTP beyond loopback too (phones can then only upload "
                             "photos: browsers allow the camera only on HTTPS)")
    parser.add_argument("--tls-dir", type=Path, default=None,
                        help="folder of the HTTPS certificate (default: tls/ beside the "
                             "database; made on the first run)")
    parser.set_defaults(func=_run)


def resolve_token(host: str, token: str | None) -> str | None:
    """The token the server requires: the given one, a new one beyond loopback, or None."""
    from webui.app.security import is_loopback  # the web edge loads only for serve

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


WILDCARDS = ("0.0.0.0", "::", "")


def open_url(host: str, port: int, token: str | None, scheme: str = "http") -> str:
    shown = "127.0.0.1" if host in WILDCARDS else host
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    return f"{scheme}://{shown}:{port}/" + (f"?token={token}" if token else "")


def phone_host(host: str, addresses: list[str]) -> str:
    """The address a phone on the Wi-Fi opens: the bound one, or for a wildcard this
    machine's first private network address (127.0.0.1 when it has none)."""
    from webui.net.tls import lan_addresses

    if host not in WILDCARDS:
        return host
    lan = lan_addresses(addresses)
    return lan[0] if lan else "127.0.0.1"


def certificate(args: argparse.Namespace, db: Path, addresses: list[str]) -> Any:
    """The HTTPS certificate (``webui.net.tls``) for this machine's names, ``addresses`` and
    the bound host, made or reused in ``--tls-dir`` (default ``tls/`` beside ``db``)."""
    from webui.net.tls import ensure_certificate, host_names, is_ip

    folder = args.tls_dir or db.parent / "tls"
    names, addresses = host_names(), list(addresses)
    if args.host not in WILDCARDS:
        bound = args.host.strip("[]")
        (addresses if is_ip(bound) else names).append(bound)
    try:
        return ensure_certificate(folder, names, addresses)
    except OSError as exc:
        raise InputError(f"cannot keep the HTTPS certificate in {folder}: {exc.strerror or exc}"
                         " (choose a folder with --tls-dir, or serve --no-https)") from None


def _run(args: argparse.Namespace) -> int:
    from webui.app.security import is_loopback

    if not 0 < args.port < 65536:
        raise InputError(f"--port must be 1..65535, not {args.port}")
    token = resolve_token(args.host, args.token)
    if args.model is not None and not args.model.is_file():
        raise InputError(f"no model file at {args.model}")
    from scorer.store import default_db_path
    from webui import create_app

    db = args.db or default_db_path()
    on_network = not is_loopback(args.host)
    if on_network:
        from webui.net.tls import host_addresses
        addresses = host_addresses()
    else:
        addresses = []
    cert = certificate(args, db, addresses) if on_network and args.https else None
    scheme = "https" if cert is not None else "http"
    url = open_url(phone_host(args.host, addresses) if on_network else args.host, args.port,
                   token, scheme)
    app = create_app({"DB_PATH": db, "MODEL_PATH": args.model, "ACCESS_TOKEN": token,
                      "CONNECT_URL": url if on_network else None,
                      "TLS_AUTHORITY": cert.ca if cert is not None else None})
    print(f"hanafuda-scorer: games in {db}", flush=True)
    if cert is not None:
        print(f"HTTPS certificate {'made' if cert.made else 'kept'} in {cert.folder} "
              f"(names {', '.join(cert.names + cert.addresses)}); to trust it for good, "
              f"install {cert.ca.name} on the phone (README: A phone at the table), "
              f"the authority with the SHA-256 fingerprint {cert.fingerprint}", flush=True)
    elif on_network:
        print("Plain HTTP (--no-https): a phone's browser will not give the page its "
              "camera; it can upload photos.", flush=True)
    server = bind(app, args.host, args.port, max(1, args.threads),
                  (cert.cert, cert.key) if cert is not None else None)

    def ready() -> None:            # said once it serves and Ctrl-C is Python's again
        print(f"Open {url}", flush=True)
        if on_network and args.host in WILDCARDS and "//127.0.0.1:" in url:
            print("(no private network address found on this machine: on the phone, use "
                  "the address the Wi-Fi gave this machine instead of 127.0.0.1)", flush=True)
        if on_network and sys.stdout.isatty():
            from webui.app.connect import terminal_qr
            print("or scan this with the phone's camera (same Wi-Fi):", flush=True)
            print(terminal_qr(url), flush=True)

    server.run(ready)
    return 0


def bind(app: Any, host: str, port: int, threads: int, tls: Any = None) -> Any:
    """The granian server (``webui.net.server``) bound to ``host:port`` (HTTPS with the
    ``tls`` certificate and key files); a port in use is one clear error."""
    from webui.net.server import make_server

    try:
        return make_server(app, host, port, threads, tls)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise InputError(f"port {port} is in use (another hanafuda serve?): "
                             f"stop it, or choose another port with --port {port + 1}") from None
        if exc.errno in (errno.EADDRNOTAVAIL, errno.EACCES):
            raise InputError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
        raise
