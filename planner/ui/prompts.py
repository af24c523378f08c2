"""The window's questions (``planner.ui.services.Prompts``) asked with message boxes and file
dialogs. Tests give the window scripted prompts instead."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox, QWidget

from planner.ui.i18n import arg


def _tr(text: str) -> str:
    return QApplication.translate("MainWindow", text)


class DialogPrompts:
    """The questions of ``Prompts`` asked with message boxes and file dialogs."""

    def __init__(self, parent: QWidget | None = None):
        self.parent = parent

    def restore_autosave(self, path: Path) -> bool:
        answer = QMessageBox.question(
            self.parent, _tr("Restore unsaved plan?"),
            _tr("GPU Planner did not close cleanly last time. Restore the plan you were "
                     "editing?"),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.Yes)
        return answer == QMessageBox.StandardButton.Yes

    def save_changes(self, plan_name: str) -> str:
        answer = QMessageBox.warning(
            self.parent, _tr("Unsaved changes"),
            arg(_tr("Save the changes to “%1” before closing it?"), plan_name),
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Save)
        return {QMessageBox.StandardButton.Save: "save",
                QMessageBox.StandardButton.Discard: "discard"}.get(answer, "cancel")

    def open_path(self, folder: str) -> str | None:
        kinds = _tr("Plans and ONNX models (*.json *.onnx);;Plan files (*.json);;"
                    "ONNX models (*.onnx);;All files (*)")
        path, _ = QFileDialog.getOpenFileName(self.parent, _tr("Open plan or ONNX model"),
                                              folder, kinds)
        return path or None

    def save_path(self, suggested: str) -> str | None:
        path, _ = QFileDialog.getSaveFileName(self.parent, _tr("Save plan"), suggested,
                                              _tr("Plan files (*.json)"))
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
