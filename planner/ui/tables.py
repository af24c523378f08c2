"""What the app's tables share: the flat, read-only models' fixed column headers (with
optional header tooltips), row count and bounds check, and the row-wise view around them."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QWidget

_ROOT = QModelIndex()  # the invalid index: the table's root

SORT_ROLE = Qt.ItemDataRole.UserRole + 1  # the raw value behind a formatted cell (None: none)

_Index = QModelIndex | QPersistentModelIndex


class HeaderTableModel(QAbstractTableModel):
    """A table with one header per column. A subclass sets ``_headers`` (and, for header
    tooltips, ``_header_tips``: one per column, empty for none) and says how many rows it
    has in ``_row_count()``."""

    _headers: tuple[str, ...] = ()
    _header_tips: tuple[str, ...] = ()

    def _row_count(self) -> int:
        raise NotImplementedError

    def _in_range(self, index: _Index) -> bool:
        """A valid index inside the table (what ``data()`` can answer)."""
        return (index.isValid() and 0 <= index.row() < self._row_count()
                and 0 <= index.column() < len(self._headers))

    def rowCount(self, parent: _Index = _ROOT) -> int:  # noqa: N802
        return 0 if parent.isValid() else self._row_count()

    def columnCount(self, parent: _Index = _ROOT) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._headers)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self._headers):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self._headers[section]
        if role == Qt.ItemDataRole.ToolTipRole and section < len(self._header_tips):
            return self._header_tips[section] or None
        return None


def row_table(model: QAbstractTableModel, parent: QWidget | None = None) -> QTableView:
    """A view of whole rows: rows are selected whole, colours alternate, no row numbers,
    compact rows, and the columns can be resized by hand. Callers add what differs."""
    view = QTableView(parent)
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setAlternatingRowColors(True)
    view.verticalHeader().setVisible(False)
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 8)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    return view


class NoneLastProxyModel(QSortFilterProxyModel):
    """Sorts on ``SORT_ROLE`` (the raw value behind a formatted cell); cells without a value
    go last whichever way the column is sorted; numbers compare as numbers, anything else of
    mixed types as text."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setSortRole(SORT_ROLE)

    def lessThan(self, left: QModelIndex, right: QModelIndex) -> bool:  # noqa: N802
        a = left.data(SORT_ROLE)
        b = right.data(SORT_ROLE)
        if a is None or b is None:
            if a is None and b is None:
                return False
            ascending = self.sortOrder() == Qt.SortOrder.AscendingOrder
            return (b is None) == ascending
        if type(a) is not type(b) and not (isinstance(a, (int, float))
                                           and isinstance(b, (int, float))):
            return str(a) < str(b)
        try:
            return a < b
        except TypeError:
            return str(a) < str(b)
