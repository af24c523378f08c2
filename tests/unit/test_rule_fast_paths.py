"""The inline paths of the commonest rules give the general rule's result, field for field,
and leave every problem to it (the same message)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from planner.core.layers import RULES, LayerError
from planner.core.layers.conv import _conv2d_plain


def _general(params, x):
    """The general rule: one-element lists take the path that is not inlined."""
    wrapped = dict(params, kernel=(params["kernel"],), stride=(params["stride"],),
                   dilation=(params["dilation"],), padding=[params["padding"]])
    try:
        return RULES["conv2d"].apply(wrapped, [x])
    except LayerError as exc:
        return str(exc)


@settings(max_examples=400, deadline=None)
@given(cin=st.integers(1, 96), h=st.integers(1, 300), w=st.integers(1, 300),
       filters=st.integers(1, 96), kernel=st.integers(1, 9), stride=st.integers(1, 4),
       padding=st.integers(0, 4), dilation=st.integers(1, 3), groups=st.sampled_from([1, 2, 3, 4]),
       bias=st.booleans())
def test_plain_conv2d_is_the_general_rule(cin, h, w, filters, kernel, stride, padding,
                                          dilation, groups, bias):
    params = {"filters": filters, "kernel": kernel, "stride": stride, "padding": padding,
              "dilation": dilation, "groups": groups, "bias": bias}
    general = _general(params, (cin, h, w))
    plain = _conv2d_plain(params, (cin, h, w))
    if isinstance(general, str):  # a problem: not inlined, the general rule names it
        assert plain is None
        try:
            RULES["conv2d"].apply(params, [(cin, h, w)])
        except LayerError as exc:
            assert str(exc) == general
        else:
            raise AssertionError("the rule accepted what the general path refused")
    else:
        assert plain is not None
        assert tuple(plain) == tuple(general)
        assert dict(plain.workspace) == dict(general.workspace)
        assert list(plain.workspace) == list(general.workspace)  # the same order
        assert RULES["conv2d"].apply(params, [(cin, h, w)]) == general


def test_plain_conv2d_leaves_other_inputs_to_the_general_rule():
    params = {"filters": 8, "kernel": 3, "stride": 1, "padding": "same", "dilation": 1,
              "groups": 1, "bias": True}
    assert _conv2d_plain(params, (3, 32, 32)) is None  # padding by name
    assert _conv2d_plain(dict(params, padding=1), (3, 8, 32, 32)) is None  # a 3-D input
    assert _conv2d_plain(dict(params, padding=1, kernel=(3, 5)), (3, 32, 32)) is None


def test_weight_standardised_conv2d_keeps_its_standardised_weight():
    # The inline path must not swallow 'standardized' (NF-Nets' ScaledStdConv2d imported from
    # ONNX): the standardised weight and its statistics are kept, the gain is a parameter.
    base = {"filters": 16, "kernel": 3, "stride": 1, "padding": 1, "dilation": 1,
            "groups": 1, "bias": True}
    plain = RULES["conv2d"].apply(dict(base, standardized="none"), [(8, 32, 32)])
    gain = RULES["conv2d"].apply(dict(base, standardized="gain"), [(8, 32, 32)])
    assert _conv2d_plain(dict(base, standardized="gain"), (8, 32, 32)) is None
    assert gain.parameters == plain.parameters + 16
    kept = sum(s.elements for s in gain.saved) - sum(s.elements for s in plain.saved)
    assert kept == 16 * 8 * 9 + 2 * 16


def test_a_convolutions_workspace_reads_as_the_mapping_of_its_algorithms():
    import pickle  # noqa: PLC0415

    import pytest  # noqa: PLC0415

    conv = RULES["conv2d"]
    w3 = conv.apply({**conv.defaults(), "filters": 8, "kernel": 3, "padding": 1},
                    [(4, 10, 10)]).workspace
    w1 = conv.apply({**conv.defaults(), "filters": 8, "kernel": 1}, [(4, 10, 10)]).workspace
    assert list(w3) == ["implicit_gemm", "im2col", "fft", "winograd"]
    assert list(w1) == ["implicit_gemm", "im2col", "fft"]  # Winograd only for 3×3 stride 1
    assert w1["im2col"] == (10 * 10 * 4, 0) and w1.get("winograd") is None
    with pytest.raises(KeyError):
        w1["winograd"]  # noqa: B018
    assert w3["winograd"] == ((4 + 8) * 5 * 5 * 16, 8 * 4 * 16)
    assert dict(w3) == {k: w3[k] for k in w3} and repr(w3) == repr(dict(w3))
    assert pickle.loads(pickle.dumps(w3)) == w3 and w3 != w1
