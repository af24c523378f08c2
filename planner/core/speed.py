"""How fast an iteration runs on a card: a roofline per layer, forward and backward.

Every layer is one kind of work, and each kind runs where PyTorch runs it:

* **convolutions** (by algorithm: 3×3 and 5×5 stride-1 ones through Winograd on the CUDA
  cores in FP32, grouped ones at a lower efficiency, the rest as implicit GEMM) and
  **GEMMs** (fully connected, LSTM/GRU) are compute-bound on the path the precision chooses for
  the card: FP32 CUDA cores, TF32 tensor cores (PyTorch's default for convolutions on Ampere and
  newer), FP16 or BF16 tensor cores (autocast or pure 16-bit);
* dense convolutions run as GEMMs in **tiles** (128 pixels × 128, 64 or 32 channels): channels
  that do not fill them waste the rest, or take a narrower, slower tile (``_tile_fill``;
  Inception's 48-192 channels, against ResNet's 64·2ⁿ);
* **depthwise convolutions** run on the CUDA cores in any precision, bound by the bytes their
  multiply-accumulates read (one input element each, no reuse across output channels) at a
  fitted SM-cycle cost per byte (``depthwise_sm_cycles_per_byte``), or by their DRAM traffic at
  a fitted fraction of the bandwidth, whichever is longer: 16-bit halves their time (as measured
  on EfficientNet), a 3×3 kernel costs 9/25 of a 5×5 one per output (MobileNetV2 against
  EfficientNet);
* where TF32 is allowed, not forced (PyTorch's ``fp32``), cuDNN takes the faster of the TF32
  tensor cores and the FP32 CUDA cores for each convolution;
* in PyTorch's default **NCHW** layout (``Assumptions.memory_format``) a 16-bit tensor-core
  convolution also pays cuDNN's transposes of its activations to NHWC and back
  (``_layout_bytes``), kernels of their own whose time adds to the convolution's (memory-bound,
  at the memory-bound kernels' bandwidth and instruction rate); channels-last does not, nor do
  TF32 convolutions (cuDNN's NCHW TF32 kernels: ``transposes_nchw``);
* GeForce cards run 16-bit tensor-core math with FP32 accumulate (and BF16) at half their
  FP16-accumulate rate while their operands arrive as fast as at full rate: where
  ``tensor_efficiency`` (e) is read as math time plus an operand-delivery time of (1/e − 1) ×
  the full-rate math time, the half-rate kernels reach 1 / (1 + (1/e − 1)/2) of their halved
  rate (0.82 for e = 0.7); their TF32 matrix products (a quarter of the rate, operands twice as
  wide: the same bytes a second) the same (``_slow_math``);
* where the framework fuses the ReLU (and the residual add) into batch norm
  (``Assumptions.fused_bn_activation``; MXNet's DLE float16 recipes) their memory passes go
  (``_fusion_savings``); PyTorch eager does not;
* **eager attention** (q·kᵀ, scale, mask, softmax, dropout, ·v as separate kernels) also
  moves its batch × heads × queries × keys scores ``Assumptions.eager_attention_passes`` times
  a step, and copies q, k, v and the context between the sequence and head layouts: memory-bound
  kernels after its products (``_eager_attention``); flash and memory-efficient attention keep
  the scores on chip. In TF32, matrix products (cuBLAS) run at ``tensor_efficiency`` of the TF32
  rate, convolutions (cuDNN) at ``tf32_efficiency``;
* everything else (normalisation, activations, pooling, residual adds, concat, dropout) is
  **memory-bound**: bytes moved ÷ achievable bandwidth (the datasheet figure × the fitted
  memory efficiency × the chip's streaming share over the V100's: ``Assumptions.
  streaming_factor``), in the precision's element size. The
  bytes are counted per kind of layer as the kernels move them (``_TRAFFIC``: a residual add
  moves nothing backward, a concat copies both ways, batch norm reads its input twice each
  way), plus
  the gradient sums where a tensor feeds several layers.

For each layer and pass::

    time = max(FLOPs ÷ achievable FLOP/s, bytes ÷ achievable bandwidth, kernels × launch floor)

* achievable FLOP/s = datasheet rate of the path × the efficiency of that path (CUDA cores or
  tensor cores) × the architecture's factor for it × utilisation × tile efficiency;
* utilisation = min(1, independent outputs ÷ (CUDA cores × outputs per core that fill the card)):
  a small network (the article's 128-unit LSTM) does not fill a big card;
* the launch floor: no kernel takes less than a few microseconds, so small layers and small
  batches do not speed up with FLOPS;
* a memory-bound kernel also executes instructions for every element it moves: its time is at
  least elements × ``memory_sm_cycles_per_element`` ÷ (SMs × clock) (``sm_cycles_per_s``),
  which binds where a card has much bandwidth per SM cycle (A100, H100), not on GeForce cards;
* every rate but the memory's runs at the clock the card sustains under its board power
  (``sustained_clock_factor``): below its boost clock where it has less power per SM than its
  chip's full variant (RTX A6000, A10, A100 PCIe, L4, T4).

Then the optimizer step (weights, gradients and states read and written once, at bandwidth; or,
with ``Assumptions.optimizer_for_loop``, one kernel per operation and tensor, as BertAdam runs) and
the host: the CPU issues every kernel (framework dispatch, autograd), so an iteration is never
shorter than kernels × CPU time per kernel: that, and the memory-bound work, is what limits the
fastest cards on mid-sized CNNs.

Every factor is in ``Assumptions`` with where its value came from; the fitted ones come from
``benchmarks/calibrate_speed.py`` on measured training throughput. Qt-free, no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Protocol

import numpy as np

from planner.core.catalog import fp32_lanes_per_sm
from planner.core.memory import (
    ACT_BYTES,
    MASTER_BYTES,
    OPTIMIZER_STATES,
    STATE_BYTES,
    WEIGHT_BYTES,
    Assumptions,
    prepare,
)
from planner.core.network import Analysis, Setup
from planner.core.speed_bands import Band, band_for
from planner.i18n import QT_TRANSLATE_NOOP


class CardLike(Protocol):
    """What the speed model needs of a card (catalog.GpuSpec has it all)."""

    name: str
    architecture: str
    compute_capability: str
    bandwidth_gbs: float
    fp32_tflops: float
    fp16_tflops: float | None
    has_tensor_cores: bool
    tf32_tensor_tflops: float | None
    fp16_tensor_tflops: float | None
    fp16_tensor_fp32acc_tflops: float | None
    bf16_tensor_tflops: float | None
    cuda_cores: int | None
    boost_clock_mhz: int | None


# Kinds of work.
CONV, WINOGRAD, GROUPED, DEPTHWISE, GEMM, MEMORY = range(6)
_CONV_KINDS = ("conv2d", "conv3d", "conv_transpose2d", "conv_transpose3d")
_GEMM_KINDS = ("fc", "lstm", "gru")
# Transformer kinds that run as matrix products (attention's kernels, products of two
# activations) or as a convolution (ViT's patch embedding); not calibrated yet.
_TRANSFORMER_GEMM_KINDS = ("attention", "matmul", "einsum")
_TRANSFORMER_CONV_KINDS = ("patch_embed",)
# Layer kinds whose speed the calibration checked (CNNs); the others carry no measured band.
# "concat": Inception-v3, the one branching network measured, is inside its target since the
# tile rule (``_tile_fill``; benchmarks/speed_accuracy.py). "elementwise": the squeeze-and-
# excitation products of EfficientNet (fitted) and SE-ResNeXt-101 (held out), memory-bound like
# the activations.
CHECKED_KINDS = frozenset({"input", "conv2d", "maxpool", "avgpool", "adaptive_avgpool",
                           "global_avgpool", "batchnorm", "activation", "dropout", "flatten",
                           "fc", "add", "concat", "elementwise"})

# Transformer layers the held-out BERT rows checked (benchmarks/data/speed-holdout-bert.csv:
# Lambda's BERT-base and -large SQuAD fine-tuning, post-norm encoders with eager attention):
# a network of these and the checked CNN kinds is banded from the transformer rows
# (``network_class``). Attention counts only in its eager form: the fused kernels (flash,
# memory-efficient) were not measured.
TRANSFORMER_KINDS = frozenset({"embedding", "layernorm", "attention"})
CNN, TRANSFORMER = "cnn", "transformer"

# Every speed is shown with the band the benchmarks measured for its kind of card and
# precision (``speed_bands``: data/speed-bands.json, derived by benchmarks/speed_accuracy.py
# --write-bands); none where the network has layers the calibration did not check
# (``UNCHECKED_NETWORK``) or no benchmark measured that kind of card (``UNMEASURED_CARD``).
UNCHECKED_NETWORK = "network"
UNMEASURED_CARD = "card"

SIXTEEN_BIT = ("fp16", "bf16", "mixed", "mixed_bf16")
# From this share of a step spent in cuDNN's NCHW transposes the speed says so.
LAYOUT_NOTE_SHARE = 0.1
PSEUDO_HALF = "FP32 cores, 16-bit storage"


@dataclass(frozen=True)
class Path:
    flops_per_s: float  # datasheet peak × efficiency × architecture factor
    label: str
    tensor: bool


@dataclass(frozen=True)
class Rates:
    conv: Path  # convolutions
    gemm: Path  # matrix multiplies (fc, RNNs)
    bytes_per_s: float  # achievable bandwidth
    cores: float
    note: str  # why this card runs this precision slowly, or ""
    cuda_flops_per_s: float = 0.0  # the FP32 CUDA cores (depthwise convolutions)
    # SMs × clock (SM cycles per second): the instruction throughput memory-bound kernels
    # also need (``sm_cycles_per_s``).
    sm_cycles_per_s: float = 0.0

    # The older single-path interface (tests, the UI's path column).
    @property
    def flops_per_s(self) -> float:
        return self.conv.flops_per_s

    @property
    def path(self) -> str:
        return self.conv.label


_TF32_ARCHS = ("Ampere", "Ada Lovelace", "Hopper", "Blackwell")  # TF32 and BF16 tensor cores


def _tensor_peak(card: CardLike, math: str) -> tuple[float | None, bool]:
    """Dense tensor-core TFLOPS for ``math`` (tf32 | fp16 | bf16) and whether it was derived
    (the catalog has no confirmed figure); None where the card has no such tensor cores."""
    if not card.has_tensor_cores:
        return None, False
    known = {"tf32": card.tf32_tensor_tflops, "bf16": card.bf16_tensor_tflops,
             # Training accumulates in FP32: GeForce cards run that at half their
             # FP16-accumulate rate.
             "fp16": card.fp16_tensor_fp32acc_tflops}[math]
    if known:
        return known, False
    if card.fp16_tensor_tflops and (math == "fp16" or card.architecture in _TF32_ARCHS):
        # Not published for this card: the most conservative rate of its generation (GeForce
        # runs FP32 accumulate at half the FP16-accumulate rate, TF32 at a quarter).
        return card.fp16_tensor_tflops / (4 if math == "tf32" else 2), True
    return None, False


# Bytes per operand element of each tensor-core math (TF32 is stored and loaded as FP32).
_OPERAND_BYTES = {"fp16": 2, "bf16": 2, "tf32": 4}


def _slow_math(card: CardLike, math: str, peak: float) -> float:
    """How many times longer than at the card's full FP16-accumulate rate the tensor cores take
    per operand byte in ``math``: FP16 with FP32 accumulate and BF16 on GeForce Ampere and Ada
    run at half that rate (RTX 4090: 165.2 of 330.3 TFLOPS), TF32 at a quarter with 4-byte
    operands (82.6: the same bytes per second as the half-rate 16-bit math), so both take twice
    as long for the operands they are delivered (2); every math on the A100, H100, RTX A6000 and
    RTX 6000 Ada runs at the rate its operands allow (TF32 at half the FP16 rate, 1)."""
    return card.fp16_tensor_tflops / peak * 2 / _OPERAND_BYTES[math]


# Compute capabilities whose SM counts a second FP32 datapath shared with INT32 in its FP32 peak
# (GA10x, Orin, AD10x, GB20x); GA100, Hopper and B200 have dedicated FP32 units.
_DUAL_ISSUE = ("8.6", "8.7", "8.9", "12.")


def dual_issue_fp32(card: CardLike) -> bool:
    cc = getattr(card, "compute_capability", "") or ""
    return any(cc == k or (k.endswith(".") and cc.startswith(k)) for k in _DUAL_ISSUE)


def slow_fp16(card: CardLike) -> bool:
    """Pascal GeForce and friends: FP16 arithmetic at 1/64 of FP32 and no tensor cores."""
    return (not card.has_tensor_cores and card.fp16_tflops is not None
            and card.fp16_tflops < card.fp32_tflops / 2)


def sm_cycles_per_s(card: CardLike) -> float:
    """SMs × clock, from the datasheet FP32 rate (FP32 FLOP/s = 2 × lanes × SMs × clock): the
    SM cycles a second the card has for the instructions of memory-bound kernels."""
    return card.fp32_tflops * 1e12 / (2 * fp32_lanes_per_sm(card))


def sustained_clock_factor(card: CardLike, a: Assumptions) -> float:
    """The clock a card sustains under training load, as a fraction of its boost clock: its
    chip's full-power variant (``power_reference``: the most board watts per SM) runs at its
    boost clock; a variant with less power per SM runs at that clock × (its watts per SM ÷
    the reference's) ** ``power_clock_exponent`` (dynamic power ∝ clock × voltage², voltage
    rising with clock: about clock³), never above its own boost clock. An RTX A6000 (300 W,
    84 SMs) against the RTX 3090 Ti (450 W, 84 SMs): 0.87 × 1,860 = 1,625 MHz of its 1,800;
    the A100 PCIe 40GB (250 W) against the SXM4 (400 W): 0.855. 1 where the catalog lacks the
    figures."""
    ref = getattr(card, "power_reference", None)
    per_sm = getattr(card, "power_per_sm_w", None)
    boost = getattr(card, "boost_clock_mhz", None)
    if not ref or not per_sm or not boost:
        return 1.0
    f = ref[1] * min(1.0, per_sm / ref[0]) ** a.power_clock_exponent
    return min(1.0, f / boost)


def rates(card: CardLike, precision: str, a: Assumptions) -> Rates:
    """Where the card runs convolutions and GEMMs in ``precision``, and how fast."""
    clock = sustained_clock_factor(card, a)
    fp32 = card.fp32_tflops * 1e12 * clock
    cuda_eff = a.compute_efficiency * a.arch_factor(card.architecture)
    if dual_issue_fp32(card):
        cuda_eff *= a.dual_issue_fp32_efficiency
    cuda = Path(fp32 * cuda_eff, "FP32 cores", False)
    t_arch = a.tensor_arch_factor(card.architecture)
    note = ""

    def tensor(math: str, label: str, gemm: bool = False) -> Path | None:
        nonlocal note
        peak, derived = _tensor_peak(card, math)
        # tf32_efficiency is cuDNN's TF32 convolutions' (fitted on them); cuBLAS's TF32 GEMMs
        # (fully connected layers, attention's products) run the same tensor-core kernels as
        # its FP16 ones, at tensor_efficiency of their datasheet rate.
        eff = a.tf32_efficiency if math == "tf32" and not gemm else a.tensor_efficiency
        if peak and derived and not note:
            note = QT_TRANSLATE_NOOP(
                "core", "the catalog has no confirmed tensor-core rate with FP32 accumulate "
                        "for this card: estimated at half its FP16-accumulate rate")
        if peak and card.fp16_tensor_tflops and not derived and (math != "tf32" or gemm):
            # Slow tensor math (GeForce): FP16 with FP32 accumulate and BF16 at half the
            # FP16-accumulate rate, TF32 at a quarter of it with operands twice as wide. The
            # math takes ``slow`` times as long as at the full rate, the operands' delivery
            # (which costs 1/eff - 1 of the full-rate math time, per byte) does not. TF32
            # convolutions keep tf32_efficiency: fitted on cuDNN's NCHW TF32 kernels, whose
            # losses are not the operands' delivery.
            slow = _slow_math(card, math, peak)
            if slow > 1:
                eff = 1 / (1 + (1 / eff - 1) / slow)
        return Path(peak * 1e12 * clock * eff * t_arch, label, True) if peak else None

    conv = gemm = cuda
    if precision == "fp32":  # PyTorch defaults: cuDNN allows TF32, matmuls stay FP32
        conv = tensor("tf32", "tensor cores (TF32)") or cuda
    elif precision == "tf32":
        conv = tensor("tf32", "tensor cores (TF32)") or cuda
        gemm = tensor("tf32", "tensor cores (TF32)", gemm=True) or cuda
    elif precision in SIXTEEN_BIT:
        bf = precision in ("bf16", "mixed_bf16")
        tc = tensor("bf16", "tensor cores (BF16)") if bf else tensor("fp16",
                                                                     "tensor cores (FP16)")
        if tc is not None:
            conv = gemm = tc
        else:
            # cuDNN and cuBLAS compute 16-bit data in FP32 here (PyTorch accumulates in FP32),
            # through kernels slower than the FP32 ones.
            conv = gemm = Path(cuda.flops_per_s * a.pseudo_half_efficiency, PSEUDO_HALF, False)
            if slow_fp16(card):
                note = QT_TRANSLATE_NOOP(
                    "core", "FP16 arithmetic runs at 1/64 of FP32 on this card: 16-bit "
                            "training runs no faster than fp32 here, often slower; train in "
                            "fp32")
            elif bf and card.has_tensor_cores:
                note = QT_TRANSLATE_NOOP(
                    "core", "no BF16 tensor cores on this card: bf16 runs on the FP32 cores; "
                            "use fp16 mixed precision")
            elif card.has_tensor_cores:
                note = QT_TRANSLATE_NOOP(
                    "core", "the catalog has no FP16 tensor-core rate for this card: 16-bit "
                            "work is estimated at the FP32 rate")
            else:
                note = QT_TRANSLATE_NOOP(
                    "core", "no tensor cores: 16-bit training runs no faster than fp32 here")
    cores = card.cuda_cores
    if not cores:  # lanes from the FP32 rate at the boost clock (``clock`` is a factor of it)
        cores = fp32 / (2 * (card.boost_clock_mhz or 1500) * 1e6)
    # Older architectures reach less of their bandwidth too (the article; Kepler Teslas run ECC).
    # And each chip reaches its own share of its datasheet bandwidth (streaming_factor).
    bw = (card.bandwidth_gbs * 1e9 * a.memory_efficiency * a.arch_factor(card.architecture)
          * a.streaming_factor(getattr(card, "compute_capability", None)))
    return Rates(conv, gemm, bw, float(cores), note, cuda.flops_per_s,
                 sm_cycles_per_s(card) * clock)


def best_precision(card: CardLike) -> str:
    """The training precision this card runs well: fp16 mixed precision where it has FP16
    tensor cores, else fp32 (Pascal GeForce's FP16 runs at 1/64 rate)."""
    return "mixed" if _tensor_peak(card, "fp16")[0] else "fp32"


@dataclass(frozen=True, eq=False)
class Workload:
    """Per-layer FLOPs, bytes and parallelism of one iteration (batch included)."""

    flops: np.ndarray  # forward (+ backward when training), per layer
    nbytes: np.ndarray
    work: np.ndarray  # independent outputs per kernel (batch included)
    launches: np.ndarray  # kernel launches per iteration
    batch: int
    train: bool
    kind: np.ndarray = None  # CONV, WINOGRAD, … per layer
    optimizer_bytes: float = 0.0  # the optimizer step reads and writes these
    optimizer_launches: float = 0.0
    checked: bool = True  # every layer kind is one the calibration checked
    host_ops: float = 0.0  # operators the framework dispatches on the CPU per iteration
    input_bytes: float = 0.0  # training inputs the host delivers per iteration (fp32)
    # Per layer and pass (forward, data gradient, weight gradient), the fraction of the GEMM
    # tiles' work that is real with a channel tile of 128, 64 and 32 (``_tile_fill``); NaN where
    # the pass does not run; None: every layer fills its tiles.
    tile_fill: np.ndarray = None
    # Per layer, the bytes cuDNN moves converting a convolution's NCHW activations to the NHWC
    # layout its tensor-core kernels take and back (``_layout_bytes``); paid only on a 16-bit
    # tensor-core path (``transposes_nchw``). None: no conversions (channels-last tensors, or
    # no dense convolutions).
    layout_bytes: np.ndarray = None
    # Per layer, the bytes a batch norm kernel that applies the following ReLU (and the residual
    # add before it) saves (``_fusion_savings``); saved only where the framework fuses them
    # (``Assumptions.fused_bn_activation``). None: nothing to fuse.
    fusion_bytes: np.ndarray = None
    element_bytes: float = 4.0  # bytes per activation element (the precision's)
    # Per layer, the elements of eager attention's scores tensor (batch × heads × queries ×
    # keys) and of the head-layout copies around its products (q, k, v and the context made
    # contiguous, forward and backward): memory-bound kernels of their own, after the layer's
    # products (``_side_times``). None: no eager attention.
    attention_scores: np.ndarray = None
    attention_copies: np.ndarray = None
    # The optimizer step as a per-tensor loop (``Assumptions.optimizer_for_loop``): bytes moved
    # and kernels launched.
    optimizer_loop_bytes: float = 0.0
    optimizer_loop_launches: float = 0.0
    # Which benchmark rows the band comes from: CNN or TRANSFORMER; "" (``checked`` False):
    # layers no benchmark checked.
    network_class: str = CNN

    @cached_property
    def _tiles(self) -> np.ndarray:
        n = len(self.flops)
        return self.tile_fill if self.tile_fill is not None else np.ones((n, 9))

    @cached_property
    def distinct(self) -> tuple[np.ndarray, ...]:
        """The layers that differ (kind, flops, bytes, work, launches) and how many of each: a
        deep network repeats its blocks, and every card's times are the same for layers alike."""
        kind = self.kind if self.kind is not None else np.full(len(self.flops), CONV)
        zeros = np.zeros(len(self.flops))
        layout = self.layout_bytes if self.layout_bytes is not None else zeros
        fusion = self.fusion_bytes if self.fusion_bytes is not None else zeros
        scores = self.attention_scores if self.attention_scores is not None else zeros
        copies = self.attention_copies if self.attention_copies is not None else zeros
        table = np.vstack([np.stack([kind.astype(np.float64), self.flops, self.nbytes,
                                     self.work, self.launches, layout, fusion, scores, copies]),
                           np.nan_to_num(self._tiles, nan=-1.0).T])
        uniq, counts = np.unique(table, axis=1, return_counts=True)
        tiles = uniq[9:].T
        tiles = np.where(tiles < 0, np.nan, tiles)
        return (uniq[0].astype(np.int64), uniq[1], uniq[2], uniq[3], uniq[4],
                counts.astype(np.float64), tiles, uniq[5], uniq[6], uniq[7], uniq[8])


def _ints(v) -> tuple:
    return tuple(v) if isinstance(v, (tuple, list)) else (v,)


@lru_cache(maxsize=4096)
def _conv_kind_of(kind: str, groups: int, cin: int, kernel, stride, dilation) -> int:
    if groups > 1:
        return DEPTHWISE if groups == cin else GROUPED
    # cuDNN's Winograd kernels take 3×3 and 5×5 stride-1 filters (WINOGRAD_NONFUSED, 5.1+).
    if (kind == "conv2d" and len(set(_ints(kernel)) & {3, 5}) == 1
            and len(set(_ints(kernel))) == 1 and set(_ints(stride)) == {1}
            and set(_ints(dilation)) == {1}):
        return WINOGRAD
    return CONV


def _conv_kind(spec, in_shape) -> int:
    p = spec.params
    return _conv_kind_of(spec.kind, int(p.get("groups", 1) or 1), in_shape[0] if in_shape else 0,
                         _freeze(p.get("kernel", 1)), _freeze(p.get("stride", 1)),
                         _freeze(p.get("dilation", 1)))


def _freeze(v):
    return tuple(v) if isinstance(v, list) else v


# GEMM tiles of cuDNN's implicit-GEMM and Winograd kernels (and cuBLAS's): 128 along the
# pixels (batch × height × width) and the filter taps; 128, 64 or 32 along the channels, the
# narrower ones reusing each loaded element less (``Assumptions.narrow_tile_efficiency``).
PIXEL_TILE = 128
CHANNEL_TILES = (128, 64, 32)


def _fill(n: float, tile: int) -> float:
    """The fraction of ``ceil(n / tile)`` tiles' work that is real (tile quantization)."""
    return n / (tile * -(-n // tile)) if n > 0 else 1.0


@lru_cache(maxsize=8192)
def _tile_fill(cin: int, cout: int, taps: int, pixels_in: int, pixels_out: int,
               dgrad: bool) -> tuple[float, ...]:
    """Tile fill of a dense convolution's three GEMMs for each channel tile (128, 64, 32):
    forward (output channels × output pixels), data gradient (input channels × input
    pixels; NaN for the first layer, whose input needs no gradient) and weight gradient
    (output channels × input channels·taps). Inception's 48-, 80-, 96- and 192-channel
    convolutions waste a quarter to almost half of a tile; ResNet's 64·2ⁿ channels fill a
    tile of their width."""
    out = []
    for tile in CHANNEL_TILES:
        out += [_fill(cout, tile) * _fill(pixels_out, PIXEL_TILE),
                _fill(cin, tile) * _fill(pixels_in, PIXEL_TILE) if dgrad else float("nan"),
                _fill(cout, tile) * _fill(cin * taps, PIXEL_TILE)]
    return tuple(out)


# Bytes each kind of layer moves, as multiples of its input and its output tensor: (forward
# reads/writes of the input, of the output; backward the same), read off PyTorch's eager CUDA
# kernels for training (aten/src/ATen/native/cuda; cuDNN for batch norm). Not guesses: they
# count tensors, as the FLOP counts count multiply-adds. A kind not listed moves its input and
# output once forward and twice backward (gradient in, gradient out, the saved tensor).
_TRAFFIC = {
    "input": (0, 0, 0, 0),
    "data_input": (0, 0, 0, 0),  # another input: nothing moves (planner/core/layers/ops.py)
    "flatten": (0, 0, 0, 0),
    "view": (0, 0, 0, 0),
    # x read, y written; backward reads dy and the saved x (or y), writes dx.
    "activation": (1, 1, 2, 1),
    # Statistics pass and normalise pass both read x; backward: a reduction pass over dy and
    # x, then an elementwise pass reading dy and x and writing dx.
    "batchnorm": (2, 1, 3, 2),
    "layernorm": (2, 1, 3, 2),
    "rmsnorm": (2, 1, 3, 2),
    # Both inputs read, the sum written; backward hands the same gradient to both inputs (no
    # kernel: the autograd engine sums gradients where a tensor fans out, counted there).
    "add": (1, 1, 0, 0),
    # The pieces copied into the output; backward splits the gradient back into the pieces:
    # TensorFlow's ConcatGrad slices them (a copy: read once, written once; the measured
    # Inception rows are TensorFlow's). PyTorch hands on views that the next kernel reads
    # strided, so there this overstates concat by one copy (about 1 % of Inception-v3).
    "concat": (1, 1, 1, 1),
    # Max pooling writes int64 indices beside its output (twice an fp32 output's bytes, counted
    # as one more output); backward reads dy and the indices and writes dx.
    "maxpool": (1, 2, 1, 2),
    "avgpool": (1, 1, 1, 1),
    "adaptive_avgpool": (1, 1, 1, 1),
    "global_avgpool": (1, 1, 1, 1),
    # x read, y and the mask written; backward reads dy and the mask, writes dx.
    "dropout": (1, 2, 1, 2),
}
_DEFAULT_TRAFFIC = (1, 1, 2, 2)


def _fan_out(analysis: Analysis) -> np.ndarray:
    """How many later layers read each layer's output."""
    specs = analysis.draft.layers
    index = {spec.name: i for i, spec in enumerate(specs)}
    uses = np.zeros(len(specs), dtype=np.float64)
    for i in range(1, len(specs)):
        spec = specs[i]
        for name in ((spec.source_name or specs[i - 1].name),) + tuple(spec.ref_names):
            j = index.get(name)
            if j is not None:
                uses[j] += 1
    return uses


def workload(analysis: Analysis, setup: Setup) -> Workload:
    """Everything the roofline needs, computed once per plan and reused for every card."""
    p = prepare(analysis)
    b = setup.batch_size
    prec = setup.precision
    abpe, wbpe = ACT_BYTES[prec], WEIGHT_BYTES[prec]
    n = len(analysis.layers)
    traffic = np.array([_TRAFFIC.get(info.kind, _DEFAULT_TRAFFIC) for info in analysis.layers],
                       dtype=np.float64).reshape(n, 4)
    # Views move nothing.
    moves = np.array([not info.result.view for info in analysis.layers], dtype=np.float64)
    traffic *= moves[:, None]
    ins = p.in_elems.astype(np.float64) * b * abpe
    outs = p.out_numel.astype(np.float64) * b * abpe
    w = p.weight_elems * wbpe
    par = np.array([(info.result.parallel_elements or max(int(p.out_numel[i]), 1))
                    for i, info in enumerate(analysis.layers)], dtype=np.float64)
    steps = np.array([info.result.sequential_steps for info in analysis.layers],
                     dtype=np.float64)
    specs = analysis.draft.layers
    kind = np.full(len(specs), MEMORY, dtype=np.int8)
    tiles = np.ones((len(specs), 9))
    dgrads = np.zeros(len(specs), dtype=bool)
    for i, info in enumerate(analysis.layers):
        if info.kind in _CONV_KINDS:
            kind[i] = _conv_kind(specs[i], info.in_shapes[0] if info.in_shapes else ())
            dgrads[i] = i > 1 or bool(specs[i].ref_names)
            if kind[i] in (CONV, WINOGRAD) and info.in_shapes and info.out_shape:
                tiles[i] = _conv_tile_fill(specs[i], info, b, dgrads[i])
        elif info.kind in _GEMM_KINDS or info.kind in _TRANSFORMER_GEMM_KINDS:
            kind[i] = GEMM
        elif info.kind in _TRANSFORMER_CONV_KINDS:
            kind[i] = CONV
    train = setup.mode == "train"
    fwd_repeats = 2 if (train and setup.checkpointing) else 1
    flops_fwd = p.flops_fwd.astype(np.float64) * b
    flops = flops_fwd * fwd_repeats
    nbytes = (traffic[:, 0] * ins + traffic[:, 1] * outs + w) * fwd_repeats
    launches = steps * fwd_repeats
    opt_bytes = 0.0
    opt_launches = 0.0
    uses = None  # readers of each layer's output (training computes it)
    # One dispatch per layer forward, plus autocast's cast of each weight to 16 bits.
    gemm_like = int(np.isin(kind, (CONV, WINOGRAD, GROUPED, DEPTHWISE, GEMM)).sum())
    host_ops = float(len(specs) - 1) * fwd_repeats
    if prec in ("mixed", "mixed_bf16"):
        host_ops += gemm_like * fwd_repeats
    if train:
        flops = flops + p.flops_bwd.astype(np.float64) * b
        nbytes = nbytes + traffic[:, 2] * ins + traffic[:, 3] * outs + 2 * w
        # Where an output feeds several layers, backward sums their gradients into it: each
        # extra reader costs one add (two gradients read, the sum written).
        uses = _fan_out(analysis)
        extra = np.maximum(uses - 1, 0)
        accumulate = extra * 3 * p.out_numel.astype(np.float64) * b * abpe
        nbytes = nbytes + accumulate
        launches = launches + 2 * steps + extra
        # Frozen weights (LoRA's base) get no optimizer step.
        trainable = [info.result.parameters - info.result.frozen_parameters
                     for info in analysis.layers]
        params = float(sum(trainable))
        states = OPTIMIZER_STATES[setup.optimizer]
        master = MASTER_BYTES[prec]
        # Weights (and the fp32 master copy) read and written, gradients read, each state
        # read and written; with a loss scaler the gradients are unscaled (read + write) first.
        per_param = (2 * wbpe + 2 * master + abpe + 2 * states * STATE_BYTES[prec]
                     + (2 * abpe if prec == "mixed" else 0))
        opt_bytes = params * per_param
        # foreach optimizers: a few kernels per group of tensors; one per tensor is the bound.
        opt_launches = float(sum(1 for t in trainable if t > 0))
        # Autograd runs one node per layer; a foreach optimizer (and the loss scaler) a few.
        host_ops += float(len(specs) - 1) + 10
    scores, copies = _eager_attention(analysis, b, train, fwd_repeats)
    loop_bytes = loop_launches = 0.0
    if train:
        passes, kernels = _FOR_LOOP_STEP.get(setup.optimizer, (3, 1))
        # Each pass reads or writes a whole fp32 tensor (the master weights, their gradients,
        # the states); the loss scaler's unscale (mixed) is its own pass over the gradients.
        loop_bytes = params * (passes * 4 + (2 * abpe if prec == "mixed" else 0))
        loop_launches = float(sum(1 for t in trainable if t > 0)) * kernels
    layout = _layout_bytes(kind, ins + outs, dgrads, train, fwd_repeats)
    fusion = _fusion_savings(analysis, outs, train, fwd_repeats, uses)
    fusion = np.minimum(fusion, nbytes)
    # The input layer does no work.
    flops[0] = nbytes[0] = launches[0] = layout[0] = fusion[0] = 0
    network_class = _network_class(analysis)
    checked = bool(network_class)
    input_bytes = float(p.out_numel[0]) * 4 * b if train else 0.0
    if not train:
        tiles[:, 1::3] = tiles[:, 2::3] = np.nan
    return Workload(flops, nbytes, par * b, launches, b, train, kind, opt_bytes, opt_launches,
                    checked, host_ops, input_bytes, tiles, layout if layout.any() else None,
                    fusion if fusion.any() else None, float(abpe),
                    scores if scores.any() else None, copies if copies.any() else None,
                    loop_bytes, loop_launches, network_class)


def _network_class(analysis: Analysis) -> str:
    """CNN where every layer is of a kind the calibration checked, TRANSFORMER where the
    others are transformer kinds the BERT rows checked (attention only eager), else ""."""
    kinds = {info.kind for info in analysis.layers}
    if kinds <= CHECKED_KINDS:
        return CNN
    eager = all(spec.params.get("implementation") == "eager"
                for spec, info in zip(analysis.draft.layers, analysis.layers)
                if info.kind == "attention")
    if eager and kinds <= CHECKED_KINDS | TRANSFORMER_KINDS:
        return TRANSFORMER
    return ""


# Eager attention's kernels besides its two products, per layer and step: scale, mask add,
# softmax, dropout forward; dropout, softmax, scale backward; the head-layout copies.
_EAGER_ATTENTION_KERNELS = 12
# Inference: the product written, scale, mask add and softmax, read by the second product.
_EAGER_FORWARD_PASSES = 8
_MASK_BYTES = 1  # dropout's mask: one byte per element, written forward, read backward
# The optimizer step as a loop over parameter tensors, per optimizer: (passes over an fp32
# tensor of the parameter's size, kernels) per tensor, counted from the loop's operations
# (DeepLearningExamples' BertAdam.step for Adam; ``Assumptions.optimizer_for_loop``).
_FOR_LOOP_STEP = {"sgd": (3, 1), "momentum": (8, 3), "adam": (32, 15), "adamw": (32, 15)}


def _eager_attention(analysis: Analysis, batch: int, train: bool,
                     fwd_repeats: int) -> tuple[np.ndarray, np.ndarray]:
    """Per layer, the elements of eager attention's scores (batch × heads × queries × keys)
    and of its head-layout copies: the q, k and v views multiplied per head are copied
    contiguous (matmul's reshape), and the context back to sequence-major, each read and
    written forward and again backward (their gradients). 0 for other layers and for the
    fused kernels (flash, memory-efficient), which keep the scores on chip."""
    n = len(analysis.layers)
    scores, copies = np.zeros(n), np.zeros(n)
    for i, (spec, info) in enumerate(zip(analysis.draft.layers, analysis.layers)):
        if info.kind != "attention" or spec.params.get("implementation") != "eager":
            continue
        shapes = info.in_shapes
        heads = int(spec.params.get("heads") or 0)
        if heads <= 0 or len(shapes) < 3 or len(shapes[0]) != 2:
            continue
        t_q, t_k = int(shapes[0][0]), int(shapes[1][0])
        scores[i] = batch * heads * t_q * t_k * fwd_repeats
        moved = sum(math.prod(int(d) for d in s) for s in shapes[:3]) + \
            math.prod(int(d) for d in info.out_shape)
        copies[i] = batch * moved * 2 * (fwd_repeats + (1 if train else 0))
    return scores, copies


def _layout_bytes(kind: np.ndarray, activations: np.ndarray, dgrad: np.ndarray, train: bool,
                  fwd_repeats: int) -> np.ndarray:
    """Bytes cuDNN moves converting NCHW activations to the NHWC layout of its tensor-core
    kernels and back, per layer: each convolution call reads its NCHW activation operands and
    writes them transposed, and writes its result back in NCHW (cuDNN developer guide, "Tensor
    Core operations": NCHW tensors are transposed around NHWC kernels; NVIDIA's deep learning
    performance guide, convolutional layers). Forward (input in, output out), data gradient
    (output gradient in, input gradient out) and weight gradient (input and output gradient
    in): each moves input and output once in each direction. Dense and grouped convolutions
    (depthwise ones run on the CUDA cores, in any layout)."""
    conv = np.isin(kind, (CONV, WINOGRAD, GROUPED))
    calls = np.full(len(kind), float(fwd_repeats))
    if train:
        calls = calls + 1 + dgrad
    return np.where(conv, 2 * calls * activations, 0.0)


def _fusion_savings(analysis: Analysis, outs: np.ndarray, train: bool, fwd_repeats: int,
                    uses: np.ndarray | None = None) -> np.ndarray:
    """Bytes saved per layer where batch norm's kernel applies the ReLU after it, and the
    residual add between them (cuDNN's fused batch norm, MXNet's ``--fuse-bn-relu`` and
    ``--fuse-bn-add-relu``). A ReLU whose input is a batch norm (or a residual add of one) read
    by nothing else costs nothing of its own forward (the batch norm writes the activated
    output) and, backward, only the read of its output for the mask: it saves its input and
    output forward, its input twice backward less that read. The fused add saves the write of
    its sum and the read of the batch norm's output (the batch norm's kernel reads the
    shortcut instead, as the add did)."""
    specs = analysis.draft.layers
    n = len(specs)
    saved = np.zeros(n)
    kinds = np.array([info.kind for info in analysis.layers])
    bn = kinds == "batchnorm"
    if not bn.any():
        return saved
    uses = _fan_out(analysis) if uses is None else uses
    index = {spec.name: i for i, spec in enumerate(specs)}
    # Each layer's one input (-1: it has several, or none known).
    src = np.full(n, -1)
    for i in np.flatnonzero((kinds == "activation") | (kinds == "add")):
        if i > 0 and not specs[i].ref_names:
            src[i] = index.get(specs[i].source_name or specs[i - 1].name, -1)
    relu = np.array([k == "activation" and spec.params.get("function") == "relu"
                     for k, spec in zip(kinds, specs)])
    alone = (src >= 0) & (uses[np.maximum(src, 0)] == 1)
    after_bn = relu & alone & bn[np.maximum(src, 0)]
    # A residual add of a batch norm read by nothing else, then the ReLU.
    adds = relu & alone & (kinds[np.maximum(src, 0)] == "add")
    for i in np.flatnonzero(adds):
        j = int(src[i])
        names = ((specs[j].source_name or specs[j - 1].name),) + tuple(specs[j].ref_names)
        if any(bn[k] and uses[k] == 1 for k in (index.get(m, -1) for m in names) if k >= 0):
            saved[j] = 2 * outs[j] * fwd_repeats
            after_bn[i] = True
    saved[after_bn] = (2 * outs[after_bn] * fwd_repeats
                       + (2 * outs[after_bn] if train else 0))
    return saved


def _conv_tile_fill(spec, info, batch: int, dgrad: bool) -> tuple[float, ...]:
    shape_in, shape_out = info.in_shapes[0], info.out_shape
    kernel = _ints(spec.params.get("kernel", 1))
    taps = math.prod(kernel) if len(kernel) > 1 else kernel[0] ** (len(shape_out) - 1)
    return _tile_fill(int(shape_in[0]), int(shape_out[0]), max(int(taps), 1),
                      batch * math.prod(shape_in[1:]), batch * math.prod(shape_out[1:]), dgrad)


def tile_efficiency(fill: np.ndarray, a: Assumptions) -> np.ndarray:
    """Per layer, the fraction of the path's rate a convolution reaches for the shape of its
    GEMMs: each pass takes the best channel tile (a narrower one loses
    ``narrow_tile_efficiency`` per halving), the passes run one after another (harmonic
    mean, equal FLOPs each)."""
    e = a.narrow_tile_efficiency
    per_tile = fill.reshape(len(fill), 3, 3) * np.array([1.0, e, e * e])[None, :, None]
    best = per_tile.max(axis=1)  # layers × passes (NaN where a pass does not run)
    runs = ~np.isnan(best)
    return runs.sum(axis=1) / np.where(runs, 1.0 / np.where(runs, best, 1.0), 0.0).sum(axis=1)


@dataclass(frozen=True)
class SpeedEstimate:
    card: str
    time_per_iter_s: float
    samples_per_s: float
    compute_bound_fraction: float  # share of the time in compute-bound layers
    utilisation: float  # FLOP-weighted mean utilisation
    path: str
    note: str = ""  # why this card runs the precision slowly (translatable source), or ""
    host_bound: bool = False  # the CPU issuing kernels is slower than the GPU running them
    # What the benchmarks measured against this figure for the card's kind and precision
    # (``speed_bands.band_for``); None with ``unbanded`` saying why.
    band: Band | None = None
    # Share of the iteration that cuDNN's NCHW layout transposes cost (0 in channels-last or
    # without tensor-core convolutions): what channels_last would save.
    layout_share: float = 0.0
    unbanded: str = ""  # why there is no band: UNCHECKED_NETWORK or UNMEASURED_CARD

    @property
    def error_band(self) -> float | None:
        """The band's wider side as a fraction (0.45), or None: the one figure of the exports'
        ``samples_per_s_error``."""
        return self.band.magnitude if self.band is not None else None

    def band_text(self) -> str:
        """'±14 %', '−14 / +45 %', or '' where there is no band (``unbanded``)."""
        return self.band.text() if self.band is not None else ""


def transposes_nchw(path: Path) -> bool:
    """Whether a convolution on this path pays cuDNN's NCHW↔NHWC transposes when its tensors
    are NCHW: 16-bit (FP16, BF16) tensor-core convolutions do (their kernels take NHWC; cuDNN
    transposes around them: cuDNN developer guide, "Tensor Transformations"; NVIDIA's
    convolutional-layers performance guide, "Tensor Layouts In Memory"); TF32 ones run cuDNN's
    NCHW kernels, which NVIDIA found as fast as NHWC or faster on Ampere (TensorFlow PR 56744,
    2022: NCHW stays the default for fp32/TF32 on Ampere, NHWC for fp16; PR 58054: NHWC gains
    nothing yet in cuDNN's TF32 weight gradient), and the FP32 CUDA cores run NCHW natively."""
    return path.tensor and not path.label.endswith("(TF32)")


def _per_kind(r: Rates, a: Assumptions) -> tuple[tuple[float, ...], tuple[float, ...] | None]:
    """FLOP/s by kind of work (CONV, WINOGRAD, GROUPED, DEPTHWISE, GEMM, MEMORY) on the path the
    precision takes, and where cuDNN may take the CUDA cores instead (TF32 is allowed, not
    forced), the same on the CUDA cores; None where there is no such choice."""
    conv_rate, gemm_rate = r.conv.flops_per_s, r.gemm.flops_per_s
    cuda = r.cuda_flops_per_s
    alternative = None
    if r.conv.tensor:
        wino_rate = conv_rate
        if r.conv.label.endswith("(TF32)"):
            # cuDNN picks the fastest algorithm it has for each convolution (DLE and most
            # training scripts set cudnn.benchmark): TF32 on the tensor cores or FP32 on the CUDA
            # cores, Winograd for 3×3. On GeForce Ampere and newer the dense TF32 rate equals
            # the FP32 rate (GA102 and AD102 whitepapers), so there FP32 kernels often win.
            alternative = (cuda, cuda * a.winograd_speedup, cuda * a.grouped_conv_efficiency,
                           cuda, gemm_rate, np.inf)
    elif r.conv.label == PSEUDO_HALF:
        # 16-bit data on FP32 units: cuDNN's pseudo-half convolutions are implicit GEMM, without
        # the Winograd kernels fp32 gets (why mixed precision is no faster there).
        wino_rate = conv_rate
    else:
        wino_rate = conv_rate * a.winograd_speedup
    # Depthwise convolutions have no reduction for tensor cores to do: CUDA cores, any
    # precision; they are memory-bound (``_bandwidth_by_kind``).
    return (conv_rate, wino_rate, conv_rate * a.grouped_conv_efficiency, cuda, gemm_rate,
            np.inf), alternative


def _bandwidth_by_kind(a: Assumptions) -> np.ndarray:
    """Fraction of the achievable bandwidth each kind of work reaches (CONV, WINOGRAD, GROUPED,
    DEPTHWISE, GEMM, MEMORY): depthwise convolutions (cuDNN's and PyTorch's own kernels, and
    their weight gradient, a reduction over batch and space) reach a fraction of it."""
    return np.array([1.0, 1.0, 1.0, a.depthwise_bandwidth_efficiency, 1.0, 1.0])


def iteration_times(w: Workload, cards, precision: str,
                    a: Assumptions | None = None) -> list[SpeedEstimate]:
    """``iteration_time`` for many cards at once (the fit table: one array per card and
    layer instead of a loop over cards)."""
    a = a or Assumptions()
    cards = list(cards)
    if not cards:
        return []
    rs = [rates(c, precision, a) for c in cards]
    kind, flops, nbytes, work, launches, count, fill, layout, fusion, scores, copies = \
        w.distinct
    if a.fused_bn_activation:
        nbytes = nbytes - fusion
    paths = [_per_kind(r, a) for r in rs]
    per_kind = np.array([p for p, _ in paths])  # cards × kinds
    cores = np.array([r.cores for r in rs])[:, None]
    bw = np.array([r.bytes_per_s for r in rs])[:, None]
    util = np.minimum(1.0, work[None, :] / (cores * a.saturation_items_per_core))
    shape = util * tile_efficiency(fill, a)[None, :]
    memory_rate = bw * _bandwidth_by_kind(a)[kind] * np.sqrt(util)
    t_floor = launches * a.kernel_launch_s
    # Memory-bound kernels (normalisation, activations, pooling, adds, the layout transposes)
    # also execute instructions for every element they read or write: their time is the larger
    # of the bytes at bandwidth and the elements at the SMs' instruction rate.
    sm_rate = np.array([r.sm_cycles_per_s for r in rs])[:, None] * np.sqrt(util)
    cycles = a.memory_sm_cycles_per_element / w.element_bytes  # per byte moved
    sm_bytes = np.where(kind == MEMORY, nbytes, 0.0)
    # Depthwise convolutions (forward, data and weight gradient) read one input element per
    # multiply-accumulate from the SM's caches, without the reuse across output channels that
    # dense convolutions have: SM-cycle-bound on that traffic (``depthwise_sm_cycles_per_byte``).
    dw_bytes = np.where(kind == DEPTHWISE, flops / 2 * w.element_bytes, 0.0)

    def layer_times(rates_by_kind: np.ndarray, extra_bytes: np.ndarray, rows=slice(None)):
        with np.errstate(divide="ignore", invalid="ignore"):
            t_c = np.where(flops > 0, flops / (rates_by_kind[:, kind] * shape[rows]), 0.0)
        t_m = np.maximum(nbytes / memory_rate[rows], sm_bytes * cycles / sm_rate[rows])
        t_m = np.maximum(t_m, dw_bytes * a.depthwise_sm_cycles_per_byte / sm_rate[rows])
        t = np.maximum(np.maximum(t_c, t_m), t_floor)
        # cuDNN's NCHW↔NHWC transposes are kernels of their own, before and after the
        # convolution's: their time adds to it, it does not hide under its compute (on the
        # RTX 3090, timm's NCHW rows minus its channels-last ones, 38-200 ms an iteration,
        # match these bytes at bandwidth).
        t_layout = np.maximum(extra_bytes / memory_rate[rows],
                              extra_bytes * cycles / sm_rate[rows])
        t = t + t_layout
        t_m = t_m + t_layout
        if side is not None:  # eager attention's own memory-bound kernels, one after another
            t = t + side[rows]
            t_m = t_m + side[rows]
        return t, t_c, t_m

    # Eager attention: the scores' passes and the head-layout copies, at the memory-bound
    # kernels' bandwidth and instruction rate (``Assumptions.eager_attention_passes``), each
    # kernel at least the launch floor.
    side = None
    if scores.any() or copies.any():
        passes, mask = ((a.eager_attention_passes, 2 * _MASK_BYTES) if w.train
                        else (_EAGER_FORWARD_PASSES, 0))
        side_bytes = scores * (passes * w.element_bytes + mask) + copies * w.element_bytes
        side_rate = bw * _bandwidth_by_kind(a)[MEMORY] * np.sqrt(util)
        side = np.maximum(np.maximum(side_bytes / side_rate, side_bytes * cycles / sm_rate),
                          np.where(side_bytes > 0, _EAGER_ATTENTION_KERNELS * a.kernel_launch_s,
                                   0.0))

    # A 16-bit tensor-core convolution on NCHW tensors pays cuDNN's layout conversions; a TF32
    # one runs cuDNN's NCHW kernels (``transposes_nchw``).
    nchw = a.memory_format == "nchw"
    tensor = np.array([transposes_nchw(r.conv) for r in rs])[:, None]
    t, t_compute, t_memory = layer_times(per_kind, np.where(tensor & nchw, layout, 0.0))
    alt = [k for k, (_, other) in enumerate(paths) if other is not None]
    if alt:  # the CUDA cores where they are faster (TF32 allowed, not forced)
        t2, c2, m2 = layer_times(np.array([paths[k][1] for k in alt]), np.zeros_like(layout),
                                 alt)
        faster = t2 < t[alt]
        t[alt] = np.where(faster, t2, t[alt])
        t_compute[alt] = np.where(faster, c2, t_compute[alt])
        t_memory[alt] = np.where(faster, m2, t_memory[alt])
    host = w.host_ops * a.cpu_launch_s
    if a.input_pipeline_gbs > 0:
        host = max(host, w.input_bytes / (a.input_pipeline_gbs * 1e9))

    opt_bytes, opt_launches = w.optimizer_bytes, w.optimizer_launches
    if a.optimizer_for_loop and w.optimizer_loop_launches:
        opt_bytes, opt_launches = w.optimizer_loop_bytes, w.optimizer_loop_launches
        # The host dispatches every one of the loop's kernels.
        host = max(host, (w.host_ops + opt_launches) * a.cpu_launch_s)

    def step(t_layers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        gpu = (t_layers * count).sum(axis=1)
        if w.train:
            gpu = gpu + opt_bytes / bw[:, 0] + opt_launches * a.kernel_launch_s
        return gpu, np.maximum(gpu, host)

    layout_share = np.zeros(len(cards))
    if nchw and layout.any() and tensor.any():  # what channels-last would run at
        t_last = layer_times(per_kind, np.zeros_like(layout))[0]
        if alt:
            t_last[alt] = np.minimum(t_last[alt], t2)
        _, total_last = step(t_last)
    gpu, total = step(t)
    t = t * count
    if nchw and layout.any() and tensor.any():
        layout_share = np.where(total > 0, 1 - total_last / np.where(total > 0, total, 1), 0.0)
    compute_share = np.where(gpu > 0, np.where(t_compute >= t_memory, t, 0.0).sum(axis=1)
                             / np.where(gpu > 0, gpu, 1.0), 0.0)
    flop_total = float((flops * count).sum())
    mean_util = ((util * flops * count).sum(axis=1) / flop_total if flop_total
                 else np.ones(len(cards)))
    out = []
    for k, (card, r) in enumerate(zip(cards, rs)):
        tk = float(total[k])
        path = r.conv.label if r.conv == r.gemm else f"{r.conv.label}; fc: {r.gemm.label}"
        band = (band_for(getattr(card, "compute_capability", "") or "", precision,
                         band_path(r, w.network_class), w.network_class)
                if w.checked else None)
        why = "" if band is not None else UNCHECKED_NETWORK if not w.checked else UNMEASURED_CARD
        out.append(SpeedEstimate(card.name, tk, w.batch / tk if tk else 0.0,
                                 float(compute_share[k]), float(mean_util[k]), path, r.note,
                                 host > float(gpu[k]), band, float(layout_share[k]), why))
    return out


def band_path(r: Rates, network_class: str) -> str:
    """The hardware path a band is keyed by: the convolutions' for a CNN, the GEMMs' for a
    transformer (its work is matrix products)."""
    return r.gemm.label if network_class == TRANSFORMER else r.conv.label


def iteration_time(w: Workload, card: CardLike, precision: str,
                   a: Assumptions | None = None) -> SpeedEstimate:
    return iteration_times(w, [card], precision, a)[0]


def tokens_per_s(estimate: SpeedEstimate, tokens_per_sample: int | None) -> float | None:
    """Training or inference throughput in tokens per second for a draft whose samples are
    sequences of ``tokens_per_sample`` tokens (None for others)."""
    if not tokens_per_sample:
        return None
    return estimate.samples_per_s * tokens_per_sample


def speed_notes(estimate: SpeedEstimate) -> list[str]:
    """What the user should know about a speed beyond its figure: core texts, each
    translatable (``tr_core``)."""
    parts = []
    if estimate.note:
        parts.append(estimate.note)
    if estimate.host_bound:
        parts.append(QT_TRANSLATE_NOOP(
            "core", "limited by the host (the CPU dispatching kernels or preparing inputs), "
                    "not by the card"))
    if estimate.layout_share >= LAYOUT_NOTE_SHARE:
        parts.append(QT_TRANSLATE_NOOP(
            "core", "convolutions in PyTorch's default NCHW layout: cuDNN transposes their "
                    "activations around its tensor-core kernels, a large part of this step; "
                    "channels_last (model.to(memory_format=torch.channels_last)) runs "
                    "faster. Assumption: memory_format"))
    if estimate.band is None and estimate.unbanded == UNMEASURED_CARD:
        parts.append(QT_TRANSLATE_NOOP(
            "core", "no benchmark measured training throughput on this kind of card (its "
                    "compute capability) in this precision: no error band"))
    elif estimate.band is None:
        parts.append(QT_TRANSLATE_NOOP(
            "core", "this network has layers the speed calibration did not check: no error "
                    "band"))
    return parts
