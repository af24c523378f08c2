"""The memory estimate: every term separately, every guess in one ``Assumptions`` object.

Training peak = overhead (CUDA context + library handles)
              + weights + gradients + optimizer state
              + activations kept for backward (unique storages, by the framework's rules)
              + transient gradient buffers at the backward peak (the largest layer's gradient
                with respect to its output and to its input, alive together)
              + convolution workspace (the largest any one convolution needs; it is reused).

Inference peak = overhead + weights + the largest set of activations alive at once (a tensor
lives from the layer that makes it to the last layer that reads it) + workspace.

Each tensor is rounded as PyTorch's caching allocator rounds it: up to 512-byte blocks, and large
tensors (≥ 1 MiB) up to whole 2 MiB segments. Bytes are ints throughout.

The article's own accounting ("classic": activation plus error per layer) is computed alongside,
so a reader can check the article's worked example.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np

from planner.core.layers import ACT, F32, F32_FIXED, I64, MASK, numel
from planner.core.network import (
    MAX_BATCH,
    Analysis,
    InvalidDraft,
    NetworkDraft,
    Setup,
    analyze,
)
from planner.i18n import QT_TRANSLATE_NOOP

MIB = 1024**2

CONV_ALGORITHMS = ("typical", "implicit_gemm", "im2col", "fft", "winograd")


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
    # Speed model (roofline): what fraction of a card's datasheet peak real kernels reach.
    compute_efficiency: float = 0.76
    tensor_efficiency: float = 0.7
    memory_efficiency: float = 0.66
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
            if f.name in ("conv_algorithm", "architecture_efficiency") or isinstance(v, tuple):
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
        if self.allocator_block_bytes < 1 or self.allocator_segment_bytes < 1:
            raise ValueError("allocator block and segment sizes must be at least 1 byte")
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
                "allocator rounds every tensor up to this block"),
            "allocator_large_threshold_bytes": QT_TRANSLATE_NOOP("core",
                "tensors at least this large are rounded to "
                                               "whole segments"),
            "allocator_segment_bytes": QT_TRANSLATE_NOOP("core",
                "segment size large tensors are rounded to"),
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
    winograd_speedup: float = 2.05
    grouped_conv_efficiency: float = 0.24
    depthwise_conv_efficiency: float = 0.052
    pseudo_half_efficiency: float = 1.0
    dual_issue_fp32_efficiency: float = 0.65
    cpu_launch_s: float = 1e-5
    input_pipeline_gbs: float = 1.9

    def tensor_arch_factor(self, architecture: str | None) -> float:
        for name, factor in self.tensor_architecture_efficiency:
            if name == architecture:
                return float(factor)
        return 1.0

    def _check_speed(self) -> None:
        for pair in self.tensor_architecture_efficiency:
            if (not isinstance(pair, tuple) or len(pair) != 2 or not isinstance(pair[0], str)
                    or not isinstance(pair[1], (int, float)) or not 0 < pair[1] <= 2):
                raise ValueError(f"tensor_architecture_efficiency entry {pair!r} is not "
                                 "(name, 0–2)")
        for name in ("tf32_efficiency", "grouped_conv_efficiency", "depthwise_conv_efficiency",
                     "pseudo_half_efficiency", "dual_issue_fp32_efficiency"):
            if not 0 < getattr(self, name) <= 1:
                raise ValueError(f"{name} must be above 0 and at most 1")
        if not 1 <= self.winograd_speedup <= 4:
            raise ValueError("winograd_speedup must be between 1 and 4")

    @staticmethod
    def _speed_descriptions() -> dict[str, str]:
        return {
            "tensor_architecture_efficiency": QT_TRANSLATE_NOOP("core",
                "extra factor per architecture on the tensor-core rate (1 where not listed). "
                "Blackwell 0.6: PyTorch FP16 matmuls reach about 234 of the RTX 5090's 419 "
                "TFLOPS, where Ada cards reach their whole rated FP32-accumulate rate"),
            "tf32_efficiency": QT_TRANSLATE_NOOP("core",
                "fraction of the datasheet TF32 tensor-core rate convolutions and GEMMs reach "
                "(fitted on A100 TF32 rows)"),
            "winograd_speedup": QT_TRANSLATE_NOOP("core",
                "speed-up of 3×3 stride-1 convolutions on the FP32 cores from cuDNN's Winograd "
                "algorithm over their direct FLOP count (fitted on VGG-16 and ResNets)"),
            "grouped_conv_efficiency": QT_TRANSLATE_NOOP("core",
                "grouped convolutions (ResNeXt) reach this fraction of a dense convolution's "
                "rate (fitted on ResNeXt-101)"),
            "depthwise_conv_efficiency": QT_TRANSLATE_NOOP("core",
                "depthwise convolutions (MobileNet, EfficientNet) have no reduction for tensor "
                "cores: they reach this fraction of the FP32 CUDA-core rate in any precision "
                "(fitted on EfficientNet-B0)"),
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
            "input_pipeline_gbs": QT_TRANSLATE_NOOP("core",
                "how fast the host prepares training inputs (decode, augment, copy to the GPU), "
                "in GB/s of fp32 input tensors; 1.9 is about 3,100 ResNet-50 images/s, the "
                "plateau measured on H200 and B200 alike; 0 = no limit (synthetic data)"),
        }


# Tuple-of-pairs fields, saved as {name: factor} objects.
_PAIR_FIELDS = ("architecture_efficiency", "tensor_architecture_efficiency")

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


def _migrate_speed(values: dict[str, Any]) -> None:
    """Drop saved speed fields that still hold the pre-calibration defaults."""
    for name, old in _SPEED_DEFAULTS_BEFORE_CALIBRATION.items():
        if name in values:
            v = values[name]
            if isinstance(old, tuple):
                same = isinstance(v, tuple) and tuple(sorted(v)) == tuple(sorted(old))
            else:
                same = v == old
            if same:
                del values[name]


ACT_BYTES = {"fp32": 4, "fp32_strict": 4, "tf32": 4, "fp16": 2, "bf16": 2, "mixed": 2,
             "mixed_bf16": 2}
WEIGHT_BYTES = {"fp32": 4, "fp32_strict": 4, "tf32": 4, "fp16": 2, "bf16": 2, "mixed": 2,
                "mixed_bf16": 2}
MASTER_BYTES = {"fp32": 0, "fp32_strict": 0, "tf32": 0, "fp16": 0, "bf16": 0, "mixed": 4,
                "mixed_bf16": 4}  # fp32 master copy
STATE_BYTES = {"fp32": 4, "fp32_strict": 4, "tf32": 4, "fp16": 2, "bf16": 2, "mixed": 4,
               "mixed_bf16": 4}
OPTIMIZER_STATES = {"sgd": 0, "momentum": 1, "adam": 2, "adamw": 2}

TERMS = ("overhead", "weights", "gradients", "optimizer", "activations", "transient", "workspace")
TERM_LABELS = {
    "overhead": QT_TRANSLATE_NOOP("core", "CUDA context + libraries"),
    "weights": QT_TRANSLATE_NOOP("core", "Weights"),
    "gradients": QT_TRANSLATE_NOOP("core", "Gradients"),
    "optimizer": QT_TRANSLATE_NOOP("core", "Optimizer state"),
    "activations": QT_TRANSLATE_NOOP("core", "Activations kept for backward"),
    "transient": QT_TRANSLATE_NOOP("core", "Gradient buffers (backward peak)"),
    "workspace": QT_TRANSLATE_NOOP("core", "Convolution workspace"),
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


@dataclass(frozen=True)
class ClassicRow:
    """The article's accounting: activation + error of each layer's output (input: activation)."""

    name: str
    bytes: int
    article_bytes: int | None = None  # what the article's own arithmetic gives, where it differs
    note: str = ""


@dataclass(frozen=True)
class MemoryEstimate:
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
    layers: tuple[LayerEstimate, ...] = field(repr=False)
    analysis: Analysis = field(repr=False, compare=False)

    @cached_property
    def classic(self) -> tuple[ClassicRow, ...]:
        """The article's accounting, computed when first asked for."""
        return classic_rows(self.analysis, self.setup.batch_size, self.setup.precision)

    @property
    def peak(self) -> int:
        return (self.overhead + self.weights + self.gradients + self.optimizer
                + self.activations + self.transient + self.workspace)

    def terms(self) -> dict[str, int]:
        return {t: getattr(self, t) for t in TERMS}

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
        return {
            "parameters": self.parameters,
            "bytes": b,
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
class _Prepared:
    analysis: Analysis
    saved_elems: np.ndarray  # per sample, per unique saved storage (or fixed: see below)
    saved_class: tuple[str, ...]
    saved_fixed: np.ndarray  # True where the tensor does not grow with the batch
    saved_owner: np.ndarray  # layer index that first keeps it
    param_counts: np.ndarray  # per layer
    grad_pair_elems: np.ndarray  # per layer: grad of output + grad of input, per sample
    ws: dict[str, tuple[np.ndarray, np.ndarray]]  # algorithm → (per sample, constant) per conv
    ws_layers: np.ndarray  # layer index of each conv
    st_elems: np.ndarray  # every storage, per sample (inference liveness)
    st_class: tuple[str, ...]
    st_start: np.ndarray
    st_end: np.ndarray
    out_elems: np.ndarray  # per layer, elements of its new output storage (0 in-place / view)
    out_numel: np.ndarray  # per layer, elements of its output (written even when in place)
    in_elems: np.ndarray  # per layer, elements of all inputs
    weight_elems: np.ndarray
    flops_fwd: np.ndarray
    flops_bwd: np.ndarray
    grouped: dict = field(default_factory=dict)  # memo for _grouped

    def saved_groups(self, precision: str) -> tuple[np.ndarray, np.ndarray]:
        """Saved bytes per sample, grouped: (distinct sizes, how many tensors of each).
        Deep networks repeat a few sizes hundreds of times, so sums over groups are short."""
        key = ("saved", precision)
        hit = self.grouped.get(key)
        if hit is None:
            per = (self.saved_elems * _bpe(self.saved_class, precision))[~self.saved_fixed]
            hit = np.unique(per, return_counts=True) if len(per) else (per, per)
            self.grouped[key] = hit
        return hit

    def saved_fixed_bytes(self, a: Assumptions) -> int:
        """Saved tensors whose size does not depend on the batch (batch-norm statistics)."""
        key = ("fixed_saved", a)
        hit = self.grouped.get(key)
        if hit is None:
            fixed = self.saved_elems[self.saved_fixed] * _bpe(self.saved_class, "fp32")[
                self.saved_fixed]
            hit = self.grouped[key] = int(_round(fixed, a).sum()) if len(fixed) else 0
        return hit

    def ws_groups(self, algo: str) -> tuple[np.ndarray, np.ndarray]:
        """Distinct (per sample, constant) workspace pairs: only their maximum matters."""
        key = ("ws", algo)
        hit = self.grouped.get(key)
        if hit is None:
            ps, c = self.ws[algo]
            pairs = sorted(set(zip(ps.tolist(), c.tolist())))  # np.unique(axis=0) is slow
            hit = (np.array([p for p, _ in pairs], dtype=np.int64),
                   np.array([k for _, k in pairs], dtype=np.int64))
            self.grouped[key] = hit
        return hit


_PREPARED_CACHE: dict[int, tuple[Analysis, _Prepared]] = {}


def _prepare(analysis: Analysis) -> _Prepared:
    hit = _PREPARED_CACHE.get(id(analysis))
    if hit is not None and hit[0] is analysis:
        return hit[1]
    if not analysis.ok:
        raise InvalidDraft(analysis.problems)
    st = analysis.storages
    saved = analysis.saved
    owner = {}
    for info in analysis.layers:
        for sid in info.saved_storages:
            owner[sid] = info.index
    infos = analysis.layers
    n = len(infos)
    results = [info.result for info in infos]
    ws_names = ("implicit_gemm", "im2col", "fft", "winograd")
    ws_ps: dict[str, list[int]] = {k: [] for k in ws_names}
    ws_c: dict[str, list[int]] = {k: [] for k in ws_names}
    ws_layers = []
    for i, r in enumerate(results):
        if r.workspace:
            ws_layers.append(i)
            fallback = r.workspace["implicit_gemm"]
            for k in ws_names:
                ps, c = r.workspace.get(k, fallback)
                ws_ps[k].append(ps)
                ws_c[k].append(c)
    table = np.array([info.stats for info in infos], dtype=np.int64).reshape(n, 7)
    o, in_elems, params, weight_elems, ffwd, fbwd, copies = (table[:, k].copy()
                                                            for k in range(7))
    out_elems = np.where(copies > 0, o, 0)
    # The gradient of the input data itself is never computed.
    grad_pair = o + np.where(np.arange(n) > 1, in_elems, 0)
    fbwd[0] = 0
    outputs = sorted({info.output_storage for info in infos if info.output_storage >= 0})
    # Storage columns as arrays once; saved and output storages are index selections of them.
    st_elements, st_classes, st_producer, st_last_use = zip(*st) if st else ((), (), (), ())
    all_elems = np.array(st_elements, dtype=np.int64)
    saved_idx = np.array(saved, dtype=np.int64)
    out_idx = np.array(outputs, dtype=np.int64)
    saved_class = tuple(st_classes[s] for s in saved)
    prepared = _Prepared(
        analysis=analysis,
        saved_elems=all_elems[saved_idx],
        saved_class=saved_class,
        saved_fixed=np.array([c == F32_FIXED for c in saved_class], dtype=bool),
        saved_owner=np.array([owner.get(s, 0) for s in saved], dtype=np.int64),
        param_counts=params,
        grad_pair_elems=grad_pair,
        ws={k: (np.array(ws_ps[k], dtype=np.int64), np.array(ws_c[k], dtype=np.int64))
            for k in ws_names},
        ws_layers=np.array(ws_layers, dtype=np.int64),
        # Inference keeps no tensors for backward: only layer outputs exist.
        st_elems=all_elems[out_idx],
        st_class=tuple(st_classes[s] for s in outputs),
        st_start=np.array(st_producer, dtype=np.int64)[out_idx],
        st_end=np.array(st_last_use, dtype=np.int64)[out_idx],
        out_elems=out_elems,
        out_numel=o,
        in_elems=in_elems,
        weight_elems=weight_elems,
        flops_fwd=ffwd,
        flops_bwd=fbwd,
    )
    if len(_PREPARED_CACHE) > 16:
        _PREPARED_CACHE.clear()
    _PREPARED_CACHE[id(analysis)] = (analysis, prepared)
    return prepared


_BPE_CACHE: dict[tuple[int, str], tuple[tuple[str, ...], np.ndarray]] = {}


def _bpe(classes: tuple[str, ...], precision: str) -> np.ndarray:
    """Bytes per element of each storage class (memoised: the search calls it many times)."""
    key = (id(classes), precision)
    hit = _BPE_CACHE.get(key)
    if hit is not None and hit[0] is classes:
        return hit[1]
    table = {ACT: ACT_BYTES[precision], F32: 4, F32_FIXED: 4, I64: 8, MASK: 1}
    arr = np.array([table[c] for c in classes], dtype=np.int64)
    if len(_BPE_CACHE) > 64:
        _BPE_CACHE.clear()
    _BPE_CACHE[key] = (classes, arr)
    return arr


def _round(nbytes: np.ndarray, a: Assumptions) -> np.ndarray:
    """The caching allocator's rounding, element-wise."""
    block, seg = a.allocator_block_bytes, a.allocator_segment_bytes
    small = -(-nbytes // block) * block
    large = -(-nbytes // seg) * seg
    return np.where(nbytes >= a.allocator_large_threshold_bytes, large, small)


def _round_int(nbytes: int, a: Assumptions) -> int:
    if nbytes <= 0:
        return 0
    unit = (a.allocator_segment_bytes if nbytes >= a.allocator_large_threshold_bytes
            else a.allocator_block_bytes)
    return -(-nbytes // unit) * unit


def _workspace(p: _Prepared, batch: int, precision: str, a: Assumptions) -> np.ndarray:
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


def _fixed_terms(p: _Prepared, setup: Setup, a: Assumptions) -> tuple[int, int, int, int]:
    key = ("fixed", setup.precision, setup.optimizer, setup.mode, a)
    hit = p.grouped.get(key)
    if hit is None:
        hit = p.grouped[key] = _compute_fixed_terms(p, setup, a)
    return hit


def _compute_fixed_terms(p: _Prepared, setup: Setup,
                         a: Assumptions) -> tuple[int, int, int, int]:
    prec = setup.precision
    params = p.param_counts[p.param_counts > 0]
    weights = int(_round(params * WEIGHT_BYTES[prec], a).sum())
    overhead = a.cuda_context_bytes + a.library_handles_bytes
    if setup.mode == "infer":
        return overhead, weights, 0, 0
    grads = weights
    states = OPTIMIZER_STATES[setup.optimizer]
    optimizer = 0
    if MASTER_BYTES[prec]:
        optimizer += int(_round(params * MASTER_BYTES[prec], a).sum())
    if states:
        optimizer += states * int(_round(params * STATE_BYTES[prec], a).sum())
    return overhead, weights, grads, optimizer


def _variable_terms(p: _Prepared, setup: Setup, a: Assumptions, batch: int):
    """(activations, transient, workspace, per-storage saved bytes) at one batch size."""
    prec = setup.precision
    ws = _workspace(p, batch, prec, a)
    workspace = int(_round(ws, a).max()) if len(ws) else 0
    if setup.mode == "infer":
        nbytes = _round(p.st_elems * batch * _bpe(p.st_class, prec), a)
        n = len(p.analysis.layers)
        diff = np.zeros(n + 1, dtype=np.int64)
        np.add.at(diff, p.st_start, nbytes)
        np.add.at(diff, p.st_end + 1, -nbytes)
        live = np.cumsum(diff[:-1])
        return int(live.max()) if n else 0, 0, workspace, None
    per_tensor = np.where(p.saved_fixed, 1, batch)
    saved = _round(p.saved_elems * per_tensor * _bpe(p.saved_class, prec), a)
    act = int(saved.sum())
    if setup.checkpointing:
        act = _checkpointed(p, saved, batch, prec, a)
    pair = int(p.grad_pair_elems.max()) * batch * ACT_BYTES[prec] if len(p.grad_pair_elems) else 0
    transient = _round_int(pair, a)
    return act, transient, workspace, saved


def _peaks(p: _Prepared, setup: Setup, a: Assumptions, batches: np.ndarray) -> np.ndarray:
    """The peak at many batch sizes at once (the largest-batch search for every card)."""
    prec = setup.precision
    b = np.asarray(batches, dtype=np.int64)[None, :]
    fixed = sum(_fixed_terms(p, setup, a))
    total = np.full(b.shape[1], fixed, dtype=np.int64)
    if len(p.ws_layers):
        bpe = ACT_BYTES[prec]
        if a.conv_algorithm == "typical":
            ps, c = p.ws_groups("winograd")
            ws = np.minimum((ps[:, None] * b + c[:, None]) * bpe, a.workspace_cap_bytes)
        else:
            ps, c = p.ws_groups(a.conv_algorithm)
            ws = (ps[:, None] * b + c[:, None]) * bpe
        total += _round(ws, a).max(axis=0)
    if setup.mode == "infer":
        nbytes = _round((p.st_elems * _bpe(p.st_class, prec))[:, None] * b, a)
        n = len(p.analysis.layers)
        diff = np.zeros((n + 1, b.shape[1]), dtype=np.int64)
        np.add.at(diff, p.st_start, nbytes)
        np.add.at(diff, p.st_end + 1, -nbytes)
        return total + np.cumsum(diff[:-1], axis=0).max(axis=0)
    if setup.checkpointing:  # rare; one batch at a time
        return total + np.array([sum(_variable_terms(p, setup, a, int(x))[:2]) for x in b[0]],
                                dtype=np.int64)
    sizes, counts = p.saved_groups(prec)
    total += (_round(sizes[:, None] * b, a) * counts[:, None]).sum(axis=0)
    total += p.saved_fixed_bytes(a)
    if len(p.grad_pair_elems):
        total += _round(int(p.grad_pair_elems.max()) * ACT_BYTES[prec] * b[0], a)
    return total


def max_batch_many(draft: NetworkDraft | Analysis, setup: Setup, memories,
                   assumptions: Assumptions | None = None) -> np.ndarray:
    """The largest batch that fits each of several memory sizes (0 where none fits).

    One vectorised bisection for all of them: the peak does not depend on the card.
    """
    a = assumptions or Assumptions()
    analysis = draft if isinstance(draft, Analysis) else analyze(draft)
    p = _prepare(analysis)
    mem = np.asarray(memories, dtype=np.int64)
    if mem.ndim == 0:
        mem = mem[None]
    lo = np.zeros(len(mem), dtype=np.int64)  # fits (0 = nothing, trivially)
    hi = np.full(len(mem), MAX_BATCH + 1, dtype=np.int64)  # does not fit
    # Narrow both ends with the affine model first: peak(b) ≈ p1 + (b − 1)·slope. Rounding
    # distorts the slope between batch 1 and 2, so it is measured again near the first guess.
    p1, p2 = _peaks(p, setup, a, np.array([1, 2]))
    guess = np.clip(1 + (mem - p1) // max(int(p2 - p1), 1), 2, MAX_BATCH)
    slope = np.maximum((_peaks(p, setup, a, guess) - p1) // (guess - 1), 1)
    guess = np.clip(1 + (mem - p1) // slope, 1, MAX_BATCH)
    for factor in (1.0, 0.995, 1.005, 0.97, 1.03):
        probe = np.clip((guess * factor).astype(np.int64), 1, MAX_BATCH)
        fits = _peaks(p, setup, a, probe) <= mem
        lo = np.where(fits & (probe > lo), probe, lo)
        hi = np.where(~fits & (probe < hi), probe, hi)
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


def checkpoint_segments(n_layers: int) -> int:
    """Layers per segment under sequential checkpointing: √n, as checkpoint_sequential."""
    return max(1, int(round(n_layers ** 0.5)))


def _checkpointed(p: _Prepared, saved: np.ndarray, batch: int, prec: str, a: Assumptions) -> int:
    """Activations under gradient checkpointing: every segment's output is kept, and one
    segment's own saved tensors exist at a time while it is recomputed during backward."""
    n = len(p.analysis.layers)
    seg = checkpoint_segments(n)
    segment_of = p.saved_owner // seg
    per_segment = np.bincount(segment_of, weights=saved, minlength=n // seg + 1)
    bpe = ACT_BYTES[prec]
    boundaries = 0
    for end in range(seg - 1, n, seg):
        info = p.analysis.layers[end]
        elements = p.analysis.storages[info.output_storage].elements
        boundaries += _round_int(elements * batch * bpe, a)
    return int(boundaries + (per_segment.max() if len(per_segment) else 0))


def peak_bytes(analysis: Analysis, setup: Setup, assumptions: Assumptions | None = None) -> int:
    """Only the peak, quickly (used by the fit table and the largest-batch search)."""
    a = assumptions or Assumptions()
    p = _prepare(analysis)
    fixed = sum(_fixed_terms(p, setup, a))
    act, transient, workspace, _ = _variable_terms(p, setup, a, setup.batch_size)
    return fixed + act + transient + workspace


def estimate(draft: NetworkDraft | Analysis, setup: Setup,
             assumptions: Assumptions | None = None) -> MemoryEstimate:
    """The full estimate. Raises ``InvalidDraft`` (listing every problem) for a bad draft."""
    a = assumptions or Assumptions()
    analysis = draft if isinstance(draft, Analysis) else analyze(draft)
    p = _prepare(analysis)
    batch = setup.batch_size
    prec = setup.precision
    overhead, weights, grads, optimizer = _fixed_terms(p, setup, a)
    act, transient, workspace, saved = _variable_terms(p, setup, a, batch)

    n = len(analysis.layers)
    per_layer_act = np.zeros(n, dtype=np.int64)
    if saved is not None and len(saved):
        np.add.at(per_layer_act, p.saved_owner, saved)
    ws = _workspace(p, batch, prec, a)
    per_layer_ws = np.zeros(n, dtype=np.int64)
    if len(ws):
        per_layer_ws[p.ws_layers] = ws
    abpe = ACT_BYTES[prec]
    wbpe = WEIGHT_BYTES[prec]
    out_bytes = p.out_elems * batch * abpe
    act_traffic = (p.in_elems + np.where(p.out_elems > 0, p.out_numel, 0)) * batch * abpe
    w_traffic = p.weight_elems * wbpe
    bytes_fwd = act_traffic + w_traffic
    bytes_bwd = 2 * act_traffic + 2 * w_traffic
    train = setup.mode == "train"
    zeros = [0] * n
    layers = tuple(map(
        LayerEstimate,
        range(n),
        [info.name for info in analysis.layers],
        [info.kind for info in analysis.layers],
        [info.out_shape for info in analysis.layers],
        p.param_counts.tolist(),
        per_layer_act.tolist() if train else zeros,
        out_bytes.tolist(),
        (p.flops_fwd * batch).tolist(),
        (p.flops_bwd * batch).tolist() if train else zeros,
        bytes_fwd.tolist(),
        bytes_bwd.tolist() if train else zeros,
        per_layer_ws.tolist(),
    ))
    return MemoryEstimate(
        setup=setup, assumptions=a, parameters=int(p.param_counts.sum()), overhead=overhead,
        weights=weights, gradients=grads, optimizer=optimizer, activations=act,
        transient=transient, workspace=workspace, layers=layers, analysis=analysis,
    )


def max_batch(draft: NetworkDraft | Analysis, setup: Setup, memory_bytes: int,
              assumptions: Assumptions | None = None) -> int:
    """The largest batch whose peak fits in ``memory_bytes`` (0 if not even batch 1 fits).

    The peak is an affine function of the batch plus allocator rounding, which only adds and is
    bounded, so a guess from the affine part lands close; a bisection finishes the job.
    """
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
            rows.append(ClassicRow(info.name, numel(out) * batch * bpe, None, "activation only"))
            if len(out) == 3:
                article_side[info.name] = out[1:]
            prev = info
            continue
        if r.view or r.inplace:
            prev = info
            continue
        nbytes = 2 * numel(out) * batch * bpe
        article = None
        note = "activation + error"
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
                note = (f"the article took the output side as input − kernel "
                        f"({side[0]}×{side[1]} instead of {out[1]}×{out[2]})")
            else:
                article = None
        rows.append(ClassicRow(info.name, nbytes, article, note))
        prev = info
    return tuple(rows)


def with_batch(setup: Setup, batch: int) -> Setup:
    return replace(setup, batch_size=batch)
