"""The simulated source: labelled simulated, deterministic, training-like."""

from __future__ import annotations

import itertools

import pytest

from planner.telemetry.simulated import SimulatedBackend


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def _run(seed: int, times: list[float], n: int = 3):
    clock = Clock()
    b = SimulatedBackend(n_devices=n, seed=seed, clock=clock)
    devices = b.open()
    out = []
    for t in times:
        clock.t = 1000.0 + t
        out.append(b.sample())
    b.close()
    return devices, out


def test_everything_is_labelled_simulated():
    devices, frames = _run(0, [0.0])
    assert len(devices) == 3
    assert all(d.simulated and "(simulated)" in d.name for d in devices)
    assert len({d.uuid for d in devices}) == 3
    for s in frames[0]:
        for p in s.processes:
            assert "simulated" in p.name
    assert SimulatedBackend.source == "simulated"


def test_deterministic_given_seed_and_clock():
    times = [0.0, 0.5, 1.0, 17.3, 120.0, 230.0]
    assert _run(7, times) == _run(7, times)
    _, a = _run(7, times)
    _, b = _run(8, times)
    assert a != b


def test_training_like_memory_ramp_plateau_and_free():
    b = SimulatedBackend(n_devices=1, seed=0, clock=Clock(), cycle_s=100.0)
    b.open()
    used = [b.sample_at(0, t).memory_used_bytes for t in range(200)]
    total = b.devices[0].memory_total_bytes
    idle, plateau = used[1], max(used[20:90])
    assert plateau > 0.7 * total > idle
    # a sawtooth on the plateau: the memory goes down as well as up
    diffs = [y - x for x, y in itertools.pairwise(used[20:91])]
    assert any(d < 0 for d in diffs) and any(d > 0 for d in diffs)
    # freed at the end of the cycle, then a new job (a new pid) in the next cycle
    assert used[99] < 0.1 * total
    pids_1 = {p.pid for p in b.sample_at(0, 50).processes if "train" in p.name}
    pids_2 = {p.pid for p in b.sample_at(0, 150).processes if "train" in p.name}
    assert pids_1 and pids_2 and pids_1 != pids_2
    for t in range(0, 200, 3):
        s = b.sample_at(0, t)
        assert 0 <= s.memory_used_bytes <= total
        assert 0 <= s.memory_busy_pct <= 100 and 0 <= s.gpu_busy_pct <= 100
        assert s.bandwidth_gbs_estimate <= b.devices[0].peak_bandwidth_gbs


def test_gpm_only_on_the_hopper_card():
    devices, frames = _run(0, [60.0], n=3)
    by = {d.index: d for d in devices}
    assert "H100" in by[2].name
    assert frames[0][2].dram_bw_util_pct is not None
    assert frames[0][0].dram_bw_util_pct is None
    assert "dram_bw_util_pct" in frames[0][0].unavailable


def test_processes_at_slower_cadence():
    _, frames = _run(0, [float(t) for t in range(6)], n=1)
    assert [f[0].processes is not None for f in frames] == [True, False, False, False, False,
                                                           True]


def test_lose_device():
    clock = Clock()
    b = SimulatedBackend(n_devices=2, clock=clock, lose_device=(1, 10.0))
    b.open()
    assert not b.sample()[1].lost
    clock.t += 11
    s0, s1 = b.sample()
    assert s1.lost and not s0.lost


def test_sample_before_open_is_an_error():
    with pytest.raises(RuntimeError):
        SimulatedBackend().sample()


def test_frames_are_immutable_and_picklable():
    import dataclasses
    import pickle

    devices, frames = _run(0, [60.0])
    s = frames[0][0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.memory_used_bytes = 1
    with pytest.raises(TypeError):
        s.unavailable["x"] = "y"
    assert pickle.loads(pickle.dumps(frames[0])) == frames[0]
    assert pickle.loads(pickle.dumps(devices)) == devices


def test_a_frame_is_the_same_as_each_card_sampled_on_its_own():
    """sample() hashes the noise of all cards of a frame at once; a frame is card for card
    what sample_at (the per-card splitmix64 in Python integers) gives, over thousands of
    frames, several seeds (one of them wide), a lost card, and sixteen cards."""
    from planner.telemetry.simulated import _frame_noises, _noises

    for seed in (0, 1, 2**40 + 3):
        assert _frame_noises(seed, 16, 10**9 + 7, 6) == [
            _noises(seed, c, 10**9 + 7, 6) for c in range(16)]
    checked = 0
    for seed, n in ((0, 8), (5, 3), (2**40 + 3, 16)):
        clock = Clock()
        b = SimulatedBackend(n_devices=n, seed=seed, clock=clock, time_offset_s=60.0,
                             lose_device=(1, 300.0))
        b.open()
        for k in range(2500):
            clock.t = 1000.0 + k * 0.1 + (k % 7) * 0.013
            with_processes = b._tick % b.process_every == 0
            t = b.elapsed_s()
            frame = b.sample()
            assert frame == tuple(b.sample_at(i, t, with_processes) for i in range(n)), k
            checked += 1
        assert any(s.lost for s in frame) and not all(s.lost for s in frame)
    assert checked == 7500
