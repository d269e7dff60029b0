"""The Flask app (this room of ``webui``): the app factory, with a pages and a JSON API blueprint.

``create_app(config)`` builds a fresh app; nothing is global. Config keys (all optional):

``DB_PATH``            SQLite file (default: ``scorer.store.default_db_path()``)
``DETECTOR``           an object with ``detect(image) -> Detections`` (tests inject a fake);
                       otherwise one ``scorer.vision.Detector`` is created on first use
``MODEL_PATH``         the model for that detector (default: the vision package's default)
``ACCESS_TOKEN``       when set, every request needs it (cookie, ``X-Access-Token`` header
                       or ``?token=`` once); ``hanafuda serve --host 0.0.0.0`` sets one
``GUESS_DELAY``        seconds a wrong token waits for its 429 once an address has made
                       ten wrong guesses in a minute (default 2; ``webui.app.security``)
``CONNECT_URL``        the URL (with the token) a phone opens, shown on the page with
                       its QR code (``hanafuda serve`` sets it beyond loopback)
``TLS_AUTHORITY``      the certificate a phone installs to trust the server for good
                       (``webui.net.tls``; offered on the page at ``/connect/ca.pem``)
``MAX_CONTENT_LENGTH`` upload cap in bytes (default 8 MiB; over it: 413)
``MAX_IMAGE_PIXELS``   image dimension cap (default and most: the decoder's 40 megapixels;
                       ``MAX_IMAGE_SIDE`` 12000 px a side); a higher one is refused
``DETECT_WORKERS``     image workers (default: one a CPU core); the image work of every
                       endpoint is scheduled on them (``webui.images.scheduler``), large images
                       on threads of their own at background priority
``DETECT_DEADLINE``    seconds a camera frame may wait for a worker (default 1.0); only a
                       frame that cannot start by then is answered 503 with Retry-After
``IMAGE_BUDGET``       decoded pixels of large images waiting or running at once (default
                       twice ``MAX_IMAGE_PIXELS``); beyond it a large image is refused (503)
``PROGRESSIVE_PIXELS`` the largest progressive JPEG taken (default 12 MP: its decoder holds
                       the whole image; a larger one is refused from its header, 413)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from flask import Flask
from flask.json.provider import DefaultJSONProvider

from scorer.enrolled import EnrolledDecks
from scorer.store import Database, GameStore, default_db_path
from scorer.store.decks import DeckStore
from webui.images.detection import DetectionService

WEBUI = Path(__file__).resolve().parent.parent

DEFAULTS: dict[str, Any] = {
    "DB_PATH": None,
    "DETECTOR": None,
    "MODEL_PATH": None,
    "ACCESS_TOKEN": None,
    "GUESS_DELAY": 2.0,
    "CONNECT_URL": None,
    "TLS_AUTHORITY": None,
    "MAX_CONTENT_LENGTH": 8 * 1024 * 1024,
    "MAX_IMAGE_PIXELS": 40_000_000,
    "MAX_IMAGE_SIDE": 12_000,
    "DETECT_WORKERS": None,
    "DETECT_DEADLINE": 1.0,
    "IMAGE_BUDGET": None,
    "PROGRESSIVE_PIXELS": 12_000_000,
    "JSON_SORT_KEYS": False,
}


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    # the templates and the static files stay at the web package's top (webui/templates,
    # webui/static)
    app = Flask(__name__, root_path=str(WEBUI))
    app.config.update(DEFAULTS)
    if config:
        app.config.update(config)
    if isinstance(app.json, DefaultJSONProvider):
        app.json.sort_keys = False      # answers keep their fields in the order written
    db = Database(Path(app.config["DB_PATH"] or default_db_path()))
    games = GameStore(db)
    app.extensions["hanafuda"] = {
        "store": games,
        "decks": EnrolledDecks(DeckStore(db), games),
        "detection": DetectionService(
            detector=app.config["DETECTOR"], model_path=app.config["MODEL_PATH"],
            workers=app.config["DETECT_WORKERS"],
            deadline=float(app.config["DETECT_DEADLINE"]),
            max_pixels=int(app.config["MAX_IMAGE_PIXELS"]),
            max_side=int(app.config["MAX_IMAGE_SIDE"]),
            heavy_budget=app.config["IMAGE_BUDGET"],
            max_progressive=int(app.config["PROGRESSIVE_PIXELS"])),
    }

    from webui.app import api, connect, errors, i18n, pages, security
    security.init_app(app)
    i18n.init_app(app)
    errors.init_app(app)
    app.register_blueprint(pages.bp)
    app.register_blueprint(connect.bp)
    app.register_blueprint(api.bp, url_prefix="/api")
    return app
