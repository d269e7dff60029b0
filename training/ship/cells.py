"""The classifier's ``cells`` output: its head's feature map before the pooling that makes
the embedding, (N, C, H, W) for a crop, one C-vector a cell of the card.

A deck profile compares these cell by cell with the enrolled cards'
(``scorer.vision.cells``): a card half hidden under another still matches its own card on
the cells that show. ``training.ship.export.export_classifier`` adds it to every
classifier it exports (quantisation keeps it); a file exported before it gets it as it
is, its other outputs the same to the bit:

    python -m training.ship.cells models/hanafuda-classifier.onnx
"""

from __future__ import annotations

import argparse
from pathlib import Path

CELLS = "cells"


def add_cells_output(path: Path) -> bool:
    """Add ``cells`` to the classifier at ``path`` (in place): the input of the ReduceMean
    that pools the embedding. False when it has the output already."""
    import onnx
    from onnx import TensorProto, helper

    model = onnx.load(str(path))
    graph = model.graph
    if CELLS in {o.name for o in graph.output}:
        return False
    pools = [n for n in graph.node if n.op_type in ("ReduceMean", "GlobalAveragePool")]
    if len(pools) != 1:
        raise ValueError(f"{path}: expected one pooling node before the embedding, "
                         f"found {len(pools)}")
    graph.node.append(helper.make_node("Identity", [pools[0].input[0]], [CELLS],
                                       name="cells_output"))
    graph.output.append(helper.make_tensor_value_info(CELLS, TensorProto.FLOAT,
                                                      ["n", None, None, None]))
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.ship.cells",
                                 description="Add the cells output to classifier files.")
    ap.add_argument("paths", nargs="+", type=Path, help="classifier ONNX files")
    a = ap.parse_args(argv)
    for p in a.paths:
        print(p, "cells added" if add_cells_output(p) else "has cells already")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
