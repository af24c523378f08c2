"""The two charts of the Planner pane.

* ``BreakdownBar``: one horizontal bar stacked by the estimate's terms, a legend with each term in
  MiB/GiB (binary, as nvidia-smi) and its share, and the peak. Painted with QPainter so the labels
  never clip and it scales with the window.
* ``LayerChart``: a pyqtgraph bar chart of the bytes each layer keeps for backward, so the costly
  early layers stand out; the selected layer is highlighted and clicking a bar selects its layer.
* ``StepChart``: what tensors occupy over the simulated step, phases shaded, the peak and its
  layer marked; hover names the layer.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal, Slot
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from planner.core.memory import PHASE_LABELS, TERM_LABELS, TERMS, MemoryEstimate, term_label
from planner.i18n import QT_TRANSLATE_NOOP
from planner.ui.i18n import arg, tr_core
from planner.units import MIB, format_bytes
from planner.ui.plotstyle import style_plot

TERM_COLORS = {
    "overhead": QColor("#8c8c8c"),
    "weights": QColor("#1f77b4"),
    "weight_copies": QColor("#aec7e8"),
    "gradients": QColor("#6baed6"),
    "optimizer": QColor("#9467bd"),
    "activations": QColor("#d62728"),
    "transient": QColor("#ff9896"),
    "workspace": QColor("#ff7f0e"),
    "allocator": QColor("#c7c7c7"),
    "communication": QColor("#2ca02c"),
    "gathered": QColor("#17becf"),
}
PARALLEL_TERMS = TERMS + ("communication", "gathered")
PARALLEL_LABELS = {**TERM_LABELS,
                   "communication": QT_TRANSLATE_NOOP("core", "Communication buffers"),
                   "gathered": QT_TRANSLATE_NOOP("core", "Gathered weights (sharded)")}


def _grey(color: QColor) -> QColor:
    v = int(0.3 * color.red() + 0.59 * color.green() + 0.11 * color.blue())
    v = 170 + (v - 128) // 4
    return QColor(v, v, v)


_NO_PEN = None  # made once, on first use (no Qt objects at import)

class BreakdownBar(QWidget):
    """A stacked horizontal bar of the memory terms, with a legend and the peak."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._estimate: MemoryEstimate | None = None
        self._stale = False
        self._message = ""
        self._capacity_bytes: int | None = None
        self._per_gpu = None  # planner.core.parallel.PerGpuMemory, on several GPUs
        self._global_batch = 0
        self._legend_cache: tuple | None = None  # (what it depends on, _legend_width)
        self.format_bytes = format_bytes  # the user's units (settings.byte_formatter)
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self.setMinimumWidth(360)
        self.setToolTip(self.tr(
            "The terms are what is alive at the peak of the simulated step. Below them: what "
            "tensors occupy at the peak (torch.cuda.max_memory_allocated), what PyTorch's "
            "caching allocator holds (max_memory_reserved; simulated from its documented "
            "behaviour, not measured), and what nvidia-smi shows (that plus the CUDA context "
            "and libraries). The allocator gives back cached blocks and retries before it "
            "runs out of memory, so fit is judged on the tensors plus the context."))

    def set_estimate(self, estimate: MemoryEstimate | None, *, stale: bool = False,
                     message: str = "", capacity_bytes: int | None = None) -> None:
        """Show ``estimate``; ``stale`` greys it out with ``message`` over it."""
        self._estimate = estimate
        self._stale = stale
        self._message = message
        self._capacity_bytes = capacity_bytes
        self.updateGeometry()
        self.update()

    def set_per_gpu(self, per_gpu, global_batch: int = 0) -> None:
        """Show the memory on each GPU (a ``PerGpuMemory``) instead of the single-GPU terms;
        None goes back to one GPU."""
        self._per_gpu = per_gpu
        self._global_batch = global_batch
        self.updateGeometry()
        self.update()

    def _term_names(self) -> tuple[str, ...]:
        return PARALLEL_TERMS if self._per_gpu is not None else TERMS

    def _values(self) -> dict[str, int]:
        if self._per_gpu is not None:
            return self._per_gpu.terms()
        return self._estimate.terms() if self._estimate is not None else {}

    def _terms(self) -> list[tuple[str, int]]:
        if self._estimate is None:
            return []
        return [(t, v) for t, v in self._values().items() if v > 0]

    _MARGIN = 8
    _BAR_H = 30

    def _legend_columns(self, width: int) -> int:
        """Two legend columns when every line (its label and its own amount) fits in half the
        width, else one."""
        values = self._values()
        mode = self._estimate.setup.mode if self._estimate is not None else "train"
        # asked again and again while a layout settles: measured once per shown figures
        key = (self.font().key(), self.format_bytes, mode, self._term_names(),
               tuple(values.items()))
        if self._legend_cache is None or self._legend_cache[0] != key:
            self._legend_cache = (key, self._legend_width(values, mode))
        needed = self._legend_cache[1]
        return 2 if 2 * needed <= width - 2 * self._MARGIN else 1

    def _legend_width(self, values: dict[str, int], mode: str) -> int:
        """The width one legend line needs: the widest label and its amount."""
        fm = QFontMetrics(self.font())
        total = max(sum(values.values()), 1)
        needed = 0
        for t in self._term_names():
            label = tr_core(term_label(t, mode) if t in TERM_LABELS else PARALLEL_LABELS[t])
            value = values.get(t, 0)
            amount = (f"{self.format_bytes(value)}  ({100 * value / total:.0f}%)" if value
                      else f"{self.format_bytes(0)}  (—)") if values else "9999.9 MiB  (100%)"
            needed = max(needed, 18 + fm.horizontalAdvance(label) + 16
                         + fm.horizontalAdvance(amount) + 12)
        return needed

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        line = QFontMetrics(self.font()).height() + 4
        rows = -(-len(self._term_names()) // self._legend_columns(width))
        return self._MARGIN + line + 4 + self._BAR_H + 10 + (rows + 1) * line + self._MARGIN

    def sizeHint(self) -> QSize:
        width = max(self.width(), 520)
        return QSize(520, self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:
        return QSize(360, self.heightForWidth(max(self.width(), 360)))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.heightForWidth(event.size().width()) != self.height():
            self.updateGeometry()

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        pal = self.palette()
        text_color = pal.color(pal.ColorRole.WindowText)
        fm = QFontMetrics(self.font())
        line = fm.height() + 4
        margin = self._MARGIN
        width = self.width() - 2 * margin
        y = margin
        est = self._estimate
        bold = QFont(self.font())
        bold.setBold(True)
        bold.setPointSizeF(self.font().pointSizeF() * 1.15)
        p.setFont(bold)
        if est is None:
            p.setPen(text_color)
            p.drawText(QRectF(margin, y, width, line * 3),
                       int(Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap),
                       self._message or self.tr("No estimate"))
            return
        fmt = self.format_bytes
        per_gpu = self._per_gpu
        peak = per_gpu.peak if per_gpu is not None else est.peak
        title = (self.tr("Per GPU %1") if per_gpu is not None else self.tr("Peak %1")).replace(
            "%1", fmt(peak))
        mode = est.setup.mode
        sub = (self.tr("training") if mode == "train" else self.tr("inference")) + ", " + \
            arg(self.tr("batch %1"), str(est.setup.batch_size)) + ", " + \
            est.setup.precision
        at = est.peak_at
        if at is not None and per_gpu is None:
            where = at.name if at.layer >= 0 else tr_core(PHASE_LABELS[at.phase])
            sub += ", " + arg(self.tr("at %1 (%2)"), where, tr_core(PHASE_LABELS[at.phase]))
        if per_gpu is not None:
            sub = (arg(self.tr("%1 GPUs, %2, batch %3 each, global %4"),
                       str(per_gpu.parallel.world), per_gpu.parallel.strategy,
                       str(est.setup.batch_size),
                       f"{self._global_batch:,}") + ", " + est.setup.precision)
        p.setPen(QColor(128, 128, 128) if self._stale else text_color)
        p.drawText(QPointF(margin, y + fm.ascent() + 2), title)
        tw = QFontMetrics(bold).horizontalAdvance(title)
        p.setFont(self.font())
        verdict = ""
        if self._capacity_bytes:
            cap = arg(self.tr("of %1"), fmt(self._capacity_bytes))
            fits = peak <= self._capacity_bytes
            verdict = cap + " — " + (self.tr("fits") if fits else self.tr("does not fit"))
        # the details give way (elided; whole in the tooltip) before they run into the verdict
        room = width - tw - 12 - (fm.horizontalAdvance(verdict) + 12 if verdict else 0)
        details = "(" + sub + ")"
        self.setToolTip(details if fm.horizontalAdvance(details) > room else "")
        p.drawText(QPointF(margin + tw + 12, y + fm.ascent() + 2),
                   fm.elidedText(details, Qt.TextElideMode.ElideRight, max(0, int(room))))
        if verdict:
            p.setPen(QColor(128, 128, 128) if self._stale else
                     (QColor(0, 120, 0) if fits else QColor(180, 0, 0)))
            p.drawText(QRectF(margin, y, width, line),
                       int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), verdict)
        y += line + 4
        bar_h = self._BAR_H
        x = float(margin)
        total = max(peak, 1)
        for term, value in self._terms():
            w = width * value / total
            color = TERM_COLORS[term]
            p.fillRect(QRectF(x, y, w, bar_h), _grey(color) if self._stale else color)
            x += w
        p.setPen(QPen(text_color, 1))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(QRectF(margin, y, width, bar_h))
        if self._stale and self._message:
            p.setPen(QColor(160, 0, 0))
            p.setFont(bold)
            p.drawText(QRectF(margin, y, width, bar_h), int(Qt.AlignmentFlag.AlignCenter),
                       self._message)
            p.setFont(self.font())
        y += bar_h + 10
        cols = self._legend_columns(self.width())
        col_w = width / cols
        values = self._values()
        for i, term in enumerate(self._term_names()):
            value = values.get(term, 0)
            cx = margin + (i % cols) * col_w
            cy = y + (i // cols) * line
            color = TERM_COLORS[term]
            p.fillRect(QRectF(cx, cy + 3, 12, 12), _grey(color) if self._stale else color)
            p.setPen(QColor(128, 128, 128) if (self._stale or value == 0) else text_color)
            label = tr_core(term_label(term, est.setup.mode) if term in TERM_LABELS
                            else PARALLEL_LABELS[term])
            share = f"{100 * value / total:.0f}%" if value else "—"
            amount = f"{fmt(value)}  ({share})"
            aw = fm.horizontalAdvance(amount)
            name_w = col_w - 24 - aw - 8
            p.drawText(QRectF(cx + 18, cy, name_w, line),
                       int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                       fm.elidedText(label, Qt.TextElideMode.ElideRight, int(name_w)))
            p.drawText(QRectF(cx + col_w - aw - 12, cy, aw, line),
                       int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), amount)
        rows = -(-len(self._term_names()) // cols)
        p.setPen(QColor(128, 128, 128) if self._stale else text_color)
        foot = self.footer_text()
        p.drawText(QRectF(margin, y + rows * line, width, line),
                   int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                   fm.elidedText(foot, Qt.TextElideMode.ElideRight, int(width)))

    def footer_text(self) -> str:
        """What tensors occupy, what the caching allocator holds, what nvidia-smi shows."""
        est = self._estimate
        if est is None:
            return ""
        fmt = self.format_bytes
        return (arg(self.tr("tensors %1 · allocator holds %2 (simulated) · nvidia-smi %3"),
                    fmt(est.allocated_bytes), fmt(est.reserved_bytes), fmt(est.nvidia_smi_bytes)))


# More layers than this are drawn as one bar per run of layers (painting 20,000 bars takes
# hundreds of milliseconds on the GUI thread).
MAX_BARS = 1500


class LayerChart(pg.PlotWidget):
    """Bytes kept for backward per layer (MiB), one bar per layer."""

    layer_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent, background=None)
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
