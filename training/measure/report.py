"""Render evaluation JSON files as markdown tables (pasted into models/MODEL_CARD.md).

    python -m training.measure.report models/eval/eval-realistic-test.json models/eval/eval-test.json

The realistic test's files (``training.measure.slices``) and the old test's (``training.measure.evaluate``)
are told apart by their keys; ``--compare OLD NEW`` puts two realistic files side by side.
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


def realistic_table(res: dict, old: dict | None = None) -> str:
    from training.measure.slices import summary_rows
    new_rows = summary_rows(res)
    if old is None:
        lines = [f"**{res['tag']}** ({res['split']}, {res['per_kind_scenes']} scenes of each "
                 "kind)", "", "| figure | value |", "|---|---|"]
        return "\n".join(lines + [f"| {k.strip()} | {v} |" for k, v in new_rows])
    old_rows = dict(summary_rows(old))
    lines = [f"**{res['tag']}** ({res['split']}, {res['per_kind_scenes']} scenes of each kind)",
             "", "| figure | before | after |", "|---|---|---|"]
    return "\n".join(lines + [f"| {k.strip()} | {old_rows.get(k, '')} | {v} |"
                              for k, v in new_rows])


def render(res: dict) -> str:
    return realistic_table(res) if "realistic_framing" in res else table(res)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--compare"] and len(argv) == 3:
        old, new = (json.loads(Path(p).read_text()) for p in argv[1:])
        print(realistic_table(new, old))
        return 0
    if not argv or argv[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    for p in argv:
        print(render(json.loads(Path(p).read_text())))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
