"""The main window: it composes the four panes and wires them together.

It holds the panes in tabs (Ctrl+1…4): Planner (built at once; its plots after the first
picture), Monitor (built in steps right after the window is first shown, so that the cards are
detected at start-up), Catalog and Advisor (built when first shown). The first picture needs no
pyqtgraph: after it, one step per turn of the event loop imports it (``planner.ui.plotlib``),
builds the Planner's result view, reads the catalog and builds the Monitor
(``_on_first_shown``). Its parts live elsewhere: the plan's files and autosave in
``planner.ui.plan_files``, what it remembers between starts in ``planner.ui.session``, start-up
and ``build_main_window`` in ``planner.ui.bootstrap``, ``--self-test`` in
``planner.ui.selftest``, the message boxes in ``planner.ui.prompts``. The wiring:

* the plan document's changes → the Planner pane's fit view and scaling view, the Monitor's
  predicted-peak line (the per-GPU peak on several GPUs), the Advisor's plan;
* the Catalog pane's ``catalog_changed`` → the fit view, the scaling view and the Advisor;
* the Monitor's detected cards (matched to the catalog; simulated cards only with ``--demo``)
  → the Advisor's owned cards and the fit view's highlighted rows;
* Preferences (Edit ▸ Preferences…) → theme, units, monitor interval / alerts / retention,
  new-plan defaults, language (a zh_CN translation is installed when its .qm ships).
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QEvent, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from planner.core.memory import Assumptions
from planner.ui.bootstrap import APP_TITLE, apply_currency, build_main_window, install_translator
from planner.ui.i18n import arg, tr_core
from planner.ui.plan_files import PlanFiles
from planner.ui.prompts import DialogPrompts
from planner.ui.services import Prompts, Services
from planner.ui.session import WindowSession

__all__ = ["APP_TITLE", "PANES", "MainWindow", "build_main_window"]

PANES = ("planner", "monitor", "catalog", "advisor")
# What the Monitor pane imports, leaves first, imported one a turn after the first picture
MONITOR_MODULES = (
    "planner.telemetry.types", "planner.telemetry.history", "planner.telemetry.compare",
    "sqlite3", "csv", "planner.telemetry.recorder", "planner.telemetry.simulated",
    "planner.telemetry.watch", "planner.telemetry.nvml", "planner.ui.monitor.cluster",
    "planner.ui.monitor.models", "planner.ui.monitor.plots", "planner.ui.monitor.tables",
    "planner.ui.monitor.recordings", "planner.ui.monitor.plot_export",
    "planner.ui.monitor.replay_view", "planner.ui.monitor.sections", "planner.ui.monitor.pane",
)
log = logging.getLogger("planner.ui")

LICENCES = (
    ("GPU Planner", "MIT"),
    ("Qt / PySide6", "LGPLv3"),
    ("pyqtgraph", "MIT"),
    ("numpy", "BSD"),
    ("nvidia-ml-py", "BSD"),
    ("platformdirs", "MIT"),
    ("onnx", "Apache-2.0"),
)


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


DEFAULT_SIZE = (1400, 900)


def default_size(screen) -> tuple[int, int]:
    """The window's size when none was saved: 1400×900, or less on a smaller screen (95 % of
    its free area, so a 1366×768 laptop shows the whole window without a window manager's
    help)."""
    w, h = DEFAULT_SIZE
    if screen is None:
        return w, h
    free = screen.availableGeometry()
    return min(w, int(free.width() * 0.95)), min(h, int(free.height() * 0.95))


class MainWindow(QMainWindow):
    """The four panes in tabs, the menus, the status bar and the preferences; the plan's files
    are ``self.files`` (``planner.ui.plan_files.PlanFiles``), what the window remembers between
    starts is ``self.session`` (``planner.ui.session.WindowSession``)."""

    welcome_shown = Signal(str)  # the first-run welcome's text
    preferences_applied = Signal(object)  # the Settings now in force

    def __init__(self, services: Services, session: WindowSession, document,
                 parent: QWidget | None = None, *, preferences=None, catalog=None):
        from planner.settings import Settings

        super().__init__(parent)
        self.setObjectName("main_window")
        self._services = services
        self.session = session
        # the questions the window asks (message boxes and file dialogs, or a test's)
        self.prompts: Prompts = services.prompts or DialogPrompts(self)
        self.prefs = preferences if preferences is not None else Settings()
        self.catalog = catalog
        self._catalog_failed = False
        self.detected_cards: tuple[str, ...] = ()  # catalog names (or NVML names) of this PC
        self.monitor_source: str | None = None
        self._welcome_pending = False
        self._shown_once = False
        self._after_paint: list = []  # what waits for the first picture (_on_first_shown)
        # one step a turn of the event loop: a timer, not a queued call (queued calls all run
        # before the loop looks at input and timers again)
        self._step_timer = QTimer(self)
        self._step_timer.setSingleShot(True)
        self._step_timer.timeout.connect(self._next_after_paint)
        self._monitor_start_later = False  # _build_monitor leaves the start to the next step
        self._monitor_unstarted = False  # built by that step, not started yet
        self._advisor_line = ""  # the advisor's line the status bar shows, if any
        self._monitor_line = ""  # the Monitor's last status line
        self._closing = False
        self.document = document
        document.setParent(self)
        self.files = PlanFiles(self, document, session, self.prompts, lambda: self.prefs,
                               autosave_delay_ms=services.autosave_delay_ms)
        self.files.message.connect(self._show_message)
        self.files.recent_changed.connect(self._rebuild_recent_menu)
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("panes")
        self.tabs.setDocumentMode(True)
        self._memory_gib = session.memory_gib()
        self.planner = self._make_planner_pane(defer_views=True)  # its plots after the paint
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
        geometry = session.geometry()
        if geometry is None or not self.restoreGeometry(geometry):
            self.resize(*default_size(QApplication.primaryScreen()))
        state = session.window_state()
        if state is not None:
            self.restoreState(state)
        self._restore_splitters("planner", self.planner)
        tab = session.tab()
        if 0 < tab < self.tabs.count():
            self.tabs.setCurrentIndex(tab)
        result_tab = session.result_tab()  # and the Planner's own result tab
        if 0 < result_tab < self.planner.tabs.count():
            self.planner.tabs.setCurrentIndex(result_tab)

    # ------------------------------------------------------------------------------------------
    # The panes
    # ------------------------------------------------------------------------------------------
    def _make_planner_pane(self, *, defer_views: bool = False):
        from planner.settings import byte_formatter
        from planner.ui.planner.pane import PlannerPane

        pane = PlannerPane(self.document, self.tabs, memory_gib=self._memory_gib,
                           catalog=self.catalog, defer_views=defer_views)
        if self.prefs.units != "binary":
            pane.set_byte_formatter(byte_formatter(self.prefs))
        pane.status_changed.connect(self._on_status_changed)
        pane.message.connect(self._on_pane_message)
        pane.assumptions_changed.connect(self._on_assumptions_changed)
        pane.card_activated.connect(self._on_card_activated)
        self._wire_exports(pane.exporter)
        pane.view_built.connect(self._restore_splitters)  # the fit view's, when it is built
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
        self._memory_gib = self.planner.memory_gib()
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
        self.planner.exporter.export_view_action.setEnabled(current == 0)
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
                           cluster_settings=self.session.cluster())
        pane.cluster_settings_changed.connect(self._on_cluster_settings_changed)
        pane.status_message.connect(self._on_monitor_message)
        pane.comparison_ready.connect(self._on_pane_message)
        pane.devices_changed.connect(self._on_devices_changed)
        pane.source_changed.connect(self._on_source_changed)
        pane.retention_changed.connect(self._on_retention_changed)
        self._restore_splitters("monitor", pane)
        if not self._monitor_start_later:
            self._start_built_monitor(pane)
        return pane

    def _start_built_monitor(self, pane) -> None:
        self._update_predicted_peak(pane)
        if not self._closing:
            pane.start()

    def _peak_bandwidth_of(self, name: str) -> float | None:
        """A card's datasheet bandwidth from the catalog, for cluster cards (dcgm-exporter
        reports no bus width or memory clock). Called from the sampling thread: it only reads
        the immutable catalog."""
        catalog = self.catalog
        card = catalog.match_nvml_name(name) if catalog is not None else None
        return card.bandwidth_gbs if card is not None else None

    @Slot(object)
    def _on_cluster_settings_changed(self, settings: dict) -> None:
        self.session.set_cluster(settings)

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
            pane.set_electricity(self.prefs.electricity_usd_per_kwh)
        self._push_plan_to_advisor(pane)
        if self.detected_cards:
            pane.set_detected_cards(list(self.detected_cards),
                                    getattr(self, "detected_simulated", False))
        self._restore_splitters("advisor", pane)
        return pane

    def _push_plan_to_advisor(self, advisor) -> None:
        advisor.set_plan(self.document.result)

    def _update_predicted_peak(self, monitor=None) -> None:
        monitor = monitor or self.monitor
        if monitor is None:
            return
        doc = self.document
        peak = doc.peak_per_gpu
        label = arg(self.tr("%1, batch %2"), doc.draft.name, str(doc.setup.batch_size))
        if doc.parallel.world > 1:
            label += arg(self.tr(" (per GPU of %1)"), str(doc.parallel.world))
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
        """The advisor's line is the advice its pane shows now: shown while the Advisor is in
        front; an older one still on the status bar is taken away when the advice changes
        behind another pane (and the current one shown when the Advisor comes back)."""
        if self.tabs.currentWidget() is self._advisor_page:
            self._on_pane_message(text)
            self._advisor_line = text
        elif self._advisor_line and self.statusBar().currentMessage() == self._advisor_line:
            self.statusBar().clearMessage()
            self._advisor_line = ""

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
        page = self.pane_at(index)
        if page is not None and page is self.advisor and not page.pending:
            self._on_advisor_status(page.status_line)  # the advice shown, not an older one
        # Ctrl+E exports the Planner's view shown: only while the Planner is the pane in front
        self.planner.exporter.export_view_action.setEnabled(index == 0)

    # ------------------------------------------------------------------------------------------
    # Window layout
    # ------------------------------------------------------------------------------------------
    def _restore_splitters(self, key: str, root: QWidget) -> None:
        for i, splitter in enumerate(root.findChildren(QSplitter)):
            state = self.session.splitter(key, i)
            if state is not None:
                splitter.restoreState(state)

    def _save_splitters(self) -> None:
        roots = {"planner": self.planner, "monitor": self.monitor,
                 "catalog": self.catalog_pane, "advisor": self.advisor,
                 "fit": self.planner.fit_view}
        for key, root in roots.items():
            if root is None:
                continue
            for i, splitter in enumerate(root.findChildren(QSplitter)):
                self.session.set_splitter(key, i, splitter.saveState())

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
        self.planner.refresh_prices()
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
        """What waits for the first picture, one step per turn of the event loop (a click
        between two steps is answered between them): the Presets menu, pyqtgraph
        (``planner.ui.plotlib``), the Planner's result view (its per-layer chart), the
        catalog, the Monitor (it detects the cards), the first-run welcome."""
        from planner.ui import plotlib

        self._after_paint = [self._fill_presets_menu, *plotlib.import_steps(),
                             self._plots_imported, lambda: self.planner.prepare_start(),
                             lambda: self.planner.finish_start(),
                             plotlib.import_step("planner.core.prices"),
                             plotlib.import_step("planner.core.catalog"), self.load_catalog,
                             *self._monitor_steps(), self._start_monitor]
        self._next_after_paint()

    def _monitor_steps(self) -> list:
        """Building the Monitor in steps: its modules one by one, its plots in five parts
        (``planner.ui.monitor.plots.make_ahead``), the pane; ``_start_monitor`` starts it (its
        sampler detects the cards)."""
        if self.monitor is not None:
            return []
        from planner.ui import plotlib

        steps = [plotlib.import_step(name) for name in MONITOR_MODULES]

        def plots_part() -> None:
            from planner.ui.monitor.plots import make_ahead

            if self.monitor is None:  # not built meanwhile (the user opened it)
                make_ahead()
        return steps + [plots_part] * 5 + [self._build_monitor_later]

    @staticmethod
    def _plots_imported() -> bool:
        """False while pyqtgraph's import thread is at it (the step is tried again)."""
        from planner.ui import plotlib

        return not plotlib.importing()

    @Slot()
    def _next_after_paint(self) -> None:
        if self._closing or not self._after_paint:
            return
        if self._after_paint[0]() is False:  # not yet: again in a while
            self._step_timer.start(10)
            return
        self._after_paint.pop(0)
        if self._after_paint:
            self._step_timer.start(0)

    def _build_monitor_later(self) -> None:
        """Build the Monitor pane; the next step starts it (``_start_monitor``)."""
        if self.monitor is None:
            self._monitor_start_later = True
            try:
                self.ensure_monitor()
            finally:
                self._monitor_start_later = False
            self._monitor_unstarted = True

    def _start_monitor(self) -> None:
        if self._monitor_unstarted and self.monitor is not None:
            self._monitor_unstarted = False
            self._start_built_monitor(self.monitor)
        self.ensure_monitor()
        if not self.prefs.first_run_done and self._can_welcome():
            self._welcome_pending = True
            self._welcome_timer.start()

    # ------------------------------------------------------------------------------------------
    # First run
    # ------------------------------------------------------------------------------------------
    def _can_welcome(self) -> bool:
        return callable(getattr(self.prompts, "welcome", None))

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
        welcome = getattr(self.prompts, "welcome", None)
        if callable(welcome):
            welcome(text)
        self.welcome_shown.emit(text)
        if not self.prefs.first_run_done:
            self._store_preferences(self.prefs.replace(first_run_done=True))

    # ------------------------------------------------------------------------------------------
    # Menus: declared below as (attribute, text, slot, shortcuts, tip) rows; "-" is a separator,
    # a QAction or QMenu (the Planner pane's editing actions) is added as it is.
    # ------------------------------------------------------------------------------------------
    def _action(self, text: str, slot, shortcuts=(), tip: str = "") -> QAction:
        action = QAction(text, self)
        keys: list[QKeySequence] = []
        for shortcut in shortcuts:
            key = QKeySequence(shortcut)
            if not key.isEmpty() and key not in keys:
                keys.append(key)
        if keys:
            action.setShortcuts(keys)
        if tip:
            action.setToolTip(tip)
            action.setStatusTip(tip)
        action.triggered.connect(slot)
        return action

    def _menu_rows(self):
        SK = QKeySequence.StandardKey
        pane = self.planner
        files = self.files
        return (
            (self.tr("&File"), (
                ("new_action", self.tr("&New"), self._on_new_triggered, (SK.New,), ""),
                ("open_action", self.tr("&Open…"), self._on_open_triggered, (SK.Open,),
                 self.tr("Open a plan (.json) or an ONNX model (.onnx)")),
                ("open_folder_action", self.tr("Open &Model Folder…"),
                 self._on_open_folder_triggered, (),
                 self.tr("Open a Hugging Face model folder (config.json, safetensors headers; "
                         "no weights)")),
                ("onnx_inputs_action", self.tr("ONNX &Input Shapes…"),
                 self._on_onnx_inputs_triggered, (),
                 self.tr("Set the per-sample shape of each input of the imported ONNX model "
                         "(sequence lengths, image sizes) and import it again")),
                "recent",
                "-",
                ("save_action", self.tr("&Save"), files.save, (SK.Save,), ""),
                ("save_as_action", self.tr("Save &As…"), files.save_as, (SK.SaveAs,), ""),
                "-",
                pane.exporter.menu,  # planner/ui/exporting.py
                "-",
                ("quit_action", self.tr("&Quit"), self.close, (SK.Quit,), ""),
            )),
            (self.tr("&Edit"), (
                "undo", "redo", "-",
                pane.add_action, pane.add_menu, pane.insert_menu, pane.duplicate_action,
                pane.remove_action, "-", pane.up_action, pane.down_action, "-",
                pane.repeat_action, pane.copies_action, pane.unrepeat_action, "-",
                pane.assumptions_action, "-",
                ("preferences_action", self.tr("&Preferences…"), self._on_preferences_triggered,
                 (SK.Preferences, "Ctrl+,"), ""),
            )),
            (self.tr("&View"), tuple(
                (None, title, self._on_pane_action_triggered, (f"Ctrl+{i + 1}",), "")
                for i, title in enumerate((self.tr("&Planner"), self.tr("&Monitor"),
                                           self.tr("&Catalog"), self.tr("&Advisor"))))),
            (self.tr("P&resets"), ("presets",)),
            (self.tr("&Help"), (
                ("guide_action", self.tr("&User Guide"), self.show_guide, (SK.HelpContents,),
                 self.tr("What each pane does, how the estimate and the speed are computed, "
                         "how sure they are, where your files live")),
                ("welcome_action", self.tr("&Welcome…"), self._on_welcome_triggered, (), ""),
                ("about_action", self.tr("&About GPU Planner"), self._on_about_triggered, (),
                 ""),
            )),
        )

    def _build_menus(self) -> None:
        bar = self.menuBar()
        stack = self.document.undo_stack
        self.pane_actions: list[QAction] = []
        for title, rows in self._menu_rows():
            menu = bar.addMenu(title)
            for row in rows:
                if row == "-":
                    menu.addSeparator()
                elif row == "recent":
                    self.recent_menu = menu.addMenu(self.tr("Open &Recent"))
                    self.recent_menu.aboutToShow.connect(self._rebuild_recent_menu)
                elif row == "undo":
                    self.undo_action = stack.createUndoAction(self, self.tr("&Undo"))
                    self.undo_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Undo))
                    menu.addAction(self.undo_action)
                elif row == "redo":
                    self.redo_action = stack.createRedoAction(self, self.tr("&Redo"))
                    self.redo_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Redo))
                    menu.addAction(self.redo_action)
                elif row == "presets":
                    # filled after the first paint (it reads every preset file), or when
                    # opened first, whichever comes first
                    self.presets_menu = menu
                    self._preset_actions = None
                    menu.aboutToShow.connect(self._fill_presets_menu)
                    if self._shown_once:
                        self._fill_presets_menu()
                elif isinstance(row, QMenu):
                    menu.addMenu(row)
                elif isinstance(row, QAction):
                    menu.addAction(row)
                else:
                    attr, text, slot, shortcuts, tip = row
                    action = self._action(text, slot, shortcuts, tip)
                    menu.addAction(action)
                    if attr is None:
                        action.setData(len(self.pane_actions))
                        self.pane_actions.append(action)
                    else:
                        setattr(self, attr, action)
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        self.preferences_action.setMenuRole(QAction.MenuRole.PreferencesRole)
        self.about_action.setMenuRole(QAction.MenuRole.AboutRole)
        self._rebuild_recent_menu()

    @property
    def preset_actions(self) -> dict[str, QAction]:
        """The Presets menu's actions by preset name (the menu is filled on first need)."""
        self._fill_presets_menu()
        assert self._preset_actions is not None
        return self._preset_actions

    @Slot()
    def _fill_presets_menu(self) -> None:
        if self._preset_actions is not None:
            return
        from planner.core.presets import list_presets

        menu = self.presets_menu
        self._preset_actions = {}
        for info in list_presets():
            action = menu.addAction(tr_core(info.title))
            action.setData(info.name)
            action.setToolTip(tr_core(info.description))
            action.setStatusTip(tr_core(info.description))
            action.triggered.connect(self._on_preset_triggered)
            self._preset_actions[info.name] = action
        menu.setToolTipsVisible(True)

    # ------------------------------------------------------------------------------------------
    # Title, status
    # ------------------------------------------------------------------------------------------
    def plan_title(self) -> str:
        return self.files.plan_title()

    @Slot()
    def _update_title(self) -> None:
        self.setWindowTitle(arg(self.tr("%1[*] — GPU Planner"), self.plan_title()))
        self.setWindowModified(self.document.modified)

    @Slot(bool)
    def _on_clean_changed(self, _clean: bool) -> None:
        self._update_title()

    @Slot(int)
    def _on_history_changed(self, _index: int) -> None:
        self.files.schedule_autosave()
        self._update_title()

    @Slot(str)
    def _on_status_changed(self, text: str) -> None:
        self._peak_label.setText(text)

    @Slot(str)
    def _on_monitor_message(self, text: str) -> None:
        """The Monitor's status line; an empty one takes away only the Monitor's own message
        (not, say, "Opening … cancelled", when the Monitor finds no driver at start-up)."""
        if text:
            self._monitor_line = text
            self._on_pane_message(text)
        elif self._monitor_line and self.statusBar().currentMessage() == self._monitor_line:
            self.statusBar().clearMessage()
            self._monitor_line = ""

    @Slot(str)
    def _on_pane_message(self, text: str) -> None:
        self.statusBar().showMessage(text, 8000)

    @Slot(str, int)
    def _show_message(self, text: str, ms: int) -> None:
        self.statusBar().showMessage(text, ms)

    @Slot(object)
    def _on_assumptions_changed(self, assumptions: Assumptions) -> None:
        self.session.set_assumptions(assumptions)

    def notify(self, title: str, text: str) -> None:
        """A notice that does not block: the status bar, and the prompts' non-modal box."""
        self.statusBar().showMessage(text.split("\n", 1)[0], 15000)
        notify = getattr(self.prompts, "notify", None)
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
            apply_currency(new)
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
            self.advisor.set_electricity(new.electricity_usd_per_kwh)
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

    def _wire_exports(self, exporter) -> None:
        """The Planner's exports start in the last folder and say what limits the figures:
        an ONNX import that did not cover the model, cards from the simulated source."""
        def imported():
            r = self.files.import_result
            return r if r is not None and r.draft.name == self.document.draft.name else None

        def notes():
            out, r = [], imported()
            if r is not None and r.incomplete:
                out.append(self.tr("INCOMPLETE IMPORT: the plan does not cover the whole model; "
                                   "memory and speed figures are too low"))
            elif r is not None and r.warnings:
                out.append(self.tr("Imported with %n approximation(s) (see the import "
                                   "warnings)", "", len(r.warnings)))
            if self.detected_cards and getattr(self, "detected_simulated", False):
                out.append(self.tr("Your cards (★) come from the SIMULATED source, not a real "
                                   "GPU"))
            return out

        exporter.notes = notes
        exporter.incomplete = lambda: bool(imported() is not None and imported().incomplete)
        exporter.last_folder = self.files.last_folder
        exporter.remember_folder = self.files.remember_folder

    # ------------------------------------------------------------------------------------------
    # File menu
    # ------------------------------------------------------------------------------------------
    @Slot()
    def _rebuild_recent_menu(self) -> None:
        self.recent_menu.clear()
        files = self.files.recent_files()
        for i, f in enumerate(files):
            action = self.recent_menu.addAction(f"&{(i + 1) % 10} {Path(f).name}")
            action.setData(f)
            action.setToolTip(f)
            action.setStatusTip(f)
            action.triggered.connect(self._on_recent_triggered)
        if files:
            self.recent_menu.addSeparator()
            clear = self.recent_menu.addAction(self.tr("&Clear List"))
            clear.triggered.connect(self.files.clear_recent)
        self.recent_menu.setEnabled(bool(files))

    @Slot()
    def _on_new_triggered(self) -> None:
        self.files.new_plan()

    @Slot()
    def _on_open_triggered(self) -> None:
        self.files.ask_and_open()

    @Slot()
    def _on_open_folder_triggered(self) -> None:
        if self.files.maybe_save():
            from planner.ui.model_folder import choose_and_open

            choose_and_open(self)

    @Slot()
    def _on_onnx_inputs_triggered(self) -> None:
        from planner.ui.onnx_inputs import edit_input_shapes

        edit_input_shapes(self)

    @Slot()
    def _on_recent_triggered(self) -> None:
        path = self.sender().data()
        if path and self.files.maybe_save():
            self.files.open_in_background(path)  # as File ▸ Open: never on the GUI thread

    @Slot()
    def _on_preset_triggered(self) -> None:
        name = self.sender().data()
        if name and self.files.maybe_save():
            self.files.load_preset(name)

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
        return arg(self.tr(
            "<b>GPU Planner</b> %1<p>Plan the memory a network needs to train on an NVIDIA GPU, "
            "layer by layer; see how it fits and runs on every card, what to buy or sell, and "
            "what your cards do live.</p>"
            "<p>Its reasoning follows Tim Dettmers' article “Which GPU(s) to Get for Deep "
            "Learning” (2016 and 2017 revisions, read in its Chinese translation). Memory is "
            "shown in MiB/GiB as nvidia-smi shows it.</p>"
            "<p><b>Licences</b></p><table>%2</table>"), __version__, licences)

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
        if not self.files.maybe_save():
            event.ignore()
            return
        self._closing = True
        self._welcome_timer.stop()
        self._welcome_pending = False
        session = self.session
        session.save_window(self.saveGeometry(), self.saveState(), self.tabs.currentIndex(),
                            self.planner.tabs.currentIndex())
        self._save_splitters()
        session.set_memory_gib(self.planner.memory_gib())
        session.set_parallel(self.document.parallel)
        session.sync()
        self.files.discard_autosave()
        self.shutdown()
        event.accept()

    def shutdown(self) -> None:
        """Stop the monitor's sampler and close its recording, and an open in progress (its
        import process is terminated); safe to call twice."""
        self.files.cancel_open()
        if self.monitor is not None:
            self.monitor.shutdown()
