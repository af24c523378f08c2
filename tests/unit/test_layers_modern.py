"""The layer kinds of modern networks: shapes, parameters and what each keeps for backward
(PyTorch's derivatives.yaml), table-driven, plus bad input → a problem, not a crash."""

from __future__ import annotations

import pytest

from planner.core.layers import F32, I64, MASK, RULES, LayerSpec  # noqa: F401
from planner.core.memory import Assumptions, estimate
from planner.core.network import NetworkDraft, Setup, analyze

EXACT = Assumptions(allocator_block_bytes=1, allocator_segment_bytes=1)


def net(shape, *layers):
    return NetworkDraft("t", (LayerSpec("input", "in", {"shape": shape}),) + tuple(layers))


def kept_elements(draft, batch=1) -> int:
    """Per-sample elements kept for backward at fp32 (bytes / 4)."""
    est = estimate(analyze(draft), Setup(batch_size=batch, precision="fp32"), EXACT)
    return est.saved_bytes // 4 // batch  # everything kept for backward over the step


def test_view_is_free_and_a_slice_keeps_its_whole_storage():
    d = net((12, 197, 64), LayerSpec("view", "t", {"shape": (12, 64, 197)}),
            LayerSpec("view", "half", {"shape": (12, 32, 197)}),
            LayerSpec("fc", "fc", {"units": 8}))
    a = analyze(d)
    assert a.ok and a.output_shape == (12, 32, 8)
    # the fc keeps its input, a view of the input's storage: the whole 12×197×64
    assert kept_elements(d) == 12 * 197 * 64
    bad = analyze(net((4, 4), LayerSpec("view", "v", {"shape": (4, 5)})))
    assert not bad.ok and "larger" in str(bad.problems[0])


@pytest.mark.parametrize("a, b, out", [
    ((12, 197, 64), (12, 64, 197), (12, 197, 197)),
    ((4, 1, 10, 8), (3, 8, 5), (4, 3, 10, 5)),  # broadcast batch dimensions
    ((10, 8), (8,), (10,)),
])
def test_matmul_of_two_activations_keeps_both(a, b, out):
    import math

    assert math.prod(b) <= math.prod(a)  # b is a view (a slice) of the input here
    d = net(a, LayerSpec("view", "b", {"shape": b}),
            LayerSpec("matmul", "mm", {"input": "in", "from": ("b",)}))
    info = analyze(d).layers[-1]
    assert info.error is None and info.out_shape == out
    sources = [t.source for t in info.result.saved]
    assert sources == ["input", "input:1"]
    assert [t.elements for t in info.result.saved] == [math.prod(a), math.prod(b)]


def test_matmul_needs_a_second_operand_and_matching_inner_sizes():
    a = analyze(net((3, 4), LayerSpec("matmul", "mm", {})))
    assert not a.ok and "'from'" in str(a.problems[0])
    a = analyze(net((3, 4), LayerSpec("view", "v", {"shape": (3, 4)}),
                    LayerSpec("matmul", "mm", {"input": "in", "from": ("v",)})))
    assert not a.ok and "multiply" in str(a.problems[0])


def test_softmax_keeps_its_output():
    info = analyze(net((8, 50, 50), LayerSpec("softmax", "s"))).layers[-1]
    assert [(t.source, t.elements) for t in info.result.saved] == [("output", 8 * 50 * 50)]


def test_rmsnorm_keeps_input_and_one_fp32_statistic_per_row():
    info = analyze(net((128, 4096), LayerSpec("rmsnorm", "n"))).layers[-1]
    assert info.result.parameters == 4096
    assert [(t.source, t.elements, t.storage) for t in info.result.saved] == [
        ("input", 128 * 4096, "act"), ("own", 128, F32)]
    info = analyze(net((128, 4096), LayerSpec("rmsnorm", "n", {"affine": False}))).layers[-1]
    assert info.result.parameters == 0


def test_embedding_counts_its_table_and_keeps_the_ids():
    d = net((256,), LayerSpec("embedding", "emb", {"num": 30522, "dim": 768}))
    info = analyze(d).layers[-1]
    assert info.out_shape == (256, 768) and info.result.parameters == 30522 * 768
    assert [(t.source, t.elements) for t in info.result.saved] == [("input", 256)]
    # twice the sequence, twice the bytes kept
    longer = net((512,), LayerSpec("embedding", "emb", {"num": 30522, "dim": 768}))
    assert kept_elements(longer) == 2 * kept_elements(d)


def test_fused_attention_keeps_q_k_v_output_and_logsumexp():
    h, t, dh = 12, 197, 64
    d = net((h, t, dh), LayerSpec("view", "k", {"shape": (h, t, dh)}),
            LayerSpec("view", "v", {"shape": (h, t, dh)}),
            LayerSpec("attention", "attn", {"input": "in", "from": ("k", "v")}))
    info = analyze(d).layers[-1]
    assert info.error is None and info.out_shape == (h, t, dh)
    saved = [(t_.source, t_.elements, t_.storage) for t_ in info.result.saved]
    assert saved == [("input", h * t * dh, "act"), ("input:1", h * t * dh, "act"),
                     ("input:2", h * t * dh, "act"), ("output", h * t * dh, "act"),
                     ("own", h * t, F32)]
    # q, k and v are views of one storage here: counted once, plus the output and the lse
    assert kept_elements(d) == h * t * dh + h * t * dh + h * t
    bad = analyze(net((h, t, dh), LayerSpec("view", "k", {"shape": (h, dh, t)}),
                      LayerSpec("attention", "a", {"input": "in", "from": ("k", "k")})))
    assert not bad.ok


def test_einsum_keeps_every_operand_and_counts_matmul_flops():
    d = net((10, 8), LayerSpec("view", "b", {"shape": (8, 10)}),
            LayerSpec("einsum", "e", {"input": "in", "from": ("b",), "shape": (10, 10)}))
    info = analyze(d).layers[-1]
    assert info.out_shape == (10, 10) and len(info.result.saved) == 2
    assert info.result.flops_fwd == 2 * 10 * 10 * 8


def test_where_keeps_a_one_byte_mask():
    info = analyze(net((16, 16), LayerSpec("where", "w"))).layers[-1]
    assert [(t.source, t.elements, t.storage) for t in info.result.saved] == [
        ("own", 256, MASK)]


@pytest.mark.parametrize("op, keeps, expected", [
    ("add", "nothing", []),
    ("mul", "input", [("input", 96 * 56 * 56)]),
    ("div", "inputs", [("input", 96 * 56 * 56)]),
])
def test_elementwise_with_a_learned_tensor(op, keeps, expected):
    d = net((96, 56, 56), LayerSpec("elementwise", "e", {"op": op, "keeps": keeps,
                                                         "parameters": 96}))
    info = analyze(d).layers[-1]
    assert info.result.parameters == 96 and info.out_shape == (96, 56, 56)
    assert [(t.source, t.elements) for t in info.result.saved] == expected


def test_elementwise_broadcasts_and_refuses_what_does_not():
    d = net((8, 4, 4), LayerSpec("view", "g", {"shape": (8, 1, 1)}),
            LayerSpec("elementwise", "m", {"input": "in", "from": ("g",), "keeps": "inputs"}))
    info = analyze(d).layers[-1]
    assert info.out_shape == (8, 4, 4) and len(info.result.saved) == 2
    bad = analyze(net((8, 4, 4), LayerSpec("view", "g", {"shape": (3, 1, 1)}),
                      LayerSpec("elementwise", "m", {"input": "in", "from": ("g",)})))
    assert not bad.ok and "broadcast" in str(bad.problems[0])


def test_new_kinds_are_in_the_table_with_translatable_labels():
    for kind in ("view", "matmul", "softmax", "rmsnorm", "embedding", "attention", "einsum",
                 "where", "elementwise"):
        rule = RULES[kind]
        assert rule.label and rule.help
        assert rule.param("input") is not None  # every layer may read an earlier one


def test_training_keeps_more_than_inference_and_fp16_less_than_fp32():
    d = net((12, 128, 64), LayerSpec("view", "k", {"shape": (12, 128, 64)}),
            LayerSpec("attention", "a", {"input": "in", "from": ("k", "k")}),
            LayerSpec("softmax", "s"), LayerSpec("rmsnorm", "n"))
    a = analyze(d)
    train = estimate(a, Setup(batch_size=4, precision="fp32", mode="train"), EXACT)
    infer = estimate(a, Setup(batch_size=4, precision="fp32", mode="infer"), EXACT)
    half = estimate(a, Setup(batch_size=4, precision="fp16", mode="train"), EXACT)
    assert infer.activations < train.activations
    assert half.activations < train.activations
