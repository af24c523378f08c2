"""Rules of fully connected layers (with LoRA and quantised frozen weights) and recurrent
layers (LSTM, GRU).

Each module of a family lists its kinds in ``LAYER_RULES``; ``rules.py`` composes them.
"""

from __future__ import annotations


from planner.core.layers.shapes import (
    LayerError,
    LayerResult,
    SavedTensor,
    numel,
    shape_str,
)
from planner.core.layers.schema import LayerRule
from planner.core.layers.schema import param as _p
from planner.i18n import QT_TRANSLATE_NOOP, Msg


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
    # PyTorch's LSTM(proj_size=p): the hidden state is projected to p (weight_hr, p × h) at
    # every step; the output, the recurrent input and the next layer's input are p wide. The
    # projection keeps its h-wide input per step for its weight's gradient.
    proj = int(params.get("proj", 0) or 0)
    width = proj or h  # what each step outputs
    dirs = 2 if params["bidirectional"] else 1
    total, macs, in_l = 0, 0, fin
    for _ in range(layers):
        total += (gates * h * (in_l + width) + 2 * gates * h + proj * h) * dirs
        macs += dirs * steps * (gates * h * (in_l + width) + proj * h)
        in_l = width * dirs
    out = (steps, width * dirs) if params["return_sequences"] else (width * dirs,)
    reserve = layers * steps * dirs * reserve_per_unit * h + (layers - 1) * steps * width * dirs
    if proj:
        reserve += layers * steps * dirs * h
    fwd = 2 * macs + pointwise * layers * steps * dirs * h
    # The whole output sequence is kept too; returning the last step only is a view of it.
    sequence = (
        SavedTensor("output", steps * width * dirs)
        if params["return_sequences"]
        else SavedTensor("own", steps * width * dirs)
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


# LSTM and GRU take the same parameters.
_RNN_PARAMS = (
    _p("hidden", "int", 128, QT_TRANSLATE_NOOP("core", "Hidden units."), minimum=1),
    _p("layers", "int", 1, QT_TRANSLATE_NOOP("core", "Stacked layers."), minimum=1),
    _p("bidirectional", "bool", False, QT_TRANSLATE_NOOP("core", "Run both directions.")),
    _p("return_sequences", "bool", True,
       QT_TRANSLATE_NOOP("core", "Output every step (T×H) or only the last (H).")),
)


_LSTM_PARAMS = _RNN_PARAMS + (
    _p("proj", "int", 0, QT_TRANSLATE_NOOP(
        "core", "Projection size (PyTorch's proj_size; 0 = none): each step's hidden state is "
                "projected to this width, which the output and the next step read."),
       minimum=0),
)


def _gru(params, ins):
    return _recurrent(params, ins, gates=3, reserve_per_unit=5, pointwise=8)


LAYER_RULES: tuple[LayerRule, ...] = (
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
        "lstm",
        QT_TRANSLATE_NOOP("core", "LSTM"),
        _LSTM_PARAMS,
        _lstm,
        QT_TRANSLATE_NOOP(
            "core", "LSTM over a T×F sequence (T = sequence length, set on the input)."
        ),
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
)
