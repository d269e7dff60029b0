"""The real-photo precision check: every hanafuda card the recogniser reports in a real
photograph of playing cards (``training.data.real_photos``, the test part unless told) is a
false card."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from training.data.real_photos import group_of, photo_views, split_photos

FRAMINGS_SEED = 7  # the framings' draw, one for every model measured


def false_cards(detector, photos_dir: str | Path, part: str = "test",
                out: Path | None = None, framings: int = 0) -> dict:
    """False cards a photo over the ``part`` photos, overall and by sitting; the worst
    photos by name. With ``framings``, each photo is read instead in that many other
    framings a camera could give it (``photo_views``: closer, 4:3, turned; the same
    draw for every model) and its figure is false cards a framing. Written to ``out``
    (JSON) when given."""
    per_photo: dict[str, float] = {}
    rng = np.random.default_rng(FRAMINGS_SEED)
    for path in tqdm(split_photos(photos_dir)[part], desc=f"real photos ({part})",
                     unit="photo", mininterval=5):
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if img is None:
            continue
        frames = list(photo_views(img, rng, framings))[1 if framings else 0:]
        per_photo[path.name] = sum(len(detector.detect(f).class_id)
                                   for f in frames) / len(frames)
    groups: dict[str, list[int]] = {}
    for name, n in per_photo.items():
        groups.setdefault(group_of(name), []).append(n)
    counts = np.array(list(per_photo.values()) or [0])
    res = {"part": part, "photos": len(per_photo), "framings": framings,
           "false_cards_per_photo": round(float(counts.mean()), 4),
           "photos_with_a_false_card": int((counts > 0).sum()),
           "by_sitting": {g: {"photos": len(v), "false_cards_per_photo": round(float(np.mean(v)), 4)}
                          for g, v in sorted(groups.items())},
           "worst": sorted(per_photo.items(), key=lambda kv: -kv[1])[:10]}
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(res, indent=2) + "\n")
    return res
