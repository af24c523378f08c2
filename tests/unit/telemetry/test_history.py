"""Ring buffers: order after wraparound, zero-copy views, NaN gaps, coarse tier, windows."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.telemetry.history import History, ProcessTracker
from planner.telemetry.types import DeviceInfo, Frame, GpuSample, ProcessSample

DEVS = (DeviceInfo(0, "A", "GPU-a"), DeviceInfo(1, "B", "GPU-b"))


def frame(t: float, used0, used1=None, *, lost1=False, procs0=None, wall0=1_700_000_000.0):
    return Frame(
        timestamp_s=wall0 + t, monotonic_s=500.0 + t, source="simulated", driver_version=None,
        cuda_version=None, devices=DEVS,
        samples=(GpuSample(0, "GPU-a", memory_used_bytes=used0, memory_busy_pct=10.0,
                           processes=procs0),
                 GpuSample(1, "GPU-b", memory_used_bytes=used1, lost=lost1)))


def test_wraparound_keeps_order_and_is_zero_copy():
    h = History(2, capacity=5)
    for i in range(12):
        h.append(frame(float(i), i * 100))
    times, values = h.view("memory_used_bytes", 0)
    assert list(values) == [700, 800, 900, 1000, 1100]
    assert len(times) == 5 and np.all(np.diff(times) > 0)
    assert times[0] == pytest.approx(1_700_000_007.0)
    assert np.shares_memory(values, h.fine.data)  # a view, not a copy
    assert not values.flags.writeable
    copied = h.view("memory_used_bytes", 0, copy=True)[1]
    assert not np.shares_memory(copied, h.fine.data) and copied.flags.writeable
    assert h.latest("memory_used_bytes", 0) == 1100


@settings(max_examples=60, deadline=None)
@given(capacity=st.integers(1, 20), values=st.lists(st.integers(0, 10**12), max_size=60))
def test_view_is_always_the_last_capacity_values(capacity, values):
    h = History(1, capacity=capacity)
    for i, v in enumerate(values):
        h.append(Frame(float(i), float(i), "nvml", None, None, DEVS[:1],
                       (GpuSample(0, "GPU-a", memory_used_bytes=v),)))
    _, got = h.view("memory_used_bytes", 0)
    assert list(got) == [float(v) for v in values[-capacity:]] if values else len(got) == 0


def test_none_and_lost_are_nan():
    h = History(2, capacity=4)
    h.append(frame(0.0, None, 5, lost1=True))
    assert math.isnan(h.view("memory_used_bytes", 0)[1][0])
    assert math.isnan(h.view("memory_used_bytes", 1)[1][0])  # lost card: NaN even with a value
    assert h.view("memory_busy_pct", 0)[1][0] == 10.0


def test_memory_is_fixed_at_construction():
    h = History(2, capacity=100, coarse_capacity=10)
    before = h.nbytes
    for i in range(1000):
        h.append(frame(float(i), i))
    assert h.nbytes == before


def test_coarse_tier_min_mean_max_per_bucket():
    h = History(2, capacity=1000, coarse_bucket_s=10.0)
    for i in range(35):  # 3 complete buckets (0-9, 10-19, 20-29) and one in progress
        h.append(frame(float(i), i if i != 15 else None))
    times, low, mean, high = h.coarse_view("memory_used_bytes", 0)
    assert len(times) == 3
    assert list(low) == [0, 10, 20] and list(high) == [9, 19, 29]
    assert mean[0] == pytest.approx(4.5)
    assert mean[1] == pytest.approx(np.mean([x for x in range(10, 20) if x != 15]))
    assert times[0] == pytest.approx(1_700_000_005.0)
    # the card with no value at all: NaN buckets
    empty = h.coarse_view("memory_used_bytes", 1)[2]
    assert len(empty) > 0 and np.all(np.isnan(empty))


def test_gap_inserts_nan():
    h = History(2, capacity=100, coarse_bucket_s=1.0, gap_s=3.0)
    h.append(frame(0.0, 1))
    h.append(frame(1.0, 2))
    h.append(frame(20.0, 3))
    _, v = h.view("memory_used_bytes", 0)
    assert list(v[:2]) == [1, 2] and math.isnan(v[2]) and v[3] == 3
    assert np.isnan(h.coarse_view("memory_used_bytes", 0)[2]).any()  # a NaN bucket too


def test_window_picks_fine_or_coarse():
    h = History(2, capacity=50, coarse_bucket_s=10.0)
    for i in range(200):
        h.append(frame(float(i), i))
    fine = h.window(30, "memory_used_bytes", 0)
    assert not fine.coarse and list(fine.values) == list(range(169, 200))
    long = h.window(150, "memory_used_bytes", 0)
    assert long.coarse and long.low is not None and long.high is not None
    assert long.times[0] >= 1_700_000_000.0 + 199 - 150 - 10
    whole = h.window(None, "memory_used_bytes", 0)
    assert whole.coarse and len(whole.times) == 19  # 19 complete 10 s buckets
    small = History(1, capacity=50)
    assert len(small.window(60, "memory_used_bytes", 0).times) == 0


def test_unknown_metric_or_card():
    h = History(2)
    with pytest.raises(KeyError):
        h.view("nope", 0)
    with pytest.raises(KeyError):
        h.view("memory_used_bytes", 7)


def test_clock_jump_back_keeps_times_increasing():
    h = History(1, capacity=10)
    f1 = Frame(100.0, 10.0, "nvml", None, None, DEVS[:1], (GpuSample(0, "a"),))
    f2 = Frame(50.0, 11.0, "nvml", None, None, DEVS[:1], (GpuSample(0, "a"),))  # wall jumped
    h.extend([f1, f2])
    t, _ = h.view("memory_used_bytes", 0)
    assert list(t) == [100.0, 101.0]


def test_process_tracker_peak_and_end():
    tr = ProcessTracker()

    def p(b):
        return (ProcessSample(7, "python", "u", b),)

    assert tr.update(frame(0, 1, procs0=p(100))) == []
    assert tr.update(frame(1, 1, procs0=None)) == []  # not sampled: nothing ends
    assert tr.update(frame(2, 1, procs0=p(300))) == []
    assert tr.update(frame(3, 1, procs0=p(200))) == []
    ended = tr.update(frame(4, 1, procs0=()))
    assert len(ended) == 1 and ended[0].pid == 7 and ended[0].peak_bytes == 300
    assert tr.running() == []


def test_process_tracker_is_bounded():
    tr = ProcessTracker(max_records=3)
    for i in range(10):
        tr.update(frame(i, 1, procs0=(ProcessSample(i, "x", None, 1),)))
    assert len(tr.records) <= 3
