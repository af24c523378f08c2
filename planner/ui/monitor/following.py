"""Following a process and comparing the plan with the run, and the alert line: what the
Monitor pane says about them (functions of the pane; the readings, peaks and alerts
themselves are Qt-free: ``planner.telemetry.compare`` and ``planner.telemetry.watch``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from planner.telemetry.compare import PeakReading, current_peak, percent_off
from planner.telemetry.types import Frame
from planner.telemetry.watch import Alert, FrameNews
from planner.ui.i18n import arg
from planner.ui.monitor.models import card_label, format_gib

if TYPE_CHECKING:
    from planner.ui.monitor.pane import MonitorPane


def _tr(text: str) -> str:
    return QCoreApplication.translate("MonitorPane", text)


def follow_process(pane: MonitorPane, device: int, pid: int) -> None:
    """Draw this process's memory on the memory plot; compare it when it ends."""
    pane._followed = (device, pid)
    pane.unfollow_button.setEnabled(True)
    rec = pane.tracker.records.get((device, pid))
    name = rec.name if rec else str(pid)
    pane.comparison_label.setText(arg(_tr("Following process %1 (%2) on GPU "
                                              "%3."),
                                      pid, name, device))
    if not pane._paused:
        pane._redraw_followed()


def unfollow(pane: MonitorPane) -> None:
    pane._followed = None
    pane.unfollow_button.setEnabled(False)
    pane.process_table.clearSelection()
    pane.plots.set_process_curve(None)
    pane.comparison_label.setText(_tr("Select a process to follow its memory."))


def comparison_text(pane: MonitorPane, reading: PeakReading, *, ended: bool = False) -> str:
    assert pane.predicted_bytes is not None
    diff = percent_off(pane.predicted_bytes, reading.peak_bytes)
    text = arg(_tr("plan predicted %1, the run peaked at %2 (%3%)"),
               format_gib(pane.predicted_bytes), format_gib(reading.peak_bytes),
               format(diff, "+.0f"))
    if reading.pid is None:
        subject = arg(_tr("GPU %1, whole card"), reading.device)
    elif ended:
        subject = arg(_tr("process %1 (%2) on GPU %3 ended"), reading.pid,
                      reading.name, reading.device)
    else:
        subject = arg(_tr("process %1 (%2) on GPU %3"), reading.pid, reading.name,
                      reading.device)
    return f"{text} — {subject}"


def show_comparison(pane: MonitorPane, msg: str) -> None:
    pane.last_comparison = msg
    pane.comparison_label.setText(msg)
    pane._status(msg)
    pane.comparison_ready.emit(msg)


def compare_with_plan(pane: MonitorPane) -> str | None:
    """Plan vs run now: the followed process's peak, else the selected card's peak."""
    if pane.predicted_bytes is None:
        msg = _tr("No predicted peak to compare with: draft a plan in the Planner.")
        pane.comparison_label.setText(msg)
        pane._status(msg)
        return None
    reading = current_peak(pane.tracker.records, pane.watch.card_peak, pane._followed,
                           pane.selected_device)
    if reading is None:
        pane.comparison_label.setText(_tr("No memory reading of that process yet.")
                                      if pane._followed is not None
                                      else _tr("No memory reading yet."))
        return None
    msg = comparison_text(pane, reading)
    show_comparison(pane, msg)
    return msg


def alert_text(a: Alert) -> str:
    who = f"{a.host} · " if a.host else ""
    if a.kind == "memory":
        return who + arg(_tr("GPU %1: memory in use %2% (alert at %3%)"),
                         a.device, format(a.value, ".0f"), format(a.limit, ".0f"))
    return who + arg(_tr("GPU %1: temperature %2 °C (alert at %3 °C)"),
                     a.device, format(a.value, '.0f'), format(a.limit, '.0f'))


def refresh_alert_line(pane: MonitorPane) -> None:
    if not pane.alerts.active:
        pane.alert_label.setVisible(False)
        pane.alert_label.setText("")
        return
    pane.alert_label.setText("⚠ " + "   ·   ".join(
        alert_text(a) for a in pane.alerts.active.values()))
    pane.alert_label.setVisible(True)


def news_texts(frame: Frame, news: FrameNews) -> list[str]:
    """What the status line says about one frame's news: cards marked lost (a fleet card
    with its host and the reason), and the telemetry server's "did not answer"."""
    out = []
    for index in news.lost:
        d = frame.device(index)
        sample = frame.sample(index)
        if d is not None and d.host:
            why = sample.unavailable.get("*") if sample is not None else None
            out.append(arg(_tr("%1 is marked lost (%2); the other cards go on"),
                           card_label(d), why or _tr("no data")))
        else:
            out.append(arg(_tr("GPU %1 stopped answering and is marked lost; the other cards "
                               "go on"), index))
    if news.no_answer_changed and news.no_answer is not None:
        out.append(arg(_tr("Telemetry: %1"), news.no_answer))
    return out
