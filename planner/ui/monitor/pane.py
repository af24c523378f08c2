"""The Monitor pane: the NVIDIA cards in this computer, live, recorded.

Built by the main window (or a test) with a backend factory::

    pane = MonitorPane(NvmlBackend, demo=False)          # or SimulatedBackend, demo=True
    pane.set_predicted_peak(plan_peak_bytes, "ResNet-50, batch 64")
    ...
    pane.shutdown()                                      # stop sampling, close the recording

Data flow: a ``SamplingBridge`` samples in a daemon thread; the recording is written in that
thread; each immutable Frame arrives in the GUI thread through a queued signal, where it is
appended to a fixed-size ``History`` and checked for alerts, ended processes and lost cards
(cheap, every frame). A 2 Hz timer puts the latest frame into the tables and redraws the plots
(not per sample, not while the pane is hidden, and not the plots while paused).

Signals for the main window: ``status_message(str)`` (alerts and notices for the status bar),
``devices_changed(tuple[DeviceInfo])`` (what the user owns: this computer's cards, never a
cluster's), ``source_changed(str)`` ("nvml", "simulated", "prometheus" or "unavailable"),
``comparison_ready(str)`` (plan vs run), ``retention_changed(float)`` (days, to persist),
``cluster_settings_changed(dict)`` (the cluster to watch, for the settings file: the token only
when the user ticked "remember token").

Watching a cluster ("Cluster…", or ``watch_cluster(ClusterConfig)``): the source becomes a
PrometheusBackend through the same backend-factory mechanism; "Local cards"
(``switch_to_local()``) goes back. The main window passes ``cluster_settings=`` (what it saved)
and ``peak_bandwidth_lookup=`` (card name → peak GB/s from the catalog; dcgm-exporter does not
export the bus width and clock). Fleet cards get a Host column, grouped by host; a card whose
node is gone is "lost", a card whose telemetry server did not answer is "no answer".
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QCoreApplication, QEvent, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import (
    QWidget,
)

from planner import paths
from planner.telemetry.history import History, ProcessRecord, ProcessTracker
from planner.telemetry.compare import PeakReading, ended_peak
from planner.telemetry.recorder import apply_retention
from planner.telemetry.sampler import MIN_INTERVAL_S
from planner.telemetry.simulated import SimulatedBackend
from planner.telemetry.timeaxis import redraw_due
from planner.telemetry.types import DeviceInfo, Frame
from planner.telemetry.watch import Alert, Alerts, CardWatch, frame_source
from planner.ui.i18n import TextBindings, arg
from planner.ui.monitor.cluster import (
    ClusterConfig,
    ClusterDialog,
    prometheus_factory,
)
from planner.ui.monitor.models import (
    card_label,
    whole_card_state,
)
from planner.ui.monitor.plots import PLOT_METRICS
from planner.ui.monitor import following, plot_export, replay_view, sections, sources, tables
from planner.ui.monitor.recordings import (
    DEFAULT_RETENTION_DAYS,
    RecordingsDialog,
    RecordingSink,
)
from planner.ui.sampling import SamplingBridge

log = logging.getLogger(__name__)

REDRAW_HZ = 2  # ARCHITECTURE: 2–4 Hz; the lowest keeps the live CPU under 5% of a core
MAX_REDRAW_WAIT_S = 1.0  # a live plot is never older than this (one pixel may be longer)
REFIT_S = 10  # seconds between fitting the table columns to their contents
HISTORY_CAPACITY = 7200  # fine samples per metric per card (2 h at 1 s, 12 min at 0.1 s)


def default_demo_factory() -> SimulatedBackend:
    """Two simulated cards, a minute into a training-like job."""
    return SimulatedBackend(n_devices=2, seed=0, time_offset_s=60.0)


def _tr(text: str) -> str:
    return QCoreApplication.translate("MonitorPane", text)


class MonitorPane(QWidget):
    status_message = Signal(str)
    devices_changed = Signal(object)
    source_changed = Signal(str)
    comparison_ready = Signal(str)
    retention_changed = Signal(float)
    cluster_settings_changed = Signal(object)  # dict for the settings file (no unremembered token)

    def __init__(self, backend_factory: Callable[[], Any], *, demo: bool,
                 parent: QWidget | None = None, interval_s: float = 1.0,
                 recordings_dir: str | Path | None = None, record: bool = True,
                 demo_factory: Callable[[], Any] | None = None,
                 retention_days: float = DEFAULT_RETENTION_DAYS,
                 memory_alert_pct: float = 95.0, temperature_alert_c: float = 85.0,
                 history_capacity: int = HISTORY_CAPACITY,
                 confirm: Callable[[QWidget, str, str], bool] | None = None,
                 ask_save_path: Callable[[QWidget, str, str, str], str | None] | None = None,
                 autostart: bool = True,
                 peak_bandwidth_lookup: Callable[[str], float | None] | None = None,
                 cluster_settings: dict[str, Any] | None = None,
                 cluster_backend_factory: Callable[[ClusterConfig], Callable[[], Any]]
                 | None = None) -> None:
        """``backend_factory``: a zero-argument callable returning a telemetry backend
        (``NvmlBackend`` or ``SimulatedBackend``), called in the sampling thread. ``demo``:
        the factory is the simulated source. ``demo_factory``: what "Try the simulated demo"
        switches to. ``confirm`` / ``ask_save_path``: injectable questions (tests script
        them; the default uses message boxes and file dialogs).

        Watching a cluster: ``cluster_settings`` is what ``cluster_settings_changed`` last
        emitted (the dialog starts from it); ``cluster_backend_factory(config)`` returns the
        zero-argument backend factory for a ``ClusterConfig`` (default: a PrometheusBackend);
        ``peak_bandwidth_lookup(card name)`` gives a card's peak GB/s where the source does
        not (dcgm-exporter), e.g. from the catalog; None leaves it "N/A"."""
        super().__init__(parent)
        self.setObjectName("MonitorPane")
        self._init_sources(backend_factory, demo, demo_factory, peak_bandwidth_lookup,
                           cluster_settings, cluster_backend_factory)
        self.recordings_dir = Path(recordings_dir) if recordings_dir is not None else None
        self._record = record
        self.retention_days = float(retention_days)
        self.alerts = Alerts(memory_alert_pct, temperature_alert_c)
        self._history_capacity = int(history_capacity)
        self._confirm = confirm
        self._ask_save_path = ask_save_path
        self._init_state()
        self._init_recording(record)
        self._init_bridge(interval_s)

        # the fixed texts are noted while the widgets are built, so that a change of language
        # shows them again without rebuilding the pane (its sampler and recording go on)
        self._texts = TextBindings(self, "MonitorPane")
        with self._texts.record(sections):
            sections.build_ui(self)
        self._texts.capture()
        self._timer = QTimer(self)
        self._timer.setInterval(int(1000 / REDRAW_HZ))
        self._timer.timeout.connect(self._on_tick)
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.shutdown)
        self._update_source_ui()
        if autostart:
            self.start()

    def _init_sources(self, backend_factory, demo, demo_factory, peak_bandwidth_lookup,
                      cluster_settings, cluster_backend_factory) -> None:
        """Where frames come from: this computer's cards (or the demo), or a cluster."""
        self._factory = backend_factory
        self._demo = bool(demo)
        self._demo_factory = demo_factory or default_demo_factory
        self._local_factory = backend_factory  # what "Local cards" returns to
        self._local_demo = self._demo
        self._peak_lookup = peak_bandwidth_lookup
        self._cluster_backend_factory = cluster_backend_factory or prometheus_factory
        self.cluster_config: ClusterConfig | None = ClusterConfig.from_settings(cluster_settings)
        self._watching = False  # the source is the cluster
        self._local_interval_s: float | None = None
        self._interval_floor_s = MIN_INTERVAL_S
        self.cluster_dialog: ClusterDialog | None = None
        self.source: str = "simulated" if demo else "nvml"
        self.unavailable_message: str | None = None

    def _init_state(self) -> None:
        """What the frames built up so far (none yet), the replay and the plan's peak."""
        self._shut = False
        self.history: History | None = None
        self.devices: tuple[DeviceInfo, ...] = ()
        self.latest: Frame | None = None
        self.tracker = ProcessTracker()
        self.watch = CardWatch()  # lost cards, peaks, processes and their series
        self._followed: tuple[int, int] | None = None
        self.alerts_fired: list[str] = []  # the texts of the alerts announced
        self._last_error: str | None = None
        self._dirty = False
        self._paused = False
        self._drawn = -1  # history.appended at the last redraw
        self._drawn_at = -math.inf  # time.monotonic() of the last live redraw
        self._ticks = 0
        self._source_key: tuple | None = None  # what the source line showed at the last tick
        self._replay: tuple[History, str, tuple[DeviceInfo, ...]] | None = None
        self._replay_frame: Frame | None = None  # the replay's last frame (its tables)
        self._live_window_s: float | None = None  # the window to go back to after a replay
        self._replay_path: Path | None = None
        self.predicted_bytes: int | None = None
        self.predicted_label = ""
        self.last_comparison: str | None = None
        self.frames_received = 0

    def _init_recording(self, record: bool) -> None:
        """The recording the sampling thread writes (old ones past the retention go)."""
        self.sink: RecordingSink | None = None
        self._told_recording_failure = False
        if record:
            folder = self.recordings_dir or paths.recordings_dir()
            self.recordings_dir = folder
            self.sink = RecordingSink(folder)
            try:
                apply_retention(folder, self.retention_days)
            except OSError as exc:
                log.warning("retention: %s", exc)

    def _init_bridge(self, interval_s: float) -> None:
        """The sampling thread and the queued signals its frames arrive by."""
        # the frames arrive at the tick's rate, a tick's worth at once (recorded one by one
        # in the sampling thread): one wake of the GUI thread per tick, not one per sample
        self.bridge = SamplingBridge(self._factory, interval_s, self,
                                     in_thread=self.sink.write if self.sink else None,
                                     batch_s=0.9 / REDRAW_HZ)
        queued = Qt.ConnectionType.QueuedConnection
        self.bridge.frames_ready.connect(self._on_frames, queued)
        self.bridge.unavailable.connect(self._on_unavailable, queued)
        self.bridge.error.connect(self._on_error, queued)

    # -- UI (built by planner.ui.monitor.sections) -------------------------------------------

    def _set_empty(self, text: str | None) -> None:
        if text is None:
            self.stack.setCurrentWidget(self.splitter)
        else:
            self.empty_label.setText(text)
            self.stack.setCurrentWidget(self.empty_label)

    def _update_source_ui(self) -> None:
        sources.update_source_line(self)

    def _refresh_source_ui(self) -> None:
        """The tick's look at the source line: shown again only when what it is made of
        changed (the source, the cards, the recording's file or failure, driver and CUDA);
        every other change of it (language, a switch of source) updates it at once."""
        sink, f = self.sink, self.latest
        key = (self.source, len(self.devices), self._watching,
               None if sink is None else (sink.path, sink.failure),
               None if f is None else (f.driver_version, f.cuda_version))
        if key != self._source_key:
            self._source_key = key
            self._update_source_ui()

    # -- language ------------------------------------------------------------------------------

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        """Show the pane in the language now installed; sampling, history, recording, the
        followed process and the replay go on untouched."""
        self._texts.apply()
        self.gpu_model.retranslate()
        self.process_model.retranslate()
        self.plots.retranslate()
        shown = {d.index: d for d in (self._replay[2] if self._replay is not None
                                      else self.devices)}
        for i in range(self.card_combo.count()):
            index = self.card_combo.itemData(i)
            if index is None:
                self.card_combo.setItemText(i, self.tr("All cards"))
            elif index in shown:
                self.card_combo.setItemText(i, card_label(shown[index]))
        self.pause_button.setText(self.tr("Resume plots") if self._paused
                                  else self.tr("Pause plots"))
        self._update_source_ui()
        if self.stack.currentWidget() is self.empty_label:
            if self.source == "unavailable" and getattr(self, "_unavailable_raw", None):
                self._show_unavailable(self._unavailable_raw)
            elif self.latest is not None and not self.devices:
                self._set_empty(self.tr("No NVIDIA card was found."))
        if self._followed is None:
            self.comparison_label.setText(self.tr("Select a process to follow its memory."))
        self.status_label.setText("")

    def _status(self, text: str) -> None:
        self.status_label.setText(text)
        self.status_label.setToolTip(text)
        self.status_message.emit(text)

    # -- lifecycle -----------------------------------------------------------------------------

    def start(self) -> None:
        if self._shut:
            return
        self.bridge.start()
        if self.isVisible():
            self._timer.start(int(1000 / REDRAW_HZ))

    @Slot()
    def shutdown(self) -> None:
        """Stop the sampler and close the recording. Safe to call twice."""
        if self._shut:
            return
        self._shut = True
        self._timer.stop()
        self.bridge.stop()
        if self.sink is not None:
            self.sink.close()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        super().showEvent(event)
        if not self._shut:
            self._timer.start(int(1000 / REDRAW_HZ))
            QTimer.singleShot(0, self._on_tick)

    def hideEvent(self, event: QHideEvent) -> None:  # noqa: N802
        super().hideEvent(event)
        self._timer.stop()

    @property
    def interval_s(self) -> float:
        return self.bridge.interval_s

    def set_interval(self, interval_s: float) -> None:
        self.interval_spin.setValue(interval_s)  # → _on_interval_changed

    @property
    def paused(self) -> bool:
        return self._paused

    @Slot(bool)
    def set_paused(self, paused: bool) -> None:
        """Freeze the plots (sampling, alerts and recording go on)."""
        self._paused = bool(paused)
        if self.pause_button.isChecked() != self._paused:
            self.pause_button.setChecked(self._paused)
        self.pause_button.setText(self.tr("Resume plots") if paused else self.tr("Pause plots"))
        paused_text = self.tr("Plots paused; sampling and recording go on")
        if paused:
            self._status(paused_text)
        else:
            if self.status_label.text() == paused_text:
                self._status("")  # not left standing after Resume
            self._on_tick()

    @property
    def window_s(self) -> float | None:
        return self.window_combo.currentData()

    def set_window(self, seconds: float | None) -> None:
        for i in range(self.window_combo.count()):
            if self.window_combo.itemData(i) == seconds:
                self.window_combo.setCurrentIndex(i)
                return
        raise ValueError(f"no time window of {seconds} s")

    @property
    def selected_device(self) -> int | None:
        """The card shown in the plots (its NVML index), or None for all cards."""
        return self.card_combo.currentData()

    def card_state(self, index: int) -> str:
        """"waiting", "ok", "lost" (card or node gone) or "no answer" (the telemetry server
        did not answer: the card is probably fine) from the latest frame."""
        return whole_card_state(self.latest.sample(index) if self.latest else None)

    def select_device(self, index: int | None) -> None:
        i = self.card_combo.findData(index)
        if i >= 0:
            self.card_combo.setCurrentIndex(i)

    def set_alert_thresholds(self, memory_pct: float | None = None,
                             temperature_c: float | None = None) -> None:
        self.alerts.set_thresholds(memory_pct, temperature_c)
        if memory_pct is not None:
            self.memory_alert_spin.blockSignals(True)
            self.memory_alert_spin.setValue(int(round(memory_pct)))
            self.memory_alert_spin.blockSignals(False)
        if temperature_c is not None:
            self.temp_alert_spin.blockSignals(True)
            self.temp_alert_spin.setValue(int(round(temperature_c)))
            self.temp_alert_spin.blockSignals(False)

    def set_predicted_peak(self, n_bytes: int | None, label: str = "") -> None:
        """The Planner's predicted peak (bytes, or None to hide), drawn on the memory plot."""
        self.predicted_bytes = n_bytes if n_bytes and n_bytes > 0 else None
        self.predicted_label = label or ""
        self.plots.set_predicted_peak(self.predicted_bytes, self.predicted_label)

    def set_retention_days(self, days: float) -> None:
        self.retention_days = float(days)

    # -- the source ----------------------------------------------------------------------------

    @Slot()
    def switch_to_demo(self) -> None:
        """Replace the backend by the simulated source (the banner's button)."""
        sources.switch_to_demo(self)

    # -- watching a cluster ------------------------------------------------------------------

    @property
    def watching_cluster(self) -> bool:
        return self._watching

    @Slot()
    def open_cluster_dialog(self) -> ClusterDialog:
        """Ask for a Prometheus server (non-modal); "Watch" switches the source to it.
        Returns the dialog (tests fill it in and accept it)."""
        dlg = ClusterDialog(self.cluster_config, self)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.accepted.connect(lambda: self.watch_cluster(dlg.config()))
        self.cluster_dialog = dlg
        dlg.show()
        return dlg

    def watch_cluster(self, config: ClusterConfig) -> None:
        """Switch the source to this Prometheus server (the sampling thread builds the
        backend); ``cluster_settings_changed`` carries the token only when remembered."""
        sources.watch_cluster(self, config)

    @Slot()
    def switch_to_local(self) -> None:
        """Back to this computer's cards (or the demo the pane started with): one click."""
        sources.switch_to_local(self)



    @Slot(str)
    def _on_unavailable(self, message: str) -> None:
        if self._shut:
            return
        self._unavailable_raw = message
        self.source = "unavailable"
        self._show_unavailable(message)
        self.banner.setVisible(True)
        self._update_source_ui()
        self.source_changed.emit("unavailable")
        self._status("")  # said once, in the banner

    def _show_unavailable(self, raw: str) -> None:
        sources.show_unavailable(self, raw)

    @Slot(str)
    def _on_error(self, message: str) -> None:
        if message != self._last_error:
            self._last_error = message
            self._status(arg(self.tr("Telemetry: %1"), message))

    # -- frames --------------------------------------------------------------------------------

    def _new_devices(self, frame: Frame) -> None:
        self.devices = tuple(frame.devices)
        self.history = History([d.index for d in self.devices], self._history_capacity,
                               metrics=PLOT_METRICS, gap_s=3 * self.bridge.interval_s + 0.5)
        self.watch.reset_cards()
        self.alerts.clear()
        self._refresh_alert_line()
        if self._replay is None:
            self._show_devices(self.devices)
        tables.fit_gpu_table(self)
        if not self._watching:  # what the user owns: this computer's cards, not the fleet's
            self.devices_changed.emit(self.devices)


    def _show_devices(self, devices: tuple[DeviceInfo, ...], select_first: bool = False) -> None:
        tables.show_devices(self, devices, select_first)

    @Slot(object)
    def _on_frames(self, frames: tuple[Frame, ...]) -> None:
        """A tick's worth of frames: each one goes into the history, the alerts and the
        process records in order; then the tables and plots show them at once (the timer
        ticks only when frames stop coming)."""
        for frame in frames:
            self._on_frame(frame)
        if self._shut or not self._dirty or not self.isVisible():
            return
        # restarted, a little longer than a tick: it ticks only when the frames stop coming
        self._timer.start(int(1500 / REDRAW_HZ))
        self._on_tick()

    def _on_frame(self, frame: Frame) -> None:
        if self._shut:
            return
        if (frame.source == "prometheus") != self._watching:
            return  # queued before the source was switched
        self.frames_received += 1
        first = self.latest is None or self.source in ("unavailable", "connecting")
        if frame.devices != self.devices or self.history is None:
            self._new_devices(frame)
        source = frame_source(frame)
        if source != self.source:
            self.source = source
            self.source_changed.emit(source)
        assert self.history is not None
        self.history.append(frame)
        self.latest = frame
        self._dirty = True
        t = self.history.fine.last_time()
        news = self.watch.update(frame, t)
        for text in following.news_texts(frame, news):
            self._status(text)
        ended = self.tracker.update(frame)
        if ended:
            self._on_processes_ended(ended)
        if (not self._told_recording_failure and self.sink is not None
                and self.sink.failure is not None):
            self._update_source_ui()
        self._check_alerts(frame)
        if first:
            self._set_empty(None if self.devices else self.tr("No NVIDIA card was found."))
            self._update_source_ui()
            if self.isVisible():
                QTimer.singleShot(0, self._on_tick)

    def _prune_process_series(self) -> None:
        self.watch.prune(((r.device, r.pid) for r in self.tracker.running()), self._followed)

    def _on_processes_ended(self, ended: list[ProcessRecord]) -> None:
        self._prune_process_series()
        if self.predicted_bytes is None:
            return
        reading = ended_peak(ended, self._followed, self.selected_device)
        if reading is not None:
            self._show_comparison(self._comparison_text(reading, ended=True))

    # -- alerts --------------------------------------------------------------------------------

    def _check_alerts(self, frame: Frame) -> None:
        new, changed = self.alerts.update(frame)
        for alert in new:
            text = self._alert_text(alert)
            self.alerts_fired.append(text)
            self._status(arg(self.tr("Alert: %1"), text))
        if changed:
            self._refresh_alert_line()

    def _alert_text(self, a: Alert) -> str:
        return following.alert_text(a)

    def _refresh_alert_line(self) -> None:
        following.refresh_alert_line(self)

    @property
    def active_alerts(self) -> list[str]:
        return [self._alert_text(a) for a in self.alerts.active.values()]

    @Slot()
    def _on_alert_thresholds(self) -> None:
        self.alerts.set_thresholds(self.memory_alert_spin.value(), self.temp_alert_spin.value())
        self.alerts.clear()  # re-evaluated on the next frame
        self._refresh_alert_line()

    # -- the timer: tables and plots -----------------------------------------------------------

    @Slot()
    def _on_tick(self) -> None:
        if self._shut or not self.isVisible():
            return
        if self._dirty and self.latest is not None and self._replay is None:
            # during a replay the tables show the recording, not the live cards
            self._dirty = False
            reset = self.gpu_model.rowCount() != len(self.latest.devices)
            self.gpu_model.set_frame(self.latest)
            self._ticks += 1
            if reset or self._ticks % (REFIT_S * REDRAW_HZ) == 1:
                self.gpu_table.resizeColumnsToContents()
            self._sync_gpu_selection()
            self._update_processes()
            self._refresh_source_ui()
        if not self._paused and self._replay is None and self.history is not None \
                and self.history.appended != self._drawn and self._redraw_due():
            self.redraw()  # only when a frame came since the last redraw

    def _redraw_due(self) -> bool:
        """Once the newest sample is a pixel further on the x axis, at most every
        MAX_REDRAW_WAIT_S (a 10-minute window 700 px wide moves a pixel every 0.86 s)."""
        assert self.history is not None
        return redraw_due(time.monotonic(), self._drawn_at,
                          self.plots.seconds_per_pixel(self.history, self.window_s),
                          MAX_REDRAW_WAIT_S, slack_s=0.5 / REDRAW_HZ)

    def redraw(self) -> None:
        """One full redraw of the plots from the live history (or the replay)."""
        source = self._replay[0] if self._replay is not None else self.history
        if source is None:
            return
        if self._replay is None:
            self._drawn = source.appended
            self._drawn_at = time.monotonic()
        self.plots.redraw(source, self.window_s)
        self._redraw_followed()
        if self.plots.coarse_shown:
            self.window_note.setText(arg(self.tr(
                    "Long window: %1-second buckets (memory: the bucket's maximum, the rest: "
                    "its mean)"),
                                         format(source.coarse_bucket_s, '.0f')))
        else:
            self.window_note.setText("")

    def _redraw_followed(self) -> None:
        if self._followed is None or self._replay is not None:
            self.plots.set_process_curve(None)
            return
        dev, pid = self._followed
        sel = self.selected_device
        if sel is not None and sel != dev:
            self.plots.set_process_curve(None)
            return
        series = self.watch.series.get(self._followed)
        label = arg(self.tr("process %1"), pid)  # short: the legend sets the width
        if not series:
            self.plots.set_process_curve(label, np.empty(0), np.empty(0))
            return
        self.plots.set_process_curve(label, *series.arrays())


    def _sync_gpu_selection(self) -> None:
        tables.sync_gpu_selection(self)

    def _update_processes(self) -> None:
        tables.update_processes(self)

    # -- user actions --------------------------------------------------------------------------

    @Slot(int)
    def _on_card_combo(self, _i: int) -> None:
        sel = self.selected_device
        if self._followed is not None and sel is not None and self._followed[0] != sel:
            self.unfollow()  # its process is on another card: no line, no "Following …" text
        if self._replay is not None:
            self.plots.set_selection(self.selected_device)
        else:
            self.plots.set_selection(self.selected_device)
            self._update_processes()
        self._sync_gpu_selection()
        if not self._paused:
            self.redraw()

    @Slot()
    def _on_gpu_row(self, current: Any, _previous: Any) -> None:
        d = self.gpu_model.device_at(current.row())
        if d is not None and d.index != self.selected_device:
            self.select_device(d.index)

    @Slot(int)
    def _on_window_changed(self, _i: int) -> None:
        if not self._paused:
            self.redraw()

    @Slot(float)
    def _on_interval_changed(self, value: float) -> None:
        used = self.bridge.set_interval(max(value, self._interval_floor_s))
        if self.history is not None:
            self.history.gap_s = 3 * used + 0.5

    @Slot()
    def _on_process_selected(self) -> None:
        rows = self.process_table.selectionModel().selectedRows()
        if not rows:
            return
        r = self.process_model.row_at(rows[0].row())
        if r is not None:
            self.follow_process(r.device, r.process.pid)

    def follow_process(self, device: int, pid: int) -> None:
        """Draw this process's memory on the memory plot; compare it when it ends."""
        following.follow_process(self, device, pid)

    @Slot()
    def unfollow(self) -> None:
        following.unfollow(self)

    @property
    def followed_process(self) -> tuple[int, int] | None:
        return self._followed

    def _comparison_text(self, reading: PeakReading, *, ended: bool = False) -> str:
        return following.comparison_text(self, reading, ended=ended)

    def _show_comparison(self, msg: str) -> None:
        following.show_comparison(self, msg)

    @Slot()
    def compare_with_plan(self) -> str | None:
        """Plan vs run now: the followed process's peak, else the selected card's peak."""
        return following.compare_with_plan(self)

    # -- export --------------------------------------------------------------------------------


    @Slot()
    def _on_export_plot(self) -> None:
        plot_export.on_export_plot(self)

    @Slot()
    def _on_export_data(self) -> None:
        plot_export.on_export_data(self)





    def export_plot_png(self, path: str | Path) -> bool:
        """The four plots as they are on screen under a title line (cards, time range,
        source); False when there is nothing to show."""
        return plot_export.export_plot_png(self, path)

    def export_data_csv(self, path: str | Path) -> int:
        """Every card's data in the shown time window as CSV; the number of rows."""
        return plot_export.export_data_csv(self, path)

    # -- recordings ----------------------------------------------------------------------------

    @property
    def recording_path(self) -> Path | None:
        return None if self.sink is None else self.sink.path

    @Slot()
    def open_recordings(self) -> RecordingsDialog:
        """Open the recordings browser (non-modal) and return it."""
        if self.sink is not None:
            self.sink.flush()
        folder = self.recordings_dir or paths.recordings_dir()
        dlg = RecordingsDialog(folder, current_path=self.recording_path,
                               retention_days=self.retention_days, confirm=self._confirm,
                               ask_save_path=self._ask_save_path, parent=self)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.replay_requested.connect(self.replay)
        dlg.retention_changed.connect(self._on_retention_changed)
        self.recordings_dialog = dlg
        dlg.show()
        return dlg

    @Slot(float)
    def _on_retention_changed(self, days: float) -> None:
        self.retention_days = days
        self.retention_changed.emit(days)

    @Slot(object)
    def replay(self, path: str | Path, session_id: int | None = None) -> bool:
        """Show a recording in the plots, labelled as a replay; False (and a message) if it
        cannot be read. ``session_id``: which of its sessions (default the first). Live
        sampling and recording go on underneath."""
        return replay_view.replay(self, path, session_id)


    @Slot(int)
    def _on_session_chosen(self, index: int) -> None:
        replay_view.on_session_chosen(self, index)

    def show_history(self, history: History, devices: tuple[DeviceInfo, ...], label: str,
                     title_prefix: str = "", last_frame: Frame | None = None) -> None:
        """Show a History that is not the live one (a replay), with a label bar and
        \"Back to live\"; the tables show ``last_frame`` until the replay ends."""
        replay_view.show_history(self, history, devices, label, title_prefix, last_frame)

    @property
    def replaying(self) -> bool:
        return self._replay is not None

    @Slot()
    def stop_replay(self) -> None:
        replay_view.stop_replay(self)

