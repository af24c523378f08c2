"""The Settings dialog, and ``apply_theme`` (system / light / dark).

Wiring (the main window):

* startup: ``settings, notice = load_settings()``; show ``notice_text(notice)`` when not None;
  ``apply_theme(app, settings.theme)`` before the first window is built (so new pyqtgraph plots
  pick up the colours); pass interval / alerts / retention to the Monitor pane and
  ``settings.new_setup()`` to new plans.
* Settings… menu: ``dlg = SettingsDialog(settings, self)``;
  ``dlg.settings_changed.connect(self._on_settings_changed)``; ``dlg.exec()``. In the slot:
  ``save_settings(new)``, then apply what ``changed_fields(old, new)`` names. When the theme
  changed, call ``apply_theme(app, new.theme)`` and then ``restyle_plots(window)`` so plots
  that already exist follow (``apply_theme`` only changes the defaults for new ones).
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt, Signal, Slot
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGraphicsView,
    QLabel,
    QLineEdit,
    QSpinBox,
    QStyleFactory,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from planner.core.network import OPTIMIZERS, PRECISION_LABELS, PRECISIONS
from planner.ui.i18n import arg, tr_core
from planner.settings import (
    CURRENCIES,
    DEFAULTS,
    RANGES,
    Settings,
    SettingsNotice,
    settings_path,
)


def _tr(text: str) -> str:
    return QCoreApplication.translate("SettingsDialog", text)


class SettingsDialog(QDialog):
    """Edit a ``Settings``. OK emits ``settings_changed(Settings)`` when anything differs;
    Cancel emits nothing. Every field is a combo or a range-limited spin box, so there is no
    invalid state to report."""

    settings_changed = Signal(object)  # the new Settings

    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("SettingsDialog")
        self.setWindowTitle(self.tr("Settings"))
        self._original = settings
        self.tabs = QTabWidget(self)
        self.tabs.addTab(self._build_display(), self.tr("Display"))
        self.tabs.addTab(self._build_monitor(), self.tr("Monitor"))
        self.tabs.addTab(self._build_planner(), self.tr("Planner defaults"))
        self.tabs.addTab(self._build_money(), self.tr("Money"))

        self.where = QLabel(arg(self.tr("Stored in %1"), str(settings_path())), self)
        self.where.setWordWrap(True)
        self.where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.where.setToolTip(self.tr("A readable JSON file; window layout and recent files "
                                      "are kept next to it in gpu-planner.ini."))
        self.where.setEnabled(False)  # greyed: information, not a control

        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
            | QDialogButtonBox.StandardButton.RestoreDefaults, self)
        self.buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults).setToolTip(
            self.tr("Put every field back to its default (nothing is saved until OK)"))
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.buttons.clicked.connect(self._on_button_clicked)

        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs)
        layout.addWidget(self.where)
        layout.addWidget(self.buttons)
        self.set_values(settings)

    # -- building ------------------------------------------------------------------------------

    @staticmethod
    def _form(page: QWidget) -> QFormLayout:
        form = QFormLayout(page)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.DontWrapRows)
        return form

    @staticmethod
    def _combo(parent: QWidget, items: list[tuple[str, str]], tip: str) -> QComboBox:
        combo = QComboBox(parent)
        for text, data in items:
            combo.addItem(text, data)
        combo.setToolTip(tip)
        return combo

    def _int_spin(self, parent: QWidget, name: str, suffix: str, tip: str) -> QSpinBox:
        lo, hi, _ = RANGES[name]
        spin = QSpinBox(parent)
        spin.setRange(int(lo), int(hi))
        spin.setSuffix(suffix)
        spin.setToolTip(tip)
        spin.setAccelerated(True)
        return spin

    def _build_display(self) -> QWidget:
        page = QWidget(self)
        form = self._form(page)
        self.units_combo = self._combo(page, [
            (self.tr("Binary: MiB, GiB (as nvidia-smi)"), "binary"),
            (self.tr("Decimal: MB, GB"), "decimal"),
        ], self.tr("How memory sizes are shown. Binary: 1 GiB = 1024³ bytes, the way "
                   "nvidia-smi and PyTorch report memory. Decimal: 1 GB = 10⁹ bytes, the way "
                   "cards are sold."))
        self.theme_combo = self._combo(page, [
            (self.tr("Same as the system"), "system"),
            (self.tr("Light"), "light"),
            (self.tr("Dark"), "dark"),
        ], self.tr("Colours of the windows and plots"))
        self.language_combo = self._combo(page, [
            (self.tr("Same as the system"), "system"),
            (self.tr("English"), "en"),
            (self.tr("简体中文 (Simplified Chinese)"), "zh_CN"),
        ], self.tr("Language of the interface; your open plan is kept when it changes"))
        form.addRow(self.tr("&Units:"), self.units_combo)
        form.addRow(self.tr("&Theme:"), self.theme_combo)
        form.addRow(self.tr("&Language:"), self.language_combo)
        return page

    def _build_monitor(self) -> QWidget:
        page = QWidget(self)
        form = self._form(page)
        lo, hi, _ = RANGES["sampling_interval_s"]
        self.interval_spin = QDoubleSpinBox(page)
        self.interval_spin.setRange(lo, hi)
        self.interval_spin.setDecimals(2)
        self.interval_spin.setSingleStep(0.1)
        self.interval_spin.setSuffix(self.tr(" s"))
        self.interval_spin.setToolTip(
            arg(self.tr("Seconds between two readings of the cards (%1–%2 s). Shorter shows "
                        "brief spikes; longer costs less."),
                f"{lo:g}", f"{hi:g}"))
        self.memory_alert_spin = self._int_spin(
            page, "memory_alert_pct", self.tr(" %"),
            self.tr("Warn when a card's memory in use reaches this share of its total "
                    "(50–100 %)"))
        self.temperature_alert_spin = self._int_spin(
            page, "temperature_alert_c", self.tr(" °C"),
            self.tr("Warn when a card's temperature reaches this (40–110 °C)"))
        self.retention_spin = self._int_spin(
            page, "recording_retention_days", self.tr(" days"),
            self.tr("Recordings older than this are deleted when the monitor starts; "
                    "0 keeps them forever"))
        self.retention_spin.setSpecialValueText(self.tr("keep forever"))
        form.addRow(self.tr("Sampling &interval:"), self.interval_spin)
        form.addRow(self.tr("&Memory alert at:"), self.memory_alert_spin)
        form.addRow(self.tr("T&emperature alert at:"), self.temperature_alert_spin)
        form.addRow(self.tr("&Keep recordings for:"), self.retention_spin)
        return page

    def _build_planner(self) -> QWidget:
        page = QWidget(self)
        form = self._form(page)
        self.batch_spin = self._int_spin(
            page, "default_batch", "",
            arg(self.tr("The batch size a new plan starts with (1–%1)"),
                f"{int(RANGES['default_batch'][1]):,}"))
        self.batch_spin.setGroupSeparatorShown(True)
        self.precision_combo = self._combo(
            page, [(tr_core(PRECISION_LABELS[p]), p) for p in PRECISIONS],
            self.tr("The number format a new plan starts with"))
        optimizer_names = {
            "sgd": self.tr("SGD (no state)"),
            "momentum": self.tr("SGD with momentum (1 state per weight)"),
            "adam": self.tr("Adam (2 states per weight)"),
            "adamw": self.tr("AdamW (2 states per weight)"),
        }
        self.optimizer_combo = self._combo(
            page, [(optimizer_names.get(o, o), o) for o in OPTIMIZERS],
            self.tr("The optimizer a new plan starts with; its state is part of the memory "
                    "estimate"))
        note = QLabel(self.tr("These apply to new plans; open plans keep their own."), page)
        note.setWordWrap(True)
        form.addRow(self.tr("&Batch size:"), self.batch_spin)
        form.addRow(self.tr("&Precision:"), self.precision_combo)
        form.addRow(self.tr("&Optimizer:"), self.optimizer_combo)
        form.addRow(note)
        return page

    def _build_money(self) -> QWidget:
        page = QWidget(self)
        form = self._form(page)
        self.currency_combo = QComboBox(page)
        for code in CURRENCIES:
            self.currency_combo.addItem(code, code)
        self.currency_combo.setToolTip(
            self.tr("The currency prices are shown in. Prices are kept in US dollars and "
                    "converted with the rate below."))
        self.currency_combo.currentIndexChanged.connect(self._on_currency_changed)
        self.symbol_edit = QLineEdit(page)
        self.symbol_edit.setMaxLength(4)
        self.symbol_edit.setMaximumWidth(
            self.symbol_edit.fontMetrics().horizontalAdvance("MMMMMM") + 12)
        self.symbol_edit.setToolTip(self.tr("The sign written before amounts, e.g. ¥ or €"))
        lo, hi, _ = RANGES["currency_rate"]
        self.rate_spin = QDoubleSpinBox(page)
        self.rate_spin.setRange(0.0, hi)
        self.rate_spin.setDecimals(4)
        self.rate_spin.setSingleStep(0.01)
        self.rate_spin.setSpecialValueText(self.tr("not set (show US dollars)"))
        self.rate_spin.setToolTip(
            self.tr("How many units of the chosen currency one US dollar buys, e.g. 7.2 for "
                    "CNY. Without a rate, prices stay in US dollars."))
        lo, hi, _ = RANGES["electricity_usd_per_kwh"]
        self.electricity_spin = QDoubleSpinBox(page)
        self.electricity_spin.setRange(0.0, hi)
        self.electricity_spin.setDecimals(3)
        self.electricity_spin.setSingleStep(0.01)
        self.electricity_spin.setPrefix("$")
        self.electricity_spin.setSuffix(self.tr(" per kWh"))
        self.electricity_spin.setSpecialValueText(self.tr("not set (energy not counted)"))
        self.electricity_spin.setToolTip(
            self.tr("What a kilowatt-hour costs you, in US dollars; used for running costs. "
                    "0 leaves energy out."))
        form.addRow(self.tr("&Currency:"), self.currency_combo)
        form.addRow(self.tr("&Symbol:"), self.symbol_edit)
        form.addRow(self.tr("&Rate per US dollar:"), self.rate_spin)
        form.addRow(self.tr("&Electricity price:"), self.electricity_spin)
        return page

    # -- values --------------------------------------------------------------------------------

    @staticmethod
    def _select(combo: QComboBox, value: str) -> None:
        i = combo.findData(value)
        if i < 0:  # a value this dialog has no label for (a currency code, say): keep it
            combo.addItem(value, value)
            i = combo.count() - 1
        combo.setCurrentIndex(i)

    def set_values(self, settings: Settings) -> None:
        """Show ``settings`` in the fields (Restore Defaults uses it with the defaults)."""
        self._shown = settings
        self._select(self.units_combo, settings.units)
        self._select(self.theme_combo, settings.theme)
        self._select(self.language_combo, settings.language)
        self.interval_spin.setValue(settings.sampling_interval_s)
        self.memory_alert_spin.setValue(settings.memory_alert_pct)
        self.temperature_alert_spin.setValue(settings.temperature_alert_c)
        self.retention_spin.setValue(settings.recording_retention_days)
        self.batch_spin.setValue(settings.default_batch)
        self._select(self.precision_combo, settings.default_precision)
        self._select(self.optimizer_combo, settings.default_optimizer)
        self.currency_combo.blockSignals(True)
        self._select(self.currency_combo, settings.currency)
        self.currency_combo.blockSignals(False)
        self.symbol_edit.setText(settings.currency_symbol)
        self.rate_spin.setValue(settings.currency_rate or 0.0)
        self.electricity_spin.setValue(settings.electricity_usd_per_kwh or 0.0)
        self._update_rate_enabled()

    def _float(self, spin: QDoubleSpinBox, shown: float | None) -> float | None:
        """The spin's value; the value it was given when the user left it alone (so a loaded
        0.125 is not rounded to 0.13 by the display); None for the special value."""
        value = spin.value()
        if shown is not None and abs(value - shown) <= 0.5 * 10 ** -spin.decimals() + 1e-12:
            return shown
        if spin.specialValueText() and value == spin.minimum():
            return None
        return value

    def result_settings(self) -> Settings:
        """The settings the fields show now (first_run_done is carried over unchanged)."""
        shown = self._shown
        rate = self._float(self.rate_spin, shown.currency_rate)
        lo = RANGES["currency_rate"][0]
        if rate is not None and rate < lo:
            rate = None
        electricity = self._float(self.electricity_spin, shown.electricity_usd_per_kwh)
        lo = RANGES["electricity_usd_per_kwh"][0]
        if electricity is not None and electricity < lo:
            electricity = None
        currency = self.currency_combo.currentData()
        symbol = self.symbol_edit.text().strip() or CURRENCIES.get(currency, currency)
        return Settings(
            units=self.units_combo.currentData(),
            theme=self.theme_combo.currentData(),
            language=self.language_combo.currentData(),
            sampling_interval_s=self._float(self.interval_spin, shown.sampling_interval_s),
            memory_alert_pct=self.memory_alert_spin.value(),
            temperature_alert_c=self.temperature_alert_spin.value(),
            recording_retention_days=self.retention_spin.value(),
            default_batch=self.batch_spin.value(),
            default_precision=self.precision_combo.currentData(),
            default_optimizer=self.optimizer_combo.currentData(),
            currency=currency,
            currency_symbol=symbol,
            currency_rate=rate,
            electricity_usd_per_kwh=electricity,
            first_run_done=self._original.first_run_done,
        )

    # -- slots ---------------------------------------------------------------------------------

    def _update_rate_enabled(self) -> None:
        self.rate_spin.setEnabled(self.currency_combo.currentData() != "USD")

    @Slot(int)
    def _on_currency_changed(self, _index: int) -> None:
        code = self.currency_combo.currentData()
        self.symbol_edit.setText(CURRENCIES.get(code, code))
        if code == "USD":
            self.rate_spin.setValue(0.0)
        self._update_rate_enabled()

    @Slot(QAbstractButton)
    def _on_button_clicked(self, button: QAbstractButton) -> None:
        role = self.buttons.buttonRole(button)
        if role == QDialogButtonBox.ButtonRole.ResetRole:
            self.restore_defaults()

    @Slot()
    def restore_defaults(self) -> None:
        self.set_values(DEFAULTS)

    @Slot()
    def accept(self) -> None:
        new = self.result_settings()
        super().accept()
        if new != self._original:
            self.settings_changed.emit(new)


def field_label(name: str) -> str:
    """A setting's name as the user reads it, translated."""
    labels = {
        "units": _tr("units"),
        "theme": _tr("theme"),
        "language": _tr("language"),
        "sampling_interval_s": _tr("sampling interval"),
        "memory_alert_pct": _tr("memory alert"),
        "temperature_alert_c": _tr("temperature alert"),
        "recording_retention_days": _tr("recording retention"),
        "default_batch": _tr("default batch size"),
        "default_precision": _tr("default precision"),
        "default_optimizer": _tr("default optimizer"),
        "currency": _tr("currency"),
        "currency_symbol": _tr("currency symbol"),
        "currency_rate": _tr("exchange rate"),
        "electricity_usd_per_kwh": _tr("electricity price"),
        "first_run_done": _tr("first run"),
    }
    return labels.get(name, name)


def notice_text(notice: SettingsNotice | str | None) -> str | None:
    """A translated message for what ``load_settings`` reported (None when nothing)."""
    if notice is None:
        return None
    if not isinstance(notice, SettingsNotice):
        return str(notice)
    if notice.backup_path is not None:
        return arg(_tr("Your settings file was damaged, so the default settings are in use. "
                       "The old file was kept as %1."),
                   str(notice.backup_path))
    if notice.reset_fields:
        names = ", ".join(field_label(n) for n in notice.reset_fields)
        return arg(_tr("Some settings were not valid and are back to their defaults: %1."),
                   names)
    return str(notice)


# -- theme -------------------------------------------------------------------------------------

_platform: dict[str, object] = {}


def _remember_platform(app: QApplication) -> None:
    """Keep the style and palette the platform gave, before the first change."""
    if "style" not in _platform:
        _platform["style"] = app.style().name()
        _platform["palette"] = QPalette(app.palette())


def dark_palette() -> QPalette:
    p = QPalette()
    window, base, text = QColor(45, 45, 48), QColor(30, 30, 32), QColor(230, 230, 230)
    disabled = QColor(127, 127, 127)
    R, G = QPalette.ColorRole, QPalette.ColorGroup
    p.setColor(R.Window, window)
    p.setColor(R.WindowText, text)
    p.setColor(R.Base, base)
    p.setColor(R.AlternateBase, QColor(40, 40, 43))
    p.setColor(R.ToolTipBase, QColor(60, 60, 64))
    p.setColor(R.ToolTipText, text)
    p.setColor(R.PlaceholderText, QColor(150, 150, 150))
    p.setColor(R.Text, text)
    p.setColor(R.Button, window)
    p.setColor(R.ButtonText, text)
    p.setColor(R.BrightText, QColor(255, 80, 80))
    p.setColor(R.Light, QColor(70, 70, 74))
    p.setColor(R.Midlight, QColor(58, 58, 62))
    p.setColor(R.Mid, QColor(40, 40, 43))
    p.setColor(R.Dark, QColor(20, 20, 22))
    p.setColor(R.Shadow, QColor(0, 0, 0))
    p.setColor(R.Link, QColor(90, 160, 255))
    p.setColor(R.LinkVisited, QColor(170, 130, 255))
    p.setColor(R.Highlight, QColor(42, 130, 218))
    p.setColor(R.HighlightedText, QColor(255, 255, 255))
    for role in (R.WindowText, R.Text, R.ButtonText, R.HighlightedText):
        p.setColor(G.Disabled, role, disabled)
    p.setColor(G.Disabled, R.Highlight, QColor(80, 80, 80))
    return p


def light_palette() -> QPalette:
    """Fusion's light palette, fixed (Fusion's own standard palette follows a dark system)."""
    p = QPalette(QColor(239, 239, 239))  # Qt's classic light button/window colour
    R = QPalette.ColorRole
    p.setColor(R.Base, QColor(255, 255, 255))
    p.setColor(R.AlternateBase, QColor(247, 247, 247))
    p.setColor(R.Text, QColor(0, 0, 0))
    p.setColor(R.WindowText, QColor(0, 0, 0))
    p.setColor(R.ButtonText, QColor(0, 0, 0))
    p.setColor(R.ToolTipBase, QColor(255, 255, 220))
    p.setColor(R.ToolTipText, QColor(0, 0, 0))
    p.setColor(R.Highlight, QColor(48, 140, 198))
    p.setColor(R.HighlightedText, QColor(255, 255, 255))
    p.setColor(R.Link, QColor(0, 0, 255))
    return p


def is_dark(palette: QPalette | None = None) -> bool:
    palette = palette or QApplication.palette()
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def plot_colours(palette: QPalette | None = None) -> tuple[str, str]:
    """(background, foreground) for pyqtgraph under ``palette`` (the app's by default)."""
    return ("#1e1e20", "#d0d0d0") if is_dark(palette) else ("w", "#404040")


def apply_theme(app: QApplication, theme: str) -> bool:
    """Switch the whole application to ``theme`` ("system" | "light" | "dark"); returns
    whether the result is dark.

    "light" / "dark": the Fusion style with a fixed palette. "system": the style and palette
    the platform gave at the first call. pyqtgraph's ``background`` / ``foreground`` config
    options are set to match, which new plots pick up; plots that exist already keep their
    colours until the caller runs ``restyle_plots(top_level_widget)``."""
    if theme not in ("system", "light", "dark"):
        raise ValueError(f"theme: {theme!r} is not one of system, light, dark")
    _remember_platform(app)
    if theme == "system":
        if _platform.get("changed"):  # only undo what a light/dark theme changed
            style = QStyleFactory.create(str(_platform["style"]))
            if style is not None:
                app.setStyle(style)
            app.setPalette(QPalette(_platform["palette"]))  # type: ignore[arg-type]
            _platform["changed"] = False
    else:
        _platform["changed"] = True
        app.setStyle(QStyleFactory.create("Fusion"))
        app.setPalette(dark_palette() if theme == "dark" else light_palette())
    dark = is_dark(app.palette())
    from planner.ui import plotlib  # noqa: PLC0415

    background, foreground = plot_colours(app.palette())
    plotlib.set_options(background=background, foreground=foreground)  # now or on its import
    return dark


def restyle_plots(root: QWidget) -> int:
    """Give every pyqtgraph view under ``root`` (and ``root`` itself) the current theme's
    background, axis and title colours; returns how many views were changed. Curve pens are
    left alone (their colours read on both backgrounds)."""
    import pyqtgraph as pg

    background, foreground = plot_colours()
    views = [root] if isinstance(root, pg.GraphicsView) else []
    views += [v for v in root.findChildren(QGraphicsView) if isinstance(v, pg.GraphicsView)]
    for view in views:
        view.setBackground(background)
        scene = view.scene()
        if scene is None:
            continue
        for item in scene.items():
            if isinstance(item, pg.AxisItem):
                item.setPen(pg.mkPen(foreground))
                item.setTextPen(pg.mkPen(foreground))
            elif isinstance(item, pg.PlotItem) and item.titleLabel.text:
                item.titleLabel.setText(item.titleLabel.text, color=foreground)
    return len(views)
