"""The Settings dialog and apply_theme."""

from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QLabel, QWidget

from planner.settings import DEFAULTS, Settings, load_settings
from planner.ui.settings_dialog import (
    SettingsDialog,
    apply_theme,
    is_dark,
    notice_text,
    restyle_plots,
)

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

CHANGED = Settings(
    units="decimal", theme="dark", language="zh_CN", sampling_interval_s=0.25,
    memory_alert_pct=80, temperature_alert_c=90, recording_retention_days=0,
    default_batch=1024, default_precision="bf16", default_optimizer="adamw", currency="CNY",
    currency_symbol="¥", currency_rate=7.2, electricity_usd_per_kwh=0.125, first_run_done=True)


@pytest.fixture
def dialog(qtbot, planner_home):
    def make(settings=DEFAULTS):
        dlg = SettingsDialog(settings)
        qtbot.addWidget(dlg)
        return dlg
    return make


def button(dlg, which):
    return dlg.buttons.button(which)


def test_shows_current_values(dialog):
    dlg = dialog(CHANGED)
    assert dlg.units_combo.currentData() == "decimal"
    assert dlg.theme_combo.currentData() == "dark"
    assert dlg.language_combo.currentData() == "zh_CN"
    assert dlg.interval_spin.value() == 0.25
    assert dlg.memory_alert_spin.value() == 80
    assert dlg.temperature_alert_spin.value() == 90
    assert dlg.retention_spin.value() == 0
    assert dlg.retention_spin.text() == "keep forever"
    assert dlg.batch_spin.value() == 1024
    assert dlg.precision_combo.currentData() == "bf16"
    assert dlg.optimizer_combo.currentData() == "adamw"
    assert dlg.currency_combo.currentData() == "CNY"
    assert dlg.symbol_edit.text() == "¥"
    assert dlg.rate_spin.value() == 7.2 and dlg.rate_spin.isEnabled()
    assert dlg.electricity_spin.value() == 0.125
    assert dlg.result_settings() == CHANGED


def test_untouched_values_come_back_unrounded(dialog):
    s = CHANGED.replace(sampling_interval_s=0.125, currency_rate=7.12345)
    dlg = dialog(s)
    assert dlg.result_settings() == s


def test_defaults_show_unset_money_fields(dialog):
    dlg = dialog()
    assert dlg.rate_spin.text() == "not set (show US dollars)"
    assert not dlg.rate_spin.isEnabled()
    assert dlg.electricity_spin.text() == "not set (energy not counted)"
    assert dlg.result_settings() == DEFAULTS


def test_accept_emits_the_changed_settings(qtbot, dialog):
    dlg = dialog()
    dlg.show()
    dlg.units_combo.setCurrentIndex(dlg.units_combo.findData("decimal"))
    dlg.theme_combo.setCurrentIndex(dlg.theme_combo.findData("dark"))
    dlg.language_combo.setCurrentIndex(dlg.language_combo.findData("zh_CN"))
    dlg.interval_spin.setValue(0.5)
    dlg.memory_alert_spin.setValue(90)
    dlg.temperature_alert_spin.setValue(80)
    dlg.retention_spin.setValue(7)
    dlg.batch_spin.setValue(64)
    dlg.precision_combo.setCurrentIndex(dlg.precision_combo.findData("mixed"))
    dlg.optimizer_combo.setCurrentIndex(dlg.optimizer_combo.findData("sgd"))
    dlg.currency_combo.setCurrentIndex(dlg.currency_combo.findData("CNY"))
    assert dlg.symbol_edit.text() == "¥"  # filled in from the currency
    assert dlg.rate_spin.isEnabled()
    dlg.rate_spin.setValue(7.1)
    dlg.electricity_spin.setValue(0.15)
    with qtbot.waitSignal(dlg.settings_changed, timeout=1000) as blocker:
        button(dlg, QDialogButtonBox.StandardButton.Ok).click()
    assert blocker.args[0] == Settings(
        units="decimal", theme="dark", language="zh_CN", sampling_interval_s=0.5,
        memory_alert_pct=90, temperature_alert_c=80, recording_retention_days=7,
        default_batch=64, default_precision="mixed", default_optimizer="sgd", currency="CNY",
        currency_symbol="¥", currency_rate=7.1, electricity_usd_per_kwh=0.15)
    assert dlg.result() == SettingsDialog.DialogCode.Accepted


def test_accept_without_changes_emits_nothing(qtbot, dialog):
    dlg = dialog(CHANGED)
    dlg.show()
    with qtbot.assertNotEmitted(dlg.settings_changed):
        button(dlg, QDialogButtonBox.StandardButton.Ok).click()
    assert dlg.result() == SettingsDialog.DialogCode.Accepted


def test_cancel_emits_nothing(qtbot, dialog):
    dlg = dialog()
    dlg.show()
    dlg.batch_spin.setValue(7)
    dlg.theme_combo.setCurrentIndex(dlg.theme_combo.findData("dark"))
    with qtbot.assertNotEmitted(dlg.settings_changed):
        button(dlg, QDialogButtonBox.StandardButton.Cancel).click()
    assert dlg.result() == SettingsDialog.DialogCode.Rejected


def test_restore_defaults_keeps_first_run_done(qtbot, dialog):
    dlg = dialog(CHANGED)
    dlg.show()
    button(dlg, QDialogButtonBox.StandardButton.RestoreDefaults).click()
    assert dlg.isVisible()  # restoring does not close the dialog
    assert dlg.units_combo.currentData() == "binary"
    assert dlg.batch_spin.value() == 32
    assert dlg.currency_combo.currentData() == "USD" and dlg.symbol_edit.text() == "$"
    assert not dlg.rate_spin.isEnabled()
    assert dlg.result_settings() == DEFAULTS.replace(first_run_done=True)
    with qtbot.waitSignal(dlg.settings_changed, timeout=1000) as blocker:
        button(dlg, QDialogButtonBox.StandardButton.Ok).click()
    assert blocker.args[0] == DEFAULTS.replace(first_run_done=True)


def test_switching_back_to_usd_clears_the_rate(dialog):
    dlg = dialog(CHANGED)
    dlg.currency_combo.setCurrentIndex(dlg.currency_combo.findData("USD"))
    s = dlg.result_settings()
    assert (s.currency, s.currency_symbol, s.currency_rate) == ("USD", "$", None)


def test_unknown_currency_code_is_kept(dialog):
    s = DEFAULTS.replace(currency="XAU", currency_symbol="oz", currency_rate=0.0004)
    dlg = dialog(s)
    assert dlg.currency_combo.currentText() == "XAU"
    assert dlg.result_settings() == s


def test_every_field_has_a_tooltip(dialog):
    dlg = dialog()
    for w in (dlg.units_combo, dlg.theme_combo, dlg.language_combo, dlg.interval_spin,
              dlg.memory_alert_spin, dlg.temperature_alert_spin, dlg.retention_spin,
              dlg.batch_spin, dlg.precision_combo, dlg.optimizer_combo, dlg.currency_combo,
              dlg.symbol_edit, dlg.rate_spin, dlg.electricity_spin):
        assert w.toolTip(), w


def test_spin_ranges_match_the_settings(dialog):
    dlg = dialog()
    assert (dlg.interval_spin.minimum(), dlg.interval_spin.maximum()) == (0.1, 10.0)
    assert (dlg.memory_alert_spin.minimum(), dlg.memory_alert_spin.maximum()) == (50, 100)
    assert (dlg.temperature_alert_spin.minimum(),
            dlg.temperature_alert_spin.maximum()) == (40, 110)
    assert (dlg.batch_spin.minimum(), dlg.batch_spin.maximum()) == (1, 1048576)
    assert (dlg.retention_spin.minimum(), dlg.retention_spin.maximum()) == (0, 3650)


def test_combo_models(qtmodeltester, dialog):
    dlg = dialog()
    for combo in (dlg.units_combo, dlg.precision_combo, dlg.currency_combo):
        qtmodeltester.check(combo.model())


def test_no_label_is_clipped(qtbot, dialog):
    dlg = dialog(CHANGED)
    dlg.show()
    qtbot.waitExposed(dlg)
    for i in range(dlg.tabs.count()):
        dlg.tabs.setCurrentIndex(i)
        QApplication.processEvents()
        page = dlg.tabs.widget(i)
        for label in page.findChildren(QLabel):
            if label.isVisible() and not label.wordWrap():
                assert label.width() >= label.sizeHint().width(), label.text()
    dlg.tabs.setCurrentIndex(0)
    assert not dlg.grab().isNull()


def test_notice_text(planner_home, tmp_path):
    path = tmp_path / "settings.json"
    path.write_text("{oops", encoding="utf-8")
    _, notice = load_settings(path)
    text = notice_text(notice)
    assert str(notice.backup_path) in text and "default settings" in text
    path.write_text('{"memory_alert_pct": 3}', encoding="utf-8")
    _, notice = load_settings(path)
    assert "memory alert" in notice_text(notice)
    assert notice_text(None) is None


# -- theme -------------------------------------------------------------------------------------


@pytest.fixture
def theme_restored(qapp):
    yield qapp
    apply_theme(qapp, "system")
    pg.setConfigOption("background", "k")
    pg.setConfigOption("foreground", "d")


def window_colour(widget: QWidget):
    return widget.palette().color(QPalette.ColorRole.Window)


def test_apply_theme_switches_the_palette(qtbot, theme_restored):
    app = theme_restored
    w = QWidget()
    qtbot.addWidget(w)
    w.show()
    system = window_colour(w)
    assert system.lightness() >= 128  # offscreen's default palette is light
    assert apply_theme(app, "dark") is True
    # widgets get the application palette through posted events
    qtbot.waitUntil(lambda: window_colour(w).lightness() < 128, timeout=2000)
    assert app.style().name().lower() == "fusion"
    assert pg.getConfigOption("background") != "w"
    assert apply_theme(app, "light") is False
    qtbot.waitUntil(lambda: window_colour(w).lightness() >= 200, timeout=2000)
    assert pg.getConfigOption("background") == "w"
    apply_theme(app, "dark")
    qtbot.waitUntil(lambda: window_colour(w).lightness() < 128, timeout=2000)
    assert apply_theme(app, "system") is False
    qtbot.waitUntil(lambda: window_colour(w) == system, timeout=2000)
    assert not is_dark()


def test_apply_theme_rejects_unknown(theme_restored):
    with pytest.raises(ValueError, match="theme"):
        apply_theme(theme_restored, "purple")


def test_restyle_plots_follows_the_theme(qtbot, theme_restored):
    app = theme_restored
    root = QWidget()
    qtbot.addWidget(root)
    plot = pg.PlotWidget(root)
    plot.setBackground("w")
    layout = pg.GraphicsLayoutWidget(root)
    layout.setBackground("w")
    layout.addPlot(title="memory")
    apply_theme(app, "dark")
    assert restyle_plots(root) == 2
    assert plot.backgroundBrush().color().lightness() < 128
    assert layout.backgroundBrush().color().lightness() < 128
    axis = plot.getPlotItem().getAxis("left")
    assert axis.pen().color().lightness() > 128
    apply_theme(app, "light")
    restyle_plots(root)
    assert plot.backgroundBrush().color().lightness() > 200
    assert axis.pen().color().lightness() < 128
