"""Property-based: dimensions drawn across the whole accepted range (every dimension up to the
16 M bound, batches up to 2**20), not only small ones. Whatever is drawn, no exception escapes:
either the analysis names the layer and the size beyond its bound, or the estimate's every
byte term is a non-negative Python int and exact — with the allocator's rounding set to one
byte, a term that grows with the batch is exactly batch × its value at batch 1 (an int64 that
wrapped around would not be), and one that does not grow stays the same."""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.core.layers import LayerSpec
from planner.core.memory import TERMS, Assumptions, estimate
from planner.core.network import (
    MAX_BATCH,
    MAX_ELEMENTS,
    OPTIMIZERS,
    PRECISIONS,
    NetworkDraft,
    Setup,
    analyze,
)

MAX_DIM = 1 << 24
EXACT = Assumptions(allocator_block_bytes=1, allocator_segment_bytes=1,
                    allocator_large_threshold_bytes=1)

dims = st.one_of(st.integers(1, 64), st.integers(1, MAX_DIM),
                 st.sampled_from([MAX_DIM, MAX_DIM - 1, 1 << 20, 4096]))
batches = st.one_of(st.integers(1, 64), st.integers(1, MAX_BATCH),
                    st.sampled_from([MAX_BATCH, MAX_BATCH - 1]))
setups = st.builds(lambda b, prec, opt: Setup(batch_size=b, precision=prec, optimizer=opt),
                   batches, st.sampled_from(PRECISIONS),
                   st.sampled_from(OPTIMIZERS))


def _check(draft: NetworkDraft, setup: Setup, *, only_bounds: bool = True) -> None:
    analysis = analyze(draft)
    if not analysis.ok:
        text = str(analysis.problems[0])
        assert text.startswith("layer "), text  # names the layer
        if only_bounds:  # these networks are valid but for their sizes
            assert "beyond the bound" in text or "larger" in text, text
        return
    est = estimate(analysis, setup, EXACT)
    one = estimate(analysis, Setup(**{**setup.to_json(), "batch_size": 1}), EXACT)
    b = setup.batch_size
    for term in TERMS:
        v = getattr(est, term)
        assert type(v) is int and v >= 0, (term, v)
    # The breakdown is what is alive at the simulated step's peak: its terms add up to the
    # peak exactly, and the peak never falls as the batch grows.
    assert est.peak == sum(getattr(est, t) for t in TERMS)
    assert est.peak >= one.peak
    # What grows with the batch grows exactly with it (no batch norm here, so nothing kept
    # per channel): everything the layers keep for backward; the weights do not grow.
    assert est.saved_bytes == b * one.saved_bytes, b
    assert type(est.saved_bytes) is int
    assert est.weights == one.weights and est.optimizer == one.optimizer
    for layer in est.layers:
        assert layer.activation_bytes >= 0 and layer.parameters >= 0
        assert layer.flops_fwd >= 0 and layer.flops_bwd >= 0
    assert est.parameters == sum(layer.parameters for layer in est.layers)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=st.lists(dims, min_size=1, max_size=3), units=dims, setup=setups,
       bias=st.booleans())
def test_input_and_a_fully_connected_layer(shape, units, setup, bias):
    draft = NetworkDraft("p", (LayerSpec("input", "input", {"shape": tuple(shape)}),
                               LayerSpec("flatten", "flat", {}),
                               LayerSpec("fc", "fc", {"units": units, "bias": bias})))
    analysis = analyze(draft)
    features = math.prod(shape)
    if analysis.ok:  # the parameters, exact
        assert analysis.parameters == features * units + (units if bias else 0)
    else:
        # refused only when a size is really beyond a bound (elements or FLOPs)
        assert features > MAX_ELEMENTS or features * units + units > MAX_ELEMENTS or (
            6 * features * units > 1 << 42), str(analysis.problems[0])
    _check(draft, setup)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(c=dims, h=dims, w=dims, filters=st.one_of(st.integers(1, 512), dims),
       kernel=st.integers(1, 7), stride=st.integers(1, 4), setup=setups)
def test_input_and_a_convolution(c, h, w, filters, kernel, stride, setup):
    draft = NetworkDraft("p", (LayerSpec("input", "input", {"shape": (c, h, w)}),
                               LayerSpec("conv2d", "conv", {"filters": filters, "kernel": kernel,
                                                            "stride": stride}),
                               LayerSpec("activation", "relu", {"function": "relu"})))
    _check(draft, setup)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=st.lists(dims, min_size=1, max_size=4), setup=setups)
def test_the_cli_input_override_never_escapes(shape, setup):
    from planner.core.presets import load_preset

    draft, _ = load_preset("seed-example")
    try:
        draft = draft.with_input_shape(tuple(shape))
    except ValueError:
        return  # refused with a message (the CLI prints it)
    _check(draft, setup, only_bounds=False)
