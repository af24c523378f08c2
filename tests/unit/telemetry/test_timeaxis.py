"""The plots' x axis without Qt: the window a redraw shows and the time one pixel spans."""

from __future__ import annotations

import math

import pytest

from planner.telemetry.timeaxis import MIN_SPAN_S, X_STEPS, redraw_due, seconds_per_pixel, x_range


@pytest.mark.parametrize("window_s", [60.0, 600.0, 3600.0])
def test_a_full_window_is_window_wide_and_moves_in_steps(window_s):
    first = 1_000.0
    step = window_s / X_STEPS
    seen = set()
    for k in range(200):
        end = first + 2 * window_s + k * 0.37
        start, x_end = x_range(end, first, window_s)
        assert x_end - start == pytest.approx(window_s)
        assert x_end >= end > start  # the newest sample is inside
        assert x_end - end < step + 1e-9  # at most one step ahead
        assert (x_end / step) == pytest.approx(round(x_end / step))  # on a step
        seen.add(round(x_end, 6))
    assert len(seen) < 200 // 2  # many redraws share one x range (the axes stay cached)


def test_a_short_session_fills_the_plot_from_the_left():
    start, x_end = x_range(1_010.0, 1_000.0, 600.0)
    assert start == 1_000.0
    assert x_end - start >= MIN_SPAN_S
    start, x_end = x_range(1_010.0, 1_000.0, None)  # whole session, ten seconds of it
    assert start == 1_000.0 and x_end - start >= MIN_SPAN_S


def test_whole_session_spans_first_to_last():
    start, x_end = x_range(1_000.0 + 86_400, 1_000.0, None)
    assert start == 1_000.0
    assert 86_400 <= x_end - start <= 86_400 * (1 + 1 / X_STEPS)


def test_seconds_per_pixel():
    assert seconds_per_pixel(2_000.0, 1_000.0, 600.0, 700) == pytest.approx(600 / 700)
    assert seconds_per_pixel(2_000.0, 1_000.0, None, 500) == pytest.approx(1_000 / 500)
    assert seconds_per_pixel(1_001.0, 1_000.0, None, 600) == pytest.approx(MIN_SPAN_S / 600)
    assert seconds_per_pixel(2_000.0, 1_000.0, 60.0, 0) == math.inf  # not laid out yet
    assert seconds_per_pixel(math.nan, 1_000.0, 60.0, 600) == math.inf


def test_a_redraw_waits_for_a_pixel_but_never_longer_than_the_longest_wait():
    # a 10-minute window 700 px wide: 0.86 s per pixel
    per_px = seconds_per_pixel(600.0, 0.0, 600.0, 700)
    assert not redraw_due(10.5, 10.0, per_px, 1.0)
    assert redraw_due(10.9, 10.0, per_px, 1.0)
    # a 1-hour window: 5 s per pixel, but a live plot is never older than the longest wait
    per_px = seconds_per_pixel(3600.0, 0.0, 3600.0, 700)
    assert not redraw_due(10.9, 10.0, per_px, 1.0)
    assert redraw_due(11.0, 10.0, per_px, 1.0)
    # half a tick's slack: a tick 0.74 s after the last redraw draws (0.5-s ticks)
    assert not redraw_due(10.74, 10.0, per_px, 1.0)
    assert redraw_due(10.76, 10.0, per_px, 1.0, slack_s=0.25)
    # before any data (inf per pixel) the longest wait decides; the first redraw is due
    assert redraw_due(0.0, -math.inf, math.inf, 1.0)
