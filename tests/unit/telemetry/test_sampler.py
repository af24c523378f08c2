"""The sampling thread: open/close in the thread, timing, live interval, stop with a hang."""

from __future__ import annotations

import itertools
import threading
import time

import pytest

from planner.telemetry.nvml import NvmlBackend
from planner.telemetry.sampler import (
    THREAD_NAME_PREFIX,
    Sampler,
    clamp_interval,
)
from planner.telemetry.simulated import SimulatedBackend
from planner.telemetry.types import BackendUnavailable, Frame


class Collector:
    def __init__(self) -> None:
        self.frames: list[Frame] = []
        self.errors: list[BaseException] = []
        self.got = threading.Event()
        self.n_wanted = 1

    def on_frame(self, frame: Frame) -> None:
        self.frames.append(frame)
        if len(self.frames) >= self.n_wanted:
            self.got.set()

    def on_error(self, exc: BaseException) -> None:
        self.errors.append(exc)
        self.got.set()


def _nvml_factory(fake):
    return lambda: NvmlBackend(nvml_module=fake, process_name=str, process_user=lambda p: None)


def test_frames_flow_and_open_close_happen_in_the_sampling_thread(fake_nvml):
    c = Collector()
    c.n_wanted = 3
    s = Sampler(_nvml_factory(fake_nvml), interval_s=0.1, on_frame=c.on_frame,
                on_error=c.on_error)
    s.start()
    assert c.got.wait(3)
    assert s.stop(2.0)
    assert not c.errors
    f = c.frames[0]
    assert f.source == "nvml" and len(f.samples) == 2 and len(f.devices) == 2
    assert f.driver_version == "550.54.15"
    assert fake_nvml.init_thread.startswith(THREAD_NAME_PREFIX)
    assert fake_nvml.shutdown_thread.startswith(THREAD_NAME_PREFIX)
    assert fake_nvml.shutdown_calls == 1
    n = len(c.frames)
    time.sleep(0.15)
    assert len(c.frames) == n  # nothing after stop


def test_backend_unavailable_is_reported_and_the_thread_ends(fake_nvml):
    fake_nvml.init_error = fake_nvml.NVML_ERROR_DRIVER_NOT_LOADED
    c = Collector()
    s = Sampler(_nvml_factory(fake_nvml), on_frame=c.on_frame, on_error=c.on_error)
    s.start()
    assert s.wait_finished(2)
    assert isinstance(c.errors[0], BackendUnavailable) and not c.frames
    assert s.stop(1.0)


def test_stop_returns_in_time_while_a_call_hangs(fake_nvml):
    fake_nvml.hang("nvmlDeviceGetUtilizationRates")
    c = Collector()
    s = Sampler(_nvml_factory(fake_nvml), interval_s=0.1, on_frame=c.on_frame)
    s.start()
    assert fake_nvml.hanging.wait(2)
    t0 = time.monotonic()
    stopped = s.stop(timeout=0.2)
    elapsed = time.monotonic() - t0
    assert elapsed < 0.5, f"stop took {elapsed:.2f} s"
    assert stopped is False  # honest: the thread is still in the hung call (a daemon)
    ours = [t for t in threading.enumerate() if t.name.startswith(THREAD_NAME_PREFIX)]
    assert ours and all(t.daemon for t in ours)
    fake_nvml.release()  # the hung call returns; the loop sees stop and ends
    assert s.wait_finished(2)
    assert not c.frames  # the tick in flight at stop() is not delivered
    assert fake_nvml.shutdown_calls == 1


def test_timing_is_drift_free():
    c = Collector()
    c.n_wanted = 8
    s = Sampler(lambda: SimulatedBackend(1), interval_s=0.1, on_frame=c.on_frame)
    s.start()
    assert c.got.wait(5)
    s.stop()
    t = [f.monotonic_s for f in c.frames[:8]]
    for tk in t:
        # every tick on the grid t0 + k × interval (a skipped tick keeps the phase): no drift
        k = (tk - t[0]) / 0.1
        assert abs(k - round(k)) * 0.1 < 0.04


class SlowBackend(SimulatedBackend):
    def sample(self):
        time.sleep(0.25)
        return super().sample()


def test_late_ticks_are_skipped_not_burst():
    c = Collector()
    c.n_wanted = 4
    s = Sampler(lambda: SlowBackend(1), interval_s=0.1, on_frame=c.on_frame)
    s.start()
    assert c.got.wait(5)
    s.stop()
    t = [f.monotonic_s for f in c.frames]
    gaps = [b - a for a, b in itertools.pairwise(t)]
    assert min(gaps) > 0.2  # never two ticks back to back to catch up
    assert s.ticks_skipped >= 2


def test_wait_next_skips_to_the_grid():
    now = [10.0]
    s = Sampler(lambda: SimulatedBackend(1), interval_s=1.0, clock=lambda: now[0])
    now[0] = 13.5  # deadline was 10.0; ticks at 11, 12 missed
    assert s._wait_next(10.0) == 13.0
    assert s.ticks_skipped == 2


def test_interval_is_clamped_and_changes_live():
    assert clamp_interval(0.01) == 0.1 and clamp_interval(99) == 10.0
    with pytest.raises(ValueError):
        clamp_interval(float("nan"))
    c = Collector()
    c.n_wanted = 2
    s = Sampler(lambda: SimulatedBackend(1), interval_s=10.0, on_frame=c.on_frame)
    assert s.interval_s == 10.0
    s.start()
    deadline = time.monotonic() + 2
    while not c.frames and time.monotonic() < deadline:
        time.sleep(0.01)
    assert c.frames
    assert s.set_interval(0.05) == 0.1
    assert c.got.wait(1.0), "the new interval did not take effect while waiting"
    assert s.stop()


def test_a_failing_consumer_or_tick_does_not_kill_the_loop():
    calls = {"n": 0}

    class Flaky(SimulatedBackend):
        def sample(self):
            calls["n"] += 1
            if calls["n"] == 1:
                raise RuntimeError("transient")
            return super().sample()

    c = Collector()
    c.n_wanted = 2

    def on_frame(f):
        c.on_frame(f)
        raise ValueError("consumer bug")

    s = Sampler(lambda: Flaky(1), interval_s=0.1, on_frame=on_frame, on_error=c.errors.append)
    s.start()
    assert c.got.wait(3)
    assert s.stop()
    assert isinstance(c.errors[0], RuntimeError)


def test_stop_without_start_and_start_once():
    s = Sampler(lambda: SimulatedBackend(1))
    assert s.stop() is True
    s2 = Sampler(lambda: SimulatedBackend(1), max_frames=1)
    s2.start()
    with pytest.raises(RuntimeError):
        s2.start()
    assert s2.wait_finished(2) and s2.frames_delivered == 1
    assert s2.stop()
