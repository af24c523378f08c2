"""Layer specifications: parameters, shape rules, parameter counts, FLOPs, saved-for-backward.

A layer is a ``LayerSpec``: a kind (``conv2d``), a unique name (``conv1``) and its parameters.
Shapes are per sample (no batch dimension) and channel-first:

* images ``(C, H, W)``; video/volumes ``(C, T, H, W)``; sequences ``(T, F)``; vectors ``(F,)``.

Everything that a layer does to memory is described by ``LayerRule.apply``: the output shape, the
parameter count, the FLOPs, and which tensors the framework keeps for the backward pass. The rules
follow what PyTorch's autograd saves (``derivatives.yaml``) on CUDA:

* convolution and fully connected keep their input;
* ReLU, sigmoid and tanh keep their output; GELU, SiLU, LeakyReLU, ReLU6 (hardtanh), Hardswish
  and Hardsigmoid keep their input. In place, ReLU, sigmoid, tanh and LeakyReLU keep the output
  (the same storage); the others keep a copy of their input, made before it is overwritten;
* batch norm keeps its input plus per-channel mean and inverse std (fp32, not per sample);
* layer norm keeps its input plus a mean and inverse std per normalised row (fp32);
* max pooling keeps its input and int64 indices of the output's shape;
* average pooling keeps its input; global average pooling (PyTorch's mean()) keeps nothing;
* an LSTM keeps its input, cuDNN's reserve space and its whole output sequence;
* dropout keeps a one-byte mask of its output's shape;
* residual add, concat, flatten and nearest/bilinear upsampling keep nothing.

No I/O, no Qt, no work at import time beyond building the rule table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial
from types import MappingProxyType
from typing import Any, Callable, Mapping, NamedTuple
from planner.i18n import QT_TRANSLATE_NOOP, Msg

Shape = tuple[int, ...]

# Element storage classes of saved tensors: resolved to bytes by the estimate.
ACT = "act"  # activation precision (4 bytes fp32, 2 bytes fp16/bf16/mixed)
F32 = "f32"  # always fp32 (normalisation statistics)
I64 = "i64"  # int64 (max-pool indices)
MASK = "mask"  # one byte (dropout mask)
F32_FIXED = "f32_fixed"  # fp32, not per sample (batch-norm's saved mean and inverse std)


class LayerError(ValueError):
    """A problem with one layer; the message names the cause, the caller names the layer."""


# --------------------------------------------------------------------------------------------
# Parameter schema
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ParamSpec:
    name: str
    type: str  # int | float | bool | choice | ints | padding | ref | refs | shape
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    optional: bool = False  # None allowed (meaning "as documented in help")


def _p(name, type_, default, help_, **kw) -> ParamSpec:
    return ParamSpec(name, type_, default, help_, **kw)


ACTIVATIONS = ("relu", "leaky_relu", "gelu", "silu", "sigmoid", "tanh", "relu6", "hardswish",
               "hardsigmoid", "gelu_new")
# Hugging Face's NewGELUActivation (GPT-2's "gelu_new"): 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
# written as separate ops, which keep x (pow), the tanh output, 0.5·x and 1 + tanh.
_COMPOSITE_KEEPS = {"gelu_new": 3}
# Functions whose backward needs the output (so in-place is free) vs the input.
_KEEPS_OUTPUT = {"relu", "sigmoid", "tanh"}
# leaky_relu_ keeps its result; the others below need their original input, so in place they
# keep a copy of it (autograd saves the input before it is overwritten).
_INPLACE_KEEPS_OUTPUT = _KEEPS_OUTPUT | {"leaky_relu"}

_CONV_PARAMS = (
    _p("filters", "int", 32, QT_TRANSLATE_NOOP("core",
        "Number of output channels (filters)."), minimum=1),
    _p("kernel", "ints", 3, QT_TRANSLATE_NOOP("core",
        "Kernel size: one number or one per spatial dimension."), minimum=1),
    _p("stride", "ints", 1, QT_TRANSLATE_NOOP("core",
        "Stride: one number or one per spatial dimension."), minimum=1),
    _p("padding", "padding", "valid",
       QT_TRANSLATE_NOOP("core",
           "'valid' (no padding), 'same' (output = input ÷ stride) or explicit pixels.")),
    _p("dilation", "ints", 1, QT_TRANSLATE_NOOP("core", "Dilation of the kernel."), minimum=1),
    _p("groups", "int", 1, QT_TRANSLATE_NOOP("core",
        "Groups (channels ÷ groups per filter; = channels for depthwise)."),
       minimum=1),
    _p("bias", "bool", True, QT_TRANSLATE_NOOP("core", "Whether the layer has a bias vector.")),
)
_POOL_PARAMS = (
    _p("kernel", "ints", 2, QT_TRANSLATE_NOOP("core", "Pooling window."), minimum=1),
    _p("stride", "ints", None, QT_TRANSLATE_NOOP("core",
        "Stride (empty = the window size)."), minimum=1, optional=True),
    _p("padding", "ints", 0, QT_TRANSLATE_NOOP("core",
        "Padding in pixels on each side."), minimum=0),
    _p("ceil_mode", "bool", False, QT_TRANSLATE_NOOP("core",
        "Round the output size up instead of down.")),
)


# --------------------------------------------------------------------------------------------
# What a rule returns
# --------------------------------------------------------------------------------------------


class SavedTensor(NamedTuple):
    """A tensor kept for backward. ``source`` says which: 'input' (input 0), 'input:k', 'output'
    or 'own' (a new tensor of this layer: indices, masks, statistics, LSTM reserve)."""

    source: str
    elements: int  # per sample
    storage: str = ACT


class LayerResult(NamedTuple):
    """What a rule says of one layer (immutable; a NamedTuple because hundreds are made per
    analysis of a deep network)."""

    out_shape: Shape
    parameters: int = 0
    flops_fwd: int = 0  # per sample
    flops_bwd: int = 0  # per sample
    saved: tuple[SavedTensor, ...] = ()
    inplace: bool = False  # output shares the input's storage (in-place op)
    view: bool = False  # output is a view of the input (flatten)
    # Convolution workspace candidates by algorithm, elements: (per sample, constant).
    workspace: Mapping[str, tuple[int, int]] = MappingProxyType({})
    weight_elements: int = 0  # parameters touched per pass (for bytes moved)
    note: str = ""
    # Independent outputs one kernel computes per sample (0 = the output's size), and how many
    # such kernels run one after another (an LSTM's time steps): the speed model's utilisation.
    parallel_elements: int = 0
    sequential_steps: int = 1
    # Fine-tuning: parameters that get no gradient and no optimizer state (a frozen base), and
    # of the parameters those stored in a quantised format (elements, and their bytes with the
    # quantisation constants); the rest are stored in the training precision.
    frozen_parameters: int = 0
    quantized_elements: int = 0
    quantized_bytes: int = 0
    # Elements of a weight this layer shares with another (an LM head tied to the embedding):
    # not its parameters, but its backward makes a gradient of that size, added into the
    # shared weight's at the end of backward.
    tied_elements: int = 0


numel: Callable[[Shape], int] = math.prod  # elements of a shape (1 for a scalar's ())

# LayerResult(*row) and SavedTensor(*row) without a Python call, for the rules of the commonest
# layers (a deep draft runs them hundreds of times): every field in order.
_new_result = partial(tuple.__new__, LayerResult)
_new_saved = partial(tuple.__new__, SavedTensor)
_NO_WORKSPACE = LayerResult._field_defaults["workspace"]
if LayerResult._fields[8:] != ("weight_elements", "note", "parallel_elements",
                               "sequential_steps", "frozen_parameters", "quantized_elements",
                               "quantized_bytes", "tied_elements") \
        or len(SavedTensor._fields) != 3:
    raise RuntimeError("LayerResult or SavedTensor changed: update the rows _new_result and "
                       "_new_saved are given")  # pragma: no cover


def shape_str(shape: Shape | None) -> str:
    if shape is None:
        return "?"
    return "×".join(str(d) for d in shape)


# --------------------------------------------------------------------------------------------
# Helpers for spatial arithmetic
# --------------------------------------------------------------------------------------------


def _tuple(value, dims: int, what: str) -> tuple[int, ...]:
    if isinstance(value, (list, tuple)):
        if len(value) == 1:
            value = value[0]
        elif len(value) != dims:
            raise LayerError(Msg(QT_TRANSLATE_NOOP(
                "core", "{what} needs 1 or {dims} numbers, got {count}"),
                                 what=what, dims=dims, count=len(value)))
        else:
            return tuple(int(v) for v in value)
    return (int(value),) * dims


def _dims_text(t: tuple[int, ...]) -> str:
    return "×".join(str(v) for v in t)


def _spatial_conv(in_sp: tuple[int, ...], kernel, stride, padding, dilation):
    # Lean on purpose (no generator expressions): a deep draft has hundreds of convolutions.
    dims = len(in_sp)
    if type(kernel) is int and type(stride) is int and type(dilation) is int \
            and type(padding) is int and padding >= 0 and kernel > 0 and stride > 0:
        # The common case, one number each (what the layer table and plan files hold).
        ek = dilation * (kernel - 1) + 1
        pad = 2 * padding
        out = []
        for size in in_sp:
            if ek > size + pad:
                _kernel_too_large((ek,) * dims, in_sp, (pad,) * dims)
            out.append((size + pad - ek) // stride + 1)
        return (kernel,) * dims, (stride,) * dims, (dilation,) * dims, (pad,) * dims, tuple(out)
    k = _tuple(kernel, dims, "kernel")
    s = _tuple(stride, dims, "stride")
    d = _tuple(dilation, dims, "dilation")
    eff_k = tuple([dd * (kk - 1) + 1 for dd, kk in zip(d, k)])
    if isinstance(padding, str):
        mode = padding.lower()
        if mode == "valid":
            pads = (0,) * dims
        elif mode == "same":
            # TensorFlow's rule: output = ceil(input / stride), padding split as needed.
            pads = tuple(
                max((math.ceil(in_sp[i] / s[i]) - 1) * s[i] + eff_k[i] - in_sp[i], 0)
                for i in range(dims)
            )
        else:
            raise LayerError(
                Msg(
                    QT_TRANSLATE_NOOP(
                        "core", "padding '{padding}' is not 'valid', 'same' or a number"
                    ),
                    padding=padding,
                )
            )
    else:
        pads = tuple([2 * p for p in _tuple(padding, dims, "padding")])
        if min(pads) < 0:
            raise LayerError(Msg(QT_TRANSLATE_NOOP("core", "padding cannot be negative")))
    out = []
    for size, ek, st, pad in zip(in_sp, eff_k, s, pads):
        if ek > size + pad:
            _kernel_too_large(eff_k, in_sp, pads)
        out.append((size + pad - ek) // st + 1)
    return k, s, d, pads, tuple(out)


def _kernel_too_large(eff_k: tuple[int, ...], in_sp: tuple[int, ...], pads: tuple[int, ...]):
    template = (
        QT_TRANSLATE_NOOP("core",
                          "kernel {kernel} is larger than its {input} input (with padding)")
        if any(pads) else
        QT_TRANSLATE_NOOP("core", "kernel {kernel} is larger than its {input} input"))
    raise LayerError(Msg(template, kernel=_dims_text(eff_k), input=_dims_text(in_sp)))


# --------------------------------------------------------------------------------------------
# The rules
# --------------------------------------------------------------------------------------------


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


def _conv_input(params, x: Shape, dims: int) -> tuple[int, Shape, int, int]:
    """A convolution's input checks: (input channels, spatial shape, filters, groups)."""
    if len(x) != dims + 1:
        want = "C×H×W" if dims == 2 else "C×T×H×W"
        raise LayerError(
            Msg(
                QT_TRANSLATE_NOOP("core", "needs a {want} input, got {shape}"),
                want=want,
                shape=shape_str(x),
            )
        )
    cin, sp = x[0], x[1:]
    filters, groups = int(params["filters"]), int(params["groups"])
    if cin % groups or filters % groups:
        raise LayerError(
            Msg(
                QT_TRANSLATE_NOOP(
                    "core",
                    "groups {groups} must divide both the {cin} input channels and "
                    "{filters} filters",
                ),
                groups=groups,
                cin=cin,
                filters=filters,
            )
        )
    return cin, sp, filters, groups


def _conv(dims: int):
    def rule(params, ins: list[Shape]) -> LayerResult:
        x = ins[0]
        cin, sp, filters, groups = _conv_input(params, x, dims)
        k, s, d, pads, out_sp = _spatial_conv(
            sp, params["kernel"], params["stride"], params["padding"], params["dilation"]
        )
        kvol = math.prod(k)
        per_group = cin // groups
        bias = filters if params["bias"] else 0
        params_n = filters * per_group * kvol + bias
        out = (filters,) + out_sp
        sp_n = math.prod(out_sp)
        out_n = filters * sp_n
        fwd = 2 * out_n * per_group * kvol + (out_n if bias else 0)
        # FFT: complex transforms of input and output at the padded size, and of the filters.
        fft_sp = 1
        for i in range(dims):
            v = sp[i] + pads[i]  # the padded size
            fft_sp *= (v // 2 + 1) if i == dims - 1 else v
        # Workspace (elements) by algorithm family; per sample and constant parts. im2col /
        # explicit GEMM: the unfolded input matrix (columns duplicated per kernel tap).
        ws: dict[str, tuple[int, int]] = {
            "implicit_gemm": (0, 0),
            "im2col": (sp_n * per_group * kvol * groups, 0),
            "fft": ((cin + filters) * fft_sp * 2, filters * per_group * fft_sp * 2),
        }
        # Winograd F(2x2, 3x3): 4x4 tiles of every 2x2 output patch, for 3x3 stride-1 only.
        if dims == 2 and k == (3, 3) and s == (1, 1) and d == (1, 1) and groups == 1:
            tiles = math.ceil(out_sp[0] / 2) * math.ceil(out_sp[1] / 2)
            ws["winograd"] = ((cin + filters) * tiles * 16, filters * cin * 16)
        return _new_result((out, params_n, fwd, 2 * fwd,
                            (_new_saved(("input", math.prod(x), ACT)),),
                            False, False, ws, params_n, "", 0, 1, 0, 0, 0, 0))

    return rule


def _pool_common(params, x: Shape, kind: str):
    if len(x) not in (3, 4):
        raise LayerError(
            Msg(
                QT_TRANSLATE_NOOP("core", "needs a C×H×W or C×T×H×W input, got {shape}"),
                shape=shape_str(x),
            )
        )
    sp = x[1:]
    dims = len(sp)
    k = _tuple(params["kernel"], dims, "kernel")
    s = _tuple(params["stride"] if params.get("stride") not in (None, "", 0) else k, dims, "stride")
    p = _tuple(params["padding"], dims, "padding")
    for i in range(dims):
        if p[i] * 2 > k[i]:
            raise LayerError(
                Msg(
                    QT_TRANSLATE_NOOP("core", "padding {p} is more than half the {k} window"),
                    p=p[i],
                    k=k[i],
                )
            )
        if k[i] > sp[i] + 2 * p[i]:
            raise LayerError(
                Msg(
                    QT_TRANSLATE_NOOP("core", "window {dims} is larger than its {dims2} input"),
                    dims=_dims_text(k),
                    dims2=_dims_text(sp),
                )
            )
    out_sp = []
    for i in range(dims):
        span = sp[i] + 2 * p[i] - k[i]
        o = (-(-span // s[i]) if params["ceil_mode"] else span // s[i]) + 1
        if params["ceil_mode"] and (o - 1) * s[i] >= sp[i] + p[i]:
            o -= 1
        out_sp.append(o)
    return (x[0],) + tuple(out_sp), numel(k)


def _maxpool(params, ins):
    out, kvol = _pool_common(params, ins[0], "max")
    n = numel(out)
    return LayerResult(
        out_shape=out,
        flops_fwd=n * kvol,
        flops_bwd=n,
        saved=(SavedTensor("input", numel(ins[0])), SavedTensor("own", n, I64)),
    )


def _avgpool(params, ins):
    out, kvol = _pool_common(params, ins[0], "avg")
    n = numel(out)
    return LayerResult(
        out_shape=out,
        flops_fwd=n * kvol,
        flops_bwd=n * kvol,
        saved=(SavedTensor("input", numel(ins[0])),),
    )


def _adaptive_avgpool(params, ins):
    x = ins[0]
    if len(x) not in (3, 4):
        raise LayerError(
            Msg(
                QT_TRANSLATE_NOOP("core", "needs a C×H×W or C×T×H×W input, got {shape}"),
                shape=shape_str(x),
            )
        )
    o = _tuple(params["output"], len(x) - 1, "output")
    out = (x[0],) + o
    return LayerResult(
        out_shape=out,
        flops_fwd=numel(x),
        flops_bwd=numel(x),
        saved=(SavedTensor("input", numel(x)),),
    )


def _global_avgpool(params, ins):
    x = ins[0]
    if len(x) not in (2, 3, 4):
        raise LayerError(
            Msg(
                QT_TRANSLATE_NOOP("core", "needs a C×H×W, C×T×H×W or T×F input, got {shape}"),
                shape=shape_str(x),
            )
        )
    # PyTorch turns a 1×1 adaptive average pool into mean(), which keeps only the shape.
    return LayerResult(out_shape=(x[0],), flops_fwd=numel(x), flops_bwd=numel(x))


def _batchnorm(params, ins):
    x = ins[0]
    if len(x) < 2:
        raise LayerError(
            Msg(
                QT_TRANSLATE_NOOP(
                    "core", "needs channels and at least one more dimension, got {shape}"
                ),
                shape=shape_str(x),
            )
        )
    c, n = x[0], numel(x)
    saved = (_new_saved(("input", n, ACT)), _new_saved(("own", 2 * c, F32_FIXED)))
    return _new_result((x, 2 * c, 4 * n, 8 * n, saved, False, False, _NO_WORKSPACE, 2 * c, "",
                        0, 1, 0, 0, 0, 0))


def _layernorm(params, ins):
    x = ins[0]
    last, n = x[-1], numel(x)
    rows = n // last
    return LayerResult(
        out_shape=x,
        parameters=2 * last,
        flops_fwd=5 * n,
        flops_bwd=8 * n,
        saved=(SavedTensor("input", n), SavedTensor("own", 2 * rows, F32)),
        weight_elements=2 * last,
    )


def _activation(params, ins):
    x = ins[0]
    fn = params["function"]
    if fn not in ACTIVATIONS:
        raise LayerError(
            Msg(
                QT_TRANSLATE_NOOP("core", "unknown activation '{fn}' (one of {choices})"),
                fn=fn,
                choices=", ".join(ACTIVATIONS),
            )
        )
    inplace = bool(params["inplace"])
    n = numel(x)
    if fn in _COMPOSITE_KEEPS:
        extra = tuple(SavedTensor("own", n) for _ in range(_COMPOSITE_KEEPS[fn]))
        return LayerResult(out_shape=x, flops_fwd=10 * n, flops_bwd=10 * n,
                           saved=(SavedTensor("input", n),) + extra)
    if inplace:
        source = "output" if fn in _INPLACE_KEEPS_OUTPUT else "own"
    else:
        source = "output" if fn in _KEEPS_OUTPUT else "input"
    cost = _ACTIVATION_COST[fn]
    return _new_result((x, 0, cost * n, cost * n, (_new_saved((source, n, ACT)),), inplace,
                        False, _NO_WORKSPACE, 0, "", 0, 1, 0, 0, 0, 0))


_ACTIVATION_COST = {  # FLOPs per element
    "relu": 1,
    "relu6": 1,
    "leaky_relu": 2,
    "sigmoid": 4,
    "tanh": 4,
    "gelu": 8,
    "silu": 5,
    "hardswish": 4,
    "hardsigmoid": 3,
}


def _dropout(params, ins):
    p = float(params["p"])
    if not 0.0 <= p < 1.0:
        raise LayerError(
            Msg(
                QT_TRANSLATE_NOOP("core", "dropout probability {p} must be at least 0 and below 1"),
                p=p,
            )
        )
    n = numel(ins[0])
    saved = (SavedTensor("own", n, MASK),) if p > 0 else ()
    return LayerResult(out_shape=ins[0], flops_fwd=2 * n, flops_bwd=n, saved=saved)


def _flatten(params, ins):
    return LayerResult(out_shape=(numel(ins[0]),), view=True)


def _fc(params, ins):
    x = ins[0]
    units = int(params["units"])
    fin = x[-1]
    rows = numel(x) // fin
    weights = fin * units
    bias = units if params["bias"] else 0
    tied = bool(params.get("tied"))
    own_weights = 0 if tied else weights  # a tied weight is the embedding's
    params_n = own_weights + bias
    fwd = 2 * rows * weights + (rows * units if params["bias"] else 0)
    rank = int(params.get("lora_rank") or 0)
    frozen = bool(params.get("frozen")) or rank > 0  # LoRA freezes the base layer
    quant = params.get("quant") or "none"
    if quant != "none" and not frozen:
        raise LayerError(Msg(QT_TRANSLATE_NOOP(
            "core", "quant '{quant}' needs a frozen layer (quantised weights get no gradient)"),
            quant=quant))
    if quant != "none" and tied:
        raise LayerError(Msg(QT_TRANSLATE_NOOP(
            "core", "quant '{quant}' cannot apply to a tied weight (it is the embedding's)"),
            quant=quant))
    # A frozen linear layer's backward needs only its weight for the input's gradient; the
    # adapters (lora_A) need the layer's input and lora_B the rank-r intermediate.
    saved: tuple[SavedTensor, ...]
    if not frozen:
        saved = (SavedTensor("input", numel(x)),)
    elif rank:
        saved = (SavedTensor("input", numel(x)), SavedTensor("own", rows * rank))
    else:
        saved = ()
    adapters = rank * (fin + units)
    fwd += 2 * rows * adapters
    q_bytes = quantized_bytes(own_weights, quant) if quant != "none" else 0
    return LayerResult(
        out_shape=x[:-1] + (units,),
        parameters=params_n + adapters,
        flops_fwd=fwd,
        flops_bwd=2 * fwd if not frozen else fwd + 4 * rows * adapters,
        saved=saved,
        weight_elements=weights + bias + adapters,
        frozen_parameters=params_n if frozen else 0,
        quantized_elements=own_weights if quant != "none" else 0,
        quantized_bytes=q_bytes,
        tied_elements=weights if tied and not frozen else 0,
    )


# Quantised weight formats of frozen layers (bitsandbytes): bytes of n weights with their
# quantisation constants.
#   int8     LLM.int8 (Linear8bitLt): one byte a weight and one fp32 scale per output row; the
#            rows are not known here, so one scale per 4096 weights is taken (a row of a 4096-
#            wide layer).
#   nf4      4-bit NormalFloat (Linear4bit, Dettmers et al. 2023, "QLoRA"): half a byte a
#            weight and one fp32 absmax per block of 64 weights.
#   nf4_dq   nf4 with double quantisation: the absmax values themselves quantised to 8 bits in
#            blocks of 256, with one fp32 constant per such block (QLoRA §3: 0.127 bits a
#            weight instead of 0.5).
QUANT_FORMATS = ("none", "int8", "nf4", "nf4_dq")
NF4_BLOCK = 64
NF4_DQ_BLOCK = 256
INT8_ROW = 4096


def quantized_bytes(n: int, quant: str) -> int:
    """Bytes of ``n`` weights stored as ``quant`` (see QUANT_FORMATS), constants included."""
    if quant == "int8":
        return n + 4 * -(-n // INT8_ROW)
    blocks = -(-n // NF4_BLOCK)
    if quant == "nf4":
        return -(-n // 2) + 4 * blocks
    if quant == "nf4_dq":
        return -(-n // 2) + blocks + 4 * -(-blocks // NF4_DQ_BLOCK)
    return 0


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


def _upsample(params, ins):
    x = ins[0]
    if len(x) not in (3, 4):
        raise LayerError(
            Msg(
                QT_TRANSLATE_NOOP("core", "needs a C×H×W or C×T×H×W input, got {shape}"),
                shape=shape_str(x),
            )
        )
    scale = int(params["scale"])
    out = (x[0],) + tuple(v * scale for v in x[1:])
    n = numel(out)
    mode = params["mode"]
    if mode not in ("nearest", "bilinear"):
        raise LayerError(
            Msg(
                QT_TRANSLATE_NOOP("core", "mode '{mode}' is not 'nearest' or 'bilinear'"), mode=mode
            )
        )
    cost = 1 if mode == "nearest" else 8
    return LayerResult(out_shape=out, flops_fwd=cost * n, flops_bwd=cost * n)


def _recurrent(params, ins, gates: int, reserve_per_unit: int, pointwise: int) -> LayerResult:
    """An LSTM (4 gates) or GRU (3 gates), stacked and optionally bidirectional.

    Per layer and direction: ``gates`` weight matrices over [input, hidden] and two bias vectors
    per gate (PyTorch's layout). cuDNN keeps a reserve space per layer, step and direction of
    ``reserve_per_unit`` values per hidden unit (LSTM: the four gates, the cell state and its
    tanh; GRU: three gates, the reset-gated hidden product and the new hidden, by analogy, not
    measured), plus the inputs of the layers above the first (the outputs below them).
    ``pointwise``: element-wise FLOPs per unit and step (gate activations and the state update).
    """
    x = ins[0]
    if len(x) != 2:
        raise LayerError(
            Msg(
                QT_TRANSLATE_NOOP(
                    "core", "needs a T×F sequence input (steps × features), got {shape}"
                ),
                shape=shape_str(x),
            )
        )
    steps, fin = x
    h, layers = int(params["hidden"]), int(params["layers"])
    dirs = 2 if params["bidirectional"] else 1
    total, macs, in_l = 0, 0, fin
    for _ in range(layers):
        total += (gates * h * (in_l + h) + 2 * gates * h) * dirs
        macs += dirs * steps * gates * h * (in_l + h)
        in_l = h * dirs
    out = (steps, h * dirs) if params["return_sequences"] else (h * dirs,)
    reserve = layers * steps * dirs * reserve_per_unit * h + (layers - 1) * steps * h * dirs
    fwd = 2 * macs + pointwise * layers * steps * dirs * h
    # The whole output sequence is kept too; returning the last step only is a view of it.
    sequence = (
        SavedTensor("output", steps * h * dirs)
        if params["return_sequences"]
        else SavedTensor("own", steps * h * dirs)
    )
    return LayerResult(
        out_shape=out,
        parameters=total,
        flops_fwd=fwd,
        flops_bwd=2 * fwd,
        saved=(SavedTensor("input", numel(x)), SavedTensor("own", reserve), sequence),
        weight_elements=total,
        parallel_elements=gates * h * dirs,
        sequential_steps=steps * layers,
    )


def _lstm(params, ins):
    return _recurrent(params, ins, gates=4, reserve_per_unit=6, pointwise=10)


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


# LSTM and GRU take the same parameters.
_RNN_PARAMS = (
    _p("hidden", "int", 128, QT_TRANSLATE_NOOP("core", "Hidden units."), minimum=1),
    _p("layers", "int", 1, QT_TRANSLATE_NOOP("core", "Stacked layers."), minimum=1),
    _p("bidirectional", "bool", False, QT_TRANSLATE_NOOP("core", "Run both directions.")),
    _p("return_sequences", "bool", True,
       QT_TRANSLATE_NOOP("core", "Output every step (T×H) or only the last (H).")),
)

_CONVT_PARAMS = tuple(p for p in _CONV_PARAMS if p.name != "padding") + (
    _p(
        "padding",
        "ints",
        0,
        QT_TRANSLATE_NOOP("core", "Padding removed from each side of the output."),
        minimum=0,
    ),
    _p(
        "output_padding",
        "ints",
        0,
        QT_TRANSLATE_NOOP("core", "Extra rows/columns added on one side of the output."),
        minimum=0,
    ),
)


def _conv_transpose(dims: int):
    def rule(params, ins):
        x = ins[0]
        cin, sp, filters, groups = _conv_input(params, x, dims)
        k = _tuple(params["kernel"], dims, "kernel")
        s = _tuple(params["stride"], dims, "stride")
        d = _tuple(params["dilation"], dims, "dilation")
        p = _tuple(params["padding"], dims, "padding")
        op = _tuple(params["output_padding"], dims, "output padding")
        out_sp = tuple(
            (sp[i] - 1) * s[i] - 2 * p[i] + d[i] * (k[i] - 1) + op[i] + 1 for i in range(dims)
        )
        if any(o < 1 for o in out_sp):
            raise LayerError(
                Msg(
                    QT_TRANSLATE_NOOP("core", "padding {dims} leaves no output"), dims=_dims_text(p)
                )
            )
        kvol = numel(k)
        params_n = cin * (filters // groups) * kvol + (filters if params["bias"] else 0)
        out = (filters,) + out_sp
        fwd = 2 * numel(x) * (filters // groups) * kvol + (numel(out) if params["bias"] else 0)
        return LayerResult(
            out_shape=out,
            parameters=params_n,
            flops_fwd=fwd,
            flops_bwd=2 * fwd,
            saved=(SavedTensor("input", numel(x)),),
            workspace={"implicit_gemm": (0, 0)},
            weight_elements=params_n,
        )

    return rule


def _gru(params, ins):
    return _recurrent(params, ins, gates=3, reserve_per_unit=5, pointwise=8)


@dataclass(frozen=True)
class LayerRule:
    kind: str
    label: str
    params: tuple[ParamSpec, ...]
    apply: Callable[[Mapping[str, Any], list[Shape]], LayerResult]
    help: str

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}

    def param(self, name: str) -> ParamSpec | None:
        for p in self.params:
            if p.name == name:
                return p
        return None


RULES: dict[str, LayerRule] = {
    r.kind: r
    for r in (
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
            "conv2d",
            QT_TRANSLATE_NOOP("core", "Conv 2D"),
            _CONV_PARAMS,
            _conv(2),
            QT_TRANSLATE_NOOP("core", "2-D convolution; keeps its input for backward."),
        ),
        LayerRule(
            "conv3d",
            QT_TRANSLATE_NOOP("core", "Conv 3D"),
            _CONV_PARAMS,
            _conv(3),
            QT_TRANSLATE_NOOP(
                "core", "3-D convolution (video, volumes); keeps its input for backward."
            ),
        ),
        LayerRule(
            "maxpool",
            QT_TRANSLATE_NOOP("core", "Max pool"),
            _POOL_PARAMS,
            _maxpool,
            QT_TRANSLATE_NOOP("core", "Max pooling; keeps its input and int64 indices."),
        ),
        LayerRule(
            "avgpool",
            QT_TRANSLATE_NOOP("core", "Average pool"),
            _POOL_PARAMS,
            _avgpool,
            QT_TRANSLATE_NOOP("core", "Average pooling; keeps its input."),
        ),
        LayerRule(
            "adaptive_avgpool",
            QT_TRANSLATE_NOOP("core", "Adaptive avg pool"),
            (
                _p(
                    "output",
                    "ints",
                    1,
                    QT_TRANSLATE_NOOP("core", "Output size per spatial dimension."),
                    minimum=1,
                ),
            ),
            _adaptive_avgpool,
            QT_TRANSLATE_NOOP("core", "Average pooling to a fixed output size."),
        ),
        LayerRule(
            "global_avgpool",
            QT_TRANSLATE_NOOP("core", "Global avg pool"),
            (),
            _global_avgpool,
            QT_TRANSLATE_NOOP("core", "Averages each channel to one number (output: C)."),
        ),
        LayerRule(
            "batchnorm",
            QT_TRANSLATE_NOOP("core", "Batch norm"),
            (),
            _batchnorm,
            QT_TRANSLATE_NOOP(
                "core", "Batch normalisation; keeps its input and per-channel statistics."
            ),
        ),
        LayerRule(
            "layernorm",
            QT_TRANSLATE_NOOP("core", "Layer norm"),
            (),
            _layernorm,
            QT_TRANSLATE_NOOP("core", "Layer normalisation over the last dimension."),
        ),
        LayerRule(
            "activation",
            QT_TRANSLATE_NOOP("core", "Activation"),
            (
                _p(
                    "function",
                    "choice",
                    "relu",
                    QT_TRANSLATE_NOOP("core", "The non-linearity."),
                    choices=ACTIVATIONS,
                ),
                _p(
                    "inplace",
                    "bool",
                    False,
                    QT_TRANSLATE_NOOP(
                        "core",
                        "Overwrite the input instead of allocating an output (saves memory).",
                    ),
                ),
            ),
            _activation,
            QT_TRANSLATE_NOOP("core", "ReLU and friends."),
        ),
        LayerRule(
            "dropout",
            QT_TRANSLATE_NOOP("core", "Dropout"),
            (
                _p(
                    "p",
                    "float",
                    0.5,
                    QT_TRANSLATE_NOOP("core", "Probability of dropping a unit."),
                    minimum=0.0,
                    maximum=0.99,
                ),
            ),
            _dropout,
            QT_TRANSLATE_NOOP("core", "Dropout; keeps a one-byte mask."),
        ),
        LayerRule(
            "flatten",
            QT_TRANSLATE_NOOP("core", "Flatten"),
            (),
            _flatten,
            QT_TRANSLATE_NOOP("core", "Flattens to a vector (a view, free)."),
        ),
        LayerRule(
            "fc",
            QT_TRANSLATE_NOOP("core", "Fully connected"),
            (
                _p("units", "int", 1000, QT_TRANSLATE_NOOP("core", "Output features."), minimum=1),
                _p(
                    "bias",
                    "bool",
                    True,
                    QT_TRANSLATE_NOOP("core", "Whether the layer has a bias vector."),
                ),
                _p("tied", "bool", False, QT_TRANSLATE_NOOP(
                    "core", "The weight is the token embedding's (an LM head tied to it): no "
                            "parameters of its own.")),
                _p("frozen", "bool", False, QT_TRANSLATE_NOOP(
                    "core", "Frozen weights: no gradient, no optimizer state; keeps nothing for "
                            "backward (its input's gradient needs only the weight).")),
                _p("lora_rank", "int", 0, QT_TRANSLATE_NOOP(
                    "core", "LoRA adapters of this rank on a frozen base (0 = none): they keep "
                            "the layer's input and a rank-wide intermediate."), minimum=0),
                _p("quant", "choice", "none", QT_TRANSLATE_NOOP(
                    "core", "Stored format of frozen weights: none, int8 (LLM.int8), nf4 "
                            "(QLoRA's 4-bit NormalFloat, fp32 absmax per 64), nf4_dq (with "
                            "double quantisation)."), choices=("none", "int8", "nf4", "nf4_dq")),
            ),
            _fc,
            QT_TRANSLATE_NOOP(
                "core", "Dense / linear layer over the last dimension; keeps its input."
            ),
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
            "upsample",
            QT_TRANSLATE_NOOP("core", "Upsample"),
            (
                _p("scale", "int", 2, QT_TRANSLATE_NOOP("core", "Scale factor."), minimum=1),
                _p(
                    "mode",
                    "choice",
                    "nearest",
                    QT_TRANSLATE_NOOP("core", "Interpolation."),
                    choices=("nearest", "bilinear"),
                ),
            ),
            _upsample,
            QT_TRANSLATE_NOOP("core", "Spatial upsampling; keeps nothing."),
        ),
        LayerRule(
            "lstm",
            QT_TRANSLATE_NOOP("core", "LSTM"),
            _RNN_PARAMS,
            _lstm,
            QT_TRANSLATE_NOOP(
                "core", "LSTM over a T×F sequence (T = sequence length, set on the input)."
            ),
        ),
        LayerRule(
            "conv_transpose2d",
            QT_TRANSLATE_NOOP("core", "Transposed conv 2D"),
            _CONVT_PARAMS,
            _conv_transpose(2),
            QT_TRANSLATE_NOOP(
                "core", "2-D transposed convolution (decoders, upsampling); keeps its input."
            ),
        ),
        LayerRule(
            "conv_transpose3d",
            QT_TRANSLATE_NOOP("core", "Transposed conv 3D"),
            _CONVT_PARAMS,
            _conv_transpose(3),
            QT_TRANSLATE_NOOP("core", "3-D transposed convolution; keeps its input."),
        ),
        LayerRule(
            "gru",
            QT_TRANSLATE_NOOP("core", "GRU"),
            _RNN_PARAMS,
            _gru,
            QT_TRANSLATE_NOOP(
                "core", "GRU over a T×F sequence; keeps its input, cuDNN's reserve and its output."
            ),
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
    )
}

# --------------------------------------------------------------------------------------------
# Layer kinds of modern networks (what imported graphs need): views and layout changes, products
# of two activations, softmax, RMSNorm, token embeddings, fused attention, einsum, masking and
# element-wise operations with a learned tensor. What each keeps for backward follows PyTorch's
# derivatives.yaml, as above:
#
# * view (reshape, permute, slice, select, squeeze): a view of its input, keeps nothing;
# * matmul of two activations (attention's q·kᵀ and p·v): keeps both operands;
# * softmax: keeps its output;
# * RMSNorm: keeps its input and one fp32 inverse RMS per normalised row;
# * embedding: keeps the token ids it read (its input);
# * scaled-dot-product attention (a fused kernel): keeps q, k, v, its output and one fp32
#   logsumexp per query row and head;
# * einsum of activations: keeps every operand;
# * where / masked_fill: keeps a one-byte mask of its output's shape;
# * element-wise with a learned tensor (layer scale, position embedding): the learned tensor's
#   elements are parameters; what it keeps depends on the operation ('keeps').
# --------------------------------------------------------------------------------------------

ELEMENTWISE_OPS = ("add", "sub", "mul", "div", "pow", "other")
KEEPS = ("nothing", "input", "inputs", "output")


def _refs_needed(ins: list[Shape], count: int) -> None:
    if len(ins) < count:
        raise LayerError(
            Msg(QT_TRANSLATE_NOOP("core", "needs {n} layer(s) named in 'from'"), n=count - 1)
        )


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


def _softmax(params, ins):
    n = numel(ins[0])
    return LayerResult(
        out_shape=ins[0], flops_fwd=5 * n, flops_bwd=4 * n, saved=(SavedTensor("output", n),)
    )


def _rmsnorm(params, ins):
    x = ins[0]
    last, n = x[-1], numel(x)
    weights = last if params["affine"] else 0
    saved = (SavedTensor("input", n), SavedTensor("own", n // last, F32))
    if params.get("implementation") == "eager" and weights and not params.get("frozen"):
        # Hugging Face's LlamaRMSNorm: x·rsqrt(mean(x²)+ε) then weight·(that): the product
        # keeps the normalised tensor for the weight's gradient (not when it is frozen).
        saved += (SavedTensor("own", n),)
    return LayerResult(
        out_shape=x,
        parameters=weights,
        flops_fwd=4 * n,
        flops_bwd=6 * n,
        saved=saved,
        weight_elements=weights,
    )


def _embedding(params, ins):
    x = ins[0]
    num, dim = int(params["num"]), int(params["dim"])
    out = x + (dim,)
    positions = params.get("positions") or "none"
    max_pos = int(params.get("max_positions") or 0)
    seq = x[-1] if x else 1
    learned = num * dim + int(params.get("token_types") or 0) * dim
    saved = [SavedTensor("input", numel(x))]
    if positions == "learned":
        if max_pos < seq:
            raise LayerError(Msg(QT_TRANSLATE_NOOP(
                "core", "max_positions {max_pos} is shorter than the {seq}-token sequence"),
                max_pos=max_pos, seq=seq))
        learned += max_pos * dim
    elif positions == "rotary":
        rot = int(params.get("rotary_dim") or 0)
        if rot < 2 or rot % 2:
            raise LayerError(Msg(QT_TRANSLATE_NOOP(
                "core", "rotary_dim {rot} must be an even number of at least 2 (the head "
                        "size)"), rot=rot))
        # The cos and sin tables (one sequence, shared by every layer and every sample),
        # kept by the rotations' products in every attention layer.
        saved.append(SavedTensor("own", 2 * seq * rot, F32_FIXED))
    return LayerResult(
        out_shape=out,
        parameters=learned,
        flops_fwd=numel(out),
        flops_bwd=numel(out),
        saved=tuple(saved),
        weight_elements=numel(out),
    )


ATTENTION_IMPLEMENTATIONS = ("sdpa_flash", "sdpa_mem_efficient", "eager")
MEM_EFFICIENT_LSE_ALIGN = 32  # PyTorch's memory-efficient kernel pads its logsumexp rows to 32


def _attention(params, ins):
    _refs_needed(ins, 3)
    q, k, v = ins[0], ins[1], ins[2]
    heads = int(params.get("heads") or 0)
    impl = params.get("implementation") or "sdpa_flash"
    p_drop = float(params.get("dropout") or 0.0)
    if not 0.0 <= p_drop < 1.0:
        raise LayerError(Msg(QT_TRANSLATE_NOOP(
            "core", "dropout {p} must be at least 0 and below 1"), p=p_drop))
    bad = Msg(QT_TRANSLATE_NOOP("core", "q {shape}, k {shape2} and v {shape3} do not fit "
                                        "together"),
              shape=shape_str(q), shape2=shape_str(k), shape3=shape_str(v))
    if heads == 0:  # the shapes carry the heads: q (…, T, d), k (…, S, d), v (…, S, dv)
        if len(q) < 2 or len(k) != len(q) or len(v) != len(q) or k[-1] != q[-1] or \
                k[-2] != v[-2]:
            raise LayerError(bad)
        out = q[:-1] + (v[-1],)
        t_q, t_k, hd, hdv = q[-2], k[-2], q[-1], v[-1]
        groups = numel(q) // (t_q * hd)
        kv_groups = groups
    else:  # sequences of features: q (T, heads·d), k (S, kv_heads·d), v (S, kv_heads·dv)
        kv_heads = int(params.get("kv_heads") or 0) or heads
        if len(q) != 2 or len(k) != 2 or len(v) != 2 or k[0] != v[0]:
            raise LayerError(bad)
        if q[1] % heads:
            raise LayerError(Msg(QT_TRANSLATE_NOOP(
                "core", "heads {heads} do not divide q's {features} features"),
                heads=heads, features=q[1]))
        if heads % kv_heads:
            raise LayerError(Msg(QT_TRANSLATE_NOOP(
                "core", "kv_heads {kv_heads} do not divide heads {heads}"),
                kv_heads=kv_heads, heads=heads))
        hd = q[1] // heads
        if k[1] != kv_heads * hd or v[1] % kv_heads:
            raise LayerError(Msg(QT_TRANSLATE_NOOP(
                "core", "k {shape2} and v {shape3} do not hold kv_heads {kv_heads} of head "
                        "size {hd}"), shape2=shape_str(k), shape3=shape_str(v),
                kv_heads=kv_heads, hd=hd))
        hdv = v[1] // kv_heads
        t_q, t_k = q[0], k[0]
        groups, kv_groups = heads, kv_heads
        out = (t_q, heads * hdv)
    rows = groups * t_q
    scores = rows * t_k
    causal = bool(params.get("causal"))
    if causal and t_q != t_k:
        raise LayerError(Msg(QT_TRANSLATE_NOOP(
            "core", "causal attention needs as many keys as queries, not {t_k} and {t_q}"),
            t_k=t_k, t_q=t_q))
    fwd = 2 * scores * (hd + hdv) + 5 * scores
    saved = [SavedTensor("input", numel(q))]
    # Grouped-query attention: k and v repeated to every head (Hugging Face's repeat_kv, a
    # copy) unless the kernel reads the groups itself.
    if kv_groups < groups and params.get("repeat_kv", True):
        saved += [SavedTensor("own", groups * t_k * hd), SavedTensor("own", groups * t_k * hdv)]
    else:
        saved += [SavedTensor("input:1", numel(k)), SavedTensor("input:2", numel(v))]
    if impl == "eager":
        # softmax(q·kᵀ) in fp32 (Hugging Face upcasts), kept by the softmax; dropout keeps a
        # one-byte mask and the dropped probabilities (p·v keeps them).
        saved.append(SavedTensor("own", scores, F32))
        if p_drop > 0:
            saved += [SavedTensor("own", scores, MASK), SavedTensor("own", scores)]
    else:
        # Flash and memory-efficient kernels keep the output and one fp32 logsumexp per query
        # row (padded to 32 rows by the memory-efficient one); dropout is replayed from the
        # random seed, not kept.
        lse_t = t_q if impl == "sdpa_flash" else -(-t_q // MEM_EFFICIENT_LSE_ALIGN) * \
            MEM_EFFICIENT_LSE_ALIGN
        saved += [SavedTensor("output", numel(out)), SavedTensor("own", groups * lse_t, F32)]
        if causal:  # the fused kernels skip the masked half
            fwd //= 2
    return LayerResult(
        out_shape=out,
        flops_fwd=fwd,
        flops_bwd=int(2.5 * fwd),
        saved=tuple(saved),
    )


def _rotary(params, ins):
    x = ins[0]
    n = numel(x)
    # q·cos + rotate_half(q)·sin: the products keep the cos and sin tables (counted once, by
    # the embedding that makes them), nothing per sample here.
    return LayerResult(out_shape=x, flops_fwd=4 * n, flops_bwd=3 * n)


def _patch_embed(params, ins):
    x = ins[0]
    if len(x) != 3:
        raise LayerError(Msg(QT_TRANSLATE_NOOP("core", "needs a C×H×W image, got {shape}"),
                             shape=shape_str(x)))
    c, h, w = x
    p = int(params["patch"])
    dim = int(params["dim"])
    if h % p or w % p:
        raise LayerError(Msg(QT_TRANSLATE_NOOP(
            "core", "patch {p} does not divide the {h}×{w} image"), p=p, h=h, w=w))
    n = (h // p) * (w // p)
    cls = 1 if params["class_token"] else 0
    tokens = n + cls
    parameters = c * p * p * dim + dim + cls * dim + (tokens * dim if params["positions"] else 0)
    fwd = 2 * n * c * p * p * dim + 2 * tokens * dim
    return LayerResult(
        out_shape=(tokens, dim),
        parameters=parameters,
        flops_fwd=fwd,
        flops_bwd=2 * fwd,
        saved=(SavedTensor("input", numel(x)),),  # the convolution's input; cat and add: none
        weight_elements=parameters,
    )


def _einsum(params, ins):
    out = tuple(int(v) for v in params["shape"]) if params.get("shape") else ins[0]
    # One contracted index set: the product of the operands' sizes over the output's is its
    # size squared (exact for matmul-like equations).
    total = 1
    for s in ins:
        total *= numel(s)
    inner = max(1, math.isqrt(max(1, total // max(1, numel(out)))) if len(ins) > 1 else 1)
    fwd = 2 * numel(out) * inner
    return LayerResult(out_shape=out, flops_fwd=fwd, flops_bwd=2 * fwd,
                       saved=_kept("inputs", ins, out))


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
    """What 'keeps' names: nothing, input 0, every input, or the output."""
    if keeps == "input":
        return (SavedTensor("input", numel(ins[0])),)
    if keeps == "inputs":
        return tuple(
            SavedTensor("input" if k == 0 else f"input:{k}", numel(s)) for k, s in enumerate(ins)
        )
    if keeps == "output":
        return (SavedTensor("output", numel(out)),)
    return ()


def _where(params, ins):
    out = _broadcast_all(ins)
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
    return LayerResult(
        out_shape=out,
        parameters=learned,
        flops_fwd=n,
        flops_bwd=n,
        saved=_kept(params["keeps"], ins, out),
        weight_elements=learned,
    )


_FROM_REFS = _p(
    "from",
    "refs",
    (),
    QT_TRANSLATE_NOOP("core", "Further layers it reads (the other operands)."),
)
_OUT_SHAPE = _p(
    "shape",
    "shape",
    None,
    QT_TRANSLATE_NOOP("core", "Output shape per sample (empty = the input's)."),
    optional=True,
)

MODERN_RULES = (
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
        "softmax",
        QT_TRANSLATE_NOOP("core", "Softmax"),
        (),
        _softmax,
        QT_TRANSLATE_NOOP("core", "Softmax over the last dimension; keeps its output."),
    ),
    LayerRule(
        "rmsnorm",
        QT_TRANSLATE_NOOP("core", "RMS norm"),
        (
            _p(
                "affine",
                "bool",
                True,
                QT_TRANSLATE_NOOP("core", "Whether it has a learned scale per feature."),
            ),
            _p("implementation", "choice", "fused", QT_TRANSLATE_NOOP(
                "core", "fused (torch.nn.RMSNorm: keeps its input and 1/RMS) or eager "
                        "(Hugging Face's LlamaRMSNorm: also keeps the normalised tensor)."),
               choices=("fused", "eager")),
        ),
        _rmsnorm,
        QT_TRANSLATE_NOOP(
            "core", "RMS normalisation over the last dimension; keeps its input and 1/RMS per row."
        ),
    ),
    LayerRule(
        "embedding",
        QT_TRANSLATE_NOOP("core", "Embedding"),
        (
            _p("num", "int", 30522, QT_TRANSLATE_NOOP("core", "Rows of the table (vocabulary)."),
               minimum=1),
            _p("dim", "int", 768, QT_TRANSLATE_NOOP("core", "Features per row."), minimum=1),
            _p("positions", "choice", "none", QT_TRANSLATE_NOOP(
                "core", "Positions: none, learned (a table of max_positions rows added) or "
                        "rotary (cos/sin tables applied to q and k by rotary layers)."),
               choices=("none", "learned", "rotary")),
            _p("max_positions", "int", 0, QT_TRANSLATE_NOOP(
                "core", "Rows of the learned position table."), minimum=0),
            _p("token_types", "int", 0, QT_TRANSLATE_NOOP(
                "core", "Rows of a token-type (segment) table added (BERT: 2)."), minimum=0),
            _p("rotary_dim", "int", 0, QT_TRANSLATE_NOOP(
                "core", "Features rotated per head (rotary positions: the head size)."),
               minimum=0),
        ),
        _embedding,
        QT_TRANSLATE_NOOP(
            "core", "Looks up token ids in a learned table; keeps the ids for backward."
        ),
    ),
    LayerRule(
        "attention",
        QT_TRANSLATE_NOOP("core", "Attention"),
        (
            _FROM_REFS,
            _p("heads", "int", 0, QT_TRANSLATE_NOOP(
                "core", "Query heads; q, k and v are then T×(heads·head size) (0 = the shapes "
                        "carry the heads)."), minimum=0),
            _p("kv_heads", "int", 0, QT_TRANSLATE_NOOP(
                "core", "Key/value heads (grouped-query attention; 0 = as many as heads)."),
               minimum=0),
            _p("causal", "bool", False, QT_TRANSLATE_NOOP(
                "core", "Each token attends only to earlier ones (decoders).")),
            _p("implementation", "choice", "sdpa_flash", QT_TRANSLATE_NOOP(
                "core", "sdpa_flash / sdpa_mem_efficient (PyTorch SDPA kernels: keep q, k, v, "
                        "the output and a logsumexp) or eager (keeps the T×T softmax)."),
               choices=ATTENTION_IMPLEMENTATIONS),
            _p("dropout", "float", 0.0, QT_TRANSLATE_NOOP(
                "core", "Attention dropout probability (eager keeps a mask)."),
               minimum=0.0, maximum=0.99),
            _p("repeat_kv", "bool", True, QT_TRANSLATE_NOOP(
                "core", "With fewer kv_heads: k and v are copied to every head first "
                        "(Hugging Face's repeat_kv) rather than read by group.")),
        ),
        _attention,
        QT_TRANSLATE_NOOP(
            "core",
            "Attention of q (this input) with k and v ('from'): SDPA keeps q, k, v, the output "
            "and a logsumexp per row; eager keeps q, k, v and the softmax.",
        ),
    ),
    LayerRule(
        "rotary",
        QT_TRANSLATE_NOOP("core", "Rotary positions"),
        (),
        _rotary,
        QT_TRANSLATE_NOOP(
            "core", "Rotates q or k by position (RoPE); the cos/sin tables are counted once, "
                    "by the embedding."),
    ),
    LayerRule(
        "patch_embed",
        QT_TRANSLATE_NOOP("core", "Patch embedding"),
        (
            _p("patch", "int", 16, QT_TRANSLATE_NOOP("core", "Patch side in pixels."),
               minimum=1),
            _p("dim", "int", 768, QT_TRANSLATE_NOOP("core", "Features per token."), minimum=1),
            _p("class_token", "bool", True, QT_TRANSLATE_NOOP(
                "core", "Prepend a learned class token.")),
            _p("positions", "bool", True, QT_TRANSLATE_NOOP(
                "core", "Add learned position embeddings (one per token).")),
        ),
        _patch_embed,
        QT_TRANSLATE_NOOP(
            "core", "ViT's patch embedding: a patch×patch convolution to tokens, a class "
                    "token and position embeddings; keeps the image."),
    ),
    LayerRule(
        "einsum",
        QT_TRANSLATE_NOOP("core", "Einsum"),
        (_OUT_SHAPE, _FROM_REFS),
        _einsum,
        QT_TRANSLATE_NOOP("core", "Einstein summation of activations; keeps every operand."),
    ),
    LayerRule(
        "where",
        QT_TRANSLATE_NOOP("core", "Where / mask"),
        (_FROM_REFS,),
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
RULES.update((r.kind, r) for r in MODERN_RULES)
# Kinds that read further layers through 'from'.
MULTI_INPUT_KINDS = frozenset({"concat", "generic", "matmul", "attention", "einsum", "where",
                               "elementwise"})

# Every layer but the input may read an earlier layer instead of the one just before it
# (ResNet's downsample branch, Inception's parallel towers).
INPUT_PARAM = _p(
    "input",
    "ref",
    "",
    QT_TRANSLATE_NOOP(
        "core", "Read this earlier layer's output instead of the previous layer's (branches)."
    ),
    optional=True,
)
# Kinds with learned tensors that fine-tuning may freeze (fc has its own 'frozen': freezing
# it changes what it keeps).
FROZEN_PARAM = _p(
    "frozen",
    "bool",
    False,
    QT_TRANSLATE_NOOP("core", "Frozen weights: no gradient, no optimizer state."),
)
FREEZABLE_KINDS = frozenset({"conv2d", "conv3d", "batchnorm", "layernorm", "rmsnorm", "lstm",
                             "gru", "conv_transpose2d", "conv_transpose3d", "embedding",
                             "patch_embed", "elementwise"})
RULES = {
    kind: (
        rule
        if kind == "input"
        else LayerRule(rule.kind, rule.label,
                       rule.params + ((FROZEN_PARAM,) if kind in FREEZABLE_KINDS else ())
                       + (INPUT_PARAM,), rule.apply, rule.help)
    )
    for kind, rule in RULES.items()
}

KINDS: tuple[str, ...] = tuple(RULES)
# Parameters that name the layers read ('input', 'from'): the analysis resolves them to input
# shapes; no rule reads them.
WIRING_PARAMS: dict[str, frozenset[str]] = {
    kind: frozenset(p.name for p in rule.params if p.type in ("ref", "refs"))
    for kind, rule in RULES.items()
}
# Parameters added for transformers and fine-tuning: left out of a plan file at their default,
# so files of networks that do not use them read as before.
OMIT_AT_DEFAULT = frozenset({"tied", "frozen", "lora_rank", "quant", "positions",
                             "max_positions", "token_types", "rotary_dim", "heads", "kv_heads",
                             "causal", "implementation", "dropout", "repeat_kv", "split"})


# What the window shows beside each parameter's editor (the JSON key with spaces, translated).
PARAM_LABELS: dict[str, str] = {
    "shape": QT_TRANSLATE_NOOP("core", "shape"),
    "filters": QT_TRANSLATE_NOOP("core", "filters"),
    "kernel": QT_TRANSLATE_NOOP("core", "kernel"),
    "stride": QT_TRANSLATE_NOOP("core", "stride"),
    "padding": QT_TRANSLATE_NOOP("core", "padding"),
    "dilation": QT_TRANSLATE_NOOP("core", "dilation"),
    "groups": QT_TRANSLATE_NOOP("core", "groups"),
    "bias": QT_TRANSLATE_NOOP("core", "bias"),
    "input": QT_TRANSLATE_NOOP("core", "input"),
    "ceil_mode": QT_TRANSLATE_NOOP("core", "ceil mode"),
    "output": QT_TRANSLATE_NOOP("core", "output"),
    "function": QT_TRANSLATE_NOOP("core", "function"),
    "inplace": QT_TRANSLATE_NOOP("core", "inplace"),
    "p": QT_TRANSLATE_NOOP("core", "p"),
    "units": QT_TRANSLATE_NOOP("core", "units"),
    "from": QT_TRANSLATE_NOOP("core", "from"),
    "scale": QT_TRANSLATE_NOOP("core", "scale"),
    "mode": QT_TRANSLATE_NOOP("core", "mode"),
    "hidden": QT_TRANSLATE_NOOP("core", "hidden"),
    "layers": QT_TRANSLATE_NOOP("core", "layers"),
    "bidirectional": QT_TRANSLATE_NOOP("core", "bidirectional"),
    "return_sequences": QT_TRANSLATE_NOOP("core", "return sequences"),
    "output_padding": QT_TRANSLATE_NOOP("core", "output padding"),
    "keeps": QT_TRANSLATE_NOOP("core", "keeps"),
    "affine": QT_TRANSLATE_NOOP("core", "affine"),
    "num": QT_TRANSLATE_NOOP("core", "rows"),
    "dim": QT_TRANSLATE_NOOP("core", "features"),
    "op": QT_TRANSLATE_NOOP("core", "operation"),
    "parameters": QT_TRANSLATE_NOOP("core", "parameters"),
    "tied": QT_TRANSLATE_NOOP("core", "tied"),
    "frozen": QT_TRANSLATE_NOOP("core", "frozen"),
    "lora_rank": QT_TRANSLATE_NOOP("core", "LoRA rank"),
    "quant": QT_TRANSLATE_NOOP("core", "quantised"),
    "positions": QT_TRANSLATE_NOOP("core", "positions"),
    "max_positions": QT_TRANSLATE_NOOP("core", "max positions"),
    "token_types": QT_TRANSLATE_NOOP("core", "token types"),
    "rotary_dim": QT_TRANSLATE_NOOP("core", "rotary size"),
    "heads": QT_TRANSLATE_NOOP("core", "heads"),
    "kv_heads": QT_TRANSLATE_NOOP("core", "kv heads"),
    "causal": QT_TRANSLATE_NOOP("core", "causal"),
    "implementation": QT_TRANSLATE_NOOP("core", "implementation"),
    "dropout": QT_TRANSLATE_NOOP("core", "dropout"),
    "repeat_kv": QT_TRANSLATE_NOOP("core", "repeat kv"),
    "patch": QT_TRANSLATE_NOOP("core", "patch"),
    "class_token": QT_TRANSLATE_NOOP("core", "class token"),
    "split": QT_TRANSLATE_NOOP("core", "split"),
}


def param_label(name: str) -> str:
    """The English label of a parameter ("ceil_mode" → "ceil mode")."""
    return PARAM_LABELS.get(name, name.replace("_", " "))


@dataclass(frozen=True, eq=False)
class LayerSpec:
    """One layer of a draft: kind, unique name, parameters (missing ones take defaults)."""

    kind: str
    name: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        rule = RULES.get(self.kind)
        merged = rule.defaults() if rule else {}
        merged.update(self.params)
        object.__setattr__(self, "params", merged)
        self._derive(_freeze(merged))

    def _derive(self, frozen: tuple) -> None:
        key = (self.kind, self.name, frozen)
        object.__setattr__(self, "_key", key)
        object.__setattr__(self, "_hash", hash(key))
        # What the layer computes depends on its kind and parameters, not on its name nor on
        # the names of the layers it reads (the rule sees their shapes): layers alike (a
        # network's repeated blocks, every residual add) share one computed result.
        wiring = WIRING_PARAMS.get(self.kind)
        object.__setattr__(self, "_value_key", (self.kind, tuple(
            p for p in key[2] if p[0] not in wiring) if wiring else key[2]))
        # What it reads, worked out once (the analysis asks for every layer on every edit).
        object.__setattr__(self, "_source", self.params.get("input") or None)
        object.__setattr__(self, "_refs", self._compute_refs())

    def __reduce__(self):
        # Pickled as what it is made of; its hash is worked out again where it is loaded (a
        # str's hash differs from one process to the next: an import runs in a child process).
        return (_restore_spec, (self.kind, self.name, self.params, self._key[2]))

    def __eq__(self, other):
        return self is other or (isinstance(other, LayerSpec) and self._key == other._key)

    def __hash__(self):
        return self._hash

    def get(self, name: str, default=None):
        return self.params.get(name, default)

    def replace(self, *, name: str | None = None, kind: str | None = None, **params) -> "LayerSpec":
        merged = dict(self.params) if kind in (None, self.kind) else {}
        merged.update(params)
        return LayerSpec(kind or self.kind, name if name is not None else self.name, merged)

    def source(self) -> str | None:
        """The layer read as the main input when it is not the previous one."""
        return self._source

    def refs(self) -> tuple[str, ...]:
        """Names of earlier layers this one reads besides its main input."""
        return self._refs

    def _compute_refs(self) -> tuple[str, ...]:
        if self.kind == "add":
            ref = self.params.get("from")
            return (ref,) if ref else ()
        if self.kind in MULTI_INPUT_KINDS:
            refs = self.params.get("from") or ()
            if isinstance(refs, str):
                refs = tuple(r.strip() for r in refs.split(",") if r.strip())
            return tuple(refs)
        return ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.kind, "name": self.name}
        rule = RULES.get(self.kind)
        for k, v in self.params.items():
            if k == "input" and not v:
                continue  # reads the previous layer, the usual case
            if k in OMIT_AT_DEFAULT and rule is not None:
                spec = rule.param(k)
                if spec is not None and v == spec.default:
                    continue
            out[k] = list(v) if isinstance(v, tuple) else v
        return out


def _restore_spec(kind: str, name: str, params: dict, frozen: tuple) -> LayerSpec:
    """A pickled LayerSpec (its params already merged with the defaults and frozen)."""
    spec = object.__new__(LayerSpec)
    object.__setattr__(spec, "kind", kind)
    object.__setattr__(spec, "name", name)
    object.__setattr__(spec, "params", params)
    spec._derive(frozen)
    return spec


def _freeze(v):
    if isinstance(v, (list, tuple)):
        return tuple(_freeze(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, _freeze(x)) for k, x in v.items()))
    return v


# --------------------------------------------------------------------------------------------
# Parameter parsing (plan files, the layer table, the CLI)
# --------------------------------------------------------------------------------------------

_MAX_DIM = 1 << 24  # a sanity bound on one dimension (16 M)
MAX_PARAM_INT = _MAX_DIM  # the largest whole-number parameter accepted as it is


def parse_ints(text, *, minimum: int = 1, what: str = "value") -> tuple[int, ...]:
    """'3', '3x3', '3×3', '3,3', [3, 3] → (3, 3); an error message names the problem."""
    if isinstance(text, bool):
        raise LayerError(
            Msg(
                QT_TRANSLATE_NOOP("core", "{what} must be a number, not {text!r}"),
                what=what,
                text=text,
            )
        )
    if isinstance(text, (int, float)):
        items = [text]
    elif isinstance(text, (list, tuple)):
        items = list(text)
    elif isinstance(text, str):
        cleaned = text.strip().lower().replace("×", "x").replace("*", "x").replace(",", "x")
        cleaned = cleaned.replace(" ", "x")
        items = [t for t in cleaned.split("x") if t]
        if not items:
            raise LayerError(Msg(QT_TRANSLATE_NOOP("core", "{what} is empty"), what=what))
    else:
        raise LayerError(
            Msg(
                QT_TRANSLATE_NOOP(
                    "core", "{what} must be a number or list of numbers, not {text!r}"
                ),
                what=what,
                text=text,
            )
        )
    out = []
    for item in items:
        if isinstance(item, bool):  # True is not the number 1 in a shape
            raise LayerError(
                Msg(QT_TRANSLATE_NOOP("core", "{what} must be a number, not {text!r}"),
                    what=what, text=item)
            )
        try:
            f = float(item)
        except (TypeError, ValueError):
            raise LayerError(
                Msg(
                    QT_TRANSLATE_NOOP("core", "{what} '{item}' is not a number"),
                    what=what,
                    item=item,
                )
            ) from None
        if not math.isfinite(f) or f != int(f):
            raise LayerError(
                Msg(
                    QT_TRANSLATE_NOOP("core", "{what} '{item}' is not a whole number"),
                    what=what,
                    item=item,
                )
            )
        v = int(f)
        if v < minimum:
            raise LayerError(
                Msg(
                    QT_TRANSLATE_NOOP("core", "{what} {v} is below {minimum}"),
                    what=what,
                    v=v,
                    minimum=minimum,
                )
            )
        if v > _MAX_DIM:
            raise LayerError(
                Msg(QT_TRANSLATE_NOOP("core", "{what} {v} is absurdly large"), what=what, v=v)
            )
        out.append(v)
    return tuple(out)


def _already_valid(spec: ParamSpec, value) -> bool:
    """True for a value that is already of the parameter's type and in range (what a plan file
    loads and what the table stores): the common case skips parsing."""
    t = spec.type
    if t == "int" or t == "ints":
        lo = spec.minimum if spec.minimum is not None else (0 if t == "int" else 1)
        if type(value) is int:
            return lo <= value <= _MAX_DIM
        return (t == "ints" and type(value) is tuple and len(value) > 1
                and all(type(v) is int and lo <= v <= _MAX_DIM for v in value))
    if t == "bool":
        return type(value) is bool
    if t == "choice":
        return type(value) is str and value in spec.choices
    if t == "padding":
        return (value == "valid" or value == "same"
                or (type(value) is int and 0 <= value <= _MAX_DIM))
    return False


def coerce_param(spec: ParamSpec, value):
    """Turn a value from JSON or a text field into the parameter's type, or raise LayerError."""
    if _already_valid(spec, value):
        return value
    what = spec.name
    t = spec.type
    if value is None or (isinstance(value, str) and not value.strip()):
        if spec.optional:
            return None
        if t == "refs":
            return ()
        raise LayerError(Msg(QT_TRANSLATE_NOOP("core", "{what} is required"), what=what))
    if t == "int":
        if isinstance(value, (list, tuple)) and len(value) != 1:
            raise LayerError(Msg(QT_TRANSLATE_NOOP("core", "{what} must be one number"), what=what))
        return parse_ints(value, minimum=int(spec.minimum or 0), what=what)[0]
    if t == "float":
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise LayerError(
                Msg(
                    QT_TRANSLATE_NOOP("core", "{what} '{value}' is not a number"),
                    what=what,
                    value=value,
                )
            ) from None
        if not math.isfinite(v):
            raise LayerError(Msg(QT_TRANSLATE_NOOP("core", "{what} must be finite"), what=what))
        if spec.minimum is not None and v < spec.minimum:
            raise LayerError(
                Msg(
                    QT_TRANSLATE_NOOP("core", "{what} {v} is below {minimum}"),
                    what=what,
                    v=v,
                    minimum=spec.minimum,
                )
            )
        if spec.maximum is not None and v > spec.maximum:
            raise LayerError(
                Msg(
                    QT_TRANSLATE_NOOP("core", "{what} {v} is above {maximum}"),
                    what=what,
                    v=v,
                    maximum=spec.maximum,
                )
            )
        return v
    if t == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, (int, float)) and value in (0, 1):
            return bool(value)
        if isinstance(value, str) and value.strip().lower() in ("true", "yes", "1", "on"):
            return True
        if isinstance(value, str) and value.strip().lower() in ("false", "no", "0", "off"):
            return False
        raise LayerError(
            Msg(
                QT_TRANSLATE_NOOP("core", "{what} must be true or false, not {value!r}"),
                what=what,
                value=value,
            )
        )
    if t == "choice":
        v = str(value).strip().lower()
        if v not in spec.choices:
            raise LayerError(
                Msg(
                    QT_TRANSLATE_NOOP("core", "{what} '{value}' is not one of {choices}"),
                    what=what,
                    value=value,
                    choices=", ".join(spec.choices),
                )
            )
        return v
    if t in ("ints", "shape"):
        v = parse_ints(
            value, minimum=int(spec.minimum if spec.minimum is not None else 1), what=what
        )
        if t == "shape":
            return v
        return v[0] if len(v) == 1 else v
    if t == "padding":
        if isinstance(value, str) and value.strip().lower() in ("valid", "same"):
            return value.strip().lower()
        v = parse_ints(value, minimum=0, what=what)
        return v[0] if len(v) == 1 else v
    if t == "ref":
        if not isinstance(value, str):
            raise LayerError(Msg(QT_TRANSLATE_NOOP("core", "{what} must name a layer"), what=what))
        return value.strip()
    if t == "refs":
        if isinstance(value, str):
            return tuple(r.strip() for r in value.split(",") if r.strip())
        if isinstance(value, (list, tuple)) and all(isinstance(r, str) for r in value):
            return tuple(r.strip() for r in value)
        raise LayerError(Msg(QT_TRANSLATE_NOOP("core", "{what} must list layer names"), what=what))
    raise LayerError(
        Msg(QT_TRANSLATE_NOOP("core", "{what}: unknown parameter type {t}"), what=what, t=t)
    )  # pragma: no cover


def format_param(spec: ParamSpec, value) -> str:
    """How a parameter reads in the layer table."""
    if value is None:
        return ""
    if spec.type == "shape":
        return shape_str(tuple(value))
    if isinstance(value, (list, tuple)):
        if spec.type == "refs":
            return ", ".join(value)
        return "×".join(str(v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
