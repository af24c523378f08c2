"""``gpu-planner --self-test``: the smoke test of an install or a frozen build.

It builds the window offscreen in a throw-away PLANNER_HOME, renders every pane (and every view
of the Planner pane), runs one estimate and takes one monitor sample (NVML, or the simulated
source when there is no driver), prints one line and exits 0, or 1 with what failed.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication

from planner.ui.bootstrap import (
    binding_bug_message,
    binding_drops_references,
    build_main_window,
    make_app,
)
from planner.ui.services import Services


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
        app = make_app(argv)
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
        for name in pane.RESULT_TABS:  # each built and filled as it is shown
            pane.show_result_tab(name)
            app.processEvents()
            i = pane.tabs.currentIndex()
            if pane.tabs.widget(i).grab().isNull():
                raise RuntimeError(f"view {pane.tabs.tabText(i)!r} did not render")
        source = monitor.source
        cards = len(monitor.devices)
        from planner.importing import ChildImport

        if ChildImport("planner.importing:child_probe", what="self-test").run() == os.getpid():
            raise RuntimeError("the import process is not a separate process")
        window.close()
        window.deleteLater()
        app.processEvents()
        from planner.units import format_bytes

        print(f"GPU Planner self-test OK: {rendered} pane(s) rendered, "
              f"{window.document.draft.name} peak {format_bytes(est.peak)}, "
              f"monitor: {cards} card(s) ({source}), import process: ok")
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
