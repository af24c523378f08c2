"""Silent misses found by sweeping timm / transformers families nobody had tried (round 7c),
rebuilt with onnx.helper (no torch): each test fails on the importer as it was before its
fix."""

from __future__ import annotations

import pytest

onnx = pytest.importorskip("onnx")

from onnx import helper  # noqa: E402
from onnx_fixtures import build, const, import_saved, saved_per_sample  # noqa: E402
from onnx_fixtures import tensor, weight  # noqa: E402

from planner.core.network import analyze  # noqa: E402

h = helper
T, C = 16, 32


def _star_relu(scale: str = "m.act.scale", bias: str = "m.act.bias", signature: str = ""):
    """timm's StarReLU between two linear layers: ``scale * relu(x) ** 2 + bias`` with a
    learned one-element scale and bias (MetaFormer: CAFormer, ConvFormer)."""
    nodes = [
        h.make_node("MatMul", ["x", "m.fc1.weight"], ["a"], name="/m/fc1/MatMul"),
        h.make_node("Relu", ["a"], ["r"], name="/m/act/relu/Relu"),
        h.make_node("Pow", ["r", "two"], ["p"], name="/m/act/Pow"),
        h.make_node("Mul", [scale, "p"], ["s"], name="/m/act/Mul"),
        h.make_node("Add", ["s", bias], ["b"], name="/m/act/Add"),
        h.make_node("MatMul", ["b", "m.fc2.weight"], ["y"], name="/m/fc2/MatMul"),
    ]
    inits = [weight("m.fc1.weight", (C, C)), weight("m.fc2.weight", (C, C)),
             const("two", 2.0), weight(scale, (1,), 1.0), weight(bias, (1,), 0.0)]
    model = build(nodes, [tensor("x", ["N", T, C])], [tensor("y", None)], inits)
    if signature:  # the default exporter's record: every parameter and buffer by module path
        p = model.graph.node[0].metadata_props.add()
        p.key, p.value = "pkg.torch.onnx.fx_node", "%matmul : call_function"
        g = model.graph.metadata_props.add()
        g.key, g.value = "pkg.torch.export.ExportedProgram.graph_signature", signature
    return model


def test_a_one_element_parameter_keeps_what_its_gradient_needs(tmp_path):
    """StarReLU's learned scale (one element) multiplies relu(x)²: autograd keeps that square
    for the scale's gradient. Before: a one-element tensor was taken for a constant, the
    product kept nothing and the two parameters were not counted (CAFormer-S18 −22.4 % saved
    bytes and −48 parameters from both exporters, silent); now exact."""
    learned = import_saved(tmp_path, _star_relu(), name="learned.onnx", batch=2)
    const_scale = import_saved(tmp_path, _star_relu("onnx::Mul_7", "onnx::Add_8"),
                               name="const.onnx", batch=2)
    for r in (learned, const_scale):
        assert analyze(r.draft).ok and r.report.complete
    # the exporter's own constants ('onnx::Mul_7') stay constants; the parameters do not
    assert analyze(learned.draft).parameters == analyze(const_scale.draft).parameters + 2
    assert saved_per_sample(learned) == saved_per_sample(const_scale) + T * C
    assert not learned.report.unclaimed_weights


def test_a_one_element_buffer_in_the_signature_is_no_parameter(tmp_path):
    """Where the exported program's signature calls the tensor a buffer, it stays one."""
    sig = ("\n# inputs\np_m_fc1_weight: PARAMETER target='m.fc1.weight'\n"
           "b_m_act_scale: BUFFER target='m.act.scale'\n"
           "p_m_act_bias: PARAMETER target='m.act.bias'\n")
    r = import_saved(tmp_path, _star_relu(signature=sig), batch=2)
    plain = import_saved(tmp_path, _star_relu("onnx::Mul_7", "onnx::Add_8"), name="c.onnx",
                         batch=2)
    assert analyze(r.draft).parameters == analyze(plain.draft).parameters + 1  # the bias
    assert saved_per_sample(r) == saved_per_sample(plain)


def _position_bias_mlp(coords: int = 49 * 49, hidden: int = 64, heads: int = 2,
                       dropout: bool = False):
    """Attention scores plus a bias a two-layer MLP computes from a relative-coordinate table
    (SwinV2-CR's meta network, Swin-V2's continuous position bias)."""
    nodes = [
        h.make_node("MatMul", ["onnx::MatMul_5", "m.meta.fc1.weight"], ["c1"],
                    name="/m/meta/fc1/MatMul"),
        h.make_node("Relu", ["c1"], ["c2"], name="/m/meta/act/Relu"),
        h.make_node("MatMul", ["c2d" if dropout else "c2", "m.meta.fc2.weight"], ["c3"],
                    name="/m/meta/fc2/MatMul"),
        h.make_node("Reshape", ["c3", "bshape"], ["bias"], name="/m/Reshape"),
        h.make_node("MatMul", ["x", "m.q.weight"], ["q"], name="/m/q/MatMul"),
        h.make_node("Add", ["q", "bias"], ["y"], name="/m/Add"),
    ]
    if dropout:  # a training export's dropout of 0 between the MLP's layers: a pass-through
        nodes.insert(2, h.make_node("Dropout", ["c2", "ratio", "training"], ["c2d"],
                                    name="/m/meta/drop/Dropout"))
    inits = [const("onnx::MatMul_5", [[0.1, 0.2]] * coords), const("ratio", 0.0),
             const("training", True, dtype=bool),
             weight("m.meta.fc1.weight", (2, hidden)),
             weight("m.meta.fc2.weight", (hidden, heads)), const("bshape", [heads, 49, 49],
                                                                 dtype="int64"),
             weight("m.q.weight", (49, 49))]
    return build(nodes, [tensor("x", ["N", heads, 49, 49])], [tensor("y", None)], inits)


@pytest.mark.parametrize("dropout", [False, True])
def test_a_position_bias_mlp_over_constants_says_what_it_keeps(tmp_path, dropout):
    """A learned MLP over a coordinate table keeps its inputs and its hidden activation for
    backward, once at every batch; the plan counts its parameters but not those tensors.
    Before: nothing said (timm SwinV2-CR-T −14.5 % from the default exporter, silent); now a
    warning gives the figure (42.4 MiB there, the gap 43.1 MiB). A training export's dropout
    between the layers passes the same tensor on (it was counted twice: 84.6 MiB)."""
    r = import_saved(tmp_path, _position_bias_mlp(dropout=dropout), batch=2)
    said = [str(w) for w in r.warnings if "constants alone" in str(w)]
    # kept: the coordinate table (2401 × 2) for fc1, the ReLU output (2401 × 64), read by fc2
    assert len(said) == 1 and f"{2401 * 2 + 2401 * 64:,} values" in said[0]
    assert analyze(r.draft).parameters == 2 * 64 + 64 * 2 + 49 * 49
