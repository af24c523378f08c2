"""The ONNX import grows linearly with the graph for every shape of graph the scale benchmark
builds (issue #12: "repeated node names, long chains of constant lookups and huge repeated
fields cannot make it quadratic"). Each graph is imported at two sizes, 5x apart, and the CPU
time's growth is checked: linear is 5x (less, with the fixed costs), quadratic 25x. A ratio,
not seconds: a slow or busy machine does not fail it, a quadratic step does (the residual
adds' layer order looked up in a dict of every layer, the folded weights' scan of every
claimed one, the same-named nodes' search for a free suffix were each 20-40x for 5x-10x).
"""

from __future__ import annotations

import time

import pytest

pytest.importorskip("onnx")

from benchmarks.onnx_scale import KINDS  # noqa: E402
from onnx import helper  # noqa: E402
from onnx_fixtures import build, save, tensor  # noqa: E402

from planner.core.importers.onnx import import_onnx  # noqa: E402

SMALL, LARGE = 1_500, 7_500
MAX_GROWTH = 12  # CPU at LARGE over CPU at SMALL (linear: 5, quadratic: 25)


def _cpu(path) -> float:
    """The least CPU seconds of two imports (a stray pause in one does not count)."""
    best = None
    for _ in range(2):
        t = time.process_time()
        r = import_onnx(path)
        spent = time.process_time() - t
        best = spent if best is None else min(best, spent)
    assert len(r.draft.layers) > 1
    return best


def _wide(n: int):
    """``n`` activations joined by one Concat (a node with a huge repeated input field)."""
    nodes = [helper.make_node("Relu" if k % 2 else "Sigmoid", ["x"], [f"r{k}"], name=f"r{k}")
             for k in range(n - 1)]
    nodes.append(helper.make_node("Concat", [f"r{k}" for k in range(n - 1)], ["y"],
                                  name="cat", axis=1))
    return build(nodes, [tensor("x", ["N", 4])], [tensor("y", None)])


GRAPHS = {**{k: KINDS[k] for k in ("resnet", "transformer", "dynamo", "samenames",
                                   "constants", "folded", "merged")}, "wide": _wide}


@pytest.mark.parametrize("kind", sorted(GRAPHS))
def test_import_time_grows_linearly(kind, tmp_path):
    small = save(GRAPHS[kind](SMALL), tmp_path / f"{kind}-small.onnx")
    large = save(GRAPHS[kind](LARGE), tmp_path / f"{kind}-large.onnx")
    import_onnx(small)  # (modules loaded, caches warm: not part of the growth)
    t_small, t_large = _cpu(small), _cpu(large)
    growth = t_large / max(t_small, 1e-3)
    assert growth < MAX_GROWTH, (
        f"{kind}: {t_small:.2f} s CPU at {SMALL:,} nodes, {t_large:.2f} s at {LARGE:,} "
        f"({growth:.1f}x for 5x the nodes)")
