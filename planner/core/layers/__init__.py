"""Layer specifications: parameters, shape rules, parameter counts, FLOPs, saved-for-backward.

A layer is a ``LayerSpec``: a kind (``conv2d``), a unique name (``conv1``) and its parameters.
Shapes are per sample (no batch dimension) and channel-first:

* images ``(C, H, W)``; video/volumes ``(C, T, H, W)``; sequences ``(T, F)``; vectors ``(F,)``.

Everything that a layer does to memory is described by ``LayerRule.apply``: the output shape, the
parameter count, the FLOPs, and which tensors the framework keeps for the backward pass. The rules
follow what PyTorch's autograd saves (``derivatives.yaml``) on CUDA:

* convolution and fully connected keep their input;
* ReLU, sigmoid and tanh keep their output; GELU, SiLU, LeakyReLU, ReLU6 (hardtanh), Hardswish,
  Hardsigmoid, ELU, SELU, CELU, Softplus and Mish keep their input. In place, ReLU, sigmoid,
  tanh, LeakyReLU and the ELUs keep the output (the same storage); the others keep a copy of
  their input, made before it is overwritten;
* batch norm keeps its input plus per-channel mean and inverse std (fp32, not per sample);
* layer norm keeps its input plus a mean and inverse std per normalised row (fp32);
* max pooling keeps its input and int64 indices of the output's shape;
* average pooling keeps its input; global average pooling (PyTorch's mean()) keeps nothing;
* an LSTM keeps its input, cuDNN's reserve space and its whole output sequence;
* dropout keeps a one-byte mask of its output's shape;
* residual add, concat, flatten and nearest/bilinear upsampling keep nothing.

The kinds of modern networks (what imported graphs need) follow derivatives.yaml too:

* view (reshape, permute, slice, select, squeeze): a view of its input, keeps nothing;
* matmul of two activations (attention's q·kᵀ and p·v): keeps both operands;
* softmax: keeps its output;
* RMSNorm: keeps its input and one fp32 inverse RMS per normalised row;
* embedding: keeps the token ids it read (its input);
* scaled-dot-product attention (a fused kernel): keeps q, k, v, its output and one fp32
  logsumexp per query row and head;
* einsum of activations: keeps every operand;
* where / masked_fill: keeps a one-byte mask of its output's shape;
* element-wise with a learned tensor (layer scale, position embedding): the learned tensor's
  elements are parameters; what it keeps depends on the operation ('keeps').

The package by concern: ``shapes`` (what a rule returns), ``schema`` (parameter specs and
``LayerRule``), ``params`` (parsing and checking parameter values), the rules by family (``conv``,
``norm_act``, ``dense``, ``attention``, ``ops``), ``rules`` (the table composed from them) and
``spec`` (``LayerSpec``). This module exports the names callers use.

No I/O, no Qt, no work at import time beyond building the rule table.
"""

from planner.core.layers.attention import ATTENTION_IMPLEMENTATIONS, MEM_EFFICIENT_LSE_ALIGN
from planner.core.layers.dense import (
    INT8_ROW,
    NF4_BLOCK,
    NF4_DQ_BLOCK,
    QUANT_FORMATS,
    quantized_bytes,
)
from planner.core.layers.norm_act import ACTIVATIONS
from planner.core.layers.ops import ELEMENTWISE_OPS, KEEPS
from planner.core.layers.params import (
    MAX_DIM,
    MAX_PARAM_INT,
    PARAM_LABELS,
    coerce_param,
    format_param,
    param_label,
    parse_ints,
)
from planner.core.layers.rules import (
    FREEZABLE_KINDS,
    FROZEN_PARAM,
    INPUT_PARAM,
    KINDS,
    MULTI_INPUT_KINDS,
    OMIT_AT_DEFAULT,
    RULES,
    WIRING_PARAMS,
)
from planner.core.layers.schema import LayerRule, ParamSpec
from planner.core.layers.shapes import (
    ACT,
    F32,
    F32_FIXED,
    I64,
    MASK,
    LayerError,
    LayerResult,
    SavedTensor,
    Shape,
    numel,
    shape_str,
)
from planner.core.layers.spec import LayerSpec

__all__ = [
    "ACT", "ACTIVATIONS", "ATTENTION_IMPLEMENTATIONS", "ELEMENTWISE_OPS", "F32", "F32_FIXED",
    "FREEZABLE_KINDS", "FROZEN_PARAM", "I64", "INPUT_PARAM", "INT8_ROW", "KEEPS", "KINDS", "MASK",
    "MAX_DIM", "MAX_PARAM_INT", "MEM_EFFICIENT_LSE_ALIGN", "MULTI_INPUT_KINDS", "NF4_BLOCK",
    "NF4_DQ_BLOCK", "OMIT_AT_DEFAULT", "PARAM_LABELS", "QUANT_FORMATS", "RULES", "WIRING_PARAMS",
    "LayerError", "LayerResult", "LayerRule", "LayerSpec", "ParamSpec", "SavedTensor", "Shape",
    "coerce_param", "format_param", "numel", "param_label", "parse_ints", "quantized_bytes",
    "shape_str",
]
