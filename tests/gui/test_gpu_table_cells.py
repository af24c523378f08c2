"""The cards table's cells follow every change of what they are computed from (the model keeps
a cell's text while its inputs stay the same, so each input must count)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from planner.telemetry.types import DeviceInfo, Frame, FrozenDict, GpuSample
from planner.ui.monitor.models import GpuTableModel

DEV = DeviceInfo(index=0, name="NVIDIA H100 80GB HBM3", uuid="GPU-0",
                 memory_total_bytes=80 * 2**30, peak_bandwidth_gbs=3352.0, power_limit_w=700.0)


def frame(**fields) -> Frame:
    return Frame(0.0, 0.0, "nvml", None, None, (DEV,), (GpuSample(index=0, uuid="GPU-0",
                                                                   **fields),))


def cell(model: GpuTableModel, key: str, role=Qt.ItemDataRole.DisplayRole):
    return model.data(model.index(0, model.column_of(key)), role)


def test_cells_follow_values_reasons_and_loss(qapp):
    model = GpuTableModel()
    model.set_frame(frame(power_draw_w=300.0, sm_clock_mhz=1500, memory_clock_mhz=2619,
                          memory_busy_pct=40.0, bandwidth_gbs_estimate=1340.8))
    assert cell(model, "power") == "300 W"
    assert cell(model, "clocks") == "1,500 / 2,619 MHz"
    assert cell(model, "bandwidth") == "~1341"
    assert cell(model, "state") == "ok"
    # the same value, now a float: written as a float is
    model.set_frame(frame(power_draw_w=300.0, sm_clock_mhz=1500.0, memory_clock_mhz=2619,
                          memory_busy_pct=40.0, bandwidth_gbs_estimate=1340.8))
    assert cell(model, "clocks") == "1,500.0 / 2,619 MHz"
    # the estimate's tooltip names the busy figure it comes from
    model.set_frame(frame(power_draw_w=300.0, memory_busy_pct=41.0,
                          bandwidth_gbs_estimate=1340.8))
    assert "41%" in cell(model, "bandwidth", Qt.ItemDataRole.ToolTipRole)
    # not reported, for one reason and then another: the tooltip follows the reason
    model.set_frame(frame(unavailable=FrozenDict({"power_draw_w": "not supported"})))
    assert cell(model, "power") == "N/A"
    assert cell(model, "power", Qt.ItemDataRole.ToolTipRole) == "not supported"
    model.set_frame(frame(unavailable=FrozenDict({"power_draw_w": "no permission"})))
    assert cell(model, "power", Qt.ItemDataRole.ToolTipRole) == "no permission"
    # the value comes back
    model.set_frame(frame(power_draw_w=301.0))
    assert cell(model, "power") == "301 W"
    assert cell(model, "power", Qt.ItemDataRole.ToolTipRole) == "limit 700 W"
    # lost: every measured cell says N/A, the name stays, the state says so
    model.set_frame(frame(power_draw_w=301.0, lost=True,
                          unavailable=FrozenDict({"*": "GPU is lost"})))
    assert cell(model, "power") == "N/A"
    assert cell(model, "state") == "lost"
    assert cell(model, "name").startswith("GPU 0")
    assert cell(model, "name", Qt.ItemDataRole.ForegroundRole) is not None  # marked lost
    model.set_frame(frame(power_draw_w=301.0))
    assert cell(model, "state") == "ok"
    assert cell(model, "name", Qt.ItemDataRole.ForegroundRole) is None


def test_a_changed_cell_is_announced_once_with_its_new_tooltip(qapp):
    """A cell whose text and tooltip both change tells the views once (one repaint), and its
    tooltip is the new one; a cell whose tooltip alone changes is still announced."""
    model = GpuTableModel()
    model.set_frame(frame(power_draw_w=300.0, memory_busy_pct=40.0,
                          bandwidth_gbs_estimate=1340.8))
    changed: list[tuple[int, int]] = []
    model.dataChanged.connect(lambda a, b, _roles=(): changed.extend(
        (r, c) for r in range(a.row(), b.row() + 1) for c in range(a.column(), b.column() + 1)))
    bw = (0, model.column_of("bandwidth"))
    # text and tooltip change: "~1341" → "~1408", "40% busy" → "42% busy"
    model.set_frame(frame(power_draw_w=300.0, memory_busy_pct=42.0,
                          bandwidth_gbs_estimate=1407.8))
    assert cell(model, "bandwidth") == "~1408"
    assert "42%" in cell(model, "bandwidth", Qt.ItemDataRole.ToolTipRole)
    assert changed.count(bw) == 1
    assert (0, model.column_of("power")) not in changed  # unchanged: not announced
    # the tooltip alone changes (the same estimate at another busy figure)
    changed.clear()
    model.set_frame(frame(power_draw_w=300.0, memory_busy_pct=43.0,
                          bandwidth_gbs_estimate=1407.8))
    assert cell(model, "bandwidth") == "~1408"
    assert "43%" in cell(model, "bandwidth", Qt.ItemDataRole.ToolTipRole)
    assert changed.count(bw) == 1
