"""`hanafuda enrol` (also spelled `enroll`): teach the recogniser your own deck."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from scorer.errors import InputError


def db_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", type=Path, default=None,
                        help="SQLite file (default: the one `hanafuda serve` uses, "
                             "$XDG_DATA_HOME/hanafuda-scorer/games.db)")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "enrol", aliases=["enroll"], help="enrol your own deck from photos or card scans",
        description="Enrol a physical deck so that the recogniser reads it better: lay the "
                    "48 cards out month by month in rows (January's four cards first, then "
                    "February's...; e.g. four photos of 12 cards, or one photo of all 48) "
                    "and give the photos in order; or give a folder of single-card images "
                    "named by code (01-1.png ... 12-4.png, e.g. scans; a partial set is "
                    "fine: missing cards are read by the network alone). The deck is saved "
                    "in the games database; read with it by `hanafuda detect --deck NAME`.",
        epilog="Nothing is saved when the input is wrong (no cards found, a layout that "
               "is not 48 cards, a card given twice, photos out of order). --from-games "
               "adds to the deck what the camera saw in the games played (each card's "
               "newest crops are kept, at most 16 a card).",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name", metavar="NAME", help="the deck's name, e.g. nintendo")
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="layout photos (in deck order), or a folder of MM-K.png images")
    db_argument(parser)
    parser.add_argument("--from-games", action="store_true",
                        help="learn from play: add the crop of every card of the confirmed "
                             "rounds (as the players fixed and confirmed it) to the deck")
    parser.add_argument("--game", type=int, action="append", metavar="ID", default=None,
                        help="with --from-games: only this game (repeatable)")
    parser.add_argument("--add", action="store_true",
                        help="add these cards to the deck's crops (default: replace the deck)")
    parser.add_argument("--model", metavar="PATH", default=None,
                        help="localiser .onnx (default: models/hanafuda-localiser.onnx)")
    parser.add_argument("--json", action="store_true", help="print JSON for machines")
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    import cv2

    from scorer.enrolled import EnrolledDecks
    from scorer.store import default_db_path
    from scorer.store.decks import DeckCard, DeckStore, clean_name
    from scorer.vision import Detector
    from scorer.vision.enrol import enrol_paths
    from scorer.vision.profile import require_embedding

    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
    args.name = clean_name(args.name)
    det = Detector(args.model)
    require_embedding(det)
    if not args.paths and not args.from_games:
        raise InputError("give layout photos or a folder of MM-K.png card images "
                         "(or --from-games)")
    if args.game and not args.from_games:
        raise InputError("--game goes with --from-games")
    t0 = time.perf_counter()
    enrolled = enrol_paths(det, args.paths) if args.paths else []   # each read back
    cards = [DeckCard(c.code, c.crop, c.source) for c in enrolled]
    db = args.db or default_db_path()
    decks = EnrolledDecks(open_decks(db) if args.from_games else DeckStore(db))
    if args.from_games:
        cards += decks.crops_from_games(args.game, det.crop_w, det.crop_h)
    rec = decks.enrol(args.name, cards, det, replace=not (args.add or args.from_games))
    secs = time.perf_counter() - t0
    differ = {c.code: c.read_as for c in enrolled if c.read_as}
    unclear = {c.code: list(c.unclear) for c in enrolled if c.unclear}
    if args.json:
        print(json.dumps({"db": str(db), **rec.summary(), "enrolled": len(cards),
                          "seconds": round(secs, 2), "network_reads_differently": differ,
                          "unclear": unclear}))
        return 0
    verb = "added" if args.add or args.from_games else "enrolled"
    print(f"deck {rec.name!r}: {len(cards)} card crop{'s' if len(cards) != 1 else ''} "
          f"{verb} in {secs:.1f} s; the deck now has {len(rec.codes)} of 48 cards "
          f"({len(rec.cards)} crops), saved in {db}")
    if differ:
        print(f"note: the network alone reads {len(differ)} of them as another card "
              "(the profile will teach it): " +
              ", ".join(f"{k} as {v}" for k, v in differ.items()), file=sys.stderr)
    if unclear:
        print(f"look again at {len(unclear)} card{'s' if len(unclear) != 1 else ''} (retake "
              "it and enrol it again with --add): " +
              ", ".join(f"{k} ({', '.join(v)})" for k, v in unclear.items()), file=sys.stderr)
    return 0


def open_decks(db: Path | None):
    """The DeckStore of an existing database (InputError if there is none)."""
    import sqlite3

    from scorer.store import default_db_path
    from scorer.store.decks import DeckStore

    db = db or default_db_path()
    if not Path(db).is_file():
        raise InputError(f"no games database at {db} (enrol a deck with `hanafuda enrol` "
                         "first, or give --db)")
    try:
        return DeckStore(db)
    except sqlite3.DatabaseError as exc:
        raise InputError(f"{db} is not a games database ({exc})") from None
