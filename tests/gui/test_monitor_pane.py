"""The Monitor pane with the simulated source (and a scripted failing one), driven by pytest-qt.

Every test waits on signals or conditions, never sleeps; every item model goes through
qtmodeltester; teardown shuts the pane down and checks that no sampler thread survives.
"""

from __future__ import annotations

import csv
import re
import threading
import time

import numpy as np
import pytest
from PySide6.QtCore import Qt

from planner.telemetry.recorder import Recorder, RECORDING_SUFFIX, list_recordings
from planner.telemetry.sampler import THREAD_NAME_PREFIX
from planner.telemetry.simulated import SimulatedBackend
from planner.telemetry.types import BackendUnavailable, Frame
from planner.ui.monitor import plot_export
from planner.ui.monitor.pane import MonitorPane
from planner.ui.sampling import SamplingBridge
from planner.units import GIB

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

FAST_S = 0.1
NO_DRIVER = "No NVIDIA driver found — planning and advice still work"


def sampler_threads() -> list[str]:
    return [t.name for t in threading.enumerate()
            if t.name.startswith(THREAD_NAME_PREFIX) and t.is_alive()]


@pytest.fixture
def make_pane(qtbot, tmp_path):
    made: list[MonitorPane] = []

    def make(factory=None, *, demo=True, show=True, **kwargs) -> MonitorPane:
        if factory is None:
            def factory():
                return SimulatedBackend(n_devices=2, seed=0, time_offset_s=60.0)
        kwargs.setdefault("interval_s", FAST_S)
        kwargs.setdefault("recordings_dir", tmp_path / "recordings")
        pane = MonitorPane(factory, demo=demo, **kwargs)
        qtbot.addWidget(pane)
        made.append(pane)
        if show:
            pane.resize(1400, 900)
            pane.show()
        return pane

    yield make
    for pane in made:
        pane.shutdown()
        pane.shutdown()  # safe twice
    assert sampler_threads() == []


def wait_frames(qtbot, pane: MonitorPane, n: int, timeout: int = 5000) -> None:
    target = pane.frames_received + n
    qtbot.waitUntil(lambda: pane.frames_received >= target, timeout=timeout)


def cell(pane: MonitorPane, row: int, key: str, role=Qt.ItemDataRole.DisplayRole):
    m = pane.gpu_model
    return m.data(m.index(row, m.column_of(key)), role)


# -- the bridge ------------------------------------------------------------------------------------

def test_bridge_delivers_frames_in_gui_thread_and_stops(qtbot):
    bridge = SamplingBridge(lambda: SimulatedBackend(n_devices=1), FAST_S)
    seen = []
    bridge.frame_ready.connect(lambda f: seen.append(threading.current_thread()),
                               Qt.ConnectionType.QueuedConnection)
    bridge.start()
    try:
        with qtbot.waitSignal(bridge.frame_ready, timeout=3000) as blocker:
            pass
        assert isinstance(blocker.args[0], Frame)
        assert bridge.set_interval(50) == 10.0  # clamped
        assert bridge.set_interval(0.2) == pytest.approx(0.2)
    finally:
        assert bridge.stop()
        assert bridge.stop()  # twice is fine
    qtbot.waitUntil(lambda: bool(seen))
    assert all(t is threading.main_thread() for t in seen)
    assert sampler_threads() == []


def test_batched_bridge_delivers_every_frame_in_order_a_few_at_a_time(qtbot):
    recorded = []
    bridge = SamplingBridge(lambda: SimulatedBackend(n_devices=2), FAST_S,
                            in_thread=recorded.append, batch_s=0.35)
    batches = []
    bridge.frames_ready.connect(lambda b: batches.append((threading.current_thread(), b)),
                                Qt.ConnectionType.QueuedConnection)
    single = []
    bridge.frame_ready.connect(single.append, Qt.ConnectionType.QueuedConnection)
    bridge.start()
    try:
        qtbot.waitUntil(lambda: sum(len(b) for _, b in batches) >= 12, timeout=8000)
    finally:
        assert bridge.stop()
    qtbot.wait(50)
    frames = [f for _, b in batches for f in b]
    assert single == []  # batched: no per-frame signal
    assert all(t is threading.main_thread() for t, _ in batches)
    assert len(batches[0][1]) == 1  # the first frame at once: the pane shows it without waiting
    assert max(len(b) for _, b in batches) >= 3  # then several per wake of the GUI thread
    # every frame arrives, in order, and each was recorded in the sampling thread first
    times = [f.monotonic_s for f in frames]
    assert times == sorted(times) and len(set(times)) == len(times)
    assert frames == recorded[:len(frames)]
    assert sampler_threads() == []


# -- rows, labels, plots ---------------------------------------------------------------------------

def test_rows_show_simulated_cards(make_pane, qtbot, qtmodeltester):
    pane = make_pane()
    qtbot.waitUntil(lambda: pane.gpu_model.rowCount() == 2, timeout=5000)
    names = [cell(pane, r, "name") for r in range(2)]
    assert all("(simulated)" in n for n in names), names
    assert pane.simulated_label.isVisible()
    assert pane.simulated_label.text() == "SIMULATED"
    assert "Simulated" in pane.source_label.text()
    assert not pane.banner.isVisible()
    # names that matter: memory in use vs memory-controller busy; the GB/s is an estimate
    headers = [pane.gpu_model.headerData(c, Qt.Orientation.Horizontal)
               for c in range(pane.gpu_model.columnCount())]
    assert any("Memory-controller" in h and "busy" in h for h in headers)
    assert any("(est.)" in h for h in headers)
    assert re.fullmatch(r"[\d,]+ / [\d,]+ MiB", cell(pane, 0, "memory"))
    # the simulated RTX 4090 has no GPM: N/A with the reason on hover
    assert cell(pane, 0, "dram") == "N/A"
    assert "Hopper" in cell(pane, 0, "dram", Qt.ItemDataRole.ToolTipRole)
    assert cell(pane, 0, "state") == "ok"
    qtbot.waitUntil(lambda: pane.process_model.rowCount() >= 1, timeout=5000)
    qtmodeltester.check(pane.gpu_model)
    qtmodeltester.check(pane.process_model)


def test_memory_plot_gets_data_and_predicted_line(make_pane, qtbot):
    pane = make_pane()
    pane.set_predicted_peak(int(8.7 * GIB), "ResNet-50, batch 64")
    qtbot.waitUntil(lambda: pane.plots.curve_points(0, "memory") >= 5, timeout=5000)
    x, y = pane.plots.cards[0].memory.getData()
    assert np.nanmax(y) > 0.5  # GiB: the simulated notebook alone holds 1.2 GiB
    assert pane.plots.predicted_line.isVisible()
    assert pane.plots.predicted_line.value() == pytest.approx(8.7)
    assert "8.7 GiB" in pane.plots.predicted_line.label.toPlainText()
    left = pane.plots.memory.getAxis("left").labelText
    assert "Memory" in left
    pane.set_predicted_peak(None, "")
    assert not pane.plots.predicted_line.isVisible()
    # all cards, then windows (the whole session included)
    pane.select_device(None)
    assert pane.plots.cards[1].memory.isVisible()
    for seconds in (60.0, 600.0, 3600.0, None):
        pane.set_window(seconds)
        pane.redraw()
    assert pane.plots.curve_points(1, "memory") >= 5


def test_hidden_pane_does_not_redraw(make_pane, qtbot):
    pane = make_pane()
    qtbot.waitUntil(lambda: pane.plots.redraws >= 2, timeout=5000)
    pane.hide()
    before = pane.plots.redraws
    wait_frames(qtbot, pane, 8)
    assert pane.plots.redraws == before
    pane.show()
    qtbot.waitUntil(lambda: pane.plots.redraws > before, timeout=3000)


def test_lost_card_is_marked_while_the_other_goes_on(make_pane, qtbot):
    pane = make_pane(lambda: SimulatedBackend(n_devices=2, time_offset_s=60.0,
                                              lose_device=(1, 60.3)))
    qtbot.waitUntil(lambda: pane.gpu_model.rowCount() == 2
                    and cell(pane, 1, "state") == "lost", timeout=5000)
    assert "lost" in cell(pane, 1, "state", Qt.ItemDataRole.ToolTipRole).lower()
    assert cell(pane, 1, "memory") == "N/A"
    assert "lost" in pane.status_label.text()
    n0 = pane.history.appended
    wait_frames(qtbot, pane, 5)
    assert pane.history.appended >= n0 + 5
    assert np.isfinite(pane.history.latest("memory_used_bytes", 0))
    assert np.isnan(pane.history.latest("memory_used_bytes", 1))
    assert cell(pane, 0, "state") == "ok"


def test_unavailable_backend_shows_banner_and_demo_switches(make_pane, qtbot):
    def no_driver():
        raise BackendUnavailable(NO_DRIVER, "libnvidia-ml.so.1: cannot open shared object")

    pane = make_pane(no_driver, demo=False,
                     demo_factory=lambda: SimulatedBackend(n_devices=2, time_offset_s=60.0))
    with qtbot.waitSignal(pane.source_changed, timeout=3000) as blocker:
        pass
    assert blocker.args == ["unavailable"]
    assert pane.banner.isVisible()
    assert pane.banner_label.text() == NO_DRIVER
    assert pane.demo_button.text() == "Try the simulated demo"
    assert "Planner" in pane.empty_label.text()
    assert not pane.simulated_label.isVisible()
    assert pane.recording_path is None  # nothing recorded without a source
    qtbot.mouseClick(pane.demo_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: pane.gpu_model.rowCount() == 2, timeout=5000)
    assert not pane.banner.isVisible()
    assert pane.simulated_label.isVisible()
    assert pane.source == "simulated"
    assert pane.stack.currentWidget() is pane.splitter


# -- pause, alerts, plan vs run --------------------------------------------------------------------

def test_pause_freezes_plots_but_recording_goes_on(make_pane, qtbot):
    pane = make_pane()
    qtbot.waitUntil(lambda: pane.plots.curve_points(0, "memory") >= 3, timeout=5000)
    pane.set_paused(True)
    redraws = pane.plots.redraws
    points = pane.plots.curve_points(0, "memory")
    written = pane.sink.frames_written
    wait_frames(qtbot, pane, 8)
    assert pane.plots.redraws == redraws
    assert pane.plots.curve_points(0, "memory") == points
    # The sink writes on its own schedule: wait for it rather than race it.
    qtbot.waitUntil(lambda: pane.sink.frames_written >= written + 8, timeout=3000)
    assert pane.plots.redraws == redraws  # still frozen
    pane.set_paused(False)
    qtbot.waitUntil(lambda: pane.plots.curve_points(0, "memory") > points, timeout=3000)


def test_alert_fires_once_when_memory_passes_a_low_threshold(make_pane, qtbot):
    pane = make_pane(memory_alert_pct=1.0)
    messages = []
    pane.status_message.connect(messages.append)
    qtbot.waitUntil(lambda: pane.alert_label.isVisible(), timeout=5000)
    assert "GPU 0: memory in use" in pane.alert_label.text()
    assert "alert at 1%" in pane.alert_label.text()
    assert any(m.startswith("Alert:") for m in messages)
    fired = len(pane.alerts_fired)
    wait_frames(qtbot, pane, 10)
    assert len(pane.alerts_fired) == fired  # not repeated every tick
    assert len(set(pane.alerts_fired)) == len(pane.alerts_fired)


def test_plan_versus_run_when_a_process_ends_and_on_demand(make_pane, qtbot):
    pane = make_pane(lambda: SimulatedBackend(n_devices=1, cycle_s=2.0, process_every=1))
    assert pane.compare_with_plan() is None  # no plan yet: says so, no crash
    pane.set_predicted_peak(int(8.7 * GIB), "test plan")
    with qtbot.waitSignal(pane.comparison_ready, timeout=8000) as blocker:
        pass
    msg = blocker.args[0]
    assert re.match(r"plan predicted 8\.7 GiB, the run peaked at [\d.]+ GiB \([+-]\d+%\)", msg)
    assert "ended" in msg
    assert pane.comparison_label.text() == msg
    # follow a process and compare on demand
    qtbot.waitUntil(lambda: pane.process_model.rowCount() >= 1, timeout=5000)
    row = pane.process_model.row_at(0)
    pane.follow_process(row.device, row.process.pid)
    assert pane.followed_process == (row.device, row.process.pid)
    qtbot.waitUntil(lambda: pane.tracker.records.get(pane.followed_process) is not None
                    and bool(pane.tracker.records[pane.followed_process].peak_bytes),
                    timeout=3000)
    on_demand = pane.compare_with_plan()
    assert on_demand is not None and on_demand.startswith("plan predicted 8.7 GiB")
    assert f"process {row.process.pid}" in on_demand
    pane.unfollow()
    assert pane.followed_process is None


# -- interval, export, recordings ------------------------------------------------------------------

def test_interval_control_changes_the_sampler(make_pane, qtbot):
    pane = make_pane()
    assert pane.interval_spin.minimum() == pytest.approx(0.1)
    assert pane.interval_spin.maximum() == pytest.approx(10.0)
    pane.set_interval(0.5)
    assert pane.interval_s == pytest.approx(0.5)
    qtbot.waitUntil(lambda: pane.bridge.sampler is not None
                    and pane.bridge.sampler.interval_s == pytest.approx(0.5), timeout=2000)


def test_export_plot_and_data(make_pane, qtbot, tmp_path):
    pane = make_pane()
    qtbot.waitUntil(lambda: pane.plots.curve_points(0, "memory") >= 5, timeout=5000)
    png = tmp_path / "plot.png"
    assert pane.export_plot_png(png)
    assert png.stat().st_size > 1000
    out = tmp_path / "data.csv"
    n = pane.export_data_csv(out)
    assert n >= 5
    with open(out, encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0][:4] == ["timestamp_s", "time_iso", "device_index", "device_name"]
    assert "memory_used_bytes" in rows[0]
    assert len(rows) == n + 1 and n > 0
    # every card, not only the one selected in the plots
    assert len(rows) > 1 and {r[2] for r in rows[1:]} == {"0", "1"}
    # bytes as whole numbers, as nvidia-smi and the recording keep them (not 2.30163e+10)
    col = rows[0].index("memory_used_bytes")
    used = [r[col] for r in rows[1:] if r[col]]
    assert used and all(re.fullmatch(r"\d+", v) for v in used)
    # the saved plot says what it shows: the cards, the time range and "simulated"
    title = plot_export.export_title(pane)
    assert "SIMULATED" in title and "GPU 0" in title and " – " in title


def test_export_refuses_when_there_is_nothing_to_export(make_pane, qtbot, tmp_path):
    def unavailable():
        raise BackendUnavailable("no driver")
    pane = make_pane(unavailable, demo=False)
    qtbot.waitUntil(lambda: pane.source == "unavailable", timeout=5000)
    png, out = tmp_path / "plot.png", tmp_path / "data.csv"
    assert not pane.export_plot_png(png) and not png.exists()
    assert pane.export_data_csv(out) == 0 and not out.exists()
    asked = []
    pane._ask_save_path = lambda *a: asked.append(a) or str(out)
    pane._on_export_data()
    pane._on_export_plot()
    assert asked == []  # no file dialog for an empty export
    assert "Nothing to export yet" in pane.status_label.text()


def test_replay_shows_the_recording_in_the_tables_and_returns_to_the_live_window(
        make_pane, qtbot, tmp_path):
    path = tmp_path / f"monitor-rec{RECORDING_SUFFIX}"
    one = SimulatedBackend(n_devices=1, seed=3)
    devs = tuple(one.open())
    with Recorder(path) as r:
        for i in range(4):
            r.write(Frame(1.0e9 + i, float(i), "simulated", None, None, devs, one.sample()))
    pane = make_pane()  # two live cards
    wait_frames(qtbot, pane, 3)
    qtbot.waitUntil(lambda: pane.gpu_model.rowCount() == 2, timeout=5000)
    pane.set_window(60.0)
    assert pane.replay(path)
    assert pane.window_s is None  # the whole recording
    # live frames keep arriving; the card table keeps showing the recording's one card
    wait_frames(qtbot, pane, 3)
    qtbot.waitUntil(lambda: pane._ticks >= 0, timeout=100)
    pane._on_tick()
    assert pane.gpu_model.rowCount() == 1
    pane.stop_replay()
    assert pane.window_s == 60.0  # back to the window the user had before
    pane._on_tick()
    assert pane.gpu_model.rowCount() == 2


def test_unfollowing_a_process_leaves_no_legend_entry(make_pane, qtbot):
    pane = make_pane(lambda: SimulatedBackend(n_devices=1, cycle_s=2.0, process_every=1))
    qtbot.waitUntil(lambda: pane.process_model.rowCount() >= 1, timeout=5000)
    row = pane.process_model.row_at(0)
    pane.follow_process(row.device, row.process.pid)
    pane.redraw()
    legend = pane.plots.legends[id(pane.plots.plots[0])]
    def labels():
        return [label.text for _, label in legend.items]
    assert any(f"process {row.process.pid}" in t for t in labels())
    pane.unfollow()
    pane.redraw()
    assert not any("process" in t for t in labels())


def test_recordings_browser_lists_replays_exports_and_deletes(make_pane, qtbot, tmp_path,
                                                             qtmodeltester):
    answers = {"confirm": True}
    asked = []

    def confirm(parent, title, text):
        asked.append(text)
        return answers["confirm"]

    rec_dir = tmp_path / "recordings"
    pane = make_pane(recordings_dir=rec_dir, confirm=confirm,
                     ask_save_path=lambda parent, title, suggested, f: str(tmp_path / "out.csv"))
    wait_frames(qtbot, pane, 6)
    qtbot.waitUntil(lambda: pane.recording_path is not None, timeout=3000)
    # a corrupt file with the recorder's suffix, and an older finished recording
    (rec_dir / f"monitor-garbage{RECORDING_SUFFIX}").write_bytes(b"not a database " * 64)
    other = rec_dir / f"monitor-older{RECORDING_SUFFIX}"
    b = SimulatedBackend(n_devices=1)
    devs = tuple(b.open())
    with Recorder(other) as r:
        for i in range(3):
            r.write(Frame(1.0e9 + i, float(i), "simulated", None, None, devs, b.sample()))

    dlg = pane.open_recordings()
    qtmodeltester.check(dlg.model)
    m = dlg.model
    texts = [[m.data(m.index(r, c)) for c in range(m.columnCount())]
             for r in range(m.rowCount())]
    assert m.rowCount() == 3
    current = [t for t in texts if t[6] == pane.recording_path.name]
    assert current and current[0][7] == "recording now"
    skipped = [t for t in texts if t[6] == f"monitor-garbage{RECORDING_SUFFIX}"]
    assert skipped and skipped[0][7].startswith("skipped:")
    assert "could not be read" in dlg.message.text()

    # the recording in progress cannot be deleted
    assert dlg.select_path(pane.recording_path)
    assert not dlg.delete_button.isEnabled()
    # export CSV of the current session
    dlg.export_button.click()
    assert "Exported" in dlg.message.text()
    with open(tmp_path / "out.csv", encoding="utf-8") as f:
        assert sum(1 for _ in f) > 1

    # replay: the same plots, labelled as a replay with its date
    with qtbot.waitSignal(dlg.replay_requested, timeout=1000):
        dlg.replay_button.click()
    assert pane.replaying
    assert pane.replay_bar.isVisible()
    assert pane.replay_label.text().startswith("REPLAY of the recording of ")
    assert pane.plots.memory.titleLabel.text.startswith("REPLAY ")
    assert pane.plots.curve_points(0, "memory") >= 3
    pane.stop_replay()
    assert not pane.replaying and not pane.replay_bar.isVisible()

    # delete the older one: refused once, then confirmed
    assert dlg.select_path(other)
    assert dlg.delete_button.isEnabled()
    answers["confirm"] = False
    dlg.delete_button.click()
    assert other.exists()
    answers["confirm"] = True
    dlg.delete_button.click()
    assert not other.exists()
    assert len(asked) == 2
    assert len(list_recordings(rec_dir).recordings) == 1

    # retention setting
    with qtbot.waitSignal(pane.retention_changed, timeout=1000) as blocker:
        dlg.retention.setValue(7)
    assert blocker.args == [7.0]
    assert pane.retention_days == 7.0
    dlg.close()


def test_replay_offers_every_session_of_a_recording(make_pane, qtbot, tmp_path):
    # A recording gains a session whenever the set of cards changes (or the monitor restarts):
    # each one can be replayed, not only the first.
    path = tmp_path / f"monitor-two{RECORDING_SUFFIX}"
    one, two = SimulatedBackend(n_devices=1), SimulatedBackend(n_devices=2)
    devs1, devs2 = tuple(one.open()), tuple(two.open())
    with Recorder(path) as r:
        for i in range(3):
            r.write(Frame(1.0e9 + i, float(i), "simulated", None, None, devs1, one.sample()))
        for i in range(5):
            r.write(Frame(1.0e9 + 100 + i, 100.0 + i, "simulated", None, None, devs2,
                          two.sample()))
    pane = make_pane(recordings_dir=tmp_path / "recordings")
    assert pane.replay(path)
    assert pane.session_combo.isVisible() and pane.session_combo.count() == 2
    assert "session 1 of 2" in pane.replay_label.text()
    assert pane.card_combo.count() == 1 + 1  # "All cards" and the one card
    assert pane.plots.curve_points(0, "memory") == 3
    second = pane.session_combo.itemData(1)
    pane.session_combo.setCurrentIndex(1)
    pane.session_combo.activated.emit(1)
    assert "session 2 of 2" in pane.replay_label.text()
    assert pane.card_combo.count() == 1 + 2
    assert pane.plots.curve_points(0, "memory") == 5
    assert pane.replay(path, second) and pane.session_combo.currentIndex() == 1
    pane.stop_replay()
    assert not pane.session_combo.isVisible()
    # a one-session recording shows no chooser
    single = tmp_path / f"monitor-one{RECORDING_SUFFIX}"
    with Recorder(single) as r:
        r.write(Frame(1.0e9, 0.0, "simulated", None, None, devs1, one.sample()))
    assert pane.replay(single)
    assert not pane.session_combo.isVisible() and "session" not in pane.replay_label.text()
    assert not pane.replay(single, 99)  # no such session: a message, no crash


def test_shutdown_stops_sampling_quickly(make_pane, qtbot):
    pane = make_pane()
    wait_frames(qtbot, pane, 2)
    assert sampler_threads()
    t0 = time.monotonic()
    pane.shutdown()
    assert time.monotonic() - t0 < 1.5
    assert sampler_threads() == []
    n = pane.frames_received
    pane.shutdown()
    assert pane.frames_received == n


def test_switching_card_drops_the_followed_process_of_the_other_card(make_pane, qtbot):
    pane = make_pane(lambda: SimulatedBackend(n_devices=2, cycle_s=2.0, process_every=1))
    qtbot.waitUntil(lambda: pane.process_model.rowCount() >= 1, timeout=5000)
    row = pane.process_model.row_at(0)
    pane.follow_process(row.device, row.process.pid)
    assert "Following process" in pane.comparison_label.text()
    other = 1 - row.device
    pane.select_device(other)
    assert pane.followed_process is None
    assert "Following" not in pane.comparison_label.text()


def test_resume_clears_the_paused_message(make_pane, qtbot):
    pane = make_pane()
    wait_frames(qtbot, pane, 1)
    pane.set_paused(True)
    assert "paused" in pane.status_label.text()
    pane.set_paused(False)
    assert "paused" not in pane.status_label.text()


def test_no_driver_is_said_once(make_pane, qtbot):
    def unavailable():
        raise BackendUnavailable(NO_DRIVER, "libnvidia-ml.so.1: cannot open shared object")
    pane = make_pane(unavailable, demo=False)
    qtbot.waitUntil(lambda: pane.source == "unavailable", timeout=5000)
    shown = [pane.banner_label.text(), pane.empty_label.text(), pane.status_label.text()]
    assert sum(NO_DRIVER in t for t in shown) == 1
