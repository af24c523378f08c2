"""Silent misses found by sweeping timm vision families nobody had tried (round 6, second
sweep), rebuilt with onnx.helper (no torch): each test fails on the importer as it was before
its fix."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from onnx import helper  # noqa: E402
from onnx_fixtures import build, const, import_saved, layer_kinds, saved_per_sample  # noqa: E402
from onnx_fixtures import tensor, weight  # noqa: E402

from planner.core.network import analyze  # noqa: E402

h = helper


def _windowed_sdpa(windows: int, t: int = 16, c: int = 16, heads: int = 2):
    """timm's NesT / Hiera / Twins attention over windows as the legacy exporter writes
    scaled_dot_product_attention: q, k, v (N, heads, windows, T, d) from one packed projection,
    q and kᵀ each scaled by √scale, an explicit softmax. ``windows`` 0: 4-D (no window axis)."""
    d = c // heads
    lead = [windows] if windows else []
    perm = [3, 0, 4, 1, 2, 5] if windows else [2, 0, 3, 1, 4]
    kt = [0, 1, 2, 4, 3] if windows else [0, 1, 3, 2]
    nodes = [
        h.make_node("MatMul", ["x", "w"], ["p"], name="/attn/qkv/MatMul"),
        h.make_node("Reshape", ["p", "s"], ["p6"], name="/attn/Reshape"),
        h.make_node("Transpose", ["p6"], ["pt"], name="/attn/Transpose", perm=perm),
        *(h.make_node("Gather", ["pt", f"i{k}"], [n], name=f"/attn/Gather_{k}", axis=0)
          for k, n in enumerate("qkv")),
        h.make_node("Transpose", ["k"], ["ktr"], name="/attn/Transpose_1", perm=kt),
        h.make_node("Mul", ["q", "sq"], ["qs"], name="/attn/Mul"),
        h.make_node("Mul", ["ktr", "sk"], ["ks"], name="/attn/Mul_1"),
        h.make_node("MatMul", ["qs", "ks"], ["sc"], name="/attn/MatMul"),
        h.make_node("Softmax", ["sc"], ["pr"], name="/attn/Softmax", axis=-1),
        h.make_node("MatMul", ["pr", "v"], ["o"], name="/attn/MatMul_1"),
    ]
    root = float(d ** -0.25)
    inits = [weight("w", (c, 3 * c)), const("s", [1, *lead, t, 3, heads, d], np.int64),
             const("sq", root), const("sk", root),
             *(const(f"i{k}", k, np.int64) for k in range(3))]
    return build(nodes, [tensor("x", [1, *lead, t, c])], [tensor("o", None)], inits)


def test_attention_on_more_than_four_dimensions_is_the_math_kernel(tmp_path):
    """PyTorch's fused attention kernels take 4-D q, k, v only; on 5-D windows × heads (NesT,
    Hiera, Twins) SDPA runs the math kernel, which keeps the scaled q and k, the T×T softmax
    and v. Before: planned as a fused kernel (q, k, v, output, logsumexp): NesT-T −25 %,
    Hiera-T −12.7 %, silent."""
    windows, t, c, heads = 4, 16, 16, 2
    r = import_saved(tmp_path, _windowed_sdpa(windows, t, c, heads), batch=2)
    assert analyze(r.draft).ok and r.report.complete
    assert "attention" not in layer_kinds(r)
    assert "softmax" in layer_kinds(r)
    x = windows * t * c  # the projection's input
    q = k = windows * t * c  # the scaled copies (all heads)
    probs = heads * windows * t * t
    v = windows * t * c  # a view of the packed projection, copied by matmul's batch reshape
    assert saved_per_sample(r) == x + q + k + probs + v


def test_four_dimensional_attention_stays_fused(tmp_path):
    """The same block on 4-D tensors is the fused kernel, as before."""
    t, c, heads = 16, 16, 2
    r = import_saved(tmp_path, _windowed_sdpa(0, t, c, heads), batch=2)
    assert analyze(r.draft).ok and r.report.complete
    assert "attention" in layer_kinds(r) and "softmax" not in layer_kinds(r)


def _shared_conv_net(merged: bool, rewired: bool = False):
    """Two blocks calling one depthwise convolution (timm CoaT's shared position encoding) as
    the legacy exporter writes it: the blocks' scopes differ, both read the parameter under
    its own name. ``merged``: two modules whose identical weights the exporter merged
    instead (the second reads them through Identity nodes named after its own parameters;
    ``rewired``: directly, as a tool rewiring duplicates leaves it, from a module of another
    name)."""
    c = 8
    w2, b2 = ("b.weight", "b.bias") if merged and not rewired else \
        ("cpe.proj.weight", "cpe.proj.bias")
    second = "/blocks.1/other/Conv" if rewired else "/blocks.1/cpe/proj/Conv"
    nodes = [
        h.make_node("Conv", ["x", "cpe.proj.weight", "cpe.proj.bias"], ["y1"],
                    name="/blocks.0/cpe/proj/Conv", group=c, kernel_shape=[3, 3],
                    pads=[1, 1, 1, 1]),
        h.make_node("Add", ["y1", "x"], ["r1"], name="/blocks.0/Add"),
        h.make_node("Conv", ["r1", w2, b2], ["y2"], name=second, group=c,
                    kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        h.make_node("Add", ["y2", "r1"], ["r2"], name="/blocks.1/Add"),
    ]
    if merged and not rewired:
        nodes[:0] = [h.make_node("Identity", ["cpe.proj.weight"], ["b.weight"], name="Id0"),
                     h.make_node("Identity", ["cpe.proj.bias"], ["b.bias"], name="Id1")]
    rng = np.random.default_rng(0)
    inits = [const("cpe.proj.weight", rng.standard_normal((c, 1, 3, 3))),
             const("cpe.proj.bias", rng.standard_normal(c))]
    return build(nodes, [tensor("x", ["N", c, 8, 8])], [tensor("r2", None)], inits)


def test_a_convolution_called_by_two_blocks_is_said_to_be_counted_twice(tmp_path):
    """One convolution module called by every block of a stage (CoaT-Lite's convolutional
    position encodings) is one parameter in PyTorch; the plan has a layer per call (no
    convolution shares weights), so the import says how many it counts twice. Before: a
    note that the exporter merged identical tensors (the plan being right): CoaT-Lite-Tiny
    +31,488 parameters, silent."""
    r = import_saved(tmp_path, _shared_conv_net(merged=False), batch=2)
    assert analyze(r.draft).parameters == 2 * (8 * 9 + 8)
    said = " ".join(str(w) for w in r.warnings)
    assert "72 weight values that the network shares" in said
    assert "8 values of vectors" in said


def test_identical_weights_the_exporter_merged_are_not_shared(tmp_path):
    """Two modules whose identical (untrained) weights the legacy exporter merged are two
    parameters: no warning, the plan's count stands."""
    for rewired in (False, True):
        r = import_saved(tmp_path, _shared_conv_net(merged=True, rewired=rewired), batch=2)
        assert analyze(r.draft).parameters == 2 * (8 * 9 + 8)
        assert not any("weight values that the network shares" in str(w)
                       for w in r.warnings)


def test_an_eval_export_says_how_many_convolution_biases_it_may_lack(tmp_path):
    """A batch norm folded into its convolution hides whether the convolution had a bias of
    its own (StarNet's, EfficientFormer's and Visformer's do): the plan assumes not and now
    says how many parameters that is at most (one per filter). Before: the assumption without
    a figure (StarNet-S1 −3,368, EfficientFormer-L1 −15,960 parameters)."""
    nodes = []
    src = "x"
    for k in range(2):  # 6 and 10 filters
        conv = h.make_node("Conv", [src, f"conv{k}.weight", f"b{k}"], [f"c{k}"],
                           name=f"node_Conv_{k}", kernel_shape=[3, 3], pads=[1, 1, 1, 1])
        for key, value in (("pkg.onnxscript.rewriter.rule_name", "FuseBatchNormIntoConv"),
                           ("pkg.torch.onnx.name_scopes",
                            f"['', 'bn{k}', '_native_batch_norm']")):
            entry = conv.metadata_props.add()
            entry.key, entry.value = key, value
        nodes += [conv, h.make_node("Relu", [f"c{k}"], [f"y{k}"], name=f"node_relu_{k}")]
        src = f"y{k}"
    inits = [weight("conv0.weight", (6, 3, 3, 3)), weight("b0", (6,)),
             weight("conv1.weight", (10, 6, 3, 3)), weight("b1", (10,))]
    model = build(nodes, [tensor("x", [1, 3, 8, 8])], [tensor("y1", None)], inits, opset=18)
    r = import_saved(tmp_path, model, batch=2)
    assert r.report.restored_batchnorms == 2 and r.report.eval_export
    assert any("it counts up to 16 parameters too few" in str(w) for w in r.warnings)


def test_uneven_padding_is_a_pad_then_the_convolution_and_pooling(tmp_path):
    """A convolution and a max pool padding unevenly (HGNetV2's stem: F.pad(x, (0, 1, 0, 1))
    fused into them by the exporters; timm's TF-'same' padding) are a pad into a new tensor,
    which PyTorch's convolution and pooling then keep, and the even remainder. Before: the
    rounded-up mean on both sides, 9×9 outputs for the file's 8×8, and a concatenation the
    plan could not make (HGNetV2-B0 refused by both exporters). A pad the exporter fused
    into two readers is one tensor."""
    c, f = 4, 6
    nodes = [
        h.make_node("Conv", ["x", "w"], ["y"], name="/conv/Conv", kernel_shape=[2, 2],
                    pads=[0, 0, 1, 1]),
        h.make_node("MaxPool", ["x"], ["p"], name="/pool/MaxPool", kernel_shape=[2, 2],
                    strides=[1, 1], pads=[0, 0, 1, 1]),
        h.make_node("Concat", ["y", "p"], ["out"], name="/Concat", axis=1),
    ]
    model = build(nodes, [tensor("x", ["N", c, 8, 8])], [tensor("out", None)],
                  [weight("w", (f, c, 2, 2))])
    r = import_saved(tmp_path, model, batch=2)
    a = analyze(r.draft)
    assert a.ok and r.report.complete, [str(p) for p in a.problems]
    assert not any("unevenly" in str(w) or "differ" in str(w) for w in r.warnings)
    convs = [li for li in a.layers if li.kind == "conv2d"]
    assert convs[0].in_shapes == ((c, 9, 9),) and convs[0].out_shape == (f, 8, 8)
    assert a.parameters == f * c * 4
    # one F.pad read by both (the exporter fused it into each): one padded tensor
    pads = [li for li in a.layers if li.out_shape == (c, 9, 9)]
    assert len(pads) == 1
