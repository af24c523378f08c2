"""The x axis of the Monitor's plots: which time span a redraw shows, and how much time one
pixel spans. Plain arithmetic, Qt-free (``tests/unit/telemetry/test_timeaxis.py``).

The window moves in steps of 1/X_STEPS of its width, so between two steps the axes keep their
cached pictures and only the curves are painted again; a session shorter than the window fills
the plot from the left (the range is still fixed for each redraw, so clip-to-view applies).
"""

from __future__ import annotations

import math

MIN_SPAN_S = 60.0  # the narrowest x range shown (a session's first minute)
X_STEPS = 60  # the x window moves in steps of 1/X_STEPS of its width


def x_range(end: float, first: float, window_s: float | None) -> tuple[float, float]:
    """(start, end) of the x axis for data from ``first`` to ``end`` (seconds on the history's
    clock) in a window of ``window_s`` seconds (None: the whole session)."""
    start = first if window_s is None else max(end - window_s, first)
    min_span = min(window_s or MIN_SPAN_S, MIN_SPAN_S)
    span = max(min_span, (window_s if window_s is not None else end - first))
    step = span / X_STEPS
    x_end = max(math.ceil(end / step) * step, start + min_span)
    if window_s is not None and x_end - window_s > first:
        start = x_end - window_s
    return start, x_end


def seconds_per_pixel(end: float, first: float, window_s: float | None,
                      width_px: float) -> float:
    """How much time one pixel of a plot ``width_px`` wide spans (inf when it has no width):
    a live redraw sooner than that draws the same picture."""
    if width_px < 1 or math.isnan(end):
        return math.inf
    span = (end - first) if window_s is None else window_s
    return max(span, MIN_SPAN_S) / width_px


def redraw_due(now_s: float, drawn_at_s: float, per_pixel_s: float, max_wait_s: float,
               slack_s: float = 0.0) -> bool:
    """Whether a live redraw is due at ``now_s`` (the last one at ``drawn_at_s``): once the
    newest sample is a pixel further on the x axis (``per_pixel_s``, see seconds_per_pixel),
    but never later than ``max_wait_s`` after the last; ``slack_s`` (half a tick) keeps a
    tick that comes a little early from waiting a whole tick more."""
    return now_s - drawn_at_s + slack_s >= min(max_wait_s, per_pixel_s)
