"""A recording read back for the replay, without Qt."""

from __future__ import annotations

import pytest

from planner.telemetry.recorder import Recorder, RecordingError
from planner.telemetry.replay import MIN_REPLAY_CAPACITY, load_replay, replay_capacity
from planner.telemetry.types import DeviceInfo, Frame, GpuSample

METRICS = ("memory_used_bytes", "gpu_busy_pct")


def frames(cards, n, t0=0.0):
    devices = tuple(DeviceInfo(i, f"card {i}", f"u{i}", memory_total_bytes=1 << 34)
                    for i in range(cards))
    return [Frame(1.7e9 + t0 + k, t0 + k, "simulated", None, None, devices,
                  tuple(GpuSample(i, f"u{i}", memory_used_bytes=(k + 1) << 20,
                                  gpu_busy_pct=float(k)) for i in range(cards)))
            for k in range(n)]


def test_capacity_holds_the_recording_up_to_the_bound():
    assert replay_capacity(500, 2, 9) == 500
    assert replay_capacity(10**8, 8, 9) == 2_000_000 // 72
    assert replay_capacity(10**8, 1000, 9) == MIN_REPLAY_CAPACITY
    assert replay_capacity(0, 0, 9) == 1


def test_load_each_session(tmp_path):
    path = tmp_path / "r.sqlite"
    with Recorder(path) as rec:
        for f in frames(2, 5):
            rec.write(f)
        for f in frames(3, 4, t0=100.0):  # a new set of cards: a second session
            rec.write(f)
    first = load_replay(path, METRICS)
    assert first.position == 1 and len(first.sessions) == 2
    assert first.history.device_indices == (0, 1)
    assert first.history.appended == 5
    assert first.last_frame is not None and first.last_frame.samples[0].gpu_busy_pct == 4.0
    second = load_replay(path, METRICS, first.sessions[1].id)
    assert second.position == 2 and second.history.device_indices == (0, 1, 2)
    assert second.history.window(None, "gpu_busy_pct", 2).values.tolist() == [0, 1, 2, 3]
    with pytest.raises(RecordingError, match="no session"):
        load_replay(path, METRICS, 999)


def test_a_file_that_is_not_a_recording_is_refused(tmp_path):
    bad = tmp_path / "x.sqlite"
    bad.write_text("not a database")
    with pytest.raises((RecordingError, OSError)):
        load_replay(bad, METRICS)
