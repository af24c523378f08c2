"""telemetry/ stays Qt-free and independent of core; pynvml is imported only when needed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

MODULES = ["planner.telemetry", "planner.telemetry.types", "planner.telemetry.nvml",
           "planner.telemetry.simulated", "planner.telemetry.sampler",
           "planner.telemetry.history", "planner.telemetry.recorder", "planner.cli_monitor"]


def test_no_qt_no_core_no_pynvml_at_import():
    code = (
        "import sys\n"
        f"for m in {MODULES!r}: __import__(m)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', "
        "'pynvml') or m == 'planner.core' or m.startswith('planner.core.'))\n"
        "assert not bad, bad\n"
    )
    repo = Path(__file__).resolve().parents[3]
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=repo, check=False)
    assert proc.returncode == 0, proc.stderr


def test_only_nvml_py_mentions_pynvml_imports():
    root = Path(__file__).resolve().parents[3] / "planner"
    offenders = []
    for path in root.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if ("import pynvml" in text or "from pynvml" in text) and path.name != "nvml.py":
            offenders.append(str(path.relative_to(root)))
    assert not offenders
