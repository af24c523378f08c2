"""Vision-transformer constructs of torchvision's Swin, Swin-V2 and MaxViT as the exporters write
them (onnx.helper graphs, no torch)."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from onnx import helper  # noqa: E402
from onnx_fixtures import build, const, save, tensor, weight  # noqa: E402

from planner.core.importers.onnx import import_onnx  # noqa: E402
from planner.core.memory import Assumptions, estimate  # noqa: E402
from planner.core.network import Setup, analyze  # noqa: E402


def imp(tmp_path, model, name="m.onnx", **kw):
    return import_onnx(save(model, tmp_path / name), **kw)


def kinds(result):
    return [layer.kind for layer in result.draft.layers[1:]]


def saved_elements(result, batch=2):
    exact = Assumptions(allocator_block_bytes=1, allocator_segment_bytes=1)
    est = estimate(analyze(result.draft), Setup(batch_size=batch, precision="fp32"), exact)
    return est.saved_bytes // 4 // batch


def test_a_position_bias_the_legacy_exporter_folded_is_named_in_a_warning(tmp_path):
    """Swin's relative-position bias (a learned 169×heads table gathered by an index buffer)
    is folded by the legacy exporter's constant folding into an 'onnx::Add_N' constant of
    heads×49×49: the parameters behind it are gone from the file, and the import says so."""
    h = helper
    nodes = [h.make_node("MatMul", ["x", "blk.qk.weight"], ["s"], name="/blk/attn/MatMul"),
             h.make_node("Reshape", ["s", "shape"], ["s4"], name="/blk/attn/Reshape"),
             h.make_node("Add", ["s4", "onnx::Add_77"], ["b"], name="/blk/attn/Add_1"),
             h.make_node("Softmax", ["b"], ["y"], name="/blk/attn/Softmax", axis=-1)]
    inits = [weight("blk.qk.weight", (16, 3 * 49)), const("shape", [0, 3, 49, 49], np.int64),
             const("onnx::Add_77", np.full((1, 3, 49, 49), 0.1))]
    r = imp(tmp_path, build(nodes, [tensor("x", ["N", 49, 16])], [tensor("y", None)], inits))
    assert analyze(r.draft).parameters == 16 * 3 * 49
    folded = [w for w in r.warnings if "onnx::Add_77" in w]
    assert len(folded) == 1 and f"{3 * 49 * 49:,} values" in folded[0]
    assert "not counted" in folded[0]
