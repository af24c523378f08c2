"""A simulated telemetry source: several cards running a training-like job.

For trying the app without an NVIDIA GPU and for tests. Everything it shows says "simulated":
every card's name ends in "(simulated)", ``DeviceInfo.simulated`` is True, the frame source is
"simulated", and process names say so.

The pattern per card, over a cycle of ``cycle_s`` seconds (cards are phase-shifted):

- idle (a few seconds): the context only, utilisation near 0;
- ramp: the job allocates (weights, optimizer state, activations) up to ~85% of the memory;
- plateau: memory saw-tooths (activations allocated in the forward pass, freed in backward),
  GPU busy ~95%, memory controller busy oscillates with the iteration;
- free: the job ends and its memory is released; the next cycle starts a new pid.

Deterministic: every value is a pure function of (seed, card, elapsed time), and the clock is
injectable, so the same clock readings give the same samples.
"""

from __future__ import annotations

import functools
import math
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from planner.telemetry.types import (
    DeviceInfo,
    GpuSample,
    ProcessSample,
    frozen_mapping,
    peak_bandwidth_gbs,
)

MIB = 1024**2


@dataclass(frozen=True)
class _Profile:
    name: str
    memory_total_bytes: int
    bus_width_bits: int
    max_memory_clock_mhz: int
    max_sm_clock_mhz: int
    compute_capability: str
    power_limit_w: float
    idle_power_w: float
    has_fan: bool
    gpm: bool
    pcie_peak_bytes_s: float


PROFILES: tuple[_Profile, ...] = (
    _Profile("NVIDIA GeForce RTX 4090 (simulated)", 24564 * MIB, 384, 10501, 2520, "8.9",
             450.0, 25.0, True, False, 25e9),
    _Profile("NVIDIA A100-SXM4-80GB (simulated)", 81920 * MIB, 5120, 1593, 1410, "8.0",
             400.0, 60.0, False, False, 25e9),
    _Profile("NVIDIA H100 80GB HBM3 (simulated)", 81559 * MIB, 5120, 2619, 1980, "9.0",
             700.0, 70.0, False, True, 50e9),
    _Profile("NVIDIA GeForce RTX 3090 (simulated)", 24576 * MIB, 384, 9751, 2100, "8.6",
             350.0, 20.0, True, False, 25e9),
)

@dataclass(frozen=True)
class _Card:
    """What a card's samples are computed from that does not change between samples (made
    once when the backend opens; ``sample_at`` reads it instead of recomputing it)."""

    profile: _Profile
    uuid: str
    shift: float  # the card's phase shift, seconds
    idle_end: float
    ramp_end: float
    ramp_len: float
    free_start: float
    free_end: float
    free_len: float
    iter_s: float
    target: int
    usable: int  # the memory a job can take (total − reserved)
    notebook: int
    peak: float | None
    pcie_rx_peak: float
    power_range: float
    sm_clock_busy: int
    sm_clock_idle: int
    mem_clock_idle: int
    lose_at: float | None
    unavailable: object


CONTEXT_BYTES = 420 * MIB  # what the driver/context keeps while a process runs
RESERVED_BYTES = 300 * MIB  # "reserved" in the v2 memory call
NOTEBOOK_BYTES = 1200 * MIB  # a notebook that sits on the even cards


@functools.lru_cache(maxsize=8)
def _frozen_unavailable_items(items: tuple[tuple[str, str], ...]):
    return frozen_mapping(dict(items))


def _frozen_unavailable(un: dict[str, str]):
    """``frozen_mapping(un)``, one shared read-only mapping per distinct content (a card's
    "not reported" reasons are the same at every sample)."""
    return _frozen_unavailable_items(tuple(un.items()))


def _noise(seed: int, card: int, step: int, channel: int) -> float:
    """A deterministic pseudo-random number in [0, 1) (splitmix64 of the inputs)."""
    x = (seed * 0x9E3779B97F4A7C15 + card * 0xBF58476D1CE4E5B9 + step * 0x94D049BB133111EB
         + channel * 0x2545F4914F6CDD1D) & 0xFFFFFFFFFFFFFFFF
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    x ^= x >> 31
    return x / 2**64


def _noises(seed: int, card: int, step: int, channels: int) -> list[float]:
    """``[_noise(seed, card, step, ch) for ch in range(channels)]``, the same numbers with
    the channel-independent part of the sum computed once (a sample asks for six)."""
    base = seed * 0x9E3779B97F4A7C15 + card * 0xBF58476D1CE4E5B9 + step * 0x94D049BB133111EB
    out = []
    for ch in range(channels):
        x = (base + ch * 0x2545F4914F6CDD1D) & 0xFFFFFFFFFFFFFFFF
        x ^= x >> 30
        x = (x * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        x ^= x >> 27
        x = (x * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        x ^= x >> 31
        out.append(x / 2**64)
    return out


_M64 = 0xFFFFFFFFFFFFFFFF


_U30, _U27, _U31 = np.uint64(30), np.uint64(27), np.uint64(31)
_MUL1, _MUL2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


@functools.lru_cache(maxsize=8)
def _card_channel_terms(cards: int, channels: int) -> np.ndarray:
    """card × 0xBF58…B9 + channel × 0x2545…1D (mod 2**64), a cards × channels grid."""
    return np.array([[(c * 0xBF58476D1CE4E5B9 + ch * 0x2545F4914F6CDD1D) & _M64
                      for ch in range(channels)] for c in range(cards)], dtype=np.uint64)


def _frame_noises(seed: int, cards: int, step: int, channels: int) -> list[list[float]]:
    """``[_noises(seed, card, step, channels) for card in range(cards)]``: the same numbers
    (the same splitmix64 in wrapping uint64 arithmetic; a uint64 → float64 conversion rounds
    to nearest as Python's int / 2**64 does), for every card of a frame in one numpy pass
    instead of six big-integer hashes per card in Python."""
    x = _card_channel_terms(cards, channels) + np.uint64(
        (seed * 0x9E3779B97F4A7C15 + step * 0x94D049BB133111EB) & _M64)  # wraps mod 2**64
    x ^= x >> _U30
    x *= _MUL1
    x ^= x >> _U27
    x *= _MUL2
    x ^= x >> _U31
    return (x.astype(np.float64) * 2.0**-64).tolist()


class SimulatedBackend:
    source = "simulated"

    def __init__(self, n_devices: int = 2, seed: int = 0, *,
                 clock: Callable[[], float] = time.monotonic, time_offset_s: float = 0.0,
                 cycle_s: float = 240.0, process_every: int = 5,
                 lose_device: tuple[int, float] | None = None) -> None:
        """``lose_device=(index, at_s)`` makes that card report lost from ``at_s`` on."""
        if n_devices < 0:
            raise ValueError("n_devices must be ≥ 0")
        self.n_devices = n_devices
        self.seed = int(seed)
        self._clock = clock
        self._offset = float(time_offset_s)
        self.cycle_s = float(cycle_s)
        self.process_every = max(1, int(process_every))
        self._lose = lose_device
        self._t0: float | None = None
        self._tick = 0
        self._devices: list[DeviceInfo] = []
        self._unavailable: list = []
        self._cards: list[_Card] = []
        self.driver_version = "550.54.15 (simulated)"
        self.cuda_version = "12.4"

    def open(self) -> list[DeviceInfo]:
        self._t0 = self._clock()
        self._tick = 0
        self._devices = [self._device(i) for i in range(self.n_devices)]
        self._unavailable = [self._not_reported(PROFILES[i % len(PROFILES)])
                             for i in range(self.n_devices)]
        self._cards = [self._card(i) for i in range(self.n_devices)]
        return list(self._devices)

    def _card(self, i: int) -> _Card:
        p = PROFILES[i % len(PROFILES)]
        c = self.cycle_s
        idle_end, ramp_end, free_start = 0.04 * c, 0.12 * c, 0.92 * c
        usable = p.memory_total_bytes - RESERVED_BYTES
        lose = self._lose
        return _Card(
            profile=p, uuid=self._devices[i].uuid, shift=i * self.cycle_s * 0.37,
            idle_end=idle_end, ramp_end=ramp_end, ramp_len=ramp_end - idle_end,
            free_start=free_start, free_end=free_start + 0.04 * c, free_len=0.04 * c,
            iter_s=6.3 + 1.7 * (i % 3), target=int(0.85 * usable), usable=usable,
            notebook=NOTEBOOK_BYTES if i % 2 == 0 else 0,
            peak=self._devices[i].peak_bandwidth_gbs, pcie_rx_peak=p.pcie_peak_bytes_s * 0.4,
            power_range=p.power_limit_w - p.idle_power_w,
            sm_clock_busy=int(p.max_sm_clock_mhz * 0.95),
            sm_clock_idle=int(p.max_sm_clock_mhz * 0.1),
            mem_clock_idle=int(p.max_memory_clock_mhz * 0.1),
            lose_at=lose[1] if lose is not None and lose[0] == i else None,
            unavailable=self._unavailable[i])

    @staticmethod
    def _not_reported(p: _Profile):
        """What a card of this profile does not report, and why (the same at every sample)."""
        un: dict[str, str] = {}
        if not p.gpm:
            un["dram_bw_util_pct"] = "GPM metrics need a Hopper or newer GPU (simulated)"
        if not p.has_fan:
            un["fan_pct"] = "not supported by this GPU (passively cooled, simulated)"
        return _frozen_unavailable(un)

    def close(self) -> None:
        self._t0 = None

    def _device(self, i: int) -> DeviceInfo:
        p = PROFILES[i % len(PROFILES)]
        h = zlib.crc32(f"{self.seed}:{i}".encode())
        uuid = f"GPU-5151{h:08x}-0000-4000-8000-{i:012d}"
        return DeviceInfo(
            index=i, name=p.name, uuid=uuid, pci_bus_id=f"00000000:{i + 1:02X}:00.0",
            memory_total_bytes=p.memory_total_bytes, memory_bus_width_bits=p.bus_width_bits,
            max_memory_clock_mhz=p.max_memory_clock_mhz,
            peak_bandwidth_gbs=peak_bandwidth_gbs(p.bus_width_bits, p.max_memory_clock_mhz),
            compute_capability=p.compute_capability, power_limit_w=p.power_limit_w,
            mig_mode=False if p.compute_capability in ("8.0", "9.0") else None,
            simulated=True, unavailable=frozen_mapping({}))

    @property
    def devices(self) -> list[DeviceInfo]:
        return list(self._devices)

    def elapsed_s(self) -> float:
        if self._t0 is None:
            raise RuntimeError("SimulatedBackend.sample() before open()")
        return self._clock() - self._t0 + self._offset

    def sample(self) -> tuple[GpuSample, ...]:
        t = self.elapsed_s()
        with_processes = self._tick % self.process_every == 0
        self._tick += 1
        # the noise of every card of this frame at once (sample_at's step: int(t * 10))
        noise = _frame_noises(self.seed, self.n_devices, int(t * 10), 6)
        return tuple(self.sample_at(i, t, with_processes, noise[i])
                     for i in range(self.n_devices))

    # -- the pattern --------------------------------------------------------------------------

    def sample_at(self, i: int, t: float, with_processes: bool = True,
                  noise: list[float] | None = None) -> GpuSample:
        """The sample card ``i`` shows ``t`` seconds after open (a pure function).
        ``noise``: this card's six noise numbers at ``t`` when the caller has them
        (``sample`` computes a frame's at once); the same as computed here."""
        k = self._cards[i]
        if k.lose_at is not None and t >= k.lose_at:
            return GpuSample(index=i, uuid=k.uuid, lost=True,
                             unavailable=frozen_mapping({"*": "GPU is lost (simulated)"}))
        # the phase (cycle number, seconds into the cycle), phase-shifted per card
        shifted = t + k.shift
        c = self.cycle_s
        cycle = math.floor(shifted / c)
        u = shifted - cycle * c
        n = noise if noise is not None else _noises(self.seed, i, int(t * 10), 6)
        target = k.target
        running = k.idle_end <= u < k.free_end
        if u < k.idle_end:
            job_bytes, busy = 0, 0.0
        elif u < k.ramp_end:
            frac = (u - k.idle_end) / k.ramp_len
            job_bytes, busy = int(target * 0.7 * frac), 0.3
        elif u < k.free_start:
            iter_s = k.iter_s  # not a multiple of common sampling intervals
            saw = ((u - k.ramp_end) % iter_s) / iter_s  # forward allocates, backward frees
            job_bytes = int(target * (0.7 + 0.3 * saw))
            busy = 0.92 + 0.06 * n[0]
        elif u < k.free_end:
            frac = (u - k.free_start) / k.free_len
            job_bytes, busy = int(target * 0.7 * (1 - frac)), 0.05
        else:
            job_bytes, busy = 0, 0.0
        job_used = (CONTEXT_BYTES + job_bytes) if running else 0
        notebook = k.notebook  # an idle notebook on even cards
        used = min(job_used + notebook, k.usable)
        free = k.usable - used
        # memory controller busy: oscillates with the iteration while training
        if busy > 0.5:
            mem_busy = 55 + 25 * math.sin(2 * math.pi * u / 7.0) + 8 * (n[1] - 0.5)
        else:
            mem_busy = 40 * busy + 2 * n[1]
        mem_busy = round(min(100.0, max(0.0, mem_busy)))
        gpu_busy = round(min(100.0, max(0.0, 100 * busy + (2 * n[2] - 1) * 2)))
        peak = k.peak
        bw_est = None if peak is None else mem_busy / 100.0 * peak
        # measured DRAM bandwidth sits below the busy figure (busy ≠ saturated)
        dram = round(mem_busy * (0.55 + 0.1 * n[3]), 1) if k.profile.gpm else None
        if running:
            burst = 1.0 if (u % 2.5) < 0.3 and busy > 0.5 else 0.05
            rx = k.pcie_rx_peak * burst * (0.8 + 0.2 * n[4])
        else:
            rx = 0.0
        idle = busy <= 0.05
        p = k.profile
        return GpuSample(
            index=i, uuid=k.uuid, memory_used_bytes=used, memory_reserved_bytes=RESERVED_BYTES,
            memory_free_bytes=free, memory_busy_pct=float(mem_busy),
            bandwidth_gbs_estimate=bw_est, dram_bw_util_pct=dram, pcie_rx_bytes_s=rx,
            pcie_tx_bytes_s=rx * 0.1, gpu_busy_pct=float(gpu_busy),
            sm_clock_mhz=k.sm_clock_idle if idle else k.sm_clock_busy,
            memory_clock_mhz=k.mem_clock_idle if idle else p.max_memory_clock_mhz,
            power_draw_w=round(p.idle_power_w + k.power_range * busy * (0.85 + 0.1 * n[5]), 1),
            temperature_c=round(32.0 + 48.0 * busy + 2.0 * n[3], 0),
            fan_pct=(30.0 + 50.0 * busy) if p.has_fan else None,
            throttle_reasons=("gpu_idle",) if busy < 0.05 else (
                ("sw_power_cap",) if n[5] > 0.9 else ()),
            processes=self._processes(i, k, cycle, running, job_used) if with_processes
            else None, lost=False, unavailable=k.unavailable)

    @staticmethod
    def _processes(i: int, k: _Card, cycle: int, running: bool,
                   job_used: int) -> tuple[ProcessSample, ...]:
        procs = []
        if k.notebook:
            procs.append(ProcessSample(pid=39000 + i, name="python -m jupyter (simulated)",
                                       user="simulated", memory_used_bytes=k.notebook))
        if running:
            procs.append(ProcessSample(pid=40000 + 1000 * i + cycle % 1000,
                                       name="python train.py (simulated)", user="simulated",
                                       memory_used_bytes=job_used))
        return tuple(procs)
