"""Fit the speed model's few shared parameters on measured training throughput, and print them.

Fitted (shared by every card; none is per card): the FP32 CUDA-core efficiency of convolutions,
Winograd's speed-up on 3×3 convolutions, the tensor-core efficiency, the memory efficiency, the
efficiencies of grouped and depthwise convolutions, and the rate of a narrower GEMM tile against
the next wider one (channels that do not fill 128-channel tiles). Fitted on the single-GPU rows
of ``calibration.FIT_NETWORKS`` (ResNet-50, VGG-16, ResNeXt-101 32×4d, EfficientNet-B0,
Inception-v3: the one network whose channel counts tell the tile parameter apart); every other
network (ResNet-152, AlexNet, EfficientNet-B4) and the multi-GPU rows are held out and only
checked (``speed_accuracy.py``). Then the one multi-GPU parameter, the
synchronisation cost of optimised data-parallel code, on the 2–16-GPU rows.

Objective: the mean squared log error, each (network, precision, card) group weighted equally
(so the card with the most framework versions does not dominate). Nelder–Mead on the
logarithms of the parameters, from the current defaults. Run:
``python benchmarks/calibrate_speed.py tensor_efficiency=0.7`` (about 20 s; ``name=value``
holds a parameter at a prior: the tensor-core efficiency, which the set cannot tell from the
memory efficiency); copy the printed values into ``Assumptions`` (planner/core/memory.py) if
they move. ``--only=memory_sm_cycles_per_element`` fits that one alone, every other parameter
held at its default: how the SM cost per element of memory-bound kernels was fitted (jointly
with the rest it is flat: the calibration's cards, all HBM data-centre ones with 7-13 bytes of
bandwidth per SM cycle, cannot tell it from the memory efficiency).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import replace

import numpy as np
from calibration import load_rows, multi_gpu_pairs, predict, predicted_speedup

from planner.core.memory import Assumptions
from planner.core.parallel import ParallelAssumptions

PARAMS = ("compute_efficiency", "winograd_speedup", "tensor_efficiency", "tf32_efficiency",
          "memory_efficiency", "grouped_conv_efficiency", "depthwise_bandwidth_efficiency",
          "narrow_tile_efficiency", "memory_sm_cycles_per_element",
          "depthwise_sm_cycles_per_byte")
BOUNDS = {"compute_efficiency": (0.05, 1.0), "winograd_speedup": (1.0, 4.0),
          "tensor_efficiency": (0.05, 1.0), "tf32_efficiency": (0.05, 1.0),
          "memory_efficiency": (0.1, 1.0),
          "grouped_conv_efficiency": (0.01, 1.0), "depthwise_bandwidth_efficiency": (0.01, 1.0),
          # A 64-channel tile reuses each loaded element 2/3 as often as a 128 one: 0.67 is
          # the bandwidth-bound floor, 1 no loss.
          "narrow_tile_efficiency": (0.67, 1.0),
          "memory_sm_cycles_per_element": (0.001, 2.0),
          "depthwise_sm_cycles_per_byte": (0.001, 2.0)}


def _assumptions(x: np.ndarray, base: Assumptions) -> Assumptions:
    values = {}
    for name, v in zip(PARAMS, np.exp(x)):
        lo, hi = BOUNDS[name]
        values[name] = float(min(hi, max(lo, v)))
    return replace(base, **values)


def objective_factory(rows, base):
    groups = defaultdict(list)
    for r in rows:
        groups[(r.preset, r.precision, r.catalog_card)].append(r)

    def objective(x: np.ndarray) -> float:
        a = _assumptions(x, base)
        total = 0.0
        for members in groups.values():
            total += sum(math.log(predict(r, a) / r.images_per_s) ** 2
                         for r in members) / len(members)
        return total / len(groups)

    return objective


def nelder_mead(f, x0: np.ndarray, step: float = 0.25, iters: int = 300,
                tol: float = 1e-6) -> np.ndarray:
    n = len(x0)
    pts = [x0] + [x0 + step * np.eye(n)[i] for i in range(n)]
    vals = [f(p) for p in pts]
    for _ in range(iters):
        order = np.argsort(vals)
        pts = [pts[i] for i in order]
        vals = [vals[i] for i in order]
        if vals[-1] - vals[0] < tol:
            break
        centroid = np.mean(pts[:-1], axis=0)
        xr = centroid + (centroid - pts[-1])
        fr = f(xr)
        if fr < vals[0]:
            xe = centroid + 2 * (centroid - pts[-1])
            fe = f(xe)
            pts[-1], vals[-1] = (xe, fe) if fe < fr else (xr, fr)
        elif fr < vals[-2]:
            pts[-1], vals[-1] = xr, fr
        else:
            xc = centroid + 0.5 * (pts[-1] - centroid)
            fc = f(xc)
            if fc < vals[-1]:
                pts[-1], vals[-1] = xc, fc
            else:
                pts = [pts[0]] + [pts[0] + 0.5 * (p - pts[0]) for p in pts[1:]]
                vals = [vals[0]] + [f(p) for p in pts[1:]]
    return pts[int(np.argmin(vals))]


def main() -> None:
    import sys

    global PARAMS
    only = [a.removeprefix("--only=").split(",") for a in sys.argv[1:] if a.startswith("--only=")]
    # name=value: held at a prior; --only=a,b: fit those, every other held at its default
    fixed = dict(arg.split("=") for arg in sys.argv[1:] if not arg.startswith("--"))
    PARAMS = tuple(p for p in PARAMS if p not in fixed and (not only or p in only[0]))
    rows, _ = load_rows()
    fit_rows = [r for r in rows if r.fit]
    base = replace(Assumptions(), **{k: float(v) for k, v in fixed.items()})
    f = objective_factory(fit_rows, base)
    x0 = np.log([getattr(base, p) for p in PARAMS])
    print(f"fitting {len(PARAMS)} parameters on {len(fit_rows)} single-GPU rows of "
          f"{len({r.preset for r in fit_rows})} networks")
    print(f"start: rms log error {math.sqrt(f(x0)):.3f}")
    x = x0
    for _ in range(3):  # restarts: Nelder–Mead can stall on a flat direction
        x = nelder_mead(f, x)
    a = _assumptions(x, base)
    print(f"fitted: rms log error {math.sqrt(f(x)):.3f}")
    for p in PARAMS:
        print(f"    {p}: float = {getattr(a, p):.3g}")

    # The multi-GPU synchronisation cost of optimised data-parallel code (parallel.py), on the
    # 2–16-GPU rows: a one-parameter scan.
    pairs = multi_gpu_pairs(rows)

    def sync_error(sync: float) -> float:
        pa = ParallelAssumptions(framework="optimised", sync_optimised=sync)
        return sum(math.log(predicted_speedup(r, pa, a) * one.images_per_s / r.images_per_s)
                   ** 2 for r, one in pairs) / len(pairs)

    grid = [i / 1000 for i in range(5, 81, 5)]
    best = min(grid, key=sync_error)
    print(f"multi-GPU ({len(pairs)} rows): sync_optimised = {best:g} "
          f"(rms log error {math.sqrt(sync_error(best)):.3f})")


if __name__ == "__main__":
    main()
