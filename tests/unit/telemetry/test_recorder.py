"""SQLite recordings: round trip, WAL, commit within a second, killed writer, corrupt files."""

from __future__ import annotations

import csv
import os
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from planner.telemetry.recorder import (
    Recorder,
    RecordingError,
    apply_retention,
    delete_recording,
    export_csv,
    list_recordings,
    open_recording,
)
from planner.telemetry.simulated import SimulatedBackend
from planner.telemetry.types import Frame


class Clock:
    def __init__(self, t: float = 100.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def sim_frames(n: int, n_devices: int = 2, dt: float = 1.0, seed: int = 0,
               lose: tuple[int, float] | None = None) -> list[Frame]:
    clock = Clock()
    b = SimulatedBackend(n_devices, seed=seed, clock=clock, process_every=2, lose_device=lose)
    devices = tuple(b.open())
    out = []
    for i in range(n):
        clock.t = 100.0 + i * dt
        out.append(Frame(1_700_000_000.0 + i * dt, clock.t, "simulated", b.driver_version,
                         b.cuda_version, devices, b.sample()))
    return out


def test_round_trip(tmp_path):
    frames = sim_frames(10, lose=(1, 6.0))
    path = tmp_path / "a.sqlite"
    with Recorder(path) as rec:
        for f in frames:
            rec.write(f)
    with open_recording(path) as r:
        assert len(r.sessions) == 1
        assert r.sessions[0].devices == frames[0].devices
        back = list(r.frames())
        assert back == frames  # every field, processes, unavailable reasons, lost
        t, v = r.series("memory_used_bytes", 1)
        assert len(t) == 10 and np.isnan(v[7]) and not np.isnan(v[0])
        assert r.n_samples() == 20
    assert not rec.write(frames[0])  # closed: ignored, no error


def test_wal_and_new_session_when_cards_change(tmp_path):
    path = tmp_path / "b.sqlite"
    rec = Recorder(path)
    rec.write(sim_frames(1, n_devices=2)[0])
    rec.write(sim_frames(1, n_devices=3)[0])
    rec.close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] == 2
    conn.close()
    with Recorder(path) as rec2:  # reopening appends
        rec2.write(sim_frames(1)[0])
    with open_recording(path) as r:
        assert len(r.sessions) == 3


def samples_reach(path, n: int, timeout_s: float = 3.0) -> bool:
    """Whether another connection sees ``n`` samples in the recording within the timeout."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with open_recording(path) as r:
            if r.n_samples() == n:
                return True
        time.sleep(0.05)
    return False


def flusher_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name == "planner-recorder-flush"}


def test_commits_within_the_interval_while_still_open(tmp_path):
    others = flusher_threads()  # of recordings other tests left open (they end on their own)
    path = tmp_path / "c.sqlite"
    clock = Clock()
    rec = Recorder(path, commit_interval_s=0.5, clock=clock)
    frames = sim_frames(3)
    rec.write(frames[0])
    clock.t += 0.6
    rec.write(frames[1])  # the first queued frame is 0.6 s old: committed now
    with open_recording(path) as r:  # another connection, recorder not closed
        assert r.n_samples() == 4
    rec.write(frames[2])  # queued; the timer commits it within the interval
    if not samples_reach(path, 6):
        pytest.fail("the flush timer did not commit the last frame")
    rec.write(frames[0])  # queued again: the same flusher thread commits it
    if not samples_reach(path, 8):
        pytest.fail("the flusher did not commit a frame queued after a timed commit")
    flushers = list(flusher_threads() - others)
    assert len(flushers) == 1  # one thread per recording, not one per commit
    rec.close()
    flushers[0].join(timeout=2.0)
    assert not flushers[0].is_alive()  # it ends with the recording


WRITER = textwrap.dedent("""
    import os, signal, sys, time
    from planner.telemetry.recorder import Recorder
    from planner.telemetry.simulated import SimulatedBackend
    from planner.telemetry.types import Frame
    b = SimulatedBackend(2); devices = tuple(b.open())
    rec = Recorder(sys.argv[1])
    t_end = time.monotonic() + 1.6
    while time.monotonic() < t_end:
        f = Frame(time.time(), time.monotonic(), "simulated", None, None, devices, b.sample())
        rec.write(f)
        print(repr(f.timestamp_s), flush=True)
        time.sleep(0.05)
    os.kill(os.getpid(), signal.SIGKILL)
""")


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_killed_writer_loses_at_most_the_last_second(tmp_path):
    path = tmp_path / "killed.sqlite"
    repo = Path(__file__).resolve().parents[3]
    proc = subprocess.run([sys.executable, "-c", WRITER, str(path)], check=False,
                          capture_output=True,
                          text=True, timeout=30, cwd=repo,
                          env={**os.environ, "PYTHONPATH": str(repo)})
    assert proc.returncode == -9, proc.stderr
    written = [float(x) for x in proc.stdout.split()]
    assert len(written) > 10
    with open_recording(path) as r:
        stored = {f.timestamp_s for f in r.frames()}
    must_have = [t for t in written if t < written[-1] - 1.0]
    assert must_have and all(t in stored for t in must_have)


def test_corrupt_and_foreign_files_are_reported_not_fatal(tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not a database at all" * 100)
    foreign = tmp_path / "foreign.sqlite"
    c = sqlite3.connect(foreign)
    c.execute("CREATE TABLE x (a)")
    c.commit()
    c.close()
    good = tmp_path / "good.sqlite"
    with Recorder(good) as rec:
        for f in sim_frames(3):
            rec.write(f)
    for p in (bad, foreign):
        with pytest.raises(RecordingError) as exc:
            open_recording(p)
        assert p.name in str(exc.value)
        with pytest.raises(RecordingError):
            Recorder(p)  # never writes into a file that is not a recording
    assert bad.read_bytes().startswith(b"this is not")
    listing = list_recordings(tmp_path)
    assert [r.path.name for r in listing.recordings] == ["good.sqlite"]
    assert {s.path.name for s in listing.skipped} == {"bad.sqlite", "foreign.sqlite"}
    info = listing.recordings[0]
    assert info.n_samples == 6 and info.duration_s == pytest.approx(2.0)
    assert info.source == "simulated" and "(simulated)" in info.device_names[0]
    with pytest.raises(RecordingError):
        open_recording(tmp_path / "missing.sqlite")


def test_export_csv(tmp_path):
    path = tmp_path / "e.sqlite"
    with Recorder(path) as rec:
        for f in sim_frames(4):
            rec.write(f)
    out = tmp_path / "e.csv"
    assert export_csv(path, out) == 8
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert len(rows) == 8
    assert rows[0]["device_index"] == "0" and "(simulated)" in rows[0]["device_name"]
    assert int(rows[0]["memory_used_bytes"]) > 0


def test_delete_and_retention(tmp_path):
    paths = []
    for name in ("old", "new", "current"):
        p = tmp_path / f"{name}.sqlite"
        with Recorder(p) as rec:
            rec.write(sim_frames(1)[0])
        paths.append(p)
    now = time.time()
    for p in (paths[0], paths[2]):
        os.utime(p, (now - 10 * 86400, now - 10 * 86400))
    deleted = apply_retention(tmp_path, days=7, now=now, keep=(paths[2],))
    assert deleted == [paths[0]]
    assert not paths[0].exists() and paths[1].exists() and paths[2].exists()
    assert apply_retention(tmp_path, days=0) == []
    delete_recording(paths[1])
    assert not paths[1].exists()
    assert not Path(str(paths[1]) + "-wal").exists()


def test_process_rows_keep_every_field_of_a_process():
    """A recorded process keeps every field ProcessSample has (the dict is written by hand, for
    speed: this fails when a field is added and not recorded)."""
    import dataclasses

    from planner.telemetry.types import ProcessSample, process_from_dict, process_to_dict

    p = ProcessSample(pid=7, name="python train.py", user="ana", memory_used_bytes=123 << 20)
    d = process_to_dict(p)
    assert set(d) == {f.name for f in dataclasses.fields(ProcessSample)}
    assert process_from_dict(d) == p


def test_repeated_json_fields_round_trip_per_sample(tmp_path):
    """Throttle reasons, process lists and N/A reasons that repeat (encoded once) or change
    from sample to sample are each read back as they were written."""
    from planner.telemetry.types import DeviceInfo, GpuSample, ProcessSample

    devices = (DeviceInfo(0, "card", "u0", memory_total_bytes=1 << 34),)
    plain = (ProcessSample(1, "train", "ann", 1 << 30),)
    variants = [
        dict(throttle_reasons=("power cap",), processes=plain, unavailable={"fan_pct": "no fan"}),
        dict(throttle_reasons=("power cap",), processes=plain, unavailable={"fan_pct": "no fan"}),
        dict(throttle_reasons=(), processes=(), unavailable={"fan_pct": "other"}),
        dict(throttle_reasons=("power cap", "thermal"),
             processes=(ProcessSample(1, "train", "ann", 2 << 30),), unavailable={}),
        dict(throttle_reasons=None, processes=None, unavailable={"fan_pct": "no fan"}),
    ]
    path = tmp_path / "j.sqlite"
    with Recorder(path) as rec:
        for k, v in enumerate(variants):
            rec.write(Frame(1.7e9 + k, float(k), "nvml", None, None, devices,
                            (GpuSample(0, "u0", memory_used_bytes=k, **v),)))
    with open_recording(path) as r:
        back = [f.samples[0] for f in r.frames()]
    assert len(back) == len(variants)
    for s, v in zip(back, variants, strict=True):
        assert s.throttle_reasons == (tuple(v["throttle_reasons"])
                                      if v["throttle_reasons"] is not None else None)
        assert s.processes == v["processes"]
        assert dict(s.unavailable) == v["unavailable"]
