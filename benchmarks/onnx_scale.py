"""How ONNX import time grows with the graph (issue #12, "linear time").

Builds graphs with ``onnx.helper`` (no torch) of the shapes people make, at several sizes, and
imports each in a fresh subprocess: nodes, import CPU seconds (``time.process_time`` around
``import_onnx``), peak RSS of that process, and the ratio of CPU time between consecutive sizes
(linear growth is the ratio of node counts: 3.3x for 30k -> 100k). Also times real legacy
exports from ``/work/onnx-cache`` when present (``--real PATH`` for others).

    PYTHONPATH=. python benchmarks/onnx_scale.py                 # 10k, 30k, 100k nodes
    PYTHONPATH=. python benchmarks/onnx_scale.py --sizes 3000,10000 --kinds resnet
    PYTHONPATH=. python benchmarks/onnx_scale.py --profile transformer:100000

Graph kinds:
  resnet       deep residual convolution net: Conv/BatchNormalization/Relu/Add blocks
  transformer  a long transformer stack as the legacy exporter writes it: Shape -> Gather ->
               Unsqueeze -> Concat -> Reshape arithmetic around every MatMul and Softmax
  dynamo       a long transformer stack as the default exporter writes it (dynamic batch and
               length): node records, value_info, Shape(start, end) -> Concat -> Reshape
  samenames    a chain of Relu/Add nodes that all have the same name
  constants    long chains of constant lookups (Identity -> Cast -> Identity ... of an
               initializer) feeding every Add of a chain
  merged       the residual conv net with every norm reading the same four tensors (an
               untrained network's equal parameters, stored once by the exporter)
  folded       linear layers whose weights have the legacy exporter's folded-constant names
               ('onnx::MatMul_N', as in a dynamo=False eval export)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path("/work/onnx-cache")
# 12-layer ViT-B/16 (torchvision, legacy exporter, training mode), a Swin-T and two small
# transformers from other libraries
REAL = ["vit_b_16.legacy_train.onnx",
        "r4/bench/timm_swin_tiny_patch4_window7_224.legacy_train.onnx",
        "r4/hf_hf_vit.legacy.onnx", "r4/hf_bert_mlm.legacy.onnx"]


# ------------------------------------------------------------------------------- the graphs
def _model(nodes, inputs, outputs, inits, opset=17):
    from onnx import helper

    g = helper.make_graph(nodes, "scale", inputs, outputs, initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def _vi(name, dims, elem=None):
    from onnx import TensorProto, helper

    return helper.make_tensor_value_info(name, elem or TensorProto.FLOAT, dims)


def _w(name, shape):
    """An initializer of ``shape`` whose data is small: dims only matter to the planner."""
    import numpy as np
    from onnx import numpy_helper

    return numpy_helper.from_array(np.zeros(shape, np.float32), name)


def _i64(name, values):
    import numpy as np
    from onnx import numpy_helper

    return numpy_helper.from_array(np.asarray(values, np.int64), name)


def merged(target: int):
    """The residual conv net of an untrained network as the exporters write it: its norms'
    equal scales, shifts and statistics stored once, every norm reading the same four tensors
    (under its own module's name in the legacy exporter's Identity nodes: here directly)."""
    return resnet(target, shared_norms=True)


def resnet(target: int, shared_norms: bool = False):
    """Blocks of Conv-BN-Relu-Conv-BN-Add-Relu (7 nodes) at 8 channels of 8x8."""
    from onnx import helper

    c, nodes, inits = 8, [], []
    x = "x"
    nodes.append(helper.make_node("Conv", ["x", "stem.w"], ["s0"], name="stem",
                                  kernel_shape=[3, 3], pads=[1, 1, 1, 1]))
    inits.append(_w("stem.w", (c, 3, 3, 3)))
    x = "s0"
    b = 0
    while len(nodes) + 7 <= target:
        p = f"b{b}"
        for j in (1, 2):
            inits.append(_w(f"{p}.conv{j}.w", (c, c, 3, 3)))
            for k in ("scale", "bias", "mean", "var"):
                if not shared_norms or b == 0 and j == 1:
                    inits.append(_w(f"{p}.bn{j}.{k}", (c,)))
        bn = ["b0.bn1"] * 2 if shared_norms else [f"{p}.bn1", f"{p}.bn2"]
        nodes += [
            helper.make_node("Conv", [x, f"{p}.conv1.w"], [f"{p}c1"], name=f"{p}.conv1",
                             kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
            helper.make_node("BatchNormalization", [f"{p}c1"] + [f"{bn[0]}.{k}" for k in (
                "scale", "bias", "mean", "var")], [f"{p}n1"], name=f"{p}.bn1"),
            helper.make_node("Relu", [f"{p}n1"], [f"{p}r1"], name=f"{p}.relu1"),
            helper.make_node("Conv", [f"{p}r1", f"{p}.conv2.w"], [f"{p}c2"], name=f"{p}.conv2",
                             kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
            helper.make_node("BatchNormalization", [f"{p}c2"] + [f"{bn[1]}.{k}" for k in (
                "scale", "bias", "mean", "var")], [f"{p}n2"], name=f"{p}.bn2"),
            helper.make_node("Add", [f"{p}n2", x], [f"{p}a"], name=f"{p}.add"),
            helper.make_node("Relu", [f"{p}a"], [f"{p}out"], name=f"{p}.relu2"),
        ]
        x = f"{p}out"
        b += 1
    return _model(nodes, [_vi("x", ["N", 3, 8, 8])], [_vi(x, ["N", c, 8, 8])], inits)


def transformer(target: int):
    """Self-attention + MLP layers as the legacy exporter writes them (dynamic axes): every
    head split and merge is a Shape -> Gather -> Unsqueeze -> Concat -> Reshape computation
    (about 60 nodes a layer), at d=16, 2 heads, T=8."""
    from onnx import helper

    d, h = 16, 2
    nodes, inits = [], []
    inits += [_i64("c0", 0), _i64("c1", 1), _i64("heads", [h]), _i64("hd", [d // h]),
              _i64("dm", [d]), _i64("ax0", [0])]
    x = "x"
    n = 0

    def node(op, ins, outs, **kw):
        nonlocal n
        n += 1
        nodes.append(helper.make_node(op, ins, outs, name=f"/{op}_{n}", **kw))
        return outs[0]

    def dims_of(t, p):
        """Shape(t)[0], Shape(t)[1] as 1-element tensors (the legacy exporter's way)."""
        s = node("Shape", [t], [f"{p}.shape"])
        b = node("Gather", [s, "c0"], [f"{p}.b"], axis=0)
        tt = node("Gather", [s, "c1"], [f"{p}.t"], axis=0)
        b1 = node("Unsqueeze", [b, "ax0"], [f"{p}.b1"])
        t1 = node("Unsqueeze", [tt, "ax0"], [f"{p}.t1"])
        return b1, t1

    def split_heads(t, p):
        b1, t1 = dims_of(t, p)
        shp = node("Concat", [b1, t1, "heads", "hd"], [f"{p}.shp"], axis=0)
        r = node("Reshape", [t, shp], [f"{p}.r"])
        return node("Transpose", [r], [f"{p}.tr"], perm=[0, 2, 1, 3])

    def linear(t, p, din, dout):
        inits.append(_w(f"{p}.weight", (din, dout)))
        inits.append(_w(f"{p}.bias", (dout,)))
        m = node("MatMul", [t, f"{p}.weight"], [f"{p}.mm"])
        return node("Add", [f"{p}.bias", m], [f"{p}.out"])

    def layernorm(t, p):
        inits.append(_w(f"{p}.weight", (d,)))
        inits.append(_w(f"{p}.bias", (d,)))
        return node("LayerNormalization", [t, f"{p}.weight", f"{p}.bias"], [f"{p}.out"],
                    axis=-1, epsilon=1e-5)

    layer = 0
    while n + 70 <= target:
        p = f"layers.{layer}"
        a = layernorm(x, f"{p}.ln1")
        q = split_heads(linear(a, f"{p}.q", d, d), f"{p}.qs")
        k = split_heads(linear(a, f"{p}.k", d, d), f"{p}.ks")
        v = split_heads(linear(a, f"{p}.v", d, d), f"{p}.vs")
        kt = node("Transpose", [k], [f"{p}.kt"], perm=[0, 1, 3, 2])
        s = node("MatMul", [q, kt], [f"{p}.scores"])
        sc = node("Div", [s, "sqrt_hd"], [f"{p}.scaled"])
        pr = node("Softmax", [sc], [f"{p}.probs"], axis=-1)
        o = node("MatMul", [pr, v], [f"{p}.ctx"])
        o = node("Transpose", [o], [f"{p}.ctx_t"], perm=[0, 2, 1, 3])
        b1, t1 = dims_of(a, f"{p}.ms")
        shp = node("Concat", [b1, t1, "dm"], [f"{p}.mshp"], axis=0)
        o = node("Reshape", [o, shp], [f"{p}.merged"])
        o = linear(o, f"{p}.o", d, d)
        x = node("Add", [x, o], [f"{p}.res1"])
        a = layernorm(x, f"{p}.ln2")
        m = linear(a, f"{p}.fc1", d, 4 * d)
        # GELU as the legacy exporter writes it: x * 0.5 * (1 + erf(x / sqrt 2))
        e = node("Div", [m, "sqrt2"], [f"{p}.g.div"])
        e = node("Erf", [e], [f"{p}.g.erf"])
        e = node("Add", [e, "one"], [f"{p}.g.add"])
        e = node("Mul", [m, e], [f"{p}.g.mul"])
        g = node("Mul", [e, "half"], [f"{p}.g.out"])
        m = linear(g, f"{p}.fc2", 4 * d, d)
        x = node("Add", [x, m], [f"{p}.res2"])
        layer += 1
    import numpy as np
    from onnx import numpy_helper

    for name, v in (("sqrt_hd", np.sqrt(d // h)), ("sqrt2", np.sqrt(2.0)), ("one", 1.0),
                    ("half", 0.5)):
        inits.append(numpy_helper.from_array(np.asarray(v, np.float32), name))
    return _model(nodes, [_vi("x", ["N", 8, d])], [_vi(x, ["N", 8, d])], inits)


def dynamo(target: int):
    """A long transformer stack as the default (dynamo) exporter writes it with a dynamic
    batch: opset 20, 'node_*' names and 'val_*' tensors, linear weights
    stored transposed under the exporter's own names, every node with its record
    (``metadata_props``: name scopes, class hierarchy, the FX node), value_info for every
    intermediate with symbolic dimensions, the exported program's signature, and the head split
    and merge of every layer as Shape(start, end) -> Concat -> Reshape (about 40 nodes a
    layer), at d=16, 2 heads, T=8."""
    from onnx import helper

    d, h = 16, 2
    nodes, inits, infos, signature = [], [], [], []
    inits += [_i64("val_heads", [h]), _i64("val_hd", [d // h]), _i64("val_dm", [d])]
    n = 0

    def node(op, ins, outs, scope, fx, **kw):
        nonlocal n
        n += 1
        nd = helper.make_node(op, ins, outs, name=f"node_{op}_{n}", **kw)
        parts = ["", *scope.split("."), fx]
        for key, value in (
                ("namespace", ": " + "/".join(f"{p}: torch.nn.Module" for p in parts[1:-1])
                 + f"/{fx}: aten.{fx}.default"),
                ("pkg.torch.onnx.class_hierarchy",
                 str(["torch.nn.Module"] * (len(parts) - 1) + [f"aten.{fx}.default"])),
                ("pkg.torch.onnx.fx_node",
                 f"%{outs[0]} : [num_users=1] = call_function[target=torch.ops.aten.{fx}."
                 f"default](args = (%{ins[0]},), kwargs = {{}})"),
                ("pkg.torch.onnx.name_scopes", str(parts))):
            nd.metadata_props.add(key=key, value=value)
        nodes.append(nd)
        for o in outs:
            infos.append(_vi(o, ["batch", 8, None]))
        return outs[0]

    def param(name, shape):
        signature.append(f"p_{name.replace('.', '_')}: PARAMETER target='{name}'")
        inits.append(_w(name, shape))
        return name

    def linear(t, p, din, dout):
        w = f"val_w{len(inits)}"
        signature.append(f"p_{p.replace('.', '_')}_weight: PARAMETER target='{p}.weight'")
        inits.append(_w(w, (din, dout)))  # stored transposed, under the exporter's name
        m = node("MatMul", [t, w], [f"val_{n}"], p, "linear")
        return node("Add", [m, param(f"{p}.bias", (dout,))], [f"linear_{n}"], p, "linear")

    def layernorm(t, p):
        return node("LayerNormalization", [t, param(f"{p}.weight", (d,)),
                                           param(f"{p}.bias", (d,))],
                    [f"layer_norm_{n}"], p, "layer_norm", axis=-1, epsilon=1e-5)

    def dims_of(t, p):
        b = node("Shape", [t], [f"val_{n}"], p, "sym_size", start=0, end=1)
        s = node("Shape", [t], [f"val_{n}"], p, "sym_size", start=1, end=2)
        return b, s

    def split_heads(t, src, p, perm):
        b, s = dims_of(src, p)
        shp = node("Concat", [b, s, "val_heads", "val_hd"], [f"val_{n}"], p, "view", axis=0)
        r = node("Reshape", [t, shp], [f"view_{n}"], p, "view")
        return node("Transpose", [r], [f"transpose_{n}"], p, "transpose", perm=perm)

    x, layer = "input", 0
    while n + 45 <= target:
        p = f"layers.{layer}"
        a = layernorm(x, f"{p}.ln1")
        qkv = linear(a, f"{p}.attn.qkv", d, 3 * d)
        q, k, v = (f"split_{n + 1}_{j}" for j in range(3))
        node("Split", [qkv], [q, k, v], f"{p}.attn", "split", axis=2, num_outputs=3)
        q = split_heads(q, a, f"{p}.attn", [0, 2, 1, 3])
        k = split_heads(k, a, f"{p}.attn", [0, 2, 3, 1])
        v = split_heads(v, a, f"{p}.attn", [0, 2, 1, 3])
        s = node("MatMul", [q, k], [f"matmul_{n}"], f"{p}.attn", "matmul")
        s = node("Div", [s, "scalar_tensor_default"], [f"div_{n}"], f"{p}.attn", "div")
        s = node("Softmax", [s], [f"softmax_{n}"], f"{p}.attn", "softmax", axis=-1)
        o = node("MatMul", [s, v], [f"matmul_{n}"], f"{p}.attn", "matmul")
        o = node("Transpose", [o], [f"transpose_{n}"], f"{p}.attn", "transpose",
                 perm=[0, 2, 1, 3])
        b, t = dims_of(a, f"{p}.attn")
        shp = node("Concat", [b, t, "val_dm"], [f"val_{n}"], f"{p}.attn", "view", axis=0)
        o = node("Reshape", [o, shp], [f"_unsafe_view_{n}"], f"{p}.attn", "_unsafe_view")
        o = linear(o, f"{p}.attn.proj", d, d)
        x = node("Add", [x, o], [f"add_{n}"], p, "add")
        a = layernorm(x, f"{p}.ln2")
        m = linear(a, f"{p}.mlp.fc1", d, 4 * d)
        g = node("Gelu", [m], [f"gelu_{n}"], f"{p}.mlp.act", "gelu", approximate="none")
        m = linear(g, f"{p}.mlp.fc2", 4 * d, d)
        x = node("Add", [x, m], [f"add_{n}"], p, "add")
        layer += 1
    import numpy as np
    from onnx import numpy_helper

    inits.append(numpy_helper.from_array(np.asarray(np.sqrt(d // h), np.float32),
                                         "scalar_tensor_default"))
    graph = helper.make_graph(nodes, "main_graph", [_vi("input", ["batch", 8, d])],
                              [_vi(x, ["batch", 8, d])], initializer=inits,
                              value_info=[i for i in infos if i.name != x])
    graph.metadata_props.add(key="pkg.torch.export.ExportedProgram.graph_signature",
                             value="\n# inputs\n" + "\n".join(signature)
                             + "\ninput: USER_INPUT\n\n# outputs\n" + x + ": USER_OUTPUT\n")
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)],
                          producer_name="pytorch", producer_version="2.14.1")
    m.ir_version = 10
    return m


def samenames(target: int):
    """Relu/Add pairs in a chain, every node named 'same' (as some tools write them)."""
    from onnx import helper

    nodes = []
    x = "t0"
    for i in range(target // 2):
        nodes.append(helper.make_node("Relu", [x], [f"r{i}"], name="same"))
        nodes.append(helper.make_node("Add", [f"r{i}", x], [f"t{i + 1}"], name="same"))
        x = f"t{i + 1}"
    return _model(nodes, [_vi("t0", ["N", 8])], [_vi(x, ["N", 8])], [])


def constants(target: int):
    """Each Add of a chain reads an 8-vector constant reached through a chain of 8 lookups
    (Identity/Cast alternating) of an initializer: 9 nodes per step."""
    from onnx import TensorProto, helper

    nodes, inits = [], []
    x = "a0"
    i = 0
    while len(nodes) + 9 <= target:
        inits.append(_w(f"c{i}", (8,)))
        c = f"c{i}"
        for j in range(8):
            out = f"c{i}_{j}"
            if j % 2:
                nodes.append(helper.make_node("Cast", [c], [out], name=f"cast{i}_{j}",
                                              to=TensorProto.FLOAT))
            else:
                nodes.append(helper.make_node("Identity", [c], [out], name=f"id{i}_{j}"))
            c = out
        nodes.append(helper.make_node("Add", [x, c], [f"a{i + 1}"], name=f"add{i}"))
        x = f"a{i + 1}"
        i += 1
    return _model(nodes, [_vi("a0", ["N", 8])], [_vi(x, ["N", 8])], inits)


def folded(target: int):
    """A chain of linear layers (MatMul + Add + Relu) whose weights carry the names the legacy
    exporter gives what its constant folding made ('onnx::MatMul_N': a transposed weight in
    an eval export), as in every `dynamo=False` eval export of a transformer."""
    from onnx import helper

    d, nodes, inits = 8, [], []
    x = "x"
    i = 0
    while len(nodes) + 3 <= target:
        w, b = f"onnx::MatMul_{i}", f"l{i}.bias"
        inits += [_w(w, (d, d)), _w(b, (d,))]
        nodes += [helper.make_node("MatMul", [x, w], [f"m{i}"], name=f"/l{i}/MatMul"),
                  helper.make_node("Add", [b, f"m{i}"], [f"a{i}"], name=f"/l{i}/Add"),
                  helper.make_node("Relu", [f"a{i}"], [f"r{i}"], name=f"/l{i}/Relu")]
        x = f"r{i}"
        i += 1
    return _model(nodes, [_vi("x", ["N", 4, d])], [_vi(x, ["N", 4, d])], inits)


KINDS = {"resnet": resnet, "transformer": transformer, "dynamo": dynamo, "samenames": samenames,
         "constants": constants, "folded": folded, "merged": merged}


# ------------------------------------------------------------------------------ measuring
_CHILD = r"""
import json, resource, sys, time
t0 = time.process_time()
from planner.core.importers.onnx import import_onnx
t_mod = time.process_time() - t0
prof = sys.argv[2] if len(sys.argv) > 2 else ""
if prof:
    import cProfile, pstats
    pr = cProfile.Profile(time.process_time)  # CPU time: the machine is shared
    pr.enable()
t0 = time.process_time()
w0 = time.perf_counter()
r = import_onnx(sys.argv[1])
cpu = time.process_time() - t0
wall = time.perf_counter() - w0
if prof:
    pr.disable()
    pstats.Stats(pr, stream=sys.stderr).sort_stats("tottime").print_stats(int(prof))
try:  # VmHWM: this process's own peak (ru_maxrss keeps the parent's across fork and exec)
    with open("/proc/self/status") as fh:
        rss = next(int(l.split()[1]) for l in fh if l.startswith("VmHWM:")) * 1024
except (OSError, StopIteration):
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"cpu": cpu, "wall": wall, "rss": rss, "nodes": r.report.nodes,
                  "layers": len(r.draft.layers), "complete": r.report.complete,
                  "warnings": len(r.warnings)}))
"""


def measure(path: Path, profile: int = 0, timeout: float = 600) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    argv = [sys.executable, "-c", _CHILD, str(path)] + ([str(profile)] if profile else [])
    try:
        p = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout,
                           check=False)
    except subprocess.TimeoutExpired:
        return {"error": f"no result in {timeout:.0f} s"}
    if p.returncode:
        return {"error": (p.stderr.strip().splitlines() or ["?"])[-1]}
    out = json.loads(p.stdout.strip().splitlines()[-1])
    if profile:
        out["profile"] = p.stderr
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="10000,30000,100000")
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--real", action="append", default=None,
                    help="a real ONNX file to time too (default: cached ViT and BERT exports)")
    ap.add_argument("--no-real", action="store_true")
    ap.add_argument("--profile", default="", help="KIND:SIZE: print the cProfile top 25")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="onnx_scale_"))
    try:
        return _run(args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _run(args, tmp: Path) -> int:
    if args.profile:
        kind, size = args.profile.split(":")
        f = tmp / f"{kind}-{size}.onnx"
        f.write_bytes(KINDS[kind](int(size)).SerializeToString())
        r = measure(f, profile=25)
        print(r.pop("profile", ""))
        print(json.dumps(r))
        return 0
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"{'graph':<12} {'nodes':>8} {'import CPU s':>12} {'wall s':>8} {'peak RSS MiB':>12} "
          f"{'ratio':>7} {'linear':>7}  layers")
    worst = 0.0
    for kind in args.kinds.split(","):
        prev = None
        for size in sizes:
            f = tmp / f"{kind}-{size}.onnx"
            t0 = time.perf_counter()
            f.write_bytes(KINDS[kind](size).SerializeToString())
            r = measure(f)
            f.unlink()
            if "error" in r:
                print(f"{kind:<12} {size:>8} failed: {r['error']}")
                prev = None
                continue
            ratio = linear = ""
            if prev:
                ratio = f"{r['cpu'] / prev['cpu']:.2f}x"
                linear = f"{r['nodes'] / prev['nodes']:.2f}x"
            per_node = r["cpu"] / r["nodes"] * 1e6
            worst = max(worst, r["cpu"] if size == max(sizes) else 0.0)
            print(f"{kind:<12} {r['nodes']:>8,} {r['cpu']:>12.2f} {r['wall']:>8.2f} "
                  f"{r['rss'] / 2**20:>12.0f} {ratio:>7} {linear:>7}  {r['layers']:,} "
                  f"({per_node:.0f} us/node{'' if r['complete'] else ', incomplete'}; "
                  f"built in {time.perf_counter() - t0:.0f} s)", flush=True)
            prev = r
    reals = args.real if args.real else ([] if args.no_real else
                                         [str(CACHE / p) for p in REAL])
    for path in reals:
        if not Path(path).exists():
            continue
        r = measure(Path(path))
        if "error" in r:
            print(f"{Path(path).name}: failed: {r['error']}")
            continue
        print(f"{Path(path).name:<28} {r['nodes']:>8,} {r['cpu']:>12.2f} {r['wall']:>8.2f} "
              f"{r['rss'] / 2**20:>12.0f}  {r['layers']:,} layers", flush=True)
    if worst:
        print(f"largest graphs: slowest import {worst:.2f} s CPU (target: under ~10 s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
