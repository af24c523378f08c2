"""NvmlBackend against the scripted fake: inventory, fields, and the fault matrix."""

from __future__ import annotations

import builtins

import pytest
from fake_pynvml import (
    NVML_ERROR_DRIVER_NOT_LOADED,
    NVML_ERROR_FUNCTION_NOT_FOUND,
    NVML_ERROR_GPU_IS_LOST,
    NVML_ERROR_LIBRARY_NOT_FOUND,
    NVML_ERROR_NO_PERMISSION,
    NVML_ERROR_NOT_SUPPORTED,
    NVML_ERROR_TIMEOUT,
    NVML_ERROR_UNKNOWN,
)

from planner.telemetry.nvml import (
    NO_DRIVER_MESSAGE,
    BackendUnavailable,
    NvmlBackend,
    throttle_names,
)

GIB = 1024**3


def _backend(fake, **kw):
    kw.setdefault("process_name", lambda pid: f"proc{pid}")
    kw.setdefault("process_user", lambda pid: "alice")
    return NvmlBackend(nvml_module=fake, **kw)


def test_inventory(fake_nvml):
    b = _backend(fake_nvml)
    devices = b.open()
    assert [d.index for d in devices] == [0, 1]
    d0 = devices[0]
    assert d0.name == "NVIDIA GeForce RTX 4090"
    assert d0.pci_bus_id == "00000000:01:00.0"  # bytes decoded
    assert d0.memory_total_bytes == 24 * GIB
    assert d0.memory_bus_width_bits == 384
    assert d0.max_memory_clock_mhz == 10501
    assert d0.peak_bandwidth_gbs == pytest.approx(1008.1, abs=0.1)
    assert d0.compute_capability == "8.9"
    assert d0.power_limit_w == 450.0
    assert d0.mig_mode is False
    assert d0.simulated is False
    assert b.driver_version == "550.54.15"
    assert b.cuda_version == "12.4"
    b.close()
    assert fake_nvml.shutdown_calls == 1


def test_sample_fields(fake_nvml):
    b = _backend(fake_nvml)
    b.open()
    s0, s1 = b.sample()
    assert s0.memory_used_bytes == 2 * GIB
    assert s0.memory_reserved_bytes == 300 * 1024**2
    assert s0.memory_free_bytes == 24 * GIB - 2 * GIB - 300 * 1024**2
    assert s0.memory_busy_pct == 50.0
    assert s0.gpu_busy_pct == 90.0
    assert s0.bandwidth_gbs_estimate == pytest.approx(0.5 * 1008.1, abs=0.1)
    assert s0.pcie_rx_bytes_s == 1000 * 1024 and s0.pcie_tx_bytes_s == 500 * 1024
    assert s0.sm_clock_mhz == 2520 and s0.memory_clock_mhz == 10501
    assert s0.power_draw_w == 300.0 and s0.temperature_c == 65.0 and s0.fan_pct == 40.0
    assert s0.throttle_reasons == ("sw_power_cap",)
    assert s0.processes[0].pid == 1234
    assert s0.processes[0].name == "proc1234" and s0.processes[0].user == "alice"
    assert s0.processes[0].memory_used_bytes == GIB
    # GPM only on the Hopper card
    assert s0.dram_bw_util_pct is None and "Hopper" in s0.unavailable["dram_bw_util_pct"]
    assert s1.dram_bw_util_pct == 42.0
    assert not s0.lost and not s1.lost
    b.close()
    assert fake_nvml.gpm_allocated == 0


def test_processes_at_slower_cadence_and_merged(fake_nvml):
    fake_nvml.devices[0].graphics = [(1234, 512 * 1024**2), (99, None)]
    b = _backend(fake_nvml, process_every=3)
    b.open()
    got = [b.sample()[0].processes for _ in range(6)]
    assert [p is not None for p in got] == [True, False, False, True, False, False]
    procs = {p.pid: p.memory_used_bytes for p in got[0]}
    assert procs == {99: None, 1234: GIB}
    assert fake_nvml.count("nvmlDeviceGetComputeRunningProcesses", 0) == 2
    b.close()


def test_real_process_lookup_handles_missing_pid(fake_nvml):
    fake_nvml.devices[0].compute = [(2**22 + 12345, GIB)]  # no such pid
    b = NvmlBackend(nvml_module=fake_nvml)
    b.open()
    p = b.sample()[0].processes[0]
    assert p.name == "?" and p.user is None
    b.close()


@pytest.mark.parametrize("code", [NVML_ERROR_LIBRARY_NOT_FOUND, NVML_ERROR_DRIVER_NOT_LOADED])
def test_no_driver_is_backend_unavailable(fake_nvml, code):
    fake_nvml.init_error = code
    with pytest.raises(BackendUnavailable) as exc:
        _backend(fake_nvml).open()
    assert str(exc.value) == NO_DRIVER_MESSAGE
    assert exc.value.reason


def test_no_permission_at_init(fake_nvml):
    fake_nvml.init_error = NVML_ERROR_NO_PERMISSION
    with pytest.raises(BackendUnavailable) as exc:
        _backend(fake_nvml).open()
    assert "permi" in str(exc.value).lower()


def test_pynvml_not_installed(monkeypatch):
    real_import = builtins.__import__

    def fake_import(name, *a, **kw):
        if name == "pynvml":
            raise ImportError("No module named 'pynvml'")
        return real_import(name, *a, **kw)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(BackendUnavailable) as exc:
        NvmlBackend().open()
    assert str(exc.value) == NO_DRIVER_MESSAGE


def test_importing_the_module_does_not_import_pynvml():
    import subprocess
    import sys

    code = ("import sys; import planner.telemetry.nvml, planner.telemetry.sampler; "
            "assert 'pynvml' not in sys.modules, 'pynvml imported at module import'")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("code", [NVML_ERROR_NOT_SUPPORTED, NVML_ERROR_NO_PERMISSION,
                                  NVML_ERROR_FUNCTION_NOT_FOUND])
def test_unsupported_field_is_none_with_reason_and_not_asked_again(fake_nvml, code):
    fake_nvml.fail("nvmlDeviceGetFanSpeed", code, device=0)
    b = _backend(fake_nvml)
    b.open()
    first = b.sample()
    assert first[0].fan_pct is None
    assert first[0].unavailable["fan_pct"]
    assert first[1].fan_pct == 40.0  # the other card is asked as usual
    assert fake_nvml.count("nvmlDeviceGetFanSpeed", 0) == 1
    second = b.sample()
    assert second[0].fan_pct is None and second[0].unavailable["fan_pct"]
    assert fake_nvml.count("nvmlDeviceGetFanSpeed", 0) == 1  # cached: not asked again
    assert fake_nvml.count("nvmlDeviceGetFanSpeed", 1) == 2
    b.close()


def test_unsupported_static_field(fake_nvml):
    fake_nvml.fail("nvmlDeviceGetMemoryBusWidth", NVML_ERROR_NOT_SUPPORTED, device=0)
    b = _backend(fake_nvml)
    d0 = b.open()[0]
    assert d0.memory_bus_width_bits is None and d0.peak_bandwidth_gbs is None
    assert "memory_bus_width_bits" in d0.unavailable
    s0 = b.sample()[0]
    assert s0.memory_busy_pct == 50.0
    assert s0.bandwidth_gbs_estimate is None and s0.unavailable["bandwidth_gbs_estimate"]
    b.close()


def test_transient_error_is_none_this_tick_only(fake_nvml):
    fake_nvml.fail("nvmlDeviceGetTemperature", NVML_ERROR_TIMEOUT, device=0)
    b = _backend(fake_nvml)
    b.open()
    s = b.sample()[0]
    assert s.temperature_c is None and "Timeout" in s.unavailable["temperature_c"]
    fake_nvml.unfail("nvmlDeviceGetTemperature", device=0)
    assert b.sample()[0].temperature_c == 65.0
    b.close()


def test_memory_v1_fallback(fake_nvml):
    fake_nvml.has_memory_v2 = False
    b = _backend(fake_nvml)
    assert b.open()[0].memory_total_bytes == 24 * GIB
    s = b.sample()[0]
    assert s.memory_used_bytes == 2 * GIB + 300 * 1024**2  # v1 "used" includes reserved
    assert s.memory_reserved_bytes is None and "memory_reserved_bytes" in s.unavailable
    b.close()


@pytest.mark.parametrize("code", [NVML_ERROR_GPU_IS_LOST, NVML_ERROR_UNKNOWN])
def test_gpu_lost_mid_run_other_card_continues(fake_nvml, code):
    b = _backend(fake_nvml)
    b.open()
    assert not any(s.lost for s in b.sample())
    fake_nvml.fail("nvmlDeviceGetUtilizationRates", code, device=1)
    s0, s1 = b.sample()
    assert s1.lost and s1.memory_used_bytes is None and s1.index == 1
    assert not s0.lost and s0.gpu_busy_pct == 90.0
    calls_before = sum(n for (_, dev), n in fake_nvml.calls.items() if dev == 1)
    s0, s1 = b.sample()
    assert s1.lost and not s0.lost
    # a lost card is not asked again
    assert sum(n for (_, dev), n in fake_nvml.calls.items() if dev == 1) == calls_before
    b.close()


def test_card_lost_at_open(fake_nvml):
    fake_nvml.fail("nvmlDeviceGetName", NVML_ERROR_GPU_IS_LOST, device=0)
    b = _backend(fake_nvml)
    devices = b.open()
    assert "lost" in devices[0].name
    assert devices[1].name == "NVIDIA H100 80GB HBM3"
    s0, s1 = b.sample()
    assert s0.lost and not s1.lost
    b.close()


def test_throttle_names():
    assert throttle_names(0) == ()
    assert throttle_names(0x1 | 0x40) == ("gpu_idle", "hw_thermal")


def test_throttle_falls_back_to_the_older_call(fake_nvml):
    fake_nvml.fail("nvmlDeviceGetCurrentClocksEventReasons", NVML_ERROR_FUNCTION_NOT_FOUND)
    fake_nvml.nvmlDeviceGetCurrentClocksThrottleReasons = lambda h: 0x1
    b = _backend(fake_nvml)
    b.open()
    assert b.sample()[0].throttle_reasons == ("gpu_idle",)
    b.close()


def test_gpm_metric_failure_is_not_available(fake_nvml):
    real = fake_nvml.nvmlGpmMetricsGet

    def failing(mg):
        real(mg)
        mg.metrics[0].nvmlReturn = NVML_ERROR_NOT_SUPPORTED
        return mg

    fake_nvml.nvmlGpmMetricsGet = failing
    b = _backend(fake_nvml)
    b.open()
    s1 = b.sample()[1]
    assert s1.dram_bw_util_pct is None and s1.unavailable["dram_bw_util_pct"]
    b.close()
