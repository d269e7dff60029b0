"""What the browser test needs: scenes of known cards as a fake-camera Y4M, a detector
(the shipped model when there is one, else a stand-in that recognises the known scenes),
and the product's own server (granian) in this process."""

from __future__ import annotations

import shutil
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import cv2
import numpy as np

from scorer.cards import card

REPO = Path(__file__).resolve().parents[2]
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
WIDTH, HEIGHT = 960, 540


@dataclass
class Scene:
    codes: list[str]
    image: np.ndarray                       # BGR
    boxes: list[tuple[float, float, float, float]]


def render(codes: Sequence[str], seed: int) -> Scene:
    """The vision part's scene renderer (easy layout, one art set); a plain paste of the
    art on a table colour if it is not importable."""
    try:
        from training.data.scenes import render_scene
        image, cards = render_scene(list(codes), seed=seed, width=WIDTH, height=HEIGHT)
        return Scene(list(codes), image, [c.box for c in cards])
    except ImportError:
        return _paste(codes)


def _paste(codes: Sequence[str]) -> Scene:
    art = REPO.parent / "shared" / "card-art" / "louie-mantia"
    image = np.full((HEIGHT, WIDTH, 3), (70, 110, 60), np.uint8)
    boxes = []
    w, h = 120, 197
    for i, code in enumerate(codes):
        face = cv2.resize(cv2.imread(str(art / f"{card(code).code}.png"), cv2.IMREAD_COLOR), (w, h))
        x, y = 40 + (i % 5) * (w + 60), 40 + (i // 5) * (h + 50)
        image[y:y + h, x:x + w] = face
        boxes.append((float(x), float(y), float(x + w), float(y + h)))
    return Scene(list(codes), image, boxes)


def write_y4m(path: Path, image: np.ndarray, frames: int = 2) -> Path:
    """An I420 Y4M video showing ``image`` (Chromium's fake camera loops it)."""
    h, w = image.shape[:2]
    yuv = cv2.cvtColor(image, cv2.COLOR_BGR2YUV_I420).tobytes()
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{w} H{h} F10:1 Ip A1:1 C420jpeg\n".encode())
        for _ in range(frames):
            f.write(b"FRAME\n" + yuv)
    return path


def find_chromium() -> Path | None:
    """The browser on PATH (Debian's chromium, or another Chromium or Chrome), if any."""
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return Path(found)
    return None


def missing_browser_message() -> str:
    return ("no Chromium on PATH (looked for " + ", ".join(BROWSERS) + "): the browser test "
            "needs one (Debian: apt-get install chromium; .ci/run does it)")


class FlickerDetector:
    """Wraps a detector: every other frame, each card read ``steady`` is read ``flicker``
    instead (a little less sure) — the issue's iris chaff that the camera reads 05-4 / 05-2
    in turn. The old per-code rule put both codes in the pile."""

    def __init__(self, inner: Any, steady: str, flicker: str) -> None:
        self.inner, self.steady, self.flicker = inner, steady, flicker
        self.model_path = getattr(inner, "model_path", "flicker")
        self.calls = 0
        self.flipped = 0
        self.lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:      # the rest of the CardDetector: inner's
        return getattr(self.inner, name)

    def follow(self, image: np.ndarray, quads: Any, sure: Any = None, **kwargs: Any) -> Any:
        """Follows the page's tracks by reading the frame again (as ``detect``)."""
        return self.detect(image, **kwargs)

    def detect(self, image: np.ndarray, *args: Any, **kwargs: Any) -> Any:
        found = self.inner.detect(image, *args, **kwargs)
        with self.lock:
            self.calls += 1
            odd = self.calls % 2 == 0
        if not odd:
            return found
        flipped = found[np.arange(len(found))]          # a copy of the record
        steady = flipped.class_id == card(self.steady).class_index
        flipped.class_id[steady] = card(self.flicker).class_index
        flipped.confidence[steady] *= 0.9
        with self.lock:
            self.flipped += int(steady.sum())
        return flipped


class FaintDetector:
    """Wraps a detector: the cards it reads as ``faint`` are weak readings (``sure``
    False, read at 0.4) when the caller asks for weak readings, and are not there when it
    does not; and every ``every``-th call asking for weak readings also has one of
    ``flicker`` at ``flicker_box`` (a card glimpsed now and then, which must never join).
    It counts the calls that asked (``weak_calls``) and those that did not."""

    def __init__(self, inner: Any, faint: str, flicker: str,
                 flicker_box: Sequence[float], every: int = 3) -> None:
        self.inner, self.faint, self.flicker = inner, faint, flicker
        self.flicker_box, self.every = list(flicker_box), every
        self.model_path = getattr(inner, "model_path", "faint")
        self.weak_calls = self.plain_calls = 0
        self.lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:      # the rest of the CardDetector: inner's
        return getattr(self.inner, name)

    def follow(self, image: np.ndarray, quads: Any, sure: Any = None, **kwargs: Any) -> Any:
        """Follows the page's tracks by reading the frame again (as ``detect``)."""
        return self.detect(image, **kwargs)

    def detect(self, image: np.ndarray, profile: Any = None, crops: bool = False,
               weak: bool = False) -> Any:
        from support.fakes import detections_of
        from scorer.vision import Detections
        found = self.inner.detect(image, profile=profile, crops=crops)
        faint = found.class_id == card(self.faint).class_index
        with self.lock:
            self.weak_calls += weak
            self.plain_calls += not weak
            glimpse = weak and self.weak_calls % self.every == 0
        if not weak:
            return found[~faint]
        seen = found[faint]
        seen.confidence[:] = 0.4
        seen.sure = np.zeros(len(seen), bool)
        parts = [found[~faint], seen]
        if glimpse:
            parts.append(detections_of([{"code": self.flicker, "box": self.flicker_box,
                                         "confidence": 0.3, "sure": False}], image, crops))
        return Detections.join(parts)


class SceneDetector:
    """Stand-in for the model while none is shipped: finds which known scene a frame
    shows (by image distance, so the frames really come from the camera) and returns that
    scene's cards with their boxes scaled to the frame. Anything else: no cards."""

    model_path = "scene-stand-in"
    classifier_path = None
    crop_w, crop_h, useful_side, has_embedding, has_cells = 72, 112, 1920, False, False

    def embed(self, crops: Any) -> Any:
        return None

    def cells(self, crops: Any) -> Any:
        return None

    def __init__(self, scenes: Sequence[Scene]) -> None:
        self.scenes = list(scenes)
        self.small = [cv2.resize(s.image, (96, 54), interpolation=cv2.INTER_AREA).astype(np.float32)
                      for s in self.scenes]

    def follow(self, image: np.ndarray, quads: Any, sure: Any = None, **kwargs: Any) -> Any:
        """Follows the page's tracks by reading the frame again (as ``detect``)."""
        return self.detect(image, **kwargs)

    def detect(self, image: np.ndarray, *args: Any, **kwargs: Any) -> Any:
        from support.fakes import detections_of
        h, w = image.shape[:2]
        small = cv2.resize(image, (96, 54), interpolation=cv2.INTER_AREA).astype(np.float32)
        dists = [float(np.abs(small - s).mean()) for s in self.small]
        best = int(np.argmin(dists))
        if dists[best] > 25:
            return detections_of([], image)
        scene = self.scenes[best]
        sx, sy = w / scene.image.shape[1], h / scene.image.shape[0]
        return detections_of([
            {"code": c, "name": card(c).name, "confidence": 0.95,
             "box": [b[0] * sx, b[1] * sy, b[2] * sx, b[3] * sy]}
            for c, b in zip(scene.codes, scene.boxes)], image, kwargs.get("crops", False))


def shipped_detector() -> Any | None:
    """The real detector on the shipped model, or None while models/ has none.
    A model that is there but does not load fails the test."""
    from scorer.vision import Detector, default_model_path
    if not default_model_path().is_file():
        return None
    return Detector()


class ServerThread:
    """The app on ``hanafuda serve``'s own server (granian with the guard), in this
    process on a free loopback port."""

    def __init__(self, app) -> None:
        from webui.net.server import make_server
        self.server = make_server(app, "127.0.0.1", 0, 4)
        self.url = f"http://127.0.0.1:{self.server.effective_port}"

    def __enter__(self) -> "ServerThread":
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.close()
        forget_tasks_of_a_stopped_runtime()


def forget_tasks_of_a_stopped_runtime() -> None:
    """granian's runtime, run in this process, leaves task objects in asyncio's registry
    that were never given a loop; playwright's closing asks each for its loop and fails.
    Forget those (a test served in-process only; ``hanafuda serve`` has no other loop)."""
    import asyncio.tasks as tasks
    for task in list(tasks._all_tasks):
        try:
            task.get_loop()
        except RuntimeError:
            tasks._all_tasks.discard(task)


def chromium_args(y4m: Path) -> list[str]:
    return ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
            f"--use-file-for-fake-video-capture={y4m.resolve()}"]
