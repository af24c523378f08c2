"""GatherElements and GatherND of activations (onnx.helper graphs, no torch): what autograd keeps
for them, measured with saved_tensors_hooks in torch 2.14: torch.gather (GatherElements) keeps
its source and its index, tensor indexing (GatherND, aten.index) its index only. DeBERTa-v2's
relative-position gathers and Falcon's key/value slots (default exporter) are of these."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from onnx import helper  # noqa: E402
from onnx_fixtures import build, const, import_saved, saved_per_sample, tensor, weight  # noqa: E402

from planner.core.network import analyze  # noqa: E402

T, C, S = 16, 8, 24


def _net(op: str):
    """x (T×C) → a projection to S columns → op(…, a constant index: relative positions,
    T×T; a slot of the token axis) → a projection back."""
    h = helper
    nodes = [h.make_node("MatMul", ["x", "w1.weight"], ["a"], name="/p1/MatMul")]
    inputs = [tensor("x", ["N", T, C])]
    inits = [weight("w1.weight", (C, S)),
             weight("w2.weight", (T if op == "GatherElements" else S, C))]
    if op == "GatherElements":
        inits.append(const("idx", np.tile(np.arange(T) % S, (1, T, 1)), np.int64))
        nodes.append(h.make_node("GatherElements", ["a", "idx"], ["g"], name="/rel/GatherElements",
                                 axis=2))
    else:
        # a[:, [3]] over the token axis, as the default exporter writes x[:, idx] (batch first)
        nodes += [h.make_node("Transpose", ["a"], ["at"], name="/t/Transpose", perm=[1, 0, 2]),
                  h.make_node("GatherND", ["at", "slot"], ["g0"], name="/slot/GatherND"),
                  h.make_node("Transpose", ["g0"], ["g"], name="/t2/Transpose", perm=[1, 0, 2])]
        inits.append(const("slot", [[3]], np.int64))
    nodes.append(h.make_node("MatMul", ["g", "w2.weight"], ["y"], name="/p2/MatMul"))
    return build(nodes, inputs, [tensor("y", None)], inits, opset=17)


def test_gather_elements_of_an_activation_keeps_its_source_not_a_guess(tmp_path):
    r = import_saved(tmp_path, _net("GatherElements"), batch=2)
    assert r.report.complete and analyze(r.draft).ok, r.warnings
    assert not r.report.not_understood_ops
    # x (the first projection), a (gather's source), g (the second projection); the constant
    # index is not per sample
    assert saved_per_sample(r) == T * C + T * S + T * T


def test_gather_elements_keeps_an_index_computed_per_sample(tmp_path):
    """torch.gather(a, -1, a.argmax(-1, keepdim=True)): the index is made per sample."""
    h = helper
    nodes = [h.make_node("MatMul", ["x", "w1.weight"], ["a"], name="/p1/MatMul"),
             h.make_node("ArgMax", ["a"], ["idx"], name="/pick/ArgMax", axis=2, keepdims=1),
             h.make_node("GatherElements", ["a", "idx"], ["g"], name="/pick/GatherElements",
                         axis=2),
             h.make_node("MatMul", ["g", "w2.weight"], ["y"], name="/p2/MatMul")]
    model = build(nodes, [tensor("x", ["N", T, C])], [tensor("y", None)],
                  [weight("w1.weight", (C, S)), weight("w2.weight", (1, C))], opset=17)
    r = import_saved(tmp_path, model, batch=2)
    assert r.report.complete and analyze(r.draft).ok, r.warnings
    # x, a (the source), the int64 index (one per row: two fp32 elements' bytes each), g
    # (the second projection's input)
    assert saved_per_sample(r) == T * C + T * S + 2 * T + T


def test_gather_nd_of_an_activation_keeps_only_its_index(tmp_path):
    r = import_saved(tmp_path, _net("GatherND"), batch=2)
    assert r.report.complete and analyze(r.draft).ok, r.warnings
    assert not r.report.not_understood_ops
    # x and the gathered slot (the second projection's input); not the source a, and the
    # constant index is not per sample
    assert saved_per_sample(r) == T * C + 1 * S


def test_a_product_with_position_keys_computed_from_parameters_keeps_a_copy_per_sample(
        tmp_path):
    """DeBERTa's c2p scores: q (per head) times position keys made from the position table by
    the key projection, per head. torch.matmul expands the keys over the batch for bmm, which
    keeps that copy per sample: planned since round 7a (before: the keys once, and a warning
    with what the copy adds; tests/unit/test_onnx_sweep7a.py)."""
    h = helper
    H, D, P = 2, 4, 12
    nodes = [h.make_node("MatMul", ["x", "wq.weight"], ["q"], name="/q/MatMul"),
             h.make_node("Reshape", ["q", "heads"], ["q4"], name="/q/Reshape"),
             h.make_node("Transpose", ["q4"], ["qh"], name="/q/Transpose", perm=[0, 2, 1, 3]),
             h.make_node("MatMul", ["rel.weight", "wk.weight"], ["pk"], name="/pos/MatMul"),
             h.make_node("Reshape", ["pk", "pheads"], ["pk3"], name="/pos/Reshape"),
             h.make_node("Transpose", ["pk3"], ["pkt"], name="/pos/Transpose", perm=[1, 2, 0]),
             h.make_node("MatMul", ["qh", "pkt"], ["c2p"], name="/c2p/MatMul"),
             h.make_node("ReduceSum", ["c2p", "last"], ["y"], name="/sum", keepdims=0)]
    inits = [weight("wq.weight", (C, H * D)), weight("wk.weight", (C, H * D)),
             weight("rel.weight", (P, C)), const("heads", [0, T, H, D], np.int64),
             const("pheads", [P, H, D], np.int64), const("last", [-1], np.int64)]
    model = build(nodes, [tensor("x", ["N", T, C])], [tensor("y", None)], inits, opset=17)
    r = import_saved(tmp_path, model, batch=4096)
    assert not [w for w in r.warnings if "batched product" in w]
    # x (the q projection's input), q (the product's view of it), the keys' copy (H·D·P)
    assert saved_per_sample(r) == T * C + T * H * D + H * D * P
