"""The look the app's static charts share (the Planner's layer chart, the fit scatters, the
advisor's options): no context menu or auto-range button, a grid, axes in the text colour."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QColor


def style_plot(widget: pg.PlotWidget, *, min_height: int, grid_x: bool = True,
               grid_alpha: float = 0.2) -> tuple[pg.PlotItem, QColor]:
    """Style ``widget``'s plot; returns the plot item and the text colour (for labels)."""
    widget.setMinimumHeight(min_height)
    item = widget.getPlotItem()
    item.setMenuEnabled(False)
    item.hideButtons()
    item.showGrid(x=grid_x, y=True, alpha=grid_alpha)
    text = widget.palette().color(widget.palette().ColorRole.WindowText)
    for side in ("left", "bottom"):
        axis = item.getAxis(side)
        axis.setTextPen(pg.mkPen(text))
        axis.setPen(pg.mkPen(text))
    return item, text
