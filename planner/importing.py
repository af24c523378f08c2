"""Importing a model in a separate process: the window never waits on an importer.

An importer (ONNX today, a model folder tomorrow) is a plain function ``f(path, **options)``
returning a picklable result (frozen dataclasses: an ``ImportResult``). ``ChildImport`` runs
it in a fresh *spawned* Python process (not forked: a forked copy of a Qt program is not safe,
and spawn is what Windows, macOS and a frozen PyInstaller app have anyway; the frozen launcher
calls ``multiprocessing.freeze_support()``). Why a process and not a thread: onnx's shape
inference is one C call that holds Python's lock for up to seconds, so a thread doing it
freezes the window; and a process can really be stopped.

- ``run()`` blocks (call it from a worker thread, never the GUI thread): start-up, the import
  and the transfer all happen there. While it waits it holds no lock the window needs.
- ``cancel()`` (any thread) terminates the child at once, then kills it; ``run()`` raises
  :class:`ImportCancelled`.
- A child that crashes, is killed (the kernel's out-of-memory killer) or runs past its address
  space bound (``memory_limit_bytes``, on Linux and macOS) becomes :class:`ImportProcessError`
  with one line saying so, never a hang.
- An exception the importer raises (``OnnxImportError``...) is raised again here, as it was.

``IMPORTERS`` maps a file suffix to the importer (``"module:function"``, a name the child can
import); another importer registers itself there. ``gc_paused()`` keeps Python's cycle
collector from stopping the whole program (for up to 400 ms with a 20,000-layer plan: each
full collection walks every object) while a large result is built in the background.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import multiprocessing
import os
import pickle
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from planner.core.network import PlanFileError
from planner.i18n import QT_TRANSLATE_NOOP, Msg

__all__ = ["IMPORTERS", "ChildImport", "ImportCancelled", "ImportProcessError", "gc_paused",
           "importer_for"]

# suffix (lower case, with the dot) → "module:function" of an importer f(path, **options)
IMPORTERS: dict[str, str] = {".onnx": "planner.core.importers.onnx:import_onnx"}
# The child's address space bound: a hostile file meets MemoryError (a clear message), not
# the machine's swap. Generous: a real import of a large graph stays far below it.
MEMORY_LIMIT_BYTES = 8 << 30
KILL_AFTER_S = 2.0  # after terminate(), how long before kill()


class ImportProcessError(PlanFileError):
    """The import process stopped without an answer (crashed, killed, out of memory)."""


class ImportCancelled(Exception):
    """``cancel()`` was called: the child was stopped."""


def importer_for(path: str | os.PathLike) -> str | None:
    """The importer registered for this file's suffix, or None (a plan file)."""
    return IMPORTERS.get(Path(path).suffix.lower())


def _resolve(target: str):
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def child_probe() -> int:
    """The child's process id: ``--self-test`` checks that an import process starts (in a
    frozen app too, where the launcher's ``freeze_support()`` must hand the child over)."""
    return os.getpid()


def _limit_memory(limit: int | None) -> None:
    if not limit:
        return
    try:
        import resource  # noqa: PLC0415 - Unix only
    except ImportError:
        return
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        if soft == resource.RLIM_INFINITY or soft > limit:
            resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError):
        pass


def _child_main(conn, target: str, args: tuple, kwargs: dict, memory_limit: int | None) -> None:
    """The child process: run the importer once, send back ("ok", value) or ("error", exc)."""
    _limit_memory(memory_limit)
    try:
        payload = ("ok", _resolve(target)(*args, **kwargs))
    except MemoryError:
        payload = ("error", ImportProcessError(Msg(QT_TRANSLATE_NOOP(
            "core", "the import ran out of memory"))))
    except BaseException as exc:  # noqa: BLE001 - handed to the parent as it was
        payload = ("error", exc)
    try:
        data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # noqa: BLE001 - an unpicklable error or result
        detail = payload[1] if payload[0] == "error" else exc
        data = pickle.dumps(("error", ImportProcessError(
            f"{type(detail).__name__}: {str(detail)[:300]}")))
    try:
        conn.send_bytes(data)
    finally:
        conn.close()


def _exit_text(code: int | None) -> Msg:
    if code is None:
        return Msg(QT_TRANSLATE_NOOP("core", "did not stop"))
    if code < 0:
        import signal  # noqa: PLC0415

        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        if -code == getattr(signal, "SIGKILL", 9):
            return Msg(QT_TRANSLATE_NOOP("core", "was killed ({signal}: out of memory?)"),
                       signal=name)
        return Msg(QT_TRANSLATE_NOOP("core", "crashed ({signal})"), signal=name)
    return Msg(QT_TRANSLATE_NOOP("core", "exited with status {code}"), code=code)


class ChildImport:
    """One import in a child process (see the module docstring). Not reusable."""

    def __init__(self, target: str, *args: Any, what: str = "", name: str = "planner-import",
                 memory_limit_bytes: int | None = MEMORY_LIMIT_BYTES, **kwargs: Any) -> None:
        self.target = target
        self.args, self.kwargs = args, kwargs
        self.what = what or (str(args[0]) if args else target)
        self.name = name
        self.memory_limit_bytes = memory_limit_bytes
        self._lock = threading.Lock()
        self._cancelled = False
        self.process = None  # the multiprocessing.Process once started

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def run(self) -> Any:
        """Start the child, wait for its answer, return the importer's value or raise."""
        ctx = multiprocessing.get_context("spawn")
        reader, writer = ctx.Pipe(duplex=False)
        try:
            with self._lock:
                if self._cancelled:
                    raise ImportCancelled()
                self.process = ctx.Process(
                    target=_child_main, name=self.name, daemon=True,
                    args=(writer, self.target, self.args, self.kwargs, self.memory_limit_bytes))
                self.process.start()
            writer.close()  # the child holds the other end: EOF when it dies
            try:
                data = reader.recv_bytes()  # waits without holding Python's lock
            except (EOFError, OSError):
                data = None
        finally:
            writer.close()
            reader.close()
        self._reap()
        if self._cancelled:
            raise ImportCancelled()
        if data is None:
            raise ImportProcessError(Msg(QT_TRANSLATE_NOOP(
                "core", "{what}: the import process {how} before it answered"),
                what=self.what, how=_exit_text(self.process.exitcode)))
        with gc_paused():
            status, value = pickle.loads(data)
        if status == "error":
            raise value
        return value

    def cancel(self) -> None:
        """Stop the child now (from any thread); ``run()`` then raises ImportCancelled."""
        with self._lock:
            self._cancelled = True
            process = self.process
        if process is not None and process.exitcode is None:
            with contextlib.suppress(OSError, ValueError, AttributeError):
                process.terminate()

    def _reap(self) -> None:
        process = self.process
        if process is None:
            return
        process.join(KILL_AFTER_S)
        if process.exitcode is None:  # ignored SIGTERM, or sent its answer and hangs
            with contextlib.suppress(OSError, ValueError, AttributeError):
                process.kill()
            process.join(KILL_AFTER_S)


_gc_lock = threading.Lock()
_gc_state = {"depth": 0, "enabled": True, "interval": 0.005}
WORKER_SWITCH_INTERVAL_S = 0.0005  # while a worker computes: hand Python's lock over often


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """No cycle collection while a large result is built (it would stop every thread, the
    window's included, for one walk over all objects), then ``gc.freeze()``: what exists now
    is left out of later walks, so the next collection does not pay for it either. Nests and
    may be used from several threads at once.

    Meanwhile Python's lock changes hands every 0.5 ms instead of 5 ms: the window's thread
    takes it back after each call into Qt, and while a worker computes (the allocator replay of
    a 20,000-layer plan) every such handover waited up to 5 ms; a repaint makes hundreds of
    them, which froze the window for 0.5 s."""
    with _gc_lock:
        if _gc_state["depth"] == 0:
            _gc_state["enabled"] = gc.isenabled()
            gc.disable()
            _gc_state["interval"] = sys.getswitchinterval()
            sys.setswitchinterval(WORKER_SWITCH_INTERVAL_S)
        _gc_state["depth"] += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_state["depth"] -= 1
            if _gc_state["depth"] == 0:
                sys.setswitchinterval(_gc_state["interval"])
                gc.freeze()
                if _gc_state["enabled"]:
                    gc.enable()
