"""The Monitor's data curves report the bounds pyqtgraph's own curve reports (their bounding
rect and the PCIe plot's auto-range depend on them)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest

from planner.ui.monitor.plots import _Curve, _data_pen


@pytest.mark.parametrize("case", ["gaps", "all_nan", "inf", "one_point", "empty", "ortho",
                                  "ortho_gaps", "ortho_all_nan", "ortho_outside", "ortho_inf"])
def test_curve_bounds_are_pyqtgraphs(qapp, case):
    rng = np.random.default_rng(3)
    x = np.sort(rng.uniform(1.7e9, 1.7e9 + 600, 1200))
    y = rng.uniform(-5, 80, 1200)
    if case == "gaps":
        y[[0, 17, 600, 601, 1199]] = np.nan
        x[601] = np.nan
    elif case == "all_nan":
        y[:] = np.nan
    elif case == "inf":
        y[5] = np.inf
    elif case == "one_point":
        x, y = x[:1], y[:1]
    elif case == "empty":
        x, y = x[:0], y[:0]
    elif case == "ortho_gaps":
        y[[3, 40, 41, 700]] = np.nan
        x[41] = np.nan
    elif case in ("ortho_all_nan", "ortho_inf"):
        y[: len(y) // 2 + 1] = np.nan if case == "ortho_all_nan" else y[: len(y) // 2 + 1]
        y[7] = np.inf if case == "ortho_inf" else y[7]
    ours = _Curve(pen=_data_pen("#1f77b4"), connect="finite", skipFiniteCheck=True)
    theirs = pg.PlotCurveItem(pen=_data_pen("#1f77b4"), connect="finite", skipFiniteCheck=True)
    for c in (ours, theirs):
        c.setData(x, y, connect="finite", skipFiniteCheck=True)
    ortho = ((x[0], x[len(x) // 2]) if case.startswith("ortho")
             else None)
    if case == "ortho_outside":
        ortho = (x[-1] + 10, x[-1] + 20)  # no point in the range
    for ax in (0, 1):
        got, want = ours.dataBounds(ax, orthoRange=ortho), theirs.dataBounds(ax, orthoRange=ortho)
        np.testing.assert_array_equal(np.array(got, dtype=float), np.array(want, dtype=float))
        assert ours.dataBounds(ax, orthoRange=ortho) == got  # the cached answer is the same
    if case == "gaps":
        assert ours.dataBounds(1)[0] == np.nanmin(y) and ours.dataBounds(1)[1] == np.nanmax(y)
    rects = [c.boundingRect() for c in (ours, theirs)]
    np.testing.assert_array_equal(*[[r.x(), r.y(), r.width(), r.height()] for r in rects])
