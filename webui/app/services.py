"""The app's services (its store, decks, detection and the table), reached from a request."""

from __future__ import annotations

from typing import Hashable

from flask import current_app, request

from scorer.enrolled import EnrolledDecks
from scorer.store import GameStore
from scorer.table import Table
from webui.images.detection import ClientImages, DetectionService


def store() -> GameStore:
    return current_app.extensions["hanafuda"]["store"]


def detection() -> DetectionService:
    return current_app.extensions["hanafuda"]["detection"]


def enrolled_decks() -> EnrolledDecks:
    return current_app.extensions["hanafuda"]["decks"]


def table() -> Table:
    """The games at the table, their image work in this request's client's turn."""
    return Table(store(), enrolled_decks(), ClientImages(detection(), client()))


#: The header a page's camera names itself with (one id a tab: ``static/js/api.js``).
CLIENT_HEADER = "X-Client"


def client() -> Hashable:
    """Who sent the request, for the scheduler's turns: its address and the camera the
    page names (``X-Client``, one id a tab), else the connection's port where the server
    gives it; a request with neither is a client of its own."""
    env = request.environ
    named = request.headers.get(CLIENT_HEADER, "")[:64] or env.get("REMOTE_PORT")
    return (env.get("REMOTE_ADDR"), named if named else object())
