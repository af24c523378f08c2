"""Per-user Linux desktop integration: the menu entry, the icons and the AppStream metadata.

``install_desktop_entry()`` writes into the XDG folders of the current user
(``$XDG_DATA_HOME``, default ``~/.local/share``)::

    applications/gpu-planner.desktop
    icons/hicolor/<N>x<N>/apps/gpu-planner.png   (16 … 512)
    icons/hicolor/scalable/apps/gpu-planner.svg
    metainfo/io.github.gpu_planner.metainfo.xml

with ``Exec`` pointing at the program that is running now: the frozen executable of a
PyInstaller bundle, else the ``gpu-planner`` launcher next to this interpreter, else
``<python> -m planner``. ``uninstall_desktop_entry()`` removes exactly those files. Both are
idempotent, return the paths they wrote or removed, and refresh the desktop and icon caches
when the tools for that exist. Qt-free (the CLI calls this without starting Qt).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from planner import paths

DESKTOP_ID = "gpu-planner"  # = QGuiApplication.desktopFileName() (bootstrap.make_app)
APP_ID = "io.github.gpu_planner"  # AppStream component id
ICON_NAME = "gpu-planner"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


class DesktopEntryError(RuntimeError):
    """The entry cannot be installed (a shipped file is missing, a folder is not writable)."""


def data_home() -> Path:
    value = os.environ.get("XDG_DATA_HOME", "").strip()
    # The XDG spec says a relative path is invalid and must be ignored.
    if value and os.path.isabs(value):
        return Path(value)
    return Path.home() / ".local" / "share"


def desktop_file_path() -> Path:
    return data_home() / "applications" / f"{DESKTOP_ID}.desktop"


def metainfo_path() -> Path:
    return data_home() / "metainfo" / f"{APP_ID}.metainfo.xml"


def icon_paths() -> dict[str, Path]:
    """Icon theme destination for each size (``"48"``, …, ``"scalable"``)."""
    hicolor = data_home() / "icons" / "hicolor"
    out = {str(s): hicolor / f"{s}x{s}" / "apps" / f"{ICON_NAME}.png" for s in ICON_SIZES}
    out["scalable"] = hicolor / "scalable" / "apps" / f"{ICON_NAME}.svg"
    return out


def installed_paths() -> list[Path]:
    """Every file ``install_desktop_entry`` writes."""
    return [desktop_file_path(), *icon_paths().values(), metainfo_path()]


def launch_command() -> list[str]:
    """The command line that starts this installation's window."""
    if getattr(sys, "frozen", False):
        return [str(Path(sys.executable).resolve())]
    bindir = Path(sys.executable).parent
    for name in ("gpu-planner-gui", "gpu-planner"):
        launcher = bindir / name
        if launcher.is_file() and os.access(launcher, os.X_OK):
            return [str(launcher)]
    return [str(Path(sys.executable)), "-m", "planner"]


def _exec_quote(arg: str) -> str:
    """Quote one argument for a desktop entry's Exec key (the spec's rules, then escaping)."""
    if arg and not any(c in arg for c in " \t\n\"'\\><~|&;$*?#()`%"):
        return arg
    inner = arg.replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`").replace("$", "\\$")
    quoted = f'"{inner}"'
    # The value itself is a string value: backslashes are escaped again; % is doubled.
    return quoted.replace("\\", "\\\\").replace("%", "%%")


def exec_line(command: list[str] | None = None) -> str:
    """The Exec value. X11 takes the WM_CLASS instance from the program's file name; a launcher
    not called ``gpu-planner`` gets ``RESOURCE_NAME`` so the window still matches
    ``StartupWMClass`` (Wayland uses the desktop file name, which the app sets)."""
    command = list(command or launch_command())
    if Path(command[0]).name != DESKTOP_ID:
        command = ["env", f"RESOURCE_NAME={DESKTOP_ID}", *command]
    return " ".join(_exec_quote(a) for a in command)


def desktop_entry_text(command: list[str] | None = None) -> str:
    """The shipped ``gpu-planner.desktop`` with Exec set to this installation."""
    template = paths.resource_path(f"{DESKTOP_ID}.desktop")
    try:
        lines = template.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise DesktopEntryError(f"cannot read {template}: {exc.strerror or exc}") from exc
    out = []
    for line in lines:
        if line.startswith("TryExec="):
            continue  # the absolute Exec is checked by the menu itself
        if line.startswith("Exec="):
            line = "Exec=" + exec_line(command)
        out.append(line)
    return "\n".join(out) + "\n"


def _sources() -> dict[Path, Path | str]:
    """Destination → shipped file (or text) for everything to install."""
    files: dict[Path, Path | str] = {desktop_file_path(): desktop_entry_text()}
    for size, dest in icon_paths().items():
        name = f"{ICON_NAME}.svg" if size == "scalable" else f"{ICON_NAME}-{size}.png"
        files[dest] = paths.resource_path("icons", name)
    files[metainfo_path()] = paths.resource_path(f"{APP_ID}.metainfo.xml")
    for src in files.values():
        if isinstance(src, Path) and not src.is_file():
            raise DesktopEntryError(f"missing shipped file {src}")
    return files


def _write_if_changed(dest: Path, data: bytes) -> None:
    if dest.is_file() and dest.read_bytes() == data:
        return
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, dest)


def install_desktop_entry(refresh: bool = True) -> list[Path]:
    """Install the menu entry, icons and metadata for this user; the paths written."""
    written = []
    try:
        for dest, src in _sources().items():
            data = src.encode("utf-8") if isinstance(src, str) else src.read_bytes()
            _write_if_changed(dest, data)
            if dest == desktop_file_path():
                dest.chmod(0o755)  # some desktops only trust executable launchers
            written.append(dest)
    except OSError as exc:
        where = getattr(exc, "filename", None) or data_home()
        raise DesktopEntryError(f"cannot write {where}: {exc.strerror or exc}") from exc
    if refresh:
        refresh_caches()
    return written


def uninstall_desktop_entry(refresh: bool = True) -> list[Path]:
    """Remove what ``install_desktop_entry`` wrote; the paths that were removed."""
    removed = []
    for path in installed_paths():
        try:
            path.unlink()
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise DesktopEntryError(f"cannot remove {path}: {exc.strerror or exc}") from exc
        removed.append(path)
    if refresh and removed:
        refresh_caches()
    return removed


def refresh_caches() -> list[str]:
    """Run update-desktop-database / gtk-update-icon-cache when present; the tools run."""
    base = data_home()
    jobs = [
        ("update-desktop-database", ["-q", str(base / "applications")]),
        ("gtk-update-icon-cache", ["-q", "-t", "-f", str(base / "icons" / "hicolor")]),
    ]
    ran = []
    for tool, args in jobs:
        exe = shutil.which(tool)
        target = Path(args[-1])
        if exe is None or not target.is_dir():
            continue
        try:
            subprocess.run([exe, *args], check=False, timeout=30,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError):
            continue
        ran.append(tool)
    return ran


def describe(command: list[str] | None = None) -> str:
    """The Exec command in shell form (for messages)."""
    return shlex.join(command or launch_command())
