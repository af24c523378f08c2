"""Silent misses found by sweeping transformers / torchvision / peft models nobody had tried
(round 6c), rebuilt with onnx.helper (no torch): each test fails on the importer as it was
before its fix."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from onnx import helper  # noqa: E402
from onnx_fixtures import build, const, import_saved, saved_per_sample  # noqa: E402
from onnx_fixtures import tensor, weight  # noqa: E402

from planner.core.network import analyze  # noqa: E402

h = helper


def _record(node, text: str) -> None:
    p = node.metadata_props.add()
    p.key, p.value = "pkg.torch.onnx.fx_node", text


def _max_pool_over_units(keepdims: int = 0, record: str | None = None, op: str = "ReduceMax",
                         units: int = 4, t: int = 16, c: int = 32):
    """Hiera's pooling over mask units: a linear layer, ``x.view(n, units, t, c).max(dim=1)
    .values`` (ReduceMax over one axis), another linear layer."""
    nodes = [
        h.make_node("MatMul", ["x", "m.proj.weight"], ["a"], name="/m/proj/MatMul"),
        h.make_node(op, ["a"], ["p"], name=f"/m/{op}", axes=[1], keepdims=keepdims),
        h.make_node("MatMul", ["p", "m.fc.weight"], ["y"], name="/m/fc/MatMul"),
    ]
    if record:
        _record(nodes[1], record)
    inits = [weight("m.proj.weight", (c, c)), weight("m.fc.weight", (c, c))]
    return build(nodes, [tensor("x", ["N", units, t, c])], [tensor("y", None)], inits)


@pytest.mark.parametrize("record", [
    "%max_1 : [num_users=1] = call_function[target=torch.ops.aten.max.dim](args = (%view_7, "
    "1), kwargs = {})",
])
def test_max_over_a_dimension_keeps_int64_indices_not_its_input(tmp_path, record):
    """``torch.max(x, dim)`` keeps int64 indices of its result for backward, not its input.
    Before: the input (4× the result, fp32) was planned; Hiera +20.3 % saved bytes from both
    exporters, silent. (The legacy file, which cannot tell max(dim) from amax, plans the
    larger of the two since round 7a: tests/unit/test_onnx_sweep7a.py, and below.)"""
    units, t, c = 4, 16, 32
    r = import_saved(tmp_path, _max_pool_over_units(record=record, units=units, t=t, c=c),
                     batch=2)
    a = analyze(r.draft)
    assert a.ok and r.report.complete
    # the first product keeps x, the max its int64 indices (two fp32 units each), the second
    # product its input
    assert saved_per_sample(r) == units * t * c + 2 * t * c + t * c
    assert not [w for w in r.warnings if "amax" in str(w)]


def test_legacy_max_over_a_dimension_plans_the_larger_reading_and_says_the_other(tmp_path):
    """The legacy file writes amax and torch.max(x, dim) alike: amax (input and result) is
    the larger here, planned; the warning gives what max(dim) would keep less."""
    units, t, c = 4, 256, 256
    r = import_saved(tmp_path, _max_pool_over_units(units=units, t=t, c=c), batch=2)
    assert r.report.complete
    assert saved_per_sample(r) == units * t * c + units * t * c + t * c
    said = [str(w) for w in r.warnings if "amax" in str(w)]
    assert len(said) == 1 and "1 max or min reduction" in said[0]
    # amax's input (4 t c) against the indices (2 t c): 2 * 256² * 4 B * 2 samples
    assert "The plan takes amax" in said[0] and "1.0 MiB lower than planned at batch 2" in said[0]


@pytest.mark.parametrize("keepdims, record", [
    (1, None),  # a reduction keeping its axis: amax(dim, keepdim=True), as before
    (0, "%amax : [num_users=1] = call_function[target=torch.ops.aten.amax.default](args = "
        "(%view_7, [1]), kwargs = {})"),
])
def test_amax_still_keeps_its_input(tmp_path, keepdims, record):
    units, t, c = 4, 16, 32
    r = import_saved(tmp_path, _max_pool_over_units(keepdims, record, units=units, t=t, c=c),
                     batch=2)
    assert r.report.complete
    out = t * c
    assert saved_per_sample(r) == units * t * c + units * t * c + out


def test_min_over_a_dimension_keeps_indices_too(tmp_path):
    units, t, c = 4, 16, 32
    record = ("%min_1 : [num_users=1] = call_function[target=torch.ops.aten.min.dim](args = "
              "(%view_7, 1), kwargs = {})")
    r = import_saved(tmp_path, _max_pool_over_units(op="ReduceMin", units=units, t=t, c=c,
                                                    record=record), batch=2)
    assert saved_per_sample(r) == units * t * c + 2 * t * c + t * c



def _batch_back(x: str, rest: list[int], tag: str) -> tuple[list, object]:
    """``y.view(B, *rest)`` with B read from ``x``'s shape, as both exporters write it."""
    return [
        h.make_node("Shape", [x], [f"{tag}_s"], name=f"/m/{tag}/Shape"),
        h.make_node("Slice", [f"{tag}_s", "zero1", "one1"], [f"{tag}_b"], name=f"/m/{tag}/Slice"),
        h.make_node("Concat", [f"{tag}_b", f"{tag}_rest"], [f"{tag}_shape"],
                    name=f"/m/{tag}/Concat", axis=0),
    ], const(f"{tag}_rest", rest, np.int64)


def _token_list_block(t: int = 16, c: int = 32):
    """A block that runs on the token list: ``h = x.view(-1, C)`` (the batch merged with the
    tokens), a linear layer, ``view(B, T, C)`` back, the residual add; then a linear layer
    viewed as B×T×C and its residual add."""
    back, rest = _batch_back("x", [t, c], "back")
    nodes = [
        h.make_node("Reshape", ["x", "flat"], ["x2"], name="/m/Reshape"),
        h.make_node("MatMul", ["x2", "m.fc.weight"], ["y2"], name="/m/fc/MatMul"),
        *back,
        h.make_node("Reshape", ["y2", "back_shape"], ["y3"], name="/m/Reshape_1"),
        h.make_node("Add", ["x", "y3"], ["r"], name="/m/Add"),
        # the next block: a linear layer whose output is viewed as B×T×C (attention's
        # output projection after its heads are merged back)
        h.make_node("MatMul", ["r", "m.fc2.weight"], ["z0"], name="/m/fc2/MatMul"),
        h.make_node("Reshape", ["z0", "back_shape"], ["z"], name="/m/Reshape_2"),
        h.make_node("Add", ["r", "z"], ["y"], name="/m/Add_1"),
    ]
    inits = [weight("m.fc.weight", (c, c)), weight("m.fc2.weight", (c, c)),
             const("flat", [-1, c], np.int64), rest,
             const("zero1", [0], np.int64), const("one1", [1], np.int64)]
    return build(nodes, [tensor("x", ["N", t, c])], [tensor("y", None)], inits)


def test_a_batch_merged_with_the_tokens_and_split_again_plans(tmp_path):
    """At the inference batch of 1 the batch merged into a token list (a mixture of experts'
    blocks, M2M100's position lookup) was not found again after ``view(B, T, C)``: the plan
    went on 1×T×C, and in the real files a later residual add failed ('cannot add 1×64×128
    to 64×128': no plan for any Mixtral, Qwen2-MoE or M2M100 file, both exporters)."""
    t, c = 16, 32
    r = import_saved(tmp_path, _token_list_block(t, c), batch=2)
    a = analyze(r.draft)
    assert a.ok, a.problems
    assert r.report.complete
    # every tensor after the token list is T×C per sample again, as the input (the batch
    # found): before, 1×T×C, which a later residual add with a T×C branch refused
    assert {layer.out_shape for layer in a.layers[1:] if layer.kind in ("add", "elementwise",
                                                                           "fc")} == {(t, c)}
    assert a.parameters == 2 * c * c
    assert saved_per_sample(r) == 2 * t * c  # the linear layers' inputs; adds keep nothing


def _experts(t: int = 16, c: int = 32, d: int = 24, e: int = 4, k: int = 2,
             gather_nd: bool = False):
    """transformers' batched_mm experts: router softmax, top-k, each token repeated k times,
    ``gate_up_proj[expert_ids]`` (a per-token copy of its expert's matrix), a batched
    product with it, the k results summed, ``view(B, T, D)``."""
    back, rest = _batch_back("x", [t, d], "back")
    gather = [h.make_node("Unsqueeze", ["ids", "last"], ["ids1"], name="/m/experts/Unsqueeze_i"),
              h.make_node("GatherND", ["val_7", "ids1"], ["w_sel"], name="/m/experts/GatherND")] \
        if gather_nd else \
        [h.make_node("Gather", ["m.experts.gate_up_proj", "ids"], ["w_sel"],
                     name="/m/experts/Gather", axis=0)]
    if gather_nd:
        _record(gather[1], "%index : [num_users=1] = call_function[target=torch.ops.aten.index."
                "Tensor](args = (%p_m_experts_gate_up_proj, [%view_8]), kwargs = {})")
    nodes = [
        h.make_node("Reshape", ["x", "flat"], ["x2"], name="/m/Reshape"),
        h.make_node("MatMul", ["x2", "m.gate.weight"], ["logits"], name="/m/gate/MatMul"),
        h.make_node("Softmax", ["logits"], ["probs"], name="/m/gate/Softmax", axis=-1),
        h.make_node("TopK", ["probs", "k"], ["top_v", "top_i"], name="/m/gate/TopK", axis=-1),
        h.make_node("Reshape", ["top_i", "minus1"], ["ids"], name="/m/experts/Reshape"),
        *gather,
        h.make_node("Unsqueeze", ["x2", "one1"], ["x3"], name="/m/experts/Unsqueeze"),
        h.make_node("Expand", ["x3", "rep"], ["x4"], name="/m/experts/Expand"),
        h.make_node("Reshape", ["x4", "flat"], ["x5"], name="/m/experts/Reshape_1"),
        h.make_node("Unsqueeze", ["x5", "last"], ["x6"], name="/m/experts/Unsqueeze_1"),
        h.make_node("MatMul", ["w_sel", "x6"], ["p"], name="/m/experts/MatMul"),
        h.make_node("Squeeze", ["p", "last"], ["p2"], name="/m/experts/Squeeze"),
        h.make_node("Reshape", ["p2", "tkd"], ["p3"], name="/m/experts/Reshape_2"),
        h.make_node("ReduceSum", ["p3", "one1"], ["p4"], name="/m/experts/ReduceSum",
                    keepdims=0),
        *back,
        h.make_node("Reshape", ["p4", "back_shape"], ["y4"], name="/m/Reshape_3"),
    ]
    table = weight("val_7" if gather_nd else "m.experts.gate_up_proj", (e, d, c))
    inits = [weight("m.gate.weight", (c, e)), table, rest,
             const("flat", [-1, c], np.int64), const("minus1", [-1], np.int64),
             const("k", [k], np.int64), const("rep", [1, k, 1], np.int64),
             const("last", [-1], np.int64), const("one1", [1], np.int64),
             const("zero1", [0], np.int64), const("tkd", [-1, k, d], np.int64)]
    return build(nodes, [tensor("x", ["N", t, c])], [tensor("y4", None)], inits, opset=18)


@pytest.mark.parametrize("gather_nd", [False, True])
def test_mixture_of_experts_counts_the_experts_and_keeps_their_gathered_copies(tmp_path,
                                                                              gather_nd):
    """Before: TopK and the gather of the stacked expert weights were operators not
    understood (the experts' parameters missing: Mixtral 260,736 of 1,047,168) and no plan
    was made at all (the batch lost in the token list). Now the lookup counts the whole
    weight and keeps the ids, the batched product keeps the copy it multiplies by, top-k
    keeps its int64 indices: Mixtral and Qwen2-MoE (batched_mm) within 0.02 % of autograd."""
    t, c, d, e, k = 16, 32, 24, 4, 2
    r = import_saved(tmp_path, _experts(t, c, d, e, k, gather_nd), batch=2)
    a = analyze(r.draft)
    assert a.ok, a.problems
    assert r.report.complete, r.warnings
    assert a.parameters == c * e + e * d * c
    s = t * k  # token-expert pairs per sample
    kept = (t * c  # the router's input
            + t * e  # the softmax
            + 2 * s  # top-k's int64 indices
            + s  # the ids the lookup keeps (the planner's own copy of top-k's indices)
            + s * d * c + s * c)  # the batched product: the gathered matrices, the tokens
    assert saved_per_sample(r) == kept


def test_a_standardised_weight_without_a_gain_counts_no_gain(tmp_path):
    """transformers' BiT standardises its convolution weights with ``F.batch_norm(w, None,
    None, training=True)``: no gain. The default exporter stores the norm's scale of ones as
    a constant ('val_N') in its external data, which the import does not read, so the scale
    was taken for a learned gain: +4,352 parameters on BiT-tiny, silent. Its record of the
    call says the weight argument is None."""
    f, c, k = 8, 3, 3
    bn = h.make_node("BatchNormalization", ["w3", "val_1", "val_2", "val_3", "val_4"],
                     ["wn"], name="node__native_batch_norm_legit__0")
    _record(bn, "%_native_batch_norm_legit : [num_users=1] = call_function[target=torch.ops."
            "aten._native_batch_norm_legit.no_stats](args = (%view, None, None, True, 0.0, "
            "1e-08), kwargs = {})")
    shapes = [h.make_node("Constant", [], [n], name=f"node_{n}", value=const(n, v, np.int64))
              for n, v in (("val_5", [1, f, -1]), ("val_6", [f, c, k, k]))]  # stay inline
    nodes = [
        *shapes,
        h.make_node("Reshape", ["m.conv.weight", "val_5"], ["w3"], name="node_view"),
        bn,
        h.make_node("Reshape", ["wn", "val_6"], ["w"], name="node_view_1"),
        h.make_node("Conv", ["x", "w"], ["y0"], name="node_Conv_0", kernel_shape=[k, k],
                    pads=[1, 1, 1, 1]),
        h.make_node("Relu", ["y0"], ["y"], name="node_relu"),
    ]
    inits = [weight("m.conv.weight", (f, c, k, k)), weight("val_1", (f,), 1.0),
             weight("val_2", (f,), 0.0), weight("val_3", (f,), 0.0), weight("val_4", (f,), 1.0)]
    model = build(nodes, [tensor("x", ["N", c, 16, 16])], [tensor("y", None)], inits,
                  opset=18)
    path = tmp_path / "bit.onnx"
    onnx.save_model(model, str(path), save_as_external_data=True,
                    all_tensors_to_one_file=True, location="bit.onnx.data",
                    size_threshold=0)
    from planner.core.importers.onnx import import_onnx  # noqa: PLC0415

    r = import_onnx(path, batch=2)
    conv = next(layer for layer in r.draft.layers if layer.kind == "conv2d")
    assert conv.params["standardized"] == "plain"
    assert r.report.plan_parameters == f * c * k * k


def _shared_position_bias(t: int = 16, c: int = 8, buckets: int = 32):
    """MPNet's encoder: a relative-position bias looked up once by the encoder (its table
    gathered by constant bucket indices) and added to the scores of every layer, as the
    legacy exporter writes it."""
    nodes = [
        h.make_node("Gather", ["m.encoder.relative_attention_bias.weight", "/m/encoder/idx"],
                    ["bias0"], name="/m/encoder/relative_attention_bias/Gather", axis=0),
        h.make_node("Unsqueeze", ["bias0", "/m/encoder/zero"], ["bias"],
                    name="/m/encoder/Unsqueeze"),
        h.make_node("MatMul", ["x", "m.encoder.layer.0.q.weight"], ["s0"],
                    name="/m/encoder/layer.0/attn/q/MatMul"),
        h.make_node("Add", ["s0", "bias"], ["y0"], name="/m/encoder/layer.0/attn/Add"),
        h.make_node("MatMul", ["y0", "m.encoder.layer.1.q.weight"], ["s1"],
                    name="/m/encoder/layer.1/attn/q/MatMul"),
        h.make_node("Add", ["s1", "bias"], ["y"], name="/m/encoder/layer.1/attn/Add"),
    ]
    idx = (np.arange(t)[None, :] - np.arange(t)[:, None]) % buckets
    inits = [weight("m.encoder.relative_attention_bias.weight", (buckets,)),
             const("/m/encoder/idx", idx, np.int64), const("/m/encoder/zero", [0], np.int64),
             weight("m.encoder.layer.0.q.weight", (c, t)),
             weight("m.encoder.layer.1.q.weight", (t, t))]
    return build(nodes, [tensor("x", ["N", t, c])], [tensor("y", None)], inits)


def test_a_bias_computed_once_and_added_by_every_layer_is_one_parameter(tmp_path):
    """The table behind a tensor the encoder computes once and every layer reads was counted
    once per layer (MPNet's legacy export +128 parameters, with only a note blaming the
    exporter's merging of identical tensors)."""
    t, c, buckets = 16, 8, 32
    r = import_saved(tmp_path, _shared_position_bias(t, c, buckets), batch=2)
    assert r.report.complete
    assert r.report.plan_parameters == c * t + t * t + buckets == r.report.file_weights
    assert not r.warnings


def _window_attention(t: int = 16, w: int = 4, c: int = 8):
    """Swin's windows as the legacy exporter writes them: ``x.view(-1, w, C)`` (the batch
    merged with the windows), one packed q|k|v projection viewed as 3×…, q selected from it
    (a transpose and a gather move the merged axis), a projection, ``view(B, T, C)`` back,
    the residual add; then a linear layer viewed as B×T×C and its residual add."""
    back, rest = _batch_back("x", [t, c], "back")
    nodes = [
        h.make_node("Reshape", ["x", "win"], ["xw"], name="/m/attn/Reshape"),
        h.make_node("MatMul", ["xw", "m.attn.qkv.weight"], ["qkv"], name="/m/attn/qkv/MatMul"),
        h.make_node("Reshape", ["qkv", "split3"], ["qkv4"], name="/m/attn/Reshape_1"),
        h.make_node("Transpose", ["qkv4"], ["qkvt"], name="/m/attn/Transpose", perm=[2, 0, 1, 3]),
        h.make_node("Gather", ["qkvt", "zero"], ["q"], name="/m/attn/Gather", axis=0),
        h.make_node("MatMul", ["q", "m.attn.proj.weight"], ["o"], name="/m/attn/proj/MatMul"),
        *back,
        h.make_node("Reshape", ["o", "back_shape"], ["o3"], name="/m/Reshape_2"),
        h.make_node("Add", ["x", "o3"], ["r"], name="/m/Add"),
        h.make_node("MatMul", ["r", "m.fc.weight"], ["z0"], name="/m/fc/MatMul"),
        h.make_node("Reshape", ["z0", "back_shape"], ["z"], name="/m/Reshape_3"),
        h.make_node("Add", ["r", "z"], ["y"], name="/m/Add_1"),
    ]
    inits = [weight("m.attn.qkv.weight", (c, 3 * c)), weight("m.attn.proj.weight", (c, c)),
             weight("m.fc.weight", (c, c)), rest, const("win", [-1, w, c], np.int64),
             const("split3", [-1, w, 3, c], np.int64), const("zero", 0, np.int64),
             const("zero1", [0], np.int64), const("one1", [1], np.int64)]
    return build(nodes, [tensor("x", ["N", t, c])], [tensor("y", None)], inits)


def test_a_merged_batch_is_followed_through_the_transpose_and_select_of_packed_heads(
        tmp_path):
    """Before (and with the token-list tracking alone): q lost the merged batch at the
    transpose of the packed projection, the plan went on 1×T×C after the window block, and
    torchvision's Swin3D-T legacy export failed further on."""
    t, w, c = 16, 4, 8
    r = import_saved(tmp_path, _window_attention(t, w, c), batch=2)
    a = analyze(r.draft)
    assert a.ok, a.problems
    assert r.report.complete
    assert {layer.out_shape for layer in a.layers[1:] if layer.kind in ("add", "elementwise")
            or layer.name.startswith("m.fc")} == {(t, c)}


def test_an_empty_slice_concatenated_back_is_left_out(tmp_path):
    """torch.roll by 0 (Swin3D's shift where the window is as large as the input), as the
    legacy exporter writes it: an empty slice concatenated with the rest. Before: no plan
    ('shape 0 is below 1')."""
    t, c = 16, 8
    nodes = [
        h.make_node("Slice", ["x", "t1", "t1", "ax"], ["e"], name="/m/Slice"),
        h.make_node("Slice", ["x", "z1", "t1", "ax"], ["f"], name="/m/Slice_1"),
        h.make_node("Concat", ["e", "f"], ["rolled"], name="/m/Concat", axis=1),
        h.make_node("MatMul", ["rolled", "m.fc.weight"], ["y"], name="/m/fc/MatMul"),
    ]
    inits = [weight("m.fc.weight", (c, c)), const("t1", [t], np.int64),
             const("z1", [0], np.int64), const("ax", [1], np.int64)]
    model = build(nodes, [tensor("x", ["N", t, c])], [tensor("y", None)], inits)
    r = import_saved(tmp_path, model, batch=2)
    a = analyze(r.draft)
    assert a.ok, a.problems
    assert a.parameters == c * c
    assert saved_per_sample(r) == t * c  # the product keeps the rolled copy


@pytest.mark.parametrize("how", ["buffer", "constant"])
def test_a_lookup_in_a_fixed_table_has_no_parameters(tmp_path, how):
    """M2M100's sinusoidal positions: a buffer looked up by position ids computed from the
    tokens. The default exporter's record reads it as '%b_…'; the legacy exporter makes it a
    Constant. Both were counted as a learned embedding (+33,280 parameters on M2M100-tiny:
    silent from the default exporter, a bare count mismatch from the legacy one)."""
    t, v, c = 16, 40, 8
    table = np.zeros((v, c), np.float32)
    nodes = [h.make_node("Gather", ["pos_table", "ids"], ["e"], name="node_index_select",
                         axis=0),
             h.make_node("MatMul", ["e", "m.fc.weight"], ["y"], name="node_fc")]
    inits = [weight("m.fc.weight", (c, c))]
    if how == "buffer":
        nodes[0].input[0] = "m.embed_positions.weights"
        inits.append(const("m.embed_positions.weights", table))
        _record(nodes[0], "%index_select : [num_users=1] = call_function[target=torch.ops."
                "aten.index_select.default](args = (%b_m_embed_positions_weights, 0, %view), "
                "kwargs = {})")
    else:
        nodes.insert(0, h.make_node("Constant", [], ["pos_table"], name="/m/Constant",
                                    value=const("v", table)))
    model = build(nodes, [tensor("ids", ["N", t], onnx.TensorProto.INT64)],
                  [tensor("y", None)], inits)
    r = import_saved(tmp_path, model, batch=2)
    assert r.report.complete, r.warnings
    assert r.report.plan_parameters == c * c
    assert "embedding" not in [layer.kind for layer in r.draft.layers]


@pytest.mark.parametrize("how", ["no input", "constant zeros"])
def test_a_layer_norm_without_bias_counts_its_scale_alone(tmp_path, how):
    """LayerNorm(bias=False) (ModernBERT, OLMo): the default exporter leaves the bias input
    out, the legacy one writes a Constant of zeros. The plan counted a bias anyway (a warning
    from the default exporter's file, the legacy one marked incomplete by the count: +896
    parameters on ModernBERT-tiny); the rule has ``bias`` now."""
    t, c = 16, 8
    ins = ["x", "m.norm.weight"] + (["/m/norm/Constant_output_0"] if how != "no input" else [])
    nodes = [h.make_node("LayerNormalization", ins, ["n"], name="/m/norm/LayerNormalization",
                         axis=-1),
             h.make_node("MatMul", ["n", "m.fc.weight"], ["y"], name="/m/fc/MatMul")]
    if how != "no input":
        nodes.insert(0, h.make_node("Constant", [], ["/m/norm/Constant_output_0"],
                                    name="/m/norm/Constant", value=const("z", np.zeros(c,
                                                                                    np.float32))))
    model = build(nodes, [tensor("x", ["N", t, c])], [tensor("y", None)],
                  [weight("m.norm.weight", (c,), 1.0), weight("m.fc.weight", (c, c))])
    r = import_saved(tmp_path, model, batch=2)
    assert r.report.complete and not r.warnings
    assert r.report.plan_parameters == c + c * c
    norm = next(layer for layer in r.draft.layers if layer.kind == "layernorm")
    assert norm.params["bias"] is False
