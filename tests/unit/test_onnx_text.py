"""Attention blocks of text models as both PyTorch exporters write them (onnx.helper graphs, no
torch): the same network gives the same plan from either file, and what the plan keeps is what
autograd keeps (measured with transformers' BERT and GPT-2 in benchmarks/onnx_accuracy.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from onnx import helper  # noqa: E402
from onnx_fixtures import (  # noqa: E402
    build, const, import_saved, layer_kinds, saved_per_sample, tensor, weight)

from planner.core.network import analyze  # noqa: E402

T, C, H = 64, 32, 4
D = C // H


imp = import_saved
kinds = layer_kinds
saved_elements = saved_per_sample


def _heads(h, src, out, batch):
    return [h.make_node("Reshape", [src, "heads"], [out + "_r"], name=f"view_{out}"),
            h.make_node("Transpose", [out + "_r"], [out], name=f"transpose_{out}",
                        perm=[0, 2, 1, 3])]


def attention_net(dynamo: bool, cache_copy: bool = False, one_projection: bool = False):
    """x (T×C) → q, k, v projections → heads → softmax attention → merge → output projection.

    ``dynamo``: the default exporter's decomposition of scaled_dot_product_attention at batch
    1 (kᵀ through reshape → transpose → reshape merging batch and heads, q and kᵀ scaled alike,
    a mask added, softmax → IsNaN → Where). Otherwise the legacy exporter's (symbolic batch,
    Transpose of k, the scale on both, softmax → MatMul), named after the function.
    ``cache_copy``: k and v go through a one-input Concat (a key/value cache's first update).
    ``one_projection``: q, k and v split from one projection (GPT-2's c_attn)."""
    h = helper
    batch = 1 if dynamo else "N"
    sdpa = "/attn/scaled_dot_product_attention" if not dynamo else "node"
    if one_projection:
        nodes = [h.make_node("MatMul", ["x", "wqkv.weight"], ["qkv"], name="/c_attn/MatMul"),
                 h.make_node("Split", ["qkv", "sizes"], ["q", "k", "v"], name="/attn/Split",
                             axis=-1)]
    else:
        nodes = [h.make_node("MatMul", ["x", w], [p], name=f"/{p}/MatMul")
                 for w, p in (("wq.weight", "q"), ("wk.weight", "k"), ("wv.weight", "v"))]
    for p in ("q", "k", "v"):
        nodes += _heads(h, p, p + "4", batch)
    k4, v4 = "k4", "v4"
    if cache_copy:
        nodes += [h.make_node("Concat", ["k4"], ["kc"], name="/attn/Concat", axis=2),
                  h.make_node("Concat", ["v4"], ["vc"], name="/attn/Concat_1", axis=2)]
        k4, v4 = "kc", "vc"
    if dynamo:
        nodes += [
            h.make_node("Reshape", [k4, "bh"], ["k3"], name=f"{sdpa}_k3"),
            h.make_node("Transpose", ["k3"], ["k3t"], name=f"{sdpa}_k3t", perm=[0, 2, 1]),
            h.make_node("Reshape", ["k3t", "bhdt"], ["kt"], name=f"{sdpa}_kt"),
        ]
    else:
        nodes.append(h.make_node("Transpose", [k4], ["kt"], name=f"{sdpa}/Transpose",
                                 perm=[0, 1, 3, 2]))
    nodes += [
        h.make_node("Mul", ["q4", "s"], ["qs"], name=f"{sdpa}/Mul"),
        h.make_node("Mul", ["kt", "s"], ["kts"], name=f"{sdpa}/Mul_1"),
        h.make_node("MatMul", ["qs", "kts"], ["sc"], name=f"{sdpa}/MatMul"),
        h.make_node("Add", ["sc", "onnx::Add_9"], ["scm"], name=f"{sdpa}/Add"),
        h.make_node("Softmax", ["scm"], ["p"], name=f"{sdpa}/Softmax", axis=-1),
    ]
    probs = "p"
    if dynamo:
        nodes += [h.make_node("IsNaN", ["p"], ["nan"], name=f"{sdpa}_isnan"),
                  h.make_node("Where", ["nan", "zero", "p"], ["pz"], name=f"{sdpa}_where")]
        probs = "pz"
    nodes += [
        h.make_node("MatMul", [probs, v4], ["o4"], name=f"{sdpa}/MatMul_1"),
        h.make_node("Transpose", ["o4"], ["o4t"], name="/attn/Transpose_o", perm=[0, 2, 1, 3]),
        h.make_node("Reshape", ["o4t", "merge"], ["o"], name="/attn/Reshape_o"),
        h.make_node("MatMul", ["o", "wo.weight"], ["y"], name="/o/MatMul"),
    ]
    b = 1 if dynamo else 0
    inits = [weight("wo.weight", (C, C)), const("s", D ** -0.25),
             const("heads", [b, T, H, D], np.int64), const("merge", [b, T, C], np.int64),
             const("onnx::Add_9", np.zeros((1, 1, 1, T)))]
    if one_projection:
        inits += [weight("wqkv.weight", (C, 3 * C)), const("sizes", [C, C, C], np.int64)]
    else:
        inits += [weight(f"w{p}.weight", (C, C)) for p in "qkv"]
    if dynamo:
        inits += [const("bh", [-1, T, D], np.int64), const("bhdt", [1, H, D, T], np.int64),
                  const("zero", 0.0)]
    return build(nodes, [tensor("x", [batch, T, C])], [tensor("y", None)], inits, opset=18)


def test_both_exporters_plan_a_decomposed_sdpa_as_one_fused_attention(tmp_path):
    legacy = imp(tmp_path, attention_net(dynamo=False), "legacy.onnx")
    dynamo = imp(tmp_path, attention_net(dynamo=True), "dynamo.onnx", batch=32)
    for r in (legacy, dynamo):
        assert "attention" in kinds(r), kinds(r)
        assert "softmax" not in kinds(r) and "matmul" not in kinds(r)
        assert r.report.complete and analyze(r.draft).ok
        assert analyze(r.draft).output_shape == (T, C)
        assert any("attention" in n for n in r.notes)
    # x (read by the three projections, one storage), q, k, v, the output (read by the output
    # projection too), one logsumexp per head and query row: not the T×T probabilities.
    want = T * C + 3 * T * C + T * C + H * T
    assert saved_elements(legacy) == want
    assert saved_elements(dynamo) == want


def test_a_one_input_concat_is_a_copy_that_attention_keeps(tmp_path):
    """GPT-2 copies k and v into its key/value cache in training too (torch.cat onto an empty
    cache; the legacy exporter writes a one-input Concat): autograd keeps the copies besides
    the q/k/v projection, which q (a view of it) keeps whole."""
    plain = imp(tmp_path, attention_net(False, one_projection=True), "plain.onnx")
    cached = imp(tmp_path, attention_net(False, cache_copy=True, one_projection=True),
                 "cached.onnx")
    assert kinds(cached).count("elementwise") == kinds(plain).count("elementwise") + 2
    assert plain.report.complete and cached.report.complete
    # x, the projection q, k and v are views of (3·T·C), output, logsumexp
    assert saved_elements(plain) == T * C + 3 * T * C + T * C + H * T
    # and the copies of k and v
    assert saved_elements(cached) == saved_elements(plain) + 2 * T * C


def test_transformer_files_say_what_their_plan_leaves_out(tmp_path):
    """What the benchmark measured and the importer cannot see is said, never passed off as
    exact: a default-exporter transformer file (GPT-2's key/value cache missing, Llama's
    repeated keys and values extra) and a file with no dropout (maybe an inference export)."""
    legacy = imp(tmp_path, attention_net(dynamo=False), "legacy.onnx")
    assert any("No dropout in the file" in w for w in legacy.warnings), legacy.warnings
    assert not any("default exporter" in w for w in legacy.warnings)
    model = attention_net(dynamo=True)
    for node in model.graph.node:  # what torch.onnx.export (dynamo) stamps on every node
        prop = node.metadata_props.add()
        prop.key, prop.value = "pkg.torch.onnx.stack_trace", "model.py:1"
    dynamo = imp(tmp_path, model, "dynamo.onnx", batch=32)
    assert any("No dropout in the file" in w for w in dynamo.warnings), dynamo.warnings
    assert not dynamo.incomplete  # an approximation, stated: not "part of the graph"


SDPA_FX = ("%scaled_dot_product_attention : [num_users=1] = call_function[target=torch.ops."
           "aten.scaled_dot_product_attention.default](args = (%transpose_2, {k}, {v}, "
           "%expand, 0.1), kwargs = {{scale: 0.35}})")


def _stamp_sdpa(model, k: str, v: str):
    """The FX node the default exporter records on each node of its SDPA decomposition."""
    for node in model.graph.node:
        if node.name.startswith("node"):
            prop = node.metadata_props.add()
            prop.key, prop.value = "pkg.torch.onnx.fx_node", SDPA_FX.format(k=k, v=v)
    return model


def test_key_value_cache_copies_the_default_exporter_removed_are_put_back(tmp_path):
    """GPT-2 in training copies k and v onto an empty key/value cache (torch.cat); the default
    exporter's optimiser drops the one-input Concat, and only its record of the traced FX
    node (SDPA reading %cat, %cat_1, tensors the file does not have) tells: the plan is the
    legacy file's, with the copies."""
    legacy = imp(tmp_path, attention_net(False, cache_copy=True, one_projection=True),
                 "legacy.onnx")
    stamped = _stamp_sdpa(attention_net(True, one_projection=True), "%cat", "%cat_1")
    dynamo = imp(tmp_path, stamped, "dynamo.onnx", batch=2)
    assert saved_elements(dynamo) == saved_elements(legacy) == \
        T * C + 3 * T * C + T * C + H * T + 2 * T * C
    assert any("key/value cache" in n for n in dynamo.notes), dynamo.notes
    # the same record naming tensors the file has (no copy removed): nothing added
    plain = _stamp_sdpa(attention_net(True, one_projection=True), "%k4", "%v4")
    assert saved_elements(imp(tmp_path, plain, "plain.onnx", batch=2)) == \
        T * C + 3 * T * C + T * C + H * T


def gqa_net(mask_input: bool, fused: bool = False):
    """Grouped-query attention as transformers exports it (Llama): q with H heads, k and v with
    G, repeated to every head by Unsqueeze → Expand → Reshape (repeat_kv) before SDPA.
    ``fused``: q, k and v split from one projection (Phi-3's qkv_proj)."""
    h = helper
    g = 2
    if fused:
        nodes = [h.make_node("MatMul", ["x", "wqkv.weight"], ["qkv"], name="/qkv_proj/MatMul"),
                 h.make_node("Split", ["qkv", "sizes"], ["q", "k", "v"], name="/attn/Split",
                             axis=-1)]
    else:
        nodes = [h.make_node("MatMul", ["x", "wq.weight"], ["q"], name="/q_proj/MatMul"),
                 h.make_node("MatMul", ["x", "wk.weight"], ["k"], name="/k_proj/MatMul"),
                 h.make_node("MatMul", ["x", "wv.weight"], ["v"], name="/v_proj/MatMul")]
    nodes += _heads(h, "q", "q4", "N")
    for p in ("k", "v"):
        nodes += [h.make_node("Reshape", [p, "kvheads"], [p + "_r"], name=f"/{p}/view"),
                  h.make_node("Transpose", [p + "_r"], [p + "4"], name=f"/{p}/transpose",
                              perm=[0, 2, 1, 3]),
                  h.make_node("Unsqueeze", [p + "4", "ax2"], [p + "5"], name=f"/{p}/unsq"),
                  h.make_node("Expand", [p + "5", "rep"], [p + "6"], name=f"/{p}/expand"),
                  h.make_node("Reshape", [p + "6", "allheads"], [p + "7"],
                              name=f"/{p}/reshape")]
    sdpa = "/attn/scaled_dot_product_attention"
    score_in = "sc"
    nodes += [
        h.make_node("Transpose", ["k7"], ["kt"], name=f"{sdpa}/Transpose", perm=[0, 1, 3, 2]),
        h.make_node("Mul", ["q4", "s"], ["qs"], name=f"{sdpa}/Mul"),
        h.make_node("Mul", ["kt", "s"], ["kts"], name=f"{sdpa}/Mul_1"),
        h.make_node("MatMul", ["qs", "kts"], ["sc"], name=f"{sdpa}/MatMul")]
    if mask_input:
        nodes += [h.make_node("Cast", ["mask"], ["maskf"], name="/mask/Cast", to=1),
                  h.make_node("Add", ["sc", "maskf"], ["scm"], name=f"{sdpa}/Add")]
        score_in = "scm"
    nodes += [
        h.make_node("Softmax", [score_in], ["p"], name=f"{sdpa}/Softmax", axis=-1),
        h.make_node("MatMul", ["p", "v7"], ["o4"], name=f"{sdpa}/MatMul_1"),
        h.make_node("Transpose", ["o4"], ["o4t"], name="/attn/Transpose_o", perm=[0, 2, 1, 3]),
        h.make_node("Reshape", ["o4t", "merge"], ["o"], name="/attn/Reshape_o"),
        h.make_node("MatMul", ["o", "wo.weight"], ["y"], name="/o/MatMul"),
    ]
    projections = [weight("wqkv.weight", (C, C + 2 * g * D)),
                   const("sizes", [C, g * D, g * D], np.int64)] if fused else \
        [weight("wq.weight", (C, C)), weight("wk.weight", (C, g * D)),
         weight("wv.weight", (C, g * D))]
    inits = [*projections, weight("wo.weight", (C, C)), const("s", D ** -0.25), const("heads", [0, T, H, D], np.int64),
             const("kvheads", [0, T, g, D], np.int64), const("ax2", [2], np.int64),
             const("rep", [1, 1, H // g, 1, 1], np.int64),
             const("allheads", [0, H, T, D], np.int64), const("merge", [0, T, C], np.int64)]
    inputs = [tensor("x", ["N", T, C])]
    if mask_input:
        inputs.append(tensor("mask", ["N", 1, T, T], onnx.TensorProto.INT64))
    return build(nodes, inputs, [tensor("y", None)], inits, opset=18)


def test_grouped_query_attention_keeps_k_and_v_once_without_a_mask_input(tmp_path):
    """transformers runs SDPA with enable_gqa when there is no padding mask (k and v kept once
    per group); the trace repeats them (repeat_kv), which training keeps only with a mask."""
    g = 2
    plain = imp(tmp_path, gqa_net(mask_input=False), "gqa.onnx", batch=2)
    assert plain.report.complete and analyze(plain.draft).ok
    assert analyze(plain.draft).output_shape == (T, C)
    # x, q, k and v (G heads each), the output, a logsumexp per head and row
    assert saved_elements(plain) == T * C + T * C + 2 * g * T * D + T * C + H * T
    assert any("enable_gqa" in n for n in plain.notes), plain.notes
    masked = imp(tmp_path, gqa_net(mask_input=True), "gqa_mask.onnx", batch=2)
    # with a padding mask the repeated copies (H heads each) are what attention reads
    assert saved_elements(masked) == T * C + T * C + 2 * H * T * D + T * C + H * T
    assert not any("enable_gqa" in n for n in masked.notes)


def test_a_cache_copy_the_exporter_removed_before_a_key_value_repeat_is_put_back(tmp_path):
    """Phi-3 in training appends k and v to an empty key/value cache (torch.cat) and then
    repeats them for grouped heads; the default exporter drops the one-input Concat, and only
    its record on the repeat's Unsqueeze (unsqueeze(%cat_1, 2), a tensor the file lacks) says
    so. Attention keeps the copies (G heads each) and no longer holds the fused projection's
    output through a view of v: the dynamo Phi-3 planned +6.3 % before."""
    g = 2

    def stamped(k_arg: str, v_arg: str):
        model = gqa_net(mask_input=False, fused=True)
        for node in model.graph.node:
            if node.op_type == "Unsqueeze":
                arg = k_arg if node.name.startswith("/k/") else v_arg
                prop = node.metadata_props.add()
                prop.key = "pkg.torch.onnx.fx_node"
                prop.value = (f"%unsqueeze_3 : [num_users=1] = call_function[target=torch.ops."
                              f"aten.unsqueeze.default](args = ({arg}, 2), kwargs = {{}})")
        return model

    views = imp(tmp_path, stamped("%transpose_1", "%transpose_2"), "views.onnx", batch=2)
    copies = imp(tmp_path, stamped("%cat", "%cat_1"), "copies.onnx", batch=2)
    assert views.report.complete and copies.report.complete
    # x, the fused projection's output (q, k and v are views of it), the attention output
    # (the output projection's input), a logsumexp per head and row
    qkv = T * (C + 2 * g * D)
    assert saved_elements(views) == T * C + qkv + T * C + H * T
    # the cache copies of k and v besides (q is still a view of the projection's output)
    assert saved_elements(copies) == saved_elements(views) + 2 * g * T * D
    assert any("key/value cache" in n for n in copies.notes), copies.notes
    assert not any("key/value cache" in n for n in views.notes), views.notes


def test_attention_with_heads_in_the_shapes_reads_fewer_key_value_groups():
    """The core rule for imported attention (heads in the shapes): k and v with fewer groups
    than q are grouped-query attention, kept as they are when not repeated, repeated to every
    head otherwise; groups that do not divide q's are refused, naming the layer."""
    from planner.core.layers import LayerSpec  # noqa: PLC0415
    from planner.core.network import NetworkDraft  # noqa: PLC0415

    def att(kv_groups, **p):
        layers = (LayerSpec("input", "q", {"shape": (8, 10, 4)}),
                  LayerSpec("view", "k", {"shape": (kv_groups, 10, 4), "input": "q"}),
                  LayerSpec("view", "v", {"shape": (kv_groups, 10, 4), "input": "q"}),
                  LayerSpec("attention", "att", {"input": "q", "from": ("k", "v"), **p}))
        return analyze(NetworkDraft("a", layers))

    def saved(a):
        return [(s.source, s.elements) for s in a.layers[-1].result.saved]

    once = att(2, repeat_kv=False)
    assert once.ok, once.problems
    assert saved(once)[1:3] == [("input:1", 2 * 10 * 4), ("input:2", 2 * 10 * 4)]
    assert saved(att(2))[1:3] == [("own", 8 * 10 * 4), ("own", 8 * 10 * 4)]
    bad = att(3)
    assert not bad.ok and "att" in str(bad.problems[0])


def _scaled_scores(scale_name: str, scale_dims, signature: str | None = None):
    """Attention scores (N×H×T×T) times a constant the default exporter folded, then a
    projection: as Swin-V2's cosine attention exports (exp(clamp(logit_scale)) per head)."""
    h = helper
    nodes = [h.make_node("Mul", ["x", scale_name], ["xs"], name="node_mul_1"),
             h.make_node("MatMul", ["xs", "blocks.0.attn.proj.weight"], ["y"],
                         name="node_linear")]
    for node in nodes:
        for key, value in (("pkg.torch.onnx.name_scopes", "['', 'blocks.0', 'blocks.0.attn', "
                                                          "'mul_1']"),
                           ("pkg.torch.onnx.fx_node", "%mul_1 : [num_users=1]")):
            prop = node.metadata_props.add()
            prop.key, prop.value = key, value
    model = build(nodes, [tensor("x", [1, H, T, T])], [tensor("y", None)],
                  [weight(scale_name, scale_dims, 2.0),
                   weight("blocks.0.attn.proj.weight", (T, T))], opset=18)
    if signature is not None:
        prop = model.metadata_props.add()
        prop.key, prop.value = "pkg.torch.export.ExportedProgram.graph_signature", signature
    return model


def test_a_product_with_a_constant_folded_out_of_a_parameter_keeps_its_activation(tmp_path):
    """The default exporter folds exp(clamp(logit_scale)) into a constant ('exp'); training
    still needs logit_scale's gradient, so the product keeps the T×T scores (Swin-V2: -11 %
    without them). A per-head factor is taken as learned; a folded table (rotary sines, a
    mask) is not, nor anything where the file's parameter list says none was folded."""
    scores = H * T * T
    projection_keeps = scores  # the MatMul keeps its input (the scaled scores)
    per_head = imp(tmp_path, _scaled_scores("exp", (H, 1, 1)), "a.onnx", batch=2)
    assert saved_elements(per_head) == projection_keeps + scores
    # the factor counts as the parameter it came from (as many values), and the import says so
    assert analyze(per_head.draft).parameters == T * T + H
    assert any("per-channel factor" in n for n in per_head.notes), per_head.notes
    assert not any("computed when the file was exported" in w for w in per_head.warnings)
    table = imp(tmp_path, _scaled_scores("unsqueeze_3", (1, 1, T, T)), "b.onnx", batch=2)
    assert saved_elements(table) == projection_keeps
    listed = "p_w: PARAMETER target='blocks.0.attn.proj.weight'\n"
    none_folded = imp(tmp_path, _scaled_scores("exp", (H, 1, 1), listed), "c.onnx", batch=2)
    assert saved_elements(none_folded) == projection_keeps
    folded = imp(tmp_path, _scaled_scores(
        "exp", (1, 1, T, T), listed + "p_s: PARAMETER target='blocks.0.attn.logit_scale'\n"),
        "d.onnx", batch=2)
    assert saved_elements(folded) == projection_keeps + scores


def test_a_top_level_parameter_of_a_default_export_is_a_parameter_not_a_folded_constant(
        tmp_path):
    """The default exporter names parameters by their module path ('blocks.0.mlp.weight'), and
    its folded constants by the op that made them ('expand'): a parameter of the model itself
    (timm ViT's 'pos_embed') has no dot either, but the FX record reads it as '%p_pos_embed'."""
    h = helper

    def net(record: str):
        node = h.make_node("Add", ["x", "pos_embed"], ["y"], name="node_add")
        prop = node.metadata_props.add()
        prop.key, prop.value = "pkg.torch.onnx.fx_node", record
        proj = h.make_node("MatMul", ["y", "head.weight"], ["z"], name="node_linear")
        return build([node, proj], [tensor("x", [1, T, C])], [tensor("z", None)],
                     [weight("pos_embed", (1, T, C)), weight("head.weight", (C, C))], opset=18)

    param = imp(tmp_path, net("%add : = call_function[target=torch.ops.aten.add.Tensor]("
                              "args = (%x, %p_pos_embed), kwargs = {})"), "p.onnx", batch=2)
    assert analyze(param.draft).parameters == T * C + C * C
    assert param.report.complete
    folded = imp(tmp_path, net("%add : = call_function[target=torch.ops.aten.add.Tensor]("
                               "args = (%x, %expand), kwargs = {})"), "f.onnx", batch=2)
    assert analyze(folded.draft).parameters == C * C
    assert any("computed when the file was exported" in w for w in folded.warnings)


def test_the_opset_23_attention_op_is_fused_attention_and_gets_its_cache_copies_back(tmp_path):
    """ONNX's own Attention operator (opset 23): one fused layer; where the default exporter's
    record says it read %cat / %cat_1 (copies its optimiser removed), the copies are kept."""
    h = helper

    def net(stamp: bool):
        nodes = [h.make_node("MatMul", ["x", f"w{p}.weight"], [p], name=f"/{p}/MatMul")
                 for p in "qkv"]
        for p in "qkv":
            nodes += _heads(h, p, p + "4", "N")
        att = h.make_node("Attention", ["q4", "k4", "v4"], ["o4"], name="node_attention")
        if stamp:
            prop = att.metadata_props.add()
            prop.key, prop.value = "pkg.torch.onnx.fx_node", SDPA_FX.format(k="%cat",
                                                                            v="%cat_1")
        nodes += [att,
                  h.make_node("Transpose", ["o4"], ["o4t"], name="/o/T", perm=[0, 2, 1, 3]),
                  h.make_node("Reshape", ["o4t", "merge"], ["o"], name="/o/Reshape"),
                  h.make_node("MatMul", ["o", "wo.weight"], ["y"], name="/o/MatMul")]
        inits = [weight(f"w{p}.weight", (C, C)) for p in "qkvo"] + [
            const("heads", [0, T, H, D], np.int64), const("merge", [0, T, C], np.int64)]
        return build(nodes, [tensor("x", ["N", T, C])], [tensor("y", None)], inits, opset=23)

    plain = imp(tmp_path, net(False), "plain.onnx", batch=2)
    assert "attention" in kinds(plain) and plain.report.complete, plain.warnings
    # x (the three projections' input), q, k, v, the output, a logsumexp per head and row
    assert saved_elements(plain) == T * C + 3 * T * C + T * C + H * T
    copied = imp(tmp_path, net(True), "copied.onnx", batch=2)
    assert kinds(copied).count("elementwise") == kinds(plain).count("elementwise") + 2
    # attention keeps the copies instead of the k and v projections (kept by nothing else)
    assert saved_elements(copied) == saved_elements(plain)


def test_a_layer_scale_the_legacy_exporter_folded_counts_as_the_parameter(tmp_path):
    """dynamo=False with its default constant folding turns ConvNeXt's gamma.reshape(1,-1,1,1)
    into 'onnx::Mul_N': among named parameters a per-channel factor is that parameter (timm
    convnext_atto eval export: -1,840 parameters and -7.5 % saved bytes before)."""
    h = helper
    nodes = [h.make_node("Mul", ["x", "onnx::Mul_7"], ["xs"], name="/stages.0/Mul"),
             h.make_node("Conv", ["xs", "stages.0.conv.weight"], ["y"], name="/stages.0/Conv",
                         kernel_shape=[1, 1])]
    model = build(nodes, [tensor("x", ["N", C, 8, 8])], [tensor("y", None)],
                  [weight("onnx::Mul_7", (1, C, 1, 1), 1e-6),
                   weight("stages.0.conv.weight", (C, C, 1, 1))])
    r = imp(tmp_path, model, "ls.onnx", batch=2)
    assert analyze(r.draft).parameters == C + C * C
    assert r.report.complete, r.warnings
    # the product keeps x (gamma's gradient), the convolution keeps the product
    assert saved_elements(r) == 2 * C * 8 * 8


# ---------------------------------------------------------------------- key/value cache unknown
def _causal(model, external: Path | None = None):
    """``model`` with a causal mask (0 on and below the diagonal, -inf above: a decoder's) in
    place of the padding mask; saved with its constants in a side file where ``external``."""
    for k, t in enumerate(model.graph.initializer):
        if t.name == "onnx::Add_9":
            mask = np.triu(np.full((T, T), -np.inf, dtype=np.float32), 1)[None, None]
            model.graph.initializer[k].CopyFrom(const("onnx::Add_9", mask))
    if external is not None:
        onnx.save(model, str(external), save_as_external_data=True,
                  location=external.name + ".data", size_threshold=1024)
    return model


def _cache_warning(result) -> list[str]:
    return [w for w in result.warnings if "key/value cache" in w]


def _saved_bytes(result) -> int:
    from planner.core.memory import estimate  # noqa: PLC0415

    return estimate(result.draft, result.setup).saved_bytes


def test_a_decoder_file_without_the_exporters_record_says_what_a_cache_would_add(tmp_path):
    """A decoder whose file lost the exporter's record (stripped by an optimiser, or a legacy
    export): whether k and v were copied into a key/value cache (Hugging Face's default, also
    in training) cannot be read from the graph, so the import says how much more attention
    keeps if they were: what the same network's file with the copies plans more."""
    from planner.core.importers.onnx import import_onnx  # noqa: PLC0415

    path = tmp_path / "stripped.onnx"
    _causal(attention_net(True, one_projection=True), external=path)
    stripped = import_onnx(path, batch=2)
    (line,) = _cache_warning(stripped)
    with_copies = imp(tmp_path, _causal(attention_net(False, cache_copy=True,
                                                      one_projection=True)), "c.onnx", batch=2)
    more = _saved_bytes(with_copies) - _saved_bytes(stripped)
    assert more == 2 * 2 * T * C * 4  # k and v, batch 2, fp32
    assert f"{more / 1024:.1f} KiB more at batch 2" in line, line
    assert f"({100 * more / _saved_bytes(stripped):.1f} %" in line, line
    assert "use_cache=False" in line
    assert not stripped.incomplete  # a stated possibility, not a part of the graph missing
    # the legacy form of the same decoder, no copy in the file: said too
    legacy = imp(tmp_path, _causal(attention_net(False, one_projection=True)), "l.onnx",
                 batch=2)
    assert len(_cache_warning(legacy)) == 1


def test_no_cache_warning_where_the_file_tells_or_the_copies_would_change_nothing(tmp_path):
    # an encoder (a padding mask, not a causal one: BERT, a vision transformer) has no cache
    encoder = imp(tmp_path, attention_net(True, one_projection=True), "enc.onnx", batch=2)
    assert "attention" in kinds(encoder) and not _cache_warning(encoder)
    # the exporter's record is there: the plan follows it (copies put back, or none made)
    for k, v in (("%cat", "%cat_1"), ("%k4", "%v4")):
        rec = imp(tmp_path, _stamp_sdpa(_causal(attention_net(True, one_projection=True)),
                                        k, v), "rec.onnx", batch=2)
        assert not _cache_warning(rec), rec.warnings
    # the copies are in the file (the legacy exporter's one-input Concat)
    shown = imp(tmp_path, _causal(attention_net(False, cache_copy=True, one_projection=True)),
                "shown.onnx", batch=2)
    assert not _cache_warning(shown), shown.warnings
    # k and v from projections of their own: a copy would replace them, nothing more kept
    own = imp(tmp_path, _causal(attention_net(True)), "own.onnx", batch=2)
    assert "attention" in kinds(own) and not _cache_warning(own), own.warnings


def _rotary_net(names: str):
    """x → projection → × a position table (a rotary cos, a constant the default exporter
    names for its FX node, 'unsqueeze_3') → y; nodes named as ``names`` exporter does, and no
    metadata (the default exporter's record stripped)."""
    h = helper
    mm, mul = ("node_linear", "node_mul") if names == "dynamo" else ("/q/MatMul", "/Mul")
    nodes = [h.make_node("MatMul", ["x", "q.weight"], ["q"], name=mm),
             h.make_node("Mul", ["q", "unsqueeze_3"], ["y"], name=mul)]
    table = np.cos(np.arange(T * C, dtype=np.float32)).reshape(1, T, C)
    return build(nodes, [tensor("x", [1, T, C])], [tensor("y", None)],
                 [weight("q.weight", (C, C)), const("unsqueeze_3", table)], opset=18)


def test_a_stripped_default_export_still_tells_its_constants_from_parameters(tmp_path):
    """The default exporter names its own constants for their FX nodes ('unsqueeze_3', a
    rotary table); parameters keep their module path. A file stripped of the exporter's record
    keeps the names: the table is not a parameter, and the product keeps nothing for it."""
    r = imp(tmp_path, _rotary_net("dynamo"), "stripped.onnx", batch=2)
    assert r.report.plan_parameters == C * C, r.report
    assert saved_elements(r) == T * C  # x, for the projection's weight gradient


def _eager_scores_net(dropout: bool):
    """One head of eager attention as BERT-style modules write it (DeBERTa, MPNet: q·kᵀ ÷ √d,
    softmax, ·v, no scaled_dot_product_attention), with or without dropout on the
    probabilities: what model.eval() gives the default exporter, and model.train() the legacy
    one."""
    n = [helper.make_node("MatMul", ["x", "wq"], ["q"], name="q"),
         helper.make_node("MatMul", ["x", "wk"], ["k"], name="k"),
         helper.make_node("MatMul", ["x", "wv"], ["v"], name="v"),
         helper.make_node("Transpose", ["k"], ["kt"], name="kt", perm=[0, 2, 1]),
         helper.make_node("MatMul", ["q", "kt"], ["s"], name="scores"),
         helper.make_node("Div", ["s", "scale"], ["sd"], name="scale"),
         helper.make_node("Softmax", ["sd"], ["p"], name="softmax", axis=-1)]
    probs = "p"
    if dropout:
        n.append(helper.make_node("Dropout", ["p", "ratio", "training"], ["pd", "mask"],
                                  name="dropout"))
        probs = "pd"
    n += [helper.make_node("MatMul", [probs, "v"], ["o"], name="context"),
          helper.make_node("MatMul", ["o", "wo"], ["y"], name="out")]
    inits = [weight(w, (C, C)) for w in ("wq", "wk", "wv", "wo")] + [
        const("scale", np.sqrt(C)), const("ratio", 0.1),
        const("training", True, dtype=np.bool_)]
    return build(n, [tensor("x", ("batch", T, C))], [tensor("y", ("batch", T, C))], inits)


def test_an_eager_attention_file_without_dropout_says_it_may_be_an_inference_export(tmp_path):
    """The default exporter on model.eval() (how users export) drops dropout: DeBERTa's and
    MPNet's eager attention planned 18-23 % under autograd's saved bytes with nothing said,
    where SDPA models were warned."""
    no_drop = imp(tmp_path, _eager_scores_net(dropout=False), "eval.onnx", batch=2)
    assert no_drop.report.complete
    assert any("No dropout in the file" in w for w in no_drop.warnings), no_drop.warnings
    with_drop = imp(tmp_path, _eager_scores_net(dropout=True), "train.onnx", batch=2)
    assert "dropout" in kinds(with_drop)
    assert not any("No dropout in the file" in w for w in with_drop.warnings)
    # The plan without dropout keeps less than the one with it: what the warning is about.
    assert saved_elements(no_drop) < saved_elements(with_drop)


def _with_boolean_mask(model, scope: str = "/attn/scaled_dot_product_attention",
                       shared: bool = False, padding: bool = True, window: int = 0,
                       sliding: bool = False):
    """``attention_net(False)`` with a boolean mask expanded to B×1×T×T given to
    scaled_dot_product_attention, which the legacy exporter writes as Where(mask, 0, -inf)
    inside the call. ``padding``: made from a padding-mask input (its values); otherwise a
    causal mask made from the input's shape alone (as transformers' Falcon builds it).
    ``shared``: the Where in the model's top scope instead (a float mask made once).
    ``window``: a band of positions |i - j| <= window made from the length alone (ModernBERT's
    local attention) instead of the causal constant; with ``sliding``, a causal sliding window
    j <= i and j > i - window instead (Mistral's)."""
    h = helper
    where = f"{scope}/Where" if not shared else "/Where_mask"
    if window:
        made = [h.make_node("Range", ["zero_i", "t_i", "one_i"], ["pos"], name="/Range"),
                h.make_node("Unsqueeze", ["pos", "axes0"], ["row"], name="/Unsqueeze_r"),
                h.make_node("Unsqueeze", ["pos", "axes1"], ["col"], name="/Unsqueeze_c")]
        if sliding:
            made += [
                h.make_node("LessOrEqual", ["row", "col"], ["causal_b"], name="/LessOrEqual"),
                h.make_node("Sub", ["col", "w_i"], ["lower"], name="/Sub"),
                h.make_node("Greater", ["row", "lower"], ["inside"], name="/Greater"),
                h.make_node("And", ["causal_b", "inside"], ["band"], name="/And")]
        else:
            made += [
                h.make_node("Sub", ["col", "row"], ["dist"], name="/Sub"),
                h.make_node("Abs", ["dist"], ["adist"], name="/Abs"),
                h.make_node("LessOrEqual", ["adist", "w_i"], ["band"], name="/LessOrEqual")]
        made += [
                h.make_node("Unsqueeze", ["band", "axes01"], ["band4"], name="/Unsqueeze_b"),
                h.make_node("Shape", ["x"], ["xs"], name="/Shape"),
                h.make_node("Gather", ["xs", "zero_i"], ["n"], name="/Gather", axis=0),
                h.make_node("Unsqueeze", ["n", "axes0"], ["n1"], name="/Unsqueeze"),
                h.make_node("Concat", ["n1", "rest"], ["dims"], name="/Concat", axis=0),
                h.make_node("Expand", ["band4", "dims"], ["maskb"], name="/Expand")]
        model.graph.initializer.extend([
            const("t_i", T, np.int64), const("one_i", 1, np.int64),
            const("w_i", window, np.int64), const("axes1", [1], np.int64),
            const("axes01", [0, 1], np.int64)])
    elif padding:
        made = [h.make_node("Unsqueeze", ["attention_mask", "axes12"], ["m4"],
                            name="/Unsqueeze"),
                h.make_node("Expand", ["m4", "tt"], ["maskb"], name="/Expand")]
    else:
        made = [h.make_node("Shape", ["x"], ["xs"], name="/Shape"),
                h.make_node("Gather", ["xs", "zero_i"], ["n"], name="/Gather", axis=0),
                h.make_node("Unsqueeze", ["n", "axes0"], ["n1"], name="/Unsqueeze"),
                h.make_node("Concat", ["n1", "rest"], ["dims"], name="/Concat", axis=0),
                h.make_node("Expand", ["causal", "dims"], ["maskb"], name="/Expand")]
    made.append(h.make_node("Where", ["maskb", "zero_f", "ninf"], ["maskf"], name=where))
    for node in model.graph.node:
        if node.op_type == "Add" and "onnx::Add_9" in node.input:
            node.input[1] = "maskf"
    nodes = made + list(model.graph.node)
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    model.graph.initializer.extend([
        const("zero_i", 0, np.int64), const("axes0", [0], np.int64),
        const("axes12", [1, 2], np.int64), const("tt", [1, 1, T, T], np.int64),
        const("rest", [1, T, T], np.int64), const("zero_f", 0.0), const("ninf", -1e9),
        const("causal", np.tril(np.ones((1, 1, T, T))).astype(bool), dtype=np.bool_)])
    if padding and not window:
        model.graph.input.append(tensor("attention_mask", ["N", T], onnx.TensorProto.BOOL))
    return model


def test_a_boolean_mask_sdpa_converts_at_every_call_is_kept_by_the_fused_kernel(tmp_path):
    """scaled_dot_product_attention turns a boolean mask into a float one at each call, and
    the memory-efficient kernel CUDA runs for a masked attention keeps it: a padding mask
    keeps T×T more per sample and call."""
    plain = imp(tmp_path, attention_net(dynamo=False), "plain.onnx", batch=2)
    masked = imp(tmp_path, _with_boolean_mask(attention_net(dynamo=False)), "masked.onnx",
                 batch=2)
    assert "attention" in kinds(masked) and masked.report.complete
    assert saved_elements(masked) == saved_elements(plain) + T * T
    # Made once outside the call (a float mask passed to every layer): kept by reference,
    # nothing new per call.
    shared = imp(tmp_path, _with_boolean_mask(attention_net(dynamo=False), shared=True),
                 "shared.onnx", batch=2)
    assert saved_elements(shared) == saved_elements(plain)


def test_a_causal_mask_built_from_the_length_alone_is_said_with_its_size(tmp_path):
    """A mask made from shapes only: recent transformers models (Llama, Qwen2, Mistral, Gemma)
    skip it in training and run the causal kernel (planned so; counting it made them +4.2 %),
    Falcon passes it (then -7.96 %): the file cannot tell, so the import says what it would
    add (T×T floats per call at the batch asked)."""
    plain = imp(tmp_path, attention_net(dynamo=False), "plain.onnx", batch=64)
    causal = imp(tmp_path, _with_boolean_mask(attention_net(dynamo=False), padding=False),
                 "causal.onnx", batch=64)
    assert saved_elements(causal, 64) == saved_elements(plain, 64)
    said = [w for w in causal.warnings if "sequence length alone" in w]
    assert said and "1.0 MiB more at batch 64" in said[0], said  # 64 × 64² floats
    assert not any("sequence length alone" in w for w in plain.warnings)


@pytest.mark.parametrize("external", [False, True])
def test_a_constant_mask_that_masks_nothing_is_neither_planned_nor_warned(tmp_path, external):
    """An encoder's bidirectional mask the default exporter traced and folded into an all-true
    constant (DINOv2's, stored as external data): it masks nothing and transformers skips it
    in training. It was warned about as a causal mask; a causal constant still is."""
    from onnx import numpy_helper  # noqa: PLC0415

    def all_true(model):
        for k, t in enumerate(model.graph.initializer):
            if t.name == "causal":
                model.graph.initializer[k].CopyFrom(numpy_helper.from_array(
                    np.ones((1, 1, T, T), dtype=np.bool_), "causal"))
        return model
    plain = imp(tmp_path, attention_net(dynamo=False), "plain.onnx", batch=2)
    model = all_true(_with_boolean_mask(attention_net(dynamo=False), padding=False))
    if external:
        path = tmp_path / "ext.onnx"
        onnx.save_model(model, str(path), save_as_external_data=True, size_threshold=0,
                        all_tensors_to_one_file=True, location="ext.onnx.data")
        from planner.core.importers.onnx import import_onnx  # noqa: PLC0415

        none = import_onnx(path, batch=2)
    else:
        none = imp(tmp_path, model, "none.onnx", batch=2)
    assert saved_elements(none) == saved_elements(plain)
    assert not any("sequence length alone" in w for w in none.warnings), none.warnings
    causal = imp(tmp_path, _with_boolean_mask(attention_net(dynamo=False), padding=False),
                 "causal.onnx", batch=2)
    assert any("sequence length alone" in w for w in causal.warnings), causal.warnings


def test_falcon_s_causal_mask_is_kept_where_the_record_names_the_model(tmp_path):
    """transformers' FalconModel always materialises its causal mask (to add ALiBi onto it),
    so training passes it and SDPA converts it at every call (Falcon's default export was
    −7.96 % of autograd's saved bytes, warned; now −0.91 %). The default exporter's record of
    the classes says which model it is; without it the mask stays the warned causal case."""
    def falcon(model):
        for node in model.graph.node:
            if node.op_type == "Where":
                p = node.metadata_props.add()
                p.key = "pkg.torch.onnx.class_hierarchy"
                p.value = ("['__main__.Net', 'transformers.models.falcon.modeling_falcon."
                           "FalconModel', 'transformers.models.falcon.modeling_falcon."
                           "FalconAttention', 'aten.scaled_dot_product_attention.default']")
        return model
    plain = imp(tmp_path, attention_net(dynamo=False), "plain.onnx", batch=2)
    causal = imp(tmp_path, falcon(_with_boolean_mask(attention_net(dynamo=False),
                                                     padding=False)), "falcon.onnx", batch=2)
    assert saved_elements(causal) == saved_elements(plain) + T * T
    assert any("Falcon" in n for n in causal.notes), causal.notes
    assert not any("sequence length alone" in w for w in causal.warnings), causal.warnings


def test_a_local_window_mask_built_from_the_length_is_kept_at_every_call(tmp_path):
    """ModernBERT's local attention: a band |i - j| <= w made from the sequence length alone.
    No causal kernel computes it, so training passes it and SDPA converts it at each call:
    kept like a padding mask (ModernBERT −4.34 % → −0.88 % of autograd's saved bytes), not
    taken for a causal mask."""
    plain = imp(tmp_path, attention_net(dynamo=False), "plain.onnx", batch=2)
    band = imp(tmp_path, _with_boolean_mask(attention_net(dynamo=False), padding=False,
                                            window=16), "band.onnx", batch=2)
    assert band.report.complete and "attention" in kinds(band)
    assert saved_elements(band) == saved_elements(plain) + T * T
    assert not any("sequence length alone" in w for w in band.warnings), band.warnings
    assert any("band" in n for n in band.notes), band.notes
    # a causal sliding window shorter than the sequence is passed too; one longer than the
    # sequence is the causal mask, which transformers skips (said, not planned)
    short = imp(tmp_path, _with_boolean_mask(attention_net(dynamo=False), padding=False,
                                             window=16, sliding=True), "short.onnx", batch=2)
    assert saved_elements(short) == saved_elements(plain) + T * T
    long_ = imp(tmp_path, _with_boolean_mask(attention_net(dynamo=False), padding=False,
                                             window=4096, sliding=True), "long.onnx", batch=2)
    assert saved_elements(long_) == saved_elements(plain)
    assert any("sequence length alone" in w for w in long_.warnings), long_.warnings


def _lora_net(adapters: bool):
    """x → RMSNorm-style scale → q projection, with PEFT's LoRA path beside it when
    ``adapters`` (x → lora_A (r=4) → lora_B, scaled, added), as the legacy exporter names
    PEFT's parameters."""
    h = helper
    base = "m.base_model.model.q_proj.base_layer.weight" if adapters else "m.q_proj.weight"
    n = [h.make_node("Mul", ["x", "m.norm.weight"], ["xn"], name="/norm/Mul"),
         h.make_node("MatMul", ["xn", base], ["q"], name="/q_proj/base_layer/MatMul")]
    inits = [weight("m.norm.weight", (C,), 1.0), weight(base, (C, C))]
    out = "q"
    if adapters:
        a = "m.base_model.model.q_proj.lora_A.default.weight"
        b = "m.base_model.model.q_proj.lora_B.default.weight"
        n += [h.make_node("MatMul", ["xn", a], ["la"], name="/q_proj/lora_A/MatMul"),
              h.make_node("MatMul", ["la", b], ["lb"], name="/q_proj/lora_B/MatMul"),
              h.make_node("Mul", ["lb", "scaling"], ["ls"], name="/q_proj/Mul"),
              h.make_node("Add", ["q", "ls"], ["y"], name="/q_proj/Add")]
        inits += [weight(a, (C, 4)), weight(b, (4, C)), const("scaling", 2.0)]
        out = "y"
    return build(n, [tensor("x", ("N", T, C))], [tensor(out, ("N", T, C))], inits)


def test_a_peft_lora_file_plans_the_base_network_frozen(tmp_path):
    """PEFT trains the adapters alone: a file with lora_A / lora_B parameters was planned as
    full fine-tuning (gradients and Adam states for every weight) with nothing said. Now the
    base layers are frozen, and what their backward no longer needs is not kept (the norm's
    x·w keeps x only for w's gradient), as autograd does (a LoRA Llama: +11.3 % → -0.75 % of
    autograd's saved bytes)."""
    from planner.core.memory import estimate  # noqa: PLC0415
    from planner.core.network import Setup  # noqa: PLC0415

    full = imp(tmp_path, _lora_net(adapters=False), "full.onnx", batch=2)
    lora = imp(tmp_path, _lora_net(adapters=True), "lora.onnx", batch=2)
    assert not any("PEFT" in w for w in full.warnings)
    said = [w for w in lora.warnings if "PEFT LoRA adapters" in w]
    assert len(said) == 1 and "(256 parameters)" in said[0] and \
        f"({C * C + C:,} parameters in 2 layers" in said[0], said
    trainable = [layer.name for layer in lora.draft.layers[1:] if layer.kind == "fc"
                 and not layer.params.get("frozen")]
    assert len(trainable) == 2 and all("lora" in name for name in trainable), trainable
    setup = Setup(batch_size=2, precision="fp32", optimizer="adam")
    est = estimate(analyze(lora.draft), setup)
    assert est.optimizer == 2 * 4 * (C * 4 + 4 * C)  # Adam: two fp32 states per adapter value
    assert estimate(analyze(full.draft), setup).optimizer == 2 * 4 * (C * C + C)
    # Full: x for the norm weight's gradient and xn for the projection's. LoRA: the frozen
    # norm keeps nothing, the frozen projection nothing; lora_A keeps xn, lora_B its r=4 input.
    assert saved_elements(full) == 2 * T * C
    assert saved_elements(lora) == T * C + T * 4
