"""Training across several GPUs: memory per GPU and speed, by strategy.

Memory per GPU (Ψ parameters; the ZeRO paper's per-parameter accounting):

* ``ddp``   — weights, gradients and optimizer state replicated on every GPU, plus DDP's
  gradient buckets (by default a flat copy of every gradient);
* ``zero1`` — optimizer state sharded: ÷ N;
* ``zero2`` — optimizer state and gradients sharded;
* ``zero3`` / ``fsdp`` — weights sharded too; the largest layers' full weights are gathered
  while they run (two layers in flight with prefetch).

Activations, workspace and overhead are per GPU at the per-GPU batch.

Speed: an iteration on N GPUs = the single-GPU compute at the per-GPU batch, plus the gradient
all-reduce (ring: 2(N−1)/N × gradient bytes over the slowest link; ZeRO-3/FSDP move 1.5× as
much) that is not hidden behind the backward pass, plus a synchronisation cost that grows like
the lag of the slowest of N GPUs (sqrt(2 ln N) step-time deviations). Typical frameworks hide
nothing and lose more to synchronisation; optimised code overlaps most communication. The
defaults give the article's figures (four GPUs: about 2.5–3× in typical frameworks, 3.6–3.8× in
optimised code on a convolutional network; a dense network, many weights and little compute,
gains much less), and the optimised one matches NVIDIA's and TensorFlow's measured 2–16-GPU
speed-ups on one node (benchmarks/speed_accuracy.py).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from planner.core.memory import (
    ACT_BYTES,
    MASTER_BYTES,
    OPTIMIZER_STATES,
    PARAM_BYTES,
    STATE_BYTES,
    MemoryEstimate,
)

if TYPE_CHECKING:  # the speed model is imported when a scaling is first asked for
    from planner.core.speed import CardLike, Workload

STRATEGIES = ("ddp", "zero1", "zero2", "zero3", "fsdp")
FRAMEWORKS = ("typical", "optimised")
MIB = 1024**2


@dataclass(frozen=True)
class ParallelAssumptions:
    """The guesses of the multi-GPU model, editable like the others."""

    framework: str = "typical"  # typical | optimised
    overlap_typical: float = 0.0  # share of communication hidden behind backward
    overlap_optimised: float = 0.9
    # Time lost to synchronisation: each step waits for the slowest of N GPUs, whose lag grows
    # like sqrt(2 ln N) step-time deviations (the expected maximum of N samples); the factor is
    # 1 + sync × sqrt(2 ln N). Typical: the article's 2.5–3× on four GPUs; optimised: fitted on
    # NVIDIA's DeepLearningExamples and TensorFlow's 2–16-GPU rows (benchmarks/speed_accuracy.py).
    sync_typical: float = 0.27
    sync_optimised: float = 0.04
    link_efficiency: float = 0.7  # share of a link's datasheet bandwidth an all-reduce gets
    network_gbs: float = 12.5  # between nodes (100 Gbit/s Ethernet/InfiniBand), GB/s
    zero_bucket_bytes: int = 2 * 200 * MIB  # ZeRO reduce + all-gather buckets in flight

    def __post_init__(self):
        if self.framework not in FRAMEWORKS:
            raise ValueError(f"framework '{self.framework}' is not one of "
                             f"{', '.join(FRAMEWORKS)}")
        if not 0 < self.link_efficiency <= 1 or self.network_gbs <= 0:
            raise ValueError("link efficiency must be in (0, 1] and network bandwidth > 0")

    @property
    def overlap(self) -> float:
        return self.overlap_optimised if self.framework == "optimised" else self.overlap_typical

    @property
    def sync(self) -> float:
        return self.sync_optimised if self.framework == "optimised" else self.sync_typical


@dataclass(frozen=True)
class Parallel:
    gpus: int = 1  # per node
    nodes: int = 1
    strategy: str = "ddp"

    def __post_init__(self):
        if not isinstance(self.gpus, int) or not 1 <= self.gpus <= 64:
            raise ValueError(f"GPUs per node must be 1 to 64, not {self.gpus!r}")
        if not isinstance(self.nodes, int) or not 1 <= self.nodes <= 4096:
            raise ValueError(f"nodes must be 1 to 4096, not {self.nodes!r}")
        if self.strategy not in STRATEGIES:
            raise ValueError(f"strategy '{self.strategy}' is not one of {', '.join(STRATEGIES)}")

    @property
    def world(self) -> int:
        return self.gpus * self.nodes


@dataclass(frozen=True)
class PerGpuMemory:
    parallel: Parallel
    overhead: int
    weights: int
    gradients: int
    optimizer: int
    activations: int
    transient: int
    workspace: int
    communication: int
    gathered: int  # full weights of the layers being run (ZeRO-3 / FSDP)
    weight_copies: int = 0
    allocator: int = 0

    @property
    def peak(self) -> int:
        return sum(self.terms().values())

    def terms(self) -> dict[str, int]:
        return {"overhead": self.overhead, "weights": self.weights,
                "weight_copies": self.weight_copies,
                "gradients": self.gradients, "optimizer": self.optimizer,
                "activations": self.activations, "transient": self.transient,
                "workspace": self.workspace, "allocator": self.allocator,
                "communication": self.communication, "gathered": self.gathered}


def per_gpu_memory(est: MemoryEstimate, parallel: Parallel,
                   pa: ParallelAssumptions | None = None) -> PerGpuMemory:
    """Memory on each GPU; ``est`` is the single-GPU estimate at the per-GPU batch.

    The same simulated step, with the sharded categories divided by the GPU count at every
    point (so the peak may move), plus what the strategy holds throughout: DDP's gradient
    buckets, ZeRO's reduce/gather buckets, and under ZeRO-3 / FSDP the full weights of the two
    largest layers gathered while they run.
    """
    pa = pa or ParallelAssumptions()
    n = parallel.world
    s = parallel.strategy
    comm = 0
    gathered = 0
    divide: dict[str, int] = {}
    train = est.setup.mode == "train"
    if n > 1 and train:
        grads_total = est.step_totals.get("gradients", est.gradients)
        if s == "ddp":
            comm = grads_total  # DDP's buckets: a flat copy of the gradients
        else:
            comm = min(grads_total, pa.zero_bucket_bytes)
            divide["optimizer"] = n
            if s in ("zero2", "zero3", "fsdp"):
                divide["gradients"] = n
            if s in ("zero3", "fsdp"):
                divide["weights"] = n
                largest = sorted((layer.parameters for layer in est.layers), reverse=True)[:2]
                gathered = sum(largest) * PARAM_BYTES[est.setup.precision]
    if est.events is None or est.point_allocated is None:
        t = est.terms()
    else:
        _, t = est.rescaled(divide)
    return PerGpuMemory(parallel, t["overhead"], t["weights"], t["gradients"], t["optimizer"],
                        t["activations"], t["transient"], t["workspace"], comm, gathered,
                        t["weight_copies"], t["allocator"])


def parameter_bytes_per_parameter(precision: str, optimizer: str) -> int:
    """Bytes per parameter of weights + gradients + optimizer state (16 for mixed Adam: fp32
    weights and gradients under autocast, two fp32 moments)."""
    w = PARAM_BYTES[precision]
    return 2 * w + MASTER_BYTES[precision] + OPTIMIZER_STATES[optimizer] * STATE_BYTES[precision]


_NVLINK = re.compile(r"(\d+(?:\.\d+)?)\s*GB/s")
_PCIE_GBS = {1: 4.0, 2: 8.0, 3: 15.75, 4: 31.5, 5: 63.0, 6: 126.0}  # x16, one direction


def link_gbs(card, parallel: Parallel, pa: ParallelAssumptions) -> tuple[float, str]:
    """The slowest link an all-reduce crosses, GB/s at datasheet rate, and its name."""
    if parallel.nodes > 1:
        return pa.network_gbs, f"network {pa.network_gbs:g} GB/s"
    nvlink = getattr(card, "nvlink", None)
    if nvlink and parallel.gpus <= 2 or nvlink and "bridge" not in nvlink:
        m = _NVLINK.search(nvlink)
        if m:
            # NVLink figures are bidirectional totals; an all-reduce step uses one direction.
            return float(m.group(1)) / 2, nvlink
    gen = getattr(card, "pcie_gen", None) or 3
    return _PCIE_GBS.get(gen, 15.75), f"PCIe {gen}.0 x16"


def straggler(n: int) -> float:
    """How far the slowest of ``n`` GPUs lags, in step-time deviations: sqrt(2 ln n)."""
    return math.sqrt(2 * math.log(n)) if n > 1 else 0.0


@dataclass(frozen=True)
class ScalingPoint:
    gpus: int
    time_per_iter_s: float
    samples_per_s: float
    speedup: float
    communication_s: float


def scaling(work: Workload, card: CardLike, precision: str, gradient_bytes: int,
            parallel: Parallel, pa: ParallelAssumptions | None = None,
            assumptions=None, *, max_gpus: int | None = None) -> list[ScalingPoint]:
    """Speed on 1…N GPUs (N = the plan's world size, or ``max_gpus``) of data-parallel
    training with the per-GPU batch fixed."""
    pa = pa or ParallelAssumptions()
    from planner.core.speed import iteration_time  # noqa: PLC0415 (off the start-up path)

    single = iteration_time(work, card, precision, assumptions)
    t1 = single.time_per_iter_s
    bwd_share = 2 / 3 if work.train else 0.0  # backward ≈ two thirds of the compute
    bandwidth, _ = link_gbs(card, parallel, pa)
    bandwidth *= 1e9 * pa.link_efficiency
    volume = 1.5 if parallel.strategy in ("zero3", "fsdp") else 1.0
    top = max_gpus or parallel.world
    out = []
    for n in range(1, top + 1):
        if n == 1 or not work.train:
            comm = 0.0
        else:
            comm = volume * 2 * (n - 1) / n * gradient_bytes / bandwidth
        hidden = min(comm * pa.overlap, t1 * bwd_share)
        t = t1 * (1 + pa.sync * straggler(n)) + comm - hidden if n > 1 else t1
        samples = n * work.batch / t if t else 0.0
        out.append(ScalingPoint(n, t, samples, samples / single.samples_per_s
                                if single.samples_per_s else 0.0, comm - hidden))
    return out


def copies_that_fit(peak_bytes: int, usable_bytes: int) -> int:
    """Independent runs of the plan one card holds (each with its own CUDA context)."""
    return max(0, usable_bytes // peak_bytes) if peak_bytes > 0 else 0


def gradient_bytes(est: MemoryEstimate) -> int:
    """What an all-reduce moves: one gradient per parameter in the training precision."""
    return est.parameters * ACT_BYTES[est.setup.precision]
