"""Silent misses of round 7's timm rows (LambdaNet, ConViT, EfficientViM), rebuilt with
onnx.helper (no torch): each test fails on the importer as it was before its fix."""

from __future__ import annotations

import pytest

onnx = pytest.importorskip("onnx")

from onnx import helper  # noqa: E402
from onnx_fixtures import build, const, import_saved, saved_per_sample  # noqa: E402
from onnx_fixtures import tensor, weight  # noqa: E402

from planner.core.network import analyze  # noqa: E402

h = helper


def _lambda_layer():
    """timm's LambdaLayer (2 heads, dim_qk 2, dim_v 4, r = 3) on a 4×4 map after a 1×1
    convolution and a ReLU, as ``torch.onnx.export(..., dynamo=False)`` writes it in eval
    mode: q, k, v split from one projection, batch-normed q and v, softmax over the keys, the
    content lambda ``k @ v``, the position lambdas by a 3-D convolution over v, and
    ``q.unsqueeze(-2) @ position_lam`` broadcast over the heads."""
    c = lambda n, v: h.make_node("Constant", [], [n], value=h.make_tensor(  # noqa: E731
        n, onnx.TensorProto.INT64, [len(v)], v))
    nodes = [
        h.make_node("Conv", ["x", "conv.weight", "conv.bias"], ["c"], name="/conv/Conv",
                    kernel_shape=[1, 1]),
        h.make_node("Relu", ["c"], ["r"], name="/Relu"),
        h.make_node("Conv", ["r", "lam.qkv.weight"], ["qkv"], name="/lam/qkv/Conv",
                    kernel_shape=[1, 1]),
        c("split", [4, 2, 4]),
        h.make_node("Split", ["qkv", "split"], ["q0", "k0", "v0"], name="/lam/Split", axis=1),
        h.make_node("BatchNormalization", ["q0", "bn.w", "bn.b", "bn.m", "bn.v"], ["qn"],
                    name="/lam/norm_q/BatchNormalization"),
        c("s_q", [0, 2, 2, 16]),
        h.make_node("Reshape", ["qn", "s_q"], ["q1"], name="/lam/Reshape"),
        h.make_node("Transpose", ["q1"], ["q"], name="/lam/Transpose", perm=[0, 1, 3, 2]),
        h.make_node("BatchNormalization", ["v0", "bv.w", "bv.b", "bv.m", "bv.v"], ["vn"],
                    name="/lam/norm_v/BatchNormalization"),
        c("s_v", [0, 4, 16]),
        h.make_node("Reshape", ["vn", "s_v"], ["v1"], name="/lam/Reshape_1"),
        h.make_node("Transpose", ["v1"], ["v"], name="/lam/Transpose_1", perm=[0, 2, 1]),
        c("s_k", [0, 2, 16]),
        h.make_node("Reshape", ["k0", "s_k"], ["k1"], name="/lam/Reshape_2"),
        h.make_node("Softmax", ["k1"], ["k"], name="/lam/Softmax", axis=-1),
        h.make_node("MatMul", ["k", "v"], ["lc"], name="/lam/MatMul"),
        c("one", [1]),
        h.make_node("Unsqueeze", ["lc", "one"], ["lc1"], name="/lam/Unsqueeze"),
        h.make_node("MatMul", ["q", "lc1"], ["co"], name="/lam/MatMul_1"),
        c("s_5", [0, 1, 4, 4, 4]),
        h.make_node("Reshape", ["v", "s_5"], ["v5"], name="/lam/Reshape_3"),
        h.make_node("Conv", ["v5", "lam.conv_lambda.weight", "lam.conv_lambda.bias"], ["pl"],
                    name="/lam/conv_lambda/Conv", kernel_shape=[3, 3, 1],
                    pads=[1, 1, 0, 1, 1, 0]),
        c("s_p", [0, 1, 2, 16, 4]),
        h.make_node("Reshape", ["pl", "s_p"], ["pl1"], name="/lam/Reshape_4"),
        h.make_node("Transpose", ["pl1"], ["pl2"], name="/lam/Transpose_2",
                    perm=[0, 1, 3, 2, 4]),
        c("m2", [-2]),
        h.make_node("Unsqueeze", ["q", "m2"], ["qu"], name="/lam/Unsqueeze_1"),
        h.make_node("MatMul", ["qu", "pl2"], ["po"], name="/lam/MatMul_2"),
        c("three", [3]),
        h.make_node("Squeeze", ["po", "three"], ["po1"], name="/lam/Squeeze"),
        h.make_node("Add", ["co", "po1"], ["y"], name="/lam/Add"),
    ]
    inits = [weight("conv.weight", (8, 3, 1, 1)), weight("conv.bias", (8,)),
             weight("lam.qkv.weight", (10, 8, 1, 1)),
             weight("lam.conv_lambda.weight", (2, 1, 3, 3, 1)),
             weight("lam.conv_lambda.bias", (2,))]
    for p in ("bn", "bv"):
        inits += [weight(f"{p}.w", (4,), 1.0), weight(f"{p}.b", (4,), 0.0),
                  weight(f"{p}.m", (4,), 0.0), weight(f"{p}.v", (4,), 1.0)]
    return build(nodes, [tensor("x", ["N", 3, 4, 4])], [tensor("y", None)], inits)


def test_lambda_layer_keeps_the_copies_torch_matmul_makes(tmp_path):
    """torch.matmul expands both operands to their broadcast batch and reshapes them to 3-D
    for one bmm, which keeps what it multiplied: the content lambda (1 × 2 × 4) copied for
    both heads, q.unsqueeze(-2) copied (its heads and positions cannot merge, the positions
    being transposed), and the position lambdas (1 × 16 × 2 × 4) copied for both heads, not
    the convolution's output. What autograd keeps for this layer in torch 2.14.1 (timm's
    LambdaLayer of the same sizes, batch 2): 1,696 elements, 16 of them the norms' running
    statistics (buffers, model state rather than activations): 840 per sample. Before, the plan
    kept the unexpanded operands (640 per sample, −24 %; LambdaNet-26T −11.7 % from both
    exporters, silent)."""
    r = import_saved(tmp_path, _lambda_layer(), batch=2)
    a = analyze(r.draft)
    assert a.ok and r.report.complete
    assert saved_per_sample(r) == 840
    # torch.nn's parameters: the convolutions (8·3 + 8, 10·8, 2·9 + 2) and both norms (2·4)
    assert a.parameters == 32 + 80 + 20 + 16


def _heads_matmul(perm_a, perm_b, lead_b: int = 2):
    """x (N, 2, 8, 4) → sigmoid → a = transpose(perm_a); sigmoid(x[:, :lead_b]) →
    b = transpose(perm_b); MatMul(a, b)."""
    nodes = [
        h.make_node("Sigmoid", ["x"], ["a0"], name="/Sigmoid"),
        h.make_node("Transpose", ["a0"], ["a"], name="/Transpose", perm=perm_a),
        h.make_node("Slice", ["x", "st", "en", "ax"], ["xs"], name="/Slice"),
        h.make_node("Sigmoid", ["xs"], ["b0"], name="/Sigmoid_1"),
        h.make_node("Transpose", ["b0"], ["b"], name="/Transpose_1", perm=perm_b),
        h.make_node("MatMul", ["a", "b"], ["y"], name="/MatMul"),
    ]
    inits = [const("st", [0], dtype="int64"), const("en", [lead_b], dtype="int64"),
             const("ax", [1], dtype="int64")]
    return build(nodes, [tensor("x", ["N", 2, 8, 4])], [tensor("y", None)], inits)


@pytest.mark.parametrize(("perm_a", "perm_b", "lead_b", "copied"), [
    # contiguous heads × keys: bmm reads both as they are (a view of each ReLU's output)
    ((0, 1, 2, 3), (0, 1, 3, 2), 2, 0),
    # b of one head broadcast over two: copied, expanded (2 × 4 × 8)
    ((0, 1, 2, 3), (0, 1, 3, 2), 1, 2 * 4 * 8),
    # the rows moved in front ((N, 8, 2, 4), (N, 8, 4, 2) of tensors laid out as
    # (N, 2, 8, 4)): the batch cannot merge with the moved axis, both are copied
    ((0, 2, 1, 3), (0, 2, 3, 1), 2, 2 * 8 * 2 * 4),
])
def test_matmul_operand_copies_follow_strides(tmp_path, perm_a, perm_b, lead_b, copied):
    """Whether a ≥ 3-D matmul's operand is copied follows its strides and the broadcast, as
    torch.matmul's reshape does; a copy adds its own size to what is kept (torch 2.14.1 with
    the same tensors: 192, 224 and 320 elements per sample, 64 of them the input kept by a
    learned factor before the ReLUs of that measurement, which this graph lacks)."""
    base = 8 * 8 + 8 * lead_b * 4  # both sigmoids keep their outputs (the matmul reads views)
    r = import_saved(tmp_path, _heads_matmul(perm_a, perm_b, lead_b), batch=2)
    assert analyze(r.draft).ok and r.report.complete
    assert saved_per_sample(r) == base + copied


def _gated_position_attention(expand: bool, t: int = 9, c: int = 8, heads: int = 2):
    """ConViT's gated positional self-attention, reduced: patch scores softmax(x·W) per head
    plus position scores softmax(pos_proj(rel_indices)) over a constant relative-index table
    (1 × T × T × 3), ``expand(B, -1, -1, -1)``-ed over the batch first where ``expand``
    (written at the file's batch of 1: an Expand that changes nothing)."""
    table = "rel" if not expand else "rel_b"
    nodes = [
        h.make_node("MatMul", ["x", "w.weight"], ["s0"], name="/attn/qk/MatMul"),
        h.make_node("Reshape", ["s0", "s4"], ["s1"], name="/attn/Reshape"),
        h.make_node("Transpose", ["s1"], ["s2"], name="/attn/Transpose", perm=[0, 2, 1, 3]),
        h.make_node("Softmax", ["s2"], ["patch"], name="/attn/Softmax", axis=-1),
        h.make_node("MatMul", [table, "pos.weight"], ["p0"], name="/attn/pos_proj/MatMul"),
        h.make_node("Add", ["pos.bias", "p0"], ["p1"], name="/attn/pos_proj/Add"),
        h.make_node("Transpose", ["p1"], ["p2"], name="/attn/Transpose_1", perm=[0, 3, 1, 2]),
        h.make_node("Softmax", ["p2"], ["pos"], name="/attn/Softmax_1", axis=-1),
        h.make_node("Add", ["patch", "pos"], ["y"], name="/attn/Add"),
    ]
    if expand:
        nodes.insert(4, h.make_node("Expand", ["rel", "ones"], ["rel_b"], name="/attn/Expand"))
    import numpy as np  # noqa: PLC0415

    rel = np.arange(t * t * 3, dtype=np.float32).reshape(1, t, t, 3)
    inits = [weight("w.weight", (c, heads * t)), weight("pos.weight", (3, heads)),
             weight("pos.bias", (heads,)), const("rel", rel),
             const("s4", [0, t, heads, t], dtype="int64"),
             const("ones", [1, 1, 1, 1], dtype="int64")]
    return build(nodes, [tensor("x", ["N", t, c])], [tensor("y", None)], inits)


def test_a_table_expanded_over_the_batch_is_planned_per_sample(tmp_path):
    """ConViT expands its relative-index table over the batch before the learned position
    projection: PyTorch projects it for every sample and keeps, per sample, the table's copy
    (the linear layer's input) and the position softmax. Before: planned as a constant
    computed once, with a warning of 'the same at every batch' (ConViT-Ti −17.8 % from both
    exporters, the warning naming 4.4 / 0.4 of 20.5 MiB); now −0.0 %."""
    t, c, heads = 9, 8, 2
    r = import_saved(tmp_path, _gated_position_attention(True, t, c, heads), batch=2)
    a = analyze(r.draft)
    assert a.ok and r.report.complete
    assert a.parameters == c * heads * t + 3 * heads + heads
    # x (the projection's input), the patch softmax, the table's copy, the position softmax
    assert saved_per_sample(r) == t * c + heads * t * t + t * t * 3 + heads * t * t
    assert not any("the same at every batch" in w for w in r.warnings)


def test_a_table_read_as_it_is_stays_computed_once(tmp_path):
    """Without the expand (Swin-V2's position-bias MLP over its coordinate table) the learned
    layer runs once, whatever the batch: nothing of it is planned per sample."""
    t, c, heads = 9, 8, 2
    r = import_saved(tmp_path, _gated_position_attention(False, t, c, heads), batch=2)
    assert analyze(r.draft).parameters == c * heads * t + 3 * heads + heads
    assert saved_per_sample(r) == t * c + heads * t * t


def _layer_scales_from_one_parameter(c: int = 4):
    """EfficientViM's block: ``alpha = sigmoid(self.alpha).view(2, -1, 1, 1)`` once, then
    ``x + alpha[k] * (f(x) - x)`` for each branch (two 1×1 convolutions here), as the legacy
    exporter writes it: one Sigmoid and Reshape, a Gather per branch."""
    nodes = [
        h.make_node("Sigmoid", ["blk.alpha"], ["sa"], name="/blk/Sigmoid"),
        h.make_node("Reshape", ["sa", "s4"], ["ra"], name="/blk/Reshape"),
        h.make_node("Gather", ["ra", "i0"], ["g0"], name="/blk/Gather", axis=0),
        h.make_node("Conv", ["x", "blk.f0.weight"], ["c0"], name="/blk/f0/Conv",
                    kernel_shape=[1, 1]),
        h.make_node("Sub", ["c0", "x"], ["d0"], name="/blk/Sub"),
        h.make_node("Mul", ["g0", "d0"], ["m0"], name="/blk/Mul"),
        h.make_node("Add", ["x", "m0"], ["y0"], name="/blk/Add"),
        h.make_node("Gather", ["ra", "i1"], ["g1"], name="/blk/Gather_1", axis=0),
        h.make_node("Conv", ["y0", "blk.f1.weight"], ["c1"], name="/blk/f1/Conv",
                    kernel_shape=[1, 1]),
        h.make_node("Sub", ["c1", "y0"], ["d1"], name="/blk/Sub_1"),
        h.make_node("Mul", ["g1", "d1"], ["m1"], name="/blk/Mul_1"),
        h.make_node("Add", ["y0", "m1"], ["y"], name="/blk/Add_1"),
    ]
    inits = [weight("blk.alpha", (2, c), 1e-4), weight("blk.f0.weight", (c, c, 1, 1)),
             weight("blk.f1.weight", (c, c, 1, 1)), const("s4", [2, -1, 1, 1], dtype="int64"),
             const("i0", 0, dtype="int64"), const("i1", 1, dtype="int64")]
    return build(nodes, [tensor("x", ["N", c, 4, 4])], [tensor("y", None)], inits)


def test_every_factor_read_from_one_learned_tensor_keeps_its_activation(tmp_path):
    """Each branch's product with alpha[k] keeps its other operand for alpha's gradient,
    also where the sigmoid was walked (and its parameter counted) at an earlier branch.
    Before: only the first product kept it (EfficientViM-M1's legacy file −7.2 %, silent);
    now −0.6 %, as from the default exporter."""
    c = 4
    r = import_saved(tmp_path, _layer_scales_from_one_parameter(c), batch=2)
    a = analyze(r.draft)
    assert a.ok and r.report.complete
    assert a.parameters == 2 * c + 2 * c * c  # alpha counted once
    # x (the first convolution's input), f0(x) - x, y0 (the second's input), f1(y0) - y0
    assert saved_per_sample(r) == 4 * c * 16
