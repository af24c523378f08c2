"""The services a window is built with: injected, never looked up (no singletons).

Qt-free on purpose: the main window turns these into Qt objects when it is built. Tests pass their
own (a private settings file, scripted prompts); the app passes the defaults.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from planner.core.memory import Assumptions


class Prompts(Protocol):
    """Every question the window asks the user. The app uses message boxes and file dialogs;
    tests script the answers so that no modal dialog ever blocks."""

    def restore_autosave(self, path: Path) -> bool: ...

    def save_changes(self, plan_name: str) -> str: ...  # "save" | "discard" | "cancel"

    def open_path(self, folder: str) -> str | None: ...

    def save_path(self, suggested: str) -> str | None: ...

    def error(self, title: str, text: str) -> None: ...


@dataclass(frozen=True)
class Services:
    """What a main window needs from outside.

    * ``assumptions``: the estimate's assumptions to start with; ``None`` = the ones the user
      saved last time (settings), else the defaults.
    * ``settings_path``: the ini file for window geometry, recent files and preferences;
      ``None`` = ``gpu-planner.ini`` in ``planner.paths.config_dir()`` (under PLANNER_HOME when
      that is set).
    * ``catalog``: the GPU catalog, when a pane needs one (optional for now).
    * ``prompts``: the questions asked of the user (see ``Prompts``); ``None`` = dialogs.
    * ``start_preset``: the preset a new window opens on.
    * ``autosave_delay_ms``: how long after the last edit the autosave is written.
    * ``telemetry_factory``: reserved for the Monitor pane (a callable building a backend).
    """

    assumptions: Assumptions | None = None
    settings_path: Path | None = None
    catalog: Any = None
    prompts: Prompts | None = None
    start_preset: str = "resnet50"
    autosave_delay_ms: int = 1000
    telemetry_factory: Callable[[], Any] | None = None
