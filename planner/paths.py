"""Every user path and every shipped resource, in one place.

User folders come from platformdirs. ``PLANNER_HOME`` (an environment variable) puts all of
them under one folder instead: tests use it so they never touch the real configuration.
Shipped files (``data/``, ``resources/``) are found inside the installed package
(``planner/data``) or, when running from a source checkout, at the top of the tree.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP_NAME = "gpu-planner"
APP_AUTHOR = "gpu-planner"


def _home_override() -> Path | None:
    home = os.environ.get("PLANNER_HOME")
    return Path(home) if home else None


def _user_dir(kind: str) -> Path:
    home = _home_override()
    if home is not None:
        path = home / kind
    else:
        import platformdirs

        getter = {
            "config": platformdirs.user_config_dir,
            "data": platformdirs.user_data_dir,
            "cache": platformdirs.user_cache_dir,
            "log": platformdirs.user_log_dir,
        }[kind]
        path = Path(getter(APP_NAME, APP_AUTHOR))
    return path


def config_dir(create: bool = True) -> Path:
    """Settings (a readable JSON file) and user overrides that are configuration."""
    return _ensure(_user_dir("config"), create)


def data_dir(create: bool = True) -> Path:
    """Recordings, the catalog overrides, autosaves."""
    return _ensure(_user_dir("data"), create)


def cache_dir(create: bool = True) -> Path:
    return _ensure(_user_dir("cache"), create)


def log_dir(create: bool = True) -> Path:
    return _ensure(_user_dir("log"), create)


def autosave_path() -> Path:
    return data_dir() / "autosave.plan.json"


def user_prices_path() -> Path:
    """The user's own price observations (imported CSVs), in the price-list columns. Not
    created by asking: reading a missing file is "no prices of yours" (writing makes the
    folder)."""
    return data_dir(create=False) / "prices-yours.csv"


def recordings_dir(create: bool = True) -> Path:
    return _ensure(data_dir(create) / "recordings", create)


def _ensure(path: Path, create: bool) -> Path:
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path


def _package_root() -> Path:
    return Path(__file__).resolve().parent


def _resource_root(name: str) -> Path:
    """``data`` or ``resources``: inside the package when installed, else the source tree."""
    frozen_base = getattr(sys, "_MEIPASS", None)
    candidates = []
    if frozen_base:
        candidates.append(Path(frozen_base) / "planner" / name)
    candidates.append(_package_root() / name)
    candidates.append(_package_root().parent / name)
    for c in candidates:
        if c.is_dir():
            return c
    return candidates[-1]


def data_path(*parts: str) -> Path:
    """A file shipped in ``data/`` (the GPU catalog, the preset networks)."""
    return _resource_root("data").joinpath(*parts)


def resource_path(*parts: str) -> Path:
    """A file shipped in ``resources/`` (icons, translations, desktop entry)."""
    return _resource_root("resources").joinpath(*parts)
