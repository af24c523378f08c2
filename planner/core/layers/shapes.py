"""What a rule says of one layer: ``LayerResult``, the tensors it keeps (``SavedTensor``) and
their storage classes, ``LayerError``, and shape helpers."""

from __future__ import annotations

import math
from functools import partial
from types import MappingProxyType
from collections.abc import Mapping as _MappingABC
from typing import Callable, Mapping, NamedTuple

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
# What a rule returns
# --------------------------------------------------------------------------------------------


class SavedTensor(NamedTuple):
    """A tensor kept for backward. ``source`` says which: 'input' (input 0), 'input:k', 'output'
    or 'own' (a new tensor of this layer: indices, masks, statistics, LSTM reserve)."""

    source: str
    elements: int  # per sample
    storage: str = ACT


# The convolution algorithm families whose workspace a convolution's rule gives, in order.
WORKSPACE_ALGORITHMS = ("implicit_gemm", "im2col", "fft", "winograd")
_WS_INDEX = {name: k for k, name in enumerate(WORKSPACE_ALGORITHMS)}


class Workspace(_MappingABC):
    """A convolution's workspace candidates (``LayerResult.workspace``): a read-only mapping
    of algorithm → (elements per sample, constant elements), held as one row of whole numbers
    (a deep draft has hundreds of convolutions: one object each instead of a dict and a tuple
    per algorithm). ``row``: per algorithm of ``WORKSPACE_ALGORITHMS`` its two numbers, those
    of ``implicit_gemm`` for an algorithm it does not have; ``count``: how many algorithms it
    has (the first ``count``: Winograd, the last, only for the convolutions it serves)."""

    __slots__ = ("row", "count")

    def __init__(self, row: tuple[int, ...], count: int) -> None:
        self.row = row
        self.count = count

    def __getitem__(self, name: str) -> tuple[int, int]:
        k = _WS_INDEX[name]
        if k >= self.count:
            raise KeyError(name)
        row = self.row
        return row[2 * k], row[2 * k + 1]

    def __iter__(self):
        return iter(WORKSPACE_ALGORITHMS[:self.count])

    def __len__(self) -> int:
        return self.count

    def __repr__(self) -> str:
        return repr(dict(self.items()))

    def __reduce__(self):
        return (Workspace, (self.row, self.count))


def new_workspace(row: tuple[int, ...], count: int) -> Workspace:
    """``Workspace(row, count)`` without its ``__init__`` call (the convolution rules make
    hundreds)."""
    ws = _new_object(Workspace)
    ws.row = row
    ws.count = count
    return ws


_new_object = object.__new__


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
new_result = partial(tuple.__new__, LayerResult)
new_saved = partial(tuple.__new__, SavedTensor)
NO_WORKSPACE = LayerResult._field_defaults["workspace"]
if LayerResult._fields[8:] != ("weight_elements", "note", "parallel_elements",
                               "sequential_steps", "frozen_parameters", "quantized_elements",
                               "quantized_bytes", "tied_elements") \
        or len(SavedTensor._fields) != 3:
    raise RuntimeError("LayerResult or SavedTensor changed: update the rows new_result and "
                       "new_saved are given")  # pragma: no cover


def shape_str(shape: Shape | None) -> str:
    if shape is None:
        return "?"
    return "×".join(str(d) for d in shape)


def refs_needed(ins: list[Shape], count: int) -> None:
    if len(ins) < count:
        raise LayerError(
            Msg(QT_TRANSLATE_NOOP("core", "needs {n} layer(s) named in 'from'"), n=count - 1)
        )
