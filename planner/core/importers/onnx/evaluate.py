"""Evaluating the small integer computations of a graph: shapes, slice bounds, split sizes.

Exporters compute reshape targets at run time (``Shape → Gather → Div → Concat → Reshape``,
slice ends from ``Shape`` arithmetic). ONNX shape inference propagates some of these; what it
does not (``Div``, ``Cast`` chains, ``Range``, ...) is evaluated here with numpy from the tensor
shapes inference found, and the values are handed back to inference as constants. Only tensors
of at most ``MAX_VALUE_ELEMENTS`` elements are evaluated.
"""

from __future__ import annotations

import numpy as np

MAX_VALUE_ELEMENTS = 4096

# Operators whose outputs are element-wise functions of their inputs (numpy ufuncs).
_BINARY = {
    "Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Mod": np.mod,
    "Equal": np.equal, "Less": np.less, "Greater": np.greater, "LessOrEqual": np.less_equal,
    "GreaterOrEqual": np.greater_equal, "And": np.logical_and, "Or": np.logical_or,
    "Max": np.maximum, "Min": np.minimum, "Pow": np.power,
}
_UNARY = {
    "Neg": np.negative, "Abs": np.abs, "Floor": np.floor, "Ceil": np.ceil, "Sqrt": np.sqrt,
    "Not": np.logical_not, "Reciprocal": np.reciprocal, "Exp": np.exp, "Log": np.log,
    "Sign": np.sign, "Round": np.round,
}
EVALUABLE = set(_BINARY) | set(_UNARY) | {
    "Shape", "Size", "Identity", "Cast", "Gather", "Unsqueeze", "Squeeze", "Concat", "Slice",
    "Div", "Where", "Range", "ConstantOfShape", "Reshape", "Expand", "Tile", "Transpose",
    "ReduceProd", "ReduceSum", "ReduceMax", "ReduceMin", "Flatten", "Sum", "CastLike", "Clip",
}
# Operators whose optional inputs change the result: evaluated only where every input the node
# names has a value (an omitted one is None, as is one not known: ``evaluate`` cannot tell).
NEEDS_ALL_INPUTS = frozenset({"Clip"})


def _axes(node_attr, inputs, k):
    axes = node_attr("axes")
    if axes is None and len(inputs) > k and inputs[k] is not None:
        axes = [int(a) for a in np.asarray(inputs[k]).reshape(-1)]
    return None if axes is None else [int(a) for a in axes]


def evaluate(op: str, attr, inputs: list, shape_of0, np_dtype) -> list | None:
    """The outputs of one node from its input values (``None`` for an omitted input), or None
    when it cannot be evaluated. ``shape_of0``: the first input's shape (for Shape and Size)."""
    if op == "Shape":
        shape = shape_of0()
        if shape is None:
            return None
        start, end = attr("start", 0), attr("end", None)
        return [np.array(shape[start:end] if end is not None else shape[start:], dtype=np.int64)]
    if op == "Size":
        shape = shape_of0()
        return None if shape is None else [np.array(int(np.prod(shape)), dtype=np.int64)]
    need = [v for v in inputs[:1]]
    if any(v is None for v in need):
        return None
    x = inputs[0]
    if op in ("Identity",):
        return [x]
    if op in ("Cast", "CastLike"):
        to = np_dtype(attr("to")) if op == "Cast" and attr("to") is not None else \
            inputs[1].dtype if op == "CastLike" and len(inputs) > 1 and inputs[1] is not None \
            else None
        if to is None:
            return None
        # A NaN or infinity cast to an integer is undefined (as in torch); graphs that do it
        # (T5's log of a zero distance in its position buckets) pick another branch for it
        # with a Where, so the value is carried without numpy's warning reaching the user.
        with np.errstate(invalid="ignore"):
            return [x.astype(to)]
    if op in _UNARY:
        with np.errstate(all="ignore"):
            return [_UNARY[op](x)]
    if op in _BINARY or op == "Div":
        if len(inputs) < 2 or inputs[1] is None:
            return None
        y = inputs[1]
        if op == "Div":
            if np.issubdtype(x.dtype, np.integer) and np.issubdtype(y.dtype, np.integer):
                if np.any(y == 0):
                    return None
                return [(np.trunc(x / y)).astype(np.result_type(x, y))]
            with np.errstate(all="ignore"):
                return [np.true_divide(x, y)]
        with np.errstate(all="ignore"):
            out = _BINARY[op](x, y)
        return [out.astype(np.result_type(x, y)) if op not in (
            "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or") else out]
    if op == "Clip":
        # timm's TensorFlow "same" padding: max(needed, 0) as Clip(x, 0) (opset 11+: the bounds
        # are inputs; before, attributes)
        low = inputs[1] if len(inputs) > 1 and inputs[1] is not None else attr("min")
        high = inputs[2] if len(inputs) > 2 and inputs[2] is not None else attr("max")
        out = x
        if low is not None:
            out = np.maximum(out, np.asarray(low).reshape(()))
        if high is not None:
            out = np.minimum(out, np.asarray(high).reshape(()))
        return [out.astype(x.dtype)]
    if op == "Sum":
        if any(v is None for v in inputs):
            return None
        out = inputs[0]
        for v in inputs[1:]:
            out = out + v
        return [out]
    if op == "Gather":
        if len(inputs) < 2 or inputs[1] is None:
            return None
        axis = int(attr("axis", 0))
        return [np.take(x, inputs[1].astype(np.int64), axis=axis)]
    if op == "Unsqueeze":
        axes = _axes(attr, inputs, 1)
        if axes is None:
            return None
        out = x
        rank = x.ndim + len(axes)
        for a in sorted(a % rank for a in axes):
            out = np.expand_dims(out, a)
        return [out]
    if op == "Squeeze":
        axes = _axes(attr, inputs, 1)
        return [np.squeeze(x) if axes is None else np.squeeze(x, axis=tuple(axes))]
    if op == "Concat":
        if any(v is None for v in inputs):
            return None
        return [np.concatenate([np.atleast_1d(v) for v in inputs], axis=int(attr("axis", 0)))]
    if op == "Slice":
        starts, ends = attr("starts"), attr("ends")
        axes, steps = attr("axes"), None
        if starts is None:
            if len(inputs) < 3 or inputs[1] is None or inputs[2] is None:
                return None
            starts, ends = inputs[1].reshape(-1), inputs[2].reshape(-1)
            axes = inputs[3].reshape(-1) if len(inputs) > 3 and inputs[3] is not None else None
            steps = inputs[4].reshape(-1) if len(inputs) > 4 and inputs[4] is not None else None
        axes = list(range(len(starts))) if axes is None else list(axes)
        index = [slice(None)] * x.ndim
        for k, a in enumerate(axes):
            step = int(steps[k]) if steps is not None else 1
            index[int(a)] = slice(int(starts[k]), int(ends[k]), step)
        return [x[tuple(index)]]
    if op == "Where":
        if len(inputs) < 3 or inputs[1] is None or inputs[2] is None:
            return None
        return [np.where(x, inputs[1], inputs[2])]
    if op == "Range":
        if len(inputs) < 3 or inputs[1] is None or inputs[2] is None:
            return None
        start, limit, delta = (np.asarray(v).reshape(-1)[0] for v in inputs[:3])
        if delta == 0 or abs((limit - start) / delta) > MAX_VALUE_ELEMENTS:
            return None
        return [np.arange(start, limit, delta).astype(np.result_type(x))]
    if op == "ConstantOfShape":
        dims = [int(v) for v in x.reshape(-1)]
        if any(d < 0 for d in dims) or int(np.prod(dims)) > MAX_VALUE_ELEMENTS:
            return None
        value = attr("value")
        fill = np.asarray(value).reshape(-1)[0] if value is not None else np.float32(0)
        return [np.full(dims, fill, dtype=np.asarray(fill).dtype)]
    if op == "Reshape":
        if len(inputs) < 2 or inputs[1] is None:
            return None
        target = [int(v) for v in inputs[1].reshape(-1)]
        target = [x.shape[k] if t == 0 and k < x.ndim else t for k, t in enumerate(target)]
        return [x.reshape(target)]
    if op == "Flatten":
        axis = int(attr("axis", 1)) % max(1, x.ndim)
        return [x.reshape(int(np.prod(x.shape[:axis])), -1)]
    if op == "Expand":
        if len(inputs) < 2 or inputs[1] is None:
            return None
        dims = [int(v) for v in inputs[1].reshape(-1)]
        shape = np.broadcast_shapes(x.shape, tuple(dims))
        if int(np.prod(shape)) > MAX_VALUE_ELEMENTS:
            return None
        return [np.broadcast_to(x, shape).copy()]
    if op == "Tile":
        if len(inputs) < 2 or inputs[1] is None:
            return None
        reps = [int(v) for v in inputs[1].reshape(-1)]
        if int(np.prod(reps)) * x.size > MAX_VALUE_ELEMENTS:
            return None
        return [np.tile(x, reps)]
    if op == "Transpose":
        perm = attr("perm")
        return [np.transpose(x, perm)]
    if op in ("ReduceProd", "ReduceSum", "ReduceMax", "ReduceMin"):
        axes = _axes(attr, inputs, 1)
        fn = {"ReduceProd": np.prod, "ReduceSum": np.sum, "ReduceMax": np.max,
              "ReduceMin": np.min}[op]
        keep = bool(attr("keepdims", 1))
        return [np.asarray(fn(x, axis=None if axes is None else tuple(axes), keepdims=keep))]
    return None
