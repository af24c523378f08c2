"""Rules of the wiring and element-wise layers: the input, flatten and views, residual add,
concat, products of activations (matmul, einsum), where, element-wise and other operations.

Each module of a family lists its kinds in ``LAYER_RULES``; ``rules.py`` composes them.
"""

from __future__ import annotations

import math

from planner.core.layers.shapes import (
    I64,
    MASK,
    LayerError,
    LayerResult,
    SavedTensor,
    Shape,
    numel,
    shape_str,
)
from planner.core.layers.shapes import refs_needed as _refs_needed
from planner.core.layers.schema import FROM_REFS as _FROM_REFS
from planner.core.layers.schema import OUT_SHAPE as _OUT_SHAPE
from planner.core.layers.schema import LayerRule
from planner.core.layers.schema import param as _p
from planner.i18n import QT_TRANSLATE_NOOP, Msg


def _input(params, ins: list[Shape]) -> LayerResult:
    shape = tuple(int(v) for v in params["shape"])
    if not shape or len(shape) > 4:
        raise LayerError(
            Msg(
                QT_TRANSLATE_NOOP(
                    "core", "input shape needs 1 to 4 dimensions (C×H×W, C×T×H×W, T×F or F)"
                )
            )
        )
    if any(v < 1 for v in shape):
        raise LayerError(
            Msg(
                QT_TRANSLATE_NOOP("core", "input shape {shape} has a dimension below 1"),
                shape=shape_str(shape),
            )
        )
    return LayerResult(out_shape=shape)


def _data_input(params, ins: list[Shape]) -> LayerResult:
    """Another input of the network (an encoder-decoder's decoder tokens, a two-tower
    network's image): a tensor of its own shape, per sample; the layer it reads (the one
    before it) only places it in the order, nothing flows from it."""
    return LayerResult(out_shape=_input(params, ins).out_shape, flops_fwd=0, flops_bwd=0)


def _flatten(params, ins):
    return LayerResult(out_shape=(numel(ins[0]),), view=True)


def _add(params, ins):
    if len(ins) < 2:
        raise LayerError(Msg(QT_TRANSLATE_NOOP("core", "needs the layer named in 'from'")))
    a, b = ins[0], ins[1]
    if a != b:
        raise LayerError(
            Msg(
                QT_TRANSLATE_NOOP("core", "cannot add {shape} ('from') to {shape2}"),
                shape=shape_str(b),
                shape2=shape_str(a),
            )
        )
    n = numel(a)
    return LayerResult(out_shape=a, flops_fwd=n, flops_bwd=0)


def _concat(params, ins):
    if len(ins) < 2:
        raise LayerError(Msg(QT_TRANSLATE_NOOP("core", "needs at least one layer named in 'from'")))
    first = ins[0]
    for other in ins[1:]:
        if len(other) != len(first) or other[1:] != first[1:]:
            raise LayerError(
                Msg(
                    QT_TRANSLATE_NOOP(
                        "core",
                        "cannot concatenate {shape} with {shape2}: all but the channel "
                        "dimension must match",
                    ),
                    shape=shape_str(other),
                    shape2=shape_str(first),
                )
            )
    c = sum(s[0] for s in ins)
    out = (c,) + first[1:]
    return LayerResult(out_shape=out, flops_fwd=0, flops_bwd=0)


def _generic(params, ins):
    x = ins[0]
    out = tuple(int(v) for v in params["shape"]) if params.get("shape") else x
    keeps = params["keeps"]
    if keeps == "input":
        saved = (SavedTensor("input", numel(x)),)
    elif keeps == "inputs":
        saved = tuple(
            SavedTensor("input" if k == 0 else f"input:{k}", numel(s)) for k, s in enumerate(ins)
        )
    elif keeps == "output":
        saved = (SavedTensor("output", numel(out)),)
    else:
        saved = ()
    n = max(numel(x), numel(out))
    return LayerResult(out_shape=out, flops_fwd=n, flops_bwd=n, saved=saved)


ELEMENTWISE_OPS = ("add", "sub", "mul", "div", "pow", "other")
KEEPS = ("nothing", "input", "inputs", "output", "input_output", "indices", "input_index")


def _view(params, ins):
    x = ins[0]
    out = tuple(int(v) for v in params["shape"]) if params.get("shape") else x
    parts = int(params.get("split") or 0)
    if parts:  # one of `parts` equal slices of the last dimension (GPT-2's q, k, v)
        if x[-1] % parts:
            raise LayerError(Msg(QT_TRANSLATE_NOOP(
                "core", "split {parts} does not divide the last dimension {last}"),
                parts=parts, last=x[-1]))
        out = x[:-1] + (x[-1] // parts,)
    if numel(out) > numel(x):  # fewer elements: a slice, which keeps the whole storage alive
        raise LayerError(
            Msg(
                QT_TRANSLATE_NOOP("core", "cannot view {shape} as the larger {shape2}"),
                shape=shape_str(x),
                shape2=shape_str(out),
            )
        )
    return LayerResult(out_shape=out, view=True)


def _broadcast(a: Shape, b: Shape) -> Shape | None:
    out = []
    for k in range(max(len(a), len(b))):
        da = a[len(a) - 1 - k] if k < len(a) else 1
        db = b[len(b) - 1 - k] if k < len(b) else 1
        if da != db and 1 not in (da, db):
            return None
        out.append(max(da, db))
    return tuple(reversed(out))


def _matmul(params, ins):
    _refs_needed(ins, 2)
    a, b = ins[0], ins[1]
    if len(a) < 1 or len(b) < 1:
        raise LayerError(Msg(QT_TRANSLATE_NOOP("core", "a product needs two tensors")))
    a2 = a if len(a) > 1 else (1,) + a
    b2 = b if len(b) > 1 else b + (1,)
    lead = _broadcast(a2[:-2], b2[:-2])
    if a2[-1] != b2[-2] or lead is None:
        raise LayerError(
            Msg(
                QT_TRANSLATE_NOOP("core", "cannot multiply {shape} by {shape2}"),
                shape=shape_str(a),
                shape2=shape_str(b),
            )
        )
    out = lead + (a2[-2], b2[-1])
    if len(a) == 1:
        out = out[:-2] + out[-1:]
    if len(b) == 1:
        out = out[:-1]
    fwd = 2 * numel(out or (1,)) * a2[-1]
    return LayerResult(
        out_shape=out or (1,),
        flops_fwd=fwd,
        flops_bwd=2 * fwd,
        saved=(SavedTensor("input", numel(a)), SavedTensor("input:1", numel(b))),
    )


def _einsum(params, ins):
    out = tuple(int(v) for v in params["shape"]) if params.get("shape") else ins[0]
    inner = int(params.get("inner", 0) or 0)
    if inner <= 0:
        # One contracted index set: the product of the operands' sizes over the output's is
        # its size squared (exact for matmul-like equations).
        total = 1
        for s in ins:
            total *= numel(s)
        inner = max(1, math.isqrt(max(1, total // max(1, numel(out)))) if len(ins) > 1 else 1)
    fwd = 2 * numel(out) * inner
    learned = int(params.get("parameters", 0) or 0)
    # (a learned operand, x · W written as an Einsum: its gradient needs every activation
    # operand, kept; the weight itself is a parameter, not an activation)
    return LayerResult(out_shape=out, parameters=learned, flops_fwd=fwd, flops_bwd=2 * fwd,
                       saved=_kept("inputs", ins, out), weight_elements=learned)


def _broadcast_all(ins: list[Shape]) -> Shape:
    out = ins[0]
    for other in ins[1:]:
        b = _broadcast(out, other)
        if b is None:
            raise LayerError(
                Msg(
                    QT_TRANSLATE_NOOP("core", "cannot broadcast {shape} with {shape2}"),
                    shape=shape_str(out),
                    shape2=shape_str(other),
                )
            )
        out = b
    return out


def _kept(keeps: str, ins: list[Shape], out: Shape) -> tuple[SavedTensor, ...]:
    """What 'keeps' names: nothing, input 0, every input, the output, input 0 and the output
    (``amax`` / ``amin``: a max or min reduction without indices), int64 indices of the
    output's shape (max / min over a dimension, ``torch.max(x, dim)``), or input 0 and an
    int64 copy of input 1 (``torch.gather`` by a computed index: the index, an integer
    tensor, is 8 bytes an element whatever the activations' precision)."""
    if keeps == "input":
        return (SavedTensor("input", numel(ins[0])),)
    if keeps == "input_output":
        return (SavedTensor("input", numel(ins[0])), SavedTensor("output", numel(out)))
    if keeps == "inputs":
        return tuple(
            SavedTensor("input" if k == 0 else f"input:{k}", numel(s)) for k, s in enumerate(ins)
        )
    if keeps == "output":
        return (SavedTensor("output", numel(out)),)
    if keeps == "indices":
        return (SavedTensor("own", numel(out), I64),)
    if keeps == "input_index":  # torch.gather: its source, and its int64 index (input 1)
        return (SavedTensor("input", numel(ins[0])),
                SavedTensor("own", numel(ins[1] if len(ins) > 1 else out), I64))
    return ()


def _where(params, ins):
    out = _broadcast_all(ins)
    if params.get("shape"):  # broadcast to the mask's shape, which is no activation
        wide = tuple(int(v) for v in params["shape"])
        if _broadcast(out, wide) != wide:
            raise LayerError(Msg(QT_TRANSLATE_NOOP(
                "core", "cannot broadcast {shape} with {shape2}"),
                shape=shape_str(out), shape2=shape_str(wide)))
        out = wide
    n = numel(out)
    return LayerResult(out_shape=out, flops_fwd=n, flops_bwd=n,
                       saved=(SavedTensor("own", n, MASK),))


def _elementwise(params, ins):
    if params.get("shape"):  # the file's own output shape (a join along any axis)
        out = tuple(int(v) for v in params["shape"])
    else:
        out = _broadcast_all(ins)
    learned = int(params["parameters"])
    n = numel(out)
    saved = _kept(params["keeps"], ins, out)
    if learned and params.get("frozen") and params["op"] in ("mul", "div") and \
            params["keeps"] == "input" and len(ins) == 1:
        # x·w (a norm's scale) keeps x only for w's gradient: frozen (LoRA's base), its
        # backward needs w alone, a parameter
        saved = ()
    return LayerResult(
        out_shape=out,
        parameters=learned,
        flops_fwd=n,
        flops_bwd=n,
        saved=saved,
        weight_elements=learned,
    )


LAYER_RULES: tuple[LayerRule, ...] = (
    LayerRule(
        "input",
        QT_TRANSLATE_NOOP("core", "Input"),
        (
            _p(
                "shape",
                "shape",
                (3, 224, 224),
                QT_TRANSLATE_NOOP(
                    "core", "Per-sample shape: C×H×W images, C×T×H×W video, T×F sequences."
                ),
            ),
        ),
        _input,
        QT_TRANSLATE_NOOP("core", "The network's input, without the batch dimension."),
    ),
    LayerRule(
        "data_input",
        QT_TRANSLATE_NOOP("core", "Further input"),
        (
            _p(
                "shape",
                "shape",
                (128,),
                QT_TRANSLATE_NOOP(
                    "core", "Per-sample shape of this input: T token ids, C×H×W images, T×F "
                    "sequences."
                ),
            ),
        ),
        _data_input,
        QT_TRANSLATE_NOOP(
            "core", "Another input of the network (an encoder-decoder's decoder tokens, a "
            "two-tower network's second input), without the batch dimension; the batch is the "
            "same as the first input's. Layers read it through 'input'."),
    ),
    LayerRule(
        "flatten",
        QT_TRANSLATE_NOOP("core", "Flatten"),
        (),
        _flatten,
        QT_TRANSLATE_NOOP("core", "Flattens to a vector (a view, free)."),
    ),
    LayerRule(
        "add",
        QT_TRANSLATE_NOOP("core", "Residual add"),
        (
            _p(
                "from",
                "ref",
                "",
                QT_TRANSLATE_NOOP(
                    "core", "The earlier layer whose output is added to the previous one."
                ),
            ),
        ),
        _add,
        QT_TRANSLATE_NOOP(
            "core", "Adds an earlier layer's output (a skip connection); keeps nothing."
        ),
    ),
    LayerRule(
        "concat",
        QT_TRANSLATE_NOOP("core", "Concat"),
        (
            _p(
                "from",
                "refs",
                (),
                QT_TRANSLATE_NOOP(
                    "core", "Earlier layers concatenated (channels) to the previous one."
                ),
            ),
        ),
        _concat,
        QT_TRANSLATE_NOOP("core", "Concatenates channels; keeps nothing."),
    ),
    LayerRule(
        "generic",
        QT_TRANSLATE_NOOP("core", "Other operation"),
        (
            _p(
                "keeps",
                "choice",
                "input",
                QT_TRANSLATE_NOOP(
                    "core",
                    "What it keeps for backward ('input' is the safe guess for an unknown op).",
                ),
                choices=("input", "inputs", "output", "nothing"),
            ),
            _p(
                "shape",
                "shape",
                None,
                QT_TRANSLATE_NOOP("core", "Output shape per sample (empty = the input's)."),
                optional=True,
            ),
            _p(
                "from",
                "refs",
                (),
                QT_TRANSLATE_NOOP(
                    "core", "Further layers it reads (the other operand of a product)."
                ),
            ),
        ),
        _generic,
        QT_TRANSLATE_NOOP(
            "core",
            "An operation without a planner layer (from an imported file): keeps its "
            "input's shape unless 'shape' says otherwise, and what 'keeps' says.",
        ),
    ),
    LayerRule(
        "view",
        QT_TRANSLATE_NOOP("core", "View / reshape"),
        (_OUT_SHAPE, _p("split", "int", 0, QT_TRANSLATE_NOOP(
            "core", "One of this many equal slices of the last dimension (0 = no split)."),
            minimum=0)),
        _view,
        QT_TRANSLATE_NOOP(
            "core",
            "Reshape, permute, slice or select: a view of its input's storage (free, keeps "
            "nothing).",
        ),
    ),
    LayerRule(
        "matmul",
        QT_TRANSLATE_NOOP("core", "Matrix product"),
        (_FROM_REFS,),
        _matmul,
        QT_TRANSLATE_NOOP(
            "core", "Product of two activations (attention scores); keeps both operands."
        ),
    ),
    LayerRule(
        "einsum",
        QT_TRANSLATE_NOOP("core", "Einsum"),
        (_OUT_SHAPE, _FROM_REFS,
         _p("parameters", "int", 0, QT_TRANSLATE_NOOP(
             "core", "Elements of a learned operand (a weight multiplied by Einsum)."),
            minimum=0),
         _p("inner", "int", 0, QT_TRANSLATE_NOOP(
             "core", "Size of the contracted indices (0 = derived from the shapes)."),
            minimum=0)),
        _einsum,
        QT_TRANSLATE_NOOP("core", "Einstein summation of activations (and at most one learned "
                          "operand); keeps every activation operand."),
    ),
    LayerRule(
        "where",
        QT_TRANSLATE_NOOP("core", "Where / mask"),
        (_FROM_REFS, _OUT_SHAPE),
        _where,
        QT_TRANSLATE_NOOP("core", "Selects by a mask (masked_fill, where); keeps a 1-byte mask."),
    ),
    LayerRule(
        "elementwise",
        QT_TRANSLATE_NOOP("core", "Element-wise"),
        (
            _p("op", "choice", "mul", QT_TRANSLATE_NOOP("core", "The operation."),
               choices=ELEMENTWISE_OPS),
            _p(
                "keeps",
                "choice",
                "nothing",
                QT_TRANSLATE_NOOP("core", "What it keeps for backward."),
                choices=KEEPS,
            ),
            _p(
                "parameters",
                "int",
                0,
                QT_TRANSLATE_NOOP(
                    "core", "Elements of a learned tensor it applies (layer scale, embedding)."
                ),
                minimum=0,
            ),
            _OUT_SHAPE,
            _FROM_REFS,
        ),
        _elementwise,
        QT_TRANSLATE_NOOP(
            "core",
            "Add, multiply, ... with broadcasting, of activations or with a learned tensor.",
        ),
    ),
)
