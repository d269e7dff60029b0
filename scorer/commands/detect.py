"""`hanafuda detect`: recognise the hanafuda cards in photos."""

from __future__ import annotations

import argparse
import json
import os
import time
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
               "pixels of the image after EXIF orientation; hints advise on framing (cards "
               "too small to read well). Exit 2 for a missing, non-image or corrupt file.",
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
                             "(`hanafuda enroll`, `hanafuda decks`)")
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

    from scorer.vision import Detector, annotate, decode_image
    from scorer.vision.hints import framing_hints

    # silent: OpenCV's decoder warnings would precede our one-line error
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    if args.threads < 1:
        raise InputError("--threads must be at least 1")
    # read and decode every image first, so a bad file fails before any output
    frames = []
    for path in args.images:
        data = _read(path)
        t0 = time.perf_counter()
        try:
            img = decode_image(data)
        except InputError as exc:
            raise InputError(f"{path}: {exc}") from None
        frames.append((path, img, (time.perf_counter() - t0) * 1e3))
    det = Detector(args.model, threads=args.threads, tta=args.tta)
    profile = None
    if args.deck:
        from scorer.commands.enroll import open_decks
        from scorer.vision.profile import load_profile
        profile = load_profile(open_decks(args.db), args.deck, det)
    model_name = _display_path(det.model_path)
    for n, (path, img, decode_ms) in enumerate(frames, 1):
        d = det.detect(img, decode_ms=decode_ms, profile=profile)
        h, w = img.shape[:2]
        if args.annotate:
            out = Path(args.annotate)
            if len(frames) > 1:
                out = out.with_name(f"{out.stem}-{n}{out.suffix or '.png'}")
            import cv2
            if not cv2.imwrite(str(out), annotate(img, d)):
                raise InputError(f"cannot write {out}")
        cards = d.to_cards()
        hints = framing_hints(cards)
        if args.json:
            print(json.dumps({"image": path, "width": w, "height": h, "model": model_name,
                              "cards": cards, "hints": hints, "ms": d.timings,
                              **({"deck": args.deck} if args.deck else {})},
                             ensure_ascii=False), flush=True)
            continue
        print(f"{path}: {w}x{h}, {len(d)} card{'s' if len(d) != 1 else ''} "
              f"({d.timings['total']:.0f} ms)")
        if len(d):
            print(f"  {'code':<5}  {'card':<32}  {'conf':>5}  box")
            for c in cards:
                box = ",".join(f"{v:.0f}" for v in c["box"])
                print(f"  {c['code']:<5}  {c['name']:<32}  {c['confidence']:>5.2f}  {box}")
        for hint in hints:
            print(f"  hint: {hint}")
    return 0
