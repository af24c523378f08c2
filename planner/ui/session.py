"""The window session: every piece of UI state kept between starts, in one typed place.

The user's preferences (theme, language, units, defaults) are ``planner.settings.Settings`` in
``settings.json``. What the window remembers by itself — its size, splitters and tab, the memory
a plan is checked against, the estimate's assumptions, the several-GPU setup, the cluster
connection, recent files and the last folder — is this ``WindowSession``, kept in
``gpu-planner.ini`` through QSettings (Qt's own format for window geometry). Each entry is
declared once below with its key and its default; a value that cannot be read (an older
version, a hand edit) gives the default and never stops the window.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

from planner import paths
from planner.core.memory import Assumptions
from planner.core.parallel import Parallel

log = logging.getLogger("planner.ui")

MAX_RECENT = 10

# key, and what an absent or unreadable value means
GEOMETRY = "window/geometry"
STATE = "window/state"
TAB = "window/tab"
RESULT_TAB = "window/result_tab"  # the Planner's own tab (chart, tables, fit, several GPUs)
SPLITTER = "layout/{pane}/splitter{index}"
MEMORY_GIB = "planner/memory_gib"
ASSUMPTIONS = "planner/assumptions"
PARALLEL = "planner/parallel"
CLUSTER = "monitor/cluster"
RECENT = "recent/files"
LAST_FOLDER = "files/last_folder"

DEFAULT_MEMORY_GIB = 24.0


def open_ini(path: Path | None) -> QSettings:
    """The ini file: ``path``, or ``gpu-planner.ini`` in the config folder (PLANNER_HOME)."""
    path = path or (paths.config_dir() / "gpu-planner.ini")
    return QSettings(str(path), QSettings.Format.IniFormat)


def _json(raw):
    try:
        return json.loads(str(raw)) if raw else None
    except ValueError:
        return None


class WindowSession:
    """Typed access to the window's remembered state (see the module's docstring)."""

    def __init__(self, store: QSettings):
        self.store = store

    # ---- window layout ---------------------------------------------------------------------
    def geometry(self) -> QByteArray | None:
        value = self.store.value(GEOMETRY)
        return value if isinstance(value, QByteArray) else None

    def window_state(self) -> QByteArray | None:
        value = self.store.value(STATE)
        return value if isinstance(value, QByteArray) else None

    def tab(self) -> int:
        try:
            return int(self.store.value(TAB, 0))
        except (TypeError, ValueError):
            return 0

    def result_tab(self) -> int:
        try:
            return int(self.store.value(RESULT_TAB, 0))
        except (TypeError, ValueError):
            return 0

    def save_window(self, geometry: QByteArray, state: QByteArray, tab: int,
                    result_tab: int = 0) -> None:
        self.store.setValue(GEOMETRY, geometry)
        self.store.setValue(STATE, state)
        self.store.setValue(TAB, int(tab))
        self.store.setValue(RESULT_TAB, int(result_tab))

    def splitter(self, pane: str, index: int) -> QByteArray | None:
        value = self.store.value(SPLITTER.format(pane=pane, index=index))
        return value if isinstance(value, QByteArray) else None

    def set_splitter(self, pane: str, index: int, state: QByteArray) -> None:
        self.store.setValue(SPLITTER.format(pane=pane, index=index), state)

    # ---- the plan's surroundings -----------------------------------------------------------
    def memory_gib(self) -> float:
        try:
            value = float(self.store.value(MEMORY_GIB, DEFAULT_MEMORY_GIB))
        except (TypeError, ValueError):
            return DEFAULT_MEMORY_GIB
        return value if value == value and value > 0 else DEFAULT_MEMORY_GIB

    def set_memory_gib(self, gib: float) -> None:
        self.store.setValue(MEMORY_GIB, float(gib))

    def assumptions(self) -> Assumptions:
        raw = _json(self.store.value(ASSUMPTIONS))
        if raw is not None:
            try:
                return Assumptions.from_json(raw)
            except (ValueError, TypeError):
                log.warning("ignoring unreadable saved assumptions")
        return Assumptions()

    def set_assumptions(self, assumptions: Assumptions) -> None:
        self.store.setValue(ASSUMPTIONS, json.dumps(assumptions.to_json()))

    def parallel(self) -> Parallel:
        raw = _json(self.store.value(PARALLEL))
        if raw is not None:
            try:
                return Parallel(int(raw["gpus"]), int(raw["nodes"]), str(raw["strategy"]))
            except (ValueError, TypeError, KeyError):
                log.warning("ignoring unreadable saved multi-GPU setting")
        return Parallel()

    def set_parallel(self, par: Parallel) -> None:
        self.store.setValue(PARALLEL, json.dumps(parallel_json(par)))

    def cluster(self) -> dict:
        value = _json(self.store.value(CLUSTER))
        return value if isinstance(value, dict) else {}

    def set_cluster(self, settings: dict) -> None:
        # The token is in it only when the user ticked "remember token".
        self.store.setValue(CLUSTER, json.dumps(settings))

    # ---- files -----------------------------------------------------------------------------
    def recent_files(self) -> list[str]:
        value = self.store.value(RECENT, [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or []) if v]

    def add_recent(self, path: Path) -> None:
        p = str(Path(path).resolve())
        files = [f for f in self.recent_files() if f != p]
        self.store.setValue(RECENT, ([p] + files)[:MAX_RECENT])

    def clear_recent(self) -> None:
        self.store.setValue(RECENT, [])

    def last_folder(self) -> str | None:
        kept = self.store.value(LAST_FOLDER)
        if isinstance(kept, str) and kept and Path(kept).is_dir():
            return kept
        return None

    def set_last_folder(self, folder: Path) -> None:
        self.store.setValue(LAST_FOLDER, str(folder))

    def sync(self) -> None:
        self.store.sync()


def parallel_json(par: Parallel) -> dict:
    """A several-GPU setup as plan files and the session keep it."""
    return {"gpus": par.gpus, "nodes": par.nodes, "strategy": par.strategy}
