"""The Monitor's frame logic without Qt: alerts with hysteresis, lost and recovered cards, card
peaks, process series and their bound."""

from __future__ import annotations

import math

import pytest

from planner.telemetry.types import DeviceInfo, Frame, GpuSample, ProcessSample
from planner.telemetry.watch import (
    MEMORY_HYSTERESIS_PCT,
    TEMPERATURE_HYSTERESIS_C,
    Alerts,
    CardWatch,
    frame_processes,
)
from planner.telemetry.history import ProcessTracker

GIB = 1 << 30
CARDS = (DeviceInfo(0, "RTX 4090", "u0", memory_total_bytes=24 * GIB),
         DeviceInfo(1, "A100", "u1", memory_total_bytes=80 * GIB, host="node7"))


def frame(*samples: GpuSample, t: float = 0.0) -> Frame:
    return Frame(1.0e9 + t, t, "simulated", None, None, CARDS, tuple(samples))


def used(pct: float, index: int = 0, **kw) -> GpuSample:
    total = CARDS[index].memory_total_bytes
    return GpuSample(index, f"u{index}", memory_used_bytes=int(total * pct / 100), **kw)


def test_memory_alert_fires_once_and_rearms_below_the_hysteresis():
    a = Alerts(memory_pct=90.0)
    fired = []
    for pct in (50, 91, 95, 89, 90.5, 90 - MEMORY_HYSTERESIS_PCT - 0.1, 92):
        new, _ = a.update(frame(used(pct)))
        fired += [round(x.value) for x in new]
    # 91 fires; 95, 89 and 90.5 are the same episode (89 is inside the hysteresis band);
    # below 88 it re-arms, and 92 fires again
    assert fired == [91, 92]
    assert list(a.active) == [(0, "memory")]
    assert len(a.fired) == 2


def test_temperature_alert_and_a_lost_card_ends_its_alerts():
    a = Alerts(temperature_c=80.0)
    new, changed = a.update(frame(GpuSample(1, "u1", temperature_c=81.0)))
    assert [(x.kind, x.host, x.limit) for x in new] == [("temperature", "node7", 80.0)]
    assert changed
    new, changed = a.update(frame(GpuSample(1, "u1", temperature_c=80 - TEMPERATURE_HYSTERESIS_C
                                            + 0.5)))
    assert new == [] and not changed  # still inside the band: no change, no repeat
    new, changed = a.update(frame(GpuSample(1, "u1", lost=True)))
    assert new == [] and changed and not a.active


def test_thresholds_change_what_fires():
    a = Alerts(memory_pct=95.0)
    assert a.update(frame(used(93)))[0] == []
    a.set_thresholds(memory_pct=92.0)
    assert [round(x.limit) for x in a.update(frame(used(93)))[0]] == [92]


def test_lost_and_recovered_cards_are_reported_once():
    w = CardWatch()
    proc = ProcessSample(42, "python", "me", 3 * GIB)
    w.update(frame(used(10, processes=(proc,))), t=0)
    assert w.last_processes[0] == (proc,)
    news = w.update(frame(GpuSample(0, "u0", lost=True)), t=1)
    assert news.lost == [0] and w.lost == {0}
    assert w.last_processes[0] == ()  # a lost card holds no processes
    assert w.update(frame(GpuSample(0, "u0", lost=True)), t=2).lost == []  # said once
    w.update(frame(used(20)), t=3)
    assert w.lost == set()


def test_card_peak_and_process_series():
    w = CardWatch()
    for t, pct, mem in ((0, 10, 1 * GIB), (1, 40, None), (2, 25, 2 * GIB)):
        w.update(frame(used(pct, processes=(ProcessSample(7, "train", None, mem),))), t=t)
    assert w.card_peak[0] == int(24 * GIB * 0.40)
    series = list(w.series[(0, 7)])
    assert [t for t, _ in series] == [0, 1, 2]
    assert series[0][1] == GIB and math.isnan(series[1][1]) and series[2][1] == 2 * GIB


def test_no_answer_reason_changes_are_flagged():
    w = CardWatch()
    silent = GpuSample(1, "u1", unavailable={"*": "the server did not answer"})
    news = w.update(frame(silent), t=0)
    assert news.no_answer_changed and news.no_answer == "the server did not answer"
    assert not w.update(frame(silent), t=1).no_answer_changed
    news = w.update(frame(used(5, index=1)), t=2)
    assert news.no_answer_changed and news.no_answer is None


@pytest.mark.parametrize("points", [3, 50])
def test_series_are_bounded_and_pruned_keeping_running_and_followed(points):
    w = CardWatch(process_points=points, max_series=4)
    for pid in range(10):
        for t in range(points + 2):
            w.update(frame(used(10, processes=(ProcessSample(pid, "p", None, GIB),))), t=t)
    assert all(len(s) == points for s in w.series.values())  # 10 series, each bounded
    assert len(w.series) == 10
    w.prune(running=[(0, 9), (0, 8)], keep=(0, 0))
    assert len(w.series) == 4
    assert {(0, 9), (0, 8), (0, 0)} <= set(w.series)


@pytest.mark.parametrize("capacity", [1, 5, 64, 200])
def test_process_series_ring_keeps_the_newest_points_in_order(capacity):
    from planner.telemetry.watch import ProcessSeries

    s = ProcessSeries(capacity)
    assert len(s) == 0 and s.arrays()[0].size == 0
    for k in range(capacity * 3 + 2):
        s.append(float(k), float(10 * k))
        t, v = s.arrays()
        want = list(range(max(0, k + 1 - capacity), k + 1))
        assert t.tolist() == want
        assert v.tolist() == [10 * x for x in want]
    assert len(s) == capacity


def test_frame_source():
    from planner.telemetry.watch import frame_source

    assert frame_source(frame()) == "simulated"
    real = Frame(1.0, 0.0, "nvml", "550", "12.4", CARDS, ())
    assert frame_source(real) == "nvml"
    sim_card = (DeviceInfo(0, "RTX 4090 (simulated)", "s0", simulated=True),)
    assert frame_source(Frame(1.0, 0.0, "nvml", None, None, sim_card, ())) == "simulated"
    assert frame_source(Frame(1.0, 0.0, "prometheus", None, None, CARDS, ())) == "prometheus"


def test_processes_on_a_card_or_all():
    w = CardWatch()
    w.update(frame(used(10, processes=(ProcessSample(7, "a", None, GIB),)),
                   used(5, index=1, processes=(ProcessSample(8, "b", None, GIB),
                                               ProcessSample(9, "c", None, None)))), t=0)
    assert [(d, p.pid) for d, p in w.processes_on(None)] == [(0, 7), (1, 8), (1, 9)]
    assert [(d, p.pid) for d, p in w.processes_on(1)] == [(1, 8), (1, 9)]
    assert w.processes_on(5) == []


def test_the_processes_of_a_frame_and_their_peaks_per_card():
    train = ProcessSample(4242, "python train.py", "ana", 6 * GIB)
    notebook = ProcessSample(17, "jupyter", None, None)
    first = frame(used(50, processes=(train,)),
                  GpuSample(1, "u1", memory_used_bytes=GIB, processes=(notebook,)))
    # a frame's processes in card order; a card whose processes were not sampled lists none
    assert frame_processes(first) == [(0, train), (1, notebook)]
    assert frame_processes(frame(used(50), t=0.1)) == []
    assert frame_processes(None) == []
    watch, tracker = CardWatch(), ProcessTracker()
    smaller = ProcessSample(4242, "python train.py", "ana", 5 * GIB)
    for f in (first, frame(used(40, processes=(smaller,)), t=1.0)):
        watch.update(f, f.monotonic_s)
        tracker.update(f)
    # what the table shows: the processes last seen, with the peak seen so far (None where the
    # driver hides per-process memory)
    assert watch.process_peaks(0, tracker.records) == [(0, smaller, 6 * GIB)]
    assert watch.process_peaks(None, tracker.records) == [(0, smaller, 6 * GIB),
                                                         (1, notebook, None)]
    assert watch.process_peaks(1, {}) == [(1, notebook, None)]
