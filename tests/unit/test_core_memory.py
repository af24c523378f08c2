"""The memory estimate: the article's worked examples and ratios, the terms, properties."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.core.layers import ACTIVATIONS, LayerSpec
from planner.core.memory import Assumptions, estimate, max_batch, peak_bytes
from planner.core.network import InvalidDraft, NetworkDraft, Setup, analyze
from planner.core.presets import load_preset
from planner.core.reduce import suggestions
from planner.units import GIB, MIB

# Allocator rounding off: ratios of what autograd keeps, not of allocator blocks.
EXACT = Assumptions(allocator_block_bytes=1, allocator_segment_bytes=1,
                    allocator_large_threshold_bytes=1 << 62)


def seed(**setup):
    d, s = load_preset("seed-example")
    return d, replace(s, **setup)


def classic(draft, setup):
    return {r.name: r for r in estimate(draft, setup, EXACT).classic}


def test_classic_view_reproduces_the_article_worked_example():
    d, s = seed()
    rows = classic(d, s)
    assert [r for r in rows] == ["input", "conv1", "conv2", "conv3"]
    mib = {n: r.bytes / MIB for n, r in rows.items()}
    assert mib["input"] == pytest.approx(91.6, abs=0.1)  # the article: 92 MB
    assert round(mib["conv1"]) == 1922
    assert round(mib["conv2"]) == 3782
    assert round(mib["conv3"]) == 5582  # correct output sizes (248, 246, 244)
    # The article printed 1906, 3720 and 5444: its input − kernel arithmetic, within rounding.
    article = {n: r.article_bytes / MIB for n, r in rows.items() if r.article_bytes}
    assert article["conv1"] == pytest.approx(1906, abs=1)
    assert article["conv2"] == pytest.approx(3720, abs=1.5)
    assert article["conv3"] == pytest.approx(5444, abs=1.5)
    assert "input − kernel" in rows["conv1"].note


def test_16_bit_halves_activations():
    d, s = seed()
    full = estimate(d, s, EXACT)
    half = estimate(d, replace(s, precision="fp16"), EXACT)
    assert half.activations * 2 == full.activations
    assert half.weights * 2 == full.weights


def test_batch_64_halves_activations_and_both_quarter_them():
    d, s = seed()
    full = estimate(d, s, EXACT).activations
    assert estimate(d, replace(s, batch_size=64), EXACT).activations * 2 == full
    assert estimate(d, replace(s, batch_size=64, precision="fp16"),
                    EXACT).activations * 4 == full


def test_stride_2_quarters_the_first_layer():
    d, s = seed()
    strided = d.replace_layer(1, d.layers[1].replace(stride=2, padding="same"))
    same = d.replace_layer(1, d.layers[1].replace(padding="same"))
    assert classic(strided, s)["conv1"].bytes * 4 == classic(same, s)["conv1"].bytes


def test_2x2_pooling_quarters_what_follows():
    d, s = load_preset("seed-reduced")
    rows = classic(d, s)
    assert rows["pool1"].bytes * 4 == rows["conv1"].bytes
    # And the estimate agrees: everything after the pool keeps a quarter.
    no_pool = d.remove_layer(d.index_of("pool1"))
    a, b = estimate(d, s, EXACT), estimate(no_pool, s, EXACT)
    conv2_kept = {layer.name: layer.activation_bytes for layer in a.layers}["conv2"]
    conv2_kept_no_pool = {layer.name: layer.activation_bytes for layer in b.layers}["conv2"]
    assert conv2_kept * 4 == conv2_kept_no_pool


def test_32_1x1_filters_after_96_channels_cut_a_layer_to_a_third():
    d, s = load_preset("seed-reduced")
    rows = classic(d, s)
    assert rows["reduce1x1"].bytes * 3 == rows["conv3"].bytes


def test_terms_follow_the_setup():
    # Over the whole step (all gradients exist together at the optimizer step); the terms of
    # the breakdown are what is alive at the peak, which comes before the last gradients.
    d, s = load_preset("vgg16")
    params = 138_357_544
    sgd = estimate(d, replace(s, optimizer="sgd"), EXACT)
    totals = sgd.step_totals
    assert totals["weights"] == params * 4 and totals["gradients"] == params * 4
    assert sgd.weights == params * 4 and sgd.optimizer == 0
    assert 0 < sgd.gradients < params * 4  # the peak comes early in backward
    assert estimate(d, replace(s, optimizer="momentum"), EXACT).optimizer == params * 4
    assert estimate(d, replace(s, optimizer="adam"), EXACT).optimizer == params * 8
    mixed = estimate(d, replace(s, optimizer="adam", precision="mixed"), EXACT).step_totals
    # autocast: fp32 weights (4) + fp32 gradients (4) + two fp32 moments (8) = 16 bytes per
    # parameter, the mixed-precision Adam rule, with no separate master copy.
    assert mixed["weights"] + mixed["gradients"] + mixed["optimizer"] == params * 16
    infer = estimate(d, replace(s, mode="infer"), EXACT)
    assert infer.gradients == infer.optimizer == infer.transient == 0


def test_saved_tensor_rules_count_shared_tensors_once():
    # conv → relu (in place) → conv: the relu output and the second conv's input are one tensor.
    shape = (3, 16, 16)
    layers = (LayerSpec("input", "in", {"shape": shape}),
              LayerSpec("conv2d", "c1", {"filters": 4, "kernel": 3, "padding": 1}),
              LayerSpec("activation", "r", {"function": "relu", "inplace": True}),
              LayerSpec("conv2d", "c2", {"filters": 4, "kernel": 3, "padding": 1}))
    e = estimate(NetworkDraft("t", layers), Setup(1, "fp32", "sgd"), EXACT)
    assert e.saved_bytes == (3 * 256 + 4 * 256) * 4
    # Max pooling keeps int64 indices; dropout a one-byte mask; batch norm its input.
    layers2 = (LayerSpec("input", "in", {"shape": (4, 8, 8)}),
               LayerSpec("maxpool", "p", {"kernel": 2}),
               LayerSpec("flatten", "f"),
               LayerSpec("dropout", "d", {"p": 0.5}))
    e2 = estimate(NetworkDraft("t", layers2), Setup(1, "fp32", "sgd"), EXACT)
    assert e2.saved_bytes == 4 * 64 * 4 + 4 * 16 * 8 + 4 * 16


def test_allocator_rounding_only_adds():
    d, s = load_preset("resnet18")
    assert estimate(d, s).peak >= estimate(d, s, EXACT).peak
    assert estimate(d, s).activations % 512 == 0


def test_workspace_by_algorithm():
    d, s = load_preset("vgg16")
    ws = {algo: estimate(d, s, Assumptions(conv_algorithm=algo,
                                           cublas_workspace_bytes=0)).workspace
          for algo in ("implicit_gemm", "im2col", "fft", "winograd", "typical")}
    assert ws["implicit_gemm"] == 0
    assert ws["im2col"] > ws["winograd"] > 0  # im2col duplicates every input 9 times
    assert ws["typical"] <= Assumptions().workspace_cap_bytes


def test_invalid_draft_raises_with_every_problem():
    d, s = seed()
    bad = d.replace_layer(2, d.layers[2].replace(kernel=999))
    with pytest.raises(InvalidDraft, match="layer 2 \\(conv2\\)"):
        estimate(bad, s)


@pytest.mark.parametrize("preset", ["seed-example", "resnet50", "vgg16", "lstm-1024", "video"])
@pytest.mark.parametrize("mode", ["train", "infer"])
def test_max_batch_is_the_largest_that_fits(preset, mode):
    d, s = load_preset(preset)
    s = replace(s, mode=mode)
    a = analyze(d)
    memory = 11 * GIB
    b = max_batch(a, s, memory)
    assert b >= 1
    assert peak_bytes(a, replace(s, batch_size=b)) <= memory
    assert peak_bytes(a, replace(s, batch_size=b + 1)) > memory


def test_max_batch_zero_when_nothing_fits():
    d, s = load_preset("vgg16")
    assert max_batch(d, s, 512 * MIB) == 0


def test_checkpointing_lowers_activations_of_a_deep_network():
    d, s = load_preset("resnet50")
    plain = estimate(d, s)
    ckpt = estimate(d, replace(s, checkpointing=True))
    assert ckpt.activations < plain.activations / 3
    assert ckpt.flops_per_iteration > plain.flops_per_iteration


def test_reduction_suggestions_lower_the_peak_and_are_ranked():
    d, s = seed()
    found = suggestions(d, s)
    keys = [x.key for x in found]
    assert {"fp16", "half_batch", "stride2", "pool"} <= set(keys)
    savings = [x.saving_bytes for x in found]
    assert savings == sorted(savings, reverse=True)
    base = estimate(d, s).peak
    for x in found:
        assert estimate(x.draft, x.setup).peak == x.new_peak_bytes < base
        assert x.caution


def test_a_technique_that_barely_helps_is_not_offered():
    # ResNet-50: a 1×1 reduction after conv1 (64 → 21 channels) lowers the peak by 0.4 %; not
    # worth its cost in accuracy, so not offered. Everything offered saves at least 2 %.
    d, s = load_preset("resnet50")
    s = replace(s, batch_size=64)
    found = suggestions(d, s)
    assert found, "ResNet-50 has techniques that help (checkpointing, 16-bit, half batch)"
    assert "reduce1x1" not in [x.key for x in found]
    base = estimate(d, s).peak
    assert min(x.saving_bytes for x in found) >= 0.02 * base
    # with no threshold it would have been offered
    assert "reduce1x1" in [x.key for x in suggestions(d, s, min_saving_fraction=0.0)]


def test_half_batch_below_32_warns():
    d, s = seed(batch_size=48)
    half = next(x for x in suggestions(d, s) if x.key == "half_batch")
    assert "below 32" in half.caution


# ------------------------------------------------------------------ properties (hypothesis)

PRESETS = ["seed-example", "alexnet", "resnet18", "mobilenet_v2", "lstm-128", "plankton"]


@settings(max_examples=60, deadline=None)
@given(preset=st.sampled_from(PRESETS), batch=st.integers(1, 512), extra=st.integers(1, 64),
       precision=st.sampled_from(["fp32", "fp16", "bf16", "mixed"]),
       optimizer=st.sampled_from(["sgd", "momentum", "adam"]))
def test_peak_is_monotone_in_batch(preset, batch, extra, precision, optimizer):
    d, _ = load_preset(preset)
    a = analyze(d)
    s = Setup(batch, precision, optimizer)
    assert peak_bytes(a, s) <= peak_bytes(a, replace(s, batch_size=batch + extra))


@settings(max_examples=40, deadline=None)
@given(preset=st.sampled_from(PRESETS), batch=st.integers(1, 256),
       half=st.sampled_from(["fp16", "bf16"]), optimizer=st.sampled_from(["sgd", "adam"]))
def test_16_bit_never_exceeds_32_bit_and_inference_never_exceeds_training(preset, batch, half,
                                                                          optimizer):
    d, _ = load_preset(preset)
    a = analyze(d)
    s = Setup(batch, "fp32", optimizer)
    assert peak_bytes(a, replace(s, precision=half)) <= peak_bytes(a, s)
    assert peak_bytes(a, replace(s, mode="infer")) <= peak_bytes(a, s)


_layer = st.one_of(
    st.builds(lambda f, k, s, p, g: LayerSpec("conv2d", "", {"filters": f, "kernel": k,
                                                              "stride": s, "padding": p,
                                                              "groups": g}),
              st.integers(1, 64), st.integers(1, 9), st.integers(1, 4),
              st.sampled_from(["valid", "same", 0, 1, 3]), st.sampled_from([1, 2, 4])),
    st.builds(lambda k, s: LayerSpec("maxpool", "", {"kernel": k, "stride": s}),
              st.integers(1, 5), st.sampled_from([None, 1, 2])),
    st.builds(lambda fn, ip: LayerSpec("activation", "", {"function": fn, "inplace": ip}),
              st.sampled_from(ACTIVATIONS), st.booleans()),
    st.just(LayerSpec("batchnorm", "")),
    st.just(LayerSpec("layernorm", "")),
    st.just(LayerSpec("flatten", "")),
    st.just(LayerSpec("global_avgpool", "")),
    st.builds(lambda u: LayerSpec("fc", "", {"units": u}), st.integers(1, 100)),
    st.builds(lambda p: LayerSpec("dropout", "", {"p": p}), st.floats(0, 0.9)),
    st.builds(lambda h: LayerSpec("lstm", "", {"hidden": h}), st.integers(1, 32)),
    st.builds(lambda r: LayerSpec("add", "", {"from": r}), st.sampled_from(["l0", "l1", "l3"])),
    st.builds(lambda r: LayerSpec("concat", "", {"from": r}), st.sampled_from(["l1", "l2"])),
    st.builds(lambda s: LayerSpec("upsample", "", {"scale": s}), st.integers(1, 3)),
    st.builds(lambda k: LayerSpec("conv2d", "", {"kernel": k}),
              st.sampled_from(["x", -1, 0, "3x3x3", [], 2.5])),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=st.lists(st.integers(1, 40), min_size=1, max_size=4),
       layers=st.lists(_layer, max_size=12), batch=st.integers(1, 64),
       mode=st.sampled_from(["train", "infer"]))
def test_random_drafts_never_crash(shape, layers, batch, mode):
    specs = [LayerSpec("input", "l0", {"shape": tuple(shape)})]
    for i, layer in enumerate(layers, 1):
        specs.append(LayerSpec(layer.kind, f"l{i}", dict(layer.params)))
    a = analyze(NetworkDraft("random", tuple(specs)))
    if a.ok:
        e = estimate(a, Setup(batch, "fp32", "adam", mode))
        assert e.peak > 0
        assert e.layers and all(layer.activation_bytes >= 0 for layer in e.layers)
    else:
        for p in a.problems:
            assert str(p).startswith(f"layer {p.index} ({p.name}): ")


@pytest.mark.parametrize("function,inplace,kept", [
    ("relu", True, 1),  # keeps its output, the same storage the next conv keeps
    ("relu", False, 1),
    ("sigmoid", True, 1),
    ("leaky_relu", True, 1),
    ("relu6", True, 2),  # hardtanh_ keeps a copy of its input before overwriting it
    ("silu", True, 2),
    ("hardswish", True, 2),
    ("gelu", False, 2),  # keeps its input; the next conv keeps the output
])
def test_activation_rules_match_autograd(function, inplace, kept):
    # conv → bn → activation → conv: count activation-sized tensors kept beyond conv/bn inputs.
    n = 4 * 8 * 8
    layers = (LayerSpec("input", "in", {"shape": (4, 8, 8)}),
              LayerSpec("conv2d", "c1", {"filters": 4, "kernel": 3, "padding": 1}),
              LayerSpec("batchnorm", "bn"),
              LayerSpec("activation", "act", {"function": function, "inplace": inplace}),
              LayerSpec("conv2d", "c2", {"filters": 4, "kernel": 3, "padding": 1}))
    e = estimate(NetworkDraft("t", layers), Setup(1, "fp32", "sgd"), EXACT)
    base = (n + n) * 4 + 2 * 4 * 4  # conv1's input, bn's input, bn statistics (2 × C fp32)
    assert e.saved_bytes == base + kept * n * 4


def test_batchnorm_statistics_do_not_grow_with_the_batch():
    layers = (LayerSpec("input", "in", {"shape": (8, 4, 4)}), LayerSpec("batchnorm", "bn"))
    one = estimate(NetworkDraft("t", layers), Setup(1, "fp32", "sgd"), EXACT).saved_bytes
    ten = estimate(NetworkDraft("t", layers), Setup(10, "fp32", "sgd"), EXACT).saved_bytes
    assert one == 8 * 16 * 4 + 2 * 8 * 4
    assert ten == 10 * 8 * 16 * 4 + 2 * 8 * 4


@pytest.mark.parametrize("field,value", [
    ("allocator_block_bytes", 0), ("allocator_segment_bytes", 0), ("cuda_context_bytes", -1),
    ("compute_efficiency", 0), ("memory_efficiency", 1.5), ("conv_algorithm", "magic"),
    ("saturation_items_per_core", 0), ("architecture_efficiency", (("Kepler", 0),)),
])
def test_bad_assumptions_are_rejected(field, value):
    with pytest.raises(ValueError):
        Assumptions(**{field: value})


def test_assumptions_round_trip_json():
    a = Assumptions(cuda_context_bytes=123 * MIB, conv_algorithm="fft",
                    architecture_efficiency=(("Kepler", 0.5),))
    assert Assumptions.from_json(a.to_json()) == a
