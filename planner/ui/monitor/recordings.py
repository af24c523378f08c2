"""Recording the live session, and the recordings browser.

* ``RecordingSink``: what the sampling thread writes every frame to. It opens the ``Recorder``
  lazily on the first frame (no empty file when there is no driver), is thread-safe, and turns
  a recording failure into a message instead of an exception.
* ``RecordingsDialog``: lists the recordings in the folder (corrupt files are shown as skipped
  with the reason), and offers Replay (in the pane's plots), Export CSV, Delete (with a
  confirmation) and the retention setting in days. Questions and file choices go through
  injectable callables, so tests never meet a modal dialog.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (
    QDialog,
    QDoubleSpinBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from planner.ui.i18n import arg
from planner.telemetry.recorder import (
    Recorder,
    RecordingError,
    default_recording_path,
    delete_recording,
    export_csv,
    list_recordings,
)
from planner.telemetry.types import Frame
from planner.ui.monitor.models import RecordingsTableModel
from planner.ui.monitor.tables import row_table

log = logging.getLogger(__name__)

DEFAULT_RETENTION_DAYS = 30.0


class RecordingSink:
    """A lazily opened, thread-safe Recorder for the live session."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self._lock = threading.Lock()
        self._recorder: Recorder | None = None
        self._closed = False
        self.path: Path | None = None
        self._open_failure: str | None = None

    @property
    def failure(self) -> str | None:
        """Why recording stopped, for the UI: the file could not be opened, or a write failed
        (disk full…: the recorder stopped and counts the samples lost)."""
        if self._open_failure is not None:
            return self._open_failure
        r = self._recorder
        return r.lost_text() if r is not None and r.error is not None else None

    @property
    def frames_written(self) -> int:
        r = self._recorder
        return 0 if r is None else r.frames_written

    def write(self, frame: Frame) -> None:
        """Called in the sampling thread."""
        with self._lock:
            if self._closed or self._open_failure is not None:
                return
            if self._recorder is None:
                path = default_recording_path(self.folder)
                try:
                    self._recorder = Recorder(path)
                except (RecordingError, OSError) as exc:
                    self._open_failure = str(exc)
                    log.error("cannot record: %s", exc)
                    return
                self.path = path
            self._recorder.write(frame)

    def flush(self) -> None:
        with self._lock:
            if self._recorder is not None:
                self._recorder.flush()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._recorder is not None:
                self._recorder.close()


def _ask_yes_no(parent: QWidget, title: str, text: str) -> bool:
    answer = QMessageBox.question(parent, title, text,
                                  QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                  QMessageBox.StandardButton.No)
    return answer == QMessageBox.StandardButton.Yes


def ask_save_path_dialog(parent: QWidget, title: str, suggested: str, filter_: str) -> str | None:
    path, _ = QFileDialog.getSaveFileName(parent, title, suggested, filter_)
    return path or None


class RecordingsDialog(QDialog):
    """The recordings browser. ``replay_requested(Path)`` asks the pane to replay one."""

    replay_requested = Signal(object)
    retention_changed = Signal(float)

    def __init__(self, folder: Path, *, current_path: Path | None = None,
                 retention_days: float = DEFAULT_RETENTION_DAYS,
                 confirm: Callable[[QWidget, str, str], bool] | None = None,
                 ask_save_path: Callable[[QWidget, str, str, str], str | None] | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Recordings"))
        self.folder = Path(folder)
        self._confirm = confirm or _ask_yes_no
        self._ask_save_path = ask_save_path or ask_save_path_dialog
        self.model = RecordingsTableModel(self)
        self.model.current_path = current_path
        self.view = row_table(self, self.model)
        header = self.view.horizontalHeader()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)  # the card names
        self.view.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.view.doubleClicked.connect(self._on_replay)

        self.folder_label = QLabel(arg(self.tr("Folder: %1"), self.folder), self)
        self.folder_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message = QLabel("", self)
        self.message.setWordWrap(True)

        self.replay_button = QPushButton(self.tr("Replay"), self)
        self.export_button = QPushButton(self.tr("Export CSV…"), self)
        self.delete_button = QPushButton(self.tr("Delete…"), self)
        self.refresh_button = QPushButton(self.tr("Refresh"), self)
        self.close_button = QPushButton(self.tr("Close"), self)
        self.replay_button.clicked.connect(self._on_replay)
        self.export_button.clicked.connect(self._on_export)
        self.delete_button.clicked.connect(self._on_delete)
        self.refresh_button.clicked.connect(self.refresh)
        self.close_button.clicked.connect(self.accept)

        self.retention = QDoubleSpinBox(self)
        self.retention.setRange(0, 3650)
        self.retention.setDecimals(0)
        self.retention.setSuffix(self.tr(" days"))
        self.retention.setSpecialValueText(self.tr("keep forever"))
        self.retention.setValue(retention_days)
        self.retention.setToolTip(self.tr("Recordings older than this are deleted when the "
                                          "Monitor starts (0 keeps them all)"))
        self.retention.valueChanged.connect(self._on_retention)

        buttons = QHBoxLayout()
        for b in (self.replay_button, self.export_button, self.delete_button,
                  self.refresh_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        buttons.addWidget(QLabel(self.tr("Keep recordings for"), self))
        buttons.addWidget(self.retention)
        buttons.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.folder_label)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        self.view.selectionModel().selectionChanged.connect(self._update_buttons)
        self.resize(980, 420)
        self.refresh()

    @Slot()
    def refresh(self) -> None:
        listing = list_recordings(self.folder)
        self.model.set_listing(listing.recordings, listing.skipped)
        if listing.skipped:
            self.message.setText(arg(self.tr("%1 file(s) could not be read and were skipped "
                                             "(see Status)."),
                                     len(listing.skipped)))
        elif not listing.recordings:
            self.message.setText(self.tr("No recordings yet: the Monitor records every "
                                         "session while it runs."))
        else:
            self.message.setText("")
        if listing.recordings:
            self.view.selectRow(0)
        self._update_buttons()

    def selected_path(self) -> Path | None:
        rows = self.view.selectionModel().selectedRows()
        if not rows:
            return None
        rec = self.model.recording_at(rows[0].row())
        return None if rec is None else rec.path

    def select_path(self, path: Path) -> bool:
        for row in range(self.model.rowCount()):
            rec = self.model.recording_at(row)
            if rec is not None and rec.path == Path(path):
                self.view.selectRow(row)
                return True
        return False

    @Slot()
    def _update_buttons(self) -> None:
        path = self.selected_path()
        current = self.model.current_path
        is_current = (path is not None and current is not None
                      and Path(path).resolve() == Path(current).resolve())
        for b in (self.replay_button, self.export_button):
            b.setEnabled(path is not None)
        self.delete_button.setEnabled(path is not None and not is_current)
        self.delete_button.setToolTip(self.tr("The recording in progress cannot be deleted")
                                      if is_current else "")

    @Slot()
    def _on_replay(self) -> None:
        path = self.selected_path()
        if path is not None:
            self.replay_requested.emit(path)

    @Slot()
    def _on_export(self) -> None:
        path = self.selected_path()
        if path is None:
            return
        out = self._ask_save_path(self, self.tr("Export recording as CSV"),
                                  str(path.with_suffix(".csv")), self.tr("CSV files (*.csv)"))
        if not out:
            return
        try:
            n = export_csv(path, out)
        except (RecordingError, OSError) as exc:
            self.message.setText(arg(self.tr("Export failed: %1"), exc))
            return
        self.message.setText(arg(self.tr("Exported %1 rows to %2"), n, out))

    @Slot()
    def _on_delete(self) -> None:
        path = self.selected_path()
        if path is None or not self.delete_button.isEnabled():
            return
        if not self._confirm(self, self.tr("Delete recording"),
                             arg(self.tr("Delete %1? This cannot be undone."), path.name)):
            return
        try:
            delete_recording(path)
        except OSError as exc:
            self.message.setText(arg(self.tr("Could not delete: %1"), exc))
            return
        self.refresh()
        self.message.setText(arg(self.tr("Deleted %1"), path.name))

    @Slot(float)
    def _on_retention(self, days: float) -> None:
        self.retention_changed.emit(float(days))
