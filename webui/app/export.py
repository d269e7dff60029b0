"""Export a game as CSV (one row per pile per round) or JSON, with safe file names.
Go-Stop and Matgo have their own columns: the stopper, the points by role, the calls,
the multipliers and the baks applied and escaped, with their reasons; Hachi-Hachi its
own (``webui.app.export_hachihachi``): a row a player a month, with every payment."""

from __future__ import annotations

import csv
import io
import re
from typing import Any

from webui.app import export_hachihachi

FORMATS = {"csv": "text/csv", "json": "application/json"}
CSV_FIELDS = ("game", "preset", "round", "dealer", "pile", "cards", "leftovers_taken",
              "card_points", "yaku", "penalty", "score", "round_winner", "next_dealer",
              "running_total")
GOSTOP_FIELDS = ("game", "preset", "round", "dealer", "pile", "cards", "stopped_by",
                 "outcome", "points", "gwang", "yeol", "tti", "pi", "junk", "bonus_junk",
                 "goes", "shakes", "bombs", "multipliers", "baks", "baks_escaped",
                 "penalty", "score", "round_winner", "next_dealer", "running_total")


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


def _baks(details: dict[str, Any], applies: bool) -> str:
    return "; ".join(f"{b['name']}: {b['reason']}" for b in details.get("baks", [])
                     if b["applies"] is applies)


def _gostop_row(view: dict[str, Any], rnd: dict[str, Any], owner: str, pile: dict[str, Any],
                total: Any) -> list[Any]:
    result = rnd.get("result") or {}
    res = (result.get("results") or {}).get(owner, {})
    d = res.get("details") or {}
    ctx = rnd.get("context") or {}
    by_role = d.get("points") or {}
    penalty = res.get("penalty")
    return [view["id"], view["preset"], rnd["number"], rnd["dealer"], owner,
            " ".join(pile["codes"]), ctx.get("stopped_by") or "nobody",
            ctx.get("outcome") or ("stop" if ctx.get("stopped_by") else "nagari"),
            d.get("base", res.get("card_points")), *(by_role.get(r) for r in
                                                     ("gwang", "yeol", "tti", "pi")),
            (d.get("counts") or {}).get("junk"), d.get("bonus_junk"), d.get("goes"),
            d.get("shakes"), d.get("bombs"),
            " ".join(f"×{f['factor']} {f['why']}" for f in d.get("factors", [])),
            _baks(d, True), _baks(d, False), -penalty if penalty else penalty,
            res.get("score"), result.get("winner"), result.get("next_dealer"), total]


def to_csv(view: dict[str, Any]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    game = (view.get("ruleset") or {}).get("game")
    if game == "hachihachi":
        writer.writerow(export_hachihachi.FIELDS)
        writer.writerows(export_hachihachi.rows(view, _cell))
        return out.getvalue()
    gostop = game == "gostop"
    writer.writerow(GOSTOP_FIELDS if gostop else CSV_FIELDS)
    # the totals after each confirmed round, in order (a reopened round has none yet)
    running = iter(view.get("standings", {}).get("running") or [])
    for rnd in view["rounds"]:
        result = rnd.get("result") or {}
        totals = next(running, {}) if rnd.get("confirmed") else {}
        for owner, pile in rnd["piles"].items():
            total = totals.get(owner) if isinstance(totals, dict) else None
            if gostop:
                writer.writerow([_cell(v) for v in _gostop_row(view, rnd, owner, pile, total)])
                continue
            res = (result.get("results") or {}).get(owner, {})
            yaku = "; ".join(f"{y['label']}: {y['points']} ({' '.join(y['cards'])})"
                             for y in res.get("yaku", []))
            # Sakura's lightning (gaji) user also scores the field's leftovers of its month:
            # they count in card_points, so they are listed beside the pile
            taken = [c for c in res.get("cards", []) if c not in pile["codes"]]
            penalty = res.get("penalty")
            writer.writerow([_cell(v) for v in (
                view["id"], view["preset"], rnd["number"], rnd["dealer"], owner,
                " ".join(pile["codes"]), " ".join(taken), res.get("card_points"), yaku,
                -penalty if penalty else penalty,     # as the page shows it: points lost
                res.get("score"), result.get("winner"), result.get("next_dealer"), total)])
    return out.getvalue()
