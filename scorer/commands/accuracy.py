"""`hanafuda accuracy`: how well the camera read the cards in the games played so far."""

from __future__ import annotations

import argparse
import json
import sqlite3
from pathlib import Path

from scorer.errors import InputError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "accuracy", help="how well the camera read your cards, from the games played",
        description="Compare what the camera (or a photo) found in each pile with the pile "
                    "the players confirmed after fixing it by hand, over every confirmed "
                    "round in the games database: the recogniser's accuracy on your own "
                    "deck, camera and light. Piles typed in by hand are left out.",
        epilog='JSON: {"db", "piles", "cards", "exact": {"precision", "recall", "f1", "tp", '
               '"fp", "fn"}, "equivalent": {...}, "by_source": {"camera": {...}, '
               '"photo": {...}}}; "equivalent" counts a month\'s two plain chaff as the same '
               "card. Figures are null until a pile has been scored.")
    parser.add_argument("--db", type=Path, default=None,
                        help="SQLite file (default: the one `hanafuda serve` uses, "
                             "$XDG_DATA_HOME/hanafuda-scorer/games.db)")
    parser.add_argument("--json", action="store_true", help="print JSON for machines")
    parser.add_argument("--by-round", action="store_true",
                        help="one row per round number over all games (round 1 of every "
                             "game, then round 2...): does the camera get better as a game "
                             "goes on, e.g. with a deck that learns from play; "
                             "'learned': the card crops those rounds taught a deck")
    parser.set_defaults(func=_run)


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f}%"


def _run(args: argparse.Namespace) -> int:
    from scorer.field_accuracy import field_accuracy
    from scorer.store import GameStore, default_db_path

    db = args.db or default_db_path()
    if not db.is_file():
        raise InputError(f"no games database at {db} (play a game with `hanafuda serve` "
                         f"first, or give --db)")
    try:
        piles = GameStore(db).scored_piles()
    except sqlite3.DatabaseError as exc:
        raise InputError(f"{db} is not a games database ({exc})") from None
    if args.by_round:
        return _by_round(db, args.json)
    acc = field_accuracy(piles)
    if args.json:
        print(json.dumps({"db": str(db), **acc.to_dict()}))
        return 0
    if not acc.piles:
        print(f"{db}: no pile from the camera or a photo in a confirmed round yet")
        return 0
    e, x = acc.equivalent, acc.exact
    print(f"{db}: {acc.piles} pile{'s' if acc.piles != 1 else ''} from the camera or a "
          f"photo, {acc.cards} cards confirmed")
    print(f"  found right: {e.tp}; found but not in the pile: {e.fp}; missed: {e.fn}")
    print(f"  precision {_pct(e.precision)}, recall {_pct(e.recall)}, F1 {_pct(e.f1)} "
          f"(a month's plain chaff as one card; exactly: F1 {_pct(x.f1)})")
    for source, c in sorted(acc.by_source.items()):
        print(f"  {source}: precision {_pct(c.precision)}, recall {_pct(c.recall)}, "
              f"F1 {_pct(c.f1)}")
    return 0


def _by_round(db: Path, as_json: bool) -> int:
    """Accuracy per round number, over the confirmed rounds of every game."""
    from scorer.field_accuracy import field_accuracy
    from scorer.store import GameStore

    store = GameStore(db)
    rounds: dict[int, list] = {}
    learned: dict[int, int] = {}       # card crops those rounds taught the games' decks
    for summary in store.list_games(limit=100_000):
        for rnd in store.get_game(summary.id).confirmed_rounds:
            rounds.setdefault(rnd.number, []).extend(rnd.piles.values())
            learned[rnd.number] = learned.get(rnd.number, 0) + (rnd.learned or 0)
    rows = {n: field_accuracy(piles) for n, piles in sorted(rounds.items())}
    if as_json:
        print(json.dumps({"db": str(db), "rounds": [{"round": n, **a.to_dict(),
                                                     "learned": learned[n]}
                                                    for n, a in rows.items()]}))
        return 0
    if not any(a.piles for a in rows.values()):
        print(f"{db}: no pile from the camera or a photo in a confirmed round yet")
        return 0
    print(f"{'round':>5}  {'piles':>5}  {'cards':>5}  {'precision':>9}  {'recall':>6}  "
          f"{'F1':>6}  {'learned':>7}")
    for n, a in rows.items():
        e = a.equivalent
        print(f"{n:>5}  {a.piles:>5}  {a.cards:>5}  {_pct(e.precision):>9}  "
              f"{_pct(e.recall):>6}  {_pct(e.f1):>6}  {learned[n]:>7}")
    return 0
