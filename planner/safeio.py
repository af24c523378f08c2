"""Bounded reading of everything the app opens from outside (Qt-free, no work at import).

Every input — plan files, the autosave, settings, catalog overrides, token and CA files,
recordings, ONNX files, HTTP bodies — goes through one of these before it is parsed:

* ``read_bytes(path, limit=...)``: regular files only (a FIFO, a device such as /dev/zero, a
  socket or a folder is refused without blocking: the file is opened non-blocking and checked
  with ``fstat`` before a byte is read), at most ``limit`` bytes (a larger file is refused; a
  file that grows while it is read is cut at ``limit + 1`` bytes and refused too).
* ``check_regular(path, limit=...)``: the same checks without reading (for a file that another
  library opens, such as an ONNX file or an SQLite recording).
* ``loads_json(text, max_depth=...)``: JSON without the parser's own failure modes: nesting
  deeper than ``max_depth`` and integers of more than ``MAX_INT_DIGITS`` digits are refused with
  one sentence instead of a RecursionError or Python's 4,300-digit ValueError.
* ``clean(text)``: a name or label from a file or a server, fit for a terminal, a status bar or
  a recording: control characters (newlines, ANSI escapes, bidi overrides) are escaped as
  ``\\x1b`` / ``\\u202e``, and the text is cut at ``max_len``.
* ``scrub(text, secrets)``: every secret replaced by ``<hidden>``.

Beyond a bound: ``InputRefused`` (a ``ValueError``) with one clear message; nothing is changed
on disk. The message is a ``Msg`` (translatable in the window).
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any, Iterable

from planner.i18n import QT_TRANSLATE_NOOP, Msg

MIB = 1 << 20
# Bounds per kind of input (a real file of each kind is far below them).
MAX_PLAN_BYTES = 64 * MIB  # a plan of 100,000 layers is about 15 MiB
MAX_SETTINGS_BYTES = 1 * MIB
MAX_OVERRIDES_BYTES = 16 * MIB
MAX_TOKEN_BYTES = 64 * 1024
MAX_CA_BYTES = 4 * MIB
MAX_ONNX_BYTES = 2048 * MIB  # protobuf's own limit; weights normally live outside the graph
MAX_JSON_DEPTH = 64
MAX_INT_DIGITS = 40  # far beyond any count or size (2**64 has 20 digits)
MAX_NAME_CHARS = 200


class InputRefused(ValueError):
    """An input beyond a bound, or not a regular file: one sentence, nothing was changed."""


class BadContent(InputRefused):
    """The bytes were read but are not what they should be (not UTF-8, JSON nested too deep,
    an absurd number): the file is damaged, and may be set aside."""


def _name(path: str | os.PathLike) -> str:
    return clean(os.fspath(path), max_len=MAX_NAME_CHARS)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return QT_TRANSLATE_NOOP("core", "a folder")
    if stat.S_ISFIFO(mode):
        return QT_TRANSLATE_NOOP("core", "a pipe (FIFO)")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return QT_TRANSLATE_NOOP("core", "a device")
    if stat.S_ISSOCK(mode):
        return QT_TRANSLATE_NOOP("core", "a socket")
    return QT_TRANSLATE_NOOP("core", "not a regular file")


def _refuse_mode(path: str | os.PathLike, mode: int) -> InputRefused:
    return InputRefused(Msg(QT_TRANSLATE_NOOP("core", "{where} is {kind}, not a file"),
                            where=_name(path), kind=Msg(_kind(mode))))


def _too_large(path: str | os.PathLike, limit: int) -> InputRefused:
    return InputRefused(Msg(QT_TRANSLATE_NOOP("core", "{where} is larger than {limit} MiB; "
                                                      "it was not read"),
                            where=_name(path), limit=_mib(limit)))


def _mib(n: int) -> str:
    return f"{n / MIB:g}"


def check_regular(path: str | os.PathLike, *, limit: int | None = None) -> int:
    """The size of ``path`` if it is a regular file within ``limit`` bytes; else InputRefused.
    OSError (no such file, permission) passes through. Never blocks."""
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise _refuse_mode(path, st.st_mode)
    if limit is not None and st.st_size > limit:
        raise _too_large(path, limit)
    return st.st_size


def read_bytes(path: str | os.PathLike, *, limit: int) -> bytes:
    """At most ``limit`` bytes of a regular file (see the module docstring)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    flags |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _refuse_mode(path, st.st_mode)
        if st.st_size > limit:
            raise _too_large(path, limit)
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise _too_large(path, limit)
    return data


def read_text(path: str | os.PathLike, *, limit: int) -> str:
    """UTF-8 text (a BOM is dropped) of a regular file of at most ``limit`` bytes."""
    data = read_bytes(path, limit=limit)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BadContent(Msg(QT_TRANSLATE_NOOP("core", "{where} is not UTF-8 text (byte "
                                                         "{offset})"),
                               where=_name(path), offset=exc.start)) from None


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise BadContent(Msg(QT_TRANSLATE_NOOP("core", "a number with {digits} digits is "
                                                         "absurdly large"),
                               digits=len(text.lstrip("-"))))
    return int(text)


def _depth_ok(obj: Any, max_depth: int) -> bool:
    stack = [(obj, 1)]
    while stack:
        o, d = stack.pop()
        if isinstance(o, dict):
            if d > max_depth:
                return False
            stack.extend((v, d + 1) for v in o.values() if isinstance(v, (dict, list)))
        elif isinstance(o, list):
            if d > max_depth:
                return False
            stack.extend((v, d + 1) for v in o if isinstance(v, (dict, list)))
    return True


def loads_json(text: str | bytes, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads`` bounded in nesting and integer size. Raises json.JSONDecodeError for text
    that is not JSON (with its line), InputRefused beyond a bound."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8-sig")
    deep = BadContent(Msg(QT_TRANSLATE_NOOP("core", "JSON nested more than {depth} levels "
                                                      "deep"), depth=max_depth))
    try:
        obj = json.loads(text, parse_int=_parse_int)
    except RecursionError:
        raise deep from None
    if not _depth_ok(obj, max_depth):
        raise deep
    return obj


# -- text from outside -------------------------------------------------------------------------

# C0 and C1 controls, DEL, and the invisible format characters that reorder or hide text.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]")


def _escape(m: re.Match) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def clean(text: Any, *, max_len: int | None = None) -> str:
    """``text`` with control characters escaped (a newline shows as ``\\x0a``), cut to
    ``max_len`` characters ("…" at the end). Ordinary Unicode (CJK, accents, ×) is kept."""
    s = text if isinstance(text, str) else str(text)
    if _CONTROL.search(s):
        s = _CONTROL.sub(_escape, s)
    if max_len is not None and len(s) > max_len:
        s = s[: max_len - 1] + "…"
    return s


def is_clean(text: str) -> bool:
    return _CONTROL.search(text) is None


def scrub(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every (non-empty) secret replaced by ``<hidden>``."""
    for s in secrets:
        if s:
            text = text.replace(s, "<hidden>")
    return text


def ascii_safe(text: str, encoding: str | None) -> str:
    """``text`` as the stream's encoding can show it (unencodable characters escaped)."""
    enc = encoding or "ascii"
    try:
        text.encode(enc)
        return text
    except (UnicodeEncodeError, LookupError):
        return text.encode(enc if _known(enc) else "ascii", "backslashreplace").decode(
            enc if _known(enc) else "ascii")


def _known(enc: str) -> bool:
    try:
        "".encode(enc)
        return True
    except LookupError:
        return False


def set_aside(path: Path, *, stamp: str | None = None) -> Path:
    """Rename ``path`` to ``path.corrupt-YYYYmmdd-HHMMSS`` (a free name), bytes untouched.
    Returns the new path; OSError passes through (the file is then left where it was)."""
    import time  # noqa: PLC0415

    stamp = stamp or time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
    os.replace(path, target)
    return target
