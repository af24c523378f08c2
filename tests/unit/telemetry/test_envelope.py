"""The peak envelope of a long series: every bin's minimum and maximum, gaps kept."""

from __future__ import annotations

import math

import numpy as np
import pytest

from planner.telemetry.envelope import PeakEnvelope


def test_a_short_series_is_copied_scaled():
    env = PeakEnvelope(8)
    t = np.arange(10.0)
    x, y = env.reduce(t, t * 2, scale=0.5)
    assert np.array_equal(x, t) and np.array_equal(y, t)


@pytest.mark.parametrize("n", [17, 1000, 86_400])
def test_a_long_series_keeps_each_bins_min_and_max(n):
    rng = np.random.default_rng(n)
    t = np.arange(n, dtype=float)
    v = rng.normal(size=n)
    v[rng.integers(0, n, n // 10)] = np.nan
    v[5] = 1e6  # a spike must survive the reduction
    env = PeakEnvelope(8)
    x, y = env.reduce(t, v)
    assert len(x) == len(y) <= 16
    k = -(-n // 8)
    for b, start in enumerate(range(0, n, k)):
        chunk = v[start:start + k]
        lo, hi = y[2 * b], y[2 * b + 1]
        assert x[2 * b] == x[2 * b + 1] == t[start]
        if np.all(np.isnan(chunk)):
            assert math.isnan(lo) and math.isnan(hi)  # a gap stays a gap
        else:
            assert lo == np.nanmin(chunk) and hi == np.nanmax(chunk)
    assert np.nanmax(y) == 1e6


def test_no_new_buffers_per_reduction():
    env = PeakEnvelope(4)
    t = np.arange(100.0)
    x1, _ = env.reduce(t, t)
    x2, _ = env.reduce(t, t + 1)
    assert np.shares_memory(x1, env.x) and np.shares_memory(x2, env.x)
