"""Re-estimate speed: a ~500-layer network, full estimate plus the largest batch that fits.

Prints the median and 90th percentile of:
* cold: analyze (shape inference) + estimate + max_batch on a draft never seen before (cached
  layer results and recent analyses forgotten first: ``clear_cache``);
* edit: one layer changed (what the Planner pane does on every edit), same work;
* cold, no two alike: a cold draft whose blocks all differ (nothing shared within it);
* no two alike, one edit: that draft with one layer changed (the issue's "re-estimate ... also
  for a draft with no two layers alike", as the Planner pane re-estimates on every edit);
* the Llama-shaped 8B preset (516 layers) after one edit, full fine-tuning in bf16 and LoRA.
Target (issues 2, 13, 19): median under 5 ms. Run: python benchmarks/speed.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from planner.core.layers import LayerSpec  # noqa: E402
from planner.core.memory import Assumptions, estimate, max_batch  # noqa: E402
from planner.core.network import NetworkDraft, Setup, analyze, clear_cache  # noqa: E402
from planner.units import GIB  # noqa: E402


def deep_resnet(blocks: int = 83, distinct: bool = False) -> NetworkDraft:
    """conv-bn-relu-conv-bn-add blocks: 6 layers each, ~500 layers in all. ``distinct``: every
    block's convolutions differ (64, 65, … filters around a 64-channel trunk), so no two
    layers compute the same thing and nothing can be shared between them."""
    layers = [LayerSpec("input", "input", {"shape": (3, 224, 224)}),
              LayerSpec("conv2d", "stem", {"filters": 64, "kernel": 7, "stride": 2, "padding": 3}),
              LayerSpec("maxpool", "pool", {"kernel": 3, "stride": 2, "padding": 1})]
    prev = "pool"
    for b in range(blocks):
        p = f"b{b}"
        layers += [
            LayerSpec("conv2d", f"{p}.c1", {"filters": 64 + (b if distinct else 0),
                                            "kernel": 3, "padding": 1, "bias": False}),
            LayerSpec("batchnorm", f"{p}.bn1"),
            LayerSpec("activation", f"{p}.r1", {"function": "relu", "inplace": True}),
            LayerSpec("conv2d", f"{p}.c2", {"filters": 64, "kernel": 3, "padding": 1,
                                            "bias": False}),
            LayerSpec("batchnorm", f"{p}.bn2"),
            LayerSpec("add", f"{p}.add", {"from": prev}),
        ]
        prev = f"{p}.add"
    layers += [LayerSpec("global_avgpool", "gap"), LayerSpec("fc", "fc", {"units": 1000})]
    return NetworkDraft("deep", tuple(layers))


def full_reestimate(draft: NetworkDraft, setup: Setup, assumptions: Assumptions) -> int:
    a = analyze(draft)
    estimate(a, setup, assumptions)
    return max_batch(a, setup, 24 * GIB, assumptions)


def timeit(fn, runs: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU-time milliseconds of each run (CPU time is steadier on a shared
    machine: it leaves out the time other processes hold the core)."""
    wall, cpu = [], []
    for i in range(runs):
        t0, c0 = time.perf_counter(), time.process_time()
        fn(i)
        cpu.append((time.process_time() - c0) * 1000)
        wall.append((time.perf_counter() - t0) * 1000)
    return wall, cpu


def main() -> None:
    base = deep_resnet()
    setup = Setup(32, "fp32", "adam")
    assumptions = Assumptions()
    print(f"network: {len(base.layers)} layers, batch {setup.batch_size}")
    full_reestimate(base, setup, assumptions)  # warm imports

    # Fresh drafts (new layer objects, built before timing) with the per-layer result cache
    # emptied: nothing of an earlier analysis is reused.
    fresh = [NetworkDraft("deep", tuple(LayerSpec(x.kind, x.name, dict(x.params))
                                        for x in base.layers)) for _ in range(60)]

    def cold(i):
        clear_cache()
        full_reestimate(fresh[i], setup, assumptions)

    def edit(i):
        d = base.replace_layer(3, base.layers[3].replace(filters=64 + (i % 7)))  # a conv's filters
        full_reestimate(d, setup, assumptions)

    distinct = deep_resnet(distinct=True)
    fresh_distinct = [NetworkDraft("deep", tuple(LayerSpec(x.kind, x.name, dict(x.params))
                                                 for x in distinct.layers)) for _ in range(60)]

    def cold_distinct(i):
        clear_cache()
        full_reestimate(fresh_distinct[i], setup, assumptions)

    def edit_distinct(i):
        d = distinct.replace_layer(3, distinct.layers[3].replace(filters=64 + (i % 7)))
        full_reestimate(d, setup, assumptions)

    # A new draft reuses nothing from earlier ones, but layers alike within it (the repeated
    # blocks of a ResNet) are worked out once; the last line is the case with no two alike.
    for label, fn in (("cold (new draft)", cold), ("after one edit", edit),
                      ("cold, no two alike", cold_distinct),
                      ("no two alike, edit", edit_distinct)):
        wall, cpu = timeit(fn, 60)
        wall.sort()
        print(f"{label:<18} median {statistics.median(wall):6.2f} ms   "
              f"p90 {wall[int(0.9 * len(wall))]:6.2f} ms   CPU-time median "
              f"{statistics.median(cpu):6.2f} ms   target < 5 ms")
    transformer_cases()


def transformer_cases() -> None:
    """The Llama-shaped 8B preset (516 layers): one edit (the attention dropout of layer 0),
    full fine-tuning in bf16 and LoRA (frozen weights: the general replay of the step)."""
    from planner.core.finetune import LoraSetup, apply_lora  # noqa: PLC0415
    from planner.core.presets import load_preset  # noqa: PLC0415

    base, _ = load_preset("llama_8b")
    setup = Setup(1, "bf16", "adamw")
    assumptions = Assumptions()
    at = next(i for i, x in enumerate(base.layers) if x.kind == "attention")
    for label, draft in (("llama 8B, full", base),
                         ("llama 8B, LoRA", apply_lora(base, LoraSetup(16)))):
        full_reestimate(draft, setup, assumptions)

        def edit(i, draft=draft):
            d = draft.replace_layer(at, draft.layers[at].replace(dropout=0.01 * (i % 7)))
            full_reestimate(d, setup, assumptions)

        wall, cpu = timeit(edit, 60)
        wall.sort()
        print(f"{label:<18} median {statistics.median(wall):6.2f} ms   "
              f"p90 {wall[int(0.9 * len(wall))]:6.2f} ms   CPU-time median "
              f"{statistics.median(cpu):6.2f} ms   target < 5 ms "
              f"({len(draft.layers)} layers, after one edit)")


if __name__ == "__main__":
    main()
