"""Reading an ONNX file without its weights: a protobuf skim over a memory map.

``onnx.load(path, load_external_data=False)`` keeps external weights on disk, but weights stored
inside the file (the legacy exporter's default) would all be read into memory. The skim walks the
file's top-level fields over a memory map and copies everything but the data fields of
initializers larger than ``SKIP_DATA_BYTES`` (their ``dims`` give the parameter count), so a
multi-GB file opens in a fraction of a second and untouched weight pages are never read. When the
skim cannot make sense of the bytes, ``onnx.load`` reads the file and its error becomes the
message.

Everything read is bounded: the graph's own bytes (``MAX_GRAPH_BYTES``), the number of nodes
(``MAX_NODES``); beyond a bound the file is refused with a message that says which.
"""

from __future__ import annotations

import mmap
from pathlib import Path

from planner.i18n import QT_TRANSLATE_NOOP, Msg

SKIP_DATA_BYTES = 64 * 1024  # the skim drops tensor data fields larger than this
MAX_NODES = 1_000_000  # nodes (and other repeated graph fields) read from one graph
MAX_GRAPH_BYTES = 512 * 1024 * 1024  # the graph's bytes besides skipped weight data

_TENSOR_DATA_FIELDS = {4, 5, 7, 9, 10, 11}  # float/int32/int64/raw/double/uint64 data


class ReadError(Exception):
    """A file that cannot be read; the message is the reason (without the file name)."""


class _SkimError(Exception):
    pass


class _TooLarge(Exception):
    pass


def _varint(buf, pos: int, end: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= end or shift > 63:
            raise _SkimError("bad varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def _enc_varint(v: int) -> bytes:
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _fields(buf, start: int, end: int):
    """(field number, wire type, span start, span end, value start) of each field."""
    pos = start
    while pos < end:
        key, p = _varint(buf, pos, end)
        field, wt = key >> 3, key & 7
        if field == 0:
            raise _SkimError("field 0")
        if wt == 0:
            _, q = _varint(buf, p, end)
            vstart = p
        elif wt == 1:
            vstart, q = p, p + 8
        elif wt == 2:
            n, vstart = _varint(buf, p, end)
            q = vstart + n
        elif wt == 5:
            vstart, q = p, p + 4
        else:
            raise _SkimError("group fields")
        if q > end:
            raise _SkimError("truncated")
        yield field, wt, pos, q, vstart
        pos = q


def _skim_tensor(buf, start: int, end: int) -> bytes:
    out = bytearray()
    for field, wt, s, e, v in _fields(buf, start, end):
        if field in _TENSOR_DATA_FIELDS and wt == 2 and e - v > SKIP_DATA_BYTES:
            continue
        out += buf[s:e]
    return bytes(out)


def _sub(field: int, payload: bytes) -> bytes:
    return _enc_varint((field << 3) | 2) + _enc_varint(len(payload)) + payload


def _skim_graph(buf, start: int, end: int) -> bytes:
    out = bytearray()
    count = nodes = 0
    for field, wt, s, e, v in _fields(buf, start, end):
        count += 1
        if count > MAX_NODES * 4:
            raise _TooLarge(Msg(QT_TRANSLATE_NOOP(
                "core", "the graph has more than {n} entries"), n=f"{MAX_NODES * 4:,}"))
        if field == 1:
            nodes += 1
            if nodes > MAX_NODES:
                raise _TooLarge(Msg(QT_TRANSLATE_NOOP(
                    "core", "the graph has more than {n} nodes"), n=f"{MAX_NODES:,}"))
        if field == 5 and wt == 2 and e - v <= SKIP_DATA_BYTES:  # a small initializer:
            out += buf[s:e]  # nothing in it to leave out (its fields are parsed with the rest)
        elif field == 5 and wt == 2:  # initializer
            out += _sub(5, _skim_tensor(buf, v, e))
        elif field == 15 and wt == 2:  # sparse_initializer: values (1), indices (2), dims (3)
            inner = bytearray()
            for f2, wt2, s2, e2, v2 in _fields(buf, v, e):
                if f2 in (1, 2) and wt2 == 2:
                    inner += _sub(f2, _skim_tensor(buf, v2, e2))
                else:
                    inner += buf[s2:e2]
            out += _sub(15, bytes(inner))
        else:
            out += buf[s:e]
        if len(out) > MAX_GRAPH_BYTES:
            raise _TooLarge(Msg(QT_TRANSLATE_NOOP(
                "core", "its graph is larger than {n} MiB without weights"),
                                 n=MAX_GRAPH_BYTES >> 20))
    return bytes(out)


def skim_model(buf) -> bytes:
    """The model's bytes with large weight data left out (raises on malformed protobuf)."""
    out = bytearray()
    for field, wt, s, e, v in _fields(buf, 0, len(buf)):
        if field == 7 and wt == 2:  # graph
            out += _sub(7, _skim_graph(buf, v, e))
        else:
            if e - s > MAX_GRAPH_BYTES:
                raise _TooLarge(Msg(QT_TRANSLATE_NOOP(
                    "core", "a field of {n} MiB"), n=(e - s) >> 20))
            out += buf[s:e]
    return bytes(out)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    msg = text[0] if text else type(exc).__name__
    return msg if len(msg) <= 200 else msg[:197] + "..."


def _unreadable(exc: BaseException) -> Msg:
    return Msg(QT_TRANSLATE_NOOP("core", "cannot be read ({why})"), why=_one_line(exc))


def read_model(onnx, path: Path):
    """The ModelProto of ``path`` without weight data; raises ReadError with the reason."""
    if not path.exists():
        raise ReadError(Msg(QT_TRANSLATE_NOOP("core", "no such file")))
    if path.is_dir():
        raise ReadError(Msg(QT_TRANSLATE_NOOP("core", "is a folder, not an ONNX file")))
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ReadError(_unreadable(exc)) from None
    if size == 0:
        raise ReadError(Msg(QT_TRANSLATE_NOOP("core", "the file is empty")))
    model = None
    try:
        with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            skimmed = skim_model(mm)
        model = onnx.ModelProto()
        model.ParseFromString(skimmed)
    except _TooLarge as exc:
        raise ReadError(Msg(QT_TRANSLATE_NOOP(
            "core", "too large to plan: {why}"), why=exc.args[0])) from None
    except OSError as exc:
        raise ReadError(_unreadable(exc)) from None
    except Exception:  # noqa: BLE001 - the skim failed; let onnx itself say what is wrong
        model = None
    if model is None:
        if size > MAX_GRAPH_BYTES:
            raise ReadError(Msg(QT_TRANSLATE_NOOP(
                "core", "not an ONNX file, or a truncated one (it cannot be skimmed, and it is too "
                "large to read whole: {n} MiB)"), n=size >> 20))
        try:
            model = onnx.load(str(path), load_external_data=False)
        except Exception as exc:  # noqa: BLE001
            raise ReadError(Msg(QT_TRANSLATE_NOOP(
                "core", "not an ONNX file, or a truncated one ({why})"),
                                why=_one_line(exc))) from None
        if len(model.graph.node) > MAX_NODES:
            raise ReadError(Msg(QT_TRANSLATE_NOOP(
                "core", "too large to plan: the graph has more than {n} nodes"),
                                n=f"{MAX_NODES:,}"))
    if not model.HasField("graph") or not model.graph.node:
        raise ReadError(Msg(QT_TRANSLATE_NOOP(
            "core", "not an ONNX network (the file holds no graph nodes)")))
    return model


def embedded_data(path: Path, names: set[str]) -> dict[str, tuple[int, int, int]]:
    """Where the data of the initializers ``names`` lies in the file, for those the skim left
    out (embedded, larger than SKIP_DATA_BYTES): {name: (field, offset, bytes)}, the field
    being raw_data (9) or packed float_data (4). Walks field headers only, never the data."""
    found: dict[str, tuple[int, int, int]] = {}
    if not names:
        return found
    try:
        with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            for field, wt, _s, e, v in _fields(mm, 0, len(mm)):
                if field != 7 or wt != 2:
                    continue
                for f2, wt2, _s2, e2, v2 in _fields(mm, v, e):
                    if f2 != 5 or wt2 != 2:
                        continue
                    name, data = None, None
                    for f3, wt3, _s3, e3, v3 in _fields(mm, v2, e2):
                        if f3 == 8 and wt3 == 2:
                            name = bytes(mm[v3:e3]).decode("utf-8", "replace")
                        elif f3 in (4, 9) and wt3 == 2:
                            data = (f3, v3, e3 - v3)
                    if name in names and data is not None:
                        found[name] = data
                        if len(found) == len(names):
                            return found
    except (OSError, ValueError, _SkimError):
        pass
    return found
