"""The fit table (Planner pane): one row per card, sorting, filters, reference card, owned cards,
charts with hover, and the empty state of an invalid plan. Qt warnings fail the tests."""

from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import QPointF, Qt

from planner.core.catalog import OwnedCard, load_catalog, set_owned_cards
from planner.core.network import Problem
from planner.core.plan import compute_plan
from planner.core.presets import load_preset
from planner.ui.tables import SORT_ROLE
from planner.ui.planner.fit_view import (
    COL_CARD,
    COL_RELATIVE,
    COL_SAMPLES,
    OWNED_MARKER,
    ROW_ROLE,
    FitView,
)

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]


@pytest.fixture
def resnet50():
    draft, setup = load_preset("resnet50")
    return compute_plan(draft, setup)


@pytest.fixture
def view(qtbot, planner_home, resnet50):
    v = FitView(load_catalog())
    qtbot.addWidget(v)
    v.resize(1400, 900)
    v.set_plan(resnet50)
    v.show()
    qtbot.waitExposed(v)
    return v


def source_row(v: FitView, name: str):
    return v.model.rows[v.model.row_of(name)]


def test_item_models_pass_the_model_tester(view, qtmodeltester):
    qtmodeltester.check(view.model)
    qtmodeltester.check(view.proxy)


def test_one_row_per_card(view):
    assert view.model.rowCount() == len(view.catalog)
    assert view.proxy.rowCount() == len(view.catalog)
    assert set(view.visible_names()) == set(view.catalog.names)
    assert view.stack.currentIndex() == 0 and view.failure is None


def test_sorting_by_samples_puts_the_fastest_first(view):
    view.table.sortByColumn(COL_SAMPLES, Qt.SortOrder.DescendingOrder)
    fastest = max(view.rows, key=lambda r: r.samples_per_s)
    assert view.visible_names()[0] == fastest.card.name
    speeds = [view.proxy.index(i, COL_CARD).data(ROW_ROLE).samples_per_s
              for i in range(view.proxy.rowCount())]
    assert speeds == sorted(speeds, reverse=True)
    view.table.sortByColumn(COL_SAMPLES, Qt.SortOrder.AscendingOrder)
    assert view.visible_names()[0] == min(view.rows, key=lambda r: r.samples_per_s).card.name


def test_price_sort_puts_cards_without_a_price_last(view):
    from planner.ui.planner.fit_view import COL_PRICE_NEW

    for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
        view.table.sortByColumn(COL_PRICE_NEW, order)
        prices = [view.proxy.index(i, COL_CARD).data(ROW_ROLE).price_new
                  for i in range(view.proxy.rowCount())]
        known = [p for p in prices if p is not None]
        assert prices[:len(known)] == known  # every None after every price
        usd = [p.usd for p in known]
        assert usd == sorted(usd, reverse=order == Qt.SortOrder.DescendingOrder)


def test_fits_only_hides_cards_the_plan_does_not_fit(view, qtbot):
    assert "GeForce GTX 1060 3GB" in view.visible_names()
    assert not source_row(view, "GeForce GTX 1060 3GB").fits
    qtbot.mouseClick(view.fits_only_check, Qt.MouseButton.LeftButton)
    assert view.fits_only_check.isChecked()
    names = view.visible_names()
    assert "GeForce GTX 1060 3GB" not in names
    assert "GeForce GTX 1080 Ti" in names
    assert len(names) == sum(r.fits for r in view.rows)
    assert str(len(names)) in view.summary_label.text()


def test_budget_filter(view):
    view.budget_spin.setValue(300)
    names = view.visible_names()
    assert names
    for n in names:
        price = source_row(view, n).price
        assert price is not None and price.usd <= 300
    assert "GeForce RTX 4090" not in names
    view.budget_spin.setValue(0)
    assert view.proxy.rowCount() == len(view.catalog)


def test_architecture_and_segment_filters(view):
    view.architecture_combo.setCurrentIndex(view.architecture_combo.findData("Pascal"))
    assert view.visible_names()
    assert {source_row(view, n).card.architecture for n in view.visible_names()} == {"Pascal"}
    view.segment_combo.setCurrentIndex(view.segment_combo.findData("datacenter"))
    assert {source_row(view, n).card.segment for n in view.visible_names()} == {"datacenter"}
    assert "Tesla P100 PCIe 16GB" in view.visible_names()


def test_reference_card_is_one_times_itself(view, qtbot):
    assert view.reference() == "GeForce GTX 1080"
    assert source_row(view, "GeForce GTX 1080").relative_speed == pytest.approx(1.0)
    with qtbot.waitSignal(view.rows_changed):
        view.set_reference("RTX 3090")
    assert view.reference() == "GeForce RTX 3090"
    row = view.model.row_of("GeForce RTX 3090")
    assert view.model.rows[row].relative_speed == pytest.approx(1.0)
    assert view.model.index(row, COL_RELATIVE).data() == "1.00×"
    assert source_row(view, "GeForce GTX 1080").relative_speed < 1.0


def test_prices_as_of_a_month(view):
    assert view.as_of() is None
    latest = source_row(view, "GeForce RTX 3090")
    assert latest.price_used is not None and latest.price_used.date >= "2026-01"
    view.set_as_of("2017-06")
    then = source_row(view, "GeForce GTX 1080")
    # the nearest observation at or before the month: Newegg's $517.48 of 2017-06-22
    assert then.price_new.usd == 517.48 and then.price_new.date == "2017-06"
    assert then.price_used is None or then.price_used.date <= "2017-06"
    col = 8  # price new
    text = view.model.index(view.model.row_of("GeForce GTX 1080"), col).data()
    assert text == "$517 new (2017-06)"


def test_owned_cards_are_highlighted(qtbot, planner_home, resnet50):
    set_owned_cards([OwnedCard("GeForce GTX 1080 Ti", "used")])
    v = FitView(load_catalog())
    qtbot.addWidget(v)
    v.resize(1400, 900)
    v.set_plan(resnet50)
    v.show()
    qtbot.waitExposed(v)
    row = v.model.row_of("GeForce GTX 1080 Ti")
    idx = v.model.index(row, COL_CARD)
    assert idx.data().startswith(OWNED_MARKER)
    assert idx.data(Qt.ItemDataRole.FontRole).bold()
    other = v.model.index(v.model.row_of("GeForce GTX 1080"), COL_CARD)
    assert not other.data().startswith(OWNED_MARKER)
    assert other.data(Qt.ItemDataRole.FontRole) is None
    assert v.speed_chart._owned_item.data["data"].tolist() == ["GeForce GTX 1080 Ti"]


def test_hovering_a_point_names_the_card(view):
    chart = view.speed_chart
    assert "GeForce GTX 1080" in chart.names
    pos = chart.scene_pos_of("GeForce GTX 1080")
    chart._on_mouse_moved(pos)
    assert chart.hovered_name == "GeForce GTX 1080"
    assert "GeForce GTX 1080" in chart.hover_text
    assert "samples/s" in chart.hover_text and "$" in chart.hover_text
    corner = chart.getPlotItem().getViewBox().sceneBoundingRect().topLeft()
    chart._on_mouse_moved(corner + QPointF(2, 2))  # no card up there: the label goes
    assert chart.hovered_name is None and chart.hover_text == ""
    mem = view.memory_chart
    mem._on_mouse_moved(mem.scene_pos_of("GeForce RTX 3090"))
    assert "GeForce RTX 3090" in mem.hover_text and "24 GiB" in mem.hover_text


def test_charts_label_their_axes_with_units(view):
    for chart in (view.speed_chart, view.memory_chart):
        bottom = chart.getPlotItem().getAxis("bottom").labelText
        assert "price (USD" in bottom
    assert view.speed_chart.getPlotItem().getAxis("left").labelText == "samples/s"
    assert view.memory_chart.getPlotItem().getAxis("left").labelText == "memory (GiB)"


def test_charts_follow_the_filters(view):
    n = len(view.speed_chart.names)
    view.fits_only_check.setChecked(True)
    assert 0 < len(view.speed_chart.names) < n
    assert "GeForce GTX 1060 3GB" not in view.speed_chart.names


def test_invalid_plan_shows_the_empty_state(view, resnet50):
    bad_analysis = replace(resnet50.analysis, problems=(
        Problem(3, "conv3", "kernel 7×7 is larger than its 5×5 input"),))
    bad = compute_plan(resnet50.draft, resnet50.setup, analysis=bad_analysis)
    view.set_plan(bad)
    assert view.stack.currentWidget() is view.empty_label
    assert view.empty_label.isVisible()
    text = view.empty_label.text()
    assert "Fix the plan's errors to see how it fits" in text
    assert "layer 3 (conv3)" in text
    assert view.model.rowCount() == 0 and view.failure
    view.set_plan(resnet50)
    assert view.stack.currentIndex() == 0 and view.model.rowCount() == len(view.catalog)


def test_set_catalog_keeps_the_filters(view, planner_home):
    view.set_reference("GeForce RTX 3090")
    view.fits_only_check.setChecked(True)
    set_owned_cards([OwnedCard("GeForce GTX 970")])
    view.set_catalog(load_catalog())
    assert view.reference() == "GeForce RTX 3090"
    assert view.fits_only_check.isChecked()
    assert source_row(view, "GeForce GTX 970").owned


def test_tooltips_give_the_note_and_the_support_reason(view):
    from planner.ui.planner.fit_view import COL_FITS, COL_SUPPORT

    row = view.model.row_of("GeForce GTX 970")
    assert "fast 3.5 GiB" in view.model.index(row, COL_CARD).data(Qt.ItemDataRole.ToolTipRole)
    assert "fast 3.5 GiB" in view.model.index(row, COL_FITS).data(Qt.ItemDataRole.ToolTipRole)
    support = view.model.index(row, COL_SUPPORT)
    assert support.data() == "legacy builds only"
    assert "CUDA 13" in support.data(Qt.ItemDataRole.ToolTipRole)
    kepler = view.model.index(view.model.row_of("GeForce GTX 680"), COL_SUPPORT)
    assert kepler.data() == "unsupported"


def test_in_the_planner_at_1400x900_the_table_takes_the_room_and_shows_the_prices(
        qtbot, planner_home, tmp_path):
    """Issue 17: about six rows showed and the price column was off to the right."""
    from planner.ui.main_window import build_main_window
    from planner.ui.services import Services

    from gui_prompts import ScriptedPrompts

    w = build_main_window(Services(prompts=ScriptedPrompts(), settings_path=tmp_path / "s.ini",
                                   start_preset="resnet50", catalog_loader=load_catalog))
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    w.load_catalog()
    pane = w.planner
    pane.show_result_tab("fit")
    view = pane.ensure_fit_view()
    qtbot.waitUntil(lambda: view.table.viewport().height() > 100)
    table = view.table
    last = table.rowAt(table.viewport().height() - 2)
    assert last + 1 >= 9, f"only {last + 1} rows on screen"
    assert table.height() > view.charts.height()
    from planner.ui.planner.fit_view import COL_PRICE_NEW
    x = table.columnViewportPosition(COL_PRICE_NEW)
    assert 0 <= x and x + table.columnWidth(COL_PRICE_NEW) <= table.viewport().width()
    w.document.undo_stack.setClean()


@pytest.mark.parametrize("width", [260, 420, 700, 1200])
def test_price_axis_labels_never_overlap(view, width):

    chart = view.speed_chart
    axis = chart.getPlotItem().getAxis("bottom")
    lo, hi = chart.getPlotItem().getViewBox().viewRange()[0]
    levels = axis.tickValues(lo, hi, width)
    values = [v for _spacing, vs in levels for v in vs]
    assert len(values) >= 2
    labels = axis.tickStrings(values, 1, 1)
    assert labels[0].startswith("$")
    fm = axis.fontMetrics()
    px = [(v - lo) / (hi - lo) * width for v in values]
    for (a, la), (b, lb) in zip(zip(px, labels), list(zip(px, labels))[1:]):
        assert b - a >= (fm.horizontalAdvance(la) + fm.horizontalAdvance(lb)) / 2, labels


def test_yours_is_in_the_legend_only_with_a_card_of_yours(view, qtbot, planner_home, resnet50):
    assert "yours" not in view.speed_chart.legend_names()
    assert {"fits", "does not fit"} <= set(view.speed_chart.legend_names())
    set_owned_cards([OwnedCard("GeForce GTX 1080 Ti", "used")])
    v = FitView(load_catalog())
    qtbot.addWidget(v)
    v.set_plan(resnet50)
    assert "yours" in v.speed_chart.legend_names()
    v.fits_only_check.setChecked(True)  # ResNet-50 at batch 64 does not fit on 11 GB
    v.budget_spin.setValue(100)
    assert "yours" not in v.speed_chart.legend_names()


def test_a_language_model_reads_in_tokens_per_second(qtbot, planner_home):
    """Llama-8B takes most cards seconds a step: tokens/s with their digits, not
    '0.0 samples/s'; a CNN's table stays in samples/s."""
    from planner.core.rates import rate_text
    from planner.ui.planner.fit_view import COL_PER_USD

    draft, setup = load_preset("llama_8b")
    v = FitView(load_catalog())
    qtbot.addWidget(v)
    v.resize(1400, 900)
    v.set_plan(compute_plan(draft, setup))
    m = v.model
    tokens = draft.input_shape[0]
    assert m.headerData(COL_SAMPLES, Qt.Orientation.Horizontal) == "Tokens/s"
    assert m.headerData(COL_PER_USD, Qt.Orientation.Horizontal) == "Tokens/s per $"
    assert f"{tokens:,} tokens" in m.headerData(COL_SAMPLES, Qt.Orientation.Horizontal,
                                                Qt.ItemDataRole.ToolTipRole)
    slow = [r for r in m.rows if r.samples_per_s < 1]
    assert len(slow) > 10  # most cards take over a second a step
    for r in m.rows:
        i = m.row_of(r.card.name)
        cell = m.data(m.index(i, COL_SAMPLES))
        assert cell.split(" ±")[0] == rate_text(r.samples_per_s * tokens)
        assert m.data(m.index(i, COL_SAMPLES), SORT_ROLE) == r.samples_per_s * tokens
        assert cell != "0.0" and not cell.startswith("0 ")
        per_usd = m.data(m.index(i, COL_PER_USD))
        assert per_usd == "—" or (float(per_usd.replace(",", "")) > 0)
    r = slow[0]
    tip = m.data(m.index(m.row_of(r.card.name), COL_SAMPLES), Qt.ItemDataRole.ToolTipRole)
    assert "tokens/s" in tip and "s per step" in tip
    v._update_charts()
    assert v.speed_chart.getPlotItem().getAxis("left").labelText == "tokens/s"
    # back to a CNN: samples/s again
    cnn, cnn_setup = load_preset("resnet50")
    v.set_plan(compute_plan(cnn, cnn_setup))
    assert m.headerData(COL_SAMPLES, Qt.Orientation.Horizontal) == "Samples/s"
    v._update_charts()
    assert v.speed_chart.getPlotItem().getAxis("left").labelText == "samples/s"
