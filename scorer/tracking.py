"""One card, one code: the rule the page applies live to the camera's frames.

The page runs the same rule in ``webui/static/js/stability.js``; this is its reference,
tested in Python (``tests/test_web_stability.py``, and against the page's module in the
browser test) and run by ``bench.capture_fixes`` on filmed pile clips.

Each detected box is followed across frames as a *track* (matched by overlap with the
track's last box, moved as the whole view moved; a reading of the track's own code is
preferred, so two overlapping cards of a fan stay two tracks). A track joins the pile once
it was seen in at least ``need`` of the last ``window`` frames since it began, so one
flickering frame never changes a score.
A reading may be *weak*: a box the still-photo thresholds refuse but that the networks
still read as a card (``Reading.sure`` False). Weak readings never count towards those
``need`` frames; but a track read the same way in half its frames, ``WEAK_NEED`` of
its last ``WEAK_WINDOW`` and its code ``WEAK_SHARE`` of its readings or more, joins the
pile *unsure* (``Track.unsure``: the page marks it for one tap to accept). A card the
camera sees only now and then, or reads two ways, never joins that way.
Its code is the one with the most accumulated probability over the frames it was seen
(a rival must overtake, not merely tie), so a card whose reading flickers between two
codes lands once; when the track changes its mind, the pile changes with it. A track
that left the view keeps its code (a pile is panned over).

A live frame need not run the localiser (issue 51): ``Follower`` says, before each frame,
whether it does (every ``FOLLOW_EVERY``-th frame, and after a change of scene) or which
live tracks' outlines the server follows onto it instead (``Detector.follow``: each refined
from its last outline and classified). A followed frame that gets back fewer than
``FOLLOW_KEPT`` of its tracks is a change of scene: the next frame runs the localiser. A
new card is found on a localiser's frame, then followed like the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

WINDOW = 6          # frames a new track is judged over
NEED = 4            # frames of those it must be seen in to join the pile
IOU_MATCH = 0.2     # least overlap between a track's box and a detection of its code
IOU_SAME = 0.25     # least overlap for a reading of another code (bench/capture_fixes.py)
MAX_MISS = 4        # frames a track may go unseen and still be matched
UNSURE = 0.9        # a card read with less confidence (a track: its code's mean over its
                    # frames) is marked check. A model's confidence says how often such a
                    # read is right (scorer.vision.confidence), so this marks the reads
                    # right less than 9 times in 10; what it marks on the shift test, for
                    # the shipped model: models/MODEL_CARD.md
RIVAL = 0.5         # a runner-up reading with this share of the winner's votes is close:
                    # worth offering (a distant one was almost never the right card)
WEAK_WINDOW = 16    # frames a track with weak readings is judged over
WEAK_NEED = 8       # frames of those it must be seen in (sure or weak) to join unsure: half.
                    # A hand-held camera loses a faint card in a frame of three or more
                    # (issue 66: 8 of the last 10 never joined in 36 captures); a card
                    # glimpsed in one frame of three (5 or 6 of 16) still never joins
WEAK_SHARE = 0.8    # the least share of its readings its code must hold
FOLLOW_EVERY = 3    # the localiser runs on every this-many-th live frame; the tracks are
                    # followed on the frames between. bench/capture_fixes.py --clips 48
                    # --every 2,3 (issue 68, with weak tracks followed): fixes a pile 4.90 at
                    # 2 before, 4.96 at 3 (5 clips +1 or +2, 3 clips -1: noise); frames
                    # followed 32% -> 51%; a card laid down joins in 4.5 -> 5.0 frames
FOLLOW_KEPT = 0.5   # a followed frame that kept fewer than this share of its tracks is a
                    # change of scene: the next frame runs the localiser
FOLLOW_MAX = 60     # the most outlines one frame follows (the detect API's cap)

Box = Sequence[float]


@dataclass
class Reading:
    """One detection of one frame: its box and its code's probability."""

    code: str
    confidence: float
    box: Box
    sure: bool = True   # False: below the still-photo thresholds (a weak reading)
    quad: Sequence[Sequence[float]] | None = None   # the card's outline, when given


@dataclass
class Track:
    """One physical card followed across frames."""

    id: int
    box: Box
    votes: dict[str, float] = field(default_factory=dict)
    seen: list[bool] = field(default_factory=list)     # one flag per frame since it began
    misses: int = 0
    code: str = ""
    count: int = 1                                     # frames seen in all
    joined: int = -1                                   # order it joined the pile; -1: not yet
    sure: list[bool] = field(default_factory=list)     # per frame: seen by a sure reading
    readings: dict[str, int] = field(default_factory=dict)  # readings of each code
    unsure: bool = False                               # joined on weak readings only
    quad: Sequence[Sequence[float]] | None = None      # its last outline (moved with the view)

    @property
    def sure_hits(self) -> int:
        return sum(self.sure)

    def steady(self) -> bool:
        """Read the same way in half its frames: seen in ``WEAK_NEED`` of the last
        ``WEAK_WINDOW`` and its code ``WEAK_SHARE`` of its readings or more."""
        recent = self.seen[-WEAK_WINDOW:]
        total = sum(self.readings.values())
        return (sum(recent) >= WEAK_NEED and total > 0
                and self.readings.get(self.code, 0) >= WEAK_SHARE * total)

    @property
    def confidence(self) -> float:
        """Mean probability of its code over the frames the track was seen in."""
        return self.votes.get(self.code, 0.0) / max(1, self.count)

    @property
    def rival(self) -> str:
        """The runner-up reading when it holds at least ``RIVAL`` of the winner's votes
        (a close second), else ""."""
        best = ""
        for code in sorted(self.votes):
            if code != self.code and (not best or self.votes[code] > self.votes[best]):
                best = code
        return best if best and self.votes[best] >= RIVAL * self.votes.get(self.code, 0.0) else ""


def iou(a: Box, b: Box) -> float:
    """Intersection over union of two ``[x0, y0, x1, y1]`` boxes."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def moved(box: Box, dx: float, dy: float) -> list[float]:
    return [box[0] + dx, box[1] + dy, box[2] + dx, box[3] + dy]


def moved_quad(quad: Sequence[Sequence[float]] | None, dx: float,
               dy: float) -> list[list[float]] | None:
    return None if quad is None else [[x + dx, y + dy] for x, y in quad]


def outline(t: Track) -> list[list[float]]:
    """A track's outline as ``Detector.follow`` takes it: its last quad, else its box's
    corners (top-left first, clockwise)."""
    if t.quad is not None:
        return [[float(x), float(y)] for x, y in t.quad]
    x0, y0, x1, y1 = (float(v) for v in t.box)
    return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]


def last_sure(t: Track) -> bool:
    """Whether a track's last reading was sure (not a weak one)."""
    return not t.sure or t.sure[-1]


def centre(box: Box) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def camera_shift(tracks: Sequence[Track], readings: Sequence[Reading]) -> tuple[float, float]:
    """How far the view moved since the last frame: the median move from each track to
    the nearest reading of its code (a deck holds each card once), within a card's width
    plus height; the upper median, 0 when there is no such pair."""
    dxs: list[float] = []
    dys: list[float] = []
    for t in tracks:
        tx, ty = centre(t.box)
        reach = (t.box[2] - t.box[0]) + (t.box[3] - t.box[1])
        best = None
        for r in readings:
            if r.code != t.code:
                continue
            rx, ry = centre(r.box)
            d = abs(rx - tx) + abs(ry - ty)
            if d <= reach and (best is None or d < best[0]):
                best = (d, rx - tx, ry - ty)
        if best is not None:
            dxs.append(best[1])
            dys.append(best[2])
    if not dxs:
        return 0.0, 0.0
    return sorted(dxs)[len(dxs) // 2], sorted(dys)[len(dys) // 2]


def match(tracks: Sequence[Track], readings: Sequence[Reading],
          least: float = IOU_MATCH, same_place: float = IOU_SAME) -> list[tuple[int, int]]:
    """Greedy pairs (track index, reading index). A reading of the track's code matches at
    an overlap of ``least``, another code at ``same_place`` (one card read two ways).
    Same-code pairs first, so a fan's neighbour keeps its own track; then by overlap; ties
    go to the earlier track, then the earlier reading. The tracks' boxes must already be
    moved with the camera."""
    pairs = []
    for ti, t in enumerate(tracks):
        for ri, r in enumerate(readings):
            o = iou(t.box, r.box)
            same = t.code == r.code
            if o >= (least if same else same_place):
                pairs.append((o + (1.0 if same else 0.0), ti, ri))
    pairs.sort(key=lambda p: (-p[0], p[1], p[2]))
    used_t: set[int] = set()
    used_r: set[int] = set()
    out = []
    for _, ti, ri in pairs:
        if ti in used_t or ri in used_r:
            continue
        used_t.add(ti)
        used_r.add(ri)
        out.append((ti, ri))
    return out


def decide(votes: Mapping[str, float], current: str) -> str:
    """The code with the most votes; the current one keeps ties; else the lowest code."""
    best = current
    for code in sorted(votes):
        if not best or votes[code] > votes.get(best, 0.0):
            best = code
    return best


class StabilityTracker:
    """Feed frames one by one; ``pile`` is the codes of the tracks that joined it."""

    def __init__(self, window: int = WINDOW, need: int = NEED) -> None:
        if not 1 <= need <= window:
            raise ValueError("need must be between 1 and window")
        self.window, self.need = window, need
        self.tracks: list[Track] = []
        self.frame = 0           # frames pushed so far
        self.changed_at = 0      # the frame count when the pile last changed
        self._next_id = 0
        self._joined = 0
        self.pile: list[str] = []

    def live(self) -> list[Track]:
        """Tracks that may still be matched (seen within the last ``MAX_MISS`` frames)."""
        return [t for t in self.tracks if t.misses <= MAX_MISS]

    def push(self, readings: Iterable[Reading | Mapping]) -> list[str]:
        """Add one frame's detections; return the pile (codes, in the order they joined)."""
        frame = [r if isinstance(r, Reading) else
                 Reading(str(r["code"]), float(r["confidence"]), list(r["box"]),
                         bool(r.get("sure", True)), r.get("quad"))
                 for r in readings]
        self.frame += 1
        live = self.live()
        dx, dy = camera_shift(live, frame)
        for t in live:
            t.box = moved(t.box, dx, dy)
            t.quad = moved_quad(t.quad, dx, dy)
        matched = match(live, frame)
        got = {id(live[ti]): frame[ri] for ti, ri in matched}
        for t in live:
            reading = got.get(id(t))
            t.seen.append(reading is not None)
            t.seen = t.seen[-max(self.window, WEAK_WINDOW):]
            t.sure.append(reading is not None and reading.sure)
            t.sure = t.sure[-self.window:]
            if reading is None:
                t.misses += 1
                continue
            t.misses = 0
            t.count += 1
            t.box = reading.box
            t.quad = reading.quad
            t.votes[reading.code] = t.votes.get(reading.code, 0.0) + reading.confidence
            t.readings[reading.code] = t.readings.get(reading.code, 0) + 1
            t.code = decide(t.votes, t.code)
        taken = {ri for _, ri in matched}
        for ri, r in enumerate(frame):
            if ri not in taken:
                self.tracks.append(Track(self._next_id, r.box, {r.code: r.confidence}, [True],
                                         0, r.code, 1, sure=[r.sure], readings={r.code: 1},
                                         quad=r.quad))
                self._next_id += 1
        for t in self.tracks:
            if t.unsure and t.sure_hits >= self.need:
                t.unsure = False  # the still thresholds caught up with it
            if t.joined < 0 and t.sure_hits >= self.need:
                t.joined = self._joined
                self._joined += 1
            elif t.joined < 0 and t.steady():
                t.joined, t.unsure = self._joined, True
                self._joined += 1
        # an unseen track that can no longer join is dropped
        self.tracks = [t for t in self.tracks if t.joined >= 0 or t.misses <= MAX_MISS]
        pile = self.codes()
        if pile != self.pile:
            self.pile, self.changed_at = pile, self.frame
        return self.pile

    def joined(self) -> list[Track]:
        """The tracks in the pile, in the order they joined."""
        return sorted((t for t in self.tracks if t.joined >= 0), key=lambda t: t.joined)

    def codes(self) -> list[str]:
        out: list[str] = []
        for t in self.joined():
            if t.code not in out:
                out.append(t.code)
        return out

    def confidence(self, code: str) -> float:
        """The best confidence among the pile's tracks that read ``code`` (0 if none)."""
        return max((t.confidence for t in self.joined() if t.code == code), default=0.0)

    def unsure(self, code: str) -> bool:
        """Whether ``code`` is in the pile on weak readings only (no sure track reads it)."""
        tracks = [t for t in self.joined() if t.code == code]
        return bool(tracks) and all(t.unsure for t in tracks)

    def rival(self, code: str) -> str:
        """The runner-up reading of the surest track that reads ``code`` ("" if none)."""
        tracks = sorted((t for t in self.joined() if t.code == code),
                        key=lambda t: -t.confidence)
        return tracks[0].rival if tracks else ""

    @property
    def quiet_frames(self) -> int:
        """Frames since the pile last changed."""
        return self.frame - self.changed_at


class Follower:
    """Which live frames run the localiser, and what the others follow: ``plan`` before a
    frame, ``answered`` after its readings were pushed.

        plan = follower.plan(tracker)            # None: the localiser runs
        readings = detect(frame) if plan is None else follow(frame, follower.boxes(plan))
        tracker.push(readings); follower.answered(plan)
    """

    def __init__(self, every: int = FOLLOW_EVERY, kept: float = FOLLOW_KEPT) -> None:
        if every < 1:
            raise ValueError("every must be at least 1")
        self.every, self.kept = every, kept
        self.since = 0          # frames followed since the localiser last ran
        self.changed = True     # the scene changed (or nothing ran yet): run the localiser

    def plan(self, tracker: StabilityTracker) -> list[Track] | None:
        """The tracks to follow onto the next frame (the live ones: a card the localiser
        missed on its last frame is looked for where it was), or None when it runs the
        localiser: every ``every``-th frame, after a change of scene, while no track was
        seen in the last frame (or more than ``FOLLOW_MAX`` are live), and while a track
        read surely in the last frame has not joined the pile (a card still being judged
        is judged on the localiser's frames, as without following). A track last read
        weakly is followed (weak at best: ``Detector.follow``) until the localiser reads
        it surely (issue 68: it held the localiser on every frame of a faint pile)."""
        tracks = tracker.live()
        seen = [t for t in tracks if t.misses == 0]
        if self.changed or not seen or any(t.joined < 0 and last_sure(t) for t in seen) or \
                len(tracks) > FOLLOW_MAX or self.since + 1 >= self.every:
            return None
        return tracks

    @staticmethod
    def boxes(tracks: Sequence[Track]) -> list[dict]:
        """The planned tracks as the detect API's ``follow`` lists them: each outline, and
        ``sure`` False for a track last seen by a weak reading."""
        return [{"quad": outline(t), **({} if last_sure(t) else {"sure": False})}
                for t in tracks]

    def answered(self, plan: Sequence[Track] | None) -> None:
        """After the frame's readings were pushed: a followed frame that kept fewer than
        ``kept`` of its tracks is a change of scene (of the tracks seen in the frame
        before or in this one: one missed before that stays missed does not count)."""
        if plan is None:
            self.since, self.changed = 0, False
            return
        self.since += 1
        back = sum(t.misses == 0 for t in plan)
        self.changed = back < self.kept * sum(t.misses <= 1 for t in plan)
