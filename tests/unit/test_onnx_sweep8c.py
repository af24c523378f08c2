"""Import cost of large graphs (round 8c, issue #12 "the import of a 100,000-node graph finishes
in seconds"): what ONNX shape inference is handed, and which weight values are decoded. Each
test fails on the importer as it was before its change."""

from __future__ import annotations

import pytest

onnx = pytest.importorskip("onnx")

from onnx import helper  # noqa: E402
from onnx_fixtures import build, const, import_saved, tensor, weight  # noqa: E402

h = helper
BLOCKS, C = 40, 16


def _conv_chain(record: bool = False) -> onnx.ModelProto:
    """Conv -> BatchNormalization -> Relu blocks with 16x16x3x3 filters (9 KiB each, small
    enough to be kept with their values), and a Resize whose scales are a float constant (its
    values decide the shapes after it). ``record``: every node carries a 2 KiB record in its
    ``metadata_props``, as the default exporter's stack traces do."""
    nodes, inits = [], [weight("stem.w", (C, 3, 3, 3))]
    nodes.append(h.make_node("Conv", ["x", "stem.w"], ["s"], name="/stem/Conv",
                             kernel_shape=[3, 3], pads=[1, 1, 1, 1]))
    x = "s"
    for b in range(BLOCKS):
        p = f"b{b}"
        inits.append(weight(f"{p}.w", (C, C, 3, 3)))
        inits += [weight(f"{p}.bn.{k}", (C,), 1.0) for k in ("s", "b", "m", "v")]
        nodes += [
            h.make_node("Conv", [x, f"{p}.w"], [f"{p}.c"], name=f"/{p}/conv/Conv",
                        kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
            h.make_node("BatchNormalization", [f"{p}.c"] + [f"{p}.bn.{k}" for k in (
                "s", "b", "m", "v")], [f"{p}.n"], name=f"/{p}/bn/BatchNormalization"),
            h.make_node("Relu", [f"{p}.n"], [f"{p}.r"], name=f"/{p}/relu/Relu")]
        x = f"{p}.r"
    inits += [const("roi", [], dtype="float32"), const("scales", [1.0, 1.0, 2.0, 2.0])]
    nodes.append(h.make_node("Resize", [x, "roi", "scales"], ["y"], name="/up/Resize",
                             mode="nearest"))
    if record:
        for node in nodes:
            p = node.metadata_props.add()
            p.key, p.value = "pkg.torch.onnx.stack_trace", "File 'model.py', line 1\n" * 90
    return build(nodes, [tensor("x", ["N", 3, 8, 8])], [tensor("y", None)], inits)


def _inference_inputs(monkeypatch) -> list[bytes]:
    """The models the importer hands to ONNX shape inference, serialised."""
    import onnx.shape_inference as si

    seen: list[bytes] = []
    real = si.infer_shapes

    def spy(model, *args, **kwargs):
        seen.append(model.SerializeToString())
        return real(model, *args, **kwargs)

    monkeypatch.setattr(si, "infer_shapes", spy)
    return seen


def test_shape_inference_gets_no_weight_data_nor_node_records(tmp_path, monkeypatch):
    """The inference copy carried every weight kept with its values (BLOCKS x 9 KiB here; on
    a 100,000-node residual net 81 MB, serialised, inferred and parsed back: 2.3 s and 320 MiB
    of the import) and every node's record. Now only the shapes of the weights go, and the
    plan is the same: the Resize's float scales still decide the output's shape."""
    model = _conv_chain(record=True)
    weights = sum(len(t.raw_data) for t in model.graph.initializer)
    records = sum(len(p.value) for n in model.graph.node for p in n.metadata_props)
    seen = _inference_inputs(monkeypatch)
    r = import_saved(tmp_path, model, batch=2)
    assert seen, "shape inference was not run"
    assert max(len(b) for b in seen) < (weights + records) / 20, \
        f"{max(len(b) for b in seen):,} bytes handed to inference ({weights:,} of weights)"
    layers = {layer.name: layer for layer in r.draft.layers}
    assert r.report.complete and r.report.plan_parameters == r.report.file_weights
    from planner.core.network import analyze

    shapes = {info.name: info.out_shape for info in analyze(r.draft).layers}
    up = next(name for name, layer in layers.items() if layer.kind == "upsample")
    assert shapes[up] == (C, 16, 16)  # the scales' values reached inference


def test_weight_values_are_decoded_only_where_read(tmp_path):
    """Every small initializer was decoded to a numpy array up front (142,851 arrays on the
    100,000-node residual net, 1.2 s and 150 MiB); the import reads the values of few (the
    Resize's scales, norms' statistics it checks), and decodes only those."""
    from planner.core.importers.onnx import importer as imp_mod
    import onnx.numpy_helper  # noqa: F401

    path = tmp_path / "m.onnx"
    onnx.save_model(_conv_chain(), str(path))
    imp = imp_mod.Importer(onnx, path, 2, None)
    imp.run()
    filters = {f"b{b}.w" for b in range(BLOCKS)} | {"stem.w"}
    decoded = {name for name in filters if dict.__contains__(imp.values, name)}
    assert not decoded, f"{len(decoded)} filter(s) decoded though no step reads their values"
    assert dict.__contains__(imp.values, "scales")


def test_a_branch_reads_float_values_of_the_graph(tmp_path):
    """A subgraph's nodes read the graph's initializers without listing them as the If's
    inputs: an If (decided by the input's shape, so inlined) whose branch upsamples by the
    graph's float scales. Left without their values in the inference copy, the upsampled
    shape was unknown once the branch was inlined; with subgraphs every value goes."""
    import numpy as np

    branch = h.make_graph(
        [h.make_node("Resize", ["c", "roi", "scales"], ["up"], name="/up/Resize",
                     mode="nearest")], "then", [], [tensor("up", None)])
    other = h.make_graph([h.make_node("Identity", ["c"], ["same"], name="/same")], "else",
                         [], [tensor("same", None)])
    nodes = [
        h.make_node("Conv", ["x", "w"], ["c"], name="/conv/Conv", kernel_shape=[1, 1]),
        h.make_node("Shape", ["x"], ["shp"], name="/Shape"),
        h.make_node("Gather", ["shp", "two"], ["hgt"], name="/Gather", axis=0),
        h.make_node("Equal", ["hgt", "eight"], ["small"], name="/Equal"),
        h.make_node("If", ["small"], ["y0"], name="/If", then_branch=branch,
                    else_branch=other),
        h.make_node("Conv", ["y0", "w2"], ["y"], name="/head/Conv", kernel_shape=[1, 1]),
    ]
    inits = [weight("w", (C, 3, 1, 1)), weight("w2", (4, C, 1, 1)),
             const("two", 2, dtype=np.int64), const("eight", 8, dtype=np.int64),
             const("roi", [], dtype="float32"), const("scales", [1.0, 1.0, 2.0, 2.0])]
    model = build(nodes, [tensor("x", ["N", 3, 8, 8])], [tensor("y", None)], inits)
    r = import_saved(tmp_path, model, batch=2)
    from planner.core.network import analyze

    infos = analyze(r.draft).layers
    assert infos[-1].out_shape == (4, 16, 16), [(i.name, i.out_shape) for i in infos]
