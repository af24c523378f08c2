"""ONNX import benchmark: exported torchvision networks against autograd, and import speed.

Run it in the torch venv (see ``benchmarks/README.md``; it also needs ``pip install onnx``)::

    /tmp/torchvenv/bin/python benchmarks/onnx_accuracy.py [--batch 16] [--keep DIR]

For resnet18, resnet50, vgg16, mobilenet_v2 and densenet121 (concatenations) it exports the
torchvision network (``weights=None``) with the legacy exporter (``dynamo=False``), train mode
(``training=TrainingMode.TRAINING``, so batch norm and dropout stay layers),
``do_constant_folding=False`` and a symbolic batch axis; imports the file with
``planner.core.importers.onnx.import_onnx``; and compares, at batch 16 and 224×224:

1. the parameter count with ``sum(p.numel())`` (must be exact);
2. the imported plan's saved-activation bytes (allocator rounding off) with what autograd saves
   for backward, measured exactly as ``benchmarks/accuracy.py`` does (its ``torch_side``):
   pass band ±5 %, also shown with CPU dropout's fp32 noise replaced by CUDA's 1-byte mask;
3. where a hand-drafted preset exists, the imported plan's parameters and saved bytes against the
   preset's (the "twin": should be identical);
4. the import time of each file (median of 3), and of vgg16 saved with external weight data
   whose ``.data`` file is then deleted.

The exit status is always 0: it prints figures; CI does not run it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "benchmarks"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import onnx
import torch
import torchvision
from accuracy import NO_ROUNDING, TOLERANCE_PCT, fmt_mib, table, torch_side

from planner.core.importers.onnx import import_onnx
from planner.core.memory import estimate
from planner.core.network import Setup, analyze
from planner.core.presets import load_preset, preset_names

NETWORKS = ("resnet18", "resnet50", "vgg16", "mobilenet_v2", "densenet121")


def export(name: str, path: Path, size: int) -> None:
    model = getattr(torchvision.models, name)(weights=None)
    model.train()
    x = torch.randn(2, 3, size, size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, x, str(path), dynamo=False, do_constant_folding=False,
                          training=torch.onnx.TrainingMode.TRAINING, opset_version=17,
                          input_names=["input"], output_names=["logits"],
                          dynamic_axes={"input": {0: "batch"}, "logits": {0: "batch"}})


def time_import(path: Path, repeats: int = 3) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        result = import_onnx(path)
        times.append(time.perf_counter() - t)
    return statistics.median(times), result


def planner_figures(draft, batch: int) -> tuple[int, int]:
    analysis = analyze(draft)
    est = estimate(analysis, Setup(batch, "fp32", "sgd", "train"), NO_ROUNDING)
    return analysis.parameters, est.activations


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--keep", metavar="DIR", help="write the .onnx files here (kept)")
    ap.add_argument("--networks", default=",".join(NETWORKS))
    args = ap.parse_args(argv)
    torch.manual_seed(0)
    b = args.batch
    tmp = None if args.keep else tempfile.TemporaryDirectory(prefix="onnx-bench-")
    folder = Path(args.keep or tmp.name)
    folder.mkdir(parents=True, exist_ok=True)
    print(f"GPU Planner ONNX import benchmark: torch {torch.__version__} (CPU), torchvision "
          f"{torchvision.__version__}, onnx {onnx.__version__}; batch {b}, fp32, train mode, "
          f"{args.size}×{args.size}; exported with dynamo=False, TrainingMode.TRAINING, "
          "do_constant_folding=False, opset 17, symbolic batch.\n")
    presets = set(preset_names())
    rows, twin_rows, notes, misses = [], [], [], []
    for name in args.networks.split(","):
        path = folder / f"{name}.onnx"
        export(name, path, args.size)
        t_import, result = time_import(path)
        problems = analyze(result.draft).problems
        if problems:
            print(f"FAIL: {name}: the imported plan has problems: "
                  + "; ".join(str(p) for p in problems[:3]))
            misses.append(name)
            continue
        params, saved = planner_figures(result.draft, b)
        model = getattr(torchvision.models, name)(weights=None)
        meas = torch_side(model, torch.randn(b, 3, args.size, args.size))
        err = 100.0 * (saved - meas["saved"]) / meas["saved"]
        cuda_like = meas["saved"] - meas["dropout_excess"]
        err_cuda = 100.0 * (saved - cuda_like) / cuda_like
        exact = params == meas["parameters"]
        ok = abs(err_cuda) <= TOLERANCE_PCT
        if not (ok and exact):
            misses.append(name)
        rows.append([
            name, f"{os.path.getsize(path) / 1e6:.0f}", f"{len(result.draft.layers)}",
            f"{t_import * 1e3:.0f}", f"{params:,}", f"{meas['parameters']:,}",
            "yes" if exact else "NO  FAIL", fmt_mib(saved), fmt_mib(meas["saved"]),
            f"{err:+.2f}", f"{err_cuda:+.2f}", "yes" if ok else "NO  FAIL",
        ])
        if result.warnings:
            notes.append(f"  {name}: " + " | ".join(result.warnings))
        if name in presets:
            pd, _ = load_preset(name)
            pp, ps = planner_figures(pd, b)
            twin_rows.append([name, f"{params:,}", f"{pp:,}", fmt_mib(saved), fmt_mib(ps),
                              "yes" if (pp, ps) == (params, saved) else "NO"])
        del model, meas

    print(table(["network", "file MB", "layers", "import ms", "params imported",
                 "params torch", "exact?", "saved imported (MiB)", "saved torch (MiB)",
                 "error %", "error % (CUDA dropout)¹", "within ±5%?"], rows))
    print("\n¹ CPU dropout saves an fp32 noise tensor; CUDA saves a 1-byte mask (the planner's "
          "rule). The pass band applies to this column; for networks without dropout both "
          "columns are the same.")
    if twin_rows:
        print("\nImported plan vs the hand-drafted preset (batch "
              f"{b}, allocator rounding off):")
        print(table(["network", "params imported", "params preset", "saved imported (MiB)",
                     "saved preset (MiB)", "identical?"], twin_rows))
    print("\nImport warnings:" if notes else "\nImport warnings: none")
    for n in notes:
        print(n)

    # A big file, and one whose external weight data is missing.
    vgg = folder / "vgg16.onnx"
    if vgg.exists():
        ext = folder / "vgg16_external.onnx"
        m = onnx.load(str(vgg))
        onnx.save_model(m, str(ext), save_as_external_data=True, all_tensors_to_one_file=True,
                        location="vgg16_external.onnx.data", size_threshold=0)
        del m
        data = folder / "vgg16_external.onnx.data"
        data_mb = data.stat().st_size / 1e6
        t_ext, r_ext = time_import(ext)
        data.unlink()
        t_gone, r_gone = time_import(ext)
        t_emb, r_emb = time_import(vgg)
        big = [
            ["vgg16, weights embedded", f"{vgg.stat().st_size / 1e6:.0f}",
             f"{t_emb * 1e3:.0f}", f"{analyze(r_emb.draft).parameters:,}"],
            ["vgg16, external weight data", f"{ext.stat().st_size / 1e6:.2f} + {data_mb:.0f}",
             f"{t_ext * 1e3:.0f}", f"{analyze(r_ext.draft).parameters:,}"],
            ["vgg16, external data file deleted", f"{ext.stat().st_size / 1e6:.2f}",
             f"{t_gone * 1e3:.0f}", f"{analyze(r_gone.draft).parameters:,}"],
        ]
        print("\nImport time of a big file (median of 3; weights are never read):")
        print(table(["file", "size MB", "import ms", "parameters"], big))
        if max(t_emb, t_ext, t_gone) >= 1.0:
            misses.append("vgg16 import time")
    if misses:
        print(f"\nFAIL: {', '.join(misses)}")
    else:
        print(f"\nPASS: every network exact in parameters, within ±{TOLERANCE_PCT:g}% in saved "
              "bytes, and imported in under a second")
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    try:
        main()
    except Exception as exc:  # noqa: BLE001 - a benchmark reports, it does not fail the shell
        import traceback

        traceback.print_exc()
        print(f"FAIL: benchmark could not run: {exc}")
    sys.exit(0)
