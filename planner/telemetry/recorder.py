"""Recording frames to SQLite, and reading recordings back.

One recording is one SQLite file in WAL mode (readers see committed data while the recorder
writes). Tables:

- ``meta``: key/value; ``format`` = "gpu-planner-recording", ``schema_version``.
- ``sessions``: one row per run of the recorder (start time, source, driver/CUDA versions,
  the cards as JSON). A new session starts when the set of cards changes.
- ``samples``: one row per card per tick (the GpuSample fields; throttle reasons, processes
  and unavailable reasons as JSON).
- ``gaps``: samples the file does not hold. Each session gets a row when it starts (written
  while there is room, with the session itself) saying it was not closed; a clean close
  removes it. When a write fails (the disk is full) the row is updated with the reason and
  the samples lost, as soon as a write gets through, and again on close; if none does (the
  disk stays full, the app is killed) the row still says the session ended unclosed and that
  samples after the last stored one may be missing. ``Recording.gaps()`` reads them; replay
  and the CSV export show them. Older files have no such table (and no gaps).

Durability: frames are buffered and written in one transaction at most ``commit_interval_s``
after the first uncommitted one (on the next write, or by the flusher thread when writes
stop), and on ``flush()`` / ``close()``. With ``synchronous=NORMAL`` in WAL mode a committed
transaction survives the app being killed, so a killed app loses at most the last second.

``Recorder`` is thread-safe: the sampler thread writes while the GUI thread may flush or close.

A file that is not SQLite, or not a recording, raises ``RecordingError`` with a clear message;
``list_recordings`` skips such files and says why. Nothing here is fatal to the app.
"""

from __future__ import annotations

import csv
import datetime as _dt
import json
import logging
import operator
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from planner.safeio import InputRefused, check_regular, clean
from planner.telemetry.types import (
    DeviceInfo,
    Frame,
    GpuSample,
    device_from_dict,
    device_to_dict,
    frozen_mapping,
    process_from_dict,
    process_to_dict,
)

log = logging.getLogger(__name__)

FORMAT = "gpu-planner-recording"
SCHEMA_VERSION = 1
RECORDING_SUFFIX = ".sqlite"
DEFAULT_COMMIT_INTERVAL_S = 0.5
FLUSHER_IDLE_S = 5.0  # the flusher thread ends after this long with nothing to commit

NUMERIC_COLUMNS: tuple[str, ...] = (
    "memory_used_bytes", "memory_reserved_bytes", "memory_free_bytes", "memory_busy_pct",
    "bandwidth_gbs_estimate", "dram_bw_util_pct", "pcie_rx_bytes_s", "pcie_tx_bytes_s",
    "gpu_busy_pct", "sm_clock_mhz", "memory_clock_mhz", "power_draw_w", "temperature_c",
    "fan_pct",
)
_INT_COLUMNS = {"memory_used_bytes", "memory_reserved_bytes", "memory_free_bytes",
                "sm_clock_mhz", "memory_clock_mhz"}

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY,
    start_time_s REAL NOT NULL,
    source TEXT NOT NULL,
    driver_version TEXT,
    cuda_version TEXT,
    devices_json TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS samples (
    session_id INTEGER NOT NULL REFERENCES sessions(id),
    timestamp_s REAL NOT NULL,
    monotonic_s REAL NOT NULL,
    device_index INTEGER NOT NULL,
    uuid TEXT,
    lost INTEGER NOT NULL DEFAULT 0,
    {", ".join(f"{c} {'INTEGER' if c in _INT_COLUMNS else 'REAL'}" for c in NUMERIC_COLUMNS)},
    throttle_json TEXT,
    processes_json TEXT,
    unavailable_json TEXT
);
CREATE INDEX IF NOT EXISTS samples_by_time ON samples (session_id, timestamp_s);
CREATE TABLE IF NOT EXISTS gaps (
    session_id INTEGER NOT NULL REFERENCES sessions(id),
    from_time_s REAL NOT NULL,
    samples_lost INTEGER,
    frames_lost INTEGER,
    reason TEXT NOT NULL
);
"""
# The reason of a session's gap row until a clean close removes it (or an error replaces it).
UNCLOSED = ("the recording was not closed (still being written, or the app or the disk "
            "stopped it): samples after the last one stored may be missing")

_INSERT_COLUMNS = ("session_id", "timestamp_s", "monotonic_s", "device_index", "uuid", "lost",
                   *NUMERIC_COLUMNS, "throttle_json", "processes_json", "unavailable_json")
_INSERT = (f"INSERT INTO samples ({', '.join(_INSERT_COLUMNS)}) "
           f"VALUES ({', '.join('?' * len(_INSERT_COLUMNS))})")


class RecordingError(Exception):
    """A recording cannot be read or written; the message says which file and why."""


def _describe(path: Path, exc: BaseException) -> str:
    msg = str(exc)
    if "not a database" in msg or "malformed" in msg:
        return f"{path.name} is not a readable GPU Planner recording (damaged or not SQLite)"
    return f"{path.name}: {msg}"


def _connect(path: Path, *, readonly: bool) -> sqlite3.Connection:
    if readonly:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True,
                               check_same_thread=False)
    else:
        conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
    return conn


def _check_format(conn: sqlite3.Connection, path: Path) -> None:
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
    except sqlite3.DatabaseError as exc:
        if "no such table" in str(exc):
            raise RecordingError(f"{path.name} is an SQLite file but not a GPU Planner "
                                 "recording") from exc
        raise RecordingError(_describe(path, exc)) from exc
    if row is None or row[0] != FORMAT:
        raise RecordingError(f"{path.name} is an SQLite file but not a GPU Planner recording")


def _check_version(conn: sqlite3.Connection, path: Path) -> None:
    """A recording written by a newer version (or with a damaged version) is refused before
    anything in it is changed, journal mode included; so is one whose columns drifted."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        cols = {r[1] for r in conn.execute("PRAGMA table_info(samples)")}
    except sqlite3.DatabaseError as exc:
        raise RecordingError(_describe(path, exc)) from exc
    try:
        version = int(row[0]) if row is not None else None
    except (TypeError, ValueError):
        version = None
    if version is None or version < 1:
        raise RecordingError(f"{path.name} has no valid schema version; it was left as it is")
    if version > SCHEMA_VERSION:
        raise RecordingError(f"{path.name} was written by a newer GPU Planner (recording schema "
                             f"{version}, this version reads {SCHEMA_VERSION}); it was left as "
                             "it is")
    missing = [c for c in _INSERT_COLUMNS[1:] if c not in cols]
    if cols and missing:
        raise RecordingError(f"{path.name} is a recording of another layout (no column "
                             f"{missing[0]}); it was left as it is")


_INT64 = (-(1 << 63), (1 << 63) - 1)


def _value(v: object) -> object:
    """A number SQLite can store exactly; beyond a 64-bit integer it is not a measurement."""
    if isinstance(v, int) and not _INT64[0] <= v <= _INT64[1]:
        return None
    return v


_numeric = operator.attrgetter(*NUMERIC_COLUMNS)


class _JsonCache:
    """The JSON text of values that repeat from sample to sample (a card's throttle reasons,
    what it does not report, a process list between two process samples): encoded once,
    looked up by value; bounded (cleared when full)."""

    __slots__ = ("_texts", "_limit")

    def __init__(self, limit: int = 512) -> None:
        self._texts: dict[object, str] = {}
        self._limit = limit

    def text(self, key: object, encode: Callable[[], object]) -> str:
        try:
            return self._texts[key]
        except KeyError:
            pass
        except TypeError:  # unhashable (a process name that is not a str): not cached
            return json.dumps(encode())
        if len(self._texts) >= self._limit:
            self._texts.clear()
        text = self._texts[key] = json.dumps(encode())
        return text


_json_texts = _JsonCache()


def _sample_row(session_id: int, frame: Frame, s: GpuSample) -> tuple:
    lo, hi = _INT64
    throttle, processes, unavailable = s.throttle_reasons, s.processes, s.unavailable
    text = _json_texts.text
    return (
        session_id, frame.timestamp_s, frame.monotonic_s, s.index, s.uuid, int(s.lost),
        *[None if type(v) is int and not lo <= v <= hi else v for v in _numeric(s)],
        None if throttle is None else text(("t", throttle), lambda: list(throttle)),
        None if processes is None else text(
            ("p", processes), lambda: [process_to_dict(p) for p in processes]),
        text(("u", tuple(unavailable.items())), lambda: dict(unavailable))
        if unavailable else None,
    )


def _rows_of(queued: list[tuple[int, Frame]]) -> list[tuple]:
    """The sample rows of queued (session id, frame) pairs, in order. A frame whose row
    cannot be made is left out (and logged), as it was when rows were made at ``write``."""
    rows: list[tuple] = []
    for session_id, frame in queued:
        try:
            rows.extend([_sample_row(session_id, frame, s) for s in frame.samples])
        except Exception:  # noqa: BLE001 - one bad frame must not stop the recording
            log.exception("recording: a frame could not be stored")
    return rows


# -- writing ------------------------------------------------------------------------------------

class Recorder:
    def __init__(self, path: str | Path, *,
                 commit_interval_s: float = DEFAULT_COMMIT_INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """Open (or create) a recording; raises RecordingError for a file that is not one."""
        self.path = Path(path)
        self.commit_interval_s = float(commit_interval_s)
        self._clock = clock
        self._lock = threading.RLock()
        # the frames queued since the last commit, with their session; their rows are built
        # at the commit, a batch at once, not one frame at a time in the sampling thread (a
        # thread that has just woken runs its first work several times slower than the rest)
        self._pending: list[tuple[int, Frame]] = []
        self._pending_frames = 0
        self._pending_since: float | None = None
        # when writes stop, one flusher thread (started on the first write, ending with
        # close) commits what is queued at most commit_interval_s after the first of it; a
        # Timer thread per commit cost a thread start and its end twice a second
        self._wake = threading.Condition(self._lock)
        self._flush_at: float | None = None  # time.monotonic() of the next timed commit
        self._flusher: threading.Thread | None = None
        self._session_id: int | None = None
        self._session_devices: tuple[DeviceInfo, ...] | None = None
        self._closed = False
        self.frames_written = 0
        # A write error (disk full, I/O error, the file deleted): recording stops, told once.
        self.error: str | None = None
        self.samples_lost = 0  # rows (one per card per tick) that could not be stored
        self.frames_lost = 0
        self.on_error: Callable[[str], None] | None = None
        self.gap_marked = False  # whether the file holds the exact count of what was lost
        self._lost_from_s: float | None = None
        self._marked_counts: tuple[int, int] | None = None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        existed = self.path.exists()
        if existed:
            try:
                check_regular(self.path)
            except InputRefused as exc:
                raise RecordingError(str(exc)) from None
            existed = self.path.stat().st_size > 0
        try:
            self._conn = _connect(self.path, readonly=False)
        except sqlite3.Error as exc:
            raise RecordingError(_describe(self.path, exc)) from exc
        try:
            if existed:
                _check_format(self._conn, self.path)
                _check_version(self._conn, self.path)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.executescript(_SCHEMA)
            self._conn.execute("INSERT OR IGNORE INTO meta VALUES ('format', ?)", (FORMAT,))
            self._conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)",
                               (str(SCHEMA_VERSION),))
        except RecordingError:
            self._conn.close()
            raise
        except sqlite3.Error as exc:
            self._conn.close()
            raise RecordingError(_describe(self.path, exc)) from exc

    def __enter__(self) -> Recorder:  # noqa: PYI034 - typing.Self needs 3.11
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        return self._closed

    def write(self, frame: Frame) -> bool:
        """Queue one frame; commits when the oldest queued one is ≥ commit_interval_s old.

        Returns False (and does nothing) once the recorder is closed, or after a write error
        (``error`` says what; ``samples_lost`` / ``frames_lost`` count what was not stored).
        """
        with self._lock:
            if self._closed:
                return False
            if self.error is not None:
                self.frames_lost += 1
                self.samples_lost += len(frame.samples)
                if self._lost_from_s is None:
                    self._lost_from_s = frame.timestamp_s
                if not self.gap_marked:
                    self._mark_gap()
                return False
            if self._session_id is None or frame.devices != self._session_devices:
                self._flush_locked()
                if self.error is not None:
                    return self.write(frame)
                try:
                    self._start_session(frame)
                except (sqlite3.Error, OverflowError, ValueError) as exc:
                    self._failed(exc, 0, 0)
                    return self.write(frame)
            assert self._session_id is not None
            self._pending.append((self._session_id, frame))
            self._pending_frames += 1
            self.frames_written += 1
            now = self._clock()
            if self._pending_since is None:
                self._pending_since = now
            if now - self._pending_since >= self.commit_interval_s:
                self._flush_locked()
            elif self._flush_at is None:
                delay = self.commit_interval_s - (now - self._pending_since)
                self._flush_at = time.monotonic() + max(0.0, delay)
                if self._flusher is None:
                    self._flusher = threading.Thread(target=self._flush_when_due, daemon=True,
                                                     name="planner-recorder-flush")
                    self._flusher.start()
                else:
                    self._wake.notify()
            return self.error is None

    def _start_session(self, frame: Frame) -> None:
        devices = json.dumps([device_to_dict(d) for d in frame.devices])
        self._conn.execute("BEGIN")
        try:
            if self._session_id is not None:  # the previous one ended cleanly
                self._conn.execute("DELETE FROM gaps WHERE session_id = ?", (self._session_id,))
            cur = self._conn.execute(
                "INSERT INTO sessions (start_time_s, source, driver_version, cuda_version, "
                "devices_json) VALUES (?, ?, ?, ?, ?)",
                (frame.timestamp_s, frame.source, frame.driver_version, frame.cuda_version,
                 devices))
            session_id = int(cur.lastrowid)
            self._conn.execute("INSERT INTO gaps VALUES (?, ?, NULL, NULL, ?)",
                               (session_id, frame.timestamp_s, UNCLOSED))
            self._conn.execute("COMMIT")
        except BaseException:
            try:
                self._conn.execute("ROLLBACK")
            except sqlite3.Error:
                log.debug("rollback failed", exc_info=True)
            raise
        self._session_id = session_id
        self._session_devices = frame.devices

    def _flush_when_due(self) -> None:
        """The flusher thread: commit at ``_flush_at`` unless a write or flush did first."""
        with self._lock:
            while not self._closed:
                if self._flush_at is None:
                    if not self._wake.wait(FLUSHER_IDLE_S) and self._flush_at is None:
                        self._flusher = None  # nothing written for a while: the next
                        return  # write starts it again (a recording left open keeps none)
                    continue
                delay = self._flush_at - time.monotonic()
                if delay > 0:
                    self._wake.wait(delay)
                    continue
                self._flush_locked()

    def flush(self) -> None:
        """Commit everything queued now."""
        with self._lock:
            if not self._closed:
                self._flush_locked()

    def _flush_locked(self) -> None:
        self._flush_at = None
        self._pending_since = None
        if not self._pending:
            return
        queued, self._pending = self._pending, []
        rows = _rows_of(queued)
        if not rows:
            return  # frames without cards: nothing to store
        frames, self._pending_frames = self._pending_frames, 0
        first_s = rows[0][1]
        try:
            self._conn.execute("BEGIN")
            self._conn.executemany(_INSERT, rows)
            self._conn.execute("COMMIT")
        except (sqlite3.Error, OverflowError, ValueError) as exc:
            try:
                self._conn.execute("ROLLBACK")
            except sqlite3.Error:
                log.debug("rollback failed", exc_info=True)
            if self._lost_from_s is None:
                self._lost_from_s = first_s
            self._failed(exc, len(rows), frames)
            self._mark_gap()

    def _mark_gap(self) -> None:
        """Write what was lost into the session's gap row (best effort: the disk may still
        be full; then the row written at the start still says the session is unclosed)."""
        if self._session_id is None or self.error is None:
            return
        counts = (self.samples_lost, self.frames_lost)
        if self._marked_counts == counts:
            return
        try:
            self._conn.execute(
                "UPDATE gaps SET from_time_s = ?, samples_lost = ?, frames_lost = ?, reason = ? "
                "WHERE session_id = ?",
                (self._lost_from_s if self._lost_from_s is not None else 0.0, counts[0],
                 counts[1], self.error, self._session_id))
        except (sqlite3.Error, OverflowError, ValueError) as exc:
            log.debug("marking the gap in %s: %s", self.path, exc)
            self.gap_marked = False
            return
        self._marked_counts = counts
        self.gap_marked = True

    def _failed(self, exc: BaseException, rows: int, frames: int) -> None:
        """The first write error stops the recording; later frames are counted as lost."""
        self.samples_lost += rows
        self.frames_lost += frames
        self.frames_written -= frames
        if self.error is not None:
            return
        why = str(exc) or type(exc).__name__
        if "full" in why.lower():
            why = "the disk is full"
        self.error = f"recording to {self.path.name} stopped: {why}"
        # told once: by the listener when there is one (the CLI, the window), else in the log
        (log.info if self.on_error is not None else log.error)(
            "%s (%d samples not stored)", self.error, rows)
        if self.on_error is not None:
            try:
                self.on_error(self.error)
            except Exception:  # noqa: BLE001 - a listener's bug must not stop the sampler
                log.exception("recording error listener")

    def lost_text(self) -> str:
        """The error and what was lost, one line (empty when nothing went wrong)."""
        if self.error is None:
            return ""
        marked = ("the recording marks the gap" if self.gap_marked else
                  "the recording says it was not closed; the count could not be written to it")
        return (f"{self.error}; {self.samples_lost} samples ({self.frames_lost} ticks) were "
                f"not recorded ({marked})")

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._flush_locked()
            if self.error is not None:
                self._marked_counts = None  # the final counts, once more
                self._mark_gap()
            elif self._session_id is not None:
                try:  # closed cleanly: nothing is missing
                    self._conn.execute("DELETE FROM gaps WHERE session_id = ?",
                                       (self._session_id,))
                except sqlite3.Error as exc:
                    log.debug("closing %s: %s", self.path, exc)
            self._closed = True
            self._wake.notify_all()  # the flusher thread ends
            try:
                self._conn.close()
            except sqlite3.Error as exc:
                log.debug("closing %s: %s", self.path, exc)


# -- reading ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SessionInfo:
    id: int
    start_time_s: float
    source: str
    driver_version: str | None
    cuda_version: str | None
    devices: tuple[DeviceInfo, ...]


@dataclass(frozen=True)
class Gap:
    """Samples a session does not hold. ``samples_lost`` None: not known (the session was not
    closed: the app was stopped, or the disk stayed full)."""

    session_id: int
    from_time_s: float
    samples_lost: int | None
    frames_lost: int | None
    reason: str

    def text(self) -> str:
        when = _dt.datetime.fromtimestamp(self.from_time_s).isoformat(timespec="seconds")
        if self.samples_lost is None:
            return f"from {when}: {self.reason}"
        return (f"from {when}: {self.samples_lost} samples ({self.frames_lost} ticks) not "
                f"recorded: {self.reason}")


@dataclass(frozen=True)
class RecordingInfo:
    path: Path
    start_time_s: float | None
    end_time_s: float | None
    source: str | None
    device_names: tuple[str, ...]
    n_samples: int
    size_bytes: int
    gaps: tuple[Gap, ...] = ()

    @property
    def duration_s(self) -> float:
        if self.start_time_s is None or self.end_time_s is None:
            return 0.0
        return max(0.0, self.end_time_s - self.start_time_s)


@dataclass(frozen=True)
class SkippedRecording:
    path: Path
    reason: str


@dataclass(frozen=True)
class RecordingListing:
    recordings: tuple[RecordingInfo, ...] = ()
    skipped: tuple[SkippedRecording, ...] = field(default=())


class Recording:
    """A recording opened read-only (it may still be being written)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise RecordingError(f"{self.path.name}: no such recording")
        try:
            self._conn = _connect(self.path, readonly=True)
        except sqlite3.Error as exc:
            raise RecordingError(_describe(self.path, exc)) from exc
        try:
            _check_format(self._conn, self.path)
            _check_version(self._conn, self.path)
            self.sessions: tuple[SessionInfo, ...] = tuple(self._read_sessions())
        except RecordingError:
            self._conn.close()
            raise
        except (sqlite3.Error, ValueError, KeyError, TypeError) as exc:
            self._conn.close()
            raise RecordingError(_describe(self.path, exc)) from exc

    def __enter__(self) -> Recording:  # noqa: PYI034 - typing.Self needs 3.11
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._conn.close()

    def _read_sessions(self) -> Iterator[SessionInfo]:
        for sid, start, source, drv, cuda, devs in self._conn.execute(
                "SELECT id, start_time_s, source, driver_version, cuda_version, devices_json "
                "FROM sessions ORDER BY id"):
            devices = tuple(device_from_dict(d) for d in json.loads(devs))
            yield SessionInfo(sid, start, source, drv, cuda, devices)

    def _session(self, session_id: int | None) -> SessionInfo:
        if not self.sessions:
            raise RecordingError(f"{self.path.name} holds no session")
        if session_id is None:
            return self.sessions[0]
        for s in self.sessions:
            if s.id == session_id:
                return s
        raise RecordingError(f"{self.path.name} has no session {session_id}")

    def n_samples(self) -> int:
        return int(self._conn.execute("SELECT COUNT(*) FROM samples").fetchone()[0])

    def gaps(self, session_id: int | None = None) -> tuple[Gap, ...]:
        """What the recording says it is missing (every session's, or one's), oldest first."""
        try:
            rows = self._conn.execute(
                "SELECT session_id, from_time_s, samples_lost, frames_lost, reason FROM gaps "
                "ORDER BY session_id, from_time_s").fetchall()
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return ()  # written before gaps were recorded
            raise RecordingError(_describe(self.path, exc)) from exc
        out = []
        for sid, t, n, f, reason in rows:
            if session_id is not None and sid != session_id:
                continue
            try:
                out.append(Gap(int(sid), float(t), None if n is None else int(n),
                               None if f is None else int(f), clean(str(reason), max_len=500)))
            except (TypeError, ValueError):
                continue
        return tuple(out)

    def time_range(self) -> tuple[float | None, float | None]:
        lo, hi = self._conn.execute(
            "SELECT MIN(timestamp_s), MAX(timestamp_s) FROM samples").fetchone()
        return lo, hi

    def frames(self, session_id: int | None = None) -> Iterator[Frame]:
        """The frames of one session (the first by default), in time order."""
        sess = self._session(session_id)
        cols = ", ".join(_INSERT_COLUMNS[1:])
        cur = self._conn.execute(
            f"SELECT {cols} FROM samples WHERE session_id = ? ORDER BY timestamp_s, "
            "device_index", (sess.id,))
        key: tuple[float, float] | None = None
        batch: list[GpuSample] = []
        for row in cur:
            ts, mono = row[0], row[1]
            if key is not None and (ts, mono) != key:
                yield self._frame(sess, key, batch)
                batch = []
            key = (ts, mono)
            batch.append(self._sample(row))
        if key is not None:
            yield self._frame(sess, key, batch)

    @staticmethod
    def _frame(sess: SessionInfo, key: tuple[float, float], batch: list[GpuSample]) -> Frame:
        return Frame(timestamp_s=key[0], monotonic_s=key[1], source=sess.source,  # type: ignore[arg-type]
                     driver_version=sess.driver_version, cuda_version=sess.cuda_version,
                     devices=sess.devices, samples=tuple(batch))

    @staticmethod
    def _sample(row: tuple) -> GpuSample:
        n = len(NUMERIC_COLUMNS)
        _, _, index, uuid, lost = row[:5]
        values = dict(zip(NUMERIC_COLUMNS, row[5:5 + n], strict=True))
        throttle_j, procs_j, unav_j = row[5 + n:]
        return GpuSample(
            index=index, uuid=uuid or "", lost=bool(lost), **values,
            throttle_reasons=None if throttle_j is None else tuple(json.loads(throttle_j)),
            processes=None if procs_j is None else tuple(
                process_from_dict(p) for p in json.loads(procs_j)),
            unavailable=frozen_mapping(json.loads(unav_j) if unav_j else None))

    def series(self, metric: str, device_index: int, session_id: int | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
        """(times, values) of one metric of one card as float arrays; NaN where N/A or lost."""
        if metric not in NUMERIC_COLUMNS:
            raise KeyError(f"unknown metric {metric!r}")
        sess = self._session(session_id)
        rows = self._conn.execute(
            f"SELECT timestamp_s, CASE WHEN lost THEN NULL ELSE {metric} END FROM samples "
            "WHERE session_id = ? AND device_index = ? ORDER BY timestamp_s",
            (sess.id, device_index)).fetchall()
        if not rows:
            return np.empty(0), np.empty(0)
        arr = np.array(rows, dtype=float)  # None → nan
        return arr[:, 0].copy(), arr[:, 1].copy()

    def info(self) -> RecordingInfo:
        lo, hi = self.time_range()
        first = self.sessions[0] if self.sessions else None
        return RecordingInfo(
            path=self.path, start_time_s=first.start_time_s if first else lo, end_time_s=hi,
            source=first.source if first else None,
            device_names=tuple(d.name for d in first.devices) if first else (),
            n_samples=self.n_samples(), size_bytes=self.path.stat().st_size,
            gaps=self.gaps())


def open_recording(path: str | Path) -> Recording:
    return Recording(path)


def _candidates(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir()
                  if p.is_file() and p.name.endswith(RECORDING_SUFFIX))


def list_recordings(folder: str | Path) -> RecordingListing:
    """Every recording in the folder, newest first; unreadable files are skipped with a note."""
    good: list[RecordingInfo] = []
    skipped: list[SkippedRecording] = []
    for p in _candidates(Path(folder)):
        try:
            with Recording(p) as rec:
                good.append(rec.info())
        except RecordingError as exc:
            log.warning("skipping recording: %s", exc)
            skipped.append(SkippedRecording(p, str(exc)))
        except (OSError, sqlite3.Error) as exc:
            skipped.append(SkippedRecording(p, _describe(p, exc)))
    good.sort(key=lambda r: r.start_time_s or 0.0, reverse=True)
    return RecordingListing(tuple(good), tuple(skipped))


def delete_recording(path: str | Path) -> None:
    """Delete a recording and its WAL side files."""
    p = Path(path)
    for extra in ("-wal", "-shm"):
        Path(str(p) + extra).unlink(missing_ok=True)
    p.unlink(missing_ok=True)


def apply_retention(folder: str | Path, days: float, *, now: float | None = None,
                    keep: tuple[str | Path, ...] = ()) -> list[Path]:
    """Delete recordings last written more than ``days`` days ago; returns what was deleted.

    ``keep``: paths never deleted (the recording in progress). days ≤ 0 keeps everything.
    Only recordings this app made and can read are touched: any other ``.sqlite`` file in the
    folder (another program's, a damaged one, a newer version's) is left alone.
    """
    if days <= 0:
        return []
    now = time.time() if now is None else now
    kept = {Path(k).resolve() for k in keep}
    deleted = []
    for p in _candidates(Path(folder)):
        if p.resolve() in kept:
            continue
        try:
            age_s = now - p.stat().st_mtime
        except OSError:
            continue
        if age_s > days * 86400:
            try:
                Recording(p).close()
            except (RecordingError, OSError, sqlite3.Error) as exc:
                log.info("retention: leaving %s alone (%s)", p.name, exc)
                continue
            delete_recording(p)
            deleted.append(p)
    return deleted


def default_recording_path(folder: str | Path, now: float | None = None) -> Path:
    stamp = _dt.datetime.fromtimestamp(time.time() if now is None else now).strftime(
        "%Y%m%d-%H%M%S")
    return Path(folder) / f"monitor-{stamp}{RECORDING_SUFFIX}"


def export_csv(path: str | Path, out_csv: str | Path) -> int:
    """One CSV row per card per tick, every session; returns the number of rows written."""
    n = 0
    with Recording(path) as rec, open(out_csv, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["session", "timestamp_s", "time_iso", "device_index", "device_name", "uuid",
                    "lost", *NUMERIC_COLUMNS, "throttle_reasons", "process_count", "note"])
        for sess in rec.sessions:
            names = {d.index: d.name for d in sess.devices}
            for gap in rec.gaps(sess.id):  # a marker row: what the session does not hold
                iso = _dt.datetime.fromtimestamp(gap.from_time_s).isoformat(
                    timespec="milliseconds")
                w.writerow([sess.id, f"{gap.from_time_s:.3f}", iso, "", "", "",
                            "" if gap.samples_lost is None else gap.samples_lost,
                            *("" for _ in NUMERIC_COLUMNS), "", "", "samples lost: " +
                            gap.text()])
                n += 1
            for frame in rec.frames(sess.id):
                iso = _dt.datetime.fromtimestamp(frame.timestamp_s).isoformat(
                    timespec="milliseconds")
                for s in frame.samples:
                    w.writerow([
                        sess.id, f"{frame.timestamp_s:.3f}", iso, s.index,
                        names.get(s.index, ""), s.uuid, int(s.lost),
                        *("" if getattr(s, c) is None else getattr(s, c)
                          for c in NUMERIC_COLUMNS),
                        "" if s.throttle_reasons is None else "|".join(s.throttle_reasons),
                        "" if s.processes is None else len(s.processes)])
                    n += 1
    return n
