"""The memory estimate: every term separately, every guess in one ``Assumptions`` object.

The peak comes from a simulated step (``planner.core.timeline``): forward, loss, backward in
reverse and the optimizer step as tensor allocations and frees. The breakdown is what is alive
at the peak: weights, autocast's 16-bit weight copies, the gradients that exist by then,
optimizer state, activations, gradient buffers and temporaries, the workspace held at that
point, and the caching allocator's block rounding; plus the CUDA context and libraries.
Weights, gradients and activations are exact tensor bytes.

``peak`` = context + libraries + what tensors occupy at the peak (torch.cuda.max_memory_allocated,
blocks rounded when the allocator model is on). ``reserved_bytes`` replays the caching
allocator (``planner.core.allocator``) for max_memory_reserved; ``nvidia_smi_bytes`` adds the
context. Bytes are Python ints at the boundary; numpy arrays are int64 unless the step says a sum
could overflow, in which case they hold Python ints.

The article's own accounting ("classic": activation plus error per layer) is computed alongside,
so a reader can check the article's worked example.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from functools import cached_property, partial
from operator import itemgetter
from typing import Any, NamedTuple

import numpy as np

from planner.core.layers import numel
from planner.core.layers.shapes import WORKSPACE_ALGORITHMS, Workspace
from planner.core.network import (
    MAX_BATCH,
    MIXED_PRECISIONS,
    Analysis,
    InvalidDraft,
    NetworkDraft,
    Setup,
    analyze,
)
from planner.core.timeline import (  # noqa: F401 (checkpoint_segments: re-exported)
    AUTOCAST_16,
    C_FIXED,
    CATEGORIES,
    INT64_LIMIT,
    OPTIMIZER,
    PHASES,
    StepEvents,
    as_array,
    int_array,
    int_rows,
    build_step,
    build_step_fast,
    keep_pairs,
    checkpoint_segments,
    class_bytes,
    class_codes,
    step_weights,
    storage_codes,
)
from planner.i18n import QT_TRANSLATE_NOOP, Msg

MIB = 1024**2

MAX_ASSUMED_BYTES = 1 << 50
_THRESHOLDS = ("allocator_large_threshold_bytes", "allocator_min_large_alloc_bytes")

CONV_ALGORITHMS = ("typical", "implicit_gemm", "im2col", "fft", "winograd")
# Activation layouts of convolutions: channels-last (NHWC, what tensor-core kernels take) or
# PyTorch's default NCHW, which cuDNN transposes around its tensor-core kernels.
MEMORY_FORMATS = ("channels_last", "nchw")


@dataclass(frozen=True)
class Assumptions:
    """Every figure the estimate takes on trust. Shown in the UI and editable there."""

    cuda_context_bytes: int = 400 * MIB
    library_handles_bytes: int = 150 * MIB
    allocator_block_bytes: int = 512
    allocator_large_threshold_bytes: int = 1 * MIB
    allocator_segment_bytes: int = 2 * MIB
    conv_algorithm: str = "typical"
    workspace_cap_bytes: int = 256 * MIB
    driver_reserved_bytes: int = 300 * MIB
    # PyTorch's caching allocator (c10/cuda/CUDACachingAllocator.cpp). On: every tensor takes
    # whole blocks of allocator_block_bytes (kMinBlockSize), and what the allocator holds is
    # simulated: requests up to allocator_large_threshold_bytes (kSmallSize) share
    # allocator_segment_bytes segments (kSmallBuffer); larger ones below
    # allocator_min_large_alloc_bytes (kMinLargeAlloc) get allocator_large_segment_bytes
    # segments (kLargeBuffer); larger still are rounded up to allocator_round_large_bytes
    # (kRoundLarge); free blocks are reused best-fit and split. Off: exact tensor bytes.
    allocator_model: bool = True
    allocator_large_segment_bytes: int = 20 * MIB
    allocator_min_large_alloc_bytes: int = 10 * MIB
    allocator_round_large_bytes: int = 2 * MIB
    # cuBLAS workspace PyTorch allocates through the caching allocator for matmuls
    # (CUBLAS_WORKSPACE_CONFIG default ":4096:8" on Hopper and newer = 32 MiB; ":4096:2:16:8"
    # = 8.125 MiB before: aten/src/ATen/cuda/CublasHandlePool.cpp). Held once a matmul ran.
    cublas_workspace_bytes: int = 32 * MIB
    # Speed model (roofline): what fraction of a card's datasheet peak real kernels reach.
    compute_efficiency: float = 0.725
    tensor_efficiency: float = 0.7
    memory_efficiency: float = 0.679
    # Older architectures reach less of their peak in cuDNN; calibrated so that the article's
    # equivalence table comes out (Kepler's GTX Titan ≈ 0.33 × a GTX 1080).
    architecture_efficiency: tuple[tuple[str, float], ...] = (("Kepler", 0.6),
                                                             ("Maxwell", 0.85))
    # A kernel fills a card when it has this many independent outputs per CUDA core.
    saturation_items_per_core: int = 48
    kernel_launch_s: float = 5e-6

    def __post_init__(self):
        if self.conv_algorithm not in CONV_ALGORITHMS:
            raise ValueError(
                f"convolution algorithm '{self.conv_algorithm}' is not one of "
                f"{', '.join(CONV_ALGORITHMS)}"
            )
        for f in fields(self):
            v = getattr(self, f.name)
            if (f.name in ("conv_algorithm", "architecture_efficiency", "memory_format")
                    or isinstance(v, tuple)):
                continue
            if f.name in ("allocator_model", "fused_bn_activation", "optimizer_for_loop"):
                if not isinstance(v, bool):
                    raise ValueError(f"{f.name} must be true or false, not {v!r}")
                continue
            if f.type in ("float", float):
                if not isinstance(v, (int, float)) or not 0 <= v <= 10 or v != v:
                    raise ValueError(f"{f.name} must be a number between 0 and 10, not {v!r}")
                continue
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise ValueError(f"{f.name} must be a whole number ≥ 0, not {v!r}")
        for pair in self.architecture_efficiency:
            if (not isinstance(pair, tuple) or len(pair) != 2 or not isinstance(pair[0], str)
                    or not isinstance(pair[1], (int, float)) or not 0 < pair[1] <= 2):
                raise ValueError(f"architecture_efficiency entry {pair!r} is not (name, 0–2)")
        for name in ("compute_efficiency", "tensor_efficiency", "memory_efficiency"):
            if not 0 < getattr(self, name) <= 1:
                raise ValueError(f"{name} must be above 0 and at most 1")
        if self.saturation_items_per_core < 1:
            raise ValueError("saturation_items_per_core must be at least 1")
        for name in ("allocator_block_bytes", "allocator_segment_bytes",
                     "allocator_large_segment_bytes", "allocator_round_large_bytes"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1 byte")
        for f in fields(self):  # sizes stay far inside int64 when summed (1 PiB at most)
            v = getattr(self, f.name)
            if (f.name.endswith("_bytes") and f.name not in _THRESHOLDS
                    and v > MAX_ASSUMED_BYTES):
                raise ValueError(f"{f.name} must be at most 2**50 bytes, not {v!r}")
            if f.name in _THRESHOLDS and v >= 1 << 63:
                raise ValueError(f"{f.name} must be below 2**63, not {v!r}")
        self._check_speed()

    def arch_factor(self, architecture: str | None) -> float:
        for name, factor in self.architecture_efficiency:
            if name == architecture:
                return float(factor)
        return 1.0

    @staticmethod
    def describe() -> dict[str, str]:
        """What each assumption means (tooltips, the CLI, the README)."""
        return Assumptions._speed_descriptions() | {
            "cuda_context_bytes": QT_TRANSLATE_NOOP("core",
                "CUDA context and framework runtime per process (typical "
                                  "PyTorch on CUDA 12 with lazy loading; not measured here)"),
            "library_handles_bytes": QT_TRANSLATE_NOOP("core",
                "cuBLAS / cuDNN handles and their loaded kernels"),
            "allocator_block_bytes": QT_TRANSLATE_NOOP("core",
                "the caching allocator rounds every tensor up to this block (kMinBlockSize, "
                "CUDACachingAllocator.cpp)"),
            "allocator_large_threshold_bytes": QT_TRANSLATE_NOOP("core",
                "requests up to this size come from the small pool (kSmallSize, "
                "CUDACachingAllocator.cpp)"),
            "allocator_segment_bytes": QT_TRANSLATE_NOOP("core",
                "segment the small pool reserves at a time (kSmallBuffer, "
                "CUDACachingAllocator.cpp)"),
            "conv_algorithm": QT_TRANSLATE_NOOP("core",
                "convolution algorithm family for the workspace: typical = "
                              "fastest per layer (Winograd for 3×3, else implicit GEMM) "
                              "capped at the workspace allowance"),
            "workspace_cap_bytes": QT_TRANSLATE_NOOP("core",
                "largest workspace the framework typically grants one "
                                   "convolution ('typical' only)"),
            "driver_reserved_bytes": QT_TRANSLATE_NOOP("core",
                "memory the driver keeps on a card that no process can use "
                                     "(used when judging fit)"),
            "allocator_model": QT_TRANSLATE_NOOP("core",
                "model PyTorch's caching allocator: tensors in 512-byte blocks, cached "
                "segments simulated (c10/cuda/CUDACachingAllocator.cpp); off = exact tensor "
                "bytes"),
            "allocator_large_segment_bytes": QT_TRANSLATE_NOOP("core",
                "segment the allocator reserves for a 1–10 MiB request (kLargeBuffer, "
                "CUDACachingAllocator.cpp)"),
            "allocator_min_large_alloc_bytes": QT_TRANSLATE_NOOP("core",
                "requests from this size get a segment of their own, rounded up "
                "(kMinLargeAlloc, CUDACachingAllocator.cpp)"),
            "allocator_round_large_bytes": QT_TRANSLATE_NOOP("core",
                "what a segment of its own is rounded up to (kRoundLarge, "
                "CUDACachingAllocator.cpp)"),
            "cublas_workspace_bytes": QT_TRANSLATE_NOOP("core",
                "cuBLAS workspace held by PyTorch's allocator once a matmul ran "
                "(CUBLAS_WORKSPACE_CONFIG default: 32 MiB on Hopper and newer, 8.125 MiB "
                "before; CublasHandlePool.cpp)"),
            "compute_efficiency": QT_TRANSLATE_NOOP("core",
                "fraction of the datasheet FP32 rate convolutions and GEMMs reach on the CUDA "
                "cores (fitted on measured training throughput: benchmarks/calibrate_speed.py)"),
            "tensor_efficiency": QT_TRANSLATE_NOOP("core",
                "fraction of the datasheet FP16/BF16 tensor-core rate convolutions and GEMMs "
                "reach (0.7, a prior: cuDNN's large FP16 convolutions; the calibration cannot "
                "tell it from the memory efficiency)"),
            "memory_efficiency": QT_TRANSLATE_NOOP("core",
                "fraction of the datasheet bandwidth memory-bound layers reach (fitted)"),
            "architecture_efficiency": QT_TRANSLATE_NOOP("core",
                "extra factor per architecture (older ones reach less of "
                                       "their peak; calibrated to the article's table)"),
            "saturation_items_per_core": QT_TRANSLATE_NOOP("core",
                "independent outputs per CUDA core a kernel needs to "
                                         "fill the card (small networks fill it less)"),
            "kernel_launch_s": QT_TRANSLATE_NOOP("core",
                "the shortest time a kernel takes on the GPU (launch and ramp): small layers "
                "and small batches do not get faster than this"),
        }

    def to_json(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        for name in _PAIR_FIELDS:
            out[name] = dict(getattr(self, name))
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Assumptions":
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        for name in _PAIR_FIELDS:
            pairs = values.get(name)
            if isinstance(pairs, dict):
                values[name] = tuple(sorted(pairs.items()))
            elif isinstance(pairs, list):
                values[name] = tuple(tuple(x) for x in pairs)
        _migrate_speed(values)
        return cls(**values)

    # --- speed model ---
    # With the older speed fields above (compute_efficiency: FP32 CUDA-core convolutions and
    # GEMMs; tensor_efficiency; memory_efficiency; architecture_efficiency: the CUDA-core factor
    # per architecture; saturation_items_per_core; kernel_launch_s: the shortest a kernel runs).
    # Fitted values come from benchmarks/calibrate_speed.py on the calibration rows the README
    # names; the others say where they came from in _speed_descriptions.
    tensor_architecture_efficiency: tuple[tuple[str, float], ...] = (("Blackwell", 0.6),)
    tf32_efficiency: float = 0.27
    winograd_speedup: float = 2.11
    grouped_conv_efficiency: float = 0.243
    depthwise_bandwidth_efficiency: float = 0.31
    # Depthwise convolutions also spend SM cycles on every input element each multiply-
    # accumulate reads: SM cycles per byte so read (fitted on EfficientNet-B0).
    depthwise_sm_cycles_per_byte: float = 0.121
    pseudo_half_efficiency: float = 1.0
    dual_issue_fp32_efficiency: float = 0.65
    cpu_launch_s: float = 1e-5
    input_pipeline_gbs: float = 0.0
    narrow_tile_efficiency: float = 0.75
    # Memory-bound kernels also spend SM instruction cycles on every element they move.
    memory_sm_cycles_per_element: float = 0.24
    # Share of its datasheet bandwidth a streaming kernel reaches, per compute capability
    # (te42kyfo/gpu-benches gpu-stream, "scale" kernel): memory_efficiency was fitted on the
    # V100 (7.0), so a chip's bandwidth is scaled by its share over the V100's; 1 where none is
    # listed.
    streaming_bandwidth_fraction: tuple[tuple[str, float], ...] = (
        ("7.0", 0.893), ("8.0", 0.888), ("8.6", 0.945), ("8.9", 0.944))
    # The clock a card sustains under its board power against its chip's full-power variant.
    power_clock_exponent: float = 0.333
    # PyTorch's default activation layout; "channels_last" after
    # model.to(memory_format=torch.channels_last) (or in TensorFlow, MXNet: NHWC).
    memory_format: str = "nchw"
    # Batch norm kernels apply the ReLU after them (and a residual add between): MXNet's DLE
    # float16 recipes, cuDNN's fused ops; PyTorch eager runs three kernels.
    fused_bn_activation: bool = False
    # Eager attention (q·kᵀ, scale, mask, softmax, dropout, ·v as separate kernels): passes
    # over the batch × heads × queries × keys scores tensor per training step.
    eager_attention_passes: int = 21
    # The optimizer step runs one kernel per elementwise operation and parameter tensor
    # (a Python loop: BertAdam, torch.optim with foreach=False), not fused multi-tensor ones.
    optimizer_for_loop: bool = False

    def streaming_factor(self, compute_capability: str | None) -> float:
        """A card's achievable streaming bandwidth against the V100's (the card the memory
        efficiency was fitted on), as shares of each one's datasheet bandwidth; 1 where
        ``streaming_bandwidth_fraction`` lists the card's compute capability or the V100's
        not."""
        shares = dict(self.streaming_bandwidth_fraction)
        own, ref = shares.get(compute_capability or ""), shares.get(STREAMING_REFERENCE)
        return float(own) / float(ref) if own and ref else 1.0

    def tensor_arch_factor(self, architecture: str | None) -> float:
        for name, factor in self.tensor_architecture_efficiency:
            if name == architecture:
                return float(factor)
        return 1.0

    def _check_speed(self) -> None:
        for pair in self.streaming_bandwidth_fraction:
            if (not isinstance(pair, tuple) or len(pair) != 2 or not isinstance(pair[0], str)
                    or not isinstance(pair[1], (int, float)) or not 0 < pair[1] <= 1):
                raise ValueError(f"streaming_bandwidth_fraction entry {pair!r} is not "
                                 "(compute capability, 0–1)")
        for pair in self.tensor_architecture_efficiency:
            if (not isinstance(pair, tuple) or len(pair) != 2 or not isinstance(pair[0], str)
                    or not isinstance(pair[1], (int, float)) or not 0 < pair[1] <= 2):
                raise ValueError(f"tensor_architecture_efficiency entry {pair!r} is not "
                                 "(name, 0–2)")
        if not 0 <= self.eager_attention_passes <= 100:
            raise ValueError("eager_attention_passes must be between 0 and 100")
        for name in ("tf32_efficiency", "grouped_conv_efficiency",
                     "depthwise_bandwidth_efficiency", "narrow_tile_efficiency",
                     "pseudo_half_efficiency", "dual_issue_fp32_efficiency"):
            if not 0 < getattr(self, name) <= 1:
                raise ValueError(f"{name} must be above 0 and at most 1")
        if not 1 <= self.winograd_speedup <= 4:
            raise ValueError("winograd_speedup must be between 1 and 4")
        if self.memory_format not in MEMORY_FORMATS:
            raise ValueError(f"memory_format must be one of {', '.join(MEMORY_FORMATS)}, not "
                             f"{self.memory_format!r}")

    @staticmethod
    def _speed_descriptions() -> dict[str, str]:
        return {
            "tensor_architecture_efficiency": QT_TRANSLATE_NOOP("core",
                "extra factor per architecture on the tensor-core rate (1 where not listed). "
                "Blackwell 0.6: PyTorch FP16 matmuls reach about 234 of the RTX 5090's 419 "
                "TFLOPS, where Ada cards reach their whole rated FP32-accumulate rate"),
            "tf32_efficiency": QT_TRANSLATE_NOOP("core",
                "fraction of the datasheet TF32 tensor-core rate convolutions and GEMMs reach "
                "(fitted on A100 TF32 rows, with cuDNN's NCHW TF32 kernels: no layout "
                "transposes)"),
            "winograd_speedup": QT_TRANSLATE_NOOP("core",
                "speed-up of 3×3 stride-1 convolutions on the FP32 cores from cuDNN's Winograd "
                "algorithm over their direct FLOP count (fitted on VGG-16 and ResNets)"),
            "grouped_conv_efficiency": QT_TRANSLATE_NOOP("core",
                "grouped convolutions (ResNeXt) reach this fraction of a dense convolution's "
                "rate (fitted on ResNeXt-101)"),
            "depthwise_bandwidth_efficiency": QT_TRANSLATE_NOOP("core",
                "depthwise convolutions (MobileNet, EfficientNet) run on the CUDA cores in any "
                "precision (no reduction for tensor cores to do): they move their bytes at this "
                "fraction of the achievable bandwidth, or take depthwise_sm_cycles_per_byte, "
                "whichever is longer (fitted on EfficientNet-B0)"),
            "depthwise_sm_cycles_per_byte": QT_TRANSLATE_NOOP("core",
                "SM cycles a depthwise convolution spends per byte of input its multiply-"
                "accumulates read (one element each, forward and both gradients, in the "
                "precision's element size): its time is at least its multiply-accumulates × "
                "element bytes × this ÷ (SMs × clock), so a 3×3 kernel costs 9/25 of a 5×5 one "
                "per output and 16-bit halves it (fitted on EfficientNet-B0: "
                "benchmarks/calibrate_speed.py)"),
            "pseudo_half_efficiency": QT_TRANSLATE_NOOP("core",
                "16-bit data on a card without fast FP16 math: cuDNN and cuBLAS compute it in "
                "FP32 (pseudo-half), at this fraction of the FP32 kernels' rate (1 = the same "
                "rate: no gain from 16-bit except in memory-bound layers)"),
            "dual_issue_fp32_efficiency": QT_TRANSLATE_NOOP("core",
                "extra factor on the FP32 rate of cards whose datasheet FP32 counts a datapath "
                "shared with integer work (compute capability 8.6, 8.9 and 12: GeForce and "
                "workstation Ampere, Ada, Blackwell): PyTorch FP32 matmuls reach about 65 of an "
                "RTX 5090's 105 TFLOPS, where an A100 reaches nearly all of its 19.5"),
            "cpu_launch_s": QT_TRANSLATE_NOOP("core",
                "CPU time per operator the framework dispatches (PyTorch eager dispatch and "
                "autograd, about 10 µs): an iteration is never shorter than all its operators' "
                "CPU time"),
            "narrow_tile_efficiency": QT_TRANSLATE_NOOP("core",
                "convolutions run as GEMMs in tiles of 128 pixels × 128, 64 or 32 channels: a "
                "layer whose channels do not fill the tiles (Inception's 48, 80, 96, 192) wastes "
                "the rest, or takes a narrower tile that reaches this fraction of the next wider "
                "one's rate (fitted on measured training throughput)"),
            "memory_sm_cycles_per_element": QT_TRANSLATE_NOOP("core",
                "SM cycles per element a memory-bound kernel (normalisation, activations, "
                "pooling, adds, layout transposes) spends on its instructions: its time is the "
                "larger of its bytes at the achievable bandwidth and its elements × this ÷ (SMs × "
                "clock), SMs × clock from the datasheet FP32 rate ÷ (2 × FP32 lanes per SM). "
                "Cards with much bandwidth per SM (A100, H100) are limited by it (fitted alone "
                "on measured training throughput, the other parameters held: "
                "benchmarks/calibrate_speed.py)"),
            "power_clock_exponent": QT_TRANSLATE_NOOP("core",
                "under training load a card sustains its boost clock only with its chip's full "
                "board power per SM (the catalog's card with the whole chip and the most watts "
                "per SM: RTX 3090 Ti for GA102, A100 SXM4 for GA100); a variant with less power "
                "per SM runs at that card's boost clock × (its watts per SM ÷ the reference's) to "
                "this power, never above its own boost clock (dynamic power grows about as the "
                "clock cubed: 1/3). RTX A6000 at 300 W: 0.90 of its boost clock; A100 PCIe "
                "40GB at 250 W: 0.86; 0 = every card at its boost clock"),
            "memory_format": QT_TRANSLATE_NOOP("core",
                "activation layout of the convolutions: nchw, PyTorch's default, where cuDNN "
                "transposes each convolution's activations to NHWC and back around its 16-bit "
                "tensor-core kernels (extra memory traffic in fp16 and bf16; TF32 convolutions "
                "run cuDNN's NCHW kernels, which NVIDIA found as fast on Ampere: TensorFlow "
                "keeps NCHW for TF32, pull request 56744); channels_last after "
                "model.to(memory_format=torch.channels_last), or in TensorFlow and MXNet: no "
                "transposes"),
            "fused_bn_activation": QT_TRANSLATE_NOOP("core",
                "batch norm kernels apply the ReLU after them, and the residual add between "
                "(MXNet's DeepLearningExamples float16 recipes: --fuse-bn-relu, "
                "--fuse-bn-add-relu): the ReLU's and the add's memory passes disappear. Off: "
                "PyTorch eager runs batch norm, add and ReLU as separate kernels"),
            "streaming_bandwidth_fraction": QT_TRANSLATE_NOOP("core",
                "share of its datasheet bandwidth a streaming kernel (one read, one write per "
                "element) reaches, per compute capability, from te42kyfo/gpu-benches "
                "gpu-stream: V100 804 of 900 GB/s, A100 40GB 1,381 of 1,555, A40 (GA102) 658 of "
                "696, L40 (AD102) 816 of 864. The memory efficiency was fitted on the V100, so "
                "each card's bandwidth is scaled by its share over the V100's (GA102 and AD102: "
                "1.06); 1 where its compute capability is not listed"),
            "eager_attention_passes": QT_TRANSLATE_NOOP("core",
                "passes over the attention scores (batch × heads × queries × keys elements, in "
                "the precision's element size) of eager attention per training step, counted "
                "from DeepLearningExamples' and Hugging Face's BERT: forward the q·kᵀ product "
                "written (1), the scale and the mask add read and written (2 + 2), softmax (2), "
                "dropout (2, plus a one-byte mask), read by the product with v (1); backward the "
                "probabilities' gradient written and the probabilities read for v's (2), "
                "dropout (2), softmax (3: gradient and output read), the scale (2), the "
                "gradient read for q's and k's (2): 21. Flash and memory-efficient attention "
                "keep the scores on chip: none"),
            "optimizer_for_loop": QT_TRANSLATE_NOOP("core",
                "the optimizer step is a Python loop over the parameters, one kernel per "
                "operation and tensor (DeepLearningExamples' BertAdam, torch.optim with "
                "foreach=False): Adam 15 kernels and 32 tensor passes per parameter tensor "
                "(BertAdam.step: per-tensor gradient clipping, the two moments, the update, "
                "weight decay, the learning rate), momentum SGD 3 and 8, SGD 1 and 3; each "
                "kernel also costs the host a dispatch. Off: fused multi-tensor kernels "
                "(apex FusedAdam, PyTorch's foreach and fused optimizers)"),
            "input_pipeline_gbs": QT_TRANSLATE_NOOP("core",
                "how fast the host prepares training inputs (decode, augment, copy to the GPU), "
                "in GB/s of fp32 input tensors, if it limits training: 1.9 GB/s is about 3,100 "
                "ResNet-50 images/s. 0 (the default) = no limit: the GPU's own time, as every "
                "benchmark row measured it (synthetic data or a loader that keeps up). Measure "
                "your loader and enter its rate here"),
        }


# Tuple-of-pairs fields, saved as {name: factor} objects.
_PAIR_FIELDS = ("architecture_efficiency", "tensor_architecture_efficiency",
                "streaming_bandwidth_fraction")
# The compute capability memory_efficiency was fitted on (streaming_bandwidth_fraction).
STREAMING_REFERENCE = "7.0"

# The speed model's defaults before its calibration (issue 14). Saved assumptions that still
# hold them were never edited by the user: they take the calibrated defaults instead.
_SPEED_DEFAULTS_BEFORE_CALIBRATION = {
    "compute_efficiency": 0.6,
    "tensor_efficiency": 0.45,
    "memory_efficiency": 0.75,
    "architecture_efficiency": (("Kepler", 0.6), ("Maxwell", 0.85)),
    "saturation_items_per_core": 48,
    "kernel_launch_s": 5e-6,
}


# The first calibration's defaults (before the per-kind traffic and depthwise bandwidth,
# issue 14 round 2): saved ones were never edited either.
_SPEED_DEFAULTS_FIRST_CALIBRATION = {
    "compute_efficiency": 0.76,
    "memory_efficiency": 0.66,
    "tf32_efficiency": 0.27,
    "winograd_speedup": 2.05,
    "grouped_conv_efficiency": 0.24,
}


# The second calibration's (before the tile rule and Inception-v3 in the fit, round 3).
_SPEED_DEFAULTS_SECOND_CALIBRATION = {
    "compute_efficiency": 0.78,
    "memory_efficiency": 0.673,
    "tf32_efficiency": 0.272,
    "winograd_speedup": 1.91,
    "grouped_conv_efficiency": 0.194,
    "depthwise_bandwidth_efficiency": 0.185,
}


# Rounds 6-7 (TF32 convolutions paid NCHW transposes, with the TF32 efficiency fitted so).
_SPEED_DEFAULTS_TF32_TRANSPOSED = {
    "tf32_efficiency": 0.316,
}

# Round 12 of issue 14: depthwise convolutions' bandwidth efficiency, fitted while it alone
# timed them (before depthwise_sm_cycles_per_byte).
_SPEED_DEFAULTS_DEPTHWISE_BANDWIDTH_ONLY = {
    "depthwise_bandwidth_efficiency": 0.196,
}

# Round 12 of issue 14: the input pipeline's 1.9 GB/s ceiling was fitted on two held-out cards
# (H200, B200) whose runs used synthetic data; the default is now no limit.
_SPEED_DEFAULTS_INPUT_CEILING = {
    "input_pipeline_gbs": 1.9,
}


def _migrate_speed(values: dict[str, Any]) -> None:
    """Drop saved speed fields that still hold an earlier calibration's defaults."""
    olds = list(_SPEED_DEFAULTS_BEFORE_CALIBRATION.items())
    olds += list(_SPEED_DEFAULTS_FIRST_CALIBRATION.items())
    olds += list(_SPEED_DEFAULTS_SECOND_CALIBRATION.items())
    olds += list(_SPEED_DEFAULTS_TF32_TRANSPOSED.items())
    olds += list(_SPEED_DEFAULTS_INPUT_CEILING.items())
    olds += list(_SPEED_DEFAULTS_DEPTHWISE_BANDWIDTH_ONLY.items())
    for name, old in olds:
        if name in values:
            v = values[name]
            if isinstance(old, tuple):
                same = isinstance(v, tuple) and tuple(sorted(v)) == tuple(sorted(old))
            else:
                same = v == old
            if same:
                del values[name]


# Bytes per element the kernels read and write (the speed model reads these too).
ACT_BYTES = {"fp32": 4, "fp32_strict": 4, "tf32": 4, "fp16": 2, "bf16": 2, "mixed": 2,
             "mixed_bf16": 2}
WEIGHT_BYTES = {"fp32": 4, "fp32_strict": 4, "tf32": 4, "fp16": 2, "bf16": 2, "mixed": 2,
                "mixed_bf16": 2}
# What is stored: weights and their gradients (autocast keeps both in fp32), and each optimizer
# state. Autocast needs no separate master copy: the fp32 weights are the master.
PARAM_BYTES = {"fp32": 4, "fp32_strict": 4, "tf32": 4, "fp16": 2, "bf16": 2, "mixed": 4,
               "mixed_bf16": 4}
MASTER_BYTES = {p: 0 for p in PARAM_BYTES}
STATE_BYTES = {"fp32": 4, "fp32_strict": 4, "tf32": 4, "fp16": 2, "bf16": 2, "mixed": 4,
               "mixed_bf16": 4}
OPTIMIZER_STATES = {"sgd": 0, "momentum": 1, "adam": 2, "adamw": 2}

TERMS = ("overhead", "weights", "weight_copies", "gradients", "optimizer", "activations",
         "transient", "workspace", "allocator")
TERM_LABELS = {
    "overhead": QT_TRANSLATE_NOOP("core", "CUDA context + libraries"),
    "weights": QT_TRANSLATE_NOOP("core", "Weights"),
    "weight_copies": QT_TRANSLATE_NOOP("core", "16-bit weight copies (autocast)"),
    "gradients": QT_TRANSLATE_NOOP("core", "Gradients"),
    "optimizer": QT_TRANSLATE_NOOP("core", "Optimizer state"),
    "activations": QT_TRANSLATE_NOOP("core", "Activations kept for backward"),
    "transient": QT_TRANSLATE_NOOP("core", "Gradient buffers and temporaries"),
    "workspace": QT_TRANSLATE_NOOP("core", "cuDNN / cuBLAS workspace"),
    "allocator": QT_TRANSLATE_NOOP("core", "Allocator rounding (512-byte blocks)"),
}
INFERENCE_ACTIVATIONS_LABEL = QT_TRANSLATE_NOOP("core", "Activations (inputs and outputs alive)")


def term_label(term: str, mode: str) -> str:
    """The label of a breakdown term (untranslated source text); inference keeps nothing for
    backward, so its activation term says what it is."""
    if term == "activations" and mode == "infer":
        return INFERENCE_ACTIVATIONS_LABEL
    return TERM_LABELS[term]


PHASE_LABELS = {
    "forward": QT_TRANSLATE_NOOP("core", "forward"),
    "loss": QT_TRANSLATE_NOOP("core", "loss"),
    "backward": QT_TRANSLATE_NOOP("core", "backward"),
    "recompute": QT_TRANSLATE_NOOP("core", "recompute"),
    "optimizer": QT_TRANSLATE_NOOP("core", "optimizer step"),
}


class LayerEstimate(NamedTuple):
    index: int
    name: str
    kind: str
    output_shape: tuple[int, ...] | None
    parameters: int
    activation_bytes: int  # what this layer is the first to keep for backward (training)
    output_bytes: int  # its output tensor (0 for in-place / views)
    flops_fwd: int
    flops_bwd: int
    bytes_fwd: int  # bytes read + written in the forward pass (speed model)
    bytes_bwd: int
    workspace_bytes: int


class TimelinePoint(NamedTuple):
    """One point of the simulated step: after a layer's forward or during its backward."""

    layer: int  # -1 for the loss and the optimizer step
    name: str  # the layer's name, or "loss" / "optimizer"
    phase: str  # forward | loss | backward | recompute | optimizer
    allocated_bytes: int  # what tensors occupy then (torch.cuda.memory_allocated)


@dataclass(frozen=True)
class ClassicRow:
    """The article's accounting: activation + error of each layer's output (input: activation)."""

    name: str
    bytes: int
    article_bytes: int | None = None  # what the article's own arithmetic gives, where it differs
    note: str = ""


@dataclass(frozen=True)
class MemoryEstimate:
    """The step's peak and what is alive at it. ``peak`` = the CUDA context and libraries plus
    what tensors occupy at the peak (``allocated_bytes``, torch.cuda.max_memory_allocated);
    ``reserved_bytes`` is what the caching allocator holds (max_memory_reserved) and
    ``nvidia_smi_bytes`` what nvidia-smi shows for the process."""

    setup: Setup
    assumptions: Assumptions
    parameters: int
    overhead: int
    weights: int
    gradients: int
    optimizer: int
    activations: int
    transient: int
    workspace: int
    analysis: Analysis = field(repr=False, compare=False)
    weight_copies: int = 0
    allocator: int = 0
    peak_point: int = 0
    point_allocated: np.ndarray | None = field(default=None, repr=False, compare=False)
    events: StepEvents | None = field(default=None, repr=False, compare=False)

    @cached_property
    def layers(self) -> tuple[LayerEstimate, ...]:
        """Each layer's figures: parameters, what it keeps for backward, its output, FLOPs,
        bytes moved, workspace (made when first asked for: a re-estimate after an edit that
        only needs the peak and the largest batch does not build them)."""
        if self.events is None:
            return ()
        return _layer_estimates(prepare(self.analysis), self.events, self.setup,
                                self.assumptions)

    @cached_property
    def timeline(self) -> tuple[TimelinePoint, ...]:
        """What tensors occupy at every point of the step (allocator rounding included)."""
        ev = self.events
        if ev is None or self.point_allocated is None:
            return ()
        names = [info.name for info in self.analysis.layers]
        return tuple(
            TimelinePoint(layer, names[layer] if layer >= 0 else
                          ("optimizer" if phase == OPTIMIZER else "loss"), PHASES[phase],
                          value)
            for layer, phase, value in zip(ev.point_layer.tolist(), ev.point_phase.tolist(),
                                           self.point_allocated.tolist()))

    @cached_property
    def classic(self) -> tuple[ClassicRow, ...]:
        """The article's accounting, computed when first asked for."""
        return classic_rows(self.analysis, self.setup.batch_size, self.setup.precision)

    @property
    def peak(self) -> int:
        return sum(self.terms().values())

    @property
    def allocated_bytes(self) -> int:
        return self.peak - self.overhead

    @property
    def peak_at(self) -> TimelinePoint | None:
        return self.timeline[self.peak_point] if self.timeline else None

    @cached_property
    def reserved_bytes(self) -> int:
        """The caching allocator's largest holding over the step (simulated; exact tensor
        bytes when the allocator model is off)."""
        if self.events is None or not self.assumptions.allocator_model:
            return self.allocated_bytes
        from planner.core.allocator import simulate_step  # noqa: PLC0415 (on demand)

        p = prepare(self.analysis)
        ws_points, ws_bytes = _workspace_points(p, self.events, self.setup, self.assumptions,
                                                self.setup.batch_size)
        cublas = _ws_layout(p, self.events, self.setup, self.assumptions)[4]
        stats = simulate_step(self.events, self.setup.batch_size, self.assumptions,
                              ws_points, ws_bytes, held=(cublas,))
        return max(stats.peak_reserved, self.allocated_bytes)

    @property
    def allocator_cache_bytes(self) -> int:
        """What the allocator holds beyond the tensors at the peak (free blocks in its
        segments): in nvidia-smi's figure, given back and retried before an out-of-memory."""
        return max(0, self.reserved_bytes - self.allocated_bytes)

    @property
    def nvidia_smi_bytes(self) -> int:
        return self.overhead + self.reserved_bytes

    def terms(self) -> dict[str, int]:
        return {t: getattr(self, t) for t in TERMS}

    @cached_property
    def saved_bytes(self) -> int:
        """Everything the layers' rules keep for backward over the step (exact bytes), as
        opposed to ``activations``, what is alive at the peak."""
        return sum(layer.activation_bytes for layer in self.layers)

    @cached_property
    def kept_for_backward_bytes(self) -> int:
        """What the simulated step keeps for backward over the step (exact bytes): tensors
        the layers keep, casts and weight copies under autocast (what saved_tensors_hooks
        see)."""
        ev = self.events
        if ev is None:
            return self.saved_bytes
        k = ev.kept
        b = self.setup.batch_size
        return int(sum((ev.per_sample[k] * b + ev.fixed[k]).tolist()))

    @cached_property
    def step_totals(self) -> dict[str, int]:
        """The largest each category reaches over the step (exact bytes): all weights, all
        gradients (alive together at the optimizer step), all optimizer state, …"""
        if self.events is None:
            return {}
        cats = self.point_bytes[0]
        return {c: int(cats[k].max()) if cats.shape[1] else 0
                for k, c in enumerate(CATEGORIES)}

    @cached_property
    def point_bytes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per point at this batch: exact bytes by category (rows in ``CATEGORIES`` order),
        workspace, and the allocator's block rounding."""
        ev = self.events
        _, _, ps, fx = ev.lines()
        b = self.setup.batch_size
        cats = ps * b + fx
        rounded = self.point_allocated
        p = prepare(self.analysis)
        ws = _ws_at(_ws_layout(p, ev, self.setup, self.assumptions),
                    np.array([b], dtype=np.int64), ev.n_points)[:, 0]
        rounding = rounded - cats.sum(axis=0) - ws
        return cats, ws, rounding

    def rescaled(self, divide: dict[str, int]) -> tuple[int, dict[str, int]]:
        """The peak point and the terms alive there when some categories are split across
        ``divide[category]`` GPUs (ZeRO / FSDP shards); the rest as at this estimate."""
        cats, ws, rounding = self.point_bytes
        rows = []
        for k, c in enumerate(CATEGORIES):
            d = divide.get(c, 1)
            rows.append(-(-cats[k] // d) if d > 1 else cats[k])
        total = sum(rows) + ws + rounding
        at = int(np.argmax(total.astype(np.float64))) if len(total) else 0
        terms = {c: int(rows[k][at]) for k, c in enumerate(CATEGORIES)}
        terms["workspace"] = int(ws[at])
        terms["allocator"] = int(rounding[at])
        terms["overhead"] = self.overhead
        return at, terms

    @property
    def flops_per_iteration(self) -> int:
        if self.setup.mode == "train":
            recompute = self.setup.checkpointing  # the forward pass runs twice
            return sum(layer.flops_fwd * (2 if recompute else 1) + layer.flops_bwd
                       for layer in self.layers)
        return sum(layer.flops_fwd for layer in self.layers)

    def to_json(self) -> dict[str, Any]:
        b = self.terms()
        b["peak"] = self.peak
        at = self.peak_at
        return {
            "parameters": self.parameters,
            "bytes": b,
            "allocated_bytes": self.allocated_bytes,
            "reserved_bytes": self.reserved_bytes,
            "nvidia_smi_bytes": self.nvidia_smi_bytes,
            "peak_at": ({"layer": at.name, "index": at.layer, "phase": at.phase}
                        if at is not None else None),
            "timeline": [{"layer": p.name, "phase": p.phase, "allocated_bytes": p.allocated_bytes}
                         for p in self.timeline],
            "layers": [
                {"name": layer.name, "type": layer.kind,
                 "output_shape": list(layer.output_shape) if layer.output_shape else None,
                 "parameters": layer.parameters, "activation_bytes": layer.activation_bytes,
                 "flops": layer.flops_fwd + (layer.flops_bwd if self.setup.mode == "train"
                                             else 0)}
                for layer in self.layers
            ],
            "classic": [{"name": r.name, "bytes": r.bytes} for r in self.classic],
        }


# --------------------------------------------------------------------------------------------
# The batch-independent part, prepared once per analysis and reused for every batch size.
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Prepared:
    analysis: Analysis
    saved_elems: np.ndarray  # per sample, per unique saved storage (or fixed: see below)
    saved_class: np.ndarray  # each one's storage class (timeline.class_codes)
    saved_fixed: np.ndarray  # True where the tensor does not grow with the batch
    saved_owner: np.ndarray  # layer index that first keeps it
    param_counts: np.ndarray  # per layer
    ws: dict[str, tuple[np.ndarray, np.ndarray]]  # algorithm → (per sample, constant) per conv
    ws_layers: np.ndarray  # layer index of each conv
    out_elems: np.ndarray  # per layer, elements of its new output storage (0 in-place / view)
    out_numel: np.ndarray  # per layer, elements of its output (written even when in place)
    in_elems: np.ndarray  # per layer, elements of all inputs
    weight_elems: np.ndarray
    flops_fwd: np.ndarray
    flops_bwd: np.ndarray
    columns: Any = None  # the analysis's Columns (worked out again for a hand-made Analysis)
    tables: tuple = ()  # (stats, workspace, weights) per layer, as prepare read them
    st_elems: np.ndarray | None = None  # elements per sample of every storage
    grouped: dict = field(default_factory=dict)  # memo for _step and _ws_layout


_PREPARED_CACHE: dict[int, tuple[Analysis, Prepared]] = {}
_WS_NAMES = WORKSPACE_ALGORITHMS  # _ws_table's row order (a Workspace row's)


def prepare(analysis: Analysis) -> Prepared:
    hit = _PREPARED_CACHE.get(id(analysis))
    if hit is not None and hit[0] is analysis:
        return hit[1]
    if not analysis.ok:
        raise InvalidDraft(analysis.problems)
    cols = analysis.columns
    if cols is None:  # an Analysis made by hand: the same draft analysed gives its columns
        cols = analyze(analysis.draft).columns
    rows = analysis.layer_rows  # the layers' columns (no LayerInfo made)
    n = len(rows.stats)
    tables = _patched_tables(analysis, cols)
    if tables is None:
        table = _stats_table(rows.stats, None, n)
        tables = (table, _ws_table(rows.results, cols.workspace_layers),
                  _weights_table(rows.results, None, n) if table[:, 7].any()
                  else np.zeros((n, 4), dtype=np.int64))
    table, ws_table, w_table = tables
    o, in_elems, params, weight_elems, ffwd, fbwd, copies, _ = table.T.copy()
    out_elems = np.where(copies > 0, o, 0)
    fbwd[0] = 0  # the gradient of the input data itself is never computed
    all_elems = int_array(cols.st_elems)
    saved_idx = as_array(analysis.saved)
    codes = storage_codes(cols.st_class)[saved_idx]
    prepared = Prepared(
        analysis=analysis,
        saved_elems=all_elems[saved_idx],
        saved_class=codes,
        saved_fixed=codes == C_FIXED,
        saved_owner=as_array(cols.saved_owner),
        param_counts=params,
        ws={k: (ws_table[:, 2 * j].copy(), ws_table[:, 2 * j + 1].copy())
            for j, k in enumerate(_WS_NAMES)},
        ws_layers=as_array(cols.workspace_layers),
        out_elems=out_elems,
        out_numel=o,
        in_elems=in_elems,
        weight_elems=weight_elems,
        flops_fwd=ffwd,
        flops_bwd=fbwd,
        columns=cols,
        tables=tables,
        st_elems=all_elems,
    )
    prepared.grouped["weights"] = step_weights(params, w_table)
    if len(_PREPARED_CACHE) > 16:
        _PREPARED_CACHE.clear()
    _PREPARED_CACHE[id(analysis)] = (analysis, prepared)
    return prepared


_WEIGHT_PARTS = itemgetter(12, 13, 14, 15)  # LayerResult: frozen, quantised (elements, bytes), tied


def _stats_table(stats, rows, n: int) -> np.ndarray:
    """Each layer's ``stats`` (8 numbers; ``LayerRows.stats``) as rows of an array, for the
    layers in ``rows`` (every layer when ``rows`` is None)."""
    return int_rows(stats if rows is None else list(map(stats.__getitem__, rows)), 8)


_WEIGHT_FIELDS = tuple(itemgetter(k) for k in (12, 13, 14, 15))


def _weights_table(results, rows, n: int) -> np.ndarray:
    """Each layer's frozen parameters, quantised elements and bytes, tied elements (all zero,
    the common case, found without building the rows); every layer when ``rows`` is None
    (``results``: ``LayerRows.results``)."""
    results = list(results if rows is None else map(results.__getitem__, rows))
    m = len(results)
    if not any(any(map(get, results)) for get in _WEIGHT_FIELDS):
        return np.zeros((m, 4), dtype=np.int64)
    return int_rows(list(map(_WEIGHT_PARTS, results)), 4)


def _ws_table(results, layers) -> np.ndarray:
    """Workspace candidates (elements: per sample, constant) per convolution, by algorithm; a
    layer without a candidate for an algorithm takes implicit GEMM's."""
    rows = []
    add = rows.append
    for w in map(_WORKSPACE_OF, map(results.__getitem__, layers)):
        if type(w) is Workspace:  # a convolution's: its row as it is
            add(w.row)
            continue
        fallback = w["implicit_gemm"]  # _WS_NAMES in order, without a loop
        add(fallback + w.get("im2col", fallback) + w.get("fft", fallback)
            + w.get("winograd", fallback))
    return int_rows(rows, 2 * len(_WS_NAMES))


_WORKSPACE_OF = itemgetter(7)  # LayerResult.workspace


def _patched_tables(analysis: Analysis, cols):
    """The per-layer tables of an analysis patched from another (``core.incremental``): that
    one's tables with the re-applied layers' rows worked out again; None otherwise."""
    from planner.core.incremental import lineage  # noqa: PLC0415 (imports core.network)

    line = lineage(analysis)
    if line is None:
        return None
    parent, rows = line
    hit = _PREPARED_CACHE.get(id(parent))
    if hit is None or hit[0] is not parent or hit[1].columns.workspace_layers is not \
            cols.workspace_layers:
        return None
    table, ws_table, w_table = (t.copy() for t in hit[1].tables)
    if rows:
        lrows = analysis.layer_rows
        idx = list(rows)
        table[idx] = _stats_table(lrows.stats, idx, len(lrows.stats))
        w_table[idx] = _weights_table(lrows.results, idx, len(lrows.stats))
        ws_layers = cols.workspace_layers
        at = [k for k in map(ws_layers.index, filter(set(ws_layers).__contains__, idx))] \
            if ws_layers else []
        if at:
            ws_table[at] = _ws_table(lrows.results, [ws_layers[k] for k in at])
    return table, ws_table, w_table


def _bpe(codes: np.ndarray, precision: str) -> np.ndarray:
    """Bytes per element of each storage class code."""
    return class_bytes(codes, ACT_BYTES[precision])


def _workspace(p: Prepared, batch: int, precision: str, a: Assumptions) -> np.ndarray:
    """Workspace bytes per convolution layer for the chosen algorithm family."""
    if not len(p.ws_layers):
        return np.zeros(0, dtype=np.int64)
    bpe = ACT_BYTES[precision]
    algo = a.conv_algorithm
    if algo == "typical":
        ps, c = p.ws["winograd"]
        ws = (ps * batch + c) * bpe
        return np.minimum(ws, a.workspace_cap_bytes)
    ps, c = p.ws[algo]
    return (ps * batch + c) * bpe


def _step(p: Prepared, setup: Setup) -> StepEvents:
    """The simulated step for this setup (batch-independent; memoised per analysis): the
    vectorised replay where it covers the case, else the layer-by-layer one."""
    key = ("step", setup.precision, setup.mode, setup.optimizer, setup.checkpointing,
           setup.accumulation)
    hit = p.grouped.get(key)
    if hit is None:
        prec = setup.precision
        if prec not in MIXED_PRECISIONS and not setup.checkpointing:
            hit = build_step_fast(
                p.analysis, p.param_counts, p.flops_bwd, ACT_BYTES[prec], PARAM_BYTES[prec],
                STATE_BYTES[prec],
                mode=setup.mode, optimizer=setup.optimizer,
                optimizer_states=OPTIMIZER_STATES[setup.optimizer],
                accumulation=setup.accumulation, saved_owner=p.saved_owner,
                weights=p.grouped["weights"], st_elems=p.st_elems)
            if hit is not None:
                p.grouped[key] = hit
                return hit
        hit = p.grouped[key] = build_step(
            p.analysis, prec, ACT_BYTES[prec], PARAM_BYTES[prec], STATE_BYTES[prec],
            mode=setup.mode, optimizer=setup.optimizer,
            optimizer_states=OPTIMIZER_STATES[setup.optimizer],
            checkpointing=setup.checkpointing, accumulation=setup.accumulation)
    return hit


# Layers whose kernels come from cuBLAS (its workspace is allocated on their first call).
_CUBLAS_KINDS = frozenset({"fc", "lstm", "gru"}) | (AUTOCAST_16 - {
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"})


def _ws_layout(p: Prepared, ev: StepEvents, setup: Setup, a: Assumptions):
    """Where convolution workspace is held: (points, bytes per sample, constant bytes, cap or
    None, the cuBLAS workspace held throughout)."""
    key = ("ws_layout", id(ev), a.conv_algorithm, a.workspace_cap_bytes,
           a.cublas_workspace_bytes, setup.precision)
    hit = p.grouped.get(key)
    if hit is not None and hit[0] is ev:
        return hit[1]
    n = len(p.out_numel)
    bpe = ACT_BYTES[setup.precision]
    pts = np.zeros(0, dtype=np.int64)
    ps = c = pts
    if len(p.ws_layers):
        conv_pos = np.full(n, -1, dtype=np.int64)
        conv_pos[p.ws_layers] = np.arange(len(p.ws_layers))
        pl = ev.point_layer
        pos = np.where(pl >= 0, conv_pos[np.maximum(pl, 0)], -1)
        pts = np.nonzero(pos >= 0)[0]
        algo = "winograd" if a.conv_algorithm == "typical" else a.conv_algorithm
        wps, wc = p.ws[algo]
        ps, c = wps[pos[pts]] * bpe, wc[pos[pts]] * bpe
    cap = a.workspace_cap_bytes if a.conv_algorithm == "typical" else None
    cublas = (a.cublas_workspace_bytes
              if not _CUBLAS_KINDS.isdisjoint(p.analysis.layer_rows.kinds) else 0)
    layout = (pts, ps, c, cap, cublas)
    p.grouped[key] = (ev, layout)
    return layout


def _ws_at(layout, batches: np.ndarray, n_points: int) -> np.ndarray:
    """Workspace bytes at every point (rows) for every batch (columns)."""
    pts, ps, c, cap, cublas = layout
    big = len(pts) and (int(ps.max()) * int(batches.max()) + int(c.max())) >= INT64_LIMIT
    out = np.full((n_points, len(batches)), cublas, dtype=object if big else np.int64)
    if len(pts):
        if big:
            ps, c = ps.astype(object), c.astype(object)
        ws = ps[:, None] * batches[None, :] + c[:, None]
        if cap is not None:
            ws = np.minimum(ws, cap)
        out[pts] += ws
    return out


def _workspace_points(p: Prepared, ev: StepEvents, setup: Setup, a: Assumptions,
                      batch: int) -> tuple[np.ndarray, np.ndarray]:
    """(points, bytes) of the convolution workspace at one batch (the allocator simulation)."""
    pts, ps, c, cap, _ = _ws_layout(p, ev, setup, a)
    ws = ps * batch + c
    if cap is not None:
        ws = np.minimum(ws, cap)
    return pts, ws


def _block(a: Assumptions) -> int:
    return a.allocator_block_bytes if a.allocator_model else 1


def _sorted_events(ev: StepEvents):
    hit = ev.cache.get("sorted")
    if hit is None:
        order_a = np.argsort(ev.alloc, kind="stable")
        order_f = np.argsort(ev.free, kind="stable")
        pts = np.arange(ev.n_points)
        n_alloc = np.searchsorted(ev.alloc[order_a], pts, side="right")
        n_freed = np.searchsorted(ev.free[order_f], pts, side="left")
        most_alive = int((n_alloc - n_freed).max()) if ev.n_points else 0
        hit = ev.cache["sorted"] = (order_a, order_f, n_alloc, n_freed, most_alive)
    return hit


def _most_alive(ev: StepEvents) -> int:
    """The most tensors alive at one point of the step."""
    hit = ev.cache.get("most_alive")
    if hit is None:
        n = ev.n_points
        if not n:
            return 0
        alive = np.cumsum(np.bincount(ev.alloc, minlength=n + 1)
                          - np.bincount(ev.free + 1, minlength=n + 1))[:-1]
        hit = ev.cache["most_alive"] = int(alive.max())
    return hit


def _live_rounded(ev: StepEvents, batches: np.ndarray, block: int) -> np.ndarray:
    """Bytes tensors occupy at every point (rows) for every batch (columns), each tensor
    rounded up to the allocator's block."""
    if block <= 1:
        ps, fx, _, _ = ev.lines()
        return ps[:, None] * batches[None, :] + fx[:, None]
    sizes = ev.per_sample[:, None] * batches[None, :] + ev.fixed[:, None]
    sizes = -(-sizes // block) * block
    if len(batches) <= 4:  # one estimate, a few bisection probes: scatter and sum per column
        out = np.zeros((ev.n_points, len(batches)), dtype=sizes.dtype)
        for j in range(len(batches)):
            diff = np.zeros(ev.n_points + 1, dtype=sizes.dtype)
            np.add.at(diff, ev.alloc, sizes[:, j])
            np.subtract.at(diff, ev.free + 1, sizes[:, j])
            out[:, j] = np.cumsum(diff[:-1])
        return out
    order_a, order_f, n_alloc, n_freed, _ = _sorted_events(ev)  # many at once (the fit table)
    zero = np.zeros((1, len(batches)), dtype=sizes.dtype)
    ca = np.concatenate([zero, np.cumsum(sizes[order_a], axis=0)])
    cf = np.concatenate([zero, np.cumsum(sizes[order_f], axis=0)])
    return ca[n_alloc] - cf[n_freed]


def _peaks(p: Prepared, setup: Setup, a: Assumptions, batches) -> np.ndarray:
    """The peak (context and libraries included) at several batch sizes at once."""
    b = np.asarray(batches, dtype=np.int64).reshape(-1)
    ev = _step(p, setup)
    live = _live_rounded(ev, b, _block(a))
    ws = _ws_at(_ws_layout(p, ev, setup, a), b, ev.n_points)
    if _block(a) > 1:
        ws = -(-ws // _block(a)) * _block(a)
    return (live + ws).max(axis=0) + _overhead(a)


def _overhead(a: Assumptions) -> int:
    return a.cuda_context_bytes + a.library_handles_bytes


def _floor_div(num: np.ndarray, slope: np.ndarray) -> np.ndarray:
    """Largest b with slope·b ≤ num (MAX_BATCH + 1 where the slope is 0 and num ≥ 0)."""
    safe = np.where(slope > 0, slope, 1)
    q = num // safe
    return np.where(slope > 0, q, np.where(num >= 0, MAX_BATCH + 1, -1))


def _frontier(ev: StepEvents) -> tuple[np.ndarray, np.ndarray]:
    """The points' lines (bytes per sample, fixed bytes) that can bind: a line with another at
    least as steep and at least as high never gives the smallest bound."""
    hit = ev.cache.get("frontier")
    if hit is None:
        S, C, _, _ = ev.lines()
        order = np.lexsort((-C, -S))  # steepest first, highest first among equals
        s_sorted, c_sorted = S[order], C[order]
        prior = np.concatenate([[-1], np.maximum.accumulate(c_sorted)[:-1]]) if len(order) \
            else c_sorted
        keep = c_sorted > prior
        hit = ev.cache["frontier"] = (s_sorted[keep], c_sorted[keep])
    return hit


_FEW_MEMORIES = 8  # up to four memories, each with its exact and its rounded bound


def _solve_max_batch(p: Prepared, setup: Setup, a: Assumptions, mem: np.ndarray) -> np.ndarray:
    """The largest batch whose exact peak (no block rounding) fits each memory: the peak is the
    largest of affine functions of the batch, one per point, so each gives a bound directly."""
    ev = _step(p, setup)
    S, C, _, _ = ev.lines()
    pts, ps, c, cap, cublas = _ws_layout(p, ev, setup, a)
    # One row per memory, one column per point: each row's smallest bound is a reduction over
    # contiguous memory (a column-wise one, over several memories, costs twice as much).
    room = (mem - _overhead(a) - cublas)[:, None]
    # Every point's line for a few memories (sorting them for the frontier costs more than
    # evaluating them all: the same smallest bound, as the pruned lines never give it).
    fs, fc = _frontier(ev) if len(mem) > _FEW_MEMORIES else (S, C)
    best = _floor_div(room - fc, fs).min(axis=1)
    if len(pts):
        s_pt, c_pt = S[pts], C[pts]
        with_ws = _floor_div(room - c_pt - c, s_pt + ps)
        if cap is not None:
            with_ws = np.maximum(with_ws, _floor_div(room - c_pt - cap, s_pt))
        best = np.minimum(best, with_ws.min(axis=1))
    return np.clip(best, 0, MAX_BATCH).astype(np.int64)


def max_batch_many(draft: NetworkDraft | Analysis, setup: Setup, memories,
                   assumptions: Assumptions | None = None) -> np.ndarray:
    """The largest batch that fits each of several memory sizes (0 where none fits).

    Solved directly from the timeline (exact bytes); block rounding only adds, at most one block
    per live tensor, so the answer lies between the solutions for the memory and for the memory
    less that bound, and a vectorised bisection on the rounded peak settles it.
    """
    a = assumptions or Assumptions()
    analysis = draft if isinstance(draft, Analysis) else analyze(draft)
    p = prepare(analysis)
    mem = np.asarray(memories, dtype=np.int64).reshape(-1)
    block = _block(a)
    if block <= 1:
        return _solve_max_batch(p, setup, a, mem)
    ev = _step(p, setup)
    bound = (block - 1) * (_most_alive(ev) + 1)
    # Both bounds in one solve (each memory's answer is its own column).
    both = _solve_max_batch(p, setup, a, np.concatenate([mem, mem - bound]))
    hi_exact = both[:len(mem)]
    lo = np.minimum(both[len(mem):], hi_exact)  # fits
    hi = hi_exact + 1  # does not fit
    while True:
        open_ = hi - lo > 1
        if not open_.any():
            break
        mid = (lo + hi) // 2
        probe = np.where(open_, mid, np.maximum(lo, 1))
        fits = _peaks(p, setup, a, probe) <= mem
        lo = np.where(open_ & fits, mid, lo)
        hi = np.where(open_ & ~fits, mid, hi)
    return np.minimum(lo, MAX_BATCH)


def peak_bytes(analysis: Analysis, setup: Setup, assumptions: Assumptions | None = None) -> int:
    """Only the peak, quickly (used by the fit table and the largest-batch search)."""
    a = assumptions or Assumptions()
    return int(_peaks(prepare(analysis), setup, a, [setup.batch_size])[0])


def estimate(draft: NetworkDraft | Analysis, setup: Setup,
             assumptions: Assumptions | None = None) -> MemoryEstimate:
    """The full estimate. Raises ``InvalidDraft`` (listing every problem) for a bad draft."""
    a = assumptions or Assumptions()
    analysis = draft if isinstance(draft, Analysis) else analyze(draft)
    p = prepare(analysis)
    batch = setup.batch_size
    ev = _step(p, setup)
    b = np.array([batch], dtype=np.int64)
    block = _block(a)
    live = _live_rounded(ev, b, block)[:, 0]
    ws = _ws_at(_ws_layout(p, ev, setup, a), b, ev.n_points)[:, 0]
    ws_rounded = -(-ws // block) * block if block > 1 else ws
    total = live + ws_rounded
    at = int(np.argmax(total)) if len(total) else 0
    cats = ev.live_by_category(batch, at)
    exact_at = sum(cats.values()) + int(ws[at])
    rounding = int(total[at]) - exact_at

    return MemoryEstimate(
        setup=setup, assumptions=a, parameters=int(p.param_counts.sum()),
        overhead=_overhead(a), weights=cats["weights"], gradients=cats["gradients"],
        optimizer=cats["optimizer"], activations=cats["activations"],
        transient=cats["transient"], workspace=int(ws[at]), analysis=analysis,
        weight_copies=cats["weight_copies"], allocator=rounding, peak_point=at,
        point_allocated=total, events=ev,
    )


def _layer_estimates(p: Prepared, ev: StepEvents, setup: Setup,
                     a: Assumptions) -> tuple[LayerEstimate, ...]:
    """Each layer's figures (``MemoryEstimate.layers``, made when first asked for)."""
    analysis = p.analysis
    batch = setup.batch_size
    prec = setup.precision
    n = len(analysis.layers)
    train = setup.mode == "train"
    # Per-layer figures in Python ints when int64 could overflow (the step said so).
    big = ev.exact_ints

    def ex(arr: np.ndarray) -> np.ndarray:
        return arr.astype(object) if big else arr

    per_layer_act = np.zeros(n, dtype=object if big else np.int64)
    if train and len(p.saved_elems):
        per_tensor = np.where(p.saved_fixed, 1, batch)
        saved = ex(p.saved_elems) * per_tensor * _bpe(p.saved_class, prec)
        if ev.needs_grad is not None:  # layers that need no gradient keep nothing
            saved = saved * _kept_by_grad(p, ev.needs_grad)
        np.add.at(per_layer_act, p.saved_owner, saved)
    wsl = _workspace(p, batch, prec, a)
    per_layer_ws = np.zeros(n, dtype=np.int64)
    if len(wsl):
        per_layer_ws[p.ws_layers] = wsl
    abpe = ACT_BYTES[prec]
    wbpe = WEIGHT_BYTES[prec]
    out_bytes = ex(p.out_elems) * batch * abpe
    act_traffic = ex(p.in_elems + np.where(p.out_elems > 0, p.out_numel, 0)) * batch * abpe
    w_traffic = ex(p.weight_elems) * wbpe
    bytes_fwd = act_traffic + w_traffic
    bytes_bwd = 2 * act_traffic + 2 * w_traffic
    zeros = [0] * n
    _, names, kinds, _, shapes, *_ = zip(*analysis.layers)
    columns = zip(
        range(n), names, kinds, shapes, p.param_counts.tolist(),
        per_layer_act.tolist() if train else zeros,
        out_bytes.tolist(),
        (_flops(p.flops_fwd) * batch).tolist(),
        (_flops(p.flops_bwd) * batch).tolist() if train else zeros,
        bytes_fwd.tolist(),
        bytes_bwd.tolist() if train else zeros,
        per_layer_ws.tolist(),
    )
    # LayerEstimate(*row) for every row, without a Python call per layer (12 columns above).
    if len(LayerEstimate._fields) != 12:
        raise RuntimeError("LayerEstimate changed: update the columns estimate() builds")
    return tuple(map(partial(tuple.__new__, LayerEstimate), columns))


def _kept_by_grad(p: Prepared, needs_grad: tuple[bool, ...]) -> np.ndarray:
    """1 for each of ``analysis.saved`` that a layer needing a gradient keeps, else 0."""
    cols = p.columns
    layer, storage = keep_pairs(p.analysis if p.analysis.columns is not None
                                else replace(p.analysis, columns=cols))
    kept = np.zeros(len(cols.st_elems), dtype=np.int64)
    if len(layer):
        use = np.array(needs_grad, dtype=bool)[layer] & (layer > 0)
        kept[storage[use]] = 1
    return kept[as_array(p.analysis.saved)]


def _flops(arr: np.ndarray) -> np.ndarray:
    """FLOPs per sample, as Python ints where a batch could take them past int64 (a large
    vocabulary's head at a long context)."""
    return arr.astype(object) if len(arr) and int(arr.max()) * MAX_BATCH >= INT64_LIMIT else arr


def max_batch(draft: NetworkDraft | Analysis, setup: Setup, memory_bytes: int,
              assumptions: Assumptions | None = None) -> int:
    """The largest batch whose peak fits in ``memory_bytes`` (0 if not even batch 1 fits)."""
    return int(max_batch_many(draft, setup, [memory_bytes], assumptions)[0])


# --------------------------------------------------------------------------------------------
# The article's accounting
# --------------------------------------------------------------------------------------------


def classic_rows(analysis: Analysis, batch: int, precision: str) -> tuple[ClassicRow, ...]:
    """Activation + error for each layer's output (the input has no error), as the article.

    For a chain of unpadded stride-1 convolutions the article computed each output side as
    ``input − kernel`` rather than ``input − kernel + 1``; ``article_bytes`` repeats that
    arithmetic so the two can be compared line by line.
    """
    bpe = ACT_BYTES[precision]
    rows: list[ClassicRow] = []
    article_side: dict[str, tuple[int, ...]] = {}
    prev = None
    for info in analysis.layers:
        r = info.result
        if r is None:
            continue
        out = info.out_shape
        if info.kind == "input":
            rows.append(ClassicRow(info.name, numel(out) * batch * bpe, None,
                                   QT_TRANSLATE_NOOP("core", "activation only")))
            if len(out) == 3:
                article_side[info.name] = out[1:]
            prev = info
            continue
        if r.view or r.inplace:
            prev = info
            continue
        nbytes = 2 * numel(out) * batch * bpe
        article = None
        note = QT_TRANSLATE_NOOP("core", "activation + error")
        spec = analysis.draft.layers[info.index]
        if (info.kind == "conv2d" and prev is not None and prev.name in article_side
                and spec.params.get("padding") == "valid"
                and spec.params.get("stride") in (1, (1, 1))
                and spec.params.get("dilation") in (1, (1, 1))):
            k = spec.params["kernel"]
            k = (k, k) if isinstance(k, int) else tuple(k)
            side = tuple(article_side[prev.name][j] - k[j] for j in range(2))
            article_side[info.name] = side
            article = 2 * out[0] * side[0] * side[1] * batch * bpe
            if article != nbytes:
                note = Msg(QT_TRANSLATE_NOOP(
                    "core", "the article took the output side as input − kernel ({taken} "
                            "instead of {actual})"), taken=f"{side[0]}×{side[1]}",
                    actual=f"{out[1]}×{out[2]}")
            else:
                article = None
        rows.append(ClassicRow(info.name, nbytes, article, note))
        prev = info
    return tuple(rows)


def with_batch(setup: Setup, batch: int) -> Setup:
    return replace(setup, batch_size=batch)
