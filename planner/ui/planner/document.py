"""The open plan: draft, setup, assumptions, file path, undo stack and the current result.

Every change goes through the undo stack (``PlanCommand`` swaps immutable plans) and ends in
``set_plan``, which computes the plan once (``planner.core.plan.compute_plan``: analysis,
simulated step, memory per GPU, workload) synchronously (a few ms) and emits ``plan_changed``
once, so every view updates within the same frame from the same frozen ``PlanResult``
(``result``); no view computes it again.

The several-GPU setting (``parallel``: GPUs per node, nodes, strategy) is saved with the plan
file. ``set_parallel`` recomputes like a change of assumptions (not undoable); ``per_gpu`` is
then the memory on each GPU.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoStack

from planner.core.layers import LayerSpec
from planner.core.memory import Assumptions, MemoryEstimate
from planner.core.network import Analysis, NetworkDraft, Setup
from planner.core.parallel import Parallel, PerGpuMemory
from planner.core.plan import PlanResult, compute_plan
from planner.ui.i18n import tr_msg, tr_problem
from planner.ui.planner.commands import (
    ApplySuggestionCommand,
    BlockCommand,
    ChangeSetupCommand,
    EditLayerCommand,
    InsertLayerCommand,
    MoveLayerCommand,
    RemoveLayerCommand,
)


UNDO_LIMIT = 1000


class PlanDocument(QObject):
    """One plan being edited. Views read its properties and listen to ``plan_changed``."""

    plan_changed = Signal()  # draft, setup or assumptions changed; estimate recomputed
    path_changed = Signal()  # the file it belongs to (or its name) changed
    current_row_changed = Signal(int)  # an edit wants this layer row shown

    def __init__(self, draft: NetworkDraft, setup: Setup, assumptions: Assumptions,
                 parent: QObject | None = None, *, parallel: Parallel | None = None):
        super().__init__(parent)
        self.undo_stack = QUndoStack(self)
        self.undo_stack.setUndoLimit(UNDO_LIMIT)  # each step holds two immutable plans
        self._draft = draft
        self._setup = setup
        self._assumptions = assumptions
        self._path: Path | None = None
        self.current_row = 0
        self._last_good: MemoryEstimate | None = None
        self._failure: str | None = None
        self._parallel = parallel or Parallel()
        self._result: PlanResult
        self._recompute()

    # ---- state ---------------------------------------------------------------------------
    @property
    def draft(self) -> NetworkDraft:
        return self._draft

    @property
    def setup(self) -> Setup:
        return self._setup

    @property
    def assumptions(self) -> Assumptions:
        return self._assumptions

    @property
    def result(self) -> PlanResult:
        """The current plan's numbers, computed once per change (see the module docstring)."""
        return self._result

    @property
    def analysis(self) -> Analysis:
        return self._result.analysis

    @property
    def estimate(self) -> MemoryEstimate | None:
        """The estimate of the current plan, or None while the draft has problems."""
        return self._result.estimate

    @property
    def last_good_estimate(self) -> MemoryEstimate | None:
        """The last estimate computed without problems (shown greyed while there are some)."""
        return self._last_good

    @property
    def failure(self) -> str | None:
        """Why there is no estimate: the problems, one per line (None when there is one)."""
        return self._failure

    @property
    def parallel(self) -> Parallel:
        """GPUs per node, nodes and strategy (the batch size is per GPU)."""
        return self._parallel

    @property
    def per_gpu(self) -> PerGpuMemory | None:
        """Memory on each GPU when the run spans several (None on one GPU or without an
        estimate)."""
        return self._result.per_gpu

    @property
    def peak_per_gpu(self) -> int | None:
        """What one card must hold: the per-GPU peak on several GPUs, else the peak."""
        return self._result.peak_per_gpu

    @property
    def global_batch(self) -> int:
        return self._setup.batch_size * self._parallel.world

    @property
    def path(self) -> Path | None:
        return self._path

    @property
    def modified(self) -> bool:
        return not self.undo_stack.isClean()

    # ---- whole-plan changes (not undoable: they start a new history) ----------------------
    def load(self, draft: NetworkDraft, setup: Setup, path: Path | None,
             *, modified: bool = False, prepared=None) -> None:
        """``prepared``: (analysis, estimate, assumptions) worked out off the GUI thread for
        this very draft and setup (File ▸ Open); used when they still match, else redone."""
        self.undo_stack.clear()
        self._path = Path(path) if path is not None else None
        self._prepared = prepared
        try:
            self.set_plan(draft, setup, select=0)
        finally:
            self._prepared = None
        if modified:
            self.undo_stack.resetClean()  # clean index -1: modified until saved
        else:
            self.undo_stack.setClean()
        self.path_changed.emit()

    def mark_saved(self, path: Path) -> None:
        self._path = Path(path)
        self.undo_stack.setClean()
        self.path_changed.emit()

    def set_assumptions(self, assumptions: Assumptions) -> None:
        if assumptions != self._assumptions:
            self._assumptions = assumptions
            self._recompute()
            self.plan_changed.emit()

    def set_parallel(self, parallel: Parallel) -> None:
        if parallel != self._parallel:
            self._parallel = parallel
            self._recompute()
            self.plan_changed.emit()

    # ---- called by the undo commands ------------------------------------------------------
    def set_plan(self, draft: NetworkDraft, setup: Setup, *, select: int | None = None) -> None:
        self._draft = draft
        self._setup = setup
        self._recompute()
        if select is not None and draft.layers:
            self.current_row = max(0, min(select, len(draft.layers) - 1))
        self.plan_changed.emit()
        if select is not None:
            self.current_row_changed.emit(self.current_row)

    @property
    def is_empty(self) -> bool:
        """A plan with nothing but its input (File ▸ New): there is nothing to estimate."""
        return self._result.is_empty

    def _recompute(self) -> None:
        prepared = getattr(self, "_prepared", None)
        analysis = est = None
        if prepared is not None and prepared[0].draft is self._draft:
            analysis = prepared[0]
            if prepared[1] is not None and prepared[2] == self._assumptions:
                est = prepared[1]
        result = compute_plan(self._draft, self._setup, self._assumptions, self._parallel,
                              analysis=analysis, prepared=est)
        self._result = result
        if result.problems:
            self._failure = "\n".join(tr_problem(p) for p in result.problems)
        elif result.failure is not None:
            self._failure = tr_msg(result.failure)
        else:
            self._failure = None
        if result.estimate is not None:
            self._last_good = result.estimate

    # ---- undoable edits --------------------------------------------------------------------
    def edit_layer(self, row: int, layer: LayerSpec, *, merge_key=None) -> None:
        if self._draft.layers[row] == layer:
            return
        draft = self._draft.replace_layer(row, layer)
        self.undo_stack.push(EditLayerCommand(self, row, draft, merge_key=merge_key))

    def insert_layer(self, row: int, layer: LayerSpec, text: str) -> None:
        row = max(0, min(row, len(self._draft.layers)))
        self.undo_stack.push(InsertLayerCommand(self, row, self._draft.insert_layer(row, layer),
                                                text))

    def remove_layer(self, row: int) -> None:
        if not 0 <= row < len(self._draft.layers) or len(self._draft.layers) <= 1:
            return
        self.undo_stack.push(RemoveLayerCommand(self, row, self._draft.remove_layer(row)))

    def move_layer(self, row: int, to: int) -> None:
        n = len(self._draft.layers)
        if not (0 <= row < n and 0 <= to < n) or row == to:
            return
        self.undo_stack.push(MoveLayerCommand(self, row, to, self._draft.move_layer(row, to)))

    # ---- repeated blocks (Edit ▸ Repeat Layers…, Set Copies…, Unrepeat Block) ---------------
    def repeat_layers(self, start: int, end: int, times: int) -> None:
        """Layers ``start``…``end - 1`` become a block of ``times`` copies (one undo step);
        raises RepeatError (naming why) when they cannot."""
        from planner.core.repeat import block_name, repeat_range  # noqa: PLC0415

        draft = self._draft
        name = block_name(draft.layers, draft.repeats)
        layers, repeats = repeat_range(draft.layers, draft.repeats, start, end, times, name)
        after = dataclasses.replace(draft, layers=tuple(layers), repeats=repeats)
        self.undo_stack.push(BlockCommand(self, "repeat", name, times, after, select=start))

    def block(self, name: str):
        """The repeated block named ``name`` (a ``planner.core.repeat.Repeat``); KeyError."""
        for rep in self._draft.repeats:
            if rep.name == name:
                return rep
        raise KeyError(name)

    def set_block_times(self, name: str, times: int, *, merge: bool = False) -> None:
        """The block named ``name`` gets ``times`` copies (one undo step; ``merge``: steps of
        a spin box within a moment are one step)."""
        from planner.core.repeat import set_times  # noqa: PLC0415

        rep = self.block(name)
        if times == rep.times:
            return
        layers, repeats = set_times(self._draft.layers, self._draft.repeats, rep, times)
        after = dataclasses.replace(self._draft, layers=tuple(layers), repeats=repeats)
        self.undo_stack.push(BlockCommand(self, "times", name, times, after, select=rep.first,
                                          merge_key=("copies", name) if merge else None))

    def unrepeat_block(self, name: str) -> None:
        """The block named ``name`` turned back into plain layers, one copy (one undo step)."""
        from planner.core.repeat import unrepeat  # noqa: PLC0415

        rep = self.block(name)
        layers, repeats = unrepeat(self._draft.layers, self._draft.repeats, rep)
        after = dataclasses.replace(self._draft, layers=tuple(layers), repeats=repeats)
        self.undo_stack.push(BlockCommand(self, "unrepeat", name, 1, after, select=rep.first))

    def change_setup(self, setup: Setup, field: str) -> None:
        if setup != self._setup:
            self.undo_stack.push(ChangeSetupCommand(self, setup, field))

    def apply_plan(self, title: str, draft: NetworkDraft, setup: Setup) -> None:
        """Replace draft and setup together as one undoable step (a reduction suggestion)."""
        self.undo_stack.push(ApplySuggestionCommand(self, title, draft, setup))

    def select_row(self, row: int) -> None:
        self.current_row = row
