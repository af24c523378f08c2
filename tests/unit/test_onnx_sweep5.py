"""Silent misses found by sweeping models of other libraries (round 5), rebuilt with
onnx.helper (no torch): each test fails on the importer as it was before its fix."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from onnx import helper  # noqa: E402
from onnx_fixtures import build, const, import_saved, layer_kinds, saved_per_sample  # noqa: E402
from onnx_fixtures import tensor, weight  # noqa: E402

from planner.core.network import analyze  # noqa: E402

h = helper


def _mha_math_path(t=16, e=32, heads=4):
    """nn.MultiheadAttention(batch_first=True) with need_weights=True, as the legacy exporter
    writes it: one packed in-projection, q, k, v selected from it, the batch merged with the
    heads (3-D products: torch.bmm), an explicit softmax, the mean of the weights over heads."""
    d = e // heads
    nodes = [
        h.make_node("Transpose", ["x"], ["xt"], name="/a/Transpose", perm=[1, 0, 2]),
        h.make_node("MatMul", ["xt", "in_w"], ["p0"], name="/a/MatMul"),
        h.make_node("Add", ["in_b", "p0"], ["p"], name="/a/Add"),
        h.make_node("Reshape", ["p", "s4"], ["p4"], name="/a/Reshape"),
        h.make_node("Transpose", ["p4"], ["p3"], name="/a/Transpose_1", perm=[2, 0, 1, 3]),
    ]
    for k, n in enumerate("qkv"):
        nodes += [
            h.make_node("Gather", ["p3", f"i{k}"], [n], name=f"/a/Gather_{k}", axis=0),
            h.make_node("Reshape", [n, "s3"], [n + "r"], name=f"/a/Reshape_{k + 1}"),
            h.make_node("Transpose", [n + "r"], [n + "h"], name=f"/a/Transpose_{k + 2}",
                        perm=[1, 2, 0] if n == "k" else [1, 0, 2]),
        ]
    nodes += [
        h.make_node("Mul", ["qh", "scale"], ["qs"], name="/a/Mul"),
        h.make_node("MatMul", ["qs", "kh"], ["sc"], name="/a/MatMul_1"),
        h.make_node("Softmax", ["sc"], ["pr"], name="/a/Softmax", axis=-1),
        h.make_node("MatMul", ["pr", "vh"], ["o"], name="/a/MatMul_2"),
        h.make_node("Transpose", ["o"], ["ot"], name="/a/Transpose_5", perm=[1, 0, 2]),
        h.make_node("Reshape", ["ot", "s2"], ["o2"], name="/a/Reshape_4"),
        h.make_node("MatMul", ["o2", "out_w"], ["y0"], name="/a/out_proj/MatMul"),
        h.make_node("Add", ["out_b", "y0"], ["y"], name="/a/out_proj/Add"),
        h.make_node("Reshape", ["pr", "sw"], ["w4"], name="/a/Reshape_5"),
        h.make_node("ReduceMean", ["w4"], ["wm"], name="/a/ReduceMean", axes=[1], keepdims=0),
    ]
    inits = [weight("a.in_proj_weight", (3 * e, e)), weight("in_b", (3 * e,)),
             weight("out_w", (e, e)), weight("out_b", (e,)),
             const("s4", [t, -1, 3, e], np.int64), const("s3", [t, -1, d], np.int64),
             const("s2", [t, -1, e], np.int64), const("sw", [-1, heads, t, t], np.int64),
             const("scale", d ** -0.5), *(const(f"i{k}", k, np.int64) for k in range(3))]
    # the transposed packed weight as the legacy exporter stores it
    nodes.insert(0, h.make_node("Transpose", ["a.in_proj_weight"], ["in_w"],
                                name="/a/Transpose_w", perm=[1, 0]))
    return build(nodes, [tensor("x", ["N", t, e])], [tensor("y", None), tensor("wm", None)],
                 inits)


def test_multihead_attention_math_path_keeps_the_packed_projection_not_copies(tmp_path):
    """q·kᵀ of 3-D operands is torch.bmm: k and v are read as views of the packed projection
    (its whole storage is kept), not copied. Before: a copy of k and of v each (-11 % on
    nn.MultiheadAttention with need_weights=True, silent)."""
    t, e, heads = 16, 32, 4
    r = import_saved(tmp_path, _mha_math_path(t, e, heads), batch=2)
    a = analyze(r.draft)
    assert a.ok and r.report.complete
    assert a.parameters == 3 * e * e + 3 * e + e * e + e
    assert "softmax" in layer_kinds(r) and "matmul" in layer_kinds(r)
    # x (the in-projection's input), the packed q|k|v, the scaled q, the probabilities (kept
    # by softmax and the second product), the attention output (the out-projection's input)
    assert saved_per_sample(r) == t * e + 3 * t * e + t * e + heads * t * t + t * e
