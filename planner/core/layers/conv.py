"""Rules of convolution, transposed convolution, pooling and upsampling layers.

Each module of a family lists its kinds in ``LAYER_RULES``; ``rules.py`` composes them.
"""

from __future__ import annotations

import math
from functools import partial

from planner.core.layers.shapes import (
    ACT,
    F32_FIXED,
    I64,
    LayerError,
    LayerResult,
    SavedTensor,
    Shape,
    numel,
    shape_str,
)
from planner.core.layers.shapes import new_result as _new_result
from planner.core.layers.shapes import new_workspace as _new_workspace
from planner.core.layers.shapes import new_saved as _new_saved
from planner.core.layers.schema import LayerRule
from planner.core.layers.schema import param as _p
from planner.i18n import QT_TRANSLATE_NOOP, Msg


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
# Weight standardisation (timm's StdConv2d and ScaledStdConv2d: NF-Nets, BiT ResNets): the
# weight is standardised per filter in every step, a new tensor the convolution keeps.
_STANDARDIZED_PARAM = _p(
    "standardized", "choice", "none", QT_TRANSLATE_NOOP(
        "core", "Weight standardisation: none; plain (the weight normalised per filter in "
        "every step, a copy the layer keeps for backward); gain (also a learned gain per "
        "filter: NF-Nets)."), choices=("none", "plain", "gain"))
# Weight normalisation (nn.utils.parametrizations.weight_norm: Wav2Vec2's positional
# convolution): weight = g · v / ‖v‖, computed in every step, a new tensor the layer keeps.
_WEIGHT_NORM_PARAM = _p(
    "weight_norm", "int", 0, QT_TRANSLATE_NOOP(
        "core", "Weight normalisation (weight_norm): elements of the learned magnitude g "
        "besides the direction v (0 = none); the weight g·v/|v| is computed in every step, a "
        "copy the layer keeps for backward."), minimum=0)
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


def _conv2d(general, params, ins: list[Shape]) -> LayerResult | None:
    """The 2-D convolution rule (``general``: the general rule, ``_conv(2)``'s). Given one whole
    number each for kernel, stride, padding and dilation (what the layer table and plan files
    hold) on a C×H×W input that fits it, the result is worked out inline, in this call (a
    deep draft has hundreds of them); anything else goes to ``general`` (None: gives None),
    which names any problem. The same result as the general rule, field for field."""
    x = ins[0]
    kernel, stride, padding, dilation = (params["kernel"], params["stride"], params["padding"],
                                         params["dilation"])
    if len(x) != 3 or type(kernel) is not int or type(stride) is not int \
            or type(dilation) is not int or type(padding) is not int or padding < 0 \
            or kernel <= 0 or stride <= 0 or (params.get("standardized") or "none") != "none":
        # (a weight-standardised convolution keeps more: the general rule)
        return general(params, ins) if general is not None else None
    cin, h, w = x
    filters, groups = params["filters"], params["groups"]
    if type(filters) is not int or type(groups) is not int:
        filters, groups = int(filters), int(groups)
    ek = dilation * (kernel - 1) + 1
    hp, wp = h + 2 * padding, w + 2 * padding
    if cin % groups or filters % groups or ek > hp or ek > wp:
        return general(params, ins) if general is not None else None
    oh, ow = (hp - ek) // stride + 1, (wp - ek) // stride + 1
    kvol = kernel * kernel
    per_group = cin // groups
    weight_n = filters * per_group * kvol
    out_n = filters * oh * ow
    if params["bias"]:
        params_n, fwd = weight_n + filters, 2 * out_n * per_group * kvol + out_n
    else:
        params_n, fwd = weight_n, 2 * out_n * per_group * kvol
    fft_sp = hp * (wp // 2 + 1)
    if kernel == 3 and stride == 1 and dilation == 1 and groups == 1:  # Winograd F(2x2, 3x3)
        ws = _new_workspace((0, 0, oh * ow * per_group * kvol * groups, 0,
                             (cin + filters) * fft_sp * 2, filters * per_group * fft_sp * 2,
                             (cin + filters) * (-(-oh // 2) * -(-ow // 2)) * 16,
                             filters * cin * 16), 4)
    else:
        ws = _new_workspace((0, 0, oh * ow * per_group * kvol * groups, 0,
                             (cin + filters) * fft_sp * 2, filters * per_group * fft_sp * 2,
                             0, 0), 3)
    return _new_result(((filters, oh, ow), params_n, fwd, 2 * fwd,
                        (_new_saved(("input", cin * h * w, ACT)),),
                        False, False, ws, params_n, "", 0, 1, 0, 0, 0, 0))


def _conv2d_plain(params, x: Shape) -> LayerResult | None:
    """The inline path of the 2-D convolution rule alone: its result, or None where the
    general rule would be asked."""
    return _conv2d(None, params, [x])


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
        # FFT: complex transforms of input and output at the padded size, and of the filters
        # (the last dimension's real transform keeps half of it, plus one).
        if dims == 2:
            fft_sp = (sp[0] + pads[0]) * ((sp[1] + pads[1]) // 2 + 1)
        else:
            fft_sp = 1
            for i in range(dims):
                v = sp[i] + pads[i]  # the padded size
                fft_sp *= (v // 2 + 1) if i == dims - 1 else v
        # Workspace (elements) by algorithm family; per sample and constant parts. im2col /
        # explicit GEMM: the unfolded input matrix (columns duplicated per kernel tap).
        row = (0, 0, sp_n * per_group * kvol * groups, 0,
               (cin + filters) * fft_sp * 2, filters * per_group * fft_sp * 2)
        # Winograd F(2x2, 3x3): 4x4 tiles of every 2x2 output patch, for 3x3 stride-1 only.
        if dims == 2 and k == (3, 3) and s == (1, 1) and d == (1, 1) and groups == 1:
            tiles = math.ceil(out_sp[0] / 2) * math.ceil(out_sp[1] / 2)
            ws = _new_workspace(row + ((cin + filters) * tiles * 16, filters * cin * 16), 4)
        else:
            ws = _new_workspace(row + (0, 0), 3)
        saved = (_new_saved(("input", math.prod(x), ACT)),)
        standardized = params.get("standardized") or "none"
        if standardized != "none":
            # The standardised weight and its per-filter mean and 1/std, once per step.
            saved += (_new_saved(("own", filters * per_group * kvol + 2 * filters,
                                  F32_FIXED)),)
            if standardized == "gain":
                params_n += filters
        magnitude = int(params.get("weight_norm") or 0)
        if magnitude:
            # the computed weight, and the norms of v (one per magnitude element), once a step
            saved += (_new_saved(("own", filters * per_group * kvol + magnitude, F32_FIXED)),)
            params_n += magnitude
        return _new_result((out, params_n, fwd, 2 * fwd, saved,
                            False, False, ws, params_n, "", 0, 1, 0, 0, 0, 0))

    return rule


def _spatial_input(x: Shape) -> None:
    """Pooling and upsampling work on images (C×H×W) and videos (C×T×H×W)."""
    if len(x) not in (3, 4):
        raise LayerError(
            Msg(
                QT_TRANSLATE_NOOP("core", "needs a C×H×W or C×T×H×W input, got {shape}"),
                shape=shape_str(x),
            )
        )


def _pool_common(params, x: Shape, kind: str):
    _spatial_input(x)
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
    _spatial_input(x)
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


def _upsample(params, ins):
    x = ins[0]
    _spatial_input(x)
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


LAYER_RULES: tuple[LayerRule, ...] = (
    LayerRule(
        "conv2d",
        QT_TRANSLATE_NOOP("core", "Conv 2D"),
        _CONV_PARAMS + (_STANDARDIZED_PARAM, _WEIGHT_NORM_PARAM),
        partial(_conv2d, _conv(2)),
        QT_TRANSLATE_NOOP("core", "2-D convolution; keeps its input for backward."),
    ),
    LayerRule(
        "conv3d",
        QT_TRANSLATE_NOOP("core", "Conv 3D"),
        _CONV_PARAMS + (_STANDARDIZED_PARAM, _WEIGHT_NORM_PARAM),
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
)
