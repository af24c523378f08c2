"""Table adapters for the Catalog pane: every card, one card's price history, and the
side-by-side comparison of two to four cards. Each cell keeps its raw value under ``SORT_ROLE``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QBrush, QColor, QFont

from planner.ui import money
from planner.core.catalog import (
    SUPPORT_LABELS,
    USER_PRICE_SOURCE,
    Catalog,
    GpuSpec,
    PricePoint,
    software_support,
)
from planner.ui.i18n import arg, tr_core
from planner.ui.tables import SORT_ROLE, NoneLastProxyModel, HeaderTableModel

CARD_ROLE = Qt.ItemDataRole.UserRole + 2  # the GpuSpec of the row
OWNED_ROLE = Qt.ItemDataRole.UserRole + 3  # True for the user's own cards

OWNED_MARKER = "★"
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
_ROOT = QModelIndex()
DIFF_COLOR = QColor(255, 236, 179)  # a compared field whose values differ
LEGACY_COLOR = QColor(176, 100, 0)
UNSUPPORTED_COLOR = QColor(190, 0, 0)


def _tr(text: str) -> str:
    return QCoreApplication.translate("catalog", text)


def format_usd(usd: float | None) -> str:
    return money.usd(usd)


def format_price(point: PricePoint | None, *, condition: bool = True) -> str:
    """"$699 new (2017-06)" ("$699 (2017-06)" without the condition); "—" for none."""
    if point is None:
        return "—"
    date = f" ({point.date})" if point.date else ""
    cond = f" {point.condition}" if condition else ""
    if point.launch:
        cond = " " + _tr("launch")
    elif point.kind == "asking":
        cond += " " + _tr("asking")
    return f"{format_usd(point.usd)}{cond}{date}"


def _num(v: float | int | None, fmt: str = "{:g}") -> str:
    return "—" if v is None else fmt.format(v)


# A field of a card: (label, text of the value, raw value for sorting and comparing).
Field = tuple[str, Callable[[GpuSpec, Catalog], str], Callable[[GpuSpec, Catalog], Any]]


def _support(card: GpuSpec) -> tuple[str, str]:
    try:
        return software_support(card.compute_capability)
    except ValueError:
        return "unsupported", ""


def card_fields() -> list[Field]:
    """Every field of a card, in the order the details panel and the comparison show them."""
    def attr(name, fmt="{:g}"):
        return (lambda c, _cat: _num(getattr(c, name), fmt)), (lambda c, _cat: getattr(c, name))

    def text(name):
        return (lambda c, _cat: getattr(c, name) or "—"), (lambda c, _cat: getattr(c, name))

    def price(cond):
        return ((lambda c, cat: format_price(cat.price(c, None, cond))),
                (lambda c, cat: (p.usd if (p := cat.price(c, None, cond)) else None)))

    rows: list[tuple[str, tuple]] = [
        (_tr("Architecture"), text("architecture")),
        (_tr("Chip"), text("chip")),
        (_tr("Segment"), ((lambda c, _: _tr(c.segment)), (lambda c, _: c.segment))),
        (_tr("Compute capability"), ((lambda c, _: c.compute_capability),
                                     (lambda c, _: c.compute_capability_tuple))),
        (_tr("Memory (GiB)"), attr("memory_gib")),
        (_tr("Fast memory (GiB)"), ((lambda c, _: f"{c.fast_memory_bytes / 2**30:g}"),
                                    (lambda c, _: c.fast_memory_bytes))),
        (_tr("Memory type"), text("memory_type")),
        (_tr("Bus width (bit)"), attr("bus_width_bits", "{:d}")),
        (_tr("Memory data rate (Gbps)"), attr("memory_data_rate_gbps")),
        (_tr("Bandwidth (GB/s)"), attr("bandwidth_gbs")),
        (_tr("CUDA cores"), attr("cuda_cores", "{:,}")),
        (_tr("Boost clock (MHz)"), attr("boost_clock_mhz", "{:d}")),
        (_tr("FP32 (TFLOPS)"), attr("fp32_tflops")),
        (_tr("FP16 (TFLOPS)"), attr("fp16_tflops")),
        (_tr("Tensor cores"), ((lambda c, _: _tr("yes") if c.has_tensor_cores else _tr("no")),
                               (lambda c, _: c.has_tensor_cores))),
        (_tr("FP16 tensor (TFLOPS, dense)"), attr("fp16_tensor_tflops")),
        (_tr("FP16 tensor, FP32 accumulate (TFLOPS)"), attr("fp16_tensor_fp32acc_tflops")),
        (_tr("BF16 tensor (TFLOPS)"), attr("bf16_tensor_tflops")),
        (_tr("TF32 tensor (TFLOPS, dense)"), attr("tf32_tensor_tflops")),
        (_tr("INT8 (TOPS)"), attr("int8_tops")),
        (_tr("TDP (W)"), attr("tdp_w")),
        (_tr("PCIe generation"), attr("pcie_gen", "{:d}")),
        (_tr("NVLink"), text("nvlink")),
        (_tr("Release"), text("release")),
        (_tr("Launch price (USD)"), ((lambda c, _: format_usd(c.launch_price_usd)),
                                     (lambda c, _: c.launch_price_usd))),
        (_tr("Latest new price"), price("new")),
        (_tr("Latest used price"), price("used")),
        (_tr("Software support"), ((lambda c, _: tr_core(SUPPORT_LABELS[_support(c)[0]])),
                                   (lambda c, _: _support(c)[0]))),
    ]
    return [(label, fn[0], fn[1]) for label, fn in rows]


# --------------------------------------------------------------------------------- all cards

# The fields in the order they are built, then the order the columns are shown in (what a
# buyer looks at first: memory, prices, support; then the technical fields).
(_F_NAME, _F_ARCH, _F_CC, _F_MEMORY, _F_TYPE, _F_BUS, _F_BANDWIDTH, _F_FP32, _F_TENSOR, _F_TDP,
 _F_RELEASE, _F_LAUNCH, _F_NEW, _F_USED, _F_SUPPORT) = range(15)
_ORDER = (_F_NAME, _F_ARCH, _F_CC, _F_MEMORY, _F_NEW, _F_USED, _F_SUPPORT, _F_BANDWIDTH, _F_FP32,
          _F_TENSOR, _F_TYPE, _F_BUS, _F_TDP, _F_RELEASE, _F_LAUNCH)
(COL_NAME, COL_ARCH, COL_CC, COL_MEMORY, COL_TYPE, COL_BUS, COL_BANDWIDTH, COL_FP32,
 COL_TENSOR, COL_TDP, COL_RELEASE, COL_LAUNCH, COL_NEW, COL_USED, COL_SUPPORT) = (
    _ORDER.index(f) for f in range(15))
_NUMERIC = frozenset({COL_CC, COL_MEMORY, COL_BUS, COL_BANDWIDTH, COL_FP32, COL_TENSOR, COL_TDP,
                      COL_LAUNCH, COL_NEW, COL_USED})


class CatalogTableModel(HeaderTableModel):
    """Every card of the catalog with its main fields; the tooltip gives the row's source."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._headers = (
            self.tr("Name"), self.tr("Architecture"), self.tr("CC"), self.tr("Memory\n(GiB)"),
            self.tr("Type"), self.tr("Bus\n(bit)"), self.tr("Bandwidth\n(GB/s)"),
            self.tr("FP32\nTFLOPS"), self.tr("FP16 tensor\nTFLOPS"), self.tr("TDP\n(W)"),
            self.tr("Release"), self.tr("Launch\nprice"), self.tr("Latest new\nprice"),
            self.tr("Latest used\nprice"), self.tr("Software\nsupport"))
        self._header_tips = (
            "", "", self.tr("Compute capability"), "", self.tr("Memory type"),
            self.tr("Memory bus width"), self.tr("Memory bandwidth"),
            self.tr("FP32 throughput"), self.tr("Dense FP16 tensor-core throughput"),
            self.tr("Board power"), self.tr("Release month"), self.tr("Launch price (MSRP)"),
            self.tr("The latest new price known, with its month"),
            self.tr("The latest used price known, with its month"),
            self.tr("Compute capability against current CUDA, cuDNN and PyTorch builds"))
        self._headers = tuple(self._headers[f] for f in _ORDER)
        self._header_tips = tuple(self._header_tips[f] for f in _ORDER)
        self._catalog: Catalog | None = None
        self._cards: tuple[GpuSpec, ...] = ()
        self._cells: tuple[tuple[tuple[str, Any], ...], ...] = ()
        self._owned: tuple[bool, ...] = ()
        self._support: tuple[tuple[str, str], ...] = ()

    @property
    def cards(self) -> tuple[GpuSpec, ...]:
        return self._cards

    def set_catalog(self, catalog: Catalog) -> None:
        self.beginResetModel()
        self._catalog = catalog
        self._cards = tuple(catalog)
        self._owned = tuple(catalog.is_owned(c) for c in self._cards)
        self._support = tuple(_support(c) for c in self._cards)
        self._cells = tuple(self._row_cells(c, catalog, s, o)
                            for c, s, o in zip(self._cards, self._support, self._owned))
        self.endResetModel()

    def row_of(self, name: str) -> int:
        for i, c in enumerate(self._cards):
            if c.name == name:
                return i
        return -1

    def _row_cells(self, c: GpuSpec, cat: Catalog, support: tuple[str, str], owned: bool):
        cells = self._field_cells(c, cat, support, owned)
        return tuple(cells[f] for f in _ORDER)

    def _field_cells(self, c: GpuSpec, cat: Catalog, support: tuple[str, str], owned: bool):
        new = cat.price(c, None, "new")
        used = cat.price(c, None, "used")
        name = c.name
        if owned:
            name = f"{OWNED_MARKER} {name}"
        if c.custom:
            name += " " + self.tr("(custom)")
        return (
            (name, c.name.casefold()),
            (c.architecture, c.architecture),
            (c.compute_capability, c.compute_capability_tuple),
            (f"{c.memory_gib:g}", c.memory_gib),
            (c.memory_type or "—", c.memory_type),
            (_num(c.bus_width_bits, "{:d}"), c.bus_width_bits),
            (_num(c.bandwidth_gbs), c.bandwidth_gbs),
            (_num(c.fp32_tflops), c.fp32_tflops),
            (_num(c.fp16_tensor_tflops), c.fp16_tensor_tflops),
            (_num(c.tdp_w), c.tdp_w),
            (c.release or "—", c.release),
            (format_usd(c.launch_price_usd), c.launch_price_usd),
            (format_price(new, condition=False), new.usd if new else None),
            (format_price(used, condition=False), used.usd if used else None),
            (tr_core(SUPPORT_LABELS[support[0]]), ("supported", "legacy",
                                                   "unsupported").index(support[0]) * -1),
        )

    def _row_count(self) -> int:
        return len(self._cards)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not self._in_range(index):
            return None
        col = index.column()
        row = index.row()
        card = self._cards[row]
        text, value = self._cells[row][col]
        if role == Qt.ItemDataRole.DisplayRole:
            return text
        if role == SORT_ROLE:
            return value
        if role == CARD_ROLE:
            return card
        if role == OWNED_ROLE:
            return self._owned[row]
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == COL_SUPPORT:
                return self._support[row][1]
            if col in (COL_NEW, COL_USED) and self._catalog is not None:
                p = self._catalog.price(card, None, "new" if col == COL_NEW else "used")
                if p is not None:
                    return f"{format_price(p)}\n{p.source}"
            tip = arg(self.tr("Source: %1"), card.source or "—")
            if card.notes:
                tip += "\n" + card.notes
            return tip
        if role == Qt.ItemDataRole.TextAlignmentRole and col in _NUMERIC:
            return _RIGHT
        if role == Qt.ItemDataRole.ForegroundRole and col == COL_SUPPORT:
            status = self._support[row][0]
            if status == "legacy":
                return QBrush(LEGACY_COLOR)
            if status == "unsupported":
                return QBrush(UNSUPPORTED_COLOR)
            return None
        if role == Qt.ItemDataRole.FontRole and (self._owned[row] or card.custom):
            font = QFont()
            font.setBold(self._owned[row])
            font.setItalic(card.custom)
            return font
        return None


def _matches(card: GpuSpec, words: Sequence[str]) -> bool:
    hay = " ".join((card.name, *card.aliases, card.architecture, card.chip or "",
                    card.segment, card.memory_type or "")).casefold()
    return all(w in hay for w in words)


class CatalogFilterProxyModel(NoneLastProxyModel):
    """Search words (all must appear in name, aliases, architecture, chip), architecture,
    segment, minimum memory; sorts on ``SORT_ROLE`` with missing values last."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._words: tuple[str, ...] = ()
        self._architecture: str | None = None
        self._segment: str | None = None
        self._min_memory_gib = 0.0
        self._owned_only = False

    def set_filters(self, *, search: str | None = None, architecture: str | None | bool = False,
                    segment: str | None | bool = False, min_memory_gib: float | None = None,
                    owned_only: bool | None = None) -> None:
        self.beginFilterChange()
        if search is not None:
            self._words = tuple(search.casefold().split())
        if architecture is not False:
            self._architecture = architecture or None
        if segment is not False:
            self._segment = segment or None
        if min_memory_gib is not None:
            self._min_memory_gib = max(0.0, float(min_memory_gib))
        if owned_only is not None:
            self._owned_only = bool(owned_only)
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex) -> bool:
        model = self.sourceModel()
        index = model.index(source_row, 0, source_parent)
        card: GpuSpec | None = model.data(index, CARD_ROLE)
        if card is None:
            return True
        if self._words and not _matches(card, self._words):
            return False
        if self._architecture and card.architecture != self._architecture:
            return False
        if self._segment and card.segment != self._segment:
            return False
        if self._min_memory_gib and card.memory_gib < self._min_memory_gib:
            return False
        if self._owned_only and not model.data(index, OWNED_ROLE):
            return False
        return True


# --------------------------------------------------------------------------------- one card


class PriceHistoryTableModel(HeaderTableModel):
    """One card's price points, oldest first: date, USD, what it is (condition, sold/asking/
    list, where), source (yours in italics)."""

    def _what(self, p: PricePoint) -> str:
        cond = {"new": self.tr("new"), "used": self.tr("used"),
                "mixed": self.tr("mixed condition"), "msrp": self.tr("launch price")
                }.get(p.condition, p.condition)
        kind = {"sold": self.tr("sold"), "asking": self.tr("asking"), "list": self.tr("list")
                }.get(p.kind, p.kind)
        return ", ".join(x for x in (cond, kind, p.market) if x)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._headers = (self.tr("Date"), self.tr("USD"), self.tr("Condition"),
                         self.tr("Source"))
        self._points: tuple[PricePoint, ...] = ()

    @property
    def points(self) -> tuple[PricePoint, ...]:
        return self._points

    def set_points(self, points: Sequence[PricePoint]) -> None:
        self.beginResetModel()
        self._points = tuple(points)
        self.endResetModel()

    def _row_count(self) -> int:
        return len(self._points)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not self._in_range(index):
            return None
        col = index.column()
        p = self._points[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            if col == 3 and role == Qt.ItemDataRole.ToolTipRole and p.note:
                return f"{p.source}\n\n{p.note}"
            return (p.day or p.date, format_usd(p.usd), self._what(p), p.source)[col]
        if role == SORT_ROLE:
            return (p.day or p.date, p.usd, p.condition, p.source)[col]
        if role == Qt.ItemDataRole.TextAlignmentRole and col == 1:
            return _RIGHT
        if role == Qt.ItemDataRole.FontRole and (p.source == USER_PRICE_SOURCE
                                                 or p.origin == "yours"):
            font = QFont()
            font.setItalic(True)
            return font
        return None


# --------------------------------------------------------------------------------- compare


class CompareTableModel(QAbstractTableModel):
    """Fields as rows, cards as columns; rows whose values differ are highlighted."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._fields = card_fields()
        self._cards: tuple[GpuSpec, ...] = ()
        self._texts: tuple[tuple[str, ...], ...] = ()
        self._differs: tuple[bool, ...] = ()

    @property
    def cards(self) -> tuple[GpuSpec, ...]:
        return self._cards

    def field_labels(self) -> list[str]:
        return [f[0] for f in self._fields]

    def differs(self, row: int) -> bool:
        return self._differs[row]

    def set_cards(self, cards: Sequence[GpuSpec], catalog: Catalog) -> None:
        self.beginResetModel()
        self._cards = tuple(cards)
        self._texts = tuple(tuple(f[1](c, catalog) for c in self._cards) for f in self._fields)
        self._differs = tuple(len({repr(f[2](c, catalog)) for c in self._cards}) > 1
                              for f in self._fields)
        self.endResetModel()

    def rowCount(self, parent=_ROOT) -> int:
        return 0 if parent.isValid() else len(self._fields)

    def columnCount(self, parent=_ROOT) -> int:
        return 0 if parent.isValid() else len(self._cards)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(self._cards):
            return self._cards[section].name
        if orientation == Qt.Orientation.Vertical and 0 <= section < len(self._fields):
            return self._fields[section][0]
        return None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self._fields) \
                or not 0 <= index.column() < len(self._cards):
            return None
        row, col = index.row(), index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._texts[row][col]
        if role == Qt.ItemDataRole.ToolTipRole:
            text = self._texts[row][col]
            return text + ("\n" + self.tr("The compared cards differ here")
                           if self._differs[row] else "")
        if role == Qt.ItemDataRole.BackgroundRole and self._differs[row]:
            return QBrush(DIFF_COLOR)
        if role == Qt.ItemDataRole.ForegroundRole and self._differs[row]:
            return QBrush(QColor(0, 0, 0))  # readable on the highlight in a dark theme too
        return None
