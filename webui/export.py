"""Export a game as CSV (one row per pile per round) or JSON, with safe file names."""

from __future__ import annotations

import csv
import io
import re
from typing import Any

FORMATS = {"csv": "text/csv", "json": "application/json"}
CSV_FIELDS = ("game", "preset", "round", "dealer", "pile", "cards", "leftovers_taken",
              "card_points", "yaku", "penalty", "score", "round_winner", "next_dealer",
              "running_total")


def filename(game_id: int, fmt: str) -> str:
    """``hanafuda-game-<id>.<fmt>``: built only from an integer and a known extension,
    so it can never name a path outside the download folder."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}")
    name = f"hanafuda-game-{int(game_id)}.{fmt}"
    assert re.fullmatch(r"[a-z0-9.-]+", name)
    return name


def _cell(value: Any) -> str:
    """A CSV cell that a spreadsheet will not run as a formula."""
    text = "" if value is None else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") and \
        not re.fullmatch(r"-?\d+", text) else text


def to_csv(view: dict[str, Any]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    # the totals after each confirmed round, in order (a reopened round has none yet)
    running = iter(view.get("standings", {}).get("running") or [])
    for rnd in view["rounds"]:
        result = rnd.get("result") or {}
        totals = next(running, {}) if rnd.get("confirmed") else {}
        for owner, pile in rnd["piles"].items():
            res = (result.get("results") or {}).get(owner, {})
            yaku = "; ".join(f"{y['label']} {y['points']} ({' '.join(y['cards'])})"
                             for y in res.get("yaku", []))
            # Sakura's lightning (gaji) user also scores the field's leftovers of its month:
            # they count in card_points, so they are listed beside the pile
            taken = [c for c in res.get("cards", []) if c not in pile["codes"]]
            penalty = res.get("penalty")
            writer.writerow([_cell(v) for v in (
                view["id"], view["preset"], rnd["number"], rnd["dealer"], owner,
                " ".join(pile["codes"]), " ".join(taken), res.get("card_points"), yaku,
                -penalty if penalty else penalty,     # as the page shows it: points lost
                res.get("score"), result.get("winner"), result.get("next_dealer"),
                totals.get(owner) if isinstance(totals, dict) else None)])
    return out.getvalue()
