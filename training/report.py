"""Render evaluation JSON files as markdown tables (pasted into models/MODEL_CARD.md).

    python -m training.report models/eval/eval-test.json models/eval/eval-lodo-hwatu.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def table(res: dict) -> str:
    e, q = res["exact"], res["equiv"]
    lines = [
        f"**{res['tag']}** — {res['scenes']} scenes, seeds {res['seeds'][0]}..{res['seeds'][1]} "
        f"({res['split']}), art sets: {', '.join(res['sets'])}; {res['required_cards']} "
        "required cards (>= 50% visible)",
        "",
        "| metric | exact | chaff-equivalent |",
        "|---|---|---|",
        f"| precision | {e['precision']:.4f} | {q['precision']:.4f} |",
        f"| recall | {e['recall']:.4f} | {q['recall']:.4f} |",
        f"| F1 | {e['f1']:.4f} | {q['f1']:.4f} |",
        f"| TP / FP / FN | {e['tp']} / {e['fp']} / {e['fn']} | {q['tp']} / {q['fp']} / {q['fn']} |",
        f"| images with every card right | {res['images_all_correct']['exact']:.4f} | "
        f"{res['images_all_correct']['equiv']:.4f} |",
    ]
    bl = res.get("box_level_iou50")
    if bl:
        lines.append(f"| box-level F1 (IoU >= 0.5) | {bl['exact']['f1']:.4f} | "
                     f"{bl['equiv']['f1']:.4f} |")
    b = res["blurred_scenes"]
    lines.append(f"| F1, blurred scenes only | {b['exact']['f1']:.4f} | {b['equiv']['f1']:.4f} |")
    loc = res["localisation"]
    lines += ["", f"Localisation alone (class-agnostic, IoU >= 0.5): precision "
              f"{loc['precision']:.4f}, recall {loc['recall']:.4f}, F1 {loc['f1']:.4f}.", "",
              "| slice (required cards) | cards | recall exact | recall chaff-equiv |",
              "|---|---|---|---|"]
    names = {"all": "all", "upside_down": "upside down", "overlapped_40": ">= 40% hidden",
             "small_60px": "small (<= 60 px tall)", "in_blurred_scene": "in a blurred scene",
             "typical": "> 60 px tall and <= 20% hidden"}
    for k, v in res["slices_recall"].items():
        if v["cards"]:
            lines.append(f"| {names.get(k, k)} | {v['cards']} | {v['recall_exact']:.4f} | "
                         f"{v['recall_equiv']:.4f} |")
    lines += ["", "| scenes from | scenes | P | R | F1 (chaff-equiv) |", "|---|---|---|---|---|"]
    for k, v in res["per_set_equiv"].items():
        lines.append(f"| {k} | {v['scenes']} | {v['precision']:.4f} | {v['recall']:.4f} | "
                     f"{v['f1']:.4f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    for p in sys.argv[1:]:
        print(table(json.loads(Path(p).read_text())))
        print()
