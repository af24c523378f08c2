"""Round-12 text-model sweep (onnx.helper graphs, no torch): what transformers files exported
as users do showed. A LoRA model from Hugging Face peft: the file does not say which weights
train, but the adapters' names (peft's lora_A / lora_B beside a base_layer) do; the base is planned frozen as peft
trains it (measured: a peft LoRA Llama, legacy export, saved bytes +50 % → -0.8 % of what
autograd keeps). A file saved with all its data external (size_threshold=0) still has its
small shape constants read."""

from __future__ import annotations

import pytest

onnx = pytest.importorskip("onnx")

from onnx import helper  # noqa: E402
from onnx_fixtures import build, import_saved, saved_per_sample, tensor, weight  # noqa: E402

T, C, R = 16, 32, 4


def _lora_net(base: str, a: str = "lora_A", b: str = "lora_B"):
    """x → q_proj (a base projection plus adapters B·A) → out_proj → ReLU."""
    nodes = [
        helper.make_node("MatMul", ["x", "wq"], ["q"], name=f"/m/q_proj/{base}/MatMul"),
        helper.make_node("MatMul", ["x", "wa"], ["a"], name=f"/m/q_proj/{a}/default/MatMul"),
        helper.make_node("MatMul", ["a", "wb"], ["b"], name=f"/m/q_proj/{b}/default/MatMul"),
        helper.make_node("Add", ["q", "b"], ["s"], name="/m/q_proj/Add"),
        helper.make_node("MatMul", ["s", "wo"], ["o"], name="/m/out_proj/MatMul"),
        helper.make_node("Relu", ["o"], ["y"], name="/m/act/Relu"),
    ]
    inits = [weight("wq", (C, C)), weight("wa", (C, R)), weight("wb", (R, C)),
             weight("wo", (C, C))]
    return build(nodes, [tensor("x", ("N", T, C))], [tensor("y", ("N", T, C))], inits)


def test_a_peft_lora_file_plans_its_base_frozen_and_says_so(tmp_path):
    lora = import_saved(tmp_path, _lora_net("base_layer"), batch=2)
    # autograd, base and out_proj frozen: A keeps x, B keeps A's output, ReLU its output;
    # the frozen projections keep nothing (their input's gradient needs the weight only).
    assert saved_per_sample(lora) == T * C + T * R + T * C
    said = [w for w in lora.warnings if "LoRA" in w]
    assert len(said) == 1 and "2,048 parameters" in said[0] and "256 parameters" in said[0]
    # (the adapters' names alone, without peft's base_layer, as loralib names them: the same)
    named = import_saved(tmp_path, _lora_net("dense"), name="named.onnx", batch=2)
    assert saved_per_sample(named) == saved_per_sample(lora)
    assert lora.report.plan_parameters == 2 * C * C + 2 * C * R  # frozen ones still counted
    # The same graph without LoRA's names trains every weight: out_proj keeps its input.
    plain = import_saved(tmp_path, _lora_net("dense", "down", "up"), name="plain.onnx",
                         batch=2)
    assert saved_per_sample(plain) == T * C + T * R + T * C + T * C
    assert not [w for w in plain.warnings if "LoRA" in w]


def test_small_constants_saved_as_external_data_are_read_for_the_shapes(tmp_path):
    """onnx.save(..., save_as_external_data=True, size_threshold=0) moves a Reshape's shape
    out of the file too: ONNX shape inference cannot read it there (before: 'Shape inference
    does not know Reshape', the Reshape assumed to keep 4×8, and the product after it failed)."""
    from onnx_fixtures import const  # noqa: PLC0415

    from planner.core.importers.onnx import import_onnx  # noqa: PLC0415

    nodes = [helper.make_node("Reshape", ["x", "shape"], ["r"], name="/m/Reshape"),
             helper.make_node("MatMul", ["r", "w"], ["y"], name="/m/fc/MatMul")]
    model = build(nodes, [tensor("x", ("N", 4, 8))], [tensor("y", ("N", 16))],
                  [const("shape", [-1, 32], dtype="int64"), weight("w", (32, 16))])
    path = tmp_path / "ext.onnx"
    onnx.save_model(model, str(path), save_as_external_data=True, size_threshold=0,
                    all_tensors_to_one_file=True, location="ext.onnx.data")
    assert onnx.load(str(path), load_external_data=False).graph.initializer[0].data_location == 1
    result = import_onnx(path, batch=2)
    assert not [w for w in result.warnings if "does not know" in w]
    assert result.draft.layers[-1].kind == "fc"
    assert result.report.plan_parameters == 32 * 16
    from planner.core.network import analyze  # noqa: PLC0415

    assert analyze(result.draft).output_shape == (16,)
