"""The main window, its factory, and the GUI entry point.

``build_main_window(services)`` is the one way a window is made (the app and the tests use it):
it reads the preferences (settings.json) and the window session (gpu-planner.ini), applies the
theme and the translation, loads the catalog, offers to restore an autosave left by a crash, and
opens the start preset. ``run_gui(argv)`` sets up the QApplication (names, excepthook) and runs
it; ``--demo`` starts the monitor on the simulated source; ``--self-test`` builds the window
offscreen with a throw-away PLANNER_HOME, renders every pane, runs one estimate and one monitor
sample and exits 0 (the smoke test of a frozen build).

The window holds four panes in tabs (Ctrl+1…4): Planner (built at once), Monitor (built right
after the window is first shown, so that the cards are detected at start-up), Catalog and
Advisor (built when first shown). It wires them together:

* the plan document's changes → the Planner pane's fit view and scaling view, the Monitor's
  predicted-peak line (the per-GPU peak on several GPUs), the Advisor's plan;
* the Catalog pane's ``catalog_changed`` → the fit view, the scaling view and the Advisor;
* the Monitor's detected cards (matched to the catalog; simulated cards only with ``--demo``)
  → the Advisor's owned cards and the fit view's highlighted rows;
* Preferences (Edit ▸ Preferences…) → theme, units, monitor interval / alerts / retention,
  new-plan defaults, language (a zh_CN translation is installed when its .qm ships).

The multi-GPU setting (GPUs, nodes, strategy) is kept with the window session (ini file), not
in plan files: the plan format describes one run of the network and has no field for it.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
import tempfile
import traceback
from pathlib import Path

from PySide6.QtCore import (
    QEvent,
    QEventLoop,
    QSettings,
    Qt,
    QTimer,
    Signal,
    Slot,
)
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from planner import paths
from planner.safeio import set_aside
from planner.core.memory import Assumptions, estimate
from planner.core.network import (
    NetworkDraft,
    PlanFileError,
    Setup,
    analyze,
    load_plan_file,
    save_plan,
)
from planner.core.parallel import Parallel
from planner.ui.services import Prompts, Services


def _apply_currency(prefs) -> None:
    from planner.ui import money

    money.set_display_currency(prefs.currency_symbol,
                               prefs.currency_rate if prefs.shows_converted_money else None)


def _tr_core(text: str) -> str:
    from planner.ui.i18n import tr_core

    return tr_core(text)


def _exc_text(exc: BaseException) -> str:
    """A core error's message in the current language."""
    from planner.i18n import message_of
    from planner.ui.i18n import tr_msg

    return tr_msg(message_of(exc))

APP_TITLE = "GPU Planner"
MAX_RECENT = 10
PANES = ("planner", "monitor", "catalog", "advisor")
OPEN_FILTER = ("Plans and ONNX models (*.json *.onnx);;Plan files (*.json);;"
               "ONNX models (*.onnx);;All files (*)")
log = logging.getLogger("planner.ui")

LICENCES = (
    ("GPU Planner", "MIT"),
    ("Qt / PySide6", "LGPLv3"),
    ("pyqtgraph", "MIT"),
    ("numpy", "BSD"),
    ("nvidia-ml-py", "BSD"),
    ("platformdirs", "MIT"),
    ("onnx (optional)", "Apache-2.0"),
)


class DialogPrompts:
    """The questions of ``Prompts`` asked with message boxes and file dialogs."""

    def __init__(self, parent: QWidget | None = None):
        self.parent = parent

    def _tr(self, text: str) -> str:
        return QApplication.translate("MainWindow", text)

    def restore_autosave(self, path: Path) -> bool:
        answer = QMessageBox.question(
            self.parent, self._tr("Restore unsaved plan?"),
            self._tr("GPU Planner did not close cleanly last time. Restore the plan you were "
                     "editing?"),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.Yes)
        return answer == QMessageBox.StandardButton.Yes

    def save_changes(self, plan_name: str) -> str:
        answer = QMessageBox.warning(
            self.parent, self._tr("Unsaved changes"),
            self._tr("Save the changes to “%1” before closing it?").replace("%1", plan_name),
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Save)
        return {QMessageBox.StandardButton.Save: "save",
                QMessageBox.StandardButton.Discard: "discard"}.get(answer, "cancel")

    def open_path(self, folder: str) -> str | None:
        path, _ = QFileDialog.getOpenFileName(self.parent, self._tr("Open plan or ONNX model"),
                                              folder, self._tr(OPEN_FILTER))
        return path or None

    def save_path(self, suggested: str) -> str | None:
        path, _ = QFileDialog.getSaveFileName(self.parent, self._tr("Save plan"), suggested,
                                              self._tr("Plan files (*.json)"))
        if path and not path.lower().endswith(".json"):
            path += ".json"
        return path or None

    def error(self, title: str, text: str) -> None:
        QMessageBox.warning(self.parent, title, text)

    def notify(self, title: str, text: str) -> None:
        """A non-modal notice: the window stays usable while it is open."""
        box = QMessageBox(QMessageBox.Icon.Information, title, text,
                          QMessageBox.StandardButton.Ok, self.parent)
        box.setModal(False)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        box.show()

    def import_warnings(self, title: str, summary: str, details: str, incomplete: bool) -> None:
        """What an import could not read: plain words first, every detail on demand."""
        icon = QMessageBox.Icon.Warning if incomplete else QMessageBox.Icon.Information
        box = QMessageBox(icon, title, summary, QMessageBox.StandardButton.Ok, self.parent)
        box.setDetailedText(details)
        box.setModal(False)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        self.last_import_box = box
        box.show()

    def welcome(self, text: str) -> None:
        from planner.ui.welcome import WelcomeDialog  # noqa: PLC0415

        dialog = WelcomeDialog(text, self.parent)
        dialog.open()


def open_settings(services: Services) -> QSettings:
    path = services.settings_path or (paths.config_dir() / "gpu-planner.ini")
    return QSettings(str(path), QSettings.Format.IniFormat)


def _initial_assumptions(services: Services, settings: QSettings) -> Assumptions:
    if services.assumptions is not None:
        return services.assumptions
    raw = settings.value("planner/assumptions")
    if raw:
        try:
            return Assumptions.from_json(json.loads(str(raw)))
        except (ValueError, TypeError):
            log.warning("ignoring unreadable saved assumptions")
    return Assumptions()


def _parallel_json(par: Parallel) -> dict:
    return {"gpus": par.gpus, "nodes": par.nodes, "strategy": par.strategy}


def _initial_parallel(settings: QSettings) -> Parallel:
    raw = settings.value("planner/parallel")
    if raw:
        try:
            d = json.loads(str(raw))
            return Parallel(int(d["gpus"]), int(d["nodes"]), str(d["strategy"]))
        except (ValueError, TypeError, KeyError):
            log.warning("ignoring unreadable saved multi-GPU setting")
    return Parallel()


def install_translator(app: QApplication | None, language: str) -> bool:
    """Show the app in ``language`` ("system" | "en" | "zh_CN"); see planner.ui.i18n (the
    shipped .qm, or in a source checkout one compiled from the .ts). Returns whether a
    translation is installed."""
    from planner.ui import i18n

    if app is None:
        return False
    return i18n.install_translator(app, language) is not None


class _LazyPane(QWidget):
    """A tab's page whose pane is built the first time it is needed (shown, or asked for)."""

    def __init__(self, builder, parent: QWidget | None = None):
        super().__init__(parent)
        self._builder = builder
        self.pane: QWidget | None = None
        self._kept: list | None = None  # what the user had set, for the next build
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)

    def discard(self) -> None:
        """Drop the pane (it is built again when next needed), keeping what the user had set
        in its fields (``planner.ui.widgetstate``)."""
        if self.pane is None:
            return
        from planner.ui.widgetstate import snapshot

        pane, self.pane = self.pane, None
        self._kept = snapshot(pane)
        for timer in pane.findChildren(QTimer):  # no pending recompute on a pane going away
            timer.stop()
        pane.setParent(None)
        pane.deleteLater()

    def ensure(self) -> QWidget:
        if self.pane is None:
            self.pane = self._builder(self)
            if self._kept is not None:
                from planner.ui.widgetstate import restore

                restore(self.pane, self._kept)
                self._kept = None
            self.layout().addWidget(self.pane)
            if self.isVisible():
                self.pane.show()
        return self.pane

    def showEvent(self, event: QShowEvent) -> None:
        self.ensure()
        super().showEvent(event)


class MainWindow(QMainWindow):
    """Menus, the four panes, the status bar, files (open/save/recent), autosave, preferences."""

    autosaved = Signal(str)  # path of the autosave just written
    file_saved = Signal(str)
    open_finished = Signal(str, bool)  # File ▸ Open in the background: path, opened or not
    welcome_shown = Signal(str)  # the first-run welcome's text
    preferences_applied = Signal(object)  # the Settings now in force

    def __init__(self, services: Services, settings: QSettings, document,
                 parent: QWidget | None = None, *, preferences=None, catalog=None):
        from planner.settings import Settings

        super().__init__(parent)
        self.setObjectName("main_window")
        self._services = services
        self._settings = settings
        self._prompts: Prompts = services.prompts or DialogPrompts(self)
        self.import_result = None  # the last ONNX import (its report travels with the plan)
        self.prefs = preferences if preferences is not None else Settings()
        self.catalog = catalog
        self._catalog_failed = False
        self._opening = None  # a BackgroundOpen in progress
        self._prepared_open = None  # (draft, (analysis, estimate, assumptions)) from it
        self._opened_parallel = None  # the several-GPU setup read with it
        self.detected_cards: tuple[str, ...] = ()  # catalog names (or NVML names) of this PC
        self.monitor_source: str | None = None
        self._welcome_pending = False
        self._shown_once = False
        self._closing = False
        self.document = document
        document.setParent(self)
        memory = settings.value("planner/memory_gib", 24.0)
        try:
            memory = float(memory)
        except (TypeError, ValueError):
            memory = 24.0
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("panes")
        self.tabs.setDocumentMode(True)
        self._memory_gib = memory
        self.planner = self._make_planner_pane()
        self.tabs.addTab(self.planner, "")
        self._monitor_page = _LazyPane(self._build_monitor, self.tabs)
        self._catalog_page = _LazyPane(self._build_catalog, self.tabs)
        self._advisor_page = _LazyPane(self._build_advisor, self.tabs)
        self.tabs.addTab(self._monitor_page, "")
        self.tabs.addTab(self._catalog_page, "")
        self.tabs.addTab(self._advisor_page, "")
        self._retranslate_tabs()
        self.setCentralWidget(self.tabs)
        self._peak_label = QLabel(self)
        self.statusBar().addPermanentWidget(self._peak_label)
        self._autosave_timer = QTimer(self)
        self._autosave_timer.setSingleShot(True)
        self._autosave_timer.setInterval(services.autosave_delay_ms)
        self._autosave_timer.timeout.connect(self._on_autosave_timeout)
        self._welcome_timer = QTimer(self)
        self._welcome_timer.setSingleShot(True)
        self._welcome_timer.setInterval(services.welcome_timeout_ms)
        self._welcome_timer.timeout.connect(self._on_welcome_timeout)
        self._build_menus()
        document.undo_stack.cleanChanged.connect(self._on_clean_changed)
        document.undo_stack.indexChanged.connect(self._on_history_changed)
        document.path_changed.connect(self._update_title)
        document.plan_changed.connect(self._on_plan_changed)
        self.tabs.currentChanged.connect(self._on_tab_changed)
        self._on_status_changed(self.planner.summary())
        self._update_title()
        geometry = settings.value("window/geometry")
        if geometry is None or not self.restoreGeometry(geometry):
            self.resize(1400, 900)
        state = settings.value("window/state")
        if state is not None:
            self.restoreState(state)
        self._restore_splitters("planner", self.planner)
        try:
            tab = int(settings.value("window/tab", 0))
        except (TypeError, ValueError):
            tab = 0
        if 0 < tab < self.tabs.count():
            self.tabs.setCurrentIndex(tab)

    # ------------------------------------------------------------------------------------------
    # The panes
    # ------------------------------------------------------------------------------------------
    def _make_planner_pane(self):
        from planner.settings import byte_formatter
        from planner.ui.planner.pane import PlannerPane

        pane = PlannerPane(self.document, self.tabs, memory_gib=self._memory_gib,
                           catalog=self.catalog)
        if self.prefs.units != "binary":
            pane.set_byte_formatter(byte_formatter(self.prefs))
        pane.status_changed.connect(self._on_status_changed)
        pane.message.connect(self._on_pane_message)
        pane.assumptions_changed.connect(self._on_assumptions_changed)
        pane.card_activated.connect(self._on_card_activated)
        if self.detected_cards and hasattr(pane, "set_owned_cards"):
            pane.set_owned_cards(self.detected_cards)
        return pane

    def _retranslate_tabs(self) -> None:
        for i, (title, tip) in enumerate((
                (self.tr("Planner"),
                 self.tr("Draft a network and see its memory, fit and scaling (Ctrl+1)")),
                (self.tr("Monitor"),
                 self.tr("The NVIDIA cards in this computer, live and recorded (Ctrl+2)")),
                (self.tr("Catalog"),
                 self.tr("Every card: search, compare, your prices and cards (Ctrl+3)")),
                (self.tr("Advisor"), self.tr("What to buy, what to sell, and why (Ctrl+4)")))):
            self.tabs.setTabText(i, title)
            self.tabs.setTabToolTip(i, tip)

    def retranslate(self) -> None:
        """Show the window in the language now installed, keeping the work: the plan, its undo
        history and file stay in the document; the Planner, Catalog and Advisor panes and the
        menus are rebuilt around it. The Monitor keeps running (its sampler, history and
        recording are not interrupted) and re-translates itself (``MonitorPane.retranslate``)."""
        current = self.tabs.currentIndex()
        self._memory_gib = self.planner.memory_spin.value()
        old = self.planner
        self.planner = self._make_planner_pane()
        self.tabs.removeTab(0)
        self.tabs.insertTab(0, self.planner, "")
        old.setParent(None)
        old.deleteLater()
        for page in (self._catalog_page, self._advisor_page):
            page.discard()  # rebuilt in the new language with the user's settings
        self.menuBar().clear()
        self._build_menus()
        self._retranslate_tabs()
        self.tabs.setCurrentIndex(current)
        if self.tabs.currentWidget() in (self._catalog_page, self._advisor_page):
            self.tabs.currentWidget().ensure()
        self._on_status_changed(self.planner.summary())
        self._update_title()

    @property
    def monitor(self):
        """The Monitor pane, or None before it is built (see ``ensure_monitor``)."""
        return self._monitor_page.pane

    @property
    def catalog_pane(self):
        return self._catalog_page.pane

    @property
    def advisor(self):
        return self._advisor_page.pane

    def ensure_monitor(self):
        return self._monitor_page.ensure()

    def ensure_catalog_pane(self):
        return self._catalog_page.ensure()

    def ensure_advisor(self):
        return self._advisor_page.ensure()

    def ensure_all_panes(self) -> None:
        for page in (self._monitor_page, self._catalog_page, self._advisor_page):
            page.ensure()

    def pane_at(self, index: int) -> QWidget | None:
        page = self.tabs.widget(index)
        return page.ensure() if isinstance(page, _LazyPane) else page

    def _build_monitor(self, parent: QWidget):
        from planner.ui.monitor.pane import MonitorPane
        from planner.ui.services import demo_telemetry_factory

        p = self.prefs
        pane = MonitorPane(self._services.backend_factory(), demo=self._services.demo,
                           parent=parent, interval_s=p.sampling_interval_s,
                           record=self._services.record_telemetry,
                           demo_factory=demo_telemetry_factory,
                           retention_days=p.recording_retention_days,
                           memory_alert_pct=p.memory_alert_pct,
                           temperature_alert_c=p.temperature_alert_c, autostart=False,
                           peak_bandwidth_lookup=self._peak_bandwidth_of,
                           cluster_settings=self._cluster_settings())
        pane.cluster_settings_changed.connect(self._on_cluster_settings_changed)
        pane.status_message.connect(self._on_pane_message)
        pane.comparison_ready.connect(self._on_pane_message)
        pane.devices_changed.connect(self._on_devices_changed)
        pane.source_changed.connect(self._on_source_changed)
        pane.retention_changed.connect(self._on_retention_changed)
        self._update_predicted_peak(pane)
        self._restore_splitters("monitor", pane)
        if not self._closing:
            pane.start()
        return pane

    def _peak_bandwidth_of(self, name: str) -> float | None:
        """A card's datasheet bandwidth from the catalog, for cluster cards (dcgm-exporter
        reports no bus width or memory clock). Called from the sampling thread: it only reads
        the immutable catalog."""
        catalog = self.catalog
        card = catalog.match_nvml_name(name) if catalog is not None else None
        return card.bandwidth_gbs if card is not None else None

    def _cluster_settings(self) -> dict:
        raw = self._settings.value("monitor/cluster")
        try:
            value = json.loads(str(raw)) if raw else {}
        except ValueError:
            value = {}
        return value if isinstance(value, dict) else {}

    @Slot(object)
    def _on_cluster_settings_changed(self, settings: dict) -> None:
        # The token is in it only when the user ticked "remember token".
        self._settings.setValue("monitor/cluster", json.dumps(settings))

    def _build_catalog(self, parent: QWidget):
        from planner.ui.catalog.pane import CatalogPane

        pane = CatalogPane(self._services.load_catalog, parent)
        if self.catalog is not None:
            pane.add_notices(self.catalog.notices)  # e.g. the overrides file was set aside
        pane.catalog_changed.connect(self._on_catalog_changed)
        self._restore_splitters("catalog", pane)
        if self.catalog is None:
            self._on_catalog_changed(pane.catalog)
        return pane

    def _build_advisor(self, parent: QWidget):
        from planner.ui.advisor.pane import AdvisorPane

        pane = AdvisorPane(self.load_catalog(), parent, assumptions=self.document.assumptions)
        pane.status_changed.connect(self._on_advisor_status)
        if self.prefs.electricity_usd_per_kwh is not None:
            pane.electricity_spin.setValue(self.prefs.electricity_usd_per_kwh)
        self._push_plan_to_advisor(pane)
        if self.detected_cards:
            pane.set_detected_cards(list(self.detected_cards),
                                    getattr(self, "detected_simulated", False))
        self._restore_splitters("advisor", pane)
        return pane

    def _push_plan_to_advisor(self, advisor) -> None:
        doc = self.document
        if doc.estimate is not None:
            advisor.set_plan(doc.draft, doc.setup)
        else:
            advisor.set_plan(None)

    def _update_predicted_peak(self, monitor=None) -> None:
        monitor = monitor or self.monitor
        if monitor is None:
            return
        doc = self.document
        peak = doc.peak_per_gpu
        label = self.tr("%1, batch %2").replace("%1", doc.draft.name).replace(
            "%2", str(doc.setup.batch_size))
        if doc.parallel.world > 1:
            label += self.tr(" (per GPU of %1)").replace("%1", str(doc.parallel.world))
        monitor.set_predicted_peak(peak, label)

    @Slot()
    def _on_plan_changed(self) -> None:
        self._update_predicted_peak()
        advisor = self.advisor
        if advisor is not None:
            self._push_plan_to_advisor(advisor)
            advisor.set_assumptions(self.document.assumptions)

    @Slot(str)
    def _on_advisor_status(self, text: str) -> None:
        if self.tabs.currentWidget() is self._advisor_page:
            self._on_pane_message(text)

    @Slot(object)
    def _on_catalog_changed(self, catalog) -> None:
        self.catalog = catalog
        self.planner.set_catalog(catalog)
        if self.advisor is not None:
            self.advisor.set_catalog(catalog)
        if self.monitor is not None and self.monitor.devices:
            self._on_devices_changed(self.monitor.devices)

    @Slot(str)
    def _on_card_activated(self, name: str) -> None:
        pane = self.ensure_catalog_pane()
        self.tabs.setCurrentIndex(PANES.index("catalog"))
        pane.show_card(name)

    @Slot(object)
    def _on_devices_changed(self, devices) -> None:
        names: list[str] = []
        matched: list[str] = []
        for d in devices or ():
            if getattr(d, "simulated", False) and not self._services.demo:
                continue
            if getattr(d, "host", None):  # a cluster's card, not this computer's
                continue
            card = None
            nvml_name = d.name.removesuffix(" (simulated)")
            if self.catalog is not None:
                card = self.catalog.match_nvml_name(nvml_name, d.memory_total_bytes)
            names.append(card.name if card is not None else d.name)
            if card is not None:
                matched.append(card.name)
        self.detected_cards = tuple(names)
        self.detected_simulated = any(getattr(d, "simulated", False) for d in devices or ())
        self.planner.set_owned_cards(matched)
        if self.advisor is not None:
            self.advisor.set_detected_cards(list(names), self.detected_simulated)
        if devices:
            self._maybe_show_welcome()

    @Slot(str)
    def _on_source_changed(self, source: str) -> None:
        self.monitor_source = source
        if source == "unavailable":
            self._maybe_show_welcome()

    @Slot(float)
    def _on_retention_changed(self, days: float) -> None:
        days = int(round(days))
        if days != self.prefs.recording_retention_days:
            try:
                self._store_preferences(self.prefs.replace(recording_retention_days=days))
            except ValueError as exc:
                log.warning("retention: %s", exc)

    @Slot(int)
    def _on_tab_changed(self, index: int) -> None:
        self.pane_at(index)

    # ------------------------------------------------------------------------------------------
    # Window layout
    # ------------------------------------------------------------------------------------------
    def _restore_splitters(self, key: str, root: QWidget) -> None:
        for i, splitter in enumerate(root.findChildren(QSplitter)):
            state = self._settings.value(f"layout/{key}/splitter{i}")
            if state is not None:
                splitter.restoreState(state)

    def _save_splitters(self) -> None:
        roots = {"planner": self.planner, "monitor": self.monitor,
                 "catalog": self.catalog_pane, "advisor": self.advisor}
        for key, root in roots.items():
            if root is None:
                continue
            for i, splitter in enumerate(root.findChildren(QSplitter)):
                self._settings.setValue(f"layout/{key}/splitter{i}", splitter.saveState())

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._shown_once:
            self._shown_once = True
            # Start detecting the cards once the window has painted (so building the monitor
            # never delays the first picture); the welcome waits for what the monitor finds.
            self.tabs.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:
        if watched is self.tabs and event.type() == QEvent.Type.Paint:
            self.tabs.removeEventFilter(self)
            QTimer.singleShot(0, self._on_first_shown)
        return super().eventFilter(watched, event)

    def _refresh_prices(self) -> None:
        """Show prices again after the display currency changed."""
        fit = self.planner.fit_view
        if fit is not None:
            fit.recompute()
        if self.catalog_pane is not None:
            self.catalog_pane.reload()
        if self.advisor is not None:
            self.advisor.set_catalog(self.catalog)

    def load_catalog(self):
        """The GPU catalog: read on first need (after the first paint, or when a pane asks);
        a broken catalog is reported and never stops the planner."""
        if self.catalog is None and not self._catalog_failed:
            try:
                catalog = self._services.load_catalog()
            except Exception as exc:  # noqa: BLE001 - a broken catalog must not stop the app
                log.exception("catalog")
                self._catalog_failed = True
                self.notify(self.tr("GPU catalog"), str(exc))
                return None
            self._on_catalog_changed(catalog)
        return self.catalog

    @Slot()
    def _on_first_shown(self) -> None:
        if self._closing:
            return
        self.load_catalog()
        self.ensure_monitor()
        if not self.prefs.first_run_done and self._can_welcome():
            self._welcome_pending = True
            self._welcome_timer.start()

    # ------------------------------------------------------------------------------------------
    # First run
    # ------------------------------------------------------------------------------------------
    def _can_welcome(self) -> bool:
        return callable(getattr(self._prompts, "welcome", None))

    def welcome_text(self) -> str:
        from planner.ui.welcome import welcome_text

        source = self.monitor_source or ("simulated" if self._services.demo else "unavailable")
        cards = list(self.detected_cards)
        if source == "simulated" and not cards and self.monitor is not None:
            cards = [d.name for d in self.monitor.devices]
        return welcome_text(cards, source)

    def _maybe_show_welcome(self) -> None:
        if self._welcome_pending:
            self._welcome_pending = False
            self._welcome_timer.stop()
            self.show_welcome()

    @Slot()
    def _on_welcome_timeout(self) -> None:
        self._maybe_show_welcome()

    def show_welcome(self) -> None:
        """Show the welcome (first run, or Help ▸ Welcome) and remember it was shown."""
        text = self.welcome_text()
        welcome = getattr(self._prompts, "welcome", None)
        if callable(welcome):
            welcome(text)
        self.welcome_shown.emit(text)
        if not self.prefs.first_run_done:
            self._store_preferences(self.prefs.replace(first_run_done=True))

    # ------------------------------------------------------------------------------------------
    # Menus
    # ------------------------------------------------------------------------------------------
    def _action(self, text: str, slot, shortcut=None) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        SK = QKeySequence.StandardKey
        file_menu = bar.addMenu(self.tr("&File"))
        self.new_action = self._action(self.tr("&New"), self._on_new_triggered, SK.New)
        self.open_action = self._action(self.tr("&Open…"), self._on_open_triggered, SK.Open)
        self.open_action.setToolTip(self.tr("Open a plan (.json) or an ONNX model (.onnx)"))
        self.open_folder_action = self._action(self.tr("Open &Model Folder…"),
                                               self._on_open_folder_triggered)
        self.open_folder_action.setToolTip(self.tr(
            "Open a Hugging Face model folder (config.json, safetensors headers; no weights)"))
        self.recent_menu = file_menu.addMenu(self.tr("Open &Recent"))
        self.recent_menu.aboutToShow.connect(self._on_recent_about_to_show)
        self.save_action = self._action(self.tr("&Save"), self._on_save_triggered, SK.Save)
        self.save_as_action = self._action(self.tr("Save &As…"), self._on_save_as_triggered,
                                           SK.SaveAs)
        self.quit_action = self._action(self.tr("&Quit"), self.close, SK.Quit)
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        file_menu.insertAction(self.recent_menu.menuAction(), self.new_action)
        file_menu.insertAction(self.recent_menu.menuAction(), self.open_action)
        file_menu.insertAction(self.recent_menu.menuAction(), self.open_folder_action)
        file_menu.addSeparator()
        file_menu.addAction(self.save_action)
        file_menu.addAction(self.save_as_action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        self._rebuild_recent_menu()

        edit = bar.addMenu(self.tr("&Edit"))
        stack = self.document.undo_stack
        self.undo_action = stack.createUndoAction(self, self.tr("&Undo"))
        self.undo_action.setShortcut(QKeySequence(SK.Undo))
        self.redo_action = stack.createRedoAction(self, self.tr("&Redo"))
        self.redo_action.setShortcut(QKeySequence(SK.Redo))
        edit.addAction(self.undo_action)
        edit.addAction(self.redo_action)
        edit.addSeparator()
        pane = self.planner
        edit.addAction(pane.add_action)
        edit.addMenu(pane.add_menu)
        edit.addMenu(pane.insert_menu)
        edit.addAction(pane.duplicate_action)
        edit.addAction(pane.remove_action)
        edit.addSeparator()
        edit.addAction(pane.up_action)
        edit.addAction(pane.down_action)
        edit.addSeparator()
        edit.addAction(pane.assumptions_action)
        self.preferences_action = self._action(self.tr("&Preferences…"),
                                               self._on_preferences_triggered)
        shortcuts = [QKeySequence(SK.Preferences), QKeySequence("Ctrl+,")]
        unique = []
        for k in shortcuts:
            if not k.isEmpty() and k not in unique:
                unique.append(k)
        self.preferences_action.setShortcuts(unique)
        self.preferences_action.setMenuRole(QAction.MenuRole.PreferencesRole)
        edit.addSeparator()
        edit.addAction(self.preferences_action)

        view = bar.addMenu(self.tr("&View"))
        self.pane_actions: list[QAction] = []
        for i, title in enumerate((self.tr("&Planner"), self.tr("&Monitor"),
                                   self.tr("&Catalog"), self.tr("&Advisor"))):
            action = self._action(title, self._on_pane_action_triggered, f"Ctrl+{i + 1}")
            action.setData(i)
            view.addAction(action)
            self.pane_actions.append(action)

        self.presets_menu = bar.addMenu(self.tr("P&resets"))
        from planner.core.presets import list_presets

        self.preset_actions: dict[str, QAction] = {}
        for info in list_presets():
            action = self.presets_menu.addAction(_tr_core(info.title))
            action.setData(info.name)
            action.setToolTip(_tr_core(info.description))
            action.setStatusTip(_tr_core(info.description))
            action.triggered.connect(self._on_preset_triggered)
            self.preset_actions[info.name] = action
        self.presets_menu.setToolTipsVisible(True)

        help_menu = bar.addMenu(self.tr("&Help"))
        self.guide_action = self._action(self.tr("&User Guide"), self.show_guide,
                                         QKeySequence.StandardKey.HelpContents)
        self.guide_action.setStatusTip(self.tr(
            "What each pane does, how the estimate and the speed are computed, how sure they "
            "are, where your files live"))
        help_menu.addAction(self.guide_action)
        self.welcome_action = self._action(self.tr("&Welcome…"), self._on_welcome_triggered)
        help_menu.addAction(self.welcome_action)
        self.about_action = self._action(self.tr("&About GPU Planner"),
                                         self._on_about_triggered)
        self.about_action.setMenuRole(QAction.MenuRole.AboutRole)
        help_menu.addAction(self.about_action)

    # ------------------------------------------------------------------------------------------
    # Title, status
    # ------------------------------------------------------------------------------------------
    def plan_title(self) -> str:
        path = self.document.path
        return path.name if path is not None else self.document.draft.name

    @Slot()
    def _update_title(self) -> None:
        self.setWindowTitle(self.tr("%1[*] — GPU Planner").replace("%1", self.plan_title()))
        self.setWindowModified(self.document.modified)

    @Slot(bool)
    def _on_clean_changed(self, _clean: bool) -> None:
        self._update_title()

    @Slot(int)
    def _on_history_changed(self, _index: int) -> None:
        if self.document.modified:
            self._autosave_timer.start()
        self._update_title()

    @Slot(str)
    def _on_status_changed(self, text: str) -> None:
        self._peak_label.setText(text)

    @Slot(str)
    def _on_pane_message(self, text: str) -> None:
        self.statusBar().showMessage(text, 8000)

    @Slot(object)
    def _on_assumptions_changed(self, assumptions: Assumptions) -> None:
        self._settings.setValue("planner/assumptions", json.dumps(assumptions.to_json()))

    def notify(self, title: str, text: str) -> None:
        """A notice that does not block: the status bar, and the prompts' non-modal box."""
        self.statusBar().showMessage(text.split("\n", 1)[0], 15000)
        notify = getattr(self._prompts, "notify", None)
        if callable(notify):
            notify(title, text)

    # ------------------------------------------------------------------------------------------
    # Preferences
    # ------------------------------------------------------------------------------------------
    def _store_preferences(self, new) -> None:
        from planner.settings import save_settings

        self.prefs = new
        try:
            save_settings(new, self._services.preferences_path)
        except OSError as exc:
            self.notify(self.tr("Cannot save preferences"), str(exc))

    def apply_preferences(self, new) -> None:
        """Save ``new`` and apply what changed to the whole window."""
        from planner.settings import byte_formatter, changed_fields
        from planner.ui.settings_dialog import apply_theme, restyle_plots

        old = self.prefs
        changed = changed_fields(old, new)
        self._store_preferences(new)
        app = QApplication.instance()
        if "theme" in changed and app is not None:
            apply_theme(app, new.theme)
            restyle_plots(self)
        if "units" in changed:
            self.planner.set_byte_formatter(byte_formatter(new))
        if changed & {"currency", "currency_symbol", "currency_rate"}:
            _apply_currency(new)
            self._refresh_prices()
        if "language" in changed:
            install_translator(app, new.language)
            self.retranslate()  # the Monitor re-translates itself, its session going on
        monitor = self.monitor
        if monitor is not None:
            if "sampling_interval_s" in changed:
                monitor.set_interval(new.sampling_interval_s)
            if changed & {"memory_alert_pct", "temperature_alert_c"}:
                monitor.set_alert_thresholds(memory_pct=new.memory_alert_pct,
                                             temperature_c=new.temperature_alert_c)
            if "recording_retention_days" in changed:
                monitor.set_retention_days(new.recording_retention_days)
        if (self.advisor is not None and "electricity_usd_per_kwh" in changed
                and new.electricity_usd_per_kwh is not None):
            self.advisor.electricity_spin.setValue(new.electricity_usd_per_kwh)
        self.preferences_applied.emit(new)

    def _run_dialog(self, dialog: QDialog) -> bool:
        runner = self._services.dialog_runner
        if runner is not None:
            return bool(runner(dialog))
        return dialog.exec() == QDialog.DialogCode.Accepted

    @Slot()
    def _on_preferences_triggered(self) -> None:
        from planner.ui.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.prefs, self)
        dialog.settings_changed.connect(self.apply_preferences)
        try:
            self._run_dialog(dialog)
        finally:
            dialog.deleteLater()

    @Slot()
    def _on_pane_action_triggered(self) -> None:
        index = self.sender().data()
        if index is not None:
            self.tabs.setCurrentIndex(int(index))

    # ------------------------------------------------------------------------------------------
    # Files
    # ------------------------------------------------------------------------------------------
    def recent_files(self) -> list[str]:
        value = self._settings.value("recent/files", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or [])]

    def _add_recent(self, path: Path) -> None:
        p = str(Path(path).resolve())
        files = [f for f in self.recent_files() if f != p]
        self._settings.setValue("recent/files", ([p] + files)[:MAX_RECENT])
        self._rebuild_recent_menu()

    def _rebuild_recent_menu(self) -> None:
        self.recent_menu.clear()
        files = self.recent_files()
        for i, f in enumerate(files):
            action = self.recent_menu.addAction(f"&{(i + 1) % 10} {Path(f).name}")
            action.setData(f)
            action.setToolTip(f)
            action.setStatusTip(f)
            action.triggered.connect(self._on_recent_triggered)
        if files:
            self.recent_menu.addSeparator()
            clear = self.recent_menu.addAction(self.tr("&Clear List"))
            clear.triggered.connect(self._on_clear_recent_triggered)
        self.recent_menu.setEnabled(bool(files))

    def maybe_save(self) -> bool:
        """True when it is fine to replace the current plan (saved, discarded or unchanged)."""
        if not self.document.modified:
            return True
        answer = self._prompts.save_changes(self.plan_title())
        if answer == "save":
            return self.save()
        return answer == "discard"

    def open_file(self, path: str | os.PathLike, _load=None) -> bool:
        """Open a plan file or an ONNX model; a bad file shows its problem and leaves the
        current plan as is. An ONNX model opens as an untitled plan named after the model."""
        if Path(path).suffix.lower() == ".onnx":
            return self.import_onnx(path, _load)
        try:
            if _load is None:
                draft, setup, parallel = load_plan_file(path)
            else:
                draft, setup = _load(path)
                parallel = self._opened_parallel  # read with the file, in the worker
        except PlanFileError as exc:
            self._prompts.error(self.tr("Cannot open plan"), _exc_text(exc))
            return False
        ready, self._prepared_open = self._prepared_open, None
        self._opened_parallel = None
        self.document.load(draft, setup, Path(path),
                           prepared=ready[1] if ready and ready[0] is draft else None)
        self._apply_plan_parallel(parallel)
        self._add_recent(Path(path))
        self.statusBar().showMessage(self.tr("Opened %1").replace("%1", str(path)), 5000)
        return True

    def _apply_plan_parallel(self, parallel: dict | None) -> None:
        """The several-GPU setup a plan file holds; a file without one (older) is one GPU."""
        try:
            par = Parallel(**parallel) if parallel else Parallel()
        except (TypeError, ValueError) as exc:
            self.statusBar().showMessage(self.tr("The file's multi-GPU setup was not used: %1")
                                         .replace("%1", str(exc)), 10000)
            par = Parallel()
        self.document.set_parallel(par)

    def import_onnx(self, path: str | os.PathLike, _load=None) -> bool:
        from planner.core.importers.onnx import OnnxImportError, import_onnx

        try:
            result = (_load or import_onnx)(path, batch=self.prefs.default_batch)
        except OnnxImportError as exc:
            self._prompts.error(self.tr("Cannot open ONNX model"), _exc_text(exc))
            return False
        ready, self._prepared_open = self._prepared_open, None
        self.document.load(result.draft, result.setup, None, modified=True,
                           prepared=ready[1] if ready and ready[0] is result.draft else None)
        self._add_recent(Path(path))
        self.import_result = result
        name = Path(path).name
        if result.warnings or result.incomplete:
            self._show_import_warnings(name, result)
        else:
            self.statusBar().showMessage(self.tr("Opened %1 as a new plan").replace(
                "%1", name), 5000)
        return True

    def open_file_in_background(self, path: str | os.PathLike) -> None:
        """File ▸ Open: read (and import) the file in a worker thread, a progress dialog with
        Cancel after 200 ms, then show it here; ``open_finished`` says how it went. The window
        never waits on the file (a FIFO, a slow disk, a large ONNX model)."""
        from planner.safeio import MAX_ONNX_BYTES, check_regular
        from planner.ui.file_open import BackgroundOpen

        if self._opening is not None:
            self._opening.cancel()
        path = str(path)
        batch = self.prefs.default_batch
        assumptions = self.document.assumptions

        def prepare(draft, setup) -> None:
            # worked out here, not on the GUI thread: the document takes them as they are
            analysis = analyze(draft)
            est = None
            if analysis.ok:
                try:
                    est = estimate(analysis, setup, assumptions)
                    # the allocator replay and the step's points: here, not on the GUI thread
                    est.reserved_bytes  # noqa: B018
                    est.timeline  # noqa: B018
                except (ValueError, ArithmeticError):
                    est = None  # the document says why when it tries again
            self._prepared_open = (draft, (analysis, est, assumptions))

        if Path(path).suffix.lower() == ".onnx":
            def work():
                check_regular(path, limit=MAX_ONNX_BYTES)  # never block on a FIFO or device
                from planner.core.importers.onnx import import_onnx  # slow: not here

                result = import_onnx(path, batch=batch)
                prepare(result.draft, result.setup)  # a large graph: not on the GUI thread
                return result
        else:
            def work():
                draft, setup, parallel = load_plan_file(path)
                self._opened_parallel = parallel
                prepare(draft, setup)
                return draft, setup
        job = BackgroundOpen(self, work, self.tr("Opening %1…").replace("%1", Path(path).name),
                             self.tr("Cancel"))
        self._opening = job

        def done(value, exc) -> None:
            self._opening = None

            def replay(*_args, **_kw):
                if exc is not None:
                    raise exc
                return value

            try:
                ok = self.open_file(path, replay)
            except Exception as err:  # noqa: BLE001 - any failure is a message, not a crash
                log.warning("opening %s: %s", path, err, exc_info=True)
                self._prompts.error(self.tr("Cannot open %1").replace("%1", Path(path).name),
                                    _exc_text(err) or type(err).__name__)
                ok = False
            self.open_finished.emit(path, ok)

        def cancelled() -> None:
            self._opening = None
            self.statusBar().showMessage(self.tr("Opening %1 cancelled").replace(
                "%1", Path(path).name), 5000)
            self.open_finished.emit(path, False)

        job.finished.connect(done)
        job.cancelled.connect(cancelled)
        job.start()

    def _show_import_warnings(self, name: str, result) -> None:
        """An incomplete import says so where it cannot be missed (a warning box, and the
        status bar until the next message); the importer's own words are the details."""
        report = result.report
        if result.incomplete:
            title = self.tr("%1 was only partly read").replace("%1", name)
            summary = self.tr(
                "The plan does not cover the whole model: memory and speed figures are too "
                "low. %1 of %2 operations could not be planned.").replace(
                "%1", str(report.not_understood)).replace("%2", str(report.nodes))
            self.statusBar().showMessage(
                self.tr("Incomplete import of %1: the figures are too low").replace("%1", name))
        else:
            title = self.tr("Opened %1 with warnings").replace("%1", name)
            summary = self.tr("The whole model was read, with assumptions to check.")
            self.statusBar().showMessage(
                self.tr("Opened %1 with warnings").replace("%1", name), 15000)
        if report.eval_export:
            summary += "\n\n" + self.tr(
                "It was exported for inference: the plan adds back the batch norms the "
                "export folded away; dropout is not planned.")
        lines = list(result.warnings) + list(result.notes)
        counts = self.tr(
            "Operations: %1 planned, %2 folded into others, %3 not understood. Weights in the "
            "file: %4 values; parameters in the plan: %5.").replace(
            "%1", str(report.mapped)).replace("%2", str(report.folded)).replace(
            "%3", str(report.not_understood)).replace("%4", f"{report.file_weights:,}").replace(
            "%5", f"{report.plan_parameters:,}")
        details = "\n\n".join(["• " + line for line in lines] + [counts])
        show = getattr(self._prompts, "import_warnings", None)
        if callable(show):
            show(title, summary, details, result.incomplete)
        else:
            self.notify(title, summary + "\n\n" + details)

    def save(self) -> bool:
        if self.document.path is None:
            return self.save_as()
        return self.save_to(self.document.path)

    def last_folder(self) -> str:
        """Where the file dialogs start: the open plan's folder, else the folder of the last
        file opened or saved (kept between starts), else the home folder."""
        if self.document.path is not None:
            return str(self.document.path.parent)
        kept = self._settings.value("files/last_folder")
        if isinstance(kept, str) and kept and Path(kept).is_dir():
            return kept
        return str(Path.home())

    def _remember_folder(self, path: str | Path) -> None:
        self._settings.setValue("files/last_folder", str(Path(path).resolve().parent))

    def save_as(self) -> bool:
        suggested = str(Path(self.last_folder()) / (self._file_stem() + ".json"))
        path = self._prompts.save_path(suggested)
        if path:
            self._remember_folder(path)
        return bool(path) and self.save_to(Path(path))

    def save_to(self, path: Path) -> bool:
        doc = self.document
        try:
            save_plan(path, doc.draft, doc.setup, _parallel_json(doc.parallel))
        except OSError as exc:
            self._prompts.error(self.tr("Cannot save plan"),
                                self.tr("%1: %2").replace("%1", str(path)).replace(
                                    "%2", exc.strerror or str(exc)))
            return False
        doc.mark_saved(path)
        self._add_recent(path)
        self._discard_autosave()
        self.statusBar().showMessage(self.tr("Saved %1").replace("%1", str(path)), 5000)
        self.file_saved.emit(str(path))
        return True

    def _file_stem(self) -> str:
        name = self.document.draft.name.strip().lower()
        stem = "".join(c if c.isalnum() or c in "-_" else "-" for c in name).strip("-")
        return stem or "plan"

    def load_preset(self, name: str) -> bool:
        from planner.core.presets import load_preset

        try:
            draft, setup = load_preset(name)
        except PlanFileError as exc:
            self._prompts.error(self.tr("Cannot load preset"), _exc_text(exc))
            return False
        self.document.load(draft, setup, None)
        return True

    # ---- autosave ----------------------------------------------------------------------------
    @Slot()
    def _on_autosave_timeout(self) -> None:
        self.write_autosave()

    def write_autosave(self) -> None:
        path = paths.autosave_path()
        try:
            save_plan(path, self.document.draft, self.document.setup,
                      _parallel_json(self.document.parallel))
        except OSError as exc:
            self.statusBar().showMessage(self.tr("Autosave failed: %1").replace(
                "%1", exc.strerror or str(exc)), 8000)
            return
        self.autosaved.emit(str(path))

    def _discard_autosave(self) -> None:
        self._autosave_timer.stop()
        try:
            paths.autosave_path().unlink(missing_ok=True)
        except OSError:
            pass

    # ------------------------------------------------------------------------------------------
    # Menu slots
    # ------------------------------------------------------------------------------------------
    @Slot()
    def _on_new_triggered(self) -> None:
        if self.maybe_save():
            draft = NetworkDraft("untitled", (_default_input(),))
            try:
                setup = self.prefs.new_setup()
            except ValueError:
                setup = Setup()
            self.document.load(draft, setup, None)

    @Slot()
    def _on_open_triggered(self) -> None:
        if not self.maybe_save():
            return
        path = self._prompts.open_path(self.last_folder())
        if path:
            self._remember_folder(path)
            self.open_file_in_background(path)

    @Slot()
    def _on_open_folder_triggered(self) -> None:
        if self.maybe_save():
            from planner.ui.model_folder import choose_and_open

            choose_and_open(self)

    @Slot()
    def _on_recent_triggered(self) -> None:
        path = self.sender().data()
        if path and self.maybe_save():
            self.open_file(path)

    @Slot()
    def _on_recent_about_to_show(self) -> None:
        self._rebuild_recent_menu()

    @Slot()
    def _on_clear_recent_triggered(self) -> None:
        self._settings.setValue("recent/files", [])
        self._rebuild_recent_menu()

    @Slot()
    def _on_save_triggered(self) -> None:
        self.save()

    @Slot()
    def _on_save_as_triggered(self) -> None:
        self.save_as()

    @Slot()
    def _on_preset_triggered(self) -> None:
        name = self.sender().data()
        if name and self.maybe_save():
            self.load_preset(name)

    @Slot()
    def show_guide(self):
        """Help ▸ User Guide (F1), in the window's language; returns the dialog."""
        from planner.ui.guide import GuideDialog

        dialog = GuideDialog(self)
        dialog.show()
        return dialog

    @Slot()
    def _on_welcome_triggered(self) -> None:
        text = self.welcome_text()
        if self._can_welcome():
            self.show_welcome()
        else:
            from planner.ui.welcome import WelcomeDialog

            WelcomeDialog(text, self).open()

    def about_text(self) -> str:
        from planner import __version__

        licences = "".join(f"<tr><td>{name}</td><td>&nbsp;&nbsp;{lic}</td></tr>"
                           for name, lic in LICENCES)
        return self.tr(
            "<b>GPU Planner</b> %1<p>Plan the memory a network needs to train on an NVIDIA GPU, "
            "layer by layer; see how it fits and runs on every card, what to buy or sell, and "
            "what your cards do live.</p>"
            "<p>Its reasoning follows Tim Dettmers' article “Which GPU(s) to Get for Deep "
            "Learning” (2016 and 2017 revisions, read in its Chinese translation). Memory is "
            "shown in MiB/GiB as nvidia-smi shows it.</p>"
            "<p><b>Licences</b></p><table>%2</table>").replace("%1", __version__).replace(
            "%2", licences)

    @Slot()
    def _on_about_triggered(self) -> None:
        box = QMessageBox(QMessageBox.Icon.NoIcon, self.tr("About GPU Planner"),
                          self.about_text(), QMessageBox.StandardButton.Ok, self)
        box.setObjectName("about_box")
        box.setTextFormat(Qt.TextFormat.RichText)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        box.open()

    # ------------------------------------------------------------------------------------------
    # Closing
    # ------------------------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.maybe_save():
            event.ignore()
            return
        self._closing = True
        self._welcome_timer.stop()
        self._welcome_pending = False
        s = self._settings
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self.saveState())
        s.setValue("window/tab", self.tabs.currentIndex())
        self._save_splitters()
        s.setValue("planner/memory_gib", self.planner.memory_spin.value())
        par = self.document.parallel
        s.setValue("planner/parallel", json.dumps({"gpus": par.gpus, "nodes": par.nodes,
                                                   "strategy": par.strategy}))
        s.sync()
        self._discard_autosave()
        self.shutdown()
        event.accept()

    def shutdown(self) -> None:
        """Stop the monitor's sampler and close its recording (safe to call twice)."""
        if self.monitor is not None:
            self.monitor.shutdown()


def _default_input():
    from planner.core.layers import LayerSpec

    return LayerSpec("input", "input", {"shape": (3, 224, 224)})


def build_main_window(services: Services | None = None) -> MainWindow:
    """The window as the app and the tests make it: preferences (theme, language), the window
    session, assumptions, the catalog, the start plan (an autosave left by a crash, if the
    user restores it, else the start preset)."""
    from planner.core.presets import load_preset
    from planner.settings import load_settings
    from planner.ui.planner.document import PlanDocument
    from planner.ui.settings_dialog import apply_theme, notice_text

    services = services or Services()
    notice = None
    if services.preferences is not None:
        prefs = services.preferences
    else:
        prefs, notice = load_settings(services.preferences_path)
    _apply_currency(prefs)
    app = QApplication.instance()
    if app is not None:
        apply_theme(app, prefs.theme)
        install_translator(app, prefs.language)
    settings = open_settings(services)
    assumptions = _initial_assumptions(services, settings)
    prompts = services.prompts or DialogPrompts(None)
    # The shipped catalog is read once the window has painted (see MainWindow.load_catalog),
    # unless one is injected.
    catalog = services.catalog
    draft = setup = None
    restored = False
    saved_parallel = None
    autosave = paths.autosave_path()
    if autosave.is_file():
        if prompts.restore_autosave(autosave):
            try:
                draft, setup, saved_parallel = load_plan_file(autosave)
            except (PlanFileError, ValueError, OverflowError, RecursionError,
                    MemoryError) as exc:
                draft = setup = None
                _autosave_unreadable(prompts, autosave, exc)
            else:
                restored = True
        else:
            autosave.unlink(missing_ok=True)  # the user said no: theirs to discard
    if draft is None:
        try:
            draft, setup = load_preset(services.start_preset)
        except PlanFileError as exc:
            log.warning("start preset: %s", exc)
            draft, setup = NetworkDraft("untitled", (_default_input(),)), prefs.new_setup()
    parallel = _initial_parallel(settings)
    if restored and saved_parallel:
        try:
            parallel = Parallel(**saved_parallel)  # the autosave's own several-GPU setup
        except (TypeError, ValueError) as exc:
            log.warning("autosave's multi-GPU setup not used: %s", exc)
    document = PlanDocument(draft, setup, assumptions, parallel=parallel)
    if restored:
        document.load(draft, setup, None, modified=True)
    else:
        document.undo_stack.setClean()
    window = MainWindow(services, settings, document, preferences=prefs, catalog=catalog)
    text = notice_text(notice)
    if text:
        window.notify(QApplication.translate("MainWindow", "Preferences"), text)
    return window


# ----------------------------------------------------------------------------------------------
# Entry point
# ----------------------------------------------------------------------------------------------


def _autosave_unreadable(prompts, autosave: Path, exc: BaseException) -> None:
    """An autosave that cannot be restored is never deleted: it is set aside as
    ``autosave.plan.json.corrupt-DATE`` and the user is told where it went."""
    try:
        aside = set_aside(autosave)
    except OSError as move_exc:
        log.warning("autosave %s could not be set aside: %s", autosave, move_exc)
        where = QApplication.translate("MainWindow", "It was left at %1.").replace(
            "%1", str(autosave))
    else:
        where = QApplication.translate("MainWindow", "It was kept as %1.").replace(
            "%1", str(aside))
    prompts.error(QApplication.translate("MainWindow", "Cannot restore"),
                  f"{_exc_text(exc)}\n\n{where}")


def make_excepthook(*, show_dialog: bool = True):
    """An excepthook that appends the traceback to log_dir()/gpu-planner.log and shows a
    message box (never two at once) instead of letting the app vanish."""
    showing = False

    def hook(exc_type, exc, tb):
        nonlocal showing
        text = "".join(traceback.format_exception(exc_type, exc, tb))
        log_path = None
        try:
            log_path = paths.log_dir() / "gpu-planner.log"
            with open(log_path, "a", encoding="utf-8") as fh:
                fh.write(text + "\n")
        except OSError:
            pass
        if sys.__stderr__ is not None:
            sys.__stderr__.write(text)
        if not show_dialog or showing or QApplication.instance() is None:
            return
        showing = True
        try:
            box = QMessageBox(QMessageBox.Icon.Critical,
                              QApplication.translate("MainWindow", "Unexpected error"),
                              QApplication.translate(
                                  "MainWindow", "Something went wrong: %1\n\nThe details were "
                                  "written to %2.").replace("%1", str(exc)).replace(
                                  "%2", str(log_path)))
            box.setDetailedText(text)
            box.exec()
        finally:
            showing = False

    return hook


BINDING_BUG = (
    "PySide6 {version} on Python {python} releases references it does not own (every call of "
    "a void method drops one from None), so the app would crash within seconds. Install "
    "PySide6-Essentials<6.12 or run on Python 3.12 or newer."
)


def binding_drops_references() -> bool:
    """True when the Qt binding decrements None's reference count on void calls (PySide6
    6.12.0 on Python 3.11): a process using it crashes with 'deallocating None'."""
    if sys.version_info >= (3, 12):  # None is immortal there: the bug is harmless
        return False
    from PySide6.QtGui import QImage, QPainter  # noqa: PLC0415

    image = QImage(4, 4, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    before = sys.getrefcount(None)
    for _ in range(64):
        painter.save()
        painter.restore()
    after = sys.getrefcount(None)
    painter.end()
    return after < before - 32


def binding_bug_message() -> str:
    import PySide6  # noqa: PLC0415

    return BINDING_BUG.format(version=PySide6.__version__,
                              python=".".join(map(str, sys.version_info[:3])))


def _make_app(argv: list[str]) -> QApplication:
    app = QApplication.instance()
    if app is None:
        app = QApplication([sys.argv[0] if sys.argv else "gpu-planner", *argv])
    QApplication.setOrganizationName("gpu-planner")
    QApplication.setApplicationName(APP_TITLE)
    QApplication.setDesktopFileName("gpu-planner")
    return app  # type: ignore[return-value]


class _SelfTestPrompts:
    def restore_autosave(self, path: Path) -> bool:
        return False

    def save_changes(self, plan_name: str) -> str:
        return "discard"

    def open_path(self, folder: str) -> str | None:
        return None

    def save_path(self, suggested: str) -> str | None:
        return None

    def error(self, title: str, text: str) -> None:
        raise RuntimeError(f"{title}: {text}")


def _wait_for(app: QApplication, condition, signals, timeout_ms: int) -> bool:
    """Run the event loop until ``condition()`` holds (checked when one of ``signals`` fires)
    or ``timeout_ms`` passes."""
    if condition():
        return True
    loop = QEventLoop()
    timer = QTimer()
    timer.setSingleShot(True)
    timer.timeout.connect(loop.quit)
    for signal in signals:
        signal.connect(loop.quit)
    timer.start(timeout_ms)
    while not condition() and timer.isActive():
        loop.exec()
    timer.stop()
    for signal in signals:
        signal.disconnect(loop.quit)
    return condition()


def self_test(argv: list[str]) -> int:
    """Build the window offscreen in a throw-away PLANNER_HOME, render every pane (and every
    view of the Planner pane), run one estimate and take one monitor sample (NVML, or the
    simulated source when there is no driver)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    home = tempfile.mkdtemp(prefix="gpu-planner-self-test-")
    old_home = os.environ.get("PLANNER_HOME")
    os.environ["PLANNER_HOME"] = home
    window = None
    try:
        app = _make_app(argv)
        if binding_drops_references():
            raise RuntimeError(binding_bug_message())
        from planner.settings import Settings

        window = build_main_window(Services(prompts=_SelfTestPrompts(), record_telemetry=False,
                                            preferences=Settings(first_run_done=True),
                                            demo="--demo" in argv))
        window.resize(1400, 900)
        window.show()
        app.processEvents()
        monitor = window.ensure_monitor()
        if not monitor.bridge.is_running():
            monitor.start()
        _wait_for(app, lambda: monitor.frames_received > 0 or monitor.source == "unavailable",
                  (monitor.devices_changed, monitor.source_changed), 8000)
        if monitor.source == "unavailable":
            monitor.switch_to_demo()
            _wait_for(app, lambda: monitor.frames_received > 0,
                      (monitor.devices_changed,), 8000)
        if monitor.frames_received == 0:
            raise RuntimeError("the monitor took no sample")
        rendered = 0
        for i in range(window.tabs.count()):
            window.tabs.setCurrentIndex(i)
            app.processEvents()
            pane = window.pane_at(i)
            if pane is None or window.tabs.widget(i).grab().isNull():
                raise RuntimeError(f"pane {window.tabs.tabText(i)!r} did not render")
            rendered += 1
        est = window.document.estimate
        if est is None:
            raise RuntimeError(f"no estimate: {window.document.failure}")
        pane = window.planner
        window.tabs.setCurrentIndex(0)
        for i in range(pane.tabs.count()):
            pane.tabs.setCurrentIndex(i)
            app.processEvents()
            if pane.tabs.widget(i).grab().isNull():
                raise RuntimeError(f"view {pane.tabs.tabText(i)!r} did not render")
        source = monitor.source
        cards = len(monitor.devices)
        window.close()
        window.deleteLater()
        app.processEvents()
        from planner.units import format_bytes

        print(f"GPU Planner self-test OK: {rendered} pane(s) rendered, "
              f"{window.document.draft.name} peak {format_bytes(est.peak)}, "
              f"monitor: {cards} card(s) ({source})")
        return 0
    except Exception as exc:  # noqa: BLE001 - the self-test reports whatever failed
        print(f"GPU Planner self-test FAILED: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    finally:
        if window is not None:
            try:
                window.shutdown()
            except RuntimeError:
                pass
        if old_home is None:
            os.environ.pop("PLANNER_HOME", None)
        else:
            os.environ["PLANNER_HOME"] = old_home
        shutil.rmtree(home, ignore_errors=True)


def run_gui(argv: list[str]) -> int:
    """The GUI entry point (planner.app calls it). ``--demo``: the monitor shows the simulated
    source."""
    argv = list(argv)
    if "--self-test" in argv:
        return self_test([a for a in argv if a != "--self-test"])
    demo = "--demo" in argv
    argv = [a for a in argv if a != "--demo"]
    app = _make_app(argv)
    offscreen = os.environ.get("QT_QPA_PLATFORM") == "offscreen"
    if binding_drops_references():
        message = binding_bug_message()
        print(f"gpu-planner: {message}", file=sys.stderr)
        if not offscreen:
            QMessageBox.critical(None, APP_TITLE, message)
        return 1
    sys.excepthook = make_excepthook(show_dialog=not offscreen)
    window = build_main_window(Services(demo=demo))
    window.show()
    return app.exec()
