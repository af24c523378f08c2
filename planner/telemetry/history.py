"""Bounded in-memory history for the live plots: fixed memory, decided at construction.

Two tiers:

- fine: the last ``capacity`` samples of every metric of every card, as float64 with NaN for
  "not available" (None), lost cards and gaps;
- coarse: min / mean / max per ``coarse_bucket_s`` bucket (10 s by default) for the last
  ``coarse_capacity`` buckets (8640 × 10 s = 24 h by default), for long windows.

Both are *mirrored* ring buffers: each value is written twice, at ``i`` and ``i + capacity``,
so the last n values are always one contiguous slice of the array. ``view()`` therefore returns
ordered, zero-copy numpy views even after the ring has wrapped, at the cost of twice the memory
(instead of the two slices or a concatenated copy a plain ring would need every redraw).

Views are read-only and valid until the next ``append()``: appending overwrites the oldest slot,
which is the first element of a full-ring view. Plot them right away (the GUI appends and redraws
in the same thread), or pass ``copy=True`` to keep them.

Times are seconds on a wall-clock axis made monotonic: the first frame's ``timestamp_s`` plus
the monotonic time elapsed since it, so a clock change does not fold the plot back on itself.
"""

from __future__ import annotations

import dataclasses
import math
import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from planner.telemetry.types import Frame, GpuSample

_SAMPLE_FIELDS = frozenset(f.name for f in dataclasses.fields(GpuSample))

METRICS: tuple[str, ...] = (
    "memory_used_bytes",
    "memory_free_bytes",
    "memory_busy_pct",
    "bandwidth_gbs_estimate",
    "dram_bw_util_pct",
    "gpu_busy_pct",
    "pcie_rx_bytes_s",
    "pcie_tx_bytes_s",
    "sm_clock_mhz",
    "memory_clock_mhz",
    "power_draw_w",
    "temperature_c",
    "fan_pct",
)


class _MirroredRing:
    """``rows`` parallel series plus their times, each stored twice (see module doc)."""

    def __init__(self, capacity: int, rows: int, planes: int = 1) -> None:
        if capacity < 1:
            raise ValueError("capacity must be ≥ 1")
        self.capacity = capacity
        self.times = np.full(2 * capacity, np.nan)
        self.data = np.full((planes, rows, 2 * capacity), np.nan)
        self.head = 0  # next write position in [0, capacity)
        self.count = 0

    def push(self, t: float, values: np.ndarray) -> None:
        """values: shape (planes, rows)."""
        h, c = self.head, self.capacity
        self.times[h] = self.times[h + c] = t
        self.data[:, :, h] = values
        self.data[:, :, h + c] = values
        self.head = (h + 1) % c
        self.count = min(self.count + 1, c)

    def span(self) -> slice:
        start = (self.head - self.count) % self.capacity
        return slice(start, start + self.count)

    def last_time(self) -> float:
        if not self.count:
            return math.nan
        return float(self.times[(self.head - 1) % self.capacity])

    def first_time(self) -> float:
        if not self.count:
            return math.nan
        return float(self.times[self.span().start])

    @property
    def nbytes(self) -> int:
        return self.times.nbytes + self.data.nbytes


def _readonly(a: np.ndarray, copy: bool) -> np.ndarray:
    if copy:
        return a.copy()
    a = a.view()
    a.flags.writeable = False
    return a


@dataclass(frozen=True)
class Series:
    """One metric of one card over a window. ``low``/``high`` are the bucket min/max (coarse)."""

    times: np.ndarray
    values: np.ndarray
    low: np.ndarray | None = None
    high: np.ndarray | None = None
    coarse: bool = False


class History:
    def __init__(self, devices: int | Sequence[int], capacity: int = 3600, *,
                 metrics: Sequence[str] = METRICS, coarse_bucket_s: float = 10.0,
                 coarse_capacity: int = 8640, gap_s: float | None = None) -> None:
        """``devices``: the number of cards (indices 0..n-1) or their NVML indices.

        ``gap_s``: when set, a frame arriving more than gap_s after the previous one first
        inserts a NaN point, so the plot shows a gap (e.g. 3 × the sampling interval).
        """
        self.device_indices: tuple[int, ...] = (
            tuple(range(devices)) if isinstance(devices, int) else tuple(devices))
        self.metrics: tuple[str, ...] = tuple(metrics)
        self._dev_pos = {d: i for i, d in enumerate(self.device_indices)}
        self._met_pos = {m: i for i, m in enumerate(self.metrics)}
        # a card's values in the order of ``metrics``, in one call (a metric that is not a
        # GpuSample field reads None)
        if len(self.metrics) > 1 and all(m in _SAMPLE_FIELDS for m in self.metrics):
            self._fields = operator.attrgetter(*self.metrics)
        else:
            self._fields = lambda s, ms=self.metrics: [getattr(s, m, None) for m in ms]
        rows = len(self.device_indices) * len(self.metrics)
        self._rows = rows
        self.fine = _MirroredRing(capacity, rows)
        self.coarse = _MirroredRing(coarse_capacity, rows, planes=3)  # min, mean, max
        self.coarse_bucket_s = float(coarse_bucket_s)
        self.gap_s = gap_s
        self._origin_wall: float | None = None
        self._origin_mono: float | None = None
        self._bucket_id: int | None = None
        self._b_sum = np.zeros(rows)
        self._b_count = np.zeros(rows)
        self._b_min = np.full(rows, np.nan)
        self._b_max = np.full(rows, np.nan)
        self._nan_row = np.full((1, rows), np.nan)
        self.appended = 0  # frames ever appended
        self.first_time_s: float | None = None

    # -- writing ----------------------------------------------------------------------------

    @property
    def nbytes(self) -> int:
        """The memory the buffers hold (fixed at construction)."""
        return self.fine.nbytes + self.coarse.nbytes

    def _row(self, metric: str, device: int) -> int:
        try:
            return self._dev_pos[device] * len(self.metrics) + self._met_pos[metric]
        except KeyError:
            if metric not in self._met_pos:
                raise KeyError(f"unknown metric {metric!r}") from None
            raise KeyError(f"no card with index {device}") from None

    def time_of(self, frame: Frame) -> float:
        if self._origin_wall is None:
            self._origin_wall, self._origin_mono = frame.timestamp_s, frame.monotonic_s
        return self._origin_wall + (frame.monotonic_s - self._origin_mono)

    def _values(self, samples: Iterable[GpuSample]) -> np.ndarray:
        out = np.full(self._rows, np.nan)
        nm = len(self.metrics)
        fields = self._fields
        nan = math.nan
        for s in samples:
            pos = self._dev_pos.get(s.index)
            if pos is None or s.lost:
                continue
            base = pos * nm
            # one slice write per card (None: not available → NaN)
            out[base:base + nm] = [nan if v is None else v for v in fields(s)]
        return out

    def append(self, frame: Frame) -> None:
        t = self.time_of(frame)
        last = self.fine.last_time()
        if self.fine.count and t <= last:
            t = last + 1e-6  # keep times strictly increasing (searchsorted relies on it)
        if self.gap_s is not None and self.fine.count and t - last > self.gap_s:
            self.fine.push(last + 1e-3, self._nan_row)
        values = self._values(frame.samples)
        self.fine.push(t, values[None, :])
        self._accumulate(t, values)
        self.appended += 1
        if self.first_time_s is None:
            self.first_time_s = t

    def extend(self, frames: Iterable[Frame]) -> None:
        for f in frames:
            self.append(f)

    def _accumulate(self, t: float, values: np.ndarray) -> None:
        assert self._origin_wall is not None
        bucket = math.floor((t - self._origin_wall) / self.coarse_bucket_s)
        if self._bucket_id is None:
            self._bucket_id = bucket
        elif bucket != self._bucket_id:
            self._flush_bucket()
            if bucket > self._bucket_id + 1:  # a gap: one NaN bucket breaks the line
                self._push_bucket(self._bucket_id + 1, np.full((3, self._rows), np.nan))
            self._bucket_id = bucket
        ok = values == values  # not NaN
        np.add(self._b_sum, values, out=self._b_sum, where=ok)
        self._b_count += ok
        np.fmin(self._b_min, values, out=self._b_min)
        np.fmax(self._b_max, values, out=self._b_max)

    def _bucket_time(self, bucket: int) -> float:
        assert self._origin_wall is not None
        return self._origin_wall + (bucket + 0.5) * self.coarse_bucket_s

    def _push_bucket(self, bucket: int, planes: np.ndarray) -> None:
        self.coarse.push(self._bucket_time(bucket), planes)

    def _current_bucket(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(self._b_count > 0, self._b_sum / np.maximum(self._b_count, 1),
                            np.nan)
        return np.stack([self._b_min, mean, self._b_max])

    def _flush_bucket(self) -> None:
        assert self._bucket_id is not None
        self._push_bucket(self._bucket_id, self._current_bucket())
        self._b_sum[:] = 0
        self._b_count[:] = 0
        self._b_min[:] = np.nan
        self._b_max[:] = np.nan

    # -- reading ----------------------------------------------------------------------------

    def __len__(self) -> int:
        return self.fine.count

    def view(self, metric: str, device: int, *, copy: bool = False
             ) -> tuple[np.ndarray, np.ndarray]:
        """(times, values) of the fine tier, oldest first; zero-copy unless ``copy``."""
        row = self._row(metric, device)
        sl = self.fine.span()
        return (_readonly(self.fine.times[sl], copy), _readonly(self.fine.data[0, row, sl], copy))

    def coarse_view(self, metric: str, device: int, *, copy: bool = False
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(bucket centre times, min, mean, max) of the completed coarse buckets."""
        row = self._row(metric, device)
        sl = self.coarse.span()
        d = self.coarse.data
        return (_readonly(self.coarse.times[sl], copy), _readonly(d[0, row, sl], copy),
                _readonly(d[1, row, sl], copy), _readonly(d[2, row, sl], copy))

    def latest(self, metric: str, device: int) -> float:
        if not self.fine.count:
            return math.nan
        return float(self.fine.data[0, self._row(metric, device), (self.fine.head - 1)
                                    % self.fine.capacity])

    def fine_covers(self, start_s: float) -> bool:
        """True when the fine tier still holds everything from start_s on."""
        if not self.fine.count:
            return True
        if self.appended <= self.fine.capacity:
            return True  # nothing dropped yet
        return self.fine.first_time() <= start_s

    def window(self, seconds: float | None, metric: str, device: int) -> Series:
        """The last ``seconds`` (None: the whole session) of one metric of one card.

        The fine tier when it still covers the window, else the coarse tier (min/mean/max per
        bucket, ``coarse=True``; the bucket in progress is not included yet).
        """
        if not self.fine.count:
            empty = np.empty(0)
            return Series(empty, empty)
        end = self.fine.last_time()
        start = (self.first_time_s if seconds is None else end - seconds)
        assert start is not None
        if self.fine_covers(start):
            times, values = self.view(metric, device)
            i = int(np.searchsorted(times, start, side="left"))
            return Series(times[i:], values[i:])
        times, low, mean, high = self.coarse_view(metric, device)
        i = int(np.searchsorted(times, start - self.coarse_bucket_s / 2, side="left"))
        return Series(times[i:], mean[i:], low[i:], high[i:], coarse=True)


# -- processes ----------------------------------------------------------------------------------

@dataclass
class ProcessRecord:
    """What was seen of one process on one card."""

    device: int
    pid: int
    name: str
    user: str | None
    first_seen_s: float
    last_seen_s: float
    peak_bytes: int | None = None
    last_bytes: int | None = None
    ended: bool = False


@dataclass
class ProcessTracker:
    """Per-process peak memory, and which processes ended, from the frames' process lists.

    Bounded: at most ``max_records`` records; the oldest ended ones are forgotten first.
    ``update()`` returns the records of processes that ended at this frame, so the UI can say
    "plan predicted 8.7 GiB, the run peaked at 9.2 GiB (+6%)".
    """

    max_records: int = 512
    records: dict[tuple[int, int], ProcessRecord] = field(default_factory=dict)

    def update(self, frame: Frame) -> list[ProcessRecord]:
        ended: list[ProcessRecord] = []
        t = frame.timestamp_s
        for s in frame.samples:
            if s.processes is None or s.lost:
                continue  # not sampled this tick: nothing ended
            seen = set()
            for p in s.processes:
                key = (s.index, p.pid)
                seen.add(key)
                rec = self.records.get(key)
                if rec is None or rec.ended:
                    rec = ProcessRecord(s.index, p.pid, p.name, p.user, t, t)
                    self.records[key] = rec
                rec.last_seen_s = t
                rec.last_bytes = p.memory_used_bytes
                if p.memory_used_bytes is not None:
                    rec.peak_bytes = max(rec.peak_bytes or 0, p.memory_used_bytes)
            for key, rec in self.records.items():
                if key[0] == s.index and not rec.ended and key not in seen:
                    rec.ended = True
                    ended.append(rec)
        self._trim()
        return ended

    def _trim(self) -> None:
        excess = len(self.records) - self.max_records
        if excess <= 0:
            return
        old = sorted((r.last_seen_s, k) for k, r in self.records.items() if r.ended)
        for _, k in old[:excess]:
            del self.records[k]

    def running(self) -> list[ProcessRecord]:
        return [r for r in self.records.values() if not r.ended]
