"""The Planner pane: draft a network, set how it runs, see its memory footprint.

Left: the run settings, the layer table (inline editing), the problems line and the selected
layer's properties. Right: the peak and its stacked breakdown, then tabs with the per-layer chart,
the per-layer table, the article's accounting, the "what would help" list, how the plan fits on
every card of the catalog ("Fits on each card", a ``FitView`` built when first shown) and how it
scales over several GPUs ("Several GPUs", a ``ScalingView``).

Several GPUs: the run settings include GPUs per node, nodes and the strategy (DDP, ZeRO 1/2/3,
FSDP). With more than one GPU the breakdown shows the memory on each GPU (communication buffers
and gathered weights included) and the global batch; the batch size stays per GPU.

Every change goes through the document's undo stack; the document recomputes synchronously and
emits ``plan_changed`` once, and ``_on_plan_changed`` refreshes every view in the same frame.

The pane composes; its parts live beside it: ``sections`` builds the widgets (actions and
menus, the run settings, the editor, the results and their tables), ``blocks`` keeps the layer
edit actions and the repeated blocks of the layer table, ``views`` builds the result views on
first use and fills the one shown.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QItemSelectionModel,
    QModelIndex,
    QSortFilterProxyModel,
    Signal,
    Slot,
)
from PySide6.QtWidgets import (
    QDialog,
    QInputDialog,
    QLabel,
    QSizePolicy,
    QTableView,
    QWidget,
)

from planner.core.layers import LayerSpec
from planner.core.fit import largest_batch, largest_batch_explained
from planner.core.memory import Assumptions
from planner.core.parallel import Parallel
from planner.ui.planner.document import PlanDocument
from planner.ui.planner.layer_table import COL_NAME
if TYPE_CHECKING:  # built on first use, off the start-up path
    from planner.ui.planner.charts import LayerChart, StepChart
    from planner.ui.planner.parallel_view import ScalingView
    from planner.ui.planner.results import (
        ClassicTableModel,
        LayerEstimateTableModel,
        SuggestionTableModel,
    )
from planner.units import GIB, format_bytes
from planner.ui.i18n import arg, exc_text, tr_msg, tr_problem
from planner.ui.planner import blocks, sections, views


class _BuiltOnUse:
    """An attribute of the Planner's result tables, which are built the first time one of them
    is shown or asked for (``PlannerPane._ensure_tables``)."""

    def __set_name__(self, owner, name: str) -> None:
        self.slot = "_" + name

    def __get__(self, pane, owner=None):
        if pane is None:
            return self
        pane._ensure_tables()
        return getattr(pane, self.slot)

    def __set__(self, pane, value) -> None:
        setattr(pane, self.slot, value)


class PlannerPane(QWidget):
    """The Planner pane. ``actions`` holds the layer edit actions the main window's Edit menu
    shows; the pane's own tool bar shows the same actions."""

    status_changed = Signal(str)  # one line for the status bar: the peak, or why there is none
    card_activated = Signal(str)  # a card was double-clicked in the fit view
    assumptions_changed = Signal(object)  # the user edited the assumptions (to persist them)
    message = Signal(str)  # a transient message (a rejected edit)
    view_built = Signal(str, object)  # a view built on first show ("fit", "scaling"): its layout

    def __init__(self, document: PlanDocument, parent: QWidget | None = None, *,
                 memory_gib: float = 24.0, catalog=None, defer_views: bool = False):
        super().__init__(parent)
        self.setObjectName("planner_pane")
        self._doc = document
        # defer_views: the result view shown (a chart, a table) waits for ``finish_start``
        # (the window calls it after its first picture); otherwise it is built at once.
        self._views_deferred = defer_views
        self._catalog = catalog
        self._owned_names: tuple[str, ...] = ()  # detected by the monitor
        self._fit_dirty = True
        self._scaling_dirty = True
        self.fit_view = None  # built when its tab is first shown (ensure_fit_view)
        self.format_bytes = format_bytes
        self._suggestions_dirty = True
        self._tables_dirty = True
        self._selecting = False
        sections.build_actions(self)
        sections.build_ui(self, memory_gib)
        document.plan_changed.connect(self._on_plan_changed)
        document.current_row_changed.connect(self._on_current_row_changed)
        self._on_plan_changed()
        self._on_current_row_changed(document.current_row)

    # ------------------------------------------------------------------------------------------
    # Construction
    # ------------------------------------------------------------------------------------------

    @Slot()
    def fill_kind_menus(self) -> None:
        """The layer types of Add Layer of Type and Insert Layer Before (done when either is
        first opened: they are not needed for the first picture)."""
        sections.fill_kind_menus(self)

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        if self._initial_split is not None:
            if self.splitter.sizes() == self._initial_split:  # no saved layout restored
                total = max(self.splitter.width(), self.width() - 12)
                results = max(730, int(total * 0.6))
                editor = max(260, total - results)
                self.splitter.setSizes([editor, total - editor])
            self._initial_split = None

    def _ensure_tables(self) -> None:
        """Build the per-layer table, the article's accounting and "What would help" (their
        models and views), once."""
        sections.ensure_tables(self)

    # The result tables' models and views: built when first asked for (``_ensure_tables``).
    estimate_model: LayerEstimateTableModel = _BuiltOnUse()
    estimate_proxy: QSortFilterProxyModel = _BuiltOnUse()
    estimate_view: QTableView = _BuiltOnUse()
    classic_model: ClassicTableModel = _BuiltOnUse()
    classic_view: QTableView = _BuiltOnUse()
    suggestion_model: SuggestionTableModel = _BuiltOnUse()
    suggestion_view: QTableView = _BuiltOnUse()
    suggestion_empty: QLabel = _BuiltOnUse()

    # ------------------------------------------------------------------------------------------
    # Public
    # ------------------------------------------------------------------------------------------
    # The result tabs, by name (each view is built or filled when its tab is first shown).
    RESULT_TABS = ("layer_chart", "step", "layers", "classic", "suggestions", "fit", "scaling")

    def _result_tab_index(self) -> dict[str, int]:
        return {"layer_chart": self._chart_tab, "step": self._step_tab,
                "layers": self._table_tab, "classic": self._classic_tab,
                "suggestions": self._suggestion_tab, "fit": self._fit_tab,
                "scaling": self._scaling_tab}

    def result_tab(self) -> str:
        """The result tab shown: one of ``RESULT_TABS``."""
        i = self.tabs.currentIndex()
        return next((name for name, k in self._result_tab_index().items() if k == i), "")

    def show_result_tab(self, name: str) -> None:
        """Show the result tab ``name`` (one of ``RESULT_TABS``; KeyError for another), built
        and filled now."""
        index = self._result_tab_index()[name]
        deferred, self._views_deferred = self._views_deferred, False
        self.tabs.setCurrentIndex(index)
        if deferred:
            self._refresh_current_tab()

    @property
    def document(self) -> PlanDocument:
        return self._doc

    def memory_bytes(self) -> int:
        return round(self.memory_spin.value() * GIB)

    def memory_gib(self) -> float:
        """The card memory the plan is checked against (the window keeps it between starts)."""
        return self.memory_spin.value()

    def refresh_prices(self) -> None:
        """Show the prices again (the display currency changed)."""
        if self.fit_view is not None:
            self.fit_view.recompute()

    # ---- the catalog, the user's cards, units --------------------------------------------
    @property
    def catalog(self):
        return self._catalog

    def set_catalog(self, catalog) -> None:
        """A new catalog (the user edited a price, added a card, marked one as theirs)."""
        self._catalog = catalog
        self.tabs.setTabEnabled(self._fit_tab, catalog is not None)
        self._push_catalog()
        if self.tabs.currentIndex() == self._fit_tab:  # e.g. restored as the last tab shown
            self._refresh_current_tab()

    def set_owned_cards(self, names) -> None:
        """Catalog names of the cards this computer has (from the monitor): highlighted as the
        user's own in the fit view, and the scaling view's default card."""
        names = tuple(dict.fromkeys(names))
        if names != self._owned_names:
            self._owned_names = names
            self._push_catalog()

    def _push_catalog(self) -> None:
        views.push_catalog(self)

    @property
    def chart(self) -> LayerChart:
        """The per-layer chart, built on first use with the plan's estimate (after the window's
        first picture, when its tab is shown, or when asked for)."""
        return views.chart(self)

    def _set_chart_selected(self, rows) -> None:
        self._chart_selected = rows
        if self._chart is not None:
            self._chart.set_selected(rows)

    @property
    def step_chart(self) -> StepChart:
        """The memory-over-the-step chart, built on first use with the plan's estimate."""
        return views.step_chart(self)

    @property
    def scaling_view(self) -> ScalingView:
        """The several-GPUs view, built on first use (its module too)."""
        return views.scaling_view(self)

    def ensure_fit_view(self):
        """The fit view, built now if it was not yet (it is built when its tab is shown)."""
        return views.ensure_fit_view(self)

    def refresh_scaling(self) -> None:
        views.refresh_scaling(self)

    def set_byte_formatter(self, fmt) -> None:
        """Bytes as the user's settings say (binary MiB/GiB or decimal MB/GB)."""
        self.format_bytes = fmt
        self.breakdown.format_bytes = fmt
        if self._step_chart is not None:
            self._step_chart.format_bytes = fmt
        if self._scaling_view is not None:
            self._scaling_view.format_bytes = fmt
        if self._tables_built:
            for model in (self.estimate_model, self.suggestion_model):
                model.format_bytes = fmt
        self._on_plan_changed()

    def set_parallel_controls(self, parallel: Parallel) -> None:
        for widget, value in ((self.gpus_spin, parallel.gpus), (self.nodes_spin, parallel.nodes)):
            if widget.value() != value:
                widget.blockSignals(True)
                widget.setValue(value)
                widget.blockSignals(False)
        i = self.strategy_combo.findData(parallel.strategy)
        if i != self.strategy_combo.currentIndex():
            self.strategy_combo.blockSignals(True)
            self.strategy_combo.setCurrentIndex(i)
            self.strategy_combo.blockSignals(False)

    def current_row(self) -> int:
        """The draft layer index of the table's current row (a block's row: its first layer)."""
        index = self.layer_view.currentIndex()
        return (self.layer_model.layer_index(index.row()) if index.isValid()
                else self._doc.current_row)

    def select_row(self, row: int) -> None:
        """Show draft layer ``row`` (in a collapsed repeated block: the block's row)."""
        if not 0 <= row < len(self._doc.draft.layers):
            return
        shown = self.layer_model.display_row(row)
        if not 0 <= shown < self.layer_model.rowCount():
            return
        self._selecting = True
        try:
            index = self.layer_model.index(shown, COL_NAME)
            self.layer_view.selectionModel().setCurrentIndex(
                index, QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows)
            self.layer_view.scrollTo(self.layer_model.index(shown, 0))  # keep "#" in view
        finally:
            self._selecting = False
        self._doc.select_row(row)
        self.properties.show_row(row)
        self._set_chart_selected(blocks.chart_rows(self, row))
        self._update_action_state()

    def summary(self) -> str:
        est = self._doc.estimate
        if self._doc.is_empty:
            return self.tr("Nothing to estimate yet: the plan has no layers")
        if est is None:
            n = len(self._doc.analysis.problems)
            return self.tr("Fix the %n problem(s) to see the estimate", "", n)
        fit = self.max_batch_label.text()
        doc = self._doc
        if doc.per_gpu is not None:
            return arg(self.tr("Per GPU %1 on %5 GPUs (%6, global batch %7) · %2 parameters · "
                               "largest batch in %3 GiB: %4"),
                       self.format_bytes(doc.per_gpu.peak), f"{est.parameters:,}",
                       f"{self.memory_spin.value():g}", fit, str(doc.parallel.world),
                       doc.parallel.strategy, f"{doc.global_batch:,}")
        return arg(self.tr("Peak %1 · %2 parameters · largest batch in %3 GiB: %4"),
                   self.format_bytes(est.peak), f"{est.parameters:,}",
                   f"{self.memory_spin.value():g}", fit)

    def apply_suggestion(self, row: int) -> None:
        items = self.suggestion_model.suggestions
        if 0 <= row < len(items):
            s = items[row]
            self._doc.apply_plan(tr_msg(s.title), s.draft, s.setup)

    def refresh_suggestions(self) -> None:
        """Recompute the "what would help" list now (it is otherwise computed when shown)."""
        views.refresh_suggestions(self)

    # ------------------------------------------------------------------------------------------
    # Following the document
    # ------------------------------------------------------------------------------------------
    @Slot()
    def _on_plan_changed(self) -> None:
        doc = self._doc
        setup = doc.setup
        for widget, value in ((self.batch_spin, setup.batch_size),):
            if widget.value() != value:
                widget.blockSignals(True)
                widget.setValue(value)
                widget.blockSignals(False)
        i = self.precision_combo.findData(setup.precision)
        if self.precision_combo.currentIndex() != i:
            self.precision_combo.blockSignals(True)
            self.precision_combo.setCurrentIndex(i)
            self.precision_combo.blockSignals(False)
        for combo, text in ((self.optimizer_combo, setup.optimizer),):
            if combo.currentText() != text:
                combo.blockSignals(True)
                combo.setCurrentText(text)
                combo.blockSignals(False)
        i = self.mode_combo.findData(setup.mode)
        if self.mode_combo.currentIndex() != i:
            self.mode_combo.blockSignals(True)
            self.mode_combo.setCurrentIndex(i)
            self.mode_combo.blockSignals(False)
        if self.checkpoint_check.isChecked() != setup.checkpointing:
            self.checkpoint_check.blockSignals(True)
            self.checkpoint_check.setChecked(setup.checkpointing)
            self.checkpoint_check.blockSignals(False)
        self.checkpoint_check.setEnabled(setup.mode == "train")
        self.optimizer_combo.setEnabled(setup.mode == "train")
        self.set_parallel_controls(doc.parallel)

        est = doc.estimate
        problems = doc.analysis.problems
        if problems:
            lines = [tr_problem(p) for p in problems[:6]]
            if len(problems) > 6:
                lines.append(arg(self.tr("… and %1 more"), str(len(problems) - 6)))
            self.problems_label.setText("\n".join(lines))
            self.problems_label.setToolTip("\n".join(tr_problem(p) for p in problems))
        self.problems_label.setVisible(bool(problems))
        # No numbers from before an error or from an empty plan: the state, said plainly.
        if doc.is_empty:
            stale_msg = self.tr("Nothing to estimate yet: the plan has no layers. Add one "
                                "(Edit ▸ Add Layer), open a model or pick a preset.")
            detail = ""
        else:
            stale_msg = self.tr("Fix the errors to see the estimate")
            detail = doc.failure or ""
        self.breakdown.set_per_gpu(doc.per_gpu, doc.global_batch)
        if est is not None:
            self.breakdown.set_estimate(est, capacity_bytes=self.memory_bytes())
        else:
            self.breakdown.set_estimate(None, message=stale_msg + ("\n" + detail if detail
                                                                   else ""))
        self._chart_args = self._step_args = (est, {"stale": est is None, "message": (
            self.tr("Nothing to estimate yet") if doc.is_empty
            else self.tr("Fix the errors to see the estimate"))})
        if self._chart is not None:
            self._chart.set_estimate(est, **self._chart_args[1])
        self._set_chart_selected(blocks.chart_rows(self, doc.current_row))
        if self._step_chart is not None:
            self._step_chart.set_estimate(est, **self._step_args[1])
        self._update_max_batch()
        # The tables and the suggestions are filled when their tab is shown (or now, if it is).
        self._tables_dirty = True
        self._suggestions_dirty = True
        self._fit_dirty = True
        self._scaling_dirty = True
        self._refresh_current_tab()
        self._update_action_state()
        self.status_changed.emit(self.summary())

    def _update_max_batch(self) -> None:
        doc = self._doc
        if doc.estimate is None:
            self.max_batch_label.setText("—")
            self.max_batch_label.setToolTip(self.tr("Fix the errors to see the estimate"))
            return
        # On several GPUs what sharding saves per GPU is room for a larger per-GPU batch.
        n = largest_batch(doc.analysis, doc.setup, self.memory_bytes(), doc.assumptions,
                          freed_bytes=max(0, doc.result.sharding_saves))
        self.max_batch_label.setText(arg(self.tr("batch %1"), f"{n:,}") if n else
                                     self.tr("not even batch 1"))
        tip = tr_msg(largest_batch_explained(self.memory_bytes(), doc.assumptions))
        if doc.per_gpu is not None:
            tip += arg(self.tr(" (per GPU, on %1 GPUs)"), str(doc.parallel.world))
        self.max_batch_label.setToolTip(tip)
        self.breakdown.set_estimate(doc.estimate, capacity_bytes=self.memory_bytes())

    def _update_action_state(self) -> None:
        blocks.update_action_state(self)

    def selected_layer_range(self):
        """(start, end) of the draft layers the table's selected rows show, and whether a
        repeated block's row or layer is among them; None with nothing selected."""
        return blocks.selected_layer_range(self)

    def _ask_copies(self, title: str, label: str, value: int, low: int, high: int):
        number, ok = QInputDialog.getInt(self, title, label, value, low, high)
        return number if ok else None

    @Slot()
    def _on_repeat_triggered(self) -> None:
        blocks.repeat_layers(self)

    @Slot()
    def _on_copies_triggered(self) -> None:
        blocks.set_copies(self)

    @Slot()
    def _on_unrepeat_triggered(self) -> None:
        blocks.unrepeat_block(self)

    def _on_layer_context_menu(self, pos) -> None:
        blocks.layer_context_menu(self, pos)

    # ---- repeated blocks in the layer table --------------------------------------------------

    def set_block_expanded(self, name: str, on: bool) -> None:
        """Show (on) or hide a repeated block's layers in the table; its row stays current."""
        blocks.set_block_expanded(self, name, on)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802
        return blocks.filter_event(self, obj, event) or super().eventFilter(obj, event)

    @Slot(QModelIndex)
    def _on_layer_double_clicked(self, index: QModelIndex) -> None:
        blocks.toggle_block(self, index)

    @Slot(int)
    def _on_current_row_changed(self, row: int) -> None:
        self.select_row(row)

    # ------------------------------------------------------------------------------------------
    # User edits
    # ------------------------------------------------------------------------------------------
    @Slot(QModelIndex, QModelIndex)
    def _on_table_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._selecting or not current.isValid():
            return
        row = self.layer_model.layer_index(current.row())
        self._doc.select_row(row)
        self.properties.show_row(row)
        self._set_chart_selected(blocks.chart_rows(self, row))
        self._update_action_state()

    @Slot(int)
    def _on_chart_layer_clicked(self, row: int) -> None:
        self.select_row(row)

    @Slot(QModelIndex)
    def _on_estimate_row_activated(self, index: QModelIndex) -> None:
        row = self.estimate_proxy.mapToSource(index).row()
        self.select_row(row)

    @Slot(str)
    def _on_edit_rejected(self, text: str) -> None:
        self.problems_label.setText(text)
        self.problems_label.setVisible(True)
        self.message.emit(text)

    def _new_layer(self, kind: str, row: int) -> LayerSpec:
        draft = self._doc.draft
        params = {}
        if kind == "add" and row >= 2:
            params["from"] = draft.layers[row - 2].name
        elif kind == "concat" and row >= 2:
            params["from"] = (draft.layers[row - 2].name,)
        base = {"conv2d": "conv", "conv3d": "conv", "activation": "act", "batchnorm": "bn",
                "fc": "fc", "maxpool": "pool", "avgpool": "pool"}.get(kind, kind)
        return LayerSpec(kind, draft.unique_name(base), params)

    def _insert(self, kind: str, row: int) -> None:
        layer = self._new_layer(kind, row)
        self._doc.insert_layer(row, layer, arg(self.tr("Add layer %1"), layer.name))

    def _row_after_current(self) -> int:
        """Where "add after the selected layer" inserts: after a repeated block as a whole
        when the selection is in one (a layer is not added to one copy alone)."""
        row = self._doc.current_row
        rep = self.layer_model.block_of_layer(row)
        return rep.first + rep.length * rep.times if rep is not None else row + 1

    @Slot()
    def _on_add_triggered(self) -> None:
        kind = self.sender().data()
        self._insert(kind, self._row_after_current())

    @Slot()
    def _on_insert_triggered(self) -> None:
        kind = self.sender().data()
        self._insert(kind, max(1, self._doc.current_row))

    @Slot()
    def _on_add_same_triggered(self) -> None:
        row = self._doc.current_row
        layers = self._doc.draft.layers
        kind = layers[row].kind if 0 < row < len(layers) else "conv2d"
        self._insert(kind, self._row_after_current())

    @Slot()
    def _on_duplicate_triggered(self) -> None:
        row = self._doc.current_row
        layers = self._doc.draft.layers
        if not 0 < row < len(layers):
            return
        layer = layers[row]
        copy = layer.replace(name=self._doc.draft.unique_name(layer.name))
        self._doc.insert_layer(row + 1, copy,
                               arg(self.tr("Duplicate layer %1"), layer.name))

    @Slot()
    def _on_remove_triggered(self) -> None:
        row = self._doc.current_row
        if row > 0:
            self._doc.remove_layer(row)

    @Slot()
    def _on_move_up_triggered(self) -> None:
        row = self._doc.current_row
        if row > 1:
            self._doc.move_layer(row, row - 1)

    @Slot()
    def _on_move_down_triggered(self) -> None:
        row = self._doc.current_row
        if 0 < row < len(self._doc.draft.layers) - 1:
            self._doc.move_layer(row, row + 1)

    def _change_setup(self, field: str, value) -> None:
        try:
            setup = replace(self._doc.setup, **{field: value})
        except ValueError as exc:
            self._on_edit_rejected(exc_text(exc))
            return
        self._doc.change_setup(setup, field)

    @Slot(int)
    def _on_batch_changed(self, value: int) -> None:
        self._change_setup("batch_size", value)

    @Slot(int)
    def _on_precision_index_changed(self, index: int) -> None:
        value = self.precision_combo.itemData(index)
        if value:
            self._change_setup("precision", value)

    @Slot(str)
    def _on_optimizer_changed(self, value: str) -> None:
        self._change_setup("optimizer", value)

    @Slot(int)
    def _on_mode_changed(self, _index: int) -> None:
        self._change_setup("mode", self.mode_combo.currentData())

    @Slot(bool)
    def _on_checkpointing_toggled(self, on: bool) -> None:
        self._change_setup("checkpointing", on)

    @Slot(int)
    def _on_parallel_changed(self, _value: int) -> None:
        try:
            parallel = Parallel(self.gpus_spin.value(), self.nodes_spin.value(),
                                self.strategy_combo.currentData() or "ddp")
        except ValueError as exc:
            self._on_edit_rejected(exc_text(exc))
            return
        self._doc.set_parallel(parallel)

    @Slot(float)
    def _on_memory_changed(self, _value: float) -> None:
        self._update_max_batch()
        self.status_changed.emit(self.summary())

    @Slot(int)
    def _on_tab_changed(self, _index: int) -> None:
        if self.isVisible():  # the user's choice (not a tab restored before the first show)
            self._views_deferred = False
        self._refresh_current_tab()

    def prepare_start(self) -> None:
        """What ``finish_start`` needs, made a turn of the event loop ahead of it: the per-layer
        chart's plot item (most of building the chart), if that is the view shown."""
        views.prepare_start(self)

    def finish_start(self) -> None:
        """Build the result view shown, which ``defer_views`` kept for after the window's first
        picture (the per-layer chart, or the tab the window restored)."""
        views.finish_start(self)

    def _refresh_current_tab(self) -> None:
        views.refresh_current_tab(self)

    def refresh_tables(self) -> None:
        """Fill the per-layer and the article's tables now (otherwise done when shown)."""
        views.refresh_tables(self)

    @Slot()
    def _on_apply_clicked(self) -> None:
        row = self.sender().property("suggestion_row")
        if row is not None:
            self.apply_suggestion(int(row))

    @Slot()
    def _on_assumptions_triggered(self) -> None:
        from planner.ui.planner.assumptions_dialog import AssumptionsDialog

        dialog = AssumptionsDialog(self._doc.assumptions, self)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self.set_assumptions(dialog.assumptions())

    def set_assumptions(self, assumptions: Assumptions) -> None:
        self._doc.set_assumptions(assumptions)
        self.assumptions_changed.emit(assumptions)


__all__ = ["PlannerPane", "QSizePolicy"]
