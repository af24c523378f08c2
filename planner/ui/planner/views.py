"""The Planner's result views built on first use, off the start-up path: the per-layer chart,
the memory-over-the-step chart, the several-GPUs view, the fit view and the result tables, and
filling the one shown after an edit (the others are marked stale and filled when shown).
Functions of the pane; the pane's properties (``chart``, ``step_chart``, ``scaling_view``) and
public methods call them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QPushButton,
    QScrollArea,
    QWidget,
)

from planner.ui.i18n import exc_text

if TYPE_CHECKING:
    from planner.ui.planner.charts import LayerChart, StepChart
    from planner.ui.planner.pane import PlannerPane
    from planner.ui.planner.parallel_view import ScalingView


def _tr(text: str) -> str:
    return QCoreApplication.translate("PlannerPane", text)


def _suggestions(draft, setup, assumptions):
    """The reduction advisor, imported when first needed (no work at import time)."""
    from planner.core.reduce import suggestions

    return suggestions(draft, setup, assumptions)


def effective_catalog(pane: PlannerPane):
    """The catalog with the cards the monitor detected counted as owned."""
    cat = pane._catalog
    if cat is None or not pane._owned_names:
        return cat
    from dataclasses import replace as dc_replace  # noqa: PLC0415

    from planner.core.catalog import OwnedCard  # noqa: PLC0415

    extra = tuple(OwnedCard(n, "used") for n in pane._owned_names if not cat.is_owned(n))
    return dc_replace(cat, owned=cat.owned + extra) if extra else cat


def preferred_card(pane: PlannerPane) -> str | None:
    cat = effective_catalog(pane)
    if cat is None:
        return None
    for owned in cat.owned:
        card = cat.by_name(owned.name)
        if card is not None:
            return card.name
    return None


def push_catalog(pane: PlannerPane) -> None:
    cat = effective_catalog(pane)
    if cat is None:
        return
    if pane._scaling_view is not None:
        pane._scaling_view.set_catalog(cat, preferred_card(pane))
    if pane.fit_view is not None:
        pane.fit_view.set_catalog(cat)


def chart(pane: PlannerPane) -> LayerChart:
    """The per-layer chart, built on first use with the plan's estimate (after the window's
    first picture, when its tab is shown, or when asked for)."""
    if pane._chart is None:
        from planner.ui.planner.charts import LayerChart  # noqa: PLC0415 (pyqtgraph)

        item, pane._chart_item = pane._chart_item, None
        pane._chart = put_chart(pane, LayerChart(pane._chart_holder, plot_item=item),
                                      "layer_chart", pane._chart_args)
        pane._chart.set_selected(pane._chart_selected)
    return pane._chart


def put_chart(pane: PlannerPane, chart, name: str, args: tuple[object, dict] | None):
    """Show a chart just built in its tab's page, with its export and the plan's estimate
    (``args``: what ``_on_plan_changed`` kept for it)."""
    chart.setObjectName(name)
    chart.layer_clicked.connect(pane._on_chart_layer_clicked)
    page = chart.parentWidget()
    page.layout().addWidget(chart)
    chart.show()  # now, not at the next event (it is shown when its tab is)
    pane.exporter.attach(chart, name)
    if args is not None:
        estimate, kwargs = args
        chart.set_estimate(estimate, **kwargs)
    return chart


def step_chart(pane: PlannerPane) -> StepChart:
    """The memory-over-the-step chart, built on first use with the plan's estimate."""
    if pane._step_chart is None:
        from planner.ui.planner.charts import StepChart  # noqa: PLC0415 (pyqtgraph)

        chart = StepChart(pane._step_holder)
        chart.format_bytes = pane.format_bytes
        pane._step_chart = put_chart(pane, chart, "step_chart", pane._step_args)
    return pane._step_chart


def scaling_view(pane: PlannerPane) -> ScalingView:
    """The several-GPUs view, built on first use (its module too)."""
    if pane._scaling_view is None:
        from planner.ui.planner.parallel_view import ScalingView

        view = ScalingView(pane._scaling_holder)
        view.format_bytes = pane.format_bytes
        pane._scaling_holder.layout().addWidget(view)
        pane._scaling_view = view
        pane.exporter.attach(view.plot, "scaling_chart")
        cat = effective_catalog(pane)
        if cat is not None:
            view.set_catalog(cat, preferred_card(pane))
        pane._scaling_dirty = True
    return pane._scaling_view


def ensure_fit_view(pane: PlannerPane):
    """The fit view, built now if it was not yet (it is built when its tab is shown)."""
    if pane.fit_view is None and pane._catalog is not None:
        from planner.ui.planner.fit_view import FitView  # noqa: PLC0415

        pane.fit_view = FitView(effective_catalog(pane), pane._fit_holder)
        pane.fit_view.setObjectName("fit_view")
        pane.fit_view.card_activated.connect(pane.card_activated)
        pane.exporter.attach(pane.fit_view.table, "fit")
        pane.exporter.attach(pane.fit_view.speed_chart, "fit_chart")
        pane.exporter.attach(pane.fit_view.memory_chart, "fit_memory_chart")
        pane.view_built.emit("fit", pane.fit_view)
        # In a scroll area: on a small screen (1024×700) the view scrolls instead of
        # pushing the window taller than the screen.
        scroll = QScrollArea(pane._fit_holder)
        scroll.setObjectName("fit_scroll")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(pane.fit_view)
        pane._fit_holder.layout().addWidget(scroll)
        pane._fit_dirty = True
    if pane.fit_view is not None and pane._fit_dirty:
        pane._fit_dirty = False
        pane.fit_view.set_plan(pane._doc.result)
    return pane.fit_view


def refresh_scaling(pane: PlannerPane) -> None:
    pane._scaling_dirty = False
    pane.scaling_view.set_plan(pane._doc.result)


def refresh_suggestions(pane: PlannerPane) -> None:
    """Recompute the "what would help" list now (it is otherwise computed when shown)."""
    pane._suggestions_dirty = False
    for r in range(pane.suggestion_model.rowCount()):
        pane.suggestion_view.setIndexWidget(
            pane.suggestion_model.index(r, pane.suggestion_model.APPLY_COLUMN), None)
    if pane._doc.estimate is None:
        pane.suggestion_model.set_suggestions(())
        pane.suggestion_empty.setText(_tr("Fix the errors in the draft to see what "
                                          "would help."))
        pane.suggestion_empty.setVisible(True)
        return
    try:
        found = _suggestions(pane._doc.draft, pane._doc.setup, pane._doc.assumptions)
    except ValueError as exc:
        found = []
        pane.suggestion_empty.setText(exc_text(exc))
    else:
        pane.suggestion_empty.setText(_tr("None of the techniques would save memory on "
                                          "this network as it is set up."))
    pane.suggestion_model.set_suggestions(found)
    pane.suggestion_empty.setVisible(not found)
    for r in range(len(found)):
        cell = QWidget(pane.suggestion_view)
        cell_layout = QHBoxLayout(cell)
        cell_layout.setContentsMargins(6, 2, 6, 2)
        button = QPushButton(_tr("Apply"), cell)
        button.setObjectName(f"apply_{found[r].key}")
        button.setToolTip(found[r].detail)
        button.setProperty("suggestion_row", r)
        button.clicked.connect(pane._on_apply_clicked)
        cell_layout.addWidget(button, 0, Qt.AlignmentFlag.AlignVCenter)
        pane.suggestion_view.setIndexWidget(
            pane.suggestion_model.index(r, pane.suggestion_model.APPLY_COLUMN), cell)
    pane.suggestion_view.resizeColumnToContents(pane.suggestion_model.APPLY_COLUMN)
    pane.suggestion_view.resizeRowsToContents()


def prepare_start(pane: PlannerPane) -> None:
    """What ``finish_start`` needs, made a turn of the event loop ahead of it: the per-layer
    chart's plot item (most of building the chart), if that is the view shown."""
    if pane._views_deferred and pane._chart is None and pane._chart_item is None \
            and pane.tabs.currentIndex() == pane._chart_tab:
        import pyqtgraph as pg  # noqa: PLC0415

        pane._chart_item = pg.PlotItem()


def finish_start(pane: PlannerPane) -> None:
    """Build the result view shown, which ``defer_views`` kept for after the window's first
    picture (the per-layer chart, or the tab the window restored)."""
    if pane._views_deferred:
        pane._views_deferred = False
        pane._refresh_current_tab()


def refresh_current_tab(pane: PlannerPane) -> None:
    if pane._views_deferred:
        return
    index = pane.tabs.currentIndex()
    if index == pane._chart_tab:
        pane.chart  # noqa: B018 - built when first shown
    elif index in (pane._table_tab, pane._classic_tab, pane._suggestion_tab):
        pane._ensure_tables()
    if index == pane._suggestion_tab and pane._suggestions_dirty:
        pane.refresh_suggestions()
    elif index == pane._fit_tab:
        pane.ensure_fit_view()
    elif index == pane._step_tab:
        pane.step_chart  # noqa: B018 - built when first shown
    elif index == pane._scaling_tab and pane._scaling_dirty:
        pane.refresh_scaling()
    elif index in (pane._table_tab, pane._classic_tab) and pane._tables_dirty:
        pane.refresh_tables()


def refresh_tables(pane: PlannerPane) -> None:
    """Fill the per-layer and the article's tables now (otherwise done when shown)."""
    pane._tables_dirty = False
    doc = pane._doc
    est = doc.estimate  # None (an error, an empty plan): empty tables, not old numbers
    rows_before = pane.estimate_model.rowCount()
    pane.estimate_model.set_estimate(est)
    pane.classic_model.set_estimate(est)
    if pane.estimate_model.rowCount() != rows_before or not pane._tables_sized:
        pane._tables_sized = True
        pane.estimate_view.resizeColumnsToContents()
        pane.classic_view.resizeColumnsToContents()
