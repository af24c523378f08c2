"""The importer: reads the graph, works out every tensor's per-sample shape, maps the nodes.

Shapes. The file's own ``value_info`` is dropped (the default exporter records it with the batch
fixed at 1) and ONNX shape inference (``data_prop=True``) runs over the whole graph at one
concrete batch: the batch the file fixes, or 1 where it is symbolic. At a concrete batch every
shape computation of the graph (``Shape → Gather → Concat → Reshape``, slice ends, split sizes)
has a value; what inference does not propagate is evaluated here (``evaluate.py``) and handed
back to it as constants, round after round. Which axis of each tensor is the batch is followed
node by node (transposes, reshapes that merge it with heads, gathers, products); a tensor's
per-sample shape is its shape without that axis. The planner multiplies by the batch the user
asks for.

Accounting. Every node is mapped to a layer, folded into one (views, casts, fused patterns,
constant arithmetic) or listed as not understood; every weight initializer is claimed by the
layer whose parameters it is, and the plan's parameter count is checked against the weights
the file holds (``ImportReport``).
"""

from __future__ import annotations

import math
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from planner.core.importers.onnx.evaluate import EVALUABLE, MAX_VALUE_ELEMENTS, evaluate
from planner.core.importers.onnx.kvcache import MAX_MASKS, square_constant
from planner.core.importers.onnx.graph import GraphError, Node, UniqueNames, topological
from planner.core.importers.onnx.reading import ReadError, read_model
from planner.core.layers import MAX_DIM, LayerSpec, numel, shape_str
from planner.core.network import MAX_BATCH, NetworkDraft, Setup, analyze
from planner.i18n import QT_TRANSLATE_NOOP, Msg, message_of

DEFAULT_BATCH = 32
DEFAULT_SEQUENCE = 128  # a token input whose length the file leaves open
SMALL_ELEMENTS = 4096  # initializers with at most this many elements keep their values
MAX_ELEMENTS = 1 << 40  # one tensor larger than this is not a real network
MAX_INFERENCE_ROUNDS = 64
MAX_UNKNOWN_OPS = 200  # shape-unknown operators assumed to keep their input's shape
MAX_UNMERGED = 10_000  # operations the optimiser merged that are planned again
MAX_DATA_INPUTS = 60  # inputs weighed as data inputs (one bit each); the rest taken as given
# Operators that apply learned weights: what an input must reach on its own to be followed.
# Products and convolutions count with a weight matrix or kernel (two axes above 1), not with a
# vector (a rotary table's inverse frequencies times position ids); norms with their scale.
_LEARNED_OPS = frozenset({
    "MatMul", "Gemm", "Conv", "ConvTranspose", "LayerNormalization", "BatchNormalization",
    "InstanceNormalization", "GroupNormalization", "SimplifiedLayerNormalization",
    "RMSNormalization", "SkipLayerNormalization", "LSTM", "GRU", "RNN", "Einsum",
    "MatMulInteger", "QLinearMatMul", "QLinearConv", "Attention", "MultiHeadAttention"})
_MATRIX_OPS = frozenset({"MatMul", "Gemm", "Conv", "ConvTranspose", "Einsum", "MatMulInteger",
                         "QLinearMatMul", "QLinearConv", "LSTM", "GRU", "RNN"})
# A node's record of the default exporter: '%name : [...] = call_function[...](args = (%x, …'
_FX_RECORD = re.compile(r"%(\w+) : .*?args = \(\[?%(\w+)")
_STEM = re.compile(r"_\d+$")

_FLOAT_TYPES = {1, 10, 11, 16}  # float, float16, double, bfloat16
_INT_TYPES = {6, 7, 2, 3, 4, 5, 12, 13}


# Element types whose raw bytes numpy reads as they are (what numpy_helper.to_array does for
# them, without its per-tensor dispatch: tens of thousands of small initializers).
_RAW_AS_IS = {1: "float32", 2: "uint8", 3: "int8", 6: "int32", 7: "int64", 9: "bool",
              10: "float16", 11: "float64"}


def _small_array(nh, t, dims):
    """``numpy_helper.to_array(t)``, faster for the plain little-endian raw-data case."""
    dtype = _RAW_AS_IS.get(t.data_type)
    if dtype is None or sys.byteorder != "little" or not t.HasField("raw_data") or \
            t.HasField("segment") or t.external_data:
        return nh.to_array(t)
    import numpy as np  # noqa: PLC0415

    return np.frombuffer(t.raw_data, dtype=dtype).reshape(dims)


class ImportFailure(Exception):
    """Raised inside the importer; the caller prefixes the file name."""


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    msg = text[0] if text else type(exc).__name__
    return msg if len(msg) <= 200 else msg[:197] + "..."


class _TensorLayers(dict):
    """Activation tensor -> the planner layer whose output it is; views are planned lazily."""

    def __init__(self, imp):
        super().__init__()
        self.imp = imp
        self.pending: dict[str, tuple] = {}

    def __missing__(self, key):
        if key in self.pending:
            return self.imp.materialise(key)
        raise KeyError(key)

    def __contains__(self, key):
        return dict.__contains__(self, key) or key in self.pending

    def __setitem__(self, key, value):
        self.pending.pop(key, None)
        dict.__setitem__(self, key, value)

    def get(self, key, default=None):
        return self[key] if key in self else default


class Importer:
    def __init__(self, onnx, path: Path, batch: int | None, input_shape=None):
        self.onnx = onnx
        self.path = path
        self.batch_arg = batch
        # one per-sample shape (the primary input's), or {input name: shape}
        self.input_shape_arg = (dict(input_shape) if isinstance(input_shape, dict) else
                                tuple(input_shape)) if input_shape else None
        self.warnings: list[str] = []
        self.notes: list[str] = []  # facts worth saying that do not make the plan incomplete
        self.unknown_ops: dict[str, list[str]] = defaultdict(list)
        self.layers: list[LayerSpec] = []
        self.names = UniqueNames()
        self.tensor_layer = _TensorLayers(self)
        self.layer_out: dict[str, tuple[int, ...] | None] = {}  # layer -> planned shape
        self.skip: set[int] = set()
        self.fused: dict[int, dict[str, Any]] = {}
        self.auto_inplace: set[str] = set()
        self.expect: list[tuple[str, tuple[int, ...], str]] = []
        self.status: dict[int, str] = {}  # node index -> mapped | folded | constant | unknown
        self.claims: list[tuple[str, str]] = []  # (layer, initializer) parameter claims
        self.claims_of: dict[str, list[str]] = defaultdict(list)  # layer -> its claims
        # initializer -> (kind, module scope) of the layers claiming it, in order
        self.claimants: dict[str, list[tuple[str, str]]] = defaultdict(list)
        self.tied_weights = 0  # weight values of linear layers that reuse an earlier's
        self.shared_vectors: dict[str, int] = {}  # genuinely shared, counted once per use
        self.maybe_tied: list[int] = []  # folded output weights shaped like an embedding's
        self.buffers: set[str] = set()  # initializers that are buffers (running statistics)
        self.restored_bn = 0
        self.restored_bn_params = 0  # parameters the plan has that the file lacks
        self.restored_bias = 0
        self.elided_copies = 0  # copies the exporter's optimiser removed, put back
        self.grouped_attention = 0  # attentions planned on k/v groups (not repeated)
        self.merged_ops = 0  # operations the optimiser merged, planned again
        self.head_major_copies = 0  # attention outputs copied back to token order
        self.biased_attention = 0  # fused attentions adding a T×T bias to their scores
        self.biased_scores = 0  # their scores' elements per sample
        self.folded_counted = 0  # constants folded out of parameters, counted as them
        self.incomplete = False
        self.fused_patterns: dict[str, int] = {}
        self.layer_shape: dict[str, tuple[int, ...]] = {}  # where the plan's shape differs
        self.current = 0
        self._buffer_cache: dict[str, bool] = {}
        self.elem_types: dict[str, int] = {}  # tensor -> ONNX element type, where inferred
        self._layer_at: dict[str, int] = {}  # layer name -> index in self.layers (layer_index)
        self._layers_indexed = 0

    def fail(self, message: str):
        raise ImportFailure(message)

    # ---------------------------------------------------------------------------- entry point
    def run(self):
        if self.batch_arg is not None and (
                not isinstance(self.batch_arg, int) or isinstance(self.batch_arg, bool)
                or not 1 <= self.batch_arg <= MAX_BATCH):
            self.fail(Msg(QT_TRANSLATE_NOOP(
                "core", "batch size {batch} must be a whole number from 1 to {most}"),
                batch=repr(self.batch_arg), most=MAX_BATCH))
        try:
            model = read_model(self.onnx, self.path)
        except ReadError as exc:
            self.fail(message_of(exc))
        graph = model.graph
        self.dynamo = any(p.key.startswith("pkg.torch.onnx") for n in graph.node[:50]
                          for p in n.metadata_props)
        # The default exporter's naming ('node_conv2d', 'val_12'; parameters by module path),
        # also where an optimiser or a re-save stripped its record (metadata_props) from the
        # file: which initializers are its own constants is told by their names.
        head = graph.node[:200]
        self.dynamo_names = self.dynamo or (
            len(head) > 0 and sum(1 for n in head if n.name.startswith("node_")) >= 0.8 * len(head))
        self.named_parameters = any(
            "." in t.name and not t.name.startswith(("onnx::", "/")) for t in graph.initializer)
        self.opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")),
                          0)
        self._collect_constants(graph)
        self.folded_modules = self._folded_parameter_modules(model)
        # Parameters the default exporter's FX record reads ('%p_pos_embed'): a top-level
        # parameter has no module path in its name, like the constants it folds.
        self.fx_parameters: set[str] = set()
        if self.dynamo:
            for node in graph.node:
                for p in node.metadata_props:
                    if p.key == "pkg.torch.onnx.fx_node" and "%p_" in p.value:
                        # (lower-cased, as the record writes them: 'LayerNorm' -> 'layernorm')
                        self.fx_parameters.update(
                            x.lower() for x in re.findall(r"%p_(\w+)", p.value[:4000]))
        # The default exporter's record of the exported program's inputs: every parameter
        # and buffer by module path ("b_blocks_0_attn_k_bias: BUFFER target='…'").
        self.signature: dict[str, str] = {}
        if self.dynamo:
            for p in graph.metadata_props:
                if p.key.endswith("graph_signature"):
                    self.signature.update(
                        (t, kind) for kind, t in re.findall(
                            r"(PARAMETER|BUFFER) target='([\w.]+)'", p.value[:2_000_000]))
        sources = {i.name for i in graph.input} | set(self.init_dims)
        try:
            self.nodes = topological([Node(n) for n in graph.node], sources)
        except GraphError as exc:
            self.fail(message_of(exc))
        self.producer = {}
        self.consumers: dict[str, list[int]] = defaultdict(list)
        for k, node in enumerate(self.nodes):
            for o in node.output:
                if o:
                    self.producer[o] = k
            for i in node.input:
                if i:
                    self.consumers[i].append(k)
        self.output_names = [o.name for o in graph.output]
        work = self._prepare(model)
        self._infer(work)
        asked = None
        if self.input_shape_arg is not None and not self._consistent():
            # Reshape targets fixed in the file do not follow the asked shape: plan the
            # file's own shape and say so.
            asked = dict(self.asked)
            self.input_shape_arg = None
            self.notes = [n for n in self.notes if "as asked" not in n]
            self.warnings = [w for w in self.warnings
                             if not w.startswith("Shape inference does not know")]
            self.unknown_ops.clear()
            work = self._prepare(model)
            self._infer(work)
        for name, want in (asked or {}).items():
            if name not in self.input_axes:
                continue
            planned = self.per_sample_raw(name, self.input_axes[name])
            if planned is not None and tuple(planned) != tuple(want):
                self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                    "core", "The file fixes the shape of input '{name}' in its reshapes or its "
                    "constants, so it cannot be planned at {asked}: planned at {shape} as "
                    "exported. Export it "
                    "with a dynamic shape (dynamic_shapes, or dynamic_axes with dynamo=False) "
                    "to plan other sizes."), name=name, asked=shape_str(want),
                    shape=shape_str(planned)))
                self.incomplete = True
        self._find_activations()
        self._batch_axes()
        from planner.core.importers.onnx import mappers  # noqa: PLC0415

        self.mappers = mappers
        mappers.prepass(self)
        self._map_all()
        draft = self._finish()
        batch_size = self._batch_size()
        try:
            setup = Setup(batch_size=batch_size)
        except ValueError as exc:
            self.fail(message_of(exc))
        return draft, setup

    # ---------------------------------------------------------------------- graph bookkeeping
    def _collect_constants(self, graph) -> None:
        nh = self.onnx.numpy_helper
        self.init_dims: dict[str, tuple[int, ...]] = {}
        self.init_type: dict[str, int] = {}
        self.values: dict[str, Any] = {}
        self.square_consts: dict[str, Any] = {}
        for t in graph.initializer:
            dims = tuple(int(d) for d in t.dims)
            if any(d < 0 for d in dims) or numel(dims) > MAX_ELEMENTS or \
                    any(d > MAX_ELEMENTS for d in dims):
                self.fail(Msg(QT_TRANSLATE_NOOP(
                    "core", "initializer '{name}' has absurd dimensions {dims}"),
                    name=t.name, dims=str(list(dims))))
            self.init_dims[t.name] = dims
            self.init_type[t.name] = int(t.data_type)
            if len(self.square_consts) < MAX_MASKS and square_constant(t):
                self.square_consts[t.name] = t  # a possible attention mask (kvcache)
            if numel(dims) <= SMALL_ELEMENTS and t.data_location != 1:
                try:
                    self.values[t.name] = _small_array(nh, t, dims)
                except Exception:  # noqa: BLE001 - a constant we cannot read is just unknown
                    pass
        import numpy as np  # noqa: PLC0415

        for node in graph.node:
            if node.op_type == "Constant" and len(node.output) == 1:
                for a in node.attribute:
                    try:
                        if a.name == "value":
                            if numel(tuple(a.t.dims)) <= MAX_VALUE_ELEMENTS:
                                self.values[node.output[0]] = nh.to_array(a.t)
                        elif a.name in ("value_float", "value_int"):
                            self.values[node.output[0]] = np.array(
                                a.f if a.name == "value_float" else a.i)
                        elif a.name in ("value_floats", "value_ints"):
                            self.values[node.output[0]] = np.array(
                                list(a.floats if a.name == "value_floats" else a.ints))
                    except Exception:  # noqa: BLE001
                        pass

    def _prepare(self, model):
        """The copy of the model that shape inference works on: large initializers as typed
        inputs, the file's intermediate shapes dropped, the input at one concrete batch."""
        onnx = self.onnx
        graph = model.graph
        inputs = [i for i in graph.input if i.name not in self.init_dims]
        if not inputs:
            self.fail(Msg(QT_TRANSLATE_NOOP(
                "core", "the graph has no data input (every input is a weight)")))
        used = set(self.consumers)
        data = [i for i in inputs if i.name in used] or inputs

        followed, side = self._choose_inputs(data)
        primary = followed[0]
        self.side_inputs = [i.name for i in side]
        self.data_inputs = [i.name for i in followed]
        asked = self._asked_shapes(inputs, primary)
        self.asked = asked
        if self.side_inputs:
            self.notes.append(Msg(QT_TRANSLATE_NOOP(
                "core", "The graph has {n} inputs; the plan follows {followed} and takes "
                "{others} as given (masks, positions, token types): what is computed from them "
                "alone keeps nothing per sample."), n=len(data),
                followed=", ".join(f"'{i.name}'" for i in followed),
                others=", ".join(f"'{n}'" for n in self.side_inputs)))
        if len(followed) > 1:
            self.notes.append(Msg(QT_TRANSLATE_NOOP(
                "core", "The network has {n} inputs that feed learned layers ({names}): the "
                "plan follows each, with its own per-sample shape and the same batch, and "
                "layers that read several join where the graph joins them (cross-attention)."),
                n=len(followed), names=", ".join(f"'{i.name}'" for i in followed)))
        self.input_name = primary.name
        self.input_axes: dict[str, int] = {}
        self.input_shapes: dict[str, tuple[int, ...]] = {}
        self.token_inputs: set[str] = set()
        self.fixed_batch = None
        for k, vi in enumerate(followed):
            axis, fixed, per_sample = self._input_dims(vi, asked.get(vi.name))
            if k == 0:
                self.fixed_batch = fixed
            self.input_axes[vi.name] = axis
            self.input_shapes[vi.name] = per_sample
        self.input_is_tokens = primary.name in self.token_inputs
        self.input_axis = self.input_axes[primary.name]
        self.batch_infer = self.fixed_batch or 1
        work = onnx.ModelProto()
        work.CopyFrom(model)
        wg = work.graph
        known: dict[str, int] = {}  # a symbolic dimension's name -> its value
        for vi in followed:
            wvi = next(i for i in wg.input if i.name == vi.name)
            wdims = wvi.type.tensor_type.shape.dim
            it = iter(self.input_shapes[vi.name])
            for k, d in enumerate(wdims):
                value = self.batch_infer if k == self.input_axes[vi.name] else next(it)
                if d.HasField("dim_param") and d.dim_param:
                    known.setdefault(d.dim_param, int(value))
                d.Clear()
                d.dim_value = int(value)
        for name in self.side_inputs:
            svi = next(i for i in wg.input if i.name == name)
            if svi.type.HasField("tensor_type") and svi.type.tensor_type.HasField("shape"):
                self._side_dims(svi, wg, followed, known, asked.get(name))
        helper = onnx.helper
        keep, big = [], []
        for t in wg.initializer:
            if t.name in self.values:
                keep.append(t)
            else:
                big.append(helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)))
        listed = {i.name for i in wg.input}
        wg.ClearField("initializer")
        wg.initializer.extend(keep)
        wg.input.extend(v for v in big if v.name not in listed)
        wg.ClearField("value_info")
        for out in wg.output:
            if out.type.HasField("tensor_type"):
                out.type.tensor_type.ClearField("shape")
        return work

    # ------------------------------------------------------------------------------ inputs
    def _choose_inputs(self, data) -> tuple[list, list]:
        """The inputs the plan follows (the primary first) and those taken as given.

        An input is followed where learned layers read what is computed from it alone: the
        learned layers (products, convolutions, norms, a scale by a weight) that inputs reach
        fall into streams by the set of inputs reaching each; a stream is a set no other
        stream's is part of (an encoder's {input_ids}, a decoder's {decoder_input_ids}, a
        vision tower's {pixel_values}; a cross-attention's {both} is where two join). In each
        stream one input is followed: a float one first, then token ids an embedding table
        gathers, then the first listed; the others of a stream (token types, positions, added
        to the token embedding before any learned layer) and inputs that reach no learned
        layer on their own (masks) are taken as given."""

        def is_float(vi):
            return vi.type.HasField("tensor_type") and vi.type.tensor_type.elem_type in \
                _FLOAT_TYPES

        gathered = {n.input[1] for n in self.nodes if n.op_type == "Gather" and
                    len(n.input) > 1 and n.input[0] in self.init_dims}

        def rank(vi, order):
            return (not is_float(vi), vi.name not in gathered, order)

        ordered = sorted(range(len(data)), key=lambda k: rank(data[k], k))
        fallback = data[ordered[0]]
        considered = data[:MAX_DATA_INPUTS]
        bit = {vi.name: 1 << k for k, vi in enumerate(considered)}
        reach: dict[str, int] = dict(bit)
        streams: set[int] = set()
        for node in self.nodes:
            if node.op_type in ("Shape", "Size"):
                continue
            m = 0
            for i in node.input:
                m |= reach.get(i, 0)
            if not m:
                continue
            for o in node.output:
                if o:
                    reach[o] = m
            if node.op_type in _LEARNED_OPS and any(
                    i and i not in reach and self._weight_input(
                        i, matrix=node.op_type in _MATRIX_OPS) for i in node.input):
                streams.add(m)
        minimal = [m for m in streams if not any(o != m and o & m == o for o in streams)]
        if not minimal:
            return [fallback], [vi for vi in data if vi is not fallback]
        chosen = []
        for m in minimal:
            members = [k for k in range(len(considered)) if m & (1 << k)]
            chosen.append(min(members, key=lambda k: rank(considered[k], k)))
        chosen = sorted(set(chosen), key=lambda k: rank(considered[k], k))
        followed = [considered[k] for k in chosen]
        return followed, [vi for vi in data if all(vi is not f for f in followed)]

    def followed_inputs(self) -> tuple[tuple[str, str, tuple[int, ...]], ...]:
        """(graph input, plan layer, per-sample shape planned) of each input followed."""
        out = []
        for name in self.data_inputs:
            layer = dict.get(self.tensor_layer, name)
            shape = self.layer_out.get(layer) if layer else None
            if layer and shape is not None:
                out.append((name, layer, tuple(shape)))
        return tuple(out)

    def _weight_input(self, name: str, matrix: bool = False) -> bool:
        """``name`` is a float weight of the file (an initializer of more than one value, or
        one seen through a cast, transpose or reshape of it; ``matrix``: with two axes above
        1)."""
        for _hop in range(4):
            if name in self.init_dims:
                dims = self.init_dims[name]
                return self.init_type.get(name) in _FLOAT_TYPES and numel(dims) > 1 and \
                    (not matrix or sum(1 for d in dims if d > 1) >= 2)
            p = self.producer.get(name)
            if p is None or self.nodes[p].op_type not in (
                    "Identity", "Cast", "Transpose", "Reshape", "Unsqueeze", "Squeeze"):
                return False
            name = self.nodes[p].input[0] if self.nodes[p].input else ""
        return False

    def _asked_shapes(self, inputs, primary) -> dict[str, tuple[int, ...]]:
        """The per-sample shapes asked for, by input: one shape means the primary input."""
        arg = self.input_shape_arg
        if arg is None:
            return {}
        if not isinstance(arg, dict):
            return {primary.name: tuple(arg)}
        names = {i.name for i in inputs}
        out = {}
        for name, shape in arg.items():
            if name in (None, ""):
                name = primary.name
            if name not in names:
                self.fail(Msg(QT_TRANSLATE_NOOP(
                    "core", "--input names '{name}', which is not an input of the graph (its "
                    "inputs: {names})"), name=str(name),
                    names=", ".join(f"'{i.name}'" for i in inputs[:8])
                    + (", ..." if len(inputs) > 8 else "")))
            out[name] = tuple(shape)
        return out

    def _input_dims(self, vi, asked) -> tuple[int, int | None, tuple[int, ...]]:
        """A followed input's batch axis, the batch the file fixes (None: symbolic) and its
        per-sample shape to plan (``asked``, else the file's, else a default length)."""
        if not vi.type.HasField("tensor_type") or not vi.type.tensor_type.HasField("shape"):
            self.fail(Msg(QT_TRANSLATE_NOOP(
                "core", "input '{name}' has no shape (missing shapes: re-export with shapes)"),
                name=vi.name))
        tokens = vi.type.tensor_type.elem_type in _INT_TYPES
        if tokens:
            self.token_inputs.add(vi.name)
        dims = vi.type.tensor_type.shape.dim
        if len(dims) < 2 and not (tokens and len(dims) == 1):
            self.fail(Msg(QT_TRANSLATE_NOOP(
                "core", "input '{name}' has {n} dimension(s); expected a batch dimension and 1 "
                "to 4 more"), name=vi.name, n=len(dims)))
        symbolic = [k for k, d in enumerate(dims) if not d.HasField("dim_value")]
        axis = symbolic[0] if symbolic else 0
        fixed = None if symbolic else int(dims[axis].dim_value)
        if fixed is not None and not 1 <= fixed <= MAX_BATCH:
            self.fail(Msg(QT_TRANSLATE_NOOP(
                "core", "input '{name}' fixes the batch at {batch}, outside 1 to {most}"),
                name=vi.name, batch=fixed, most=MAX_BATCH))
        per_sample = [int(d.dim_value) if d.HasField("dim_value") else None
                      for k, d in enumerate(dims) if k != axis]
        if asked is not None:
            if len(asked) != len(per_sample):
                others = [i for i in self.__dict__.get("data_inputs", ()) if i != vi.name]
                template = QT_TRANSLATE_NOOP(
                    "core", "--input {asked} has {n} dimension(s); input '{name}' has {m} "
                    "besides the batch ({shape})") if not others else QT_TRANSLATE_NOOP(
                    "core", "--input {asked} has {n} dimension(s); input '{name}' has {m} "
                    "besides the batch ({shape}); the file's other inputs ({others}) take "
                    "a shape each, named: --input NAME=SHAPE")
                self.fail(Msg(template, asked=shape_str(asked), n=len(asked), name=vi.name,
                              m=len(per_sample), shape=shape_str(per_sample),
                              others=", ".join(f"'{i}'" for i in others)))
            if any(p is not None and p != a for p, a in zip(per_sample, asked)):
                self.notes.append(Msg(QT_TRANSLATE_NOOP(
                    "core", "The file fixes input '{name}' at {shape}; planning {asked} as asked "
                    "(shapes re-derived)."), name=vi.name, shape=shape_str(per_sample),
                    asked=shape_str(asked)))
            per_sample = list(asked)
        for k, p in enumerate(per_sample):
            if p is None:
                if tokens:
                    per_sample[k] = DEFAULT_SEQUENCE
                    self.notes.append(Msg(QT_TRANSLATE_NOOP(
                        "core", "The sequence length of input '{name}' is not fixed in the "
                        "file; planned at {n} tokens (set it with --input, e.g. --input 512)."),
                        name=vi.name, n=DEFAULT_SEQUENCE))
                elif len(self.__dict__.get("data_inputs", ())) > 1:
                    self.fail(Msg(QT_TRANSLATE_NOOP(
                        "core", "input '{name}' has a symbolic dimension besides the batch; the "
                        "planner needs every dimension but the batch fixed (give it with "
                        "--input {name}=SHAPE)"), name=vi.name))
                else:
                    self.fail(Msg(QT_TRANSLATE_NOOP(
                        "core", "input '{name}' has a symbolic dimension besides the batch; the "
                        "planner needs every dimension but the batch fixed (give it with "
                        "--input)"), name=vi.name))
            elif not 1 <= p <= MAX_DIM:
                self.fail(Msg(QT_TRANSLATE_NOOP(
                    "core", "input '{name}' dimension {k} is {p}: absurd dimensions"),
                    name=vi.name, k=k + 1, p=p))
        return axis, fixed, tuple(per_sample)

    def _side_dims(self, svi, wg, followed, known: dict[str, int], asked) -> None:
        """An input taken as given, at concrete dimensions: as asked; else a symbolic
        dimension named like one of a followed input's takes its value; else, at the rank of
        a followed input, that input's (the one whose name shares the longest prefix with
        it: 'decoder_attention_mask' follows 'decoder_input_ids')."""
        sd = svi.type.tensor_type.shape.dim
        if asked is not None:
            if len(asked) + 1 != len(sd):
                self.fail(Msg(QT_TRANSLATE_NOOP(
                    "core", "--input {asked} has {n} dimension(s); input '{name}' has {m} "
                    "besides the batch"), asked=shape_str(asked), n=len(asked),
                    name=svi.name, m=max(0, len(sd) - 1)))
            for d, v in zip(sd, (self.batch_infer,) + tuple(asked)):
                d.Clear()
                d.dim_value = int(v)
            return
        if all(d.HasField("dim_param") and d.dim_param in known or d.HasField("dim_value")
               for d in sd):
            for d in sd:
                if not d.HasField("dim_value"):
                    v = known[d.dim_param]
                    d.Clear()
                    d.dim_value = v
            return
        same = [vi for vi in followed if len(next(
            i for i in wg.input if i.name == vi.name).type.tensor_type.shape.dim) == len(sd)]
        if not same:
            return
        ref = max(same, key=lambda vi: (len(_common_prefix(vi.name, svi.name)),
                                        vi is followed[0]))
        rdims = next(i for i in wg.input if i.name == ref.name).type.tensor_type.shape.dim
        for d, r in zip(sd, rdims):
            d.Clear()
            d.dim_value = r.dim_value

    # ---------------------------------------------------------------------- shape inference
    def _infer(self, work) -> None:
        si = self.onnx.shape_inference
        nh = self.onnx.numpy_helper
        injected: set[str] = set()
        self.injected = injected
        assumed: set[str] = set()
        previous = -1
        for _round in range(MAX_INFERENCE_ROUNDS):
            try:
                inferred = si.infer_shapes(work, check_type=False, strict_mode=False,
                                           data_prop=True)
            except Exception as exc:  # noqa: BLE001
                self.fail(Msg(QT_TRANSLATE_NOOP("core", "ONNX shape inference failed: {why}"),
                              why=_one_line(exc)))
            self.shapes = self._read_shapes(inferred.graph)
            self._full: dict[str, tuple[int, ...]] = {}
            self._per_sample: dict[str, tuple[int, ...] | None] = {}
            self._propagate_values()
            # Values that inference lacks: hand them back as constants.
            new_nodes: set[int] = set()
            for node in self.nodes:
                outs = [o for o in node.output if o]
                if not outs or all(self.full_shape(o) is not None for o in outs):
                    continue
                for i in node.input:
                    p = self.producer.get(i)
                    if i and i not in injected and i in self.values and p is not None and \
                            all(o in self.values for o in self.nodes[p].output if o):
                        new_nodes.add(p)
            if new_nodes:
                drop = set()
                for p in new_nodes:
                    for o in self.nodes[p].output:
                        if o and o not in injected:
                            injected.add(o)
                            drop.add(o)
                            work.graph.initializer.append(nh.from_array(
                                _as_array(self.values[o]), o))
                kept = [n for n in work.graph.node if not any(o in drop for o in n.output)]
                work.graph.ClearField("node")
                work.graph.node.extend(kept)
                continue
            missing = self._first_missing(assumed)
            if missing is None:
                return
            node, out_names, src = missing
            if len(assumed) >= MAX_UNKNOWN_OPS or len(self.shapes) <= previous and not out_names:
                break
            previous = len(self.shapes)
            self.unknown_ops[node.op_type]
            self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                "core", "Shape inference does not know '{op}' (node '{node}'): assumed to keep "
                "its input's shape."), op=node.op_type, node=node.name or out_names[0]))
            src_vi = self._vi_by_name(inferred.graph, src)
            for o in out_names:
                assumed.add(o)
                vi = work.graph.value_info.add()
                vi.CopyFrom(src_vi)
                vi.name = o
        self.fail(Msg(QT_TRANSLATE_NOOP(
            "core", "ONNX shape inference leaves too many tensor shapes unknown (missing "
            "shapes)")))

    def _consistent(self) -> bool:
        """Every reshape of an activation keeps its number of elements."""
        reach = set(self.data_inputs)
        for node in self.nodes:
            if not any(i in reach for i in node.input):
                continue
            reach.update(o for o in node.output if o)
            if node.op_type == "Reshape":
                a, b = self.full_shape(node.input[0]), self.full_shape(node.output[0])
                if a is None or b is None or numel(a) != numel(b):
                    return False
            elif node.op_type in _BROADCAST_OPS and not _broadcasts(
                    [self.full_shape(i) if i in reach else self.init_dims.get(i)
                     for i in node.input if i]):
                return False  # a constant folded at the file's shapes (a position table)
        return True

    def _propagate_values(self) -> None:
        """Evaluate every small integer computation whose inputs are known (one pass)."""
        helper = self.onnx.helper
        nh = self.onnx.numpy_helper
        values = self.values
        shapes = self.shapes

        def np_dtype(to):
            return helper.tensor_dtype_to_np_dtype(int(to))

        for node in self.nodes:
            op = node.op_type
            if op not in EVALUABLE:
                continue
            outs = [o for o in node.output if o]
            if not outs or all(o in values for o in outs):
                continue
            ins = [values.get(i) if i else None for i in node.input]
            if op not in ("Shape", "Size") and (not ins or ins[0] is None):
                continue

            def attr(name, default=None, _node=node):
                v = self.attr(_node, name, default)
                return nh.to_array(v) if hasattr(v, "raw_data") else v

            def shape0(_node=node):
                s = shapes.get(_node.input[0]) if _node.input else None
                return s if s is not None and all(isinstance(d, int) for d in s) else None

            try:
                result = evaluate(op, attr, ins, shape0, np_dtype)
            except Exception:  # noqa: BLE001 - not evaluable: inference decides
                result = None
            if not result:
                continue
            for o, v in zip(outs, result):
                if getattr(v, "size", 1) <= MAX_VALUE_ELEMENTS:
                    values[o] = v

    @staticmethod
    def _vi_by_name(graph, name):
        for coll in (graph.input, graph.value_info, graph.output):
            for vi in coll:
                if vi.name == name:
                    return vi
        raise ImportFailure(Msg(QT_TRANSLATE_NOOP(
            "core", "tensor '{name}' has no shape (missing shapes)"), name=name))

    def _read_shapes(self, graph) -> dict[str, tuple]:
        out: dict[str, tuple] = {}
        for coll in (graph.input, graph.value_info, graph.output):
            for vi in coll:
                tt = vi.type.tensor_type if vi.type.HasField("tensor_type") else None
                if tt is not None and tt.elem_type:
                    self.elem_types[vi.name] = tt.elem_type
                if tt is None or not tt.HasField("shape"):
                    continue
                dims: list = []
                for d in tt.shape.dim:
                    if d.HasField("dim_value"):
                        v = int(d.dim_value)
                        if v > MAX_DIM and vi.name not in self.init_dims:
                            self.fail(Msg(QT_TRANSLATE_NOOP(
                                "core", "tensor '{name}' has a dimension of {v}: absurd "
                                "dimensions"), name=vi.name, v=v))
                        dims.append(v)
                    else:
                        dims.append(None)
                out.setdefault(vi.name, tuple(dims))
        for name, dims in self.init_dims.items():
            out[name] = dims
        for name in getattr(self, "injected", ()):
            out[name] = tuple(int(d) for d in getattr(self.values[name], "shape", ()))
        return out

    def _first_missing(self, assumed: set[str]):
        """The first node that reads a shaped activation but whose outputs have no shape."""
        reach = set(self.data_inputs)
        for node in self.nodes:
            reads = [i for i in node.input if i in reach]
            if not reads:
                continue
            outs = [o for o in node.output if o]
            if outs and all(self.full_shape(o) is None for o in outs) and node.op_type not in (
                    "Shape", "Size") and not any(o in assumed for o in outs):
                src = next((i for i in reads if self.full_shape(i) is not None), None)
                if src is not None:
                    return node, outs, src
            reach.update(o for o in outs if self.full_shape(o) is not None)
        return None

    # -------------------------------------------------------------- activations, batch axes
    def _find_activations(self) -> None:
        self.acts: set[str] = set(self.data_inputs)
        for node in self.nodes:
            if node.op_type in ("Shape", "Size"):
                continue
            if any(i in self.acts for i in node.input):
                for o in node.output:
                    if o:
                        self.acts.add(o)
        for name in self.data_inputs:
            shape = self.per_sample_raw(name, self.input_axes[name])
            if shape is None or not 1 <= len(shape) <= 4:
                self.fail(Msg(QT_TRANSLATE_NOOP(
                    "core", "input '{name}' needs 1 to 4 dimensions besides the batch, got "
                    "{shape}"), name=name, shape=shape_str(shape)))

    def full_shape(self, name: str) -> tuple[int, ...] | None:
        full = self._full
        if name in full:
            return full[name]
        s = self.shapes.get(name)
        if s is None or None in s:
            return None
        full[name] = s
        return s

    def _batch_axes(self) -> None:
        """Which axis of each activation is the batch (None: merged with another, or gone)."""
        b0 = self.batch_infer
        bax: dict[str, int | None] = dict(self.input_axes)
        self.bax = bax
        for node in self.nodes:
            act_in = [i for i in node.input if i in self.acts and i in bax]
            if not act_in:
                continue
            for k, o in enumerate(node.output):
                if not o or o not in self.acts:
                    continue
                ys = self.full_shape(o)
                if ys is None:
                    bax[o] = None
                    continue
                b = _out_batch_axis(self, node, act_in, k, ys)
                if b is not None and not (0 <= b < len(ys) and ys[b] % b0 == 0):
                    b = None
                if b is None:
                    b = _search_axis(ys, b0)
                bax[o] = b

    def per_sample_raw(self, name: str, axis: int | None) -> tuple[int, ...] | None:
        s = self.full_shape(name)
        if s is None:
            return None
        b0 = self.batch_infer
        if axis is not None and 0 <= axis < len(s):
            d = s[axis]
            if d == b0:
                rest = s[:axis] + s[axis + 1:]
            elif d % b0 == 0:
                rest = s[:axis] + (d // b0,) + s[axis + 1:]
            else:
                return None
        elif b0 == 1:
            rest = s
        else:
            k = next((j for j, d in enumerate(s) if d % b0 == 0), None)
            if k is None:
                return None
            rest = s[:k] + (s[k] // b0,) + s[k + 1:]
        return rest or (1,)

    def per_sample(self, name: str) -> tuple[int, ...] | None:
        if name not in self.acts:
            return None
        cache = self._per_sample
        if name not in cache:
            cache[name] = self.per_sample_raw(name, self.bax.get(name))
        return cache[name]

    def set_per_sample(self, name: str, dims: tuple[int, ...] | None) -> None:
        """``name``'s per-sample shape, known without reading it (a copy made of another)."""
        self._per_sample[name] = dims

    def batch_axis(self, name: str) -> int | None:
        return self.bax.get(name)

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
        """The value of a small constant tensor (initializer, Constant, or computed), or None."""
        return self.values.get(name) if name else None

    def origin(self, name: str) -> str | None:
        """The initializer a weight tensor comes from (through Identity, Cast, Transpose,
        Reshape and the like of constants), or None."""
        seen = 0
        while name and name not in self.init_dims and seen < 16:
            p = self.producer.get(name)
            if p is None:
                return None
            node = self.nodes[p]
            if node.op_type not in ("Identity", "Cast", "Transpose", "Reshape", "Unsqueeze",
                                    "Squeeze", "Flatten", "Expand", "Mul", "Div", "Neg",
                                    "Sqrt", "Add", "Gather", "Slice", "Split", "Concat", "Tile",
                                    "CastLike"):
                return None
            srcs = [i for i in node.input if i and i not in self.acts and
                    (i in self.init_dims or i in self.producer) and
                    numel(self.init_dims.get(i, (2,))) > 1 and
                    self.init_type.get(i, 1) in _FLOAT_TYPES]
            if not srcs:
                return None
            name = srcs[0]
            seen += 1
        return name if name in self.init_dims else None

    def is_integer(self, name: str) -> bool:
        """The tensor holds integers (token ids, positions, indices): no gradient flows."""
        return self.elem_types.get(name) in _INT_TYPES

    def is_weight(self, name: str) -> bool:
        o = self.origin(name)
        return o is not None and self.init_type.get(o) in _FLOAT_TYPES and \
            numel(self.init_dims[o]) > 1

    def is_learned(self, name: str) -> bool:
        """A weight that is a learned tensor, not a constant the exporter computed (a mask, a
        folded index table): PyTorch names parameters by their module path; exporters name
        their own constants 'onnx::Op_N', 'val_N' or '/scope/Constant_output_0'."""
        o = self.origin(name)
        if o is None or not self.is_weight(name):
            return False
        if not self.named_parameters:
            return True
        return not (o.startswith(("onnx::", "/", "_")) or re.fullmatch(r"val_\d+", o)
                    or self.is_derived(o) or self._is_buffer(o))

    def _is_buffer(self, o: str) -> bool:
        """A module's buffer that only element-wise operators read (Swin's shifted-window
        attention mask added to the scores, EVA's rotary table), not a parameter: named a
        mask, or, in a file of the default exporter, one its record of the traced operations
        does not name as a parameter (it names each one it reads: '%p_blocks_0_gamma').
        Convolutions and norms are not judged by that record: a folded batch norm's replaces
        its convolution's."""
        cached = self._buffer_cache.get(o)
        if cached is not None:
            return cached
        readers, todo, seen = set(), [o], 0
        while todo and seen < 32:
            t = todo.pop()
            seen += 1
            for k in self.consumers.get(t, ()):
                node = self.nodes[k]
                readers.add(node.op_type)
                if node.op_type in ("Unsqueeze", "Reshape", "Squeeze", "Cast", "Expand",
                                    "Identity") and node.output and node.output[0] not in \
                        self.acts:
                    todo.extend(x for x in node.output[:1] if x)
        judged = bool(readers) and readers <= {"Add", "Sub", "Mul", "Where", "Unsqueeze",
                                               "Reshape", "Squeeze", "Cast", "Expand",
                                               "Identity", "Slice", "Split", "Concat", "Tile"}
        last = o.rsplit(".", 1)[-1]
        listed = self.__dict__.get("signature", {}).get(o)  # the exported program's own word
        result = judged and "." in o and (listed == "BUFFER" if listed else (
            re.fullmatch(r"(\w*_)?masks?", last) is not None
            or self.dynamo and bool(self.fx_parameters)
            and o.replace(".", "_").lower() not in self.fx_parameters))
        self._buffer_cache[o] = result
        return result

    def is_derived(self, name: str) -> bool:
        """A constant the default exporter folded out of a parameter, named after the op that
        made it ('expand', 'unsqueeze_3')."""
        if self.init_type.get(name) not in _FLOAT_TYPES or \
                numel(self.init_dims.get(name, ())) <= 1:
            return False
        if self.dynamo_names:  # parameters keep their module path; its constants do not
            return "." not in name and not re.fullmatch(r"val_\d+", name) and \
                not name.startswith("onnx::") and name.lower() not in self.fx_parameters
        return name.startswith("/") and name.endswith("_output_0")  # legacy constant folding

    def _folded_parameter_modules(self, model) -> set[str] | None:
        """Modules with a parameter the file lacks, where the file lists the parameters: the
        default exporter may record the exported program's inputs ('p_x: PARAMETER
        target='blocks.0.attn.logit_scale''), and its optimiser folds a parameter into the
        constants computed from it alone. None where the file has no such list."""
        sig = next((p.value for p in model.metadata_props
                    if p.key == "pkg.torch.export.ExportedProgram.graph_signature"), None)
        if sig is None:
            return None
        modules = set()
        for target in re.findall(r": PARAMETER target='([^']+)'", sig[:4_000_000]):
            if target not in self.init_dims:
                modules.add(target.rsplit(".", 1)[0] if "." in target else "")
        return modules

    def from_folded_parameter(self, node, name: str) -> bool:
        """``name`` (read by ``node``) is a constant the default exporter folded out of a
        parameter, so training needs its gradient: one folded from a parameter of the node's
        module (or one inside it) where the file lists its parameters; otherwise a folded
        per-channel factor (one axis above 1: Swin-V2's exp(clamp(logit_scale)) per head, not
        a mask or a rotary table)."""
        if not name or name in self.acts:
            return False
        o = self.origin(name) or name
        if o not in self.init_dims:
            return False
        if not self.dynamo_names:
            # The legacy exporter's constant folding (an eval export's default) names what it
            # computed 'onnx::Mul_N': a per-channel factor among named parameters.
            return self.named_parameters and o.startswith("onnx::") and \
                self.init_type.get(o) in _FLOAT_TYPES and \
                sum(1 for d in self.init_dims[o] if d > 1) == 1
        if not self.is_derived(o):
            return False
        if self.folded_modules is not None:
            scope = self.module_scope(node)
            return bool(scope) and any(m == scope or m.startswith(scope + ".")
                                       for m in self.folded_modules)
        return sum(1 for d in self.init_dims[o] if d > 1) == 1

    def dims_of(self, name: str) -> tuple[int, ...] | None:
        if name in self.init_dims:
            return self.init_dims[name]
        return self.full_shape(name)

    def node_label(self, node) -> str:
        return node.name or (node.output[0] if node.output else node.op_type)

    def module_scope(self, node) -> str:
        """The PyTorch module path of a node ('layer1.0.conv1'), or ''."""
        for p in node.metadata_props:
            if p.key == "pkg.torch.onnx.name_scopes":
                parts = [s for s in re.findall(r"'([^']*)'", p.value)[:-1] if s]
                q = ""
                for s in parts:
                    q = s if not q or s.startswith(q + ".") else f"{q}.{s}"
                return q
        raw = (node.name or "").strip()
        if raw.startswith("/"):
            parts = [p for p in raw.split("/") if p]
            if parts and re.fullmatch(re.escape(node.op_type) + r"(_\d+)?", parts[-1]):
                parts = parts[:-1]
            q = ""
            for p in parts:
                q = p if not q or p.startswith(q + ".") else f"{q}.{p}"
            return q
        return ""

    def _transposed_table(self, init: str) -> bool:
        """``init`` (a constant the legacy exporter folded: 'onnx::MatMul_N') has the
        transposed shape of a token embedding's table the plan has: an output layer that may
        be tied to the embedding (its copy, folded), or a weight of its own of that shape."""
        dims = self.init_dims.get(init)
        if dims is None or len(dims) != 2:
            return False
        return any(k == "embedding" and self.init_dims.get(t) == (dims[1], dims[0])
                   for t, uses in self.claimants.items() for k, _s in uses[:1])

    def _shared_with(self, init: str, kind: str, scope: tuple[str, str]) -> bool:
        """``init`` is a parameter this layer shares with one that claimed it before (not a
        tensor the exporter merged with an identical one of another module, as it does an
        untrained network's zero biases): the same module called again (ALBERT's one layer
        run N times), or a linear layer reading the token embedding's table (an LM head tied
        to it)."""
        before = self.claimants.get(init)
        if not before:
            return False
        if kind in ("fc", "embedding") and any(k == "embedding" for k, _s in before):
            return True  # an LM head, or a decoder's embedding, reading the encoder's table
        raw = scope[1]
        if not raw:
            return False
        if self.dynamo_names:  # its scopes are module paths, the same at every call
            return any(s[1] == raw for _k, s in before)
        # The legacy exporter numbers a module's later calls ('query', then 'query_1'); two
        # modules named 'conv_1' and 'conv_2' are not one called twice.
        return any(_recalled(raw, s[1]) for _k, s in before)

    def layer_name(self, node, suffix: str = "") -> str:
        base = self.module_scope(node)
        op = node.op_type
        if not base and (node.name or "").startswith("/"):
            base = op.lower() if not suffix else f"{op.lower()}.{suffix}"
            return self.names.take(base)
        if base:
            if suffix:
                base = f"{base}.{suffix}"
            elif op in _FUNCTIONAL:
                base = f"{base}.{op.lower()}"
        else:
            raw = (node.name or "").strip()
            base = raw or (node.output[0] if node.output and node.output[0] else op.lower())
            base = base.lstrip("/").replace("/", ".") or op.lower()
            if suffix:
                base = f"{base}.{suffix}"
        return self.names.take(base)

    def unique(self, base: str) -> str:
        return self.names.take(base)

    def layer_index(self, name: str) -> int | None:
        """Where layer ``name`` is in the plan so far, or None. Layers are only appended and
        their names are unique, so the index grows with them (linear over an import, where
        a dict of all layers per lookup made residual adds quadratic)."""
        at = self._layer_at
        layers = self.layers
        for j in range(self._layers_indexed, len(layers)):
            at.setdefault(layers[j].name, j)
        self._layers_indexed = len(layers)
        return at.get(name)

    def emit(self, kind: str, node, params: dict[str, Any], main: str,
             out: list[str] | None = None, name: str | None = None,
             weights: tuple[str, ...] = (), index: int | None = None) -> str:
        """Add a layer reading activation tensor ``main``; its output stands for ``out``."""
        name = name or self.layer_name(node)
        src = self.tensor_layer[main]
        params = dict(params)
        if self.layers and self.layers[-1].name != src:
            params["input"] = src
        scope = ("", self.module_scope(node))
        origins = [self.origin(w) if w else None for w in weights]
        shared = [o is not None and self._shared_with(o, kind, scope) for o in origins]
        for k, (w, o) in enumerate(zip(weights, origins)):
            part = self._part_of(w, o)
            if part:  # a part of a packed weight (split between layers): its own parameters
                parts = self.__dict__.setdefault("part_claims", {})
                had = parts.get(o, (0, 0))
                parts[o] = (had[0] + part, had[1] + 1)  # elements, claims
                shared[k] = False
        if kind in ("fc", "embedding") and shared and shared[0]:
            params["tied"] = True  # one weight, counted at its first layer
            self.tied_weights += numel(self.init_dims[origins[0]])
            shared[0] = False
        elif kind == "fc" and origins and origins[0] is not None and \
                origins[0].startswith("onnx::") and self._transposed_table(origins[0]):
            self.maybe_tied.append(numel(self.init_dims[origins[0]]))
        for o, again in zip(origins, shared):
            if again:
                self.shared_vectors[o] = self.shared_vectors.get(o, 0) + numel(
                    self.init_dims[o])
        self.layers.append(LayerSpec(kind, name, params))
        targets = out if out is not None else [o for o in node.output[:1] if o]
        for o in targets:
            self.tensor_layer[o] = name
        if targets:
            self.layer_out[name] = self.layer_shape.get(targets[0]) or \
                self.per_sample(targets[0])
        for o in origins:
            if o is not None:
                self.claims.append((name, o))
                self.claims_of[name].append(o)
                self.claimants[o].append((kind, scope))
        if targets and kind not in ("lstm", "gru"):
            shape = self.per_sample(targets[0])
            if shape is not None:
                self.expect.append((name, shape, node))
        self.status[self.current if index is None else index] = "mapped"
        return name

    def _part_of(self, weight: str, origin: str | None) -> int:
        """The elements of ``weight`` where it is a strict part of initializer ``origin``
        (Split or Slice of a packed weight: nn.MultiheadAttention's in_proj_weight split into
        q and k|v for cross-attention), else 0."""
        if not weight or origin is None or weight == origin or origin not in self.init_dims:
            return 0
        p = self.producer.get(weight)
        for _ in range(4):  # through the transpose of the part
            if p is None or self.nodes[p].op_type not in ("Transpose", "Identity", "Cast"):
                break
            p = self.producer.get(self.nodes[p].input[0])
        if p is None or self.nodes[p].op_type not in ("Split", "Slice") or \
                self.nodes[p].input[0] != origin:
            return 0
        n, whole = numel(self.dims_of(weight) or ()), numel(self.init_dims[origin])
        return n if 0 < n < whole else 0

    def pending_view(self, node, main: str, tensor: str) -> None:
        """A reshape/transpose of ``main``: planned only where a layer reads it, and only
        if its shape differs from what the source layer gives (chains of views collapse)."""
        root = self.tensor_layer.pending.get(main, (main, None, None))[0]
        self.tensor_layer.pending[tensor] = (root, node, self.current)
        self.status.setdefault(self.current, "folded")

    def materialise(self, tensor: str) -> str:
        root, node, k = self.tensor_layer.pending.pop(tensor)
        src = self.tensor_layer[root]
        want = self.layer_shape.get(tensor) or self.per_sample(tensor)
        have = self.layer_out.get(src)
        if want is None or want == have or have is None:
            dict.__setitem__(self.tensor_layer, tensor, src)
            return src
        kind = "flatten" if len(want) == 1 and len(have) > 1 else "view"
        name = self.layer_name(node)
        params: dict[str, Any] = {} if kind == "flatten" else {"shape": want}
        if self.layers[-1].name != src:
            params["input"] = src
        self.layers.append(LayerSpec(kind, name, params))
        self.layer_out[name] = want
        self.status[k] = "mapped"
        dict.__setitem__(self.tensor_layer, tensor, name)
        return name

    def alias(self, node, main: str) -> None:
        for o in node.output:
            if o and o in self.acts:
                self.tensor_layer[o] = self.tensor_layer[main]
        self.status.setdefault(self.current, "folded")

    def placeholder(self, node, main: str, why: str = "") -> None:
        """An operator without a mapping: keeps its shapes, keeps its input for backward."""
        self.unknown_ops[node.op_type].append(self.node_label(node))
        self.status[self.current] = "unknown"
        outs = [o for o in node.output if o in self.acts]
        in_shape = self.per_sample(main)
        for o in outs:
            out_shape = self.per_sample(o)
            if out_shape is None:
                continue
            params: dict[str, Any] = {"keeps": "input"}
            if out_shape != in_shape:
                params["shape"] = out_shape
            others = tuple(self.tensor_layer[i] for i in node.input
                           if i in self.acts and i in self.tensor_layer and i != main)
            if others:
                params["from"] = tuple(dict.fromkeys(others))
            self.emit("generic", node, params, main, out=[o],
                      name=self.layer_name(node) if o == outs[0] else None)
            self.status[self.current] = "unknown"

    # ------------------------------------------------------------------------- the mapping
    def _map_all(self) -> None:
        self.tensor_layer[self.input_name] = self.unique("input")
        self.layers.append(LayerSpec("input", self.tensor_layer[self.input_name],
                                     {"shape": self.per_sample(self.input_name)}))
        self.layer_out[self.tensor_layer[self.input_name]] = self.per_sample(self.input_name)
        for name in self.data_inputs[1:]:
            layer = self.unique(_layer_stem(name))
            self.tensor_layer[name] = layer
            self.layers.append(LayerSpec("data_input", layer, {"shape": self.per_sample(name)}))
            self.layer_out[layer] = self.per_sample(name)
        for k, node in enumerate(self.nodes):
            self.current = k
            acts = [i for i in node.input if i in self.acts]
            if not acts:
                self.status[k] = "constant"
                continue
            planned = [i for i in acts if i in self.tensor_layer]
            if k in self.skip:
                if planned:
                    self.alias(node, planned[0])
                self.status[k] = "folded"
                continue
            if node.op_type in ("Shape", "Size"):
                self.status[k] = "constant"
                continue
            if not planned:
                self.status[k] = "dropped"
                continue
            facts = self.fused.get(k, {})
            if facts.get("alias"):
                self.alias(node, node.input[0] if node.input[0] in self.tensor_layer
                           else planned[0])
                self.status[k] = "folded"
                continue
            main = planned[0]
            merged = self._unmerge(node, main) if self.dynamo else None
            try:
                self.mappers.map_node(self, node, main, planned, facts)
            except ImportFailure:
                raise
            except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError) as exc:
                self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                    "core", "{op} '{node}' could not be mapped ({why}); counted as keeping its "
                    "input."), op=node.op_type, node=self.node_label(node), why=_one_line(exc)))
                self.unknown_ops.setdefault(node.op_type, [])
                self.placeholder(node, main)
            if merged is not None:
                self.tensor_layer[main] = merged
            self.status.setdefault(k, "mapped")
        for o in self.output_names:
            if o in self.tensor_layer.pending:
                self.tensor_layer[o]  # noqa: B018 - a graph output: plan its final shape
        self._computed_operands()

    def _computed_operands(self) -> None:
        """Batched products of an activation with a tensor the graph computes from parameters
        and constants alone (DeBERTa's relative-position keys and queries: key_proj of the
        position table, per head): the plan has the tensor once, not per sample, so nothing of
        it is kept per sample. Where the network repeats it over the batch (DeBERTa does, for
        torch.bmm), autograd keeps each sample's copy: counted here for the warning."""
        self.computed_operands = 0
        self.computed_elements = 0  # per sample, if repeated per sample
        for k, node in enumerate(self.nodes):
            if node.op_type not in ("MatMul", "Einsum") or self.status.get(k) == "constant":
                continue
            others = [i for i in node.input if i and i not in self.acts]
            if len(others) != 1 or len(others) == len([i for i in node.input if i]):
                continue
            o = others[0]
            dims = self.dims_of(o)
            if o in self.init_dims and not self.is_derived(o) or dims is None or \
                    len(dims) < 3 or numel(dims[:-2]) < 2 or \
                    self.init_type.get(o, self.elem_types.get(o)) not in _FLOAT_TYPES:
                continue
            self.computed_operands += 1
            self.computed_elements += numel(dims) // max(1, self.batch_infer)

    def _fx_record(self, node) -> tuple[str, str] | None:
        """(the FX value a node of the default exporter computes, its first argument)."""
        for p in node.metadata_props:
            if p.key == "pkg.torch.onnx.fx_node":
                m = _FX_RECORD.match(p.value[:2000])
                return (m.group(1), m.group(2)) if m else None
        return None

    def _unmerge(self, node, main: str) -> str | None:
        """Where the exporter's optimiser merged two identical operations into one (an
        untrained network's equal parameters: GPT-NeoX's two norms of one input), the node's
        record reads the other one ('%layer_norm_1', not in the file) while the file feeds it
        the first one's output ('layer_norm'): plan the other one again, as training runs
        both (its parameters, what it keeps, its output that this node keeps). Returns the
        layer ``main`` stands for, to put back after this node, or None."""
        rec = self._fx_record(node)
        p = self.producer.get(main)
        if rec is None or p is None or rec[1] == main or self.merged_ops >= MAX_UNMERGED or \
                _fused_node(node):
            return None
        want = rec[1]
        prod = self._fx_record(self.nodes[p])
        if prod is None or prod[0] != main or want in self.producer or want in self.init_dims \
                or _STEM.sub("", want) != _STEM.sub("", main) or not _STEM.sub("", want):
            return None
        layer = self.tensor_layer[main]
        i = self.layer_index(layer)
        if i is None or i == 0 or self.layers[i].kind in ("input", "view"):
            return None
        spec = self.layers[i]
        params = dict(spec.params)
        params["input"] = params.get("input") or self.layers[i - 1].name
        name = self.unique(f"{layer}.merged")
        self.layers.append(LayerSpec(spec.kind, name, params))
        self.layer_out[name] = self.layer_out.get(layer)
        for init in list(self.claims_of.get(layer, ())):
            self.claims.append((name, init))
            self.claims_of[name].append(init)
        self.merged_ops += 1
        self.tensor_layer[main] = name
        return layer

    # ---------------------------------------------------------------------- finishing touches
    def _finish(self) -> NetworkDraft:
        layers = self.layers
        if len(layers) < 2:
            self.fail(Msg(QT_TRANSLATE_NOOP(
                "core", "no operator of the graph reads the input: nothing to plan")))
        readers: dict[str, int] = defaultdict(int)
        for i, layer in enumerate(layers):
            if i == 0:
                continue
            readers[layer.source() or layers[i - 1].name] += 1
            for r in layer.refs():
                readers[r] += 1
        inputs = {layer.name for layer in layers if layer.kind == "data_input"}
        out = []
        kinds = {layer.name: layer.kind for layer in layers}
        for i, layer in enumerate(layers):
            if layer.name in self.auto_inplace and layer.params.get("function") in \
                    _INPLACE_FUNCTIONS:
                src = layer.source() or layers[i - 1].name
                inplace = readers[src] == 1 and src != layers[0].name and \
                    src not in inputs and _inplace_after(layer, kinds.get(src))
                layer = layer.replace(inplace=inplace)
            out.append(layer)
        draft = NetworkDraft(self.path.stem or "imported", tuple(out),
                             f"Imported from {self.path.name} (ONNX opset {self.opset}).")
        analysis = analyze(draft)
        self.analysis = analysis
        plan_shapes = {info.name: info.out_shape for info in analysis.layers}
        drift = []
        for name, shape, what in self.expect:
            plan = plan_shapes.get(name)
            if plan is not None and _squeezed(plan) != _squeezed(shape):
                if not isinstance(what, str):
                    what = f"{what.op_type} '{self.node_label(what)}'"
                drift.append(f"{what} ({shape_str(shape)} in the file, {shape_str(plan)} in the "
                             f"plan's layer '{name}')")
        if drift:
            self.incomplete = True
            self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                "core", "The plan's shapes differ from the file's at {n} place(s), first: "
                "{where}. Layers there may need editing."), n=len(drift),
                where="; ".join(drift[:3])))
        if not analysis.ok:
            self.incomplete = True
            shown = "; ".join(str(p) for p in analysis.problems[:3])
            more = f" (and {len(analysis.problems) - 3} more)" if len(analysis.problems) > 3 else ""
            self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                "core", "The imported plan has problems to fix: {problems}."),
                problems=shown + more))
        self._account(analysis)
        return draft

    def _account(self, analysis) -> None:
        """Every node and every weight accounted for; what is not, said in plain words."""
        counts: dict[str, int] = defaultdict(int)
        for k in range(len(self.nodes)):
            counts[self.status.get(k, "dropped")] += 1
        self.node_counts = dict(counts)
        if self.unknown_ops:
            self.incomplete = True
            parts = [f"{op} ×{len(where)}" if len(where) != 1 else op
                     for op, where in sorted(self.unknown_ops.items()) if where]
            if parts:
                self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                    "core", "Operators the planner does not understand, counted as keeping "
                    "their input for backward (a guess; shapes kept as in the file): {ops}."),
                    ops=", ".join(parts)))
        dropped = [self.nodes[k] for k in range(len(self.nodes))
                   if self.status.get(k, "dropped") == "dropped"]
        if dropped:
            self.incomplete = True
            first = ", ".join(f"{n.op_type} '{self.node_label(n)}'" for n in dropped[:3])
            self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                "core", "{n} of {total} nodes are not in the plan (their input could not be "
                "planned), first: {first}. The estimate covers only part of the network."),
                n=len(dropped), total=len(self.nodes), first=first))
        # Weights: every learned float initializer the network reads is a layer's parameter.
        claimed: dict[str, int] = defaultdict(int)
        for _layer, init in self.claims:
            claimed[init] += 1
        stack = [i for k, node in enumerate(self.nodes) if self.status.get(k) != "constant"
                 for i in node.input if i and i not in self.acts]
        seen: set[str] = set()
        weights: dict[str, int] = {}
        while stack:
            t = stack.pop()
            if t in seen:
                continue
            seen.add(t)
            if t in self.init_dims:
                if self.init_type.get(t) in _FLOAT_TYPES and numel(self.init_dims[t]) > 1 and \
                        (t not in self.buffers or t in claimed) and \
                        (t in claimed or self.is_learned(t)):
                    weights[t] = numel(self.init_dims[t])
                continue
            p = self.producer.get(t)
            if p is not None:
                stack.extend(i for i in self.nodes[p].input if i and i not in self.acts)
        unclaimed = [w for w in weights if w not in claimed]
        file_weights = sum(weights.values())
        parts = self.__dict__.get("part_claims", {})
        # (a packed weight claimed in parts: the parts' elements, besides any whole claims)
        whole = {w: c - parts.get(w, (0, 0))[1] for w, c in claimed.items()}
        claimed_total = sum(parts.get(w, (0, 0))[0] + numel(self.init_dims[w]) * c
                            for w, c in whole.items()) - self.tied_weights
        reused = sum(self.shared_vectors.values())
        shared = sum(numel(self.init_dims[w]) * (c - 1) + parts.get(w, (0, 0))[0] * (c > 0)
                     for w, c in whole.items()
                     if c > 1 or c > 0 and w in parts) - self.tied_weights - reused
        derived = set(t for t in seen if t in self.init_dims and self.is_derived(t)
                      and t not in claimed)
        self.folded_counted = sum(1 for t in claimed if self.is_derived(t))
        if self.dynamo_names:
            # The optimiser's own name for what it computed from initializers ('val_3': a
            # position-bias MLP's first product, weight times coordinate table), where no
            # layer claims it as a weight.
            derived.update(t for t in seen if t in self.init_dims and t not in claimed
                           and re.fullmatch(r"val_\d+", t)
                           and self.init_type.get(t) in _FLOAT_TYPES
                           and numel(self.init_dims[t]) > 1)
        if self.named_parameters and not self.dynamo_names:
            # The legacy exporter's constant folding names what it computed from parameters
            # and buffers 'onnx::Op_N' (Swin's gathered relative-position bias).
            derived.update(t for t in seen if t in self.init_dims and t.startswith("onnx::")
                           and t not in claimed
                           and self.init_type.get(t) in _FLOAT_TYPES
                           and numel(self.init_dims[t]) > 1)
        self._folded_buffers(claimed)
        derived = sorted(derived - self.__dict__.get("weight_constants", set()))
        self.derived_constants = len(derived)
        if derived:
            n = sum(numel(self.init_dims[t]) for t in derived)
            self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                "core", "{n} constant(s) of the file ({values} values: {names}) were computed "
                "when the file was exported (an expanded class token, a gathered position-bias "
                "table, a mask, rotary sines); the plan takes them as constants, so learned "
                "parameters they came from (if any) are not counted, nor what computing them "
                "keeps for those parameters' gradients (Swin-V2's position-bias MLP). Export "
                "with do_constant_folding=False (dynamo=False) to count them."),
                n=len(derived),
                values=f"{n:,}", names=", ".join(f"'{t}'" for t in derived[:3])
                + (", ..." if len(derived) > 3 else "")))
        self.file_weights = file_weights
        self.unclaimed = tuple(unclaimed)
        if unclaimed:
            self.incomplete = True
            n = sum(weights[w] for w in unclaimed)
            names = ", ".join(f"'{w}'" for w in unclaimed[:4])
            self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                "core", "{n} weight tensor(s) of the file ({values} values) belong to no layer "
                "of the plan: {names}."), n=len(unclaimed), values=f"{n:,}",
                names=names + (", ..." if len(unclaimed) > 4 else "")))
        plan = analysis.parameters
        expected = claimed_total + self.restored_bn_params
        if analysis.ok and plan != expected:
            self.incomplete = True
            template = QT_TRANSLATE_NOOP(
                "core", "The plan counts {plan} parameters but its layers read {read} weight "
                "values of the file: {diff} more.") if plan > expected else QT_TRANSLATE_NOOP(
                "core", "The plan counts {plan} parameters but its layers read {read} weight "
                "values of the file: {diff} fewer.")
            self.warnings.append(Msg(template, plan=f"{plan:,}", read=f"{expected:,}",
                                     diff=f"{abs(plan - expected):,}"))
        if shared:
            self.notes.append(Msg(QT_TRANSLATE_NOOP(
                "core", "{n} parameters are counted once per layer although the file stores "
                "them once (the exporter merged identical weight tensors, as it does for "
                "untrained ones)."), n=f"{shared:,}"))
        if self.tied_weights:
            self.notes.append(Msg(QT_TRANSLATE_NOOP(
                "core", "{n} weight values are read by more than one linear layer (one module "
                "called several times, or an output layer tied to the token embedding): "
                "counted once, with the gradients of every use added into one."),
                n=f"{self.tied_weights:,}"))
        if self.maybe_tied:
            n = sum(self.maybe_tied)
            self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                "core", "An output layer's weight ({n} values) has the shape of the token "
                "embedding's table, transposed, and the exporter's constant folding made it a "
                "constant of its own, so the file cannot say whether the two are one tied "
                "weight (GPT-2's and BERT's language-model heads, most Hugging Face language "
                "models): the plan counts them apart. If they are tied, it counts {n} "
                "parameters too many ({pct} of its parameters). Export with "
                "do_constant_folding=False, or with the default exporter, to tell."),
                n=f"{n:,}", pct=f"{100.0 * n / max(1, plan):.2g} %"))
        if reused:
            self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                "core", "{n} values of vectors (biases, norm scales) that the network shares "
                "between layers (one module called several times) are counted once per use: "
                "the plan counts {n} parameters more than the network has ({pct} of them)."),
                n=f"{reused:,}", pct=f"{100.0 * reused / max(1, plan - reused):.2g} %"))

    def _folded_buffers(self, claimed: dict[str, int]) -> None:
        """A bias the default exporter folded out of a module's parameters and buffers (EVA's
        and BEiT's qkv bias: torch.cat of q_bias, the zero buffer k_bias and v_bias, one
        constant 'cat_1'), counted whole as the layer's parameter: the buffers' part is not
        learned, and the file does not say its size. Said, with the size if the parts are
        equal (the exported program's signature names the parts)."""
        sig = self.signature
        if not sig or not claimed:
            return
        # Per module: its own bias vectors, parameters and buffers, that are not initializers
        # of the file (a module's other folded tensors, Swin-V2's logit scale beside its
        # coordinate-table buffers, are not parts of one bias).
        parts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for k, kind in sig.items():
            if k not in self.init_dims and "." in k and "bias" in k.rsplit(".", 1)[1]:
                parts[k.rsplit(".", 1)[0]][kind == "BUFFER"] += 1
        values, modules = 0, set()
        for node in self.nodes:
            for t in node.input:
                if t not in claimed or t in sig or "." in t or re.fullmatch(r"val_\d+", t):
                    continue  # a parameter's own name, or the optimiser's (a transposed weight)
                scope = self.module_scope(node)
                params, bufs = parts.get(scope, (0, 0)) if scope else (0, 0)
                if bufs and params:
                    values += numel(self.init_dims[t]) * bufs // (bufs + params)
                    modules.add(scope)
        if modules:
            self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                "core", "In {n} module(s) ({first}) the exporter folded parameters and buffers "
                "into one weight, which the plan counts whole as parameters; the buffers' part "
                "is not learned and the file does not give its size: the plan may count about "
                "{values} parameters too many (if the parts are equal)."), n=len(modules),
                first=", ".join(sorted(modules)[:2])
                + (", ..." if len(modules) > 2 else ""), values=f"{values:,}"))

    def _batch_size(self) -> int:
        fixed = self.fixed_batch
        if fixed is None:
            return self.batch_arg or DEFAULT_BATCH
        if self.batch_arg is not None:
            if self.batch_arg != fixed:
                self.notes.insert(0, Msg(QT_TRANSLATE_NOOP(
                    "core", "The file fixes the batch size at {fixed}; planning for batch "
                    "{batch} as asked (shapes re-derived)."), fixed=fixed, batch=self.batch_arg))
            return self.batch_arg
        if fixed == 1:
            self.notes.insert(0, Msg(QT_TRANSLATE_NOOP(
                "core", "The file fixes the batch size at 1 (the example it was exported "
                "with); the plan uses batch {batch}. Set the batch you train with."),
                batch=DEFAULT_BATCH))
            return DEFAULT_BATCH
        self.notes.insert(0, Msg(QT_TRANSLATE_NOOP(
            "core", "The model fixes the batch size at {fixed} (not a symbolic dimension); the "
            "plan uses it as given."), fixed=fixed))
        return fixed


# Operators named after their op when a module scope is all PyTorch gives.
_FUNCTIONAL = {"Add", "Sub", "Mul", "Div", "Concat", "Flatten", "Reshape", "ReduceMean", "Pad",
               "Transpose", "Squeeze", "Unsqueeze", "Resize", "Upsample", "MatMul", "Softmax",
               "Split", "Slice", "Gather", "Where", "Einsum", "Expand", "Pow", "Sqrt", "Erf",
               "Cast"}
_DERIVED = re.compile(r"(unsqueeze|view|permute|clone|squeeze|transpose|reshape|slice|"
                      r"select|index|index_select|mul|add|cat|t|repeat|_to_copy|detach|"
                      r"contiguous|lift_fresh_copy|alias|flatten|stack|getitem)(_\d+)?")
_INPLACE_FUNCTIONS = {"relu", "relu6", "leaky_relu", "hardswish", "hardsigmoid"}
_NORM_KINDS = {"batchnorm", "layernorm", "groupnorm", "rmsnorm"}


def _inplace_after(layer, source_kind: str | None) -> bool:
    """Whether an activation the file cannot tell about is planned in place. Only a leaky
    ReLU keeps something else in place (its output, not its input); PyTorch's LeakyReLU is not
    in place by default, and a norm + activation block (timm's BatchNormAct2d, a darknet
    block) makes it so: in place after a norm, not after a sum or a convolution (CSPResNet's
    activation after the residual add keeps its input, -10.9 % when taken in place)."""
    return layer.params.get("function") != "leaky_relu" or source_kind in _NORM_KINDS


def _fused_node(node) -> bool:
    """A node the optimiser fused from several (a convolution and the batch norm after it):
    its record is the last one's, whose first argument (the convolution's output) the fusion
    removed; not a merged twin (VoVNet's depthwise + pointwise pairs were planned twice)."""
    return any(p.key == "pkg.onnxscript.rewriter.rule_name" and "Fuse" in p.value
               for p in node.metadata_props)


def _as_array(v):
    import numpy as np  # noqa: PLC0415

    return np.asarray(v)


_BROADCAST_OPS = frozenset({"Add", "Sub", "Mul", "Div", "Where", "Pow"})


def _broadcasts(shapes) -> bool:
    """The known shapes broadcast together (numpy's rule); unknown ones are not judged."""
    known = [s for s in shapes if s is not None and None not in s]
    for k in range(1, max((len(s) for s in known), default=0) + 1):
        sizes = {s[-k] for s in known if len(s) >= k} - {1}
        if len(sizes) > 1:
            return False
    return True


def _layer_stem(name: str) -> str:
    """A layer name made of a graph input's name ('decoder_input_ids')."""
    stem = re.sub(r"[^\w.-]+", "_", name).strip("_.")[:80]
    return stem or "input"


def _common_prefix(a: str, b: str) -> str:
    k = 0
    while k < min(len(a), len(b)) and a[k] == b[k]:
        k += 1
    return a[:k]


def _squeezed(shape) -> tuple[int, ...]:
    return tuple(d for d in shape if d != 1)


def _search_axis(ys, b0) -> int | None:
    if b0 == 1:
        return None
    return next((j for j, d in enumerate(ys) if d == b0), None)


def _reshape_axis(xs, b, ys, b0) -> int | None:
    """Where a reshape puts the batch axis: the output axis that starts at the same flat offset
    and has the batch's size; None when it is merged with a neighbour."""
    pre = math.prod(xs[:b])
    acc = 1
    for i, d in enumerate(ys):
        if acc == pre and d == xs[b]:
            return i
        acc *= d
        if acc > pre:
            break
    return None


def _out_batch_axis(imp: Importer, node, act_in: list[str], k: int, ys) -> int | None:
    op = node.op_type
    x = act_in[0]
    b = imp.bax.get(x)
    xs = imp.full_shape(x)
    if b is None or xs is None:
        if op == "Gather" and len(node.input) > 1 and node.input[1] in act_in:
            ids = node.input[1]
            bi = imp.bax.get(ids)
            return bi if bi is not None and int(imp.attr(node, "axis", 0)) == 0 else None
        return None
    rx, ry = len(xs), len(ys)
    if op == "Transpose":
        perm = imp.attr(node, "perm") or list(range(rx))[::-1]
        return list(perm).index(b) if b in perm else None
    if op in ("Reshape", "Flatten", "Squeeze", "Unsqueeze"):
        return _reshape_axis(xs, b, ys, imp.batch_infer)
    if op == "Gather":
        axis = int(imp.attr(node, "axis", 0)) % max(rx, 1)
        if node.input[0] != x:  # embedding: ids are the activation
            return b if axis == 0 else None
        idx = imp.dims_of(node.input[1]) if len(node.input) > 1 else None
        r_idx = len(idx) if idx is not None else 0
        if axis == b:
            return None
        return b if axis > b else b + r_idx - 1
    if op in ("ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL2",
              "ArgMax", "ArgMin", "ReduceSumSquare", "ReduceLogSumExp"):
        axes = imp.attr(node, "axes")
        if op in ("ArgMax", "ArgMin"):
            axes = [imp.attr(node, "axis", 0)]
        if axes is None and len(node.input) > 1 and node.input[1]:
            v = imp.const(node.input[1])
            axes = None if v is None else [int(a) for a in _flat(v)]
        if axes is None:
            return None
        axes = {int(a) % rx for a in axes}
        if b in axes:
            return None
        keep = int(imp.attr(node, "keepdims", 1))
        return b if keep else b - sum(1 for a in axes if a < b)
    if op in ("MatMul", "Einsum", "Attention"):
        if op == "Einsum":
            return _einsum_axis(imp, node, x, b, ys)
        # right-aligned batch dimensions
        if b <= rx - 2 or rx == 1:
            return b + (ry - rx) if b < rx - 2 else (ry - 2 if ry >= 2 else None)
        return None
    # Element-wise, normalisations, convolutions, concat/split/slice: right-aligned.
    cand = b + (ry - rx)
    if 0 <= cand < ry and ys[cand] == xs[b]:
        return cand
    if b < ry and ys[b] == xs[b]:
        return b
    return None


def _einsum_axis(imp, node, x, b, ys):
    eq = imp.attr(node, "equation")
    eq = eq.decode() if isinstance(eq, bytes) else str(eq or "")
    if "->" not in eq or "..." in eq:
        return None
    lhs, rhs = eq.replace(" ", "").split("->")
    terms = lhs.split(",")
    pos = [k for k, i in enumerate(node.input) if i == x]
    if not pos or pos[0] >= len(terms) or b >= len(terms[pos[0]]):
        return None
    letter = terms[pos[0]][b]
    return rhs.index(letter) if letter in rhs else None


def _recalled(scope: str, first: str) -> bool:
    """``scope`` is a later call of the module whose first call has scope ``first``, as the
    legacy exporter writes it (a component 'name' becomes 'name_1', 'name_2', ...)."""
    a, b = scope.split("."), first.split(".")
    return len(a) == len(b) and all(
        x == y or (x.startswith(y + "_") and x[len(y) + 1:].isdigit()) for x, y in zip(a, b))


def _flat(value) -> list:
    try:
        return list(value.reshape(-1)) if hasattr(value, "reshape") else list(value)
    except TypeError:
        return [value]
