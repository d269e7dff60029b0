"""Reaching the app's store and detection service from a request."""

from __future__ import annotations

from flask import current_app

from scorer.enrolled import EnrolledDecks
from scorer.store import GameStore
from webui.detection import DetectionService


def store() -> GameStore:
    return current_app.extensions["hanafuda"]["store"]


def detection() -> DetectionService:
    return current_app.extensions["hanafuda"]["detection"]


def enrolled_decks() -> EnrolledDecks:
    return current_app.extensions["hanafuda"]["decks"]
