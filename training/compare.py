"""Put two models' realistic-test and domain-shift figures side by side, and say whether
the new one may ship: it must beat the old on the shift slice and on every realistic
slice (F1, chaff-equivalent), as the recogniser's ship rule asks.

    python -m training.compare OLD_REALISTIC.json NEW_REALISTIC.json OLD_SHIFT.json NEW_SHIFT.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

RECALLS = ("required", "half_hidden_50_80", "partial_25_50", "top_card_of_stack",
           "under_40px", "true_outline")


def rows(old: dict, new: dict, label: str) -> list[tuple[str, float, float]]:
    """(figure, old, new) for the overall F1, each slice's F1, false cards per image of
    the clutter slice, and the recalls."""
    out = [(f"{label}: F1", old["realistic_framing"]["equiv"]["f1"],
            new["realistic_framing"]["equiv"]["f1"]),
           (f"{label}: images all right", old["realistic_framing"]["images_all_correct"],
            new["realistic_framing"]["images_all_correct"])]
    for k in old["kinds"]:
        out.append((f"{label} {k}: F1", old["kinds"][k]["equiv"]["f1"],
                    new["kinds"][k]["equiv"]["f1"]))
    if "clutter" in old["kinds"]:
        out.append((f"{label} clutter: false cards per image",
                    old["kinds"]["clutter"]["false_cards_per_image"],
                    new["kinds"]["clutter"]["false_cards_per_image"]))
    for k in RECALLS:
        if k in old["recall"]:
            out.append((f"{label} recall {k}", old["recall"][k]["recall_equiv"],
                        new["recall"][k]["recall_equiv"]))
    return out


def may_ship(old_r: dict, new_r: dict, old_s: dict, new_s: dict) -> tuple[bool, list[str]]:
    """Whether the new model beats the old on the shift slice and every realistic slice;
    the figures where it does not."""
    lost = []
    pairs = [("shift", old_s["realistic_framing"], new_s["realistic_framing"]),
             ("realistic", old_r["realistic_framing"], new_r["realistic_framing"])]
    pairs += [(f"realistic {k}", old_r["kinds"][k], new_r["kinds"][k]) for k in old_r["kinds"]]
    for name, o, n in pairs:
        if n["equiv"]["f1"] <= o["equiv"]["f1"]:
            lost.append(f"{name} F1 {o['equiv']['f1']:.3f} -> {n['equiv']['f1']:.3f}")
    return not lost, lost


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        old_r, new_r, old_s, new_s = (json.loads(Path(p).read_text()) for p in argv)
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print("| figure | old | new |\n|---|---|---|")
    for name, o, n in rows(old_r, new_r, "realistic") + rows(old_s, new_s, "shift"):
        print(f"| {name} | {o:.3f} | {n:.3f} |")
    ok, lost = may_ship(old_r, new_r, old_s, new_s)
    print("\nmay ship: " + ("yes" if ok else "no (" + "; ".join(lost) + ")"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
