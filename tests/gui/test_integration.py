"""The four panes in one main window, wired together, built through the app's own factory.

Telemetry is the simulated source, the catalog the shipped one under a private PLANNER_HOME,
prompts and dialogs are scripted: nothing modal ever opens, nothing sleeps, and no sampler
thread survives a test.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest
from PySide6.QtWidgets import QDialog

from planner.core.catalog import PricePoint, load_catalog
from planner.settings import Settings, load_settings
from planner.telemetry.sampler import THREAD_NAME_PREFIX
from planner.telemetry.simulated import SimulatedBackend
from planner.ui.main_window import PANES, build_main_window
from planner.ui.services import Services

from gui_prompts import ScriptedPrompts  # tests/gui is on sys.path (pytest rootdir mode)

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

FAST_S = 0.1


def sampler_threads() -> list[str]:
    return [t.name for t in threading.enumerate()
            if t.name.startswith(THREAD_NAME_PREFIX) and t.is_alive()]


class WelcomePrompts(ScriptedPrompts):
    """Scripted prompts that also take the non-modal notices and the welcome."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.notices: list[tuple[str, str]] = []
        self.welcomes: list[str] = []

    def notify(self, title, text):
        self.notices.append((title, text))

    def welcome(self, text):
        self.welcomes.append(text)


def simulated():
    return SimulatedBackend(n_devices=2, seed=0, time_offset_s=60.0)


@pytest.fixture
def make_window(qtbot, planner_home, tmp_path):
    made = []

    def make(*, prompts=None, demo=True, preferences=None, runner=None, show=True, **kw):
        prompts = prompts or WelcomePrompts()
        if preferences is None:
            preferences = Settings(sampling_interval_s=FAST_S, first_run_done=True)
        services = Services(prompts=prompts, settings_path=tmp_path / "session.ini",
                            start_preset="seed-example", telemetry_factory=simulated,
                            demo=demo, catalog_loader=load_catalog, preferences=preferences,
                            dialog_runner=runner, welcome_timeout_ms=3000, **kw)
        w = build_main_window(services)
        qtbot.addWidget(w)
        w.prompts = prompts
        made.append(w)
        if show:
            w.resize(1400, 900)
            w.show()
            qtbot.waitExposed(w)
        return w

    yield make
    for w in made:
        w.document.undo_stack.setClean()
        w.shutdown()
    assert sampler_threads() == []


def wait_catalog(qtbot, w):
    """The catalog is read once the window has painted (it is not on the start-up path)."""
    qtbot.waitUntil(lambda: w.catalog is not None, timeout=5000)


def wait_frames(qtbot, w, n=1):
    qtbot.waitUntil(lambda: w.monitor is not None and w.monitor.frames_received >= n,
                    timeout=5000)


def test_four_tabs_exist_and_switch(make_window, qtbot):
    w = make_window()
    assert [w.tabs.tabText(i) for i in range(w.tabs.count())] == [
        "Planner", "Monitor", "Catalog", "Advisor"]
    for i, action in enumerate(w.pane_actions):
        assert action.shortcut().toString() == f"Ctrl+{i + 1}"
        action.trigger()
        assert w.tabs.currentIndex() == i
        assert w.pane_at(i) is not None and w.pane_at(i).isVisible()
    assert w.catalog_pane is not None and w.advisor is not None and w.monitor is not None
    assert len(PANES) == 4


def test_layout_is_restored(make_window, qtbot):
    def ratio(window):
        a, b = window.planner.splitter.sizes()
        return a / (a + b)

    w = make_window()
    sizes = w.planner.splitter.sizes()
    default = ratio(w)
    w.planner.splitter.setSizes([sizes[0] - 250, sizes[1] + 250])
    moved = ratio(w)
    w.tabs.setCurrentIndex(2)
    assert w.close()
    w2 = make_window(show=False)
    assert w2.tabs.currentIndex() == 2
    w2.show()
    qtbot.waitExposed(w2)
    w2.tabs.setCurrentIndex(0)
    qtbot.waitUntil(lambda: w2.planner.splitter.sizes()[0] > 50)
    assert abs(ratio(w2) - moved) < abs(ratio(w2) - default)


def test_plan_edit_reaches_fit_view_monitor_and_advisor(make_window, qtbot):
    w = make_window()
    pane = w.planner
    wait_catalog(qtbot, w)  # then the fit tab opens
    pane.show_result_tab("fit")
    fit = pane.fit_view
    assert fit is not None and fit.rows
    w.tabs.setCurrentIndex(PANES.index("advisor"))
    advisor = w.advisor
    wait_frames(qtbot, w)
    monitor = w.monitor
    before_fit = fit.rows[0].peak_bytes
    before_pred = monitor.predicted_bytes
    assert before_pred == w.document.estimate.peak
    w.tabs.setCurrentIndex(0)
    pane.batch_spin.setValue(pane.batch_spin.value() * 2)
    after = w.document.estimate.peak
    assert after > before_fit
    assert monitor.predicted_bytes == after
    assert "batch 256" in monitor.predicted_label
    qtbot.waitUntil(lambda: fit.rows and fit.rows[0].peak_bytes == after, timeout=3000)
    assert advisor.use_plan_check.isEnabled()
    advisor.use_plan_check.setChecked(True)
    assert advisor.inputs().plan is not None
    assert advisor.inputs().plan.setup.batch_size == 256


def test_catalog_price_edit_shows_in_fit_view(make_window, qtbot):
    w = make_window()
    wait_catalog(qtbot, w)
    pane = w.planner
    pane.show_result_tab("fit")
    fit = pane.fit_view
    catalog = w.ensure_catalog_pane()
    name = "GeForce GTX 1080 Ti"
    with qtbot.waitSignal(catalog.catalog_changed):
        assert catalog.apply_price(name, PricePoint("2099-01", 123.0, "used", "my shop"))
    row = next(r for r in fit.rows if r.card.name == name)
    assert row.price_used is not None and row.price_used.usd == 123.0
    assert w.catalog is catalog.catalog


def test_detected_cards_reach_advisor_and_fit_view(make_window, qtbot):
    w = make_window(demo=True)
    w.tabs.setCurrentIndex(PANES.index("advisor"))
    wait_frames(qtbot, w)
    qtbot.waitUntil(lambda: bool(w.detected_cards), timeout=3000)
    assert "GeForce RTX 4090" in w.detected_cards
    w.tabs.setCurrentIndex(0)
    pane = w.planner
    pane.show_result_tab("fit")
    owned = {r.card.name for r in pane.fit_view.rows if r.owned}
    assert "GeForce RTX 4090" in owned
    assert pane.scaling_view.card_combo.currentText() in owned


def test_simulated_cards_are_not_owned_without_demo(make_window, qtbot):
    w = make_window(demo=False)
    wait_frames(qtbot, w)
    assert w.monitor.devices
    assert w.detected_cards == ()


@pytest.fixture
def onnx_fixtures():
    pytest.importorskip("onnx")
    sys.path.insert(0, str(Path(__file__).parents[1] / "unit"))
    try:
        import onnx_fixtures as fx
    finally:
        sys.path.pop(0)
    return fx


def test_open_onnx_and_bad_onnx(make_window, qtbot, tmp_path, onnx_fixtures):
    good = onnx_fixtures.save(onnx_fixtures.residual_net(), tmp_path / "tiny-resnet.onnx")
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"this is not a protobuf at all \x00\xff" * 10)
    prompts = WelcomePrompts(open_answer=str(good))
    w = make_window(prompts=prompts)
    with qtbot.waitSignal(w.files.open_finished, timeout=30_000):  # read in the background
        w.open_action.trigger()
    assert w.document.path is None  # an untitled plan
    assert w.document.estimate is not None
    assert len(w.document.draft.layers) > 5
    assert w.isWindowModified()
    draft = w.document.draft
    prompts.open_answer = str(bad)
    prompts.save_answer = "discard"
    w.document.undo_stack.setClean()
    with qtbot.waitSignal(w.files.open_finished, timeout=30_000):
        w.open_action.trigger()
    assert prompts.errors and "ONNX" in prompts.errors[-1][0]
    assert w.document.draft == draft


def test_parallel_controls_change_per_gpu_peak_and_scaling(make_window, qtbot):
    w = make_window()
    wait_catalog(qtbot, w)
    pane = w.planner
    pane.batch_spin.setValue(16)
    single = w.document.estimate.peak
    pane.gpus_spin.setValue(8)
    pane.strategy_combo.setCurrentIndex(pane.strategy_combo.findData("zero3"))
    doc = w.document
    assert doc.parallel.world == 8 and doc.parallel.strategy == "zero3"
    assert doc.per_gpu is not None and doc.per_gpu.gathered > 0
    assert doc.per_gpu.peak < single + doc.per_gpu.communication + doc.per_gpu.gathered
    assert "Per GPU" in pane.summary() and "global batch 128" in pane.summary()
    pane.show_result_tab("scaling")
    view = pane.scaling_view
    assert len(view.typical) == 8 and len(view.optimised) == 8
    assert view.typical[-1].speedup < view.optimised[-1].speedup <= 8
    assert view.copies >= 1
    # whole GPUs on the x axis, and the legend outside the plot (it never covers a curve)
    ticks = view.plot.getAxis("bottom")._tickLevels[0]
    assert ticks and all(float(x).is_integer() for x, _ in ticks)
    assert [label for _, label in ticks][-1] == "8"
    assert view.plot.getPlotItem().legend is None and "ideal" in view.legend_label.text()
    pane.gpus_spin.setValue(4)
    assert len(view.typical) == 4
    pane.strategy_combo.setCurrentIndex(pane.strategy_combo.findData("ddp"))
    assert doc.per_gpu.peak > single  # DDP replicates and adds the gradient buckets
    assert w.monitor is None or w.monitor.predicted_bytes == doc.per_gpu.peak


def test_preferences_change_the_monitor_interval(make_window, qtbot, planner_home):
    def runner(dialog: QDialog) -> bool:
        dialog.set_values(dialog.result_settings().replace(sampling_interval_s=2.5,
                                                           units="decimal"))
        dialog.accept()
        return True

    w = make_window(runner=runner)
    wait_frames(qtbot, w)
    with qtbot.waitSignal(w.preferences_applied):
        w.preferences_action.trigger()
    assert w.monitor.interval_s == pytest.approx(2.5)
    assert " GB" in w.planner.summary() or " MB" in w.planner.summary()
    stored, _ = load_settings()
    assert stored.sampling_interval_s == pytest.approx(2.5)


def test_welcome_on_first_run_only(make_window, qtbot):
    prompts = WelcomePrompts()
    w = make_window(prompts=prompts, preferences=Settings(sampling_interval_s=FAST_S))
    qtbot.waitUntil(lambda: bool(prompts.welcomes), timeout=5000)
    assert "RTX 4090" in prompts.welcomes[0] or "simulated" in prompts.welcomes[0].lower()
    assert "Recordings" in prompts.welcomes[0]
    assert w.prefs.first_run_done
    stored, _ = load_settings()
    assert stored.first_run_done
    assert w.close()
    prompts2 = WelcomePrompts()
    w2 = make_window(prompts=prompts2, preferences=stored)
    wait_frames(qtbot, w2)
    assert prompts2.welcomes == []


def test_about_and_every_menu_action(make_window, qtbot):
    w = make_window()
    text = w.about_text()
    for needle in ("MIT", "LGPLv3", "pyqtgraph", "Apache-2.0", "Dettmers", "0."):
        assert needle in text
    w.about_action.trigger()
    box = w.findChild(QDialog, "about_box")
    assert box is not None and box.isVisible()
    box.close()
    w.new_action.trigger()
    assert w.document.draft.name == "untitled"
    assert w.document.setup.batch_size == w.prefs.default_batch


def test_closing_stops_the_sampler(make_window, qtbot):
    w = make_window()
    wait_frames(qtbot, w)
    assert sampler_threads()
    assert w.close()
    qtbot.waitUntil(lambda: not sampler_threads(), timeout=3000)


def test_language_switch_keeps_the_work(make_window, qtbot, planner_home):
    """Preferences ▸ language zh_CN: menus and panes in Chinese at once; the plan, its undo
    history and the monitor's running session are kept."""
    from PySide6.QtWidgets import QApplication

    from planner.ui import i18n

    def runner(dialog: QDialog) -> bool:
        dialog.set_values(dialog.result_settings().replace(language="zh_CN"))
        dialog.accept()
        return True

    w = make_window(runner=runner)
    wait_frames(qtbot, w)
    doc = w.document
    doc.change_setup(doc.setup.__class__(batch_size=48), "batch_size")  # one undoable edit
    history = doc.undo_stack.count()
    draft = doc.draft
    monitor = w.monitor
    try:
        with qtbot.waitSignal(w.preferences_applied):
            w.preferences_action.trigger()
        assert w.tabs.tabText(0) == "规划器"
        assert w.menuBar().actions()[0].text().startswith("文件")
        assert w.planner.add_action.text() != "&Add Layer"
        assert w.document is doc and doc.draft is draft and doc.setup.batch_size == 48
        assert doc.undo_stack.count() == history
        assert w.monitor is monitor  # not interrupted
        assert w.planner.document is doc
    finally:
        i18n.install_translator(QApplication.instance(), "en")


def test_cluster_settings_are_kept_and_cluster_cards_get_a_peak(make_window, qtbot):
    w = make_window()
    wait_frames(qtbot, w)
    wait_catalog(qtbot, w)
    w.monitor.cluster_settings_changed.emit({"url": "http://127.0.0.1:9090"})
    assert w.session.cluster() == {"url": "http://127.0.0.1:9090"}
    # dcgm-exporter names a card as NVML does; the catalog gives its datasheet bandwidth.
    assert w._peak_bandwidth_of("NVIDIA H100 80GB HBM3") == pytest.approx(3349.8)
    assert w._peak_bandwidth_of("Some Unknown Accelerator") is None


def test_prices_shown_in_the_chosen_currency(make_window, qtbot, planner_home):
    from planner.ui import money

    def runner(dialog: QDialog) -> bool:
        dialog.set_values(dialog.result_settings().replace(
            currency="CNY", currency_symbol="¥", currency_rate=7.0))
        dialog.accept()
        return True

    w = make_window(runner=runner, demo=False)  # no simulated cards owned: the advisor buys
    wait_catalog(qtbot, w)
    pane = w.planner
    pane.show_result_tab("fit")
    fit = pane.ensure_fit_view()
    try:
        with qtbot.waitSignal(w.preferences_applied):
            w.preferences_action.trigger()
        model = fit.model
        texts = [str(model.index(r, c).data()) for r in range(model.rowCount())
                 for c in range(model.columnCount())]
        assert any(t.startswith("¥") for t in texts)
        assert not any(t.startswith("$") for t in texts)
        assert money.usd(699) == "¥4,893"
        # The advisor's sentences too (their amounts are dollars converted for display).
        w.tabs.setCurrentIndex(PANES.index("advisor"))  # it computes while shown
        advisor = w.advisor
        qtbot.waitUntil(lambda: advisor.advice is not None
                        and bool(advisor.advice.recommendations))
        from planner.ui.i18n import tr_msg

        buy = next(r for r in advisor.advice.recommendations if r.action == "buy")
        reason = tr_msg(buy.reason)
        assert "¥" in reason and "$" not in reason.replace("$0", "")
    finally:
        money.set_display_currency("$", None)


def test_fit_view_follows_the_gpu_count(make_window, qtbot):
    w = make_window(demo=False)
    wait_catalog(qtbot, w)
    pane = w.planner
    pane.show_result_tab("fit")
    fit = pane.ensure_fit_view()
    one = {r.card.name: r.samples_per_s for r in fit.rows}
    pane.gpus_spin.setValue(4)
    pane.ensure_fit_view()
    four = {r.card.name: r.samples_per_s for r in fit.rows}
    assert four["GeForce RTX 4090"] > 2.5 * one["GeForce RTX 4090"]
    assert "4 GPUs of that card" in fit.summary_label.text()


def test_the_fit_views_splitter_and_the_result_tab_are_restored(make_window, qtbot):
    """Issue 17: window size, splitters and the last tab are kept between starts, also the
    fit view's (built only when its tab is first shown) and the Planner's result tab."""
    w = make_window()
    wait_catalog(qtbot, w)
    pane = w.planner
    pane.show_result_tab("fit")
    fit = pane.ensure_fit_view()
    qtbot.waitUntil(lambda: fit.splitter.sizes()[0] > 50)
    a, b = fit.splitter.sizes()
    fit.splitter.setSizes([a - 80, b + 80])
    moved = fit.splitter.sizes()[1] / sum(fit.splitter.sizes())
    assert w.close()
    w2 = make_window()
    assert w2.planner.result_tab() == "fit"
    wait_catalog(qtbot, w2)
    fit2 = w2.planner.fit_view
    assert fit2 is not None
    qtbot.waitUntil(fit2.isVisible)
    qtbot.waitUntil(lambda: fit2.splitter.sizes()[0] > 50)
    share = fit2.splitter.sizes()[1] / sum(fit2.splitter.sizes())
    assert share == pytest.approx(moved, abs=0.05)


def test_the_status_line_is_the_advice_the_advisor_shows(make_window, qtbot):
    # The advice can change while another pane is in front (cards detected, a recompute that
    # was already scheduled): the status bar never keeps the older advice, and shows the
    # current one when the Advisor comes back to the front.
    w = make_window(demo=False)
    w.tabs.setCurrentIndex(PANES.index("advisor"))
    pane = w.advisor
    qtbot.waitUntil(lambda: pane.advice is not None and not pane.pending, timeout=5000)
    before = pane.advice.recommendations[0]
    assert before.action == "buy"
    assert before.card in w.statusBar().currentMessage()
    assert pane.add_owned_card("A100 SXM4 80GB")  # the recompute is scheduled …
    w.tabs.setCurrentIndex(PANES.index("catalog"))  # … and runs with the Catalog in front
    qtbot.waitUntil(lambda: not pane.pending, timeout=5000)
    top = pane.advice.recommendations[0]
    assert (top.action, top.card) == ("keep", "A100 SXM4 80GB")
    assert before.card not in w.statusBar().currentMessage()  # the old advice is gone
    w.tabs.setCurrentIndex(PANES.index("advisor"))
    assert w.statusBar().currentMessage() == pane.status_line
    assert "KEEP" in pane.status_line and "A100 SXM4 80GB" in pane.status_line
