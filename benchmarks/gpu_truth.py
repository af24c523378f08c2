"""GPU truth: the planner's memory prediction beside what a CUDA machine really spends.

Run on a machine with a CUDA GPU, PyTorch, torchvision and nvidia-ml-py (one prepared run; about
4–6 minutes on an H200)::

    PYTHONPATH=. python benchmarks/gpu_truth.py            # the full table
    PYTHONPATH=. python benchmarks/gpu_truth.py --smoke    # CPU: a tiny network, same code path

For ResNet-50, VGG-16, MobileNetV2, ViT-B/16 and DenseNet-121, at two batch sizes, in fp32 and
under ``torch.autocast`` (bf16 where the card supports it, else fp16 with a GradScaler), it runs
SGD-momentum training steps (``zero_grad(set_to_none=True)``, forward, cross entropy, backward,
step) and records, over three steps after two warm-up steps:

* ``torch.cuda.max_memory_allocated`` — what tensors occupy (the planner's ``allocated``);
* ``torch.cuda.max_memory_reserved`` — what the caching allocator holds (``reserved``);
* NVML's used memory of this process (``nvidia-smi``'s figure: reserved + CUDA context +
  libraries), at the end of the timed steps;
* the median step time.

Beside each it prints the planner's prediction with its default assumptions (allocator model on)
and the error. Targets (issue 13): allocated within ±5 %, reserved and nvidia-smi within ±10 %.
Networks the planner's torch.fx conversion (``benchmarks/torch_drafts.py``) cannot read are
exported to ONNX and imported with the planner's importer; if that fails too, the prediction
column says why. The exit status is 0 whatever the figures: it prints, it does not judge.
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
    if draft is None:
        return None
    from planner.core.memory import estimate
    from planner.core.network import Setup, analyze

    analysis = analyze(draft)
    if not analysis.ok:
        return None
    est = estimate(analysis, Setup(batch, precision, "momentum", "train"))
    return {"allocated": est.allocated_bytes, "reserved": est.reserved_bytes,
            "smi": est.nvidia_smi_bytes}


def nvml_used_bytes() -> int | None:
    """This process's used GPU memory as NVML (nvidia-smi) reports it, or None."""
    try:
        import pynvml
    except ImportError:
        return None
    try:
        pynvml.nvmlInit()
        try:
            import torch

            handle = pynvml.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())
            for proc in pynvml.nvmlDeviceGetComputeRunningProcesses(handle):
                if proc.pid == os.getpid():
                    return int(proc.usedGpuMemory) if proc.usedGpuMemory else None
            return None
        finally:
            pynvml.nvmlShutdown()
    except pynvml.NVMLError:
        return None


def measure(model, batch: int, shape, device: str, autocast_dtype, steps: int = 3,
            warmup: int = 2) -> dict:
    import torch
    import torch.nn.functional as F

    model = model.to(device).train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    scaler = (torch.amp.GradScaler(device) if autocast_dtype == torch.float16 else None)
    x = torch.randn(batch, *shape, device=device)
    y = torch.randint(0, 1000, (batch,), device=device)
    cuda = device == "cuda"

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
           "smi": None}
    if cuda:
        out["allocated"] = torch.cuda.max_memory_allocated()
        out["reserved"] = torch.cuda.max_memory_reserved()
        out["smi"] = nvml_used_bytes()
    return out


def _mib(v) -> str:
    return "n/a" if v is None else f"{v / MIB:,.0f}"


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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--smoke", action="store_true",
                    help="CPU, one tiny network at 32×32, the same code path (for CI)")
    ap.add_argument("--networks", default=",".join(NETWORKS))
    ap.add_argument("--size", type=int, default=224)
    args = ap.parse_args(argv)
    import torch
    import torchvision

    started = time.perf_counter()
    device = "cuda" if torch.cuda.is_available() and not args.smoke else "cpu"
    if device == "cpu" and not args.smoke:
        print("gpu_truth: no CUDA device here; run with --smoke for the CPU check, or on a "
              "CUDA machine for the table.")
        return 0
    if device == "cuda":
        bf16 = torch.cuda.is_bf16_supported()
        print(f"gpu_truth: {torch.cuda.get_device_name()}, torch {torch.__version__}, "
              f"torchvision {torchvision.__version__}")
    else:
        bf16 = True
        print(f"gpu_truth --smoke: CPU, torch {torch.__version__} (memory columns are n/a: "
              "the CPU has no caching allocator)")
    half = torch.bfloat16 if bf16 else torch.float16
    mixed_name = "mixed_bf16" if bf16 else "mixed"
    if args.smoke:
        plan = [("tiny", tiny_network, (2, 4), 32)]
    else:
        names = [n for n in args.networks.split(",") if n]
        plan = [(n, (lambda n=n: getattr(torchvision.models, n)(weights=None)),
                 BATCHES.get(n, (32, 64)), args.size) for n in names]
    header = ("network", "batch", "precision", "alloc meas", "alloc pred", "err %",
              "reserved meas", "reserved pred", "err %", "smi meas", "smi pred", "err %",
              "step ms", "planner read by")
    rows = []
    print(" | ".join(header))
    for name, make, batches, size in plan:
        shape = (3, size, size)
        model = make()
        draft, how = planner_draft(model, name, shape)
        for batch in batches:
            for label, dtype, precision in (("fp32", None, "fp32"),
                                            (f"autocast {str(half).split('.')[-1]}", half,
                                             mixed_name)):
                try:
                    meas = measure(model, batch, shape, device, dtype)
                except RuntimeError as exc:  # out of memory, unsupported op
                    meas = {"time_s": None, "allocated": None, "reserved": None, "smi": None,
                            "error": str(exc).splitlines()[0][:60]}
                    if device == "cuda":
                        torch.cuda.empty_cache()
                pred = prediction(draft, batch, precision) or {}
                row = (name, str(batch), label, _mib(meas["allocated"]),
                       _mib(pred.get("allocated")), _err(pred.get("allocated"),
                                                         meas["allocated"]),
                       _mib(meas["reserved"]), _mib(pred.get("reserved")),
                       _err(pred.get("reserved"), meas["reserved"]),
                       _mib(meas["smi"]), _mib(pred.get("smi")),
                       _err(pred.get("smi"), meas["smi"]),
                       "n/a" if meas["time_s"] is None else f"{meas['time_s'] * 1e3:.1f}",
                       how if draft is not None else how)
                rows.append(row)
                print(" | ".join(row) + (f"  ({meas['error']})" if "error" in meas else ""),
                      flush=True)
        del model
        if device == "cuda":
            torch.cuda.empty_cache()
    print(f"\n{len(rows)} rows in {time.perf_counter() - started:.0f} s. MiB; predictions with "
          "the default assumptions (allocator model on, CUDA context 400 MiB + libraries "
          "150 MiB). Targets: allocated ±5 %, reserved and nvidia-smi ±10 %.")
    return 0


if __name__ == "__main__":
    from reporting import run_reporting

    run_reporting(main, "gpu_truth")
