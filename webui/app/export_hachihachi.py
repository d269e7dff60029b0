"""Hachi-Hachi's CSV rows: one a player a month, sitting out included, with the field,
the card points against 88, the teyaku and dekiyaku, every payment in words and the
month's net and running total in mon and in kan and mon."""

from __future__ import annotations

from typing import Any, Callable, Iterator

from scorer.rules.hachihachi.money import text

FIELDS = ("game", "preset", "month", "dealer", "player", "role", "cards", "field",
          "multiplier", "card_points", "over_88", "teyaku", "dekiyaku", "payments",
          "score_mon", "score", "month_winner", "next_dealer", "running_total_mon",
          "running_total")


def rows(view: dict[str, Any], cell: Callable[[Any], str]) -> Iterator[list[str]]:
    """The rows of a Hachi-Hachi game's confirmed months (and the piles of an open one)."""
    per = int((view.get("ruleset") or {}).get("options", {}).get("mon_per_kan", 12))
    running = iter(view.get("standings", {}).get("running") or [])
    for rnd in view["rounds"]:
        result = rnd.get("result") or {}
        totals = next(running, {}) if rnd.get("confirmed") else {}
        owners = list(result.get("results") or rnd["piles"])
        for owner in owners:
            res = (result.get("results") or {}).get(owner, {})
            d = res.get("details") or {}
            f = d.get("field") or {}
            yaku = res.get("yaku", [])
            names = [(y["name"], y["points"]) for y in yaku]
            tey = [f"{n} {k} kan" for (n, k), y in zip(names, yaku)
                   if y.get("label", "").startswith("Teyaku")]
            deki = [f"{n} {k} kan" for (n, k), y in zip(names, yaku)
                    if not y.get("label", "").startswith("Teyaku")]
            pays = "; ".join(f"{p['payer']} pays {p['payee']} {text(p['mon'], per)}: {p['why']}"
                             for p in d.get("payments", []))
            pile = (rnd["piles"].get(owner) or {}).get("codes") or []
            score = res.get("score")
            total = totals.get(owner) if isinstance(totals, dict) else None
            yield [cell(v) for v in (
                view["id"], view["preset"], rnd["number"], rnd["dealer"], owner,
                d.get("role", ""), " ".join(pile), f.get("name"), f.get("multiplier"),
                d.get("card_points"), d.get("over_par"), "; ".join(tey), "; ".join(deki),
                pays, score, None if score is None else text(score, per),
                result.get("winner"), result.get("next_dealer"), total,
                None if total is None else text(total, per))]
