"""A scripted stand-in for pynvml (nvidia-ml-py), enough for NvmlBackend.

It mirrors the real module's shape: NVMLError with ``.value`` and per-code subclasses, the
NVML_ERROR_* constants, nvmlInit/nvmlShutdown, device functions taking a handle. Tests script
it:

- ``init_error = fake.NVML_ERROR_DRIVER_NOT_LOADED`` → nvmlInit raises it.
- ``fail(name, code, device=None)`` → that function raises NVMLError(code) (for one device or
  all), until ``unfail``.
- ``hang(name)`` → that function blocks until ``release()`` (a threading.Event).
- ``calls`` counts (function name, device index) pairs so a test can assert a field was not
  asked again.
- ``devices[i]`` holds the values each function returns; edit them between ticks.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

NVML_SUCCESS = 0
NVML_ERROR_UNINITIALIZED = 1
NVML_ERROR_INVALID_ARGUMENT = 2
NVML_ERROR_NOT_SUPPORTED = 3
NVML_ERROR_NO_PERMISSION = 4
NVML_ERROR_DRIVER_NOT_LOADED = 9
NVML_ERROR_TIMEOUT = 10
NVML_ERROR_LIBRARY_NOT_FOUND = 12
NVML_ERROR_FUNCTION_NOT_FOUND = 13
NVML_ERROR_GPU_IS_LOST = 15
NVML_ERROR_RESET_REQUIRED = 16
NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25
NVML_ERROR_UNKNOWN = 999

_NAMES = {
    NVML_ERROR_UNINITIALIZED: "Uninitialized",
    NVML_ERROR_NOT_SUPPORTED: "Not Supported",
    NVML_ERROR_NO_PERMISSION: "Insufficient Permissions",
    NVML_ERROR_DRIVER_NOT_LOADED: "Driver Not Loaded",
    NVML_ERROR_TIMEOUT: "Timeout",
    NVML_ERROR_LIBRARY_NOT_FOUND: "NVML Shared Library Not Found",
    NVML_ERROR_FUNCTION_NOT_FOUND: "Function Not Found",
    NVML_ERROR_GPU_IS_LOST: "GPU is lost",
    NVML_ERROR_UNKNOWN: "Unknown Error",
}


class NVMLError(Exception):
    def __init__(self, value: int) -> None:
        super().__init__(value)
        self.value = value

    def __str__(self) -> str:
        return _NAMES.get(self.value, f"NVML Error with code {self.value}")


@dataclass
class FakeDevice:
    name: str = "NVIDIA GeForce RTX 4090"
    uuid: str = "GPU-00000000-0000-0000-0000-000000000000"
    bus_id: bytes = b"00000000:01:00.0"
    total: int = 24 * 1024**3
    reserved: int = 300 * 1024**2
    used: int = 2 * 1024**3
    bus_width: int = 384
    max_mem_clock: int = 10501
    cc: tuple[int, int] = (8, 9)
    power_limit_mw: int = 450_000
    mig: tuple[int, int] = (0, 0)
    gpu_util: int = 90
    mem_util: int = 50
    pcie_rx_kb: int = 1000
    pcie_tx_kb: int = 500
    sm_clock: int = 2520
    mem_clock: int = 10501
    power_mw: int = 300_000
    temp: int = 65
    fan: int = 40
    throttle: int = 0x4
    gpm: bool = False
    dram_bw_util: float = 42.0
    compute: list[tuple[int, int | None]] = field(default_factory=lambda: [(1234, 1024**3)])
    graphics: list[tuple[int, int | None]] = field(default_factory=list)


class FakePynvml:
    """An instance behaves like the pynvml module."""

    NVMLError = NVMLError
    NVML_SUCCESS = NVML_SUCCESS
    NVML_ERROR_UNINITIALIZED = NVML_ERROR_UNINITIALIZED
    NVML_ERROR_NOT_SUPPORTED = NVML_ERROR_NOT_SUPPORTED
    NVML_ERROR_NO_PERMISSION = NVML_ERROR_NO_PERMISSION
    NVML_ERROR_DRIVER_NOT_LOADED = NVML_ERROR_DRIVER_NOT_LOADED
    NVML_ERROR_TIMEOUT = NVML_ERROR_TIMEOUT
    NVML_ERROR_LIBRARY_NOT_FOUND = NVML_ERROR_LIBRARY_NOT_FOUND
    NVML_ERROR_FUNCTION_NOT_FOUND = NVML_ERROR_FUNCTION_NOT_FOUND
    NVML_ERROR_GPU_IS_LOST = NVML_ERROR_GPU_IS_LOST
    NVML_ERROR_RESET_REQUIRED = NVML_ERROR_RESET_REQUIRED
    NVML_ERROR_ARGUMENT_VERSION_MISMATCH = NVML_ERROR_ARGUMENT_VERSION_MISMATCH
    NVML_ERROR_UNKNOWN = NVML_ERROR_UNKNOWN
    NVML_TEMPERATURE_GPU = 0
    NVML_CLOCK_SM = 1
    NVML_CLOCK_MEM = 2
    NVML_PCIE_UTIL_TX_BYTES = 0
    NVML_PCIE_UTIL_RX_BYTES = 1
    nvmlMemory_v2 = 0x02000028
    NVML_GPM_METRIC_DRAM_BW_UTIL = 10
    NVML_GPM_METRICS_GET_VERSION = 1

    def __init__(self, devices: list[FakeDevice] | None = None) -> None:
        self.devices = devices if devices is not None else [
            FakeDevice(),
            FakeDevice(name="NVIDIA H100 80GB HBM3", uuid="GPU-11111111", total=80 * 1024**3,
                       bus_width=5120, max_mem_clock=2619, cc=(9, 0), gpm=True,
                       bus_id=b"00000000:02:00.0", compute=[(5678, 40 * 1024**3)]),
        ]
        self.init_error: int | None = None
        self.initialized = False
        self.init_calls = 0
        self.shutdown_calls = 0
        self.init_thread: str | None = None
        self.shutdown_thread: str | None = None
        self.calls: Counter[tuple[str, int | None]] = Counter()
        self._failures: dict[tuple[str, int | None], int] = {}
        self._hangs: dict[str, threading.Event] = {}
        self.hanging = threading.Event()  # set while a call is blocked in a hang
        self.gpm_allocated = 0
        self.has_memory_v2 = True

    # -- scripting --------------------------------------------------------------------------

    def fail(self, name: str, code: int, device: int | None = None) -> None:
        self._failures[(name, device)] = code

    def unfail(self, name: str, device: int | None = None) -> None:
        self._failures.pop((name, device), None)

    def hang(self, name: str) -> threading.Event:
        ev = threading.Event()
        self._hangs[name] = ev
        return ev

    def release(self) -> None:
        for ev in self._hangs.values():
            ev.set()
        self._hangs.clear()

    def count(self, name: str, device: int | None = None) -> int:
        return self.calls[(name, device)]

    def _enter(self, name: str, handle: int | None = None) -> FakeDevice | None:
        self.calls[(name, handle)] += 1
        if not self.initialized and name != "nvmlInit":
            raise NVMLError(NVML_ERROR_UNINITIALIZED)
        for key in ((name, handle), (name, None)):
            if key in self._failures:
                raise NVMLError(self._failures[key])
        ev = self._hangs.get(name)
        if ev is not None:
            self.hanging.set()
            ev.wait()
        return None if handle is None else self.devices[handle]

    # -- library ----------------------------------------------------------------------------

    def nvmlInit(self) -> None:
        self.init_calls += 1
        self.init_thread = threading.current_thread().name
        self._enter("nvmlInit")
        if self.init_error is not None:
            raise NVMLError(self.init_error)
        self.initialized = True

    def nvmlShutdown(self) -> None:
        self.shutdown_calls += 1
        self.shutdown_thread = threading.current_thread().name
        self._enter("nvmlShutdown")
        self.initialized = False

    def nvmlSystemGetDriverVersion(self) -> str:
        self._enter("nvmlSystemGetDriverVersion")
        return "550.54.15"

    def nvmlSystemGetCudaDriverVersion(self) -> int:
        self._enter("nvmlSystemGetCudaDriverVersion")
        return 12040

    def nvmlDeviceGetCount(self) -> int:
        self._enter("nvmlDeviceGetCount")
        return len(self.devices)

    def nvmlDeviceGetHandleByIndex(self, index: int) -> int:
        self._enter("nvmlDeviceGetHandleByIndex", index)
        return index  # the handle is the index

    # -- static -----------------------------------------------------------------------------

    def nvmlDeviceGetName(self, h: int) -> str:
        return self._enter("nvmlDeviceGetName", h).name

    def nvmlDeviceGetUUID(self, h: int) -> str:
        return self._enter("nvmlDeviceGetUUID", h).uuid

    def nvmlDeviceGetPciInfo(self, h: int) -> Any:
        return SimpleNamespace(busId=self._enter("nvmlDeviceGetPciInfo", h).bus_id)

    def nvmlDeviceGetMemoryBusWidth(self, h: int) -> int:
        return self._enter("nvmlDeviceGetMemoryBusWidth", h).bus_width

    def nvmlDeviceGetMaxClockInfo(self, h: int, clock_type: int) -> int:
        d = self._enter("nvmlDeviceGetMaxClockInfo", h)
        return d.max_mem_clock if clock_type == self.NVML_CLOCK_MEM else 2520

    def nvmlDeviceGetCudaComputeCapability(self, h: int) -> tuple[int, int]:
        return self._enter("nvmlDeviceGetCudaComputeCapability", h).cc

    def nvmlDeviceGetEnforcedPowerLimit(self, h: int) -> int:
        return self._enter("nvmlDeviceGetEnforcedPowerLimit", h).power_limit_mw

    def nvmlDeviceGetMigMode(self, h: int) -> list[int]:
        return list(self._enter("nvmlDeviceGetMigMode", h).mig)

    # -- dynamic ----------------------------------------------------------------------------

    def nvmlDeviceGetMemoryInfo(self, h: int, version: int | None = None) -> Any:
        d = self._enter("nvmlDeviceGetMemoryInfo", h)
        if version:
            if not self.has_memory_v2:
                raise NVMLError(NVML_ERROR_FUNCTION_NOT_FOUND)
            return SimpleNamespace(version=version, total=d.total, reserved=d.reserved,
                                   used=d.used, free=d.total - d.reserved - d.used)
        return SimpleNamespace(total=d.total, used=d.used + d.reserved,
                               free=d.total - d.reserved - d.used)

    def nvmlDeviceGetUtilizationRates(self, h: int) -> Any:
        d = self._enter("nvmlDeviceGetUtilizationRates", h)
        return SimpleNamespace(gpu=d.gpu_util, memory=d.mem_util)

    def nvmlDeviceGetPcieThroughput(self, h: int, counter: int) -> int:
        d = self._enter("nvmlDeviceGetPcieThroughput", h)
        return d.pcie_rx_kb if counter == self.NVML_PCIE_UTIL_RX_BYTES else d.pcie_tx_kb

    def nvmlDeviceGetClockInfo(self, h: int, clock_type: int) -> int:
        d = self._enter("nvmlDeviceGetClockInfo", h)
        return d.mem_clock if clock_type == self.NVML_CLOCK_MEM else d.sm_clock

    def nvmlDeviceGetPowerUsage(self, h: int) -> int:
        return self._enter("nvmlDeviceGetPowerUsage", h).power_mw

    def nvmlDeviceGetTemperature(self, h: int, sensor: int) -> int:
        return self._enter("nvmlDeviceGetTemperature", h).temp

    def nvmlDeviceGetFanSpeed(self, h: int) -> int:
        return self._enter("nvmlDeviceGetFanSpeed", h).fan

    def nvmlDeviceGetCurrentClocksEventReasons(self, h: int) -> int:
        return self._enter("nvmlDeviceGetCurrentClocksEventReasons", h).throttle

    def nvmlDeviceGetComputeRunningProcesses(self, h: int) -> list[Any]:
        d = self._enter("nvmlDeviceGetComputeRunningProcesses", h)
        return [SimpleNamespace(pid=p, usedGpuMemory=m) for p, m in d.compute]

    def nvmlDeviceGetGraphicsRunningProcesses(self, h: int) -> list[Any]:
        d = self._enter("nvmlDeviceGetGraphicsRunningProcesses", h)
        return [SimpleNamespace(pid=p, usedGpuMemory=m) for p, m in d.graphics]

    # -- GPM --------------------------------------------------------------------------------

    def nvmlGpmQueryDeviceSupport(self, h: int) -> Any:
        d = self._enter("nvmlGpmQueryDeviceSupport", h)
        return SimpleNamespace(version=1, isSupportedDevice=int(d.gpm))

    def nvmlGpmSampleAlloc(self) -> Any:
        self._enter("nvmlGpmSampleAlloc")
        self.gpm_allocated += 1
        return SimpleNamespace(device=None)

    def nvmlGpmSampleFree(self, sample: Any) -> None:
        self._enter("nvmlGpmSampleFree")
        self.gpm_allocated -= 1

    def nvmlGpmSampleGet(self, h: int, sample: Any) -> Any:
        self._enter("nvmlGpmSampleGet", h)
        sample.device = h
        return sample

    class c_nvmlGpmMetricsGet_t:
        def __init__(self) -> None:
            self.version = 0
            self.numMetrics = 0
            self.sample1 = None
            self.sample2 = None
            self.metrics = [SimpleNamespace(metricId=0, nvmlReturn=0, value=0.0)
                            for _ in range(4)]

    def nvmlGpmMetricsGet(self, mg: Any) -> Any:
        self._enter("nvmlGpmMetricsGet")
        h = mg.sample2.device
        for m in mg.metrics[: mg.numMetrics]:
            if m.metricId == self.NVML_GPM_METRIC_DRAM_BW_UTIL:
                m.value = self.devices[h].dram_bw_util
        return mg
