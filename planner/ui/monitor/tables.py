"""The Monitor pane's tables and card chooser kept in step with what is shown: the cards
table's height (its rows, the plots the rest), its selection, the card combo box, the
processes of the selected card (functions of the pane).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QAbstractItemView, QTableView, QWidget

from planner.telemetry.types import DeviceInfo
from planner.ui.monitor.models import ProcessRow, card_label, fleet_order

if TYPE_CHECKING:
    from planner.ui.monitor.pane import MonitorPane


def _tr(text: str) -> str:
    return QCoreApplication.translate("MonitorPane", text)


def row_table(parent: QWidget, model) -> QTableView:
    """A table of whole rows, one selected at a time, without row numbers (the cards, the
    processes, the recordings)."""
    view = QTableView(parent)
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.verticalHeader().setVisible(False)
    return view


def fit_gpu_table(pane: MonitorPane) -> None:
    """Give the cards table the height of its rows (2–8 rows), the plots the rest."""
    rows = min(max(len(pane.devices), 2), 8)
    row_h = pane.gpu_table.verticalHeader().defaultSectionSize()
    head_h = pane.gpu_table.horizontalHeader().sizeHint().height()
    want = head_h + rows * row_h + 2 * pane.gpu_table.frameWidth() + 4
    total = sum(pane.splitter.sizes()) or 800
    pane.splitter.setSizes([want, max(200, total - want)])


def show_devices(pane: MonitorPane, devices: tuple[DeviceInfo, ...],
                 select_first: bool = False) -> None:
    """Curves and the card chooser for these cards (live or replayed)."""
    pane.plots.set_devices(devices)
    keep = None if select_first else pane.selected_device
    pane.card_combo.blockSignals(True)
    pane.card_combo.clear()
    pane.card_combo.addItem(_tr("All cards"), None)
    for d in (fleet_order(devices) if any(d.host for d in devices) else devices):
        pane.card_combo.addItem(card_label(d), d.index)
    i = pane.card_combo.findData(keep) if keep is not None else -1
    pane.card_combo.setCurrentIndex(i if i >= 0 else (1 if devices else 0))
    pane.card_combo.blockSignals(False)
    pane.plots.set_selection(pane.selected_device)


def fit_process_columns(pane: MonitorPane) -> None:
    """Fit the columns when the set of processes changes; the name takes the rest."""
    for c in range(pane.process_model.columnCount()):
        if c != 2:
            pane.process_table.resizeColumnToContents(c)


def sync_gpu_selection(pane: MonitorPane) -> None:
    sel = pane.selected_device
    row = -1 if sel is None else pane.gpu_model.row_of(sel)
    cur = pane.gpu_table.selectionModel().currentIndex()
    if row >= 0 and cur.row() != row:
        pane.gpu_table.selectionModel().blockSignals(True)
        pane.gpu_table.selectRow(row)
        pane.gpu_table.selectionModel().blockSignals(False)


def update_processes(pane: MonitorPane) -> None:
    pane.process_model.set_rows([
        ProcessRow(*row)
        for row in pane.watch.process_peaks(pane.selected_device, pane.tracker.records)])
    if pane._followed is not None:
        r = pane.process_model.row_of(*pane._followed)
        sm = pane.process_table.selectionModel()
        if r >= 0 and not sm.isRowSelected(r):
            sm.blockSignals(True)
            pane.process_table.selectRow(r)
            sm.blockSignals(False)
