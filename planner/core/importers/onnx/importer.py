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

import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from planner.core.importers.onnx.common import (
    FLOAT_TYPES,
    FX_RECORD,
    INT_TYPES,
    MAX_ELEMENTS,
    MAX_UNMERGED,
    SMALL_ELEMENTS,
    STEM,
    ImportFailure,
    flat,
    one_line,
    release_freed_memory,
    squeezed,
)
from planner.core.importers.onnx import contrib, tf_export
from planner.core.importers.onnx.evaluate import MAX_VALUE_ELEMENTS
from planner.core.importers.onnx.inputs import InputSelection
from planner.core.importers.onnx.shapes import ShapeTracking, chain_copies
from planner.core.importers.onnx.weights import WeightAccounting
from planner.core.importers.onnx.kvcache import MAX_MASKS, square_constant
from planner.core.importers.onnx.graph import GraphError, Node, UniqueNames, topological
from planner.core.importers.onnx.reading import ReadError, read_model
from planner.core.layers import LayerSpec, numel, shape_str
from planner.core.layers.rules import FREEZABLE_KINDS
from planner.core.network import MAX_BATCH, NetworkDraft, Setup, analyze
from planner.i18n import QT_TRANSLATE_NOOP, Msg, message_of

# PEFT's adapter parameters ('….q_proj.lora_A.default.weight', lora_B, lora_embedding_A/B)
_LORA_NAME = re.compile(r"(?:^|\.)lora_(?:embedding_)?[AB](?:\.|$)")
_LORA_LINE = re.compile(_LORA_NAME.pattern, re.MULTILINE)  # (one search over many names)

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


# Products of activations copy a non-contiguous operand themselves (mappers._contiguous).
_PRODUCTS = frozenset({"MatMul", "Gemm", "Einsum", "Attention", "MatMulInteger"})
_NO_ATTR = object()  # (Importer.attr: no such attribute, or one that cannot be decoded)


class _Values(dict):
    """Tensor -> its value (a numpy array), for the small constants of the graph. An
    initializer's value is decoded from its TensorProto when first asked for (membership
    included: one that cannot be decoded has no value), not all at once: most small
    initializers are weights whose values no step reads (a 100,000-node residual net: 142,851
    arrays, 1.2 s and 150 MiB decoded up front)."""

    def __init__(self, nh):
        super().__init__()
        self.nh = nh
        self.pending: dict[str, tuple] = {}  # name -> (TensorProto, dims), not decoded yet

    def add_lazy(self, t, dims) -> None:
        self.pending[t.name] = (t, dims)

    def _decode(self, key) -> bool:
        t, dims = self.pending.pop(key)
        try:
            dict.__setitem__(self, key, _small_array(self.nh, t, dims))
        except Exception:  # noqa: BLE001 - a constant we cannot read is just unknown
            return False
        return True

    def __contains__(self, key):
        return dict.__contains__(self, key) or key in self.pending and self._decode(key)

    def __missing__(self, key):
        if key in self.pending and self._decode(key):
            return dict.__getitem__(self, key)
        raise KeyError(key)

    def __setitem__(self, key, value):
        self.pending.pop(key, None)
        dict.__setitem__(self, key, value)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def has_value(self, key) -> bool:
        """``key in self`` without decoding: whether it has, or may have, a value."""
        return dict.__contains__(self, key) or key in self.pending


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


class Importer(InputSelection, WeightAccounting, ShapeTracking):
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
        self._scopes: dict[int, tuple] = {}  # id(node) -> (node, its module scope)
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
        self.embedding_tables: set = set()  # dims of weights first claimed by an embedding
        # initializer -> how each claim read it: (by its own name, the parameter named in the
        # default exporter's FX record)
        self.reads_of: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
        self.shared_weights: dict[str, int] = {}  # weights (not vectors) shared, per use
        self.tied_weights = 0  # weight values of linear layers that reuse an earlier's
        self.shared_vectors: dict[str, int] = {}  # genuinely shared, counted once per use
        self.claim_tensors: dict[str, str] = {}  # computed weight operand -> first scope
        self.shared_computed = 0  # values of those read again by another module (counted once)
        self.maybe_tied: list[int] = []  # folded output weights shaped like an embedding's
        self.buffers: set[str] = set()  # initializers that are buffers (running statistics)
        # tensors with an axis holding the batch merged with the axes after it, at an
        # inference batch of 1: tensor -> that axis (shapes._merged_lead)
        self.merged_lead: dict[str, int] = {}
        self.restored_bn = 0
        self.restored_bn_params = 0  # parameters the plan has that the file lacks
        # constant parts of weights concatenated with learned ones (Swin-V2's zero k_bias
        # buffer between q_bias and v_bias), which the plan counts as parameters: elements
        self.constant_parts: dict[str, int] = {}
        self.restored_bn_channels = 0  # their convolutions' filters (a bias each, if any)
        self.restored_bias = 0
        self.elided_copies = 0  # copies the exporter's optimiser removed, put back
        self.grouped_attention = 0  # attentions planned on k/v groups (not repeated)
        self.merged_ops = 0  # operations the optimiser merged, planned again
        self.head_major_copies = 0  # attention outputs copied back to token order
        self.biased_attention = 0  # fused attentions adding a T×T bias to their scores
        # legacy ReduceMax/Min over one axis: torch.max(x, dim) or amax (their layers' names)
        self.ambiguous_max: list[str] = []
        # layer norms written out in Python (their inputs' per-sample shapes)
        self.eager_layernorms: list[tuple[int, ...] | None] = []
        self.biased_scores = 0  # their scores' elements per sample
        self.uneven_pads: dict[tuple, str] = {}  # (source, pads, shape) -> its pad layer
        self.math_attention = 0  # SDPA blocks on >4-D tensors: the math kernel, op by op
        # SDPA calls given a boolean mask built from shapes alone (causal), and its elements
        # per sample summed over them (``patterns._converted_mask``): not planned, said
        self.shape_masks = 0
        self.shape_mask_elements = 0
        self.folded_counted = 0  # constants folded out of parameters, counted as them
        self.incomplete = False
        self.fused_patterns: dict[str, int] = {}
        self.layer_shape: dict[str, tuple[int, ...]] = {}  # where the plan's shape differs
        self.current = 0
        self._buffer_cache: dict[str, bool] = {}
        self.elem_types: dict[str, int] = {}  # tensor -> ONNX element type, where inferred
        self._layer_at: dict[str, int] = {}  # layer name -> index in self.layers (layer_index)
        self._layers_indexed = 0
        # Set by the patterns, mappers and checks when they find what they stand for:
        self.eval_bn = 0  # batch norms folded into convolutions by an eval export
        self.computed_operands = 0  # products with tensors computed from parameters alone
        self.expanded_tables = 0  # constant tables expanded over the batch (shapes._batch_tables)
        self.expanded_operands: set[int] = set()  # those planned with a per-sample copy
        self.lookup_indices = 0  # int64 indices of constant lookups behind such factors
        # int64 elements of constant indices a learned bias table is gathered by (TinyViT's
        # attention_bias_idxs), said where they reach 0.05 MiB
        self.bias_lookup_indices = 0
        self.gather_indices = 0  # int64 elements of constant indices torch.gather keeps once
        self.einsum_constant_copies = 0  # elements of weight copies torch.einsum keeps once
        self.einsum_constant_count = 0  # the Einsum nodes making them
        self.gather_indices_folded = 0  # those folded into constants: perhaps expanded
        self.computed_elements = 0  # their elements per sample
        self.written_gelu: dict[str, int] = {}  # tanh GELUs written out: exit -> elements kept
        self.materialised_masks = 0  # causal masks a model always passes (Falcon): kept
        self.window_masks = 0  # shape-only band masks SDPA converts at every call (kept)
        self.custom_gelu = 0  # tanh GELUs of a module that trains with a custom function
        self.written_erf_gelu: dict[str, int] = {}  # Erf GELUs Python wrote out (no record)
        self._no_grad: set[str] | None = None  # activations without a gradient (no_gradient)
        self.random_derived: set[str] = set()  # computed from random values alone (_map_all)
        self._init_by_fx: dict[str, str] | None = None  # 'a_b_weight' -> 'a.b.weight'
        self.part_claims: dict[str, tuple[int, int]] = {}  # packed weight -> (elements, claims)
        self.weight_constants: set[str] = set()  # constants folded from weights (1 + w)
        self.norm_affine: set[int] = set()  # nodes of a norm's scale and shift, folded
        # (layers that end an instance or group norm, planned as element-wise layers: an
        # activation after one is in place as after any norm)
        self.norm_layers: set[str] = set()
        self.embedded_masks: dict | None = None  # masks read from the file (kvcache), once
        self.data_inputs: list[str] = []  # the inputs the plan follows
        self.square_consts: dict[str, Any] = {}  # possible attention masks (kvcache)
        self.twins: list[dict[str, Any]] = []  # norms merged with a twin, planned again (twins)
        self.twin_readers: dict[int, int] = {}  # node index -> the twin it reads
        self.twins_undecided: list[str] = []  # merged modules whose readers cannot be told
        self.fixed_filters = 0  # convolutions whose filter is a buffer (no parameters)
        self.own_bias = 0  # convolutions with a bias of their own before a folded norm
        self.flat_pools: set[str] = set()  # global_avgpool layers (their output is C)
        self.shiftless_norms = 0  # TensorFlow norms put back whose shift was removed
        # initializers read by layers of different modules, by what their values say:
        self.dedup_shared: set[str] = set()  # a constant fill: equal tensors stored once
        self.tied_shared: set[str] = set()  # other values: one weight the network ties
        self.undecided_shared: set[str] = set()  # values not read: cannot tell

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
        # (onnxslim, re-saving a default export, renames the nodes it fuses after their
        # outputs, 'val_38_pre_reshape'; the legacy exporter's names are scope paths, '/m/…')
        self.dynamo_names = self.dynamo or (
            len(head) > 0 and sum(1 for n in head if n.name.startswith(("node_", "val_")))
            >= 0.8 * len(head))
        self.tensorflow = tf_export.is_tensorflow(model)  # tf2onnx: grappler's folds
        # Ultralytics' exporter (YOLO) fuses every Conv module's batch norm into its
        # convolution before exporting (model.fuse()); its metadata says who wrote the file.
        self.ultralytics = any(
            p.key in ("author", "description") and "ultralytics" in p.value[:200].lower()
            for p in model.metadata_props)
        self.named_parameters = any(
            "." in t.name and not t.name.startswith(("onnx::", "/")) for t in graph.initializer)
        self.opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")),
                          0)
        self._collect_constants(graph)
        contrib.quantized_weights(self, graph)
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
        self.inlined_ifs = 0  # If nodes decided by the shapes (branches.py)
        self.index_nodes()
        nms = next((n for n in self.nodes if n.op_type == "NonMaxSuppression"), None)
        if nms is not None:
            self.fail(Msg(QT_TRANSLATE_NOOP(
                "core", "The graph contains a detector's post-processing ({op} node '{node}'): "
                "how many boxes it keeps, and so every shape after it, is known only when the "
                "network runs. The planner plans a graph without it: export the network up "
                "to its raw outputs (backbone and heads, without the post-processing)."),
                op=nms.op_type, node=nms.name or nms.output[0] if nms.output else ""))
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
        del work  # the inference copy: its shapes are read (no reference is kept)
        release_freed_memory()  # (inference's C++ copy of the graph, freed)
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
        self._settle_batch_axis()
        from planner.core.importers.onnx import mappers, patterns, twins  # noqa: PLC0415

        self.mappers = mappers
        self.twin_module = twins
        patterns.prepass(self)
        twins.find(self)
        self._map_all()
        draft = self._finish()
        batch_size = self._batch_size()
        try:
            setup = Setup(batch_size=batch_size)
        except ValueError as exc:
            self.fail(message_of(exc))
        return draft, setup

    # ---------------------------------------------------------------------- graph bookkeeping
    def index_nodes(self) -> None:
        """Who produces and who reads every tensor (by position in ``self.nodes``)."""
        self.producer = {}
        self.consumers: dict[str, list[int]] = defaultdict(list)
        for k, node in enumerate(self.nodes):
            for o in node.output:
                if o:
                    self.producer[o] = k
            for i in node.input:
                if i:
                    self.consumers[i].append(k)

    def _collect_constants(self, graph) -> None:
        nh = self.onnx.numpy_helper
        self.init_dims: dict[str, tuple[int, ...]] = {}
        self.init_type: dict[str, int] = {}
        self.values = _Values(nh)
        self.square_consts: dict[str, Any] = {}
        self.value_source: dict[str, dict[str, str] | None] = {}  # name -> external_data
        self.embedded_where: dict[str, tuple[int, int, int]] | None = None
        init_dims, init_type = self.init_dims, self.init_type
        for t in graph.initializer:
            dims = tuple(t.dims)  # (int64 fields: Python ints already)
            name = t.name
            size = numel(dims)
            if dims and (min(dims) < 0 or max(dims) > MAX_ELEMENTS or size > MAX_ELEMENTS):
                self.fail(Msg(QT_TRANSLATE_NOOP(
                    "core", "initializer '{name}' has absurd dimensions {dims}"),
                    name=name, dims=str(list(dims))))
            init_dims[name] = dims
            init_type[name] = t.data_type
            if len(dims) >= 2 and dims[-1] == dims[-2] >= 2 and \
                    len(self.square_consts) < MAX_MASKS and square_constant(t):
                self.square_consts[name] = t  # a possible attention mask (kvcache)
            if size <= SMALL_ELEMENTS and t.data_location == 1:
                # A small constant saved as external data (onnx.save(...,
                # save_as_external_data=True, size_threshold=0): a Reshape's shape, a
                # ReduceMean's axes): shape inference cannot read it there, so its bytes are
                # read now (a few KiB at most), as onnx.load would.
                self._read_small_external(t)
            if size <= SMALL_ELEMENTS and t.data_location != 1:
                self.values.add_lazy(t, dims)  # decoded where a step reads it
            elif t.data_type == 1 and not t.float_data:
                # where the values lie (read only when needed: twins.stored_values): the
                # external data file, or the file itself where the skim left them out
                self.value_source[t.name] = {e.key: e.value for e in t.external_data} \
                    if t.data_location == 1 else None
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

    def _read_small_external(self, t, most: int = SMALL_ELEMENTS * 16) -> None:
        """``t``'s bytes (at most ``most``) from its external data file into the tensor (onnx's
        own ``load_external_data_for_tensor``), where the file lies beside the model; left as
        it is where it cannot be read (the values then stay unknown, as before)."""
        loc = next((e.value for e in t.external_data if e.key == "location"), "")
        if not loc or Path(loc).is_absolute() or ".." in Path(loc).parts:
            return
        try:
            length = int(next((e.value for e in t.external_data if e.key == "length"), 0) or 0)
        except ValueError:
            return
        if length > most:  # (by default: complex128, 16 bytes an element)
            return
        try:
            from onnx.external_data_helper import load_external_data_for_tensor  # noqa: PLC0415

            load_external_data_for_tensor(t, str(Path(self.path).parent))
        except Exception:  # noqa: BLE001 - a missing or short file: the value stays unknown
            return

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
            axis, fixed, per_sample = self._input_dims(vi, asked.get(vi.name), beside=k > 0)
            if k == 0:
                self.fixed_batch = fixed
            self.input_axes[vi.name] = axis
            self.input_shapes[vi.name] = per_sample
        self.input_is_tokens = primary.name in self.token_inputs
        self.input_axis = self.input_axes[primary.name]
        self.batch_infer = self.fixed_batch or 1
        work = _inference_copy(onnx, model, records=any(
            n.metadata_props or n.proto.doc_string for n in self.nodes))
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
        typed = []
        values, init = self.values, wg.initializer
        # (a subgraph's nodes read the graph's initializers without listing them as inputs
        # of the node that holds it: with subgraphs, every value goes as before)
        subgraphs = any(a.type in _GRAPH_ATTRIBUTES for n in self.nodes for a in n.attribute)
        for t in graph.initializer:
            if not values.has_value(t.name):  # large: a typed input, as inference needs
                typed.append(helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)))
            elif not subgraphs and not self._value_informs_inference(t):
                # a weight whose shape alone inference reads: the initializer without its data
                stub = init.add()
                stub.name, stub.data_type = t.name, t.data_type
                stub.dims.extend(t.dims)
            elif t.name in values:
                init.append(t)
            else:  # (values that cannot be decoded)
                typed.append(helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)))
        listed = {i.name for i in wg.input}
        wg.input.extend(v for v in typed if v.name not in listed)
        for out in wg.output:
            if out.type.HasField("tensor_type"):
                out.type.tensor_type.ClearField("shape")
        contrib.shape_stand_ins(self, work)
        return work

    def _value_informs_inference(self, t) -> bool:
        """Whether shape inference may read the values of initializer ``t``, not only its
        shape: integer and boolean tensors (shapes, axes, indices: what ``data_prop``
        propagates), and floating-point ones read by an operator other than those that apply
        weights (a Resize's scales, a Range's bounds, a Cast to a shape)."""
        if t.data_type not in FLOAT_TYPES:
            return True
        nodes = self.nodes
        for k in self.consumers.get(t.name, ()):
            if nodes[k].op_type not in _WEIGHT_READERS:
                return True
        return False

    def set_per_sample(self, name: str, dims: tuple[int, ...] | None) -> None:
        """``name``'s per-sample shape, known without reading it (a copy made of another)."""
        self._per_sample[name] = dims

    def batch_axis(self, name: str) -> int | None:
        return self.bax.get(name)

    # ------------------------------------------------------------------------- helpers
    def attr(self, node, name: str, default=None):
        # A node's attribute is read by several passes (a convolution's kernel, strides and
        # pads by the shape, batch-axis and mapping passes): its value is decoded once. A list
        # is handed out as a copy, so a caller changing it changes nothing else.
        cache = node.attr_values if type(node) is Node else None
        if cache is not None and name in cache:
            v = cache[name]
        else:
            v = _NO_ATTR
            for a in node.attribute:
                if a.name == name:
                    try:
                        v = self.onnx.helper.get_attribute_value(a)
                    except Exception:  # noqa: BLE001
                        v = _NO_ATTR
                    break
            if cache is not None:
                cache[name] = v
        if v is _NO_ATTR:
            return default
        return list(v) if type(v) is list else v

    def const(self, name: str):
        """The value of a small constant tensor (initializer, Constant, or computed), or None."""
        return self.values.get(name) if name else None

    def _concat_part(self, node) -> str | None:
        """The one input of a Concat of weights that a Slice of it takes whole, or None:
        F.multi_head_attention_forward concatenates separate q, k and v biases (open_clip's
        attention pool) and slices each back, with bounds the shape arithmetic computes."""
        p = self.producer.get(node.input[0]) if node.input else None
        if p is None or self.nodes[p].op_type != "Concat" or len(node.input) < 3:
            return None
        cat = self.nodes[p]
        axis = self.attr(cat, "axis")
        starts, ends = self.const(node.input[1]), self.const(node.input[2])
        axes = self.const(node.input[3]) if len(node.input) > 3 and node.input[3] else [0]
        steps = self.const(node.input[4]) if len(node.input) > 4 and node.input[4] else [1]
        if starts is None or ends is None or axes is None or steps is None:
            return None
        try:
            starts, ends = [int(v) for v in flat(starts)], [int(v) for v in flat(ends)]
            axes, steps = [int(v) for v in flat(axes)], [int(v) for v in flat(steps)]
        except (TypeError, ValueError):
            return None
        if len(starts) != 1 or len(ends) != 1 or steps != [1] or axis is None:
            return None
        dims = [self.init_dims.get(self.origin(i) or "") for i in cat.input]
        rank = len(dims[0]) if dims and dims[0] is not None else 0
        if not rank or any(d is None or len(d) != rank for d in dims) or \
                axes[0] % rank != axis % rank:
            return None
        offset = 0
        for i, d in zip(cat.input, dims):
            size = int(d[axis % rank])
            if starts[0] == offset and ends[0] == offset + size:
                return i
            offset += size
        return None

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
                                    "CastLike", "DequantizeLinear"):
                return None
            if node.op_type == "Slice":
                part = self._concat_part(node)
                if part is not None:
                    name = part
                    seen += 1
                    continue
            # (a one-element tensor only through a rename: the legacy exporter's Identity of
            # a learned scalar merged with its equals; a scalar operand of arithmetic is not
            # the weight)
            one = node.op_type in ("Identity", "Cast") and len(node.input) == 1
            srcs = [i for i in node.input if i and i not in self.acts and
                    (i in self.init_dims or i in self.producer) and
                    (one or numel(self.init_dims.get(i, (2,))) > 1) and
                    self.init_type.get(i, 1) in FLOAT_TYPES]
            if not srcs:
                return None
            name = srcs[0]
            seen += 1
        return name if name in self.init_dims else None

    def is_integer(self, name: str) -> bool:
        """The tensor holds integers (token ids, positions, indices): no gradient flows."""
        return self.elem_types.get(name) in INT_TYPES

    def no_gradient(self, name: str) -> bool:
        """The activation carries no gradient: it is computed from integer tensors (token
        ids, comparisons, masks) and constants alone, as ESM's token-dropout ratio from its
        ids. A product with it keeps it only, not the other factor (found once, in order)."""
        free = self._no_grad
        if free is None:
            free = self._no_grad = {n for n in self.data_inputs if self.is_integer(n)}
            for node in self.nodes:
                outs = [o for o in node.output if o and o in self.acts]
                if not outs:
                    continue
                if all(self.elem_types.get(o) in _NO_GRAD_TYPES for o in outs) or all(
                        i in free if i in self.acts else
                        not (self.is_weight(i) or self.scalar_parameter(i))
                        for i in node.input if i):
                    free.update(outs)
        return name in free

    def is_weight(self, name: str) -> bool:
        o = self.origin(name)
        return o is not None and self.init_type.get(o) in FLOAT_TYPES and \
            numel(self.init_dims[o]) > 1

    def dims_of(self, name: str) -> tuple[int, ...] | None:
        if name in self.init_dims:
            return self.init_dims[name]
        return self.full_shape(name)

    def node_label(self, node) -> str:
        return node.name or (node.output[0] if node.output else node.op_type)

    def module_scope(self, node) -> str:
        """The PyTorch module path of a node ('layer1.0.conv1'), or ''."""
        scopes = self._scopes
        scope = scopes.get(id(node))
        if scope is None or scope[0] is not node:
            scope = scopes[id(node)] = (node, self._module_scope(node))
        return scope[1]

    def _module_scope(self, node) -> str:
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
        if not weights:  # (most layers: no parameter bookkeeping)
            self._expect(kind, name, node, self._add_layer(kind, name, params, node, out),
                         index)
            return name
        scope = ("", self.module_scope(node))
        origins = [self.origin(w) if w else None for w in weights]
        reads = self.parameter_reads(node, weights, origins, scope[1])
        shared = [o is not None and self._shared_with(o, kind, scope, read)
                  for o, read in zip(origins, reads)]
        for k, (w, o) in enumerate(zip(weights, origins)):
            part = self._part_of(w, o)
            if part:  # a part of a packed weight (split between layers): its own parameters
                parts = self.part_claims
                had = parts.get(o, (0, 0))
                parts[o] = (had[0] + part, had[1] + 1)  # elements, claims
                shared[k] = False
        if kind in ("fc", "embedding") and shared and shared[0]:
            params["tied"] = True  # one weight, counted at its first layer
            self.tied_weights += numel(self.init_dims[origins[0]])
            shared[0] = False
        elif kind == "fc" and origins and origins[0] is not None and self.dynamo and \
                self._tied_by_record(node, origins[0]):
            params["tied"] = True  # the embedding's table, read through the exporter's copy
            self.tied_weights += numel(self.init_dims[origins[0]])
        elif kind == "fc" and origins and origins[0] is not None and \
                origins[0].startswith("onnx::") and self._transposed_table(origins[0]):
            self.maybe_tied.append(numel(self.init_dims[origins[0]]))
        for k, (w, o) in enumerate(zip(weights, origins)):
            if kind == "elementwise" and o is not None and self._computed_once(w, node):
                # one tensor computed from the parameter once, read by layers of several
                # modules (MPNet's relative-position bias, made by the encoder and added to
                # every layer's scores): one parameter, counted at its first reader
                n = numel(self.init_dims[o])
                params["parameters"] = max(0, int(params.get("parameters", 0)) - n)
                self.tied_weights += n
                self.shared_computed += n
                shared[k] = False
                for judged in (self.dedup_shared, self.undecided_shared, self.tied_shared):
                    judged.discard(o)  # counted once: none of the per-layer judgements
        for o, again in zip(origins, shared):
            if again:
                into = self.shared_vectors if len(self.init_dims[o]) < 2 else \
                    self.shared_weights
                into[o] = into.get(o, 0) + numel(self.init_dims[o])
        targets = self._add_layer(kind, name, params, node, out)
        extra = []  # the other learned parts of a weight concatenated from several
        for w, o in zip(weights, origins):
            if o is not None:
                for part in self.concat_parts(w, o):
                    extra.append(part)
                    reads.append(reads[origins.index(o)])
        for o, read in zip(list(origins) + extra, reads):
            if o is not None:
                self.claims.append((name, o))
                self.claims_of[name].append(o)
                uses = self.claimants[o]
                if not uses and kind == "embedding":  # a token table (first read as one)
                    self.embedding_tables.add(self.init_dims.get(o))
                uses.append((kind, scope))
                self.reads_of[o].append(read)
        self._expect(kind, name, node, targets, index)
        return name

    def _add_layer(self, kind: str, name: str, params: dict[str, Any], node,
                   out: list[str] | None) -> list[str]:
        """The layer appended; the tensors it stands for (``out``, else the node's first)."""
        self.layers.append(LayerSpec(kind, name, params))
        targets = out if out is not None else [o for o in node.output[:1] if o]
        for o in targets:
            self.tensor_layer[o] = name
        if targets:
            self.layer_out[name] = self.layer_shape.get(targets[0]) or \
                self.per_sample(targets[0])
        return targets

    def _expect(self, kind: str, name: str, node, targets: list[str],
                index: int | None) -> None:
        if targets and kind not in ("lstm", "gru"):
            shape = self.per_sample(targets[0])
            if shape is not None:
                self.expect.append((name, shape, node))
        self.status[self.current if index is None else index] = "mapped"

    def _computed_once(self, w: str, node) -> bool:
        """``w`` (a weight operand: a tensor computed from a parameter) was claimed before by
        a layer of another module, and the node computing it belongs to neither module (the
        common parent made it once and passed it on): not an exporter's merge of identical
        tensors, which keeps the first module's scope."""
        if not w or w in self.init_dims:
            return False
        scope = self.module_scope(node)
        first = self.claim_tensors.setdefault(w, scope)
        if first == scope:
            return False
        p = self.producer.get(w)
        if p is None:
            return False
        maker = self.module_scope(self.nodes[p])

        def inside(a: str, b: str) -> bool:  # a is b or within it
            return bool(b) and (a == b or a.startswith(b + "."))
        return not (inside(maker, scope) or inside(maker, first))

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
        reader = self.nodes[self.current].op_type if 0 <= self.current < len(self.nodes) \
            else ""
        if want is not None and have is not None and reader not in _PRODUCTS and \
                chain_copies(self, root, tensor):
            # permute(...).reshape(...) that no strides express: PyTorch copies, and a layer
            # that keeps its input keeps the copy (pixel unshuffle before a convolution);
            # products of activations make their own copies (mappers._contiguous).
            name = self.layer_name(node)
            params = {"op": "other", "keeps": "nothing", "shape": want}
            if self.layers[-1].name != src:
                params["input"] = src
            self.layers.append(LayerSpec("elementwise", name, params))
            self.layer_out[name] = want
            self.status[k] = "mapped"
            dict.__setitem__(self.tensor_layer, tensor, name)
            return name
        if want is not None and src in self.flat_pools and len(want) > 1:
            have = (numel(want),)  # the pool gives C, not the file's C×1×1
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
                if node.output and node.output[0] in self.batch_tables:
                    self._batch_table(k, node)
                    continue
                if node.output and node.output[0] in self.random_sources:
                    self._random_source(k, node)
                    continue
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
            if self.random_derived and all(i in self.random_derived for i in acts) and \
                    not any(self.is_learned(i) and not _exporter_constant(self.origin(i) or i)
                            for i in node.input if i and i not in acts):
                self.random_derived.update(o for o in node.output if o)
                if node.op_type not in _RANDOM_VIEWS and len(planned) == len(acts):
                    self._from_random(k, node, planned[0])
                    continue
            facts = self.fused.get(k, {})
            if facts.get("alias"):
                self.alias(node, node.input[0] if node.input[0] in self.tensor_layer
                           else planned[0])
                self.status[k] = "folded"
                continue
            main = planned[0]
            twin = self.twin_module.redirect(self, k) if self.twin_readers else None
            merged = self._unmerge(node, main) if self.dynamo and twin is None else None
            try:
                self.mappers.map_node(self, node, main, planned, facts)
            except ImportFailure:
                raise
            except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError) as exc:
                self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                    "core", "{op} '{node}' could not be mapped ({why}); counted as keeping its "
                    "input."), op=node.op_type, node=self.node_label(node), why=one_line(exc)))
                self.unknown_ops.setdefault(node.op_type, [])
                self.placeholder(node, main)
            if merged is not None:
                self.tensor_layer[main] = merged
            if twin is not None:
                self.tensor_layer[twin[0]] = twin[1]
            self.status.setdefault(k, "mapped")
        for o in self.output_names:
            if o in self.tensor_layer.pending:
                self.tensor_layer[o]  # noqa: B018 - a graph output: plan its final shape
        self._computed_operands()

    def _batch_table(self, k: int, node) -> None:
        """A constant table expanded over the batch (shapes._batch_tables): planned as a
        tensor of every sample, made from nothing it keeps (the expand is a view; the learned
        layer reading it keeps its copy)."""
        t = node.output[0]
        table = self.origin(node.input[0]) or node.input[0]
        params = {"op": "other", "keeps": "nothing", "shape": self.per_sample(t)}
        if table in self.init_dims and self._learned_table(table):
            # a learned tensor expanded over the batch (timm's attention-pool latent query,
            # latent.expand(B, -1, -1) before its q projection): the layer's parameter
            params["parameters"] = numel(self.init_dims[table])
            self.emit("elementwise", node, params, self.input_name, out=[t], index=k,
                      weights=(node.input[0],))
            return
        if table in self.init_dims:
            self.buffers.add(table)  # data (a coordinate table), not a parameter
        self.emit("elementwise", node, params, self.input_name, out=[t], index=k)
        self.expanded_tables += 1

    def _learned_table(self, table: str) -> bool:
        """An expanded initializer is a parameter of the network: the exported program's
        signature says so, or (without one) the default exporter's record of the traced
        operations names it, or the legacy exporter kept its module path."""
        if not self.is_learned(table):
            return False
        listed = self.__dict__.get("signature", {}).get(table)
        if listed:
            return listed == "PARAMETER"
        if self.dynamo:
            return bool(self.fx_parameters) and \
                table.replace(".", "_").lower() in self.fx_parameters
        return self.named_parameters and "." in table

    def _random_source(self, k: int, node) -> None:
        """Random values drawn per sample (shapes._random_sources): a tensor of every sample,
        made from nothing, keeping nothing (no gradient flows from it)."""
        t = node.output[0]
        self.random_derived.add(t)
        self.emit("elementwise", node, {"op": "other", "keeps": "nothing",
                                        "shape": self.per_sample(t)}, self.input_name,
                  out=[t], index=k)

    def _from_random(self, k: int, node, main: str) -> None:
        """An operator on random values alone (the argsort of ViTMAE's noise, the patches it
        keeps): autograd records nothing for it (nothing it reads requires a gradient), so it
        keeps nothing; a new tensor of its output's shape."""
        outs = [o for o in node.output if o and o in self.acts]
        shape = self.per_sample(outs[0]) if outs else None
        if shape is None:
            self.status[k] = "dropped"
            return
        for i in node.input:  # a table it reads (the mask ViTMAE gathers back): data
            o = self.origin(i) if i and i not in self.acts else None
            if o is not None and o in self.init_dims:
                self.buffers.add(o)
        self.emit("elementwise", node, {"op": "other", "keeps": "nothing", "shape": shape},
                  main, out=[o for o in outs if self.per_sample(o) == shape])
        self.status[k] = "mapped"

    def _computed_operands(self) -> None:
        """Batched products of an activation with a tensor the graph computes from parameters
        and constants alone (DeBERTa's relative-position keys and queries: key_proj of the
        position table, per head): the plan has the tensor once, not per sample, so nothing of
        it is kept per sample. Where the network repeats it over the batch (DeBERTa does, for
        torch.bmm), autograd keeps each sample's copy: counted here for the warning."""
        self.computed_operands = 0
        self.computed_elements = 0  # per sample, if repeated per sample
        for k, node in enumerate(self.nodes):
            if node.op_type not in ("MatMul", "Einsum") or self.status.get(k) == "constant" \
                    or k in self.expanded_operands:
                continue
            others = [i for i in node.input if i and i not in self.acts]
            if len(others) != 1 or len(others) == len([i for i in node.input if i]):
                continue
            o = others[0]
            dims = self.dims_of(o)
            if o in self.init_dims and not self.is_derived(o) or dims is None or \
                    len(dims) < 3 or numel(dims[:-2]) < 2 or \
                    self.init_type.get(o, self.elem_types.get(o)) not in FLOAT_TYPES:
                continue
            self.computed_operands += 1
            self.computed_elements += numel(dims) // max(1, self.batch_infer)

    def _fx_record(self, node) -> tuple[str, str] | None:
        """(the FX value a node of the default exporter computes, its first argument)."""
        for p in node.metadata_props:
            if p.key == "pkg.torch.onnx.fx_node":
                m = FX_RECORD.match(p.value[:2000])
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
                or STEM.sub("", want) != STEM.sub("", main) or not STEM.sub("", want):
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
    def _peft_frozen(self) -> set[str]:
        """PEFT's LoRA adapters in the file (parameters named '….lora_A.….weight' and
        '….lora_B.…'): PEFT trains them alone, its base network frozen. The names of the
        layers to plan frozen (every layer with parameters, none of them an adapter's; kinds
        that can be frozen), with a note; empty where there are no adapters."""
        claims = self.claims_of

        def adapter(layer) -> bool:  # by its parameters' names, or its module's (default
            # exporter: the weights renamed, the scope kept)
            return _LORA_NAME.search(layer.name) is not None or any(
                _LORA_NAME.search(o) is not None for o in claims.get(layer.name) or ())
        names = "\n".join(self.init_dims)
        layer_names = "\n".join(layer.name for layer in self.layers)
        # (a substring search first: the pattern tried at every character of 100,000 names
        # took a quarter of a second, 'lora_' found in none of them a hundredth)
        if ("lora_" not in names or _LORA_LINE.search(names) is None) and \
                ("lora_" not in layer_names or _LORA_LINE.search(layer_names) is None):
            return set()  # (no adapter's name anywhere: the usual file, at once)
        if not any(adapter(layer) for layer in self.layers if claims.get(layer.name)):
            return set()
        out, adapters, frozen = set(), 0, 0
        for layer in self.layers:
            os_ = claims.get(layer.name) or ()
            if not os_:
                continue
            n = sum(numel(self.init_dims.get(o) or ()) for o in set(os_))
            if adapter(layer):
                adapters += n
            elif layer.kind in FREEZABLE_KINDS or layer.kind == "fc":
                out.add(layer.name)
                frozen += n
        self.warnings.append(Msg(QT_TRANSLATE_NOOP(
            "core", "The file has PEFT LoRA adapters: the plan trains them alone ({trainable} "
            "parameters) and freezes the base network as PEFT does ({frozen} parameters in "
            "{layers} layers, without gradients or optimizer state; what their backward no "
            "longer needs is not kept). An ONNX file does not record which weights train: if "
            "the base trains too, export the network without the adapters."),
            trainable=f"{adapters:,}", frozen=f"{frozen:,}", layers=len(out)))
        return out

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
        frozen = self._peft_frozen()
        maybe_inplace: list[int] = []  # (indices of activations that may run in place)
        for i, layer in enumerate(layers):
            if layer.name in frozen:
                layer = layer.replace(frozen=True)
            function = layer.params.get("function")
            if layer.name in self.auto_inplace and function in _INPLACE_FUNCTIONS | _MAYBE_INPLACE:
                src = layer.source() or layers[i - 1].name
                free = readers[src] == 1 and src != layers[0].name and src not in inputs
                inplace = free and function in _INPLACE_FUNCTIONS and _inplace_after(
                    layer, "groupnorm" if src in self.norm_layers else kinds.get(src))
                if free and not inplace and function in _MAYBE_INPLACE and \
                        not layer.params.get("inplace"):
                    maybe_inplace.append(i)
                if function in _INPLACE_FUNCTIONS and \
                        layer.params.get("inplace", not inplace) is not inplace:
                    layer = layer.replace(inplace=inplace)  # (equal already: kept as it is)
            out.append(layer)
        self.maybe_inplace = maybe_inplace
        draft = NetworkDraft(self.path.stem or "imported", tuple(out),
                             f"Imported from {self.path.name} (ONNX opset {self.opset}).")
        analysis = analyze(draft)
        self.analysis = analysis
        self.maybe_inplace_elements = 0
        if self.maybe_inplace and analysis.ok:
            # (in place, the activation's output shares its input's storage: one tensor less
            # where a later layer keeps that output)
            kept = {sid for info in analysis.layers for sid in info.saved_storages}
            self.maybe_inplace_elements = sum(
                numel(analysis.layers[i].out_shape) for i in self.maybe_inplace
                if analysis.layers[i].output_storage in kept)
        plan_shapes = {info.name: info.out_shape for info in analysis.layers}
        drift = []
        for name, shape, what in self.expect:
            plan = plan_shapes.get(name)
            if plan is not None and plan != shape and squeezed(plan) != squeezed(shape):
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
        contrib.notes(self)
        return draft


# Operators whose shape inference reads only the shapes of their floating-point inputs (the
# weights they apply), never their values: such an initializer goes to inference as a typed
# input without its data.
_WEIGHT_READERS = frozenset({
    "Conv", "ConvTranspose", "BatchNormalization", "LayerNormalization", "InstanceNormalization",
    "GroupNormalization", "SimplifiedLayerNormalization", "RMSNormalization",
    "SkipLayerNormalization", "MatMul", "Gemm", "Einsum", "Add", "Sub", "Mul", "Div", "PRelu",
    "LSTM", "GRU", "RNN"})


_GRAPH_ATTRIBUTES = (5, 10)  # AttributeProto.GRAPH, GRAPHS: a node holding subgraphs


def _inference_copy(onnx, model, records: bool = True):
    """A copy of ``model`` for shape inference, without what inference does not read: the
    initializers and the file's intermediate shapes (``value_info``) are left out (``_prepare``
    adds back the initializers it keeps), and so are the nodes' records (``metadata_props``,
    ``doc_string``: the default exporter's are most of its graph's bytes). A copy of the whole
    model was 0.9 s and 270 MiB of a 100,000-node import, and the weights and records went
    through inference and back. ``records``: False where no node has a record or a
    doc_string (nothing to clear)."""
    work = onnx.ModelProto()
    _copy_fields(model, work, leave=("graph",))
    wg = work.graph
    _copy_fields(model.graph, wg, leave=("initializer", "value_info", "node"))
    wg.node.extend(model.graph.node)
    if records:  # (a pass over every node's proto: only where some node has a record)
        for node in wg.node:
            if node.metadata_props:
                node.ClearField("metadata_props")
            if node.doc_string:
                node.ClearField("doc_string")
    return work


def _copy_fields(src, dst, leave: tuple[str, ...]) -> None:
    """Copy every field set in protobuf message ``src`` to ``dst`` but those named ``leave``."""
    for fd, value in src.ListFields():
        if fd.name in leave:
            continue
        repeated = getattr(fd, "is_repeated", None)  # (protobuf >= 6; older: the label)
        if repeated is None:
            repeated = fd.label == fd.LABEL_REPEATED
        if repeated:
            getattr(dst, fd.name).extend(value)
        elif fd.message_type is not None:
            getattr(dst, fd.name).CopyFrom(value)
        else:
            setattr(dst, fd.name, value)


# Operators named after their op when a module scope is all PyTorch gives.
_NO_GRAD_TYPES = INT_TYPES | {9}  # integers and bool: no gradient flows
_FUNCTIONAL = {"Add", "Sub", "Mul", "Div", "Concat", "Flatten", "Reshape", "ReduceMean", "Pad",
               "Transpose", "Squeeze", "Unsqueeze", "Resize", "Upsample", "MatMul", "Softmax",
               "Split", "Slice", "Gather", "Where", "Einsum", "Expand", "Pow", "Sqrt", "Erf",
               "Cast"}
_DERIVED = re.compile(r"(unsqueeze|view|permute|clone|squeeze|transpose|reshape|slice|"
                      r"select|index|index_select|mul|add|cat|t|repeat|_to_copy|detach|"
                      r"contiguous|lift_fresh_copy|alias|flatten|stack|getitem)(_\d+)?")
def _exporter_constant(name: str) -> bool:
    """An initializer named as the exporters name their own constants ('onnx::Op_N', 'val_N',
    '/scope/Constant_output_0'), not as a module's parameter."""
    return name.startswith(("onnx::", "/", "_")) or re.fullmatch(r"val_\d+", name) is not None


# Views (and view-like copies) of random values, mapped as views of any activation.
_RANDOM_VIEWS = frozenset({"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose",
                           "Identity", "Slice", "Split", "Gather", "Expand", "Tile"})
_INPLACE_FUNCTIONS = {"relu", "relu6", "leaky_relu", "hardswish", "hardsigmoid"}
# Activations that keep their input out of place and their output in place (in the input's
# storage), which the file cannot tell apart: planned out of place (PyTorch's default) but
# where a leaky ReLU after a norm is (_inplace_after), and the difference said with its figure
# (MONAI's VNet runs ELU(inplace=True) after its norms and residual sums: +26 % as planned).
_MAYBE_INPLACE = {"leaky_relu", "elu", "celu", "selu"}
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





def _layer_stem(name: str) -> str:
    """A layer name made of a graph input's name ('decoder_input_ids')."""
    stem = re.sub(r"[^\w.-]+", "_", name).strip("_.")[:80]
    return stem or "input"
