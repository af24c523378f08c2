"""The options chart: each candidate's net cost against its speed, the user's cards marked.

x is the net cost in USD (the price, less what the replaced card fetches used); y is samples per
second (tokens per second for a text workload) on the plan or the profile's workload, which the
chart's title names (a long name on the y axis was cut off). Recommended options are drawn
larger and in colour, the others grey; the cards the user owns are stars at a net cost of 0
(keeping them costs nothing) with a dashed line at the fastest one's speed, so "above the line"
reads "faster than what I have". Every recommended option is labelled with its name where the
label does not run into another (tried on four sides of the point; the rest are named on hover,
as every other point is).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QWidget

from planner.core.rates import rate_text
from planner.ui.i18n import arg
from planner.ui.plotstyle import style_plot

RECOMMENDED = QColor("#1f77b4")
OTHER = QColor(150, 150, 150)
OWNED = QColor("#ff7f0e")


def _elided(text: str, limit: int = 48) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


class OptionsChart(pg.PlotWidget):
    """Scatter of the advisor's options (name, net cost USD, samples/s, fits)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent, background=None)
        item, text = style_plot(self, min_height=200)
        self._label_color = text.name()
        for side in ("left", "bottom"):
            item.getAxis(side).enableAutoSIPrefix(False)  # "$1,500", never "1.5 kUSD"
        item.setLabel("bottom", self.tr("net cost (USD)"), color=self._label_color)
        item.setLabel("left", self.tr("speed (samples/s)"), color=self._label_color)
        self._unit = self.tr("samples/s")
        self._title = ""
        self._options = pg.ScatterPlotItem(hoverable=True, tip=self._tip, symbol="o",
                                           hoverSize=14, hoverPen=pg.mkPen(text, width=2))
        self._owned = pg.ScatterPlotItem(hoverable=True, tip=self._tip, symbol="star", size=18,
                                         pen=pg.mkPen(text, width=1), brush=pg.mkBrush(OWNED))
        item.addItem(self._options)
        item.addItem(self._owned)
        self._owned_line = pg.InfiniteLine(
            angle=0, movable=False, pen=pg.mkPen(OWNED, width=1.5, style=Qt.PenStyle.DashLine))
        self._owned_line.setVisible(False)
        item.addItem(self._owned_line, ignoreBounds=True)
        self._owned_label = pg.TextItem(anchor=(1, 1), color=OWNED)
        self._owned_label.setVisible(False)
        item.addItem(self._owned_label, ignoreBounds=True)
        self._labels: list[pg.TextItem] = []  # one per recommended option, in rank order
        item.getViewBox().sigResized.connect(self._place_labels)
        self._points: list[tuple[str, float, float]] = []
        self._owned_points: list[tuple[str, float, float]] = []

    def _tip(self, x: float, y: float, data) -> str:
        return f"{data}\n${x:,.0f} net · {rate_text(y)} {self._unit}"

    # ------------------------------------------------------------------------------------
    def set_options(self, options: Sequence[tuple], recommended: Iterable[str] = (),
                    owned: Sequence[tuple[str, float]] = (), workload: str = "",
                    tokens_per_sample: int | None = None) -> None:
        """``options``: (name, net cost USD, samples/s, fits); ``recommended``: the names the
        advisor recommends (drawn in colour, the first labelled); ``owned``: (name, samples/s)
        of the user's cards; ``workload``: what the speed is measured on (the title);
        ``tokens_per_sample``: a text workload's, plotted as tokens/s."""
        rec = list(recommended)
        scale = tokens_per_sample or 1
        self._unit = self.tr("tokens/s") if tokens_per_sample else self.tr("samples/s")
        self._points = [(str(o[0]), float(o[1]), float(o[2]) * scale) for o in options]
        spots = []
        for name, cost, speed in self._points:
            top = name in rec
            color = RECOMMENDED if top else OTHER
            spots.append({"pos": (cost, speed), "data": name, "size": 12 if top else 8,
                          "brush": pg.mkBrush(color), "pen": pg.mkPen(color.darker(130))})
        self._options.setData(spots)
        self._owned_points = [(str(n), 0.0, float(s) * scale) for n, s in owned]
        self._owned.setData([{"pos": (0.0, s), "data": arg(self.tr("%1 (yours)"), n)}
                             for n, _, s in self._owned_points])
        if self._owned_points:
            best = max(self._owned_points, key=lambda p: p[2])
            self._owned_line.setPos(best[2])
            self._owned_label.setText(arg(self.tr("your %1"), best[0]))
            self._owned_line.setVisible(True)
            self._owned_label.setVisible(True)
        else:
            self._owned_line.setVisible(False)
            self._owned_label.setVisible(False)
        # The unit on the axis, short enough for any language; the workload's name, which can
        # be long, in the title across the chart's width.
        label = (self.tr("speed (tokens/s)") if tokens_per_sample
                 else self.tr("speed (samples/s)"))
        self.getPlotItem().setLabel("left", label, color=self._label_color)
        self._title = arg(self.tr("Speed on %1 against net cost"), _elided(workload)) \
            if workload else ""
        self.getPlotItem().setTitle(self._title or None, color=self._label_color, size="9pt")
        xs = [p[1] for p in self._points + self._owned_points]
        ys = [p[2] for p in self._points + self._owned_points]
        if xs:
            x0 = min(min(xs), 0.0)
            span = max(max(xs) - x0, 100.0)  # at least $100 wide, even with one point
            left, right = x0 - 0.05 * span, x0 + 1.08 * span
            y1 = max(ys)
            self.getPlotItem().setXRange(left, right, padding=0)
            self.getPlotItem().setYRange(0, y1 * 1.12 if y1 > 0 else 1.0, padding=0)
            # The owned card's name sits at the right end of its line, clear of the points
            # near a net cost of 0 (everything plotted is faster, so above the line).
            self._owned_label.setPos(right, self._owned_line.value())
        item = self.getPlotItem()
        for label in self._labels:
            item.removeItem(label)
        self._labels = []
        at = {p[0]: p for p in self._points}
        for name in dict.fromkeys(rec):
            if name in at:
                label = pg.TextItem(name, anchor=(0, 1), color=RECOMMENDED)
                label.point = at[name]
                item.addItem(label, ignoreBounds=True)
                self._labels.append(label)
        self._place_labels()

    _ANCHORS = ((-0.05, 1.0), (1.05, 1.0), (-0.05, 0.0), (1.05, 0.0))

    def _place_labels(self, *_args) -> None:
        """Put each label beside its point where it overlaps no label placed before it (and
        stays inside the plot); hide it when no side is free (hover still names it)."""
        vb = self.getPlotItem().getViewBox()
        vb.updateMatrix()
        bounds = vb.sceneBoundingRect()
        placed: list[QRectF] = []
        for label in self._labels:
            _name, x, y = label.point
            label.setPos(x, y)
            label.setVisible(True)
            label.updateTransform(force=True)
            shown = False
            for anchor in self._ANCHORS:
                label.setAnchor(anchor)
                rect = label.mapRectToScene(label.boundingRect())
                if bounds.contains(rect) and not any(rect.intersects(r) for r in placed):
                    placed.append(rect)
                    shown = True
                    break
            label.setVisible(shown)

    def label_texts(self) -> list[str]:
        """The names written next to their points (the others are named on hover)."""
        return [lab.toPlainText() for lab in self._labels if lab.isVisible()]

    def labelled_names(self) -> list[str]:
        return [lab.toPlainText() for lab in self._labels]

    def tip_of(self, name: str) -> str:
        """What hovering the point of ``name`` shows."""
        for name_, x, y in self._points:
            if name_ == name:
                return self._tip(x, y, name)
        return ""

    def title(self) -> str:
        """The chart's title: what the speeds are measured on ("" without a workload)."""
        return self._title

    # ------------------------------------------------------------------ for tests and callers
    def points(self) -> list[tuple[str, float, float]]:
        """The plotted options: (name, net cost USD, speed: samples/s, or tokens/s for a text
        workload)."""
        return list(self._points)

    def owned_points(self) -> list[tuple[str, float, float]]:
        """The marked owned cards: (name, 0, speed in the plotted unit)."""
        return list(self._owned_points)

    def owned_marker_visible(self) -> bool:
        return bool(self._owned_points) and self._owned_line.isVisible()

    def owned_label(self) -> str:
        return self._owned_label.toPlainText() if self._owned_label.isVisible() else ""
