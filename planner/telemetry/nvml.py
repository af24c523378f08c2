"""The NVML backend: the only module in the project that imports pynvml (lazily).

Errors are mapped once, here:

- at open (nvmlInit): library not found, driver not loaded, no permission → BackendUnavailable
  with a sentence for the banner; the rest of the app keeps working.
- per field: NotSupported / NoPermission / FunctionNotFound → None, the reason goes into
  ``unavailable`` and the field is remembered in a per-card capability cache so it is not asked
  again (these answers do not change while the driver is loaded).
- GpuIsLost (and Unknown / ResetRequired, which is how a card that fell off the bus often
  answers) → that card's samples carry ``lost=True`` from then on and the card is not asked
  again (an NVML call to a lost card can take seconds); the other cards go on.
- any other NVML error on a field (timeout, a transient error) → None for this tick only.

Nothing loses a whole frame. All calls happen in the sampling thread: open() calls nvmlInit and
close() nvmlShutdown, so the thread that samples owns the library's lifetime.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from planner.i18n import QT_TRANSLATE_NOOP
from planner.telemetry.types import (
    BackendUnavailable,
    DeviceInfo,
    GpuSample,
    ProcessSample,
    frozen_mapping,
    peak_bandwidth_gbs,
)

__all__ = ["NO_DRIVER_MESSAGE", "NO_PERMISSION_MESSAGE", "BackendUnavailable", "NvmlBackend"]

log = logging.getLogger(__name__)

# Marked for translation (the ui shows them with tr_core); telemetry itself stays Qt-free.
NO_DRIVER_MESSAGE = QT_TRANSLATE_NOOP("core",
                                      "No NVIDIA driver found — planning and advice still work")
NO_PERMISSION_MESSAGE = QT_TRANSLATE_NOOP(
    "core", "Not permitted to read the NVIDIA driver (NVML: insufficient permissions) — "
    "planning and advice still work")

# Error codes (values from nvml.h; the injected module's own constants win when present).
_CODES = {
    "NVML_ERROR_NOT_SUPPORTED": 3,
    "NVML_ERROR_NO_PERMISSION": 4,
    "NVML_ERROR_DRIVER_NOT_LOADED": 9,
    "NVML_ERROR_LIBRARY_NOT_FOUND": 12,
    "NVML_ERROR_FUNCTION_NOT_FOUND": 13,
    "NVML_ERROR_GPU_IS_LOST": 15,
    "NVML_ERROR_RESET_REQUIRED": 16,
    "NVML_ERROR_ARGUMENT_VERSION_MISMATCH": 25,
    "NVML_ERROR_UNKNOWN": 999,
}

# Clock event ("throttle") reason bits → short names (nvml.h nvmlClocksEventReason*).
_THROTTLE_BITS = (
    (0x1, "gpu_idle"),
    (0x2, "app_clocks"),
    (0x4, "sw_power_cap"),
    (0x8, "hw_slowdown"),
    (0x10, "sync_boost"),
    (0x20, "sw_thermal"),
    (0x40, "hw_thermal"),
    (0x80, "hw_power_brake"),
    (0x100, "display_clocks"),
)


def throttle_names(mask: int) -> tuple[str, ...]:
    return tuple(name for bit, name in _THROTTLE_BITS if mask & bit)


class _Lost(Exception):
    """Internal: the card answered as lost."""


@dataclass
class _Card:
    index: int
    handle: Any
    info: DeviceInfo
    # capability cache: field → reason; these fields are never asked again
    disabled: dict[str, str] = field(default_factory=dict)
    lost: bool = False
    lost_reason: str = ""
    memory_v2: bool = True
    gpm_samples: list[Any] | None = None  # [previous, current] GPM sample handles


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def _process_name(pid: int) -> str:
    try:
        import psutil  # optional

        return psutil.Process(pid).name()
    except ImportError:
        pass
    except Exception:  # noqa: BLE001 - gone, zombie, access denied
        return "?"
    try:
        with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as f:
            return f.read().strip() or "?"
    except OSError:
        return "?"


def _process_user(pid: int) -> str | None:
    try:
        uid = os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None
    try:
        import pwd

        return pwd.getpwuid(uid).pw_name
    except (ImportError, KeyError):
        return str(uid)


class NvmlBackend:
    """Telemetry from NVML. ``nvml_module`` injects a pynvml-like object (tests use a fake)."""

    source = "nvml"

    def __init__(self, nvml_module: Any = None, *, process_every: int = 5,
                 process_name: Callable[[int], str] = _process_name,
                 process_user: Callable[[int], str | None] = _process_user,
                 use_gpm: bool = True) -> None:
        self._nvml = nvml_module
        self.process_every = max(1, int(process_every))
        self._process_name = process_name
        self._process_user = process_user
        self._use_gpm = use_gpm
        self._cards: list[_Card] = []
        self._tick = 0
        self._open = False
        self._lock = threading.Lock()
        self.driver_version: str | None = None
        self.cuda_version: str | None = None

    # -- error mapping ----------------------------------------------------------------------

    def _code(self, name: str) -> int:
        return getattr(self._nvml, name, _CODES[name])

    def _error_code(self, exc: BaseException) -> int | None:
        nvml_error = getattr(self._nvml, "NVMLError", None)
        if nvml_error is not None and isinstance(exc, nvml_error):
            return getattr(exc, "value", None)
        return None

    def _is_capability_error(self, code: int | None) -> bool:
        return code in (self._code("NVML_ERROR_NOT_SUPPORTED"),
                        self._code("NVML_ERROR_NO_PERMISSION"),
                        self._code("NVML_ERROR_FUNCTION_NOT_FOUND"))

    def _is_lost_error(self, code: int | None) -> bool:
        return code in (self._code("NVML_ERROR_GPU_IS_LOST"),
                        self._code("NVML_ERROR_UNKNOWN"),
                        self._code("NVML_ERROR_RESET_REQUIRED"))

    def _reason(self, exc: BaseException) -> str:
        code = self._error_code(exc)
        if code == self._code("NVML_ERROR_NOT_SUPPORTED"):
            return "not supported by this GPU or driver"
        if code == self._code("NVML_ERROR_NO_PERMISSION"):
            return "not permitted (insufficient permissions)"
        if code == self._code("NVML_ERROR_FUNCTION_NOT_FOUND"):
            return "not available in this driver version"
        if isinstance(exc, AttributeError):
            return "not available in this nvidia-ml-py version"
        return f"NVML error: {exc}"

    def _get(self, card: _Card, key: str, unavailable: dict[str, str],
             fn: Callable[[], Any]) -> Any:
        """Call fn for one field; None (with a reason) when it is not available."""
        if key in card.disabled:
            unavailable[key] = card.disabled[key]
            return None
        try:
            return fn()
        except AttributeError as exc:  # the pynvml in use lacks the function
            card.disabled[key] = self._reason(exc)
        except Exception as exc:
            code = self._error_code(exc)
            if code is None:
                unavailable[key] = f"error: {exc}"
                return None
            if self._is_lost_error(code):
                raise _Lost(str(exc)) from exc
            if self._is_capability_error(code):
                card.disabled[key] = self._reason(exc)
            else:
                unavailable[key] = self._reason(exc)
                return None
        unavailable[key] = card.disabled[key]
        return None

    # -- open / close -----------------------------------------------------------------------

    def open(self) -> list[DeviceInfo]:
        if self._nvml is None:
            try:
                import pynvml
            except ImportError as exc:
                raise BackendUnavailable(NO_DRIVER_MESSAGE,
                                         f"nvidia-ml-py is not installed: {exc}") from exc
            self._nvml = pynvml
        nv = self._nvml
        try:
            nv.nvmlInit()
        except Exception as exc:
            code = self._error_code(exc)
            if code == self._code("NVML_ERROR_NO_PERMISSION"):
                raise BackendUnavailable(NO_PERMISSION_MESSAGE, str(exc)) from exc
            # library not found, driver not loaded, and anything else at init
            raise BackendUnavailable(NO_DRIVER_MESSAGE, f"nvmlInit failed: {exc}") from exc
        self._open = True
        try:
            self.driver_version = _text(nv.nvmlSystemGetDriverVersion())
        except Exception:  # noqa: BLE001
            self.driver_version = None
        try:
            v = int(nv.nvmlSystemGetCudaDriverVersion())
            self.cuda_version = f"{v // 1000}.{(v % 1000) // 10}"
        except Exception:  # noqa: BLE001
            self.cuda_version = None
        try:
            count = int(nv.nvmlDeviceGetCount())
        except Exception as exc:
            self.close()
            raise BackendUnavailable(NO_DRIVER_MESSAGE,
                                     f"nvmlDeviceGetCount failed: {exc}") from exc
        self._cards = [self._open_card(i) for i in range(count)]
        self._tick = 0
        return [c.info for c in self._cards]

    def _open_card(self, index: int) -> _Card:
        nv = self._nvml
        try:
            handle = nv.nvmlDeviceGetHandleByIndex(index)
        except Exception as exc:  # noqa: BLE001
            info = DeviceInfo(index=index, name=f"GPU {index} (unreachable)", uuid=f"?{index}",
                              unavailable=frozen_mapping({"*": f"NVML error: {exc}"}))
            card = _Card(index, None, info, lost=True, lost_reason=str(exc))
            return card
        card = _Card(index, handle, DeviceInfo(index=index, name="?", uuid="?"))
        un: dict[str, str] = {}
        try:
            name = self._get(card, "name", un, lambda: _text(nv.nvmlDeviceGetName(handle)))
            uuid = self._get(card, "uuid", un, lambda: _text(nv.nvmlDeviceGetUUID(handle)))
            bus = self._get(card, "pci_bus_id", un,
                            lambda: _text(nv.nvmlDeviceGetPciInfo(handle).busId))
            total = self._memory_total(card, un)
            width = self._get(card, "memory_bus_width_bits", un,
                              lambda: int(nv.nvmlDeviceGetMemoryBusWidth(handle)))
            max_mem = self._get(card, "max_memory_clock_mhz", un,
                                lambda: int(nv.nvmlDeviceGetMaxClockInfo(
                                    handle, self._const("NVML_CLOCK_MEM", 2))))
            cc = self._get(card, "compute_capability", un,
                           lambda: "{}.{}".format(*nv.nvmlDeviceGetCudaComputeCapability(handle)))
            limit_mw = self._get(card, "power_limit_w", un,
                                 lambda: nv.nvmlDeviceGetEnforcedPowerLimit(handle))
            mig = self._get(card, "mig_mode", un,
                            lambda: bool(nv.nvmlDeviceGetMigMode(handle)[0]))
        except _Lost as exc:
            info = DeviceInfo(index=index, name=f"GPU {index} (lost)", uuid=f"?{index}",
                              unavailable=frozen_mapping({"*": f"GPU is lost: {exc}"}))
            return _Card(index, handle, info, lost=True, lost_reason=str(exc))
        peak = peak_bandwidth_gbs(width, max_mem)
        if peak is None:
            un["peak_bandwidth_gbs"] = "needs the memory bus width and maximum memory clock"
        card.info = DeviceInfo(
            index=index, name=name or f"GPU {index}", uuid=uuid or f"?{index}",
            pci_bus_id=bus, memory_total_bytes=total, memory_bus_width_bits=width,
            max_memory_clock_mhz=max_mem, peak_bandwidth_gbs=peak, compute_capability=cc,
            power_limit_w=None if limit_mw is None else limit_mw / 1000.0,
            mig_mode=mig, simulated=False, unavailable=frozen_mapping(un))
        if self._use_gpm:
            self._open_gpm(card)
        else:
            card.disabled["dram_bw_util_pct"] = "GPM sampling is turned off"
        return card

    def _const(self, name: str, default: int) -> int:
        return getattr(self._nvml, name, default)

    def _memory_info(self, card: _Card) -> Any:
        """The v2 memory struct (total/reserved/free/used, as nvidia-smi reports) or v1."""
        nv = self._nvml
        if card.memory_v2:
            version = getattr(nv, "nvmlMemory_v2", None)
            if version is not None:
                try:
                    return nv.nvmlDeviceGetMemoryInfo(card.handle, version=version)
                except TypeError:
                    pass  # an old pynvml without the version argument
                except Exception as exc:
                    code = self._error_code(exc)
                    if self._is_lost_error(code) or code is None:
                        raise
                    if not (self._is_capability_error(code)
                            or code == self._code("NVML_ERROR_ARGUMENT_VERSION_MISMATCH")):
                        raise
            card.memory_v2 = False
        return nv.nvmlDeviceGetMemoryInfo(card.handle)

    def _memory_total(self, card: _Card, un: dict[str, str]) -> int | None:
        mem = self._get(card, "memory", un, lambda: self._memory_info(card))
        if mem is None:
            un.setdefault("memory_total_bytes", un.get("memory", "not available"))
            return None
        return int(mem.total)

    def _open_gpm(self, card: _Card) -> None:
        """Allocate GPM samples where the card supports GPM (Hopper and newer)."""
        nv = self._nvml
        reason = "GPM metrics need a Hopper or newer GPU"
        try:
            support = nv.nvmlGpmQueryDeviceSupport(card.handle)
            if not getattr(support, "isSupportedDevice", 0):
                card.disabled["dram_bw_util_pct"] = reason
                return
            card.gpm_samples = [nv.nvmlGpmSampleAlloc(), nv.nvmlGpmSampleAlloc()]
            nv.nvmlGpmSampleGet(card.handle, card.gpm_samples[1])
        except Exception as exc:  # noqa: BLE001
            card.disabled["dram_bw_util_pct"] = (
                reason if isinstance(exc, AttributeError) or self._error_code(exc) is not None
                and self._is_capability_error(self._error_code(exc)) else f"GPM: {exc}")
            self._free_gpm(card)

    def _free_gpm(self, card: _Card) -> None:
        samples, card.gpm_samples = card.gpm_samples, None
        for s in samples or ():
            try:
                self._nvml.nvmlGpmSampleFree(s)
            except Exception as exc:  # noqa: BLE001
                log.debug("nvmlGpmSampleFree: %s", exc)

    def _gpm_dram_bw(self, card: _Card) -> float | None:
        nv = self._nvml
        if card.gpm_samples is None:
            raise AttributeError("GPM not set up")
        prev, cur = card.gpm_samples[1], card.gpm_samples[0]
        nv.nvmlGpmSampleGet(card.handle, cur)
        card.gpm_samples = [prev, cur]
        mg = nv.c_nvmlGpmMetricsGet_t()
        mg.version = nv.NVML_GPM_METRICS_GET_VERSION
        mg.numMetrics = 1
        mg.sample1 = prev
        mg.sample2 = cur
        mg.metrics[0].metricId = nv.NVML_GPM_METRIC_DRAM_BW_UTIL
        nv.nvmlGpmMetricsGet(mg)
        if getattr(mg.metrics[0], "nvmlReturn", 0):  # this metric failed on its own
            raise nv.NVMLError(mg.metrics[0].nvmlReturn)
        return float(mg.metrics[0].value)

    def close(self) -> None:
        if not self._open:
            return
        for card in self._cards:
            self._free_gpm(card)
        self._open = False
        try:
            self._nvml.nvmlShutdown()
        except Exception as exc:  # noqa: BLE001
            log.debug("nvmlShutdown: %s", exc)

    @property
    def devices(self) -> list[DeviceInfo]:
        return [c.info for c in self._cards]

    # -- sampling ---------------------------------------------------------------------------

    def sample(self) -> tuple[GpuSample, ...]:
        with_processes = self._tick % self.process_every == 0
        self._tick += 1
        return tuple(self._sample_card(c, with_processes) for c in self._cards)

    def _lost_sample(self, card: _Card) -> GpuSample:
        return GpuSample(index=card.index, uuid=card.info.uuid, lost=True,
                         unavailable=frozen_mapping({"*": f"GPU is lost: {card.lost_reason}"}))

    def _sample_card(self, card: _Card, with_processes: bool) -> GpuSample:
        if card.lost:
            return self._lost_sample(card)
        try:
            return self._read_card(card, with_processes)
        except _Lost as exc:
            card.lost = True
            card.lost_reason = str(exc)
            self._free_gpm(card)
            log.warning("GPU %d (%s) is lost: %s", card.index, card.info.name, exc)
            return self._lost_sample(card)

    def _read_card(self, card: _Card, with_processes: bool) -> GpuSample:
        nv = self._nvml
        h = card.handle
        un: dict[str, str] = {}
        get = self._get

        mem = get(card, "memory", un, lambda: self._memory_info(card))
        used = reserved = free = None
        if mem is not None:
            used, free = int(mem.used), int(mem.free)
            reserved = int(mem.reserved) if hasattr(mem, "reserved") else None
            if reserved is None:
                un["memory_reserved_bytes"] = "needs the v2 memory call (newer driver)"
        else:
            for k in ("memory_used_bytes", "memory_reserved_bytes", "memory_free_bytes"):
                un[k] = un["memory"]

        util = get(card, "utilization", un, lambda: nv.nvmlDeviceGetUtilizationRates(h))
        gpu_busy = mem_busy = None
        if util is not None:
            gpu_busy, mem_busy = float(util.gpu), float(util.memory)
        else:
            un["gpu_busy_pct"] = un["memory_busy_pct"] = un["utilization"]
        peak = card.info.peak_bandwidth_gbs
        bw_est = None
        if mem_busy is not None and peak is not None:
            bw_est = mem_busy / 100.0 * peak
        else:
            un["bandwidth_gbs_estimate"] = (
                un.get("memory_busy_pct") or "the card's peak bandwidth is unknown")

        dram = get(card, "dram_bw_util_pct", un, lambda: self._gpm_dram_bw(card))

        rx = get(card, "pcie_rx_bytes_s", un, lambda: 1024.0 * nv.nvmlDeviceGetPcieThroughput(
            h, self._const("NVML_PCIE_UTIL_RX_BYTES", 1)))
        tx = get(card, "pcie_tx_bytes_s", un, lambda: 1024.0 * nv.nvmlDeviceGetPcieThroughput(
            h, self._const("NVML_PCIE_UTIL_TX_BYTES", 0)))
        sm = get(card, "sm_clock_mhz", un,
                 lambda: int(nv.nvmlDeviceGetClockInfo(h, self._const("NVML_CLOCK_SM", 1))))
        mclk = get(card, "memory_clock_mhz", un,
                   lambda: int(nv.nvmlDeviceGetClockInfo(h, self._const("NVML_CLOCK_MEM", 2))))
        power = get(card, "power_draw_w", un, lambda: nv.nvmlDeviceGetPowerUsage(h) / 1000.0)
        temp = get(card, "temperature_c", un, lambda: float(
            nv.nvmlDeviceGetTemperature(h, self._const("NVML_TEMPERATURE_GPU", 0))))
        fan = get(card, "fan_pct", un, lambda: float(nv.nvmlDeviceGetFanSpeed(h)))
        throttle = get(card, "throttle_reasons", un, lambda: throttle_names(
            int(self._throttle_mask(h))))
        processes = self._processes(card, un) if with_processes else None
        un.pop("memory", None)
        un.pop("utilization", None)
        return GpuSample(
            index=card.index, uuid=card.info.uuid, memory_used_bytes=used,
            memory_reserved_bytes=reserved, memory_free_bytes=free, memory_busy_pct=mem_busy,
            bandwidth_gbs_estimate=bw_est, dram_bw_util_pct=dram, pcie_rx_bytes_s=rx,
            pcie_tx_bytes_s=tx, gpu_busy_pct=gpu_busy, sm_clock_mhz=sm, memory_clock_mhz=mclk,
            power_draw_w=power, temperature_c=temp, fan_pct=fan, throttle_reasons=throttle,
            processes=processes, lost=False, unavailable=frozen_mapping(un))

    def _throttle_mask(self, h: Any) -> int:
        """Clock event reasons (the newer name), falling back to the older throttle call."""
        nv = self._nvml
        fn = getattr(nv, "nvmlDeviceGetCurrentClocksEventReasons", None)
        if fn is not None:
            try:
                return fn(h)
            except Exception as exc:
                if self._error_code(exc) != self._code("NVML_ERROR_FUNCTION_NOT_FOUND"):
                    raise
        return nv.nvmlDeviceGetCurrentClocksThrottleReasons(h)

    def _processes(self, card: _Card, un: dict[str, str]) -> tuple[ProcessSample, ...] | None:
        nv = self._nvml
        h = card.handle
        merged: dict[int, int | None] = {}
        got_any = False
        for key, fname in (("compute_processes", "nvmlDeviceGetComputeRunningProcesses"),
                           ("graphics_processes", "nvmlDeviceGetGraphicsRunningProcesses")):
            procs = self._get(card, key, un, lambda fname=fname: getattr(nv, fname)(h))
            if procs is None:
                continue
            got_any = True
            for p in procs:
                pid = int(p.pid)
                mem = getattr(p, "usedGpuMemory", None)
                mem = None if mem is None else int(mem)
                old = merged.get(pid)
                merged[pid] = mem if old is None else max(old, mem or 0)
        if not got_any:
            un["processes"] = un.get("compute_processes", "not available")
            return None
        un.pop("compute_processes", None)
        un.pop("graphics_processes", None)
        return tuple(
            ProcessSample(pid=pid, name=self._process_name(pid), user=self._process_user(pid),
                          memory_used_bytes=mem)
            for pid, mem in sorted(merged.items()))
