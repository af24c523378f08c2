"""Weights a network shares between layers are counted once (onnx.helper graphs, no torch):
ALBERT runs one layer's module N times, an LM head reads the token embedding's table; tensors
the exporter merged because they were equal (an untrained network's zero biases) stay one
parameter per module."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx_fixtures import build, import_saved, tensor  # noqa: E402

T, C, V = 8, 16, 50


def rand(name, dims, seed):
    return numpy_helper.from_array(
        np.random.default_rng(seed).standard_normal(dims).astype(np.float32), name)


def two_calls(scopes):
    """x → Linear → ReLU → Linear, both linear layers reading one weight W and one bias b;
    ``scopes`` name the two MatMul/Add pairs as the legacy exporter does."""
    h = helper
    nodes = []
    src = "x"
    for k, scope in enumerate(scopes):
        nodes += [h.make_node("MatMul", [src, "W"], [f"m{k}"], name=f"{scope}/MatMul"),
                  h.make_node("Add", [f"m{k}", "b"], [f"a{k}"], name=f"{scope}/Add")]
        if k == 0:
            nodes.append(h.make_node("Relu", ["a0"], ["r0"], name="/enc/act/Relu"))
            src = "r0"
    return build(nodes, [tensor("x", ["N", T, C])], [tensor(f"a{len(scopes) - 1}", None)],
                 [rand("W", (C, C), 1), rand("b", (C,), 2)])


def test_a_module_called_twice_counts_its_weight_once(tmp_path):
    r = import_saved(tmp_path, two_calls(["/enc/layer/query", "/enc/layer/query_1"]), batch=2)
    fcs = [layer for layer in r.draft.layers if layer.kind == "fc"]
    assert len(fcs) == 2
    assert [bool(layer.params.get("tied")) for layer in fcs] == [False, True]
    # W once; the bias (a vector no layer can share) once per use, and said with its figure
    assert r.report.plan_parameters == C * C + 2 * C
    assert r.report.file_weights == C * C + C
    text = " ".join(r.warnings)
    assert f"{C} values of vectors" in text and f"counts {C} parameters more" in text
    assert any("counted once" in n for n in r.notes)


def test_two_modules_reading_one_merged_tensor_are_two_parameters(tmp_path):
    # 'conv_1' and 'conv_2' are two modules, not one called twice; 'query' and 'key' too
    for scopes in (["/enc/query", "/enc/key"], ["/enc/conv_1", "/enc/conv_2"]):
        r = import_saved(tmp_path, two_calls(scopes), batch=2)
        assert not any(layer.params.get("tied") for layer in r.draft.layers)
        assert r.report.plan_parameters == 2 * (C * C + C)
        assert not any("values of vectors" in w for w in r.warnings)
        # random values a legacy file stores once for two modules: copies of one module the
        # exporter merged, or one weight tied between them; the file cannot tell, and says so
        text = " ".join(r.warnings)
        assert "cannot tell equal tensors" in text and f"{C * C + C} parameters too many" in text


def test_a_head_tied_to_the_token_embedding_counts_the_table_once(tmp_path):
    h = helper
    nodes = [h.make_node("Gather", ["wte.weight", "ids"], ["e"], name="/wte/Gather"),
             h.make_node("Relu", ["e"], ["r"], name="/act/Relu"),
             h.make_node("Transpose", ["wte.weight"], ["wt"], name="/lm_head/Transpose",
                         perm=[1, 0]),
             h.make_node("MatMul", ["r", "wt"], ["logits"], name="/lm_head/MatMul")]
    model = build(nodes, [tensor("ids", ["N", T], TensorProto.INT64)],
                  [tensor("logits", None)], [rand("wte.weight", (V, C), 3)])
    r = import_saved(tmp_path, model, batch=2)
    heads = [layer for layer in r.draft.layers if layer.kind == "fc"]
    assert len(heads) == 1 and heads[0].params.get("tied") is True
    assert r.report.plan_parameters == V * C == r.report.file_weights
    assert r.report.complete


def _masked(mask_name: str, fx_names: tuple[str, ...] | None, op: str = "Add"):
    """x (T×T scores) + a constant → MatMul with a weight; ``fx_names``: the default
    exporter's record of the parameters the traced operations read (None: a legacy file)."""
    h = helper
    nodes = [h.make_node(op, ["x", mask_name], ["s"], name="node_add" if fx_names
                         is not None else "/blk/attn/Add"),
             h.make_node("MatMul", ["s", "blk.proj.weight"], ["y"], name="node_matmul"
                         if fx_names is not None else "/blk/proj/MatMul")]
    if fx_names is not None:
        for node, reads in zip(nodes, ((fx_names[1:],), (fx_names[:1],))):
            p = node.metadata_props.add()
            p.key = "pkg.torch.onnx.fx_node"
            p.value = "%out = call_function[target=torch.ops.aten.op](args = (" + ", ".join(
                f"%p_{n}" for n in reads[0]) + "), kwargs = {})"
    return build(nodes, [tensor("x", [1 if fx_names is not None else "N", T, T])],
                 [tensor("y", None)], [rand(mask_name, (T, T), 4),
                                        rand("blk.proj.weight", (T, C), 5)])


def test_a_mask_buffer_added_to_the_scores_is_not_a_parameter(tmp_path):
    # Swin's shifted-window mask: a buffer of its block, added to the attention scores
    r = import_saved(tmp_path, _masked("blk.attn_mask", None), batch=2)
    assert r.report.plan_parameters == T * C == r.report.file_weights
    # the default exporter's record names the parameters; a buffer is not among them
    r = import_saved(tmp_path, _masked("blk.rel_bias", ("blk_proj_weight",)), batch=2)
    assert r.report.plan_parameters == T * C == r.report.file_weights
    # ... and a learned tensor added the same way is (its name is in the record)
    r = import_saved(tmp_path, _masked("blk.rel_bias", ("blk_proj_weight", "blk_rel_bias")),
                     batch=2)
    assert r.report.plan_parameters == T * C + T * T == r.report.file_weights
    # EVA's rotary table, a buffer multiplied in
    r = import_saved(tmp_path, _masked("rope.pos_embed", ("blk_proj_weight",), "Mul"), batch=2)
    assert r.report.plan_parameters == T * C == r.report.file_weights


def test_a_folded_copy_of_the_embedding_table_in_an_output_layer_is_warned(tmp_path):
    # GPT-2's and BERT's tied LM heads from dynamo=False with constant folding (its eval
    # default): the head reads a folded transposed copy, 'onnx::MatMul_N'; counted twice, +24 %
    # of GPT-2-tiny's parameters, with no word. The file cannot tell a tied head from an own
    # weight of that shape: the plan counts both and says by how much it may be over.
    h = helper
    nodes = [h.make_node("Gather", ["wte.weight", "ids"], ["e"], name="/wte/Gather"),
             h.make_node("Relu", ["e"], ["r"], name="/act/Relu"),
             h.make_node("MatMul", ["r", "onnx::MatMul_9"], ["logits"],
                         name="/lm_head/MatMul")]
    model = build(nodes, [tensor("ids", ["N", T], TensorProto.INT64)],
                  [tensor("logits", None)],
                  [rand("wte.weight", (V, C), 3), rand("onnx::MatMul_9", (C, V), 6)])
    r = import_saved(tmp_path, model, batch=2)
    assert r.report.plan_parameters == 2 * V * C
    text = " ".join(r.warnings)
    assert "shape of the token embedding's table" in text and f"{V * C:,} parameters" in text
