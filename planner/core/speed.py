"""How fast an iteration runs on a card: a roofline per layer, forward and backward.

For each layer and pass::

    time = max(FLOPs ÷ achievable FLOP/s, bytes moved ÷ achievable bandwidth) + launch cost

* achievable FLOP/s = the datasheet rate for the precision × an efficiency × the architecture's
  factor × utilisation. FP32 uses the CUDA cores; fp16 / bf16 / mixed use the tensor cores where
  the card has them (FP32 accumulate, as mixed-precision training does); a card without them
  runs 16-bit math at its FP16 rate, or — where that rate is crippled, as on consumer Pascal —
  at its FP32 rate with 16-bit storage (what cuDNN does there).
* achievable bandwidth = datasheet GB/s × an efficiency (the article: bandwidth is the figure
  that matters most; most layers of a CNN's backward pass are bound by it).
* utilisation = min(1, independent outputs of the kernel ÷ (CUDA cores × outputs per core
  needed to fill the card)): a small network (the article's 128-unit LSTM) does not fill a big
  card, so a big card is barely faster on it.

Every factor is in ``Assumptions``. Qt-free, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from planner.core.memory import ACT_BYTES, WEIGHT_BYTES, Assumptions, _prepare
from planner.core.network import Analysis, Setup


class CardLike(Protocol):
    """What the speed model needs of a card (catalog.GpuSpec has it all)."""

    name: str
    architecture: str
    bandwidth_gbs: float
    fp32_tflops: float
    fp16_tflops: float | None
    has_tensor_cores: bool
    fp16_tensor_tflops: float | None
    fp16_tensor_fp32acc_tflops: float | None
    bf16_tensor_tflops: float | None
    cuda_cores: int | None
    boost_clock_mhz: int | None


@dataclass(frozen=True)
class Rates:
    flops_per_s: float  # achievable at full utilisation
    bytes_per_s: float
    cores: float
    path: str  # "FP32 cores", "tensor cores (FP16)", ...


def rates(card: CardLike, precision: str, a: Assumptions) -> Rates:
    arch = a.arch_factor(card.architecture)
    fp32 = card.fp32_tflops * 1e12
    peak, eff, path = fp32, a.compute_efficiency, "FP32 cores"
    if precision in ("fp16", "mixed", "bf16", "mixed_bf16"):
        if precision in ("bf16", "mixed_bf16"):
            tensor = card.bf16_tensor_tflops
            label = "tensor cores (BF16)"
        else:
            tensor = card.fp16_tensor_fp32acc_tflops or card.fp16_tensor_tflops
            label = "tensor cores (FP16)"
        if card.has_tensor_cores and tensor:
            peak, eff, path = tensor * 1e12, a.tensor_efficiency, label
        elif precision in ("fp16", "mixed") and card.fp16_tflops and card.fp16_tflops * 1e12 > fp32:
            peak, path = card.fp16_tflops * 1e12, "FP16 cores"
        else:
            path = "FP32 cores, 16-bit storage"
    cores = card.cuda_cores
    if not cores:
        clock = (card.boost_clock_mhz or 1500) * 1e6
        cores = fp32 / (2 * clock)
    return Rates(peak * eff * arch, card.bandwidth_gbs * 1e9 * a.memory_efficiency * arch,
                 float(cores), path)


@dataclass(frozen=True, eq=False)
class Workload:
    """Per-layer FLOPs, bytes and parallelism of one iteration (batch included)."""

    flops: np.ndarray  # forward (+ backward when training), per layer
    nbytes: np.ndarray
    work: np.ndarray  # independent outputs per kernel (batch included)
    launches: np.ndarray  # kernel launches per iteration
    batch: int
    train: bool


def workload(analysis: Analysis, setup: Setup) -> Workload:
    """Everything the roofline needs, computed once per plan and reused for every card."""
    p = _prepare(analysis)
    b = setup.batch_size
    abpe, wbpe = ACT_BYTES[setup.precision], WEIGHT_BYTES[setup.precision]
    # Views (flatten) move nothing; in-place layers still read and write every element.
    moves = np.array([not info.result.view for info in analysis.layers], dtype=bool)
    act = np.where(moves, p.in_elems + p.out_numel, 0) * b * abpe
    w = p.weight_elems * wbpe
    par = np.array([(info.result.parallel_elements or max(int(p.out_numel[i]), 1))
                    for i, info in enumerate(analysis.layers)], dtype=np.float64)
    steps = np.array([info.result.sequential_steps for info in analysis.layers],
                     dtype=np.float64)
    train = setup.mode == "train"
    fwd_repeats = 2 if (train and setup.checkpointing) else 1
    flops_fwd = p.flops_fwd.astype(np.float64) * b
    flops = flops_fwd * fwd_repeats
    nbytes = (act + w).astype(np.float64) * fwd_repeats
    launches = steps * fwd_repeats
    if train:
        flops = flops + p.flops_bwd.astype(np.float64) * b
        nbytes = nbytes + 2 * (act + w)
        launches = launches + 2 * steps
    # The input layer does no work.
    flops[0] = nbytes[0] = launches[0] = 0
    return Workload(flops, nbytes, par * b, launches, b, train)


@dataclass(frozen=True)
class SpeedEstimate:
    card: str
    time_per_iter_s: float
    samples_per_s: float
    compute_bound_fraction: float  # share of the time in compute-bound layers
    utilisation: float  # FLOP-weighted mean utilisation
    path: str


def iteration_time(w: Workload, card: CardLike, precision: str,
                   a: Assumptions | None = None) -> SpeedEstimate:
    a = a or Assumptions()
    r = rates(card, precision, a)
    saturate = r.cores * a.saturation_items_per_core
    util = np.minimum(1.0, w.work / saturate)
    t_compute = w.flops / (r.flops_per_s * util)
    t_memory = w.nbytes / (r.bytes_per_s * np.sqrt(util))
    t = np.maximum(t_compute, t_memory) + w.launches * a.kernel_launch_s
    total = float(t.sum())
    compute_share = float(t[t_compute >= t_memory].sum() / total) if total else 0.0
    flop_total = float(w.flops.sum())
    mean_util = float((util * w.flops).sum() / flop_total) if flop_total else 1.0
    return SpeedEstimate(card.name, total, w.batch / total if total else 0.0, compute_share,
                         mean_util, r.path)
