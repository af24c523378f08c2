"""The layer table: one row per layer of the draft, editable in place.

Columns: #, name, type, parameters (compact "filters=64 kernel=3 stride=2" text), output shape,
parameter count, bytes kept for backward. A value that cannot be parsed is not applied: the model
emits ``edit_rejected`` with a message naming the layer. A value that parses but makes the draft
invalid (a kernel larger than its input) is applied, and the row shows the problem in red with a
tooltip until it is fixed or undone.

A repeated block ("layers × 32": ``NetworkDraft.repeats``) is one row, collapsed by default:
its parameters and the bytes its copies keep, summed over every copy. Expanded (``expand``,
the → or + key, a double-click or a click on its arrow) the block's layers follow it once
(copy 0's, with their names local to the block); an edit of one of them goes through
``PlanDocument.edit_layer`` and core's ``replace_layer``, which makes the same change in every
copy: one undo step. Display rows and draft layer indices differ once a block is collapsed:
``layer_index(row)`` and ``display_row(index)`` translate (the document, the properties panel
and the charts keep speaking layer indices).
"""

from __future__ import annotations

from typing import NamedTuple

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
from planner.core.repeat import BLOCK_INPUT, map_refs
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

BLOCK_ROLE = Qt.ItemDataRole.UserRole + 7  # "header" / "body" for a repeated block's rows
COLLAPSED_MARK, EXPANDED_MARK = "▸", "▾"
BODY_INDENT = "    "


class _Row(NamedTuple):
    """One display row: the draft layer it shows (a block header: the block's first layer),
    the repeated block it belongs to (None outside one) and whether it is the block's row."""

    index: int
    block: object = None  # planner.core.repeat.Repeat
    header: bool = False


class LayerTableModel(QAbstractTableModel):
    """Qt adapter over the document's draft and analysis (and the estimate, when there is one)."""

    edit_rejected = Signal(str)  # a value that was not applied, and why

    def __init__(self, document: PlanDocument, parent=None):
        super().__init__(parent)
        self._doc = document
        self._expanded: set[str] = set()  # names of the repeated blocks shown expanded
        self._layout_key = None
        self._map: list[_Row] = []
        self._row_of: list[int] = []  # layer index → display row
        self._rows = 0
        self._build_map()
        self._headers = (self.tr("#"), self.tr("Name"), self.tr("Type"), self.tr("Parameters"),
                         self.tr("Output shape"), self.tr("Weights"),
                         self.tr("Kept for backward"))
        document.plan_changed.connect(self._on_plan_changed)

    # ---- repeated blocks ---------------------------------------------------------------------
    def _key(self):
        draft = self._doc.draft
        return (len(draft.layers), draft.repeats, frozenset(self._expanded))

    def _build_map(self) -> None:
        """Display rows from the draft: plain layers one row each; a block one row, plus its
        layers once when expanded."""
        draft = self._doc.draft
        self._layout_key = self._key()
        n = len(draft.layers)
        if not draft.repeats:
            self._map = []
            self._row_of = []
            self._rows = n
            return
        starts = {r.first: r for r in draft.repeats}
        rows: list[_Row] = []
        row_of = [0] * n
        i = 0
        while i < n:
            rep = starts.get(i)
            if rep is None:
                row_of[i] = len(rows)
                rows.append(_Row(i))
                i += 1
                continue
            header = len(rows)
            rows.append(_Row(i, rep, True))
            open_ = rep.name in self._expanded
            for j in range(rep.length * rep.times):
                row_of[i + j] = header
            if open_:
                for j in range(rep.length):
                    row_of[i + j] = len(rows)
                    rows.append(_Row(i + j, rep))
                for k in range(1, rep.times):  # a later copy's layer shows as copy 0's
                    for j in range(rep.length):
                        row_of[i + k * rep.length + j] = header + 1 + j
            i += rep.length * rep.times
        self._map = rows
        self._row_of = row_of
        self._rows = len(rows)

    def _entry(self, row: int) -> _Row:
        return self._map[row] if self._map else _Row(row)

    def layer_index(self, row: int) -> int:
        """The draft layer a display row shows (a block's row: the block's first layer)."""
        if not self._map:
            return row
        return self._map[row].index if 0 <= row < len(self._map) else row

    def display_row(self, index: int) -> int:
        """The display row showing draft layer ``index`` (in a collapsed block: its row)."""
        if not self._row_of:
            return index
        return self._row_of[index] if 0 <= index < len(self._row_of) else index

    def block_at(self, row: int):
        """(Repeat, is its header row) for a display row inside a block, else None."""
        if not self._map or not 0 <= row < len(self._map):
            return None
        e = self._map[row]
        return (e.block, e.header) if e.block is not None else None

    def block_of_layer(self, index: int):
        """The repeated block draft layer ``index`` belongs to, or None."""
        for rep in self._doc.draft.repeats:
            if rep.copy_of(index) is not None:
                return rep
        return None

    def is_expanded(self, name: str) -> bool:
        return name in self._expanded

    def set_expanded(self, name: str, on: bool) -> None:
        """Show a block's layers (on) or only its row; the rows are laid out again."""
        if on == (name in self._expanded):
            return
        if on:
            self._expanded.add(name)
        else:
            self._expanded.discard(name)
        self.beginResetModel()
        self._build_map()
        self.endResetModel()

    def _block_text(self, rep, col: int):
        est = self._doc.estimate
        first, end = rep.first, rep.first + rep.length * rep.times
        infos = self._doc.analysis.layers
        if col == COL_INDEX:
            return f"{first}–{end - 1}"
        if col == COL_NAME:
            mark = EXPANDED_MARK if rep.name in self._expanded else COLLAPSED_MARK
            return f"{mark} {arg(self.tr('%1 × %2'), rep.name, str(rep.times))}"
        if col == COL_TYPE:
            return self.tr("Repeated block")
        if col == COL_PARAMS:
            return arg(self.tr("%1 copies of %2 layers"), str(rep.times), str(rep.length))
        if col == COL_SHAPE:
            info = infos[end - 1] if end - 1 < len(infos) else None
            return "—" if info is None or info.out_shape is None else _shape_str(info.out_shape)
        if col == COL_COUNT:
            span = infos[first:end]
            if len(span) < end - first or any(i.result is None for i in span):
                return "—"
            total = sum(i.parameters for i in span)
            return format_count(total) if total else "0"
        if col == COL_KEPT:
            if est is None or end > len(est.layers):
                return "—"
            return format_bytes(sum(layer.activation_bytes for layer in est.layers[first:end]))
        return None

    def _block_refs(self, rep):
        """(layer before the block, copy 0's prefix, copy 0's local names)."""
        layers = self._doc.draft.layers
        prefix = f"{rep.name}.0."
        local = {layer.name[len(prefix):] for layer in layers[rep.first:rep.first + rep.length]
                 if layer.name.startswith(prefix)}
        return layers[rep.first - 1].name, prefix, local

    def _to_block_local(self, layer: LayerSpec, rep) -> LayerSpec:
        """Copy 0's layer as a plan file holds the block: names local to it, ``@input`` for
        the layer before each copy."""
        before, prefix, _local = self._block_refs(rep)

        def fn(ref: str) -> str:
            if ref == before:
                return BLOCK_INPUT
            return ref[len(prefix):] if ref.startswith(prefix) else ref

        return LayerSpec(layer.kind, layer.name, map_refs(layer.params, fn))

    def _from_block_local(self, layer: LayerSpec, rep) -> LayerSpec:
        before, prefix, local = self._block_refs(rep)

        def fn(ref: str) -> str:
            if ref == BLOCK_INPUT:
                return before
            return prefix + ref if ref in local else ref

        return LayerSpec(layer.kind, layer.name, map_refs(layer.params, fn))

    def _block_error(self, rep):
        """(layer index, info) of the block's first layer with an error, or None."""
        infos = self._doc.analysis.layers
        for i in range(rep.first, min(len(infos), rep.first + rep.length * rep.times)):
            if infos[i].error:
                return i, infos[i]
        return None

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
        entry = self._entry(index.row()) if 0 <= index.row() < self._rows else _Row(-1)
        if entry.header:
            return base
        if index.column() in (COL_NAME, COL_TYPE, COL_PARAMS):
            if index.column() == COL_TYPE and entry.index == 0:
                return base
            return base | Qt.ItemFlag.ItemIsEditable
        return base

    # ---- data --------------------------------------------------------------------------------
    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if role not in _ROLES or not index.isValid() or not 0 <= index.row() < self._rows:
            return None  # a view asks for roles no cell has (decoration, check state, …)
        col = index.column()
        entry = self._entry(index.row())
        if entry.header:
            return self._header_data(entry.block, col, role)
        row = entry.index
        draft = self._doc.draft
        if row >= len(draft.layers):
            return None
        layer = draft.layers[row]
        info = self._doc.analysis.layers[row] if row < len(self._doc.analysis.layers) else None
        error = info.error if info else None
        blocked = bool(info and info.blocked)
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            text = self._text(row, col, layer, info, role == Qt.ItemDataRole.EditRole)
            if entry.block is not None and col == COL_NAME:  # a block's layer: its local name
                text = _local_name(layer.name, entry.block)
                if role == Qt.ItemDataRole.DisplayRole:
                    text = BODY_INDENT + text
            elif entry.block is not None and col == COL_PARAMS:
                text = params_text(self._to_block_local(layer, entry.block))
            return text
        if role == BLOCK_ROLE:
            return "body" if entry.block is not None else None
        if role == Qt.ItemDataRole.ToolTipRole:
            if entry.block is not None and not error and col in (COL_INDEX, COL_NAME,
                                                                 COL_COUNT, COL_KEPT):
                rep = entry.block
                return arg(self.tr("%1: in every one of the %2 copies of %3 (the figures are "
                                   "one copy's); an edit changes every copy"),
                           layer.name, str(rep.times), rep.name)
            if entry.block is not None and not error and col == COL_PARAMS:
                return arg(self.tr("%1\nNames are the block's own; @input is what each copy "
                                   "starts from (the layer before the block for the first "
                                   "copy, the copy before for the others)."),
                           self._text(row, col, layer, info, False))
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
        if role == Qt.ItemDataRole.ForegroundRole and blocked and not error:
            return QBrush(BLOCKED_FG)
        return _cell_style(role, col, error=bool(error), bold=bool(error) and col == COL_PARAMS)

    def _header_data(self, rep, col: int, role):
        err = self._block_error(rep)
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return self._block_text(rep, col)
        if role == BLOCK_ROLE:
            return "header"
        if role == Qt.ItemDataRole.ToolTipRole:
            if err is not None:
                i, info = err
                return arg(self.tr("layer %1 (%2): %3"), str(i),
                           self._doc.draft.layers[i].name, tr_msg(info.error))
            key = self.tr("→ or + shows its layers, ← or − hides them") \
                if rep.name not in self._expanded else self.tr("← or − hides its layers")
            return arg(self.tr("A repeated block: %1 copies of %2 layers, one after the other. "
                               "The weights and the bytes kept are the sum over every copy. "
                               "Its layers are shown once; a change to one of them changes "
                               "every copy. %3"), str(rep.times), str(rep.length), key)
        return _cell_style(role, col, error=err is not None, bold=True)

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
        entry = self._entry(index.row())
        row, col = entry.index, index.column()
        draft = self._doc.draft
        layer = draft.layers[row]
        text = "" if value is None else str(value)
        try:
            if col == COL_NAME:
                name = text.strip()
                if not name:
                    raise LayerError(self.tr("every layer needs a name"))
                if entry.block is not None:  # typed local to the block: the copy's full name
                    name = f"{entry.block.name}.0.{name}"
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
                if entry.block is not None:  # names local to the block, as shown
                    new = self._from_block_local(new, entry.block)
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
        if self._key() != self._layout_key:
            names = {r.name for r in self._doc.draft.repeats}
            self._expanded &= names  # a block that is gone is not remembered as open
            self.beginResetModel()
            self._build_map()
            self.endResetModel()
        elif self._rows:
            self.dataChanged.emit(self.index(0, 0),
                                  self.index(self._rows - 1, len(self._headers) - 1))


_ROLES = frozenset((Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole,
                    Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.ForegroundRole,
                    Qt.ItemDataRole.BackgroundRole, Qt.ItemDataRole.FontRole,
                    Qt.ItemDataRole.TextAlignmentRole, BLOCK_ROLE))  # what data() answers


def _cell_style(role, col: int, *, error: bool, bold: bool):
    """The colours, font and alignment of a cell: red for an error, numbers to the right."""
    if role == Qt.ItemDataRole.BackgroundRole and error:
        return QBrush(ERROR_BG)
    if role == Qt.ItemDataRole.ForegroundRole and error:
        return QBrush(ERROR_FG)
    if role == Qt.ItemDataRole.FontRole and bold:
        font = QFont()
        font.setBold(True)
        return font
    if role == Qt.ItemDataRole.TextAlignmentRole and col in (COL_INDEX, COL_COUNT, COL_KEPT):
        return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return None


def _local_name(name: str, rep) -> str:
    prefix = f"{rep.name}.0."
    return name[len(prefix):] if name.startswith(prefix) else name


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


