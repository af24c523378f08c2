"""Plan against run without Qt: which peak "Compare with plan" and an ended process give."""

from __future__ import annotations

import pytest

from planner.telemetry.compare import PeakReading, current_peak, ended_peak, percent_off
from planner.telemetry.history import ProcessRecord

GIB = 1 << 30


def rec(device: int, pid: int, peak: int | None, name: str = "train") -> ProcessRecord:
    return ProcessRecord(device, pid, name, None, 0.0, 1.0, peak_bytes=peak, ended=True)


def test_percent_off_is_signed_against_the_prediction():
    assert percent_off(8 * GIB, 9 * GIB) == pytest.approx(12.5)
    assert percent_off(8 * GIB, 6 * GIB) == pytest.approx(-25.0)
    with pytest.raises(ValueError):
        percent_off(0, GIB)


def test_current_peak_prefers_the_followed_process():
    records = {(0, 7): rec(0, 7, 3 * GIB), (1, 9): rec(1, 9, None)}
    peaks = {0: 10 * GIB, 1: 20 * GIB}
    assert current_peak(records, peaks, (0, 7), 1) == PeakReading(3 * GIB, 0, 7, "train")
    # followed but no memory reading of it (yet): nothing, not the card's peak instead
    assert current_peak(records, peaks, (1, 9), None) is None
    assert current_peak(records, peaks, (1, 42), None) is None


def test_current_peak_of_the_selected_card_or_the_first_one():
    peaks = {1: 20 * GIB, 0: 10 * GIB}
    assert current_peak({}, peaks, None, 0) == PeakReading(10 * GIB, 0)
    assert current_peak({}, peaks, None, None) == PeakReading(20 * GIB, 1)  # first seen
    assert current_peak({}, peaks, None, 3) is None  # no reading of that card
    assert current_peak({}, {}, None, None) is None


def test_ended_peak_followed_else_the_largest_on_the_selected_card():
    ended = [rec(0, 1, 2 * GIB), rec(0, 2, 5 * GIB), rec(1, 3, 9 * GIB), rec(1, 4, None)]
    assert ended_peak(ended, (0, 1), None) == PeakReading(2 * GIB, 0, 1, "train")
    assert ended_peak(ended, (0, 99), None) is None  # the followed one is still running
    assert ended_peak(ended, None, 0) == PeakReading(5 * GIB, 0, 2, "train")
    assert ended_peak(ended, None, None) == PeakReading(9 * GIB, 1, 3, "train")
    assert ended_peak([rec(1, 4, None)], None, None) is None
    assert ended_peak(iter(ended), None, 1).pid == 3  # any iterable
