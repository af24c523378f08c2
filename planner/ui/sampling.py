"""The Qt side of the telemetry sampler: a small QObject bridge.

``SamplingBridge`` owns one ``planner.telemetry.sampler.Sampler`` (a daemon thread). The sampler
calls back in its own thread; the bridge re-emits each immutable ``Frame`` through the
``frame_ready`` signal, which Qt delivers to slots in the GUI thread as a queued call. Nothing in
the GUI thread ever waits on the backend: ``start()`` only starts the thread (the backend is
opened in it), ``stop()`` sets an event and joins with a short timeout (a hung NVML call leaves
a daemon thread behind instead of freezing the window).

Signals:

* ``frame_ready(Frame)`` — one per tick (``batch_s`` 0, the default); with ``batch_s`` > 0,
  ``frames_ready(tuple[Frame, ...])`` instead: the frames of the last ``batch_s`` seconds at
  once (the first frame, and every frame of a sampler slower than that, at once), so a fast
  sampler wakes the GUI thread a few times a second instead of at every sample;
* ``unavailable(str)`` — the backend could not open (``BackendUnavailable``: no library, no
  driver, no permission); the text is the user-facing sentence for a banner;
* ``error(str)`` — any other failure (a failed tick; the loop goes on, or a backend that could
  not open for another reason).

``in_thread`` (optional) is called with every frame in the sampling thread before it is emitted:
the place for work that must go on whatever the GUI does (recording), and that must not cost
the GUI thread anything.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal, Slot

from planner.telemetry.sampler import Sampler, clamp_interval
from planner.telemetry.types import BackendUnavailable, Frame

log = logging.getLogger(__name__)

STOP_TIMEOUT_S = 1.0


class SamplingBridge(QObject):
    frame_ready = Signal(object)
    frames_ready = Signal(object)
    error = Signal(str)
    unavailable = Signal(str)

    def __init__(self, backend_factory: Callable[[], Any], interval_s: float = 1.0,
                 parent: QObject | None = None, *,
                 in_thread: Callable[[Frame], None] | None = None,
                 batch_s: float = 0.0) -> None:
        super().__init__(parent)
        self._batch_s = max(0.0, float(batch_s))
        self._batch: list[Frame] = []  # sampling thread only
        self._batch_sent_s = float("-inf")
        self._factory = backend_factory
        self._interval_s = clamp_interval(interval_s)
        self._in_thread = in_thread
        self._sampler: Sampler | None = None
        self._lock = threading.Lock()
        self._active = False  # frames are emitted only while True
        self.unavailable_reason: str | None = None  # the technical detail, for a tooltip

    # -- control (GUI thread) ---------------------------------------------------------------

    @property
    def interval_s(self) -> float:
        return self._interval_s

    def is_running(self) -> bool:
        return self._sampler is not None and self._sampler.is_running()

    @property
    def sampler(self) -> Sampler | None:
        return self._sampler

    def start(self) -> None:
        """Start sampling (a new thread). Starting a running bridge does nothing."""
        if self._sampler is not None:
            return
        with self._lock:
            self._active = True
            self._batch = []
            self._batch_sent_s = float("-inf")
        self._sampler = Sampler(self._factory, self._interval_s, on_frame=self._on_frame,
                                on_error=self._on_error)
        self._sampler.start()

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> bool:
        """Stop sampling; True when the thread ended in ``timeout``. Safe to call twice."""
        with self._lock:
            self._active = False
        sampler, self._sampler = self._sampler, None
        if sampler is None:
            return True
        return sampler.stop(timeout)

    def restart(self, backend_factory: Callable[[], Any] | None = None) -> None:
        """Stop, optionally switch the backend factory, start again."""
        self.stop()
        if backend_factory is not None:
            self._factory = backend_factory
        self.start()

    @Slot(float)
    def set_interval(self, interval_s: float) -> float:
        """Change the interval live (clamped to 0.1–10 s); returns the value in use."""
        self._interval_s = clamp_interval(interval_s)
        if self._sampler is not None:
            self._sampler.set_interval(self._interval_s)
        return self._interval_s

    # -- callbacks (sampling thread) --------------------------------------------------------

    def _on_frame(self, frame: Frame) -> None:
        if not self._active:
            return
        if self._in_thread is not None:
            try:
                self._in_thread(frame)
            except Exception:  # noqa: BLE001 - recording trouble must not stop the plots
                log.exception("telemetry in-thread hook failed")
        with self._lock:
            if self._active:
                try:
                    if self._batch_s > 0:
                        self._batch.append(frame)
                        if frame.monotonic_s - self._batch_sent_s < self._batch_s:
                            return
                        batch, self._batch = tuple(self._batch), []
                        self._batch_sent_s = frame.monotonic_s
                        self.frames_ready.emit(batch)
                    else:
                        self.frame_ready.emit(frame)
                except RuntimeError:  # the Qt object was deleted without stop(): end the loop
                    self._active = False
                    sampler = self._sampler
                    if sampler is not None:
                        sampler.stop(0)

    def _on_error(self, exc: BaseException) -> None:
        with self._lock:
            if not self._active:
                return
            if isinstance(exc, BackendUnavailable):
                self.unavailable_reason = exc.reason
                self.unavailable.emit(str(exc))
            else:
                self.error.emit(f"{type(exc).__name__}: {exc}" if not str(exc) else str(exc))
