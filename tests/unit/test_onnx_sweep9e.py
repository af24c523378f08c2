"""Round 9 sweep (onnx9e): Einsum in general, rebuilt with onnx.helper (no torch). XLNet
writes its projections as ``torch.einsum("ibh,hnd->ibnd", h, W)`` and its attention as
einsums of activations; each test fails on the importer before the fix (df8c16b), where an
Einsum with a weight operand was an operator not understood and its weight counted by no
layer."""

from __future__ import annotations

import pytest

onnx = pytest.importorskip("onnx")

from onnx import helper  # noqa: E402
from onnx_fixtures import build, import_saved, saved_per_sample, tensor, weight  # noqa: E402

from planner.core.network import analyze  # noqa: E402

h = helper
T, H, N, D = 6, 8, 2, 4  # tokens, hidden, heads, head size


def _xlnet_like(out_eq: str = "ibnd,hnd->ibh"):
    """Sequence-first x (T × N(batch) × H): q, k, v = einsum('ibh,hnd->ibnd', x, W), the
    scores einsum('ibnd,jbnd->bnij', q, k), softmax, einsum('bnij,jbnd->ibnd', p, v), then the
    output projection einsum(out_eq, a, W_o)."""
    nodes = [
        h.make_node("Einsum", ["x", "q.w"], ["q"], name="/attn/Einsum", equation="ibh,hnd->ibnd"),
        h.make_node("Einsum", ["x", "k.w"], ["k"], name="/attn/Einsum_1",
                    equation="ibh,hnd->ibnd"),
        h.make_node("Einsum", ["x", "v.w"], ["v"], name="/attn/Einsum_2",
                    equation="ibh,hnd->ibnd"),
        h.make_node("Einsum", ["q", "k"], ["s"], name="/attn/Einsum_3",
                    equation="ibnd,jbnd->bnij"),
        h.make_node("Softmax", ["s"], ["p"], name="/attn/Softmax", axis=-1),
        h.make_node("Einsum", ["p", "v"], ["a"], name="/attn/Einsum_4",
                    equation="bnij,jbnd->ibnd"),
        h.make_node("Einsum", ["a", "o.w"], ["y"], name="/attn/Einsum_5", equation=out_eq),
    ]
    o = (H, N, D) if out_eq == "ibnd,hnd->ibh" else (N, D, H)
    inits = [weight(f"{n}.w", (H, N, D)) for n in "qkv"] + [weight("o.w", o)]
    return build(nodes, [tensor("x", [T, "B", H])], [tensor("y", None)], inits)


def test_einsum_with_a_weight_is_a_layer_with_its_parameters(tmp_path):
    """Every Einsum is understood; the four projection weights are the plan's parameters
    (before: placeholders, 4 × 64 parameters belonging to no layer)."""
    r = import_saved(tmp_path, _xlnet_like(), batch=2)
    a = analyze(r.draft)
    assert a.ok
    assert a.parameters == 4 * H * N * D
    assert [layer.kind for layer in r.draft.layers].count("einsum") == 6
    assert not any("not understand" in w for w in r.warnings), r.warnings
    assert r.report.complete


def test_einsum_keeps_what_aten_bmm_keeps(tmp_path):
    """Per sample: the three projections keep x once (one storage, T·H); the scores keep q
    and k, the context the probabilities and v (views: no copies); the output projection
    'ibnd,hnd->ibh' contracts (d, n) in alphabetical order, so ATen copies the context to
    (i, b, d, n) and keeps the copy (measured with saved_tensors_hooks, torch 2.14), and it
    copies the weight too, kept once (warned). The softmax keeps its output, which the
    context's product keeps too (one storage). Torch, this graph at batch 2: 688 floats kept
    = 2 × 312 per sample + the weight's copy, 64 (/work/onnx-cache/onnx9e/xl_probe.py)."""
    r = import_saved(tmp_path, _xlnet_like(), batch=2)
    x, head, scores = T * H, T * N * D, N * T * T
    assert saved_per_sample(r) == x + 2 * head + scores + head + head == 312
    assert any("Einsum" in w and "copy" in w for w in r.warnings), r.warnings


def test_einsum_counts_the_flops_of_its_contraction(tmp_path):
    """'ibnd,ndh->ibh': ATen still orders the contracted indices (d, n), so the context is
    copied; the FLOPs are those of a (T·B) × (N·D) by (N·D) × H product."""
    r = import_saved(tmp_path, _xlnet_like("ibnd,ndh->ibh"), batch=2)
    a = analyze(r.draft)
    assert a.parameters == 4 * H * N * D
    last = a.layers[-1]
    assert last.kind == "einsum"
    assert last.result.flops_fwd == 2 * T * H * N * D


@pytest.mark.parametrize(("eq", "a", "b", "copies", "inner"), [
    # (each measured with torch.autograd.graph.saved_tensors_hooks, torch 2.14 CPU)
    ("ibh,hnd->ibnd", (5, 2, 8), (8, 3, 4), (False, False), 8),
    ("ibnd,jbnd->bnij", (5, 2, 3, 4), (6, 2, 3, 4), (False, False), 4),
    ("bnij,jbnd->ibnd", (2, 3, 5, 6), (6, 2, 3, 4), (False, False), 6),
    ("ibnd,hnd->ibh", (5, 2, 3, 4), (8, 3, 4), (True, True), 12),
    ("bhwc,hkc->bhwk", (2, 3, 4, 5), (3, 6, 5), (True, False), 5),
    ("bhwc,wkc->bhwk", (2, 3, 4, 5), (4, 6, 5), (False, False), 5),
    ("bnid,jnd->bnij", (2, 3, 5, 4), (6, 3, 4), (True, False), 4),
    ("nchw,nkhw->nck", (2, 3, 4, 5), (2, 6, 4, 5), (False, False), 20),
    ("bi,bj->bij", (5, 4), (5, 3), (False, False), 1),
    ("ij,jk", (5, 4), (4, 6), (False, False), 4),  # implicit output: "ik"
])
def test_einsum_pair_follows_aten(eq, a, b, copies, inner):
    from planner.core.importers.onnx.strides import contiguous, einsum_pair, einsum_terms

    terms = einsum_terms(eq, (len(a), len(b)))
    assert terms is not None
    assert einsum_pair(*terms, (a, b), (contiguous(a), contiguous(b))) == (copies, inner)


def test_einsum_forms_it_does_not_model_are_left_to_the_fallback():
    from planner.core.importers.onnx.strides import einsum_pair, einsum_terms

    assert einsum_terms("...ij,...jk->...ik", (3, 3)) is None
    assert einsum_terms("ii,ij->j", (2, 2)) is None
    # an index summed out of one operand alone: ATen sums it first (a new tensor)
    t = einsum_terms("ij,jk->i", (2, 2))
    assert einsum_pair(*t, ((3, 4), (4, 5)), ((4, 1), (5, 1))) is None


def _token_type_bias(n: int = 2, t: int = 5):
    """Funnel's relative attention, its token-type part: per-head biases (B × n × T × 2)
    split into 'different' and 'same' (B × n × T × 1 each), each expanded to the scores'
    shape and selected by the token-type matrix (a tensor the graph builds without the
    activations), then added to the scores and soft-maxed."""
    from onnx_fixtures import const  # noqa: PLC0415

    import numpy as np  # noqa: PLC0415

    nodes = [
        h.make_node("Transpose", ["x"], ["xt"], name="/attn/Transpose", perm=[0, 1, 3, 2]),
        h.make_node("MatMul", ["x", "xt"], ["s"], name="/attn/MatMul"),
        h.make_node("Split", ["x"], ["diff", "same"], name="/attn/Split", axis=-1,
                    num_outputs=2),
        h.make_node("Expand", ["diff", "wide"], ["ed"], name="/attn/Expand_1"),
        h.make_node("Expand", ["same", "wide"], ["es"], name="/attn/Expand_2"),
        h.make_node("Where", ["mask", "es", "ed"], ["tt"], name="/attn/Where"),
        h.make_node("Add", ["s", "tt"], ["z"], name="/attn/Add"),
        h.make_node("Softmax", ["z"], ["y"], name="/attn/Softmax", axis=-1),
    ]
    inits = [const("wide", [1, n, t, t], np.int64),
             const("mask", np.eye(t, dtype=bool)[None, None], np.bool_)]
    return build(nodes, [tensor("x", ["B", n, t, 2])], [tensor("y", None)], inits, opset=18)


def test_where_widened_by_a_constant_condition_takes_the_files_shape(tmp_path):
    """Before: the Where took the shape of its (unexpanded) values, B × n × T × 1, and the
    scores' Add failed ('cannot add 2×5×1 to 2×5×5'): the whole import was refused."""
    r = import_saved(tmp_path, _token_type_bias(), batch=2)
    a = analyze(r.draft)
    assert a.ok, a.problems
    where = next(info for info in a.layers if info.kind == "where")
    assert where.out_shape == (2, 5, 5)
    assert a.layers[-1].out_shape == (2, 5, 5)


def _loop_over_activation():
    """The default exporter's nn.EmbeddingBag(mode='mean'), reduced: rows gathered by the ids,
    then a Loop over the bags whose body reads the gathered rows by name from the outer
    graph (no Loop input is an activation), its per-bag means concatenated, then a Gemm. The
    file records every shape (value_info), so shape inference has nothing missing."""
    import numpy as np  # noqa: PLC0415
    from onnx_fixtures import const  # noqa: PLC0415

    body = h.make_graph(
        [h.make_node("ReduceMean", ["rows", "ax"], ["m"], keepdims=1),
         h.make_node("Identity", ["c_in"], ["c_out"])],
        "loop_body",
        [tensor("i", [], onnx.TensorProto.INT64), tensor("c_in", [], onnx.TensorProto.BOOL)],
        [tensor("c_out", [], onnx.TensorProto.BOOL), tensor("m", [1, 8])],
        initializer=[const("ax", [0], np.int64)])
    nodes = [
        h.make_node("Gather", ["table", "ids"], ["rows"], name="/bag/Gather"),
        h.make_node("Loop", ["trips", "cond"], ["bags"], name="/bag/Loop", body=body),
        h.make_node("Reshape", ["bags", "shape"], ["flat"], name="/bag/Reshape"),
        h.make_node("Gemm", ["flat", "fc.w", "fc.b"], ["y"], name="/fc/Gemm", transB=1),
    ]
    inits = [weight("table", (50, 8)), weight("fc.w", (4, 8)), weight("fc.b", (4,)),
             const("trips", 1, np.int64), const("cond", True, np.bool_),
             const("shape", [1, 8], np.int64)]
    vi = [tensor("rows", [6, 8]), tensor("bags", [1, 1, 8]), tensor("flat", [1, 8])]
    return build(nodes, [tensor("ids", [6], onnx.TensorProto.INT64)], [tensor("y", [1, 4])],
                 inits, opset=18, value_info=vi)


def test_a_loop_whose_body_reads_activations_is_refused_as_control_flow(tmp_path):
    """Before: the Loop had no activation input, so it and all after it were constants (the
    plan: one layer for the lookup, the Loop and the Gemm's weights not mentioned). Now the
    same refusal as the legacy exporter's file of that network gets, naming the Loop."""
    from planner.core.importers.onnx import OnnxImportError  # noqa: PLC0415

    with pytest.raises(OnnxImportError, match="control flow.*Loop node '/bag/Loop'"):
        import_saved(tmp_path, _loop_over_activation(), batch=1)


def _qkv_with_joined_bias(c: int = 8):
    """BEiT's (and Data2Vec-vision's) qkv projection: F.linear(x, W, cat(q_bias, k_bias,
    v_bias)) with k_bias a zero buffer, as the legacy exporter writes it without constant
    folding (training mode): MatMul with W, then Add of a Concat of two learned vectors and a
    constant."""
    zero = "/attn/Constant_output_0"
    nodes = [
        h.make_node("Constant", [], [zero], name="/attn/Constant",
                    value=h.make_tensor("z", onnx.TensorProto.FLOAT, [c], [0.0] * c)),
        h.make_node("MatMul", ["x", "qkv.w"], ["mm"], name="/attn/MatMul"),
        h.make_node("Concat", ["attn.q_bias", zero, "attn.v_bias"], ["b"],
                    name="/attn/Concat", axis=0),
        h.make_node("Add", ["b", "mm"], ["y"], name="/attn/Add"),
    ]
    inits = [weight("qkv.w", (c, 3 * c)), weight("attn.q_bias", (c,)),
             weight("attn.v_bias", (c,), 0.02)]
    return build(nodes, [tensor("x", ["N", 5, c])], [tensor("y", None)], inits)


def test_a_bias_joined_from_learned_parts_and_zeros_counts_the_learned_parts(tmp_path):
    """Before: the joined bias was counted whole as the layer's bias (3·C) and v_bias as a
    weight of no layer: the plan had C more parameters than the network (BEiT-base:
    +9,216). The product keeps its input; the bias' add keeps nothing."""
    c = 8
    r = import_saved(tmp_path, _qkv_with_joined_bias(c), batch=2)
    a = analyze(r.draft)
    assert a.ok
    assert a.parameters == c * 3 * c + 2 * c
    assert not any("belong to no layer" in w for w in r.warnings), r.warnings
    assert saved_per_sample(r) == 5 * c
