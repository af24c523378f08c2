"""Misses found by round 14's sweep of model libraries (timm's and transformers' vision and
audio families not tried before), rebuilt with onnx.helper (no torch): each test fails on the
importer as it was before its fix."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from onnx import helper  # noqa: E402
from onnx_fixtures import build, const, import_saved, tensor, weight  # noqa: E402

from planner.core.network import analyze  # noqa: E402

h = helper


def _scoped(node, *scopes: str):
    p = node.metadata_props.add()
    p.key, p.value = "pkg.torch.onnx.name_scopes", str(["", *scopes, node.name])
    return node


def test_a_parameter_merged_with_another_blocks_does_not_make_its_constants_parameters(
        tmp_path):
    """An untrained WavLM from the default exporter: every layer's gru_rel_pos_const is ones,
    and the optimiser stores the equal tensors once, under layer 0's name, so the exported
    program's signature lists layer 1's as a parameter the file lacks. That made layer 1's
    attention a module whose parameter was folded, and the T×T position bias the exporter
    computed from the relative-position table (a constant of 4×49×49 values, 'permute') was
    counted as that parameter: +9,604 parameters, said only as a 'per-channel factor'. Now
    the merged parameter is recognised by its twin's name; the table is a constant computed
    at export, named in that warning."""
    c, t = 16, 8
    nodes = [
        _scoped(h.make_node("Mul", ["x", "blocks.0.attn.c"], ["y0"], name="node_mul"),
                "blocks.0", "blocks.0.attn"),
        _scoped(h.make_node("Mul", ["y0", "blocks.0.attn.c"], ["y1"], name="node_mul_1"),
                "blocks.1", "blocks.1.attn"),
        _scoped(h.make_node("Mul", ["y1", "permute"], ["y2"], name="node_mul_2"),
                "blocks.1", "blocks.1.attn"),
        _scoped(h.make_node("MatMul", ["y2", "head.weight"], ["y"], name="node_linear"),
                "head"),
    ]
    inits = [weight("blocks.0.attn.c", (1, 1, c), 1.0),
             const("permute", np.random.default_rng(0).normal(size=(t, c)).astype(np.float32)),
             weight("head.weight", (c, 4))]
    model = build(nodes, [tensor("x", ["N", t, c])], [tensor("y", ["N", t, 4])], inits)
    p = model.graph.metadata_props.add()
    p.key = "pkg.torch.export.ExportedProgram.graph_signature"
    p.value = "\n# inputs\n" + "\n".join(
        f"p_{n.replace('.', '_')}: PARAMETER target='{n}'"
        for n in ("blocks.0.attn.c", "blocks.1.attn.c", "head.weight"))
    r = import_saved(tmp_path, model, batch=2)
    a = analyze(r.draft)
    assert a.ok, a.problems
    # the merged ones counted once per layer (as each layer has its own), the head; not the
    # table's t×c values
    assert a.parameters == 2 * c + c * 4
    assert any("'permute'" in w and "computed when the file was exported" in w
               for w in r.warnings), r.warnings
