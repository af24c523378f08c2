"""Build hook: compile the translations (resources/i18n/*.ts → .qm) into the wheel.

Everything else about the package is in pyproject.toml. The .qm files are build outputs
(gitignored); when lrelease is not available the wheel still builds, and the app compiles the
.ts on first use or stays in English (planner.ui.i18n).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


def _lrelease() -> str | None:
    here = Path(sys.executable).parent
    for name in ("pyside6-lrelease", "pyside6-lrelease.exe"):
        if (here / name).is_file():
            return str(here / name)
    found = shutil.which("pyside6-lrelease") or shutil.which("lrelease")
    if found:
        return found
    try:  # PySide6-Essentials ships the binary inside the package
        import PySide6  # noqa: PLC0415

        base = Path(PySide6.__file__).parent
        for cand in (base / "lrelease", base / "lrelease.exe", base / "Qt" / "bin" / "lrelease"):
            if cand.is_file():
                return str(cand)
    except ImportError:
        pass
    return None


class BuildPyWithTranslations(build_py):
    def run(self):
        super().run()
        tool = _lrelease()
        src = Path(__file__).resolve().parent / "resources" / "i18n"
        out = Path(self.build_lib) / "planner" / "resources" / "i18n"
        if tool is None or not src.is_dir():
            self.announce("lrelease not found: translations not compiled", level=3)
            return
        out.mkdir(parents=True, exist_ok=True)
        for ts in sorted(src.glob("*.ts")):
            subprocess.run([tool, "-silent", str(ts), "-qm", str(out / (ts.stem + ".qm"))],
                           check=True)


setup(cmdclass={"build_py": BuildPyWithTranslations})
