"""Plan against run: which measured peak the Monitor sets beside the plan's prediction.

Plain logic, Qt-free. The pane turns the reading into "plan predicted 8.7 GiB, the run peaked at
9.2 GiB (+6%) — process 4242 (python) on GPU 0"; the tests call it directly
(``tests/unit/telemetry/test_compare.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from planner.telemetry.history import ProcessRecord


@dataclass(frozen=True)
class PeakReading:
    """A measured peak: of one process (``pid`` set) or of a whole card (``pid`` None)."""

    peak_bytes: int
    device: int
    pid: int | None = None
    name: str = ""


def percent_off(predicted_bytes: int, peak_bytes: int) -> float:
    """How far the run's peak is from the prediction, in % of the prediction (+: above)."""
    if predicted_bytes <= 0:
        raise ValueError("predicted_bytes must be positive")
    return 100.0 * (peak_bytes - predicted_bytes) / predicted_bytes


def _of(rec: ProcessRecord) -> PeakReading | None:
    if not rec.peak_bytes:
        return None
    return PeakReading(rec.peak_bytes, rec.device, rec.pid, rec.name)


def current_peak(records: Mapping[tuple[int, int], ProcessRecord],
                 card_peaks: Mapping[int, int], followed: tuple[int, int] | None,
                 selected: int | None) -> PeakReading | None:
    """What "Compare with plan" compares now: the followed process's peak; else the selected
    card's peak (no card selected: the first card with a reading). None: no reading yet."""
    if followed is not None:
        rec = records.get(followed)
        return None if rec is None else _of(rec)
    device = selected if selected is not None else next(iter(card_peaks), None)
    peak = card_peaks.get(device) if device is not None else None
    return PeakReading(peak, device) if peak and device is not None else None


def ended_peak(ended: Iterable[ProcessRecord], followed: tuple[int, int] | None,
               selected: int | None) -> PeakReading | None:
    """The peak to compare when processes end: the followed process's, if it is among them;
    with none followed, the largest peak of those on the selected card (or on any card)."""
    ended = list(ended)
    if followed is not None:
        rec = next((r for r in ended if (r.device, r.pid) == followed), None)
        return None if rec is None else _of(rec)
    candidates = [r for r in ended if r.peak_bytes and (selected is None or r.device == selected)]
    rec = max(candidates, key=lambda r: r.peak_bytes or 0, default=None)
    return None if rec is None else _of(rec)
