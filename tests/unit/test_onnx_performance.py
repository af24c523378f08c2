"""The importer stays linear and bounded (issue 15): graphs made with onnx.helper in the test.

Limits are CPU seconds of this process (``time.process_time``), so a busy machine does not make
them flaky; a quadratic step would miss them by far (20,000 same-named nodes searched one by one
is 2·10⁸ steps).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from onnx import helper  # noqa: E402
from onnx_fixtures import build, const, save, tensor, weight  # noqa: E402

from planner.core.importers.onnx import import_onnx  # noqa: E402


def chain(n: int, name: str | None = "same", width: int = 16):
    nodes, prev = [], "x"
    for k in range(n):
        nodes.append(helper.make_node("Relu" if k % 2 == 0 else "Sigmoid", [prev], [f"t{k}"],
                                      name=name if name is not None else f"n{k}"))
        prev = f"t{k}"
    return build(nodes, [tensor("x", ["N", width])], [tensor(prev, None)])


def cpu_seconds(fn):
    t = time.process_time()
    result = fn()
    return time.process_time() - t, result


def test_20000_same_named_nodes_are_not_quadratic(tmp_path):
    path = save(chain(20_000), tmp_path / "same.onnx")
    spent, r = cpu_seconds(lambda: import_onnx(path))
    names = [layer.name for layer in r.draft.layers]
    assert len(names) == 20_001 and len(set(names)) == len(names)
    assert names[1] == "same" and names[2] == "same_2" and names[-1] == "same_20000"
    assert spent < 20, f"{spent:.1f} s of CPU for 20,000 nodes"


def test_4000_constants_through_identity_chains_are_resolved_once(tmp_path):
    nodes, inits, prev = [], [const("k", 0.5)], "x"
    for k in range(4000):
        nodes.append(helper.make_node("Identity", ["k" if k == 0 else f"i{k - 1}"], [f"i{k}"],
                                      name=f"id{k}"))
        nodes.append(helper.make_node("Mul", [prev, f"i{k}"], [f"m{k}"], name=f"mul{k}"))
        prev = f"m{k}"
    model = build(nodes, [tensor("x", ["N", 8])], [tensor(prev, None)], inits)
    path = save(model, tmp_path / "ident.onnx")
    spent, r = cpu_seconds(lambda: import_onnx(path))
    assert len(r.draft.layers) == 4001 and r.report.complete
    assert all(layer.params["keeps"] == "nothing" for layer in r.draft.layers[1:])
    assert spent < 20, f"{spent:.1f} s of CPU for 4,000 constant lookups"


def _varint(v: int) -> bytes:
    out = bytearray()
    while True:
        b, v = v & 0x7F, v >> 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def _import_in_subprocess(path) -> tuple[str, float, float]:
    """(result or error, CPU seconds, peak RSS MiB) of importing ``path`` in a fresh process
    (VmHWM: the peak of that process's own memory, not inherited through fork)."""
    if not os.path.exists("/proc/self/status"):
        pytest.skip("needs /proc to read peak memory")
    code = ("import time\n"
            "from planner.core.importers.onnx import OnnxImportError, import_onnx\n"
            "from planner.core.network import analyze\n"
            "t = time.process_time()\n"
            "try:\n"
            f"    r = import_onnx({str(path)!r}); what = str(analyze(r.draft).parameters)\n"
            "except OnnxImportError as e:\n"
            "    what = 'ERROR ' + str(e)\n"
            "spent = time.process_time() - t\n"
            "rss = next(int(line.split()[1]) for line in open('/proc/self/status')\n"
            "           if line.startswith('VmHWM')) / 1024\n"
            "print(what); print(spent); print(rss)\n")
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, env=env)
    assert out.returncode == 0, out.stderr
    what, spent, rss = out.stdout.strip().splitlines()[-3:]
    return what, float(spent), float(rss)


def test_20_mb_of_empty_nodes_is_refused_quickly_with_little_memory(tmp_path):
    payload = b"\x0a\x00" * 10_000_000  # 10 million empty NodeProto: 20 MB
    data = b"\x08\x08" + b"\x3a" + _varint(len(payload)) + payload  # ir_version 8, graph
    path = tmp_path / "empty-nodes.onnx"
    path.write_bytes(data)
    del payload, data
    what, spent, rss = _import_in_subprocess(path)
    assert what.startswith("ERROR") and "too large to plan" in what and "nodes" in what
    assert spent < 20, f"{spent:.1f} s of CPU to refuse"
    assert rss < 400, f"{rss:.0f} MiB resident while refusing"


def test_a_100000_node_graph_imports_in_seconds(tmp_path):
    path = save(chain(100_000, name=None, width=8), tmp_path / "big.onnx")
    spent, r = cpu_seconds(lambda: import_onnx(path))
    assert len(r.draft.layers) == 100_001 and r.report.complete
    assert spent < 45, f"{spent:.1f} s of CPU for 100,000 nodes"


def test_weight_data_is_never_read(tmp_path):
    """External weights live in a FIFO: opening it would block until the test's timeout."""
    model = build([helper.make_node("Conv", ["x", "w"], ["y"], name="conv",
                                    kernel_shape=[3, 3])],
                  [tensor("x", ["N", 64, 32, 32])], [tensor("y", None)],
                  [weight("w", (256, 64, 3, 3))])
    onnx.save_model(model, str(tmp_path / "ext.onnx"), save_as_external_data=True,
                    all_tensors_to_one_file=True, location="weights.bin", size_threshold=0)
    (tmp_path / "weights.bin").unlink()
    os.mkfifo(tmp_path / "weights.bin")
    code = ("import sys; from planner.core.importers.onnx import import_onnx\n"
            "from planner.core.network import analyze\n"
            f"r = import_onnx({str(tmp_path / 'ext.onnx')!r})\n"
            "print(analyze(r.draft).parameters)\n")
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(256 * 64 * 9)


def test_inline_weights_are_skimmed_not_parsed(tmp_path):
    """A file of 400 MB inline weights opens without reading them."""
    big = onnx.numpy_helper.from_array(np.zeros((100_000_000,), dtype=np.float32), "w")
    big.dims[:] = [25000, 4000]
    model = build([helper.make_node("MatMul", ["x", "w"], ["y"], name="fc")],
                  [tensor("x", ["N", 25000])], [tensor("y", None)], [big])
    path = save(model, tmp_path / "inline.onnx")
    del big, model
    what, spent, rss = _import_in_subprocess(path)
    assert what == str(100_000_000)
    assert rss < 300, f"{rss:.0f} MiB resident: the 400 MB of weights were read"
    assert spent < 10


def test_the_skim_never_fails_other_than_cleanly_on_random_bytes():
    """The hand-written skim is kept (inline weights must not be read); fuzz it directly."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from planner.core.importers.onnx import reading

    valid = build([helper.make_node("Relu", ["x"], ["y"], name="r")],
                  [tensor("x", ["N", 4])], [tensor("y", None)]).SerializeToString()

    @settings(max_examples=300, deadline=None)
    @given(st.binary(max_size=400), st.integers(0, len(valid)), st.binary(max_size=8))
    def check(noise, cut, patch):
        for data in (noise, valid[:cut] + patch + valid[cut + len(patch):]):
            try:
                out = reading.skim_model(data)
            except (reading._SkimError, reading._TooLarge):
                continue
            assert isinstance(out, bytes) and len(out) <= len(data) + 16

    check()
