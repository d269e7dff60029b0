"""Fixes a player needs after capturing a pile from a hand-held camera clip, under the
old live rule (each code seen in 4 of the last 6 frames; a captured code never leaves),
the tracking rule on the still thresholds' cards alone (scorer.tracking, the Python
reference of the page's stability.js: one box, one track, one code), and the same rule
with the weak readings the page asks for (``detect(weak=True)``: a card read the same way
in most frames of its track joins unsure; its tap to accept is counted apart).

Each clip is a realistic pile scene (training.data.realistic, kinds "pile" and "physical")
filmed by a shaky hand: every frame a small rotation, shift and zoom of the scene, now and
then a blurred frame, JPEG-compressed, run through the shipped detector. The fixes are what
the browser test counts: a wrong code removed, a missing card added (a misread card costs
two). The load average is printed beside the figures (a shared machine's figures are
the same, but its timings are not). Run:
OMP_NUM_THREADS=1 .venv/bin/python -m bench.capture_fixes [--clips 12] [--frames 40]

``--every 1,2,3,4`` (issue 51) replays each clip as the page films it with the localiser
on every Nth frame only (``scorer.tracking.Follower``: the tracks' outlines followed onto
the frames between by ``Detector.follow``, the localiser again after a change of scene)
and prints, per N, the fixes of the page's rule (weak readings included) and how many
frames a new card takes to join: a card well seen in the clip is hidden from its frames
until frame ``--appear`` (+0..N-1, every phase of the schedule), and counted from the
first frame it is in to the frame it joins (4 frames at 4 fps: within a second).

``--model M --art SET --deck`` (issue 67): another model, the clips of one art set only,
read with that set enrolled from its 48 card images (without ``--deck``: the same clips
without the deck), as a game with its deck reads them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import deque
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

import scorer.tracking as tracking
from scorer.tracking import NEED, WINDOW, Follower, StabilityTracker
from scorer.vision import Detector


@dataclass
class Outcome:
    wrong: int          # codes in the pile that are not in it: removes
    missing: int        # cards in the pile that are not found: adds
    hidden: int         # of those, cards under half visible (the player must spread them)

    taps: int = 0       # cards right in the pile but marked unsure: one tap to accept

    @property
    def fixes(self) -> int:
        return self.wrong + self.missing


def old_rule(frames: list[list[dict]]) -> list[str]:
    """The page's rule before tracking: per code, 4 of the last 6 frames; kept for good."""
    recent: deque[set[str]] = deque(maxlen=WINDOW)
    captured: list[str] = []
    for cards in frames:
        recent.append({c["code"] for c in cards})
        counts: dict[str, int] = {}
        for f in recent:
            for code in f:
                counts[code] = counts.get(code, 0) + 1
        for code in sorted(k for k, n in counts.items() if n >= NEED):
            if code not in captured:
                captured.append(code)
    return captured


def new_rule(frames: list[list[dict]]) -> list[str]:
    """The tracking rule on the cards the still thresholds keep (weak readings left out)."""
    return weak_rule([[c for c in cards if c.get("sure", True)] for cards in frames])[0]


def weak_rule(frames: list[list[dict]], least: float = 0.0) -> tuple[list[str], set[str]]:
    """The tracking rule on every reading, weak ones (``"sure": false``) at ``least``
    confidence or more: the pile and its codes that joined unsure."""
    t = StabilityTracker()
    for cards in frames:
        t.push([c for c in cards if c.get("sure", True) or c["confidence"] >= least])
    return list(t.pile), {c for c in t.pile if t.unsure(c)}


def misread(frames: list[list[dict]], p: float, rng: np.random.Generator) -> list[list[dict]]:
    """Make each card, with probability ``p``, an ambiguous one: every other reading of
    it, on average, names a fixed other card of its month, a little less sure — the
    issue's iris chaff that the camera read 05-4 and 05-2 in turn."""
    codes = sorted({c["code"] for cards in frames for c in cards})
    twin = {}
    for code in codes:
        if rng.random() < p:
            month, k = code.split("-")
            twin[code] = f"{month}-{rng.choice([i for i in range(1, 5) if str(i) != k])}"
    out = []
    for cards in frames:
        frame = []
        for c in cards:
            c = dict(c)
            if c["code"] in twin and rng.random() < 0.5:
                c["code"], c["confidence"] = twin[c["code"]], c["confidence"] * 0.8
            frame.append(c)
        out.append(frame)
    return out


def shaky_clip(image: np.ndarray, frames: int, rng: np.random.Generator,
               out_w: int = 960) -> list[np.ndarray]:
    """A hand-held look at ``image``: drift plus tremor in angle, position and zoom."""
    h, w = image.shape[:2]
    scale = min(1.0, out_w / max(w, h))
    ow, oh = int(round(w * scale)), int(round(h * scale))
    drift = rng.normal(0, 1, 3)
    out = []
    for i in range(frames):
        phase = i / max(1, frames - 1) - 0.5
        ang = 2.5 * np.sin(2 * np.pi * phase + drift[0]) + rng.normal(0, 0.8)
        dx = 0.03 * w * np.sin(np.pi * phase + drift[1]) + rng.normal(0, 0.006 * w)
        dy = 0.03 * h * np.cos(np.pi * phase + drift[2]) + rng.normal(0, 0.006 * h)
        zoom = 1.0 + 0.04 * np.sin(3 * phase) + rng.normal(0, 0.01)
        m = cv2.getRotationMatrix2D((w / 2, h / 2), ang, zoom)
        m[:, 2] += (dx, dy)
        frame = cv2.warpAffine(image, m, (w, h), borderMode=cv2.BORDER_REFLECT)
        if rng.random() < 0.15:                       # a blurred frame: the hand moved
            k = int(rng.integers(5, 12))
            kernel = np.zeros((k, k), np.float32)
            kernel[k // 2, :] = 1.0 / k
            frame = cv2.filter2D(frame, -1, kernel)
        frame = cv2.resize(frame, (ow, oh), interpolation=cv2.INTER_AREA)
        ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 85])
        out.append(cv2.imdecode(buf, cv2.IMREAD_COLOR))
    return out


def score(pile: list[str], truth: list[str], hidden: set[str],
          unsure: set[str] | None = None) -> Outcome:
    return Outcome(sum(c not in truth for c in pile), sum(c not in pile for c in truth),
                   sum(c not in pile and c in hidden for c in truth),
                   sum(c in truth for c in unsure or ()))


def summary(name: str, outs: list[Outcome]) -> str:
    fixes = [o.fixes for o in outs]
    return (f"{name}: {np.mean(fixes):.2f} fixes per pile (wrong {np.mean([o.wrong for o in outs]):.2f}, "
            f"missing {np.mean([o.missing for o in outs]):.2f}, of which under half visible "
            f"{np.mean([o.hidden for o in outs]):.2f}); {2 * np.mean(fixes):.1f} per "
            f"2-player round; taps to accept unsure cards {np.mean([o.taps for o in outs]):.2f} "
            f"per pile")


class FullFrames:
    """The localiser's readings of a clip's frames (``detect(weak=True)``), each computed
    once, when first needed, and shared by every schedule."""

    def __init__(self, det: Detector, images: list[np.ndarray], keep: str = "",
                 profile: Any = None) -> None:
        self.det, self.images, self.keep, self.profile = det, images, keep, profile
        self.cards: dict[int, list[dict]] = {}
        if keep and os.path.isfile(keep):
            self.cards = {int(k): v for k, v in json.load(open(keep)).items()}

    def __call__(self, i: int) -> list[dict]:
        if i not in self.cards:
            self.cards[i] = self.det.detect(self.images[i], profile=self.profile,
                                            weak=True).to_cards()
            if self.keep:
                with open(self.keep, "w") as f:
                    json.dump(self.cards, f)
        return self.cards[i]


@dataclass
class Live:
    """One replay of a clip as the page films it."""
    pile: list[str]
    unsure: set[str]
    followed: int           # frames followed (no localiser)
    frames: int
    joined_at: int | None   # the frame the hidden card joined on (None: it never did)


def live(det: Detector, full: FullFrames, every: int, first: int = 0, last: int | None = None,
         hide: str | None = None, appear: int = 0) -> Live:
    """The page's capture over frames ``first``..``last`` (exclusive) of a clip with the
    localiser on every ``every``-th frame (``Follower``), the tracker fed every reading
    (weak ones too); ``hide``: a code left out of the readings before frame ``appear``
    (a card laid down then)."""
    images = full.images
    last = len(images) if last is None else last
    tracker, follower = StabilityTracker(), Follower(every)
    followed, joined_at = 0, None
    for i in range(first, last):
        plan = follower.plan(tracker)
        if plan is None:
            cards = full(i)
        else:
            boxes = Follower.boxes(plan)
            quads = np.array([b["quad"] for b in boxes], np.float32)
            sure = np.array([b.get("sure", True) for b in boxes], bool)
            cards = det.follow(images[i], quads, sure, profile=full.profile,
                               weak=True).to_cards()
            followed += 1
        if hide is not None and i < appear:
            cards = [c for c in cards if c["code"] != hide]
        tracker.push(cards)
        follower.answered(plan)
        if hide is not None and joined_at is None and hide in tracker.pile:
            joined_at = i
    return Live(list(tracker.pile), {c for c in tracker.pile if tracker.unsure(c)},
                followed, last - first, joined_at)


def newcomer(full: FullFrames, truth: list[str], frames: int) -> str | None:
    """The card of the clip the localiser reads surely in the most frames (a card the
    join delay is measured on: its delay is the schedule's, not the detector's)."""
    seen: dict[str, int] = {}
    for i in range(frames):
        for c in full(i):
            if c.get("sure", True) and c["code"] in truth:
                seen[c["code"]] = seen.get(c["code"], 0) + 1
    return max(sorted(seen), key=lambda c: seen[c]) if seen else None


def model_key(det: Detector) -> str:
    """A short digest of the detector's three networks (what ``--keep``'s files are of)."""
    import hashlib
    h = hashlib.sha1()
    for path in (det.model_path, det.classifier_path, det.refiner_path):
        if path is not None:
            h.update(open(path, "rb").read())
    return h.hexdigest()[:10]


def load() -> str:
    return "load average " + " ".join(f"{v:.2f}" for v in os.getloadavg())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", type=int, default=36, help="pile clips (default 36)")
    ap.add_argument("--frames", type=int, default=40, help="frames per clip (default 40: 10 s)")
    ap.add_argument("--seed", type=int, default=7, help="first scene seed (default 7)")
    ap.add_argument("--misread", type=float, default=0.0, metavar="P",
                    help="make each card found, with probability P, one whose readings "
                         "alternate with a month twin (default 0: the detector as it is)")
    ap.add_argument("--every", default="", metavar="N,N...",
                    help="replay each clip with the localiser on every Nth frame only and "
                         "the tracks followed between (e.g. 1,2,3,4): fixes and join delay")
    ap.add_argument("--appear", type=int, default=12,
                    help="--every: the frame a new card appears on (then +1..N-1)")
    ap.add_argument("--keep", default="", metavar="DIR",
                    help="keep the localiser's readings of each clip in DIR (a rerun with "
                         "other schedules reads them back; the same model only)")
    ap.add_argument("--model", default=None, help="another localiser file")
    ap.add_argument("--art", default=None, metavar="SET", help="the clips of one art set only")
    ap.add_argument("--deck", action="store_true",
                    help="with --art: read the clips with that set enrolled as a deck")
    ap.add_argument("--grid", action="store_true",
                    help="also try other weak-rule settings (WEAK_NEED, WEAK_SHARE, the "
                         "least weak confidence) on the same frames")
    args = ap.parse_args()
    print(f"start: {load()} ({os.cpu_count()} cores, OMP_NUM_THREADS="
          f"{os.environ.get('OMP_NUM_THREADS', 'unset')})", flush=True)
    from training.data.realistic import realistic_scene
    from training.data.scenes import get_library

    lib = get_library()
    det = Detector(args.model)
    profile = None
    if args.deck:
        if not args.art:
            ap.error("--deck needs --art SET (the deck to enrol)")
        from scorer.vision.enrol import enrol_folder
        from scorer.vision.profile import DeckProfile
        from training import DEFAULT_ART_DIR
        enrolled = enrol_folder(DEFAULT_ART_DIR / args.art, det.crop_w, det.crop_h)
        profile = DeckProfile.from_crops(args.art, [c.code for c in enrolled],
                                         np.stack([c.crop for c in enrolled]), det)
    totals: dict[str, list[Outcome]] = {"old": [], "new": [], "weak": []}
    everies = [int(v) for v in args.every.split(",") if v.strip()]
    by_every: dict[int, list[Outcome]] = {n: [] for n in everies}
    joins: dict[int, list[int | None]] = {n: [] for n in everies}
    share: dict[int, list[float]] = {n: [] for n in everies}
    clips = []
    for k in range(args.clips):
        seed = args.seed + k
        kind = ("pile", "physical")[k % 2]
        image, cards, _ = realistic_scene(lib, seed, kind=kind,
                                          sets=[args.art] if args.art else None)
        truth = [c.code for c in cards]
        hidden = {c.code for c in cards if c.visible < 0.5}
        rng = np.random.default_rng(seed)
        # the weak readings come after the cards, which are the same as without them
        images = shaky_clip(image, args.frames, rng)
        full = FullFrames(det, images, os.path.join(
            args.keep, f"clip-{seed}-{args.frames}-{model_key(det)}.json") if args.keep else "",
            profile)
        frames = [full(i) for i in range(len(images))]
        if args.misread:
            frames = misread(frames, args.misread, rng)
        clips.append((frames, truth, hidden))
        sure = [[c for c in f if c.get("sure", True)] for f in frames]   # = det.detect(f)'s
        old, new = old_rule(sure), new_rule(sure)
        weak, unsure = weak_rule(frames)
        o, n, w = score(old, truth, hidden), score(new, truth, hidden), \
            score(weak, truth, hidden, unsure)
        totals["old"].append(o)
        totals["new"].append(n)
        totals["weak"].append(w)
        faint = sum(not c.get("sure", True) for f in frames for c in f)
        print(f"clip {k} ({kind}, {len(truth)} cards, {faint} weak readings): old {len(old)} "
              f"codes, {o.fixes} fixes; new {len(new)} codes, {n.wrong} wrong + {n.missing} "
              f"missing = {n.fixes} fixes; weak {len(weak)} codes, {w.wrong} wrong + "
              f"{w.missing} missing = {w.fixes} fixes, {len(unsure)} unsure "
              f"({sorted(c for c in unsure if c not in truth)} wrong)", flush=True)
        hide = newcomer(full, truth, len(images)) if everies else None
        for n in everies:
            run = live(det, full, n)
            o = score(run.pile, truth, hidden, run.unsure)
            by_every[n].append(o)
            share[n].append(run.followed / run.frames)
            delays = []
            for phase in range(n):
                appear = args.appear + phase
                if hide is None or appear >= len(images):
                    continue
                # the replay starts at one frame for every phase: the schedule's own
                j = live(det, full, n, max(0, args.appear - 8),
                         min(len(images), args.appear + 12 + n), hide, appear)
                delays.append(None if j.joined_at is None else j.joined_at - appear + 1)
            joins[n] += delays
            print(f"  every {n}: {o.wrong} wrong + {o.missing} missing = {o.fixes} fixes, "
                  f"{run.followed}/{run.frames} frames followed; {hide} laid down joins in "
                  f"{delays} frames ({load()})", flush=True)
    for name, outs in totals.items():
        print(summary(name, outs))
    for n in everies:
        got = [d for d in joins[n] if d is not None]
        print(summary(f"localiser every {n} frame{'s' if n > 1 else ''} "
                      f"({100 * np.mean(share[n]):.0f}% of frames followed)", by_every[n]))
        print(f"  a new card joins in {np.mean(got) if got else float('nan'):.2f} frames on "
              f"average, {max(got, default=0)} at most ({sum(d <= 4 for d in got)}/"
              f"{len(joins[n])} within 4 frames: a second at 4 fps; "
              f"{sum(d is None for d in joins[n])} never joined); {load()}")
    if args.grid:
        for need in (6, 7, 8, 9):
            for share in (0.6, 0.7, 0.8, 0.9):
                for least in (0.2, 0.3, 0.4, 0.5):
                    tracking.WEAK_NEED, tracking.WEAK_SHARE = need, share
                    outs = []
                    for frames, truth, hidden in clips:
                        pile, unsure = weak_rule(frames, least)
                        outs.append(score(pile, truth, hidden, unsure))
                    print(summary(f"weak need {need} share {share} least {least}", outs))
    print(f"end: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
