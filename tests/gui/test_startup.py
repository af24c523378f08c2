"""Start-up: the window's first picture does without pyqtgraph (every plot is built after it,
one step per turn of the event loop), and what is put off is there, as before, once the steps
have run. The first two run the app in a fresh interpreter, as a user starts it (this test
process has imported pyqtgraph long ago)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtWidgets import QWidget

from planner.core.memory import Assumptions
from planner.core.presets import load_preset
from planner.ui.planner.document import PlanDocument
from planner.ui.planner.pane import PlannerPane

ROOT = Path(__file__).resolve().parents[2]

WINDOW = r"""
import json, sys, time
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QWidget
from planner.ui.bootstrap import build_main_window, make_app
from planner.ui.services import Services

app = make_app([])
w = build_main_window(Services())
w.resize(1024, 700)
out = {}

class Probe(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and "pyqtgraph_at_paint" not in out:
            out["pyqtgraph_at_paint"] = "pyqtgraph" in sys.modules
            out["chart_at_paint"] = w.planner.findChild(QWidget, "layer_chart") is not None
        return False

probe = Probe()
app.installEventFilter(probe)
w.show()
deadline = time.monotonic() + 60

def check():
    chart = w.planner.findChild(QWidget, "layer_chart")
    # started: sampling, or it has found that there is no driver to read (and stopped)
    started = w.monitor is not None and (w.monitor.bridge.is_running()
                                         or w.monitor.source == "unavailable")
    if (chart is None or not started) and time.monotonic() < deadline:
        QTimer.singleShot(50, check)
        return
    import pyqtgraph as pg
    from planner.ui.settings_dialog import plot_colours
    image = chart.grab().toImage()
    red = sum(1 for x in range(0, image.width(), 2) for y in range(0, image.height(), 2)
              if image.pixelColor(x, y) == QColor("#d62728"))
    out.update(chart_visible=chart.isVisible(), red_pixels=red,
               background=pg.getConfigOption("background"), expected=plot_colours()[0],
               monitor_started=started)
    w.shutdown()
    print("RESULT " + json.dumps(out), flush=True)
    app.quit()

QTimer.singleShot(50, check)
app.exec()
"""

OPTIONS = r"""
import sys
from PySide6.QtWidgets import QApplication
app = QApplication([])
from planner.ui import plotlib
plotlib.set_options(background="#123456")
assert "pyqtgraph" not in sys.modules
steps = plotlib.import_steps()
assert len(steps) > 10, len(steps)
for step in steps:
    step()
thread = plotlib.start_import_thread()
if thread is not None:
    thread.join(60)
assert not plotlib.importing()
import pyqtgraph as pg
print("RESULT", pg.getConfigOption("background"), pg.PlotWidget().backgroundBrush().color().name())
"""


def _run(code: str, tmp_path) -> str:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PLANNER_HOME=str(tmp_path / "home"),
               PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=180, cwd=ROOT)
    lines = [line for line in out.stdout.splitlines() if line.startswith("RESULT ")]
    assert out.returncode == 0 and lines, out.stdout + out.stderr
    return lines[0].removeprefix("RESULT ")


def test_first_picture_is_painted_before_pyqtgraph_and_the_chart_follows(tmp_path):
    got = json.loads(_run(WINDOW, tmp_path))
    assert got["pyqtgraph_at_paint"] is False
    assert got["chart_at_paint"] is False
    # then, without anything asking for it: the per-layer chart with the plan's bars, in the
    # theme's colours, and the Monitor built and started (it detects the cards)
    assert got["chart_visible"] is True
    assert got["red_pixels"] > 200, got
    assert got["background"] == got["expected"]
    assert got["monitor_started"] is True


def test_plot_options_set_before_pyqtgraph_is_imported_hold_once_it_is(tmp_path):
    background, brush = _run(OPTIONS, tmp_path).split()
    assert background == "#123456"
    assert brush == "#123456"  # a new plot takes it


def test_a_deferred_planner_pane_builds_its_chart_when_the_window_says(qtbot):
    draft, setup = load_preset("resnet50")
    doc = PlanDocument(draft, setup, Assumptions())
    pane = PlannerPane(doc, defer_views=True)
    qtbot.addWidget(pane)
    pane.resize(1200, 800)
    assert pane.findChild(QWidget, "layer_chart") is None
    pane.finish_start()
    chart = pane.findChild(QWidget, "layer_chart")
    assert chart is not None and chart is pane.chart
    pane.show()
    qtbot.waitExposed(pane)
    assert chart.isVisible()
    assert pane.result_tab() == "layer_chart"
    assert chart.selected == frozenset({doc.current_row})


def test_a_result_tab_asked_for_is_built_even_before_the_first_picture(qtbot):
    draft, setup = load_preset("resnet50")
    pane = PlannerPane(PlanDocument(draft, setup, Assumptions()), defer_views=True)
    qtbot.addWidget(pane)
    pane.show_result_tab("layers")  # e.g. an export, before the window painted
    assert pane.estimate_model.rowCount() == len(draft.layers)


def test_a_message_shown_before_the_monitor_finds_no_driver_stays(qtbot, planner_home,
                                                                   tmp_path):
    """The Monitor starts after the first picture: finding no driver then clears its own
    status line, not the message of something the user did meanwhile."""
    from planner.settings import Settings
    from planner.telemetry.types import BackendUnavailable
    from planner.ui.bootstrap import build_main_window
    from planner.ui.services import Services

    from gui_prompts import ScriptedPrompts

    def no_driver():
        raise BackendUnavailable("No NVIDIA driver found", "libnvidia-ml.so.1: not found")

    w = build_main_window(Services(prompts=ScriptedPrompts(), telemetry_factory=no_driver,
                                   settings_path=tmp_path / "session.ini",
                                   record_telemetry=False,
                                   preferences=Settings(first_run_done=True)))
    qtbot.addWidget(w)
    w.show()
    w.statusBar().showMessage("Opening model.onnx cancelled", 60_000)
    with qtbot.waitSignal(w.ensure_monitor().source_changed, timeout=10_000) as blocker:
        pass
    assert blocker.args == ["unavailable"]
    qtbot.wait(50)
    assert w.statusBar().currentMessage() == "Opening model.onnx cancelled"
    w.shutdown()
