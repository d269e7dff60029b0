"""The recipe: every setting that makes the shipped models, as data (``recipe.toml``).

``python -m training all`` runs it stage by stage; each stage is resumable. The stages:

1. scenes cached for the first stages (``[scenes]``);
2. the localiser, one or more stages, each from the last one's weights (``[[localiser]]``);
3. the classifier on jittered true-box crops (``[classifier]``);
4. the box refiner on the exported localiser's boxes (``[refiner]``);
5. classifier rounds on the crops the exported localiser (and refiner) cut
   (``[[classifier_round]]``), each from the last one's weights;
6. all three networks together on streamed realistic scenes (``[realistic]``,
   ``training.stages.realistic``);
7. a leave-one-deck-out classifier from ImageNet weights, put beside the shipped
   localiser and refiner (``[lodo]``, ``training.stages.lodo``);
8. detection settings tuned on realistic validation scenes (``[tune]``);
9. evaluation on the held-back test scenes (``[evaluate]``).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path

DEFAULT_RECIPE = Path(__file__).with_name("recipe.toml")


class RecipeError(ValueError):
    """A recipe file that cannot be used; the message names the bad entry."""


@dataclass(frozen=True)
class LocStage:
    name: str
    size: tuple[int, int]
    steps: int
    scenes: int
    lr: float
    batch: int = 16
    cycles: tuple[int, ...] = ()
    crop: tuple[int, int] | None = None


@dataclass(frozen=True)
class ClassifierConfig:
    arch: str = "lite0-b8f"
    steps: int = 4000
    batch: int = 64
    lr: float = 1.5e-3


@dataclass(frozen=True)
class ClassifierRound:
    name: str
    steps: int
    scenes: int
    lr: float
    grow: int = 0  # ImageNet blocks added as a side branch (lite0-bN classifiers only)
    refined: bool = False  # crops cut at the box refiner's boxes


@dataclass(frozen=True)
class RefinerConfig:
    steps: int = 12000
    scenes: int = 8000
    lr: float = 2e-3
    passes: int = 2


@dataclass(frozen=True)
class ExportConfig:
    int8: bool = True
    calib_scenes: int = 200
    tta_below: float = 0.45


@dataclass(frozen=True)
class RealisticConfig:
    """``training.stages.realistic.FinetuneConfig`` without the machine-dependent settings."""
    steps: int = 0  # a fixed number of steps (reproducible); 0: train for ``minutes``
    minutes: float = 4.0
    batch: int = 32
    replay: int = 3
    loc_crop: tuple[int, int] | None = None  # the localiser's training windows
    loc_lr: float = 5e-4
    ref_lr: float = 5e-4
    cls_lr: float = 1.5e-4


@dataclass(frozen=True)
class LodoConfig:
    """The leave-one-deck-out classifier (``training.stages.lodo``): trained alone on streamed
    crops of every deck but the held-out one."""
    steps: int = 0  # a fixed number of steps; 0: train for ``minutes``
    minutes: float = 60.0
    batch: int = 96  # crops per step
    lr: float = 1.5e-3
    cls_per_scene: int = 24
    arch: str = "lite0-b8f-x3"
    warmup: int = 100
    floor: float = 0.03  # the cosine's last learning rate, as a share of ``lr``


@dataclass(frozen=True)
class LiteLocConfig:
    """The localiser on ImageNet features (``training.stages.lite_loc``), on streamed scenes."""
    steps: int = 0  # a fixed number of steps (reproducible); 0: train for ``minutes``
    minutes: float = 60.0
    batch: int = 8
    replay: int = 2  # steps per fresh batch (the frozen features are computed once)
    window: tuple[int, int] = (480, 352)  # random windows of the 640x480 input (x16)
    lr: float = 2e-3
    warmup: int = 100
    floor: float = 0.05  # the cosine's last learning rate, as a share of ``lr``
    angle_weight: float = 2.0
    realistic_share: float = 0.7
    restarts: tuple[int, ...] = ()  # warm restarts (steps): a campaign's later pieces
    peaks: tuple[float, ...] = ()  # each restart's peak rate (x lr; default: half the last)
    snapshot_every: int = 1000  # fp16 weights kept every this many steps (the shift curve)
    # what real photographs punish (training.data.realistic.SceneVariation, training.data.stream)
    photo_tables: float = 0.0  # realistic scenes on a real photo of playing cards (train part)
    negatives: float = 0.0  # scenes that are such a photo alone, without hanafuda
    decoy_faces: float = 0.0  # cards whose face is no hanafuda art
    staggered: float = 0.0  # the staggered stack's weight among the pile layouts
    heaps: float = 0.0  # the heap's weight among the pile layouts (cards at their own angles)
    band_weight: float = 1.0  # loss weight of cards 50-80% visible
    closeups: float = 0.0  # the share of realistic scenes that are close-ups (0: the test's)
    int8: bool = False  # export the localiser quantised to int8 (calibrated on training frames)
    # export the mean of the weights kept from this step on (the snapshots and the last
    # ones: stochastic weight averaging over a piece's cycles); 0: the last weights
    average_from: int = 0
    # training frames the averaged batch norms are measured on; 0: the mean of the
    # snapshots' own statistics
    average_frames: int = 256


@dataclass(frozen=True)
class ShiftConfig:
    """The domain-shift slice (``training.data.shift``): never trained or tuned on."""
    per_kind: int = 100


@dataclass(frozen=True)
class TuneConfig:
    per_kind: int = 60
    loc_grid: tuple[float, ...] = (0.1, 0.15, 0.2, 0.25, 0.3)
    cls_grid: tuple[float, ...] = (0.3, 0.4, 0.5, 0.6, 0.7)
    large_box: float = 0.4  # boxes this share of the frame's height or more are close-ups
    large_grid: tuple[float, ...] = (0.0, 0.1)  # their own threshold (0: the same as others)
    large_cls_grid: tuple[float, ...] = (0.0,)  # the classifier's for them (0: the same)
    overlap_grid: tuple[float, ...] = (0.0, 0.5)  # one box per physical card above this
    # IoU (0: off)
    photos: bool = False  # the real photos' train part as scenes without cards, too
    guard: float = 0.0  # each kind's F1 at most this below the shipped model's, and no
    # more false cards on the photos (0: off; training.stages.tuning)
    fallback_guard: float = 0.0  # the kinds' guard when no setting meets ``guard`` (the
    # photos' stays; 0: none, the best pooled F1 is taken)
    shift_per_kind: int = 0  # the shift slice's validation scenes a kind (shift_val seeds):
    # with them, the choice ranks by F1 on those and the photos, a stand-in for the real
    # world; the realistic kinds only guard (0: pooled F1 over everything)
    aspect_grid: tuple[float, ...] = (0.0,)  # the card checks tried at the chosen
    span_grid: tuple[float, ...] = (0.0,)  # thresholds (scorer.vision.card_checks; 0: off)
    scale_grid: tuple[float, ...] = (0.0,)
    photo_part: str = "train"  # the photos tuning reads: the whole train part, or "val"
    # (each sitting's held-back share, which no classifier round reads)
    beside_loc_grid: tuple[float, ...] = (0.0,)  # the second pair for boxes beside the
    beside_cls_grid: tuple[float, ...] = (0.8,)  # cards (scorer.vision.beside), tried after
    beside_distance_grid: tuple[float, ...] = (1.0,)  # the card checks (loc 0: off)
    zoom_out: float = 0.0  # a second, zoomed-out look at close-up frames, this share of each
    # side as a border (scorer.vision.zoom; 0: off), on while the thresholds are tuned
    confidence_map: bool = False  # fit what the reported confidence says on the stand-in's
    # picked cards (scorer.vision.confidence), once the thresholds are chosen


@dataclass(frozen=True)
class FaceGateConfig:
    """The face gate (``training.stages.face_gate``): fitted on the boxes of realistic
    train scenes and of the real photos' train part, its threshold chosen on realistic
    validation scenes and a held-back share of the photos' train part."""
    scenes_per_kind: int = 150  # realistic train scenes a kind to fit on
    photo_weight: float = 3.0  # a real photo's box counts this many rendered negatives
    c: float = 1.0  # the logistic regression's inverse regularisation
    photo_val_share: float = 0.25  # each sitting's last share of the photos' train part
    val_per_kind: int = 120  # realistic validation scenes a kind to choose the threshold on
    grid: tuple[float, ...] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6)
    guard: float = 0.005  # each kind's validation F1 at most this below the model's without


@dataclass(frozen=True)
class RealRoundConfig:
    """The classifier round on the localiser's own boxes with real photos as "not a
    card" (``training.stages.real_round``)."""
    scenes_per_kind: int = 200  # realistic train scenes a kind whose boxes it reads
    photo_val_share: float = 0.25  # each sitting's last share of the photos' train part
    # is held back (tuning and checks), the rest gives "not a card" boxes
    steps: int = 600
    batch: int = 64
    lr: float = 1e-4
    photo_weight: float = 2.0  # a real photo's box is drawn this many times as often
    western_per_kind: int = 0  # scenes a kind of Western playing cards
    # (training.data.western) whose boxes it reads too (0: none)
    staggered: float = 0.0  # the realistic scenes' piles laid as staggered stacks, and
    heaps: float = 0.0  # as heaps, this share each (more partly hidden cards to read)
    photo_views: int = 0  # other framings of each real photo read too (closer, squeezed
    # to 4:3, turned, mirrored: training.data.boxes.photo_views)
    band_weight: float = 1.0  # a box on a card 50-80% visible is drawn this many times
    # as often
    groups: int = 0  # boxes a scene around 2-5 neighbouring cards, "not a card" (a pile's
    # box: training.data.boxes.group_rects)
    camera_jitter: float = 0.0  # this share of the crops seen through another camera
    # (detail lost, gamma, saturation, noise: augment.camera_jitter)
    cover_edge: float = 0.0  # this share of the crops has a band along an edge (20-45%
    # deep) covered by another crop's: a card lying over it (augment.cover_edge)
    keep_start: float = 0.0  # the exported weights: this share of the start's, the rest
    # the round's (an interpolation in weight space: real_round.blend_weights)


@dataclass(frozen=True)
class RefinerRoundConfig:
    """The box refiner on the shipped localiser's own boxes
    (``training.stages.refiner_round``)."""
    scenes_per_kind: int = 300  # realistic train scenes a kind whose boxes it reads
    steps: int = 3000
    batch: int = 128
    lr: float = 5e-4
    keep_start: float = 0.5  # the exported weights: this share of the start's
    # boxes on cards at least this much in sight learn the start's own correction
    # (the boxes the classifier was fitted to); 0 holds none
    hold_visible: float = 0.0


@dataclass(frozen=True)
class EvaluateConfig:
    realistic_per_kind: int = 120
    lodo_per_kind: int = 60
    old_test_scenes: int = 600
    western_per_kind: int = 60  # Western playing cards' test scenes a kind (no hanafuda)


@dataclass(frozen=True)
class Recipe:
    seed: int = 0
    lodo_set: str = "hwatu-commons"
    train_scenes: int = 4000
    val_scenes: int = 400
    localiser: tuple[LocStage, ...] = ()
    classifier: ClassifierConfig = field(default_factory=ClassifierConfig)
    refiner: RefinerConfig = field(default_factory=RefinerConfig)
    classifier_rounds: tuple[ClassifierRound, ...] = ()
    export: ExportConfig = field(default_factory=ExportConfig)
    realistic: RealisticConfig = field(default_factory=RealisticConfig)
    lodo: LodoConfig = field(default_factory=LodoConfig)
    lite_localiser: LiteLocConfig = field(default_factory=LiteLocConfig)
    shift: ShiftConfig = field(default_factory=ShiftConfig)
    tune: TuneConfig = field(default_factory=TuneConfig)
    face_gate: FaceGateConfig = field(default_factory=FaceGateConfig)
    real_round: RealRoundConfig = field(default_factory=RealRoundConfig)
    refiner_round: RefinerRoundConfig = field(default_factory=RefinerRoundConfig)
    evaluate: EvaluateConfig = field(default_factory=EvaluateConfig)


def _record(cls, data: dict, where: str):
    if not isinstance(data, dict):
        raise RecipeError(f"{where}: expected a table")
    known = {f.name: f for f in fields(cls)}
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise RecipeError(f"{where}: unknown setting(s) {', '.join(unknown)}; known: "
                          f"{', '.join(known)}")
    vals = {}
    for k, v in data.items():
        if isinstance(v, list):
            v = tuple(v)
        vals[k] = v
    try:
        rec = cls(**vals)
    except TypeError as e:
        raise RecipeError(f"{where}: {e}") from None
    for f in fields(rec):
        v = getattr(rec, f.name)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v < 0:
            raise RecipeError(f"{where}.{f.name} must not be negative: {v}")
    return rec


def _size(v, where: str) -> tuple[int, int]:
    if not (isinstance(v, tuple) and len(v) == 2 and all(isinstance(x, int) for x in v)
            and min(v) >= 32 and v[0] % 4 == 0 and v[1] % 4 == 0):
        raise RecipeError(f"{where} must be [width, height], multiples of 4 and >= 32: {v}")
    return v


def parse_recipe(data: dict) -> Recipe:
    data = dict(data)
    scenes = data.pop("scenes", {})
    locs = []
    for k, s in enumerate(data.pop("localiser", [])):
        st = _record(LocStage, s, f"localiser[{k}]")
        size = _size(st.size, f"localiser[{k}].size")
        crop = _size(st.crop, f"localiser[{k}].crop") if st.crop else None
        if crop and (crop[0] > size[0] or crop[1] > size[1]):
            raise RecipeError(f"localiser[{k}].crop {crop} is larger than its size {size}")
        locs.append(LocStage(**{**st.__dict__, "size": size, "crop": crop}))
    if not locs:
        raise RecipeError("the recipe needs at least one [[localiser]] stage")
    rounds = tuple(_record(ClassifierRound, r, f"classifier_round[{k}]")
                   for k, r in enumerate(data.pop("classifier_round", [])))
    names = [r.name for r in rounds] + [s.name for s in locs]
    if len(set(names)) != len(names):
        raise RecipeError(f"stage names must differ: {names}")
    parts = {"classifier": ClassifierConfig, "refiner": RefinerConfig, "export": ExportConfig,
             "realistic": RealisticConfig, "lodo": LodoConfig, "lite_localiser": LiteLocConfig,
             "shift": ShiftConfig,
             "tune": TuneConfig, "face_gate": FaceGateConfig,
             "real_round": RealRoundConfig, "refiner_round": RefinerRoundConfig,
             "evaluate": EvaluateConfig}
    kw = {k: _record(cls, data.pop(k, {}), k) for k, cls in parts.items()}
    if rounds and any(r.grow for r in rounds) and not kw["classifier"].arch.startswith("lite0-b"):
        raise RecipeError("classifier_round.grow needs a truncated EfficientNet-Lite0 "
                          f"classifier (lite0-bN), not {kw['classifier'].arch}")
    win = kw["lite_localiser"].window
    if not (len(win) == 2 and all(isinstance(v, int) and 32 <= v and v % 16 == 0 for v in win)
            and win[0] <= 640 and win[1] <= 480):
        raise RecipeError(f"lite_localiser.window must be [width, height], multiples of 16 "
                          f"within 640x480: {list(win)}")
    ll = kw["lite_localiser"]
    if not (0 <= ll.staggered and 0 <= ll.heaps and ll.staggered + ll.heaps < 1):
        raise RecipeError(f"lite_localiser.staggered + heaps must leave the test's pile "
                          f"layouts a share (each >= 0, together < 1): "
                          f"{ll.staggered} + {ll.heaps}")
    if not 0 < kw["export"].tta_below <= 1:
        raise RecipeError(f"export.tta_below must be in (0, 1]: {kw['export'].tta_below}")
    top = _record(Recipe, {k: v for k, v in data.items()}, "recipe")
    return Recipe(seed=top.seed, lodo_set=top.lodo_set,
                  train_scenes=int(scenes.get("train", top.train_scenes)),
                  val_scenes=int(scenes.get("val", top.val_scenes)),
                  localiser=tuple(locs), classifier_rounds=rounds, **kw)


def load_recipe(path: str | Path | None = None) -> Recipe:
    path = Path(path) if path else DEFAULT_RECIPE
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise RecipeError(f"recipe not found: {path}") from None
    except tomllib.TOMLDecodeError as e:
        raise RecipeError(f"{path}: not valid TOML: {e}") from None
    return parse_recipe(data)
