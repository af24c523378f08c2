"""Atomic file writes: a temporary file in the same folder, flushed to disk, then renamed over
the target, so a crash or a full disk never leaves a half-written plan, setting or override.

Modes: a file that exists keeps its permission bits; a new file gets the user's umask (as
``open()`` would give it), not mkstemp's private 0600. A file the user made read-only is not
replaced: PermissionError, as writing it in place would raise."""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any


def _umask() -> int:
    try:  # Linux says it without changing it
        with open("/proc/self/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # elsewhere it can only be read by setting it, restored at once
    os.umask(mask)
    return mask


def _target_mode(path: Path) -> int:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return 0o666 & ~_umask()
    if not stat.S_ISREG(st.st_mode):
        raise IsADirectoryError(21, "not a regular file", str(path)) if stat.S_ISDIR(
            st.st_mode) else PermissionError(1, "not a regular file", str(path))
    if os.name == "posix" and (not os.access(path, os.W_OK) or not st.st_mode & stat.S_IWUSR):
        raise PermissionError(13, "the file is read-only", str(path))
    return stat.S_IMODE(st.st_mode)


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = _target_mode(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            if hasattr(os, "fchmod"):
                os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return path


def write_json_atomic(path: str | os.PathLike, data: Any, *, indent: int = 2) -> Path:
    """Readable JSON (UTF-8, not ASCII-escaped), written atomically."""
    return write_text_atomic(path, json.dumps(data, indent=indent, ensure_ascii=False) + "\n")
