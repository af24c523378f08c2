"""GPU truth: the planner's memory prediction beside what a CUDA machine really spends.

Run on a machine with a CUDA GPU, PyTorch, torchvision and nvidia-ml-py (one prepared run; it
stops starting new measurements after ``--budget-s``, 450 s by default, so it ends within 8
minutes; expected 2–4 minutes on an H200)::

    PYTHONPATH=. python benchmarks/gpu_truth.py            # the full table
    PYTHONPATH=. python benchmarks/gpu_truth.py --smoke    # CPU: a tiny network, same code path

For ResNet-50, VGG-16, MobileNetV2, ViT-B/16 and DenseNet-121, at two batch sizes, in fp32 and
under ``torch.autocast`` (bf16 where the card supports it, else fp16 with a GradScaler), it runs
SGD-momentum training steps (``zero_grad(set_to_none=True)``, forward, cross entropy, backward,
step) from an emptied cache and records, over three steps after two warm-up steps:

* ``torch.cuda.max_memory_allocated`` — what tensors occupy (the planner's ``allocated``);
* ``torch.cuda.max_memory_reserved`` — what the caching allocator holds (``reserved``);
* NVML's used memory of this process (``nvidia-smi``'s figure: reserved + CUDA context +
  libraries), at the end of the timed steps; where NVML does not list this process (PIDs in a
  container), the device's used memory less what was in use before this process started CUDA,
  marked "~";
* the median step time.

Beside each it prints the planner's prediction with its default assumptions (allocator model on)
and the error. Targets (issue 13): allocated within ±5 %, reserved and nvidia-smi within ±10 %.
Every network is read with ``benchmarks/torch_drafts.py`` (torch.fx; ViT-B/16's
``nn.MultiheadAttention`` becomes in-projection, q/k/v views, fused attention, out-projection);
one it cannot read is exported to ONNX and imported with the planner's importer; if that fails
too, the last column says why. Every CUDA and NVML call is guarded and a network or a setting
that fails gets a row saying so: the table is always printed. The exit status is 0 whatever the
figures: it prints, it does not judge.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for _p in (ROOT, ROOT / "benchmarks"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

MIB = 1 << 20
NETWORKS = ("resnet50", "vgg16", "mobilenet_v2", "vit_b_16", "densenet121")
BATCHES = {"resnet50": (32, 128), "vgg16": (32, 96), "mobilenet_v2": (64, 256),
           "vit_b_16": (16, 64), "densenet121": (32, 96)}


def planner_draft(model, name: str, shape: tuple[int, ...]):
    """(draft, how) or (None, why not)."""
    from torch_drafts import Unsupported, draft_from_module

    try:
        return draft_from_module(model, shape, name), "torch.fx"
    except Unsupported as exc:
        fx_reason = str(exc)
    except Exception as exc:  # noqa: BLE001 - tracing can fail in many ways
        fx_reason = f"{type(exc).__name__}: {exc}"
    try:
        import torch

        from planner.core.importers.onnx import import_onnx

        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, f"{name}.onnx")
            model.eval()
            torch.onnx.export(model, torch.randn(1, *shape), path, dynamo=False,
                              input_names=["x"], dynamic_axes={"x": {0: "batch"}})
            model.train()
            result = import_onnx(path)
        return result.draft, "ONNX import"
    except Exception as exc:  # noqa: BLE001
        return None, f"not readable ({fx_reason}; ONNX: {type(exc).__name__}: {exc})"[:160]


def prediction(draft, batch: int, precision: str) -> dict | None:
    """The planner's figures (default assumptions), or None with the reason in "error"."""
    if draft is None:
        return None
    from planner.core.memory import estimate
    from planner.core.network import Setup, analyze

    analysis = analyze(draft)
    if not analysis.ok:
        return {"error": f"draft not valid: {analysis.problems[0]}"[:80]}
    est = estimate(analysis, Setup(batch, precision, "momentum", "train"))
    return {"allocated": est.allocated_bytes, "reserved": est.reserved_bytes,
            "smi": est.nvidia_smi_bytes}


def _safe(fn, default=None):
    """``fn()``, or ``default`` when it raises (a CUDA or NVML call on an odd machine)."""
    try:
        return fn()
    except Exception:  # noqa: BLE001 - a figure missing is better than no table
        return default


class Nvml:
    """This process's used memory on the GPU as NVML (nvidia-smi) reports it.

    By PID where NVML lists this process (not in every container: PIDs are the host's); else
    the device's used memory less what was used before this process touched CUDA (marked
    "~": right only when nothing else runs on the card)."""

    def __init__(self):
        self.handle = None
        self.baseline = None
        self.pynvml = None
        try:
            import pynvml

            pynvml.nvmlInit()
            self.pynvml = pynvml
            visible = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
            if visible and not visible.isdigit():
                self.handle = pynvml.nvmlDeviceGetHandleByUUID(visible)
            else:
                self.handle = pynvml.nvmlDeviceGetHandleByIndex(int(visible or 0))
            self.baseline = int(pynvml.nvmlDeviceGetMemoryInfo(self.handle).used)
        except Exception:  # noqa: BLE001 - no nvidia-ml-py, no driver, no permission
            self.handle = None

    def used(self) -> tuple[int | None, str]:
        if self.handle is None:
            return None, ""
        pynvml = self.pynvml
        procs = _safe(lambda: pynvml.nvmlDeviceGetComputeRunningProcesses(self.handle), [])
        for proc in procs or []:
            if proc.pid == os.getpid() and proc.usedGpuMemory:
                return int(proc.usedGpuMemory), ""
        total = _safe(lambda: int(pynvml.nvmlDeviceGetMemoryInfo(self.handle).used))
        if total is None or self.baseline is None:
            return None, ""
        return total - self.baseline, "~"


def measure(model, batch: int, shape, device: str, autocast_dtype, nvml: Nvml | None = None,
            steps: int = 3, warmup: int = 2) -> dict:
    import torch
    import torch.nn.functional as F

    cuda = device == "cuda"
    for p in model.parameters():
        p.grad = None
    if cuda:  # start from an empty cache: max_memory_reserved is this setting's alone
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    scaler = (torch.amp.GradScaler(device) if autocast_dtype == torch.float16 else None)
    x = torch.randn(batch, *shape, device=device)
    y = torch.randint(0, 1000, (batch,), device=device)

    def step():
        opt.zero_grad(set_to_none=True)
        if autocast_dtype is None:
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            return
        with torch.autocast(device, dtype=autocast_dtype):
            loss = F.cross_entropy(model(x), y)
        if scaler is not None:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        else:
            loss.backward()
            opt.step()

    try:
        for _ in range(warmup):
            step()
        if cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        times = []
        for _ in range(steps):
            t0 = time.perf_counter()
            step()
            if cuda:
                torch.cuda.synchronize()
            times.append(time.perf_counter() - t0)
        out = {"time_s": statistics.median(times), "allocated": None, "reserved": None,
               "smi": None, "smi_mark": ""}
        if cuda:
            out["allocated"] = _safe(torch.cuda.max_memory_allocated)
            out["reserved"] = _safe(torch.cuda.max_memory_reserved)
            if nvml is not None:
                out["smi"], out["smi_mark"] = nvml.used()
        return out
    finally:  # drop the step's tensors now (a traceback would keep this frame alive)
        opt = x = y = None
        for p in model.parameters():
            p.grad = None


def _mib(v, mark: str = "") -> str:
    return "n/a" if v is None else f"{mark}{v / MIB:,.0f}"


def _err(pred, meas) -> str:
    if pred is None or meas is None or not meas:
        return "—"
    return f"{100.0 * (pred - meas) / meas:+.1f}"


def tiny_network():
    import torch.nn as nn

    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
        nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(inplace=True),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 1000))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:100]


HEADER = ("network", "batch", "precision", "alloc meas", "alloc pred", "err %",
          "reserved meas", "reserved pred", "err %", "smi meas", "smi pred", "err %",
          "step ms", "planner read by")


def _row(name, batch, label, meas, pred, how) -> tuple[str, ...]:
    return (name, str(batch), label, _mib(meas.get("allocated")),
            _mib(pred.get("allocated")), _err(pred.get("allocated"), meas.get("allocated")),
            _mib(meas.get("reserved")), _mib(pred.get("reserved")),
            _err(pred.get("reserved"), meas.get("reserved")),
            _mib(meas.get("smi"), meas.get("smi_mark", "")), _mib(pred.get("smi")),
            _err(pred.get("smi"), meas.get("smi")),
            "n/a" if meas.get("time_s") is None else f"{meas['time_s'] * 1e3:.1f}", how)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--smoke", action="store_true",
                    help="CPU, one tiny network at 32×32, the same code path (for CI)")
    ap.add_argument("--networks", default=",".join(NETWORKS))
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--budget-s", type=float, default=450.0,
                    help="stop starting new measurements after this many seconds (the run "
                         "must end within 8 minutes)")
    args = ap.parse_args(argv)
    import torch

    started = time.perf_counter()
    cuda = not args.smoke and bool(_safe(torch.cuda.is_available, False))
    device = "cuda" if cuda else "cpu"
    if not cuda and not args.smoke:
        print("gpu_truth: no CUDA device here; run with --smoke for the CPU check, or on a "
              "CUDA machine for the table.")
        return 0
    nvml = None
    if cuda:
        nvml = Nvml()  # before CUDA starts: the device's memory in use without this process
        bf16 = bool(_safe(torch.cuda.is_bf16_supported, False))
        print(f"gpu_truth: {_safe(torch.cuda.get_device_name, '?')}, torch {torch.__version__}"
              f", NVML {'yes' if nvml.handle is not None else 'no (smi column n/a)'}")
    else:
        bf16 = True
        print(f"gpu_truth --smoke: CPU, torch {torch.__version__} (memory columns are n/a: "
              "the CPU has no caching allocator)")
    half = torch.bfloat16 if bf16 else torch.float16
    mixed_name = "mixed_bf16" if bf16 else "mixed"
    if args.smoke:
        plan = [("tiny", tiny_network, (2, 4), 32)]
        steps = {"steps": 1, "warmup": 1}
    else:
        import torchvision

        print(f"torchvision {torchvision.__version__}")
        names = [n for n in args.networks.split(",") if n]
        plan = [(n, (lambda n=n: getattr(torchvision.models, n)(weights=None)),
                 BATCHES.get(n, (32, 64)), args.size) for n in names]
        steps = {}
    rows = []
    print(" | ".join(HEADER))
    for name, make, batches, size in plan:
        shape = (3, size, size)
        settings = [(batch, label, dtype, precision) for batch in batches
                    for label, dtype, precision in (
                        ("fp32", None, "fp32"),
                        (f"autocast {str(half).split('.')[-1]}", half, mixed_name))]
        if time.perf_counter() - started > args.budget_s:
            for batch, label, _, _ in settings:
                rows.append(_row(name, batch, label, {}, {}, "skipped: time budget"))
                print(" | ".join(rows[-1]), flush=True)
            continue
        try:
            model = make()
            draft, how = planner_draft(model, name, shape)
        except Exception as exc:  # noqa: BLE001 - one network failing leaves the others
            for batch, label, _, _ in settings:
                rows.append(_row(name, batch, label, {}, {}, f"failed: {_first_line(exc)}"))
                print(" | ".join(rows[-1]), flush=True)
            continue
        try:
            model = model.to(device).train()
            on_device = ""
        except Exception as exc:  # noqa: BLE001 - the predictions are still printed
            on_device = f"not on {device}: {_first_line(exc)}"
        for batch, label, dtype, precision in settings:
            note = ""
            if on_device:
                meas, note = {}, on_device
            elif time.perf_counter() - started > args.budget_s:
                meas, note = {}, "skipped: time budget"
            else:
                try:
                    meas = measure(model, batch, shape, device, dtype, nvml, **steps)
                except Exception as exc:  # noqa: BLE001 - out of memory, unsupported op
                    meas, note = {}, _first_line(exc)
                    if cuda:
                        _safe(torch.cuda.empty_cache)
            try:
                pred = prediction(draft, batch, precision) or {}
            except Exception as exc:  # noqa: BLE001
                pred = {"error": f"prediction failed: {_first_line(exc)}"}
            note = "; ".join(x for x in (note, pred.get("error", "")) if x)
            rows.append(_row(name, batch, label, meas, pred, how))
            print(" | ".join(rows[-1]) + (f"  ({note})" if note else ""), flush=True)
        del model
        if cuda:
            _safe(torch.cuda.empty_cache)
    print(f"\n{len(rows)} rows in {time.perf_counter() - started:.0f} s. MiB; predictions with "
          "the default assumptions (allocator model on, CUDA context 400 MiB + libraries "
          "150 MiB). Targets: allocated ±5 %, reserved and nvidia-smi ±10 %. '~' in the smi "
          "column: the device's used memory less what was in use before this process started "
          "CUDA (NVML did not list this process).")
    return 0


if __name__ == "__main__":
    from reporting import run_reporting

    run_reporting(main, "gpu_truth")
