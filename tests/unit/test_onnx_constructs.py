"""Modern constructs as exporters write them (onnx.helper graphs, no torch): shapes, parameters,
saved bytes, and the accounting that keeps an import from being silently wrong."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from onnx import TensorProto, helper  # noqa: E402
from onnx_fixtures import build, const, save, tensor, weight  # noqa: E402

from planner.core.importers.onnx import import_onnx  # noqa: E402
from planner.core.layers import SavedTensor  # noqa: E402, F401
from planner.core.memory import Assumptions, estimate  # noqa: E402
from planner.core.network import Setup, analyze  # noqa: E402


def imp(tmp_path, model, **kw):
    return import_onnx(save(model, tmp_path / "m.onnx"), **kw)


def kinds(result):
    return [layer.kind for layer in result.draft.layers[1:]]


def saved_elements(result, batch=1):
    """Per-sample elements kept for backward (fp32 → bytes / 4)."""
    exact = Assumptions(allocator_block_bytes=1, allocator_segment_bytes=1)
    est = estimate(analyze(result.draft), Setup(batch_size=batch, precision="fp32"), exact)
    return est.saved_bytes // 4 // batch  # everything kept for backward over the step


def test_default_exporter_batch_one_file_imports_whole_at_the_asked_batch(tmp_path):
    """value_info recorded at batch 1 and a Reshape to a constant [1, C] (the default exporter's
    flatten) must not stop the walk."""
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], name="node_Conv_1", kernel_shape=[3, 3],
                              pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"], name="node_relu"),
             helper.make_node("ReduceMean", ["r", "axes"], ["m"], name="node_mean", keepdims=1),
             helper.make_node("Reshape", ["m", "shape"], ["f"], name="node_view"),
             helper.make_node("Gemm", ["f", "fc.weight", "fc.bias"], ["y"], name="node_linear",
                              transB=1)]
    vi = [tensor("c", [1, 8, 16, 16]), tensor("r", [1, 8, 16, 16]), tensor("m", [1, 8, 1, 1]),
          tensor("f", [1, 8])]
    model = build(nodes, [tensor("x", [1, 3, 16, 16])], [tensor("y", [1, 10])],
                  [weight("w", (8, 3, 3, 3)), const("axes", [2, 3], np.int64),
                   const("shape", [1, 8], np.int64), weight("fc.weight", (10, 8)),
                   weight("fc.bias", (10,))], opset=18, value_info=vi)
    r = imp(tmp_path, model, batch=64)
    assert r.setup.batch_size == 64
    assert kinds(r) == ["conv2d", "activation", "elementwise", "flatten", "fc"]
    a = analyze(r.draft)
    assert a.ok and a.parameters == 8 * 27 + 10 * 8 + 10
    assert r.report.complete and r.report.nodes == 5 and r.report.not_understood == 0
    assert any("fixes the batch size at 1" in n for n in r.notes)


def test_shape_computed_at_run_time_resolves_a_channel_shuffle(tmp_path):
    """Shape → Gather → Div → Concat → Reshape (the legacy exporter's channel shuffle)."""
    h = helper
    nodes = [
        h.make_node("Shape", ["x"], ["s"], name="shape"),
        h.make_node("Gather", ["s", "i0"], ["n"], name="g0", axis=0),
        h.make_node("Gather", ["s", "i1"], ["c"], name="g1", axis=0),
        h.make_node("Div", ["c", "two"], ["half"], name="div"),
        h.make_node("Concat", ["n", "two", "half", "hw", "hw"], ["target"], name="cat", axis=0),
        h.make_node("Reshape", ["x", "target"], ["r5"], name="/shuffle/Reshape"),
        h.make_node("Transpose", ["r5"], ["t5"], name="/shuffle/Transpose", perm=[0, 2, 1, 3, 4]),
        h.make_node("Reshape", ["t5", "back"], ["r4"], name="/shuffle/Reshape_1"),
        h.make_node("Conv", ["r4", "w"], ["y"], name="/conv/Conv", kernel_shape=[1, 1]),
    ]
    inits = [const("i0", [0], np.int64), const("i1", [1], np.int64), const("two", [2], np.int64),
             const("hw", [8], np.int64), const("back", [0, -1, 8, 8], np.int64),
             weight("w", (4, 16, 1, 1))]
    r = imp(tmp_path, build(nodes, [tensor("x", ["N", 16, 8, 8])], [tensor("y", None)], inits))
    a = analyze(r.draft)
    assert a.ok and a.output_shape == (4, 8, 8) and a.parameters == 64
    assert r.report.complete and "conv2d" in kinds(r)


def test_split_every_output_is_planned_and_a_computed_slice_too(tmp_path):
    h = helper
    nodes = [
        h.make_node("Split", ["x"], ["a", "b"], name="split", axis=1, num_outputs=2),
        h.make_node("Relu", ["a"], ["ra"], name="relu_a"),
        h.make_node("Sigmoid", ["b"], ["sb"], name="sig_b"),
        h.make_node("Concat", ["ra", "sb"], ["cat"], name="cat", axis=1),
        h.make_node("Shape", ["cat"], ["s"], name="shape"),
        h.make_node("Gather", ["s", "i1"], ["c"], name="g"),
        h.make_node("Div", ["c", "two"], ["end"], name="div"),
        h.make_node("Slice", ["cat", "zero", "end", "one"], ["y"], name="slice"),
    ]
    inits = [const("i1", [1], np.int64), const("two", [2], np.int64),
             const("zero", [0], np.int64), const("one", [1], np.int64)]
    model = build(nodes, [tensor("x", ["N", 8, 4, 4])], [tensor("y", None)], inits, opset=18)
    r = imp(tmp_path, model)
    a = analyze(r.draft)
    assert a.ok and a.output_shape == (4, 4, 4)
    names = [layer.name for layer in r.draft.layers]
    assert "relu_a" in names and "sig_b" in names and r.report.complete


def test_transpose_to_channels_last_and_back_with_a_residual(tmp_path):
    """ConvNeXt: conv → permute(0,2,3,1) → LayerNorm → Linear → permute back → + x."""
    h = helper
    nodes = [
        h.make_node("Conv", ["x", "dw"], ["c"], name="/b/dw/Conv", kernel_shape=[7, 7],
                    pads=[3, 3, 3, 3], group=16),
        h.make_node("Transpose", ["c"], ["t"], name="/b/Transpose", perm=[0, 2, 3, 1]),
        h.make_node("LayerNormalization", ["t", "ln.w", "ln.b"], ["n"], name="/b/ln/LN",
                    axis=-1),
        h.make_node("MatMul", ["n", "fc.w"], ["m"], name="/b/fc/MatMul"),
        h.make_node("Add", ["m", "fc.b"], ["f"], name="/b/fc/Add"),
        h.make_node("Transpose", ["f"], ["back"], name="/b/Transpose_1", perm=[0, 3, 1, 2]),
        h.make_node("Add", ["back", "x"], ["y"], name="/b/Add"),
    ]
    inits = [weight("dw", (16, 1, 7, 7)), weight("ln.w", (16,)), weight("ln.b", (16,)),
             weight("fc.w", (16, 16)), weight("fc.b", (16,))]
    r = imp(tmp_path, build(nodes, [tensor("x", ["N", 16, 14, 14])], [tensor("y", None)],
                            inits))
    a = analyze(r.draft)
    assert a.ok and a.output_shape == (16, 14, 14)
    assert a.parameters == 16 * 49 + 32 + 16 * 16 + 16
    assert kinds(r)[-1] == "add" and r.report.complete
    # conv keeps x, LN keeps its (permuted) input + 2 stats per row, fc keeps its input
    n = 16 * 14 * 14
    assert saved_elements(r) == n + n + n + 2 * 14 * 14  # stats are fp32 like the rest here


def test_gelu_written_with_erf_is_one_gelu(tmp_path):
    h = helper
    nodes = [
        h.make_node("Div", ["x", "sqrt2"], ["d"], name="/act/Div"),
        h.make_node("Erf", ["d"], ["e"], name="/act/Erf"),
        h.make_node("Add", ["e", "one"], ["a"], name="/act/Add"),
        h.make_node("Mul", ["x", "a"], ["m"], name="/act/Mul"),
        h.make_node("Mul", ["m", "half"], ["y"], name="/act/Mul_1"),
    ]
    inits = [const("sqrt2", 1.4142135), const("one", 1.0), const("half", 0.5)]
    r = imp(tmp_path, build(nodes, [tensor("x", ["N", 10, 32])], [tensor("y", None)], inits))
    assert kinds(r) == ["activation"]
    assert r.draft.layers[1].params["function"] == "gelu"
    assert saved_elements(r) == 10 * 32  # one tensor, as PyTorch's GELU keeps
    assert any("GELU" in n for n in r.notes) and r.report.complete


def _tanh_gelu(aten: str | None):
    h = helper
    nodes = [
        h.make_node("Pow", ["x", "three"], ["p"], name="pow"),
        h.make_node("Mul", ["p", "k"], ["pk"], name="mul0"),
        h.make_node("Add", ["x", "pk"], ["inner"], name="add0"),
        h.make_node("Mul", ["inner", "c"], ["sc"], name="mul1"),
        h.make_node("Tanh", ["sc"], ["t"], name="tanh"),
        h.make_node("Add", ["t", "one"], ["t1"], name="add1"),
        h.make_node("Mul", ["x", "half"], ["xh"], name="mul2"),
        h.make_node("Mul", ["xh", "t1"], ["y"], name="mul3"),
    ]
    inits = [const("three", 3.0), const("k", 0.044715), const("c", 0.7978846),
             const("one", 1.0), const("half", 0.5)]
    if aten is not None:  # what the default exporter records for each node
        for n in nodes:
            entry = n.metadata_props.add()
            entry.key = "pkg.torch.onnx.fx_node"
            entry.value = f"%g : call_function[target=torch.ops.aten.{aten}.default](args = (%x,))"
    return build(nodes, [tensor("x", ["N", 64])], [tensor("y", None)], inits)


def test_gelu_the_exporter_recorded_as_one_op_is_one_gelu(tmp_path):
    r = imp(tmp_path, _tanh_gelu("gelu"))
    assert kinds(r) == ["activation"] and r.draft.layers[1].params["function"] == "gelu"


def test_gelu_written_out_in_python_keeps_every_step(tmp_path):
    """GPT-2's gelu_new: PyTorch keeps x for the pow, the tanh output and both operands of
    the last product, far more than one GELU."""
    for model in (_tanh_gelu(None), _tanh_gelu("mul")):
        r = imp(tmp_path, model)
        assert "activation" in kinds(r) and len(kinds(r)) == 8
        assert saved_elements(r) == 64 * 4  # x (pow), tanh output, x·0.5 and 1 + tanh


@pytest.mark.parametrize("aten", [None, "pow", "rms_norm"])
def test_rmsnorm_written_out_is_one_rmsnorm_not_a_pool(tmp_path, aten):
    """Without a record (legacy) or recorded as Python arithmetic (Hugging Face's Llama), the
    product with the weight keeps the normalised tensor too (measured: 257 KiB per norm where a
    fused kernel keeps 129); recorded as torch's rms_norm it is the fused kernel's."""
    h = helper
    nodes = [
        h.make_node("Pow", ["x", "two"], ["sq"], name="/norm/Pow"),
        h.make_node("ReduceMean", ["sq", "last"], ["ms"], name="/norm/ReduceMean", keepdims=1),
        h.make_node("Add", ["ms", "eps"], ["mse"], name="/norm/Add"),
        h.make_node("Sqrt", ["mse"], ["rms"], name="/norm/Sqrt"),
        h.make_node("Div", ["x", "rms"], ["xn"], name="/norm/Div"),
        h.make_node("Mul", ["xn", "norm.weight"], ["y"], name="/norm/Mul"),
    ]
    if aten:
        for n in nodes:
            p = n.metadata_props.add()
            p.key, p.value = "pkg.torch.onnx.fx_node", \
                f"%y : = call_function[target=torch.ops.aten.{aten}.default](args = (%x,))"
    inits = [const("two", 2.0), const("last", [-1], np.int64), const("eps", 1e-6),
             weight("norm.weight", (48,))]
    r = imp(tmp_path, build(nodes, [tensor("x", ["N", 12, 48])], [tensor("y", None)], inits,
                            opset=18))
    a = analyze(r.draft)
    assert a.parameters == 48 and r.report.complete
    if aten == "rms_norm":
        assert kinds(r) == ["rmsnorm"]
        assert saved_elements(r) == 12 * 48 + 12  # input + one inverse RMS per row
    else:
        assert kinds(r) == ["rmsnorm", "elementwise"]
        assert saved_elements(r) == 2 * 12 * 48 + 12  # and the normalised tensor


def test_layernorm_written_out_is_one_layernorm(tmp_path):
    h = helper
    nodes = [
        h.make_node("ReduceMean", ["x"], ["mu"], name="mean", axes=[-1]),
        h.make_node("Sub", ["x", "mu"], ["xc"], name="sub"),
        h.make_node("Pow", ["xc", "two"], ["sq"], name="pow"),
        h.make_node("ReduceMean", ["sq"], ["var"], name="mean2", axes=[-1]),
        h.make_node("Add", ["var", "eps"], ["ve"], name="add"),
        h.make_node("Sqrt", ["ve"], ["sd"], name="sqrt"),
        h.make_node("Div", ["xc", "sd"], ["xn"], name="div"),
        h.make_node("Mul", ["xn", "ln.weight"], ["s"], name="mul"),
        h.make_node("Add", ["s", "ln.bias"], ["y"], name="add2"),
    ]
    inits = [const("two", 2.0), const("eps", 1e-5), weight("ln.weight", (32,)),
             weight("ln.bias", (32,))]
    r = imp(tmp_path, build(nodes, [tensor("x", ["N", 7, 32])], [tensor("y", None)], inits,
                            opset=13))
    assert kinds(r) == ["layernorm"] and analyze(r.draft).parameters == 64


def test_attention_from_sdpa_is_fused_and_explicit_attention_keeps_its_softmax(tmp_path):
    h = helper

    def net(scale_both: bool):
        nodes = [
            h.make_node("MatMul", ["x", "wq"], ["q"], name="q_proj"),
            h.make_node("MatMul", ["x", "wk"], ["k"], name="k_proj"),
            h.make_node("MatMul", ["x", "wv"], ["v"], name="v_proj"),
            h.make_node("Transpose", ["k"], ["kt"], name="kt", perm=[0, 2, 1]),
            h.make_node("Mul", ["q", "s"], ["qs"], name="mul_q"),
        ]
        if scale_both:
            nodes.append(h.make_node("Mul", ["kt", "s"], ["kts"], name="mul_k"))
        nodes += [
            h.make_node("MatMul", ["qs", "kts" if scale_both else "kt"], ["sc"], name="scores"),
            h.make_node("Softmax", ["sc"], ["p"], name="softmax", axis=-1),
            h.make_node("MatMul", ["p", "v"], ["y"], name="pv"),
        ]
        inits = [weight("wq", (32, 32)), weight("wk", (32, 32)), weight("wv", (32, 32)),
                 const("s", 0.42)]
        return build(nodes, [tensor("x", ["N", 50, 32])], [tensor("y", None)], inits)

    fused = imp(tmp_path, net(True))
    assert "attention" in kinds(fused) and "softmax" not in kinds(fused)
    t, d = 50, 32
    # three fc inputs (x, one storage), q, k, v, output, logsumexp per row
    assert saved_elements(fused) == t * d + 3 * t * d + t * d + t
    explicit = imp(tmp_path, net(False))
    assert "softmax" in kinds(explicit) and "matmul" in kinds(explicit)
    # x, scaled q, kᵀ, the probabilities (kept by softmax and the second product), v
    assert saved_elements(explicit) == t * d + t * d + t * d + t * t + t * d
    assert analyze(explicit.draft).output_shape == (50, 32)


def test_token_ids_embedding_and_sequence_length(tmp_path):
    h = helper
    nodes = [h.make_node("Gather", ["emb.weight", "ids"], ["e"], name="/emb/Gather", axis=0),
             h.make_node("MatMul", ["e", "w"], ["y"], name="/head/MatMul")]
    model = build(nodes, [tensor("ids", ["batch", "seq"], TensorProto.INT64)],
                  [tensor("y", None)], [weight("emb.weight", (1000, 16)), weight("w", (16, 4))])
    r = imp(tmp_path, model, input_shape=(128,))
    assert kinds(r) == ["embedding", "fc"]
    a = analyze(r.draft)
    assert a.parameters == 1000 * 16 + 16 * 4 and a.output_shape == (128, 4)
    longer = imp(tmp_path, model, input_shape=(256,))
    assert saved_elements(longer) == 2 * saved_elements(r)
    default = imp(tmp_path, model)
    assert default.draft.input_shape == (128,) and any("sequence length" in n
                                                       for n in default.notes)


def test_where_masking_and_einsum(tmp_path):
    h = helper
    nodes = [
        h.make_node("Einsum", ["x", "x"], ["s"], name="einsum", equation="bij,bkj->bik"),
        h.make_node("Where", ["mask", "neg", "s"], ["y"], name="where"),
    ]
    mask = onnx.numpy_helper.from_array(np.tril(np.ones((10, 10), dtype=bool)), "mask")
    model = build(nodes, [tensor("x", ["N", 10, 8])], [tensor("y", None)],
                  [mask, const("neg", -1e4)], opset=13)
    r = imp(tmp_path, model)
    assert kinds(r) == ["einsum", "where"]
    a = analyze(r.draft)
    assert a.ok and a.output_shape == (10, 10)


def test_expand_unsqueeze_squeeze_and_cast(tmp_path):
    h = helper
    nodes = [
        h.make_node("ReduceMean", ["x"], ["m"], name="mean", axes=[2, 3], keepdims=0),
        h.make_node("Unsqueeze", ["m", "ax"], ["u"], name="unsq"),
        h.make_node("Cast", ["u"], ["c"], name="cast", to=TensorProto.FLOAT),
        h.make_node("Expand", ["c", "shape"], ["e"], name="expand"),
        h.make_node("Mul", ["x", "e"], ["y"], name="mul"),
    ]
    inits = [const("ax", [2, 3], np.int64), const("shape", [1, 8, 6, 6], np.int64)]
    r = imp(tmp_path, build(nodes, [tensor("x", ["N", 8, 6, 6])], [tensor("y", None)], inits,
                            opset=13))
    a = analyze(r.draft)
    assert a.ok and a.output_shape == (8, 6, 6) and r.report.complete


def test_a_truncated_import_cannot_pass_silently(tmp_path):
    """A node the planner cannot follow cuts the graph: the rest is listed, the weights it
    leaves out are named, and the result is marked incomplete (CLI: stderr and --json)."""
    h = helper
    nodes = [h.make_node("Conv", ["x", "w1"], ["c1"], name="conv1", kernel_shape=[3, 3]),
             h.make_node("MysteryOp", ["c1"], ["m"], name="mystery", domain="vendor.ops"),
             h.make_node("Conv", ["m", "w2"], ["c2"], name="conv2", kernel_shape=[3, 3]),
             h.make_node("Relu", ["c2"], ["y"], name="relu")]
    model = build(nodes, [tensor("x", ["N", 3, 16, 16])], [tensor("y", None)],
                  [weight("w1", (4, 3, 3, 3)), weight("w2", (4, 4, 3, 3))])
    model.opset_import.append(helper.make_opsetid("vendor.ops", 1))
    # the vendor op's output shape is unknown to ONNX and to the planner
    r = imp(tmp_path, model)
    assert r.incomplete and not r.report.complete
    assert "MysteryOp" in r.report.not_understood_ops
    assert any("MysteryOp" in w for w in r.warnings)


def test_truncated_walk_names_the_dropped_nodes_and_weights(tmp_path):
    """Even when no mapper fails, a node whose input was never planned is counted."""
    h = helper
    nodes = [h.make_node("Conv", ["x", "w1"], ["c1"], name="conv1", kernel_shape=[1, 1]),
             h.make_node("NonZero", ["c1"], ["nz"], name="nonzero"),
             h.make_node("Cast", ["nz"], ["f"], name="cast", to=TensorProto.FLOAT),
             h.make_node("MatMul", ["f", "w2"], ["y"], name="mm")]
    model = build(nodes, [tensor("x", ["N", 3, 4, 4])], [tensor("y", None)],
                  [weight("w1", (4, 3, 1, 1)), weight("w2", (16, 5))])
    r = imp(tmp_path, model)
    assert r.incomplete
    text = " ".join(r.warnings)
    assert "NonZero" in text or "not in the plan" in text or "belong to no layer" in text


def test_cli_reports_an_incomplete_import_on_stderr_and_in_json(tmp_path, capsys):
    import json

    from planner.cli import run

    h = helper
    nodes = [h.make_node("Conv", ["x", "w1"], ["c1"], name="conv1", kernel_shape=[3, 3]),
             h.make_node("MysteryOp", ["c1"], ["y"], name="mystery", domain="vendor.ops")]
    model = build(nodes, [tensor("x", ["N", 3, 16, 16])], [tensor("y", None)],
                  [weight("w1", (4, 3, 3, 3))])
    model.opset_import.append(helper.make_opsetid("vendor.ops", 1))
    path = save(model, tmp_path / "m.onnx")
    assert run(["estimate", str(path), "--json"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["incomplete"] is True and out["warnings"]
    assert "MysteryOp" in captured.err and "INCOMPLETE" in captured.err
    assert out["import"]["not_understood_ops"] == ["MysteryOp"]
    assert run(["estimate", str(path)]) == 0
    captured = capsys.readouterr()
    assert "INCOMPLETE" in captured.out and "warning:" in captured.err


def test_folded_batch_norm_of_the_default_exporter_is_put_back_and_said(tmp_path):
    h = helper
    conv = h.make_node("Conv", ["x", "conv1.weight", "b"], ["c"], name="node_Conv_1",
                       kernel_shape=[3, 3])
    for key, value in (("pkg.onnxscript.rewriter.rule_name",
                        "RemoveOptionalBiasFromConv, FuseBatchNormIntoConv"),
                       ("pkg.torch.onnx.name_scopes", "['', 'bn1', '_native_batch_norm']")):
        entry = conv.metadata_props.add()
        entry.key, entry.value = key, value
    nodes = [conv, h.make_node("Relu", ["c"], ["y"], name="node_relu")]
    model = build(nodes, [tensor("x", [1, 3, 8, 8])], [tensor("y", None)],
                  [weight("conv1.weight", (6, 3, 3, 3)), weight("b", (6,))], opset=18)
    r = imp(tmp_path, model)
    assert kinds(r) == ["conv2d", "batchnorm", "activation"]
    assert r.draft.layers[1].params["bias"] is False  # the folded bias was the norm's shift
    a = analyze(r.draft)
    assert a.parameters == 6 * 27 + 2 * 6 and r.report.restored_batchnorms == 1
    assert r.report.eval_export and r.report.complete
    assert any("eval mode" in w and "TrainingMode.TRAINING" in w for w in r.warnings)


def test_fixed_batch_one_and_symbolic_batch_give_the_same_estimate(tmp_path):
    from onnx_fixtures import residual_net

    fixed = import_onnx(save(residual_net(1), tmp_path / "one.onnx"), batch=16)
    symbolic = import_onnx(save(residual_net("batch"), tmp_path / "sym.onnx"), batch=16)
    setup = Setup(batch_size=16, precision="fp32")
    a, b = estimate(analyze(fixed.draft), setup), estimate(analyze(symbolic.draft), setup)
    assert a.parameters == b.parameters and a.terms() == b.terms()
    assert fixed.setup.batch_size == symbolic.setup.batch_size == 16


def _heads(q_shape: str, kv_shape: str) -> list:
    """q, k and v projected from 'x' by 'wq', 'wk', 'wv', reshaped by the shape constants
    named and transposed to heads: 'qh' (B×H×T×d), 'kt' (B×H×d×T), 'vh' (B×H×T×d)."""
    h = helper
    return [
        h.make_node("MatMul", ["x", "wq"], ["q"], name="q_proj"),
        h.make_node("MatMul", ["x", "wk"], ["k"], name="k_proj"),
        h.make_node("MatMul", ["x", "wv"], ["v"], name="v_proj"),
        h.make_node("Reshape", ["q", q_shape], ["q4"], name="q_heads"),
        h.make_node("Reshape", ["k", kv_shape], ["k4"], name="k_heads"),
        h.make_node("Reshape", ["v", kv_shape], ["v4"], name="v_heads"),
        h.make_node("Transpose", ["q4"], ["qh"], name="qt", perm=[0, 2, 1, 3]),
        h.make_node("Transpose", ["k4"], ["kt"], name="kt", perm=[0, 2, 3, 1]),
        h.make_node("Transpose", ["v4"], ["vh"], name="vt", perm=[0, 2, 1, 3]),
    ]


def test_attention_with_a_bias_per_head_warns_what_the_math_kernel_keeps(tmp_path):
    """Swin's and BEiT's relative-position bias (1×H×T×T, added to the scores) sends PyTorch
    to the math kernel wherever the fused ones do not run it, keeping the T×T softmax the plan
    (the memory-efficient kernel) leaves out: said with the figure. A mask shared by the
    heads (1×1×T×T: causal, the default exporter's SDPA decomposition) is not such a bias."""
    h = helper
    heads, t, d = 4, 49, 8

    def net(bias_shape):
        nodes = _heads("hs", "hs") + [
            h.make_node("Mul", ["qh", "s"], ["qs"], name="mul_q"),
            h.make_node("Mul", ["kt", "s"], ["kts"], name="mul_k"),
            h.make_node("MatMul", ["qs", "kts"], ["sc"], name="scores"),
            h.make_node("Add", ["sc", "onnx::Add_7"], ["sb"], name="add_bias"),
            h.make_node("Softmax", ["sb"], ["p"], name="softmax", axis=-1),
            h.make_node("MatMul", ["p", "vh"], ["y"], name="pv"),
        ]
        inits = [weight("wq", (32, 32)), weight("wk", (32, 32)), weight("wv", (32, 32)),
                 const("s", 0.59), const("hs", [0, t, heads, d], np.int64),
                 onnx.numpy_helper.from_array(
                     np.random.default_rng(0).standard_normal(bias_shape).astype(np.float32),
                     "onnx::Add_7")]
        return build(nodes, [tensor("x", [1, t, 32])], [tensor("y", None)], inits, opset=17)

    biased = imp(tmp_path, net((1, heads, t, t)), batch=8)
    assert "attention" in kinds(biased)
    said = [w for w in biased.warnings if "T×T bias" in w]
    assert len(said) == 1
    mib = 8 * heads * t * t * 4 / 2**20  # the softmax the math kernel keeps, fp32, batch 8
    assert f"{mib:,.1f} MiB more at batch 8" in said[0]
    shared = imp(tmp_path, net((1, 1, t, t)), batch=8)
    assert "attention" in kinds(shared)
    assert not [w for w in shared.warnings if "T×T bias" in w]


def test_a_weight_folded_from_parameters_and_a_buffer_is_said_with_its_share(tmp_path):
    """EVA's qkv bias as the default exporter writes it: torch.cat(q_bias, k_bias, v_bias)
    folded into one constant 'cat_1', k_bias a zero buffer. The exported program's signature
    (kept in the file) names the module's two parameters and its buffer; the plan counts the
    constant whole, so it says how many of those parameters may not be learned."""
    h = helper
    d = 16
    nodes = [h.make_node("MatMul", ["x", "blocks.0.attn.qkv.weight"], ["mm"],
                         name="node_MatMul_1"),
             h.make_node("Add", ["mm", "cat_1"], ["y"], name="node_linear")]
    for n in nodes:
        p = n.metadata_props.add()
        p.key = "pkg.torch.onnx.name_scopes"
        p.value = "['', 'blocks.0', 'blocks.0.attn', 'linear']"
    inits = [weight("blocks.0.attn.qkv.weight", (d, 3 * d)), weight("cat_1", (3 * d,))]

    def model(buffer: bool):
        m = build(nodes, [tensor("x", ["N", 5, d])], [tensor("y", None)], inits)
        p = m.graph.metadata_props.add()
        p.key = "pkg.torch.export.ExportedProgram.graph_signature"
        p.value = ("# inputs\np_blocks_0_attn_q_bias: PARAMETER target='blocks.0.attn.q_bias'\n"
                   "p_blocks_0_attn_v_bias: PARAMETER target='blocks.0.attn.v_bias'\n"
                   "p_blocks_0_attn_qkv_weight: PARAMETER target='blocks.0.attn.qkv.weight'\n"
                   + ("b_blocks_0_attn_k_bias: BUFFER target='blocks.0.attn.k_bias' "
                      "persistent=False\n" if buffer else
                      "p_blocks_0_attn_k_bias: PARAMETER target='blocks.0.attn.k_bias'\n"))
        return m

    r = imp(tmp_path, model(True))
    assert analyze(r.draft).parameters == d * 3 * d + 3 * d  # the constant, counted whole
    said = [w for w in r.warnings if "folded parameters and buffers" in w]
    assert len(said) == 1 and "blocks.0.attn" in said[0] and f"about {d} parameters" in said[0]
    learned = imp(tmp_path, model(False))  # all three parts parameters: nothing to say
    assert not [w for w in learned.warnings if "folded parameters and buffers" in w]
    # A module whose folded parameter and buffers are no bias's parts (Swin-V2's logit scale
    # and coordinate table): nothing to say either.
    other = model(True)
    other.graph.metadata_props[0].value = (
        "p_blocks_0_attn_logit_scale: PARAMETER target='blocks.0.attn.logit_scale'\n"
        "b_blocks_0_attn_coords_table: BUFFER target='blocks.0.attn.coords_table'\n")
    assert not [w for w in imp(tmp_path, other).warnings
                if "folded parameters and buffers" in w]


def test_a_q_made_by_concat_gives_a_head_major_output_whose_transpose_is_a_copy(tmp_path):
    """Phi's partial rotary: q = cat(rotated half, passed half) is a fresh head-major tensor;
    flash attention writes its output in q's layout, so transpose(1, 2).contiguous() back to
    tokens copies it, and the output projection keeps the copy besides the output attention
    keeps (measured on Phi: -5.3 % without it). q as a view of its projection makes none."""
    h = helper
    heads, t, d = 4, 16, 8
    c = heads * d

    def net(concat_q: bool):
        nodes = _heads("hs", "hs") + [
        ]
        if concat_q:
            nodes += [
                h.make_node("Split", ["qh", "halves"], ["qa", "qb"], name="split", axis=-1),
                h.make_node("Neg", ["qa"], ["qr"], name="rotate"),
                h.make_node("Concat", ["qr", "qb"], ["qc"], name="cat", axis=-1),
            ]
        q = "qc" if concat_q else "qh"
        nodes += [
            h.make_node("Mul", [q, "s"], ["qs"], name="mul_q"),
            h.make_node("Mul", ["kt", "s"], ["kts"], name="mul_k"),
            h.make_node("MatMul", ["qs", "kts"], ["sc"], name="scores"),
            h.make_node("Softmax", ["sc"], ["p"], name="softmax", axis=-1),
            h.make_node("MatMul", ["p", "vh"], ["o"], name="pv"),
            # an unfolded export's shape lookup of the output is no other reader
            h.make_node("Shape", ["o"], ["o_shape"], name="shape_of_o"),
            h.make_node("Transpose", ["o"], ["ot"], name="back", perm=[0, 2, 1, 3]),
            h.make_node("Reshape", ["ot", "ts"], ["o2"], name="tokens"),
            h.make_node("MatMul", ["o2", "wo"], ["y"], name="o_proj"),
        ]
        inits = [weight(n, (c, c)) for n in ("wq", "wk", "wv", "wo")] + [
            const("s", 0.59), const("hs", [0, t, heads, d], np.int64),
            const("ts", [0, t, c], np.int64), const("halves", [d // 2, d // 2], np.int64)]
        return build(nodes, [tensor("x", ["N", t, c])], [tensor("y", None)], inits, opset=17)

    plain = imp(tmp_path, net(False))
    fresh = imp(tmp_path, net(True))
    assert "attention" in kinds(plain) and "attention" in kinds(fresh)
    # the copy of the output (t×c per sample) the output projection keeps
    assert saved_elements(fresh) - saved_elements(plain) == t * c
    assert any("head-major" in n for n in fresh.notes)
    assert not any("head-major" in n for n in plain.notes)


def test_a_parameter_with_capitals_in_its_path_is_not_taken_for_a_buffer(tmp_path):
    """MobileBERT's NoNorm (x · weight + bias, module 'LayerNorm') from the default exporter:
    its record names the parameters lower-cased ('%p_enc_layernorm_weight'); read as a
    buffer, the scale counted nothing and its product kept nothing (-25 % saved bytes on
    MobileBERT, silent)."""
    h = helper
    d = 16
    nodes = [h.make_node("MatMul", ["x", "enc.dense.weight"], ["mm"], name="node_MatMul_1"),
             h.make_node("Mul", ["mm", "enc.LayerNorm.weight"], ["s"], name="node_mul"),
             h.make_node("Add", ["s", "enc.LayerNorm.bias"], ["y"], name="node_add")]
    records = ["%linear = call_function[target=torch.ops.aten.linear.default](args = (%x, "
               "%p_enc_dense_weight), kwargs = {})",
               "%mul = call_function[target=torch.ops.aten.mul.Tensor](args = (%linear, "
               "%p_enc_layernorm_weight), kwargs = {})",
               "%add = call_function[target=torch.ops.aten.add.Tensor](args = (%mul, "
               "%p_enc_layernorm_bias), kwargs = {})"]
    for n, rec in zip(nodes, records):
        p = n.metadata_props.add()
        p.key, p.value = "pkg.torch.onnx.fx_node", rec
    inits = [weight("enc.dense.weight", (d, d)), weight("enc.LayerNorm.weight", (d,), 1.0),
             weight("enc.LayerNorm.bias", (d,), 0.5)]
    r = imp(tmp_path, build(nodes, [tensor("x", ["N", 5, d])], [tensor("y", None)], inits))
    assert analyze(r.draft).parameters == d * d + 2 * d
    # the matmul's input and the scale's input (for the scale's gradient)
    assert saved_elements(r) == 5 * d + 5 * d


def test_an_operation_the_optimiser_merged_with_its_twin_is_planned_twice(tmp_path):
    """GPT-NeoX's parallel block norms one input twice (input_layernorm for attention,
    post_attention_layernorm for the MLP); untrained, the two are equal and the default
    exporter's optimiser keeps one node. Its record still reads '%layer_norm_1': training
    runs both (parameters, statistics, and the second output the MLP keeps: -7.5 % saved
    bytes on GPT-NeoX, silent)."""
    h = helper
    d = 16

    def rec(node, text):
        p = node.metadata_props.add()
        p.key, p.value = "pkg.torch.onnx.fx_node", text
        return node

    def net(merged: bool):
        nodes = [rec(h.make_node("LayerNormalization", ["x", "ln.weight", "ln.bias"],
                                 ["layer_norm"], name="node_layer_norm", axis=-1),
                     "%layer_norm : [num_users=1] = call_function[target=torch.ops.aten."
                     "layer_norm.default](args = (%x, [16], %p_ln_weight, %p_ln_bias), "
                     "kwargs = {})")]
        second = "layer_norm"
        if not merged:
            nodes.append(rec(h.make_node("LayerNormalization", ["x", "ln.weight", "ln.bias"],
                                         ["layer_norm_1"], name="node_layer_norm_1", axis=-1),
                             "%layer_norm_1 : [num_users=1] = call_function[target=torch.ops."
                             "aten.layer_norm.default](args = (%x, [16], %p_ln2_weight, "
                             "%p_ln2_bias), kwargs = {})"))
            second = "layer_norm_1"
        nodes += [
            rec(h.make_node("MatMul", ["layer_norm", "w1"], ["a"], name="node_MatMul_1"),
                "%linear : [num_users=1] = call_function[target=torch.ops.aten.linear.default]"
                "(args = (%layer_norm, %p_w1), kwargs = {})"),
            rec(h.make_node("MatMul", [second, "w2"], ["b"], name="node_MatMul_2"),
                "%linear_1 : [num_users=1] = call_function[target=torch.ops.aten.linear."
                "default](args = (%layer_norm_1, %p_w2), kwargs = {})"),
            h.make_node("Add", ["a", "b"], ["y"], name="node_add"),
        ]
        inits = [weight("ln.weight", (d,), 1.0), weight("ln.bias", (d,), 0.0),
                 weight("w1", (d, d)), weight("w2", (d, d))]
        return build(nodes, [tensor("x", ["N", 5, d])], [tensor("y", None)], inits)

    twins, merged = imp(tmp_path, net(False)), imp(tmp_path, net(True))
    assert kinds(twins).count("layernorm") == 2
    assert kinds(merged).count("layernorm") == 2
    assert analyze(merged.draft).parameters == analyze(twins.draft).parameters
    assert saved_elements(merged) == saved_elements(twins)
    assert any("merged with an identical one" in n for n in merged.notes)


def test_a_linear_layer_reading_a_transpose_of_its_last_axis_keeps_a_copy(tmp_path):
    """CaiT's talking heads: the softmax keeps its probabilities, then a linear layer over
    the heads reads them permuted (heads last); its matmul cannot fold that to 2-D as a view,
    copies it and keeps the copy (-11.7 % saved bytes on CaiT-XXS24, silent). Without the
    transpose the layer keeps the softmax's own output."""
    h = helper
    heads, t = 4, 10

    def net(transposed: bool):
        nodes = [h.make_node("Softmax", ["x"], ["p"], name="softmax", axis=-1)]
        if transposed:
            nodes.append(h.make_node("Transpose", ["p"], ["pt"], name="heads_last",
                                     perm=[0, 2, 3, 1]))
        nodes.append(h.make_node("MatMul", ["pt" if transposed else "p", "proj_w.weight"],
                                 ["y"], name="proj_w"))
        return build(nodes, [tensor("x", ["N", heads, t, t])], [tensor("y", None)],
                     [weight("proj_w.weight", (heads if transposed else t, heads))])

    kept = heads * t * t
    assert saved_elements(imp(tmp_path, net(True))) == 2 * kept  # probabilities, the copy
    assert saved_elements(imp(tmp_path, net(False))) == kept  # the probabilities, once


def test_multi_query_attention_broadcast_by_sdpa_keeps_one_key_value_head(tmp_path):
    """Falcon's multi-query attention from the legacy exporter: k and v of one head go into
    the attention as they are (scaled_dot_product_attention broadcasts them over q's heads);
    nothing in the file repeats them, so training keeps no repeated copies (+8.4 % saved
    bytes on Falcon, silent)."""
    h = helper
    heads, t, d = 4, 16, 8
    nodes = _heads("qs_", "ks_") + [
        h.make_node("Mul", ["qh", "s"], ["qsc"], name="mul_q"),
        h.make_node("Mul", ["kt", "s"], ["ksc"], name="mul_k"),
        h.make_node("MatMul", ["qsc", "ksc"], ["sc"], name="scores"),
        h.make_node("Softmax", ["sc"], ["p"], name="softmax", axis=-1),
        h.make_node("MatMul", ["p", "vh"], ["y"], name="pv"),
    ]
    c = heads * d
    inits = [weight("wq", (c, c)), weight("wk", (c, d)), weight("wv", (c, d)),
             const("s", 0.59), const("qs_", [0, t, heads, d], np.int64),
             const("ks_", [0, t, 1, d], np.int64)]
    r = imp(tmp_path, build(nodes, [tensor("x", [1, t, c])], [tensor("y", None)], inits,
                            opset=17))
    assert "attention" in kinds(r)
    # x (the three projections' input, one storage), q, one head of k and of v, the output,
    # a logsumexp per query row (flash: t rows per head)
    assert saved_elements(r) == t * c + t * c + 2 * t * d + t * c + heads * t


def test_a_nan_or_infinity_cast_to_int_in_shape_arithmetic_says_nothing_raw():
    """T5's position buckets take the log of a zero distance and cast it to int64 (undefined,
    then dropped by a Where): numpy's "invalid value encountered in cast" must not reach the
    user as a raw warning."""
    import warnings

    import numpy as np

    from planner.core.importers.onnx.evaluate import evaluate

    x = np.array([-np.inf, np.nan, 2.0], dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = evaluate("Cast", lambda name, default=None: {"to": 7}.get(name, default), [x],
                       lambda: (3,), lambda to: {7: np.int64}[to])
        like = evaluate("CastLike", lambda name, default=None: default,
                        [x, np.zeros(1, np.int32)], lambda: (3,), None)
    assert out[0].dtype == np.int64 and out[0][2] == 2
    assert like[0].dtype == np.int32 and like[0][2] == 2


def test_a_batch_norm_of_flat_features_is_batchnorm1d(tmp_path):
    """BatchNorm1d on (N, C) (an MLP head, LeViT's classifier): statistics over the batch per
    feature, its scale and shift learned. It was "not understood" (a guess, the import
    incomplete) because a batch norm wanted a channel axis and one more."""
    n = [helper.make_node("Gemm", ["x", "w", "b"], ["h"], name="fc", transB=1),
         helper.make_node("BatchNormalization", ["h", "g", "beta", "mean", "var"],
                          ["y", "running_mean", "running_var"], name="bn", training_mode=1)]
    inits = [weight("w", (256, 64)), weight("b", (256,)), weight("g", (256,), 1.0),
             weight("beta", (256,), 0.0), weight("mean", (256,), 0.0),
             weight("var", (256,), 1.0)]
    r = imp(tmp_path, build(n, [tensor("x", ("N", 64))], [tensor("y", ("N", 256))],
                            inits), batch=8)
    assert [layer.kind for layer in r.draft.layers[1:]] == ["fc", "batchnorm"]
    assert r.report.complete
    a = analyze(r.draft)
    assert a.ok and a.output_shape == (256,)
    assert a.parameters == 256 * 64 + 256 + 2 * 256  # the running statistics are buffers


def _hardswish_net(written: bool):
    """conv → hardswish → conv: the HardSwish op (opset 14+), or as the legacy exporter writes
    it below opset 14 (x · HardSigmoid(x, alpha=1/6))."""
    n = [helper.make_node("Conv", ["x", "w1"], ["a"], name="c1", pads=[1, 1, 1, 1])]
    if written:
        n += [helper.make_node("HardSigmoid", ["a"], ["hs"], name="hs", alpha=1 / 6),
              helper.make_node("Mul", ["a", "hs"], ["h"], name="mul")]
    else:
        n.append(helper.make_node("HardSwish", ["a"], ["h"], name="hswish"))
    n.append(helper.make_node("Conv", ["h", "w2"], ["y"], name="c2", pads=[1, 1, 1, 1]))
    return build(n, [tensor("x", ("N", 3, 32, 32))], [tensor("y", ("N", 8, 32, 32))],
                 [weight("w1", (8, 3, 3, 3)), weight("w2", (8, 8, 3, 3))],
                 opset=13 if written else 14)


def test_hardswish_written_for_opsets_below_14_is_one_hardswish(tmp_path):
    """MobileNetV3 exported at opset 11 or 13 (no HardSwish op): x · HardSigmoid(x) was planned
    as a hard sigmoid and a product keeping both its operands, +23.5 % of the activations at
    the peak against the same network at opset 17, with nothing said."""
    from onnx_fixtures import saved_per_sample  # noqa: PLC0415

    op = imp(tmp_path, _hardswish_net(written=False), batch=2)
    (tmp_path / "w").mkdir()
    written = imp(tmp_path / "w", _hardswish_net(written=True), batch=2)
    assert kinds(written) == kinds(op) == ["conv2d", "activation", "conv2d"]
    assert [layer.params.get("function") for layer in written.draft.layers[1:]] == \
        [layer.params.get("function") for layer in op.draft.layers[1:]]
    assert saved_per_sample(written) == saved_per_sample(op)


@pytest.mark.parametrize("stride, pads, stacked", [(1, [2, 2, 2, 2], True),
                                                    (2, [1, 1, 1, 1], True),
                                                    (2, [0, 0, 1, 1], False)])
def test_convolution_over_windows_merged_into_the_batch(tmp_path, stride, pads, stacked):
    """(B, C, 14, 14) split into 4 windows of 7×7 merged into the batch, (B·4, C, 7, 7), then
    a depthwise convolution (EfficientViT-M's local attention; MViTv2 pools heads alike):
    planned as the windows' image, with the file's weight and the input it keeps, not as an
    operator the planner does not understand. Uneven padding does not stack: then it says
    so."""
    h = helper
    k = 5 if stride == 1 else 3
    win = 7 if stride == 1 else 8  # (7 at stride 2 would give 4 a window, 14 of 28 stacked)
    out = win if stride == 1 else win // 2
    nodes = [
        h.make_node("Reshape", ["x", "s6"], ["x6"], name="/win/Reshape"),
        h.make_node("Transpose", ["x6"], ["xt"], name="/win/Transpose", perm=[0, 2, 4, 1, 3, 5]),
        h.make_node("Reshape", ["xt", "s4"], ["w4"], name="/win/Reshape_1"),
        h.make_node("Conv", ["w4", "dw.weight", "dw.bias"], ["c"], name="/dw/Conv",
                    kernel_shape=[k, k], strides=[stride, stride], pads=pads, group=16),
        h.make_node("Relu", ["c"], ["y"], name="/act/Relu"),
    ]
    inits = [const("s6", [-1, 16, 2, win, 2, win], np.int64),
             const("s4", [-1, 16, win, win], np.int64),
             weight("dw.weight", (16, 1, k, k)), weight("dw.bias", (16,))]
    r = imp(tmp_path, build(nodes, [tensor("x", ["N", 16, 2 * win, 2 * win])], [tensor("y", None)],
                            inits), batch=2)
    a = analyze(r.draft)
    if not stacked:
        assert not r.report.complete and r.report.not_understood == 1
        return
    assert r.report.complete and r.report.not_understood == 0, r.warnings
    assert a.ok and a.parameters == 16 * k * k + 16
    assert "conv2d" in kinds(r) and a.output_shape == (4, 16, out, out)
    conv = next(info for info in a.layers if info.kind == "conv2d")
    assert conv.out_shape == (16, 4 * out, out)
    # kept: the convolution's input (the 4 windows' values) and the ReLU's output
    assert saved_elements(r, batch=2) == 16 * (2 * win) ** 2 + 4 * 16 * out * out


def test_3d_convolution_over_heads_merged_into_the_batch(tmp_path):
    """The video MViT pools queries with a depthwise Conv3d over ``(B·heads, C, T, H, W)``:
    planned as one clip of the heads stacked along time (parameters the file's, the input
    kept), not as an operator the planner does not understand."""
    h = helper
    nodes = [
        h.make_node("Reshape", ["x", "s"], ["xh"], name="/attn/Reshape"),
        h.make_node("Conv", ["xh", "pool_q.weight"], ["q"], name="/attn/pool_q/Conv",
                    kernel_shape=[3, 3, 3], strides=[1, 2, 2], pads=[1] * 6, group=8),
        h.make_node("Relu", ["q"], ["y"], name="/act/Relu"),
    ]
    inits = [const("s", [-1, 8, 4, 8, 8], np.int64), weight("pool_q.weight", (8, 1, 3, 3, 3))]
    r = imp(tmp_path, build(nodes, [tensor("x", ["N", 16, 4, 8, 8])], [tensor("y", None)],
                            inits), batch=2)
    a = analyze(r.draft)
    assert r.report.complete and r.report.not_understood == 0, r.warnings
    assert a.ok and a.parameters == 8 * 27 and a.output_shape == (2, 8, 4, 4, 4)
    conv = next(info for info in a.layers if info.kind == "conv3d")
    assert conv.out_shape == (8, 8, 4, 4)
    assert saved_elements(r, batch=2) == 16 * 4 * 8 * 8 + 2 * 8 * 4 * 4 * 4
