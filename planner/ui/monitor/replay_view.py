"""Replaying a recording in the Monitor pane: the replay bar (what is replayed, which of the
recording's sessions, what it is missing), the plots over the whole recording, and the tables
at its last sample; "Back to live" returns to the live History, which went on underneath.

Functions of the pane (its ``replay``, ``show_history`` and ``stop_replay`` call them); the
reading itself is Qt-free (``planner.telemetry.replay``).
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from planner.telemetry.history import History
from planner.telemetry.recorder import Gap, RecordingError
from planner.telemetry.replay import load_replay
from planner.telemetry.types import DeviceInfo, Frame
from planner.telemetry.watch import frame_processes
from planner.ui.i18n import arg
from planner.ui.monitor.models import ProcessRow
from planner.ui.monitor.plots import PLOT_METRICS

if TYPE_CHECKING:
    from planner.ui.monitor.pane import MonitorPane


def _tr(text: str) -> str:
    return QCoreApplication.translate("MonitorPane", text)


def replay(pane: MonitorPane, path: str | Path, session_id: int | None = None) -> bool:
    """Show a recording in the plots, labelled as a replay; False (and a message) if it
    cannot be read. ``session_id``: which of its sessions (default the first); with
    several, the replay bar offers the others. Live sampling and recording go on
    underneath."""
    path = Path(path)
    try:
        loaded = load_replay(path, PLOT_METRICS, session_id)
    except (RecordingError, OSError) as exc:
        pane._status(arg(_tr("Cannot replay: %1"), exc))
        return False
    sessions, sess, gaps = loaded.sessions, loaded.session, loaded.gaps
    when = _dt.datetime.fromtimestamp(sess.start_time_s).strftime("%Y-%m-%d %H:%M")
    label = arg(_tr("REPLAY of the recording of %1 (%2) — not live"), when, sess.source)
    pane._replay_path = path
    pane.session_combo.clear()
    if len(sessions) > 1:
        position = loaded.position
        label += arg(_tr(" · session %1 of %2"), position, len(sessions))
        for i, x in enumerate(sessions, 1):
            start = _dt.datetime.fromtimestamp(x.start_time_s).strftime("%Y-%m-%d %H:%M")
            names = ", ".join(d.name for d in x.devices) or "—"
            pane.session_combo.addItem(
                arg(_tr("Session %1: %2, %3"), i, start, names), x.id)
        pane.session_combo.setCurrentIndex(position - 1)
    pane.session_combo.setVisible(len(sessions) > 1)
    label += "".join("  ·  ⚠ " + gap_text(g) for g in gaps)
    pane.replay_label.setToolTip("\n".join(gap_text(g, why=True) for g in gaps))
    pane.show_history(loaded.history, sess.devices, label + f"  ·  {path.name}",
                      arg(_tr("REPLAY %1 — "), when), loaded.last_frame)
    return True


def gap_text(gap: Gap, *, why: bool = False) -> str:
    """What a replayed session is missing, as the recording says (disk full, not closed);
    short for the replay bar, with the recorder's reason for its tooltip."""
    when = _dt.datetime.fromtimestamp(gap.from_time_s).strftime("%H:%M:%S")
    if gap.samples_lost is None:
        return arg(_tr("not closed: samples after %1 may be missing"), when)
    text = arg(_tr("%1 samples not recorded from %2"), gap.samples_lost, when)
    return f"{text} ({gap.reason})" if why else text


def on_session_chosen(pane: MonitorPane, index: int) -> None:
    session_id = pane.session_combo.itemData(index)
    if pane._replay is not None and session_id is not None:
        pane.replay(pane._replay_path, int(session_id))


def show_history(pane: MonitorPane, history: History, devices: tuple[DeviceInfo, ...], label: str,
                 title_prefix: str = "", last_frame: Frame | None = None) -> None:
    """Show a History that is not the live one (a replay) in the plots, with a label
    bar and a "Back to live" button, over the whole of it. The card and process tables
    show ``last_frame`` (the recording's last sample; empty without one) until the
    replay ends."""
    if pane._replay is None:
        pane._live_window_s = pane.window_s
    pane._replay = (history, label, tuple(devices))
    pane._replay_frame = last_frame
    show_replay_tables(pane, last_frame)
    pane.replay_label.setText(label)
    pane.replay_bar.setVisible(True)
    pane.plots.set_title_prefix(title_prefix)
    pane._show_devices(tuple(devices), select_first=True)
    pane.set_window(None)
    pane._set_empty(None)
    pane.redraw()
    pane._status(label)


def stop_replay(pane: MonitorPane) -> None:
    if pane._replay is None:
        return
    pane._replay = None
    pane._replay_frame = None
    pane.replay_bar.setVisible(False)
    pane.session_combo.clear()
    pane.plots.set_title_prefix("")
    pane.plots.clear_data()
    pane._show_devices(pane.devices)
    try:
        pane.set_window(pane._live_window_s)
    except ValueError:
        pass
    # the live tables come back at the next tick
    pane._dirty = True
    pane.gpu_model.set_frame(pane.latest)
    if pane.latest is None:
        pane.process_model.set_rows([])
    else:
        pane._update_processes()
    pane.redraw()


def show_replay_tables(pane: MonitorPane, frame: Frame | None) -> None:
    """The card and process tables of a replay: the recording's last sample."""
    pane.gpu_model.set_frame(frame)
    pane.process_model.set_rows([ProcessRow(dev, p, None) for dev, p in frame_processes(frame)])
