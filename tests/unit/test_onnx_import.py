"""The ONNX importer: operator mappings, batch handling, bad input, fuzzing, CLI, twin estimate.

Graphs are built with onnx.helper (tests/unit/onnx_fixtures.py); torch is not needed.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from onnx import helper  # noqa: E402
from onnx_fixtures import (  # noqa: E402
    build,
    const,
    import_saved,
    lstm_net,
    residual_net,
    residual_twin,
    save,
    single_op,
    tensor,
    weight,
)

from planner.cli import run  # noqa: E402
from planner.core.importers.onnx import ImportResult, OnnxImportError, import_onnx  # noqa: E402
from planner.core.memory import estimate  # noqa: E402
from planner.core.network import PlanFileError, Setup, analyze  # noqa: E402


def imp(tmp_path, model, name="m.onnx", **kw) -> ImportResult:
    return import_onnx(save(model, tmp_path / name), **kw)


def body(result: ImportResult):
    """The layers after the input."""
    return result.draft.layers[1:]


def only(result: ImportResult):
    layers = body(result)
    assert len(layers) == 1, [(layer.kind, layer.name) for layer in layers]
    return layers[0]


# --------------------------------------------------------------------------------------------
# Operator mappings, one graph each
# --------------------------------------------------------------------------------------------

IMG = (8, 16, 16)

CASES = [
    # id, model, expected kind, expected params (subset)
    ("conv", lambda: single_op("Conv", IMG, inits=[weight("w", (4, 8, 3, 3))],
                               extra_inputs=["w"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                               strides=[2, 2]),
     "conv2d", {"filters": 4, "kernel": 3, "stride": 2, "padding": 1, "bias": False,
                "groups": 1}),
    ("conv-bias-group-dilation", lambda: single_op(
        "Conv", IMG, inits=[weight("w", (8, 2, 3, 3)), weight("b", (8,))],
        extra_inputs=["w", "b"], group=4, dilations=[2, 2]),
     "conv2d", {"filters": 8, "kernel": 3, "groups": 4, "dilation": 2, "bias": True,
                "padding": 0}),
    ("conv-kernel-from-weight-same", lambda: single_op(
        "Conv", IMG, inits=[weight("w", (4, 8, 5, 3))], extra_inputs=["w"],
        auto_pad="SAME_UPPER"),
     "conv2d", {"kernel": (5, 3), "padding": "same"}),
    ("conv3d", lambda: single_op("Conv", (3, 4, 8, 8), inits=[weight("w", (6, 3, 3, 3, 3))],
                                 extra_inputs=["w"], pads=[1] * 6),
     "conv3d", {"filters": 6, "kernel": 3, "padding": 1}),
    ("maxpool", lambda: single_op("MaxPool", IMG, kernel_shape=[2, 2], strides=[2, 2]),
     "maxpool", {"kernel": 2, "stride": 2, "padding": 0}),
    ("avgpool-ceil", lambda: single_op("AveragePool", IMG, kernel_shape=[3, 3], strides=[2, 2],
                                       pads=[1, 1, 1, 1], ceil_mode=1),
     "avgpool", {"kernel": 3, "stride": 2, "padding": 1, "ceil_mode": True}),
    ("batchnorm", lambda: single_op(
        "BatchNormalization", IMG, extra_inputs=["s", "b", "m", "v"],
        inits=[weight(n, (8,)) for n in "sbmv"]), "batchnorm", {}),
    ("layernorm", lambda: single_op("LayerNormalization", (10, 32), extra_inputs=["s", "b"],
                                    inits=[weight("s", (32,)), weight("b", (32,))]),
     "layernorm", {}),
    ("relu", lambda: single_op("Relu", IMG), "activation", {"function": "relu"}),
    ("leaky", lambda: single_op("LeakyRelu", IMG, alpha=0.1), "activation",
     {"function": "leaky_relu"}),
    ("gelu", lambda: single_op("Gelu", IMG, opset=20), "activation", {"function": "gelu"}),
    ("sigmoid", lambda: single_op("Sigmoid", IMG), "activation", {"function": "sigmoid"}),
    ("tanh", lambda: single_op("Tanh", IMG), "activation", {"function": "tanh"}),
    ("hardswish", lambda: single_op("HardSwish", IMG), "activation", {"function": "hardswish"}),
    ("hardsigmoid", lambda: single_op("HardSigmoid", IMG), "activation",
     {"function": "hardsigmoid"}),
    ("clip-inputs", lambda: single_op("Clip", IMG, extra_inputs=["lo", "hi"],
                                      inits=[const("lo", 0.0), const("hi", 6.0)]),
     "activation", {"function": "relu6"}),
    ("clip-attrs-opset6", lambda: single_op("Clip", IMG, opset=6, min=0.0, max=6.0),
     "activation", {"function": "relu6"}),
    ("dropout-ratio-input", lambda: single_op(
        "Dropout", IMG, extra_inputs=["r", "t"], outputs=2,
        inits=[const("r", 0.3), const("t", True, np.bool_)]), "dropout", {"p": 0.3}),
    ("dropout-default", lambda: single_op("Dropout", IMG), "dropout", {"p": 0.5}),
    ("gemm-transB", lambda: single_op("Gemm", (32,), extra_inputs=["w", "b"], transB=1,
                                      inits=[weight("w", (10, 32)), weight("b", (10,))]),
     "fc", {"units": 10, "bias": True}),
    ("gemm-no-bias", lambda: single_op("Gemm", (32,), extra_inputs=["w"],
                                       inits=[weight("w", (32, 7))]),
     "fc", {"units": 7, "bias": False}),
    ("matmul", lambda: single_op("MatMul", (5, 32), extra_inputs=["w"],
                                 inits=[weight("w", (32, 12))]), "fc",
     {"units": 12, "bias": False}),
    ("flatten", lambda: single_op("Flatten", IMG, axis=1), "flatten", {}),
    ("reshape-flattens", lambda: single_op("Reshape", IMG, extra_inputs=["s"],
                                           inits=[const("s", [0, -1], np.int64)]),
     "flatten", {}),
    ("resize-nearest", lambda: single_op(
        "Resize", IMG, extra_inputs=["", "sc"],
        inits=[const("sc", [1, 1, 2, 2])], mode="nearest"), "upsample",
     {"scale": 2, "mode": "nearest"}),
    ("resize-linear", lambda: single_op(
        "Resize", IMG, extra_inputs=["", "sc"],
        inits=[const("sc", [1, 1, 4, 4])], mode="linear"), "upsample",
     {"scale": 4, "mode": "bilinear"}),
    ("global-avgpool", lambda: single_op("GlobalAveragePool", IMG), "global_avgpool", {}),
    ("reducemean-spatial", lambda: single_op("ReduceMean", IMG, axes=[2, 3], keepdims=0,
                                             opset=13), "global_avgpool", {}),
    ("reducemean-axes-input", lambda: single_op(
        "ReduceMean", IMG, extra_inputs=["ax"], inits=[const("ax", [-2, -1], np.int64)],
        keepdims=0, opset=18), "global_avgpool", {}),
    ("mul-constant", lambda: single_op("Mul", IMG, extra_inputs=["k"],
                                       inits=[const("k", 0.5)]), "elementwise",
     {"keeps": "nothing", "parameters": 0}),
    ("add-constant", lambda: single_op("Add", IMG, extra_inputs=["k"],
                                       inits=[weight("k", (8, 1, 1))]), "elementwise",
     {"keeps": "nothing", "parameters": 8}),
    ("softmax", lambda: single_op("Softmax", (10,), axis=-1), "softmax", {}),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_operator_mapping(tmp_path, case):
    _id, make, kind, params = case
    result = imp(tmp_path, make())
    layer = only(result)
    assert layer.kind == kind
    for key, value in params.items():
        assert layer.params[key] == value, (key, layer.params)
    assert analyze(result.draft).ok, analyze(result.draft).problems


def test_conv_transpose_maps_to_a_transposed_convolution(tmp_path):
    model = single_op("ConvTranspose", IMG, extra_inputs=["w", "b"],
                      inits=[weight("w", (8, 4, 4, 4)), weight("b", (4,))],
                      kernel_shape=[4, 4], strides=[2, 2], pads=[1, 1, 1, 1])
    result = imp(tmp_path, model)
    kinds = [layer.kind for layer in body(result)]
    assert kinds == ["conv_transpose2d"]
    analysis = analyze(result.draft)
    assert analysis.ok
    assert analysis.parameters == 8 * 4 * 16 + 4  # ConvTranspose2d(8, 4, 4).numel()
    assert analysis.output_shape == (4, 32, 32)


def test_global_avgpool_feeding_a_convolution_keeps_its_c11_shape(tmp_path):
    nodes = [helper.make_node("GlobalAveragePool", ["x"], ["g"], name="/se/GlobalAveragePool"),
             helper.make_node("Conv", ["g", "w"], ["y"], name="/se/fc1/Conv", kernel_shape=[1, 1])]
    model = build(nodes, [tensor("x", ["N", *IMG])], [tensor("y", None)],
                  [weight("w", (2, 8, 1, 1))])
    result = imp(tmp_path, model)
    pool, conv = body(result)
    # PyTorch's adaptive_avg_pool2d(x, 1) is mean(keepdim=True): keeps nothing, C×1×1.
    assert pool.kind == "elementwise" and pool.params["keeps"] == "nothing"
    assert pool.params["shape"] == (8, 1, 1) and conv.kind == "conv2d"
    assert analyze(result.draft).ok and result.report.complete


def test_concat_of_one_tensor_is_a_copy_that_keeps_nothing(tmp_path):
    # torch.cat([x]) (DenseNet's first layer of a block, a key/value cache's first update)
    # makes a new tensor: what reads it keeps the copy, not x.
    nodes = [helper.make_node("Concat", ["x"], ["c"], name="/Concat", axis=1),
             helper.make_node("Relu", ["c"], ["y"], name="relu")]
    model = build(nodes, [tensor("x", ["N", *IMG])], [tensor("y", None)])
    result = imp(tmp_path, model)
    copy, relu = body(result)
    assert copy.kind == "elementwise" and copy.params["keeps"] == "nothing"
    assert relu.kind == "activation" and relu.source() in (None, copy.name)
    assert analyze(result.draft).ok and result.report.complete


def test_silu_is_fused(tmp_path):
    nodes = [helper.make_node("Sigmoid", ["x"], ["s"], name="/act/Sigmoid"),
             helper.make_node("Mul", ["x", "s"], ["y"], name="/act/Mul")]
    model = build(nodes, [tensor("x", ["N", *IMG])], [tensor("y", None)])
    layer = only(imp(tmp_path, model))
    assert (layer.kind, layer.params["function"]) == ("activation", "silu")


def test_an_explicit_pad_before_a_convolution_is_kept_padded(tmp_path):
    """A Pad node before a convolution is PyTorch's F.pad (EfficientNet-PyTorch's and timm's
    TF-'same' convolutions, a 'same' padding of an even kernel): the convolution keeps the
    padded tensor for its weight's gradient, not its input. Folding the pad into the
    convolution's padding (the plan until round 16) kept the unpadded input: a U-Net on
    EfficientNet-B0 (segmentation_models_pytorch) was planned 6.4 % short in its encoder."""
    nodes = [helper.make_node("Pad", ["x", "pads"], ["p"], name="pad"),
             helper.make_node("Conv", ["p", "w"], ["y"], name="conv", kernel_shape=[3, 3])]
    model = build(nodes, [tensor("x", ["N", *IMG])], [tensor("y", None)],
                  [const("pads", [0, 0, 1, 1, 0, 0, 1, 1], np.int64), weight("w", (4, 8, 3, 3))])
    result = imp(tmp_path, model, batch=2)
    analysis = analyze(result.draft)
    assert analysis.ok and analysis.output_shape == (4, 16, 16)
    conv = next(info for info in analysis.layers if info.kind == "conv2d")
    assert [s.elements for s in conv.result.saved] == [8 * 18 * 18]  # the padded tensor


def test_an_explicit_pad_before_a_pool_folds_into_its_padding(tmp_path):
    """Before a pool the pad is the pool's own (the legacy exporter writes an average pool's
    padding with count_include_pad as a Pad node): one pool layer, padded."""
    nodes = [helper.make_node("Pad", ["x", "pads"], ["p"], name="pad"),
             helper.make_node("AveragePool", ["p"], ["y"], name="pool", kernel_shape=[3, 3],
                              strides=[1, 1])]
    model = build(nodes, [tensor("x", ["N", *IMG])], [tensor("y", None)],
                  [const("pads", [0, 0, 1, 1, 0, 0, 1, 1], np.int64)])
    layer = only(imp(tmp_path, model))
    assert layer.kind == "avgpool" and analyze(imp(tmp_path, model).draft).output_shape == IMG


def test_identity_and_transpose_of_the_batch_axis_are_skipped(tmp_path):
    nodes = [helper.make_node("Identity", ["x"], ["i"], name="id"),
             helper.make_node("Relu", ["i"], ["y"], name="relu")]
    model = build(nodes, [tensor("x", ["N", *IMG])], [tensor("y", None)])
    assert only(imp(tmp_path, model)).name == "relu"


def test_reshape_that_does_not_flatten_is_a_view_of_the_new_shape(tmp_path):
    nodes = [helper.make_node("Reshape", ["x", "s"], ["r"], name="reshape"),
             helper.make_node("Relu", ["r"], ["y"], name="relu")]
    model = build(nodes, [tensor("x", ["N", *IMG])], [tensor("y", None)],
                  [const("s", [0, 8, 4, 64], np.int64)])
    result = imp(tmp_path, model)
    view, relu = body(result)
    assert (view.kind, relu.kind) == ("view", "activation")
    analysis = analyze(result.draft)
    assert analysis.ok and analysis.output_shape == (8, 4, 64)
    assert not any("differ" in w for w in result.warnings)


@pytest.mark.parametrize("bidirectional", [False, True])
def test_lstm(tmp_path, bidirectional):
    result = imp(tmp_path, lstm_net(bidirectional))
    kinds = [layer.kind for layer in body(result)]
    assert kinds == ["lstm", "fc"]
    lstm, fc = body(result)
    assert lstm.params["hidden"] == 16 and lstm.params["bidirectional"] is bidirectional
    assert lstm.params["return_sequences"] is True
    assert fc.params["units"] == 5 and fc.params["bias"] is True  # MatMul + Add fused
    analysis = analyze(result.draft)
    assert analysis.ok and analysis.output_shape == (20, 5)
    dirs = 2 if bidirectional else 1
    assert analysis.parameters == dirs * (4 * 16 * (8 + 16) + 8 * 16) + 16 * dirs * 5 + 5
    assert not any("differ" in w for w in result.warnings), result.warnings


def test_lstm_last_step_only(tmp_path):
    result = imp(tmp_path, lstm_net(last_only=True))
    lstm, fc = body(result)
    assert lstm.params["return_sequences"] is False
    assert analyze(result.draft).output_shape == (5,)


def test_gru_maps_to_a_gru(tmp_path):
    model = single_op("GRU", (20, 8), extra_inputs=["W", "R", "B"], outputs=2, hidden_size=16,
                      inits=[weight("W", (1, 48, 8)), weight("R", (1, 48, 16)),
                             weight("B", (1, 96))])
    result = imp(tmp_path, model)
    assert only(result).kind == "gru"
    assert analyze(result.draft).parameters == 48 * 8 + 48 * 16 + 96  # W + R + B


def test_unknown_operator_keeps_its_shape_and_is_listed(tmp_path):
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu"),
             helper.make_node("Erf", ["r"], ["e"], name="erf"),
             helper.make_node("FancyOp", ["e"], ["f"], name="fancy", domain="custom.ops"),
             helper.make_node("Relu", ["f"], ["y"], name="relu2")]
    model = build(nodes, [tensor("x", ["N", *IMG])], [tensor("y", None)])
    model.opset_import.append(helper.make_opsetid("custom.ops", 1))
    result = imp(tmp_path, model)
    names = [layer.name for layer in body(result)]
    assert names == ["relu", "erf", "fancy", "relu2"]  # never silently dropped
    analysis = analyze(result.draft)
    assert analysis.ok and analysis.output_shape == IMG
    listed = next(w for w in result.warnings if "does not understand" in w)
    assert "FancyOp" in listed and result.incomplete
    assert result.report.not_understood_ops == ("FancyOp",)
    # Conservative rule: each keeps its input for backward.
    erf = next(i for i in analysis.layers if i.name == "erf")
    assert erf.result.saved[0].source == "input"


def test_names_are_unique_and_branches_use_input(tmp_path):
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="same"),
             helper.make_node("Sigmoid", ["x"], ["b"], name="same"),
             helper.make_node("Add", ["a", "b"], ["y"], name="")]
    model = build(nodes, [tensor("x", ["N", *IMG])], [tensor("y", None)])
    result = imp(tmp_path, model)
    a, b, add = body(result)
    assert (a.name, b.name) == ("same", "same_2")
    assert b.params["input"] == "input"
    assert add.kind == "add" and add.params["from"] == "same" and add.name == "y"
    assert analyze(result.draft).ok


# --------------------------------------------------------------------------------------------
# Residual + concat network: the estimate equals the hand-drafted twin's
# --------------------------------------------------------------------------------------------


def test_residual_and_concat(tmp_path):
    result = imp(tmp_path, residual_net())
    by_name = {layer.name: layer for layer in result.draft.layers}
    assert by_name["layer1.0.add"].params["from"] == "maxpool"
    assert by_name["concat"].params["from"] == ("side",)
    assert by_name["side"].params["input"] == "maxpool"
    assert by_name["avgpool"].kind == "global_avgpool"
    assert result.warnings == ()


@pytest.mark.parametrize("mode", ["train", "infer"])
def test_estimate_equals_the_hand_drafted_twin(tmp_path, mode):
    result = imp(tmp_path, residual_net())
    setup = Setup(batch_size=16, mode=mode)
    mine = estimate(analyze(result.draft), setup)
    twin = estimate(analyze(residual_twin()), setup)
    assert mine.parameters == twin.parameters
    assert mine.terms() == twin.terms()
    assert [layer.activation_bytes for layer in mine.layers] == \
        [layer.activation_bytes for layer in twin.layers]


# --------------------------------------------------------------------------------------------
# Batch
# --------------------------------------------------------------------------------------------


def test_symbolic_batch_becomes_the_setup_batch(tmp_path):
    r = imp(tmp_path, residual_net("batch"))
    assert r.setup.batch_size == 32 and r.batch_from_model is None
    assert not any("batch" in w.lower() for w in r.warnings)
    assert imp(tmp_path, residual_net("batch"), batch=7).setup.batch_size == 7
    assert r.draft.input_shape == (3, 32, 32)


def test_fixed_batch_is_used_and_said(tmp_path):
    r = imp(tmp_path, residual_net(4))
    assert r.setup.batch_size == 4 and r.batch_from_model == 4
    assert any("fixes the batch size at 4" in w for w in r.notes)
    assert analyze(r.draft).ok
    r = imp(tmp_path, residual_net(4), batch=16)
    assert r.setup.batch_size == 16 and r.batch_from_model == 4


def test_unnamed_symbolic_batch(tmp_path):
    model = residual_net("N")
    model.graph.input[0].type.tensor_type.shape.dim[0].Clear()  # neither value nor name
    assert imp(tmp_path, model).setup.batch_size == 32


# --------------------------------------------------------------------------------------------
# Weights are never read
# --------------------------------------------------------------------------------------------


def test_missing_external_data_still_opens(tmp_path):
    path = tmp_path / "ext.onnx"
    onnx.save_model(residual_net(), str(path), save_as_external_data=True,
                    all_tensors_to_one_file=True, location="ext.onnx.data",
                    size_threshold=0)
    (tmp_path / "ext.onnx.data").unlink()
    result = import_onnx(path)
    assert estimate(analyze(result.draft), Setup()).parameters == \
        analyze(residual_twin()).parameters


def test_big_initializers_are_not_read(tmp_path):
    """A 256×25088 weight (25 MB) in the file: its data is skipped, its dims counted."""
    nodes = [helper.make_node("Gemm", ["x", "w"], ["y"], name="fc", transB=1)]
    w = weight("w", (256, 25088))
    model = build(nodes, [tensor("x", ["N", 25088])], [tensor("y", ["N", 256])], [w])
    result = imp(tmp_path, model)
    assert analyze(result.draft).parameters == 256 * 25088


# --------------------------------------------------------------------------------------------
# Bad input: one clear OnnxImportError
# --------------------------------------------------------------------------------------------


def expect_error(path, *words):
    with pytest.raises(OnnxImportError) as info:
        import_onnx(path)
    msg = str(info.value)
    assert "\n" not in msg and path.name in msg if hasattr(path, "name") else True
    for w in words:
        assert w in msg, msg
    return msg


def test_not_onnx(tmp_path):
    p = tmp_path / "notes.onnx"
    p.write_text("this is not a network, just some words\n" * 20)
    expect_error(p, "not an ONNX")


def test_truncated(tmp_path):
    p = save(residual_net(), tmp_path / "t.onnx")
    data = p.read_bytes()
    p.write_bytes(data[: len(data) // 2])
    expect_error(p)


def test_empty_file_directory_and_missing_file(tmp_path):
    (tmp_path / "e.onnx").write_bytes(b"")
    expect_error(tmp_path / "e.onnx", "empty")
    (tmp_path / "d.onnx").mkdir()
    expect_error(tmp_path / "d.onnx", "folder")
    expect_error(tmp_path / "gone.onnx", "no such file")


def test_cycle(tmp_path):
    nodes = [helper.make_node("Add", ["x", "b"], ["a"], name="n1"),
             helper.make_node("Relu", ["a"], ["b"], name="n2")]
    model = build(nodes, [tensor("x", ["N", *IMG])], [tensor("b", ["N", *IMG])])
    expect_error(save(model, tmp_path / "c.onnx"), "cycle")


def test_missing_shapes(tmp_path):
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    model = build(nodes, [tensor("x", None)], [tensor("y", None)])
    expect_error(save(model, tmp_path / "s.onnx"), "no shape")


@pytest.mark.parametrize("dims", [["N", 3, 10**12, 224], ["N", 0, 4, 4]])
def test_absurd_dimensions(tmp_path, dims):
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    model = build(nodes, [tensor("x", dims)], [tensor("y", None)])
    expect_error(save(model, tmp_path / "a.onnx"), "absurd")


def test_absurd_initializer(tmp_path):
    model = single_op("Gemm", (32,), extra_inputs=["w"], inits=[weight("w", (32, 7))])
    init = model.graph.initializer[0]
    init.ClearField("raw_data")
    del init.dims[:]
    init.dims.extend([10**12, 10**6])
    expect_error(save(model, tmp_path / "ai.onnx"), "absurd")


def test_two_inputs_and_no_nodes(tmp_path):
    # Two float inputs and no learned layer: neither feeds one on its own, so the plan follows
    # the first and says it takes the other as given (multi-input files: test_onnx_inputs.py).
    nodes = [helper.make_node("Add", ["x", "z"], ["y"], name="add")]
    model = build(nodes, [tensor("x", ["N", 4]), tensor("z", ["N", 4])], [tensor("y", None)])
    result = import_onnx(save(model, tmp_path / "two.onnx"), batch=2)
    assert [layer.kind for layer in result.draft.layers][:1] == ["input"]
    assert any("takes 'z' as given" in n for n in result.notes), result.notes
    empty = build([], [tensor("x", ["N", 4])], [tensor("x", ["N", 4])])
    expect_error(save(empty, tmp_path / "none.onnx"), "no graph nodes")


def test_error_is_a_plan_file_error_and_a_value_error(tmp_path):
    assert issubclass(OnnxImportError, PlanFileError)
    assert issubclass(OnnxImportError, ValueError)


def test_bad_batch_argument(tmp_path):
    p = save(residual_net(), tmp_path / "b.onnx")
    with pytest.raises(OnnxImportError, match="batch size"):
        import_onnx(p, batch=0)


def test_missing_onnx_package_message():
    code = (
        "import sys; sys.modules['onnx'] = None\n"
        "import planner.core.importers.onnx as m\n"
        "try:\n"
        "    m.import_onnx('x.onnx')\n"
        "except m.OnnxImportError as e:\n"
        "    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "pip install onnx" in out


_VALID: dict[str, bytes] = {}


def _valid_bytes() -> bytes:
    if "b" not in _VALID:
        _VALID["b"] = residual_net().SerializeToString()
    return _VALID["b"]


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzz_mutated_files_raise_only_onnx_import_error(tmp_path, data):
    raw = bytearray(_valid_bytes())
    for _ in range(data.draw(st.integers(1, 8))):
        action = data.draw(st.sampled_from(["flip", "set", "cut", "insert", "delete"]))
        pos = data.draw(st.integers(0, max(0, len(raw) - 1)))
        if action == "flip" and raw:
            raw[pos] ^= 1 << data.draw(st.integers(0, 7))
        elif action == "set" and raw:
            raw[pos] = data.draw(st.integers(0, 255))
        elif action == "cut":
            del raw[pos:]
        elif action == "insert":
            raw[pos:pos] = data.draw(st.binary(min_size=1, max_size=8))
        elif action == "delete":
            del raw[pos:pos + data.draw(st.integers(1, 16))]
    p = tmp_path / "fuzz.onnx"
    p.write_bytes(bytes(raw))
    try:
        result = import_onnx(p)
    except OnnxImportError as exc:
        assert str(exc)
    else:
        assert isinstance(result, ImportResult)
        analyze(result.draft)  # never raises for a bad draft


# --------------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------------


def test_cli_estimate_onnx_json(tmp_path, capsys):
    p = save(residual_net(), tmp_path / "model.onnx")
    code = run(["estimate", str(p), "--batch", "32", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    twin = estimate(analyze(residual_twin()), Setup(batch_size=32))
    assert data["parameters"] == twin.parameters
    assert data["bytes"]["peak"] == twin.peak


def test_cli_bad_onnx_is_one_line_exit_2(tmp_path, capsys):
    p = tmp_path / "bad.onnx"
    p.write_bytes(b"\x00\x01garbage")
    code = run(["estimate", str(p), "--json"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "bad.onnx" in err


def _conv_relu(names: str):
    h = helper
    conv, relu = ("node_Conv_3", "node_relu") if names == "dynamo" else ("/conv/Conv", "/Relu")
    nodes = [h.make_node("Conv", ["x", "conv1.weight"], ["c"], name=conv, kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1]),
             h.make_node("Relu", ["c"], ["y"], name=relu)]
    return build(nodes, [tensor("x", [1, 3, 16, 16])], [tensor("y", None)],
                    [weight("conv1.weight", (8, 3, 3, 3))], opset=18)


def test_a_default_export_stripped_of_its_record_says_batch_norms_cannot_be_found(tmp_path):
    """The default exporter folds every batch norm into its convolution, also in training,
    and only its record (metadata_props, which optimisers and re-saves strip) says which: a
    stripped file (the exporter's names, no record) says the plan may lack them."""
    stripped = import_saved(tmp_path, _conv_relu("dynamo"), "stripped.onnx", batch=2)
    (line,) = [w for w in stripped.warnings if "lost the exporter's record" in w]
    assert "1 convolution(s)" in line and "batch norms" in line
    legacy = import_saved(tmp_path, _conv_relu("legacy"), "legacy.onnx", batch=2)
    assert not [w for w in legacy.warnings if "lost the exporter's record" in w]
    recorded = _conv_relu("dynamo")
    for node in recorded.graph.node:
        prop = node.metadata_props.add()
        prop.key, prop.value = "pkg.torch.onnx.stack_trace", "model.py:1"
    kept = import_saved(tmp_path, recorded, "kept.onnx", batch=2)
    assert not [w for w in kept.warnings if "lost the exporter's record" in w]
