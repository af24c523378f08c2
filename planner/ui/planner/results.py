"""Read-only table adapters for the estimate: per layer, the article's accounting, and the
"what would help" suggestions. Each keeps its rows as a tuple and is reset when they change."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt

from planner.core.layers import RULES, shape_str
from planner.core.memory import MemoryEstimate
from planner.units import format_bytes, format_count
from planner.ui.i18n import tr_core, tr_msg
from planner.ui.tables import SORT_ROLE, HeaderTableModel

_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


class _RowsModel(HeaderTableModel):
    """Rows of cells: each cell is (text, sort value, tooltip or None)."""

    def __init__(self, headers: Sequence[str], numeric: Sequence[int] = (), parent=None):
        super().__init__(parent)
        self._headers = tuple(headers)
        self._numeric = frozenset(numeric)
        self._rows: tuple[tuple[tuple[str, Any, str | None], ...], ...] = ()
        self._stale = False
        self.format_bytes = format_bytes  # the user's units (settings.byte_formatter)

    def set_rows(self, rows, *, stale: bool = False) -> None:
        self.beginResetModel()
        self._rows = tuple(rows)
        self._stale = stale
        self.endResetModel()

    def _row_count(self) -> int:
        return len(self._rows)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        row = self._rows[index.row()]
        if not 0 <= index.column() < len(row):
            return None
        text, value, tip = row[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return text
        if role == SORT_ROLE:
            return value
        if role == Qt.ItemDataRole.ToolTipRole:
            return tip
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() in self._numeric:
            return _RIGHT
        if role == Qt.ItemDataRole.ForegroundRole and self._stale:
            from PySide6.QtGui import QBrush, QColor

            return QBrush(QColor(150, 150, 150))
        return None


def _cell(text: str, value: Any = None, tip: str | None = None):
    return (text, text if value is None else value, tip)


class LayerEstimateTableModel(_RowsModel):
    """Per layer: output shape, parameters, bytes kept for backward, output, workspace, FLOPs."""

    def __init__(self, parent=None):
        super().__init__(
            (self.tr("#"), self.tr("Layer"), self.tr("Type"), self.tr("Output shape"),
             self.tr("Parameters"), self.tr("Kept for backward"), self.tr("Output"),
             self.tr("Workspace"), self.tr("FLOPs forward"), self.tr("FLOPs backward")),
            numeric=(0, 4, 5, 6, 7, 8, 9), parent=parent)

    def set_estimate(self, est: MemoryEstimate | None, *, stale: bool = False) -> None:
        rows = []
        fmt = self.format_bytes
        for layer in (est.layers if est else ()):
            rule = RULES.get(layer.kind)
            rows.append((
                _cell(str(layer.index), layer.index),
                _cell(layer.name),
                _cell(tr_core(rule.label) if rule else layer.kind),
                _cell(shape_str(layer.output_shape)),
                _cell(format_count(layer.parameters), layer.parameters,
                      f"{layer.parameters:,}"),
                _cell(fmt(layer.activation_bytes), layer.activation_bytes,
                      f"{layer.activation_bytes:,} B"),
                _cell(fmt(layer.output_bytes), layer.output_bytes,
                      f"{layer.output_bytes:,} B"),
                _cell(fmt(layer.workspace_bytes) if layer.workspace_bytes else "—",
                      layer.workspace_bytes),
                _cell(format_count(layer.flops_fwd), layer.flops_fwd, f"{layer.flops_fwd:,}"),
                _cell(format_count(layer.flops_bwd) if layer.flops_bwd else "—",
                      layer.flops_bwd, f"{layer.flops_bwd:,}"),
            ))
        self.set_rows(rows, stale=stale)


class ClassicTableModel(_RowsModel):
    """The article's accounting: activation + error per layer, and what the article printed."""

    def __init__(self, parent=None):
        super().__init__((self.tr("Layer"), self.tr("Activation + error"),
                          self.tr("Article's arithmetic"), self.tr("Note")),
                         numeric=(1, 2), parent=parent)

    def set_estimate(self, est: MemoryEstimate | None, *, stale: bool = False) -> None:
        rows = []
        for r in (est.classic if est else ()):
            mib = f"{r.bytes / 1024**2:,.0f} MiB"
            article = (f"{r.article_bytes / 1024**2:,.0f} MiB" if r.article_bytes is not None
                       else "—")
            rows.append((_cell(r.name), _cell(mib, r.bytes, f"{r.bytes:,} B"),
                         _cell(article, r.article_bytes or 0),
                         _cell(tr_msg(r.note), None, tr_msg(r.note))))
        self.set_rows(rows, stale=stale)


class SuggestionTableModel(_RowsModel):
    """What each memory-reduction technique would save; the first column reads the technique
    and its caution, the view puts an Apply button in the last column."""

    APPLY_COLUMN = 3

    def __init__(self, parent=None):
        super().__init__((self.tr("Technique and caution"), self.tr("Saves"),
                          self.tr("New peak"), ""), numeric=(1, 2), parent=parent)
        self._suggestions: tuple = ()

    @property
    def suggestions(self) -> tuple:
        return self._suggestions

    def set_suggestions(self, suggestions: Sequence) -> None:
        self._suggestions = tuple(suggestions)
        rows = []
        for s in self._suggestions:
            title, caution, detail = tr_msg(s.title), tr_msg(s.caution), tr_msg(s.detail)
            rows.append((_cell(f"{title}\n{caution}", title, f"{detail}\n\n{caution}"),
                         _cell(self.format_bytes(s.saving_bytes), s.saving_bytes),
                         _cell(self.format_bytes(s.new_peak_bytes), s.new_peak_bytes),
                         _cell("")))
        self.set_rows(rows)
