"""Starting the window: the QApplication (names, excepthook, a broken Qt binding refused),
``build_main_window`` (preferences, theme and language, the window session, the autosave a crash
left, the start plan) and ``run_gui``, the GUI entry point ``planner.app`` calls.

``--demo`` starts the monitor on the simulated source; ``--self-test`` is
``planner.ui.selftest``.
"""

from __future__ import annotations

import logging
import os
import sys
import traceback
from pathlib import Path

from PySide6.QtWidgets import QApplication, QMessageBox

from planner import paths
from planner.core.network import NetworkDraft, PlanFileError, load_plan_file
from planner.core.parallel import Parallel
from planner.safeio import set_aside
from planner.ui.i18n import arg, exc_text
from planner.ui.plan_files import default_input
from planner.ui.prompts import DialogPrompts
from planner.ui.services import Services
from planner.ui.session import WindowSession, open_ini

APP_TITLE = "GPU Planner"
log = logging.getLogger("planner.ui")


def apply_currency(prefs) -> None:
    from planner.ui import money

    money.set_display_currency(prefs.currency_symbol,
                               prefs.currency_rate if prefs.shows_converted_money else None)


def install_translator(app: QApplication | None, language: str) -> bool:
    """Show the app in ``language`` ("system" | "en" | "zh_CN"); see planner.ui.i18n (the
    shipped .qm, or in a source checkout one compiled from the .ts). Returns whether a
    translation is installed."""
    from planner.ui import i18n

    if app is None:
        return False
    return i18n.install_translator(app, language) is not None


def build_main_window(services: Services | None = None):
    """The window as the app and the tests make it: preferences (theme, language), the window
    session, assumptions, the catalog, the start plan (an autosave left by a crash, if the
    user restores it, else the start preset)."""
    from planner.core.presets import load_preset
    from planner.settings import load_settings
    from planner.ui.main_window import MainWindow
    from planner.ui.planner.document import PlanDocument
    from planner.ui.settings_dialog import apply_theme, notice_text

    services = services or Services()
    notice = None
    if services.preferences is not None:
        prefs = services.preferences
    else:
        prefs, notice = load_settings(services.preferences_path)
    apply_currency(prefs)
    app = QApplication.instance()
    if app is not None:
        apply_theme(app, prefs.theme)
        install_translator(app, prefs.language)
    session = WindowSession(open_ini(services.settings_path))
    assumptions = (services.assumptions if services.assumptions is not None
                   else session.assumptions())
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
            draft, setup = NetworkDraft("untitled", (default_input(),)), prefs.new_setup()
    parallel = session.parallel()
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
    window = MainWindow(services, session, document, preferences=prefs, catalog=catalog)
    text = notice_text(notice)
    if text:
        window.notify(QApplication.translate("MainWindow", "Preferences"), text)
    return window


def _autosave_unreadable(prompts, autosave: Path, exc: BaseException) -> None:
    """An autosave that cannot be restored is never deleted: it is set aside as
    ``autosave.plan.json.corrupt-DATE`` and the user is told where it went."""
    try:
        aside = set_aside(autosave)
    except OSError as move_exc:
        log.warning("autosave %s could not be set aside: %s", autosave, move_exc)
        where = arg(QApplication.translate("MainWindow", "It was left at %1."), str(autosave))
    else:
        where = arg(QApplication.translate("MainWindow", "It was kept as %1."), str(aside))
    prompts.error(QApplication.translate("MainWindow", "Cannot restore"),
                  f"{exc_text(exc)}\n\n{where}")


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
                              arg(QApplication.translate(
                                      "MainWindow", "Something went wrong: %1\n\nThe details were "
                                      "written to %2."),
                                  str(exc), str(log_path)))
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


def make_app(argv: list[str]) -> QApplication:
    app = QApplication.instance()
    if app is None:
        app = QApplication([sys.argv[0] if sys.argv else "gpu-planner", *argv])
    QApplication.setOrganizationName("gpu-planner")
    QApplication.setApplicationName(APP_TITLE)
    QApplication.setDesktopFileName("gpu-planner")
    return app  # type: ignore[return-value]


def run_gui(argv: list[str]) -> int:
    """The GUI entry point (planner.app calls it). ``--demo``: the monitor shows the simulated
    source."""
    argv = list(argv)
    if "--self-test" in argv:
        from planner.ui.selftest import self_test  # noqa: PLC0415

        return self_test([a for a in argv if a != "--self-test"])
    demo = "--demo" in argv
    argv = [a for a in argv if a != "--demo"]
    app = make_app(argv)
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
