"""File ▸ ONNX Input Shapes…: the per-sample shape of every input an imported ONNX file's plan
follows (an encoder-decoder's input_ids and decoder_input_ids, a two-tower network's image and
token ids), edited and imported again at those shapes, as ``--input NAME=SHAPE`` does on the
command line. Inputs the plan takes as given (masks, positions) are listed, not edited: their
shapes follow the inputs they go with."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from planner.core.layers import parse_ints, shape_str
from planner.ui.i18n import arg, exc_text


def _tr(text: str) -> str:
    return QCoreApplication.translate("OnnxInputs", text)


class InputShapesDialog(QDialog):
    """One field per followed input, filled with the shape planned now."""

    def __init__(self, file_name: str, inputs, given=(), parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("onnx_input_shapes_dialog")
        self.setWindowTitle(arg(_tr("Input shapes of %1"), file_name))
        layout = QVBoxLayout(self)
        intro = QLabel(_tr("The per-sample shape of each input the plan follows, without the "
                           "batch (the batch is the plan's, the same for every input): a "
                           "sequence length for token ids (128), C×H×W for images "
                           "(3×224×224). The file is imported again at these shapes."), self)
        intro.setWordWrap(True)
        intro.setMinimumWidth(460)
        layout.addWidget(intro)
        form = QFormLayout()
        self.fields: dict[str, QLineEdit] = {}
        for name, _layer, shape in inputs:
            edit = QLineEdit(shape_str(shape), self)
            edit.setObjectName(f"shape:{name}")
            edit.setToolTip(_tr("Per-sample shape, e.g. 128 or 3x224x224"))
            form.addRow(name, edit)
            self.fields[name] = edit
        layout.addLayout(form)
        if given:
            note = QLabel(arg(_tr("Taken as given (masks, positions, token types; their shapes "
                                  "follow the inputs they go with): %1"),
                              ", ".join(given)), self)
            note.setWordWrap(True)
            layout.addWidget(note)
        self.error_label = QLabel("", self)
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet("color: #a00000")
        self.error_label.hide()
        layout.addWidget(self.error_label)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText(_tr("Import Again"))
        buttons.accepted.connect(self._on_accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.shapes: dict[str, tuple[int, ...]] | None = None

    def read_shapes(self) -> dict[str, tuple[int, ...]]:
        """The shapes typed, by input; ValueError naming the input whose text is not one
        (parse_ints' message names it: "pixel_values 'big' is not a number")."""
        return {name: parse_ints(edit.text(), what=name) for name, edit in self.fields.items()}

    def _on_accept(self) -> None:
        try:
            self.shapes = self.read_shapes()
        except ValueError as exc:
            self.error_label.setText(exc_text(exc))
            self.error_label.show()
            return
        self.accept()


def ask_input_shapes(parent, file_name: str, inputs, given) -> dict | None:
    dialog = InputShapesDialog(file_name, inputs, given, parent)
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    return dialog.shapes if dialog.exec() == QDialog.DialogCode.Accepted else None


def edit_input_shapes(window, *, background: bool = True) -> bool:
    """Ask for the shapes of the imported ONNX file's inputs and import it again at them (in
    the background, as File ▸ Open does). False when there is no ONNX import to redo, or the
    user cancels."""
    files = window.files
    result = files.import_result
    path = getattr(files, "import_path", None)
    if result is None or path is None:
        window.prompts.error(_tr("No ONNX model"), _tr(
            "Open an ONNX model first (File ▸ Open…): its inputs' shapes are set here."))
        return False
    inputs = result.report.inputs
    if not inputs:
        window.prompts.error(_tr("No inputs to set"),
                             _tr("This import does not list its inputs; open the file again."))
        return False
    ask = getattr(window.prompts, "onnx_input_shapes", None)
    name = Path(path).name
    shapes = ask(name, inputs, result.report.inputs_as_given) if callable(ask) else \
        ask_input_shapes(window, name, inputs, result.report.inputs_as_given)
    if not shapes:
        return False
    # the imported plan as opened is the file's (nothing to lose); edits made since are asked
    if files.document.undo_stack.count() and not files.maybe_save():
        return False
    if background:
        files.open_in_background(path, input_shape=shapes)
        return True
    return files.import_onnx(path, input_shape=shapes)
