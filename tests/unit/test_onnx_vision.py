"""Vision-transformer constructs of torchvision's Swin, Swin-V2 and MaxViT as the exporters write
them (onnx.helper graphs, no torch)."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from onnx import helper  # noqa: E402
from onnx_fixtures import (  # noqa: E402
    build, const, import_saved, layer_kinds, saved_per_sample, tensor, weight)

from planner.core.network import analyze  # noqa: E402


imp = import_saved
kinds = layer_kinds
saved_elements = saved_per_sample


def test_a_position_bias_the_legacy_exporter_folded_is_named_in_a_warning(tmp_path):
    """Swin's relative-position bias (a learned 169×heads table gathered by an index buffer)
    is folded by the legacy exporter's constant folding into an 'onnx::Add_N' constant of
    heads×49×49: the parameters behind it are gone from the file, and the import says so."""
    h = helper
    nodes = [h.make_node("MatMul", ["x", "blk.qk.weight"], ["s"], name="/blk/attn/MatMul"),
             h.make_node("Reshape", ["s", "shape"], ["s4"], name="/blk/attn/Reshape"),
             h.make_node("Add", ["s4", "onnx::Add_77"], ["b"], name="/blk/attn/Add_1"),
             h.make_node("Softmax", ["b"], ["y"], name="/blk/attn/Softmax", axis=-1)]
    inits = [weight("blk.qk.weight", (16, 3 * 49)), const("shape", [0, 3, 49, 49], np.int64),
             const("onnx::Add_77", np.full((1, 3, 49, 49), 0.1))]
    r = imp(tmp_path, build(nodes, [tensor("x", ["N", 49, 16])], [tensor("y", None)], inits))
    assert analyze(r.draft).parameters == 16 * 3 * 49
    folded = [w for w in r.warnings if "onnx::Add_77" in w]
    assert len(folded) == 1 and f"{3 * 49 * 49:,} values" in folded[0]
    assert "not counted" in folded[0]


def _cosine_block(h, k: int, table: str, bias: str):
    """Swin-V2's attention of block k: q / ‖q‖ (ReduceL2), scores · exp(logit scale), plus a
    position bias an MLP computes from a constant coordinate table (behind an Identity)."""
    p = f"/b{k}/attn"
    return [
        h.make_node("ReduceL2", [f"x{k}", "last"], [f"n{k}"], name=f"{p}/ReduceL2",
                    keepdims=1),
        h.make_node("Div", [f"x{k}", f"n{k}"], [f"q{k}"], name=f"{p}/Div"),
        h.make_node("Exp", [f"b{k}.attn.logit_scale"], [f"e{k}"], name=f"{p}/Exp"),
        h.make_node("Mul", [f"q{k}", f"e{k}"], [f"s{k}"], name=f"{p}/Mul"),
        h.make_node("Identity", [table], [f"t{k}"], name=f"Identity_{k}"),
        h.make_node("MatMul", [f"t{k}", f"onnx::MatMul_{k}"], [f"m{k}"], name=f"{p}/cpb/MatMul"),
        h.make_node("Add", [f"m{k}", bias], [f"mb{k}"], name=f"{p}/cpb/Add"),
        h.make_node("Relu", [f"mb{k}"], [f"r{k}"], name=f"{p}/cpb/Relu"),
        h.make_node("Reshape", [f"r{k}", "bias_shape"], [f"pb{k}"], name=f"{p}/Reshape"),
        h.make_node("Add", [f"s{k}", f"pb{k}"], [f"x{k + 1}"], name=f"{p}/Add"),
    ]


def test_cosine_attention_and_a_position_bias_mlp_on_constants(tmp_path):
    h = helper
    nodes = _cosine_block(h, 0, "b0.attn.relative_coords_table", "b0.attn.cpb.bias") + \
        _cosine_block(h, 1, "b0.attn.relative_coords_table", "b0.attn.cpb.bias")
    inits = [const("last", [-1], np.int64), const("bias_shape", [1, 16], np.int64),
             weight("b0.attn.relative_coords_table", (1, 8, 2)),
             weight("onnx::MatMul_0", (2, 2)), weight("onnx::MatMul_1", (2, 2)),
             weight("b0.attn.cpb.bias", (2,)),  # the exporter merged the two equal biases
             weight("b0.attn.logit_scale", (2, 1)), weight("b1.attn.logit_scale", (2, 1))]
    r = imp(tmp_path, build(nodes, [tensor("x0", ["N", 2, 16])], [tensor("x2", None)], inits,
                            opset=18))
    assert not r.report.not_understood_ops and r.report.complete, r.warnings
    # per block: the logit scale (2) and the bias MLP (2×2 weight + 2 bias, counted in each
    # block although the file stores the bias once); not the coordinate table (a buffer)
    assert analyze(r.draft).parameters == 2 * (2 + 4 + 2)
    # per block: x (ReduceL2's input, and the Div's with the norm), the normalised q (the
    # product with the learned scale); the position bias costs nothing per sample
    assert saved_elements(r) == 2 * (32 + 2 + 32)


def test_f_normalize_expand_as_is_a_view_not_a_full_size_tensor(tmp_path):
    """F.normalize(x) = x / ‖x‖.clamp_min(eps).expand_as(x): the Div keeps x and the expanded
    norm, whose storage is the small norm (measured on Swin-V2: 48 KiB, not 1.5 MiB)."""
    h = helper
    nodes = [h.make_node("ReduceL2", ["x", "last"], ["n"], name="/attn/ReduceL2", keepdims=1),
             h.make_node("Clip", ["n", "eps"], ["nc"], name="/attn/Clip"),
             h.make_node("Shape", ["x"], ["xs"], name="/attn/Shape"),
             h.make_node("Expand", ["nc", "xs"], ["ne"], name="/attn/Expand"),
             h.make_node("Div", ["x", "ne"], ["y"], name="/attn/Div")]
    inits = [const("last", [-1], np.int64), const("eps", 1e-12)]
    r = imp(tmp_path, build(nodes, [tensor("x", ["N", 6, 64, 32])], [tensor("y", None)], inits,
                            opset=18))
    assert r.report.complete and analyze(r.draft).output_shape == (6, 64, 32)
    # x (ReduceL2 and the Div keep it, one storage) and the norm, 6×64×1; the clip keeps
    # its input (the norm itself), not a 6×64×32 copy
    assert saved_elements(r) == 6 * 64 * 32 + 6 * 64
