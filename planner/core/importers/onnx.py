"""Open an ONNX file as an editable plan: the graph only, never the weight data.

``import_onnx(path, batch=None)`` returns an :class:`ImportResult` with a ``NetworkDraft`` of the
planner's own layers, a ``Setup`` and the warnings a user should see (operators counted by a
stand-in rule, a batch size fixed by the model, ...). Every problem with the file itself raises
:class:`OnnxImportError` with one clear message; nothing else escapes.

How it reads a file:

* The protobuf is *skimmed*: the file is memory-mapped and every initializer's data field larger
  than 64 KiB is skipped without being read (an initializer's ``dims`` give its parameter count).
  A 550 MB VGG-16 opens in a fraction of a second, and a model whose external weight file is
  missing opens too. When the skim cannot make sense of the bytes, ``onnx.load(path,
  load_external_data=False)`` reads the file and its error becomes the message.
* Intermediate shapes come from ``onnx.shape_inference.infer_shapes``. The graph input's batch
  dimension is renamed to one symbolic dimension first, so the batch axis of every tensor is
  known (an LSTM's ``seq × batch × features`` layout included) and the rest are per-sample
  shapes. A symbolic batch becomes the setup's batch size (32 or the ``batch`` argument); a
  fixed one is used as given and said so.
* Nodes map onto the planner's layer kinds (see ``_MAPPERS``); what a mapped layer keeps for
  backward follows the core's rules, so an exported torchvision network gives the same estimate
  as its hand-drafted preset. An operator without a mapping keeps its tensor shapes, is counted
  as keeping its input for backward, and is listed in a warning.

``onnx`` is an optional extra and is imported inside the functions.
"""

from __future__ import annotations

import math
import mmap
import os
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planner.core.layers import _MAX_DIM, RULES, LayerSpec, numel, shape_str
from planner.core.network import MAX_BATCH, NetworkDraft, PlanFileError, Setup, analyze

__all__ = ["ImportResult", "OnnxImportError", "import_onnx"]

MISSING_ONNX = "Opening ONNX files needs the onnx package: pip install 'gpu-planner[onnx]'"
DEFAULT_BATCH = 32
BATCH_DIM = "__planner_batch__"
# Initializers with at most this many elements keep their values (shape constants, Clip bounds,
# Pad widths, dropout ratios); larger ones become typed graph inputs before shape inference.
SMALL_ELEMENTS = 4096
SKIP_DATA_BYTES = 64 * 1024  # the skim drops tensor data fields larger than this
MAX_ELEMENTS = 1 << 40  # one tensor larger than this is not a real network
MAX_INFERENCE_ROUNDS = 25


class OnnxImportError(PlanFileError):
    """An ONNX file that cannot be opened as a plan; the message says why in one line.

    A ``PlanFileError`` (so a ``ValueError``): callers that report bad plan files report this the
    same way.
    """


@dataclass(frozen=True)
class ImportResult:
    draft: NetworkDraft
    setup: Setup
    warnings: tuple[str, ...]
    batch_from_model: int | None


def import_onnx(path: str | os.PathLike, *, batch: int | None = None) -> ImportResult:
    """Read the graph of an ONNX file and map it onto a draft (see the module docstring)."""
    where = Path(path).name if str(path) else "?"
    try:
        return _Importer(Path(path), batch).run()
    except OnnxImportError:
        raise
    except RecursionError:
        raise OnnxImportError(f"{where}: the graph is nested too deeply to read") from None
    except MemoryError:
        raise OnnxImportError(f"{where}: the file is too large to read") from None
    except Exception as exc:  # noqa: BLE001 - one error type leaves this module, whatever onnx does
        raise OnnxImportError(f"{where}: cannot be read as an ONNX network ({_one_line(exc)})") \
            from None


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    msg = text[0] if text else type(exc).__name__
    return msg if len(msg) <= 200 else msg[:197] + "..."


def _onnx():
    try:
        import onnx  # noqa: PLC0415
        import onnx.numpy_helper  # noqa: F401, PLC0415
        import onnx.shape_inference  # noqa: F401, PLC0415
    except ImportError:
        raise OnnxImportError(MISSING_ONNX) from None
    return onnx


# --------------------------------------------------------------------------------------------
# Reading the file: a protobuf skim that never touches weight data
# --------------------------------------------------------------------------------------------


class _SkimError(Exception):
    pass


def _varint(buf, pos: int, end: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= end or shift > 63:
            raise _SkimError("bad varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def _enc_varint(v: int) -> bytes:
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _fields(buf, start: int, end: int):
    """(field number, wire type, span start, span end, value start) of each field."""
    pos = start
    while pos < end:
        key, p = _varint(buf, pos, end)
        field, wt = key >> 3, key & 7
        if field == 0:
            raise _SkimError("field 0")
        if wt == 0:
            _, q = _varint(buf, p, end)
            vstart = p
        elif wt == 1:
            vstart, q = p, p + 8
        elif wt == 2:
            n, vstart = _varint(buf, p, end)
            q = vstart + n
        elif wt == 5:
            vstart, q = p, p + 4
        else:
            raise _SkimError("group fields")
        if q > end:
            raise _SkimError("truncated")
        yield field, wt, pos, q, vstart
        pos = q


_TENSOR_DATA_FIELDS = {4, 5, 7, 9, 10, 11}  # float/int32/int64/raw/double/uint64 data


def _skim_tensor(buf, start: int, end: int) -> bytes:
    out = bytearray()
    for field, wt, s, e, v in _fields(buf, start, end):
        if field in _TENSOR_DATA_FIELDS and wt == 2 and e - v > SKIP_DATA_BYTES:
            continue
        out += buf[s:e]
    return bytes(out)


def _sub(field: int, payload: bytes) -> bytes:
    return _enc_varint((field << 3) | 2) + _enc_varint(len(payload)) + payload


def _skim_graph(buf, start: int, end: int) -> bytes:
    out = bytearray()
    for field, wt, s, e, v in _fields(buf, start, end):
        if field == 5 and wt == 2:  # initializer
            out += _sub(5, _skim_tensor(buf, v, e))
        elif field == 15 and wt == 2:  # sparse_initializer: values (1), indices (2), dims (3)
            inner = bytearray()
            for f2, wt2, s2, e2, v2 in _fields(buf, v, e):
                if f2 in (1, 2) and wt2 == 2:
                    inner += _sub(f2, _skim_tensor(buf, v2, e2))
                else:
                    inner += buf[s2:e2]
            out += _sub(15, bytes(inner))
        else:
            out += buf[s:e]
    return bytes(out)


def _skim_model(buf) -> bytes:
    out = bytearray()
    for field, wt, s, e, v in _fields(buf, 0, len(buf)):
        if field == 7 and wt == 2:  # graph
            out += _sub(7, _skim_graph(buf, v, e))
        else:
            out += buf[s:e]
    return bytes(out)


def _read_model(path: Path, where: str):
    onnx = _onnx()
    if not path.exists():
        raise OnnxImportError(f"{where}: no such file")
    if path.is_dir():
        raise OnnxImportError(f"{where}: is a folder, not an ONNX file")
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise OnnxImportError(f"{where}: cannot be read ({_one_line(exc)})") from None
    if size == 0:
        raise OnnxImportError(f"{where}: the file is empty")
    model = None
    try:
        with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            skimmed = _skim_model(mm)
        model = onnx.ModelProto()
        model.ParseFromString(skimmed)
    except OSError as exc:
        raise OnnxImportError(f"{where}: cannot be read ({_one_line(exc)})") from None
    except Exception:  # noqa: BLE001 - the skim failed; let onnx itself say what is wrong
        model = None
    if model is None:
        try:
            model = onnx.load(str(path), load_external_data=False)
        except Exception as exc:  # noqa: BLE001
            raise OnnxImportError(
                f"{where}: not an ONNX file, or a truncated one ({_one_line(exc)})") from None
    if not model.HasField("graph") or not model.graph.node:
        raise OnnxImportError(f"{where}: not an ONNX network (the file holds no graph nodes)")
    return model


# --------------------------------------------------------------------------------------------
# The importer
# --------------------------------------------------------------------------------------------


Dim = Any  # int, BATCH_DIM, or None (unknown)

# Operators that only change how a tensor is indexed (no arithmetic, nothing kept).
_VIEW_OPS = {"Reshape", "Squeeze", "Unsqueeze", "Transpose", "Flatten", "Identity", "Expand"}
# Element-wise operators that keep their input for backward in PyTorch (the conservative stand-in).
_FUNCTIONAL = {"Add", "Sub", "Mul", "Div", "Concat", "Flatten", "Reshape", "ReduceMean", "Pad",
               "Transpose", "Squeeze", "Unsqueeze", "Resize", "Upsample", "MatMul", "Softmax"}
# Activations that torchvision runs in place where nothing else reads their input.
_INPLACE_FUNCTIONS = {"relu", "relu6", "leaky_relu", "hardswish", "hardsigmoid"}


class _Importer:
    def __init__(self, path: Path, batch: int | None):
        self.path = path
        self.where = path.name or str(path)
        self.batch_arg = batch
        self.warnings: list[str] = []
        self.unknown_ops: dict[str, list[str]] = defaultdict(list)
        self.layers: list[LayerSpec] = []
        self.names: set[str] = set()
        self.tensor_layer: dict[str, str] = {}  # activation tensor -> planner layer producing it
        self.skip: set[int] = set()  # nodes fused into another
        self.fused: dict[int, dict[str, Any]] = {}  # node index -> extra facts from fusions
        self.auto_inplace: set[str] = set()  # activations whose in-place flag is decided last
        # (layer, the file's per-sample shape, what) checked against the plan's shapes at the end
        self.expect: list[tuple[str, tuple[int, ...], str]] = []

    def fail(self, message: str):
        raise OnnxImportError(f"{self.where}: {message}")

    # ---------------------------------------------------------------------------- entry point
    def run(self) -> ImportResult:
        if self.batch_arg is not None and (
                not isinstance(self.batch_arg, int) or isinstance(self.batch_arg, bool)
                or not 1 <= self.batch_arg <= MAX_BATCH):
            self.fail(f"batch size {self.batch_arg!r} must be a whole number from 1 to "
                      f"{MAX_BATCH}")
        onnx = _onnx()
        self.onnx = onnx
        model = _read_model(self.path, self.where)
        graph = model.graph
        self.opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")),
                          0)
        self._collect_constants(graph)
        self.nodes = self._sorted_nodes(graph)
        fixed_batch = self._mark_batch(graph)
        self._strip_large_initializers(graph)
        self._infer(model)
        self._find_activations()
        self._prepass()
        self._map_all()
        draft = self._finish()
        if fixed_batch is not None:
            if self.batch_arg is not None and self.batch_arg != fixed_batch:
                self.warnings.insert(0, f"The model fixes the batch size at {fixed_batch}; "
                                        f"planning for batch {self.batch_arg} as asked.")
                batch_size = self.batch_arg
            else:
                self.warnings.insert(0, f"The model fixes the batch size at {fixed_batch} (not a "
                                        "symbolic dimension); the plan uses it as given.")
                batch_size = fixed_batch
        else:
            batch_size = self.batch_arg or DEFAULT_BATCH
        try:
            setup = Setup(batch_size=batch_size)
        except ValueError as exc:
            self.fail(str(exc))
        return ImportResult(draft, setup, tuple(self.warnings), fixed_batch)

    # ---------------------------------------------------------------------- graph bookkeeping
    def _collect_constants(self, graph) -> None:
        nh = self.onnx.numpy_helper
        self.init_dims: dict[str, tuple[int, ...]] = {}
        self.values: dict[str, Any] = {}  # small constant tensors: name -> numpy array
        for t in graph.initializer:
            dims = tuple(int(d) for d in t.dims)
            if any(d < 0 for d in dims) or numel(dims) > MAX_ELEMENTS or \
                    any(d > MAX_ELEMENTS for d in dims):
                self.fail(f"initializer '{t.name}' has absurd dimensions {list(dims)}")
            self.init_dims[t.name] = dims
            if numel(dims) <= SMALL_ELEMENTS and t.data_location != 1:
                try:
                    self.values[t.name] = nh.to_array(t)
                except Exception:  # noqa: BLE001 - a constant we cannot read is just unknown
                    pass
        for node in graph.node:
            if node.op_type == "Constant" and len(node.output) == 1:
                for a in node.attribute:
                    try:
                        if a.name == "value":
                            self.values[node.output[0]] = nh.to_array(a.t)
                        elif a.name in ("value_float", "value_int"):
                            import numpy as np  # noqa: PLC0415

                            self.values[node.output[0]] = np.array(
                                a.f if a.name == "value_float" else a.i)
                        elif a.name in ("value_floats", "value_ints"):
                            import numpy as np  # noqa: PLC0415

                            self.values[node.output[0]] = np.array(
                                list(a.floats if a.name == "value_floats" else a.ints))
                    except Exception:  # noqa: BLE001
                        pass

    def _sorted_nodes(self, graph) -> list:
        """The nodes in a topological order (Kahn's, stable), or a clear error for a cycle."""
        nodes = list(graph.node)
        producer: dict[str, int] = {}
        for i, n in enumerate(nodes):
            for o in n.output:
                if o:
                    producer[o] = i
        sources = {i.name for i in graph.input} | set(self.init_dims)
        deps: list[set[int]] = []
        users: dict[int, list[int]] = defaultdict(list)
        for i, n in enumerate(nodes):
            d = set()
            for name in n.input:
                if not name or name in sources and name not in producer:
                    continue
                p = producer.get(name)
                if p is None:
                    self.fail(f"node '{n.name or n.op_type}' reads '{name}', which no node, "
                              "input or initializer provides")
                d.add(p)
            deps.append(d)
            for p in d:
                users[p].append(i)
        remaining = [len(d) for d in deps]
        ready = [i for i, r in enumerate(remaining) if r == 0]
        order: list[int] = []
        import heapq  # noqa: PLC0415

        heapq.heapify(ready)
        while ready:
            i = heapq.heappop(ready)
            order.append(i)
            for u in users[i]:
                remaining[u] -= 1
                if remaining[u] == 0:
                    heapq.heappush(ready, u)
        if len(order) != len(nodes):
            stuck = [nodes[i].name or nodes[i].op_type for i, r in enumerate(remaining) if r]
            self.fail("the graph has a cycle (nodes " + ", ".join(f"'{s}'" for s in stuck[:4])
                      + (", ..." if len(stuck) > 4 else "") + " depend on each other)")
        return [nodes[i] for i in order]

    def _mark_batch(self, graph) -> int | None:
        """Name the batch dimension of the data input; returns the batch it fixes, if any."""
        inputs = [i for i in graph.input if i.name not in self.init_dims]
        if not inputs:
            self.fail("the graph has no data input (every input is a weight)")
        used = set()
        for n in graph.node:
            used.update(n.input)
        data = [i for i in inputs if i.name in used] or inputs
        if len(data) > 1:
            self.fail("the planner handles networks with one input; this graph has "
                      f"{len(data)}: " + ", ".join(f"'{i.name}'" for i in data[:5]))
        vi = data[0]
        self.input_name = vi.name
        if not vi.type.HasField("tensor_type") or not vi.type.tensor_type.HasField("shape"):
            self.fail(f"input '{vi.name}' has no shape (missing shapes: re-export with shapes)")
        dims = vi.type.tensor_type.shape.dim
        if len(dims) < 2:
            self.fail(f"input '{vi.name}' has {len(dims)} dimension(s); expected a batch "
                      "dimension and 1 to 4 more")
        symbolic = [k for k, d in enumerate(dims) if not d.HasField("dim_value")]
        axis = symbolic[0] if symbolic else 0
        fixed = None if symbolic else int(dims[0].dim_value)
        for k, d in enumerate(dims):
            if k == axis:
                continue
            if not d.HasField("dim_value"):
                self.fail(f"input '{vi.name}' dimension {k} ('{d.dim_param or '?'}') is symbolic "
                          "too; the planner needs every dimension but the batch fixed")
            if not 1 <= d.dim_value <= _MAX_DIM:
                self.fail(f"input '{vi.name}' dimension {k} is {d.dim_value}: absurd dimensions")
        if fixed is not None and not 1 <= fixed <= MAX_BATCH:
            self.fail(f"input '{vi.name}' fixes the batch at {fixed}, outside 1 to {MAX_BATCH}")
        dims[axis].Clear()
        dims[axis].dim_param = BATCH_DIM
        return fixed

    def _strip_large_initializers(self, graph) -> None:
        """Large initializers become typed graph inputs: shape inference needs only their shape,
        and serialising their data (for the C++ inference) would cost seconds."""
        helper = self.onnx.helper
        keep, big = [], []
        for t in graph.initializer:
            if t.name in self.values:
                keep.append(t)
            else:
                big.append(helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)))
        listed = {i.name for i in graph.input}
        graph.ClearField("initializer")
        graph.initializer.extend(keep)
        graph.input.extend(v for v in big if v.name not in listed)

    # ---------------------------------------------------------------------- shape inference
    def _infer(self, model) -> None:
        si = self.onnx.shape_inference
        self.shapes: dict[str, tuple[Dim, ...]] = {}
        for _round in range(MAX_INFERENCE_ROUNDS):
            try:
                inferred = si.infer_shapes(model, check_type=False, strict_mode=False,
                                           data_prop=True)
            except Exception as exc:  # noqa: BLE001
                self.fail(f"ONNX shape inference failed: {_one_line(exc)}")
            self.shapes = self._read_shapes(inferred.graph)
            missing = self._first_missing()
            if missing is None:
                return
            node, out_names, src = missing
            # An operator shape inference does not know: assume it keeps its input's shape.
            src_vi = self._vi_by_name(inferred.graph, src)
            self.unknown_ops[node.op_type]  # listed in the warning even if it maps later
            self.warnings.append(
                f"Shape inference does not know '{node.op_type}' (node "
                f"'{node.name or out_names[0]}'): assumed to keep its input's shape.")
            for o in out_names:
                vi = model.graph.value_info.add()
                vi.CopyFrom(src_vi)
                vi.name = o
        self.fail("ONNX shape inference leaves too many tensor shapes unknown (missing shapes)")

    @staticmethod
    def _vi_by_name(graph, name):
        for coll in (graph.input, graph.value_info, graph.output):
            for vi in coll:
                if vi.name == name:
                    return vi
        raise KeyError(name)

    def _read_shapes(self, graph) -> dict[str, tuple[Dim, ...]]:
        out: dict[str, tuple[Dim, ...]] = {}
        for coll in (graph.input, graph.value_info, graph.output):
            for vi in coll:
                tt = vi.type.tensor_type if vi.type.HasField("tensor_type") else None
                if tt is None or not tt.HasField("shape"):
                    continue
                dims: list[Dim] = []
                for d in tt.shape.dim:
                    if d.HasField("dim_value"):
                        v = int(d.dim_value)
                        if v > _MAX_DIM and vi.name not in self.init_dims:
                            self.fail(f"tensor '{vi.name}' has a dimension of {v}: absurd "
                                      "dimensions")
                        dims.append(v)
                    elif d.dim_param == BATCH_DIM:
                        dims.append(BATCH_DIM)
                    else:
                        dims.append(None)
                out.setdefault(vi.name, tuple(dims))
        for name, dims in self.init_dims.items():
            out[name] = dims
        return out

    def _first_missing(self):
        """The first node (in order) that reads a batch tensor but whose outputs have no shape."""
        batch_tensors = {self.input_name}
        for node in self.nodes:
            reads = [i for i in node.input if i in batch_tensors]
            if not reads:
                continue
            outs = [o for o in node.output if o]
            if outs and all(o not in self.shapes for o in outs):
                return node, outs, reads[0]
            for o in outs:
                if BATCH_DIM in self.shapes.get(o, ()) or None in self.shapes.get(o, ()):
                    batch_tensors.add(o)
        return None

    # -------------------------------------------------------------------- per-sample shapes
    def per_sample(self, name: str) -> tuple[int, ...] | None:
        """The per-sample shape of an activation tensor (batch axis removed), or None."""
        dims = self.shapes.get(name)
        if dims is None:
            return None
        if BATCH_DIM in dims:
            axis = dims.index(BATCH_DIM)
        elif dims.count(None) == 1:
            axis = dims.index(None)  # e.g. Flatten's batch × rest: the unknown is the batch
        else:
            return None
        rest = dims[:axis] + dims[axis + 1:]
        if any(not isinstance(d, int) for d in rest):
            return None
        return tuple(rest)

    def batch_axis(self, name: str) -> int | None:
        dims = self.shapes.get(name, ())
        if BATCH_DIM in dims:
            return dims.index(BATCH_DIM)
        if dims.count(None) == 1:
            return dims.index(None)
        return None

    def _find_activations(self) -> None:
        self.acts: set[str] = {self.input_name}
        self.consumers: dict[str, list[int]] = defaultdict(list)
        for k, node in enumerate(self.nodes):
            for i in node.input:
                if i:
                    self.consumers[i].append(k)
            if any(i in self.acts for i in node.input):
                for o in node.output:
                    if o and self.per_sample(o) is not None:
                        self.acts.add(o)
        shape = self.per_sample(self.input_name)
        if shape is None or not 1 <= len(shape) <= 4:
            self.fail(f"input '{self.input_name}' needs 1 to 4 dimensions besides the batch, "
                      f"got {shape_str(shape)}")

    # ----------------------------------------------------------------------------- fusions
    def _only_consumer(self, tensor: str) -> int | None:
        users = self.consumers.get(tensor, [])
        return users[0] if len(users) == 1 else None

    def _prepass(self) -> None:
        index = {id(n): k for k, n in enumerate(self.nodes)}
        for k, node in enumerate(self.nodes):
            op = node.op_type
            if op == "Sigmoid" and node.output:
                # x * sigmoid(x): SiLU, as PyTorch exports it.
                u = self._only_consumer(node.output[0])
                if u is not None:
                    mul = self.nodes[u]
                    if mul.op_type == "Mul" and set(mul.input) == {node.input[0], node.output[0]}:
                        self.skip.add(k)
                        self.fused[u] = {"silu": node.input[0]}
            elif op == "MatMul" and len(node.input) == 2 and node.input[1] in self.init_dims \
                    and len(self.init_dims[node.input[1]]) == 2:
                # MatMul + Add(bias): a linear layer with a bias, as PyTorch exports it.
                units = self.init_dims[node.input[1]][1]
                u = self._only_consumer(node.output[0])
                if u is not None:
                    add = self.nodes[u]
                    if add.op_type == "Add":
                        other = [i for i in add.input if i != node.output[0]]
                        if len(other) == 1 and other[0] in self.init_dims and \
                                numel(self.init_dims[other[0]]) == units:
                            self.fused[k] = {"bias": True}
                            self.fused[u] = {"alias": True}
            elif op == "Pad" and node.output:
                u = self._only_consumer(node.output[0])
                pads = self._pads_of(node)
                if u is not None and pads is not None and self.nodes[u].op_type in (
                        "Conv", "MaxPool", "AveragePool") and self.nodes[u].input[0] == \
                        node.output[0]:
                    self.skip.add(k)
                    self.fused[u] = {"extra_pads": pads}
        del index

    def _pads_of(self, node) -> list[int] | None:
        """A Pad node's constant zero padding of the spatial dims only, as [begins..., ends...]
        over those dims; None when it is not that."""
        mode = self.attr(node, "mode", b"constant")
        if mode not in (b"constant", "constant"):
            return None
        pads = self.attr(node, "pads")
        if pads is None and len(node.input) > 1:
            pads = self.const(node.input[1])
        if len(node.input) > 2 and node.input[2]:
            value = self.const(node.input[2])
            if value is None or any(float(v) != 0.0 for v in _flat(value)):
                return None
        if pads is None or (len(node.input) > 3 and node.input[3]):
            return None  # axes given: not worth the trouble
        pads = [int(v) for v in _flat(pads)]
        rank = len(pads) // 2
        if rank < 3 or any(p < 0 for p in pads):
            return None
        begins, ends = pads[:rank], pads[rank:]
        if any(begins[:2]) or any(ends[:2]):
            return None
        return begins[2:] + ends[2:]

    # ------------------------------------------------------------------------- helpers
    def attr(self, node, name: str, default=None):
        for a in node.attribute:
            if a.name == name:
                try:
                    return self.onnx.helper.get_attribute_value(a)
                except Exception:  # noqa: BLE001
                    return default
        return default

    def const(self, name: str):
        """The value of a small constant tensor (initializer or Constant node), or None."""
        seen = 0
        while name not in self.values and seen < 8:
            # Look through Identity / Cast of constants (exporters put them in).
            prod = next((n for n in self.nodes if name in n.output and n.op_type in
                         ("Identity", "Cast")), None)
            if prod is None:
                return None
            name = prod.input[0]
            seen += 1
        return self.values.get(name)

    def dims_of(self, name: str) -> tuple[int, ...] | None:
        if name in self.init_dims:
            return self.init_dims[name]
        dims = self.shapes.get(name)
        if dims is not None and all(isinstance(d, int) for d in dims):
            return tuple(dims)
        return None

    def node_label(self, node) -> str:
        return node.name or (node.output[0] if node.output else node.op_type)

    def layer_name(self, node) -> str:
        raw = (node.name or "").strip()
        op = node.op_type
        base = ""
        if raw.startswith("/"):  # PyTorch's scoped names: /layer1/layer1.0/conv1/Conv
            parts = [p for p in raw.split("/") if p]
            if parts and re.fullmatch(re.escape(op) + r"(_\d+)?", parts[-1]):
                parts = parts[:-1]
            q = ""
            for p in parts:
                q = p if not q or p.startswith(q + ".") else f"{q}.{p}"
            base = q
            if op in _FUNCTIONAL or not base:
                base = f"{base}.{op.lower()}" if base else op.lower()
        elif raw:
            base = raw
        if not base:
            base = (node.output[0] if node.output and node.output[0] else op.lower())
            base = base.lstrip("/").replace("/", ".") or op.lower()
        return self.unique(base)

    def unique(self, base: str) -> str:
        name = base
        k = 2
        while name in self.names or name == "":
            name = f"{base}_{k}"
            k += 1
        self.names.add(name)
        return name

    def emit(self, kind: str, node, params: dict[str, Any], main: str,
             out: list[str] | None = None, name: str | None = None) -> str:
        """Add a layer reading activation tensor ``main``; its output stands for ``out``."""
        name = name or self.layer_name(node)
        src = self.tensor_layer[main]
        params = dict(params)
        if self.layers and self.layers[-1].name != src:
            params["input"] = src
        self.layers.append(LayerSpec(kind, name, params))
        targets = out if out is not None else [o for o in node.output[:1] if o]
        for o in targets:
            self.tensor_layer[o] = name
        if targets and kind not in ("lstm", "gru"):
            shape = self.per_sample(targets[0])
            if shape is not None:
                self.expect.append((name, shape, f"{node.op_type} '{self.node_label(node)}'"))
        return name

    def alias(self, node, main: str) -> None:
        for o in node.output:
            if o and o in self.acts:
                self.tensor_layer[o] = self.tensor_layer[main]

    def placeholder(self, node, main: str, why: str = "") -> None:
        """An operator without a mapping: shape-keeping, keeps its input for backward."""
        self.unknown_ops[node.op_type].append(self.node_label(node))
        out = next((o for o in node.output if o in self.acts), None)
        in_shape = self.per_sample(main)
        out_shape = self.per_sample(out) if out else None
        if out is None:
            return  # produces no batch tensor: nothing to count
        if "generic" in RULES:  # the core's stand-in kind, when it has one
            params: dict[str, Any] = {"keeps": "input"}
            if out_shape != in_shape:
                params["shape"] = out_shape
            self.emit("generic", node, params, main, out=[out])
            return
        if out_shape == in_shape:
            # A shape-keeping layer that keeps its input: GELU's rule, not in place.
            self.emit("activation", node, {"function": "gelu", "inplace": False}, main, out=[out])
        elif len(out_shape) == 1 and numel(out_shape) == numel(in_shape):
            self.emit("flatten", node, {}, main, out=[out])
        elif in_shape and len(out_shape) == len(in_shape) in (3, 4) and \
                out_shape[0] == in_shape[0] and all(o <= i for o, i in
                                                    zip(out_shape[1:], in_shape[1:])):
            self.emit("adaptive_avgpool", node, {"output": tuple(out_shape[1:])}, main,
                      out=[out])
        else:
            self.alias(node, main)
            self.warnings.append(
                f"'{node.op_type}' node '{self.node_label(node)}' changes {shape_str(in_shape)} "
                f"to {shape_str(out_shape)}, which no planner layer can express: the plan keeps "
                f"{shape_str(in_shape)} there{why}.")

    # ------------------------------------------------------------------------- the mapping
    def _map_all(self) -> None:
        self.tensor_layer[self.input_name] = self.unique("input")
        self.layers.append(LayerSpec("input", self.tensor_layer[self.input_name],
                                     {"shape": self.per_sample(self.input_name)}))
        for k, node in enumerate(self.nodes):
            acts = [i for i in node.input if i in self.acts and i in self.tensor_layer]
            if not acts:
                continue  # shape arithmetic, constants, weight preprocessing: no activation
            if k in self.skip:  # folded into the next node (its padding, a SiLU)
                self.alias(node, acts[0])
                continue
            if node.op_type in ("Shape", "Size"):
                continue  # reads only the shape
            mapper = _MAPPERS.get(node.op_type)
            facts = self.fused.get(k, {})
            if facts.get("alias"):
                self.alias(node, node.input[0] if node.input[0] in self.acts else acts[0])
                continue
            main = acts[0]
            if mapper is None:
                self.placeholder(node, main)
            else:
                mapper(self, node, main, acts, facts)

    # ---------------------------------------------------------------------- finishing touches
    def _finish(self) -> NetworkDraft:
        layers = self.layers
        if len(layers) < 2:
            self.fail("no operator of the graph reads the input: nothing to plan")
        # Which layers read each layer's output.
        readers: dict[str, int] = defaultdict(int)
        for i, layer in enumerate(layers):
            if i == 0:
                continue
            readers[layer.source() or layers[i - 1].name] += 1
            for r in layer.refs():
                readers[r] += 1
        out = []
        for i, layer in enumerate(layers):
            if layer.name in self.auto_inplace and layer.params.get("function") in \
                    _INPLACE_FUNCTIONS:
                src = layer.source() or layers[i - 1].name
                inplace = readers[src] == 1 and src != layers[0].name
                layer = layer.replace(inplace=inplace)
            out.append(layer)
        draft = NetworkDraft(self.path.stem or "imported", tuple(out),
                             f"Imported from {self.path.name} (ONNX opset {self.opset}).")
        if self.unknown_ops:
            parts = [f"{op} ×{len(where)}" if len(where) != 1 else op
                     for op, where in sorted(self.unknown_ops.items())]
            rule = ("the 'generic' layer" if "generic" in RULES else
                    "a stand-in layer (GELU's rule, not in place)")
            self.warnings.append(
                "Operators without a planner layer, counted as keeping their input for backward "
                f"({rule}; shapes kept as in the file): " + ", ".join(parts) + ".")
        analysis = analyze(draft)
        plan_shapes = {info.name: info.out_shape for info in analysis.layers}
        drift = []
        for name, shape, what in self.expect:
            plan = plan_shapes.get(name)
            if plan is not None and _squeezed(plan) != _squeezed(shape):
                drift.append(f"{what} ({shape_str(shape)} in the file, {shape_str(plan)} in the "
                             f"plan's layer '{name}')")
        if drift:
            self.warnings.append(
                f"The plan's shapes differ from the file's at {len(drift)} place(s), first: "
                + "; ".join(drift[:3]) + ". Layers there may need editing.")
        if not analysis.ok:
            shown = "; ".join(str(p) for p in analysis.problems[:3])
            more = f" (and {len(analysis.problems) - 3} more)" if len(analysis.problems) > 3 else ""
            self.warnings.append(f"The imported plan has problems to fix: {shown}{more}.")
        return draft


def _squeezed(shape) -> tuple[int, ...]:
    return tuple(d for d in shape if d != 1)


def _flat(value) -> list:
    try:
        return list(value.reshape(-1)) if hasattr(value, "reshape") else list(value)
    except TypeError:
        return [value]


# --------------------------------------------------------------------------------------------
# One function per operator: (importer, node, main activation, activation inputs, fused facts)
# --------------------------------------------------------------------------------------------


def _norm_padding(begins: list[int], ends: list[int], imp: _Importer, node, what: str):
    """ONNX pads → the planner's symmetric padding (one number, or one per dimension)."""
    if begins != ends:
        imp.warnings.append(
            f"{what} '{imp.node_label(node)}' pads unevenly ({begins} before, {ends} after): "
            "the plan pads the rounded-up mean on both sides.")
        pads = [math.ceil((b + e) / 2) for b, e in zip(begins, ends)]
    else:
        pads = list(begins)
    return pads[0] if len(set(pads)) == 1 else tuple(pads)


def _one(values):
    values = tuple(int(v) for v in values)
    return values[0] if len(set(values)) == 1 else values


def _conv_padding(imp: _Importer, node, dims: int, kernel, strides, dilations, facts):
    auto = imp.attr(node, "auto_pad", b"NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else str(auto)
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        return "same"
    if auto == "VALID":
        pads = [0] * (2 * dims)
    else:
        pads = [int(v) for v in (imp.attr(node, "pads") or [0] * (2 * dims))]
    if len(pads) != 2 * dims:
        imp.fail(f"node '{imp.node_label(node)}' has {len(pads)} pads for {dims} spatial "
                 "dimensions")
    extra = facts.get("extra_pads")
    if extra and len(extra) == 2 * dims:
        pads = [a + b for a, b in zip(pads, extra)]
    return _norm_padding(pads[:dims], pads[dims:], imp, node, node.op_type)


def _map_conv(imp: _Importer, node, main, acts, facts):
    w = imp.dims_of(node.input[1]) if len(node.input) > 1 else None
    x = imp.per_sample(main)
    if w is None or len(w) < 3:
        return imp.placeholder(node, main, " (its weight shape is unknown)")
    dims = len(w) - 2
    if dims not in (2, 3) or x is None or len(x) != dims + 1:
        return imp.placeholder(node, main, f" ({dims}-D convolutions have no planner layer)")
    kernel = imp.attr(node, "kernel_shape") or list(w[2:])
    strides = imp.attr(node, "strides") or [1] * dims
    dilations = imp.attr(node, "dilations") or [1] * dims
    group = int(imp.attr(node, "group", 1) or 1)
    bias = len(node.input) > 2 and bool(node.input[2])
    params = {
        "filters": int(w[0]), "kernel": _one(kernel), "stride": _one(strides),
        "padding": _conv_padding(imp, node, dims, kernel, strides, dilations, facts),
        "dilation": _one(dilations), "groups": group, "bias": bias,
    }
    imp.emit("conv2d" if dims == 2 else "conv3d", node, params, main)


def _map_conv_transpose(imp: _Importer, node, main, acts, facts):
    w = imp.dims_of(node.input[1]) if len(node.input) > 1 else None
    x = imp.per_sample(main)
    out = imp.per_sample(node.output[0])
    if w is None or x is None or out is None or len(w) not in (4, 5) or len(x) != len(w) - 1:
        return imp.placeholder(node, main)
    dims = len(w) - 2
    group = int(imp.attr(node, "group", 1) or 1)
    filters = int(w[1]) * group
    kernel = imp.attr(node, "kernel_shape") or list(w[2:])
    strides = imp.attr(node, "strides") or [1] * dims
    bias = len(node.input) > 2 and bool(node.input[2])
    kind = "conv_transpose2d" if dims == 2 else "conv_transpose3d"
    if kind in RULES:
        pads = [int(v) for v in (imp.attr(node, "pads") or [0] * (2 * dims))]
        imp.emit(kind, node, {
            "filters": filters, "kernel": _one(kernel), "stride": _one(strides),
            "padding": _norm_padding(pads[:dims], pads[dims:], imp, node, "ConvTranspose"),
            "output_padding": _one(imp.attr(node, "output_padding") or [0] * dims),
            "dilation": _one(imp.attr(node, "dilations") or [1] * dims),
            "groups": group, "bias": bias}, main)
        return
    # No transposed convolution in the core: a 'same' convolution with the same weights on the
    # small input (keeps that input, as a transposed convolution does; same parameter count)
    # followed by an upsample by the stride (keeps nothing).
    scales = {o // i for o, i in zip(out[1:], x[1:]) if i}
    exact = all(i and o % i == 0 for o, i in zip(out[1:], x[1:])) and len(scales) == 1
    scale = max(1, scales.pop() if len(scales) == 1 else round(numel(out[1:]) /
                                                                 max(1, numel(x[1:])) **
                                                                 (1 / dims)))
    base = imp.layer_name(node)
    imp.emit("conv2d" if dims == 2 else "conv3d", node, {
        "filters": filters, "kernel": _one(kernel), "stride": 1, "padding": "same",
        "dilation": 1, "groups": group, "bias": bias}, main, out=[], name=base)
    if scale > 1 or dims == 3:
        up_name = imp.unique(f"{base}.upsample")
        imp.layers.append(LayerSpec("upsample", up_name, {"scale": scale, "mode": "nearest"}))
        imp.tensor_layer[node.output[0]] = up_name
    else:
        imp.tensor_layer[node.output[0]] = base
    imp.warnings.append(
        f"ConvTranspose '{imp.node_label(node)}' is planned as a 'same' convolution followed by "
        f"a ×{scale} upsample (the core has no transposed convolution): parameters and saved "
        "input are exact" + ("" if exact else f", the output {shape_str(out)} is approximated")
        + "; FLOPs are approximate.")


def _pool_params(imp: _Importer, node, facts) -> dict[str, Any] | None:
    kernel = imp.attr(node, "kernel_shape")
    if not kernel:
        return None
    dims = len(kernel)
    strides = imp.attr(node, "strides") or [1] * dims
    auto = imp.attr(node, "auto_pad", b"NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else str(auto)
    pads = [int(v) for v in (imp.attr(node, "pads") or [0] * (2 * dims))]
    extra = facts.get("extra_pads")
    if extra and len(extra) == 2 * dims:
        pads = [a + b for a, b in zip(pads, extra)]
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        total = []
        x = imp.per_sample(node.input[0])
        for k in range(dims):
            size = x[1 + k] if x and len(x) == dims + 1 else kernel[k]
            out = math.ceil(size / strides[k])
            total.append(max((out - 1) * strides[k] + kernel[k] - size, 0))
        pads = [t // 2 for t in total] + [t - t // 2 for t in total]
    padding = _norm_padding(pads[:dims], pads[dims:], imp, node, node.op_type)
    return {"kernel": _one(kernel), "stride": _one(strides), "padding": padding,
            "ceil_mode": bool(imp.attr(node, "ceil_mode", 0))}


def _map_pool(kind: str):
    def mapper(imp: _Importer, node, main, acts, facts):
        x = imp.per_sample(main)
        params = _pool_params(imp, node, facts)
        if params is None or x is None or len(x) not in (3, 4):
            return imp.placeholder(node, main)
        if kind == "maxpool" and len([o for o in node.output if o]) > 1:
            pass  # the Indices output is the same int64 tensor the planner already counts
        imp.emit(kind, node, params, main)
    return mapper


def _followed_by_flatten(imp: _Importer, tensor: str) -> bool:
    users = imp.consumers.get(tensor, [])
    if not users:
        return True
    for u in users:
        n = imp.nodes[u]
        out = n.output[0] if n.output else ""
        if n.op_type in ("Flatten", "Reshape", "Squeeze") and \
                len(imp.per_sample(out) or ()) == 1:
            continue
        return False
    return True


def _map_global_avgpool(imp: _Importer, node, main, acts, facts):
    x = imp.per_sample(main)
    if x is None or len(x) not in (2, 3, 4):
        return imp.placeholder(node, main)
    if _followed_by_flatten(imp, node.output[0]):
        imp.emit("global_avgpool", node, {}, main)
        return
    imp.emit("adaptive_avgpool", node, {"output": 1}, main)
    imp.warnings.append(
        f"GlobalAveragePool '{imp.node_label(node)}' feeds layers that need its C×1×1 shape: "
        "planned as an adaptive average pool to 1×1 (which keeps its input for backward; "
        "PyTorch's mean() keeps nothing), an over-estimate.")


def _map_reduce_mean(imp: _Importer, node, main, acts, facts):
    x = imp.per_sample(main)
    axes = imp.attr(node, "axes")
    if axes is None and len(node.input) > 1 and node.input[1]:
        axes = imp.const(node.input[1])
    keepdims = int(imp.attr(node, "keepdims", 1))
    bax = imp.batch_axis(main)
    if x is None or axes is None or bax is None:
        return imp.placeholder(node, main)
    rank = len(x) + 1
    norm = sorted({int(a) % rank for a in _flat(axes)})
    per_sample_axes = [a - (1 if a > bax else 0) for a in norm if a != bax]
    if len(x) in (2, 3, 4) and bax not in norm and per_sample_axes == list(range(1, len(x))):
        if not keepdims or _followed_by_flatten(imp, node.output[0]):
            imp.emit("global_avgpool", node, {}, main)
        else:
            imp.emit("adaptive_avgpool", node, {"output": 1}, main)
        return
    imp.placeholder(node, main)


def _map_batchnorm(imp: _Importer, node, main, acts, facts):
    x = imp.per_sample(main)
    if x is None or len(x) < 2:
        return imp.placeholder(node, main)
    mode = imp.attr(node, "training_mode", None)
    if mode == 0 and not getattr(imp, "_bn_eval_said", False):
        imp._bn_eval_said = True  # noqa: SLF001
        imp.warnings.append("Batch norm was exported in inference mode; the plan counts what "
                            "training keeps (the core's rule).")
    imp.emit("batchnorm", node, {}, main, out=[node.output[0]])


def _map_layernorm(imp: _Importer, node, main, acts, facts):
    x = imp.per_sample(main)
    if x is None:
        return imp.placeholder(node, main)
    axis = int(imp.attr(node, "axis", -1))
    rank = len(x) + 1
    scale = imp.dims_of(node.input[1]) if len(node.input) > 1 and node.input[1] else None
    if axis % rank != rank - 1:
        imp.warnings.append(
            f"LayerNormalization '{imp.node_label(node)}' normalises from axis {axis}; the plan "
            "normalises the last dimension (parameters and statistics may differ).")
    elif scale is not None and numel(scale) != x[-1]:
        imp.warnings.append(f"LayerNormalization '{imp.node_label(node)}': scale of "
                            f"{numel(scale)} elements differs from the last dimension {x[-1]}.")
    if not (len(node.input) > 2 and node.input[2]):
        imp.warnings.append(f"LayerNormalization '{imp.node_label(node)}' has no bias; the plan "
                            f"counts one ({x[-1]} parameters too many).")
    imp.emit("layernorm", node, {}, main, out=[node.output[0]])


def _map_activation(function: str):
    def mapper(imp: _Importer, node, main, acts, facts):
        imp.auto_inplace.add(imp.emit("activation", node, {"function": function}, main))
    return mapper


def _map_clip(imp: _Importer, node, main, acts, facts):
    lo = imp.attr(node, "min")
    hi = imp.attr(node, "max")
    if len(node.input) > 1 and node.input[1]:
        v = imp.const(node.input[1])
        lo = round(float(_flat(v)[0]), 6) if v is not None and len(_flat(v)) else None
    if len(node.input) > 2 and node.input[2]:
        v = imp.const(node.input[2])
        hi = round(float(_flat(v)[0]), 6) if v is not None and len(_flat(v)) else None
    if lo == 0 and (hi is None or hi >= 3.0e38):
        function = "relu"
    else:
        function = "relu6"
        if not (lo == 0 and hi == 6):
            imp.warnings.append(
                f"Clip '{imp.node_label(node)}' (min {lo}, max {hi}) is planned as ReLU6, which "
                "has the same memory rule (keeps its input).")
    imp.auto_inplace.add(imp.emit("activation", node, {"function": function}, main))


def _map_softmax(imp: _Importer, node, main, acts, facts):
    if "generic" in RULES:
        imp.emit("generic", node, {"keeps": "output"}, main)
        return
    imp.emit("activation", node, {"function": "sigmoid", "inplace": False}, main)
    imp.warnings.append(
        f"Softmax '{imp.node_label(node)}' is planned as a sigmoid activation: the same memory "
        "rule (keeps its output for backward).")


def _map_dropout(imp: _Importer, node, main, acts, facts):
    ratio = imp.attr(node, "ratio")
    if ratio is None and len(node.input) > 1 and node.input[1]:
        v = imp.const(node.input[1])
        ratio = float(_flat(v)[0]) if v is not None and len(_flat(v)) else None
    p = 0.5 if ratio is None else round(float(ratio), 6)  # fp32 0.3 → 0.3
    if not 0.0 <= p < 1.0:
        p = 0.5
    imp.emit("dropout", node, {"p": p}, main, out=[node.output[0]])


def _map_gemm(imp: _Importer, node, main, acts, facts):
    b = imp.dims_of(node.input[1]) if len(node.input) > 1 else None
    if node.input[1] in imp.acts or b is None or len(b) != 2:
        return imp.placeholder(node, main, " (Gemm of two activations)")
    trans_b = int(imp.attr(node, "transB", 0))
    if int(imp.attr(node, "transA", 0)):
        imp.warnings.append(f"Gemm '{imp.node_label(node)}' transposes its input (transA); the "
                            "plan reads it untransposed.")
    units = int(b[0] if trans_b else b[1])
    bias = len(node.input) > 2 and bool(node.input[2])
    imp.emit("fc", node, {"units": units, "bias": bias}, main)


def _map_matmul(imp: _Importer, node, main, acts, facts):
    if len(node.input) < 2:
        return imp.placeholder(node, main)
    w = imp.dims_of(node.input[1])
    if node.input[1] in imp.acts or w is None or len(w) != 2 or node.input[0] != main:
        return imp.placeholder(node, main, " (a product of two activations)")
    imp.emit("fc", node, {"units": int(w[1]), "bias": bool(facts.get("bias"))}, main)


def _map_flatten(imp: _Importer, node, main, acts, facts):
    out = imp.per_sample(node.output[0])
    if out is not None and len(out) == 1:
        imp.emit("flatten", node, {}, main)
    else:
        _map_view(imp, node, main, acts, facts)


def _map_view(imp: _Importer, node, main, acts, facts):
    """Reshape / Squeeze / Unsqueeze / Transpose: a view. To a vector: flatten; else the plan
    keeps the input's shape (with a warning when the per-sample shape really changes)."""
    x = imp.per_sample(main)
    out = imp.per_sample(node.output[0]) if node.output else None
    if out is not None and x is not None and len(out) == 1 and len(_squeezed(x)) > 1 and \
            numel(out) == numel(x):
        imp.emit("flatten", node, {}, main)
        return
    imp.alias(node, main)
    # Checked against the plan where a computing layer reads it (views of views are not).
    readers = imp.consumers.get(node.output[0], []) if node.output else []
    if out is not None and (not readers or any(imp.nodes[u].op_type not in _VIEW_OPS
                                               for u in readers)):
        imp.expect.append((imp.tensor_layer[main], out, f"{node.op_type} '{imp.node_label(node)}'"))


def _map_binary(imp: _Importer, node, main, acts, facts):
    op = node.op_type
    if facts.get("silu"):
        name = imp.layer_name(node)
        imp.emit("activation", node, {"function": "silu"}, facts["silu"],
                 name=name[:-4] + ".silu" if name.endswith(".mul") else name)
        return
    if len(acts) >= 2:
        a, b = acts[0], acts[1]
        sa, sb = imp.per_sample(a), imp.per_sample(b)
        out = imp.per_sample(node.output[0])
        if sa == sb and op in ("Add", "Sub"):
            # Read the more recent one as the main input (usually the previous layer).
            order = {name: i for i, name in enumerate(layer.name for layer in imp.layers)}
            la, lb = imp.tensor_layer[a], imp.tensor_layer[b]
            main_t, other = (a, lb) if order[la] >= order[lb] else (b, la)
            if la == lb:
                imp.warnings.append(f"{op} '{imp.node_label(node)}' adds a tensor to itself.")
            imp.emit("add", node, {"from": other}, main_t)
            return
        # A product or quotient of activations keeps both operands; broadcasting ones (SE
        # blocks) take the larger operand's shape.
        big = a if numel(sa or ()) >= numel(sb or ()) else b
        if out == imp.per_sample(big):
            imp.unknown_ops[op].append(imp.node_label(node))
            small = b if big == a else a
            imp.emit("generic" if "generic" in RULES else "activation", node,
                     {"keeps": "inputs", "from": (imp.tensor_layer[small],)}
                     if "generic" in RULES else {"function": "gelu", "inplace": False}, big)
            if "generic" not in RULES:
                imp.warnings.append(
                    f"{op} '{imp.node_label(node)}' of two activations is counted as keeping one "
                    "operand (the larger); PyTorch keeps both.")
            return
        return imp.placeholder(node, main)
    # With a constant: a scaling or shift, shape-preserving; PyTorch keeps nothing per sample.
    out = imp.per_sample(node.output[0])
    if out is not None and out != imp.per_sample(main):
        return imp.placeholder(node, main)
    if "generic" in RULES:
        imp.emit("generic", node, {"keeps": "nothing"}, main)
    else:
        imp.emit("dropout", node, {"p": 0.0}, main)
        imp.scalings = getattr(imp, "scalings", 0) + 1
        if imp.scalings == 1:
            imp.warnings.append(
                f"{op} with a constant ('{imp.node_label(node)}' and any others) is planned as a "
                "dropout with p = 0: shape-preserving, keeps nothing (the core has no scaling "
                "layer).")


def _map_concat(imp: _Importer, node, main, acts, facts):
    bax = imp.batch_axis(node.output[0])
    axis = int(imp.attr(node, "axis", 1))
    out = imp.per_sample(node.output[0])
    if bax is None or out is None:
        return imp.placeholder(node, main)
    rank = len(out) + 1
    axis %= rank
    if axis == bax:
        return imp.placeholder(node, main, " (concatenation over the batch)")
    ps_axis = axis - (1 if axis > bax else 0)
    inputs = [i for i in node.input if i]
    if ps_axis != 0 or any(i not in imp.acts for i in inputs):
        return imp.placeholder(node, main, " (the planner concatenates channels only)")
    first = inputs[0]
    if len(inputs) == 1:  # torch.cat([x]): a copy of one tensor
        imp.alias(node, first)
        return
    others = [imp.tensor_layer[i] for i in inputs[1:]]
    imp.emit("concat", node, {"from": tuple(others)}, first)


def _map_resize(imp: _Importer, node, main, acts, facts):
    x = imp.per_sample(main)
    out = imp.per_sample(node.output[0])
    if x is None or out is None or len(x) not in (3, 4) or out[0] != x[0]:
        return imp.placeholder(node, main)
    scales = {o // i if i and o % i == 0 else 0 for o, i in zip(out[1:], x[1:])}
    if len(scales) != 1 or 0 in scales:
        return imp.placeholder(node, main, " (a non-integer or uneven scale)")
    mode = imp.attr(node, "mode", b"nearest")
    mode = mode.decode() if isinstance(mode, bytes) else str(mode)
    imp.emit("upsample", node, {"scale": scales.pop(),
                                "mode": "nearest" if mode == "nearest" else "bilinear"}, main)


def _map_pad(imp: _Importer, node, main, acts, facts):
    x = imp.per_sample(main)
    out = imp.per_sample(node.output[0])
    imp.alias(node, main)
    if x != out:
        imp.warnings.append(
            f"Pad '{imp.node_label(node)}' ({shape_str(x)} → {shape_str(out)}) is not followed by "
            "a convolution or pooling it can be folded into; the plan leaves it out.")


def _map_rnn(kind: str):
    def mapper(imp: _Importer, node, main, acts, facts):
        x = imp.per_sample(main)
        hidden = imp.attr(node, "hidden_size")
        direction = imp.attr(node, "direction", b"forward")
        direction = direction.decode() if isinstance(direction, bytes) else str(direction)
        if x is None or len(x) != 2 or not hidden:
            return imp.placeholder(node, main)
        outs = [o for o in node.output]
        y = outs[0] if outs else ""
        returns_seq = bool(y) and bool(imp.consumers.get(y)) or not any(outs[1:])
        params = {"hidden": int(hidden), "layers": 1,
                  "bidirectional": direction == "bidirectional",
                  "return_sequences": returns_seq}
        if not (len(node.input) > 3 and node.input[3]):
            imp.warnings.append(f"{node.op_type} '{imp.node_label(node)}' has no bias; the plan "
                                "counts the biases PyTorch has.")
        if kind == "gru" and "gru" not in RULES:
            imp.warnings.append(
                f"GRU '{imp.node_label(node)}' is planned as an LSTM of the same size (the core "
                "has no GRU): parameters and saved bytes about 4/3 of the GRU's.")
            kind_used = "lstm"
        else:
            kind_used = kind
        name = imp.layer_name(node)
        targets = [o for o in outs if o]
        imp.emit(kind_used, node, params, main, out=targets, name=name)
        if not returns_seq and y:
            imp.tensor_layer.pop(y, None)
    return mapper


def _map_identity(imp: _Importer, node, main, acts, facts):
    imp.alias(node, main)


_MAPPERS = {
    "Conv": _map_conv,
    "ConvTranspose": _map_conv_transpose,
    "MaxPool": _map_pool("maxpool"),
    "AveragePool": _map_pool("avgpool"),
    "GlobalAveragePool": _map_global_avgpool,
    "ReduceMean": _map_reduce_mean,
    "BatchNormalization": _map_batchnorm,
    "LayerNormalization": _map_layernorm,
    "Relu": _map_activation("relu"),
    "LeakyRelu": _map_activation("leaky_relu"),
    "Gelu": _map_activation("gelu"),
    "Sigmoid": _map_activation("sigmoid"),
    "Tanh": _map_activation("tanh"),
    "HardSwish": _map_activation("hardswish"),
    "HardSigmoid": _map_activation("hardsigmoid"),
    "Clip": _map_clip,
    "Softmax": _map_softmax,
    "Dropout": _map_dropout,
    "Gemm": _map_gemm,
    "MatMul": _map_matmul,
    "Flatten": _map_flatten,
    "Reshape": _map_view,
    "Squeeze": _map_view,
    "Unsqueeze": _map_view,
    "Transpose": _map_view,
    "Identity": _map_identity,
    "Add": _map_binary,
    "Sub": _map_binary,
    "Mul": _map_binary,
    "Div": _map_binary,
    "Concat": _map_concat,
    "Resize": _map_resize,
    "Upsample": _map_resize,
    "Pad": _map_pad,
    "LSTM": _map_rnn("lstm"),
    "GRU": _map_rnn("gru"),
}
