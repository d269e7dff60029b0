"""Reaching the app's store and detection service from a request."""

from __future__ import annotations

from typing import Hashable

from flask import current_app, request

from scorer.enrolled import EnrolledDecks
from scorer.store import GameStore
from webui.detection import DetectionService


def store() -> GameStore:
    return current_app.extensions["hanafuda"]["store"]


def detection() -> DetectionService:
    return current_app.extensions["hanafuda"]["detection"]


def enrolled_decks() -> EnrolledDecks:
    return current_app.extensions["hanafuda"]["decks"]


def client() -> Hashable:
    """Who sent the request, for the scheduler's turns: its address and port (one
    keep-alive connection, as a camera posts its frames one after another)."""
    env = request.environ
    return (env.get("REMOTE_ADDR"), env.get("REMOTE_PORT"))
