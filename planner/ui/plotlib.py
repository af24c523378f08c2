"""pyqtgraph, which the window's first picture does without (the Planner's charts and every other
plot are built after it): its options set before it is imported, and its import in steps.

Importing pyqtgraph costs about as much as importing PySide6 itself, most of it in making every
class of QtCore, QtGui and QtWidgets (PySide6 makes each class on first use; pyqtgraph touches
them all), the rest in its own hundred-odd modules. ``import_steps()`` spreads that over turns of
the event loop after the first paint: the Qt classes a slice at a time, the standard-library and
Qt modules pyqtgraph uses one by one, then pyqtgraph's own modules on a daemon thread (plain
Python: class definitions and a few value types such as QColor, no QObject), so that no single
step holds the GUI thread for long. Anything that needs pyqtgraph sooner simply imports it, as
before (if the thread is importing it, that import waits for it to finish).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import threading
from collections.abc import Callable

_options: dict[str, object] = {}


def set_options(**options) -> None:
    """pyqtgraph's config options (``pg.setConfigOptions``): now if it is imported, otherwise the
    moment it is (plots made after that pick them up, as before)."""
    _options.update(options)
    pg = sys.modules.get("pyqtgraph")
    if pg is not None and hasattr(pg, "setConfigOptions"):
        pg.setConfigOptions(**options)
    elif not any(isinstance(f, _ThenSetOptions) for f in sys.meta_path):
        sys.meta_path.insert(0, _ThenSetOptions())


class _ThenSetOptions(importlib.abc.MetaPathFinder):
    """Finds nothing itself: for ``pyqtgraph`` it hands out the ordinary spec with a loader that
    sets ``_options`` once the package has run (then leaves ``sys.meta_path``)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "pyqtgraph":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None:
            spec.loader = _Loader(spec.loader)
        return spec


class _Loader(importlib.abc.Loader):
    def __init__(self, inner) -> None:
        self._inner = inner

    def __getattr__(self, name):  # get_resource_reader, is_package, …: the ordinary loader's
        return getattr(self._inner, name)

    def create_module(self, spec):
        return self._inner.create_module(spec)

    def exec_module(self, module) -> None:
        self._inner.exec_module(module)
        if _options:
            module.setConfigOptions(**_options)


# What pyqtgraph imports besides PySide6's three modules and numpy (the window has those):
# imported one a turn before its own modules, so that the thread does not hold the import lock
# of a module the GUI thread may want meanwhile. A module missing here is imported by the thread.
_DEPENDENCIES = (
    "PySide6.QtSvg", "PySide6.QtOpenGL", "PySide6.QtOpenGLWidgets", "PySide6.QtTest",
    "importlib.resources", "copy", "decimal", "locale", "signal", "subprocess", "socket",
    "selectors", "multiprocessing", "multiprocessing.connection", "mmap", "xml.etree.ElementTree",
    "pydoc", "cProfile", "sysconfig", "numpy.typing",
)
_CLASSES_PER_STEP = 25


def import_steps() -> list[Callable[[], object]]:
    """The steps that import pyqtgraph (none if it is imported), each to be called on its own
    turn of the event loop; the last one starts the thread (``importing()`` says while it is
    at it)."""
    if "pyqtgraph" in sys.modules:
        return []
    from PySide6 import QtCore, QtGui, QtWidgets  # noqa: PLC0415

    steps: list[Callable[[], object]] = []
    for module in (QtCore, QtGui, QtWidgets):
        names = [n for n in dir(module) if n.startswith("Q")]
        for i in range(0, len(names), _CLASSES_PER_STEP):
            steps.append(_touch(module, names[i:i + _CLASSES_PER_STEP]))
    steps.extend(import_step(name) for name in _DEPENDENCIES)
    steps.append(start_import_thread)
    return steps


def _touch(module, names: list[str]) -> Callable[[], None]:
    def step() -> None:
        for name in names:
            getattr(module, name, None)
    return step


def import_step(name: str) -> Callable[[], None]:
    """A step that imports module ``name`` (if it is not imported yet; an ImportError is left
    to whatever imports it next)."""
    def step() -> None:
        if name not in sys.modules:
            try:
                importlib.import_module(name)
            except ImportError:
                pass  # pyqtgraph copes without it, or its own import says what is missing
    return step


_thread: threading.Thread | None = None


def start_import_thread() -> threading.Thread | None:
    """Import pyqtgraph on a daemon thread (once); the thread, or None if it is imported."""
    global _thread
    if "pyqtgraph" in sys.modules and _thread is None:
        return None
    if _thread is None:
        _thread = threading.Thread(target=_import_pyqtgraph, name="planner-import-pyqtgraph",
                                   daemon=True)
        _thread.start()
    return _thread


def _import_pyqtgraph() -> None:
    try:
        pg = importlib.import_module("pyqtgraph")
    except Exception:  # noqa: BLE001 - the GUI thread's own import reports it
        return
    if _options:  # set while the import was under way
        pg.setConfigOptions(**_options)


def importing() -> bool:
    """Whether the thread is still importing pyqtgraph."""
    return _thread is not None and _thread.is_alive()
