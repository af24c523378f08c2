"""A dialog editing the estimate's Assumptions; each field's tooltip is Assumptions.describe()."""

from __future__ import annotations

from dataclasses import fields

from PySide6.QtCore import Slot
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from planner.core.memory import CONV_ALGORITHMS, Assumptions

# Field → (unit shown, bytes per unit).
_UNITS = {
    "cuda_context_bytes": ("MiB", 1024**2),
    "library_handles_bytes": ("MiB", 1024**2),
    "allocator_block_bytes": ("B", 1),
    "allocator_large_threshold_bytes": ("KiB", 1024),
    "allocator_segment_bytes": ("KiB", 1024),
    "workspace_cap_bytes": ("MiB", 1024**2),
    "driver_reserved_bytes": ("MiB", 1024**2),
}


def _label(name: str) -> str:
    return name.removesuffix("_bytes").replace("_", " ").capitalize()


class AssumptionsDialog(QDialog):
    """Edit a copy of the assumptions; ``assumptions()`` returns the edited one."""

    def __init__(self, assumptions: Assumptions, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(self.tr("Estimate assumptions"))
        layout = QVBoxLayout(self)
        intro = QLabel(self.tr("Every figure the estimate takes on trust. Hover a field for what "
                               "it means; changes apply to every plan."), self)
        intro.setWordWrap(True)
        layout.addWidget(intro)
        form = QFormLayout()
        layout.addLayout(form)
        self._editors: dict[str, QWidget] = {}
        describe = Assumptions.describe()
        for f in fields(Assumptions):
            value = getattr(assumptions, f.name)
            if f.name == "conv_algorithm":
                editor = QComboBox(self)
                editor.addItems(list(CONV_ALGORITHMS))
                editor.setCurrentText(value)
            else:
                unit, scale = _UNITS.get(f.name, ("B", 1))
                editor = QSpinBox(self)
                editor.setRange(0, 2**31 - 1)
                editor.setSuffix(" " + unit)
                editor.setValue(value // scale)
            editor.setObjectName(f.name)
            editor.setToolTip(describe.get(f.name, ""))
            label = QLabel(_label(f.name), self)
            label.setToolTip(describe.get(f.name, ""))
            form.addRow(label, editor)
            self._editors[f.name] = editor
        self._error = QLabel(self)
        self._error.setStyleSheet("color: #a00000;")
        self._error.setWordWrap(True)
        layout.addWidget(self._error)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
            | QDialogButtonBox.StandardButton.RestoreDefaults, self)
        buttons.accepted.connect(self._on_accepted)
        buttons.rejected.connect(self.reject)
        buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults).clicked.connect(
            self._on_restore_defaults)
        layout.addWidget(buttons)
        self._result = assumptions

    def edited(self) -> Assumptions:
        """The assumptions as the fields say; raises ValueError naming a bad field."""
        values = {}
        for name, editor in self._editors.items():
            if isinstance(editor, QComboBox):
                values[name] = editor.currentText()
            else:
                values[name] = editor.value() * _UNITS.get(name, ("B", 1))[1]
        return Assumptions(**values)

    def assumptions(self) -> Assumptions:
        return self._result

    @Slot()
    def _on_accepted(self) -> None:
        try:
            self._result = self.edited()
        except ValueError as exc:
            self._error.setText(str(exc))
            return
        self.accept()

    @Slot()
    def _on_restore_defaults(self) -> None:
        defaults = Assumptions()
        for name, editor in self._editors.items():
            value = getattr(defaults, name)
            if isinstance(editor, QComboBox):
                editor.setCurrentText(value)
            else:
                editor.setValue(value // _UNITS.get(name, ("B", 1))[1])
