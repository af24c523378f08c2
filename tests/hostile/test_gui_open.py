"""The window against hostile files: every plan and ONNX case of the corpus opened through
File ▸ Open, with a 5 ms timer measuring the event loop — it never stalls for more than
100 ms; Cancel works; a hostile autosave or overrides file never stops the window and is
never deleted; the user is told where they look."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QPushButton

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "gui"))
import corpus  # noqa: E402
from gui_prompts import ScriptedPrompts  # noqa: E402

sys.path.pop(0)
sys.path.pop(0)

from planner import paths  # noqa: E402
from planner.settings import Settings  # noqa: E402
from planner.ui.main_window import build_main_window  # noqa: E402
from planner.ui.services import Services  # noqa: E402

MAX_STALL_S = 0.100
# The three graphs of issue 15's importer cases: they import within seconds (the CLI corpus
# checks that); onnx's shape inference holds Python's lock meanwhile, so they are imported in
# a child process (planner/importing.py), each measured on its own.
LARGE_GRAPHS = {"same-names-20000.onnx", "identity-constants-4000.onnx", "empty-nodes-20mb.onnx"}
# A plan of 20,000 layers: read and worked out in the worker; the cycle collector's full
# walks of the heap (100-400 ms each, holding Python's lock) paused the window until the
# worker ran with the collector paused (importing.gc_paused).
LARGE_PLANS = {"many-layers.json"}
_CORPUS = Path(__import__("tempfile").mkdtemp(prefix="planner-hostile-gui-"))
__import__("atexit").register(__import__("shutil").rmtree, _CORPUS, True)
PLANS = corpus.write_plans(_CORPUS / "plans")
try:
    ONNX = corpus.onnx_files(_CORPUS / "onnx")
except ImportError:  # onnx not installed: the plan cases still run
    ONNX = {}


class StallMeter:
    """The longest time the event loop went without running a 5 ms timer.

    ``worst``: the longest gap in wall time. ``worst_busy``: the longest gap counted as
    min(wall time, CPU time this process used meanwhile): a gap in which the process did
    not run (a loaded machine: the CI box is shared) is not a freeze of ours, while a gap in
    which our GUI thread worked, or a worker held the GIL, is. The tests bound the second
    by 100 ms and the first by a second."""

    def __init__(self) -> None:
        self.timer = QTimer()
        self.timer.setInterval(5)
        self.timer.timeout.connect(self._tick)
        self.worst = self.worst_busy = 0.0
        self.last = time.perf_counter()
        self.last_cpu = time.process_time()

    def _tick(self) -> None:
        now, cpu = time.perf_counter(), time.process_time()
        wall = now - self.last
        self.worst = max(self.worst, wall)
        self.worst_busy = max(self.worst_busy, min(wall, cpu - self.last_cpu))
        self.last, self.last_cpu = now, cpu

    def __enter__(self) -> StallMeter:
        QApplication.processEvents()
        self.last, self.last_cpu = time.perf_counter(), time.process_time()
        self.timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self._tick()
        self.timer.stop()


@pytest.fixture
def window(qtbot, planner_home, tmp_path):
    made = []

    def make(prompts=None, **kw):
        prompts = prompts or ScriptedPrompts(save_answer="discard")
        services = Services(prompts=prompts, settings_path=tmp_path / "session.ini",
                            start_preset="seed-example", record_telemetry=False,
                            preferences=Settings(first_run_done=True), **kw)
        w = build_main_window(services)
        qtbot.addWidget(w)
        w.prompts = prompts
        made.append(w)
        w.resize(1024, 700)
        w.show()
        qtbot.waitExposed(w)
        # the catalog is read on the GUI thread after the first paint (not a file the user
        # opens): wait for it before measuring
        qtbot.waitUntil(lambda: w.catalog is not None, timeout=10_000)
        qtbot.wait(50)
        return w

    yield make
    for w in made:
        w.document.undo_stack.setClean()
        w.shutdown()


def _open(qtbot, w, path: Path, timeout_ms: int = 20_000) -> tuple[bool, float, float]:
    w.prompts.open_answer = str(path)
    w.document.undo_stack.setClean()
    with StallMeter() as meter:
        with qtbot.waitSignal(w.files.open_finished, timeout=timeout_ms) as blocker:
            w.open_action.trigger()
    return blocker.args[1], meter.worst_busy, meter.worst


def _warm(qtbot, w) -> None:
    """The first open pays for imports and first paints; measure the rest."""
    _open(qtbot, w, PLANS["good.json"][0])
    if ONNX:
        _open(qtbot, w, ONNX["good.onnx"][0])


def test_every_file_case_opens_without_freezing_the_window(window, qtbot):
    w = window()
    _warm(qtbot, w)
    stalls, walls = {}, {}
    cases = [(n, p, pat) for n, (p, pat) in sorted(PLANS.items()) if n not in LARGE_PLANS]
    cases += [(n, p, "" if rc == 0 else "x") for n, (p, rc, _pat, xf) in sorted(ONNX.items())
              if not xf and n not in LARGE_GRAPHS]
    assert len(cases) > 80
    for name, path, pattern in cases:
        errors_before = len(w.prompts.errors)
        draft_before = w.document.draft
        opened, worst, wall = _open(qtbot, w, path)
        stalls[name], walls[name] = worst, wall
        if pattern == "" and name.endswith(".json"):
            assert opened, (name, w.prompts.errors[-1:])
        if not opened:
            assert len(w.prompts.errors) == errors_before + 1, name  # told, once
            title, text = w.prompts.errors[-1]
            assert "Traceback" not in text and len(text) < 5000, name
            assert w.document.draft == draft_before, name  # the plan in the window is kept
    print("busy stalls (ms):", sorted((round(s * 1000), n) for n, s in stalls.items())[-8:])
    print("wall stalls (ms):", sorted((round(s * 1000), n) for n, s in walls.items())[-8:])
    slow = {n: round(s * 1000) for n, s in stalls.items() if s > MAX_STALL_S}
    assert not slow, f"event loop stalled (ms): {slow}"
    frozen = {n: round(s * 1000) for n, s in walls.items() if s > 1.0}
    assert not frozen, f"event loop stalled over a second (ms): {frozen}"


@pytest.mark.parametrize("name", sorted(LARGE_GRAPHS))
def test_slow_onnx_files_open_without_freezing_the_window(window, qtbot, name):
    w = window()
    _warm(qtbot, w)
    # the stall is measured here; how long the import takes, by the CLI corpus (a loaded CI
    # machine may take far longer than 20 s to start the import process and import)
    opened, worst, wall = _open(qtbot, w, ONNX[name][0], timeout_ms=120_000)
    print(f"{name}: longest stall {worst * 1000:.0f} ms busy, {wall * 1000:.0f} ms wall")
    assert worst < MAX_STALL_S, f"{worst * 1000:.0f} ms"


def test_a_slow_open_shows_progress_and_cancel_keeps_the_plan(window, qtbot, monkeypatch):
    import planner.ui.plan_files as mw

    def slow_load(path):
        time.sleep(3.0)  # a slow disk, a server behind a network share
        return real(path)

    real = mw.load_plan_file
    monkeypatch.setattr(mw, "load_plan_file", slow_load)
    w = window()
    draft = w.document.draft
    w.prompts.open_answer = str(PLANS["good.json"][0])
    with StallMeter() as meter:
        w.open_action.trigger()
        job = w.files._opening
        assert job is not None
        qtbot.waitUntil(lambda: job.dialog.isVisible(), timeout=2000)
        assert "good.json" in job.dialog.labelText()
        button = job.dialog.findChild(QPushButton)
        assert button is not None and button.text() == "Cancel"
        with qtbot.waitSignal(w.files.open_finished, timeout=2000) as blocker:
            button.click()
    assert blocker.args == [str(PLANS["good.json"][0]), False]
    assert w.document.draft == draft and not w.prompts.errors
    assert "cancelled" in w.statusBar().currentMessage()
    assert meter.worst_busy < MAX_STALL_S
    qtbot.wait(3200)  # the worker finishes meanwhile: its result is dropped
    assert w.document.draft == draft


def test_cancel_stops_a_slow_import_and_the_window_stays_usable(window, qtbot, monkeypatch):
    """Cancel terminates the import process at once (not only drops its result): the worker
    is free again within seconds and the next file opens as usual."""
    import multiprocessing

    from planner import importing

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent))  # for the child
    monkeypatch.setitem(importing.IMPORTERS, ".onnx", "slow_importer:import_slowly")
    w = window()
    draft = w.document.draft
    onnx_file = _CORPUS / "slow.onnx"
    onnx_file.write_bytes(b"not read: the slow importer never looks")
    w.prompts.open_answer = str(onnx_file)

    def children():
        return [p for p in multiprocessing.active_children() if p.name == "planner-import"]

    with StallMeter() as meter:
        w.open_action.trigger()
        job = w.files._opening
        assert job is not None
        qtbot.waitUntil(lambda: job.dialog.isVisible() and bool(children()), timeout=30_000)
        button = job.dialog.findChild(QPushButton)
        with qtbot.waitSignal(w.files.open_finished, timeout=2000) as blocker:
            button.click()
        start = time.monotonic()
        qtbot.waitUntil(lambda: not job.worker_alive and not children(), timeout=10_000)
        freed_s = time.monotonic() - start
    assert blocker.args == [str(onnx_file), False]
    assert freed_s < 5, f"the worker was freed after {freed_s:.1f} s"
    assert w.document.draft == draft and not w.prompts.errors
    assert "cancelled" in w.statusBar().currentMessage()
    assert meter.worst_busy < MAX_STALL_S
    opened, worst, _wall = _open(qtbot, w, PLANS["good.json"][0])  # the window goes on
    assert opened and worst < MAX_STALL_S and w.document.draft != draft


def test_closing_the_window_stops_an_import_in_progress(window, qtbot, monkeypatch):
    import multiprocessing

    from planner import importing

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent))
    monkeypatch.setitem(importing.IMPORTERS, ".onnx", "slow_importer:import_slowly")
    w = window()
    onnx_file = _CORPUS / "slow-at-exit.onnx"
    onnx_file.write_bytes(b"not read")
    w.prompts.open_answer = str(onnx_file)

    def children():
        return [p for p in multiprocessing.active_children() if p.name == "planner-import"]

    w.open_action.trigger()
    qtbot.waitUntil(lambda: bool(children()), timeout=30_000)
    w.shutdown()
    qtbot.waitUntil(lambda: not children(), timeout=10_000)


# -- the autosave ------------------------------------------------------------------------------

AUTOSAVES = {
    "deep": corpus.deep(100_000).encode(),
    "digits": b'{"schema_version": 1, "layers": [{"type": "input", "name": "i", "shape": ['
              + b"9" * 5000 + b"]}]}",
    "newer": b'{"schema_version": 99, "layers": []}',
    "binary": bytes(range(256)) * 10,
    "not-json": b"{ this is not json",
}


@pytest.mark.parametrize("name", sorted(AUTOSAVES))
def test_an_unreadable_autosave_is_set_aside_and_the_window_appears(window, qtbot, name):
    autosave = paths.autosave_path()
    autosave.write_bytes(AUTOSAVES[name])
    w = window(ScriptedPrompts(restore=True, save_answer="discard"))
    assert w.isVisible()
    assert not autosave.exists()
    aside = list(autosave.parent.glob(autosave.name + ".corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == AUTOSAVES[name]
    title, text = w.prompts.errors[-1]
    assert title == "Cannot restore" and str(aside[0]) in text


def test_an_overflowing_autosave_opens_with_its_problem_shown(window, qtbot):
    path, _ = PLANS["shape-int64-wrap.json"]
    autosave = paths.autosave_path()
    autosave.write_bytes(path.read_bytes())
    w = window(ScriptedPrompts(restore=True, save_answer="discard"))
    assert w.isVisible()
    problems = w.document.analysis.problems
    assert problems and "beyond the bound" in str(problems[0])
    assert w.document.estimate is None  # no number rather than a wrong one


def test_a_corrupt_overrides_file_is_announced_in_the_catalog_pane(window, qtbot):
    from planner.core.catalog import OVERRIDES_FILENAME

    ov = paths.data_dir() / OVERRIDES_FILENAME
    ov.write_bytes(b"{ not json")
    w = window()
    qtbot.waitUntil(lambda: w.catalog is not None, timeout=10_000)
    pane = w.ensure_catalog_pane()
    assert pane.notices and "moved aside" in pane.notices[0]
    assert pane.banner.isVisibleTo(pane)
    aside = list(ov.parent.glob(OVERRIDES_FILENAME + ".corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == b"{ not json"


@pytest.mark.parametrize("name", sorted(LARGE_PLANS))
def test_a_very_long_plan_opens_without_freezing_the_window(window, qtbot, name):
    w = window()
    _warm(qtbot, w)
    opened, worst, wall = _open(qtbot, w, PLANS[name][0])
    print(f"{name}: longest stall {worst * 1000:.0f} ms busy, {wall * 1000:.0f} ms wall")
    assert opened
    assert worst < MAX_STALL_S, f"{worst * 1000:.0f} ms"
