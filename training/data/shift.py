"""The domain-shift slice: scenes built from what the localiser never trained on.

Real photographs cost the detector more than the realistic test predicted, so this
slice changes everything a render can change at once, and is kept out of training and
tuning alike (its own seed range, ``SEED_RANGES['shift_test']``):

- the card art is the held-out set (``hwatu-commons``: the localiser and the refiner
  never see it), always as a physical deck;
- the tables are real photographs: the sample images scikit-image and scikit-learn ship
  (bricks, gravel, grass, a coffee cup, a cat, a street...), cropped and scaled; the
  training tables are all procedural;
- the light falls from another side: a strong directional gradient, a colour cast and a
  gamma, in place of the training's lighting;
- another camera: signal-dependent (Poisson-Gaussian) sensor noise with coarse chroma
  noise, defocus or motion blur, a phone's down-and-up resampling, and WebP or
  low-quality JPEG, in place of the training's albumentations chain.

The pile layouts, card counts and clutter counts are the realistic test's
(``training.data.realistic``: ``pile_layout``, ``card_count``, ``clutter_count``) so a drop
here is a drop from the shift, not from harder layouts. Training never draws these
tables, this light or this camera.
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

import cv2
import numpy as np

from training.data.real_photos import crop_to
from training.data.realistic import (FRAMING_WEIGHTS, FRAMINGS, add_real_clutter, card_count,
                                clutter_count, pile_layout)
from training.data.scenes import ArtLibrary, SceneCard, SceneInfo, compose_scene

SHIFT_KINDS: tuple[str, ...] = ("pile", "closeup", "clutter", "upside_down")
HELD_OUT_SET = "hwatu-commons"
# the colour photographs shipped inside the two wheels (no download)
_SKIMAGE = ("astronaut.png", "brick.png", "chelsea.png", "coffee.png", "grass.png",
            "gravel.png", "motorcycle_left.png", "rocket.jpg", "color.png", "hubble_deep_field.jpg")
_SKLEARN = ("china.jpg", "flower.jpg")


class ShiftUnavailable(RuntimeError):
    """scikit-image or scikit-learn (the real table photographs) is not installed."""


@functools.lru_cache(maxsize=1)
def table_photos() -> tuple[np.ndarray, ...]:
    """The real photographs used as tables (BGR uint8)."""
    paths = []
    for pkg, folder, names in (("skimage", ("data",), _SKIMAGE),
                               ("sklearn", ("datasets", "images"), _SKLEARN)):
        spec = importlib.util.find_spec(pkg)  # found, not imported: only their files
        if spec is None or not spec.submodule_search_locations:
            raise ShiftUnavailable("the domain-shift slice needs scikit-image and "
                                   "scikit-learn (pip install -e '.[train]')")
        paths += [Path(spec.submodule_search_locations[0], *folder, n) for n in names]
    out = []
    for p in paths:
        img = cv2.imread(str(p), cv2.IMREAD_COLOR)
        if img is not None and min(img.shape[:2]) >= 200:
            out.append(img)
    if not out:
        raise ShiftUnavailable("no sample photographs found in scikit-image / scikit-learn")
    return tuple(out)


def photo_table(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """A random crop of one of the sample photographs, scaled to ``w`` x ``h``."""
    photos = table_photos()
    return crop_to(photos[int(rng.integers(len(photos)))], rng, w, h)


def side_light(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Light from one side: a linear gradient across the frame, a colour cast, a gamma."""
    h, w = img.shape[:2]
    ang = rng.uniform(0, 2 * np.pi)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    t = ((xs / w - 0.5) * np.cos(ang) + (ys / h - 0.5) * np.sin(ang)) * 2  # -1..1
    strength = rng.uniform(0.25, 0.55)
    gain = 1.0 + strength * t
    cast = np.array([rng.uniform(0.8, 1.1), rng.uniform(0.9, 1.05), rng.uniform(0.85, 1.2)],
                    np.float32)
    x = img.astype(np.float32) / 255.0
    x = x ** rng.uniform(0.8, 1.3)
    x = x * gain[..., None] * cast
    return np.clip(x * 255, 0, 255).astype(np.uint8)


def other_camera(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Another camera: blur, sensor noise, resampling and a codec unlike training's."""
    h, w = img.shape[:2]
    x = img
    r = rng.random()
    if r < 0.35:  # defocus: a disc kernel
        k = int(rng.integers(2, 5)) * 2 + 1
        disc = np.zeros((k, k), np.float32)
        cv2.circle(disc, (k // 2, k // 2), k // 2, 1.0, -1)
        x = cv2.filter2D(x, -1, disc / disc.sum())
    elif r < 0.6:  # motion: a line kernel
        k = int(rng.integers(5, 12))
        line = np.zeros((k, k), np.float32)
        a = rng.uniform(0, np.pi)
        c = k // 2
        cv2.line(line, (int(c - c * np.cos(a)), int(c - c * np.sin(a))),
                 (int(c + c * np.cos(a)), int(c + c * np.sin(a))), 1.0, 1)
        x = cv2.filter2D(x, -1, line / max(line.sum(), 1e-6))
    f = x.astype(np.float32) / 255.0
    photons = rng.uniform(60, 400)  # signal-dependent shot noise
    f = rng.poisson(np.clip(f, 0, 1) * photons) / photons
    f = f + rng.normal(0, rng.uniform(0.005, 0.02), f.shape)  # read noise
    chroma = rng.normal(0, rng.uniform(0.01, 0.04), (max(h // 8, 1), max(w // 8, 1), 3))
    f = f + cv2.resize(chroma.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    x = np.clip(f * 255, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:  # a phone's resampling
        s = rng.uniform(0.45, 0.75)
        small = cv2.resize(x, (max(int(w * s), 16), max(int(h * s), 16)),
                           interpolation=cv2.INTER_NEAREST)
        x = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    if rng.random() < 0.5:
        ok, buf = cv2.imencode(".webp", x, [cv2.IMWRITE_WEBP_QUALITY, int(rng.integers(25, 70))])
    else:
        ok, buf = cv2.imencode(".jpg", x, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(20, 45))])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else x


def shift_scene(lib: ArtLibrary, seed: int, kind: str | None = None, sets=None
                ) -> tuple[np.ndarray, list[SceneCard], SceneInfo]:
    """One domain-shift scene (``sets``: the art to use; default the held-out set)."""
    rng = np.random.default_rng(seed)
    if kind is None:
        kind = SHIFT_KINDS[int(rng.integers(len(SHIFT_KINDS)))]
    if kind not in SHIFT_KINDS:
        raise ValueError(f"unknown shift kind {kind!r}; one of {', '.join(SHIFT_KINDS)}")
    sets = list(sets) if sets else [HELD_OUT_SET]
    art = sets[int(rng.integers(len(sets)))]
    w, h = FRAMINGS[rng.choice(len(FRAMINGS), p=FRAMING_WEIGHTS)]
    n = card_count(rng, kind)
    cids, positions, card_h = pile_layout(rng, kind, n, w, h)
    bg = photo_table(rng, w, h)
    n_clutter = clutter_count(rng, kind)
    if n_clutter:
        add_real_clutter(bg, rng, lib, card_h, n_clutter)
    img, cards, info = compose_scene(lib, rng, [(art, c) for c in cids], w, h, card_h=card_h,
                                     positions=positions, physical=True, background=bg,
                                     photometric=False,
                                     perspective=rng.uniform(0.02, 0.1))
    img = other_camera(side_light(img, rng), rng)
    info.kind, info.portrait, info.blurred = kind, h > w, True
    return img, cards, info
