"""A recording read back for the Monitor's replay: one session of it in a History, with its
last frame (for the tables) and the gaps the recording marks. Qt-free
(``tests/unit/telemetry/test_replay.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from planner.telemetry.history import History
from planner.telemetry.recorder import RecordingError, open_recording
from planner.telemetry.types import Frame

REPLAY_CELLS = 2_000_000  # values a replay's History holds at most (cards × metrics × samples)
MIN_REPLAY_CAPACITY = 1000  # samples per card a replay may always hold


@dataclass(frozen=True)
class Replay:
    path: Path
    sessions: tuple  # the recording's SessionInfo, in order
    session: object  # the one replayed
    history: History
    last_frame: Frame | None
    gaps: tuple  # the recording's gap marks in that session

    @property
    def position(self) -> int:
        """1-based: which of the recording's sessions this is."""
        return self.sessions.index(self.session) + 1


def replay_capacity(n_samples: int, n_devices: int, n_metrics: int) -> int:
    """Samples per card for a replay: the whole recording, up to REPLAY_CELLS values (older
    samples then fall out of the fine tier; the coarse one keeps the whole span)."""
    rows = max(1, n_devices) * n_metrics
    return int(min(max(1, n_samples), max(MIN_REPLAY_CAPACITY, REPLAY_CELLS // rows)))


def load_replay(path: str | Path, metrics: Sequence[str],
                session_id: int | None = None) -> Replay:
    """Read one session (default the first) of a recording; RecordingError (or OSError) when
    the file cannot be read or has no such session."""
    path = Path(path)
    with open_recording(path) as rec:
        if not rec.sessions:
            raise RecordingError(f"{path.name} holds no session")
        sessions = tuple(rec.sessions)
        sess = next((x for x in sessions if x.id == session_id), None) \
            if session_id is not None else sessions[0]
        if sess is None:
            raise RecordingError(f"{path.name} has no session {session_id}")
        capacity = replay_capacity(rec.n_samples(), len(sess.devices), len(metrics))
        hist = History([d.index for d in sess.devices], capacity, metrics=metrics, gap_s=None)
        last_frame = None
        for frame in rec.frames(sess.id):
            hist.append(frame)
            last_frame = frame
        gaps = tuple(rec.gaps(sess.id))
    return Replay(path, sessions, sess, hist, last_frame, gaps)
