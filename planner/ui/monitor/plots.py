"""The Monitor pane's live plots: memory, bandwidth, utilisation, PCIe (pyqtgraph).

Curves are created once per set of cards and only get new data afterwards; ``redraw()`` is
called by the pane's tick (a few times a second), never per sample. Each plot has a fixed x
window; a curve gets only that window's data, reduced to its peak envelope (about one min/max
pair per pixel, ``PeakEnvelope``), as a bare ``PlotCurveItem``; gaps are NaN and break the
line. Percentages have a fixed 0–100 y range, memory 0 to the card's total, bandwidth 0 to
its peak.

What is drawn, per card:

* memory in use (GiB) against the card's total (a grey line), with the plan's predicted peak
  (an orange line) and optionally one followed process's memory;
* bandwidth in GB/s, an ESTIMATE (memory-controller busy % × peak), against the card's peak
  (a dashed line); measured DRAM bandwidth (GPM) where the card has it;
* utilisation: GPU busy % and memory-controller busy %;
* PCIe receive / transmit in MB/s.

The data come from a ``History`` (live or a replayed recording): anything with
``window(seconds, metric, device) -> Series``, ``fine.last_time()`` and ``first_time_s``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QRectF, Qt
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import QGraphicsItem, QWidget

from planner.ui.i18n import arg
from planner.telemetry.history import History
from planner.telemetry.envelope import PeakEnvelope
from planner.telemetry.timeaxis import seconds_per_pixel, x_range
from planner.telemetry.types import DeviceInfo
from planner.ui.monitor.models import plot_label
from planner.units import GIB

# The metrics the pane keeps in its History (what the plots and CSV export need).
PLOT_METRICS: tuple[str, ...] = (
    "memory_used_bytes", "memory_busy_pct", "bandwidth_gbs_estimate", "dram_bw_util_pct",
    "gpu_busy_pct", "pcie_rx_bytes_s", "pcie_tx_bytes_s", "power_draw_w", "temperature_c",
)

CARD_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
               "#e377c2")
METRIC_COLORS = {
    "memory": "#1f77b4", "process": "#ff7f0e", "bandwidth": "#9467bd", "dram": "#2ca02c",
    "gpu_busy": "#d62728", "mem_busy": "#1f77b4", "rx": "#17becf", "tx": "#8c564b",
}
PREDICTED_COLOR = "#e6550d"
TOTAL_COLOR = "#7f7f7f"
# A longer series is reduced to its peak envelope (min/max pairs) before it reaches pyqtgraph:
# about BINS_PER_PX pairs per pixel of plot width, at most MAX_BINS (≤ 2 × MAX_BINS points per
# curve), so a redraw of a 24-hour history costs about what a minute's does, per card
MAX_BINS = 512
MIN_BINS = 64
BINS_PER_PX = 0.75


def _tr(text: str) -> str:
    return QCoreApplication.translate("MonitorPlots", text)


@dataclass
class _CardCurves:
    device: DeviceInfo
    memory: pg.PlotCurveItem
    bandwidth: pg.PlotCurveItem
    dram: pg.PlotCurveItem
    gpu_busy: pg.PlotCurveItem
    mem_busy: pg.PlotCurveItem
    rx: pg.PlotCurveItem
    tx: pg.PlotCurveItem
    total_line: pg.InfiniteLine
    peak_line: pg.InfiniteLine
    items: list = field(default_factory=list)
    has_dram: bool = False
    reducers: dict = field(default_factory=dict)  # curve name → PeakEnvelope
    data_key: tuple | None = None  # what the curves show now; same key → no new data

    def reducer(self, name: str) -> PeakEnvelope:
        r = self.reducers.get(name)
        if r is None:
            r = self.reducers[name] = PeakEnvelope(MAX_BINS)
        return r


class _Curve(pg.PlotCurveItem):
    """A data curve whose whole-data bounds (what its bounding rect and the y auto-range ask
    at every paint after new data) are two ufunc reductions: pyqtgraph's ``dataBounds`` runs
    ``nanmin``/``nanmax`` under ``warnings.catch_warnings`` (about 20 calls a redraw). The
    same numbers: NaN is skipped (an all-NaN curve gives NaN, as ``nanmin`` does), and an
    orthogonal range (the PCIe plot's y range follows the points in view) masks the points
    as pyqtgraph does; infinite data, a fraction, a fill level, a step mode or a non-cosmetic
    pen take pyqtgraph's own path."""

    def dataBounds(self, ax, frac=1.0, orthoRange=None):  # noqa: N802 - pyqtgraph's name
        cache = self._boundsCache[ax]
        if cache is not None and cache[0] == (frac, orthoRange):
            return cache[1]
        d = self.xData if ax == 0 else self.yData
        if (frac < 1.0 or d is None or not len(d) or ax not in (0, 1)
                or self.opts["fillLevel"] is not None or self.opts["shadowPen"] is not None
                or not self.opts["pen"].isCosmetic() or self.opts.get("stepMode") is not None):
            return super().dataBounds(ax, frac, orthoRange)
        if orthoRange is not None:  # the points inside the other axis's range (auto-visible)
            d2 = self.yData if ax == 0 else self.xData
            d = d[(d2 >= orthoRange[0]) * (d2 <= orthoRange[1])]
            if not len(d):
                return (None, None)
        b = (float(np.fmin.reduce(d)), float(np.fmax.reduce(d)))
        if math.isinf(b[0]) or math.isinf(b[1]):
            return super().dataBounds(ax, frac, orthoRange)
        self._boundsCache[ax] = [(frac, orthoRange), b]
        return b


def _data_pen(color: str, light: bool = False) -> QPen:
    """Data curves: 1-pixel solid cosmetic pens, the fast path of Qt's raster painter (wide
    and dashed pens over thousands of points cost tens of milliseconds per redraw). A
    second series of the same card is drawn in a lighter shade instead of dashed."""
    c = QColor(color)
    if light:
        c = c.lighter(165) if c.lightness() < 140 else c.darker(150)
    pen = QPen(c)
    pen.setWidth(1)
    pen.setCosmetic(True)
    return pen


def _pen(color: str, width: float = 1.5, dash: bool = False) -> QPen:
    pen = pg.mkPen(QColor(color), width=width)
    if dash:
        pen.setStyle(Qt.PenStyle.DashLine)
    pen.setCosmetic(True)
    return pen


class _LaidOutBounds:
    """An axis whose bounding rect is computed once per layout. With a grid, AxisItem's
    ``boundingRect`` is the axis and its linked view's rect mapped into it (about ten
    Python-level Qt calls), and the scene asks for it some thirty times a repaint of the
    plots; it depends on nothing but the two geometries (both are laid out in the same plot
    item), the grid and the tick style, so it is computed again only when one of those
    changed: the same rect."""

    _bounds_key: tuple | None = None
    _bounds: QRectF | None = None

    def boundingRect(self):  # noqa: N802 - Qt's name
        view = self.linkedView()
        style = self.style
        key = (self.geometry(), None if view is None else view.geometry(), self.grid,
               style["tickLength"], style["hideOverlappingLabels"], self.orientation)
        if key != self._bounds_key or self._bounds is None:
            self._bounds = super().boundingRect()
            self._bounds_key = key
        return QRectF(self._bounds)


class _Axis(_LaidOutBounds, pg.AxisItem):
    """The value axes (left): AxisItem with its bounding rect kept per layout."""


class _DateAxis(_LaidOutBounds, pg.DateAxisItem):
    """The time axis (bottom): DateAxisItem with its bounding rect kept per layout."""


def _new_plot_item() -> pg.PlotItem:
    return pg.PlotItem(axisItems={"bottom": _DateAxis(orientation="bottom"),
                                  "left": _Axis(orientation="left")})


_made: list[pg.PlotItem] = []  # made ahead (make_ahead), taken by the next MonitorPlots
_made_plots: list[MonitorPlots] = []  # the next pane's plots, made ahead


def make_ahead() -> None:
    """Make a part of the next Monitor pane's plots ahead of it: its four plot items, a call
    each, then the widget with them (``take_plots`` hands it over). The main window does this
    one call per turn of the event loop after its first picture, so that building the pane is
    not one long stall (the plots are most of its construction)."""
    if _made_plots:
        return
    if len(_made) < 4:
        _made.append(_new_plot_item())
    else:
        _made_plots.append(MonitorPlots())


def take_plots(parent: QWidget) -> MonitorPlots:
    """The plots made ahead (now ``parent``'s), or new ones."""
    if _made_plots:
        plots = _made_plots.pop()
        plots.setParent(parent)
        return plots
    return MonitorPlots(parent)


class MonitorPlots(pg.GraphicsLayoutWidget):
    """Four x-linked plots in a 2 × 2 grid."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setBackground("w")
        self.ci.setSpacing(4)
        self._title_prefix = ""
        self.memory = self._plot(0, 0)
        self.bandwidth = self._plot(0, 1)
        self.util = self._plot(2, 0)
        self.pcie = self._plot(2, 1)
        for col in (0, 1):
            self.ci.layout.setColumnStretchFactor(col, 1)
        self.plots = (self.memory, self.bandwidth, self.util, self.pcie)
        self._titles: dict[int, str] = {}
        self._label_plots()
        for p in self.plots[1:]:
            p.setXLink(self.memory)
        self.util.setYRange(0, 100, padding=0.02)
        self.util.enableAutoRange(y=False)
        self.pcie.enableAutoRange(y=True)
        self.pcie.setAutoVisible(y=True)
        # legends sit in their own row under each plot, so they never hide a curve
        self.legends = {}
        for p, (row, col) in zip(self.plots, ((1, 0), (1, 1), (3, 0), (3, 1)), strict=True):
            leg = pg.LegendItem(offset=None, colCount=4, labelTextSize="8pt",
                                labelTextColor="#222222", frame=False, horSpacing=4)
            self.ci.addItem(leg, row=row, col=col)
            leg.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
            self.legends[id(p)] = leg
        self.predicted_line = pg.InfiniteLine(
            angle=0, pen=_pen(PREDICTED_COLOR, 2, dash=True), movable=False,
            label="", labelOpts={"position": 0.5, "anchors": [(0.5, 1), (0.5, 1)],
                                 "color": PREDICTED_COLOR, "fill": (255, 255, 255, 200)})
        self.predicted_line.setVisible(False)
        self.memory.addItem(self.predicted_line, ignoreBounds=True)
        self.predicted_bytes: int | None = None
        self._predicted_label = ""
        self.process_curve = self._curve(self.memory, METRIC_COLORS["process"])
        self.process_curve.setVisible(False)
        self._process_reducer = PeakEnvelope(MAX_BINS)
        self.process_label = ""
        self.cards: dict[int, _CardCurves] = {}
        self.selected: int | None = None  # None: all cards
        self.redraws = 0
        self.last_redraw_s = 0.0
        self.coarse_shown = False
        self._nbins = MAX_BINS

    # -- construction -----------------------------------------------------------------------

    def _label_plots(self) -> None:
        """Titles and axis labels in the language now installed."""
        for p, (title, label, units) in zip(self.plots, (
                (_tr("Memory in use"), _tr("Memory in use"), "GiB"),
                (_tr("Memory bandwidth (estimate)"), _tr("Bandwidth (est.)"), "GB/s"),
                (_tr("Utilisation"), _tr("Busy"), "%"),
                (_tr("PCIe traffic"), _tr("PCIe"), "MB/s")), strict=True):
            self._titles[id(p)] = title
            p.setTitle(self._title_prefix + title)
            p.setLabel("left", label, units=units)
            p.setLabel("bottom", _tr("Time (local clock)"))

    def retranslate(self) -> None:
        """Titles, axis labels and legends in the language now installed."""
        self._label_plots()
        self._rebuild_legends()
        if self.predicted_bytes is not None:
            self.set_predicted_peak(self.predicted_bytes, self._predicted_label)

    def _plot(self, row: int, col: int) -> pg.PlotItem:
        p = _made.pop(0) if _made else _new_plot_item()
        self.addItem(p, row=row, col=col)  # what addPlot does
        p.getAxis("left").enableAutoSIPrefix(False)
        p.showGrid(x=True, y=True, alpha=0.25)
        p.setClipToView(True)
        p.setDownsampling(ds=1, auto=False)  # the curves get ≤ 2 × MAX_BINS points already
        p.setMouseEnabled(x=False, y=False)
        p.hideButtons()
        p.setMenuEnabled(False)
        # axes, title and grid are painted from a pixmap cache, re-rendered only when their
        # range changes (the x window moves in steps, see redraw): painting the axes' text
        # every redraw was most of a redraw's cost
        for name in ("left", "bottom"):
            p.getAxis(name).setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        p.titleLabel.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        return p

    @staticmethod
    def _curve(plot: pg.PlotItem, color: str, *, light: bool = False,
               name: str | None = None) -> pg.PlotCurveItem:
        """A bare curve item: its data are already reduced to the window's peak envelope
        (≤ 2 × bins points), so PlotDataItem's layer (clip to view, downsampling, its own
        bounds of every new dataset) was work done twice at every redraw."""
        c = _Curve(pen=_data_pen(color, light), name=name, connect="finite",
                   skipFiniteCheck=True)
        plot.addItem(c)
        return c

    def set_devices(self, devices: Sequence[DeviceInfo]) -> None:
        """Create the curves of these cards (once per set of cards)."""
        if [d for d in devices] == [c.device for c in self.cards.values()]:
            return
        for cc in self.cards.values():
            for plot, item in cc.items:
                plot.removeItem(item)
        self.cards = {}
        for d in devices:
            color = CARD_COLORS[d.index % len(CARD_COLORS)]
            total = pg.InfiniteLine(angle=0, pen=_pen(TOTAL_COLOR, 1.5), movable=False)
            peak = pg.InfiniteLine(angle=0, pen=_pen(TOTAL_COLOR, 1.5, dash=True),
                                   movable=False)
            if d.memory_total_bytes:
                total.setPos(d.memory_total_bytes / GIB)
            if d.peak_bandwidth_gbs:
                peak.setPos(d.peak_bandwidth_gbs)
            self.memory.addItem(total, ignoreBounds=True)
            self.bandwidth.addItem(peak, ignoreBounds=True)
            cc = _CardCurves(
                device=d,
                memory=self._curve(self.memory, color),
                bandwidth=self._curve(self.bandwidth, color),
                dram=self._curve(self.bandwidth, color, light=True),
                gpu_busy=self._curve(self.util, color),
                mem_busy=self._curve(self.util, color, light=True),
                rx=self._curve(self.pcie, color),
                tx=self._curve(self.pcie, color, light=True),
                total_line=total, peak_line=peak)
            cc.items = [(self.memory, cc.memory), (self.bandwidth, cc.bandwidth),
                        (self.bandwidth, cc.dram), (self.util, cc.gpu_busy),
                        (self.util, cc.mem_busy), (self.pcie, cc.rx), (self.pcie, cc.tx),
                        (self.memory, total), (self.bandwidth, peak)]
            self.cards[d.index] = cc
        if self.selected is not None and self.selected not in self.cards:
            self.selected = next(iter(self.cards), None)
        self.set_selection(self.selected)

    # -- what is shown ----------------------------------------------------------------------

    def set_title_prefix(self, prefix: str) -> None:
        """E.g. "REPLAY 2024-05-01 10:00 — " in front of every plot title ("" for live)."""
        self._title_prefix = prefix
        for p in self.plots:
            p.setTitle(prefix + self._titles[id(p)])

    def set_selection(self, device: int | None) -> None:
        """Show one card (its index) or all cards (None)."""
        self.selected = device
        single = device is not None
        for idx, cc in self.cards.items():
            on = (not single) or idx == device
            for _, item in cc.items:
                item.setVisible(on)
            if not cc.device.memory_total_bytes:
                cc.total_line.setVisible(False)
            if not cc.device.peak_bandwidth_gbs:
                cc.peak_line.setVisible(False)
            color = CARD_COLORS[idx % len(CARD_COLORS)]
            if single:
                cc.memory.setPen(_data_pen(METRIC_COLORS["memory"]))
                cc.bandwidth.setPen(_data_pen(METRIC_COLORS["bandwidth"]))
                cc.dram.setPen(_data_pen(METRIC_COLORS["dram"]))
                cc.gpu_busy.setPen(_data_pen(METRIC_COLORS["gpu_busy"]))
                cc.mem_busy.setPen(_data_pen(METRIC_COLORS["mem_busy"]))
                cc.rx.setPen(_data_pen(METRIC_COLORS["rx"]))
                cc.tx.setPen(_data_pen(METRIC_COLORS["tx"]))
            else:
                cc.memory.setPen(_data_pen(color))
                cc.bandwidth.setPen(_data_pen(color))
                cc.dram.setPen(_data_pen(color, light=True))
                cc.gpu_busy.setPen(_data_pen(color))
                cc.mem_busy.setPen(_data_pen(color, light=True))
                cc.rx.setPen(_data_pen(color))
                cc.tx.setPen(_data_pen(color, light=True))
        self._fix_y_ranges()
        self._rebuild_legends()

    def _shown(self) -> list[_CardCurves]:
        if self.selected is None:
            return list(self.cards.values())
        cc = self.cards.get(self.selected)
        return [cc] if cc is not None else []

    def _fix_y_ranges(self) -> None:
        shown = self._shown()
        totals = [c.device.memory_total_bytes / GIB for c in shown if c.device.memory_total_bytes]
        top = max(totals, default=1.0)
        if self.predicted_bytes:
            top = max(top, self.predicted_bytes / GIB)
        self.memory.setYRange(0, top * 1.05, padding=0)
        peaks = [c.device.peak_bandwidth_gbs for c in shown if c.device.peak_bandwidth_gbs]
        if peaks:
            self.bandwidth.enableAutoRange(y=False)
            self.bandwidth.setYRange(0, max(peaks) * 1.08, padding=0)
        else:
            self.bandwidth.enableAutoRange(y=True)
        self.util.setYRange(0, 100, padding=0.02)

    @staticmethod
    def _proxy(color: str, *, dash: bool = False, width: float = 1.5) -> pg.PlotDataItem:
        """A stand-in item that only gives a legend entry its line style."""
        return pg.PlotDataItem(pen=_pen(color, width, dash))

    @staticmethod
    def _light_proxy(color: str) -> pg.PlotDataItem:
        return pg.PlotDataItem(pen=_data_pen(color, light=True))

    def _rebuild_legends(self) -> None:
        shown = self._shown()
        # four entries a row fit "GPU n"; two for "host · GPU n", so the legend row never
        # makes the layout wider than the view (which would clip the right-hand plots)
        long_names = self.selected is None and any(c.device.host for c in shown)
        for leg in self.legends.values():
            leg.clear()
            leg.setColumnCount(2 if long_names else 4)
        mem, bw, util, pcie = (self.legends[id(p)] for p in self.plots)
        if self.selected is not None and shown:
            cc = shown[0]
            mem.addItem(cc.memory, _tr("memory in use"))
            mem.addItem(self._proxy(TOTAL_COLOR), _tr("total"))
            bw.addItem(cc.bandwidth, _tr("estimate (busy × peak)"))
            if cc.device.peak_bandwidth_gbs:
                peak = format(cc.device.peak_bandwidth_gbs, ".0f")
                bw.addItem(self._proxy(TOTAL_COLOR, dash=True), arg(_tr("peak %1 GB/s"), peak))
            if cc.has_dram:
                bw.addItem(cc.dram, _tr("DRAM bandwidth (GPM, measured)"))
            util.addItem(cc.gpu_busy, _tr("GPU busy"))
            util.addItem(cc.mem_busy, _tr("memory-controller busy"))
            pcie.addItem(cc.rx, _tr("receive"))
            pcie.addItem(cc.tx, _tr("transmit"))
        else:
            for cc in shown:
                name = plot_label(cc.device)
                mem.addItem(cc.memory, name)
                bw.addItem(cc.bandwidth, name)
                util.addItem(cc.gpu_busy, name)
                pcie.addItem(cc.rx, name)
            if shown:
                util.addItem(self._light_proxy(TOTAL_COLOR),
                             _tr("lighter: memory-controller busy"))
                pcie.addItem(self._light_proxy(TOTAL_COLOR), _tr("lighter: transmit"))
                if any(c.has_dram for c in shown):
                    bw.addItem(self._light_proxy(TOTAL_COLOR),
                               _tr("lighter: DRAM (GPM, measured)"))
        if self.predicted_line.isVisible():
            mem.addItem(self._proxy(PREDICTED_COLOR, dash=True, width=2),
                        _tr("plan's predicted peak"))
        if self.process_curve.isVisible() and self.process_label:
            mem.addItem(self.process_curve, self.process_label)

    def set_predicted_peak(self, n_bytes: int | None, label: str = "") -> None:
        self._predicted_label = label
        self.predicted_bytes = n_bytes if n_bytes and n_bytes > 0 else None
        if self.predicted_bytes is None:
            self.predicted_line.setVisible(False)
        else:
            self.predicted_line.setPos(self.predicted_bytes / GIB)
            text = arg(_tr("plan: %1 GiB"), format(self.predicted_bytes / GIB, '.1f'))
            if label:
                text += f" ({label})"
            self.predicted_line.setVisible(True)  # before setFormat: a hidden label ignores it
            self.predicted_line.label.setFormat(text.replace("{", "{{").replace("}", "}}"))
        self._fix_y_ranges()
        self._rebuild_legends()

    def set_process_curve(self, label: str | None, times: np.ndarray | None = None,
                          values_bytes: np.ndarray | None = None) -> None:
        """Show one process's memory (label None hides it)."""
        if label is None:
            was_shown = self.process_curve.isVisible() and bool(self.process_label)
            self.process_label = ""
            self.process_curve.setData([], [])
            self.process_curve.setVisible(False)
            if was_shown:
                self._rebuild_legends()  # no hidden-item icon left behind in the legend
        else:
            changed = label != self.process_label or not self.process_curve.isVisible()
            self.process_label = label
            if times is not None and values_bytes is not None:
                x, y = self._process_reducer.reduce(times, values_bytes, 1.0 / GIB,
                                                    self._bins())
                self.process_curve.setData(x, y, connect="finite")
            self.process_curve.setVisible(True)
            if changed:
                self._rebuild_legends()

    # -- drawing ----------------------------------------------------------------------------

    def redraw(self, history: History, window_s: float | None) -> None:
        """Put the last ``window_s`` seconds (None: everything) of ``history`` on the plots."""
        t0 = time.perf_counter()
        end = history.fine.last_time()
        if math.isnan(end):
            return
        first = history.first_time_s if history.first_time_s is not None else end
        start, x_end = x_range(end, first, window_s)  # moves in steps: cached axes stay
        coarse = False
        legend_stale = False
        shown = {id(c) for c in self._shown()}
        self._nbins = self._bins()
        for idx, cc in self.cards.items():
            if id(cc) not in shown:
                continue
            mem = history.window(window_s, "memory_used_bytes", idx)
            coarse = coarse or mem.coarse
            n = len(mem.times)
            # the data of a window are known by their tier, length and end times: the same
            # key means the same points (a paused source, a replay, a coarse window between
            # two buckets), so the card's curves keep what they have
            key = (id(history), mem.coarse, n, float(mem.times[0]) if n else None,
                   float(mem.times[-1]) if n else None, self._nbins)
            if key == cc.data_key:
                continue
            cc.data_key = key
            mem_values = mem.high if (mem.coarse and mem.high is not None) else mem.values
            self._set(cc, "memory", mem.times, mem_values, 1.0 / GIB)
            s = history.window(window_s, "bandwidth_gbs_estimate", idx)
            self._set(cc, "bandwidth", s.times, s.values)
            s = history.window(window_s, "dram_bw_util_pct", idx)
            peak = cc.device.peak_bandwidth_gbs
            if peak and self._set(cc, "dram", s.times, s.values, peak / 100.0):
                if not cc.has_dram:
                    cc.has_dram = legend_stale = True
            elif not peak:
                self._set(cc, "dram", s.times[:0], s.values[:0])
            s = history.window(window_s, "gpu_busy_pct", idx)
            self._set(cc, "gpu_busy", s.times, s.values)
            s = history.window(window_s, "memory_busy_pct", idx)
            self._set(cc, "mem_busy", s.times, s.values)
            s = history.window(window_s, "pcie_rx_bytes_s", idx)
            self._set(cc, "rx", s.times, s.values, 1e-6)
            s = history.window(window_s, "pcie_tx_bytes_s", idx)
            self._set(cc, "tx", s.times, s.values, 1e-6)
        self.coarse_shown = coarse
        if legend_stale:
            self._rebuild_legends()
        self.memory.setXRange(start, x_end, padding=0)
        self.redraws += 1
        self.last_redraw_s = time.perf_counter() - t0

    def seconds_per_pixel(self, history: History, window_s: float | None) -> float:
        """How much time one pixel of the x axis spans now (inf before any data): a live
        redraw sooner than that would draw the same picture, a pixel further on."""
        end = history.fine.last_time()
        width = self.memory.vb.width() if self.memory.vb is not None else 0.0
        first = history.first_time_s if history.first_time_s is not None else end
        return seconds_per_pixel(end, first, window_s, width)

    def _bins(self) -> int:
        """Min/max pairs per curve for the plots' current width in pixels."""
        width = self.memory.vb.width() if self.memory.vb is not None else 0.0
        return int(min(MAX_BINS, max(MIN_BINS, width * BINS_PER_PX)))

    def _set(self, cc: _CardCurves, name: str, times: np.ndarray, values: np.ndarray,
             scale: float = 1.0) -> bool:
        """New data for one curve, reduced to ≤ 2 × bins points; a curve with nothing to
        show (all N/A) that is already empty is left alone. True when it shows data."""
        x, y = cc.reducer(name).reduce(times, values, scale, self._nbins)
        curve = getattr(cc, name)
        if not len(y) or math.isnan(np.fmax.reduce(y)):
            if curve.xData is not None and len(curve.xData):
                curve.setData([], [])
            return False
        # the envelope's buffers are finite where the data are (NaN only for gaps, which
        # connect="finite" breaks the line at): pyqtgraph's own check is not needed. Without
        # a gap (the sum is a number) the curve is one polyline, built by connect="all"'s
        # single polygon instead of "finite"'s split at every NaN (the same line)
        gapless = not math.isnan(np.add.reduce(x) + np.add.reduce(y))
        curve.setData(x, y, connect="all" if gapless else "finite", skipFiniteCheck=True)
        return True

    def invalidate(self) -> None:
        """Forget what the curves show, so the next redraw sets every curve's data again
        (the benchmark times full redraws this way)."""
        for cc in self.cards.values():
            cc.data_key = None

    def clear_data(self) -> None:
        for cc in self.cards.values():
            cc.data_key = None
            for _, item in cc.items:
                if isinstance(item, pg.PlotCurveItem):
                    item.setData([], [])
        self.process_curve.setData([], [])

    def curve_points(self, device: int, which: str = "memory") -> int:
        """How many points a curve holds (for tests and the benchmark)."""
        cc = self.cards.get(device)
        if cc is None:
            return 0
        x, _ = getattr(cc, which).getData()
        return 0 if x is None else len(x)
