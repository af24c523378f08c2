"""Silent misses and refusals found by sweeping torchvision video / wide / quantizable models,
export options and torch.nn constructs nobody had tried (round 8e), rebuilt with onnx.helper
(no torch): each test fails on the importer as it was before its fix."""

from __future__ import annotations

import pytest

onnx = pytest.importorskip("onnx")

from onnx import helper  # noqa: E402
import numpy as np  # noqa: E402
from onnx_fixtures import build, const, import_saved, saved_per_sample, tensor, weight  # noqa: E402

from planner.core.network import analyze  # noqa: E402

h = helper


def _conv_transpose_1d(bias: bool = True):
    """Conv1d → ConvTranspose1d(stride 2, groups 2) → Tanh over 4 channels × 64 steps."""
    nodes = [
        h.make_node("Conv", ["x", "c.weight", "c.bias"], ["a"], name="/c/Conv",
                    kernel_shape=[3], pads=[1, 1]),
        h.make_node("Relu", ["a"], ["r"], name="/relu/Relu"),
        h.make_node("ConvTranspose", ["r", "t.weight"] + (["t.bias"] if bias else []), ["u"],
                    name="/t/ConvTranspose", kernel_shape=[3], strides=[2], pads=[1, 1],
                    output_padding=[1], group=2),
        h.make_node("Tanh", ["u"], ["y"], name="/tanh/Tanh"),
    ]
    inits = [weight("c.weight", (16, 4, 3)), weight("c.bias", (16,)),
             weight("t.weight", (16, 4, 3)), weight("t.bias", (8,))]
    return build(nodes, [tensor("x", ["N", 4, 64])], [tensor("y", ["N", 8, 128])], inits)


def test_a_1d_transposed_convolution_is_planned(tmp_path):
    """ConvTranspose1d (audio decoders, 1-D U-Nets) was an operator 'not understood': its
    weight and bias belonged to no layer (1,048 of 1,768 parameters of a small 1-D
    encoder-decoder missing, warned) and its output was not kept for the Tanh after it."""
    r = import_saved(tmp_path, _conv_transpose_1d(), batch=2)
    a = analyze(r.draft)
    assert a.ok and r.report.complete, r.warnings
    assert a.parameters == 16 * 4 * 3 + 16 + 16 * 4 * 3 + 8
    assert not r.report.unclaimed_weights
    assert not any("not understand" in w for w in r.warnings)
    # kept for backward: the conv's input (4×64), relu's output (16×64, the transposed conv's
    # input too) and the tanh's output (8×128)
    assert saved_per_sample(r) == 4 * 64 + 16 * 64 + 8 * 128


def _unshuffle(r: int = 2, depth_to_space: bool = False):
    """conv → relu (in place, keeps its output) → nn.PixelUnshuffle(2) as the legacy exporter
    writes it (Reshape to 6-D, Transpose, Reshape back) or a DepthToSpace → 1×1 conv."""
    C, H = 8, 16
    nodes = [
        h.make_node("Conv", ["x", "c.weight"], ["a"], name="/c/Conv", kernel_shape=[1, 1]),
        h.make_node("Relu", ["a"], ["r"], name="/relu/Relu"),
    ]
    inits = [weight("c.weight", (C, 3, 1, 1))]
    if depth_to_space:
        nodes.append(h.make_node("DepthToSpace", ["r"], ["u"], name="/ps/DepthToSpace",
                                 blocksize=r, mode="CRD"))
        out_c, out_h = C // (r * r), H * r
    else:
        nodes += [
            h.make_node("Reshape", ["r", "s6"], ["r6"], name="/pu/Reshape"),
            h.make_node("Transpose", ["r6"], ["t6"], name="/pu/Transpose",
                        perm=[0, 1, 3, 5, 2, 4]),
            h.make_node("Reshape", ["t6", "s4"], ["u"], name="/pu/Reshape_1"),
        ]
        inits += [const("s6", [1, C, H // r, r, H // r, r], np.int64),
                  const("s4", [1, C * r * r, H // r, H // r], np.int64)]
        out_c, out_h = C * r * r, H // r
    nodes.append(h.make_node("Conv", ["u", "d.weight"], ["y"], name="/d/Conv",
                             kernel_shape=[1, 1]))
    inits.append(weight("d.weight", (4, out_c, 1, 1)))
    model = build(nodes, [tensor("x", [1, 3, H, H])], [tensor("y", [1, 4, out_h, out_h])],
                  inits)
    return model, C * H * H


def test_a_pixel_unshuffle_before_a_convolution_is_a_copy_the_convolution_keeps(tmp_path):
    """permute(...).reshape(...) that no strides express copies in PyTorch: the convolution
    after a pixel unshuffle keeps that copy, besides the ReLU's output. Before: planned as a
    view of the ReLU's output, one tensor (a super-resolution net −24 % from both exporters,
    silent for the unshuffle)."""
    model, relu_out = _unshuffle()
    r = import_saved(tmp_path, model, batch=2)
    assert analyze(r.draft).ok and r.report.complete, r.warnings
    # x (3×16×16) for the first conv, relu's output, the unshuffled copy for the second conv
    assert saved_per_sample(r) == 3 * 16 * 16 + relu_out + relu_out


def test_a_reshape_that_is_a_view_stays_a_view(tmp_path):
    """The same chain without the transpose (a view in PyTorch) keeps no second tensor."""
    model, relu_out = _unshuffle()
    for n in model.graph.node:
        if n.op_type == "Transpose":
            del n.attribute[:]
            n.attribute.append(h.make_attribute("perm", [0, 1, 2, 3, 4, 5]))
    r = import_saved(tmp_path, model, batch=2)
    assert analyze(r.draft).ok and r.report.complete, r.warnings
    assert saved_per_sample(r) == 3 * 16 * 16 + relu_out


def test_depth_to_space_is_a_copy_keeping_nothing(tmp_path):
    """nn.PixelShuffle's DepthToSpace was an operator 'not understood' (import incomplete,
    counted as keeping its input); it keeps nothing, the next convolution keeps its output."""
    model, relu_out = _unshuffle(depth_to_space=True)
    r = import_saved(tmp_path, model, batch=2)
    assert analyze(r.draft).ok and r.report.complete, r.warnings
    assert not any("not understand" in w for w in r.warnings)
    assert saved_per_sample(r) == 3 * 16 * 16 + relu_out + relu_out
