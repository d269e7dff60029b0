"""Deck profiles: the player's own deck, enrolled once, read with every frame.

A profile holds prototype embeddings of each enrolled card (several per card allowed:
each enrolled crop and the crop turned 180 degrees, since a crop may come out upside
down). ``DeckProfile.adjust`` combines the classifier's probabilities with the crop's
cosine similarity to the prototypes, as a product of experts over the enrolled cards:

    score(card) = (1 - weight) * log p(card) + weight * similarity(card) / temperature

which only orders the enrolled cards: the network's own probabilities over them are
handed out in that order (the likeliest card by the blend gets the network's highest,
and so on). So the profile re-ranks what the network finds plausible, and never makes
a card surer than the network was of its best: a box the network's thresholds would
drop stays dropped, and a phantom stays as unsure as it was (issue 48: a profile helps
or stays out of the way). The not-a-card class and the cards the profile lacks keep the
network's probabilities (a partial profile falls back to the network). Crops the network is at
least ``confident`` sure of keep its reading, and so does a crop whose best similarity
is under ``min_similarity`` (the "unknown" margin: it looks like no card of the deck).

The numbers were chosen on validation scenes (``python -m training.measure.deck_profile --tune``).

With a classifier that has cell maps (``scorer.vision.cells``), a profile also holds its
cards' cells: ``read`` then gives the similarity the deck decides with
(``scorer.vision.decision.deck_decides``), which a half-hidden card still reaches.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from scorer.cards import CODES, card
from scorer.errors import InputError
from scorer.vision.cells import CellPrototypes

NUM_CARDS = 48
# chosen on the validation seeds for the shipped classifier (recogniser v6's third ship),
# each art set enrolled from its 48 card images as scans, by `python -m
# training.measure.deck_profile --split val --per-kind 20 --enrol scans --tune`: among the
# settings that lower no set's figure and no kind of scene with its own profile, the best
# mean gain with it (+0.0007), ties to the least loss with a wrong one (0). The earlier
# 0.5 / 0.1 / 0.65 / 0.8, chosen for the eighth model's classifier, lost 0.0013 on average
# and 0.026 on a slice with this one. On the test seeds: own profiles 0, 0, 0 and -0.0015,
# wrong ones at worst -0.0015 (the earlier setting: -0.0056 and -0.0051). Leaning harder
# on the prototypes helps a weak classifier but costs a trained one on decks it knows.
# The unknown margin sits between the 5th percentile (0.57-0.60) and the median
# (0.79-0.85) of a deck's crops' best similarity to its own profile; the gate at 0.6
# leaves the network's surer readings alone.
BLEND_WEIGHT = 0.25
TEMPERATURE = 0.05
MIN_SIMILARITY = 0.75
CONFIDENT = 0.6
PARTIAL_VIEWS = 8   # a card's partial views a profile reads to learn its floor
CELL_CROPS = 2      # a card's crops whose cells a profile holds: its first and its latest


def require_embedding(detector) -> None:
    """InputError (one line) when the detector's classifier has no embedding output."""
    if not detector.has_embedding:
        name = getattr(detector.classifier_path, "name", None) or "the classifier"
        raise InputError(f"deck profiles need a classifier with card embeddings; {name} has "
                         "none (install a newer model)")


def model_key(detector) -> str:
    """Identifies the classifier whose embeddings a profile holds (embeddings of another
    model mean nothing): a hash of its file."""
    path = Path(detector.classifier_path)
    st = path.stat()
    key = (str(path), st.st_size, st.st_mtime_ns)
    if key not in _KEYS:
        _KEYS[key] = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    return _KEYS[key]


_KEYS: dict[tuple, str] = {}


def turned(crops: np.ndarray) -> np.ndarray:
    """(N,H,W,3) crops turned 180 degrees."""
    return np.ascontiguousarray(crops[:, ::-1, ::-1])


def embed_crops(detector, crops: np.ndarray) -> np.ndarray:
    """(N,D) embeddings of upright crops, (2N,D) with each crop then its 180-degree turn."""
    require_embedding(detector)
    if not len(crops):
        return np.zeros((0, 0), np.float32)
    both = np.concatenate([crops, turned(crops)])
    return detector.embed(both).astype(np.float32)


@dataclass
class DeckProfile:
    """Per-card prototype embeddings (``codes[i]`` names ``embeddings[i]``)."""

    name: str
    codes: list[str]
    embeddings: np.ndarray
    weight: float = BLEND_WEIGHT
    temperature: float = TEMPERATURE
    min_similarity: float = MIN_SIMILARITY
    confident: float = CONFIDENT
    # each of the deck's own partial views' similarity to its card (``calibrated``):
    # how alike a half-hidden card of this deck looks to this model
    own: np.ndarray | None = None
    # the enrolled crops' cell maps, for classifiers that have them (``read``)
    cells: CellPrototypes | None = None
    _ids: np.ndarray = field(init=False, repr=False)
    _grouped: np.ndarray = field(init=False, repr=False)
    _starts: np.ndarray = field(init=False, repr=False)
    _cards: list[str] = field(init=False, repr=False)
    # ``floor``'s quantiles by share, and the ``own`` they were taken of
    _floors: dict[float, float] = field(init=False, repr=False, default_factory=dict)
    _floors_of: np.ndarray | None = field(init=False, repr=False, default=None)

    def __post_init__(self) -> None:
        self.codes = [card(c).code for c in self.codes]
        self.embeddings = np.asarray(self.embeddings, np.float32).reshape(len(self.codes), -1)
        ids = np.array([card(c).class_index for c in self.codes], np.int64)
        # the prototypes grouped by card, so a frame takes each card's best in one pass
        # (a full deck holds 16 crops a card, each twice: 1,536 prototypes)
        order = np.argsort(ids, kind="stable")
        self._grouped = np.ascontiguousarray(self.embeddings[order].T)
        self._ids, self._starts = np.unique(ids[order], return_index=True)
        held = set(self.codes)
        self._cards = [c for c in CODES if c in held]

    @classmethod
    def from_crops(cls, name: str, codes: list[str], crops: np.ndarray, detector,
                   **kw) -> "DeckProfile":
        """A profile from upright crops of named cards (each crop gives two prototypes)."""
        emb = embed_crops(detector, crops)
        profile = cls(name, list(codes) * 2, emb, cells=cell_prototypes(detector, codes, crops),
                      **kw)
        return calibrated(profile, codes, crops, detector)

    @property
    def decides(self) -> bool:
        """Whether the deck decides what is a card (``deck_decides``): with cell maps."""
        return self.cells is not None

    def read(self, probs: np.ndarray, emb: np.ndarray | None, cells: np.ndarray | None
             ) -> tuple[np.ndarray, np.ndarray]:
        """What this profile makes of the classifier's reading of N crops (``probs``,
        ``emb``, ``cells``): their probabilities, and their (N,48) similarity to the
        enrolled cards (``Detections.similarity``). A profile that decides matches the
        crops' cells with its cards' (``scorer.vision.cells``) and leaves the
        probabilities as they are (its decision names the cards: re-ranking them as well
        moved the stand-in's F1 by 0.0008); one without cells re-ranks the probabilities
        with the embeddings (``adjust``) and gives their cosine similarity."""
        if self.cells is not None and cells is not None:
            return probs, self.cells.similarity(cells)
        sim = self.similarity(emb) if emb is not None else \
            np.full((len(probs), NUM_CARDS), -np.inf, np.float32)
        return self.adjust(probs, emb, sim), sim

    def floor(self, share: float) -> float | None:
        """The similarity all but ``share`` of the deck's own partial views reach (None
        when the profile was not calibrated). Every frame read with the deck asks for it:
        each share's quantile of the ~400 views is taken once, and again only when
        ``own`` is replaced (``calibrated`` sets a new array; none is changed in place)."""
        if self.own is None or not len(self.own):
            return None
        if self._floors_of is not self.own:     # calibrated anew: the old floors are stale
            self._floors, self._floors_of = {}, self.own
        if share not in self._floors:
            self._floors[share] = float(np.quantile(self.own, share))
        return self._floors[share]

    @property
    def cards(self) -> list[str]:
        """The enrolled cards, in deck order."""
        return self._cards

    def similarity(self, emb: np.ndarray) -> np.ndarray:
        """(N,48) best cosine similarity of each embedding to each card's prototypes
        (-inf for cards not enrolled)."""
        # numpy's own loop, not the BLAS: its threads wait for the cores onnxruntime's
        # threads still hold after the classifier ran (a frame of 20 cards on a full deck:
        # 0.6 ms, against 2.3 ms through the BLAS on this 2-core machine)
        sims = np.einsum("nd,dk->nk", np.asarray(emb, np.float32), self._grouped,
                         optimize=False)
        out = np.full((len(sims), NUM_CARDS), -np.inf, np.float32)
        if len(sims):
            out[:, self._ids] = np.maximum.reduceat(sims, self._starts, axis=1)
        return out

    def adjust(self, probs: np.ndarray, emb: np.ndarray | None,
               sim: np.ndarray | None = None) -> np.ndarray:
        """The network's (N,49) probabilities combined with this profile (see the module);
        ``sim``: ``similarity(emb)`` when the caller has it already."""
        if emb is None:
            raise InputError("deck profiles need a classifier with card embeddings; this "
                             "one has none (install a newer model)")
        probs = np.asarray(probs, np.float32)
        if not len(probs) or not len(self.codes):
            return probs
        sim = self.similarity(emb) if sim is None else sim
        enrolled = np.isfinite(sim[0])
        s = sim[:, enrolled]
        use = (s.max(1) >= self.min_similarity) & (probs.max(1) < self.confident)
        net = probs[:, :NUM_CARDS][:, enrolled]
        mass = net.sum(1, keepdims=True)
        logit = (1 - self.weight) * np.log(net / np.maximum(mass, 1e-12) + 1e-12) + \
            self.weight * s / self.temperature
        order = np.argsort(-logit, axis=1, kind="stable")  # the blend's ranking
        values = -np.sort(-net, axis=1)                    # the network's, highest first
        ranked = np.empty_like(net)
        np.put_along_axis(ranked, order, values, axis=1)
        out = probs.copy()
        out[:, np.nonzero(enrolled)[0]] = ranked
        return np.where(use[:, None], out, probs).astype(np.float32)


def first_and_latest(codes: Sequence[str], most: int = CELL_CROPS) -> list[int]:
    """The indices into ``codes`` of up to ``most`` crops of each card: its first and its
    latest (in the order of ``codes``), in that order."""
    by_card: dict[int, list[int]] = {}
    for i, c in enumerate(codes):
        by_card.setdefault(card(c).class_index, []).append(i)
    return sorted(i for rows in by_card.values()
                  for i in (rows if len(rows) <= most else rows[:1] + rows[1 - most:]))


def cell_prototypes(detector, codes: Sequence[str], crops: np.ndarray
                    ) -> CellPrototypes | None:
    """The cells of each card's first and latest crops (``first_and_latest``), upright and
    turned 180 degrees; None when the detector's classifier has no cell maps."""
    chosen = first_and_latest(codes)
    if not chosen:
        return None
    picked = np.stack([crops[i] for i in chosen])
    maps = detector.cells(np.concatenate([picked, turned(picked)]))
    if maps is None:
        return None
    ids = np.array([card(codes[i]).class_index for i in chosen], np.int64)
    return CellPrototypes(maps, np.concatenate([ids, ids]))


def calibrated(profile: DeckProfile, codes: Sequence[str], crops: np.ndarray, detector,
               per_card: int = PARTIAL_VIEWS) -> DeckProfile:
    """``profile`` with ``own``: the cell similarity (``read``) of ``per_card`` partial views
    of each card (``scorer.vision.partial``; one crop a card, the first of
    ``codes``/``crops``) to that card. About 400 crops read once, when a profile that
    decides is built; a profile that does not decide refuses nothing and is left as is."""
    from scorer.vision.partial import partial_views
    first = {card(c).class_index: i for i, c in reversed(list(enumerate(codes)))}
    if not first or profile.cells is None:
        return profile
    ids = np.array(sorted(first), np.int64)
    views = partial_views(np.stack([crops[first[int(k)]] for k in ids]), per_card)
    maps = detector.cells(views)
    if maps is None:
        return profile
    sim = profile.cells.similarity(maps)
    profile.own = np.sort(sim[np.arange(len(views)), np.repeat(ids, per_card)])
    return profile


def embed_cards(cards: Sequence[Any], detector) -> None:
    """Give each card (an object with ``crop``, ``model`` and ``embedding``, e.g.
    ``scorer.store.decks.DeckCard``) whose embeddings are missing or by another classifier
    the detector's embeddings of its crop, upright then turned 180 degrees."""
    require_embedding(detector)
    key = model_key(detector)
    stale = [c for c in cards if c.embedding is None or c.model != key]
    if stale:
        emb = embed_crops(detector, np.stack([c.crop for c in stale]))
        n = len(stale)
        for i, c in enumerate(stale):
            c.embedding, c.model = np.stack([emb[i], emb[n + i]]), key


def profile_from_cards(name: str, cards: list, detector, **kw) -> DeckProfile:
    """A profile from enrolled cards (see ``embed_cards``; cards embedded by another
    classifier, or not at all, are embedded now and keep the result)."""
    if not cards:
        require_embedding(detector)
        raise InputError(f"deck {name!r} has no cards")
    embed_cards(cards, detector)
    codes = [c.code for c in cards for _ in range(len(c.embedding))]
    crops = np.stack([c.crop for c in cards])
    names = [c.code for c in cards]
    profile = DeckProfile(name, codes, np.concatenate([c.embedding for c in cards]),
                          cells=cell_prototypes(detector, names, crops), **kw)
    return calibrated(profile, names, crops, detector)

