"""Silent misses found by sweeping transformers / torchvision / peft models nobody had tried
(round 6c), rebuilt with onnx.helper (no torch): each test fails on the importer as it was
before its fix."""

from __future__ import annotations

import pytest

onnx = pytest.importorskip("onnx")

from onnx import helper  # noqa: E402
from onnx_fixtures import build, import_saved, saved_per_sample  # noqa: E402
from onnx_fixtures import tensor, weight  # noqa: E402

from planner.core.network import analyze  # noqa: E402

h = helper


def _record(node, text: str) -> None:
    p = node.metadata_props.add()
    p.key, p.value = "pkg.torch.onnx.fx_node", text


def _max_pool_over_units(keepdims: int = 0, record: str | None = None, op: str = "ReduceMax",
                         units: int = 4, t: int = 16, c: int = 32):
    """Hiera's pooling over mask units: a linear layer, ``x.view(n, units, t, c).max(dim=1)
    .values`` (ReduceMax over one axis), another linear layer."""
    nodes = [
        h.make_node("MatMul", ["x", "m.proj.weight"], ["a"], name="/m/proj/MatMul"),
        h.make_node(op, ["a"], ["p"], name=f"/m/{op}", axes=[1], keepdims=keepdims),
        h.make_node("MatMul", ["p", "m.fc.weight"], ["y"], name="/m/fc/MatMul"),
    ]
    if record:
        _record(nodes[1], record)
    inits = [weight("m.proj.weight", (c, c)), weight("m.fc.weight", (c, c))]
    return build(nodes, [tensor("x", ["N", units, t, c])], [tensor("y", None)], inits)


@pytest.mark.parametrize("record", [
    None,  # the legacy exporter: no record, one axis dropped
    "%max_1 : [num_users=1] = call_function[target=torch.ops.aten.max.dim](args = (%view_7, "
    "1), kwargs = {})",
])
def test_max_over_a_dimension_keeps_int64_indices_not_its_input(tmp_path, record):
    """``torch.max(x, dim)`` keeps int64 indices of its result for backward, not its input.
    Before: the input (4× the result, fp32) was planned; Hiera +20.3 % saved bytes from both
    exporters, silent."""
    units, t, c = 4, 16, 32
    r = import_saved(tmp_path, _max_pool_over_units(record=record, units=units, t=t, c=c),
                     batch=2)
    a = analyze(r.draft)
    assert a.ok and r.report.complete
    # the first product keeps x, the max its int64 indices (two fp32 units each), the second
    # product its input
    assert saved_per_sample(r) == units * t * c + 2 * t * c + t * c


@pytest.mark.parametrize("keepdims, record", [
    (1, None),  # a reduction keeping its axis: amax(dim, keepdim=True), as before
    (0, "%amax : [num_users=1] = call_function[target=torch.ops.aten.amax.default](args = "
        "(%view_7, [1]), kwargs = {})"),
])
def test_amax_still_keeps_its_input(tmp_path, keepdims, record):
    units, t, c = 4, 16, 32
    r = import_saved(tmp_path, _max_pool_over_units(keepdims, record, units=units, t=t, c=c),
                     batch=2)
    assert r.report.complete
    out = t * c
    assert saved_per_sample(r) == units * t * c + units * t * c + out


def test_min_over_a_dimension_keeps_indices_too(tmp_path):
    units, t, c = 4, 16, 32
    r = import_saved(tmp_path, _max_pool_over_units(op="ReduceMin", units=units, t=t, c=c),
                     batch=2)
    assert saved_per_sample(r) == units * t * c + 2 * t * c + t * c


