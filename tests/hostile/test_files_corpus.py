"""Hostile settings, catalog overrides and recordings, and failing disks: reading never raises,
is bounded in time, says what happened, and never loses the user's file (it is left as it was,
or set aside byte for byte as ``*.corrupt-DATE``)."""

from __future__ import annotations

import csv
import os
import resource
import signal
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus  # noqa: E402

sys.path.pop(0)

from planner import safeio  # noqa: E402
from planner.atomicfile import write_json_atomic  # noqa: E402
from planner.core.catalog import load_catalog  # noqa: E402
from planner.settings import DEFAULTS, Settings, load_settings, save_settings  # noqa: E402
from planner.telemetry.recorder import (  # noqa: E402
    Recorder,
    Recording,
    RecordingError,
    apply_retention,
    export_csv,
    list_recordings,
)
from planner.telemetry.types import DeviceInfo, Frame, GpuSample  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
JSON_FILES = corpus.hostile_json_files()
MAX_SECONDS = 5.0


def _bytes_kept(path: Path, original: bytes) -> Path:
    """Where the original bytes are now: at ``path`` or in exactly one set-aside copy."""
    if path.is_file() and path.read_bytes() == original:
        return path
    aside = sorted(path.parent.glob(path.name + ".corrupt-*"))
    assert len(aside) == 1, f"{path.name}: gone and not set aside ({aside})"
    assert aside[0].read_bytes() == original, f"{aside[0].name}: bytes changed"
    return aside[0]


def _special_files(folder: Path) -> dict[str, Path]:
    """Things that are not regular files, or too large, under a name the app reads."""
    out = {}
    d = folder / "dir"
    d.mkdir()
    out["folder"] = d
    if hasattr(os, "mkfifo"):
        out["fifo"] = folder / "fifo"
        os.mkfifo(out["fifo"])
    if Path("/dev/zero").exists():
        out["dev-zero"] = folder / "zero"
        out["dev-zero"].symlink_to("/dev/zero")
    out["huge"] = folder / "huge"
    with open(out["huge"], "wb") as f:
        f.truncate(100 * 1024 * 1024)
    return out


def _special_at(folder: Path, kind: str, name: str) -> Path:
    """``folder/name`` made into (a link to) one of the special files, or skip."""
    special = _special_files(folder)
    if kind not in special:
        pytest.skip(f"no {kind} on this system")
    path = folder / name
    os.symlink(special[kind], path) if kind != "huge" else os.replace(special[kind], path)
    return path


# -- settings ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(JSON_FILES))
def test_hostile_settings_load_the_defaults_and_keep_the_file(tmp_path, name):
    path = tmp_path / "settings.json"
    path.write_bytes(JSON_FILES[name])
    t0 = time.perf_counter()
    settings, notice = load_settings(path)
    assert time.perf_counter() - t0 < MAX_SECONDS
    assert isinstance(settings, Settings)
    _bytes_kept(path, JSON_FILES[name])
    if settings == DEFAULTS and name not in ("many-keys",):
        assert notice, f"{name}: the defaults are in use and the user is not told"
    if notice:
        assert "\n" not in notice and len(notice) < 2000
        assert safeio.is_clean(notice)


@pytest.mark.parametrize("kind", ["folder", "fifo", "dev-zero", "huge"])
def test_settings_that_are_not_a_small_regular_file_are_left_alone(tmp_path, kind):
    path = _special_at(tmp_path, kind, "settings.json")
    before = os.lstat(path)
    t0 = time.perf_counter()
    settings, notice = load_settings(path)
    assert time.perf_counter() - t0 < MAX_SECONDS
    assert settings == DEFAULTS and notice and "could not be read" in notice
    after = os.lstat(path)
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (
        before.st_ino, before.st_size, before.st_mtime_ns)
    assert not list(tmp_path.glob("settings.json.corrupt-*"))


def test_a_read_only_settings_file_is_not_replaced(tmp_path):
    path = tmp_path / "settings.json"
    save_settings(DEFAULTS, path)
    path.chmod(0o444)
    original = path.read_bytes()
    with pytest.raises(PermissionError):
        save_settings(DEFAULTS.replace(theme="dark"), path)
    assert path.read_bytes() == original
    assert stat.S_IMODE(path.stat().st_mode) == 0o444
    assert [p.name for p in tmp_path.iterdir()] == ["settings.json"]  # no temporary left


def test_saved_files_keep_their_mode_and_new_ones_follow_the_umask(tmp_path):
    old = os.umask(0o027)
    try:
        new = write_json_atomic(tmp_path / "new.json", {"a": 1})
        assert stat.S_IMODE(new.stat().st_mode) == 0o640  # 0666 & ~027, not mkstemp's 0600
        os.umask(0o022)
        kept = tmp_path / "kept.json"
        kept.write_text("{}", encoding="utf-8")
        kept.chmod(0o664)
        write_json_atomic(kept, {"b": 2})
        assert stat.S_IMODE(kept.stat().st_mode) == 0o664
        from planner.core.network import save_plan
        from planner.core.presets import load_preset

        draft, setup = load_preset("seed-example")
        save_plan(tmp_path / "plan.json", draft, setup)
        assert stat.S_IMODE((tmp_path / "plan.json").stat().st_mode) == 0o644
    finally:
        os.umask(old)


# -- catalog overrides -------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(JSON_FILES))
def test_hostile_overrides_keep_the_catalog_and_the_file(tmp_path, name):
    path = tmp_path / "overrides.json"
    path.write_bytes(JSON_FILES[name])
    t0 = time.perf_counter()
    catalog = load_catalog(overrides_path=path)
    assert time.perf_counter() - t0 < MAX_SECONDS
    assert len(catalog.cards) > 50  # the built-in catalog is still there
    where = _bytes_kept(path, JSON_FILES[name])
    if where != path:
        assert any(str(where) in n for n in catalog.notices), catalog.notices
    if name not in ("many-keys",):
        assert catalog.notices, f"{name}: nobody is told"


@pytest.mark.parametrize("kind", ["folder", "fifo", "dev-zero", "huge"])
def test_overrides_that_are_not_a_small_regular_file_are_left_alone(tmp_path, kind):
    path = _special_at(tmp_path, kind, "overrides.json")
    t0 = time.perf_counter()
    catalog = load_catalog(overrides_path=path)
    assert time.perf_counter() - t0 < MAX_SECONDS
    assert catalog.notices and "left as it is" in catalog.notices[0]
    assert os.path.lexists(path) and not list(tmp_path.glob("overrides.json.corrupt-*"))


# -- recordings --------------------------------------------------------------------------------

def _frame(t: float, used: int | None = 1 << 30) -> Frame:
    dev = DeviceInfo(0, "Test GPU", "GPU-0", memory_total_bytes=8 << 30)
    return Frame(t, t, "simulated", "1", "12", (dev,),
                 (GpuSample(index=0, uuid="GPU-0", memory_used_bytes=used),))


def _recording(path: Path, frames: int = 3) -> Path:
    with Recorder(path) as rec:
        for i in range(frames):
            rec.write(_frame(1000.0 + i))
    return path


def _journal_mode_byte(path: Path) -> int:
    return path.read_bytes()[18]  # 1 = rollback journal, 2 = WAL


def _hostile_recordings(folder: Path) -> dict[str, tuple[Path, str]]:
    """name → (file, what the refusal says)."""
    out = {}

    def mutate(name: str, sql: str, pattern: str) -> None:
        p = _recording(folder / f"{name}.sqlite")
        con = sqlite3.connect(p)
        con.execute("PRAGMA journal_mode=DELETE")
        con.executescript(sql)
        con.commit()
        con.close()
        out[name] = (p, pattern)

    mutate("newer", "UPDATE meta SET value='99' WHERE key='schema_version'", "newer")
    mutate("version-text", "UPDATE meta SET value='abc' WHERE key='schema_version'",
           "schema version")
    mutate("version-missing", "DELETE FROM meta WHERE key='schema_version'", "schema version")
    mutate("drifted", "ALTER TABLE samples RENAME COLUMN memory_used_bytes TO mem",
           "another layout")
    mutate("other-format", "UPDATE meta SET value='something-else' WHERE key='format'",
           "not a GPU Planner recording")
    foreign = folder / "foreign.sqlite"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE accounts (id INTEGER, secret TEXT)")
    con.commit()
    con.close()
    out["foreign"] = (foreign, "not a GPU Planner recording")
    text = folder / "text.sqlite"
    text.write_text("not a database at all\n" * 100, encoding="utf-8")
    out["text"] = (text, "not a readable")
    half = _recording(folder / "half-src.sqlite", 50)
    cut = folder / "truncated.sqlite"
    cut.write_bytes(half.read_bytes()[: len(half.read_bytes()) // 3 + 100])
    half.unlink()
    out["truncated"] = (cut, "")
    garbage = folder / "garbage-header.sqlite"
    garbage.write_bytes(b"SQLite format 3\x00" + os.urandom(4000))
    out["garbage-header"] = (garbage, "")
    return out


def test_hostile_recordings_are_refused_untouched(tmp_path):
    files = _hostile_recordings(tmp_path)
    assert len(files) >= 9
    for name, (path, pattern) in files.items():
        before = path.read_bytes()
        mode = before[18] if len(before) > 18 else None
        with pytest.raises(RecordingError) as err:
            Recorder(path).close()
        text = str(err.value)
        assert "\n" not in text and safeio.is_clean(text), (name, text)
        if pattern:
            assert pattern in text, (name, text)
        assert path.read_bytes() == before, f"{name}: changed by a refused open"
        assert (before[18] if len(before) > 18 else None) == mode
        assert not Path(str(path) + "-wal").exists(), f"{name}: a WAL appeared"
        with pytest.raises(RecordingError):
            Recording(path).close()
        assert path.read_bytes() == before


def test_a_newer_recording_keeps_its_journal_mode(tmp_path):
    files = _hostile_recordings(tmp_path)
    path = files["newer"][0]
    assert _journal_mode_byte(path) == 1
    with pytest.raises(RecordingError, match="newer"):
        Recorder(path)
    assert _journal_mode_byte(path) == 1


def test_a_fifo_or_folder_named_like_a_recording_is_refused_at_once(tmp_path):
    cases = []
    d = tmp_path / "folder.sqlite"
    d.mkdir()
    cases.append(d)
    if hasattr(os, "mkfifo"):
        f = tmp_path / "fifo.sqlite"
        os.mkfifo(f)
        cases.append(f)
    assert cases
    for p in cases:
        t0 = time.perf_counter()
        with pytest.raises((RecordingError, OSError)):
            Recorder(p)
        assert time.perf_counter() - t0 < MAX_SECONDS
        assert os.path.lexists(p)


def test_retention_deletes_only_the_apps_own_readable_recordings(tmp_path):
    files = _hostile_recordings(tmp_path)
    old_own = _recording(tmp_path / "monitor-old.sqlite")
    new_own = _recording(tmp_path / "monitor-new.sqlite")
    long_ago = time.time() - 400 * 86400
    for p in [old_own, *(p for p, _ in files.values())]:
        os.utime(p, (long_ago, long_ago))
    kept = {p: p.read_bytes() for p, _ in files.values()}
    deleted = apply_retention(tmp_path, 30)
    assert deleted == [old_own]
    assert not old_own.exists() and new_own.exists()
    assert kept
    for p, data in kept.items():
        assert p.read_bytes() == data, f"retention touched {p.name}"
    listing = list_recordings(tmp_path)
    assert [r.path.name for r in listing.recordings] == ["monitor-new.sqlite"]
    assert len(listing.skipped) == len(files)


@pytest.mark.parametrize("value", [1 << 70, -(1 << 70), 10 ** 30])
def test_values_beyond_sqlite_integers_do_not_stop_the_recording(tmp_path, value):
    path = tmp_path / "big.sqlite"
    with Recorder(path) as rec:
        assert rec.write(_frame(1.0, used=value))
        assert rec.write(_frame(2.0))
        rec.flush()
        assert rec.error is None
    with Recording(path) as r:
        got = [f.samples[0].memory_used_bytes for f in r.frames()]
    assert got == [None, 1 << 30]


class _FullDisk:
    """A connection whose writes fail as SQLite does when the disk is full."""

    def __init__(self, conn):
        self.conn = conn

    def execute(self, sql, *args):
        if sql.startswith(("BEGIN", "ROLLBACK", "PRAGMA")):
            return self.conn.execute(sql, *args)
        raise sqlite3.OperationalError("database or disk is full")

    def executemany(self, *args):
        raise sqlite3.OperationalError("database or disk is full")

    def close(self):
        self.conn.close()


def test_disk_full_is_told_once_counts_what_was_lost_and_stops(tmp_path):
    path = tmp_path / "full.sqlite"
    rec = Recorder(path, commit_interval_s=0.0)
    told = []
    rec.on_error = told.append
    assert rec.write(_frame(1.0))  # committed
    rec._conn = _FullDisk(rec._conn)
    results = [rec.write(_frame(2.0 + i)) for i in range(10)]
    assert results == [False] * 10
    assert len(told) == 1 and "the disk is full" in told[0]
    assert rec.samples_lost == 10 and rec.frames_lost == 10
    assert rec.frames_written == 1
    assert "10 samples" in rec.lost_text()
    rec.close()
    with Recording(path) as r:
        assert r.n_samples() == 1


class _FullForSamples(_FullDisk):
    """The disk is full for the samples (a big insert), while the small update of the gap row
    in a page the file already has still gets through."""

    def execute(self, sql, *args):
        if sql.startswith("UPDATE gaps"):
            return self.conn.execute(sql, *args)
        return super().execute(sql, *args)


def test_disk_full_is_marked_in_the_recording_with_what_was_lost(tmp_path):
    path = tmp_path / "full.sqlite"
    rec = Recorder(path, commit_interval_s=0.0)
    assert rec.write(_frame(1.0))  # committed
    rec._conn = _FullForSamples(rec._conn)
    assert [rec.write(_frame(2.0 + i)) for i in range(10)] == [False] * 10
    rec.close()
    assert rec.gap_marked and "the recording marks the gap" in rec.lost_text()
    with Recording(path) as r:
        assert r.n_samples() == 1
        (gap,) = r.gaps()
        (listed,) = list_recordings(tmp_path).recordings
    assert gap.samples_lost == 10 and gap.frames_lost == 10
    assert gap.from_time_s == 2.0 and "the disk is full" in gap.reason
    assert "10 samples" in gap.text() and listed.gaps == (gap,)
    out = tmp_path / "full.csv"
    assert export_csv(path, out) == 2  # the sample and the marker row
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    marker = [row for row in rows if row["note"]]
    assert len(marker) == 1 and marker[0]["lost"] == "10"
    assert "samples lost" in marker[0]["note"] and "the disk is full" in marker[0]["note"]


def test_a_disk_that_stays_full_still_leaves_the_session_marked_unclosed(tmp_path):
    path = tmp_path / "full.sqlite"
    rec = Recorder(path, commit_interval_s=0.0)
    assert rec.write(_frame(1.0))
    rec._conn = _FullDisk(rec._conn)  # nothing gets through any more, not even the mark
    for i in range(5):
        rec.write(_frame(2.0 + i))
    rec.close()
    assert not rec.gap_marked and "was not closed" in rec.lost_text()
    with Recording(path) as r:
        (gap,) = r.gaps()
    assert gap.samples_lost is None and "not closed" in gap.reason  # written at the start
    assert "may be missing" in gap.text()


def test_a_recording_closed_cleanly_has_no_gap_and_one_in_progress_says_so(tmp_path):
    path = tmp_path / "ok.sqlite"
    rec = Recorder(path, commit_interval_s=0.0)
    rec.write(_frame(1.0))
    with Recording(path) as r:  # still being written (or the app was killed): unclosed
        assert [g.samples_lost for g in r.gaps()] == [None]
    other = DeviceInfo(0, "Other GPU", "GPU-9", memory_total_bytes=8 << 30)
    rec.write(Frame(2.0, 2.0, "simulated", "1", "12", (other,),
                    (GpuSample(index=0, uuid="GPU-9"),)))  # a new session: the first ended
    with Recording(path) as r:
        assert len(r.sessions) == 2 and [g.session_id for g in r.gaps()] == [r.sessions[1].id]
    rec.close()
    with Recording(path) as r:
        assert r.gaps() == () and r.n_samples() == 2


def test_a_replay_shows_what_the_recording_lost(tmp_path, qtbot):
    from planner.ui.monitor.pane import MonitorPane
    from planner.telemetry.simulated import SimulatedBackend

    path = tmp_path / "full.sqlite"
    rec = Recorder(path, commit_interval_s=0.0)
    rec.write(_frame(1000.0))
    rec._conn = _FullForSamples(rec._conn)
    for i in range(7):
        rec.write(_frame(1001.0 + i))
    rec.close()
    pane = MonitorPane(lambda: SimulatedBackend(n_devices=1), demo=True,
                       recordings_dir=tmp_path / "elsewhere", record=False, autostart=False)
    qtbot.addWidget(pane)
    try:
        assert pane.replay(path)
        assert "7 samples not recorded" in pane.replay_label.text()
        assert "the disk is full" in pane.replay_label.toolTip()  # the reason, in full
    finally:
        pane.shutdown()


def test_the_window_shows_the_recording_stopped(tmp_path, qtbot):
    from planner.ui.monitor.recordings import RecordingSink

    sink = RecordingSink(tmp_path)
    sink.write(_frame(1.0))
    sink.flush()
    assert sink.failure is None and sink.frames_written == 1
    sink._recorder._conn = _FullDisk(sink._recorder._conn)
    sink._recorder.commit_interval_s = 0.0
    for i in range(5):
        sink.write(_frame(2.0 + i))
    assert sink.failure and "stopped" in sink.failure and "5 samples" in sink.failure
    assert sink.frames_written == 1  # frames that were lost are not counted as written
    sink.close()


def _no_bigger_than(limit: int):
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write beyond the limit fails: EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def test_the_cli_says_once_that_the_disk_filled_and_exits_non_zero(tmp_path):
    path = tmp_path / "full.sqlite"
    env = dict(os.environ, PYTHONPATH=str(ROOT), PLANNER_HOME=str(tmp_path / "home"))
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "planner", "monitor", "--demo", "--interval", "0.1",
                        "--duration", "3", "--record", str(path)], env=env, cwd=str(ROOT),
                       capture_output=True, text=True, timeout=60,
                       preexec_fn=_no_bigger_than(100 * 1024))
    assert time.perf_counter() - t0 < 20
    assert p.returncode == 3, p.stderr
    lines = p.stderr.strip().splitlines()
    assert "Traceback" not in p.stderr
    assert len(lines) == 2, lines  # when it happened, and the summary at the end
    assert "stopped" in lines[0] and "monitoring goes on" in lines[0]
    assert "were not recorded" in lines[1]
    lost = int(lines[1].split("; ")[-1].split()[0])
    ticks = len(p.stdout.strip().splitlines()) // 3  # three demo cards
    with Recording(path) as r:
        stored = r.n_samples()
        gaps = r.gaps()
    assert stored > 0 and lost > 0
    assert stored + lost == 3 * ticks  # every sample is either stored or counted as lost
    # the file itself says so: with the count when a write got through, else "not closed"
    assert len(gaps) == 1 and gaps[0].samples_lost in (None, lost), gaps
    assert ("marks the gap" in lines[1]) == (gaps[0].samples_lost is not None)
