"""The import process (planner/importing.py): an importer runs in a spawned child; its result
comes back intact, its errors as they were; a crash, a memory blow-up or Cancel is a clear
error at once, never a hang; the cycle collector is paused and the heap frozen."""

from __future__ import annotations

import gc
import os
import sys
import threading
import time

import pytest

from planner.core.layers import LayerSpec
from planner.core.network import PlanFileError
from planner.importing import (
    IMPORTERS,
    ChildImport,
    ImportCancelled,
    ImportProcessError,
    gc_paused,
    importer_for,
)


def _fixture_file(path):
    sys.path.insert(0, os.path.dirname(__file__))
    try:
        from onnx_fixtures import residual_net, save  # noqa: PLC0415
    finally:
        sys.path.pop(0)
    return save(residual_net(), path)


def test_onnx_files_are_imported_by_the_onnx_importer():
    assert importer_for("a/b/Model.ONNX") == IMPORTERS[".onnx"]
    assert importer_for("plan.json") is None


def test_an_import_in_the_child_equals_one_made_here_and_hashes_alike(tmp_path, monkeypatch):
    pytest.importorskip("onnx")
    from planner.core.importers.onnx import import_onnx

    path = _fixture_file(tmp_path / "residual.onnx")
    # another string hash seed in the child: a layer carrying the child's hash would differ
    seed = "1" if os.environ.get("PYTHONHASHSEED") != "1" else "2"
    monkeypatch.setenv("PYTHONHASHSEED", seed)
    child = ChildImport(importer_for(path), path, batch=8).run()
    here = import_onnx(path, batch=8)
    assert len(here.draft.layers) > 2
    assert child.draft == here.draft and child.setup == here.setup
    assert child.report == here.report and child.warnings == here.warnings
    assert [hash(a) for a in child.draft.layers] == [hash(b) for b in here.draft.layers]
    assert set(child.draft.layers) == set(here.draft.layers)  # found in sets and dicts


def test_a_layer_spec_pickles_as_its_parts():
    import pickle

    for spec in (LayerSpec("conv2d", "c1", {"filters": 8, "kernel": (3, 3)}),
                 LayerSpec("add", "a1", {"from": "c1", "input": "x"})):
        again = pickle.loads(pickle.dumps(spec))
        assert again == spec and hash(again) == hash(spec) and again.params == spec.params
        assert again.source() == spec.source() and again.refs() == spec.refs()
        assert again.value_key == spec.value_key


def test_the_importers_own_error_comes_back_as_it_was(tmp_path):
    pytest.importorskip("onnx")
    from planner.core.importers.onnx import OnnxImportError

    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07garbage" * 10)
    with pytest.raises(OnnxImportError) as info:
        ChildImport(importer_for(bad), bad).run()
    assert "bad.onnx" in str(info.value) and "Traceback" not in str(info.value)


def test_a_crashing_child_is_a_clear_error_not_a_hang():
    start = time.monotonic()
    with pytest.raises(ImportProcessError) as info:
        ChildImport("os:abort", what="crash.onnx").run()
    assert time.monotonic() - start < 30
    text = str(info.value)
    assert text.startswith("crash.onnx: the import process") and "before it answered" in text
    assert isinstance(info.value, PlanFileError)  # shown like any file that cannot be read


@pytest.mark.skipif(sys.platform == "win32", reason="the address space bound is Unix-only")
def test_a_memory_blow_up_in_the_child_is_a_clear_error():
    # 64 GiB at once, under a 1 GiB bound: MemoryError in the child, one line here
    with pytest.raises(ImportProcessError, match="ran out of memory"):
        ChildImport("builtins:bytearray", 64 << 30, memory_limit_bytes=1 << 30).run()


def test_cancel_stops_the_child_and_frees_the_waiting_thread():
    job = ChildImport("time:sleep", 120, what="slow.onnx")
    outcome = []

    def wait():
        try:
            outcome.append(job.run())
        except BaseException as exc:  # noqa: BLE001 - recorded for the assertion
            outcome.append(exc)

    worker = threading.Thread(target=wait, daemon=True)
    worker.start()
    deadline = time.monotonic() + 60
    while (job.process is None or job.process.pid is None or not job.process.is_alive()) \
            and time.monotonic() < deadline:
        time.sleep(0.02)
    assert job.process is not None and job.process.is_alive()  # it was really running
    start = time.monotonic()
    job.cancel()
    worker.join(10)
    assert not worker.is_alive() and time.monotonic() - start < 5
    assert job.process.exitcode is not None and job.process.exitcode != 0  # terminated
    assert len(outcome) == 1 and isinstance(outcome[0], ImportCancelled)


def test_a_job_cancelled_before_it_starts_never_starts_a_child():
    job = ChildImport("time:sleep", 120)
    job.cancel()
    with pytest.raises(ImportCancelled):
        job.run()
    assert job.process is None


def test_gc_paused_pauses_the_collector_and_freezes_what_it_built():
    assert gc.isenabled()
    frozen_before = gc.get_freeze_count()
    try:
        with gc_paused():
            assert not gc.isenabled()
            with gc_paused():  # nested, as the worker does
                built = [[i] for i in range(50_000)]
            assert not gc.isenabled()
        assert gc.isenabled()
        assert gc.get_freeze_count() >= frozen_before + len(built)
    finally:
        gc.unfreeze()  # leave the test process as it was
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()  # a collector that was off stays off
    finally:
        gc.enable()
        gc.unfreeze()
