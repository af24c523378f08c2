"""The plan, computed once: ``compute_plan`` → a frozen ``PlanResult``.

Everything that shows a plan's numbers — the Planner's breakdown and charts, the fit table, the
several-GPUs view, the advisor, the CLI — reads them from one ``PlanResult``: the analysis, the
estimate (the simulated step), the memory on each GPU when the run spans several, what sharding
saves, the gradient bytes an all-reduce moves and the workload the speed model times. No
consumer runs ``estimate``, ``per_gpu_memory`` or ``workload`` again for the same plan.

A plan with problems has ``estimate`` None and ``failure`` saying why (a core ``Msg`` or the
analysis's problems); an empty plan (nothing but its input) has neither.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from planner.core.memory import Assumptions, MemoryEstimate, estimate
from planner.core.network import Analysis, NetworkDraft, Setup, analyze
from planner.core.parallel import Parallel, PerGpuMemory, gradient_bytes, per_gpu_memory
from planner.i18n import message_of

if TYPE_CHECKING:  # the speed model is imported when a workload is first asked for
    from planner.core.speed import Workload


@dataclass(frozen=True, eq=False)
class PlanResult:
    """One plan's numbers (see the module's docstring). Compared by identity: a new edit
    makes a new result."""

    draft: NetworkDraft
    setup: Setup
    assumptions: Assumptions
    parallel: Parallel
    analysis: Analysis
    estimate: MemoryEstimate | None = None
    per_gpu: PerGpuMemory | None = None  # None on one GPU or without an estimate
    failure: object = None  # why there is no estimate: a Msg / text, or None
    problems: tuple = field(default=())  # the analysis's problems, when that is why

    @property
    def is_empty(self) -> bool:
        """Nothing but the input (File ▸ New): there is nothing to estimate."""
        return all(layer.kind == "input" for layer in self.draft.layers)

    @property
    def ok(self) -> bool:
        return self.estimate is not None

    @property
    def peak_per_gpu(self) -> int | None:
        """What one card must hold: the per-GPU peak on several GPUs, else the peak."""
        if self.estimate is None:
            return None
        return self.per_gpu.peak if self.per_gpu is not None else self.estimate.peak

    @property
    def sharding_saves(self) -> int:
        """Bytes each GPU holds less than one GPU alone would (ZeRO/FSDP sharding; DDP adds
        its buckets, so this can be negative)."""
        if self.estimate is None or self.per_gpu is None:
            return 0
        return self.estimate.peak - self.per_gpu.peak

    @property
    def global_batch(self) -> int:
        return self.setup.batch_size * self.parallel.world

    @cached_property
    def gradients(self) -> int:
        """What an all-reduce moves each step (0 without an estimate)."""
        return gradient_bytes(self.estimate) if self.estimate is not None else 0

    @cached_property
    def workload(self) -> Workload | None:
        """What the speed model times (None while the plan has problems)."""
        from planner.core.speed import workload  # noqa: PLC0415 (off the start-up path)

        return workload(self.analysis, self.setup) if self.analysis.ok else None


def compute_plan(draft: NetworkDraft | None, setup: Setup, assumptions: Assumptions | None = None,
                 parallel: Parallel | None = None, *, analysis: Analysis | None = None,
                 prepared: MemoryEstimate | None = None) -> PlanResult:
    """Analyse and estimate one plan. ``analysis`` / ``prepared``: an analysis and an estimate
    worked out before (off the GUI thread) for this very draft, setup and assumptions; an
    estimate for another setup or other assumptions is not used. Never raises for a bad
    draft: the result says what is wrong."""
    a = assumptions or Assumptions()
    par = parallel or Parallel()
    if analysis is None or (draft is not None and analysis.draft is not draft):
        analysis = analyze(draft)
    draft = analysis.draft
    base = dict(draft=draft, setup=setup, assumptions=a, parallel=par, analysis=analysis)
    if all(layer.kind == "input" for layer in draft.layers):
        return PlanResult(**base)
    if not analysis.ok:
        return PlanResult(**base, failure="\n".join(map(str, analysis.problems)),
                          problems=tuple(analysis.problems))
    try:
        if prepared is not None and prepared.setup == setup and prepared.assumptions == a:
            est = prepared
        else:
            est = estimate(analysis, setup, a)
    except (ValueError, ArithmeticError) as exc:  # InvalidDraft is a ValueError
        return PlanResult(**base, failure=message_of(exc))
    per_gpu = per_gpu_memory(est, par) if par.world > 1 else None
    return PlanResult(**base, estimate=est, per_gpu=per_gpu)
