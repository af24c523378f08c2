"""Immutable telemetry data: what a backend reports, what crosses to the GUI thread.

Conventions:

- ``None`` means "not available" (not supported by this card, not permitted, or the card is
  lost). The reason, where there is one, is in ``GpuSample.unavailable`` (field name → reason)
  so a UI can show "N/A" with the reason on hover. The key ``"*"`` gives a reason for the
  whole card (a lost card).
- Units are in the names: ``_bytes``, ``_pct``, ``_mhz``, ``_w``, ``_c``, ``_gbs`` (GB/s,
  decimal gigabytes as GPU vendors quote bandwidth), ``_bytes_s`` (bytes per second).
- "Memory in use" (``memory_used_bytes``) and "memory controller busy" (``memory_busy_pct``)
  are different things. ``bandwidth_gbs_estimate`` is busy % × the card's peak: an estimate,
  never a measurement. ``dram_bw_util_pct`` is the measured DRAM bandwidth utilisation from GPM
  metrics (Hopper and newer only).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

Source = Literal["nvml", "simulated", "prometheus"]



class FrozenDict(dict):
    """A read-only dict (picklable and copyable, unlike MappingProxyType)."""

    __slots__ = ()

    def _readonly(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("this mapping is read-only")

    __setitem__ = __delitem__ = _readonly  # type: ignore[assignment]
    clear = pop = popitem = setdefault = update = _readonly  # type: ignore[assignment]
    __ior__ = _readonly  # type: ignore[assignment]

    def __reduce__(self) -> tuple:
        return (FrozenDict, (dict(self),))

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))

    def __repr__(self) -> str:
        return f"FrozenDict({dict.__repr__(self)})"


_EMPTY: Mapping[str, str] = FrozenDict()


def peak_bandwidth_gbs(bus_width_bits: int | None, max_memory_clock_mhz: int | None,
                       ddr_factor: int = 2) -> float | None:
    """Theoretical peak memory bandwidth in GB/s (10^9 bytes/s) from NVML's figures.

    peak = bus_width_bits / 8 × max_memory_clock_mhz × 10^6 × ddr_factor / 10^9

    NVML reports the memory clock such that a factor of 2 (double data rate) gives the
    published peak for GDDR5X/GDDR6/GDDR6X and HBM2/HBM2e/HBM3 cards, e.g. RTX 4090:
    384 bit × 10501 MHz × 2 / 8 = 1008 GB/s; A100-SXM4-80GB: 5120 bit × 1593 MHz × 2 / 8 =
    2039 GB/s; H100 SXM: 5120 bit × 2619 MHz × 2 / 8 = 3352 GB/s. Uncertainty: NVML does not say
    which memory type a card has, and a driver could report the clock of a newer memory type
    (GDDR7, PAM signalling) on a different basis, so treat the figure as a derived value that
    can be off by a factor of 2 on unusual cards; the catalog's published figure wins where the
    UI has one. Returns None when either input is unknown or not positive.
    """
    if not bus_width_bits or not max_memory_clock_mhz:
        return None
    if bus_width_bits <= 0 or max_memory_clock_mhz <= 0:
        return None
    return bus_width_bits / 8 * max_memory_clock_mhz * 1e6 * ddr_factor / 1e9


def _quick_init(cls: type) -> type:
    """Give a frozen dataclass an ``__init__`` that sets its instance dict in one step.

    The dataclass's own ``__init__`` of a frozen class sets each field through
    ``object.__setattr__`` (twenty calls for a ``GpuSample``, made for every card at every
    sample, and for every row a replay reads). This one takes the same parameters with the
    same defaults (a ``default_factory`` is called when the argument is left out) and
    stores them at once; equality, hashing, ``repr``, ``replace`` and the frozen
    ``__setattr__`` stay the dataclass's."""
    fields = dataclasses.fields(cls)
    ns: dict[str, Any] = {"_set": object.__setattr__, "_MISSING": dataclasses.MISSING}
    params, make = [], []
    for f in fields:
        if f.default is not dataclasses.MISSING:
            ns[f"_d_{f.name}"] = f.default
            params.append(f"{f.name}=_d_{f.name}")
        elif f.default_factory is not dataclasses.MISSING:
            ns[f"_f_{f.name}"] = f.default_factory
            params.append(f"{f.name}=_MISSING")
            make.append(f"    if {f.name} is _MISSING:\n        {f.name} = _f_{f.name}()\n")
        else:
            params.append(f.name)
    body = ", ".join(f"{f.name!r}: {f.name}" for f in fields)
    src = (f"def __init__(self, {', '.join(params)}):\n{''.join(make)}"
           f"    _set(self, '__dict__', {{{body}}})\n")
    exec(src, ns)  # noqa: S102 - code made from the class's own field names
    init = ns["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init
    return cls


@dataclass(frozen=True)
class DeviceInfo:
    """Static identity of one card, read once when the backend opens."""

    index: int
    name: str
    uuid: str
    pci_bus_id: str | None = None
    memory_total_bytes: int | None = None
    memory_bus_width_bits: int | None = None
    max_memory_clock_mhz: int | None = None
    peak_bandwidth_gbs: float | None = None
    compute_capability: str | None = None  # "8.9"
    power_limit_w: float | None = None
    mig_mode: bool | None = None
    simulated: bool = False
    unavailable: Mapping[str, str] = field(default_factory=lambda: _EMPTY, hash=False)
    host: str | None = None  # the machine the card is in; None for this computer's own cards


@_quick_init
@dataclass(frozen=True)
class ProcessSample:
    """One process using a card. memory_used_bytes is None where the driver hides it (WDDM)."""

    pid: int
    name: str
    user: str | None
    memory_used_bytes: int | None


@_quick_init
@dataclass(frozen=True)
class GpuSample:
    """Dynamic values of one card at one tick."""

    index: int
    uuid: str
    memory_used_bytes: int | None = None
    memory_reserved_bytes: int | None = None
    memory_free_bytes: int | None = None
    memory_busy_pct: float | None = None  # NVML "memory" utilisation: memory controller busy
    bandwidth_gbs_estimate: float | None = None  # memory_busy_pct × peak: an ESTIMATE
    dram_bw_util_pct: float | None = None  # GPM, measured; Hopper and newer only
    pcie_rx_bytes_s: float | None = None
    pcie_tx_bytes_s: float | None = None
    gpu_busy_pct: float | None = None
    sm_clock_mhz: int | None = None
    memory_clock_mhz: int | None = None
    power_draw_w: float | None = None
    temperature_c: float | None = None
    fan_pct: float | None = None
    throttle_reasons: tuple[str, ...] | None = None
    processes: tuple[ProcessSample, ...] | None = None  # None: not sampled this tick
    lost: bool = False
    unavailable: Mapping[str, str] = field(default_factory=lambda: _EMPTY, hash=False)


@_quick_init
@dataclass(frozen=True)
class Frame:
    """Everything one tick produced, for every card. Crosses threads as is (immutable)."""

    timestamp_s: float  # time.time()
    monotonic_s: float  # time.monotonic()
    source: Source
    driver_version: str | None
    cuda_version: str | None
    devices: tuple[DeviceInfo, ...]
    samples: tuple[GpuSample, ...]

    def sample(self, index: int) -> GpuSample | None:
        """The sample of the card with this NVML index, or None."""
        for s in self.samples:
            if s.index == index:
                return s
        return None

    def device(self, index: int) -> DeviceInfo | None:
        for d in self.devices:
            if d.index == index:
                return d
        return None


class TelemetryBackend(Protocol):
    """What the sampler drives. open() and close() run in the sampling thread."""

    source: Source
    driver_version: str | None
    cuda_version: str | None

    def open(self) -> list[DeviceInfo]: ...

    def sample(self) -> tuple[GpuSample, ...]: ...

    def close(self) -> None: ...


class BackendUnavailable(Exception):
    """No telemetry from this backend: no library, no driver, no permission.

    ``str(exc)`` is a user-facing sentence for a banner; ``reason`` is the technical detail.
    """

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason


# -- plain-data conversion (recorder, JSON) ---------------------------------------------------

def device_to_dict(d: DeviceInfo) -> dict[str, Any]:
    out = dataclasses.asdict(d)
    out["unavailable"] = dict(d.unavailable)
    return out


def device_from_dict(data: Mapping[str, Any]) -> DeviceInfo:
    names = {f.name for f in dataclasses.fields(DeviceInfo)}
    kwargs = {k: v for k, v in data.items() if k in names}
    kwargs["unavailable"] = frozen_mapping(kwargs.get("unavailable"))
    return DeviceInfo(**kwargs)


def process_to_dict(p: ProcessSample) -> dict[str, Any]:
    # its four plain fields (dataclasses.asdict deep-copies recursively: a recording writes
    # this for every process of every card at every sample)
    return {"pid": p.pid, "name": p.name, "user": p.user,
            "memory_used_bytes": p.memory_used_bytes}


def process_from_dict(data: Mapping[str, Any]) -> ProcessSample:
    return ProcessSample(pid=int(data["pid"]), name=str(data.get("name", "")),
                         user=data.get("user"), memory_used_bytes=data.get("memory_used_bytes"))


def frozen_mapping(d: Mapping[str, str] | None) -> Mapping[str, str]:
    """A read-only copy (or the shared empty mapping)."""
    if not d:
        return _EMPTY
    return FrozenDict(d)
