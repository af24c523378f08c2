"""Constructs found by exporting models of several libraries (Hugging Face, timm, torch.nn)
with both PyTorch exporters, as onnx.helper graphs (no torch): each was planned wrong with no
warning before its fix."""

from __future__ import annotations

import pytest

onnx = pytest.importorskip("onnx")

from onnx import helper  # noqa: E402
from onnx_fixtures import build, import_saved, tensor, weight  # noqa: E402

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
