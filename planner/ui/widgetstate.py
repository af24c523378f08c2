"""What a user has set in a pane's input widgets, kept across a rebuild of the pane.

A change of language rebuilds the Catalog and Advisor panes (their texts are made when they
are built); ``snapshot`` notes every input widget's value (combo boxes, spin boxes, month
fields, check boxes, line edits) in the order the pane made them, and ``restore`` sets them
again on the new pane of the same build, so the profile, the date, "Use my plan" and every
typed override stay as they were. Widgets are matched by class and position, which a rebuild
of the same pane keeps; a value that no longer fits (a combo item that is gone) is skipped.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QDate, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QComboBox,
    QDoubleSpinBox,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from planner.ui.monthedit import MonthEdit


def _inputs(root: QWidget) -> list[QWidget]:
    out = []
    for w in root.findChildren(QWidget):
        if isinstance(w, QLineEdit) and isinstance(w.parent(), (QAbstractSpinBox, QComboBox)):
            continue  # the editor inside a spin box or an editable combo: its owner counts
        if isinstance(w, (QComboBox, QSpinBox, QDoubleSpinBox, MonthEdit, QLineEdit)) or (
                isinstance(w, QAbstractButton) and w.isCheckable()):
            out.append(w)
    return out


def _value(w: QWidget) -> Any:
    if isinstance(w, QComboBox):
        data = w.currentData()
        return ("data", data) if data is not None else ("text", w.currentText())
    if isinstance(w, (QSpinBox, QDoubleSpinBox)):
        return w.value()
    if isinstance(w, MonthEdit):
        return w.date().toString(Qt.DateFormat.ISODate)
    if isinstance(w, QLineEdit):
        return w.text()
    return w.isChecked()


def snapshot(root: QWidget) -> list[tuple[str, int, Any]]:
    """(class name, position among that class, value) for every input widget under root."""
    counts: dict[str, int] = {}
    out = []
    for w in _inputs(root):
        name = type(w).__name__
        k = counts.get(name, 0)
        counts[name] = k + 1
        out.append((name, k, _value(w)))
    return out


def restore(root: QWidget, state: list[tuple[str, int, Any]]) -> int:
    """Set the values of ``snapshot`` again on a rebuilt ``root``; returns how many were set."""
    by_key: dict[tuple[str, int], QWidget] = {}
    counts: dict[str, int] = {}
    for w in _inputs(root):
        name = type(w).__name__
        k = counts.get(name, 0)
        counts[name] = k + 1
        by_key[(name, k)] = w
    done = 0
    for name, k, value in state:
        w = by_key.get((name, k))
        if w is None:
            continue
        if _value(w) == value:
            continue
        if isinstance(w, QComboBox):
            kind, v = value
            i = w.findData(v) if kind == "data" else w.findText(v)
            if i < 0 and kind == "text" and w.isEditable():
                w.setEditText(v)
                done += 1
            elif i >= 0:
                w.setCurrentIndex(i)
                done += 1
        elif isinstance(w, (QSpinBox, QDoubleSpinBox)):
            w.setValue(value)
            done += 1
        elif isinstance(w, MonthEdit):
            w.setDate(QDate.fromString(value, Qt.DateFormat.ISODate))
            done += 1
        elif isinstance(w, QLineEdit):
            w.setText(value)
            w.editingFinished.emit()
            done += 1
        else:
            w.setChecked(bool(value))
            done += 1
    return done
