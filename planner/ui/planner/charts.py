"""The Planner pane's two plots (pyqtgraph; built after the window's first picture, see
``PlannerPane.chart``; the breakdown bar is ``planner.ui.planner.breakdown``).

* ``LayerChart``: a pyqtgraph bar chart of the bytes each layer keeps for backward, so the costly
  early layers stand out; the selected layer is highlighted and clicking a bar selects its layer.
* ``StepChart``: what tensors occupy over the simulated step, phases shaded, the peak and its
  layer marked; hover names the layer.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QColor, QFontMetrics
from PySide6.QtWidgets import QWidget

from planner.core.memory import PHASE_LABELS, MemoryEstimate
from planner.ui.i18n import arg, tr_core
from planner.units import MIB, format_bytes
from planner.ui.plotstyle import style_plot

_NO_PEN = None  # made once, on first use (no Qt objects at import)

# More layers than this are drawn as one bar per run of layers (painting 20,000 bars takes
# hundreds of milliseconds on the GUI thread).
MAX_BARS = 1500


class LayerChart(pg.PlotWidget):
    """Bytes kept for backward per layer (MiB), one bar per layer."""

    layer_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None, *, plot_item: pg.PlotItem | None = None):
        """``plot_item``: a plain ``pg.PlotItem()`` made ahead (most of the cost), or None."""
        super().__init__(parent, background=None, plotItem=plot_item)
        item, text = style_plot(self, min_height=160, grid_x=False, grid_alpha=0.25)
        self._label_color = text.name()
        item.setLabel("left", self.tr("kept for backward (MiB)"), color=self._label_color)
        item.setLabel("bottom", self.tr("layer"), color=self._label_color)
        item.getAxis("bottom").enableAutoSIPrefix(False)  # layer numbers, never "(x0.001)"
        self.setMouseEnabled(x=True, y=False)
        self._bars = pg.BarGraphItem(x=[], height=[], width=0.8)
        item.addItem(self._bars)
        self._names: list[str] = []
        self._values: np.ndarray = np.zeros(0)
        self._selected: frozenset[int] = frozenset()
        self._stale = False
        self._names_shown = False
        self._note = pg.TextItem(anchor=(0.5, 0.5), color=(160, 0, 0))
        self._note.setVisible(False)
        item.addItem(self._note, ignoreBounds=True)
        self.scene().sigMouseClicked.connect(self._on_scene_clicked)
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)
        item.getViewBox().sigResized.connect(self._on_view_resized)

    def set_estimate(self, estimate: MemoryEstimate | None, *, stale: bool = False,
                     message: str = "") -> None:
        self._stale = stale
        if estimate is None:
            self._names, self._values = [], np.zeros(0)
        else:
            self._names = [layer.name for layer in estimate.layers]
            self._values = np.array([layer.activation_bytes for layer in estimate.layers],
                                    dtype=float) / MIB
            if estimate.setup.mode != "train":
                self._values = np.array([layer.output_bytes for layer in estimate.layers],
                                        dtype=float) / MIB
        label = (self.tr("kept for backward (MiB)") if estimate is None
                 or estimate.setup.mode == "train" else self.tr("output size (MiB)"))
        self.getPlotItem().setLabel("left", label, color=self._label_color)
        n = len(self._names)
        self._update_ticks()
        self._redraw()
        top = float(self._values.max()) if len(self._values) else 1.0
        self.getPlotItem().setXRange(-0.6, max(n - 0.4, 0.6), padding=0)
        self.getPlotItem().setYRange(0, max(top, 1e-3) * 1.08, padding=0)
        self._note.setText(message if stale else "")
        self._note.setVisible(bool(stale and message))
        self._note.setPos(max(n - 1, 0) / 2, max(top, 1e-3) * 0.55)
        self.getPlotItem().getAxis("left").setStyle(showValues=n > 0)

    def names_on_axis(self) -> bool:
        """Whether the x axis names the layers (a short network whose names fit under their
        bars) rather than numbering them."""
        return self._names_shown

    def _update_ticks(self) -> None:
        """Layer names under the bars when there are few and each fits in its bar's width
        (long names overlapped each other: 'block1.0.c2' × 12); else layer numbers (hovering
        still names the layer)."""
        n = len(self._names)
        axis = self.getPlotItem().getAxis("bottom")
        self._names_shown = False
        if n == 0:
            axis.setTicks([[], []])  # no layers, no layer numbers
            return
        if n <= 24:
            font = axis.style.get("tickFont") or axis.font()
            widest = max(QFontMetrics(font).horizontalAdvance(name) for name in self._names)
            per_bar = self.getPlotItem().getViewBox().width() / n
            if widest + 8 <= per_bar:
                self._names_shown = True
                axis.setTicks([[(i, name) for i, name in enumerate(self._names)]])
                return
        axis.setTicks(None)

    @Slot()
    def _on_view_resized(self, *_args) -> None:
        if self._names:
            self._update_ticks()

    def set_selected(self, row) -> None:
        """Highlight one layer (an index) or several (an iterable of indices: a repeated
        block's layers, or one layer of the block in every copy)."""
        rows = frozenset((row,) if isinstance(row, int) else row)
        if rows != self._selected:
            self._selected = rows
            self._redraw()

    @property
    def selected(self) -> frozenset[int]:
        return self._selected

    def _redraw(self) -> None:
        global _NO_PEN
        if _NO_PEN is None:
            _NO_PEN = pg.mkPen(None)
        n = len(self._values)
        base = QColor("#d62728") if not self._stale else QColor(175, 175, 175)
        sel = QColor("#1f4e9c") if not self._stale else QColor(120, 120, 120)
        self._bars.setVisible(n > 0)
        base_brush, sel_brush = pg.mkBrush(base), pg.mkBrush(sel)  # two, not one per bar
        x, heights, width, selected = np.arange(n), self._values, 0.8, self._selected
        if n > MAX_BARS:
            # A very long network (an imported graph of thousands of nodes): one bar per run
            # of k layers at the run's largest value (its peak survives), so painting stays
            # fast; the x axis keeps layer numbers and hovering still names each layer.
            k = -(-n // MAX_BARS)
            starts = np.arange(0, n, k)
            heights = np.maximum.reduceat(self._values, starts)
            x = starts + (np.minimum(starts + k, n) - starts - 1) / 2.0
            width = 0.9 * k
            selected = frozenset(i // k for i in selected if i >= 0)
        m = len(heights)
        brushes = [sel_brush if i in selected else base_brush for i in range(m)]
        # An outline of the bar's own colour, one pixel wide whatever the zoom: a bar narrower
        # than a pixel (hundreds of layers) is still drawn, never left out by antialiasing.
        base_pen = pg.mkPen(base_brush.color(), width=1, cosmetic=True)
        sel_pen = pg.mkPen(sel_brush.color(), width=1, cosmetic=True)
        pens = [sel_pen if i in selected else base_pen for i in range(m)]
        # no bars (a plan with no estimate yet): pyqtgraph fails on an empty list of pens
        self._bars.setOpts(x=x, height=heights, width=width,
                           brushes=brushes or None, pens=pens or None)

    def _index_at(self, scene_pos) -> int | None:
        vb = self.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(scene_pos):
            return None
        x = vb.mapSceneToView(scene_pos).x()
        i = round(x)
        if 0 <= i < len(self._values) and abs(x - i) <= 0.45:
            return i
        return None

    @Slot(object)
    def _on_scene_clicked(self, event) -> None:
        i = self._index_at(event.scenePos())
        if i is not None:
            self.layer_clicked.emit(i)

    @Slot(object)
    def _on_mouse_moved(self, pos) -> None:
        i = self._index_at(pos)
        if i is None:
            self.setToolTip("")
        else:
            self.setToolTip(f"{i}: {self._names[i]} — {format_bytes(self._values[i] * MIB)}")


class StepChart(pg.PlotWidget):
    """What tensors occupy over one simulated step (MiB): forward, loss, backward and the
    optimizer, with the phases shaded, the peak marked with its layer, and hover naming the
    layer under the cursor. Clicking a point selects its layer."""

    layer_clicked = Signal(int)

    _PHASE_COLORS = {"forward": (31, 119, 180, 28), "backward": (214, 39, 40, 28),
                     "recompute": (148, 103, 189, 36)}

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent, background=None)
        item, text = style_plot(self, min_height=160, grid_x=False, grid_alpha=0.25)
        self._label_color = text.name()
        item.setLabel("left", self.tr("allocated by tensors (MiB)"), color=self._label_color)
        item.setLabel("bottom", self.tr("step: forward, loss, backward (layers in reverse), "
                                        "optimizer"), color=self._label_color)
        self.setMouseEnabled(x=True, y=False)
        self._curve = item.plot([], [], pen=pg.mkPen("#d62728", width=2))
        self._peak_line = pg.InfiniteLine(angle=90, pen=pg.mkPen("#1f4e9c", width=1,
                                                                 style=Qt.PenStyle.DashLine))
        item.addItem(self._peak_line, ignoreBounds=True)
        self._peak_title = ""
        self._regions: list[pg.LinearRegionItem] = []
        self._region_labels: list[pg.TextItem] = []
        self._points: list = []
        self._values = np.zeros(0)
        self._note = pg.TextItem(anchor=(0.5, 0.5), color=(160, 0, 0))
        self._note.setVisible(False)
        item.addItem(self._note, ignoreBounds=True)
        self.format_bytes = format_bytes
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)
        self.scene().sigMouseClicked.connect(self._on_scene_clicked)

    def peak_text(self) -> str:
        return self._peak_title

    def set_estimate(self, estimate: MemoryEstimate | None, *, stale: bool = False,
                     message: str = "") -> None:
        item = self.getPlotItem()
        for r in self._regions:
            item.removeItem(r)
        for t in self._region_labels:
            item.removeItem(t)
        self._regions, self._region_labels = [], []
        points = list(estimate.timeline) if estimate is not None else []
        self._points = points
        self._values = np.array([p.allocated_bytes for p in points], dtype=float) / MIB
        x = np.arange(len(points))
        pen = pg.mkPen((175, 175, 175) if stale else "#d62728", width=2)
        self._curve.setData(x, self._values, pen=pen)
        top = float(self._values.max()) if len(points) else 1.0
        # Shade each run of one phase and name it once.
        start = 0
        for i in range(1, len(points) + 1):
            if i == len(points) or points[i].phase != points[start].phase:
                phase = points[start].phase
                color = self._PHASE_COLORS.get(phase)
                if color is not None and i - start > 1:
                    region = pg.LinearRegionItem((start - 0.5, i - 0.5), movable=False,
                                                 brush=pg.mkBrush(*color),
                                                 pen=pg.mkPen(None))
                    region.setZValue(-10)
                    item.addItem(region, ignoreBounds=True)
                    self._regions.append(region)
                    label = pg.TextItem(tr_core(PHASE_LABELS[phase]), anchor=(0, 0),
                                        color=self._label_color)
                    label.setPos(start - 0.4, top * 1.07)
                    item.addItem(label, ignoreBounds=True)
                    self._region_labels.append(label)
                start = i
        if points and estimate is not None:
            at = estimate.peak_point
            p = points[at]
            self._peak_line.setPos(at)
            self._peak_line.setVisible(True)
            self._peak_title = arg(self.tr("tensors' peak %1 at %2 (%3), dashed line"),
                                   self.format_bytes(p.allocated_bytes), self._name(p),
                                   tr_core(PHASE_LABELS[p.phase]))
        else:
            self._peak_line.setVisible(False)
            self._peak_title = ""
        item.setTitle(self._peak_title or None, color=self._label_color, size="9pt")
        item.setXRange(-0.6, max(len(points) - 0.4, 0.6), padding=0)
        item.setYRange(0, max(top, 1e-3) * 1.15, padding=0)
        self._note.setText(message if stale else "")
        self._note.setVisible(bool(stale and message))
        self._note.setPos(max(len(points) - 1, 0) / 2, max(top, 1e-3) * 0.55)

    def _name(self, p) -> str:
        if p.layer >= 0:
            return p.name
        return tr_core(PHASE_LABELS["optimizer" if p.phase == "optimizer" else "loss"])

    def _index_at(self, scene_pos) -> int | None:
        vb = self.getPlotItem().getViewBox()
        if not vb.sceneBoundingRect().contains(scene_pos) or not self._points:
            return None
        i = round(vb.mapSceneToView(scene_pos).x())
        return i if 0 <= i < len(self._points) else None

    def describe(self, i: int) -> str:
        """The hover text of point ``i``: its layer, the phase and what tensors occupy."""
        p = self._points[i]
        return f"{self._name(p)} — {tr_core(PHASE_LABELS[p.phase])}: " \
               f"{self.format_bytes(p.allocated_bytes)}"

    @Slot(object)
    def _on_mouse_moved(self, pos) -> None:
        i = self._index_at(pos)
        self.setToolTip("" if i is None else self.describe(i))

    @Slot(object)
    def _on_scene_clicked(self, event) -> None:
        i = self._index_at(event.scenePos())
        if i is not None and self._points[i].layer >= 0:
            self.layer_clicked.emit(self._points[i].layer)
