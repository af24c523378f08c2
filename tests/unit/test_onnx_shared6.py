"""Initializers and nodes the default exporter's optimiser merged because an untrained network's
parameters are equal (onnx.helper graphs, no torch): each test fails on the importer as it was
before its fix (round 6)."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from onnx import helper  # noqa: E402
from onnx_fixtures import build, const, import_saved, saved_per_sample, scoped, tensor  # noqa: E402

h = helper
C, HW = 8, 6


def _signature(model, params: list[str]):
    p = model.graph.metadata_props.add()
    p.key = "pkg.torch.export.ExportedProgram.graph_signature"
    p.value = "\n# inputs\n" + "\n".join(
        f"p_{t.replace('.', '_')}: PARAMETER target='{t}'" for t in params)
    return model


def _norm_inits(prefix: str):
    return [const(f"{prefix}.weight", np.ones(C)), const(f"{prefix}.bias", np.zeros(C))]


def _bn(x, prefix, out, scope):
    w, b = f"{prefix}.weight", f"{prefix}.bias"
    # the optimiser also stores the running mean (0) and variance (1) as the bias and weight
    return scoped(h.make_node("BatchNormalization", [x, w, b, b, w], [out],
                              name=f"node_bn_{out}"), *scope)


def _dpn_block(merged: bool):
    """x → [a.bn → relu → a.conv] and [b.bn → relu → b.conv (fused with c.bn after it: its
    record is c.bn's)], summed: DPN's projection and first convolution of one input. Merged:
    one norm and one ReLU read by both convolutions, as the exporter writes the untrained
    network; else the two of them."""
    nodes, inits = [], [const("blk.a.conv.weight", np.full((C, C, 1, 1), 0.1)),
                        const("blk.b.conv.weight", np.full((C, C, 3, 3), 0.2))]
    for m in ("a",) if merged else ("a", "b"):
        nodes += [_bn("x", f"blk.{m}.bn", f"n_{m}", ["blk", f"blk.{m}", f"blk.{m}.bn"]),
                  scoped(h.make_node("Relu", [f"n_{m}"], [f"r_{m}"], name=f"node_relu_{m}"),
                         "blk", f"blk.{m}", f"blk.{m}.bn", f"blk.{m}.bn.act")]
        inits += _norm_inits(f"blk.{m}.bn")
    rb = "r_a" if merged else "r_b"
    nodes += [
        scoped(h.make_node("Conv", ["r_a", "blk.a.conv.weight"], ["ca"], name="node_Conv_1"),
               "blk", "blk.a", "blk.a.conv"),
        scoped(h.make_node("Conv", [rb, "blk.b.conv.weight"], ["cb"], name="node_Conv_2",
                           pads=[1, 1, 1, 1]), "blk", "blk.c", "blk.c.bn"),
        scoped(h.make_node("Add", ["ca", "cb"], ["y"], name="node_add"), "blk")]
    model = build(nodes, [tensor("x", [1, C, HW, HW])], [tensor("y", None)], inits)
    return _signature(model, ["blk.a.bn.weight", "blk.a.bn.bias", "blk.a.conv.weight",
                              "blk.b.bn.weight", "blk.b.bn.bias", "blk.b.conv.weight"])


def test_a_norm_merged_with_its_twin_is_planned_again(tmp_path):
    # DPN-68, default export: -2,356 parameters and -3.8 % saved bytes, no word
    ref = import_saved(tmp_path, _dpn_block(merged=False), "ref.onnx", batch=2)
    r = import_saved(tmp_path, _dpn_block(merged=True), batch=2)
    assert ref.report.plan_parameters == 2 * 2 * C + C * C + 9 * C * C
    assert r.report.plan_parameters == ref.report.plan_parameters
    assert saved_per_sample(r) == saved_per_sample(ref)
    text = " ".join(r.warnings)
    assert "1 norm(s) of the network (blk.b.bn)" in text and f"{2 * C} parameters" in text
    assert r.report.complete
    assert not any("norm(s) of the network" in w for w in ref.warnings)


def _mixer(merged: bool):
    """FastViT's RepMixer: x + (mixer(x) - norm(x)), the mixer a depthwise convolution plus an
    identity batch norm, the norm an identity batch norm; merged, one norm serves both."""
    mix = ["blk", "blk.mixer"]
    nodes = [_bn("x", "blk.mixer.identity", "n_m", mix + ["blk.mixer.identity"]),
             scoped(h.make_node("Conv", ["x", "blk.mixer.conv.weight"], ["dw"],
                                name="node_Conv_1", group=C, pads=[1, 1, 1, 1]),
                    *mix, "blk.mixer.conv"),
             scoped(h.make_node("Add", ["dw", "n_m"], ["m"], name="node_add"), *mix)]
    inits = [const("blk.mixer.conv.weight", np.full((C, 1, 3, 3), 0.1)),
             *_norm_inits("blk.mixer.identity")]
    if not merged:
        nodes.append(_bn("x", "blk.norm.identity", "n_n",
                         ["blk", "blk.norm", "blk.norm.identity"]))
        inits += _norm_inits("blk.norm.identity")
    nodes += [scoped(h.make_node("Sub", ["m", "n_m" if merged else "n_n"], ["d"],
                                 name="node_sub"), "blk"),
              scoped(h.make_node("Add", ["x", "d"], ["y"], name="node_add_1"), "blk")]
    model = build(nodes, [tensor("x", [1, C, HW, HW])], [tensor("y", None)], inits)
    return _signature(model, ["blk.mixer.identity.weight", "blk.mixer.identity.bias",
                              "blk.mixer.conv.weight", "blk.norm.identity.weight",
                              "blk.norm.identity.bias"])


def test_a_merged_norm_read_outside_both_modules_is_planned_again(tmp_path):
    # FastViT-T8, default export: -3,648 parameters, no word
    ref = import_saved(tmp_path, _mixer(merged=False), "ref.onnx", batch=2)
    r = import_saved(tmp_path, _mixer(merged=True), batch=2)
    assert ref.report.plan_parameters == 2 * 2 * C + 9 * C
    assert r.report.plan_parameters == ref.report.plan_parameters
    assert saved_per_sample(r) == saved_per_sample(ref)
    assert any("1 norm(s) of the network (blk.norm.identity)" in w for w in r.warnings)


def test_a_merged_norm_whose_readers_cannot_be_told_is_said(tmp_path):
    # both convolutions in the twin's own module: which one read the merged norm is unknown
    model = _dpn_block(merged=True)
    for node in model.graph.node:
        if node.name == "node_Conv_2":
            del node.metadata_props[:]
            scoped(node, "blk", "blk.a", "blk.a.conv2")
    model.graph.initializer[1].name = "blk.a.conv2.weight"
    model.graph.node[3].input[1] = "blk.a.conv2.weight"
    r = import_saved(tmp_path, model, batch=2)
    assert not r.report.complete
    assert any("cannot tell which layers read them" in w and "blk.b.bn" in w
               for w in r.warnings)


def _blurred(dynamo: bool, learned: bool = False):
    """conv → pad → a depthwise 3×3 blur at stride 2 (timm's BlurPool2d in TResNet): its filter
    a buffer, named in the signature (default exporter) or a Constant node (legacy)."""
    blur = np.full((C, 1, 3, 3), 1 / 9, dtype=np.float32)
    nodes = [h.make_node("Conv", ["x", "blk.conv.weight"], ["c"], name="node_Conv_0",
                         pads=[1, 1, 1, 1]),
             h.make_node("Pad", ["c", "pads"], ["p"], name="node_Pad_1"),
             h.make_node("Conv", ["p", "blk.aa.filt" if dynamo else "filt_const"], ["y"],
                         name="node_Conv_2", group=C, strides=[2, 2])]
    inits = [const("blk.conv.weight", np.full((C, C, 3, 3), 0.1)),
             const("pads", [0, 0, 1, 1, 0, 0, 1, 1], np.int64)]
    if dynamo:
        inits.append(const("blk.aa.filt", blur))
        for node, scope in zip(nodes, ("blk.conv", "blk.aa", "blk.aa")):
            scoped(node, "blk", scope)
    else:
        nodes.insert(0, h.make_node("Constant", [], ["filt_const"], name="/blk/aa/Constant",
                                    value=onnx.numpy_helper.from_array(blur)))
    model = build(nodes, [tensor("x", [1, C, HW, HW])], [tensor("y", None)], inits)
    if dynamo:
        p = model.graph.metadata_props.add()
        p.key = "pkg.torch.export.ExportedProgram.graph_signature"
        p.value = ("p_blk_conv_weight: PARAMETER target='blk.conv.weight'\n"
                   + ("p_blk_aa_filt: PARAMETER" if learned else "b_blk_aa_filt: BUFFER")
                   + " target='blk.aa.filt'")
    return model


@pytest.mark.parametrize("dynamo", [True, False])
def test_a_fixed_blur_filter_is_no_parameter(tmp_path, dynamo):
    # TResNet-M: +8,064 parameters (its three blur filters), silent in the default export
    r = import_saved(tmp_path, _blurred(dynamo), batch=2)
    assert r.report.plan_parameters == 9 * C * C
    assert r.report.complete and not r.warnings
    # the blur keeps its (padded) input for backward, as the same convolution learned does
    learned = import_saved(tmp_path, _blurred(True, learned=True), "learned.onnx", batch=2)
    assert learned.report.plan_parameters == 9 * C * C + 9 * C
    assert saved_per_sample(r) == saved_per_sample(learned)
    assert any("fixed filter" in n for n in r.notes)


def _folded(own_bias: bool, signed: bool = True, zero: bool = False):
    """A convolution with the batch norm after it folded in (the default exporter's eval
    export): its bias input is the folded shift. ``own_bias``: the convolution had a bias of
    its own (ResNeSt's attention fc1), as the signature lists. ``zero``: the folded shift was
    zero and the exporter dropped it (untrained VGG-BN: zero conv biases, zero norm shifts)."""
    conv = scoped(h.make_node("Conv", ["x", "blk.fc1.weight"] + ["blk.fc1.bias"] * (not zero),
                              ["c"], name="node_Conv_0"), "blk", "blk.bn1")
    p = conv.metadata_props.add()
    p.key = "pkg.onnxscript.rewriter.rule_name"
    p.value = "FuseBatchNormIntoConv"
    nodes = [conv, scoped(h.make_node("Relu", ["c"], ["y"], name="node_relu"), "blk")]
    model = build(nodes, [tensor("x", [1, C, HW, HW])], [tensor("y", None)],
                  [const("blk.fc1.weight", np.full((C, C, 1, 1), 0.1))]
                  + [const("blk.fc1.bias", np.full(C, 0.3))] * (not zero))
    if signed:
        _signature(model, ["blk.fc1.weight"] + ["blk.fc1.bias"] * own_bias
                   + ["blk.bn1.weight", "blk.bn1.bias"])
    return model


def test_a_convolution_with_its_own_bias_before_a_folded_norm_keeps_it(tmp_path):
    # ResNeSt-14d -480, HRNet-W18-small -3,840 parameters in the default eval export, where the
    # file's signature says which convolutions had a bias
    for own in (True, False):
        r = import_saved(tmp_path, _folded(own), batch=2)
        assert r.report.plan_parameters == C * C + C * own + 2 * C
        assert r.report.restored_batchnorms == 1
        assert f"{int(own)} of those convolutions had a bias of their own" in r.warnings[0]
    # the folded shift dropped as zero: the signature still lists the convolution's own bias
    # (torchvision's VGG-11-BN default eval export: -2,752 parameters and "0 of those
    # convolutions had a bias" before)
    for own in (True, False):
        r = import_saved(tmp_path, _folded(own, zero=True), batch=2)
        assert r.report.plan_parameters == C * C + C * own + 2 * C
        assert r.report.complete
        assert f"{int(own)} of those convolutions had a bias of their own" in r.warnings[0]
    # without the signature the file cannot tell: the usual pair assumed, and said
    r = import_saved(tmp_path, _folded(True, signed=False), batch=2)
    assert r.report.plan_parameters == C * C + 2 * C
    assert "nor whether those convolutions had a bias of their own" in r.warnings[0]


def _two_linears(fill: bool, signed: bool, own: bool = True):
    """x → a.fc → ReLU → b.fc, both reading one weight and one bias (the default exporter's
    record: module paths). ``fill``: the values are constant fills; ``signed``: the file has the
    exported program's signature, listing b's own parameters where ``own``."""
    rng = np.random.default_rng(0)
    w = np.full((C, C), 0.5) if fill else rng.standard_normal((C, C))
    b = np.zeros(C) if fill else rng.standard_normal(C)
    nodes = []
    for k, m in enumerate("ab"):
        src = "x" if k == 0 else "r"
        nodes += [scoped(h.make_node("MatMul", [src, "a.fc.weight"], [f"m{k}"],
                                     name=f"node_MatMul_{k}"), f"{m}", f"{m}.fc"),
                  scoped(h.make_node("Add", [f"m{k}", "a.fc.bias"], [f"y{k}"],
                                     name=f"node_Add_{k}"), f"{m}", f"{m}.fc")]
        if k == 0:
            nodes.append(scoped(h.make_node("Relu", ["y0"], ["r"], name="node_relu"), "act"))
    model = build(nodes, [tensor("x", [1, 4, C])], [tensor("y1", None)],
                  [const("a.fc.weight", w), const("a.fc.bias", b)])
    if signed:
        _signature(model, ["a.fc.weight", "a.fc.bias"]
                   + ["b.fc.weight", "b.fc.bias"] * own)
    return model


def test_a_shared_initializer_is_counted_by_what_its_values_and_signature_say(tmp_path):
    per_layer, once = 2 * (C * C + C), C * C + 2 * C  # (a bias has no tied form)
    # a constant fill: separate untrained parameters stored once, said with the figure
    r = import_saved(tmp_path, _two_linears(fill=True, signed=False), batch=2)
    assert r.report.plan_parameters == per_layer
    assert any("are equal tensors the exporter stored once" in w
               and f"{C * C + C} parameters more than the file stores" in w for w in r.warnings)
    # equal random values, the signature listing each module's own: copies (deepcopy)
    r = import_saved(tmp_path, _two_linears(fill=False, signed=True), batch=2)
    assert r.report.plan_parameters == per_layer
    assert any("are equal tensors the exporter stored once" in w for w in r.warnings)
    # random values and no parameter of b's own in the signature: one weight tied
    r = import_saved(tmp_path, _two_linears(fill=False, signed=True, own=False), batch=2)
    assert r.report.plan_parameters == once
    assert any("one weight the network ties" in w for w in r.warnings)
    # no signature: cannot be told; counted per layer, and the possible excess said
    r = import_saved(tmp_path, _two_linears(fill=False, signed=False), batch=2)
    assert r.report.plan_parameters == per_layer
    assert any("cannot tell equal tensors" in w for w in r.warnings)


def test_a_merged_norm_is_found_with_its_values_in_an_external_data_file(tmp_path):
    # the default exporter writes every initializer, the norms' 1s and 0s too, to m.onnx.data
    from planner.core.importers.onnx import import_onnx

    path = tmp_path / "m.onnx"
    onnx.save_model(_dpn_block(merged=True), str(path), save_as_external_data=True,
                    all_tensors_to_one_file=True, location="m.onnx.data", size_threshold=0)
    ref = import_saved(tmp_path, _dpn_block(merged=False), "ref.onnx", batch=2)
    r = import_onnx(path, batch=2)
    assert r.report.plan_parameters == ref.report.plan_parameters
    assert saved_per_sample(r) == saved_per_sample(ref)
