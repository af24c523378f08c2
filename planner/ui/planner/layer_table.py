"""The layer table: one row per layer of the draft, editable in place.

Columns: #, name, type, parameters (compact "filters=64 kernel=3 stride=2" text), output shape,
parameter count, bytes kept for backward. A value that cannot be parsed is not applied: the model
emits ``edit_rejected`` with a message naming the layer. A value that parses but makes the draft
invalid (a kernel larger than its input) is applied, and the row shows the problem in red with a
tooltip until it is fixed or undone.
"""

from __future__ import annotations

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    Qt,
    Signal,
    Slot,
)
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import QComboBox, QStyledItemDelegate, QWidget

from planner.core.layers import KINDS, RULES, LayerError, LayerSpec, coerce_param, format_param
from planner.core.layers import shape_str as _shape_str
from planner.ui.planner.document import PlanDocument
from planner.units import format_bytes, format_count
from planner.ui.i18n import arg, exc_text, tr_core, tr_msg

ERROR_BG = QColor(255, 224, 224)
ERROR_FG = QColor(160, 0, 0)
BLOCKED_FG = QColor(128, 128, 128)

COL_INDEX, COL_NAME, COL_TYPE, COL_PARAMS, COL_SHAPE, COL_COUNT, COL_KEPT = range(7)


def _primary(kind: str) -> tuple[str, ...]:
    """Parameters always shown for a kind (its defining ones), even at their default."""
    return {
        "input": ("shape",), "conv2d": ("filters", "kernel", "stride", "padding"),
        "conv3d": ("filters", "kernel", "stride", "padding"), "maxpool": ("kernel",),
        "avgpool": ("kernel",), "adaptive_avgpool": ("output",), "activation": ("function",),
        "dropout": ("p",), "fc": ("units",), "add": ("from",), "concat": ("from",),
        "upsample": ("scale", "mode"), "lstm": ("hidden", "layers"),
    }.get(kind, ())


def _format_value(spec, value) -> str:
    text = format_param(spec, value)
    if spec.type == "refs":
        text = text.replace(", ", ",")
    return text.replace(" ", "") if spec.type != "choice" else text


def params_text(layer: LayerSpec) -> str:
    """'filters=64 kernel=3 stride=1 padding=same': the defining parameters and any that differ
    from their defaults. Parsing this text back gives the same layer."""
    rule = RULES.get(layer.kind)
    if rule is None:
        return ""
    primary = _primary(layer.kind)
    parts = []
    for spec in rule.params:
        value = layer.params.get(spec.name, spec.default)
        shown = spec.name in primary
        if not shown:
            try:
                shown = coerce_param(spec, value) != coerce_param(spec, spec.default)
            except LayerError:
                shown = True
        if shown and not (value is None and spec.optional):
            parts.append(f"{spec.name}={_format_value(spec, value)}")
    return " ".join(parts)


def parse_params_text(kind: str, text: str) -> dict:
    """The inverse of ``params_text``: every parameter not named takes its default.
    Raises LayerError naming the parameter for text that is not valid."""
    rule = RULES[kind]
    values: dict[str, str] = {}
    key = None
    for token in text.replace(";", " ").split():
        if "=" in token:
            key, _, value = token.partition("=")
            key = key.strip()
            if rule.param(key) is None:
                known = ", ".join(p.name for p in rule.params)
                raise LayerError(f"'{key}' is not a parameter of {rule.label} layers "
                                 f"(they have: {known})")
            if key in values:
                raise LayerError(f"{key} is given twice")
            values[key] = value
        elif key is None:
            raise LayerError(f"'{token}' needs a name, as in name=value")
        else:  # "from=a, b": a value that contained spaces
            values[key] += " " + token
    params = {}
    for spec in rule.params:
        if spec.name in values:
            params[spec.name] = coerce_param(spec, values[spec.name])
        else:
            params[spec.name] = spec.default
    return params


_ROOT = QModelIndex()  # the invalid index: the table's root


class LayerTableModel(QAbstractTableModel):
    """Qt adapter over the document's draft and analysis (and the estimate, when there is one)."""

    edit_rejected = Signal(str)  # a value that was not applied, and why

    def __init__(self, document: PlanDocument, parent=None):
        super().__init__(parent)
        self._doc = document
        self._rows = len(document.draft.layers)
        self._headers = (self.tr("#"), self.tr("Name"), self.tr("Type"), self.tr("Parameters"),
                         self.tr("Output shape"), self.tr("Weights"),
                         self.tr("Kept for backward"))
        document.plan_changed.connect(self._on_plan_changed)

    # ---- structure ---------------------------------------------------------------------------
    def rowCount(self, parent=_ROOT) -> int:
        return 0 if parent.isValid() else self._rows

    def columnCount(self, parent=_ROOT) -> int:
        return 0 if parent.isValid() else len(self._headers)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(self._headers):
            if role == Qt.ItemDataRole.DisplayRole:
                return self._headers[section]
            if role == Qt.ItemDataRole.ToolTipRole and section == COL_KEPT:
                return self.tr("Bytes this layer is the first to keep for the backward pass, "
                               "at the batch size and precision set above")
            if role == Qt.ItemDataRole.ToolTipRole and section == COL_PARAMS:
                return self.tr("Edit as name=value pairs; parameters left out take their "
                               "defaults")
            if role == Qt.ItemDataRole.ToolTipRole and section == COL_COUNT:
                return self.tr("Trainable parameters (weights and biases) of the layer")
        return None

    def flags(self, index):
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if index.column() in (COL_NAME, COL_TYPE, COL_PARAMS):
            if index.column() == COL_TYPE and index.row() == 0:
                return base
            return base | Qt.ItemFlag.ItemIsEditable
        return base

    # ---- data --------------------------------------------------------------------------------
    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < self._rows:
            return None
        row, col = index.row(), index.column()
        draft = self._doc.draft
        if row >= len(draft.layers):
            return None
        layer = draft.layers[row]
        info = self._doc.analysis.layers[row] if row < len(self._doc.analysis.layers) else None
        error = info.error if info else None
        blocked = bool(info and info.blocked)
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return self._text(row, col, layer, info, role == Qt.ItemDataRole.EditRole)
        if role == Qt.ItemDataRole.ToolTipRole:
            if error:
                return arg(self.tr("layer %1 (%2): %3"), str(row), layer.name, tr_msg(error))
            if blocked:
                return self.tr("Waits for an earlier layer with an error")
            rule = RULES.get(layer.kind)
            if col == COL_TYPE and rule:
                return tr_core(rule.help)
            if col in (COL_NAME, COL_PARAMS):
                return self._text(row, col, layer, info, False)
            return None
        if role == Qt.ItemDataRole.BackgroundRole and error:
            return QBrush(ERROR_BG)
        if role == Qt.ItemDataRole.ForegroundRole:
            if error:
                return QBrush(ERROR_FG)
            if blocked:
                return QBrush(BLOCKED_FG)
        if role == Qt.ItemDataRole.FontRole and error and col == COL_PARAMS:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (COL_INDEX, COL_COUNT, COL_KEPT):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _text(self, row, col, layer: LayerSpec, info, edit: bool):
        if col == COL_INDEX:
            return str(row)
        if col == COL_NAME:
            return layer.name
        if col == COL_TYPE:
            if edit:
                return layer.kind
            rule = RULES.get(layer.kind)
            return tr_core(rule.label) if rule else layer.kind
        if col == COL_PARAMS:
            return params_text(layer)
        if col == COL_SHAPE:
            if info is None or info.out_shape is None:
                return "—"
            return _shape_str(info.out_shape)
        if col == COL_COUNT:
            if info is None or info.result is None:
                return "—"
            return format_count(info.parameters) if info.parameters else "0"
        if col == COL_KEPT:
            est = self._doc.estimate
            if est is None or row >= len(est.layers):
                return "—"
            return format_bytes(est.layers[row].activation_bytes)
        return None

    def setData(self, index, value, role=Qt.ItemDataRole.EditRole) -> bool:
        if (not index.isValid() or role != Qt.ItemDataRole.EditRole
                or not self.flags(index) & Qt.ItemFlag.ItemIsEditable):
            return False
        row, col = index.row(), index.column()
        draft = self._doc.draft
        layer = draft.layers[row]
        text = "" if value is None else str(value)
        try:
            if col == COL_NAME:
                name = text.strip()
                if not name:
                    raise LayerError(self.tr("every layer needs a name"))
                if name != layer.name and draft.index_of(name) is not None:
                    raise LayerError(arg(self.tr("the name '%1' is already used"), name))
                new = layer.replace(name=name)
            elif col == COL_TYPE:
                kind = text.strip()
                if kind not in RULES:
                    raise LayerError(arg(self.tr("unknown layer type '%1'"), kind))
                if kind == layer.kind:
                    return True
                new = LayerSpec(kind, layer.name, {"input": layer.params.get("input")}
                                if kind != "input" and layer.params.get("input") else {})
            elif col == COL_PARAMS:
                new = LayerSpec(layer.kind, layer.name, parse_params_text(layer.kind, text))
            else:
                return False
        except LayerError as exc:
            self.edit_rejected.emit(arg(self.tr("layer %1 (%2): %3 — not applied"),
                                        str(row), layer.name, exc_text(exc)))
            return False
        if new != layer:
            self._doc.edit_layer(row, new)
        return True

    # ---- follow the document -----------------------------------------------------------------
    @Slot()
    def _on_plan_changed(self) -> None:
        rows = len(self._doc.draft.layers)
        if rows != self._rows:
            self.beginResetModel()
            self._rows = rows
            self.endResetModel()
        elif rows:
            self.dataChanged.emit(self.index(0, 0), self.index(rows - 1, len(self._headers) - 1))


class LayerTypeDelegate(QStyledItemDelegate):
    """A combo box of layer types for the Type column."""

    def createEditor(self, parent: QWidget, option, index):
        combo = QComboBox(parent)
        for kind in KINDS:
            if kind != "input":
                combo.addItem(tr_core(RULES[kind].label), kind)
        return combo

    def setEditorData(self, editor: QComboBox, index) -> None:
        kind = index.data(Qt.ItemDataRole.EditRole)
        i = editor.findData(kind)
        if i >= 0:
            editor.setCurrentIndex(i)

    def setModelData(self, editor: QComboBox, model, index) -> None:
        model.setData(index, editor.currentData(), Qt.ItemDataRole.EditRole)


