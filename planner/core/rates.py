"""Throughput as text: a rate with the digits it deserves, and tokens per second for text
models.

A speed under one sample a second printed without decimals reads "0 samples/s" or "1 samples/s"
(an 8B model's fine-tuning step on a 16 GB card takes seconds): it says nothing. ``rate_text``
keeps two significant figures below 10 ("0.42", "0.0071", "4.6"), one decimal below 100 and
none above; ``speed_msg`` gives tokens/s where a sample is a sequence of tokens, samples/s
otherwise, the seconds a step takes when that is a second or more ("0.42 samples/s ±20 %,
2.4 s per step"), and the error band where there is one. Qt-free; the texts are ``Msg``.
"""

from __future__ import annotations

import math

from planner.i18n import QT_TRANSLATE_NOOP, Msg


def rate_text(value: float | None) -> str:
    """'1,234', '56.7', '4.6', '0.42', '0.0071'; '0' only for nothing at all; '—' unknown."""
    if value is None or not math.isfinite(value):
        return "—"
    if value <= 0:
        return "0"
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    digits = max(1, 1 - math.floor(math.log10(value)))  # two significant figures
    text = f"{value:.{digits}f}"
    return f"{value:.1f}" if value < 1 <= float(text) else text  # 0.999: "1.0", not "1.00"


def seconds_text(seconds: float) -> str:
    """'2.4', '37', '1,250': a step's seconds."""
    return f"{seconds:,.0f}" if seconds >= 10 else f"{seconds:.1f}"


_TEMPLATES = {
    (True, False): QT_TRANSLATE_NOOP("core", "{rate} tokens/s"),
    (True, True): QT_TRANSLATE_NOOP("core", "{rate} tokens/s {band}"),
    (False, False): QT_TRANSLATE_NOOP("core", "{rate} samples/s"),
    (False, True): QT_TRANSLATE_NOOP("core", "{rate} samples/s {band}"),
}
STEP_SECONDS = QT_TRANSLATE_NOOP("core", "{speed}, {seconds} s per step")


def display_rate(samples_per_s: float, tokens_per_sample: int | None) -> float:
    """What a speed column shows: tokens/s for sequences of tokens, else samples/s."""
    return samples_per_s * tokens_per_sample if tokens_per_sample else samples_per_s


def speed_msg(samples_per_s: float, *, tokens_per_sample: int | None = None,
              band_pct: float | None = None, time_per_step_s: float | None = None,
              band: str | None = None) -> Msg:
    """'12,400 tokens/s ±20 %', '900 samples/s −14 / +45 %', '0.42 samples/s, 2.4 s per
    step': the speed as a user reads it (``band``: the error band as text,
    ``speed_bands.Band.text``; ``band_pct``: a symmetric one in percent; neither where the
    speed has no band)."""
    rate = rate_text(display_rate(samples_per_s, tokens_per_sample))
    if band is None and band_pct is not None:
        band = f"±{band_pct:.0f} %"
    msg = Msg(_TEMPLATES[(bool(tokens_per_sample), bool(band))], rate=rate,
              **({"band": band} if band else {}))
    if time_per_step_s is not None and math.isfinite(time_per_step_s) and time_per_step_s >= 1:
        msg = Msg(STEP_SECONDS, speed=msg, seconds=seconds_text(time_per_step_s))
    return msg
