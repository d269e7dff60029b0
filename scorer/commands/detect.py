"""`hanafuda detect`: recognise the hanafuda cards in photos."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from scorer.errors import InputError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "detect", help="recognise the cards in photos",
        description="Find and name every hanafuda card in each image (card localiser + "
                    "48-card classifier, onnxruntime on the CPU).",
        epilog='JSON (one object per image, one per line): {"image", "width", "height", '
               '"model", "cards": [{"code", "name", "confidence", "box": [x0,y0,x1,y1], '
               '"quad"}], "hints": ["..."], "ms": {"decode", "infer", "total", ...}}. Boxes are '
               "pixels of the image after EXIF orientation; a confidence says how often a "
               "card read so surely is right (for a model whose metadata maps it; else the "
               "classifier's probability); hints advise on framing (cards too small to read "
               "well). Exit 2 for a missing, non-image or corrupt file.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="image files (JPEG, PNG...)")
    parser.add_argument("--json", action="store_true", help="print JSON lines for machines")
    parser.add_argument("--annotate", metavar="OUT.png", default=None,
                        help="write a copy with boxes and names drawn (several images: "
                             "OUT-1.png, OUT-2.png, ...)")
    parser.add_argument("--model", metavar="PATH", default=None,
                        help="localiser .onnx (its classifier lies beside it); default: "
                             "models/hanafuda-localiser.onnx")
    parser.add_argument("--threads", type=int, default=2, metavar="N",
                        help="onnxruntime threads (default 2)")
    parser.add_argument("--tta", action=argparse.BooleanOptionalAction, default=None,
                        help="also classify each card the classifier is unsure of turned "
                             "180 degrees and average (a few ms more per frame, more "
                             "precise); default: the model's metadata (on in the shipped "
                             "model)")
    parser.add_argument("--deck", metavar="NAME", default=None,
                        help="read the cards with this enrolled deck's profile "
                             "(`hanafuda enrol`, `hanafuda decks`)")
    parser.add_argument("--db", type=Path, default=None,
                        help="the games database holding the deck (default: the one "
                             "`hanafuda serve` uses)")
    parser.set_defaults(func=_run)


def _read(path: str) -> bytes:
    p = Path(path)
    if not p.exists():
        raise InputError(f"no such file: {path}")
    if not p.is_file():
        raise InputError(f"not a file: {path}")
    try:
        return p.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from exc


def _display_path(p: Path) -> str:
    try:
        rel = os.path.relpath(p)
        return rel if not rel.startswith("..") else str(p)
    except ValueError:
        return str(p)


def _run(args: argparse.Namespace) -> int:
    import cv2

    from scorer.vision import Detector, annotate
    from scorer.vision.report import detect_report, read_frame

    # silent: OpenCV's decoder warnings would precede our one-line error
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    if args.threads < 1:
        raise InputError("--threads must be at least 1")
    # read and decode every image first, so a bad file fails before any output
    frames = []
    for path in args.images:
        data = _read(path)
        try:
            frames.append((path, read_frame(data)))
        except InputError as exc:
            raise InputError(f"{path}: {exc}") from None
    detector = Detector(args.model, threads=args.threads, tta=args.tta)
    profile = None
    if args.deck:
        from scorer.commands.enrol import open_decks
        from scorer.enrolled import EnrolledDecks
        profile = EnrolledDecks(open_decks(args.db)).profile(args.deck, detector)
    deck = {"deck": args.deck} if args.deck else {}
    model_name = _display_path(detector.model_path)
    for number, (path, frame) in enumerate(frames, 1):
        report = detect_report(detector, frame, profile)
        if args.annotate:
            out = Path(args.annotate)
            if len(frames) > 1:
                out = out.with_name(f"{out.stem}-{number}{out.suffix or '.png'}")
            if not cv2.imwrite(str(out), annotate(frame.image, report.detections)):
                raise InputError(f"cannot write {out}")
        if args.json:
            print(json.dumps({**report.to_dict(model_name, image=path), **deck},
                             ensure_ascii=False), flush=True)
            continue
        found = len(report.cards)
        print(f"{path}: {frame.width}x{frame.height}, {found} card{'s' if found != 1 else ''} "
              f"({report.ms.get('total', 0):.0f} ms)")
        if found:
            print(f"  {'code':<5}  {'card':<32}  {'conf':>5}  box")
            for card in report.cards:
                box = ",".join(f"{v:.0f}" for v in card["box"])
                print(f"  {card['code']:<5}  {card['name']:<32}  {card['confidence']:>5.2f}  "
                      f"{box}")
        for hint in report.hints:
            print(f"  hint: {hint}")
    return 0
