"""The properties panel: a form with one editor per parameter of the selected layer.

Spin boxes for whole numbers, check boxes for flags, combo boxes for choices and line edits for
sizes ("3x3"), padding and layer references; tooltips come from each ParamSpec's help. A value
that does not parse is not applied and the field turns red with the reason as its tooltip.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QStringListModel, Qt, Signal, Slot
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QCompleter,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from planner.core.layers import (
    RULES,
    LayerError,
    LayerSpec,
    ParamSpec,
    coerce_param,
    format_param,
    param_label,
)
from planner.ui.planner.document import PlanDocument
from planner.ui.i18n import arg, exc_text, tr_core, tr_msg

_INT_MAX = 1 << 24
_BAD_STYLE = "background: #ffe0e0; color: #a00000;"


def _text_of(editor: QWidget) -> str | None:
    if isinstance(editor, (QLineEdit, QAbstractSpinBox)):
        return editor.text()
    return None


class _UndoPassThrough(QObject):
    """Ctrl+Z / Ctrl+Shift+Z in a field that holds no edit of its own undo the plan (the
    window's Undo), instead of being swallowed by the field's own, empty undo history. A field
    with a half-typed value keeps its local undo."""

    def __init__(self, panel: "LayerPropertiesPanel"):
        super().__init__(panel)
        self._panel = panel

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.ShortcutOverride and (
                event.matches(QKeySequence.StandardKey.Undo)
                or event.matches(QKeySequence.StandardKey.Redo)):
            editor = obj.parent() if isinstance(obj.parent(), QAbstractSpinBox) else obj
            if not self._panel.has_pending_edit(editor):
                return True  # not delivered to the field: the window's shortcut acts
        return False


class LayerPropertiesPanel(QGroupBox):
    """Edits the layer in ``current_row`` of the document; every change is one undo step."""

    edit_rejected = Signal(str)

    def __init__(self, document: PlanDocument, parent: QWidget | None = None):
        super().__init__(parent)
        self._doc = document
        self._row = -1
        self._kind: str | None = None
        self._editors: dict[str, QWidget] = {}
        self._updating = False
        self._committed: dict[QWidget, str] = {}  # each field's text as the layer holds it
        self._undo_filter = _UndoPassThrough(self)
        self._form = QFormLayout(self)
        self._form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self._help = QLabel(self)
        self._error = QLabel(self)
        self._block_name: str | None = None  # the repeated block the shown layer is in
        self._copies: QSpinBox | None = None
        document.plan_changed.connect(self._on_plan_changed)
        self.show_row(0)

    def show_row(self, row: int) -> None:
        layers = self._doc.draft.layers
        if not 0 <= row < len(layers):
            row = -1
        kind = layers[row].kind if row >= 0 else None
        rep = self._block_of(row)
        block = rep.name if rep is not None else None
        if row != self._row or kind != self._kind or block != self._block_name:
            self._row, self._kind, self._block_name = row, kind, block
            self._rebuild()
        self._refresh()

    def _block_of(self, row: int):
        for rep in self._doc.draft.repeats:
            if row >= 0 and rep.copy_of(row) is not None:
                return rep
        return None

    # ---- building ----------------------------------------------------------------------------
    def _rebuild(self) -> None:
        while self._form.rowCount():
            self._form.removeRow(0)
        self._editors = {}
        self._committed = {}
        self._copies = None
        self._help = QLabel(self)
        self._help.setWordWrap(True)
        if self._row < 0:
            self.setTitle(self.tr("Layer properties"))
            self._form.addRow(QLabel(self.tr("Select a layer to edit its parameters."), self))
            return
        layer = self._doc.draft.layers[self._row]
        rule = RULES[layer.kind]
        self.setTitle(arg(self.tr("Layer properties: %1"), tr_core(rule.label)))
        self._help.setText(tr_core(rule.help))
        self._form.addRow(self._help)
        for rep in self._doc.draft.repeats:  # a layer of a repeated block: every copy
            if rep.copy_of(self._row) is not None:
                block = QLabel(arg(self.tr("In the repeated block %1 × %2: a change here is "
                                           "made in every copy."), rep.name, str(rep.times)),
                               self)
                block.setObjectName("block_note")
                block.setWordWrap(True)
                block.setStyleSheet("color: #1f4e9c;")
                self._form.addRow(block)
                # the block's count: arrows, or a number and Enter (Edit ▸ Set Copies… too;
                # Edit ▸ Unrepeat Block makes it one copy of plain layers)
                copies = QSpinBox(self)
                copies.setObjectName("block_copies")
                copies.setRange(min(2, rep.times), max(1024, rep.times))
                copies.setValue(rep.times)
                copies.setKeyboardTracking(False)
                copies.setToolTip(arg(self.tr("How many copies the repeated block %1 has; the "
                                              "layers after it read the last copy"), rep.name))
                copies.valueChanged.connect(self._on_copies_changed)
                self._copies = copies
                self._form.addRow(self.tr("Copies"), copies)
                break
        self._error = QLabel(self)
        self._error.setObjectName("layer_error")
        self._error.setWordWrap(True)
        self._error.setStyleSheet("color: #a00000; font-weight: bold;")
        self._error.setVisible(False)
        self._form.addRow(self._error)
        name = QLineEdit(self)
        name.setToolTip(self.tr("A unique name; other layers refer to it in 'from' and 'input'."))
        name.editingFinished.connect(self._on_name_edited)
        self._editors["__name__"] = name
        self._form.addRow(self.tr("Name"), name)
        for spec in rule.params:
            editor = self._make_editor(spec)
            editor.setToolTip(tr_core(spec.help))
            editor.setObjectName(f"param_{spec.name}")
            self._editors[spec.name] = editor
            label = QLabel(tr_core(param_label(spec.name)), self)
            label.setToolTip(tr_core(spec.help))
            self._form.addRow(label, editor)
        for editor in self._editors.values():
            target = editor.lineEdit() if isinstance(editor, QAbstractSpinBox) else editor
            if isinstance(target, QLineEdit):
                target.installEventFilter(self._undo_filter)
        self._form.activate()
        self.setMinimumHeight(self._form.minimumSize().height())

    def _make_editor(self, spec: ParamSpec) -> QWidget:
        if spec.type == "int" and not spec.optional:
            box = QSpinBox(self)
            box.setRange(int(spec.minimum or 0), int(spec.maximum or _INT_MAX))
            box.setKeyboardTracking(False)
            box.valueChanged.connect(self._on_value_changed)
            return box
        if spec.type == "float":
            box = QDoubleSpinBox(self)
            box.setDecimals(3)
            box.setSingleStep(0.05)
            box.setRange(spec.minimum if spec.minimum is not None else -1e9,
                         spec.maximum if spec.maximum is not None else 1e9)
            box.setKeyboardTracking(False)
            box.valueChanged.connect(self._on_value_changed)
            return box
        if spec.type == "bool":
            check = QCheckBox(self)
            check.toggled.connect(self._on_value_changed)
            return check
        if spec.type == "choice":
            combo = QComboBox(self)
            combo.addItems(list(spec.choices))
            combo.currentTextChanged.connect(self._on_value_changed)
            return combo
        line = QLineEdit(self)
        if spec.type == "ref":
            completer = QCompleter(self._earlier_names(), line)
            completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
            completer.setFilterMode(Qt.MatchFlag.MatchContains)
            line.setCompleter(completer)
        if spec.type in ("ref", "refs"):
            line.setPlaceholderText(self.tr("layer name") if spec.type == "ref"
                                    else self.tr("layer names, comma separated"))
        elif spec.optional:
            line.setPlaceholderText(self.tr("default"))
        line.editingFinished.connect(self._on_value_changed)
        return line

    def _earlier_names(self) -> list[str]:
        """Names a branch or skip connection of the selected layer can refer to."""
        return [layer.name for layer in self._doc.draft.layers[:max(self._row, 0)]]

    # ---- showing values ----------------------------------------------------------------------
    def _refresh(self) -> None:
        if self._row < 0 or self._row >= len(self._doc.draft.layers):
            return
        layer = self._doc.draft.layers[self._row]
        infos = self._doc.analysis.layers
        error = infos[self._row].error if self._row < len(infos) else None
        self._error.setText(tr_msg(error) if error else "")
        self._error.setVisible(bool(error))
        # a field with typed text the layer does not have keeps it (and its own undo)
        typing = {e for e in self._editors.values() if e.hasFocus() and self.has_pending_edit(e)}
        self._updating = True
        try:
            rep = self._block_of(self._row)
            if self._copies is not None and rep is not None:
                self._copies.setValue(rep.times)
            name = self._editors["__name__"]
            if name not in typing:
                name.setText(layer.name)
                name.setStyleSheet("")
            for spec in RULES[layer.kind].params:
                editor = self._editors.get(spec.name)
                value = layer.params.get(spec.name, spec.default)
                if isinstance(editor, QSpinBox):
                    try:
                        editor.setValue(int(coerce_param(spec, value)))
                    except (LayerError, TypeError, ValueError):
                        pass
                elif isinstance(editor, QDoubleSpinBox):
                    try:
                        editor.setValue(float(coerce_param(spec, value)))
                    except (LayerError, TypeError, ValueError):
                        pass
                elif isinstance(editor, QCheckBox):
                    editor.setChecked(bool(value))
                elif isinstance(editor, QComboBox):
                    editor.setCurrentText(str(value))
                elif isinstance(editor, QLineEdit) and editor not in typing:
                    if editor.completer() is not None:
                        editor.completer().setModel(QStringListModel(self._earlier_names(),
                                                                     editor.completer()))
                    text = format_param(spec, value) if value is not None else ""
                    editor.setText(text.replace(" ", "") if spec.type not in ("refs",) else text)
                    editor.setStyleSheet("")
                    editor.setToolTip(tr_core(spec.help))
        finally:
            self._updating = False
        for editor in self._editors.values():
            text = _text_of(editor)
            if text is not None and editor not in typing:
                self._committed[editor] = text

    def has_pending_edit(self, editor: QWidget) -> bool:
        """Whether the field holds typed text the layer does not have yet."""
        text = _text_of(editor)
        return text is not None and editor in self._committed and \
            text != self._committed[editor]

    # ---- editing -----------------------------------------------------------------------------
    @Slot()
    def _on_name_edited(self) -> None:
        if self._updating or self._row < 0:
            return
        editor = self._editors["__name__"]
        layer = self._doc.draft.layers[self._row]
        name = editor.text().strip()
        if name == layer.name:
            return
        problem = None
        if not name:
            problem = self.tr("every layer needs a name")
        elif self._doc.draft.index_of(name) is not None:
            problem = arg(self.tr("the name '%1' is already used"), name)
        if problem:
            self._reject(editor, layer, problem)
            return
        editor.setStyleSheet("")
        self._committed[editor] = editor.text()
        self._doc.edit_layer(self._row, layer.replace(name=name))

    @Slot()
    def _on_value_changed(self, *_args) -> None:
        if self._updating or self._row < 0:
            return
        editor = self.sender()
        spec_name = next((k for k, v in self._editors.items() if v is editor), None)
        if spec_name is None or spec_name == "__name__":
            return
        layer = self._doc.draft.layers[self._row]
        spec = RULES[layer.kind].param(spec_name)
        if isinstance(editor, (QSpinBox, QDoubleSpinBox)):
            raw = editor.value()
        elif isinstance(editor, QCheckBox):
            raw = editor.isChecked()
        elif isinstance(editor, QComboBox):
            raw = editor.currentText()
        else:
            raw = editor.text()
        try:
            value = coerce_param(spec, raw)
        except LayerError as exc:
            self._reject(editor, layer, exc_text(exc))
            return
        editor.setStyleSheet("")
        editor.setToolTip(tr_core(spec.help))
        text = _text_of(editor)
        if text is not None:
            self._committed[editor] = text
        if value == layer.params.get(spec_name):
            return
        self._doc.edit_layer(self._row, layer.replace(**{spec_name: value}),
                             merge_key=("layer", self._row, spec_name))

    def _reject(self, editor: QWidget, layer: LayerSpec, problem: str) -> None:
        message = arg(self.tr("layer %1 (%2): %3 — not applied"),
                      str(self._row), layer.name, problem)
        editor.setStyleSheet(_BAD_STYLE)
        editor.setToolTip(message)
        self.edit_rejected.emit(message)

    @Slot(int)
    def _on_copies_changed(self, times: int) -> None:
        from planner.core.repeat import RepeatError  # noqa: PLC0415

        if self._updating or self._block_name is None:
            return
        try:
            self._doc.set_block_times(self._block_name, times, merge=True)
        except RepeatError as exc:
            self.edit_rejected.emit(exc_text(exc))

    @Slot()
    def _on_plan_changed(self) -> None:
        self.show_row(min(self._row, len(self._doc.draft.layers) - 1) if self._row >= 0 else 0)


