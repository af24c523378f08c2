"""Strides of an activation through the views PyTorch makes of it, and the copies that
torch.matmul's batched path makes of its operands.

torch.matmul of two operands of three or more dimensions expands both to their broadcast
batch shape and reshapes each to (batch, rows, columns) for one bmm; a reshape that cannot be
a view (a broadcast axis merged with another, heads transposed before a merge) copies, and bmm
keeps the copy for backward, not the tensor it was made from. The strides are followed from the
last tensor an operator wrote (contiguous) through the file's views, with the batch stood in
at 2 where the file's shapes carry it at 1 (a batch of 1 hides a merge that cannot be a view).
"""

from __future__ import annotations

import math

from planner.core.importers.onnx.common import flat
from planner.core.layers import numel

# operators PyTorch runs as views of their input (strides followed), at most this many back
_VIEWS = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Identity", "Slice",
          "Split", "Gather", "Expand", "Dropout"}
_MAX_CHAIN = 16
# element-wise operators whose result keeps its one activation input's memory order (PyTorch's
# TensorIterator lays the output out in the input's stride order: DeBERTa's permuted q + q_bias,
# scaled, is still head-major over token-major memory)
LAYOUT_KEEPING = frozenset({"Add", "Sub", "Mul", "Div", "Neg", "Cast"})


def contiguous(shape) -> tuple[int, ...]:
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= max(1, d)
    return tuple(reversed(strides))


def view_strides(old, strides, new) -> tuple[int, ...] | None:
    """The strides of ``old`` (with ``strides``) viewed as ``new``, or None where PyTorch's
    reshape must copy (at::detail::computeStride)."""
    if not old:  # a 0-d tensor views as any shape of one element
        return (1,) * len(new) if numel(new) == 1 else None
    if numel(old) != numel(new):
        return None
    if numel(old) == 0:
        return contiguous(new)
    out = [0] * len(new)
    view_d = len(new) - 1
    chunk_base_stride = strides[-1] if strides else 1
    tensor_numel, view_numel = 1, 1
    for tensor_d in range(len(old) - 1, -1, -1):
        tensor_numel *= old[tensor_d]
        if tensor_d == 0 or (old[tensor_d - 1] != 1 and
                             strides[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or new[view_d] == 1):
                out[view_d] = view_numel * chunk_base_stride
                view_numel *= new[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = strides[tensor_d - 1]
                tensor_numel, view_numel = 1, 1
    if view_d != -1:
        return None
    return tuple(out)


def _shape(imp, tensor: str) -> tuple[int, ...] | None:
    """``tensor``'s full shape with the batch stood in at 2 where the file has it at 1."""
    s = imp.full_shape(tensor)
    if s is None:
        return None
    axis = imp.batch_axis(tensor)
    if imp.batch_infer == 1 and axis is not None and 0 <= axis < len(s):
        s = s[:axis] + (2 * s[axis],) + s[axis + 1:]
    return tuple(int(d) for d in s)


def layout(imp, tensor: str) -> tuple[tuple[int, ...], tuple[int, ...], bool] | None:
    """(shape, strides, copied) of activation ``tensor``: ``copied`` where a reshape on the
    way from the last written tensor could not be a view (PyTorch copied there). None where a
    shape is unknown or a view is not followed."""
    chain = []
    t = tensor
    while len(chain) < _MAX_CHAIN:
        p = imp.producer.get(t)
        if p is None:
            break
        n = imp.nodes[p]
        if n.op_type in LAYOUT_KEEPING:
            acts = [i for i in n.input if i in imp.acts]
            if len(acts) != 1 or _shape(imp, acts[0]) != _shape(imp, t):
                break
            chain.append((n, t))
            t = acts[0]
            continue
        if n.op_type not in _VIEWS or not n.input or n.input[0] not in imp.acts:
            break
        if n.op_type == "Gather" and (len(n.input) < 2 or imp.dims_of(n.input[1]) != ()):
            break  # a gather of rows copies; a scalar index (q, k = qkv[0], qkv[1]) selects
        chain.append((n, t))
        t = n.input[0]
    shape = _shape(imp, t)
    if shape is None:
        return None
    strides, copied = contiguous(shape), False
    for n, out in reversed(chain):
        new = _shape(imp, out)
        if new is None:
            return None
        op = n.op_type
        if op in LAYOUT_KEEPING:  # a new tensor, dense, in its input's axis order
            strides = _dense_like(shape, strides)
        elif op == "Transpose":
            perm = list(imp.attr(n, "perm", []) or range(len(shape) - 1, -1, -1))
            if sorted(perm) != list(range(len(shape))):
                return None
            strides = tuple(strides[k] for k in perm)
        elif op in ("Reshape", "Flatten", "Squeeze", "Unsqueeze"):
            s = view_strides(shape, strides, new)
            if s is None:
                s, copied = contiguous(new), True
            strides = s
        elif op in ("Slice", "Split"):
            if len(new) != len(shape):
                return None
            if op == "Slice" and len(n.input) > 4 and n.input[4]:
                steps, axes = imp.const(n.input[4]), imp.const(n.input[3]) if n.input[3] else None
                if steps is None:
                    return None
                steps = [int(v) for v in flat(steps)]
                axes = [int(v) for v in flat(axes)] if axes is not None else list(
                    range(len(steps)))
                strides = list(strides)
                for a, st in zip(axes, steps):
                    strides[a % len(shape)] *= abs(st)
                strides = tuple(strides)
        elif op == "Gather":
            axis = int(imp.attr(n, "axis", 0)) % len(shape)
            strides = strides[:axis] + strides[axis + 1:]
        elif op == "Expand":
            lead = len(new) - len(shape)
            if lead < 0:
                return None
            strides = (0,) * lead + tuple(
                0 if d == 1 and e != 1 else st
                for d, e, st in zip(shape, new[lead:], strides))
        if len(strides) != len(new):
            return None
        shape = new
    return shape, strides, copied


def _dense_like(shape, strides) -> tuple[int, ...]:
    """Dense strides for ``shape`` with the axes in the order of ``strides`` (outermost: the
    largest stride; ties keep the axis order), as PyTorch lays out an element-wise result."""
    order = sorted(range(len(shape)), key=lambda k: (-strides[k], k))
    out = [0] * len(shape)
    step = 1
    for k in reversed(order):
        out[k] = step
        step *= max(int(shape[k]), 1)
    return tuple(out)


def matmul_copies(imp, a: str, b: str) -> tuple[bool, bool] | None:
    """Whether torch.matmul copies each operand (both of three or more dimensions: the
    batched path; expanded to the broadcast batch, reshaped to 3-D); None where it cannot be
    told (a shape or a view unknown, a folded 2-D operand, a copy made on the way)."""
    la, lb = layout(imp, a), layout(imp, b)
    if la is None or lb is None or len(la[0]) < 3 or len(lb[0]) < 3:
        return None
    (sa, ta, ca), (sb, tb, cb) = la, lb
    batch = _broadcast(sa[:-2], sb[:-2])
    if batch is None or ca or cb:
        # (a reshape on the way that cannot be a view: PyTorch copied before it, where the
        # file cannot say (nn.MultiheadAttention's .contiguous() of the packed q|k|v, one
        # storage for the three): left to the slice rules)
        return None
    out = []
    for s, t in ((sa, ta), (sb, tb)):
        lead = len(batch) - (len(s) - 2)
        st = (0,) * lead + tuple(0 if d == 1 and e != 1 else x
                                 for d, e, x in zip(s[:-2], batch[lead:], t[:-2]))
        shape = tuple(batch) + tuple(s[-2:])
        merged = view_strides(shape, st + tuple(t[-2:]), (numel(batch),) + tuple(s[-2:]))
        out.append(merged is None)
    return out[0], out[1]


def _broadcast(a, b) -> tuple[int, ...] | None:
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            return None
        out.append(max(x, y))
    return tuple(out)


def einsum_terms(equation: str, ranks: tuple[int, ...]) -> tuple[list[str], str] | None:
    """The operands' index letters and the output's of an Einsum ``equation`` (the implicit
    form: the letters seen once, in alphabetical order); None for an ellipsis, a repeated
    index within one operand (a diagonal) or terms that do not match the operands' ranks."""
    eq = equation.replace(" ", "")
    if "." in eq:
        return None
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if not arrow:
        letters = "".join(terms)
        rhs = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    if len(terms) != len(ranks) or any(len(t) != r for t, r in zip(terms, ranks)) or \
            any(len(set(t)) != len(t) for t in terms + [rhs]) or \
            not set(rhs) <= set("".join(terms)) or \
            not all(c.isalpha() for c in "".join(terms)):
        return None
    return terms, rhs


def einsum_pair(terms: list[str], rhs: str, shapes,
                strides) -> tuple[tuple[bool, bool], int] | None:
    """torch.einsum of two operands as ATen computes it (``sumproduct_pair``): each operand
    permuted to (batch, free, contracted) or (batch, contracted, free) indices and reshaped to
    bmm's 3-D operand, which bmm keeps for backward. Returns whether each reshape copies (no
    strides can express it: the copy is what is kept), and the contracted size. The indices
    are ordered as ATen orders them: the output's, then the contracted ones alphabetically
    (so ``ibnd,hnd->ibh`` contracts (d, n) and copies both operands). None where ATen first
    sums an index out of one operand alone (a new, smaller tensor)."""
    order = list(rhs) + sorted(set("".join(terms)) - set(rhs))
    sized = []
    for term, shape, st in zip(terms, shapes, strides):
        size = {c: int(shape[k]) for k, c in enumerate(term)}
        stride = {c: int(st[k]) for k, c in enumerate(term)}
        sized.append(([size.get(c, 1) for c in order], [stride.get(c, 0) for c in order]))
    (sa, ta), (sb, tb) = sized
    lro, lo, ro, summed = [], [], [], []
    for d, c in enumerate(order):
        left, right = sa[d] != 1, sb[d] != 1
        if c not in rhs:
            if left and right:
                summed.append(d)
            elif left or right:
                return None
            else:
                summed.append(d)
        elif left and right:
            lro.append(d)
        elif left:
            lo.append(d)
        else:
            ro.append(d)
    k = math.prod(sa[d] for d in summed) if summed else 1
    if not any(sa[d] != 1 for d in summed):  # nothing contracted: a broadcast multiply
        return (False, False), 1

    def copies(size, stride, perm, groups) -> bool:
        shape = tuple(size[d] for d in perm)
        st = tuple(stride[d] for d in perm)
        new = tuple(math.prod(size[d] for d in g) for g in groups)
        return view_strides(shape, st, new) is None

    a = copies(sa, ta, lro + lo + summed + ro, (lro, lo, summed))
    b = copies(sb, tb, lro + summed + ro + lo, (lro, summed, ro))
    return (a, b), k
