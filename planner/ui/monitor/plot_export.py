"""The Monitor pane's exports: the plots as a PNG under a title line, the shown window's
data as CSV (functions of the pane; the pane's Export buttons and tests call them).

What is exported comes from the live History, or the replayed one during a replay; the rows
and the CSV writing are Qt-free (``planner.telemetry.export``).
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QRect, Qt
from PySide6.QtGui import QFont, QFontMetrics, QImage, QPainter

from planner.telemetry.export import shown_span, window_rows, write_csv
from planner.telemetry.history import History
from planner.telemetry.types import DeviceInfo
from planner.ui.i18n import arg
from planner.ui.monitor.models import card_label
from planner.ui.monitor.plots import PLOT_METRICS
from planner.ui.monitor.recordings import ask_save_path_dialog

if TYPE_CHECKING:
    from planner.ui.monitor.pane import MonitorPane


def _tr(text: str) -> str:
    return QCoreApplication.translate("MonitorPane", text)


def save_path(pane: MonitorPane, title: str, suggested: str, filter_: str) -> str | None:
    """Where to save: the pane's injected question (tests script it), else a file dialog."""
    ask = pane._ask_save_path or ask_save_path_dialog
    return ask(pane, title, suggested, filter_)


def on_export_plot(pane: MonitorPane) -> None:
    if not has_export_data(pane):
        pane._status(_tr("Nothing to export yet: no samples in the shown time window"))
        return
    path = save_path(pane, _tr("Export plot"), "monitor.png", _tr("PNG (*.png)"))
    if path and pane.export_plot_png(path):
        pane._status(arg(_tr("Plot saved to %1"), path))


def on_export_data(pane: MonitorPane) -> None:
    if not has_export_data(pane):
        pane._status(_tr("Nothing to export yet: no samples in the shown time window"))
        return
    path = save_path(pane, _tr("Export data"), "monitor.csv", _tr("CSV (*.csv)"))
    if path:
        try:
            n = pane.export_data_csv(path)
        except OSError as exc:
            pane._status(arg(_tr("Export failed: %1"), exc))
            return
        pane._status(arg(_tr("%1 rows saved to %2"), n, path))


def export_source(pane: MonitorPane) -> tuple[History | None, tuple[DeviceInfo, ...]]:
    if pane._replay is not None:
        return pane._replay[0], pane._replay[2]
    return pane.history, pane.devices


def export_rows(pane: MonitorPane):
    """(time, device index, device name, values) for every card in the shown window."""
    source, devices = export_source(pane)
    if source is None:
        return iter(())
    return window_rows(source, pane.window_s, PLOT_METRICS,
                       {d.index: d.name for d in devices})


def has_export_data(pane: MonitorPane) -> bool:
    return next(export_rows(pane), None) is not None


def export_title(pane: MonitorPane) -> str:
    """What a saved plot shows: the cards, the time range and where the data came from."""
    source, devices = export_source(pane)
    sel = pane.selected_device
    shown = [d for d in devices if sel is None or d.index == sel]
    cards = ", ".join(card_label(d) for d in shown) or _tr("no card")
    span = ""
    shown = shown_span(source, pane.window_s) if source is not None else None
    if shown is not None:
        start, end = shown
        span = (_dt.datetime.fromtimestamp(start).strftime("%Y-%m-%d %H:%M:%S") + " – "
                + _dt.datetime.fromtimestamp(end).strftime("%H:%M:%S"))
    if pane._replay is not None:
        kind = _tr("replay of a recording")
    elif pane.source == "simulated" or any(d.simulated for d in shown):
        kind = _tr("SIMULATED data, not a real GPU")
    elif pane.source == "prometheus":
        kind = _tr("cluster (Prometheus)")
    else:
        kind = _tr("live (NVML)")
    return "  ·  ".join(x for x in (cards, span, kind) if x)


def export_plot_png(pane: MonitorPane, path: str | Path) -> bool:
    """The four plots as they are on screen, under a title line naming the cards, the time
    range and the source ("simulated" where it is); False when there is nothing to show."""
    if not has_export_data(pane):
        return False
    plots = pane.plots.grab()
    title = export_title(pane)
    font = QFont(pane.font())
    font.setPointSizeF(font.pointSizeF() * 1.1)
    font.setBold(True)
    wrap = int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft
               | Qt.TextFlag.TextWordWrap)
    header = QFontMetrics(font).boundingRect(
        QRect(0, 0, plots.width() - 16, 10_000), wrap, title).height() + 12
    image = QImage(plots.width(), plots.height() + header, QImage.Format.Format_ARGB32)
    image.fill(pane.palette().color(pane.backgroundRole()))
    painter = QPainter(image)
    try:
        painter.setFont(font)
        painter.setPen(pane.palette().color(pane.foregroundRole()))
        painter.drawText(QRect(8, 0, plots.width() - 16, header), wrap, title)
        painter.drawPixmap(0, header, plots)
    finally:
        painter.end()
    return bool(image.save(str(path), "PNG"))


def export_data_csv(pane: MonitorPane, path: str | Path) -> int:
    """Every card's data in the shown time window as CSV (bytes as whole numbers); returns
    the number of rows. Nothing is written when there is no sample (returns 0)."""
    return write_csv(path, list(export_rows(pane)), PLOT_METRICS)
