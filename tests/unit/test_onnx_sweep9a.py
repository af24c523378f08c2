"""Silent misses of round 8's sweep (Phi-3's default export, ViTMAE's random masking), rebuilt
with onnx.helper (no torch): each test fails on the importer as it was before its fix."""

from __future__ import annotations

import pytest

onnx = pytest.importorskip("onnx")

from onnx import helper  # noqa: E402
from onnx_fixtures import build, const, import_saved, saved_per_sample  # noqa: E402
from onnx_fixtures import tensor, weight  # noqa: E402

from planner.core.network import analyze  # noqa: E402

h = helper
T, H, D = 8, 2, 4
C = H * D


def _meta(node, text: str) -> None:
    p = node.metadata_props.add()
    p.key, p.value = "pkg.torch.onnx.fx_node", text


def _sdpa_block(query_arg: str):
    """x (N, T, C) → q, k, v projections → heads (view + transpose) → q rotated element-wise
    (q·cos + q·sin, a fresh tensor in q's token-major layout) → scaled_dot_product_attention
    as the default exporter decomposes it (scaled q and kᵀ, MatMul, Softmax, IsNaN guard,
    MatMul with v) → transpose back to tokens → reshape → output projection. Its nodes carry
    the exporter's record of the call, whose query argument is ``query_arg``."""
    nodes = []
    for n in ("q", "k", "v"):
        nodes += [
            h.make_node("MatMul", ["x", f"{n}.weight"], [f"{n}0"], name=f"node_linear_{n}"),
            h.make_node("Reshape", [f"{n}0", "heads"], [f"{n}1"], name=f"node_view_{n}"),
            h.make_node("Transpose", [f"{n}1"], [f"{n}t"], name=f"node_transpose_{n}",
                        perm=[0, 2, 1, 3]),
        ]
    nodes += [
        h.make_node("Mul", ["qt", "cos"], ["mul_5"], name="node_mul_5"),
        h.make_node("Mul", ["qt", "sin"], ["mul_6"], name="node_mul_6"),
        h.make_node("Add", ["mul_5", "mul_6"], ["add_4"], name="node_add_4"),
        h.make_node("Transpose", ["kt"], ["kT"], name="node_Transpose_k", perm=[0, 1, 3, 2]),
        h.make_node("Mul", ["add_4", "scale"], ["qs"], name="node_Mul_q"),
        h.make_node("Mul", ["kT", "scale"], ["ks"], name="node_Mul_k"),
        h.make_node("MatMul", ["qs", "ks"], ["scores"], name="node_MatMul_s"),
        h.make_node("Softmax", ["scores"], ["probs"], name="node_Softmax", axis=-1),
        h.make_node("IsNaN", ["probs"], ["nan"], name="node_IsNaN"),
        h.make_node("Where", ["nan", "zero", "probs"], ["probs1"], name="node_Where"),
        h.make_node("MatMul", ["probs1", "vt"], ["sdpa"],
                    name="node_scaled_dot_product_attention"),
        h.make_node("Transpose", ["sdpa"], ["tok"], name="node_transpose_o", perm=[0, 2, 1, 3]),
        h.make_node("Reshape", ["tok", "flat"], ["merged"], name="node_view_o"),
        h.make_node("MatMul", ["merged", "o.weight"], ["y"], name="node_linear_o"),
    ]
    record = ("%scaled_dot_product_attention : [num_users=1] = call_function[target=torch."
              f"ops.aten.scaled_dot_product_attention.default](args = (%{query_arg}, "
              "%transpose_k, %transpose_v), kwargs = {scale: 0.5})")
    for n in nodes:
        if n.name in ("node_Mul_q", "node_Mul_k", "node_MatMul_s", "node_Softmax",
                      "node_IsNaN", "node_Where", "node_scaled_dot_product_attention"):
            _meta(n, record)
    inits = [weight(f"{n}.weight", (C, C)) for n in ("q", "k", "v", "o")] + [
        const("heads", [0, T, H, D], dtype="int64"), const("flat", [0, T, C], dtype="int64"),
        weight("cos", (1, 1, T, D), 0.5), weight("sin", (1, 1, T, D), 0.5),
        const("scale", [0.5]), const("zero", [0.0])]
    return build(nodes, [tensor("x", [1, T, C])], [tensor("y", None)], inits, opset=20)


@pytest.mark.parametrize(("query_arg", "copied"), [
    ("add_4", False),  # Llama: the rotated q itself, token-major, as the file has it
    ("cat_2", True),  # Phi-3: torch.cat([rotated, q[..., 64:]]) of an empty pass-through
    ("contiguous_1", True),
    ("clone_1", False),  # clone keeps its input's strides
])
def test_a_query_the_exporter_copied_gives_a_heads_first_output(tmp_path, query_arg, copied):
    """Flash attention writes its output in q's layout. Phi-3 (full rotary) rebuilds q with
    torch.cat([q_rot·cos + rotate_half(q_rot)·sin, q_pass]) where q_pass is empty: a fresh
    tensor, heads first, so the output's transpose(1, 2).contiguous() before o_proj is a copy,
    which o_proj keeps (T × C per sample). The default exporter drops the one-tensor cat; its
    record of the attention call still names the query 'cat_2'. Before: no copy planned,
    Phi-3's default export -4.9 % (o_proj's input missing), silent; the legacy file, which
    keeps the Concat, was right (-0.6 %)."""
    r = import_saved(tmp_path, _sdpa_block(query_arg), batch=2)
    a = analyze(r.draft)
    assert a.ok and r.report.complete
    # attention: q, k, v, output (T × C each) and the logsumexp (H × T); the three
    # projections' shared input; q·cos and q·sin keep nothing (constant factors) and the
    # copy, where made, is kept by o_proj
    base = T * C + 4 * T * C + H * T
    assert saved_per_sample(r) == base + (T * C if copied else 0)
