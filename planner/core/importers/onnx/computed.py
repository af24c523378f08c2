"""Operands the ONNX graph computes from parameters alone (round 7a): what autograd keeps of
them and which parameters they are.

``normalized_weight`` (a convolution weight g · v / ‖v‖), ``broadcast_operand`` (a product
with per-head position keys that ``torch.matmul`` expands over the batch),
``larger_computed_factor`` (a product with a larger factor computed from parameters: WavLM's
gated position bias). The mappers call them; a one-element learned scale or bias is
``WeightAccounting.scalar_parameter``'s.
"""

from __future__ import annotations

from planner.core.importers.onnx.common import FLOAT_TYPES, MAX_CONSTANT_WALK
from planner.core.layers import numel



def constant_subgraph(imp, weight: str):
    """The activation-free subgraph ``weight`` is computed from (up to MAX_CONSTANT_WALK
    tensors): (its op types, its float initializers of more than one value, its nodes in the
    order met), or None where an activation feeds it (not a weight)."""
    stack, seen, ops, inits, nodes = [weight], set(), set(), [], []
    while stack and len(seen) < MAX_CONSTANT_WALK:
        t = stack.pop()
        if t in seen:
            continue
        if t in imp.acts:
            return None
        seen.add(t)
        if t in imp.init_dims:
            if imp.init_type.get(t) in FLOAT_TYPES and numel(imp.init_dims[t]) > 1:
                inits.append(t)
            continue
        p = imp.producer.get(t)
        if p is None:
            continue
        node = imp.nodes[p]
        ops.add(node.op_type)
        nodes.append(node)
        stack.extend(i for i in node.input if i)
    return ops, inits, nodes


def normalized_weight(imp, weight: str, elements: int):
    """A convolution weight computed in the graph as g · v / ‖v‖ (weight_norm, as a
    parametrization or the old hook: Wav2Vec2's, HuBERT's and WavLM's positional
    convolution; the norm a ReduceL2, or Pow, ReduceSum and Sqrt): (elements of g, (v, g)),
    or None. v is the learned initializer of the weight's size behind it, g a smaller
    learned one (one value per output channel, or per kernel tap for dim=2)."""
    walk = constant_subgraph(imp, weight)
    if walk is None:
        return None
    ops, inits, _nodes = walk
    if not ("ReduceL2" in ops or {"Sqrt", "ReduceSum"} <= ops) or \
            not ops & {"Div", "Reciprocal"} or "Mul" not in ops:
        return None
    v = next((t for t in inits if numel(imp.init_dims[t]) == elements and imp.is_learned(t)),
             None)
    g = [t for t in inits if t != v and numel(imp.init_dims[t]) < elements and
         imp.is_learned(t)]
    if v is None or len(g) != 1:
        return None
    return numel(imp.init_dims[g[0]]), (v, g[0])


def broadcast_operand(imp, node, a: str, b: str, dims) -> bool:
    """``a @ b`` where ``b`` has batch dimensions of its own but is computed from parameters
    and constants alone, not per sample (DeBERTa's relative-position keys and queries: a
    projection of the position table, per head): torch.matmul expands it over the batch and
    reshapes it to 3-D for bmm (a copy, as DeBERTa-v2's explicit repeat is), and bmm keeps
    that copy per sample besides ``a``. Planned as a per-sample copy of ``b`` kept with
    ``a``; True where mapped so."""
    full = imp.full_shape(a)
    if len(dims) < 3 or numel(dims[:-2]) < 2 or full is None or len(full) < 3 or \
            imp.init_type.get(b, imp.elem_types.get(b)) not in FLOAT_TYPES or \
            b in imp.init_dims and imp.is_learned(b):  # (a batched weight of its own)
        return False
    out = imp.per_sample(node.output[0])
    if out is None:
        return False
    per = numel(dims) // max(1, imp.batch_infer)  # the file's operand at its export batch
    from planner.core.importers.onnx.mappers import _contiguous  # noqa: PLC0415

    src = _contiguous(imp, node, a, 0)
    copy = f"\0expanded:{node.output[0]}"
    imp.tensor_layer[copy] = imp.emit(
        "elementwise", node, {"op": "other", "keeps": "nothing", "shape": (per,)}, src, out=[],
        name=imp.layer_name(node, "expanded"))
    imp.emit("elementwise", node, {"op": "other", "keeps": "inputs",
                                   "from": (imp.tensor_layer[copy],), "shape": out}, src)
    imp.expanded_operands.add(imp.current)
    return True


def gather_indices(imp, tensor: str, into: str = "lookup_indices") -> None:
    """Constant index tensors of lookups in a learned table behind ``tensor`` (WavLM's T×T
    relative-position buckets into its embedding): autograd keeps each int64 index once for
    the table's gradient, which the plan has no layer for: counted for the warning (in
    ``imp.<into>``)."""
    stack, seen = [tensor], set()
    while stack and len(seen) < MAX_CONSTANT_WALK:
        t = stack.pop()
        if t in seen or t in imp.acts:
            continue
        seen.add(t)
        p = imp.producer.get(t)
        if p is None:
            continue
        node = imp.nodes[p]
        if node.op_type == "Gather" and len(node.input) > 1 and imp.is_learned(node.input[0]):
            dims = imp.dims_of(node.input[1])
            counted = imp.__dict__.setdefault("counted_lookups", set())
            if dims is not None and p not in counted and (
                    imp.is_integer(node.input[1]) or imp.init_type.get(node.input[1]) in (6, 7)):
                counted.add(p)  # (one index, however many factors it is behind)
                setattr(imp, into, getattr(imp, into) + numel(dims))
            continue
        stack.extend(i for i in node.input if i)


def larger_computed_factor(imp, node, op, other, main, x, out) -> str | None:
    """A product of an activation with a larger tensor computed from parameters (WavLM's
    gated relative-position bias: gate × the bias per head, T×T, gathered from its table):
    autograd keeps that factor for the activation's gradient, repeated over the batch as the
    network does (WavLM's position_bias.repeat(bsz, ...)); one copy per factor, however many
    products read it (WavLM passes it on to every layer). The name of the layer standing
    for it, or None."""
    dims = imp.dims_of(other)
    if op != "Mul" or other in imp.init_dims or dims is None or len(dims) < 3 or \
            x is None or out is None:
        return None
    per = numel(dims) // max(1, imp.batch_infer)
    if per <= numel(x) or numel(out) < per:
        return None
    copies = imp.__dict__.setdefault("factor_copies", {})
    if other not in copies:
        gather_indices(imp, other)
        name = imp.emit("elementwise", node, {"op": "other", "keeps": "nothing",
                                              "shape": (per,)}, main, out=[],
                        name=imp.layer_name(node, "factor"))
        copies[other] = name
    return copies[other]
