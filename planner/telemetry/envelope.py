"""The peak envelope a long series is reduced to before it is plotted: plain numpy, Qt-free.

Used by the Monitor's plots (``planner.ui.monitor.plots``) so a redraw of a 24-hour history
costs about what a minute's does; tested on its own in ``tests/unit/telemetry``.
"""

from __future__ import annotations

import numpy as np


class PeakEnvelope:
    """Preallocated buffers that turn a (times, values) series into what one curve plots.

    Up to 2 × bins points: copied (scaled) as they are. More: peak envelope — the series
    is cut into at most ``bins`` bins of k consecutive points and each bin gives its minimum
    and maximum at the bin's first time, as pyqtgraph's "peak" downsampling does; NaN (gaps,
    not available) are ignored inside a bin and a bin with nothing but NaN stays a gap. No
    allocation per redraw except the bin starts, cached per (length, k). The curve owns the
    buffers, so what pyqtgraph holds stays valid when the History's ring moves on."""

    __slots__ = ("max_bins", "x", "y", "lo", "hi", "_starts")

    def __init__(self, max_bins: int = 512) -> None:
        self.max_bins = int(max_bins)
        self.x = np.empty(2 * self.max_bins)
        self.y = np.empty(2 * self.max_bins)
        self.lo = np.empty(self.max_bins)
        self.hi = np.empty(self.max_bins)
        self._starts: tuple[int, int, np.ndarray] = (0, 0, np.empty(0, dtype=np.intp))

    def reduce(self, times: np.ndarray, values: np.ndarray, scale: float = 1.0,
               bins: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        n = len(times)
        bins = max(1, min(bins or self.max_bins, self.max_bins))
        if n <= 2 * bins:
            x, y = self.x[:n], self.y[:n]
            x[:] = times
            np.multiply(values, scale, out=y)
            return x, y
        k = -(-n // bins)
        sn, sk, starts = self._starts
        if sn != n or sk != k:
            starts = np.arange(0, n, k, dtype=np.intp)
            self._starts = (n, k, starts)
        nb = len(starts)
        lo, hi = self.lo[:nb], self.hi[:nb]
        with np.errstate(invalid="ignore"):
            np.fmin.reduceat(values, starts, out=lo)
            np.fmax.reduceat(values, starts, out=hi)
        x, y = self.x[:2 * nb], self.y[:2 * nb]
        np.take(times, starts, out=x[0::2])
        x[1::2] = x[0::2]
        np.multiply(lo, scale, out=y[0::2])
        np.multiply(hi, scale, out=y[1::2])
        return x, y
