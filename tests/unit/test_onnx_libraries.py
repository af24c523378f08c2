"""Constructs found by exporting models of several libraries (Hugging Face, timm, torch.nn)
with both PyTorch exporters, as onnx.helper graphs (no torch): each was planned wrong with no
warning before its fix."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from onnx import helper  # noqa: E402
from onnx_fixtures import (  # noqa: E402
    build, const, import_saved, layer_kinds, saved_per_sample, tensor, weight)

from planner.core.network import analyze  # noqa: E402


def test_conv1d_pads_only_its_one_axis(tmp_path):
    # Conv1d(16, 64, 5, padding=2) → ReLU → Conv1d(64, 64, 3, stride=2): wav2vec2's and
    # Whisper's front ends, 1-D CNNs. Planned as 2-D convolutions over a height of 1, which
    # must not be padded (a height of 3 doubled the saved bytes, silently).
    h = helper
    nodes = [h.make_node("Conv", ["x", "c1.weight"], ["a"], name="/c1/Conv",
                         kernel_shape=[5], pads=[2, 2]),
             h.make_node("Relu", ["a"], ["r"], name="/act/Relu"),
             h.make_node("Conv", ["r", "c2.weight"], ["y"], name="/c2/Conv",
                         kernel_shape=[3], strides=[2])]
    model = build(nodes, [tensor("x", ["N", 16, 256])], [tensor("y", None)],
                  [weight("c1.weight", (64, 16, 5)), weight("c2.weight", (64, 64, 3))])
    r = import_saved(tmp_path, model, batch=2)
    a = analyze(r.draft)
    convs = [info for layer, info in zip(r.draft.layers, a.layers) if layer.kind == "conv2d"]
    assert [c.out_shape for c in convs] == [(64, 1, 256), (64, 1, 127)]
    assert a.layers[-1].out_shape == (64, 127)
    assert r.report.complete and not r.warnings
    assert r.report.plan_parameters == 64 * 16 * 5 + 64 * 64 * 3


def _group_norm_net(dynamo_names: bool):
    """Conv → GroupNorm(8, 32) as both exporters write it → ReLU."""
    h = helper
    if dynamo_names:
        c1, c2, sh1, sh2, w, b = "val_1", "val_2", "val_3", "val_4", "val_5", "val_6"
    else:
        c1, c2, sh1, sh2 = ("/gn/Constant_1_output_0", "/gn/Constant_2_output_0",
                            "/gn/Constant_output_0", "/gn/Constant_3_output_0")
        w, b = "onnx::Mul_5", "onnx::Add_6"
    nodes = [h.make_node("Conv", ["x", "conv.weight"], ["c"], name="/conv/Conv",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             h.make_node("Reshape", ["c", sh1], ["g"], name="/gn/Reshape"),
             h.make_node("InstanceNormalization", ["g", c1, c2], ["n"],
                         name="/gn/InstanceNormalization", epsilon=1e-5),
             h.make_node("Reshape", ["n", sh2], ["nb"], name="/gn/Reshape_1"),
             h.make_node("Mul", ["nb", w], ["m"], name="/gn/Mul"),
             h.make_node("Add", ["m", b], ["a"], name="/gn/Add"),
             h.make_node("Relu", ["a"], ["y"], name="/act/Relu")]
    inits = [weight("conv.weight", (32, 3, 3, 3)), weight(c1, (8,), 1.0),
             weight(c2, (8,), 0.0), const(sh1, [0, 8, -1], np.int64),
             const(sh2, [0, 32, 16, 16], np.int64), weight(w, (32, 1, 1), 1.5),
             weight(b, (32, 1, 1), 0.5)]
    return build(nodes, [tensor("x", ["N", 3, 16, 16])], [tensor("y", None)], inits)


@pytest.mark.parametrize("dynamo_names", [False, True])
def test_group_norm_is_one_norm_with_its_parameters(tmp_path, dynamo_names):
    # timm's PoolFormer, wav2vec2's feature extractor, diffusion U-Nets: GroupNorm was an
    # operator 'not understood' (warned) and its affine product kept a second copy of the
    # activation (+14 % saved bytes on PoolFormer-S12).
    r = import_saved(tmp_path, _group_norm_net(dynamo_names), batch=2)
    assert r.report.complete and not r.report.not_understood_ops
    assert r.report.plan_parameters == 32 * 27 + 2 * 32
    # kept for backward: the conv's input, the norm's input, the ReLU's output; the
    # affine product keeps nothing more (native_group_norm recomputes x̂)
    assert saved_per_sample(r) == 3 * 16 * 16 + 2 * 32 * 16 * 16


def test_a_legacy_eval_export_with_every_parameter_folded_restores_its_batch_norms(tmp_path):
    # Hugging Face's ResNet, dynamo=False in eval mode: every convolution + batch norm pair
    # folded, so no initializer keeps a module path; the batch norms (half the saved bytes,
    # -43 % on the network) were missing with no warning.
    h = helper
    nodes = [h.make_node("Conv", ["x", "onnx::Conv_11", "onnx::Conv_12"], ["c"],
                         name="/m/embedder/convolution/Conv", kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1]),
             h.make_node("Relu", ["c"], ["r"], name="/m/embedder/activation/Relu"),
             h.make_node("Conv", ["r", "onnx::Conv_14", "onnx::Conv_15"], ["c2"],
                         name="/m/stage/convolution/Conv", kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1]),
             h.make_node("Relu", ["c2"], ["y"], name="/m/stage/activation/Relu")]
    model = build(nodes, [tensor("x", ["N", 3, 16, 16])], [tensor("y", None)],
                  [weight("onnx::Conv_11", (8, 3, 3, 3)), weight("onnx::Conv_12", (8,)),
                   weight("onnx::Conv_14", (8, 8, 3, 3)), weight("onnx::Conv_15", (8,))])
    r = import_saved(tmp_path, model, batch=2)
    assert layer_kinds(r) == ["conv2d", "batchnorm", "activation"] * 2
    assert r.report.restored_batchnorms == 2 and r.report.eval_export
    # the folded bias is the norm's shift: convolution weights and two norms' scale and shift
    assert r.report.plan_parameters == 8 * 27 + 8 * 72 + 2 * 2 * 8
    assert "exported for inference" in r.warnings[0]


def test_position_ids_computed_from_the_token_ids_keep_nothing(tmp_path):
    # RoBERTa: positions = cumsum(ids != pad) * (ids != pad) + pad, gathered from the
    # position table; the legacy exporter adds a GatherElements on those integers. Both were
    # operators not understood (the import warned incomplete).
    h = helper
    T_, C_, V_, P_ = 16, 8, 50, 40
    i64, i32 = onnx.TensorProto.INT64, onnx.TensorProto.INT32
    nodes = [h.make_node("Gather", ["word.weight", "ids"], ["we"], name="/emb/word/Gather"),
             h.make_node("Equal", ["ids", "pad"], ["eq"], name="/emb/Equal"),
             h.make_node("Not", ["eq"], ["ne"], name="/emb/Not"),
             h.make_node("Cast", ["ne"], ["m"], name="/emb/Cast", to=i32),
             h.make_node("CumSum", ["m", "axis"], ["cs"], name="/emb/CumSum"),
             h.make_node("Mul", ["cs", "m"], ["pm"], name="/emb/Mul"),
             h.make_node("Cast", ["pm"], ["pos"], name="/emb/Cast_1", to=i64),
             h.make_node("Cast", ["m"], ["sel"], name="/emb/Cast_2", to=i64),
             h.make_node("GatherElements", ["pos", "sel"], ["pg"], name="/emb/GatherElements",
                         axis=1),
             h.make_node("Gather", ["position.weight", "pg"], ["pe"], name="/emb/pos/Gather"),
             h.make_node("Add", ["we", "pe"], ["y"], name="/emb/Add")]
    model = build(nodes, [tensor("ids", ["N", T_], i64)], [tensor("y", None)],
                  [weight("word.weight", (V_, C_)), weight("position.weight", (P_, C_)),
                   const("pad", 1, np.int64), const("axis", 1, np.int64)])
    r = import_saved(tmp_path, model, batch=2)
    assert r.report.complete and not r.report.not_understood_ops
    assert r.report.plan_parameters == (V_ + P_) * C_


def _standardized_conv(norm: bool):
    """timm's ScaledStdConv2d: the weight standardised per filter in the graph and scaled by
    a learned gain, as F.batch_norm over the weight (``norm``) or written out."""
    h = helper
    f, c, k = 8, 3, 3
    if norm:
        wnodes = [h.make_node("Reshape", ["conv.weight", "/conv/Constant_output_0"], ["w3"],
                              name="/conv/Reshape"),
                  h.make_node("BatchNormalization", ["w3", "conv.gain", "/conv/zeros",
                                                     "/conv/zeros", "/conv/ones"],
                              ["wn", "/conv/rm", "/conv/rv"],
                              name="/conv/BatchNormalization", training_mode=1,
                              momentum=0.0),
                  h.make_node("Reshape", ["wn", "/conv/Constant_1_output_0"], ["w"],
                              name="/conv/Reshape_1")]
        consts = [const("/conv/Constant_output_0", [1, f, -1], np.int64),
                  const("/conv/Constant_1_output_0", [f, c, k, k], np.int64),
                  weight("/conv/zeros", (f,), 0.0), weight("/conv/ones", (f,), 1.0)]
    else:
        wnodes = [h.make_node("ReduceMean", ["conv.weight"], ["mu"], name="/conv/ReduceMean",
                              axes=[1, 2, 3], keepdims=1),
                  h.make_node("Sub", ["conv.weight", "mu"], ["d"], name="/conv/Sub"),
                  h.make_node("Mul", ["d", "d"], ["d2"], name="/conv/Mul"),
                  h.make_node("ReduceMean", ["d2"], ["var"], name="/conv/ReduceMean_1",
                              axes=[1, 2, 3], keepdims=1),
                  h.make_node("Sqrt", ["var"], ["sd"], name="/conv/Sqrt"),
                  h.make_node("Div", ["d", "sd"], ["wn"], name="/conv/Div"),
                  h.make_node("Mul", ["wn", "conv.gain"], ["w"], name="/conv/Mul_1")]
        consts = []
    gain = (f,) if norm else (f, 1, 1, 1)
    nodes = wnodes + [
        h.make_node("Conv", ["x", "w"], ["y0"], name="/conv/Conv", kernel_shape=[k, k],
                    pads=[1, 1, 1, 1]),
        h.make_node("Relu", ["y0"], ["y"], name="/act/Relu")]
    model = build(nodes, [tensor("x", ["N", c, 16, 16])], [tensor("y", None)],
                  [weight("conv.weight", (f, c, k, k)),
                   weight("conv.gain", gain, 1.0)]  # untrained: ones
                  + consts, opset=15)
    return model, f, c * k * k


@pytest.mark.parametrize("norm", [True, False])
def test_a_standardised_weight_is_the_convolution_s_parameters_and_keeps_a_copy(
        tmp_path, norm):
    # NF-ResNet-26 (timm): the 28 standardised convolutions' weights belonged to no layer
    # (warned incomplete) and the copy each keeps was not planned: -42 % saved bytes.
    model, f, fan_in = _standardized_conv(norm)
    r = import_saved(tmp_path, model, batch=2)
    assert r.report.complete and not r.report.unclaimed_weights
    conv = next(layer for layer in r.draft.layers if layer.kind == "conv2d")
    assert conv.params["standardized"] == "gain"
    assert r.report.plan_parameters == f * fan_in + f == r.report.file_weights
    info = analyze(r.draft).layers[1]
    assert (f * fan_in + 2 * f) in [s.elements for s in info.result.saved
                                    if s.storage == "f32_fixed"]


def test_a_folded_weight_merged_through_an_identity_still_restores_its_batch_norm(tmp_path):
    # timm's RegNet zero-initialises each block's last batch norm: folded, its convolutions'
    # weights are all zeros, and the legacy exporter keeps one, read through Identity nodes.
    # 9 of RegNetX-200MF's 44 batch norms were missing (-4.9 % saved bytes, no word of it).
    h = helper
    nodes = [h.make_node("Identity", ["onnx::Conv_20"], ["onnx::Conv_23"], name="Identity_0"),
             h.make_node("Conv", ["x", "onnx::Conv_20", "onnx::Conv_21"], ["a"],
                         name="/s1/b1/conv3/conv/Conv", kernel_shape=[1, 1]),
             h.make_node("Relu", ["a"], ["r"], name="/s1/b1/act/Relu"),
             h.make_node("Conv", ["r", "onnx::Conv_23", "onnx::Conv_24"], ["b"],
                         name="/s1/b2/conv3/conv/Conv", kernel_shape=[1, 1]),
             h.make_node("Relu", ["b"], ["y"], name="/s1/b2/act/Relu")]
    model = build(nodes, [tensor("x", ["N", 8, 8, 8])], [tensor("y", None)],
                  [weight("onnx::Conv_20", (8, 8, 1, 1), 0.0), weight("onnx::Conv_21", (8,)),
                   weight("onnx::Conv_24", (8,), 0.5), weight("head.fc.weight", (2, 2))])
    r = import_saved(tmp_path, model, batch=2)
    assert r.report.restored_batchnorms == 2
    assert layer_kinds(r) == ["conv2d", "batchnorm", "activation"] * 2


def test_a_folded_per_channel_bias_added_in_is_a_parameter(tmp_path):
    # ConvNeXt-V2's GRN (timm), dynamo=False eval: weight.view and bias.view folded into
    # 'onnx::Mul_N' and 'onnx::Add_N'; the product's factor was counted, the added bias not,
    # with no warning (-7,360 parameters on ConvNeXt-V2-atto).
    h = helper
    C_ = 16
    nodes = [h.make_node("Conv", ["x", "conv.weight"], ["c"], name="/conv/Conv",
                         kernel_shape=[1, 1]),
             h.make_node("Mul", ["onnx::Mul_5", "c"], ["m"], name="/grn/Mul"),
             h.make_node("Add", ["onnx::Add_6", "m"], ["a"], name="/grn/Add"),
             h.make_node("Add", ["c", "a"], ["y"], name="/grn/Add_1")]
    model = build(nodes, [tensor("x", ["N", 4, 8, 8])], [tensor("y", None)],
                  [weight("conv.weight", (C_, 4, 1, 1)), weight("onnx::Mul_5", (1, C_, 1, 1)),
                   weight("onnx::Add_6", (1, C_, 1, 1), 0.2)])
    r = import_saved(tmp_path, model, batch=2)
    assert r.report.plan_parameters == C_ * 4 + 2 * C_
    assert r.report.complete and not r.warnings
