"""The error band a speed is shown with: what the benchmarks measured for that kind of card.

A band is the range of measured ÷ predicted training throughput over the benchmark rows of one
**kind of card** (its compute capability: one SM design, e.g. 8.6 for every GA10x card from the
RTX 3050 to the A10 and RTX A6000) **in one precision**, on the hardware path that precision
takes there (the FP32 cores, TF32 or FP16 tensor cores, 16-bit storage on the FP32 cores), as
``benchmarks/speed_accuracy.py --write-bands`` derives it into ``data/speed-bands.json`` from
the calibration set (``speed-calibration.csv``) and the held-out rows (``speed-holdout-*.csv``),
separately for CNNs and transformers (``network_class``: the BERT rows'
``speed-holdout-bert.csv`` err differently from the CNNs' on the same cards).
Each side is the farthest measured row, never closer than the model's typical error over all
rows (``floor_pct``: a class measured on one or two rows gets at least the spread the model
shows everywhere), rounded outward to a whole percent. One-sided errors give asymmetric bands:
RTX 4090-class cards (8.9) in mixed precision measure up to 44 % above the figure, so their
band reads "−14 / +45 %".

Where the class was never measured in a precision, a neighbouring precision that runs on the
same path stands in (``FALLBACK``: fp16 for autocast, fp32 for TF32 where both run on the TF32
tensor cores, FP16 for BF16 tensor cores, which run at the same datasheet rate on every card
that has both); where none does, there is no band and the speed says so (``speed_notes``).
Qt-free; reads its data file once.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache

from planner import paths

FILENAME = "speed-bands.json"

# Precisions whose band may stand in for another's on the same hardware path, nearest first.
FALLBACK = {
    "fp32": ("tf32", "fp32_strict"),
    "tf32": ("fp32", "fp32_strict"),
    "fp32_strict": ("fp32", "tf32"),
    "mixed": ("fp16", "mixed_bf16", "bf16"),
    "fp16": ("mixed", "bf16", "mixed_bf16"),
    "mixed_bf16": ("mixed", "bf16", "fp16"),
    "bf16": ("fp16", "mixed_bf16", "mixed"),
}


def path_kind(label: str) -> str:
    """The hardware path a band is measured on: BF16 tensor cores count as FP16 ones (the same
    dense rate with FP32 accumulate on every Ampere and newer card: the whitepapers)."""
    return label.replace("(BF16)", "(FP16)")


@dataclass(frozen=True)
class Band:
    """Measured throughput lies within [figure × (1 + low_pct/100), figure × (1 +
    high_pct/100)] on the benchmark rows of this kind of card and precision."""

    low_pct: int  # ≤ 0: how far below the figure the measured throughput went
    high_pct: int  # ≥ 0: how far above
    compute_capability: str = ""
    precision: str = ""  # the precision measured (another one where it stands in)
    rows: int = 0
    cards: int = 0
    # The rows' own extremes (before the floor) and the floor: what a ratio of two cards of
    # this one kind can be off by (``over``).
    measured_low_pct: int = 0
    measured_high_pct: int = 0
    floor_pct: int = 0
    # How far apart two cards of this kind measured on one workload (network, precision,
    # layout, framework): the most one card's measured ÷ predicted exceeded another's, as a
    # percent; None where no workload was measured on two cards of the kind.
    card_spread_pct: int | None = None

    def text(self) -> str:
        """'±14 %' where both sides agree, else '−14 / +45 %'."""
        if -self.low_pct == self.high_pct:
            return f"±{self.high_pct} %"
        return f"−{-self.low_pct} / +{self.high_pct} %"

    @property
    def magnitude(self) -> float:
        """The wider side, as a fraction (0.45): the single figure older exports carry."""
        return max(-self.low_pct, self.high_pct) / 100

    def covers(self, predicted: float, measured: float) -> bool:
        r = measured / predicted - 1
        return self.low_pct / 100 - 1e-9 <= r <= self.high_pct / 100 + 1e-9

    def over(self, other: Band) -> Band:
        """The band of the ratio of two speeds (this card's ÷ ``other``'s: "3.1× your RTX
        3060"). Cards of two kinds: each anywhere within its band, the ratio's measured value
        can lie between (1 + low) ÷ (1 + other's high) and (1 + high) ÷ (1 + other's low). Two
        cards of one kind (the same band) share its bias on one workload: their ratio is off by
        at most what two cards of the kind measured apart on one workload (``card_spread_pct``:
        the same network, precision, layout and framework, so the bias of the network or the
        software cancels too), each side at least the floor; where no workload was measured on
        two of its cards, by what the measured rows' extremes are to each other, (1 + measured
        low) ÷ (1 + measured high) to its inverse."""
        if self == other and self.card_spread_pct is not None:
            hi = self.card_spread_pct / 100
            lo = 1 / (1 + hi) - 1
            lo, hi = min(lo, -self.floor_pct / 100), max(hi, self.floor_pct / 100)
        elif self == other:
            lo = (1 + self.measured_low_pct / 100) / (1 + self.measured_high_pct / 100) - 1
            hi = (1 + self.measured_high_pct / 100) / (1 + self.measured_low_pct / 100) - 1
            lo, hi = min(lo, -self.floor_pct / 100), max(hi, self.floor_pct / 100)
        else:
            lo = (1 + self.low_pct / 100) / (1 + other.high_pct / 100) - 1
            hi = (1 + self.high_pct / 100) / (1 + other.low_pct / 100) - 1
        return Band(outward(lo, down=True), outward(hi, down=False), self.compute_capability,
                    self.precision, self.rows + other.rows, self.cards + other.cards,
                    floor_pct=max(self.floor_pct, other.floor_pct))


def outward(fraction: float, *, down: bool) -> int:
    """A fraction as a whole percent, rounded away from the figure (a band never narrows)."""
    pct = fraction * 100
    return math.floor(pct + 1e-9) if down else math.ceil(pct - 1e-9)


@lru_cache(maxsize=1)
def table() -> dict[tuple[str, str, str, str], Band]:
    """(compute capability, precision, path kind, network class) → Band, from
    ``data/speed-bands.json`` (an entry without ``network_class`` is a CNN band)."""
    try:
        raw = json.loads(paths.data_path(FILENAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    out = {}
    floor = int(raw.get("floor_pct", 0))
    for e in raw.get("bands", []):
        out[(e["compute_capability"], e["precision"], path_kind(e["path"]),
             e.get("network_class", "cnn"))] = Band(
            int(e["low_pct"]), int(e["high_pct"]), e["compute_capability"], e["precision"],
            int(e["rows"]), int(e["cards"]), int(e["measured_low_pct"]),
            int(e["measured_high_pct"]), floor,
            None if e.get("card_spread_pct") is None else int(e["card_spread_pct"]))
    return out


def band_for(compute_capability: str, precision: str, path_label: str,
             network_class: str = "cnn") -> Band | None:
    """The band of a card of ``compute_capability`` in ``precision`` on the path labelled
    ``path_label`` (``speed.Rates.conv.label``; a transformer's: its GEMMs'), from the rows
    of ``network_class`` (CNN or transformer: their errors differ, so neither stands in for
    the other); None where no benchmark measured that kind of card on that path."""
    bands = table()
    kind = path_kind(path_label)
    for p in (precision, *FALLBACK.get(precision, ())):
        b = bands.get((compute_capability, p, kind, network_class))
        if b is not None:
            return b
    return None
