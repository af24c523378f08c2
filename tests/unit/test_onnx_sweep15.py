"""Misses found by round 15's sweep of model libraries (timm families not tried before),
rebuilt with onnx.helper (no torch): each test fails on the importer as it was before its fix."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from onnx import helper  # noqa: E402
from onnx_fixtures import build, const, import_saved, saved_per_sample, tensor, weight  # noqa: E402

from planner.core.network import analyze  # noqa: E402

h = helper


def _padded_net(mode: str) -> onnx.ModelProto:
    """timm's BlurPool (ResNet-blur): a stride-1 max pool, then F.pad(mode=...) of its output
    and a fixed 3×3 depthwise filter (a buffer) with stride 2."""
    c, s = 4, 8
    nodes = [
        h.make_node("MaxPool", ["x"], ["m"], kernel_shape=[3, 3], strides=[1, 1],
                    pads=[1, 1, 1, 1], name="/maxpool/MaxPool"),
        h.make_node("Pad", ["m", "pads"], ["p"], mode=mode, name="/aa/Pad"),
        h.make_node("Conv", ["p", "aa.filt"], ["y"], group=c, kernel_shape=[3, 3],
                    strides=[2, 2], name="/aa/Conv"),
    ]
    inits = [const("pads", [0, 0, 1, 1, 0, 0, 1, 1], np.int64),
             const("aa.filt", np.full((c, 1, 3, 3), 1 / 9, np.float32))]
    return build(nodes, [tensor("x", ["N", c, s, s])], [tensor("y", ["N", c, s // 2, s // 2])],
                 inits)


@pytest.mark.parametrize("mode", ["reflect", "edge"])
def test_a_reflection_or_replication_pad_keeps_its_input(tmp_path, mode):
    """PyTorch's reflection_pad2d and replication_pad2d keep their input for backward (their
    backward takes it); the plan kept nothing for any pad: ResNet-blur18 (timm) was planned
    7.8 % below what autograd keeps."""
    r = import_saved(tmp_path, _padded_net(mode), batch=2)
    assert analyze(r.draft).ok
    assert r.report.complete
    c, s = 4, 8
    pooled = c * s * s  # the max pool's output: what the pad reads
    padded = c * (s + 2) * (s + 2)  # what the filter reads, kept (for any pad)
    indices = 2 * pooled  # int64 indices beside the pool's output (fp32 elements)
    pool_input = c * s * s
    assert saved_per_sample(r) == pool_input + indices + pooled + padded


def test_same_padding_computed_with_clip_resolves(tmp_path):
    """timm's TensorFlow-'same' convolutions (tf_efficientnet_*) compute their pad at run time,
    max((ceil(i / s) - 1) * s + k - i, 0), which the legacy exporter writes with a Clip(x, 0):
    the importer could not evaluate the Clip, the pad's size stayed unknown and the file was
    planned as incomplete (15 % short). Now the pad resolves and the plan is whole."""
    c, s, k, stride = 3, 9, 3, 2
    nodes = [
        h.make_node("Shape", ["x"], ["shp"], name="/stem/Shape"),
        h.make_node("Gather", ["shp", "two"], ["ih"], axis=0, name="/stem/Gather"),
        h.make_node("Cast", ["ih"], ["ihf"], to=onnx.TensorProto.FLOAT, name="/stem/Cast"),
        h.make_node("Div", ["ihf", "sf"], ["q"], name="/stem/Div"),
        h.make_node("Ceil", ["q"], ["cq"], name="/stem/Ceil"),
        h.make_node("Sub", ["cq", "one"], ["cq1"], name="/stem/Sub"),
        h.make_node("Mul", ["cq1", "sf"], ["t"], name="/stem/Mul"),
        h.make_node("Add", ["t", "kf"], ["t2"], name="/stem/Add"),
        h.make_node("Sub", ["t2", "ihf"], ["need"], name="/stem/Sub_1"),
        h.make_node("Clip", ["need", "zero"], ["need0"], name="/stem/Clip"),
        h.make_node("Cast", ["need0"], ["needs"], to=onnx.TensorProto.INT64,
                    name="/stem/Cast_1"),
        h.make_node("Unsqueeze", ["needs", "ax0"], ["needi"], name="/stem/Unsqueeze"),
        h.make_node("Div", ["needi", "two_i"], ["lo"], name="/stem/Div_1"),
        h.make_node("Sub", ["needi", "lo"], ["hi"], name="/stem/Sub_2"),
        h.make_node("Concat", ["zeros2", "lo", "lo", "zeros2", "hi", "hi"], ["pads"], axis=0,
                    name="/stem/Concat"),
        h.make_node("Pad", ["x", "pads"], ["p"], mode="constant", name="/stem/Pad"),
        h.make_node("Conv", ["p", "stem.weight"], ["y"], kernel_shape=[k, k],
                    strides=[stride, stride], name="/stem/Conv"),
    ]
    inits = [const("two", 2, np.int64), const("sf", float(stride)), const("one", 1.0),
             const("kf", float(k)), const("zero", 0.0), const("two_i", [2], np.int64),
             const("zeros2", [0, 0], np.int64), const("ax0", [0], np.int64),
             weight("stem.weight", (8, c, k, k))]
    out = -(-s // stride)  # 5: the 'same' output of 9 pixels at stride 2
    model = build(nodes, [tensor("x", ["N", c, s, s])], [tensor("y", ["N", 8, out, out])],
                  inits)
    r = import_saved(tmp_path, model, batch=2)
    assert r.report.complete, [str(w) for w in r.warnings]
    assert not [w for w in r.warnings if "Pad" in str(w)]
    a = analyze(r.draft)
    assert a.ok, a.problems
    assert tuple(a.layers[-1].out_shape) == (8, out, out)
