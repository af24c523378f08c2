"""The Catalog pane's dialogs: a price of the user's own, a custom card, and the side-by-side
comparison. The two editing dialogs validate in ``accept`` and show what is wrong inside the
dialog (they stay open); ``price_point()`` / ``spec()`` give the result, so tests fill the fields
and call ``accept()`` without ever running a modal loop."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QDate, Qt, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QSpinBox,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from planner.ui.i18n import arg
from planner.core.catalog import (
    ARCHITECTURES,
    CONDITIONS,
    SEGMENTS,
    USER_PRICE_SOURCE,
    Catalog,
    CatalogError,
    GpuSpec,
    PricePoint,
    spec_from_dict,
)
from planner.ui.monthedit import MonthEdit
from planner.ui.catalog.models import CompareTableModel, format_price


def _error_label() -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.setStyleSheet("color: #b00000;")
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setVisible(False)
    return label


def _month_edit(month: str | None = None) -> MonthEdit:
    edit = MonthEdit()
    edit.setDisplayFormat("yyyy-MM")
    edit.setCalendarPopup(False)
    edit.setMinimumDate(QDate(1990, 1, 1))
    edit.setMaximumDate(QDate(2100, 12, 1))
    if month:
        y, m = (int(x) for x in month.split("-"))
        edit.setDate(QDate(y, m, 1))
    else:
        today = _dt.date.today()
        edit.setDate(QDate(today.year, today.month, 1))
    return edit


class _ValidatingDialog(QDialog):
    """A form whose OK checks it first: ``validate()`` gives the result, or shows why not in
    ``error_label`` (via ``_fail``) and returns None, and the dialog stays open."""

    error_label: QLabel
    _result: Any = None

    def validate(self) -> Any:
        raise NotImplementedError

    def _fail(self, message: str) -> None:
        self.error_label.setText(message)
        self.error_label.setVisible(True)
        return None

    @Slot()
    def accept(self) -> None:
        result = self.validate()
        if result is not None:
            self._result = result
            super().accept()


class PriceDialog(_ValidatingDialog):
    """A price of the user's own for one card: month, USD, new or used, where it comes from."""

    def __init__(self, card: GpuSpec, catalog: Catalog, parent: QWidget | None = None):
        super().__init__(parent)
        self.card = card
        self.setWindowTitle(arg(self.tr("Edit price — %1"), card.name))
        self.month_edit = _month_edit()
        self.usd_spin = QDoubleSpinBox()
        self.usd_spin.setRange(0, 1_000_000)
        self.usd_spin.setDecimals(2)
        self.usd_spin.setPrefix("$ ")
        self.usd_spin.setSingleStep(10)
        self.condition_combo = QComboBox()
        for cond in CONDITIONS:
            self.condition_combo.addItem(self.tr(cond), cond)
        self.source_edit = QLineEdit(USER_PRICE_SOURCE)
        self.source_edit.setPlaceholderText(self.tr("where the figure comes from"))
        latest = catalog.price(card, None, "used") or catalog.price(card, None, "new")
        if latest is not None:
            self.usd_spin.setValue(latest.usd)
            self.condition_combo.setCurrentIndex(max(0, self.condition_combo.findData(
                latest.condition)))
        known = QLabel(arg(self.tr("Latest known: new %1; used %2"),
                           format_price(catalog.price(card, None, "new")),
                           format_price(catalog.price(card, None, "used"))))
        known.setWordWrap(True)
        form = QFormLayout()
        form.addRow(self.tr("Month:"), self.month_edit)
        form.addRow(self.tr("Price:"), self.usd_spin)
        form.addRow(self.tr("Condition:"), self.condition_combo)
        form.addRow(self.tr("Source:"), self.source_edit)
        self.error_label = _error_label()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(known)
        layout.addLayout(form)
        layout.addWidget(self.error_label)
        layout.addWidget(buttons)

    def set_values(self, month: str, usd: float, condition: str = "new",
                   source: str | None = None) -> None:
        y, m = (int(x) for x in month.split("-"))
        self.month_edit.setDate(QDate(y, m, 1))
        self.usd_spin.setValue(usd)
        self.condition_combo.setCurrentIndex(max(0, self.condition_combo.findData(condition)))
        if source is not None:
            self.source_edit.setText(source)

    def price_point(self) -> PricePoint | None:
        """The point entered (after a successful ``accept``)."""
        return self._result

    def validate(self) -> PricePoint | None:
        self.error_label.setVisible(False)
        usd = self.usd_spin.value()
        if usd <= 0:
            return self._fail(self.tr("The price must be more than $0."))
        source = self.source_edit.text().strip() or USER_PRICE_SOURCE
        return PricePoint(date=self.month_edit.date().toString("yyyy-MM"), usd=float(usd),
                          condition=self.condition_combo.currentData(), source=source)


class CustomCardDialog(_ValidatingDialog):
    """A card of the user's own. Validated like a catalog row (``spec_from_dict(custom=True)``);
    what is wrong is shown in the dialog. Optional numbers left at 0 are "not given"."""

    def __init__(self, catalog: Catalog, parent: QWidget | None = None):
        super().__init__(parent)
        self.catalog = catalog
        self.setWindowTitle(self.tr("Add custom card"))
        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText(self.tr("e.g. My RTX 4090 (modded 48 GB)"))
        self.architecture_combo = QComboBox()
        for a in ARCHITECTURES:
            self.architecture_combo.addItem(a, a)
        self.architecture_combo.setCurrentIndex(self.architecture_combo.findData("Ada Lovelace"))
        self.segment_combo = QComboBox()
        for s in SEGMENTS:
            self.segment_combo.addItem(self.tr(s), s)
        self.cc_edit = QLineEdit()
        self.cc_edit.setPlaceholderText("8.9")
        self.memory_spin = self._spin(0, 1024, 1, " GiB")
        self.bandwidth_spin = self._spin(0, 100_000, 1, " GB/s")
        self.fp32_spin = self._spin(0, 10_000, 2, " TFLOPS")
        # optional
        self.memory_type_edit = QLineEdit()
        self.memory_type_edit.setPlaceholderText("GDDR6X")
        self.bus_spin = QSpinBox()
        self.bus_spin.setRange(0, 8192)
        self.bus_spin.setSuffix(" bit")
        self.bus_spin.setSpecialValueText(self.tr("not given"))
        self.tensor_check = QCheckBox(self.tr("has tensor cores"))
        self.tensor_spin = self._spin(0, 100_000, 1, " TFLOPS", optional=True)
        self.tdp_spin = self._spin(0, 5000, 0, " W", optional=True)
        self.launch_spin = self._spin(0, 1_000_000, 0, "", optional=True)
        self.launch_spin.setPrefix("$ ")
        self.release_check = QCheckBox()
        self.release_edit = _month_edit()
        self.release_edit.setEnabled(False)
        self.release_check.toggled.connect(self.release_edit.setEnabled)
        self.notes_edit = QLineEdit()
        self.source_edit = QLineEdit()
        self.source_edit.setPlaceholderText(self.tr("your own card"))

        required = QGroupBox(self.tr("Required"))
        form = QFormLayout(required)
        form.addRow(self.tr("Name:"), self.name_edit)
        form.addRow(self.tr("Architecture:"), self.architecture_combo)
        form.addRow(self.tr("Segment:"), self.segment_combo)
        form.addRow(self.tr("Compute capability:"), self.cc_edit)
        form.addRow(self.tr("Memory:"), self.memory_spin)
        form.addRow(self.tr("Bandwidth:"), self.bandwidth_spin)
        form.addRow(self.tr("FP32:"), self.fp32_spin)
        optional = QGroupBox(self.tr("Optional (0 = not given)"))
        form2 = QFormLayout(optional)
        form2.addRow(self.tr("Memory type:"), self.memory_type_edit)
        form2.addRow(self.tr("Bus width:"), self.bus_spin)
        tensor_row = QHBoxLayout()
        tensor_row.addWidget(self.tensor_check)
        tensor_row.addWidget(self.tensor_spin, 1)
        form2.addRow(self.tr("FP16 tensor:"), tensor_row)
        form2.addRow(self.tr("TDP:"), self.tdp_spin)
        form2.addRow(self.tr("Launch price:"), self.launch_spin)
        release_row = QHBoxLayout()
        release_row.addWidget(self.release_check)
        release_row.addWidget(self.release_edit, 1)
        form2.addRow(self.tr("Release:"), release_row)
        form2.addRow(self.tr("Notes:"), self.notes_edit)
        form2.addRow(self.tr("Source:"), self.source_edit)
        self.error_label = _error_label()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(required)
        layout.addWidget(optional)
        layout.addWidget(self.error_label)
        layout.addWidget(buttons)

    def _spin(self, lo: float, hi: float, decimals: int, suffix: str,
              optional: bool = False) -> QDoubleSpinBox:
        spin = QDoubleSpinBox()
        spin.setRange(lo, hi)
        spin.setDecimals(decimals)
        spin.setSuffix(suffix)
        if optional:
            spin.setSpecialValueText(self.tr("not given"))
        return spin

    def set_values(self, **values: Any) -> None:
        """Fill fields by name: name, architecture, segment, compute_capability, memory_gib,
        bandwidth_gbs, fp32_tflops, memory_type, bus_width_bits, fp16_tensor_tflops, tdp_w,
        launch_price_usd, release, notes, source."""
        setters: dict[str, Callable[[Any], None]] = {
            "name": self.name_edit.setText,
            "architecture": lambda v: self.architecture_combo.setCurrentIndex(
                self.architecture_combo.findData(v)),
            "segment": lambda v: self.segment_combo.setCurrentIndex(
                self.segment_combo.findData(v)),
            "compute_capability": self.cc_edit.setText,
            "memory_gib": self.memory_spin.setValue,
            "bandwidth_gbs": self.bandwidth_spin.setValue,
            "fp32_tflops": self.fp32_spin.setValue,
            "memory_type": self.memory_type_edit.setText,
            "bus_width_bits": self.bus_spin.setValue,
            "fp16_tensor_tflops": lambda v: (self.tensor_check.setChecked(bool(v)),
                                             self.tensor_spin.setValue(v)),
            "tdp_w": self.tdp_spin.setValue,
            "launch_price_usd": self.launch_spin.setValue,
            "release": lambda v: (self.release_check.setChecked(True),
                                  self.release_edit.setDate(QDate.fromString(v, "yyyy-MM"))),
            "notes": self.notes_edit.setText,
            "source": self.source_edit.setText,
        }
        for key, value in values.items():
            setters[key](value)

    def row(self) -> dict[str, Any]:
        """The fields as a catalog row (what ``spec_from_dict`` validates)."""
        def opt(v: float) -> float | None:
            return v if v > 0 else None

        row: dict[str, Any] = {
            "name": self.name_edit.text().strip() or None,
            "architecture": self.architecture_combo.currentData(),
            "segment": self.segment_combo.currentData(),
            "compute_capability": self.cc_edit.text().strip() or None,
            "memory_gib": self.memory_spin.value(),
            "bandwidth_gbs": self.bandwidth_spin.value(),
            "fp32_tflops": self.fp32_spin.value(),
            "memory_type": self.memory_type_edit.text().strip() or None,
            "bus_width_bits": self.bus_spin.value() or None,
            "has_tensor_cores": self.tensor_check.isChecked(),
            "fp16_tensor_tflops": opt(self.tensor_spin.value())
            if self.tensor_check.isChecked() else None,
            "tdp_w": opt(self.tdp_spin.value()),
            "launch_price_usd": opt(self.launch_spin.value()),
            "release": (self.release_edit.date().toString("yyyy-MM")
                        if self.release_check.isChecked() else None),
            "notes": self.notes_edit.text().strip() or None,
            "source": self.source_edit.text().strip() or None,
        }
        return row

    def validate(self) -> GpuSpec | None:
        self.error_label.setVisible(False)
        row = self.row()
        try:
            spec = spec_from_dict(row, "custom card", custom=True)
        except CatalogError as exc:
            return self._fail(str(exc))
        existing = self.catalog.by_name(spec.name)
        if existing is not None and not existing.custom:
            return self._fail(arg(self.tr("A built-in card is already called %1; choose another "
                                          "name."),
                                  repr(existing.name)))
        return spec

    def spec(self) -> GpuSpec | None:
        """The card entered (after a successful ``accept``)."""
        return self._result

    @property
    def error_text(self) -> str:
        return self.error_label.text() if self.error_label.isVisibleTo(self) else ""



class CompareDialog(QDialog):
    """Two to four cards side by side (fields as rows); the rows that differ are highlighted.
    Not modal: it stays open next to the catalog."""

    def __init__(self, cards: Sequence[GpuSpec], catalog: Catalog,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(self.tr("Compare cards"))
        self.model = CompareTableModel(self)
        self.model.set_cards(cards, catalog)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setWordWrap(False)
        self.table.setAlternatingRowColors(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        note = QLabel(self.tr("Highlighted rows: the cards differ there."))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        self._fit_size()

    def set_cards(self, cards: Sequence[GpuSpec], catalog: Catalog) -> None:
        self.model.set_cards(cards, catalog)
        self._fit_size()

    def _fit_size(self) -> None:
        rows = self.model.rowCount() * self.table.verticalHeader().defaultSectionSize()
        self.resize(260 + 220 * self.model.columnCount(), min(900, rows + 120))
