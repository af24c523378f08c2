"""How the drafted network fits and runs on every card of the catalog.

One row per card: whether the estimated peak fits the usable memory (total less what the driver
keeps; the GTX 970 judged on its fast 3.5 GB), the headroom, the largest batch that fits, the
time per iteration and samples per second, the speed relative to a reference card, prices new
and used (dated), samples per second per dollar, and whether current software supports it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from planner.core.memory import Assumptions, max_batch_many
from planner.core.network import Analysis, InvalidDraft, NetworkDraft, Setup
from planner.core.parallel import scaling
from planner.core.plan import PlanResult
from planner.i18n import QT_TRANSLATE_NOOP, Msg
from planner.units import format_bytes

if TYPE_CHECKING:  # the catalog (and its prices) and the speed model are imported by
    # fit_table, off the start-up path (the first window needs only largest_batch)
    from planner.core.catalog import Catalog, GpuSpec, PricePoint
    from planner.core.speed import SpeedEstimate

DEFAULT_REFERENCE = "GTX 1080"


def _band_json(band) -> dict | None:
    if band is None:
        return None
    return {"low": band.low_pct / 100, "high": band.high_pct / 100,
            "compute_capability": band.compute_capability, "measured_in": band.precision,
            "rows": band.rows}


def _speed_notes(speed: SpeedEstimate) -> list[str]:
    from planner.core.speed import speed_notes  # noqa: PLC0415 (off the start-up path)

    return speed_notes(speed)

LARGEST_BATCH_EXPLAINED = QT_TRANSLATE_NOOP(
    "core", "The largest batch whose estimated peak fits in {usable}: the card's {total} less "
            "the {reserve} its driver keeps (the driver reserve, an editable assumption)")


def largest_batches(draft: NetworkDraft | Analysis, setup: Setup, memories,
                    assumptions: Assumptions | None = None, *, freed_bytes=0) -> np.ndarray:
    """The largest batch on cards with these memory sizes (their totals, as nvidia-smi shows
    them): the peak must fit what is left after the driver's reserve
    (``Assumptions.driver_reserved_bytes``). ``freed_bytes`` (one number or one per card) is
    what sharding over several GPUs frees on each, room for a larger batch. 0 where not even a
    batch of 1 fits. The one answer the fit table, the Planner pane and the CLI give."""
    a = assumptions or Assumptions()
    mem = np.asarray(memories, dtype=np.int64).reshape(-1)
    usable = np.maximum(mem - a.driver_reserved_bytes, 0)
    return max_batch_many(draft, setup, usable + np.asarray(freed_bytes, dtype=np.int64), a)


def largest_batch(draft: NetworkDraft | Analysis, setup: Setup, memory_bytes: int,
                  assumptions: Assumptions | None = None, *, freed_bytes: int = 0) -> int:
    """``largest_batches`` for one card of ``memory_bytes``."""
    return int(largest_batches(draft, setup, [memory_bytes], assumptions,
                               freed_bytes=freed_bytes)[0])


def largest_batch_explained(memory_bytes: int, assumptions: Assumptions | None = None) -> Msg:
    """What ``largest_batch`` answers, in words (the window's tooltip, the CLI)."""
    a = assumptions or Assumptions()
    reserve = a.driver_reserved_bytes
    return Msg(LARGEST_BATCH_EXPLAINED, usable=format_bytes(max(0, memory_bytes - reserve)),
               total=format_bytes(memory_bytes), reserve=format_bytes(reserve))


@dataclass(frozen=True)
class FitRow:
    card: GpuSpec
    fits: bool
    peak_bytes: int
    usable_bytes: int
    max_batch: int
    speed: SpeedEstimate
    relative_speed: float
    price_new: PricePoint | None
    price_used: PricePoint | None
    support: str  # supported | legacy | unsupported
    support_reason: str
    owned: bool
    note: str = ""

    @property
    def headroom_bytes(self) -> int:
        return self.usable_bytes - self.peak_bytes

    @property
    def time_per_iter_s(self) -> float:
        return self.speed.time_per_iter_s

    @property
    def samples_per_s(self) -> float:
        return self.speed.samples_per_s

    @property
    def price(self) -> PricePoint | None:
        """The cheaper of new and used: the article prices old cards at their used price."""
        options = [p for p in (self.price_new, self.price_used) if p is not None]
        return min(options, key=lambda p: p.usd) if options else None

    @property
    def samples_per_s_per_usd(self) -> float | None:
        p = self.price
        return self.samples_per_s / p.usd if p and p.usd > 0 else None

    def to_json(self) -> dict:
        price = self.price
        return {
            "name": self.card.name,
            "fits": self.fits,
            "peak_bytes": self.peak_bytes,
            "usable_bytes": self.usable_bytes,
            "max_batch": self.max_batch,
            "time_per_iter_s": self.time_per_iter_s,
            "samples_per_s": self.samples_per_s,
            # The error band measured for this kind of card and precision
            # (data/speed-bands.json): its wider side as a fraction, and both sides
            # (measured throughput within samples_per_s × (1 + low) … × (1 + high)); None
            # where the network has layer kinds the calibration did not check or no
            # benchmark measured this kind of card (speed_notes say which).
            "samples_per_s_error": self.speed.error_band,
            "samples_per_s_band": _band_json(self.speed.band),
            "speed_path": self.speed.path,
            "speed_notes": _speed_notes(self.speed),
            "relative_speed": self.relative_speed,
            "price_usd": price.usd if price else None,
            "price_date": price.date if price else None,
            "price_condition": price.condition if price else None,
            "samples_per_s_per_usd": self.samples_per_s_per_usd,
            "support": self.support,
            "owned": self.owned,
            "note": self.note,
        }


def fit_table(plan: PlanResult, catalog: Catalog, *, reference: str | None = None,
              as_of: str | None = None, cards: list[GpuSpec] | None = None) -> list[FitRow]:
    """Every card (or ``cards``), in catalog order; with ``as_of`` ("YYYY-MM") only those
    released by then. Raises InvalidDraft for a plan with problems (``plan.failure``).

    On several GPUs (``plan.parallel``), fit is judged per GPU and speed is that of the whole
    set; the batch is per GPU.
    """
    from planner.core.catalog import software_support
    from planner.core.speed import iteration_time, iteration_times  # noqa: PLC0415

    if plan.estimate is None:
        if plan.failure is not None and not plan.problems:
            raise ValueError(str(plan.failure))  # the estimate itself failed (an overflow)
        raise InvalidDraft(plan.problems)  # problems, or nothing but the input
    a = plan.assumptions
    analysis, setup, parallel = plan.analysis, plan.setup, plan.parallel
    cards = list(catalog) if cards is None else cards
    if as_of is not None:  # as of a date, only the cards released by then
        cards = [c for c in cards if c.release is None or c.release <= as_of]
    peak = plan.peak_per_gpu
    saved = plan.sharding_saves
    grads = plan.gradients if parallel.world > 1 else 0
    usable = np.array([c.usable_memory_bytes(a.driver_reserved_bytes) for c in cards],
                      dtype=np.int64)
    # Judged on the fast memory (the GTX 970's 3.5 GB), less the driver's reserve.
    batches = (largest_batches(analysis, setup, [c.fast_memory_bytes for c in cards], a,
                               freed_bytes=saved) if len(cards) else [])
    work = plan.workload

    singles = {c.name: e for c, e in zip(cards, iteration_times(work, cards, setup.precision,
                                                                 a))}

    def speed_of(card: GpuSpec) -> SpeedEstimate:
        single = singles.get(card.name) or iteration_time(work, card, setup.precision, a)
        if not grads:
            return single
        last = scaling(work, card, setup.precision, grads, parallel, None, a)[-1]
        return replace(single, time_per_iter_s=last.time_per_iter_s,
                       samples_per_s=last.samples_per_s)

    ref_card = catalog.by_name(reference or DEFAULT_REFERENCE)
    ref_speed = speed_of(ref_card).samples_per_s if ref_card is not None else None
    rows = []
    for card, use, mb in zip(cards, usable.tolist(), list(batches)):
        speed = speed_of(card)
        rel = speed.samples_per_s / ref_speed if ref_speed else 0.0
        status, reason = software_support(card.compute_capability)
        note = ""
        if card.fast_memory_bytes < card.memory_bytes:
            note = (f"judged on its fast {card.fast_memory_bytes / 2**30:.1f} GiB: the rest of "
                    "its memory is much slower")
        rows.append(FitRow(
            card=card, fits=peak <= use, peak_bytes=peak, usable_bytes=use,
            max_batch=int(mb), speed=speed, relative_speed=rel,
            price_new=catalog.price(card, as_of, "new"),
            price_used=catalog.price(card, as_of, "used"),
            support=status, support_reason=reason, owned=catalog.is_owned(card), note=note,
        ))
    return rows
