"""How the drafted network fits and runs on every card of the catalog.

* ``FitTableModel``: one row per card (``planner.core.fit.FitRow``): fits, headroom, largest
  batch, time per iteration, samples/s, speed relative to a reference card, dated prices new and
  used, samples/s per dollar, software support. Every cell carries its raw number under
  ``SORT_ROLE`` so the proxy sorts numerically.
* ``FitFilterProxyModel``: "fits only", budget, architecture and segment filters; cells without a
  value (no price) always sort last.
* ``FitScatter``: a pyqtgraph scatter of one row quantity against price (log scale); hovering a
  point names the card, the user's own cards are stars.
* ``FitView``: the filters, the table and the two charts; ``set_plan`` recomputes the table
  (a few ms for the whole catalog), an invalid plan shows why there is nothing to show.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import (
    QCoreApplication,
    QModelIndex,
    QPointF,
    QSortFilterProxyModel,
    Qt,
    Signal,
    Slot,
)
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QLabel,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from planner.ui import money
from planner.core.catalog import (
    ARCHITECTURES,
    SEGMENTS,
    SUPPORT_LABELS,
    Catalog,
    PricePoint,
    describe_price,
)
from planner.core.fit import DEFAULT_REFERENCE, FitRow, fit_table
from planner.core.network import InvalidDraft
from planner.core.plan import PlanResult
from planner.core.rates import display_rate, rate_text, speed_msg
from planner.core.transformer import tokens_per_step
from planner.core.speed import speed_notes
from planner.units import format_bytes
from planner.ui.i18n import arg, exc_text, tr_core, tr_msg, tr_problem
from planner.ui.flow import FlowLayout, group
from planner.ui.tables import SORT_ROLE, NoneLastProxyModel, HeaderTableModel, row_table
from planner.ui.plotstyle import style_plot

ROW_ROLE = Qt.ItemDataRole.UserRole + 2  # the FitRow itself

OWNED_MARKER = "★"
FITS_COLOR = QColor(0, 128, 0)
NO_FIT_COLOR = QColor(190, 0, 0)
LEGACY_COLOR = QColor(176, 100, 0)
DIM_COLOR = QColor(140, 140, 140)
_PRICE_TICKS = (10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000)
SUPPORT_COLORS = {"supported": None, "legacy": LEGACY_COLOR, "unsupported": NO_FIT_COLOR}

_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
_CENTER = int(Qt.AlignmentFlag.AlignCenter)

(COL_CARD, COL_MEMORY, COL_FITS, COL_HEADROOM, COL_MAX_BATCH, COL_TIME, COL_SAMPLES,
 COL_RELATIVE, COL_PRICE_NEW, COL_PRICE_USED, COL_PER_USD, COL_SUPPORT) = range(12)
_NUMERIC = frozenset({COL_MEMORY, COL_HEADROOM, COL_MAX_BATCH, COL_TIME, COL_SAMPLES,
                      COL_RELATIVE, COL_PRICE_NEW, COL_PRICE_USED, COL_PER_USD})
_SPEED_COLUMNS = frozenset({COL_TIME, COL_SAMPLES, COL_RELATIVE, COL_PER_USD})


def format_usd(usd: float) -> str:
    return money.usd(usd)


def format_price(point: PricePoint | None) -> str:
    """"$699 new (2017-06)", "$539 used asking (2026-08)", "$379 launch (2016-06)"; an em dash
    when there is no price."""
    if point is None:
        return "—"
    date = f" ({point.date})" if point.date else ""
    conditions = {"new": _tr("new"), "used": _tr("used"), "mixed": _tr("mixed")}
    what = _tr("launch") if point.launch else conditions.get(point.condition,
                                                              point.condition) + (
        " " + _tr("asking") if point.kind == "asking" else "")
    return f"{format_usd(point.usd)} {what}{date}"


def _tr(text: str) -> str:
    return QCoreApplication.translate("FitView", text)


def _price_tip(point: PricePoint | None) -> str | None:
    return f"{tr_msg(describe_price(point))}\n{point.source}" if point else None


class PriceAxis(pg.AxisItem):
    """A log-price axis (the data are log10 USD) whose labels never run into each other: of
    the 1-2-5 ticks it labels every one there is room for, else 1-5, else the decades."""

    def tickValues(self, minVal, maxVal, size):  # noqa: N802 (pyqtgraph's name)
        lo, hi = sorted((minVal, maxVal))
        shown = [v for v in _PRICE_TICKS if lo <= math.log10(v) <= hi]
        if not shown or size <= 0:
            return []
        fm = self.fontMetrics() if hasattr(self, "fontMetrics") else None
        width = max((self._label_width(v, fm) for v in shown), default=40) + 10
        px_per_decade = size / max(hi - lo, 1e-9)
        for keep in ((1, 2, 5), (1, 5), (1,)):
            picked = [v for v in shown if int(str(v)[0]) in keep]
            logs = [math.log10(v) for v in picked]
            gaps = [(b - a) * px_per_decade for a, b in zip(logs, logs[1:])]
            if picked and (not gaps or min(gaps) >= width):
                return [(1.0, logs)]
        return [(1.0, [math.log10(v) for v in shown if str(v)[0] == "1"][::2] or
                 [math.log10(shown[0])])]

    def _label_width(self, v: int, fm) -> int:
        text = f"${v:,}"
        if fm is None:
            return 7 * len(text)
        return fm.horizontalAdvance(text)

    def fontMetrics(self):  # noqa: N802
        from PySide6.QtGui import QFontMetrics  # noqa: PLC0415

        return QFontMetrics(self.style.get("tickFont") or QFont())

    def tickStrings(self, values, scale, spacing):  # noqa: N802
        return [f"${round(10 ** v):,}" for v in values]


# --------------------------------------------------------------------------------- the model


class FitTableModel(HeaderTableModel):
    """The fit table's rows, read-only; reset whenever the table is recomputed."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._headers = (
            self.tr("Card"), self.tr("Memory"), self.tr("Fits"), self.tr("Headroom"),
            self.tr("Max batch"), self.tr("ms / iter"), self.tr("Samples/s"),
            self.tr("Relative"), self.tr("Price new"), self.tr("Price used"),
            self.tr("Samples/s per $"), self.tr("Software"))
        self._header_tips = (
            arg(self.tr("The card; %1 marks the cards you own"), OWNED_MARKER),
            self.tr("The card's memory (GiB)"),
            self.tr("Whether the estimated peak fits the usable memory: total less what the "
                    "driver and CUDA context reserve"),
            self.tr("Usable memory left over at this batch size (negative: short by that much)"),
            self.tr("The largest batch that fits on this card"),
            self.tr("Estimated time of one iteration at this batch size (roofline model)"),
            self.tr("Samples per second at this batch size"),
            self.tr("Speed relative to the reference card (1.00× = as fast)"),
            self.tr("The latest new price on or before the chosen month"),
            self.tr("The latest used price on or before the chosen month"),
            self.tr("Samples per second per dollar of the cheaper of the new and used price"),
            self.tr("Compute capability against what current CUDA, cuDNN and PyTorch builds "
                    "support"),
        )
        self._rows: tuple[FitRow, ...] = ()
        self._cells: tuple[tuple[tuple[str, Any, str | None], ...], ...] = ()
        self._tokens: int | None = None  # tokens per sample: speeds in tokens/s

    # ---- content -------------------------------------------------------------------------
    @property
    def rows(self) -> tuple[FitRow, ...]:
        return self._rows

    def set_rows(self, rows: Sequence[FitRow], tokens_per_sample: int | None = None) -> None:
        """``tokens_per_sample``: a text model's tokens per sequence; its speeds are then shown
        in tokens/s (the column headers say so)."""
        self.beginResetModel()
        if tokens_per_sample != self._tokens:
            self._tokens = tokens_per_sample
            self._set_speed_headers()
        self._rows = tuple(rows)
        self._cells = tuple(self._row_cells(r) for r in self._rows)
        self.endResetModel()

    @property
    def tokens_per_sample(self) -> int | None:
        return self._tokens

    def _set_speed_headers(self) -> None:
        headers, tips = list(self._headers), list(self._header_tips)
        if self._tokens:
            headers[COL_SAMPLES] = self.tr("Tokens/s")
            headers[COL_PER_USD] = self.tr("Tokens/s per $")
            tips[COL_SAMPLES] = arg(self.tr("Tokens per second at this batch size (samples "
                                            "per second × %1 tokens a sequence)"),
                                    f"{self._tokens:,}")
            tips[COL_PER_USD] = self.tr("Tokens per second per dollar of the cheaper of the "
                                        "new and used price")
        else:
            headers[COL_SAMPLES] = self.tr("Samples/s")
            headers[COL_PER_USD] = self.tr("Samples/s per $")
            tips[COL_SAMPLES] = self.tr("Samples per second at this batch size")
            tips[COL_PER_USD] = self.tr("Samples per second per dollar of the cheaper of the "
                                        "new and used price")
        self._headers, self._header_tips = tuple(headers), tuple(tips)

    def row_of(self, name: str) -> int:
        for i, r in enumerate(self._rows):
            if r.card.name == name:
                return i
        return -1

    def _row_cells(self, r: FitRow):
        card = r.card
        name = f"{OWNED_MARKER} {card.name}" if r.owned else card.name
        name_tip = [f"{card.name} — {card.architecture}, {self.tr(card.segment)}, "
                    f"{self.tr('compute capability')} {card.compute_capability}"]
        if r.owned:
            name_tip.append(self.tr("One of your cards"))
        if card.custom:
            name_tip.append(self.tr("A card you added"))
        if r.note:
            name_tip.append(r.note)
        mem_tip = format_bytes(card.memory_bytes)
        if r.note:
            mem_tip += "\n" + r.note
        fits_tip = arg(self.tr("peak %1 of %2 usable"),
                       format_bytes(r.peak_bytes), format_bytes(r.usable_bytes))
        if r.note:
            fits_tip += "\n" + r.note
        tips = [] if r.fits else [self.tr(
            "Does not fit at this batch size: the speed it would have if it did")]
        band = r.speed.band_text()
        tokens = self._tokens
        # The speed as a sentence first ("0.42 samples/s ±20 %, 2.4 s per step"; tokens/s
        # for a text model), then what to know about it.
        tips.insert(0, tr_msg(speed_msg(
            r.samples_per_s, tokens_per_sample=tokens, band=band or None,
            time_per_step_s=r.time_per_iter_s)))
        if band:
            b = r.speed.band
            tips.append(arg(self.tr("Error band %1: how far measured training throughput was "
                                    "from this model's figure on %2 benchmark rows of cards of "
                                    "compute capability %3 in %4"),
                            band, str(b.rows), b.compute_capability, b.precision))
        tips += [tr_core(n) for n in speed_notes(r.speed)]
        speed_tip = "\n".join(tips) or None
        t = r.time_per_iter_s
        sps = display_rate(r.samples_per_s, tokens)  # tokens/s for a text model
        sps_text = rate_text(sps)  # "0.42", never "0.0" for a slow step
        if band:
            sps_text += f" {band}"
        per_usd = r.samples_per_s_per_usd
        if per_usd is not None:
            per_usd = display_rate(per_usd, tokens)
        cheaper = r.price
        per_usd_tip = (arg(self.tr("%1 divided by %2"),
                           self.tr("tokens/s") if tokens else self.tr("samples/s"),
                           format_price(cheaper))
                       if cheaper else self.tr("no price known"))
        ok_t = t is not None and math.isfinite(t) and t > 0
        return (
            (name, card.name.casefold(), "\n".join(name_tip)),
            (f"{card.memory_gib:g} GiB", card.memory_gib, mem_tip),
            ("✓" if r.fits else "✗", int(r.fits), fits_tip),
            (format_bytes(r.headroom_bytes), r.headroom_bytes, f"{r.headroom_bytes:,} B"),
            (str(r.max_batch) if r.max_batch > 0 else "—", r.max_batch,
             None if r.max_batch > 0 else self.tr("Not even a batch of 1 fits")),
            (f"{t * 1000:,.1f}" if ok_t else "—", t if ok_t else None, speed_tip),
            (sps_text, sps, speed_tip),
            (f"{r.relative_speed:.2f}×", r.relative_speed, speed_tip),
            (format_price(r.price_new), r.price_new.usd if r.price_new else None,
             _price_tip(r.price_new)),
            (format_price(r.price_used), r.price_used.usd if r.price_used else None,
             _price_tip(r.price_used)),
            (rate_text(per_usd) if per_usd is not None else "—", per_usd, per_usd_tip),
            (tr_core(SUPPORT_LABELS.get(r.support, r.support)),
             ("supported", "legacy", "unsupported").index(r.support) * -1
             if r.support in SUPPORT_LABELS else None, tr_msg(r.support_reason)),
        )

    # ---- Qt model interface ----------------------------------------------------------------
    def _row_count(self) -> int:
        return len(self._rows)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not self._in_range(index):
            return None
        col = index.column()
        r = self._rows[index.row()]
        text, value, tip = self._cells[index.row()][col]
        if role == Qt.ItemDataRole.DisplayRole:
            return text
        if role == SORT_ROLE:
            return value
        if role == ROW_ROLE:
            return r
        if role == Qt.ItemDataRole.ToolTipRole:
            return tip
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if col in _NUMERIC:
                return _RIGHT
            if col == COL_FITS:
                return _CENTER
            return None
        if role == Qt.ItemDataRole.ForegroundRole:
            if col == COL_FITS:
                return QBrush(FITS_COLOR if r.fits else NO_FIT_COLOR)
            if col == COL_SUPPORT:
                color = SUPPORT_COLORS.get(r.support)
                return QBrush(color) if color is not None else None
            if col in _SPEED_COLUMNS and not r.fits:
                return QBrush(DIM_COLOR)
            return None
        if role == Qt.ItemDataRole.FontRole and (r.owned or col == COL_FITS):
            font = QFont()
            font.setBold(True)
            return font
        return None


class FitFilterProxyModel(NoneLastProxyModel):
    """Filters: fits only, budget (max price in USD, 0 = any), architecture, segment."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._fits_only = False
        self._budget_usd = 0.0
        self._architecture: str | None = None
        self._segment: str | None = None

    def set_filters(self, *, fits_only: bool | None = None, budget_usd: float | None = None,
                    architecture: str | None | bool = False,
                    segment: str | None | bool = False) -> None:
        """Change any of the filters (``architecture``/``segment`` None = all)."""
        self.beginFilterChange()
        if fits_only is not None:
            self._fits_only = bool(fits_only)
        if budget_usd is not None:
            self._budget_usd = max(0.0, float(budget_usd))
        if architecture is not False:
            self._architecture = architecture or None
        if segment is not False:
            self._segment = segment or None
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex) -> bool:
        model = self.sourceModel()
        r = model.data(model.index(source_row, 0, source_parent), ROW_ROLE)
        if r is None:
            return True
        if self._fits_only and not r.fits:
            return False
        if self._budget_usd > 0:
            price = r.price
            if price is None or price.usd > self._budget_usd:
                return False
        if self._architecture and r.card.architecture != self._architecture:
            return False
        if self._segment and r.card.segment != self._segment:
            return False
        return True


# --------------------------------------------------------------------------------- charts


class FitScatter(pg.PlotWidget):
    """One quantity of the fit rows against the (cheaper) price, price on a log axis.

    Cards that fit are green dots, those that don't are grey; the user's cards are stars. Hovering
    a point names it in a label next to the point (and in the tooltip); ``point_clicked`` gives
    the card's name.
    """

    point_clicked = Signal(str)

    HOVER_PX = 12.0

    def __init__(self, y_label: str, parent: QWidget | None = None):
        super().__init__(parent, background=None,
                         axisItems={"bottom": PriceAxis(orientation="bottom")})
        item, text = style_plot(self, min_height=110)
        self._label_color = text.name()
        item.setLabel("bottom", self.tr("price (USD, log scale)"), color=self._label_color)
        item.setLabel("left", y_label, color=self._label_color)
        self._y_label = y_label
        self._legend = item.addLegend(offset=(8, 8), labelTextColor=text, labelTextSize="8pt",
                                      verticalSpacing=-6,
                                      brush=pg.mkBrush(self.palette().color(
                                          self.palette().ColorRole.Base)))
        self._fit_item = pg.ScatterPlotItem(size=8, pen=pg.mkPen(None),
                                            brush=pg.mkBrush(0, 140, 0, 170), symbol="o",
                                            name=self.tr("fits"))
        self._nofit_item = pg.ScatterPlotItem(size=7, pen=pg.mkPen(None),
                                              brush=pg.mkBrush(150, 150, 150, 150), symbol="o",
                                              name=self.tr("does not fit"))
        self._owned_item = pg.ScatterPlotItem(size=16, pen=pg.mkPen(90, 50, 0, width=1),
                                              brush=pg.mkBrush(255, 165, 0, 230), symbol="star",
                                              name=self.tr("yours"))
        for it in (self._nofit_item, self._fit_item, self._owned_item):
            item.addItem(it)
        self._legend.removeItem(self._owned_item)  # listed only while a card of yours is shown
        self._owned_in_legend = False
        self._highlight = pg.ScatterPlotItem(size=14, pen=pg.mkPen(30, 80, 200, width=2),
                                             brush=pg.mkBrush(None), symbol="o")
        item.addItem(self._highlight, ignoreBounds=True)
        self._label = pg.TextItem(anchor=(0, 1), color=text, fill=pg.mkBrush(
            self.palette().color(self.palette().ColorRole.ToolTipBase)),
            border=pg.mkPen(120, 120, 120))
        self._label.setZValue(10)
        self._label.setVisible(False)
        item.addItem(self._label, ignoreBounds=True)
        self._names: list[str] = []
        self._texts: list[str] = []
        self._xy = np.zeros((0, 2))  # view coordinates: (log10 price, y)
        self._hovered: str | None = None
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.scene().sigMouseClicked.connect(self._on_scene_clicked)

    def set_y_label(self, y_label: str) -> None:
        """The vertical axis' quantity (samples/s, or tokens/s for a text model)."""
        if y_label != self._y_label:
            self._y_label = y_label
            self.getPlotItem().setLabel("left", y_label, color=self._label_color)

    @property
    def names(self) -> list[str]:
        return list(self._names)

    def legend_names(self) -> list[str]:
        return [label.text for _sample, label in self._legend.items]

    @property
    def hovered_name(self) -> str | None:
        return self._hovered

    @property
    def hover_text(self) -> str:
        return self._label.toPlainText() if self._label.isVisible() else ""

    def set_points(self, points: Sequence[tuple[str, float, float, bool, bool, str]]) -> None:
        """``points``: (name, price usd, y, fits, owned, hover text)."""
        pts = [p for p in points if p[1] > 0 and math.isfinite(p[2])]
        self._names = [p[0] for p in pts]
        self._texts = [p[5] for p in pts]
        self._xy = (np.array([[math.log10(p[1]), p[2]] for p in pts], dtype=float)
                    if pts else np.zeros((0, 2)))
        groups = {"fit": [], "nofit": [], "owned": []}
        for i, p in enumerate(pts):
            groups["owned" if p[4] else ("fit" if p[3] else "nofit")].append(i)
        for key, it in (("fit", self._fit_item), ("nofit", self._nofit_item),
                        ("owned", self._owned_item)):
            idx = groups[key]
            it.setData(x=self._xy[idx, 0] if idx else [], y=self._xy[idx, 1] if idx else [],
                       data=[self._names[i] for i in idx])
        owned = bool(groups["owned"])
        if owned != self._owned_in_legend:
            if owned:
                self._legend.addItem(self._owned_item, self.tr("yours"))
            else:
                self._legend.removeItem(self._owned_item)
            self._owned_in_legend = owned
        self._clear_hover()
        item = self.getPlotItem()
        if len(self._xy):
            x0, x1 = float(self._xy[:, 0].min()), float(self._xy[:, 0].max())
            y1 = float(self._xy[:, 1].max())
            pad = max(0.08, (x1 - x0) * 0.05)
            item.setXRange(x0 - pad, x1 + pad, padding=0)
            item.setYRange(0, y1 * 1.1 if y1 > 0 else 1, padding=0)
        else:
            item.setXRange(1, 4, padding=0)
            item.setYRange(0, 1, padding=0)

    def scene_pos_of(self, name: str) -> QPointF | None:
        """Where the card's point is on the scene (for hover tests)."""
        if name not in self._names:
            return None
        x, y = self._xy[self._names.index(name)]
        return self.getPlotItem().getViewBox().mapViewToScene(QPointF(x, y))

    def index_at(self, scene_pos: QPointF) -> int | None:
        """The nearest point within HOVER_PX pixels of ``scene_pos``."""
        if not len(self._xy):
            return None
        vb = self.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(scene_pos):
            return None
        best, best_d = None, self.HOVER_PX
        for i, (x, y) in enumerate(self._xy):
            p = vb.mapViewToScene(QPointF(x, y))
            d = math.hypot(p.x() - scene_pos.x(), p.y() - scene_pos.y())
            if d <= best_d:
                best, best_d = i, d
        return best

    def _clear_hover(self) -> None:
        self._hovered = None
        self._label.setVisible(False)
        self._highlight.setData(x=[], y=[])
        self.setToolTip("")

    @Slot(object)
    def _on_mouse_moved(self, scene_pos) -> None:
        i = self.index_at(scene_pos)
        if i is None:
            if self._hovered is not None:
                self._clear_hover()
            return
        x, y = self._xy[i]
        self._hovered = self._names[i]
        self._label.setText(self._texts[i])
        self._label.setVisible(True)
        # keep the label inside the plot: flip it left/down near the right/top edges
        (vx0, vx1), (vy0, vy1) = self.getPlotItem().getViewBox().viewRange()
        ax = 1.0 if x > vx0 + 0.6 * (vx1 - vx0) else 0.0
        ay = 0.0 if y > vy0 + 0.6 * (vy1 - vy0) else 1.0
        self._label.setAnchor((ax, ay))
        self._label.setPos(x, y)
        self._highlight.setData(x=[x], y=[y])
        self.setToolTip(self._texts[i])

    @Slot(object)
    def _on_scene_clicked(self, event) -> None:
        i = self.index_at(event.scenePos())
        if i is not None:
            self.point_clicked.emit(self._names[i])


# --------------------------------------------------------------------------------- the view


class FitView(QWidget):
    """The fit table with its filters and charts, for the plan the Planner pane shows.

    Wire ``set_plan(analysis, setup, assumptions)`` to the plan document's changes and
    ``set_catalog(catalog)`` to the Catalog pane's ``catalog_changed``.
    """

    card_activated = Signal(str)  # a card's row was double-clicked (or its point clicked)
    rows_changed = Signal()  # the table was recomputed (plan, catalog, reference or month)

    def __init__(self, catalog: Catalog, parent: QWidget | None = None):
        super().__init__(parent)
        self._catalog = catalog
        self._plan: PlanResult | None = None
        self._failure: str | None = None
        self._sized = False

        self.model = FitTableModel(self)
        self.proxy = FitFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)

        # ---- filters -------------------------------------------------------------------
        self.fits_only_check = QCheckBox(self.tr("Fits only"))
        self.fits_only_check.setToolTip(self.tr("Hide the cards the plan does not fit on"))
        self.budget_spin = QSpinBox()
        self.budget_spin.setRange(0, 100_000)
        self.budget_spin.setSingleStep(50)
        self.budget_spin.setPrefix("$ ")
        self.budget_spin.setSpecialValueText(self.tr("any"))
        self.budget_spin.setToolTip(self.tr(
            "Highest price (the cheaper of new and used); 0 = any. Cards without a price are "
            "hidden while a budget is set."))
        self.budget_spin.setAccelerated(True)
        self.architecture_combo = QComboBox()
        self.segment_combo = QComboBox()
        self.reference_combo = QComboBox()
        self.reference_combo.setToolTip(self.tr("Relative speed is measured against this card"))
        self.as_of_combo = QComboBox()
        self.as_of_combo.setToolTip(self.tr(
            "Prices as they were in this month (the latest known price on or before it)"))

        # compact combos, so that the fit view also fits a narrow pane
        for combo, chars in ((self.architecture_combo, 10), (self.segment_combo, 9),
                             (self.reference_combo, 14), (self.as_of_combo, 7)):
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(chars)
        # The filters wrap onto more lines in a narrow pane (1024 px, or Chinese) instead of
        # making the view wider than its pane.
        self.filter_bar = QWidget()
        bar = FlowLayout(self.filter_bar, h_spacing=12, v_spacing=4)
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self.fits_only_check)
        for label, w in ((self.tr("Budget:"), self.budget_spin),
                         (self.tr("Architecture:"), self.architecture_combo),
                         (self.tr("Segment:"), self.segment_combo),
                         (self.tr("Relative to:"), self.reference_combo),
                         (self.tr("Prices as of:"), self.as_of_combo)):
            lab = QLabel(label)
            lab.setBuddy(w)
            bar.addWidget(group(self.filter_bar, lab, w))

        self.summary_label = QLabel()
        self.summary_label.setWordWrap(True)
        self.summary_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        # ---- table ---------------------------------------------------------------------
        self.table = row_table(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setStretchLastSection(True)
        header.setHighlightSections(False)
        self.table.sortByColumn(COL_SAMPLES, Qt.SortOrder.DescendingOrder)
        # What decides comes first, so the prices are on screen in a half-width pane (the
        # model's column numbers stay; only the order on screen changes).
        for visual, col in enumerate((COL_CARD, COL_FITS, COL_MAX_BATCH, COL_SAMPLES,
                                      COL_PRICE_NEW, COL_PRICE_USED, COL_PER_USD, COL_MEMORY,
                                      COL_HEADROOM, COL_TIME, COL_RELATIVE, COL_SUPPORT)):
            header.moveSection(header.visualIndex(col), visual)
        self.table.doubleClicked.connect(self._on_double_clicked)

        # ---- charts --------------------------------------------------------------------
        self.speed_chart = FitScatter(self.tr("samples/s"))
        self.memory_chart = FitScatter(self.tr("memory (GiB)"))
        self.speed_chart.point_clicked.connect(self.card_activated)
        self.memory_chart.point_clicked.connect(self.card_activated)
        charts = QSplitter(Qt.Orientation.Horizontal)
        self.speed_title = QLabel()
        self.memory_title = QLabel()
        for title in (self.speed_title, self.memory_title):
            title.setWordWrap(True)  # never wider than half the pane
        for title, chart in ((self.speed_title, self.speed_chart),
                             (self.memory_title, self.memory_chart)):
            box = QWidget()
            lay = QVBoxLayout(box)
            lay.setContentsMargins(0, 0, 0, 0)
            lay.addWidget(title)
            lay.addWidget(chart, 1)
            charts.addWidget(box)
        self.charts = charts  # the two charts, side by side

        content = QSplitter(Qt.Orientation.Vertical)
        content.setObjectName("fit_splitter")
        charts.setObjectName("fit_charts_splitter")
        content.addWidget(self.table)
        content.addWidget(charts)
        # the table takes the room (about two thirds); drag the handle for bigger charts
        content.setStretchFactor(0, 2)
        content.setStretchFactor(1, 1)
        content.setSizes([640, 300])
        content.setChildrenCollapsible(False)
        content.setCollapsible(1, True)  # drag the charts away for the whole height
        self.splitter = content

        # ---- empty state ---------------------------------------------------------------
        self.empty_label = QLabel()
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setSizePolicy(QSizePolicy.Policy.Expanding,
                                       QSizePolicy.Policy.Expanding)
        self.empty_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.stack = QStackedWidget()
        self.stack.addWidget(content)
        self.stack.addWidget(self.empty_label)

        layout = QVBoxLayout(self)
        layout.addWidget(self.filter_bar)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.stack, 1)

        self._fill_combos()
        self.fits_only_check.toggled.connect(self._on_filters_changed)
        self.budget_spin.valueChanged.connect(self._on_filters_changed)
        self.architecture_combo.currentIndexChanged.connect(self._on_filters_changed)
        self.segment_combo.currentIndexChanged.connect(self._on_filters_changed)
        self.reference_combo.currentIndexChanged.connect(self._on_reference_changed)
        self.as_of_combo.currentIndexChanged.connect(self._on_as_of_changed)
        self.proxy.layoutChanged.connect(self._update_charts)
        self.proxy.modelReset.connect(self._update_charts)
        self.proxy.rowsInserted.connect(self._update_charts)
        self.proxy.rowsRemoved.connect(self._update_charts)
        self._show_empty(self.tr("No plan yet."))

    # ---- public API ------------------------------------------------------------------------
    @property
    def catalog(self) -> Catalog:
        return self._catalog

    @property
    def rows(self) -> tuple[FitRow, ...]:
        """Every card's row (unfiltered, catalog order)."""
        return self.model.rows

    @property
    def failure(self) -> str | None:
        """Why there is no table (the plan's problems), or None."""
        return self._failure

    def visible_names(self) -> list[str]:
        """The card names in the table as shown (filtered and sorted)."""
        return [self.proxy.index(i, COL_CARD).data(ROW_ROLE).card.name
                for i in range(self.proxy.rowCount())]

    def reference(self) -> str:
        return self.reference_combo.currentData() or DEFAULT_REFERENCE

    def as_of(self) -> str | None:
        return self.as_of_combo.currentData()

    def set_reference(self, name: str) -> None:
        spec = self._catalog.by_name(name)
        if spec is not None:
            i = self.reference_combo.findData(spec.name)
            if i >= 0:
                self.reference_combo.setCurrentIndex(i)

    def set_as_of(self, month: str | None) -> None:
        i = self.as_of_combo.findData(month)
        if i < 0 and month is not None:
            self.as_of_combo.addItem(month, month)
            i = self.as_of_combo.count() - 1
        self.as_of_combo.setCurrentIndex(max(i, 0))

    @Slot(object)
    def set_plan(self, plan: PlanResult | None) -> None:
        """Recompute the table for this plan (None, or an empty one: nothing to estimate); a
        plan with problems shows them. On several GPUs (``plan.parallel``) the fit is per GPU
        and the speed that of the whole set."""
        self._plan = plan
        self.recompute()

    @Slot(object)
    def set_catalog(self, catalog: Catalog) -> None:
        """Use a new catalog (after an edit in the Catalog pane); keeps the filters."""
        self._catalog = catalog
        self._fill_combos()
        self.recompute()

    def recompute(self) -> None:
        plan = self._plan
        if plan is None or plan.is_empty:
            self._set_failure(self.tr("Nothing to estimate yet: the plan has no layers."))
            return
        if plan.problems:
            problems = "\n".join(tr_problem(p) for p in plan.problems[:6])
            more = len(plan.problems) - 6
            if more > 0:
                problems += "\n" + self.tr("… and %n more", "", more)
            self._set_failure(problems)
            return
        try:
            rows = fit_table(plan, self._catalog, reference=self.reference(),
                             as_of=self.as_of())
        except (InvalidDraft, ValueError) as exc:
            self._set_failure(exc_text(exc))
            return
        self._failure = None
        self.model.set_rows(rows, tokens_per_step(plan.draft, 1))
        self.stack.setCurrentIndex(0)
        if not self._sized:
            self._sized = True
            self.table.resizeColumnsToContents()
        self._update_summary()
        self.rows_changed.emit()

    # ---- internals ---------------------------------------------------------------------------
    def _set_failure(self, why: str) -> None:
        self._failure = why
        self.model.set_rows(())
        self._show_empty(why)
        self._update_summary()
        self.rows_changed.emit()

    def _show_empty(self, why: str) -> None:
        body = why.replace("&", "&amp;").replace("<", "&lt;").replace("\n", "<br>")
        if self._plan is None or self._plan.is_empty:  # nothing to fix, nothing to estimate
            head, body = body, ""
        else:
            head = self.tr("Fix the plan's errors to see how it fits on each card.")
        self.empty_label.setText(
            f"<p style='font-size:large'><b>{head}</b></p><p>{body}</p>")
        self.stack.setCurrentIndex(1)

    def _fill_combos(self) -> None:
        cat = self._catalog
        for combo in (self.architecture_combo, self.segment_combo, self.reference_combo,
                      self.as_of_combo):
            combo.blockSignals(True)
        try:
            arch = self.architecture_combo.currentData()
            self.architecture_combo.clear()
            self.architecture_combo.addItem(self.tr("All"), None)
            present = {c.architecture for c in cat}
            for name in ARCHITECTURES:
                if name in present:
                    self.architecture_combo.addItem(name, name)
            self.architecture_combo.setCurrentIndex(max(0, self.architecture_combo.findData(arch)))

            seg = self.segment_combo.currentData()
            self.segment_combo.clear()
            self.segment_combo.addItem(self.tr("All"), None)
            for name in SEGMENTS:
                self.segment_combo.addItem(self.tr(name), name)
            self.segment_combo.setCurrentIndex(max(0, self.segment_combo.findData(seg)))

            ref = self.reference_combo.currentData()
            if ref is None:
                spec = cat.by_name(DEFAULT_REFERENCE)
                ref = spec.name if spec else None
            self.reference_combo.clear()
            for c in cat:
                self.reference_combo.addItem(c.name, c.name)
            i = self.reference_combo.findData(ref)
            if i < 0:
                spec = cat.by_name(DEFAULT_REFERENCE)
                i = self.reference_combo.findData(spec.name) if spec else 0
            self.reference_combo.setCurrentIndex(max(0, i))

            month = self.as_of_combo.currentData()
            self.as_of_combo.clear()
            self.as_of_combo.addItem(self.tr("latest"), None)
            months = sorted({p.date for c in cat for p in cat.price_history(c)}, reverse=True)
            for m in months:
                self.as_of_combo.addItem(m, m)
            if month is not None and self.as_of_combo.findData(month) < 0:
                self.as_of_combo.addItem(month, month)
            self.as_of_combo.setCurrentIndex(max(0, self.as_of_combo.findData(month)))
        finally:
            for combo in (self.architecture_combo, self.segment_combo, self.reference_combo,
                          self.as_of_combo):
                combo.blockSignals(False)
        self._apply_filters()

    def _apply_filters(self) -> None:
        self.proxy.set_filters(
            fits_only=self.fits_only_check.isChecked(),
            budget_usd=float(self.budget_spin.value()),
            architecture=self.architecture_combo.currentData(),
            segment=self.segment_combo.currentData())
        self._update_summary()

    def _update_summary(self) -> None:
        rows = self.model.rows
        if not rows:
            self.summary_label.setText("")
            return
        setup = self._plan.setup if self._plan is not None else None
        fit = sum(r.fits for r in rows)
        ref = self._catalog.by_name(self.reference())
        parts = [
            arg(self.tr("%1 of %2 cards shown; the plan fits on %3."),
                str(self.proxy.rowCount()), str(len(rows)), str(fit)),
            arg(self.tr("Peak %1 at batch %2, %3, %4."),
                format_bytes(rows[0].peak_bytes), str(setup.batch_size) if setup else "?",
                setup.precision if setup else "?",
                self.tr("training") if setup and setup.mode == "train"
                            else self.tr("inference")),
            arg(self.tr("Speeds relative to %1, each with the error band measured for its "
                        "kind of card and precision; prices %2."),
                ref.name if ref else self.reference(), arg(self.tr("as of %1"), self.as_of())
                     if self.as_of() else self.tr("latest known")),
        ]
        par = self._plan.parallel if self._plan is not None else None
        if par is not None and par.world > 1:
            parts.insert(1, arg(self.tr("Each row is %1 GPUs of that card (%2): the peak is per "
                                        "GPU, the speed that of all of them."),
                                str(par.world), par.strategy))
        self.summary_label.setText("  ".join(parts))

    @Slot()
    def _update_charts(self) -> None:
        speed, memory = [], []
        missing = 0
        for i in range(self.proxy.rowCount()):
            r: FitRow = self.proxy.index(i, COL_CARD).data(ROW_ROLE)
            price = r.price
            if price is None:
                missing += 1
                continue
            card = r.card
            head = (f"{OWNED_MARKER} " if r.owned else "") + card.name
            common = f"{format_price(price)}\n" + (
                arg(self.tr("fits, largest batch %1"), str(r.max_batch)) if r.fits
                else self.tr("does not fit"))
            tokens = self.model.tokens_per_sample
            said = tr_msg(speed_msg(
                r.samples_per_s, tokens_per_sample=tokens, band=r.speed.band_text() or None,
                time_per_step_s=r.time_per_iter_s))
            speed.append((card.name, price.usd, display_rate(r.samples_per_s, tokens), r.fits,
                          r.owned, f"{head}\n{said} ({r.relative_speed:.2f}×)\n{common}"))
            memory.append((card.name, price.usd, card.memory_gib, r.fits, r.owned,
                           f"{head}\n{card.memory_gib:g} GiB\n{common}"))
        self.speed_chart.set_points(speed)
        self.memory_chart.set_points(memory)
        note = ("  <span style='color:gray'>" + self.tr(
            "(%n card(s) without a price not shown)", "", missing) + "</span>") if missing else ""
        tokens = bool(self.model.tokens_per_sample)
        self.speed_chart.set_y_label(self.tr("tokens/s") if tokens else self.tr("samples/s"))
        self.speed_title.setText("<b>" + (self.tr("Tokens/s against price") if tokens else
                                          self.tr("Samples/s against price")) + "</b>" + note)
        self.memory_title.setText("<b>" + self.tr("Memory against price") + "</b>" + note)

    @Slot()
    def _on_filters_changed(self) -> None:
        self._apply_filters()

    @Slot()
    def _on_reference_changed(self) -> None:
        self.recompute()

    @Slot()
    def _on_as_of_changed(self) -> None:
        self.recompute()

    @Slot(QModelIndex)
    def _on_double_clicked(self, index: QModelIndex) -> None:
        r = index.data(ROW_ROLE)
        if r is not None:
            self.card_activated.emit(r.card.name)
