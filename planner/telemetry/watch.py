"""What the Monitor works out from each frame, apart from drawing it: plain logic, Qt-free.

* ``Alerts``: memory-in-use and temperature alerts per card, edge-triggered (announced once on
  crossing up, re-armed below a hysteresis), ended with a lost card.
* ``CardWatch``: cards that were lost or came back, each card's peak memory in use, the
  processes last seen per card, each process's memory series (a bounded ``ProcessSeries``),
  and the fleet's "did not answer" reason.
* ``frame_source``: what a frame says about where it came from (NVML, simulated, Prometheus).

The Qt pane feeds frames in and turns what comes out into texts, tables and plots; the tests
feed frames in directly (``tests/unit/telemetry/test_watch.py``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from planner.telemetry.types import Frame, ProcessSample

MEMORY_HYSTERESIS_PCT = 2.0  # an alert re-arms this far below its threshold
TEMPERATURE_HYSTERESIS_C = 3.0
PROCESS_POINTS = 20000  # memory points kept per process
MAX_PROCESS_SERIES = 64  # processes with a series; ended ones are dropped first


@dataclass(frozen=True)
class Alert:
    """One alert: ``kind`` "memory" (value and limit in %) or "temperature" (°C)."""

    device: int
    host: str | None
    kind: str
    value: float
    limit: float


class Alerts:
    """The active alerts and the ones fired so far (each crossing once)."""

    def __init__(self, memory_pct: float = 95.0, temperature_c: float = 85.0):
        self.memory_pct = float(memory_pct)
        self.temperature_c = float(temperature_c)
        self.active: dict[tuple[int, str], Alert] = {}
        self.fired: list[Alert] = []

    def set_thresholds(self, memory_pct: float | None = None,
                       temperature_c: float | None = None) -> None:
        if memory_pct is not None:
            self.memory_pct = float(memory_pct)
        if temperature_c is not None:
            self.temperature_c = float(temperature_c)

    def clear(self) -> None:
        self.active.clear()

    def update(self, frame: Frame) -> tuple[list[Alert], bool]:
        """(alerts that fired with this frame, whether the active set changed)."""
        devices = {d.index: d for d in frame.devices}
        new: list[Alert] = []
        changed = False
        active = self.active
        mem_limit, temp_limit = self.memory_pct, self.temperature_c
        for s in frame.samples:
            d = devices.get(s.index)
            if s.lost or d is None:
                for kind in ("memory", "temperature"):  # a lost card's alerts end with it
                    changed |= active.pop((s.index, kind), None) is not None
                continue
            if s.memory_used_bytes is not None and d.memory_total_bytes:
                pct = 100.0 * s.memory_used_bytes / d.memory_total_bytes
                changed |= self._edge(s.index, d.host, "memory", pct, mem_limit,
                                      mem_limit - MEMORY_HYSTERESIS_PCT, new)
            if s.temperature_c is not None:
                changed |= self._edge(s.index, d.host, "temperature", float(s.temperature_c),
                                      temp_limit, temp_limit - TEMPERATURE_HYSTERESIS_C, new)
        return new, changed

    def _edge(self, device: int, host: str | None, kind: str, value: float, limit: float,
              clear_below: float, new: list[Alert]) -> bool:
        """Fire at ``value >= limit`` (once), end below ``clear_below``; True on a change.
        The Alert is made only when one fires (every card is checked at every frame)."""
        key = (device, kind)
        if key in self.active:
            if value < clear_below:
                del self.active[key]
                return True
            return False
        if value >= limit:
            alert = self.active[key] = Alert(device, host, kind, value, limit)
            self.fired.append(alert)
            new.append(alert)
            return True
        return False


def frame_source(frame: Frame) -> str:
    """"prometheus" (a cluster), "simulated" (the source or any of its cards says so) or
    "nvml"."""
    if frame.source == "prometheus":
        return "prometheus"
    if frame.source == "simulated" or any(d.simulated for d in frame.devices):
        return "simulated"
    return "nvml"


def frame_processes(frame: Frame | None) -> list[tuple[int, ProcessSample]]:
    """(card index, process) of every process one frame lists, in the frame's card order
    (none without a frame, or for a card whose processes were not sampled)."""
    if frame is None:
        return []
    return [(s.index, p) for s in frame.samples for p in (s.processes or ())]


class ProcessSeries:
    """One process's memory in use over time: a ring of at most ``capacity`` (time, bytes)
    points in numpy arrays (NaN: not reported), grown as needed so a short-lived process
    costs little. ``arrays()`` gives them in order, ready to plot."""

    __slots__ = ("capacity", "_t", "_v", "_n", "_head")

    def __init__(self, capacity: int = PROCESS_POINTS) -> None:
        self.capacity = max(1, int(capacity))
        size = min(self.capacity, 64)
        self._t = np.empty(size)
        self._v = np.empty(size)
        self._n = 0  # points held
        self._head = 0  # where the next point goes once the ring is full

    def __len__(self) -> int:
        return self._n

    def __iter__(self):
        """(time, bytes) points, oldest first."""
        t, v = self.arrays()
        return zip(t.tolist(), v.tolist(), strict=True)

    def append(self, t: float, value: float) -> None:
        if self._n < self.capacity:
            if self._n == len(self._t):  # grow (the ring is not full yet: in order)
                size = min(self.capacity, 2 * len(self._t))
                self._t = np.resize(self._t, size)
                self._v = np.resize(self._v, size)
            self._t[self._n] = t
            self._v[self._n] = value
            self._n += 1
            return
        self._t[self._head] = t
        self._v[self._head] = value
        self._head = (self._head + 1) % self.capacity

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(times, bytes), oldest first (copies)."""
        if self._n < self.capacity or self._head == 0:
            return self._t[:self._n].copy(), self._v[:self._n].copy()
        h = self._head
        return (np.concatenate((self._t[h:], self._t[:h])),
                np.concatenate((self._v[h:], self._v[:h])))


@dataclass
class FrameNews:
    """What changed with one frame, for the pane to say."""

    lost: list[int] = field(default_factory=list)  # cards marked lost with this frame
    no_answer_changed: bool = False
    no_answer: str | None = None  # the fleet-wide "did not answer" reason now


class CardWatch:
    """Per-card and per-process state built from the frames of one source."""

    def __init__(self, process_points: int = PROCESS_POINTS,
                 max_series: int = MAX_PROCESS_SERIES):
        self._points = int(process_points)
        self._max_series = int(max_series)
        self.lost: set[int] = set()
        self.card_peak: dict[int, int] = {}
        self.last_processes: dict[int, tuple[ProcessSample, ...]] = {}
        self.series: dict[tuple[int, int], ProcessSeries] = {}
        self.no_answer: str | None = None

    def reset_cards(self) -> None:
        """A new set of cards: the lost marks and peaks of the old one no longer apply."""
        self.lost.clear()
        self.card_peak.clear()

    def reset(self) -> None:
        self.reset_cards()
        self.last_processes.clear()
        self.series.clear()
        self.no_answer = None

    def update(self, frame: Frame, t: float) -> FrameNews:
        """Take one frame (``t``: its time on the history's clock)."""
        news = FrameNews()
        no_answer = None
        for s in frame.samples:
            if s.lost:
                if s.index not in self.lost:
                    self.lost.add(s.index)
                    self.last_processes[s.index] = ()
                    news.lost.append(s.index)
                continue
            self.lost.discard(s.index)  # a card (or a node) that came back
            if "*" in s.unavailable:
                no_answer = s.unavailable["*"]
                continue
            if s.memory_used_bytes is not None:
                self.card_peak[s.index] = max(self.card_peak.get(s.index, 0),
                                              s.memory_used_bytes)
            if s.processes is not None:
                self.last_processes[s.index] = s.processes
                for p in s.processes:
                    key = (s.index, p.pid)
                    series = self.series.get(key)
                    if series is None:
                        series = self.series[key] = ProcessSeries(self._points)
                    series.append(t, math.nan if p.memory_used_bytes is None
                                  else float(p.memory_used_bytes))
        if no_answer != self.no_answer:
            self.no_answer = no_answer
            news.no_answer_changed = True
        news.no_answer = no_answer
        return news

    def processes_on(self, device: int | None) -> list[tuple[int, ProcessSample]]:
        """(card, process) last seen on one card (None: every card), by card index."""
        return [(dev, p) for dev in sorted(self.last_processes)
                if device is None or dev == device for p in self.last_processes[dev]]

    def process_peaks(self, device: int | None, records: Mapping[tuple[int, int], Any]
                      ) -> list[tuple[int, ProcessSample, int | None]]:
        """(card, process, its peak bytes or None) last seen on one card (None: every card);
        ``records``: (card, pid) → a record with ``peak_bytes`` (``ProcessTracker.records``)."""
        out = []
        for dev, p in self.processes_on(device):
            rec = records.get((dev, p.pid))
            out.append((dev, p, rec.peak_bytes if rec is not None else None))
        return out

    def prune(self, running: Iterable[tuple[int, int]],
              keep: tuple[int, int] | None = None) -> None:
        """Drop the series of ended processes (oldest first) beyond the bound; the running
        ones and ``keep`` (the followed process) stay."""
        if len(self.series) <= self._max_series:
            return
        running = set(running)
        for key in list(self.series):
            if len(self.series) <= self._max_series:
                break
            if key not in running and key != keep:
                del self.series[key]
