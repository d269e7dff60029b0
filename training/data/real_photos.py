"""The real photographs of playing cards (``../shared/real-photos/playing-cards``): no
hanafuda card in any of them, so they are real-texture negatives for training and a
real-photo precision check for the test.

The split is made once, by rule, from the file names: the photos come in groups taken
in one sitting (``IMG_20220921_*``, ``IMG_77xx``, ``IMG_78xx``, ``WIN_*``), named in the
order they were taken, and neighbours in a group are near-duplicates. So each group,
sorted by name, gives its first three quarters to training and its last quarter (at
least one photo) to the test: the test's photos were never next to a training photo
but at each group's one boundary.
"""

from __future__ import annotations

import functools
import math
import re
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np

from training import REPO_ROOT

DEFAULT_PHOTOS_DIR = (REPO_ROOT / ".." / "shared" / "real-photos" / "playing-cards").resolve()
TEST_SHARE = 0.25
_SUFFIXES = (".jpg", ".jpeg", ".png")


class PhotosUnavailable(FileNotFoundError):
    """The real photographs are not where they were looked for."""


def group_of(name: str) -> str:
    """The sitting a photo was taken in, from its file name."""
    m = re.match(r"(IMG_\d{8}|IMG_\d{2}|WIN_\d{8})", name)
    return m.group(1) if m else name.split("_")[0]


def split_photos(folder: str | Path = DEFAULT_PHOTOS_DIR) -> dict[str, list[Path]]:
    """``{"train": [...], "test": [...]}``: each group's last quarter by name is the
    test's. Raises ``PhotosUnavailable`` when ``folder`` holds no photos."""
    folder = Path(folder)
    images = folder / "images" if (folder / "images").is_dir() else folder
    paths = sorted(p for p in images.glob("*") if p.suffix.lower() in _SUFFIXES) \
        if images.is_dir() else []
    if not paths:
        raise PhotosUnavailable(
            f"no real photographs in {images} (they come with the project's shared data: "
            f"../shared/real-photos/playing-cards beside the repository)")
    groups: dict[str, list[Path]] = defaultdict(list)
    for p in paths:
        groups[group_of(p.name)].append(p)
    out: dict[str, list[Path]] = {"train": [], "test": []}
    for g in sorted(groups):
        members = groups[g]
        n_test = max(1, math.ceil(len(members) * TEST_SHARE))
        out["train"] += members[:-n_test]
        out["test"] += members[-n_test:]
    return out


def split_by_sitting(photos: list, share: float) -> tuple[list, list]:
    """(fit, choose): each sitting's last ``share`` of ``photos`` (the train part) is
    held back to choose thresholds with; the rest is trained or fitted on. The test part
    is never either."""
    groups: dict[str, list] = defaultdict(list)
    for p in photos:
        groups[group_of(p.name)].append(p)
    fit_part, choose_part = [], []
    for g in sorted(groups):
        members = sorted(groups[g])
        n = int(round(len(members) * share))
        fit_part += members[:len(members) - n]
        choose_part += members[len(members) - n:]
    return fit_part, choose_part


@functools.lru_cache(maxsize=4)
def encoded_photos(folder: str, part: str) -> tuple[bytes, ...]:
    """The ``part`` photos' files as bytes (decoded when drawn: a few MB, not a GB, in
    each rendering worker)."""
    return tuple(p.read_bytes() for p in split_photos(folder)[part])


def draw_photo(rng: np.random.Generator, folder: str, part: str = "train") -> np.ndarray:
    """One of the ``part`` photos (BGR uint8), drawn by ``rng``."""
    files = encoded_photos(str(folder), part)
    img = cv2.imdecode(np.frombuffer(files[int(rng.integers(len(files)))], np.uint8),
                       cv2.IMREAD_COLOR)
    if img is None:
        raise PhotosUnavailable(f"a photo in {folder} could not be decoded")
    return img


def crop_to(src: np.ndarray, rng: np.random.Generator, w: int, h: int,
            scale: tuple[float, float] = (0.5, 1.0)) -> np.ndarray:
    """A random crop of ``src`` with the aspect of ``w`` x ``h``, sometimes mirrored,
    scaled to ``w`` x ``h``."""
    sh, sw = src.shape[:2]
    s = rng.uniform(*scale)
    cw = max(int(min(sw, sh * w / h) * s), 1)
    ch = max(min(int(cw * h / w), sh), 1)
    x0, y0 = int(rng.integers(0, sw - cw + 1)), int(rng.integers(0, sh - ch + 1))
    crop = src[y0:y0 + ch, x0:x0 + cw]
    if rng.random() < 0.5:
        crop = crop[:, ::-1]
    return np.ascontiguousarray(cv2.resize(crop, (w, h), interpolation=cv2.INTER_AREA
                                           if cw > w else cv2.INTER_LINEAR))


def photo_views(img: np.ndarray, rng: np.random.Generator, views: int):
    """``img`` itself, then ``views`` other ways a camera could have framed it: a part of
    it (a closer camera), the 640x640 photo squeezed back to a 4:3 frame either way, a
    quarter turn or a half, mirrored."""
    yield img
    h, w = img.shape[:2]
    for _ in range(views):
        s = rng.uniform(0.4, 1.0)
        cw, ch = max(int(w * s), 16), max(int(h * s * rng.uniform(0.75, 1.33)), 16)
        cw, ch = min(cw, w), min(ch, h)
        x0, y0 = int(rng.integers(0, w - cw + 1)), int(rng.integers(0, h - ch + 1))
        view = img[y0:y0 + ch, x0:x0 + cw]
        view = cv2.resize(view, (640, 480) if rng.random() < 0.7 else (480, 640),
                          interpolation=cv2.INTER_AREA)
        view = np.rot90(view, int(rng.integers(4)))
        yield np.ascontiguousarray(view[:, ::-1] if rng.random() < 0.5 else view)


def photo_table(rng: np.random.Generator, w: int, h: int, folder: str,
                part: str = "train") -> np.ndarray:
    """A real table (a crop of one of the ``part`` photos, with its playing cards, hands
    and phones) scaled to ``w`` x ``h``."""
    return crop_to(draw_photo(rng, folder, part), rng, w, h, (0.75, 1.0))
