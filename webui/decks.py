"""Enrolled decks for the web API: ``POST /api/detect?deck=NAME`` reads with a profile."""

from __future__ import annotations

import threading
from typing import Any

from flask import current_app

from scorer.store.decks import DeckStore, check_name
from scorer.vision.profile import profile_from_cards
from webui.context import detection, store

_LOCK = threading.Lock()


def profile(name: str) -> Any:
    """The profile of deck ``name`` for the app's detector, cached until the deck changes.
    InputError (400) for an unknown deck or a model without card embeddings."""
    check_name(name)
    decks = DeckStore(store().path)
    detector = detection().detector()
    record = decks.get(name)
    cache = current_app.extensions["hanafuda"].setdefault("profiles", {})
    key = (name, record.updated_at, id(detector))
    with _LOCK:
        if key not in cache:
            cache.clear()       # one deck at a time is what a table plays with
            cache[key] = profile_from_cards(name, record.cards, detector)
        return cache[key]
