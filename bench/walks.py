"""The walks of three requests through the product's Python, traced on every thread:

    nice -n 19 .venv/bin/python -m bench.walks [--model auto|fake] [--frame JPEG]

1. a camera frame (``POST /api/detect``, 960x540 JPEG);
2. a confirmed Sakura round (``POST .../confirm``, piles saved by hand);
3. a confirmed round that teaches its deck (the game reads with an enrolled deck and
   learns; its piles came from the camera, with crops), then the first ``?deck=`` frame.

For each: the product files run (``scorer/``, ``webui/``; not the page's JS), the returns
of product functions that called another product function (a leaf helper's return is
folded into its caller's), and the calls from a ``scorer/`` function straight into a
``webui/`` one (a layer up). Runs against whatever tree is first on ``sys.path`` (the
request bodies are the API's, which both old and new trees answer). Prints the figures,
asserts nothing.
"""

from __future__ import annotations

import argparse
import base64
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import cv2
import numpy as np

CSRF = {"X-Requested-With": "hanafuda"}


class Walk:
    """A profile hook counting the product's files, folded returns and up-calls while on."""

    def __init__(self, root: Path) -> None:
        self.scorer, self.webui = str(root / "scorer") + "/", str(root / "webui") + "/"
        self.on = False
        self.lock = threading.Lock()
        self.local = threading.local()
        self.reset()

    def reset(self) -> None:
        self.files: set[str] = set()
        self.returns = 0
        self.up = 0
        self.up_calls: set[str] = set()

    def hook(self, frame: Any, event: str, arg: Any) -> None:
        if not self.on or event not in ("call", "return"):
            return
        name = frame.f_code.co_filename
        stack = getattr(self.local, "stack", None)
        if stack is None:
            stack = self.local.stack = []
        if event == "call":
            if not name.startswith((self.scorer, self.webui)):
                return
            with self.lock:
                self.files.add(name)
                if stack:
                    caller = stack[-1]
                    caller[1] = True
                    if caller[0].startswith(self.scorer) and name.startswith(self.webui):
                        self.up += 1
                        self.up_calls.add(f"{Path(caller[0]).name} -> {Path(name).name}:"
                                          f"{frame.f_code.co_name}")
            stack.append([name, False, frame])
        elif stack and stack[-1][2] is frame:
            _, called, _ = stack.pop()
            if called:
                with self.lock:
                    self.returns += 1

    def line(self, label: str, root: Path) -> str:
        names = sorted(str(Path(f).relative_to(root)) for f in self.files)
        return (f"{label:<44} files {len(names):3}  folded returns {self.returns:5}  "
                f"calls up into webui/ {self.up}" + (f" ({', '.join(sorted(self.up_calls))})"
                                                      if self.up_calls else ""))


def _url(img: np.ndarray) -> str:
    return "data:image/jpeg;base64," + base64.b64encode(
        cv2.imencode(".jpg", cv2.resize(img, (96, 150)), [cv2.IMWRITE_JPEG_QUALITY, 80])[1]
    ).decode()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="auto")
    p.add_argument("--files", action="store_true", help="list each walk's files too")
    p.add_argument("--frame", type=Path, default=None,
                   help="a JPEG camera frame (default: a 960x540 pile rendered from the art)")
    a = p.parse_args(argv)
    import scorer
    root = Path(scorer.__file__).resolve().parents[1]
    walk = Walk(root)
    sys.setprofile(walk.hook)
    threading.setprofile(walk.hook)
    from bench.load_server import club_frames
    from support.servers import make_detector
    from webui import create_app

    det, what = make_detector(a.model)
    print(f"tree {root}; detector: {what}")
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"DB_PATH": Path(tmp) / "g.db", "DETECTOR": det, "TESTING": True})
        client = app.test_client()
        frame = a.frame.read_bytes() if a.frame else club_frames(1)[0]
        jpeg = {**CSRF, "Content-Type": "image/jpeg"}

        def traced(label: str, fn: Any) -> Any:
            walk.reset()
            walk.on = True
            try:
                out = fn()
            finally:
                walk.on = False
            print(walk.line(label, root))
            if a.files:
                print("     " + " ".join(sorted(str(Path(f).relative_to(root))
                                               for f in walk.files)))
            return out

        client.post("/api/detect", data=frame, headers=jpeg)          # the model loads
        r = traced("1. camera frame", lambda: client.post("/api/detect", data=frame, headers=jpeg))
        print(f"   ({len(r.get_json()['cards'])} cards found)")

        def game(**setup: Any) -> int:
            r = client.post("/api/games", json={"players": ["Ann", "Bob"], **setup},
                            headers=CSRF)
            return int(r.get_json()["id"])

        def piles(gid: int, camera: bool) -> None:
            for owner, codes in (("Ann", ["01-2", "02-2", "03-2", "08-1"]),
                                 ("Bob", ["12-1", "09-1", "11-1"])):
                body: dict[str, Any] = {"owner": owner, "codes": codes, "version": 0}
                if camera:
                    body.update(source="camera", detected=codes,
                                crops={c: _url(np.full((150, 96, 3), 40 + 20 * i, np.uint8))
                                       for i, c in enumerate(codes)})
                assert client.put(f"/api/games/{gid}/rounds/1/piles", json=body,
                                  headers=CSRF).status_code == 200

        gid = game()
        piles(gid, camera=False)
        r = traced("2. confirmed Sakura round", lambda: client.post(
            f"/api/games/{gid}/rounds/1/confirm", json={}, headers=CSRF))
        assert r.status_code == 200, r.get_json()

        if not getattr(det, "has_embedding", False):
            print("3. (the detector has no card embeddings: no deck to teach)")
            return 0
        from scorer.store.decks import DeckCard
        cards = [DeckCard(c, np.full((det.crop_h, det.crop_w, 3), 30 + i, np.uint8), "bench")
                 for i, c in enumerate(["08-1", "01-2", "12-1"])]
        app.extensions["hanafuda"]["decks"].enrol("home", cards, det)
        gid = game(deck="home")
        piles(gid, camera=True)
        client.post("/api/detect?deck=home", data=frame, headers=jpeg)   # profile kept
        r = traced("3. confirmed round that teaches its deck", lambda: client.post(
            f"/api/games/{gid}/rounds/1/confirm", json={}, headers=CSRF))
        assert r.status_code == 200 and r.get_json()["learned"] > 0, r.get_json()
        r = traced("   then the first ?deck= frame", lambda: client.post(
            "/api/detect?deck=home", data=frame, headers=jpeg))
        print(f"   ({len(r.get_json()['cards'])} cards found)")
    sys.setprofile(None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
