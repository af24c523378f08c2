"""Atomic file writes: a temporary file in the same folder, flushed to disk, then renamed over
the target, so a crash or a full disk never leaves a half-written plan, setting or override."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
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
