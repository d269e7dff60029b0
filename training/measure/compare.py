"""Put two models' figures side by side, and say whether the new one may ship.

The ship rule (Recogniser v6, issue 48), against the shipped model: the new model ships
only if it is no worse on any figure and better on at least one:
- the realistic test (all kinds together and each kind) and the shift slice lose no more
  than 0.005 F1, and the shift slice's top-card and 50-80%-visible recalls no more than
  0.005 either;
- the false cards a photo on the real photographs' test part do not rise;
- at least one of those figures gains more than 0.005 (F1 or recall up, false cards a
  photo down), or the shift slice's expected calibration error of the reported
  confidence falls by more than that (the issue asks for it; it guards nothing);
- its median frame time is at most 1.05x the shipped model's, both timed alternating on
  the same frames in one run (``training.measure.timing``), never scaled from another
  run; and its files stay under the size limit.

    python -m training.measure.compare OLD_REALISTIC.json NEW_REALISTIC.json OLD_SHIFT.json \\
        NEW_SHIFT.json [--photos OLD_PHOTOS.json NEW_PHOTOS.json] [--ms MS \\
        --reference-ms MS] [--mib MIB]
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

RECALLS = ("required", "half_hidden_50_80", "partial_25_50", "top_card_of_stack",
           "under_40px", "true_outline")
BOX_SHARE = "iou_0.8"
# the shift slice's recalls the rule guards: its name in the rule, its part of the figures
SHIFT_RECALLS = {"shift top-card recall": "top_card_of_stack",
                 "shift 50-80% visible recall": "half_hidden_50_80"}


@dataclass(frozen=True)
class ShipLimits:
    slice_loss: float = 0.005  # the most any F1 or recall of the rule may lose
    gain: float = 0.005  # at least one figure must gain more than this
    speed_factor: float = 1.05  # median frame time: at most this times the shipped model's
    mib: float = 20.0  # the model files together


@dataclass(frozen=True)
class Figures:
    """One model's measured figures (``photos``, ``ms``, ``mib`` where measured;
    ``reference_ms``: the reference model's median in the run that timed ``ms``)."""
    realistic: dict
    shift: dict
    photos: dict | None = None
    ms: float | None = None
    mib: float | None = None
    reference_ms: float | None = None

    def speed_ratio(self) -> float | None:
        """``ms`` over the reference's median timed beside it."""
        return self.ms / self.reference_ms if self.ms and self.reference_ms else None


def f1(figures: dict, kind: str | None = None) -> float:
    """A realistic test's (or the shift slice's) F1 over all kinds, or of one kind."""
    part = figures["realistic_framing"] if kind is None else figures["kinds"][kind]
    return part["equiv"]["f1"]


def box_share(figures: dict, part: str = "required") -> float | None:
    """The share of ``part``'s cards whose best box sits on the card (None when the
    figures predate the measure)."""
    return figures.get("box_quality", {}).get(part, {}).get(BOX_SHARE)


def rows(old: dict, new: dict, label: str) -> list[tuple[str, float | None, float | None]]:
    """(figure, old, new) for the overall F1, each slice's F1, false cards per image of
    the clutter slice, the recalls and the box-quality shares."""
    out = [(f"{label}: F1", f1(old), f1(new)),
           (f"{label}: images all right", old["realistic_framing"]["images_all_correct"],
            new["realistic_framing"]["images_all_correct"])]
    out += [(f"{label} {k}: F1", f1(old, k), f1(new, k)) for k in old["kinds"]]
    if "clutter" in old["kinds"]:
        out.append((f"{label} clutter: false cards per image",
                    old["kinds"]["clutter"]["false_cards_per_image"],
                    new["kinds"]["clutter"]["false_cards_per_image"]))
    out += [(f"{label} recall {k}", old["recall"][k]["recall_equiv"],
             new["recall"][k]["recall_equiv"]) for k in RECALLS if k in old["recall"]]
    out += [(f"{label} boxes IoU >= 0.8, {k}", box_share(old, k), box_share(new, k))
            for k in new.get("box_quality", {})]
    return out


def recall(figures: dict, part: str) -> float | None:
    """One recall of a realistic test or the shift slice (None when not measured)."""
    return figures["recall"].get(part, {}).get("recall_equiv")


def calibration_error(figures: dict) -> float | None:
    """The expected calibration error of the reported cards' confidence (None when the
    figures predate the measure)."""
    return figures.get("calibration", {}).get("ece")


def guarded(old: Figures, new: Figures) -> list[tuple[str, float | None, float | None]]:
    """(figure, old, new) for every F1 and recall the rule keeps from falling: the
    realistic test, each of its kinds, the shift slice and the shift slice's top-card and
    50-80%-visible recalls."""
    out: list[tuple[str, float | None, float | None]] = [
        ("shift F1", f1(old.shift), f1(new.shift)),
        ("realistic F1", f1(old.realistic), f1(new.realistic))]
    out += [(f"realistic {k} F1", f1(old.realistic, k), f1(new.realistic, k))
            for k in old.realistic["kinds"]]
    out += [(name, recall(old.shift, part), recall(new.shift, part))
            for name, part in SHIFT_RECALLS.items()]
    return out


def paired_cards(old: dict, new: dict, part: str) -> tuple[int, int] | None:
    """(cards ``old`` finds and ``new`` loses, cards ``new`` finds and ``old`` lost) in
    ``part``, one of ``training.measure.slices.PAIRED_SLICES``, from two models' figures
    on the same scenes; None when either predates the card-by-card record."""
    a, b = (f.get("card_hits", {}).get(part) for f in (old, new))
    if not a or not b:
        return None
    return (sum(1 for c, hit in a.items() if hit and not b.get(c, False)),
            sum(1 for c, hit in b.items() if hit and not a.get(c, False)))


def has_card_hits(figures: dict) -> bool:
    """Whether ``figures`` record the rule's shift recalls card by card."""
    return all(part in figures.get("card_hits", {}) for part in SHIFT_RECALLS.values())


def cards_lost(old: Figures, new: Figures, name: str, loss: float) -> str:
    """For a shift recall of the rule: how many of the cards behind it ``loss`` is (one
    card is about 0.004 on the shift test) and, where both models' figures record them,
    how many the new model loses and how many it finds that the shipped one lost, so a
    failure shows its size and whether a few cards went both ways; else ""."""
    part = SHIFT_RECALLS.get(name)
    cards = old.shift["recall"].get(part, {}).get("cards") if part else None
    if not cards:
        return ""
    both = paired_cards(old.shift, new.shift, part)
    ways = (f"; {both[0]} found only by the shipped model, {both[1]} only by this one"
            if both else "")
    return f": {round(loss * cards)} of {cards} cards{ways}"


def may_ship(old: Figures, new: Figures,
             limits: ShipLimits = ShipLimits()) -> tuple[bool, list[str]]:
    """Whether ``new`` passes the ship rule against ``old`` (the shipped model); each
    failed figure, with by how much it failed."""
    failed, gains = [], []
    for name, fa, fb in guarded(old, new):
        if fa is None or fb is None:
            failed.append(f"{name} not measured on both models")
        elif fb < fa - limits.slice_loss - 1e-9:
            failed.append(f"{name} {fa:.3f} -> {fb:.3f} (loses {fa - fb:.4f}, more than "
                          f"{limits.slice_loss}{cards_lost(old, new, name, fa - fb)})")
        elif fb > fa + limits.gain + 1e-9:
            gains.append(name)
    if old.photos is not None and new.photos is not None:
        pa, pb = old.photos["false_cards_per_photo"], new.photos["false_cards_per_photo"]
        if pb > pa + 1e-9:
            failed.append(f"real-photo false cards a photo {pa:.3f} -> {pb:.3f} (must not "
                          f"rise)")
        elif pb < pa - limits.gain - 1e-9:
            gains.append("real-photo false cards")
    else:
        failed.append("real-photo false cards not measured on both models")
    ea, eb = calibration_error(old.shift), calibration_error(new.shift)
    if ea is not None and eb is not None and eb < ea - limits.gain - 1e-9:
        gains.append("shift calibration error")
    if not gains:
        failed.append(f"no figure gains more than {limits.gain}")
    ratio = new.speed_ratio()
    if ratio is None:
        failed.append("speed not timed beside the shipped model")
    elif ratio > limits.speed_factor:
        failed.append(f"median {new.ms:.1f} ms a frame beside the shipped model's "
                      f"{new.reference_ms:.1f} ({ratio:.2f}x, limit {limits.speed_factor}x)")
    if new.mib is not None and new.mib > limits.mib:
        failed.append(f"models {new.mib:.1f} MiB (limit {limits.mib:.0f} MiB)")
    return not failed, failed


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.measure.compare",
                                description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    for name in ("old_realistic", "new_realistic", "old_shift", "new_shift"):
        p.add_argument(name, help=f"{name.replace('_', ' ')} figures (JSON)")
    p.add_argument("--photos", nargs=2, metavar=("OLD", "NEW"),
                   help="real-photo false cards (python -m training photos) of each model")
    p.add_argument("--ms", type=float, help="the new model's median ms a 640x480 frame")
    p.add_argument("--reference-ms", type=float,
                   help="the shipped model's median ms in the run that timed --ms, "
                        "alternating")
    p.add_argument("--mib", type=float, help="the new model's files, MiB")
    a = p.parse_args(argv)
    try:
        old_r, new_r, old_s, new_s = (json.loads(Path(f).read_text()) for f in
                                      (a.old_realistic, a.new_realistic, a.old_shift, a.new_shift))
        old_p, new_p = (json.loads(Path(f).read_text()) for f in a.photos) if a.photos \
            else (None, None)
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print("| figure | old | new |\n|---|---|---|")
    for name, o, n in rows(old_r, new_r, "realistic") + rows(old_s, new_s, "shift"):
        print(f"| {name} | {'-' if o is None else f'{o:.3f}'} | "
              f"{'-' if n is None else f'{n:.3f}'} |")
    if old_p is not None:
        print(f"| real photos: false cards a photo | {old_p['false_cards_per_photo']:.3f} | "
              f"{new_p['false_cards_per_photo']:.3f} |")
    ok, failed = may_ship(Figures(old_r, old_s, old_p),
                          Figures(new_r, new_s, new_p, a.ms, a.mib, a.reference_ms))
    print("\nmay ship: " + ("yes" if ok else "no (" + "; ".join(failed) + ")"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
