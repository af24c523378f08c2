"""The `monitor` subcommand: JSON contract, readable lines, no-driver exit, recording."""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from fake_pynvml import NVML_ERROR_DRIVER_NOT_LOADED, NVML_ERROR_LIBRARY_NOT_FOUND

import planner.cli_monitor as cm
from planner.telemetry.nvml import NvmlBackend
from planner.telemetry.recorder import open_recording

DEVICE_KEYS = {"index", "name", "uuid", "memory_total_bytes", "memory_used_bytes",
               "memory_busy_pct", "bandwidth_gbs_estimate", "peak_bandwidth_gbs",
               "gpu_busy_pct", "power_w", "temperature_c", "processes"}
PROCESS_KEYS = {"pid", "name", "user", "memory_used_bytes"}


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="gpu-planner")
    cm.add_monitor_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["monitor", *argv])


def run(*argv: str, factory=None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    args = parse(*argv)
    code = args.func(args, backend_factory=factory, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_once_json_contract_with_demo():
    code, out, err = run("--demo", "--once", "--json")
    assert code == 0 and err == ""
    obj = json.loads(out)
    assert obj["source"] == "simulated"
    assert len(obj["devices"]) == cm.DEMO_DEVICES
    for d in obj["devices"]:
        assert DEVICE_KEYS <= set(d)
        assert "(simulated)" in d["name"]
        assert d["memory_used_bytes"] <= d["memory_total_bytes"]
        assert d["bandwidth_gbs_estimate"] <= d["peak_bandwidth_gbs"]
        for p in d["processes"]:
            assert set(p) == PROCESS_KEYS
    assert any(d["processes"] for d in obj["devices"])


def test_once_json_through_the_nvml_backend(fake_nvml):
    code, out, _ = run("--once", "--json", factory=lambda demo: NvmlBackend(fake_nvml))
    assert code == 0
    obj = json.loads(out)
    assert obj["source"] == "nvml"
    d0 = obj["devices"][0]
    assert d0["name"] == "NVIDIA GeForce RTX 4090" and d0["power_w"] == 300.0
    assert d0["processes"][0]["pid"] == 1234


@pytest.mark.parametrize("once", [True, False])
@pytest.mark.parametrize("code_", [NVML_ERROR_LIBRARY_NOT_FOUND, NVML_ERROR_DRIVER_NOT_LOADED])
def test_no_driver_exits_1_with_one_line(fake_nvml, once, code_):
    fake_nvml.init_error = code_
    argv = ("--once", "--json") if once else ("--interval", "0.1", "--duration", "2")
    code, out, err = run(*argv, factory=lambda demo: NvmlBackend(fake_nvml))
    assert code == 1 and out == ""
    lines = err.strip().splitlines()
    assert lines == ["No NVIDIA driver found — planning and advice still work; try --demo"]


def test_real_library_without_a_driver_in_a_subprocess(tmp_path):
    """The real code path on this machine: one line and exit 1 without a driver, JSON with one."""
    repo = Path(__file__).resolve().parents[3]
    code = ("import sys; from planner.cli_monitor import run_monitor, add_monitor_parser; "
            "import argparse; p = argparse.ArgumentParser(); "
            "add_monitor_parser(p.add_subparsers()); "
            "sys.exit(run_monitor(p.parse_args(['monitor', '--once', '--json'])))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=repo, timeout=60, check=False)
    assert "Traceback" not in proc.stderr
    if proc.returncode == 1:
        assert len(proc.stderr.strip().splitlines()) == 1
        assert "try --demo" in proc.stderr
    else:  # a machine with an NVIDIA driver
        assert proc.returncode == 0
        assert json.loads(proc.stdout)["source"] == "nvml"


def test_lines_until_duration():
    code, out, err = run("--demo", "--interval", "0.1", "--duration", "0.35")
    assert code == 0 and err == ""
    lines = out.strip().splitlines()
    assert len(lines) >= 2 * cm.DEMO_DEVICES
    assert "(simulated)" in lines[0] and "mem-ctrl busy" in lines[0] and "est." in lines[0]


def test_json_lines_and_record(tmp_path):
    rec = tmp_path / "r.sqlite"
    code, out, _ = run("--demo", "--json", "--interval", "0.1", "--duration", "0.35",
                       "--record", str(rec))
    assert code == 0
    objs = [json.loads(line) for line in out.strip().splitlines()]
    assert len(objs) >= 2 and all(o["source"] == "simulated" for o in objs)
    with open_recording(rec) as r:
        assert len(list(r.frames())) == len(objs)


def test_ctrl_c_exits_0_cleanly():
    class Interrupting(io.StringIO):
        def write(self, s):
            raise KeyboardInterrupt

    args = parse("--demo", "--interval", "0.1")
    err = io.StringIO()
    assert args.func(args, out=Interrupting(), err=err) == 0
    assert err.getvalue() == ""


@pytest.mark.parametrize("bad", [["--interval", "0.01"], ["--interval", "11"],
                                 ["--interval", "x"], ["--duration", "0"]])
def test_bad_options_are_usage_errors(bad, capsys):
    with pytest.raises(SystemExit) as exc:
        parse(*bad)
    assert exc.value.code == 2


def test_unwritable_record_file(tmp_path):
    bad = tmp_path / "x.sqlite"
    bad.write_bytes(b"garbage" * 100)
    code, _, err = run("--demo", "--once", "--record", str(bad))
    assert code == 2 and "cannot record" in err


def test_lost_card_line():
    from planner.telemetry.simulated import SimulatedBackend

    code, out, _ = run("--once", factory=lambda demo: SimulatedBackend(
        2, lose_device=(1, 0.0)))
    assert code == 0 and "LOST" in out.splitlines()[1]
