"""The owned-cards table: the cards the monitor detected and those the user added by hand."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt

from planner.core.catalog import OwnedCard
from planner.ui.tables import HeaderTableModel


COL_CARD, COL_CONDITION, COL_COUNT, COL_SOURCE = range(4)


class OwnedCardsTableModel(HeaderTableModel):
    """Rows: detected cards first (marked "detected"), then the hand-added ones. Read-only;
    the pane adds and removes rows through ``set_cards``."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._detected: tuple[OwnedCard, ...] = ()
        self.simulated = False  # the detected cards come from the simulated source (--demo)
        self._manual: tuple[OwnedCard, ...] = ()
        self._headers = (self.tr("Card"), self.tr("Condition"), self.tr("Count"),
                         self.tr("Source"))

    # ------------------------------------------------------------------ data the pane uses
    def set_cards(self, manual: Sequence[OwnedCard], detected: Sequence[OwnedCard]) -> None:
        self.beginResetModel()
        self._manual = tuple(manual)
        self._detected = tuple(detected)
        self.endResetModel()

    @property
    def manual(self) -> tuple[OwnedCard, ...]:
        return self._manual

    @property
    def detected(self) -> tuple[OwnedCard, ...]:
        return self._detected

    def owned(self) -> tuple[OwnedCard, ...]:
        """What the advisor counts as owned: every detected card, and each hand-added card
        whose name the monitor did not already find (the same card is not counted twice)."""
        seen = {o.name for o in self._detected}
        return self._detected + tuple(o for o in self._manual if o.name not in seen)

    def is_detected(self, row: int) -> bool:
        return 0 <= row < len(self._detected)

    def card_at(self, row: int) -> OwnedCard | None:
        rows = self._detected + self._manual
        return rows[row] if 0 <= row < len(rows) else None

    # ------------------------------------------------------------------ Qt model interface
    def _row_count(self) -> int:
        return len(self._detected) + len(self._manual)

    def flags(self, index):
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or index.parent().isValid():
            return None
        card = self.card_at(index.row())
        if card is None:
            return None
        detected = self.is_detected(index.row())
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if col == COL_CARD:
                return card.name
            if col == COL_CONDITION:
                return self.tr("new") if card.condition == "new" else self.tr("used")
            if col == COL_COUNT:
                return str(card.count)
            if col == COL_SOURCE:
                if detected:
                    return self.tr("simulated") if self.simulated else self.tr("detected")
                return self.tr("added")
        elif role == Qt.ItemDataRole.ToolTipRole:
            if detected:
                return self.tr("Found in this computer by the monitor; counts as owned.")
            return self.tr("Added by hand; saved with your catalog overrides.")
        elif role == Qt.ItemDataRole.TextAlignmentRole and col == COL_COUNT:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        elif role == Qt.ItemDataRole.UserRole:
            return card
        return None
