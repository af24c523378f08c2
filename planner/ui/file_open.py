"""Opening a file off the GUI thread: the window never freezes on a slow or hostile file.

``BackgroundOpen`` runs a loader (``load_plan``, the ONNX importer) in a daemon thread and
hands its result back to the GUI thread through a queued signal. After ``delay_ms`` a busy
progress dialog appears with Cancel. Cancel sets ``cancel_requested`` (the loader checks it
between its steps) and calls ``on_cancel`` (an import in a child process is terminated there:
planner/importing.py); whatever the loader still returns is thrown away. A daemon thread
never keeps the app from quitting.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal, Slot
from PySide6.QtWidgets import QProgressDialog, QWidget

log = logging.getLogger(__name__)


class _Relay(QObject):
    done = Signal(object, object)  # (value, exception), emitted from the worker thread


class BackgroundOpen(QObject):
    """One file being opened. ``finished(value, exc)`` on the GUI thread, not after cancel;
    ``cancelled()`` when the user pressed Cancel."""

    finished = Signal(object, object)
    cancelled = Signal()

    def __init__(self, parent: QWidget, loader: Callable[[], Any], label: str,
                 cancel_text: str, *, delay_ms: int = 200,
                 on_cancel: Callable[[], None] | None = None) -> None:
        super().__init__(parent)
        self._loader = loader
        self._on_cancel_hook = on_cancel
        self.cancel_requested = threading.Event()
        self._cancelled = False
        self._done = False
        self._relay = _Relay()
        self._relay.done.connect(self._on_done, Qt.ConnectionType.QueuedConnection)
        self.dialog = QProgressDialog(label, cancel_text, 0, 0, parent)
        self.dialog.setWindowTitle(label)
        self.dialog.setWindowModality(Qt.WindowModality.WindowModal)
        self.dialog.setMinimumDuration(1 << 30)  # shown by our timer, not by setValue
        self.dialog.setAutoClose(False)
        self.dialog.setAutoReset(False)
        self.dialog.canceled.connect(self._on_cancel)
        self._thread = threading.Thread(target=self._run, name="planner-open", daemon=True)
        self._show_timer = QTimer(self)
        self._show_timer.setSingleShot(True)
        self._show_timer.setInterval(delay_ms)  # shown only when the work takes a while
        self._show_timer.timeout.connect(self._on_show)

    @property
    def worker_alive(self) -> bool:
        """Whether the worker thread still runs (after Cancel: until the child is stopped)."""
        return self._thread.is_alive()

    @property
    def running(self) -> bool:
        return not self._done and not self._cancelled

    def start(self) -> None:
        self._thread.start()
        self._show_timer.start()

    @Slot()
    def _on_show(self) -> None:
        if self.running:
            self.dialog.show()

    def cancel(self) -> None:
        self._on_cancel()

    def _run(self) -> None:
        try:
            value, exc = self._loader(), None
        except BaseException as e:  # noqa: BLE001 - handed to the GUI thread and shown there
            value, exc = None, e
        try:
            self._relay.done.emit(value, exc)
        except RuntimeError:  # the window went away meanwhile
            pass

    @Slot()
    def _on_cancel(self) -> None:
        if self._done or self._cancelled:
            return
        self._cancelled = True
        self.cancel_requested.set()
        if self._on_cancel_hook is not None:
            try:
                self._on_cancel_hook()  # returns at once: a terminate, not a wait
            except Exception:  # noqa: BLE001 - cancelling must never fail the window
                log.warning("cancelling the open", exc_info=True)
        self._close_dialog()
        self.cancelled.emit()

    @Slot(object, object)
    def _on_done(self, value: Any, exc: Any) -> None:
        if self._cancelled or self._done:
            return
        self._done = True
        self._close_dialog()
        self.finished.emit(value, exc)

    def _close_dialog(self) -> None:
        self._show_timer.stop()
        self.dialog.canceled.disconnect(self._on_cancel)
        self.dialog.reset()
        self.dialog.hide()
        self.dialog.deleteLater()
