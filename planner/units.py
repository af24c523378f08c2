"""Byte and rate formatting. Bytes stay ints until they become a label.

MiB and GiB are binary units, as nvidia-smi shows memory.
"""

from __future__ import annotations

import math

KIB = 1024
MIB = 1024**2
GIB = 1024**3


_BINARY = ((GIB, "GiB", 1), (MIB, "MiB", 0), (KIB, "KiB", 0))
_DECIMAL = ((1000**4, "TB", 1), (1000**3, "GB", 1), (1000**2, "MB", 0), (1000, "kB", 0))


def _format(n, precision: int, steps) -> str:
    if n is None or (isinstance(n, float) and math.isnan(n)):
        return "N/A"
    sign = "-" if n < 0 else ""
    n = abs(n)
    for size, unit, extra in steps:
        if n >= size:
            return f"{sign}{n / size:.{precision + extra}f} {unit}"
    return f"{sign}{int(n)} B"


def format_bytes(n: int | float | None, *, precision: int = 1) -> str:
    """A byte count as nvidia-smi would show it: B, KiB, MiB or GiB."""
    return _format(n, precision, _BINARY)


def format_bytes_si(n: int | float | None, *, precision: int = 1) -> str:
    """A byte count in SI units (kB, MB, GB, TB), laid out like ``format_bytes``."""
    return _format(n, precision, _DECIMAL)


def format_mib(n: int | None) -> str:
    """Whole MiB, the way nvidia-smi prints memory columns ("8192MiB")."""
    if n is None:
        return "N/A"
    return f"{round(n / MIB):,} MiB"


def format_count(n: int | float | None) -> str:
    """Parameters or FLOPs with an SI suffix: 1.2 k, 3.4 M, 5.6 G, 7.8 T."""
    if n is None:
        return "N/A"
    for div, suffix in ((1e12, " T"), (1e9, " G"), (1e6, " M"), (1e3, " k")):
        if abs(n) >= div:
            return f"{n / div:.2f}{suffix}"
    return f"{int(n)}"


def gib_to_bytes(gib: float) -> int:
    return int(round(gib * GIB))


def format_pct(p: float | None) -> str:
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "N/A"
    return f"{p:.0f}%"
