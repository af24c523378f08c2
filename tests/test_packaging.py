"""The Linux bundle: PyInstaller builds it from packaging/gpu-planner.spec, and it runs.

Slow (a PyInstaller build of PySide6, about a minute) but part of the default run and of CI:
it is the only test of the frozen program. Skipped only when PyInstaller is not installed
(``pip install -e ".[test]"`` installs it).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGING = ROOT / "packaging"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="builds the Linux bundle"),
]


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


smoke = _load("gpu_planner_smoke", PACKAGING / "smoke.py")


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    if importlib.util.find_spec("PyInstaller") is None:
        pytest.skip('PyInstaller is not installed (pip install -e ".[test]" installs it)')
    tmp = tmp_path_factory.mktemp("pyinstaller")
    env = dict(os.environ, PYINSTALLER_CONFIG_DIR=str(tmp / "config"))
    cmd = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--clean", "--log-level", "WARN",
           "--distpath", str(tmp / "dist"), "--workpath", str(tmp / "work"),
           str(PACKAGING / "gpu-planner.spec")]
    result = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-8000:]
    return tmp / "dist" / "gpu-planner"


def test_bundle_holds_catalog_presets_and_icons(bundle):
    base = smoke.internal_dir(bundle)
    assert (base / "planner" / "data" / "gpus.json").is_file()
    assert (base / "planner" / "data" / "prices.csv").is_file()
    assert (base / "planner" / "resources" / "i18n" / "gpu_planner_zh_CN.qm").is_file()
    shipped = {p.name for p in (ROOT / "data" / "presets").glob("*.json")}
    bundled = {p.name for p in (base / "planner" / "data" / "presets").glob("*.json")}
    assert shipped and shipped <= bundled
    assert (base / "planner" / "resources" / "icons" / "gpu-planner.svg").is_file()
    assert (base / "planner" / "resources" / "gpu-planner.desktop").is_file()
    assert smoke.check_contents(bundle) == []


def test_bundle_never_contains_libnvidia_ml(bundle):
    assert smoke.nvml_files(bundle) == []
    names = [p.name.lower() for p in bundle.rglob("*")]
    assert not [n for n in names if "nvidia-ml" in n or n == "nvml.dll"]


def test_bundle_leaves_out_other_bindings_and_unused_qt(bundle):
    base = smoke.internal_dir(bundle)
    for other in ("PyQt5", "PyQt6", "PySide2"):
        assert not (base / other).exists(), other
    for unused in ("QtWebEngineCore", "QtQml", "QtQuick", "QtNetwork", "QtMultimedia", "Qt3DCore",
                   "QtSql"):
        assert not list((base / "PySide6").glob(f"{unused}.*")), unused
        assert not list(bundle.rglob(f"lib{unused.replace('Qt', 'Qt6', 1)}.so*")), unused
    assert not list(bundle.rglob("libqgtk3.so")), "the GTK platform theme drags in GTK"


def test_bundle_self_test_passes_offscreen(bundle, tmp_path):
    exe = bundle / "gpu-planner"
    assert exe.is_file() and os.access(exe, os.X_OK)
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=str(home),
               PLANNER_HOME=str(tmp_path / "planner-home"),
               XDG_CONFIG_HOME=str(home / ".config"), XDG_DATA_HOME=str(home / ".local/share"))
    result = subprocess.run([str(exe), "--self-test"], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=180)
    out = result.stdout + result.stderr
    assert result.returncode == 0, out
    assert "self-test OK" in out, out
    assert not (tmp_path / "planner-home").exists(), "the self-test wrote to PLANNER_HOME"


def test_bundle_cli_and_desktop_entry(bundle, tmp_path):
    """The frozen program also answers the CLI and installs a menu entry pointing at itself."""
    exe = bundle / "gpu-planner"
    data = tmp_path / "share"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=str(tmp_path),
               PLANNER_HOME=str(tmp_path / "ph"), XDG_DATA_HOME=str(data))
    presets = subprocess.run([str(exe), "presets"], env=env, capture_output=True, text=True,
                             timeout=120)
    assert presets.returncode == 0, presets.stderr
    assert "resnet50" in presets.stdout
    install = subprocess.run([str(exe), "--install-desktop-entry"], env=env,
                             capture_output=True, text=True, timeout=120)
    assert install.returncode == 0, install.stderr
    entry = (data / "applications" / "gpu-planner.desktop").read_text(encoding="utf-8")
    assert f"Exec={exe.resolve()}\n" in entry
    assert (data / "icons" / "hicolor" / "256x256" / "apps" / "gpu-planner.png").is_file()
    remove = subprocess.run([str(exe), "--uninstall-desktop-entry"], env=env,
                            capture_output=True, text=True, timeout=120)
    assert remove.returncode == 0, remove.stderr
    assert not (data / "applications" / "gpu-planner.desktop").exists()

