"""Card-level counting shared by the evaluations: precision/recall/F1 from counts, the
multiset match of predicted against required labels, and a slice's tally."""

from __future__ import annotations

from collections import Counter

from scorer.cards import DECK

EQUIV = [DECK[i].equivalence_key for i in range(48)]


def prf(tp, fp, fn):
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f, 4),
            "tp": int(tp), "fp": int(fp), "fn": int(fn)}


def multiset_hits(pred: list, req: list, opt: list):
    """TP, FP, FN of predicted labels against required labels (each label counted as
    often as it occurs); predictions of don't-care labels are neither TP nor FP."""
    p, r, o = Counter(pred), Counter(req), Counter(opt)
    tp = sum(min(p[k], r[k]) for k in p)
    extra = Counter({k: p[k] - min(p[k], r[k]) for k in p})
    fp = sum(max(v - o[k], 0) for k, v in extra.items())
    fn = sum(r.values()) - tp
    return tp, fp, fn


class Tally:
    """Card-level counts for one slice."""

    def __init__(self):
        self.exact = [0, 0, 0]
        self.equiv = [0, 0, 0]
        self.images = 0
        self.images_ok = 0
        self.false_cards = 0

    def add(self, pred: list[int], req: list[int], opt: list[int]) -> None:
        for key, f in (("exact", lambda i: i), ("equiv", lambda i: EQUIV[i])):
            tp, fp, fn = multiset_hits([f(i) for i in pred], [f(i) for i in req],
                                        [f(i) for i in opt])
            tot = getattr(self, key)
            for t, v in enumerate((tp, fp, fn)):
                tot[t] += v
            if key == "equiv":
                self.images += 1
                self.images_ok += int(fp == 0 and fn == 0)
                self.false_cards += fp

    def report(self) -> dict:
        return {"images": self.images, "equiv": prf(*self.equiv), "exact": prf(*self.exact),
                "images_all_correct": round(self.images_ok / max(self.images, 1), 4),
                "false_cards_per_image": round(self.false_cards / max(self.images, 1), 4)}


class Recall:
    def __init__(self):
        self.n = self.hit = 0

    def add(self, hit: bool) -> None:
        self.n += 1
        self.hit += int(hit)

    def share(self) -> float | None:
        return round(self.hit / self.n, 4) if self.n else None

    def report(self) -> dict:
        return {"cards": self.n, "recall_equiv": self.share()}
