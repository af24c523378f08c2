"""The Monitor's data export: the rows of a History in a time window, and the CSV they make.

Plain logic, Qt-free (``tests/unit/telemetry/test_export.py``); the pane asks for the file name
and says how many rows were saved.
"""

from __future__ import annotations

import csv
import datetime as _dt
import math
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from planner.telemetry.history import History

Row = tuple[float, int, str, list[float]]  # time, card index, card name, one value per metric


def window_rows(history: History, window_s: float | None, metrics: Sequence[str],
                names: Mapping[int, str]) -> Iterator[Row]:
    """(time, card index, card name, values) for every card in the last ``window_s`` seconds
    (None: the whole session); the NaN rows that mark gaps are left out."""
    for dev in history.device_indices:
        cols = [history.window(window_s, m, dev) for m in metrics]
        times = cols[0].times
        for i in range(len(times)):
            values = [float(c.values[i]) for c in cols]
            if all(math.isnan(v) for v in values):
                continue  # a gap marker
            yield float(times[i]), dev, names.get(dev, ""), values


def shown_span(history: History, window_s: float | None) -> tuple[float, float] | None:
    """(first, last) time of the samples in the window; None before the first sample."""
    end = history.fine.last_time()
    if math.isnan(end):
        return None
    first = history.first_time_s if history.first_time_s is not None else end
    start = first if window_s is None else max(end - window_s, first)
    return start, end


def whole_number(metric: str) -> bool:
    """Bytes and bytes per second are written as whole numbers."""
    return metric.endswith("_bytes") or metric.endswith("_bytes_s")


def write_csv(path: str | Path, rows: Sequence[Row], metrics: Sequence[str]) -> int:
    """Write the rows as CSV (a header, then one line per card per sample; N/A is an empty
    cell); returns the number of rows. Nothing is written for no rows (returns 0)."""
    if not rows:
        return 0
    whole = [whole_number(m) for m in metrics]
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["timestamp_s", "time_iso", "device_index", "device_name", *metrics])
        for t, dev, name, values in rows:
            cells = ["" if math.isnan(v) else (str(int(round(v))) if is_int else f"{v:.6g}")
                     for v, is_int in zip(values, whole, strict=True)]
            iso = _dt.datetime.fromtimestamp(t).isoformat(timespec="milliseconds")
            w.writerow([f"{t:.3f}", iso, dev, name, *cells])
    return len(rows)
