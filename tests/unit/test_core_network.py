"""Shape inference, parameter counts, problems named by layer, plan files."""

from __future__ import annotations

import json

import pytest

from planner.core.layers import LayerSpec
from planner.core.network import (
    NetworkDraft,
    PlanFileError,
    Setup,
    analyze,
    load_plan,
    save_plan,
)
from planner.core.presets import list_presets, load_preset

# torchvision's own counts (sum of p.numel() over model.parameters()).
GOLDEN_PARAMETERS = {
    "alexnet": 61_100_840,
    "vgg16": 138_357_544,
    "resnet18": 11_689_512,
    "resnet50": 25_557_032,
    "mobilenet_v2": 3_504_872,
}


def draft(*layers, shape=(3, 32, 32)) -> NetworkDraft:
    return NetworkDraft("t", (LayerSpec("input", "input", {"shape": shape}),) + layers)


@pytest.mark.parametrize("name,count", sorted(GOLDEN_PARAMETERS.items()))
def test_preset_parameter_counts_match_torchvision(name, count):
    d, _ = load_preset(name)
    a = analyze(d)
    assert a.ok, a.problems
    assert a.parameters == count
    assert a.output_shape == (1000,)


def test_every_preset_is_valid():
    names = [p.name for p in list_presets()]
    for required in ("seed-example", "seed-reduced", "alexnet", "vgg16", "resnet18", "resnet50",
                     "mobilenet_v2", "lstm-128", "lstm-1024", "plankton", "video"):
        assert required in names
    for p in list_presets():
        d, _ = load_preset(p.name)
        assert analyze(d).ok, p.name


@pytest.mark.parametrize("layer,in_shape,out_shape", [
    (LayerSpec("conv2d", "c", {"filters": 32, "kernel": 3}), (3, 250, 250), (32, 248, 248)),
    (LayerSpec("conv2d", "c", {"filters": 8, "kernel": 3, "padding": "same", "stride": 2}),
     (3, 7, 7), (8, 4, 4)),
    (LayerSpec("conv2d", "c", {"filters": 64, "kernel": 7, "stride": 2, "padding": 3}),
     (3, 224, 224), (64, 112, 112)),
    (LayerSpec("conv2d", "c", {"filters": 4, "kernel": 3, "dilation": 2}), (1, 9, 9), (4, 5, 5)),
    (LayerSpec("conv3d", "c", {"filters": 16, "kernel": 3, "padding": "same"}),
     (3, 25, 75, 75), (16, 25, 75, 75)),
    (LayerSpec("maxpool", "p", {"kernel": 3, "stride": 2, "padding": 1}), (64, 112, 112),
     (64, 56, 56)),
    (LayerSpec("maxpool", "p", {"kernel": 2, "ceil_mode": True}), (8, 5, 5), (8, 3, 3)),
    (LayerSpec("avgpool", "p", {"kernel": 2}), (8, 6, 6), (8, 3, 3)),
    (LayerSpec("global_avgpool", "g"), (512, 7, 7), (512,)),
    (LayerSpec("adaptive_avgpool", "a", {"output": 6}), (256, 6, 6), (256, 6, 6)),
    (LayerSpec("flatten", "f"), (256, 6, 6), (9216,)),
    (LayerSpec("fc", "fc", {"units": 10}), (9216,), (10,)),
    (LayerSpec("upsample", "u", {"scale": 2}), (4, 8, 8), (4, 16, 16)),
    (LayerSpec("lstm", "l", {"hidden": 32, "bidirectional": True}), (10, 8), (10, 64)),
    (LayerSpec("lstm", "l", {"hidden": 32, "return_sequences": False}), (10, 8), (32,)),
])
def test_shapes(layer, in_shape, out_shape):
    a = analyze(draft(layer, shape=in_shape))
    assert a.ok, a.problems
    assert a.output_shape == out_shape


def test_lstm_parameters_match_pytorch_formula():
    # torch.nn.LSTM(8, 32, num_layers=2): 4h(in+h) + 8h for layer 1, 4h(h+h) + 8h for layer 2.
    a = analyze(draft(LayerSpec("lstm", "l", {"hidden": 32, "layers": 2}), shape=(10, 8)))
    assert a.parameters == (4 * 32 * (8 + 32) + 8 * 32) + (4 * 32 * 64 + 8 * 32)


def test_problem_names_layer_and_cause():
    d = draft(LayerSpec("conv2d", "conv1", {"filters": 8, "kernel": 3}),
              LayerSpec("conv2d", "conv2", {"filters": 8, "kernel": 3}),
              LayerSpec("conv2d", "conv3", {"filters": 8, "kernel": 7}), shape=(3, 9, 9))
    a = analyze(d)
    assert not a.ok
    assert [str(p) for p in a.problems] == [
        "layer 3 (conv3): kernel 7×7 is larger than its 5×5 input"]
    # The layers before keep their shapes.
    assert a.layers[2].out_shape == (8, 5, 5)


def test_problems_do_not_cascade_and_later_layers_are_marked_blocked():
    d = draft(LayerSpec("conv2d", "bad", {"filters": 8, "kernel": 99}),
              LayerSpec("activation", "relu"))
    a = analyze(d)
    assert len(a.problems) == 1
    assert a.layers[2].blocked and a.layers[2].out_shape is None


@pytest.mark.parametrize("layers,message", [
    ((LayerSpec("add", "a", {"from": "nowhere"}),), "'from' names 'nowhere'"),
    ((LayerSpec("conv2d", "x"), LayerSpec("conv2d", "x")), "already used"),
    ((LayerSpec("conv2d", "g", {"filters": 8, "groups": 3}),), "groups 3 must divide"),
    ((LayerSpec("lstm", "l"),), "needs a T×F sequence"),
    ((LayerSpec("dropout", "d", {"p": 1.5}),), "p 1.5 is above"),
    ((LayerSpec("conv2d", "c", {"kernel": "abc"}),), "'abc' is not a number"),
    ((LayerSpec("input", "in2", {"shape": (3, 4, 4)}),), "only the first layer"),
])
def test_bad_layers_are_reported_not_raised(layers, message):
    a = analyze(draft(*layers))
    assert not a.ok
    assert any(message in str(p) for p in a.problems), a.problems


def test_residual_branch_reads_named_input():
    d = draft(LayerSpec("conv2d", "c1", {"filters": 8, "kernel": 3, "padding": 1}),
              LayerSpec("conv2d", "c2", {"filters": 8, "kernel": 3, "padding": 1}),
              LayerSpec("conv2d", "side", {"filters": 8, "kernel": 1, "input": "c1"}),
              LayerSpec("add", "sum", {"from": "c2"}))
    a = analyze(d)
    assert a.ok, a.problems
    assert a.layers[3].in_shapes == ((8, 32, 32),)


def test_plan_round_trip(tmp_path):
    d, s = load_preset("resnet18")
    path = tmp_path / "plan.json"
    save_plan(path, d, Setup(17, "bf16", "adamw", "infer"))
    d2, s2 = load_plan(path)
    assert d2 == d
    assert s2 == Setup(17, "bf16", "adamw", "infer")
    assert [p.name for p in tmp_path.iterdir()] == ["plan.json"]  # no temporary left behind


@pytest.mark.parametrize("content,message", [
    ("not json", "not valid JSON"),
    ("[]", "not a plan"),
    ('{"layers": []}', "schema_version is missing"),
    ('{"schema_version": 99, "layers": []}', "newer than this app"),
    ('{"schema_version": 1, "layers": [{"type": "warp", "name": "w"}]}', "layers[0].type"),
    ('{"schema_version": 1, "layers": [{"type": "input", "name": "i", "shape": "3xQ"}]}',
     "layers[0].shape"),
    ('{"schema_version": 1, "layers": [{"type": "conv2d", "name": "c", "colour": 1}]}',
     "layers[0].colour"),
    ('{"schema_version": 1, "layers": [{"type": "input", "name": "i", "shape": [3]}],'
     ' "setup": {"batch_size": -4}}', "batch size -4"),
])
def test_bad_plan_files_name_the_field(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(PlanFileError) as info:
        load_plan(path)
    assert message in str(info.value)
    assert "bad.json" in str(info.value)


def test_folder_and_missing_file_are_plan_errors(tmp_path):
    with pytest.raises(PlanFileError, match="folder"):
        load_plan(tmp_path)
    with pytest.raises(PlanFileError, match="no such file"):
        load_plan(tmp_path / "nope.json")


def test_saved_json_is_readable_and_versioned(tmp_path):
    d, s = load_preset("seed-example")
    save_plan(tmp_path / "p.json", d, s)
    data = json.loads((tmp_path / "p.json").read_text())
    assert data["schema_version"] == 1
    conv1 = data["layers"][1]
    assert conv1["type"] == "conv2d" and conv1["filters"] == 32 and conv1["kernel"] == 3
    assert "input" not in conv1  # reads the previous layer


@pytest.mark.parametrize("layer,in_shape,out_shape,params", [
    # torch.nn.ConvTranspose2d(16, 8, 4, stride=2, padding=1): 16*8*16 + 8
    (LayerSpec("conv_transpose2d", "t", {"filters": 8, "kernel": 4, "stride": 2, "padding": 1}),
     (16, 7, 7), (8, 14, 14), 16 * 8 * 16 + 8),
    # torch.nn.GRU(8, 32): 3h(in+h) + 6h
    (LayerSpec("gru", "g", {"hidden": 32}), (10, 8), (10, 32), 3 * 32 * 40 + 6 * 32),
    (LayerSpec("generic", "x", {"keeps": "nothing"}), (4, 5, 5), (4, 5, 5), 0),
    (LayerSpec("generic", "x", {"shape": (100,)}), (4, 5, 5), (100,), 0),
])
def test_transposed_conv_gru_and_generic(layer, in_shape, out_shape, params):
    a = analyze(draft(layer, shape=in_shape))
    assert a.ok, a.problems
    assert a.output_shape == out_shape
    assert a.parameters == params


def test_every_preset_title_and_description_is_marked_for_translation():
    from planner.core.presets import NAMES_AS_IS, TRANSLATABLE

    for p in list_presets():
        assert p.title in TRANSLATABLE or p.title in NAMES_AS_IS, p.title
        assert p.description in TRANSLATABLE, p.description


def test_each_layer_names_the_storages_it_is_the_first_to_keep():
    """The input of c1, the input and the statistics of bn, the in-place ReLU's output; c2
    reads that output, already kept, so it keeps nothing new; a layer not worked out none."""
    d = draft(LayerSpec("conv2d", "c1", {"filters": 8, "kernel": 3, "padding": 1}),
              LayerSpec("batchnorm", "bn"),
              LayerSpec("activation", "r", {"function": "relu", "inplace": True}),
              LayerSpec("conv2d", "c2", {"filters": 8, "kernel": 3, "padding": 1}),
              LayerSpec("conv2d", "big", {"filters": 8, "kernel": 99}))
    a = analyze(d)
    kept = {info.name: info.saved_storages for info in a.layers}
    out = {info.name: info.output_storage for info in a.layers}
    assert kept["input"] == ()
    assert kept["c1"] == (out["input"],)
    stats = next(s for s, st in enumerate(a.storages) if st.storage_class == "f32_fixed")
    assert kept["bn"] == (out["c1"], stats)
    assert kept["r"] == (out["bn"],) and out["r"] == out["bn"]  # in place
    assert kept["c2"] == ()
    assert kept["big"] == () and a.problems and a.problems[0].name == "big"
    assert a.layer_rows.saved_storages == tuple(kept.values())
    assert sorted(s for row in kept.values() for s in row) == sorted(a.saved)


def test_layer_spec_is_one_value_however_its_parameters_are_written():
    """A layer written with a list where another has a tuple, or with its defaults spelled out,
    is the same layer (equal, one hash, one value id: the analysis computes it once); its
    wiring does not change what it computes; a pickled spec (an import's child process) is the
    same spec."""
    import pickle

    a = LayerSpec("concat", "cat", {"from": ["a", "b"]})
    b = LayerSpec("concat", "cat", {"from": ("a", "b")})
    assert a == b and hash(a) == hash(b) and a.value_id == b.value_id
    assert a.refs() == ("a", "b")
    conv = LayerSpec("conv2d", "c", {"filters": 64})
    spelled = LayerSpec("conv2d", "c", dict(conv.params))
    assert conv == spelled and conv.value_id == spelled.value_id
    rewired = LayerSpec("conv2d", "c2", {"filters": 64, "input": "x"})
    assert rewired != conv and rewired.value_id == conv.value_id and rewired.source() == "x"
    assert LayerSpec("conv2d", "c", {"filters": 32}).value_id != conv.value_id
    back = pickle.loads(pickle.dumps(a))
    assert back == a and back.refs() == ("a", "b") and back.value_id == a.value_id
    with pytest.raises(Exception):
        conv.name = "other"  # noqa: B010 - frozen
