"""Build the one-folder app with PyInstaller, then check and smoke-test it (every OS).

    python -m pip install -e ".[build]"        # PyInstaller >= 6
    python packaging/build.py                  # -> build/dist/gpu-planner/
                                               #    (macOS: build/dist/GPU Planner.app)

Options: ``--dist DIR`` / ``--work DIR`` (default ``build/dist`` / ``build/pyinstaller``; build/
is git-ignored),
``--no-smoke`` (skip the --self-test run), ``--archive`` (also write a .tar.gz on Linux, a .zip
on Windows and macOS next to the bundle). The per-OS scripts in linux/, windows/, macos/ call
this with the right interpreter.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SPEC = HERE / "gpu-planner.spec"


def _smoke():
    spec = importlib.util.spec_from_file_location("gpu_planner_smoke", HERE / "smoke.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build(dist: Path, work: Path, clean: bool = True, quiet: bool = False) -> Path:
    """Run PyInstaller on the spec; the one-folder bundle (or the .app on macOS)."""
    cmd = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--distpath", str(dist),
           "--workpath", str(work)]
    if clean:
        cmd.append("--clean")
    if quiet:
        cmd += ["--log-level", "WARN"]
    cmd.append(str(SPEC))
    subprocess.run(cmd, cwd=ROOT, check=True)
    app = dist / "GPU Planner.app"
    if sys.platform == "darwin" and app.is_dir():
        return app
    return dist / "gpu-planner"


def archive(bundle: Path) -> Path:
    fmt = "gztar" if sys.platform.startswith("linux") else "zip"
    import platform

    arch = platform.machine().lower() or "unknown"
    osname = {"win32": "windows", "darwin": "macos"}.get(sys.platform, "linux")
    base = bundle.parent / f"gpu-planner-{osname}-{arch}"
    return Path(shutil.make_archive(str(base), fmt, root_dir=bundle.parent,
                                    base_dir=bundle.name))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build GPU Planner with PyInstaller.")
    parser.add_argument("--dist", type=Path, default=ROOT / "build" / "dist")
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "pyinstaller")
    parser.add_argument("--no-clean", action="store_true", help="reuse PyInstaller's cache")
    parser.add_argument("--no-smoke", action="store_true", help="skip the --self-test run")
    parser.add_argument("--archive", action="store_true", help="also write a .tar.gz / .zip")
    args = parser.parse_args(argv)
    if importlib.util.find_spec("PyInstaller") is None:
        print('PyInstaller is not installed: python -m pip install -e ".[build]"',
              file=sys.stderr)
        return 1
    start = time.monotonic()
    bundle = build(args.dist.resolve(), args.work.resolve(), clean=not args.no_clean)
    print(f"built {bundle} in {time.monotonic() - start:.0f} s")
    smoke = _smoke()
    problems = smoke.check_contents(bundle)
    for p in problems:
        print(f"FAIL: {p}", file=sys.stderr)
    if problems:
        return 1
    if not args.no_smoke:
        rc = smoke.main([str(bundle)])
        if rc:
            return rc
    else:
        print(f"bundle size: {smoke.size_bytes(bundle) / 2**20:.0f} MiB ({bundle})")
    if args.archive:
        print(f"archive: {archive(bundle)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
