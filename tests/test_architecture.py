"""The layering of ARCHITECTURE.md, checked: core and telemetry are Qt-free and independent."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "planner"
QT = ("PySide6", "pyqtgraph", "shiboken6")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def files(sub: str):
    return sorted((PKG / sub).rglob("*.py"))


def test_core_imports_neither_qt_nor_telemetry():
    for f in files("core"):
        for m in imported_modules(f):
            assert not m.startswith(QT), f"{f.name} imports {m}"
            assert not m.startswith("planner.telemetry"), f"{f.name} imports {m}"
            assert not m.startswith("planner.ui"), f"{f.name} imports {m}"


def test_telemetry_imports_neither_qt_nor_core():
    for f in files("telemetry"):
        for m in imported_modules(f):
            assert not m.startswith(QT), f"{f.name} imports {m}"
            assert not m.startswith(("planner.core", "planner.ui")), f"{f.name} imports {m}"


def test_only_nvml_module_imports_pynvml():
    for f in PKG.rglob("*.py"):
        if f.name == "nvml.py" and f.parent.name == "telemetry":
            continue
        assert "pynvml" not in imported_modules(f), f"{f} imports pynvml"


def test_only_ui_imports_qt():
    for f in PKG.rglob("*.py"):
        if "ui" in f.relative_to(PKG).parts:
            continue
        if f.name == "app.py":
            continue  # hands over to the ui package lazily
        for m in imported_modules(f):
            assert not m.startswith(QT), f"{f.relative_to(PKG)} imports {m}"


def test_core_and_telemetry_load_no_qt_in_a_fresh_interpreter():
    code = ("import sys, importlib, pkgutil, planner.core, planner.telemetry\n"
            "for pkg in (planner.core, planner.telemetry):\n"
            "    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
            "        if m.name.endswith('importers.onnx'): continue\n"
            "        importlib.import_module(m.name)\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6','pyqtgraph')]\n"
            "print(bad)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_import_linter_contracts_are_kept(tmp_path):
    # The same layering as import-linter contracts (pyproject.toml): they follow imports
    # through the whole package graph, not only each file's own import lines.
    text = (PKG.parent / "pyproject.toml").read_text(encoding="utf-8")
    n = text.count("[[tool.importlinter.contracts]]")
    assert n >= 3
    run = subprocess.run(
        [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports; "
         "sys.exit(lint_imports(config_filename='pyproject.toml', no_cache=True))"],
        cwd=PKG.parent, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert f"{n} kept, 0 broken" in run.stdout


def test_every_package_is_in_the_wheel():
    # pyproject.toml lists the packages one by one: a new sub-package left out installs
    # without its modules (the ONNX importer once did: "No module named ...onnx").
    text = (PKG.parent / "pyproject.toml").read_text(encoding="utf-8")
    listed = set(re.findall(r'"(planner(?:\.[a-z_]+)*)"', text.split("packages = [", 1)[1]
                            .split("]", 1)[0]))
    found = {".".join(p.relative_to(PKG.parent).parts[:-1])
             for p in PKG.rglob("__init__.py") if "__pycache__" not in p.parts}
    assert found and found <= listed, sorted(found - listed)
