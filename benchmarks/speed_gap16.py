"""The 16-bit per-card gap (issue 14): which physical mechanism, if any, explains it.

Lambda Labs' held-out ResNet-50 rows (``data/speed-holdout-lambda.csv``, never fitted) put the
GA10x and AD10x cards in the 2022-24 AMP containers at 0.69-0.84x their measured throughput,
while the Volta, Turing and HBM Ampere/Hopper cards of the same containers come out at
0.93-1.11x. This script tests the hypotheses against the datasheets, changing one thing at a
time and printing, per 16-bit held-out card, predicted / measured now and under each change,
with what the change does to the calibration set (typical error, groups missing their target):

* (a) **half-rate FP32 accumulate** on GeForce tensor cores (GA102 whitepaper: RTX 3090 71 of
  142 TFLOPS dense FP16; Ada whitepaper: RTX 4090 165.2 of 330.3; Turing whitepaper: RTX 2080 Ti
  53.8 of 107.6; the RTX A6000, RTX 6000 Ada, A10, TITAN RTX and Quadro run it at full rate). It
  is in the catalog (``fp16_tensor_fp32acc_tflops``) and the speed model uses it for 16-bit
  convolutions and GEMMs (``speed._tensor_peak``); the column shows the cards at full rate.
* (b) **L2 residency**: the share of the step's activation traffic in layers whose input and
  output together fit the card's L2 (whitepaper sizes below) at the row's batch: an upper bound
  on what L2 could save.
* (c) **power limit on the memory-bound work**: the datasheet bandwidth scaled by the clock the
  card sustains under its board power (``speed.sustained_clock_factor``), as if memory-bound
  kernels slowed with the SM clock (RTX 6000 Ada at 300 W against the RTX 4090 at 450 W).
* **bandwidth per SM cycle** (datasheet bandwidth ÷ SMs × sustained clock): where memory-bound
  kernels would be limited by the SMs' instruction rate rather than by DRAM.
* (d) **host and launch floor**: the CPU's dispatch of the step's operators and the kernels'
  launch floor against the measured step (one container per row, the same for every card).
* (e) **no NCHW transposes** on compute capability 8.6 and 8.9, for reference (round 8).
* (f) **achievable DRAM bandwidth**, the one change kept (``Assumptions.
  streaming_bandwidth_fraction``): each chip's bandwidth scaled by how much more of its
  datasheet bandwidth a streaming kernel reaches on it than on the V100 (on which the memory
  efficiency was fitted): te42kyfo/gpu-benches, ``gpu-stream`` (the "scale" kernel, one read
  and one write per element, as an elementwise layer), best over block sizes: V100 804 of 900
  GB/s (``v100.txt`` @a7dc559c), A100 40GB 1,381 of 1,555 (``a100_40.txt`` @a7dc559c), A40
  (GA102) 658 of 696 (``a40.txt`` @0a45416b), L40 (AD102) 816 of 864 (``l40.txt`` @0a45416b).
  Its H200 run (``h200.txt`` @fd7091fb: 3,165 of 4,800) still rises at the largest block
  size, so it is not taken as Hopper's share. The column shows the rows without it.

* (g) **the memory-bound speed-up a row implies**: how many times faster than modelled the
  memory-bound work (layers, NCHW transposes, the memory-bound part of convolutions) would have
  to run, compute as modelled, for the row to come out at its measured throughput. GA10x/AD10x
  in the 2022-24 AMP runs 1.2-1.5x, Volta and Turing 1.1x, A100/H100/H200 0.95-1.05x, B200 0.86x.

Then the same cards in two software generations (Lambda's 2020-21 ``--fp16`` rows, NGC 20.01
for Volta and Turing, 20.10 for Ampere, against the 2022-24 AMP rows, NGC 22.09 or later), both
NCHW: the model predicts each card the same in both, so what moves is the software.
Last, one memory efficiency for every card against each set: the calibration set (2019-22
software, V100 and A100) asks for the fitted 0.679, the held-out CNN rows (mostly 2022-24
AMP, NCHW) for about 0.8 (11.1 -> 7.7 %), and the BERT rows for less (13.0 -> 18.6 % at 0.8):
a shared parameter cannot close the GA10x/AD10x gap without opening the others.
Run: ``python benchmarks/speed_gap16.py`` (about 5 s).
"""

from __future__ import annotations

import statistics
from dataclasses import replace

from calibration import (
    _analysis,
    _workload,
    catalog,
    load_holdout_rows,
    load_rows,
    log_error,
    predict,
    row_assumptions,
    typical_error,
)

from planner.core.memory import Assumptions, prepare
from planner.core.speed import iteration_time, sm_cycles_per_s, sustained_clock_factor

SIXTEEN = ("mixed", "fp16")
# L2 cache per card (MB), from NVIDIA's architecture whitepapers: Volta (Tesla V100 6 MB),
# Turing (TU102: TITAN RTX, Quadro RTX 6000/8000 6 MB; RTX 2080 Ti 5.5 MB), GA102 (RTX 3090 and
# RTX A6000 6 MB, RTX 3080 5 MB), A100 (40 MB), Ada (RTX 4090 72 MB, RTX 6000 Ada 96 MB), Hopper
# (H100 SXM5 50 MB). Only the benchmark reads these: no mechanism of the model uses L2.
L2_MB = {"Tesla V100 SXM2 16GB": 6, "Tesla V100 SXM2 32GB": 6, "TITAN RTX": 6,
         "Quadro RTX 6000": 6, "Quadro RTX 8000": 6, "GeForce RTX 2080 Ti": 5.5,
         "GeForce RTX 3090": 6, "RTX A6000": 6, "GeForce RTX 3080": 5,
         "A100 PCIe 40GB": 40, "A100 SXM4 40GB": 40, "A100 PCIe 80GB": 40, "A100 SXM4 80GB": 40,
         "GeForce RTX 4090": 72, "RTX 6000 Ada Generation": 96, "H100 SXM5": 50}


def predict_with(row, card=None, a: Assumptions | None = None) -> float:
    """``calibration.predict`` with another card record or other assumptions."""
    a = a or row_assumptions(row)
    card = card or catalog().by_name(row.catalog_card)
    return iteration_time(_workload(row.preset, row.batch, row.precision), card,
                          row.precision, a).samples_per_s


def full_rate(card):
    """(a) The card with its FP32-accumulate tensor rate at its FP16-accumulate rate."""
    fp16, acc = card.fp16_tensor_tflops, card.fp16_tensor_fp32acc_tflops
    return replace(card, fp16_tensor_fp32acc_tflops=fp16) if fp16 and acc and acc < fp16 else card


def power_bandwidth(card):
    """(c) The card with its bandwidth × its sustained clock factor."""
    return replace(card, bandwidth_gbs=card.bandwidth_gbs
                   * sustained_clock_factor(card, Assumptions()))


def l2_share(row) -> float | None:
    """(b) Share of the step's activation traffic in layers whose input and output fit L2."""
    l2 = L2_MB.get(row.catalog_card)
    if l2 is None:
        return None
    p = prepare(_analysis(row.preset))
    per_layer = (p.out_numel.astype(float) + p.in_elems.astype(float)) * row.batch * 2
    return float(per_layer[per_layer <= l2 * 2 ** 20].sum() / per_layer.sum())


def bytes_per_sm_cycle(card) -> float:
    """Datasheet bandwidth per SM cycle at the sustained clock (bytes)."""
    return card.bandwidth_gbs * 1e9 / (sm_cycles_per_s(card)
                                       * sustained_clock_factor(card, Assumptions()))


def host_share(row) -> tuple[float, float]:
    """(d) CPU dispatch and kernel launch floor, each as a share of the measured step."""
    a = Assumptions()
    w = _workload(row.preset, row.batch, row.precision)
    step = row.batch / row.images_per_s
    return w.host_ops * a.cpu_launch_s / step, float(w.launches.sum()) * a.kernel_launch_s / step


def no_transposes(row) -> float:
    """(e) The row predicted channels-last on compute capability 8.6 and 8.9."""
    card = catalog().by_name(row.catalog_card)
    a = row_assumptions(row)
    if card.compute_capability in ("8.6", "8.9"):
        a = replace(a, memory_format="channels_last")
    return predict_with(row, a=a)


def without_streaming(row) -> float:
    """(f) The row as df8c16b predicted it: no streaming bandwidth share per chip."""
    return predict_with(row, a=replace(row_assumptions(row), streaming_bandwidth_fraction=()))


def implied_memory_speedup(row) -> float:
    """(g) How many times faster than modelled the memory-bound work (memory-bound layers and
    kernels, NCHW transposes, attention's side kernels, the memory-bound part of convolutions)
    would have to run, compute as modelled, for the row to be predicted at its measured
    throughput: bandwidth × k and the SM cycles per element ÷ k, k by bisection."""
    card = catalog().by_name(row.catalog_card)
    base = row_assumptions(row)

    def at(k: float) -> float:
        a = replace(base, memory_sm_cycles_per_element=base.memory_sm_cycles_per_element / k)
        return predict_with(row, card=replace(card, bandwidth_gbs=card.bandwidth_gbs * k), a=a)

    lo, hi = 0.25, 4.0
    if not at(lo) <= row.images_per_s <= at(hi):
        return float("nan")
    for _ in range(40):
        mid = (lo * hi) ** 0.5
        lo, hi = (mid, hi) if at(mid) < row.images_per_s else (lo, mid)
    return (lo * hi) ** 0.5


def memory_efficiency_sets(values=(0.679, 0.75, 0.8, 0.85)) -> list[tuple]:
    """Typical error of the calibration set (and its rms log error, the fit's objective
    without the group weights), of the held-out CNN rows and of the BERT rows at each
    ``memory_efficiency``, every other assumption at its default: what each set asks of the
    one parameter that scales every card's memory-bound work."""
    cal = [r for r in load_rows()[0] if r.num_gpus == 1]
    held = [r for r in load_holdout_rows() if r.num_gpus == 1]
    cnn = [r for r in held if not r.preset.startswith("bert_")]
    bert = [r for r in held if r.preset.startswith("bert_")]
    out = []
    for v in values:
        a = replace(Assumptions(), memory_efficiency=v)
        errs = {name: [log_error(predict(r, a), r.images_per_s) for r in rows]
                for name, rows in (("cal", cal), ("cnn", cnn), ("bert", bert))}
        rms = (sum(e * e for e in errs["cal"]) / len(errs["cal"])) ** 0.5
        out.append((v, typical_error(errs["cal"]), rms, typical_error(errs["cnn"]),
                    typical_error(errs["bert"])))
    return out


VARIANTS = {
    "(a) full-rate FP32 acc": lambda r: predict_with(r, card=full_rate(
        catalog().by_name(r.catalog_card))),
    "(c) bandwidth × clock": lambda r: predict_with(r, card=power_bandwidth(
        catalog().by_name(r.catalog_card))),
    "(e) no transposes 8.6/8.9": no_transposes,
    "(f) without the streaming share (df8c16b)": without_streaming,
}


def calibration_effect(fn) -> tuple[float, float]:
    """Typical error over the calibration set's single-GPU rows and its ResNet-50 mixed rows
    under a variant (``fn(row)`` → predicted images/s)."""
    rows = [r for r in load_rows()[0] if r.num_gpus == 1]
    errors = [log_error(fn(r), r.images_per_s) for r in rows]
    mixed = [e for e, r in zip(errors, rows) if r.preset == "resnet50" and r.precision == "mixed"]
    return typical_error(errors), typical_error(mixed)


def main() -> None:
    # Lambda's ResNet-50 rows only: every held-out source (timm's RTX 3090 tables, the BERT
    # rows) is in load_holdout_rows() now, and a BERT row of a card is not its ResNet-50 row.
    rows = [r for r in load_holdout_rows() if r.precision in SIXTEEN and r.preset == "resnet50"
            and r.holdout.startswith("lambda")]
    by_card: dict[tuple[str, str], list] = {}
    for r in rows:
        by_card.setdefault((r.precision, r.catalog_card), []).append(r)
    names = list(VARIANTS)
    print("Held-out 16-bit rows (Lambda, ResNet-50, NCHW): predicted ÷ measured per card, now "
          "and with one change\n")
    print("| precision | card | compute capability | now | " + " | ".join(names)
          + " | (b) traffic in L2-sized layers | (d) host / launch floor of the step | "
          "bandwidth per SM cycle | (g) memory-bound speed-up the row implies |")
    print("|---|---|---|---|" + "---|" * len(names) + "---|---|---|---|")
    for (precision, name), members in sorted(by_card.items(), key=lambda kv: (
            kv[0][0], catalog().by_name(kv[0][1]).compute_capability, kv[0][1])):
        card = catalog().by_name(name)
        now = statistics.median(predict(r) / r.images_per_s for r in members)
        cols = [statistics.median(VARIANTS[v](r) / r.images_per_s for r in members)
                for v in names]
        l2 = l2_share(members[0])
        host, floor = host_share(members[0])
        print(f"| {precision} | {name} | {card.compute_capability} | {now:.2f} | "
              + " | ".join(f"{c:.2f}" for c in cols)
              + f" | {'—' if l2 is None else f'{l2 * 100:.1f} %'} | "
                f"{host * 100:.1f} % / {floor * 100:.1f} % | "
                f"{bytes_per_sm_cycle(card):.1f} B | "
                f"{statistics.median(implied_memory_speedup(r) for r in members):.2f}× |")

    print("\nThe calibration set under each change (typical error, all single-GPU rows; "
          "ResNet-50 mixed):")
    base = calibration_effect(predict)
    print(f"- now: {base[0] * 100:.1f} %; {base[1] * 100:.1f} %")
    for v in names:
        all_rows, mixed = calibration_effect(VARIANTS[v])
        print(f"- {v}: {all_rows * 100:.1f} %; {mixed * 100:.1f} %")

    print("\nThe same card in two software generations (both NCHW; the model predicts it the "
          "same in both):\n")
    print("| card | 2020-21 `--fp16` measured | predicted ÷ measured | 2022-24 AMP measured | "
          "predicted ÷ measured | measured change |")
    print("|---|---|---|---|---|---|")
    # The V100 ran as the 32 GB card in 2020 and the 16 GB since: same chip and clocks.
    key = {"Tesla V100 SXM2 16GB": "Tesla V100 SXM2", "Tesla V100 SXM2 32GB": "Tesla V100 SXM2"}
    old = {key.get(r.catalog_card, r.catalog_card): r for r in rows if r.precision == "fp16"}
    new: dict[str, list] = {}
    for r in rows:  # speed-holdout-lambda.csv's AMP rows: NGC 22.09 or later (the logs' vary)
        if r.precision == "mixed" and r.holdout == "lambda":
            new.setdefault(key.get(r.catalog_card, r.catalog_card), []).append(r)
    for name in sorted(set(old) & set(new)):
        o, n = old[name], new[name][0]
        print(f"| {name} | {o.images_per_s:.0f} | {predict(o) / o.images_per_s:.2f} | "
              f"{n.images_per_s:.0f} | {predict(n) / n.images_per_s:.2f} | "
              f"{(n.images_per_s / o.images_per_s - 1) * 100:+.0f} % |")

    print("\nOne memory efficiency for every card: what each set asks of it (every other "
          "assumption at its default)\n")
    print("| memory_efficiency | calibration typical error | calibration rms log error | "
          "held-out CNN | BERT |")
    print("|---|---|---|---|---|")
    for v, cal, rms, cnn, bert in memory_efficiency_sets():
        print(f"| {v:g} | {cal * 100:.1f} % | {rms:.3f} | {cnn * 100:.1f} % | "
              f"{bert * 100:.1f} % |")


if __name__ == "__main__":
    main()
