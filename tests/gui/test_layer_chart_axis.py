"""The per-layer chart's x axis: a short network's layer names under the bars only where they
fit; long names (a repeated block's copies, 'block1.0.c2', …) overlapped each other, so the
axis then numbers the layers (hovering still names each)."""

from __future__ import annotations

from planner.core.layers import LayerSpec
from planner.core.memory import estimate
from planner.core.network import NetworkDraft, Setup
from planner.ui.planner.charts import LayerChart


def _draft(names):
    layers = [LayerSpec("input", "in", {"shape": (3, 32, 32)})]
    layers += [LayerSpec("conv2d", n, {"filters": 8, "kernel": 3, "padding": 1}) for n in names]
    return NetworkDraft("chart", tuple(layers))


def _chart(qtbot, names, width):
    chart = LayerChart()
    qtbot.addWidget(chart)
    chart.resize(width, 300)
    chart.show()
    qtbot.waitExposed(chart)
    chart.set_estimate(estimate(_draft(names), Setup(4, "fp32", "sgd")))
    qtbot.wait(20)
    return chart


def test_short_names_that_fit_are_written_under_their_bars(qtbot):
    chart = _chart(qtbot, ["c1", "c2", "c3"], 700)
    assert chart.names_on_axis()
    ticks = chart.getPlotItem().getAxis("bottom")._tickLevels[0]
    assert [label for _, label in ticks] == ["in", "c1", "c2", "c3"]


def test_names_too_long_for_their_bars_give_way_to_layer_numbers(qtbot):
    names = [f"block1.{i}.conv_with_a_long_name" for i in range(12)]
    chart = _chart(qtbot, names, 700)
    assert not chart.names_on_axis()
    assert chart.getPlotItem().getAxis("bottom")._tickLevels is None
    chart.resize(12000, 300)  # wide enough: the names come back
    qtbot.waitUntil(chart.names_on_axis, timeout=2000)
