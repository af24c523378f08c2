"""The main window, its factory, and the GUI entry point.

``build_main_window(services)`` is the one way a window is made (the app and the tests use it):
it reads the settings, offers to restore an autosave left by a crash, and opens the start preset.
``run_gui(argv)`` sets up the QApplication (names, excepthook) and runs it; ``--self-test``
builds the window offscreen with a throw-away PLANNER_HOME, renders every pane, runs one
estimate and exits 0 (the smoke test of a frozen build).
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

from PySide6.QtCore import QSettings, QTimer, Signal, Slot
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QTabWidget,
    QWidget,
)

from planner import paths
from planner.core.memory import Assumptions
from planner.core.network import NetworkDraft, PlanFileError, Setup, load_plan, save_plan
from planner.ui.services import Prompts, Services

APP_TITLE = "GPU Planner"
MAX_RECENT = 10
log = logging.getLogger("planner.ui")


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
        path, _ = QFileDialog.getOpenFileName(self.parent, self._tr("Open plan"), folder,
                                              self._tr("Plan files (*.json);;All files (*)"))
        return path or None

    def save_path(self, suggested: str) -> str | None:
        path, _ = QFileDialog.getSaveFileName(self.parent, self._tr("Save plan"), suggested,
                                              self._tr("Plan files (*.json)"))
        if path and not path.lower().endswith(".json"):
            path += ".json"
        return path or None

    def error(self, title: str, text: str) -> None:
        QMessageBox.warning(self.parent, title, text)


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


class MainWindow(QMainWindow):
    """Menus, the pane stack, the status bar, files (open/save/recent), autosave."""

    autosaved = Signal(str)  # path of the autosave just written
    file_saved = Signal(str)

    def __init__(self, services: Services, settings: QSettings, document,
                 parent: QWidget | None = None):
        from planner.ui.planner.pane import PlannerPane

        super().__init__(parent)
        self.setObjectName("main_window")
        self._services = services
        self._settings = settings
        self._prompts: Prompts = services.prompts or DialogPrompts(self)
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
        self.planner = PlannerPane(document, self.tabs, memory_gib=memory)
        self.tabs.addTab(self.planner, self.tr("Planner"))
        self.setCentralWidget(self.tabs)
        self._peak_label = QLabel(self)
        self.statusBar().addPermanentWidget(self._peak_label)
        self._autosave_timer = QTimer(self)
        self._autosave_timer.setSingleShot(True)
        self._autosave_timer.setInterval(services.autosave_delay_ms)
        self._autosave_timer.timeout.connect(self._on_autosave_timeout)
        self._build_menus()
        self.planner.status_changed.connect(self._on_status_changed)
        self.planner.message.connect(self._on_pane_message)
        self.planner.assumptions_changed.connect(self._on_assumptions_changed)
        document.undo_stack.cleanChanged.connect(self._on_clean_changed)
        document.undo_stack.indexChanged.connect(self._on_history_changed)
        document.path_changed.connect(self._update_title)
        self._on_status_changed(self.planner.summary())
        self._update_title()
        geometry = settings.value("window/geometry")
        if geometry is None or not self.restoreGeometry(geometry):
            self.resize(1400, 900)
        state = settings.value("window/state")
        if state is not None:
            self.restoreState(state)

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
        self.recent_menu = file_menu.addMenu(self.tr("Open &Recent"))
        self.recent_menu.aboutToShow.connect(self._on_recent_about_to_show)
        self.save_action = self._action(self.tr("&Save"), self._on_save_triggered, SK.Save)
        self.save_as_action = self._action(self.tr("Save &As…"), self._on_save_as_triggered,
                                           SK.SaveAs)
        self.quit_action = self._action(self.tr("&Quit"), self.close, SK.Quit)
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        file_menu.insertAction(self.recent_menu.menuAction(), self.new_action)
        file_menu.insertAction(self.recent_menu.menuAction(), self.open_action)
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

        self.presets_menu = bar.addMenu(self.tr("&Presets"))
        from planner.core.presets import list_presets

        self.preset_actions: dict[str, QAction] = {}
        for info in list_presets():
            action = self.presets_menu.addAction(info.title)
            action.setData(info.name)
            action.setToolTip(info.description)
            action.setStatusTip(info.description)
            action.triggered.connect(self._on_preset_triggered)
            self.preset_actions[info.name] = action
        self.presets_menu.setToolTipsVisible(True)

        help_menu = bar.addMenu(self.tr("&Help"))
        about = self._action(self.tr("&About GPU Planner"), self._on_about_triggered)
        about.setMenuRole(QAction.MenuRole.AboutRole)
        help_menu.addAction(about)

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

    def open_file(self, path: str | os.PathLike) -> bool:
        """Open a plan file; a bad file shows its problem and leaves the current plan as is."""
        try:
            draft, setup = load_plan(path)
        except PlanFileError as exc:
            self._prompts.error(self.tr("Cannot open plan"), str(exc))
            return False
        self.document.load(draft, setup, Path(path))
        self._add_recent(Path(path))
        self.statusBar().showMessage(self.tr("Opened %1").replace("%1", str(path)), 5000)
        return True

    def save(self) -> bool:
        if self.document.path is None:
            return self.save_as()
        return self.save_to(self.document.path)

    def save_as(self) -> bool:
        folder = str(self.document.path.parent) if self.document.path else str(Path.home())
        suggested = str(Path(folder) / (self._file_stem() + ".json"))
        path = self._prompts.save_path(suggested)
        return bool(path) and self.save_to(Path(path))

    def save_to(self, path: Path) -> bool:
        doc = self.document
        try:
            save_plan(path, doc.draft, doc.setup)
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
            self._prompts.error(self.tr("Cannot load preset"), str(exc))
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
            save_plan(path, self.document.draft, self.document.setup)
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
            self.document.load(draft, Setup(), None)

    @Slot()
    def _on_open_triggered(self) -> None:
        if not self.maybe_save():
            return
        folder = str(self.document.path.parent) if self.document.path else str(Path.home())
        path = self._prompts.open_path(folder)
        if path:
            self.open_file(path)

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
    def _on_about_triggered(self) -> None:
        from planner import __version__

        QMessageBox.about(self, self.tr("About GPU Planner"), self.tr(
            "<b>GPU Planner</b> %1<p>Plan the memory a network needs to train on an NVIDIA GPU, "
            "layer by layer, following the reasoning of “Which GPU for deep learning”.</p>"
            "<p>Memory in MiB/GiB as nvidia-smi shows it.</p>").replace("%1", __version__))

    # ------------------------------------------------------------------------------------------
    # Closing
    # ------------------------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.maybe_save():
            event.ignore()
            return
        self._settings.setValue("window/geometry", self.saveGeometry())
        self._settings.setValue("window/state", self.saveState())
        self._settings.setValue("planner/memory_gib", self.planner.memory_spin.value())
        self._settings.sync()
        self._discard_autosave()
        event.accept()


def _default_input():
    from planner.core.layers import LayerSpec

    return LayerSpec("input", "input", {"shape": (3, 224, 224)})


def build_main_window(services: Services | None = None) -> MainWindow:
    """The window as the app and the tests make it: settings, assumptions, the start plan
    (an autosave left by a crash, if the user restores it, else the start preset)."""
    from planner.core.presets import load_preset
    from planner.ui.planner.document import PlanDocument

    services = services or Services()
    settings = open_settings(services)
    assumptions = _initial_assumptions(services, settings)
    prompts = services.prompts or DialogPrompts(None)
    draft = setup = None
    restored = False
    autosave = paths.autosave_path()
    if autosave.is_file():
        if prompts.restore_autosave(autosave):
            try:
                draft, setup = load_plan(autosave)
                restored = True
            except PlanFileError as exc:
                prompts.error(QApplication.translate("MainWindow", "Cannot restore"), str(exc))
        if not restored:
            autosave.unlink(missing_ok=True)
    if draft is None:
        try:
            draft, setup = load_preset(services.start_preset)
        except PlanFileError as exc:
            log.warning("start preset: %s", exc)
            draft, setup = NetworkDraft("untitled", (_default_input(),)), Setup()
    document = PlanDocument(draft, setup, assumptions)
    if restored:
        document.load(draft, setup, None, modified=True)
    else:
        document.undo_stack.setClean()
    return MainWindow(services, settings, document)


# ----------------------------------------------------------------------------------------------
# Entry point
# ----------------------------------------------------------------------------------------------


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


def self_test(argv: list[str]) -> int:
    """Build the window offscreen in a throw-away PLANNER_HOME, render every pane, estimate."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    home = tempfile.mkdtemp(prefix="gpu-planner-self-test-")
    old_home = os.environ.get("PLANNER_HOME")
    os.environ["PLANNER_HOME"] = home
    try:
        app = _make_app(argv)
        if binding_drops_references():
            raise RuntimeError(binding_bug_message())
        window = build_main_window(Services(prompts=_SelfTestPrompts()))
        window.resize(1400, 900)
        window.show()
        app.processEvents()
        rendered = 0
        for i in range(window.tabs.count()):
            window.tabs.setCurrentIndex(i)
            app.processEvents()
            if window.tabs.widget(i).grab().isNull():
                raise RuntimeError(f"pane {window.tabs.tabText(i)!r} did not render")
            rendered += 1
        est = window.document.estimate
        if est is None:
            raise RuntimeError(f"no estimate: {window.document.failure}")
        pane = window.planner
        for i in range(pane.tabs.count()):
            pane.tabs.setCurrentIndex(i)
            app.processEvents()
            if pane.tabs.widget(i).grab().isNull():
                raise RuntimeError(f"view {pane.tabs.tabText(i)!r} did not render")
        window.close()
        window.deleteLater()
        app.processEvents()
        from planner.units import format_bytes

        print(f"GPU Planner self-test OK: {rendered} pane(s) rendered, "
              f"{window.document.draft.name} peak {format_bytes(est.peak)}")
        return 0
    except Exception as exc:  # noqa: BLE001 - the self-test reports whatever failed
        print(f"GPU Planner self-test FAILED: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    finally:
        if old_home is None:
            os.environ.pop("PLANNER_HOME", None)
        else:
            os.environ["PLANNER_HOME"] = old_home
        shutil.rmtree(home, ignore_errors=True)


def run_gui(argv: list[str]) -> int:
    """The GUI entry point (planner.app calls it)."""
    argv = list(argv)
    if "--self-test" in argv:
        return self_test([a for a in argv if a != "--self-test"])
    app = _make_app(argv)
    offscreen = os.environ.get("QT_QPA_PLATFORM") == "offscreen"
    if binding_drops_references():
        message = binding_bug_message()
        print(f"gpu-planner: {message}", file=sys.stderr)
        if not offscreen:
            QMessageBox.critical(None, APP_TITLE, message)
        return 1
    sys.excepthook = make_excepthook(show_dialog=not offscreen)
    window = build_main_window(Services())
    window.show()
    return app.exec()
