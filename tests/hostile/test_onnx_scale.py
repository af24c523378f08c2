"""A 100,000-node ONNX graph imports in linear time (issue #12: "the import of a 100,000-node
graph finishes in seconds; repeated node names ... cannot make it quadratic or exhaust memory").

The graph is a chain of Relu -> Add(relu, previous) pairs, every node named 'same': repeated
names and a residual add of two activations at every step (each add once looked up its two
layers' order in a dict of every layer so far: 11.8 s of CPU at 10,000 nodes, quadratic). It is
imported at 10,000 and at 100,000 nodes, each in its own process (CPU seconds of that process
and its peak memory), both at once. Linear growth is 10x; a quadratic step is 100x.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("onnx")

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import _field  # noqa: E402
from test_cli_corpus import ROOT, _env, _root  # noqa: E402

sys.path.pop(0)

MAX_CPU_S = 120  # for 100,000 nodes (about 12 s here, on a shared 2-core machine)
MAX_GROWTH = 25  # CPU at 100,000 nodes over CPU at 10,000 (linear: 10, quadratic: 100)
MAX_RSS_MIB = 1024

_CHILD = r"""
import json, sys, time
t0 = time.process_time()
from planner.core.importers.onnx import import_onnx
r = import_onnx(sys.argv[1])
cpu = time.process_time() - t0
with open("/proc/self/status") as fh:
    hwm = next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:")) / 1024
names = [layer.name for layer in r.draft.layers]
print(json.dumps({"cpu": cpu, "rss_mib": hwm, "layers": len(names), "unique": len(set(names)),
                  "complete": r.report.complete, "nodes": r.report.nodes,
                  "mapped": r.report.mapped, "last": names[-1]}))
"""


def _chain_bytes(pairs: int) -> bytes:
    """The model's bytes, nodes written directly as protobuf fields (onnx.helper would take
    longer to build 100,000 nodes than the import takes)."""
    from onnx import TensorProto, helper

    def node(op: str, ins: list[str], out: str) -> bytes:
        body = b"".join(_field(1, i.encode()) for i in ins) + _field(2, out.encode())
        return _field(1, body + _field(3, b"same") + _field(4, op.encode()))

    parts = []
    for i in range(pairs):
        parts.append(node("Relu", [f"t{i}"], f"r{i}"))
        parts.append(node("Add", [f"r{i}", f"t{i}"], f"t{i + 1}"))
    graph = helper.make_graph(
        [], "scale", [helper.make_tensor_value_info("t0", TensorProto.FLOAT, ["N", 8])],
        [helper.make_tensor_value_info(f"t{pairs}", TensorProto.FLOAT, ["N", 8])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    model.ClearField("graph")
    return model.SerializeToString() + _field(7, b"".join(parts) + graph.SerializeToString())


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc")
def test_100000_nodes_import_in_linear_time_and_bounded_memory():
    root = _root()
    procs = {}
    for nodes in (10_000, 100_000):
        path = root / f"scale-{nodes}.onnx"
        path.write_bytes(_chain_bytes(nodes // 2))
        procs[nodes] = subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(path)], cwd=str(ROOT),
            env=_env({}, root / "home"), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True)
    got = {}
    for nodes, p in procs.items():
        try:
            out, err = p.communicate(timeout=4 * MAX_CPU_S)
        except subprocess.TimeoutExpired:
            for q in procs.values():
                q.kill()
            pytest.fail(f"{nodes:,} nodes: no result in {4 * MAX_CPU_S} s")
        assert p.returncode == 0, err[-2000:]
        got[nodes] = json.loads(out.strip().splitlines()[-1])
    for nodes, r in got.items():
        # every node planned as its own layer, under a name of its own
        assert r["nodes"] == nodes and r["mapped"] == nodes and r["complete"], r
        assert r["layers"] == r["unique"] == nodes + 1, r
        assert r["last"] == f"same_{nodes}", r
        assert r["rss_mib"] < MAX_RSS_MIB, f"{nodes:,} nodes: {r['rss_mib']:.0f} MiB"
    big, small = got[100_000]["cpu"], got[10_000]["cpu"]
    assert big < MAX_CPU_S, f"100,000 nodes: {big:.1f} s of CPU"
    assert big < MAX_GROWTH * small, \
        f"10x the nodes took {big / small:.1f}x the CPU ({small:.2f} s -> {big:.2f} s)"


def _folded_chain_bytes(layers: int) -> bytes:
    """MatMul -> Add -> Relu layers whose weights have the names the legacy exporter gives
    what its constant folding made ('onnx::MatMul_N', as in every dynamo=False eval export of
    a transformer): each such linear layer once scanned every weight claimed before it (is it
    the transposed token table?), 38 s of CPU at 30,000 nodes, quadratic."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    def node(op: str, ins: list[str], out: str, name: str) -> bytes:
        body = b"".join(_field(1, i.encode()) for i in ins) + _field(2, out.encode())
        return _field(1, body + _field(3, name.encode()) + _field(4, op.encode()))

    w = numpy_helper.from_array(np.zeros((8, 8), np.float32), "w")
    bias = numpy_helper.from_array(np.zeros(8, np.float32), "b")
    parts, x = [], "x"
    for i in range(layers):
        parts += [node("MatMul", [x, f"onnx::MatMul_{i}"], f"m{i}", f"/l{i}/MatMul"),
                  node("Add", [f"l{i}.bias", f"m{i}"], f"a{i}", f"/l{i}/Add"),
                  node("Relu", [f"a{i}"], f"r{i}", f"/l{i}/Relu")]
        w.name, bias.name = f"onnx::MatMul_{i}", f"l{i}.bias"
        parts += [_field(5, w.SerializeToString()), _field(5, bias.SerializeToString())]
        x = f"r{i}"
    graph = helper.make_graph(
        [], "folded", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4, 8])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["N", 4, 8])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    model.ClearField("graph")
    return model.SerializeToString() + _field(7, b"".join(parts) + graph.SerializeToString())


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc")
def test_folded_weight_names_import_in_linear_time():
    root = _root()
    procs = {}
    for nodes in (3_000, 30_000):
        path = root / f"folded-{nodes}.onnx"
        path.write_bytes(_folded_chain_bytes(nodes // 3))
        procs[nodes] = subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(path)], cwd=str(ROOT),
            env=_env({}, root / "home"), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True)
    got = {}
    for nodes, p in procs.items():
        try:
            out, err = p.communicate(timeout=4 * MAX_CPU_S)
        except subprocess.TimeoutExpired:
            for q in procs.values():
                q.kill()
            pytest.fail(f"{nodes:,} nodes: no result in {4 * MAX_CPU_S} s")
        assert p.returncode == 0, err[-2000:]
        got[nodes] = json.loads(out.strip().splitlines()[-1])
    for nodes, r in got.items():
        # every layer planned: a linear layer (its bias folded in) and a ReLU, and the input
        assert r["nodes"] == nodes and r["complete"], r
        assert r["layers"] == r["unique"] == 2 * nodes // 3 + 1, r
    big, small = got[30_000]["cpu"], got[3_000]["cpu"]
    assert big < MAX_GROWTH * small, \
        f"10x the nodes took {big / small:.1f}x the CPU ({small:.2f} s -> {big:.2f} s)"
