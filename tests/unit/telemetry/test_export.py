"""The Monitor's CSV export without Qt: the rows of the shown window, gaps left out, bytes whole."""

from __future__ import annotations

import csv
import math

from planner.telemetry.export import shown_span, window_rows, write_csv
from planner.telemetry.history import History
from planner.telemetry.types import DeviceInfo, Frame, GpuSample

GIB = 1 << 30
METRICS = ("memory_used_bytes", "gpu_busy_pct")
CARDS = (DeviceInfo(0, "RTX 4090", "u0", memory_total_bytes=24 * GIB),
         DeviceInfo(1, "A100", "u1", memory_total_bytes=80 * GIB))


def history(times, gap_s=None) -> History:
    h = History([0, 1], 100, metrics=METRICS, gap_s=gap_s)
    for t in times:
        samples = (GpuSample(0, "u0", memory_used_bytes=GIB + int(t), gpu_busy_pct=50.5),
                   GpuSample(1, "u1", memory_used_bytes=None, gpu_busy_pct=None))
        h.append(Frame(1.7e9 + t, t, "simulated", None, None, CARDS, samples))
    return h


def test_rows_of_the_window_per_card_without_gap_markers():
    h = history([0, 1, 2, 10, 11], gap_s=3.5)  # a gap between 2 and 10: a NaN marker row
    names = {0: "RTX 4090", 1: "A100"}
    rows = list(window_rows(h, None, METRICS, names))
    # card 1 has nothing but N/A: its rows are gap-like and left out like the marker
    assert [r[1] for r in rows] == [0] * 5
    assert [r[2] for r in rows] == ["RTX 4090"] * 5
    assert [round(r[0] - rows[0][0], 3) for r in rows] == [0, 1, 2, 10, 11]
    last_two = list(window_rows(h, 1.5, METRICS, names))
    assert len(last_two) == 2 and last_two[-1][3][0] == GIB + 11


def test_csv_writes_bytes_whole_and_na_empty(tmp_path):
    h = history([0, 1])
    rows = list(window_rows(h, None, METRICS, {0: "RTX 4090"}))
    rows.append((rows[-1][0] + 1, 0, "RTX 4090", [math.nan, 12.345678]))
    path = tmp_path / "m.csv"
    assert write_csv(path, rows, METRICS) == 3
    with open(path, encoding="utf-8") as f:
        table = list(csv.reader(f))
    assert table[0] == ["timestamp_s", "time_iso", "device_index", "device_name", *METRICS]
    assert table[1][4:] == [str(GIB), "50.5"]
    assert table[3][4:] == ["", "12.3457"]
    assert not write_csv(tmp_path / "none.csv", [], METRICS)
    assert not (tmp_path / "none.csv").exists()


def test_shown_span():
    assert shown_span(History([0], 10, metrics=METRICS), 60.0) is None
    h = history([0, 5, 100])
    first, last = shown_span(h, None)
    assert last - first == 100
    first, last = shown_span(h, 30.0)
    assert last - first == 30
