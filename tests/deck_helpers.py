"""Shared by the deck tests (tests/test_deck_profile.py, tests/test_web_decks.py): a
detector whose classifier has card embeddings, rendered layout photos, and whether a
database holds any deck."""

from __future__ import annotations

import os
import sqlite3

from scorer.cards import CODES
from scorer.errors import InputError
from training.data.scenes import render_scene


def embedding_detector():
    """The shipped model, or the one named by $HANAFUDA_EMB_MODEL (a localiser .onnx with
    its classifier beside it), if its classifier has card embeddings; else None."""
    from scorer.vision import Detector
    env = os.environ.get("HANAFUDA_EMB_MODEL")
    for path in [None] + ([env] if env else []):
        try:
            det = Detector(path, threads=1)
        except InputError:
            continue
        if det.has_embedding:
            return det
    return None


def layouts(art_set: str, seed: int, per_photo: int = 12):
    """The deck laid out for enrolment (``scorer.vision.enrol.layout_plan``): (name, image)
    per photo of ``per_photo`` cards, in deck order."""
    return [(f"photo{i // per_photo}.png",
             render_scene(CODES[i:i + per_photo], art_set=art_set, seed=seed + i)[0])
            for i in range(0, 48, per_photo)]


def no_decks_saved(db) -> bool:
    if not db.exists():
        return True
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT COUNT(*) FROM decks").fetchone()[0] == 0
    except sqlite3.OperationalError:
        return True
    finally:
        conn.close()
