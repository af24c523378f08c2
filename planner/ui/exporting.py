"""The Planner's exports: ``PlanExporter`` owns the actions (one menu, File ▸ Export; Ctrl+E
exports the view shown; an Export button for the result tabs' corner); an export with nothing to
export is refused with a message, never an empty file. What the files hold and how they are
written is ``planner.ui.export_formats``, imported on the first export (the window builds the
menu at start-up, and needs nothing else of it until then).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from PySide6.QtCore import QObject, Qt, Slot
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QFileDialog, QMenu, QMessageBox, QToolButton

from planner.i18n import QT_TRANSLATE_NOOP
from planner.ui.i18n import arg

if TYPE_CHECKING:
    from planner.ui.export_formats import ExportMeta, Table


def _tr(text: str) -> str:
    return QApplication.translate("PlanExporter", text)


# ------------------------------------------------------------------------------ the actions


class _Kind(NamedTuple):
    key: str
    label: str  # untranslated menu text
    suggested: str  # file name stem
    chart: bool


KINDS = (
    _Kind("breakdown", QT_TRANSLATE_NOOP("PlanExporter", "Memory &Breakdown (CSV/JSON)…"),
          "breakdown", False),
    _Kind("layers", QT_TRANSLATE_NOOP("PlanExporter", "&Per-layer Table (CSV/JSON)…"),
          "per-layer", False),
    _Kind("fit", QT_TRANSLATE_NOOP("PlanExporter", "&Fit Table (CSV/JSON)…"),
          "fit-table", False),
    _Kind("layer_chart", QT_TRANSLATE_NOOP("PlanExporter", "Per-layer &Chart (PNG/SVG)…"),
          "per-layer-chart", True),
    _Kind("step_chart",
          QT_TRANSLATE_NOOP("PlanExporter", "Memory over the &Step Chart (PNG/SVG)…"),
          "step-chart", True),
    _Kind("scaling_chart", QT_TRANSLATE_NOOP("PlanExporter", "Several &GPUs Chart (PNG/SVG)…"),
          "scaling-chart", True),
    _Kind("fit_chart",
          QT_TRANSLATE_NOOP("PlanExporter", "Fit Chart: Samples/s against &Price (PNG/SVG)…"),
          "fit-speed-chart", True),
    _Kind("fit_memory_chart",
          QT_TRANSLATE_NOOP("PlanExporter", "Fit Chart: &Memory against Price (PNG/SVG)…"),
          "fit-memory-chart", True),
)
_KIND = {k.key: k for k in KINDS}

CHART_TITLES = {
    "layer_chart": QT_TRANSLATE_NOOP("PlanExporter", "Memory per layer"),
    "step_chart": QT_TRANSLATE_NOOP("PlanExporter", "Memory over the training step"),
    "scaling_chart": QT_TRANSLATE_NOOP("PlanExporter", "Speed-up on several GPUs"),
    "fit_chart": QT_TRANSLATE_NOOP("PlanExporter", "Samples/s against price"),
    "fit_memory_chart": QT_TRANSLATE_NOOP("PlanExporter", "Memory against price"),
}


class PlanExporter(QObject):
    """The Planner pane's exports. ``menu`` (File ▸ Export), ``export_view_action`` (Ctrl+E:
    what the result tab shows), and an Export button for the result tabs' corner.

    Hooks a window sets: ``notes`` (a callable giving extra notes, e.g. an incomplete import),
    ``last_folder`` / ``remember_folder`` (the window's last-used folder), ``ask_save_path``
    (title, suggested path, filters → path or None) and ``inform`` (title, text) for tests."""

    def __init__(self, pane):
        super().__init__(pane)
        self._pane = pane
        self.notes: Callable[[], Sequence[str]] = lambda: ()
        self.incomplete: Callable[[], bool] = lambda: False
        self.last_folder: Callable[[], str] = lambda: str(Path.home())
        self.remember_folder: Callable[[str], None] = lambda _path: None
        self.ask_save_path: Callable[[str, str, str], str | None] | None = None
        self.inform: Callable[[str, str], None] | None = None
        self.last_path: Path | None = None
        self.actions: dict[str, QAction] = {}
        self.menu = QMenu(_tr("&Export"), pane)
        self.export_view_action = QAction(_tr("&Export Current View…"), pane)
        self.export_view_action.setShortcut(QKeySequence(Qt.Modifier.CTRL | Qt.Key.Key_E))
        self.export_view_action.setToolTip(_tr(
            "Export what the result tab shows: a table as CSV or JSON, a chart as PNG or SVG"))
        self.export_view_action.triggered.connect(self._on_export_view)
        self.menu.addAction(self.export_view_action)
        self.menu.addSeparator()
        for kind in KINDS:
            action = QAction(_tr(kind.label), pane)
            action.setData(kind.key)
            action.triggered.connect(self._on_export_kind)
            self.actions[kind.key] = action
            self.menu.addAction(action)
            if kind.key == "fit":
                self.menu.addSeparator()
        self.button = QToolButton(pane)
        self.button.setObjectName("export_button")
        self.button.setText(_tr("Export…"))
        self.button.setToolTip(self.export_view_action.toolTip())
        self.button.setMenu(self.menu)
        self.button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        self.button.clicked.connect(self._on_export_view)

    def attach(self, widget, *keys: str) -> None:
        """Give ``widget`` a context menu with the exports of ``keys`` (its own view)."""
        widget.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        for key in keys:
            widget.addAction(self.actions[key])

    # ---- what to export -----------------------------------------------------------------
    def current_kind(self) -> str:
        """What Ctrl+E exports: the chart or table of the result tab shown, else the
        breakdown."""
        return {"layer_chart": "layer_chart", "step": "step_chart", "layers": "layers",
                "fit": "fit", "scaling": "scaling_chart"}.get(self._pane.result_tab(),
                                                               "breakdown")

    def meta(self, extra: Sequence[str] = ()) -> ExportMeta:
        from planner.ui import export_formats as fmt  # noqa: PLC0415 (on first use)

        doc = self._pane.document
        name = doc.path.name if doc.path is not None else doc.draft.name
        s = doc.setup
        setup = {"batch": s.batch_size, "precision": s.precision, "optimizer": s.optimizer,
                 "mode": s.mode, "checkpointing": s.checkpointing}
        par = doc.parallel
        if par.world > 1:
            setup.update(gpus=par.gpus, nodes=par.nodes, strategy=par.strategy)
        notes = [*self.notes(), *extra]
        incomplete = bool(self.incomplete())
        return fmt.ExportMeta(plan=name, notes=tuple(dict.fromkeys(notes)), incomplete=incomplete,
                          setup=setup)

    def table(self, key: str) -> Table:
        from planner.ui import export_formats as fmt  # noqa: PLC0415 (on first use)

        p = self._pane
        doc = p.document
        if key == "breakdown":
            return fmt.breakdown_table(doc.estimate, doc.per_gpu)
        if key == "layers":
            return fmt.layer_table(doc.estimate)
        if key == "fit":
            view = p.ensure_fit_view()
            if view is None:
                raise fmt.NothingToExport(_tr("There is no catalog to fit the plan to."))
            from planner.ui.planner.fit_view import COL_CARD, ROW_ROLE  # noqa: PLC0415

            shown = [view.proxy.index(i, COL_CARD).data(ROW_ROLE)
                     for i in range(view.proxy.rowCount())]
            return fmt.fit_rows_table(shown, len(view.rows))
        raise KeyError(key)

    def chart(self, key: str):
        """(plot widget, legend pairs) of a chart, or NothingToExport."""
        from planner.ui import export_formats as fmt  # noqa: PLC0415 (on first use)

        p = self._pane
        doc = p.document
        if doc.estimate is None:
            raise fmt.NothingToExport(_tr("There is no estimate to draw: the plan is empty or has "
                                      "errors."))
        # the chart is shown while it is exported (and stays shown): what is saved is what
        # the user sees
        if key == "layer_chart":
            p.show_result_tab("layer_chart")
            return p.chart, ()
        if key == "step_chart":
            p.show_result_tab("step")  # the chart is built when its tab is shown
            return p.step_chart, ()
        if key == "scaling_chart":
            p.show_result_tab("scaling")
            p.refresh_scaling()
            view = p.scaling_view
            if not view.typical:
                raise fmt.NothingToExport(view.summary.text() or _tr("No scaling curve to export."))
            return view.plot, ((view.ideal_curve, view.ideal_curve.name()),
                               (view.typical_curve, view.typical_curve.name()),
                               (view.optimised_curve, view.optimised_curve.name()))
        p.show_result_tab("fit")
        view = p.ensure_fit_view()
        if view is None:
            raise fmt.NothingToExport(_tr("There is no catalog to fit the plan to."))
        chart = view.speed_chart if key == "fit_chart" else view.memory_chart
        if not chart.names:
            raise fmt.NothingToExport(_tr("No card with a price is shown: nothing to draw."))
        return chart, ()

    # ---- doing it -----------------------------------------------------------------------
    def export(self, key: str, path: str | Path | None = None) -> Path | None:
        """Export ``key`` (one of KINDS) to ``path`` (asked for when None). Returns the path
        written, or None (refused with a message, cancelled or failed)."""
        from planner.ui import export_formats as fmt  # noqa: PLC0415 (on first use)

        kind = _KIND[key]
        what = _tr(kind.label).replace("&", "").removesuffix("…")
        try:
            if kind.chart:
                plot, legend = self.chart(key)
            else:
                table = self.table(key)
        except fmt.NothingToExport as exc:
            self._say(_tr("Nothing to export"), str(exc))
            return None
        if path is None:
            path = self._ask(arg(_tr("Export %1"), what), kind)
            if path is None:
                return None
        path = Path(path)
        try:
            if kind.chart:
                title = _tr(CHART_TITLES[key])
                meta = self.meta()
                fmt.export_chart(plot, path, meta.title(title), legend)
                done = arg(_tr("%1 saved to %2"), title, str(path))
            else:
                n = fmt.write_table(path, table, self.meta())
                done = arg(QApplication.translate("PlanExporter", "%n row(s) saved to %1", "",
                                                  n),
                           str(path))
        except (OSError, ValueError) as exc:
            self._say(_tr("Export failed"), arg(_tr("Could not write %1: %2"),
                                                str(path), str(exc)))
            return None
        self.remember_folder(str(path))
        self.last_path = path
        self._pane.message.emit(done)
        return path

    def _ask(self, title: str, kind: _Kind) -> str | None:
        from planner.ui import export_formats as fmt  # noqa: PLC0415 (on first use)

        filters = _tr(fmt.CHART_FILTERS if kind.chart else fmt.TABLE_FILTERS)
        suffixes = fmt.CHART_SUFFIXES if kind.chart else fmt.TABLE_SUFFIXES
        suggested = str(Path(self.last_folder()) / (kind.suggested + suffixes[0]))
        if self.ask_save_path is not None:
            path = self.ask_save_path(title, suggested, filters)
            chosen = ""
        else:
            path, chosen = QFileDialog.getSaveFileName(self._pane, title, suggested, filters)
        if not path:
            return None
        if Path(path).suffix.lower() not in suffixes:
            # the filter the user picked decides, else the first
            pick = next((s for s in suffixes if s in (chosen or "")), suffixes[0])
            path += pick
        return path

    def _say(self, title: str, text: str) -> None:
        self._pane.message.emit(text)
        if self.inform is not None:
            self.inform(title, text)
        else:
            QMessageBox.information(self._pane, title, text)

    @Slot()
    def _on_export_view(self) -> None:
        self.export(self.current_kind())

    @Slot()
    def _on_export_kind(self) -> None:
        self.export(self.sender().data())


__all__ = ["PlanExporter", "KINDS"]
