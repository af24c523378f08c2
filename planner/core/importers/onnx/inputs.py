"""The graph's inputs: which ones the plan follows, and their per-sample shapes.

A part of the importer (``importer.Importer`` inherits it): its methods read and set the
importer's own state.
"""

from __future__ import annotations

from planner.core.importers.onnx.common import (
    DEFAULT_BATCH,
    DEFAULT_SEQUENCE,
    FLOAT_TYPES,
    INT_TYPES,
    LEARNED_OPS,
    MATRIX_OPS,
    MAX_DATA_INPUTS,
)
from planner.core.layers import MAX_DIM, numel, shape_str
from planner.core.network import MAX_BATCH
from planner.i18n import QT_TRANSLATE_NOOP, Msg


class InputSelection:
    """The graph's inputs: which ones the plan follows, and their per-sample shapes."""

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
                FLOAT_TYPES

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
            if node.op_type in LEARNED_OPS and any(
                    i and i not in reach and self._weight_input(
                        i, matrix=node.op_type in MATRIX_OPS) for i in node.input):
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

    def _weight_input(self, name: str, matrix: bool = False) -> bool:
        """``name`` is a float weight of the file (an initializer of more than one value, or
        one seen through a cast, transpose or reshape of it; ``matrix``: with two axes above
        1)."""
        for _hop in range(4):
            if name in self.init_dims:
                dims = self.init_dims[name]
                return self.init_type.get(name) in FLOAT_TYPES and numel(dims) > 1 and \
                    (not matrix or sum(1 for d in dims if d > 1) >= 2)
            p = self.producer.get(name)
            if p is None or self.nodes[p].op_type not in (
                    "Identity", "Cast", "Transpose", "Reshape", "Unsqueeze", "Squeeze",
                    "DequantizeLinear"):
                return False
            name = self.nodes[p].input[0] if self.nodes[p].input else ""
        return False

    def followed_inputs(self) -> tuple[tuple[str, str, tuple[int, ...]], ...]:
        """(graph input, plan layer, per-sample shape planned) of each input followed."""
        out = []
        for name in self.data_inputs:
            layer = dict.get(self.tensor_layer, name)
            shape = self.layer_out.get(layer) if layer else None
            if layer and shape is not None:
                out.append((name, layer, tuple(shape)))
        return tuple(out)

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

    def _input_dims(self, vi, asked, beside: bool = False) -> tuple[int, int | None,
                                                                    tuple[int, ...]]:
        """A followed input's batch axis, the batch the file fixes (None: symbolic) and its
        per-sample shape to plan (``asked``, else the file's, else a default length).

        ``beside``: not the primary input. Such an input may be one value per sample (a
        diffusion model's timestep or noise level, ``[batch]``: its sinusoidal embedding
        feeds learned layers); it is planned as one value per sample."""
        if not vi.type.HasField("tensor_type") or not vi.type.tensor_type.HasField("shape"):
            self.fail(Msg(QT_TRANSLATE_NOOP(
                "core", "input '{name}' has no shape (missing shapes: re-export with shapes)"),
                name=vi.name))
        tokens = vi.type.tensor_type.elem_type in INT_TYPES
        if tokens:
            self.token_inputs.add(vi.name)
        dims = vi.type.tensor_type.shape.dim
        if len(dims) < 2 and not ((tokens or beside) and len(dims) == 1):
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
                others = [i for i in self.data_inputs if i != vi.name]
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
                elif len(self.data_inputs) > 1:
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



def _common_prefix(a: str, b: str) -> str:
    k = 0
    while k < min(len(a), len(b)) and a[k] == b[k]:
        k += 1
    return a[:k]
