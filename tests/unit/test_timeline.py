"""The simulated step: hand-computed small networks (where the peak is, its bytes), inference,
checkpointing, gradient accumulation, the direct largest-batch solve, exact big numbers."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from planner.core import timeline as T
from planner.core.layers import LayerSpec
from planner.core.memory import (
    ACT_BYTES,
    OPTIMIZER_STATES,
    PARAM_BYTES,
    STATE_BYTES,
    Assumptions,
    prepare,
    estimate,
    max_batch,
    max_batch_many,
    peak_bytes,
)
from planner.core.network import InvalidDraft, NetworkDraft, Setup, analyze
from planner.core.presets import load_preset

# Only tensors: no context, libraries, cuBLAS workspace or allocator rounding.
BARE = Assumptions(cuda_context_bytes=0, library_handles_bytes=0, cublas_workspace_bytes=0,
                   allocator_model=False)


def mlp() -> NetworkDraft:
    return NetworkDraft("mlp", (
        LayerSpec("input", "in", {"shape": (8,)}),
        LayerSpec("fc", "fc1", {"units": 4}),  # 36 parameters, keeps its input
        LayerSpec("activation", "relu", {"function": "relu", "inplace": False}),  # keeps output
        LayerSpec("fc", "fc2", {"units": 2}),  # 10 parameters, keeps its input (relu's output)
    ))


W = (36 + 10) * 4  # fp32 weights


# Per sample at each point of an SGD step (see the derivation in the comments):
#   in 32 B kept throughout; fc1 out 16 B (freed after relu's forward); relu out 16 B (kept by
#   relu and fc2, freed after relu's backward); fc2 out 8 B (freed after the loss); the loss's
#   log-softmax 8 B (freed after its backward); gradients: 8 B (logits), 16 B (relu out),
#   16 B (fc1 out). Parameter gradients: fc2's 40 B from its backward, fc1's 144 B from its.
EXPECTED_TRAIN = [  # (name, phase, bytes per sample, fixed bytes)
    ("in", "forward", 32, W),
    ("fc1", "forward", 48, W),
    ("relu", "forward", 64, W),
    ("fc2", "forward", 56, W),
    ("loss", "loss", 64, W),
    ("loss", "backward", 72, W),
    ("fc2", "backward", 72, W + 40),
    ("relu", "backward", 80, W + 40),
    ("fc1", "backward", 48, W + 184),
    ("optimizer", "optimizer", 32, W + 184),
]


@pytest.mark.parametrize("batch", [1, 3, 8, 100])
def test_hand_computed_training_step(batch):
    e = estimate(mlp(), Setup(batch, "fp32", "sgd"), BARE)
    got = [(p.name, p.phase, p.allocated_bytes) for p in e.timeline]
    want = [(n, ph, ps * batch + fx) for n, ph, ps, fx in EXPECTED_TRAIN]
    assert got == want
    assert e.peak == max(v for _, _, v in want)


def test_the_peak_moves_with_the_batch():
    # Small batches peak at fc1's backward (all parameter gradients), large ones at relu's
    # backward (three activation-sized gradients alive): 80b + 224 against 48b + 368.
    small = estimate(mlp(), Setup(1, "fp32", "sgd"), BARE)
    assert (small.peak_at.name, small.peak_at.phase) == ("fc1", "backward")
    assert small.peak == 48 + W + 184
    assert small.gradients == 184
    large = estimate(mlp(), Setup(8, "fp32", "sgd"), BARE)
    assert (large.peak_at.name, large.peak_at.phase) == ("relu", "backward")
    assert large.peak == 80 * 8 + W + 40
    assert large.gradients == 40  # fc1's gradient does not exist yet at the peak
    assert large.weights == W
    assert large.transient == (16 + 16) * 8  # the gradients of relu's input and output


def test_largest_batch_is_solved_from_the_timeline():
    # Binding constraint at 1000 bytes: relu's backward, 80b + 224 ≤ 1000 → b = 9.
    a = analyze(mlp())
    s = Setup(1, "fp32", "sgd")
    assert max_batch(a, s, 1000, BARE) == 9
    assert peak_bytes(a, replace(s, batch_size=9), BARE) <= 1000
    assert peak_bytes(a, replace(s, batch_size=10), BARE) > 1000
    assert max_batch(a, s, 48 + W + 184 - 1, BARE) == 0  # not even batch 1


def test_momentum_state_lives_throughout():
    plain = estimate(mlp(), Setup(8, "fp32", "sgd"), BARE)
    momentum = estimate(mlp(), Setup(8, "fp32", "momentum"), BARE)
    assert [p.allocated_bytes - W for p in momentum.timeline] == [
        p.allocated_bytes for p in plain.timeline]
    assert momentum.optimizer == W


def test_adam_step_has_one_temporary_per_parameter():
    e = estimate(mlp(), Setup(1, "fp32", "adam"), BARE)
    last = e.timeline[-1]
    assert last.phase == "optimizer"
    # weights + two moments + all gradients + the foreach temporary + the input
    assert last.allocated_bytes == W + 2 * W + W + W + 32


def test_inference_keeps_nothing_for_backward():
    e = estimate(mlp(), Setup(5, "fp32", "sgd", "infer"), BARE)
    got = [(p.name, p.phase, p.allocated_bytes) for p in e.timeline]
    # in 32; fc1 out 16 until relu read it; relu out 16 until fc2 read it; the result 8.
    assert got == [("in", "forward", 32 * 5 + W), ("fc1", "forward", 48 * 5 + W),
                   ("relu", "forward", 64 * 5 + W), ("fc2", "forward", 56 * 5 + W)]
    assert e.peak == 64 * 5 + W
    assert e.gradients == e.optimizer == e.transient == 0


def test_accumulation_keeps_the_gradients_throughout():
    # Micro-batches after the first find every gradient already there; each new one is added
    # in: at relu's backward all 184 bytes are alive, plus nothing transient.
    e = estimate(mlp(), Setup(8, "fp32", "sgd", accumulation=4), BARE)
    assert e.peak == max(80 * 8 + W + 184, 48 * 8 + W + 184 + 144)
    first = e.timeline[0]
    assert first.allocated_bytes == 32 * 8 + W + 184


def deep_chain(blocks: int) -> NetworkDraft:
    layers = [LayerSpec("input", "in", {"shape": (4, 16, 16)})]
    for i in range(blocks):
        layers.append(LayerSpec("conv2d", f"c{i}", {"filters": 4, "kernel": 3, "padding": 1}))
        layers.append(LayerSpec("activation", f"r{i}", {"function": "relu", "inplace": True}))
    return NetworkDraft("chain", tuple(layers))


def test_checkpointing_recomputes_each_segment_before_its_backward():
    d = deep_chain(48)  # 97 layers: segments of 10, the last (7 layers) not checkpointed
    assert T.checkpoint_segments(97) == 10
    s = Setup(16, "fp32", "sgd")
    plain = estimate(d, s, BARE)
    ckpt = estimate(d, replace(s, checkpointing=True), BARE)
    phases = [p.phase for p in ckpt.timeline]
    assert phases.count("recompute") == 97 - 7 - 1  # every checkpointed layer but the input
    assert "recompute" not in [p.phase for p in plain.timeline]
    # The segment after its recompute keeps what its layers need: at most one segment's
    # activations plus the segment boundaries, far below keeping everything.
    act = 4 * 16 * 16 * 4 * 16  # one conv output, bytes
    assert ckpt.activations < plain.activations / 2
    assert ckpt.peak < plain.peak
    assert ckpt.step_totals["gradients"] == plain.step_totals["gradients"]
    assert ckpt.activations >= act  # something is kept


@pytest.mark.parametrize("preset", ["resnet18", "resnet50", "vgg16", "mobilenet_v2",
                                    "lstm-128", "seed-example", "plankton", "video"])
@pytest.mark.parametrize("mode,optimizer,accumulation", [
    ("train", "momentum", 1), ("train", "adam", 3), ("infer", "sgd", 1)])
def test_vectorised_replay_matches_the_layer_by_layer_one(preset, mode, optimizer,
                                                          accumulation):
    a = analyze(load_preset(preset)[0])
    p = prepare(a)
    kw = dict(mode=mode, optimizer=optimizer, optimizer_states=OPTIMIZER_STATES[optimizer],
              accumulation=accumulation)
    fast = T.build_step_fast(a, p.param_counts, p.flops_bwd, ACT_BYTES["fp32"],
                             PARAM_BYTES["fp32"], STATE_BYTES["fp32"], **kw)
    slow = T.build_step(a, "fp32", ACT_BYTES["fp32"], PARAM_BYTES["fp32"],
                        STATE_BYTES["fp32"], **kw)
    assert fast is not None
    assert np.array_equal(fast.point_layer, slow.point_layer)
    assert np.array_equal(fast.point_phase, slow.point_phase)
    for x, y in zip(fast.lines(), slow.lines()):
        assert np.array_equal(x, y)


def _frozen_start() -> NetworkDraft:
    """A frozen stem (no gradient reaches it) before trainable layers, with a residual."""
    return NetworkDraft("frozen start", (
        LayerSpec("input", "in", {"shape": (3, 32, 32)}),
        LayerSpec("conv2d", "c0", {"filters": 8, "kernel": 3, "frozen": True}),
        LayerSpec("batchnorm", "bn", {"frozen": True}),
        LayerSpec("activation", "r", {"function": "relu"}),
        LayerSpec("maxpool", "mp", {"kernel": 2}),
        LayerSpec("conv2d", "c1", {"filters": 8, "kernel": 3, "padding": 1}),
        LayerSpec("add", "a", {"from": "mp"}),
        LayerSpec("flatten", "fl"),
        LayerSpec("fc", "fc", {"units": 10}),
    ))


def _frozen_drafts():
    from planner.core.finetune import LoraSetup, apply_lora  # noqa: PLC0415

    gpt2, llama = load_preset("gpt2")[0], load_preset("llama_1b")[0]
    return [
        ("gpt2 LoRA", apply_lora(gpt2, LoraSetup(16))),
        ("llama QLoRA", apply_lora(llama, LoraSetup(8, quant="nf4_dq"))),
        # Adapters late in each block only: the first layers need no gradient.
        ("llama LoRA o/down", apply_lora(llama, LoraSetup(4, targets=("o_proj", "down_proj")))),
        ("gpt2 full (tied head)", gpt2),
        ("frozen start", _frozen_start()),
        # No weights at all: nothing needs a gradient, yet the loss's backward runs.
        ("no weights", NetworkDraft("relus", (LayerSpec("input", "in", {"shape": (3, 8, 8)}),)
                                    + tuple(LayerSpec("activation", f"a{i}",
                                                      {"function": "relu"})
                                            for i in range(5)))),
    ]


@pytest.mark.parametrize("label,draft", _frozen_drafts(), ids=lambda x: x if
                         isinstance(x, str) else "")
@pytest.mark.parametrize("precision,mode,optimizer,accumulation", [
    ("bf16", "train", "adamw", 1), ("fp32", "train", "momentum", 4), ("fp16", "infer", "sgd", 1)])
def test_vectorised_replay_of_frozen_weights_is_the_layer_by_layer_one(
        label, draft, precision, mode, optimizer, accumulation):
    # Frozen, quantised and tied weights (LoRA, QLoRA, a tied LM head): the vectorised replay
    # makes the very same tensors in the same order (the allocator replay depends on it).
    a = analyze(draft)
    p = prepare(a)
    weights = p.grouped["weights"]  # the frozen parts prepare read
    assert (weights is None) == (label == "no weights")
    kw = dict(mode=mode, optimizer=optimizer, optimizer_states=OPTIMIZER_STATES[optimizer],
              accumulation=accumulation)
    args = (ACT_BYTES[precision], PARAM_BYTES[precision], STATE_BYTES[precision])
    fast = T.build_step_fast(a, p.param_counts, p.flops_bwd, *args, saved_owner=p.saved_owner,
                             weights=weights, **kw)
    slow = T.build_step(a, precision, *args, **kw)
    assert fast is not None
    for f in ("point_layer", "point_phase", "alloc", "free", "per_sample", "fixed", "category",
              "owner", "kept"):
        assert np.array_equal(getattr(fast, f), getattr(slow, f)), f
    assert fast.needs_grad == slow.needs_grad
    if label == "llama LoRA o/down" and mode == "train":
        assert not all(fast.needs_grad[1:])  # the case where layers keep nothing


def test_a_layer_no_gradient_reaches_is_left_to_the_layer_by_layer_replay():
    # A branch nothing reads (a dead end) gets no gradient: the vectorised replay declines.
    d = _frozen_start().with_layers(_frozen_start().layers[:6] + (
        LayerSpec("conv2d", "dead", {"filters": 4, "kernel": 1, "input": "c1"}),
        LayerSpec("add", "a", {"from": "mp", "input": "c1"}),
        LayerSpec("flatten", "fl"), LayerSpec("fc", "fc", {"units": 10})))
    a = analyze(d)
    p = prepare(a)
    fast = T.build_step_fast(a, p.param_counts, p.flops_bwd, 4, 4, 4, mode="train",
                             optimizer="sgd", optimizer_states=0, accumulation=1,
                             saved_owner=p.saved_owner,
                             weights=p.grouped["weights"])
    assert fast is None
    assert estimate(a, Setup(2, "fp32", "sgd"), BARE).peak > 0


@pytest.mark.parametrize("preset", ["resnet18", "mobilenet_v2", "seed-example", "lstm-128"])
@pytest.mark.parametrize("allocator", [False, True])
def test_largest_batch_agrees_with_brute_force(preset, allocator):
    a = analyze(load_preset(preset)[0])
    s = Setup(1, "fp32", "momentum")
    asm = Assumptions(allocator_model=allocator)
    mems = np.array([2, 5, 11, 24], dtype=np.int64) << 30
    got = max_batch_many(a, s, mems, asm)
    for mem, b in zip(mems.tolist(), got.tolist()):
        assert b >= 1
        assert peak_bytes(a, replace(s, batch_size=b), asm) <= mem
        assert peak_bytes(a, replace(s, batch_size=b + 1), asm) > mem
    # A few memories read every point's line, many the frontier of the lines: one answer.
    many = [int(g * (1 << 30)) for g in (2, 3, 5, 7.5, 11, 16, 24, 40, 80)]
    assert max_batch_many(a, s, many, asm).tolist() == [max_batch(a, s, m, asm) for m in many]


def test_sizes_at_the_bounds_stay_exact_and_beyond_them_are_named():
    # 2**36 values per sample (the largest tensor a draft may have), fp32, batch 2**20:
    # 2**58 bytes for one tensor, summed exactly (Python ints, no int64 wrap).
    d = NetworkDraft("huge", (LayerSpec("input", "in", {"shape": (1 << 18, 1 << 18)}),
                              LayerSpec("activation", "r", {"function": "relu",
                                                            "inplace": False})))
    batch = 1 << 20
    e = estimate(d, Setup(batch, "fp32", "sgd", "infer"), BARE)
    assert e.peak == 2 * (1 << 36) * 4 * batch  # input and output, exact
    assert isinstance(e.peak, int) and e.peak == 1 << 59
    assert e.layers[1].output_bytes == (1 << 36) * 4 * batch
    assert max_batch(d, Setup(1, "fp32", "sgd", "infer"), 1 << 40, BARE) == 2  # 512 GiB each
    # one dimension more is beyond the bound: an error naming the layer, not a wrong number
    big = NetworkDraft("huger", (LayerSpec("input", "in", {"shape": (1 << 22, 1 << 22)}),))
    with pytest.raises(InvalidDraft, match=r"layer 0 \(in\).*beyond the bound"):
        estimate(big, Setup(1, "fp32", "sgd", "infer"), BARE)


def test_allocator_rounding_is_its_own_term():
    d, s = load_preset("resnet18")
    exact = estimate(d, s, replace(Assumptions(), allocator_model=False))
    modelled = estimate(d, s)
    assert modelled.weights == exact.weights == 11_689_512 * 4  # exact tensor bytes
    assert modelled.allocator > 0 and exact.allocator == 0
    assert modelled.allocated_bytes >= exact.allocated_bytes
    assert modelled.reserved_bytes >= modelled.allocated_bytes
    assert modelled.nvidia_smi_bytes == modelled.overhead + modelled.reserved_bytes


@pytest.mark.parametrize("precision", ["mixed", "mixed_bf16"])
def test_autocast_step_by_hand(precision):
    # fp32 weights and gradients; fc1 and fc2 run in 16 bits: fc1 keeps a 16-bit cast of the
    # fp32 input (16 B/sample) and 16-bit copies of its weights (72 B), fc2 of its weights
    # (20 B); every activation after fc1 is 16-bit; the loss works in fp32. In backward each
    # layer with weights also makes a 16-bit gradient of its weight copy before the fp32 one.
    batch = 4
    e = estimate(mlp(), Setup(batch, precision, "sgd"), BARE)
    want = [("in", "forward", 32, W), ("fc1", "forward", 56, W + 72),
            ("relu", "forward", 64, W + 72), ("fc2", "forward", 60, W + 92),
            ("loss", "loss", 68, W + 92), ("loss", "backward", 76, W + 92),
            ("fc2", "backward", 68, W + 152), ("relu", "backward", 72, W + 112),
            ("fc1", "backward", 56, W + 328), ("optimizer", "optimizer", 32, W + 184)]
    assert [(p.name, p.phase, p.allocated_bytes) for p in e.timeline] == [
        (n, ph, ps * batch + fx) for n, ph, ps, fx in want]
    assert e.kept_for_backward_bytes == 24 * batch + 92
    assert e.step_totals["weights"] == W and e.step_totals["gradients"] == 184
    assert e.step_totals["weight_copies"] == 92


def test_autocast_against_fp32_and_pure_16_bit():
    d, s = load_preset("resnet50")
    s = replace(s, batch_size=32)
    fp32 = estimate(d, s)
    mixed = estimate(d, replace(s, precision="mixed_bf16"))
    pure = estimate(d, replace(s, precision="bf16"))
    assert mixed.step_totals["weights"] == fp32.step_totals["weights"]  # fp32 weights
    assert pure.step_totals["weights"] * 2 == fp32.step_totals["weights"]
    # 16-bit copies of what convolutions and the linear layer use; batch norm runs on fp32
    # weights (not on autocast's 16-bit list).
    bn = sum(layer.parameters for layer in fp32.layers if layer.kind == "batchnorm")
    assert bn == 53_120
    assert mixed.step_totals["weight_copies"] == (25_557_032 - bn) * 2
    assert pure.peak < mixed.peak < fp32.peak


# A layer reading one output twice (measured with CPU PyTorch 2.14's memory profiler over one
# SGD step, batch 64, fc1 16 → 16384, fc2 → 10; weights 1,769,512 B):
# * h * h: MulBackward makes grad·h for each operand, two new buffers alive together (the
#   second then added in place): peak 18.317 MiB at its backward (h kept, the output's
#   gradient, both input gradients, fc2's weight gradient);
# * h + h (and h + h.view(...)): AddBackward hands the same gradient to both operands, so the
#   engine cannot add in place (the buffer's storage is shared) and makes their sum out of
#   place: a new buffer alive beside the incoming one at the add's backward.
_H = 16384
_ACT = 64 * _H * 4  # one activation-sized tensor at batch 64, fp32
_WEIGHTS = (16 * _H + _H + 10 * _H + 10) * 4
_FC2_GRAD = (10 * _H + 10) * 4
_INPUT = 64 * 16 * 4


def _reads_twice(*middle: LayerSpec) -> NetworkDraft:
    return NetworkDraft("twice", (LayerSpec("input", "in", {"shape": (16,)}),
                                  LayerSpec("fc", "fc1", {"units": _H}))
                        + middle + (LayerSpec("fc", "fc2", {"units": 10}),))


_TWICE = {
    "h*h": (LayerSpec("elementwise", "y", {"op": "mul", "keeps": "inputs", "from": "fc1"}),),
    "h+h": (LayerSpec("add", "y", {"from": "fc1"}),),
    "h+view(h)": (LayerSpec("view", "v", {"shape": (_H,)}), LayerSpec("add", "y", {"from": "fc1"})),
    "concat(h,h)": (LayerSpec("concat", "y", {"from": "fc1"}),),
}


def test_a_layer_multiplying_an_output_by_itself_makes_two_gradients():
    e = estimate(_reads_twice(*_TWICE["h*h"]), Setup(64, "fp32", "sgd"), BARE)
    assert (e.peak_at.name, e.peak_at.phase) == ("y", "backward")
    # h (kept), the output's gradient and both input gradients: 18.316 MiB (measured 18.317)
    assert e.peak == 4 * _ACT + _WEIGHTS + _FC2_GRAD + _INPUT


@pytest.mark.parametrize("label", ["h+h", "h+view(h)"])
def test_the_sum_of_one_gradient_handed_on_twice_is_a_new_buffer(label):
    e = estimate(_reads_twice(*_TWICE[label]), Setup(64, "fp32", "sgd"), BARE)
    # At the backward where the second copy arrives: the incoming gradient and the sum.
    at = {"h+h": "y", "h+view(h)": "v"}[label]
    point = next(p for p in e.timeline if p.name == at and p.phase == "backward")
    assert point.allocated_bytes == 2 * _ACT + _WEIGHTS + _FC2_GRAD + _INPUT


@pytest.mark.parametrize("label", sorted(_TWICE))
@pytest.mark.parametrize("optimizer,accumulation", [("sgd", 1), ("adam", 3)])
@pytest.mark.parametrize("frozen_head", [False, True])
def test_vectorised_replay_of_a_layer_reading_one_output_twice(label, optimizer, accumulation,
                                                               frozen_head):
    d = _reads_twice(*_TWICE[label])
    if frozen_head:  # frozen weights: the same tensors in the layer-by-layer replay's order
        d = d.replace_layer(len(d.layers) - 1, d.layers[-1].replace(frozen=True))
    a = analyze(d)
    p = prepare(a)
    kw = dict(mode="train", optimizer=optimizer, optimizer_states=OPTIMIZER_STATES[optimizer],
              accumulation=accumulation)
    fast = T.build_step_fast(a, p.param_counts, p.flops_bwd, 4, 4, 4,
                             saved_owner=p.saved_owner, weights=p.grouped["weights"], **kw)
    slow = T.build_step(a, "fp32", 4, 4, 4, **kw)
    assert fast is not None
    assert (p.grouped["weights"] is not None) == frozen_head
    for x, y in zip(fast.lines(), slow.lines()):
        assert np.array_equal(x, y)
    if frozen_head:
        for f in ("alloc", "free", "per_sample", "fixed", "category", "owner", "kept"):
            assert np.array_equal(getattr(fast, f), getattr(slow, f)), f

