"""The services a window is built with: injected, never looked up (no singletons).

Qt-free on purpose: the main window turns these into Qt objects when it is built. Tests pass their
own (a private settings file, scripted prompts, a simulated telemetry source, a catalog); the app
passes the defaults.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from planner.core.memory import Assumptions


class Prompts(Protocol):
    """Every question the window asks the user. The app uses message boxes and file dialogs;
    tests script the answers so that no modal dialog ever blocks.

    Optional (looked up with ``getattr``; a prompts object without them is simply not told):
    ``notify(title, text)`` — a non-modal notice (ONNX import warnings, a settings notice);
    ``welcome(text)`` — the first-run welcome.
    """

    def restore_autosave(self, path: Path) -> bool: ...

    def save_changes(self, plan_name: str) -> str: ...  # "save" | "discard" | "cancel"

    def open_path(self, folder: str) -> str | None: ...

    def save_path(self, suggested: str) -> str | None: ...

    def error(self, title: str, text: str) -> None: ...


def default_catalog_loader():
    """The shipped catalog with the user's overrides merged (``planner.core.catalog``)."""
    from planner.core.catalog import load_catalog  # noqa: PLC0415

    return load_catalog()


def default_telemetry_factory():
    """This computer's NVIDIA cards through NVML. Called in the sampling thread: when there is
    no library or driver, NvmlBackend raises ``BackendUnavailable`` and the Monitor pane shows
    its banner (with the "Try the simulated demo" button)."""
    from planner.telemetry.nvml import NvmlBackend  # noqa: PLC0415

    return NvmlBackend()


def demo_telemetry_factory():
    """The simulated source (``gpu-planner --demo``): two cards a minute into a training job."""
    from planner.telemetry.simulated import SimulatedBackend  # noqa: PLC0415

    return SimulatedBackend(n_devices=2, seed=0, time_offset_s=60.0)


@dataclass(frozen=True)
class Services:
    """What a main window needs from outside.

    * ``assumptions``: the estimate's assumptions to start with; ``None`` = the ones the user
      saved last time (settings), else the defaults.
    * ``settings_path``: the ini file for window layout, recent files and the session's
      multi-GPU setting; ``None`` = ``gpu-planner.ini`` in ``planner.paths.config_dir()``
      (under PLANNER_HOME when that is set).
    * ``preferences``: a ``planner.settings.Settings`` to start with instead of reading
      ``preferences_path`` (``None`` = ``planner.settings.load_settings``).
    * ``preferences_path``: the readable settings.json; ``None`` = its default place.
    * ``catalog``: the GPU catalog to start with; ``None`` = ``catalog_loader()``.
    * ``catalog_loader``: how the catalog is (re)loaded with the user's overrides (the Catalog
      pane reloads it after an edit); ``None`` = ``planner.core.catalog.load_catalog``.
    * ``telemetry_factory``: a zero-argument callable building a telemetry backend, called in
      the sampling thread; ``None`` = NVML (``demo_telemetry_factory`` when ``demo``).
    * ``demo``: start the Monitor on the simulated source (``gpu-planner --demo``); its cards
      then also count as the user's own.
    * ``record_telemetry``: record monitor sessions to the recordings folder.
    * ``prompts``: the questions asked of the user (see ``Prompts``); ``None`` = dialogs.
    * ``dialog_runner``: runs a dialog (Preferences…) and returns True when it was accepted;
      ``None`` = ``dialog.exec()``. Tests fill the dialog in and accept it.
    * ``start_preset``: the preset a new window opens on.
    * ``autosave_delay_ms``: how long after the last edit the autosave is written.
    * ``welcome_timeout_ms``: how long the first-run welcome waits for the monitor to say
      what it found.
    """

    assumptions: Assumptions | None = None
    settings_path: Path | None = None
    preferences: Any = None
    preferences_path: Path | None = None
    catalog: Any = None
    catalog_loader: Callable[[], Any] | None = None
    prompts: Prompts | None = None
    dialog_runner: Callable[[Any], bool] | None = None
    start_preset: str = "resnet50"
    autosave_delay_ms: int = 1000
    telemetry_factory: Callable[[], Any] | None = None
    demo: bool = False
    record_telemetry: bool = True
    welcome_timeout_ms: int = 4000

    def load_catalog(self):
        return (self.catalog_loader or default_catalog_loader)()

    def backend_factory(self) -> Callable[[], Any]:
        if self.telemetry_factory is not None:
            return self.telemetry_factory
        return demo_telemetry_factory if self.demo else default_telemetry_factory
