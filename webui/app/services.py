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


def client() -> Hashable:
    """Who sent the request, for the scheduler's turns: its address and port (one
    keep-alive connection, as a camera posts its frames one after another)."""
    env = request.environ
    return (env.get("REMOTE_ADDR"), env.get("REMOTE_PORT"))
