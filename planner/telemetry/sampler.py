"""The sampling loop: a daemon thread that owns the backend and delivers immutable Frames.

- The backend is opened (nvmlInit) and closed (nvmlShutdown) in the sampling thread.
- Timing is drift-free: the next deadline is the previous one plus the interval; when a tick is
  late (a slow NVML call, a suspended laptop) the missed ticks are skipped, never burst.
- The interval can be changed while running (clamped to 0.1–10 s); it takes effect at once.
- ``stop(timeout)`` sets an Event and joins with a timeout, so it returns in time even while a
  backend call hangs; the thread is a daemon, so a hung NVML call never blocks quitting. Once
  stop() has been called no further frame is delivered (a frame in the middle of delivery may
  still finish).
- Frames go to ``on_frame`` (called in the sampling thread: the Qt side re-emits it as a
  Signal); failures go to ``on_error`` (BackendUnavailable when the backend cannot open, any
  other exception from a tick — the loop goes on after a failed tick).
"""

from __future__ import annotations

import itertools
import logging
import math
import threading
import time
from collections.abc import Callable

from planner.telemetry.types import DeviceInfo, Frame, TelemetryBackend

log = logging.getLogger(__name__)

MIN_INTERVAL_S = 0.1
MAX_INTERVAL_S = 10.0
THREAD_NAME_PREFIX = "planner-telemetry-sampler"

_ids = itertools.count(1)


def clamp_interval(interval_s: float) -> float:
    if not math.isfinite(interval_s):
        raise ValueError(f"interval must be a number of seconds, got {interval_s!r}")
    return min(MAX_INTERVAL_S, max(MIN_INTERVAL_S, float(interval_s)))


class Sampler:
    def __init__(self, backend_factory: Callable[[], TelemetryBackend], interval_s: float = 1.0,
                 on_frame: Callable[[Frame], None] | None = None,
                 on_error: Callable[[BaseException], None] | None = None, *,
                 max_frames: int | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 wall_clock: Callable[[], float] = time.time) -> None:
        self._factory = backend_factory
        self._interval_s = clamp_interval(interval_s)
        self._on_frame = on_frame
        self._on_error = on_error
        self._max_frames = max_frames
        self._clock = clock
        self._wall = wall_clock
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._finished = threading.Event()
        self.devices: tuple[DeviceInfo, ...] = ()
        self.frames_delivered = 0
        self.ticks_skipped = 0

    # -- control ----------------------------------------------------------------------------

    @property
    def interval_s(self) -> float:
        return self._interval_s

    @interval_s.setter
    def interval_s(self, value: float) -> None:
        self.set_interval(value)

    def set_interval(self, interval_s: float) -> float:
        """Change the interval live; returns the clamped value in use."""
        self._interval_s = clamp_interval(interval_s)
        self._wake.set()
        return self._interval_s

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("a Sampler starts once; make a new one to sample again")
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name=f"{THREAD_NAME_PREFIX}-{next(_ids)}")
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> bool:
        """Ask the loop to end and wait at most ``timeout`` s. True when the thread ended."""
        self._stop.set()
        self._wake.set()
        t = self._thread
        if t is None:
            return True
        if t is not threading.current_thread():
            t.join(timeout)
        stopped = not t.is_alive()
        if not stopped:
            log.warning("telemetry sampler did not stop within %.1f s (a backend call hangs); "
                        "leaving the daemon thread behind", timeout)
        return stopped

    def is_running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def wait_finished(self, timeout: float | None = None) -> bool:
        """Wait for the loop to end on its own (open failed, max_frames reached)."""
        return self._finished.wait(timeout)

    # -- the loop ---------------------------------------------------------------------------

    def _report(self, exc: BaseException) -> None:
        if self._on_error is None:
            log.error("telemetry: %s", exc)
            return
        try:
            self._on_error(exc)
        except Exception:
            log.exception("telemetry on_error callback failed")

    def _run(self) -> None:
        try:
            try:
                backend = self._factory()
                self.devices = tuple(backend.open())
            except BaseException as exc:  # noqa: BLE001 - reported, the thread ends
                self._report(exc)
                return
            try:
                self._loop(backend)
            finally:
                try:
                    backend.close()
                except Exception as exc:  # noqa: BLE001
                    log.debug("telemetry backend close: %s", exc)
        finally:
            self._finished.set()

    def _loop(self, backend: TelemetryBackend) -> None:
        deadline = self._clock()
        while not self._stop.is_set():
            mono = self._clock()
            try:
                samples = tuple(backend.sample())
            except Exception as exc:  # noqa: BLE001 - one failed tick, the loop goes on
                self._report(exc)
            else:
                frame = Frame(timestamp_s=self._wall(), monotonic_s=mono, source=backend.source,
                              driver_version=backend.driver_version,
                              cuda_version=backend.cuda_version, devices=self.devices,
                              samples=samples)
                if self._stop.is_set():
                    break
                self._deliver(frame)
                if self._max_frames is not None and self.frames_delivered >= self._max_frames:
                    break
            deadline = self._wait_next(deadline)

    def _deliver(self, frame: Frame) -> None:
        self.frames_delivered += 1
        if self._on_frame is None:
            return
        try:
            self._on_frame(frame)
        except Exception:
            log.exception("telemetry on_frame callback failed")

    def _wait_next(self, deadline: float) -> float:
        """Sleep until the next deadline and return it.

        Late (the tick took longer than the interval, or the machine slept): the missed ticks
        are skipped and the most recent grid point is returned at once, so one tick runs now
        and the grid (deadline + k × interval) is kept: no burst, no drift. Wakes early on
        stop() and on an interval change (then recomputed from the same last deadline).
        """
        while not self._stop.is_set():
            self._wake.clear()  # before reading the interval, so no change is missed
            if self._stop.is_set():
                break
            interval = self._interval_s
            nxt = deadline + interval
            now = self._clock()
            if nxt <= now:
                missed = max(1, math.floor((now - deadline) / interval))
                self.ticks_skipped += missed - 1
                return deadline + missed * interval
            if not self._wake.wait(nxt - now):
                return nxt
        return deadline
