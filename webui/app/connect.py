"""How a phone joins the table: the URL with the token, as text and as a QR code (in the
terminal ``hanafuda serve`` prints to, and on the home page), and the certificate of
the machine's authority to trust once (``webui.net.tls``).

Routes (behind the access token like every other): ``/connect.svg`` the QR code of the
URL, ``/connect/ca.pem`` the authority's certificate for the phone to install. Both
answer 404 when the server is not on the network (no ``CONNECT_URL``).
"""

from __future__ import annotations

import io
from pathlib import Path

import segno
from flask import Blueprint, Response, abort, current_app

bp = Blueprint("connect", __name__)


def qr(url: str) -> segno.QRCode:
    return segno.make(url, error="m", boost_error=False)


def terminal_qr(url: str) -> str:
    """The QR code of ``url`` drawn with half-block characters (two rows a line), dark on
    a light border as a phone's camera reads it best."""
    buf = io.StringIO()
    qr(url).terminal(out=buf, compact=True, border=2)
    return buf.getvalue()


def svg_qr(url: str) -> str:
    buf = io.BytesIO()
    qr(url).save(buf, kind="svg", scale=6, border=2, xmldecl=False,
                 title="QR code: the table's address with its token")
    return buf.getvalue().decode()


@bp.get("/connect.svg")
def connect_svg() -> Response:
    url = current_app.config.get("CONNECT_URL")
    if not url:
        abort(404)
    resp = Response(svg_qr(url), mimetype="image/svg+xml")
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/connect/ca.pem")
def authority() -> Response:
    path = current_app.config.get("TLS_AUTHORITY")
    if not current_app.config.get("CONNECT_URL") or not path or not Path(path).is_file():
        abort(404)
    resp = Response(Path(path).read_bytes(), mimetype="application/x-x509-ca-cert")
    resp.headers["Content-Disposition"] = 'attachment; filename="hanafuda-scorer-ca.pem"'
    return resp
