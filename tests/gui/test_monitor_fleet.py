"""The Monitor pane watching a cluster, driven by a scripted fake of the Prometheus backend.

No real Prometheus here (tests/… of the backend itself run one): the fake implements the same
interface (open / sample / close, devices with a host) and is scripted by the test through a
shared ``Script``. Waits on conditions, never sleeps; teardown shuts the panes down and checks
that no sampler thread survives.
"""

from __future__ import annotations

import logging
import threading

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from planner.telemetry.sampler import THREAD_NAME_PREFIX
from planner.telemetry.simulated import SimulatedBackend
from planner.telemetry.types import BackendUnavailable, DeviceInfo, GpuSample, frozen_mapping
from planner.ui.monitor.cluster import ClusterConfig, ClusterDialog, prometheus_factory
from planner.ui.monitor.pane import MonitorPane

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

TOKEN = "s3cr3t-Bearer-T0ken-4711"
URL = "https://prometheus.example.org:9090"
A100 = "NVIDIA A100-SXM4-80GB"
H100 = "NVIDIA H100 80GB HBM3"
PEAKS = {A100: 2039.0}
NO_ANSWER = "Prometheus did not answer within 2 s"
MIB = 2**20

# index → (host, name): indices unique across the fleet, deliberately not in host order
FLEET = {0: ("node-b", A100), 1: ("node-a", H100), 2: ("node-b", A100), 3: ("node-a", H100)}


def sampler_threads() -> list[str]:
    return [t.name for t in threading.enumerate()
            if t.name.startswith(THREAD_NAME_PREFIX) and t.is_alive()]


class Script:
    """What the fake backend does next; set by the test, read in the sampling thread."""

    def __init__(self) -> None:
        self.mode = "ok"  # ok | no_answer | lost:<host>
        self.open_error: str | None = None
        self.ticks = 0
        self.configs: list[ClusterConfig] = []


class FakeFleet:
    """Same interface as PrometheusBackend: two hosts × two cards."""

    source = "prometheus"
    driver_version = "550.54.15"
    cuda_version = None

    def __init__(self, script: Script, config: ClusterConfig) -> None:
        self.script = script
        self.min_interval_s = config.min_interval_s
        script.configs.append(config)

    def open(self) -> list[DeviceInfo]:
        if self.script.open_error:
            raise BackendUnavailable(self.script.open_error, "connection refused")
        return [DeviceInfo(index=i, name=name, uuid=f"GPU-{host}-{i}", host=host,
                           memory_total_bytes=81920 * MIB, power_limit_w=400.0,
                           unavailable=frozen_mapping({"peak_bandwidth_gbs": "not exported"}))
                for i, (host, name) in FLEET.items()]

    def sample(self) -> tuple[GpuSample, ...]:
        self.script.ticks += 1
        k = self.script.ticks
        mode = self.script.mode
        out = []
        for i, (host, _name) in FLEET.items():
            if mode == "no_answer":
                out.append(GpuSample(index=i, uuid=f"GPU-{host}-{i}",
                                     unavailable=frozen_mapping({"*": NO_ANSWER})))
            elif mode == f"lost:{host}":
                out.append(GpuSample(index=i, uuid=f"GPU-{host}-{i}", lost=True,
                                     unavailable=frozen_mapping(
                                         {"*": f"no data from host {host} since 10:00:00"})))
            else:
                out.append(GpuSample(
                    index=i, uuid=f"GPU-{host}-{i}", memory_used_bytes=(1000 + 10 * k + i) * MIB,
                    memory_free_bytes=(80920 - 10 * k - i) * MIB, memory_busy_pct=40.0 + i,
                    gpu_busy_pct=90.0, power_draw_w=300.0, temperature_c=60.0,
                    pcie_rx_bytes_s=1e9, pcie_tx_bytes_s=5e8,
                    unavailable=frozen_mapping({"bandwidth_gbs_estimate": "peak unknown",
                                                "fan_pct": "not exported by dcgm-exporter"})))
        return tuple(out)

    def close(self) -> None:
        pass


@pytest.fixture
def script() -> Script:
    return Script()


@pytest.fixture
def make_pane(qtbot, tmp_path, script):
    made: list[MonitorPane] = []

    def make(**kwargs) -> MonitorPane:
        kwargs.setdefault("interval_s", 0.1)
        kwargs.setdefault("recordings_dir", tmp_path / "recordings")
        kwargs.setdefault("peak_bandwidth_lookup", PEAKS.get)
        kwargs.setdefault("cluster_backend_factory",
                          lambda cfg: (lambda: FakeFleet(script, cfg)))
        pane = MonitorPane(lambda: SimulatedBackend(n_devices=2, seed=0, time_offset_s=60.0),
                           demo=True, **kwargs)
        qtbot.addWidget(pane)
        made.append(pane)
        pane.resize(1400, 900)
        pane.show()
        return pane

    yield make
    for pane in made:
        pane.shutdown()
    assert sampler_threads() == []


def cell(pane: MonitorPane, row: int, key: str, role=Qt.ItemDataRole.DisplayRole):
    m = pane.gpu_model
    return m.data(m.index(row, m.column_of(key)), role)


def watch(qtbot, pane: MonitorPane, **kwargs) -> None:
    kwargs.setdefault("min_interval_s", 0.2)
    pane.watch_cluster(ClusterConfig(URL, token=TOKEN, **kwargs))
    qtbot.waitUntil(lambda: pane.source == "prometheus" and pane.gpu_model.rowCount() == 4,
                    timeout=5000)


def wait_frames(qtbot, pane: MonitorPane, n: int = 2) -> None:
    target = pane.frames_received + n
    qtbot.waitUntil(lambda: pane.frames_received >= target, timeout=5000)


def test_two_hosts_grouped_by_host(qtbot, qtmodeltester, make_pane):
    pane = make_pane()
    qtbot.waitUntil(lambda: pane.gpu_model.rowCount() == 2, timeout=5000)
    assert "host" not in pane.gpu_model._keys  # this computer's cards: no Host column
    with qtbot.waitSignal(pane.source_changed):
        pane.watch_cluster(ClusterConfig(URL, token=TOKEN, min_interval_s=0.2))
    qtbot.waitUntil(lambda: pane.source == "prometheus" and pane.gpu_model.rowCount() == 4,
                    timeout=5000)
    assert pane.watching_cluster and pane.local_button.isVisible()
    m = pane.gpu_model
    assert m.column_of("host") == 0
    assert [cell(pane, r, "host") for r in range(4)] == ["node-a", "node-a", "node-b", "node-b"]
    assert [m.device_at(r).index for r in range(4)] == [1, 3, 0, 2]
    wait_frames(qtbot, pane)
    pane._on_tick()
    assert all(cell(pane, r, "state") == "ok" for r in range(4))
    # the peak from the lookup (the catalog in the app) fills the A100s; the H100s stay N/A
    assert {d.index: d.peak_bandwidth_gbs for d in pane.devices} == {
        0: 2039.0, 1: None, 2: 2039.0, 3: None}
    row_a100 = m.row_of(0)
    assert cell(pane, row_a100, "bandwidth").startswith("~")
    assert cell(pane, m.row_of(1), "bandwidth") == "N/A"
    combo = [pane.card_combo.itemText(i) for i in range(pane.card_combo.count())]
    assert combo[1].startswith("node-a · GPU 1") and combo[3].startswith("node-b · GPU 0")
    # plots work the same: all cards, legend "host · GPU n"
    pane.select_device(None)
    pane.redraw()
    assert pane.plots.curve_points(0) > 0 and pane.plots.curve_points(3) > 0
    legend = pane.plots.legends[id(pane.plots.memory)]
    labels = [label.text for _, label in legend.items]
    assert "node-a · GPU 1" in labels and "node-b · GPU 2" in labels
    assert "Cluster" in pane.source_label.text() and "2 host(s)" in pane.source_label.text()
    qtmodeltester.check(m)
    qtmodeltester.check(pane.process_model)


def test_no_answer_is_not_lost_and_a_lost_host_leaves_the_others(qtbot, make_pane, script):
    pane = make_pane()
    watch(qtbot, pane)
    messages: list[str] = []
    pane.status_message.connect(messages.append)
    script.mode = "no_answer"
    qtbot.waitUntil(lambda: pane.card_state(0) == "no answer", timeout=5000)
    pane._on_tick()
    row = pane.gpu_model.row_of(0)
    assert cell(pane, row, "state") == "no answer"
    assert cell(pane, row, "state", Qt.ItemDataRole.ToolTipRole) == NO_ANSWER
    assert cell(pane, row, "memory") == "N/A"
    assert cell(pane, row, "memory", Qt.ItemDataRole.ToolTipRole) == NO_ANSWER
    assert not pane.watch.lost
    assert any(NO_ANSWER in msg for msg in messages)
    assert not any("lost" in msg for msg in messages)

    script.mode = "lost:node-b"
    qtbot.waitUntil(lambda: pane.card_state(0) == "lost" and pane.card_state(1) == "ok",
                    timeout=5000)
    before = pane.latest.sample(1).memory_used_bytes
    wait_frames(qtbot, pane, 2)
    assert pane.latest.sample(1).memory_used_bytes > before  # node-a goes on
    assert pane.card_state(2) == "lost" and pane.card_state(3) == "ok"
    pane._on_tick()
    row_b = pane.gpu_model.row_of(2)
    assert cell(pane, row_b, "state") == "lost"
    assert "no data from host node-b" in cell(pane, row_b, "state", Qt.ItemDataRole.ToolTipRole)
    assert cell(pane, pane.gpu_model.row_of(3), "state") == "ok"
    assert any("node-b · GPU 0" in msg and "lost" in msg for msg in messages)

    script.mode = "ok"  # the node comes back
    qtbot.waitUntil(lambda: pane.card_state(0) == "ok", timeout=5000)


def test_unreachable_server_banner_and_local_cards_restore(qtbot, make_pane, script):
    pane = make_pane()
    qtbot.waitUntil(lambda: pane.gpu_model.rowCount() == 2, timeout=5000)
    script.open_error = f"The Prometheus server at {URL} cannot be reached"
    pane.watch_cluster(ClusterConfig(URL, token=TOKEN, min_interval_s=0.2))
    qtbot.waitUntil(lambda: pane.banner.isVisible(), timeout=5000)
    assert script.open_error in pane.banner_label.text()
    assert pane.banner_local_button.isVisible() and not pane.demo_button.isVisible()
    assert pane.source == "unavailable"
    # the demo's cards are gone from the card box, one "Local cards" button, and nothing is
    # said to be recording while nothing arrives
    assert [pane.card_combo.itemData(i) for i in range(pane.card_combo.count())] == [None]
    assert pane.gpu_model.rowCount() == 0
    assert not pane.local_button.isVisible()
    assert "● Recording" not in pane.recording_label.text()
    interval_before = pane._local_interval_s
    with qtbot.waitSignal(pane.source_changed):
        qtbot.mouseClick(pane.banner_local_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: pane.source == "simulated" and pane.gpu_model.rowCount() == 2,
                    timeout=5000)
    assert not pane.banner.isVisible() and not pane.watching_cluster
    assert not pane.local_button.isVisible()
    assert pane.devices and all(d.host is None for d in pane.devices)
    assert pane.interval_s == pytest.approx(interval_before)  # the local interval is back


def test_token_is_never_shown_logged_or_recorded(qtbot, make_pane, script, caplog, tmp_path):
    caplog.set_level(logging.DEBUG)
    pane = make_pane()
    messages: list[str] = []
    saved: list[dict] = []
    pane.status_message.connect(messages.append)
    pane.cluster_settings_changed.connect(saved.append)
    qtbot.waitUntil(lambda: pane.gpu_model.rowCount() == 2, timeout=5000)

    dlg = pane.open_cluster_dialog()
    assert isinstance(dlg, ClusterDialog)
    qtbot.keyClicks(dlg.url_edit, URL)
    qtbot.keyClicks(dlg.token_edit, TOKEN)
    assert dlg.token_edit.echoMode() == dlg.token_edit.EchoMode.Password
    assert not dlg.remember_check.isChecked()
    dlg.interval_spin.setValue(0.5)
    dlg.accept()
    qtbot.waitUntil(lambda: pane.source == "prometheus" and pane.gpu_model.rowCount() == 4,
                    timeout=5000)
    assert script.configs[-1].token == TOKEN  # the backend got it
    assert saved and "token" not in saved[-1] and TOKEN not in repr(saved[-1])
    wait_frames(qtbot, pane, 2)
    script.mode = "no_answer"
    qtbot.waitUntil(lambda: pane.card_state(0) == "no answer", timeout=5000)
    script.mode = "lost:node-a"
    qtbot.waitUntil(lambda: pane.card_state(1) == "lost", timeout=5000)
    pane._on_tick()
    pane.select_device(None)
    pane.redraw()

    texts = list(messages) + [repr(pane.cluster_config), str(pane.cluster_config)]
    for w in [pane, *pane.findChildren(QWidget)]:
        texts.append(w.toolTip())
        for attr in ("text", "currentText", "windowTitle"):
            f = getattr(w, attr, None)
            if callable(f) and w is not dlg.token_edit:
                texts.append(str(f()))
    m = pane.gpu_model
    for r in range(m.rowCount()):
        for c in range(m.columnCount()):
            for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                texts.append(str(m.data(m.index(r, c), role)))
    assert not [t for t in texts if TOKEN in t]
    assert TOKEN not in caplog.text
    for rec in caplog.records:  # (none is fine: the scripted backend may log nothing)
        assert TOKEN not in str(rec.args)

    path = pane.recording_path
    pane.shutdown()  # closes the recording
    assert path is not None
    for f in path.parent.iterdir():
        assert TOKEN.encode() not in f.read_bytes(), f.name

    # ticked "remember token": then (and only then) the settings carry it
    cfg = ClusterConfig(URL, token=TOKEN, remember_token=True)
    assert cfg.to_settings()["token"] == TOKEN
    assert ClusterConfig.from_settings(cfg.to_settings()).token == TOKEN
    assert "token" not in ClusterConfig(URL, token=TOKEN).to_settings()
    assert TOKEN not in repr(cfg)


def test_sampler_interval_at_least_the_backends_min_interval(qtbot, make_pane):
    pane = make_pane(interval_s=0.1)
    qtbot.waitUntil(lambda: pane.gpu_model.rowCount() == 2, timeout=5000)
    assert pane.interval_s == pytest.approx(0.1)
    watch(qtbot, pane, min_interval_s=0.3)
    assert pane.interval_s == pytest.approx(0.3)
    assert pane.bridge.sampler.interval_s == pytest.approx(0.3)
    assert pane.interval_spin.minimum() == pytest.approx(0.3)
    pane.set_interval(0.1)
    assert pane.interval_s == pytest.approx(0.3)
    pane.switch_to_local()
    qtbot.waitUntil(lambda: pane.source == "simulated" and pane.gpu_model.rowCount() == 2,
                    timeout=5000)
    assert pane.interval_spin.minimum() == pytest.approx(0.1)
    assert pane.interval_s == pytest.approx(0.1)


def test_dialog_settings_round_trip_and_default_factory(qtbot, make_pane):
    pane = make_pane(cluster_settings={"url": URL, "ca_file": "/etc/ca.pem",
                                       "min_interval_s": 2.0})
    dlg = pane.open_cluster_dialog()
    assert dlg.url_edit.text() == URL and dlg.token_edit.text() == ""
    assert dlg.ca_edit.text() == "/etc/ca.pem" and dlg.interval_spin.value() == 2.0
    dlg.insecure_check.setChecked(True)
    assert not dlg.ca_edit.isEnabled()
    cfg = dlg.config()
    assert cfg.verify is False and cfg.ca_file is None
    dlg.url_edit.setText("ftp://nowhere")
    dlg.accept()
    assert dlg.isVisible() and "http" in dlg.error_label.text()
    dlg.reject()
    assert not pane.watching_cluster
    # the default factory builds a PrometheusBackend (no request until open())
    backend = prometheus_factory(ClusterConfig(URL, token=TOKEN, ca_file="/etc/ca.pem",
                                               min_interval_s=2.0))()
    assert backend.min_interval_s == 2.0 and backend.verify == "/etc/ca.pem"
    assert TOKEN not in repr(backend)
