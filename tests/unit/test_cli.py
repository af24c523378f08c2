"""The CLI contract scripts rely on: JSON keys and types, exit status 2 with one line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from planner.cli import run

BYTE_KEYS = {"weights", "gradients", "optimizer", "activations", "workspace", "overhead", "peak"}


def call(capsys, *argv):
    code = run(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_estimate_json_contract(capsys):
    code, out, err = call(capsys, "estimate", "preset:vgg16", "--batch", "32", "--json",
                          "--memory", "24")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["parameters"] == 138_357_544
    assert BYTE_KEYS <= set(data["bytes"])
    assert all(isinstance(v, int) for v in data["bytes"].values())
    assert data["bytes"]["peak"] == sum(v for k, v in data["bytes"].items() if k != "peak")
    assert isinstance(data["max_batch"], int) and data["max_batch"] > 32
    layer = data["layers"][1]
    assert set(layer) >= {"name", "type", "output_shape", "parameters", "activation_bytes",
                          "flops"}
    assert layer["type"] == "conv2d" and layer["output_shape"] == [64, 224, 224]
    assert data["classic"][0]["name"] == "input" and isinstance(data["classic"][0]["bytes"], int)


def test_estimate_options_change_the_numbers(capsys):
    def peak(*extra):
        code, out, _ = call(capsys, "estimate", "preset:seed-example", "--json", *extra)
        assert code == 0
        return json.loads(out)["bytes"]["peak"]

    base = peak()
    assert peak("--precision", "fp16") < base
    assert peak("--batch", "64") < base
    assert peak("--mode", "infer") < base
    assert peak("--input", "3x125x125") < base
    assert peak("--optimizer", "adam") > peak("--optimizer", "sgd")


def test_estimate_plan_file(tmp_path, capsys):
    from planner.core.network import save_plan
    from planner.core.presets import load_preset

    d, s = load_preset("resnet18")
    save_plan(tmp_path / "mine.json", d, s)
    code, out, _ = call(capsys, "estimate", str(tmp_path / "mine.json"), "--json")
    assert code == 0 and json.loads(out)["parameters"] == 11_689_512


@pytest.mark.parametrize("argv,needle", [
    (["estimate", "preset:nope"], "no preset named 'nope'"),
    (["estimate", "preset:vgg"], "did you mean"),
    (["estimate", "preset:vgg16", "--batch", "0"], "batch size 0"),
    (["estimate", "preset:vgg16", "--batch", "x"], "invalid int value"),
    (["estimate", "preset:vgg16", "--precision", "fp8"], "invalid choice"),
    (["estimate", "preset:vgg16", "--input", "3x20x20"], "layer 31 (features.30)"),
    (["estimate", "preset:vgg16", "--input", "axb"], "--input 'a' is not a number"),
    (["estimate", "preset:vgg16", "--memory", "-1"], "--memory"),
    (["estimate", "/no/such/plan.json"], "no such file"),
    (["estimate"], "required"),
    (["frobnicate"], "invalid choice"),
])
def test_bad_input_exits_2_with_one_line(capsys, argv, needle):
    code, out, err = call(capsys, *argv)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert needle in lines[0]
    assert "Traceback" not in err


def test_bad_plan_file_names_field(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": 1, "layers": [{"type": "input", "name": "i"}, '
                   '{"type": "conv2d", "name": "c", "kernel": "big"}]}')
    code, _, err = call(capsys, "estimate", str(bad))
    assert code == 2 and "layers[1].kernel" in err


def test_presets_json(capsys):
    code, out, _ = call(capsys, "presets", "--json")
    assert code == 0
    names = [p["name"] for p in json.loads(out)]
    assert names[:2] == ["seed-example", "seed-reduced"] and "lstm-1024" in names


def test_human_output_lists_terms_and_layers(capsys):
    code, out, _ = call(capsys, "estimate", "preset:seed-example", "--memory", "12")
    assert code == 0
    assert "Activations kept for backward" in out and "Peak" in out
    assert "Largest batch in 12 GiB" in out and "conv3" in out


def test_module_entry_point_runs_cli_without_qt():
    """`python -m planner estimate ...` answers without importing Qt."""
    code = ("import sys, runpy; sys.argv=['planner','presets']; "
            "import planner.app as a; rc=a.main(['presets']); "
            "assert not any(m.startswith(('PySide6','pyqtgraph')) for m in sys.modules), "
            "'Qt loaded'; print('ok', rc)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("ok 0")


def test_subcommand_options_named_like_window_flags_stay_in_the_cli():
    """`gpu-planner monitor --demo --once --json` is the CLI (no window, no Qt), although
    `--demo` alone starts the window on the simulated source."""
    code = ("import sys, json, io, contextlib; import planner.app as a\n"
            "buf = io.StringIO()\n"
            "with contextlib.redirect_stdout(buf):\n"
            "    rc = a.main(['monitor', '--demo', '--once', '--json'])\n"
            "assert rc == 0, rc\n"
            "assert json.loads(buf.getvalue())['source'] == 'simulated'\n"
            "assert not any(m.startswith(('PySide6', 'pyqtgraph')) for m in sys.modules)\n"
            "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("ok")


def test_estimate_json_has_the_timeline_and_where_the_peak_is(capsys):
    code, out, _ = call(capsys, "estimate", "preset:resnet18", "--batch", "16", "--json")
    assert code == 0
    data = json.loads(out)
    timeline = data["timeline"]
    phases = [p["phase"] for p in timeline]
    layers = json.loads(out)["layers"]
    # One point per layer boundary: every layer's forward, the loss, every layer's backward
    # (the input has none), the optimizer step.
    assert phases.count("forward") == len(layers)
    assert phases.count("backward") == len(layers) - 1 + 1  # + the loss's backward
    assert phases[-1] == "optimizer"
    peak_value = max(p["allocated_bytes"] for p in timeline)
    assert peak_value == data["allocated_bytes"]
    assert data["bytes"]["peak"] == data["allocated_bytes"] + data["bytes"]["overhead"]
    at = data["peak_at"]
    assert at["phase"] == "backward" and at["layer"] in {layer["name"] for layer in layers}
    assert data["reserved_bytes"] >= data["allocated_bytes"]
    assert data["nvidia_smi_bytes"] == data["reserved_bytes"] + data["bytes"]["overhead"]


def test_assumptions_file_changes_the_estimate(tmp_path, capsys):
    def peak(*extra):
        code, out, err = call(capsys, "estimate", "preset:resnet18", "--json", *extra)
        assert code == 0, err
        return json.loads(out)

    base = peak()
    f = tmp_path / "a.json"
    f.write_text(json.dumps({"cuda_context_bytes": 1 << 30, "allocator_model": False}))
    changed = peak("--assumptions", str(f))
    assert changed["bytes"]["overhead"] == (1 << 30) + 150 * 2**20
    assert changed["bytes"]["allocator"] == 0 and base["bytes"]["allocator"] > 0
    assert changed["reserved_bytes"] == changed["allocated_bytes"]
    code, out, err = call(capsys, "fit", "preset:resnet18", "--json", "--assumptions", str(f))
    assert code == 0 and json.loads(out)[0]["peak_bytes"] == changed["bytes"]["peak"]


@pytest.mark.parametrize("content,needle", [
    ('{"cuda_context_bytes": -1}', "cuda_context_bytes"),
    ('{"cuda_contxt": 5}', "cuda_contxt: unknown field"),
    ('{"allocator_model": "no"}', "allocator_model"),
    ("[1, 2]", "JSON object"),
    ("{not json", "not JSON"),
])
def test_bad_assumptions_file_names_the_field(tmp_path, capsys, content, needle):
    f = tmp_path / "a.json"
    f.write_text(content)
    for cmd in (["estimate", "preset:resnet18"], ["fit", "preset:resnet18"],
                ["advise", "--profile", "starting"]):
        code, out, err = call(capsys, *cmd, "--assumptions", str(f))
        assert code == 2 and out == ""
        assert needle in err and err.count("\n") == 1


def test_estimate_and_fit_use_the_plan_files_parallel_setup_unless_flags_override(
        capsys, tmp_path):
    """A plan saved on 4 GPUs × 2 nodes with ZeRO-3 is estimated that way (per GPU, global
    batch 8 × the batch); --gpus/--nodes/--strategy override the saved values one by one."""
    from planner.core.network import save_plan
    from planner.core.presets import load_preset

    draft, setup = load_preset("resnet50")
    path = tmp_path / "eight.json"
    save_plan(path, draft, setup, {"gpus": 4, "nodes": 2, "strategy": "zero3"})
    code, out, _ = call(capsys, "estimate", str(path), "--json")
    assert code == 0
    par = json.loads(out)["parallel"]
    assert (par["gpus"], par["nodes"], par["strategy"]) == (4, 2, "zero3")
    assert par["global_batch"] == 8 * setup.batch_size
    code, out, _ = call(capsys, "estimate", str(path), "--json", "--strategy", "ddp")
    par = json.loads(out)["parallel"]
    assert (par["gpus"], par["nodes"], par["strategy"]) == (4, 2, "ddp")
    code, out, _ = call(capsys, "estimate", str(path), "--json", "--gpus", "1", "--nodes", "1")
    assert "parallel" not in json.loads(out)
    code, out, _ = call(capsys, "fit", str(path))
    assert code == 0 and "8 GPUs of each card (zero3)" in out
    # A file from before the setup was saved: one GPU, DDP.
    old = tmp_path / "old.json"
    save_plan(old, draft, setup)
    code, out, _ = call(capsys, "estimate", str(old), "--json")
    assert code == 0 and "parallel" not in json.loads(out)


def test_memory_format_flag_changes_the_speed_of_tensor_core_cards(capsys):
    """--memory-format channels_last drops cuDNN's NCHW transposes: an A100 in mixed
    precision runs faster; a GTX 1080 Ti (no tensor cores) the same."""
    speeds = {}
    for fmt in ("nchw", "channels_last"):
        code, out, _ = call(capsys, "fit", "preset:resnet50", "--batch", "128", "--precision",
                            "mixed", "--memory-format", fmt, "--json")
        assert code == 0
        speeds[fmt] = {r["name"]: r["samples_per_s"] for r in json.loads(out)}
    assert speeds["channels_last"]["A100 SXM4 80GB"] > 1.2 * speeds["nchw"]["A100 SXM4 80GB"]
    assert speeds["channels_last"]["GeForce GTX 1080 Ti"] == pytest.approx(
        speeds["nchw"]["GeForce GTX 1080 Ti"])
    code, _, err = call(capsys, "fit", "preset:resnet50", "--memory-format", "nhwc")
    assert code == 2


def test_a_peak_in_the_optimizer_step_is_named_as_such(tmp_path, capsys):
    """A wide linear layer at batch 1 under Adam peaks in the optimizer step, which has no layer:
    the text says "optimizer step", not "optimizer of optimizer"."""
    plan = tmp_path / "wide.json"
    plan.write_text('{"schema_version": 1, "layers": [{"type": "input", "name": "i", '
                    '"shape": [4096]}, {"type": "fc", "name": "wide", "units": 8192}]}')
    code, out, err = call(capsys, "estimate", str(plan), "--batch", "1", "--optimizer", "adam")
    assert code == 0, err
    line = next(x for x in out.splitlines() if "What is alive at the peak" in x)
    assert line.strip() == "What is alive at the peak (optimizer step):"
    code, out, err = call(capsys, "estimate", "preset:resnet50", "--batch", "16")
    assert "What is alive at the peak (backward of " in out
