"""Rules of normalisation (batch, layer, RMS), activation, dropout and softmax layers.

Each module of a family lists its kinds in ``LAYER_RULES``; ``rules.py`` composes them.
"""

from __future__ import annotations


from planner.core.layers.shapes import (
    ACT,
    F32,
    F32_FIXED,
    MASK,
    LayerError,
    LayerResult,
    SavedTensor,
    numel,
    shape_str,
)
from planner.core.layers.shapes import NO_WORKSPACE as _NO_WORKSPACE
from planner.core.layers.shapes import new_result as _new_result
from planner.core.layers.shapes import new_saved as _new_saved
from planner.core.layers.schema import LayerRule
from planner.core.layers.schema import param as _p
from planner.i18n import QT_TRANSLATE_NOOP, Msg


ACTIVATIONS = ("relu", "leaky_relu", "gelu", "silu", "sigmoid", "tanh", "relu6", "hardswish",
               "hardsigmoid", "gelu_new", "elu", "selu", "celu", "softplus", "mish")
# Hugging Face's NewGELUActivation (GPT-2's "gelu_new"): 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
# written as separate ops, which keep x (pow), the tanh output, 0.5·x and 1 + tanh.
_COMPOSITE_KEEPS = {"gelu_new": 3}
# Functions whose backward needs the output (so in-place is free) vs the input.
_KEEPS_OUTPUT = {"relu", "sigmoid", "tanh"}
# leaky_relu_ (and the ELUs in place) keep their result; the others need their original input
# (ELU, SELU, CELU, Softplus and Mish out of place too), so in place they
# keep a copy of it (autograd saves the input before it is overwritten).
# (elu_, selu_ and celu_ too: their backward reads the result, ``is_result=True``)
_INPLACE_KEEPS_OUTPUT = _KEEPS_OUTPUT | {"leaky_relu", "elu", "selu", "celu"}


def _batchnorm(params, ins):
    # (C,) per sample is BatchNorm1d on (N, C) (MLP heads, LeViT): statistics over the batch
    x = ins[0]
    if len(x) < 1:
        raise LayerError(
            Msg(
                QT_TRANSLATE_NOOP("core", "needs a channel dimension, got {shape}"),
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
    affine = params.get("affine", True)
    learned = (2 if params.get("bias", True) else 1) * last if affine else 0
    saved = (SavedTensor("input", n), SavedTensor("own", 2 * rows, F32))
    if params.get("implementation") == "eager":
        # Written out in Python (DeBERTa's and ConvNeXt's LayerNorm: u = x.mean(-1);
        # s = (x - u).pow(2).mean(-1); x = (x - u) / sqrt(s + eps); weight * x + bias): the
        # square and the quotient each keep their own x - u, the quotient the std per row,
        # the product with the weight the normalised tensor (not its input)
        saved = (SavedTensor("own", n), SavedTensor("own", n), SavedTensor("own", rows, F32))
        if affine and not params.get("frozen"):
            saved += (SavedTensor("own", n),)
    return LayerResult(
        out_shape=x,
        parameters=learned,
        flops_fwd=5 * n,
        flops_bwd=8 * n,
        saved=saved,
        weight_elements=learned,
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
    "elu": 4,
    "selu": 4,
    "celu": 4,
    "softplus": 4,
    "mish": 8,
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


LAYER_RULES: tuple[LayerRule, ...] = (
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
        (
            _p(
                "bias",
                "bool",
                True,
                QT_TRANSLATE_NOOP(
                    "core", "A learned shift besides the scale (off: LayerNorm(bias=False), "
                    "as in ModernBERT and OLMo)."
                ),
            ),
            _p(
                "affine",
                "bool",
                True,
                QT_TRANSLATE_NOOP(
                    "core", "A learned scale and shift (off: "
                    "LayerNorm(elementwise_affine=False), as DiT's adaptive norms: no "
                    "parameters)."
                ),
            ),
            _p("implementation", "choice", "fused", QT_TRANSLATE_NOOP(
                "core", "fused (torch.nn.LayerNorm: keeps its input, mean and 1/std) or eager "
                        "(written out in Python, as DeBERTa's: keeps x - mean twice, the std "
                        "and the normalised tensor)."),
               choices=("fused", "eager")),
        ),
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
)
