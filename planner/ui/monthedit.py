"""A month field ("2017-03") that takes what the user types.

``QDateEdit`` with a "yyyy-MM" format edits one section at a time: after a click or Ctrl+A,
typing "2017-03" replaces the whole text with "2", which its section parser fixes back to the
old year, so the field ends at 2026-03. This field parses the whole text instead: typing a
month (with or without the dash) or stepping with the arrow keys and the mouse wheel both
work. It keeps QDateEdit's interface where the panes use it (``date``, ``setDate``,
``dateChanged``, ``setMinimumDate``, ``setMaximumDate``). Not a ``QDateEdit`` subclass:
its key handling (a separator jumps to the next section) is what goes wrong.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QDate, Signal, Slot
from PySide6.QtGui import QValidator
from PySide6.QtWidgets import QAbstractSpinBox, QWidget

_MONTH = re.compile(r"\s*(\d{4})\s*[-/.]?\s*(\d{1,2})\s*")
_PARTIAL = re.compile(r"\s*\d{0,4}\s*([-/.]\s*\d{0,2})?\s*|\s*\d{5,6}\s*")


class MonthEdit(QAbstractSpinBox):
    """A month between a minimum and a maximum; ``dateChanged`` carries its first day."""

    dateChanged = Signal(QDate)  # noqa: N815 (QDateEdit's name)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._min = QDate(1900, 1, 1)
        self._max = QDate(2999, 12, 1)
        self._date = QDate.currentDate()
        self._date = QDate(self._date.year(), self._date.month(), 1)
        self.setCorrectionMode(QAbstractSpinBox.CorrectionMode.CorrectToPreviousValue)
        self.setKeyboardTracking(False)
        self.lineEdit().setText(self._text())
        self.editingFinished.connect(self._on_editing_finished)

    # -- the QDateEdit interface the panes use -------------------------------------------------

    def date(self) -> QDate:
        return QDate(self._date)

    def setDate(self, date: QDate) -> None:  # noqa: N802
        date = self._clamp(QDate(date.year(), date.month(), 1))
        changed = date != self._date
        self._date = date
        self.lineEdit().setText(self._text())
        if changed:
            self.dateChanged.emit(QDate(date))

    def minimumDate(self) -> QDate:  # noqa: N802
        return QDate(self._min)

    def maximumDate(self) -> QDate:  # noqa: N802
        return QDate(self._max)

    def setMinimumDate(self, date: QDate) -> None:  # noqa: N802
        self._min = QDate(date.year(), date.month(), 1)
        self.setDate(self._date)

    def setMaximumDate(self, date: QDate) -> None:  # noqa: N802
        self._max = QDate(date.year(), date.month(), 1)
        self.setDate(self._date)

    def setDisplayFormat(self, _fmt: str) -> None:  # noqa: N802 (always yyyy-MM)
        pass

    def setCalendarPopup(self, _on: bool) -> None:  # noqa: N802 (no calendar for a month)
        pass

    # -- parsing -------------------------------------------------------------------------------

    def _text(self) -> str:
        return self._date.toString("yyyy-MM")

    def _clamp(self, date: QDate) -> QDate:
        return max(self._min, min(self._max, date))

    @staticmethod
    def _parse(text: str) -> QDate | None:
        m = _MONTH.fullmatch(text)
        if not m:
            return None
        year, month = int(m.group(1)), int(m.group(2))
        if not 1 <= month <= 12:
            return None
        return QDate(year, month, 1)

    @Slot()
    def _on_editing_finished(self) -> None:
        date = self._parse(self.lineEdit().text())
        if date is not None and self._min <= date <= self._max:
            self.setDate(date)
        else:
            self.lineEdit().setText(self._text())  # not a month in range: the old one stays

    # -- QAbstractSpinBox ----------------------------------------------------------------------

    def validate(self, text: str, pos: int):  # noqa: D102
        date = self._parse(text)
        if date is not None and self._min <= date <= self._max:
            return QValidator.State.Acceptable, text, pos
        if _PARTIAL.fullmatch(text) or date is not None:
            return QValidator.State.Intermediate, text, pos
        return QValidator.State.Invalid, text, pos

    def fixup(self, text: str) -> str:
        return self._text()

    def stepBy(self, steps: int) -> None:  # noqa: N802
        self.setDate(self._date.addMonths(steps))

    def stepEnabled(self):  # noqa: N802
        flags = QAbstractSpinBox.StepEnabledFlag.StepNone
        if self._date > self._min:
            flags |= QAbstractSpinBox.StepEnabledFlag.StepDownEnabled
        if self._date < self._max:
            flags |= QAbstractSpinBox.StepEnabledFlag.StepUpEnabled
        return flags
