"""Cell-by-cell matching of a crop with a deck's enrolled cards.

The classifier's embedding pools its whole head map into one vector, so a card half
hidden under another card reads as half of each: nothing in that vector tells the card
that shows from the one on top. The map before the pooling (the classifier's ``cells``
output, ``training.ship.cells``: one vector a cell of a 7x4 grid over the crop) keeps
them apart. A crop's similarity to an enrolled card is the mean cosine of the best half
of its cells, each compared with the card's cell at the same place: the cells that show
the card match it, the covered ones are left out.

Each vector is first centred on the deck's own mean cell (what every card of this deck
shares: its paper, its border, its print), so what is compared is what tells the cards
apart. On the leave-one-art-set-out stand-in's validation scenes this similarity made
the deck's decision read F1 0.857 -> 0.897 and the frames without hanafuda 0.238 -> 0.068
false cards (the pooled embedding's: 0.876 and 0.214); matching each cell within one
cell of its place, every cell, or the deck's main directions only did no better
(``docs/history/v7-deck-decides.md``).
"""

from __future__ import annotations

import numpy as np
from threadpoolctl import ThreadpoolController

NUM_CARDS = 48
SHOWN = 0.5         # the share of a crop's cells that must match its card


class CellPrototypes:
    """The enrolled cards' cell maps, centred on the deck's mean cell and normalised."""

    def __init__(self, cells: np.ndarray, ids: np.ndarray) -> None:
        """``cells``: (M, C, H, W) the classifier's cells of the enrolled crops;
        ``ids``: (M,) each crop's card (class index)."""
        cells = np.asarray(cells, np.float32)
        ids = np.asarray(ids, np.int64)
        if cells.ndim != 4 or len(cells) != len(ids) or not len(ids):
            raise ValueError("cell prototypes need (M, C, H, W) cells and M card ids")
        self.shape = cells.shape[1:]
        self.mean = cells.mean((0, 2, 3))
        order = np.argsort(ids, kind="stable")
        protos = _normalised(cells[order], self.mean)            # M, C, P
        # (P, C, M): one matrix product a cell for every crop against every prototype
        self._protos = np.ascontiguousarray(protos.transpose(2, 1, 0))
        self.ids, self._starts = np.unique(ids[order], return_index=True)
        # the products run on one BLAS thread: BLAS threads woken beside onnxruntime's,
        # which still hold the cores after the classifier ran, wait for them (a 20-card
        # frame against a deck of 4 crops a card: 69 ms a frame, against 3.7 on one thread)
        self._blas = ThreadpoolController()

    def __len__(self) -> int:
        """The prototypes held (each enrolled crop, as given)."""
        return int(self._protos.shape[2])

    def similarity(self, cells: np.ndarray) -> np.ndarray:
        """(N, 48): each crop's similarity to each enrolled card (its best prototype; -inf
        for cards not enrolled)."""
        cells = np.asarray(cells, np.float32)
        out = np.full((len(cells), NUM_CARDS), -np.inf, np.float32)
        if not len(cells):
            return out
        if cells.shape[1:] != self.shape:
            raise ValueError(f"cells of shape {cells.shape[1:]}, the deck's are {self.shape}")
        crops = _normalised(cells, self.mean).transpose(2, 0, 1)      # P, N, C
        with self._blas.limit(limits=1, user_api="blas"):
            cos = np.matmul(crops, self._protos)                      # P, N, M
        k = max(1, int(round(SHOWN * len(cos))))
        best = np.partition(cos, len(cos) - k, axis=0)[len(cos) - k:].mean(0)   # N, M
        out[:, self.ids] = np.maximum.reduceat(best, self._starts, axis=1)
        return out


def _normalised(cells: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """(N, C, H*W) cells less ``mean``, each cell's vector of unit length."""
    x = cells.reshape(len(cells), cells.shape[1], -1) - mean[None, :, None]
    return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-6)
