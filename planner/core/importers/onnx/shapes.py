"""Tensor shapes: ONNX shape inference, constants propagated, the batch axis found for every
activation.

A part of the importer (``importer.Importer`` inherits it): its methods read and set the
importer's own state.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from planner.core.importers.onnx.common import (
    MAX_INFERENCE_ROUNDS,
    MAX_UNKNOWN_OPS,
    ImportFailure,
    flat,
    one_line,
)
from planner.core.importers.onnx.branches import inline_known_ifs
from planner.core.importers.onnx.evaluate import (
    EVALUABLE,
    MAX_VALUE_ELEMENTS,
    NEEDS_ALL_INPUTS,
    evaluate,
)
from planner.core.importers.onnx.graph import GraphError
from planner.core.importers.onnx.strides import contiguous, view_strides
from planner.core.layers import MAX_DIM, numel, shape_str
from planner.i18n import QT_TRANSLATE_NOOP, Msg, message_of

# Element-wise TensorFlow ops that tf2onnx leaves unconverted under their TensorFlow name (it
# writes no ONNX form for them): their result has their input's shape, as planned.
# (Erfc: Keras's exact GELU, 0.5 * x * erfc(-x / sqrt 2))
UNCONVERTED_ELEMENTWISE = frozenset({"Erfc"})

CONTROL_FLOW = frozenset({"If", "Loop", "Scan"})
# Operators that draw random values (no gradient flows from them).
RANDOM_OPS = frozenset({"RandomUniform", "RandomNormal", "RandomUniformLike",
                        "RandomNormalLike", "Bernoulli", "Multinomial"})
# Operators of lists of tensors (the legacy exporter's torch.tensor_split, traced lists).
SEQUENCE_OPS = frozenset({"SequenceEmpty", "SequenceConstruct", "SequenceInsert", "SequenceAt",
                          "SequenceErase", "SequenceLength", "SplitToSequence",
                          "ConcatFromSequence"})
# Operators whose output size depends on the values of their input.
DATA_DEPENDENT = frozenset({"NonZero", "NonMaxSuppression", "Compress", "Unique", "TopK"})

if TYPE_CHECKING:
    from planner.core.importers.onnx.importer import Importer


class ShapeTracking:
    """Tensor shapes: ONNX shape inference, constants propagated, the batch axis found for every
    activation."""

    # ---------------------------------------------------------------------- shape inference
    def _infer(self, work) -> None:
        si = self.onnx.shape_inference
        nh = self.onnx.numpy_helper
        injected: set[str] = set()
        self.injected = injected
        assumed: set[str] = set()
        previous = -1
        stuck = None  # the last node inference left without a shape
        for _round in range(MAX_INFERENCE_ROUNDS):
            try:
                inferred = si.infer_shapes(work, check_type=False, strict_mode=False,
                                           data_prop=True)
            except Exception as exc:  # noqa: BLE001
                self.fail(Msg(QT_TRANSLATE_NOOP("core", "ONNX shape inference failed: {why}"),
                              why=one_line(exc)))
            self.shapes = self._read_shapes(inferred.graph)
            self._full: dict[str, tuple[int, ...]] = {}
            self._per_sample: dict[str, tuple[int, ...] | None] = {}
            self._propagate_values()
            # An If decided by the shapes just found: the branch taken replaces it.
            try:
                if inline_known_ifs(self, work):
                    continue
            except GraphError as exc:
                self.fail(message_of(exc))
            # Values that inference lacks: hand them back as constants.
            new_nodes: set[int] = set()
            unshaped = False  # (a node with no output shape: where _first_missing looks)
            for node in self.nodes:
                outs = [o for o in node.output if o]
                if not outs or all(self.full_shape(o) is not None for o in outs):
                    continue
                unshaped = True
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
            missing = self._first_missing(assumed) if unshaped else None
            if missing is None:
                data_dependent = sorted(op for op in self.unknown_ops if op in DATA_DEPENDENT)
                if data_dependent:
                    self.incomplete = True
                    self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                        "core", "The graph selects elements by their values ({ops}): the "
                        "shapes after them are known only when the network runs and were "
                        "assumed, so the plan there is a guess (a detector's post-processing: "
                        "box decoding, non-maximum suppression). Export the network up to its "
                        "raw outputs (backbone and heads, without the post-processing)."),
                        ops=", ".join(data_dependent)))
                return
            node, out_names, src = missing
            stuck = node
            if node.op_type == "Loop" and _builds_list(node):
                self.fail(_lists(node))
            if node.op_type in CONTROL_FLOW:
                self.fail(_control_flow(node.op_type, node.name or out_names[0]))
            if len(assumed) >= MAX_UNKNOWN_OPS or len(self.shapes) <= previous and not out_names:
                break
            previous = len(self.shapes)
            if node.op_type not in UNCONVERTED_ELEMENTWISE or node.domain not in ("", "ai.onnx"):
                self.unknown_ops[node.op_type]
                self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                    "core", "Shape inference does not know '{op}' (node '{node}'): assumed to "
                    "keep its input's shape."), op=node.op_type, node=node.name or out_names[0]))
            src_vi = self._vi_by_name(inferred.graph, src)
            for o in out_names:
                assumed.add(o)
                vi = work.graph.value_info.add()
                vi.CopyFrom(src_vi)
                vi.name = o
        data_dependent = sorted(op for op in self.unknown_ops if op in DATA_DEPENDENT)
        if data_dependent:
            self.fail(Msg(QT_TRANSLATE_NOOP(
                "core", "ONNX shape inference leaves too many tensor shapes unknown: the graph "
                "selects elements by their values ({ops}), so the shapes after them are known "
                "only when the network runs (a detector's post-processing: box decoding, "
                "non-maximum suppression). The planner plans a graph without it: export the "
                "network up to its raw outputs (backbone and heads, without the "
                "post-processing)."), ops=", ".join(data_dependent)))
        if stuck is not None and stuck.op_type in SEQUENCE_OPS:
            self.fail(_lists(stuck))
        if stuck is not None:
            self.fail(Msg(QT_TRANSLATE_NOOP(
                "core", "ONNX shape inference leaves too many tensor shapes unknown (missing "
                "shapes), the last at {op} node '{node}'"), op=stuck.op_type,
                node=stuck.name or (stuck.output[0] if stuck.output else "")))
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
            if op in NEEDS_ALL_INPUTS and any(i and v is None for i, v in zip(node.input, ins)):
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

    def _read_shapes(self, graph) -> dict[str, tuple]:
        out: dict[str, tuple] = {}
        elem_types = self.elem_types
        init_dims = self.init_dims
        for coll in (graph.input, graph.value_info, graph.output):
            for vi in coll:
                ty = vi.type
                if not ty.HasField("tensor_type"):
                    continue
                tt = ty.tensor_type
                elem = tt.elem_type
                if elem:
                    elem_types[vi.name] = elem
                if not tt.HasField("shape"):
                    continue
                # (one generator per tensor: 300,000 tensors of a 100,000-node graph; an
                # unset or symbolic dimension reads as 0, so only a shape with a 0 asks which)
                sdims = tt.shape.dim
                dims = tuple(d.dim_value for d in sdims)
                if 0 in dims:
                    dims = tuple(d.dim_value if d.HasField("dim_value") else None
                                 for d in sdims)
                name = vi.name
                for v in dims:
                    if v is not None and v > MAX_DIM and name not in init_dims:
                        self.fail(Msg(QT_TRANSLATE_NOOP(
                            "core", "tensor '{name}' has a dimension of {v}: absurd "
                            "dimensions"), name=name, v=v))
                if name not in out:
                    out[name] = dims
        out.update(init_dims)
        for name in getattr(self, "injected", ()):
            out[name] = tuple(int(d) for d in getattr(self.values[name], "shape", ()))
        return out

    @staticmethod
    def _vi_by_name(graph, name):
        for coll in (graph.input, graph.value_info, graph.output):
            for vi in coll:
                if vi.name == name:
                    return vi
        raise ImportFailure(Msg(QT_TRANSLATE_NOOP(
            "core", "tensor '{name}' has no shape (missing shapes)"), name=name))

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
        self.batch_tables: dict[str, int] = {}
        self.random_sources = self._random_sources()
        self.acts.update(self.random_sources)
        for _pass in range(2):
            for node in self.nodes:
                if node.op_type in ("Shape", "Size"):
                    continue
                if any(i in self.acts for i in node.input) or \
                        node.op_type in CONTROL_FLOW and any(
                            i in self.acts for i in outer_reads(node)):
                    # (a dynamic quantization's scale and zero point are numbers of the whole
                    # tensor, not activations: the float network has neither)
                    outs = node.output[:1] if node.op_type == "DynamicQuantizeLinear" else \
                        node.output
                    for o in outs:
                        if o:
                            self.acts.add(o)
            flow = next((n for n in self.nodes if n.op_type in CONTROL_FLOW and
                         any(o in self.acts for o in n.output)), None)
            if flow is not None:
                # A loop or branch over activations, read as its inputs or, in its body, by
                # name from the graph around it (the default exporter's nn.EmbeddingBag: a
                # Loop over the bags): its shapes may be recorded, but what it computes is in
                # a body the planner does not plan.
                if flow.op_type == "Loop" and _builds_list(flow):
                    self.fail(_lists(flow))
                self.fail(_control_flow(flow.op_type, flow.name or flow.output[0]))
            if _pass == 0:
                self.batch_tables = self._batch_tables()
                if not self.batch_tables:
                    break
                self.acts.update(self.batch_tables)
        for name in self.data_inputs:
            shape = self.per_sample_raw(name, self.input_axes[name])
            if shape is None or not 1 <= len(shape) <= 4:
                self.fail(Msg(QT_TRANSLATE_NOOP(
                    "core", "input '{name}' needs 1 to 4 dimensions besides the batch, got "
                    "{shape}"), name=name, shape=shape_str(shape)))

    def _settle_batch_axis(self) -> None:
        """A file with a fixed input shape does not say which axis is the batch: axis 0 is
        taken, as nearly every network has it. A sequence-first network
        (torch.nn.TransformerEncoder with batch_first=False, nn.MultiheadAttention's default:
        (T, B, C)) has it at axis 1, and planned on axis 0 its sequence would be the batch.
        Samples never mix: where the axis taken is one that attention normalises (Softmax)
        or contracts (a product of two activations), it is not the batch. Then the other
        axes are tried (the file's size-1 axes first: the example batch), and the first that
        mixes nothing is the batch (said in a note)."""
        if len(self.data_inputs) != 1 or self.side_inputs or self.fixed_batch is None or \
                self.input_shape_arg is not None or not self._mixes_batch():
            return
        name = self.data_inputs[0]
        full = self.full_shape(name)
        first = self.input_axes[name]
        if full is None:
            return
        order = sorted((k for k in range(len(full)) if k != first),
                       key=lambda k: (full[k] != 1, k))
        for axis in order:
            self._use_batch_axis(name, axis)
            if not self._mixes_batch():
                self.notes.append(Msg(QT_TRANSLATE_NOOP(
                    "core", "The file fixes input '{name}' at {shape} and does not say which "
                    "axis is the batch; its attention mixes the elements along axis {first}, "
                    "so that axis is not the batch: planned with the batch on axis {axis} (a "
                    "sequence-first network, as torch.nn.Transformer by default)."),
                    name=name, shape=shape_str(full), first=first, axis=axis))
                return
        self._use_batch_axis(name, first)

    def _use_batch_axis(self, name: str, axis: int) -> None:
        full = self.full_shape(name)
        self.input_axes[name] = axis
        self.input_axis = axis
        self.fixed_batch = int(full[axis])
        self.batch_infer = self.fixed_batch
        self.input_shapes[name] = tuple(d for k, d in enumerate(full) if k != axis) or (1,)
        self._per_sample = {}
        self._no_grad = None
        self._find_activations()
        self._batch_axes()

    def _mixes_batch(self) -> bool:
        """Some operator mixes elements of different samples along the batch axis found:
        a Softmax over it, or a product of two activations contracting it."""
        bax = self.bax
        for node in self.nodes:
            op = node.op_type
            if op in ("Softmax", "LogSoftmax") and node.input and node.input[0] in self.acts:
                b, s = bax.get(node.input[0]), self.full_shape(node.input[0])
                if b is not None and s and s[b] > 1 and \
                        int(self.attr(node, "axis", -1)) % len(s) == b:
                    return True
            elif op == "MatMul" and len(node.input) == 2 and \
                    all(i in self.acts for i in node.input):
                for i, contracted in ((node.input[0], -1), (node.input[1], -2)):
                    b, s = bax.get(i), self.full_shape(i)
                    if b is not None and s and len(s) >= 2 and s[b] > 1 and \
                            b == len(s) + contracted:
                        return True
        return False

    def _random_sources(self) -> dict[str, int]:
        """Random tensors drawn per sample from nothing the input computes (ViTMAE's
        ``torch.rand(B, L)`` noise, whose argsort picks the patches each sample keeps; a drop
        path's ``(B, 1, 1, 1)`` mask): tensor -> the node. Their first axis is the batch (the
        file's, 1 when exported at batch 1, whatever the exporter wrote for the shape: a
        constant, or one computed from the input's Shape, which is no activation). Planned
        as activations without a gradient, so what is computed from them is per sample (an
        index torch.gather keeps for every sample, not once)."""
        out: dict[str, int] = {}
        for k, node in enumerate(self.nodes):
            if node.op_type not in RANDOM_OPS or not node.output or not node.output[0] or \
                    any(i in self.acts for i in node.input):
                continue
            s = self.full_shape(node.output[0])
            if s is not None and len(s) >= 1 and s[0] == self.batch_infer:
                out[node.output[0]] = k
        return out

    def _batch_tables(self) -> dict[str, int]:
        """Constant tables the network expands over the batch for a learned layer to read
        (ConViT's ``rel_indices.expand(B, -1, -1, -1)`` before its position projection):
        tensor -> the Expand node. At the file's batch of 1 the Expand changes nothing (its
        target was the batch), so a learned layer over it looks like one over a constant,
        computed once; PyTorch runs it on every sample and keeps what it keeps per sample.
        Such a table is planned as an activation (batch first)."""
        if self.batch_infer != 1:
            return {}
        out: dict[str, int] = {}
        for k, node in enumerate(self.nodes):
            if node.op_type != "Expand" or len(node.input) < 2 or not node.output or \
                    node.input[0] in self.acts or node.output[0] in self.acts:
                continue
            x, y = self.full_shape(node.input[0]), self.full_shape(node.output[0])
            if x is None or y is None or len(y) < 3 or tuple(x) != tuple(y) or y[0] != 1 or \
                    not self._read_by_learned_layer(node.output[0]):
                continue
            out[node.output[0]] = k
        return out

    def _read_by_learned_layer(self, tensor: str) -> bool:
        """``tensor`` is, through views and casts, the data operand of a product with a
        weight of the file (MatMul, Gemm, Conv)."""
        for _ in range(6):
            users = self.consumers.get(tensor, [])
            if len(users) != 1:
                return False
            n = self.nodes[users[0]]
            if n.op_type in ("MatMul", "Gemm", "Conv") and len(n.input) > 1 and \
                    n.input[0] == tensor and self.is_weight(n.input[1]):
                return True
            if n.op_type not in ("Cast", "Identity", "Reshape", "Transpose", "Unsqueeze",
                                 "Squeeze") or not n.output:
                return False
            tensor = n.output[0]
        return False

    def _batch_axes(self) -> None:
        """Which axis of each activation is the batch (None: merged with another, or gone).

        At a file's batch of 1, a batch merged into an axis before it (a sequence-first
        network's ``x.view(T * B, C)`` … ``.view(T, B, C)``) cannot be told by its size: the
        reshape back has it lost. Where such a tensor meets one whose batch axis is known in
        an element-wise op, of the same rank and with a size-1 axis there, that axis is its
        batch (a second pass follows it on)."""
        self._batch_axes_pass({})
        if self.batch_infer != 1:
            return
        found: dict[str, int] = {}
        for node in self.nodes:
            if node.op_type not in _BROADCAST_OPS:
                continue
            ins = [i for i in node.input if i and i in self.acts]
            known = [(self.bax.get(i), self.full_shape(i)) for i in ins
                     if self.bax.get(i) is not None]
            for i in ins:
                s = self.full_shape(i)
                if self.bax.get(i) is not None or s is None:
                    continue
                chain, t = [i], i  # back through ops that keep the shape (a dropout)
                p = self.producer.get(t)
                while p is not None and self.nodes[p].op_type in _SHAPE_KEEPING and \
                        len(chain) < 8:
                    t = self.nodes[p].input[0]
                    if t not in self.acts or self.bax.get(t) is not None or \
                            self.full_shape(t) != s:
                        break
                    chain.append(t)
                    p = self.producer.get(t)
                if p is None or self.nodes[p].op_type not in ("Reshape", "Unsqueeze"):
                    continue
                for b, ks in known:
                    if ks is not None and len(ks) == len(s) and s[b] == 1 and \
                            tuple(d for k, d in enumerate(s) if k != b) == \
                            tuple(d for k, d in enumerate(ks) if k != b):
                        found.update((c, b) for c in chain)
                        break
        if found:
            self._batch_axes_pass(found)

    def _batch_axes_pass(self, fixed: dict[str, int]) -> None:
        b0 = self.batch_infer
        bax: dict[str, int | None] = dict(self.input_axes)
        bax.update((t, 0) for t in self.batch_tables)
        bax.update((t, 0) for t in self.random_sources)
        self.bax = bax
        self.merged_lead.clear()
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
                if b is None and b0 == 1:
                    b = self._merged_lead(node, act_in, o, ys)
                bax[o] = fixed.get(o, b)

    def _merged_lead(self, node, act_in: list[str], o: str, ys) -> int | None:
        """At an inference batch of 1, a batch merged with the axes after it (``x.view(-1,
        C)`` of B×T×C: a mixture of experts' token list, M2M100's position lookup, Swin's
        windows) cannot be told by its size. Such a tensor has one axis holding the batch as
        its outermost factor (``merged_lead``: tensor -> that axis), followed through
        transposes, selects and the operations that keep it; a reshape keeps it outermost
        where nothing precedes it, and one back to 1×… (``view(B, T, C)``) has the batch as
        its first axis again: 0. None otherwise (the output marked merged where it still
        is)."""
        op = node.op_type
        lead = self.merged_lead
        reshape = op in ("Reshape", "Flatten", "Squeeze")
        for x in act_in:
            xs = self.full_shape(x)
            if xs is None or not xs:
                continue
            bx = self.bax.get(x)
            j = lead.get(x)
            if j is None:
                if bx is not None and reshape and math.prod(xs[:bx]) == 1 and \
                        numel(ys) == numel(xs):
                    lead[o] = 0  # the batch, outermost, merged with the axes after it
                    return None
                continue
            if reshape:
                if math.prod(xs[:j]) != 1 or numel(ys) != numel(xs):
                    return None
                if op == "Reshape" and len(ys) >= 2 and ys[0] == 1:
                    return 0
                lead[o] = 0
                return None
            k = _merged_axis(self, node, x, xs, j, ys)
            if k is not None:
                lead[o] = k
                return None
        return None

    def full_shape(self, name: str) -> tuple[int, ...] | None:
        full = self._full
        if name in full:
            return full[name]
        s = self.shapes.get(name)
        if s is None or None in s:
            return None
        full[name] = s
        return s

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
    if op == "Unsqueeze" and ry > rx:
        # Where the axes are inserted, not where a reshape would put a batch of 1: the
        # batch of 1 the file is inferred at looks like the axis inserted before it
        # (torch.stack(xs, 0), FPN's merge, then a sum over the stack).
        k = b
        for a in sorted(_unsqueezed_axes(imp, node, ry)):
            if a <= k:
                k += 1
        return k if k < ry and ys[k] == xs[b] else None
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
            axes = None if v is None else [int(a) for a in flat(v)]
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


def _merged_axis(imp, node, x: str, xs, j: int, ys) -> int | None:
    """Where the axis ``j`` of ``x`` (holding a merged batch) is in the output, or None."""
    op = node.op_type
    rx, ry = len(xs), len(ys)
    if op == "Transpose":
        perm = list(imp.attr(node, "perm") or list(range(rx))[::-1])
        return perm.index(j) if j in perm else None
    if op == "Gather":
        axis = int(imp.attr(node, "axis", 0)) % max(rx, 1)
        idx = imp.dims_of(node.input[1]) if len(node.input) > 1 else None
        if node.input[0] != x:  # rows looked up by a merged index
            return j if axis == 0 and len(node.input) > 1 and node.input[1] == x else None
        if axis == j:
            # rows picked from the merged axis (a mixture of experts' tokens for one expert,
            # as many per sample): still merged there
            return j if rx == ry and (idx is None or len(idx) == 1) else None
        if idx is None:
            return None
        return j if axis > j else j + len(idx) - 1
    if op == "Unsqueeze":
        added = _unsqueezed_axes(imp, node, ry)
        k = j
        for a in sorted(added):
            if a <= k:
                k += 1
        return k if k < ry and ys[k] == xs[j] else None
    if op.startswith("Reduce"):
        axes = _reduced_axes(imp, node, rx)
        if j in axes:
            return None
        keep = int(imp.attr(node, "keepdims", 1))
        k = j if keep else j - sum(1 for a in axes if a < j)
        return k if 0 <= k < ry and ys[k] == xs[j] else None
    if rx == ry and ys[j] == xs[j]:
        return j  # element-wise, products, splits, slices and concatenations of other axes
    return None


def _reduced_axes(imp, node, rank: int) -> set[int]:
    axes = imp.attr(node, "axes")
    if axes is None and len(node.input) > 1 and node.input[1]:
        axes = imp.const(node.input[1])
    if axes is None:
        return set(range(rank))  # every axis (or unknown)
    return {int(a) % rank for a in flat(axes)}


def _unsqueezed_axes(imp, node, rank: int) -> set[int]:
    axes = imp.attr(node, "axes")
    if axes is None and len(node.input) > 1 and node.input[1]:
        axes = imp.const(node.input[1])
    if axes is None:
        return {0}  # unknown: taken as the first
    return {int(a) % rank for a in flat(axes)}


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


def _search_axis(ys, b0) -> int | None:
    if b0 == 1:
        return None
    return next((j for j, d in enumerate(ys) if d == b0), None)


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


def _as_array(v):
    import numpy as np  # noqa: PLC0415

    return np.asarray(v)


def _broadcasts(shapes) -> bool:
    """The known shapes broadcast together (numpy's rule); unknown ones are not judged."""
    known = [s for s in shapes if s is not None and None not in s]
    for k in range(1, max((len(s) for s in known), default=0) + 1):
        sizes = {s[-k] for s in known if len(s) >= k} - {1}
        if len(sizes) > 1:
            return False
    return True


_BROADCAST_OPS = frozenset({"Add", "Sub", "Mul", "Div", "Where", "Pow"})
# one-input operators whose output has their input's shape and batch axis
_SHAPE_KEEPING = frozenset({"Dropout", "Identity", "Cast", "Relu", "Gelu", "Sigmoid", "Tanh",
                            "Erf", "Neg"})


def chain_copies(imp, root: str, tensor: str) -> bool:
    """Whether the chain of reshapes and transposes from ``root`` to ``tensor`` makes a copy
    in PyTorch: a reshape of a transposed tensor that no strides can express (a pixel
    unshuffle's or a channel shuffle's ``permute(...).reshape(...)``)."""
    chain = []
    t = tensor
    for _ in range(16):
        if t == root:
            break
        p = imp.producer.get(t)
        if p is None:
            return False
        n = imp.nodes[p]
        if n.op_type not in ("Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose") or \
                not n.input:
            return False
        chain.append(n)
        t = n.input[0]
    else:
        return False
    sizes = imp.full_shape(root)
    if sizes is None or not chain:
        return False
    strides = contiguous(sizes)
    sizes = list(sizes)
    for n in reversed(chain):
        new = imp.full_shape(n.output[0])
        if new is None:
            return False
        if n.op_type == "Transpose":
            perm = imp.attr(n, "perm") or list(range(len(sizes)))[::-1]
            if len(perm) != len(sizes):
                return False
            sizes, strides = [sizes[a] for a in perm], [strides[a] for a in perm]
            continue
        s = view_strides(sizes, strides, new)
        if s is None:
            return True
        sizes, strides = list(new), s
    return False


def outer_reads(node, limit: int = 100_000) -> set[str]:
    """Names a control-flow node's bodies (``If``'s branches, ``Loop``'s and ``Scan``'s body,
    nested ones included) read from the graph around them: ONNX lets a body use any name of
    its outer scope without listing it as an input. At most ``limit`` nodes are read."""
    reads: set[str] = set()
    stack = [(a.g, set()) for a in node.attribute if a.type == a.GRAPH] + \
        [(g, set()) for a in node.attribute if a.type == a.GRAPHS for g in a.graphs]
    seen = 0
    while stack and seen < limit:
        g, outer_defined = stack.pop()
        defined = set(outer_defined) | {i.name for i in g.input} | \
            {i.name for i in g.initializer}
        for n in g.node:
            seen += 1
            reads.update(i for i in n.input if i and i not in defined)
            for a in n.attribute:
                if a.type == a.GRAPH:
                    stack.append((a.g, defined | set(n.output)))
                elif a.type == a.GRAPHS:
                    stack.extend((sub, defined | set(n.output)) for sub in a.graphs)
            defined.update(n.output)
    return reads


def _builds_list(node) -> bool:
    """A Loop whose body appends to a list of tensors (the legacy exporter's tensor_split)."""
    for a in node.attribute:
        if a.name == "body" and any(n.op_type in SEQUENCE_OPS for n in a.g.node[:10_000]):
            return True
    return False


def _lists(node) -> Msg:
    """The refusal of a graph that builds lists of tensors, whose shapes inference loses."""
    return Msg(QT_TRANSLATE_NOOP(
        "core", "ONNX shape inference leaves too many tensor shapes unknown: the graph "
        "builds lists of tensors ({op} node '{node}': torch.tensor_split, or a Python list the "
        "legacy exporter traced), whose shapes inference does not follow. Export with the "
        "default exporter (torch.onnx.export(model, (x,), 'm.onnx')), which writes such splits "
        "as slices."), op=node.op_type,
        node=node.name or (node.output[0] if node.output else ""))


def _control_flow(op: str, node: str) -> Msg:
    """The refusal of a graph whose control flow depends on the data (a Loop, If or Scan
    whose iterations or branch are known only at run time, or whose body reads activations)."""
    return Msg(QT_TRANSLATE_NOOP(
        "core", "The graph has control flow that depends on the data ({op} node "
        "'{node}'): which branch runs, or how often, is known only when the network "
        "runs (a detector's post-processing: box decoding, non-maximum suppression). "
        "The planner plans a graph without it: export the network up to its raw "
        "outputs (backbone and heads, without the post-processing)."), op=op, node=node)
