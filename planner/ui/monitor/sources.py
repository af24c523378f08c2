"""Where the Monitor pane's frames come from, and what it says about it: this computer's cards
(NVML), the simulated demo, or a cluster (Prometheus); the source line (SIMULATED badge,
driver and CUDA, the recording's state) and the empty state when there is no telemetry.

Functions of the pane: its ``switch_to_demo``, ``watch_cluster`` and ``switch_to_local``
call them; the sampling thread opens the new backend (``SamplingBridge.restart``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from planner.telemetry.sampler import MAX_INTERVAL_S, MIN_INTERVAL_S
from planner.ui.i18n import arg, tr_core
from planner.ui.monitor.cluster import ClusterConfig, PeakFillingBackend

if TYPE_CHECKING:
    from planner.ui.monitor.pane import MonitorPane


def _tr(text: str) -> str:
    return QCoreApplication.translate("MonitorPane", text)


def update_source_line(pane: MonitorPane) -> None:
    simulated = pane.source == "simulated"
    pane.simulated_label.setVisible(simulated)
    n = len(pane.devices)
    # one "Local cards" button: the banner's while it is shown, else the source line's
    banner_up = pane.source == "unavailable"
    pane.local_button.setVisible(pane._watching and not banner_up)
    pane.banner_local_button.setVisible(pane._watching)
    # dcgm-exporter has no per-process data: the plots take the processes' room
    pane.proc_box.setVisible(not pane._watching)
    pane.demo_button.setVisible(not pane._watching)
    url = pane.cluster_config.display_url if pane.cluster_config is not None else ""
    if pane._watching and pane.source != "prometheus":
        text = arg(_tr("Cluster %1: no telemetry"), url) \
            if pane.source == "unavailable" else \
            arg(_tr("Cluster %1: connecting…"), url)
    elif pane.source == "unavailable":
        text = _tr("No live telemetry")
    elif pane.source == "prometheus":
        hosts = len({d.host for d in pane.devices})
        text = arg(_tr("Cluster (Prometheus, dcgm-exporter) · %1 · %2 host(s) · "
                           "%3 card(s)"),
                   url or "N/A", hosts, n)
    elif simulated:
        text = arg(_tr("Simulated source — no GPU is read; %1 simulated card(s)"), n)
    else:
        f = pane.latest
        drv = f.driver_version if f and f.driver_version else "N/A"
        cuda = f.cuda_version if f and f.cuda_version else "N/A"
        text = arg(_tr("Live (NVML) · driver %1 · CUDA %2 · %3 card(s)"), drv, cuda, n)
    pane.source_label.setText(text)
    pane.source_label.setToolTip(text)
    if pane.sink is None:
        pane.recording_label.setText(_tr("Not recording"))
    elif pane.sink.failure:
        failure = pane.sink.failure
        pane.recording_label.setText(_tr("■ Recording stopped"))
        pane.recording_label.setToolTip(failure)
        if not pane._told_recording_failure:  # once, where the user looks
            pane._told_recording_failure = True
            pane._status(arg(_tr("Recording stopped: %1"), failure))
    elif pane.sink.path is not None and pane.source in ("unavailable", "connecting"):
        # nothing arrives, so nothing is written: not "● Recording"
        pane.recording_label.setText(_tr("Recording paused: no data"))
        pane.recording_label.setToolTip(arg(_tr(
                "The recording %1 goes on when samples arrive again"),
                                            pane.sink.path.name))
    elif pane.sink.path is not None:
        pane.recording_label.setText(arg(_tr("● Recording: %1"), pane.sink.path.name))
        pane.recording_label.setToolTip(str(pane.sink.path))
    else:
        pane.recording_label.setText("")


def switch_to_demo(pane: MonitorPane) -> None:
    """Replace the backend by the simulated source (the banner's button)."""
    if pane._shut:
        return
    pane._demo = True
    pane._factory = pane._demo_factory
    pane.source = "simulated"
    pane.unavailable_message = None
    pane.banner.setVisible(False)
    pane._set_empty(_tr("Starting the simulated demo…"))
    update_source_line(pane)
    pane.source_changed.emit("simulated")
    pane.bridge.restart(pane._factory)
    pane._status(_tr("Showing the simulated demo: no GPU is read"))


def watch_cluster(pane: MonitorPane, config: ClusterConfig) -> None:
    """Switch the source to this Prometheus server (the sampling thread builds the
    backend). The token stays in memory; ``cluster_settings_changed`` carries it only
    when ``config.remember_token``."""
    if pane._shut:
        return
    if pane._replay is not None:
        pane.stop_replay()
    pane.cluster_config = config
    pane.cluster_settings_changed.emit(config.to_settings())
    make = pane._cluster_backend_factory(config)
    lookup = pane._peak_lookup
    factory = make if lookup is None else (lambda: PeakFillingBackend(make(), lookup))
    if not pane._watching:
        pane._local_interval_s = pane.bridge.interval_s
    pane._watching = True
    pane._factory = factory
    set_interval_floor(pane, config.min_interval_s)
    reset_source_state(pane)
    pane._set_empty(arg(_tr("Connecting to %1…"), config.display_url))
    update_source_line(pane)
    pane.source_changed.emit("prometheus")
    pane.bridge.restart(factory)
    pane._status(arg(_tr("Watching the cluster at %1"), config.display_url))


def switch_to_local(pane: MonitorPane) -> None:
    """Back to this computer's cards (or the demo the pane started with): one click."""
    if pane._shut or not pane._watching:
        return
    pane._watching = False
    pane._demo = pane._local_demo
    pane._factory = pane._local_factory
    set_interval_floor(pane, MIN_INTERVAL_S)
    if pane._local_interval_s is not None:
        pane.set_interval(pane._local_interval_s)
    reset_source_state(pane)
    pane.source = "simulated" if pane._demo else "nvml"
    pane._set_empty(_tr("Waiting for the first sample…"))
    update_source_line(pane)
    pane.source_changed.emit(pane.source)
    pane.bridge.restart(pane._factory)
    pane._status(_tr("Showing this computer's cards"))


def reset_source_state(pane: MonitorPane) -> None:
    pane.unavailable_message = None
    pane.banner.setVisible(False)
    pane.latest = None
    pane.devices = ()
    pane.history = None
    pane._drawn = -1
    pane._last_error = None
    pane.watch.reset()
    pane.gpu_model.set_frame(None)
    pane.process_model.set_rows([])
    pane._show_devices(())  # the old source's cards leave the card box and the plots
    if pane._watching:
        pane.source = "connecting"


def set_interval_floor(pane: MonitorPane, floor_s: float) -> None:
    """The sampler never asks faster than the backend answers (its min_interval_s)."""
    pane._interval_floor_s = max(MIN_INTERVAL_S, min(MAX_INTERVAL_S, float(floor_s)))
    pane.interval_spin.blockSignals(True)
    pane.interval_spin.setMinimum(pane._interval_floor_s)
    pane.interval_spin.blockSignals(False)
    pane.interval_spin.setToolTip(arg(_tr("Seconds between samples (%1–%2)"),
                                      format(pane._interval_floor_s, 'g'),
                                      format(MAX_INTERVAL_S, 'g')))
    if pane.bridge.interval_s < pane._interval_floor_s:
        pane.set_interval(pane._interval_floor_s)
    pane._on_interval_changed(pane.interval_spin.value())


def show_unavailable(pane: MonitorPane, raw: str) -> None:
    message = tr_core(raw)  # the driver messages are marked for translation
    pane.unavailable_message = message
    pane.banner_label.setText(message)
    pane.banner_label.setToolTip(pane.bridge.unavailable_reason or "")
    if pane._watching:
        pane._set_empty(arg(_tr("The cluster cannot be watched: %1.\n\n“Local cards” "
                                    "shows this computer's cards again."),
                            message.rstrip(".")))
    else:
        # the banner above says why; this says what still works (not the message again)
        pane._set_empty(_tr("No live telemetry.\n\nThe Planner and the advice do "
                                "not need it. “Try the simulated demo” shows what this pane "
                                "does with simulated cards."))
