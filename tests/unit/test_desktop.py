"""Per-user desktop integration (planner.desktop) and the shipped desktop files."""

from __future__ import annotations

import configparser
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from planner import app, desktop, paths

ROOT = Path(__file__).resolve().parents[2]
RESOURCES = ROOT / "resources"


@pytest.fixture
def xdg(tmp_path, monkeypatch):
    data = tmp_path / "share"
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return data


def read_entry(path: Path) -> dict[str, str]:
    parser = configparser.RawConfigParser(strict=True, interpolation=None)
    parser.optionxform = str  # keys are case-sensitive
    parser.read(path, encoding="utf-8")
    return dict(parser["Desktop Entry"])


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", path
    return struct.unpack(">II", head[16:24])


def test_install_writes_entry_icons_and_metainfo(xdg):
    written = desktop.install_desktop_entry(refresh=False)
    entry_path = xdg / "applications" / "gpu-planner.desktop"
    assert entry_path in written
    entry = read_entry(entry_path)
    assert entry["Type"] == "Application"
    assert entry["Name"] == "GPU Planner"
    assert entry["StartupWMClass"] == "gpu-planner"
    assert entry["Icon"] == "gpu-planner"
    assert entry["Terminal"] == "false"
    assert "TryExec" not in entry
    # Exec starts this installation: the launcher next to the interpreter or -m planner.
    assert entry["Exec"] == desktop.exec_line()
    assert str(Path(sys.executable).parent) in entry["Exec"]
    assert "RESOURCE_NAME=gpu-planner" in entry["Exec"] or \
        Path(desktop.launch_command()[0]).name == "gpu-planner"
    for size in desktop.ICON_SIZES:
        icon = xdg / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "gpu-planner.png"
        assert icon in written
        assert png_size(icon) == (size, size)
    svg = xdg / "icons" / "hicolor" / "scalable" / "apps" / "gpu-planner.svg"
    assert svg.read_bytes() == (RESOURCES / "icons" / "gpu-planner.svg").read_bytes()
    meta = xdg / "metainfo" / "io.github.gpu_planner.metainfo.xml"
    assert meta in written
    assert ET.parse(meta).getroot().findtext("id") == desktop.APP_ID
    assert sorted(written) == sorted(desktop.installed_paths())


def test_installed_entry_validates(xdg):
    tool = shutil.which("desktop-file-validate")
    desktop.install_desktop_entry(refresh=False)
    if tool is None:
        pytest.skip("desktop-file-validate is not installed (apt-get install desktop-file-utils)")
    result = subprocess.run([tool, str(desktop.desktop_file_path())], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "error" not in result.stdout.lower(), result.stdout


def test_install_is_idempotent_and_uninstall_removes_everything(xdg):
    first = desktop.install_desktop_entry(refresh=False)
    stamp = {p: p.stat().st_mtime_ns for p in first}
    second = desktop.install_desktop_entry(refresh=False)
    assert second == first
    assert {p: p.stat().st_mtime_ns for p in second} == stamp  # unchanged files not rewritten
    removed = desktop.uninstall_desktop_entry(refresh=False)
    assert sorted(removed) == sorted(first)
    assert not [p for p in first if p.exists()]
    assert desktop.uninstall_desktop_entry(refresh=False) == []


def test_install_refreshes_caches_when_tools_exist(xdg):
    desktop.install_desktop_entry(refresh=True)  # must not fail with or without the tools
    assert desktop.uninstall_desktop_entry(refresh=True)


def test_relative_xdg_data_home_is_ignored(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", "relative/share")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert desktop.data_home() == tmp_path / ".local" / "share"


def test_frozen_exec_is_the_bundle_executable(monkeypatch, tmp_path):
    exe = tmp_path / "my bundle" / "gpu-planner"
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(exe))
    assert desktop.launch_command() == [str(exe.resolve())]
    # Named gpu-planner: the X11 WM_CLASS instance matches without RESOURCE_NAME.
    assert desktop.exec_line() == '"' + str(exe.resolve()) + '"'


def test_exec_quoting_follows_the_desktop_entry_spec():
    assert desktop.exec_line(["/opt/gpu-planner/gpu-planner"]) == "/opt/gpu-planner/gpu-planner"
    assert desktop.exec_line(["/usr/bin/python3", "-m", "planner"]) == \
        "env RESOURCE_NAME=gpu-planner /usr/bin/python3 -m planner"
    # A reserved character quotes the argument; inside quotes $ is escaped, then the string
    # value escapes the backslash again; % is doubled.
    assert desktop.exec_line(["/a b/gpu-planner"]) == '"/a b/gpu-planner"'
    assert desktop.exec_line(["/x$y/gpu-planner"]) == '"/x\\\\$y/gpu-planner"'
    assert desktop.exec_line(["/50%/gpu-planner"]) == '"/50%%/gpu-planner"'


def test_cli_flags_install_and_uninstall(xdg, capsys):
    assert app.main(["--install-desktop-entry"]) == 0
    out = capsys.readouterr().out
    assert "gpu-planner.desktop" in out
    assert desktop.desktop_file_path().is_file()
    assert app.main(["--uninstall-desktop-entry"]) == 0
    assert "gpu-planner.desktop" in capsys.readouterr().out
    assert not desktop.desktop_file_path().exists()
    assert app.main(["--uninstall-desktop-entry"]) == 0
    assert "No GPU Planner menu entry" in capsys.readouterr().out


def test_cli_flag_error_is_one_line_and_exit_1(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("XDG_DATA_HOME", str(blocker))
    assert app.main(["--install-desktop-entry"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("gpu-planner: ") and err.count("\n") == 1
    assert app.main(["--install-desktop-entry", "extra"]) == 1


def test_desktop_flags_do_not_start_qt(tmp_path):
    code = ("import sys, planner.app\n"
            "rc = planner.app.main(['--install-desktop-entry'])\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph')]\n"
            "print(rc, bad)\n")
    env = {"XDG_DATA_HOME": str(tmp_path / "share"), "HOME": str(tmp_path),
           "PATH": "/usr/bin:/bin", "PLANNER_HOME": str(tmp_path / "ph")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "0 []"


# ---- the shipped files -----------------------------------------------------------------------

def test_shipped_desktop_file_is_valid():
    path = RESOURCES / "gpu-planner.desktop"
    entry = read_entry(path)
    assert entry["StartupWMClass"] == "gpu-planner" == desktop.DESKTOP_ID
    assert entry["Icon"] == "gpu-planner" and entry["Exec"] == "gpu-planner"
    assert paths.resource_path("gpu-planner.desktop").is_file()
    tool = shutil.which("desktop-file-validate")
    if tool is None:
        pytest.skip("desktop-file-validate is not installed")
    result = subprocess.run([tool, str(path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


def test_metainfo_parses_and_validates():
    path = RESOURCES / "io.github.gpu_planner.metainfo.xml"
    root = ET.parse(path).getroot()
    assert root.tag == "component" and root.get("type") == "desktop-application"
    assert root.findtext("id") == desktop.APP_ID
    assert root.findtext("launchable") == "gpu-planner.desktop"
    assert root.findtext("icon") == "gpu-planner"
    assert root.find("releases/release").get("version")
    tool = shutil.which("appstreamcli")
    if tool is None:
        pytest.skip("appstreamcli is not installed")
    result = subprocess.run([tool, "validate", "--no-net", str(path)], capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


def test_app_sets_the_desktop_file_name_the_entry_uses():
    source = (ROOT / "planner" / "ui" / "bootstrap.py").read_text(encoding="utf-8")
    assert f'setDesktopFileName("{desktop.DESKTOP_ID}")' in source


def test_generated_icons_are_complete():
    """resources/icons/: hicolor PNGs, .ico and .icns (packaging/make_icons.py writes them)."""
    icons = RESOURCES / "icons"
    for size in desktop.ICON_SIZES:
        assert png_size(icons / f"gpu-planner-{size}.png") == (size, size)
    ico = (icons / "gpu-planner.ico").read_bytes()
    reserved, kind, count = struct.unpack("<HHH", ico[:6])
    assert (reserved, kind) == (0, 1) and count >= 5
    dims = {ico[6 + 16 * i] or 256 for i in range(count)}
    assert {16, 32, 48, 256} <= dims
    icns = (icons / "gpu-planner.icns").read_bytes()
    assert icns[:4] == b"icns" and struct.unpack(">I", icns[4:8])[0] == len(icns)
    kinds, pos = set(), 8
    while pos < len(icns):
        kinds.add(icns[pos:pos + 4])
        pos += struct.unpack(">I", icns[pos + 4:pos + 8])[0]
    assert {b"ic07", b"ic08", b"ic09", b"ic10"} <= kinds
