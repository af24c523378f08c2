"""One card's price history as a chart: new, used and mixed-condition prices over time (USD),
the launch price as a star, and, below, what renting it cost per GPU-hour.

Every point is an observation with a date and a source; hovering it says what it is ("used $539,
eBay asking, 2026-08") and where it comes from. Figures in another currency are not put on the
dollar axis; the footnote says how many there are.
"""

from __future__ import annotations

import datetime as _dt
import html

import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from planner.core.catalog import Catalog, GpuSpec, PricePoint, describe_price
from planner.core.prices import Observation
from planner.ui.i18n import arg, tr_msg
from planner.ui.plotstyle import style_plot

SERIES = {  # condition: (colour, symbol)
    "new": (QColor("#1f77b4"), "o"),
    "used": (QColor("#ff7f0e"), "o"),
    "mixed": (QColor("#9467bd"), "t"),
}
LAUNCH = QColor("#d62728")
RENTAL = QColor("#2ca02c")


def _tr(text: str) -> str:
    return QCoreApplication.translate("catalog", text)


def timestamp(date: str) -> float:
    """Seconds since the epoch (UTC) of "YYYY-MM-DD", or of the 15th of "YYYY-MM"."""
    y, m = int(date[:4]), int(date[5:7])
    d = int(date[8:10]) if len(date) >= 10 else 15
    return _dt.datetime(y, m, d, tzinfo=_dt.timezone.utc).timestamp()


def _tip(x: float, y: float, data) -> str:
    return str(data)


def _point_tip(p: PricePoint) -> str:
    what = tr_msg(describe_price(p)) if p is not None else ""
    source = p.source if len(p.source) <= 160 else p.source[:157] + "…"
    mine = "\n" + _tr("Your own price") if p.origin == "yours" else ""
    return f"{what}\n{source}{mine}"


def _rental_tip(o: Observation) -> str:
    per = (arg(_tr("$%1 per GPU-hour ($%2 an hour for %3 GPUs)"),
               f"{o.per_gpu_hour:.4g}", f"{o.amount:g}", str(o.gpus)) if o.gpus > 1
           else arg(_tr("$%1 per GPU-hour"), f"{o.per_gpu_hour:.4g}"))
    source = o.source if len(o.source) <= 160 else o.source[:157] + "…"
    return f"{per}, {o.market or '—'}, {o.date}\n{source}"


class _Plot(pg.PlotWidget):
    def __init__(self, y_label: str, parent: QWidget | None = None, *, min_height: int):
        super().__init__(parent, background=None,
                         axisItems={"bottom": pg.DateAxisItem(orientation="bottom")})
        item, text = style_plot(self, min_height=min_height)
        self.text_color = text
        item.getAxis("left").enableAutoSIPrefix(False)
        item.setLabel("left", y_label, color=text.name())
        item.setLabel("bottom", _tr("date (observed)"), color=text.name())


class PriceHistoryChart(QWidget):
    """The price chart (USD) and, for a card that is rented out, the rental chart."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.prices_plot = _Plot(_tr("price (USD)"), self, min_height=170)
        self.rental_plot = _Plot(_tr("USD/GPU-h"), self, min_height=110)
        text = self.prices_plot.text_color
        self.series: dict[str, pg.ScatterPlotItem] = {}
        self.lines: dict[str, pg.PlotDataItem] = {}
        item = self.prices_plot.getPlotItem()
        self.legend = item.addLegend(offset=(1, 1), labelTextColor=text, colCount=4)
        self.labels = {"new": _tr("new"), "used": _tr("used"), "mixed": _tr("mixed"),
                       "launch": _tr("launch price")}
        for cond, (colour, symbol) in SERIES.items():
            line = pg.PlotDataItem(pen=pg.mkPen(colour, width=1))
            item.addItem(line)
            scatter = pg.ScatterPlotItem(hoverable=True, tip=_tip, symbol=symbol, size=7,
                                         pen=pg.mkPen(colour), brush=pg.mkBrush(colour),
                                         hoverSize=12, hoverPen=pg.mkPen(text, width=2),
                                         )
            item.addItem(scatter)
            self.lines[cond], self.series[cond] = line, scatter
        self.launch = pg.ScatterPlotItem(hoverable=True, tip=_tip, symbol="star", size=16,
                                         pen=pg.mkPen(text), brush=pg.mkBrush(LAUNCH),
                                         hoverSize=20)
        item.addItem(self.launch)
        self.rentals = pg.ScatterPlotItem(hoverable=True, tip=_tip, symbol="s", size=7,
                                          pen=pg.mkPen(RENTAL), brush=pg.mkBrush(RENTAL),
                                          hoverSize=12, hoverPen=pg.mkPen(text, width=2))
        self.rental_plot.getPlotItem().addItem(self.rentals)
        self.empty_label = QLabel()
        self.empty_label.setWordWrap(True)
        self.footnote = QLabel()
        self.footnote.setWordWrap(True)
        self.footnote.setStyleSheet("color: gray;")
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.prices_plot, 3)
        box.addWidget(self.rental_plot, 2)
        box.addWidget(self.empty_label)
        box.addWidget(self.footnote)
        self.set_card(None, None)

    def point_count(self) -> dict[str, int]:
        """How many points each series shows (new, used, mixed, launch, rental)."""
        out = {k: len(s.data) for k, s in self.series.items()}
        out["launch"] = len(self.launch.data)
        out["rental"] = len(self.rentals.data)
        return out

    def tips(self, series: str) -> list[str]:
        item = {"launch": self.launch, "rental": self.rentals}.get(series) or self.series[series]
        return [str(d) for d in item.data["data"]]

    def set_card(self, catalog: Catalog | None, card: GpuSpec | None) -> None:
        for cond in SERIES:
            self.series[cond].setData([])
            self.lines[cond].setData([], [])
        self.launch.setData([])
        self.rentals.setData([])
        if catalog is None or card is None:
            self.prices_plot.setVisible(False)
            self.rental_plot.setVisible(False)
            self.empty_label.setText("<i>" + html.escape(
                _tr("Select a card to see its price history.")) + "</i>")
            self.empty_label.setVisible(True)
            self.footnote.clear()
            return
        history = catalog.price_history(card)
        for cond in SERIES:
            pts = [p for p in history if p.condition == cond]
            xs = [timestamp(p.day or p.date) for p in pts]
            ys = [p.usd for p in pts]
            self.series[cond].setData(x=xs, y=ys, data=[_point_tip(p) for p in pts])
            order = sorted(range(len(xs)), key=xs.__getitem__)
            self.lines[cond].setData([xs[i] for i in order], [ys[i] for i in order])
        launches = [p for p in history if p.condition == "msrp"]
        own = catalog.launch_price(card)
        if own is not None and own.date:
            launches.append(own)
        self.launch.setData(x=[timestamp(p.day or p.date) for p in launches],
                            y=[p.usd for p in launches],
                            data=[_point_tip(p) for p in launches])
        observations = catalog.observations(card)
        rentals = [o for o in observations if o.rental and o.currency == "USD"]
        self.rentals.setData(x=[timestamp(o.date) for o in rentals],
                             y=[o.per_gpu_hour for o in rentals],
                             data=[_rental_tip(o) for o in rentals])
        has_prices = bool(history) or bool(launches)
        self.prices_plot.setVisible(has_prices)
        self.rental_plot.setVisible(bool(rentals))
        self.legend.clear()  # only the series this card has
        for key, item in (*self.series.items(), ("launch", self.launch)):
            if len(item.data):
                self.legend.addItem(item, self.labels[key])
        for plot, xs in ((self.prices_plot, [timestamp(p.day or p.date) for p in history] +
                          [timestamp(p.day or p.date) for p in launches]),
                         (self.rental_plot, [timestamp(o.date) for o in rentals])):
            if xs:
                plot.getPlotItem().enableAutoRange(axis="y")
                lo, hi = min(xs), max(xs)
                pad = max((hi - lo) * 0.05, 45 * 86400)  # a single date: three months wide
                plot.getPlotItem().setXRange(lo - pad, hi + pad, padding=0)
        self.empty_label.setVisible(not has_prices and not rentals)
        self.empty_label.setText("<i>" + html.escape(_tr(
            "No dated price is known for this card: none is shown rather than a guess. "
            "Import your own (Import prices…) or enter one (Edit price…).")) + "</i>")
        notes = []
        other = [o for o in observations if o.currency != "USD"]
        if other:
            notes.append(arg(_tr("%1 figures in other currencies (%2) are in the exported history, "
                                 "not on this dollar axis."),
                             str(len(other)), ", ".join(sorted({o.currency for o in other}))))
        asking = sum(p.kind == "asking" for p in history)
        if asking:
            notes.append(arg(_tr("%1 of the prices are asking prices (listings), not sales."),
                             str(asking)))
        self.footnote.setText(" ".join(notes))
        self.footnote.setVisible(bool(notes))
