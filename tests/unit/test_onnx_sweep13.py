"""Round 13 of the ONNX sweep: files as other model libraries' own exporters write them
(onnx.helper graphs, no torch). Measured against autograd in benchmarks/onnx_accuracy.py and,
for Ultralytics, with its own ``model.export(format="onnx")`` (see the issue #12 note)."""

from __future__ import annotations

import pytest

onnx = pytest.importorskip("onnx")

from onnx import helper  # noqa: E402
from onnx_fixtures import (  # noqa: E402
    build, const, import_saved, layer_kinds, saved_per_sample, tensor, weight)

from planner.core.network import analyze  # noqa: E402

C_IN, C, HW = 3, 16, 32


def yolo_like(author: str | None, *, merged_bias: bool = False) -> onnx.ModelProto:
    """Two of Ultralytics' Conv modules (convolution + SiLU, the batch norm fused into the
    convolution by ``model.fuse()``: a bias named '….conv.bias') and a detection head's plain
    1×1 convolution with its own bias ('model.2.weight'). ``author``: the metadata Ultralytics
    writes; ``merged_bias``: the second module reads the first one's bias (onnxslim merges
    equal tensors: an untrained network's zero shifts)."""
    h = helper
    b1 = "model.1.conv.bias" if not merged_bias else "model.0.conv.bias"
    nodes = [
        h.make_node("Conv", ["images", "model.0.conv.weight", "model.0.conv.bias"], ["c0"],
                    name="/model.0/conv/Conv", pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
        h.make_node("Sigmoid", ["c0"], ["s0"], name="/model.0/act/Sigmoid"),
        h.make_node("Mul", ["c0", "s0"], ["a0"], name="/model.0/act/Mul"),
        h.make_node("Conv", ["a0", "model.1.conv.weight", b1], ["c1"],
                    name="/model.1/conv/Conv", pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
        h.make_node("Sigmoid", ["c1"], ["s1"], name="/model.1/act/Sigmoid"),
        h.make_node("Mul", ["c1", "s1"], ["a1"], name="/model.1/act/Mul"),
        h.make_node("Conv", ["a1", "model.2.weight", "model.2.bias"], ["out"],
                    name="/model.2/Conv", kernel_shape=[1, 1]),
    ]
    inits = [weight("model.0.conv.weight", (C, C_IN, 3, 3)), weight("model.0.conv.bias", (C,)),
             weight("model.1.conv.weight", (C, C, 3, 3)), weight("model.2.weight", (4, C, 1, 1)),
             weight("model.2.bias", (4,), 0.5)]
    if not merged_bias:
        inits.append(weight("model.1.conv.bias", (C,), 0.02))
    model = build(nodes, [tensor("images", [1, C_IN, HW, HW])], [tensor("out", None)], inits)
    if author:
        for key, value in (("description", "Ultralytics YOLOv8n model"), ("author", author),
                           ("task", "detect")):
            p = model.metadata_props.add()
            p.key, p.value = key, value
    return model


CONVS = C * C_IN * 9 + C * C * 9
HEAD = 4 * C + 4


@pytest.mark.parametrize("merged_bias", [False, True])
def test_an_ultralytics_export_gets_its_fused_batch_norms_back(tmp_path, merged_bias):
    """Ultralytics fuses each Conv module's batch norm into its convolution before exporting:
    a YOLOv8n file planned 26 % under autograd's saved bytes, with nothing said. Its Conv
    modules get their norms back (2 parameters a channel instead of the fused bias, and the
    norm's input kept), the head's plain convolution keeps its bias, and the user is told
    the file is an inference export."""
    r = import_saved(tmp_path, yolo_like("Ultralytics", merged_bias=merged_bias), batch=2)
    assert layer_kinds(r).count("batchnorm") == 2
    a = analyze(r.draft)
    assert a.ok
    assert a.parameters == CONVS + 2 * (2 * C) + HEAD
    assert any("exported for inference" in w and "2 batch norm" in w for w in r.warnings), \
        r.warnings
    plain = import_saved(tmp_path, yolo_like(None, merged_bias=merged_bias), "plain.onnx",
                         batch=2)
    # the same graph from anyone else: convolutions with biases of their own (a merged one
    # is a constant fill, counted for each layer), no norms
    assert "batchnorm" not in layer_kinds(plain)
    assert analyze(plain.draft).parameters == CONVS + 2 * C + HEAD
    # each restored norm keeps its input (the convolution's output), C×H×W a sample, and its
    # batch mean and inverse deviation, C each, whatever the batch (two norms at batch 2)
    assert saved_per_sample(r) == saved_per_sample(plain) + 2 * C * HW * HW + 2 * (2 * C) // 2


def _tanh_gelu_mlp(scope: str, hierarchy: str | None = None) -> onnx.ModelProto:
    """x → linear → x·0.5·(1 + tanh(0.79788456·x·(1 + 0.044715·x·x))) → linear, the GELU's
    nodes named under ``scope`` (the legacy exporter's module path) and, with ``hierarchy``,
    recorded as the default exporter records a module's class."""
    h = helper
    t, e = 64, 128
    g = f"/{scope}"
    nodes = [
        h.make_node("MatMul", ["x", "w1"], ["u"], name="/mlp/dense_h_to_4h/MatMul"),
        h.make_node("Mul", ["u", "half"], ["a"], name=f"{g}/Mul"),
        h.make_node("Mul", ["u", "k0"], ["b"], name=f"{g}/Mul_1"),
        h.make_node("Mul", ["u", "k1"], ["c"], name=f"{g}/Mul_2"),
        h.make_node("Mul", ["c", "u"], ["d"], name=f"{g}/Mul_3"),
        h.make_node("Add", ["d", "one"], ["ee"], name=f"{g}/Add"),
        h.make_node("Mul", ["b", "ee"], ["f"], name=f"{g}/Mul_4"),
        h.make_node("Tanh", ["f"], ["gg"], name=f"{g}/Tanh"),
        h.make_node("Add", ["gg", "one"], ["hh"], name=f"{g}/Add_1"),
        h.make_node("Mul", ["a", "hh"], ["gl"], name=f"{g}/Mul_5"),
        h.make_node("MatMul", ["gl", "w2"], ["y"], name="/mlp/dense_4h_to_h/MatMul"),
    ]
    if hierarchy:
        for node in nodes[1:-1]:
            p = node.metadata_props.add()
            p.key = "pkg.torch.onnx.class_hierarchy"
            p.value = f"['__main__.Net', 'transformers.models.bloom.modeling_bloom.BloomMLP', " \
                      f"'{hierarchy}', 'aten.mul.Tensor']"
    inits = [weight("w1", (e, e)), weight("w2", (e, e)), const("half", 0.5),
             const("k0", 0.79788456), const("k1", 0.044715), const("one", 1.0)]
    return build(nodes, [tensor("x", ["N", t, e])], [tensor("y", None)], inits, opset=20), t, e


@pytest.mark.parametrize("scope, hierarchy", [
    ("h.0/mlp/gelu_impl", None),  # the legacy exporter's names
    ("node", "transformers.models.bloom.modeling_bloom.BloomGelu"),  # the default's record
])
def test_bloom_s_gelu_trains_as_one_gelu_keeping_its_input(tmp_path, scope, hierarchy):
    """transformers' BloomGelu runs a custom autograd function in training that keeps only its
    input; every export shows its inference form, the tanh formula written out. It was
    planned op by op (BLOOM +126 % of autograd's saved bytes, warned): now one GELU, said in a
    note. The same formula elsewhere (GPT-J's gelu_new) stays op by op (test_onnx_sweep5)."""
    model, t, e = _tanh_gelu_mlp(scope, hierarchy)
    r = import_saved(tmp_path, model, batch=2)
    a = analyze(r.draft)
    assert a.ok and r.report.complete and a.parameters == 2 * e * e
    functions = [layer.params.get("function") for layer in r.draft.layers]
    assert "tanh" not in functions and functions.count("gelu") == 1, functions
    # x (the first product's input), u (the GELU's input), the GELU's output (the second
    # product's input)
    assert saved_per_sample(r) == 3 * t * e
    assert any("BLOOM" in n for n in r.notes), r.notes
    assert not any("written out with Tanh" in w for w in r.warnings), r.warnings
    other, _t, _e = _tanh_gelu_mlp("h.0/mlp/act")
    assert "tanh" in [layer.params.get("function") for layer in
                      import_saved(tmp_path, other, "other.onnx", batch=2).draft.layers]


def test_a_default_export_re_saved_by_onnxslim_says_what_it_folded(tmp_path):
    """onnxslim folds BERT's position and token-type lookups at fixed positions into constants
    ('embedding_1', (1, T, C)), drops the exporter's record and renames the products it fuses
    ('val_38_pre_reshape'). Those constants were counted as parameters at their folded size
    with nothing said (BERT: 32,768 counted for the 65,792 of the two tables); now they are
    constants the exporter computed, named in that warning."""
    import numpy as np  # noqa: PLC0415

    h = helper
    t, c = 16, 8
    nodes = [h.make_node("Add", ["x", "embedding_1"], ["e"], name="node_add"),
             h.make_node("Reshape", ["e", "flat"], ["e2"], name="val_3_pre_reshape"),
             h.make_node("Gemm", ["e2", "val_3_weight", "m.encoder.dense.bias"], ["y2"],
                         name="val_3", transB=1),
             h.make_node("Reshape", ["y2", "back"], ["y"], name="val_3_post_reshape")]
    inits = [weight("embedding_1", (1, t, c), 0.03), weight("val_3_weight", (c, c)),
             weight("m.encoder.dense.bias", (c,), 0.02), const("flat", [t, c], np.int64),
             const("back", [1, t, c], np.int64)]
    model = build(nodes, [tensor("x", [1, t, c])], [tensor("y", None)], inits)
    r = import_saved(tmp_path, model, batch=2)
    assert analyze(r.draft).parameters == c * c + c
    said = [w for w in r.warnings if "computed when the file was exported" in w]
    assert said and "'embedding_1'" in said[0], r.warnings
