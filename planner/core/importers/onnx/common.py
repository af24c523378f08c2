"""What the importer's parts share: its limits, the element types, the operators that apply
learned weights, its failure, and small helpers."""

from __future__ import annotations

import re

DEFAULT_BATCH = 32
DEFAULT_SEQUENCE = 128  # a token input whose length the file leaves open
SMALL_ELEMENTS = 4096  # initializers with at most this many elements keep their values
MAX_ELEMENTS = 1 << 40  # one tensor larger than this is not a real network
MAX_INFERENCE_ROUNDS = 64
MAX_UNKNOWN_OPS = 200  # shape-unknown operators assumed to keep their input's shape
MAX_UNMERGED = 10_000  # operations the optimiser merged that are planned again
MAX_DATA_INPUTS = 60  # inputs weighed as data inputs (one bit each); the rest taken as given
# Operators that apply learned weights: what an input must reach on its own to be followed.
# Products and convolutions count with a weight matrix or kernel (two axes above 1), not with a
# vector (a rotary table's inverse frequencies times position ids); norms with their scale.
LEARNED_OPS = frozenset({
    "MatMul", "Gemm", "Conv", "ConvTranspose", "LayerNormalization", "BatchNormalization",
    "InstanceNormalization", "GroupNormalization", "SimplifiedLayerNormalization",
    "RMSNormalization", "SkipLayerNormalization", "LSTM", "GRU", "RNN", "Einsum",
    "MatMulInteger", "QLinearMatMul", "QLinearConv", "Attention", "MultiHeadAttention",
    # onnxruntime's fused and quantized operators (contrib.py)
    "SkipSimplifiedLayerNormalization", "EmbedLayerNormalization", "MatMulNBits", "FusedMatMul",
    "FusedConv", "ConvInteger", "DynamicQuantizeMatMul", "GemmFastGelu"})
MATRIX_OPS = frozenset({"MatMul", "Gemm", "Conv", "ConvTranspose", "Einsum", "MatMulInteger",
                         "QLinearMatMul", "QLinearConv", "LSTM", "GRU", "RNN", "MatMulNBits",
                         "FusedMatMul", "FusedConv", "ConvInteger", "DynamicQuantizeMatMul",
                         "GemmFastGelu"})
# A node's record of the default exporter: '%name : [...] = call_function[...](args = (%x, …'
FX_RECORD = re.compile(r"%(\w+) : .*?args = \(\[?%(\w+)")
STEM = re.compile(r"_\d+$")
FX_CALL = re.compile(r"target=torch\.ops\.([\w.]+)\]\(args = \((.*)\), kwargs = ")

FLOAT_TYPES = {1, 10, 11, 16}  # float, float16, double, bfloat16
MAX_CONSTANT_WALK = 64  # nodes of a constant subgraph searched for the parameters behind it
INT_TYPES = {6, 7, 2, 3, 4, 5, 12, 13}


class ImportFailure(Exception):
    """Raised inside the importer; the caller prefixes the file name."""


def one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    msg = text[0] if text else type(exc).__name__
    return msg if len(msg) <= 200 else msg[:197] + "..."


def recalled(scope: str, first: str) -> bool:
    """``scope`` is a later call of the module whose first call has scope ``first``, as the
    legacy exporter writes it (a component 'name' becomes 'name_1', 'name_2', ...)."""
    a, b = scope.split("."), first.split(".")
    return len(a) == len(b) and all(
        x == y or (x.startswith(y + "_") and x[len(y) + 1:].isdigit()) for x, y in zip(a, b))


def flat(value) -> list:
    try:
        return list(value.reshape(-1)) if hasattr(value, "reshape") else list(value)
    except TypeError:
        return [value]


def squeezed(shape) -> tuple[int, ...]:
    return tuple(d for d in shape if d != 1)


def fx_call(node) -> tuple[str, list[str]] | None:
    """(the PyTorch operator a node of the default exporter was made from, 'aten.max.dim', and
    its positional arguments as the record writes them), or None (no record: the legacy
    exporter's file, or one an optimiser stripped)."""
    for p in node.metadata_props:
        if p.key == "pkg.torch.onnx.fx_node":
            m = FX_CALL.search(p.value[:4000])
            if m is None:
                return None
            args, depth, cur = [], 0, ""
            for ch in m.group(2):
                if ch == "," and depth == 0:
                    args.append(cur.strip())
                    cur = ""
                    continue
                depth += (ch in "([") - (ch in ")]")
                cur += ch
            if cur.strip():
                args.append(cur.strip())
            return m.group(1), args
    return None


PERCENT_CAP = 10_000  # a share above this many percent is said as "> 10,000"


def percent(part: float, whole: float, digits: int | None = None) -> str:
    """``part`` as a percentage of ``whole``, the number only (the message writes the "%"),
    readable whatever the figures: two significant digits, never an exponent, "< 0.1" for a
    small positive share and "> 10,000" above the cap or where ``whole`` is not positive (a
    share of nearly nothing says nothing a user can weigh). ``digits``: that many decimals
    between the bounds instead."""
    if part <= 0:
        return "0"
    if whole <= 0:
        return f"> {PERCENT_CAP:,}"
    r = 100.0 * part / whole
    if r > PERCENT_CAP:
        return f"> {PERCENT_CAP:,}"
    if r < 0.1:
        return "< 0.1"
    if digits is not None:
        return f"{r:,.{digits}f}"
    if r < 10:
        return f"{r:.1f}".rstrip("0").rstrip(".")
    return f"{r:,.0f}"


def release_freed_memory() -> None:
    """Give the C heap's freed pages back to the system (glibc's ``malloc_trim``). ONNX shape
    inference allocates its copy of the graph in C++ (about 300 MiB for 100,000 nodes) and
    frees it, but the heap keeps the pages, and the mapping that follows allocates its own:
    without this the 100,000-node residual net's import peaked at 1,074 MiB, with it 902 MiB.
    Elsewhere (another C library, another system) nothing is done."""
    import sys  # noqa: PLC0415

    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes  # noqa: PLC0415

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        pass
