"""Check a built bundle and run its ``--self-test``.

    python packaging/smoke.py [build/dist/gpu-planner]

Checks that the bundle holds the GPU catalog, the preset networks and the icons (as
``planner/data`` and ``planner/resources``, where planner.paths looks under sys._MEIPASS), that
no NVIDIA management library (libnvidia-ml*, nvml.dll) was bundled, then runs the executable's
``--self-test`` offscreen with a throw-away HOME and PLANNER_HOME, and prints the bundle's size.
Exit 0 when all is well. Standard library only (build.py and tests/test_packaging.py use it).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAME = "gpu-planner"
APP_BUNDLE = "GPU Planner.app"


class BundleError(RuntimeError):
    pass


def executable(bundle: Path) -> Path:
    """The program inside a one-folder bundle (``build/dist/gpu-planner``) or a macOS .app."""
    bundle = Path(bundle)
    candidates = [bundle / f"{NAME}.exe", bundle / NAME,
                  bundle / "Contents" / "MacOS" / NAME]
    for c in candidates:
        if c.is_file():
            return c
    raise BundleError(f"no {NAME} executable in {bundle}")


def internal_dir(bundle: Path) -> Path:
    """Where the bundle's files are (PyInstaller >= 6: ``_internal``; .app: Resources)."""
    bundle = Path(bundle)
    for c in (bundle / "_internal", bundle / "Contents" / "Resources",
              bundle / "Contents" / "Frameworks", bundle):
        if (c / "planner" / "data").is_dir():
            return c
    raise BundleError(f"no planner/data inside {bundle}")


def is_nvml(name: str) -> bool:
    name = name.lower()
    return name.startswith("libnvidia-ml") or name in ("nvml.dll", "nvidia-ml.dll")


def nvml_files(bundle: Path) -> list[Path]:
    return sorted(p for p in Path(bundle).rglob("*") if is_nvml(p.name))


def size_bytes(bundle: Path) -> int:
    total = 0
    for p in Path(bundle).rglob("*"):
        if p.is_file() and not p.is_symlink():
            total += p.stat().st_size
    return total


def check_contents(bundle: Path) -> list[str]:
    """What is wrong with the bundle's contents (empty when all is well)."""
    problems = []
    try:
        executable(bundle)
        base = internal_dir(bundle)
    except BundleError as exc:
        return [str(exc)]
    data = base / "planner" / "data"
    res = base / "planner" / "resources"
    if not (data / "gpus.json").is_file():
        problems.append("the GPU catalog planner/data/gpus.json is missing")
    if not (data / "prices.csv").is_file():
        problems.append("the price history planner/data/prices.csv is missing")
    presets = sorted((data / "presets").glob("*.json"))
    expected = sorted((ROOT / "data" / "presets").glob("*.json"))
    if not presets:
        problems.append("no preset networks in planner/data/presets")
    elif expected and {p.name for p in expected} - {p.name for p in presets}:
        missing = {p.name for p in expected} - {p.name for p in presets}
        problems.append(f"presets missing from the bundle: {', '.join(sorted(missing))}")
    if not (res / "icons" / f"{NAME}.svg").is_file():
        problems.append("planner/resources/icons/gpu-planner.svg is missing")
    for bad in nvml_files(bundle):
        problems.append(f"libnvidia-ml must not be bundled: {bad.relative_to(bundle)}")
    return problems


def self_test(bundle: Path, timeout: float = 180) -> subprocess.CompletedProcess:
    """Run ``<bundle>/gpu-planner --self-test`` offscreen with throw-away user folders."""
    exe = executable(bundle)
    with tempfile.TemporaryDirectory(prefix="gpu-planner-smoke-") as tmp:
        env = dict(os.environ)
        env.update({
            "QT_QPA_PLATFORM": "offscreen",
            "HOME": tmp, "USERPROFILE": tmp, "APPDATA": tmp, "LOCALAPPDATA": tmp,
            "XDG_CONFIG_HOME": os.path.join(tmp, "config"),
            "XDG_DATA_HOME": os.path.join(tmp, "data"),
            "XDG_CACHE_HOME": os.path.join(tmp, "cache"),
            "PLANNER_HOME": os.path.join(tmp, "planner-home"),
        })
        return subprocess.run([str(exe), "--self-test"], env=env, cwd=tmp, timeout=timeout,
                              capture_output=True, text=True)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    dist = ROOT / "build" / "dist"
    bundle = Path(args[0]) if args else dist / NAME
    if sys.platform == "darwin" and not args and (dist / APP_BUNDLE).is_dir():
        bundle = dist / APP_BUNDLE
    problems = check_contents(bundle)
    for p in problems:
        print(f"FAIL: {p}", file=sys.stderr)
    if problems:
        return 1
    print(f"contents OK: catalog, presets, icons; no libnvidia-ml ({bundle})")
    result = self_test(bundle)
    out = (result.stdout or "") + (result.stderr or "")
    print(out.strip())
    # A windowed Windows build has no stdout; its exit status is the verdict there.
    if result.returncode != 0 or (out.strip() and "self-test OK" not in out):
        print(f"FAIL: --self-test exited {result.returncode}", file=sys.stderr)
        return 1
    print(f"bundle size: {size_bytes(bundle) / 2**20:.0f} MiB ({bundle})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
