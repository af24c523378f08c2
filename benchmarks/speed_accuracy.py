"""The speed model against measured training throughput (issue 14).

For every single-GPU row of ``data/speed-calibration.csv`` whose network the planner can build
(see ``calibration.py`` for how a row maps to a card, a preset, a precision and a batch), the
predicted images/s against the measured one, grouped by network and precision:

* **typical error**: exp(mean |log(predicted / measured)|) − 1 over the group's rows;
* **median ratio** predicted / measured;
* **Spearman** rank correlation between predicted and measured, over the group's cards (each
  card's median), where the group has five cards or more. A card is a catalog card: one chip,
  clocks and memory configuration. The sources' "V100 SXM2 32GB" and the DGX-2's "V100 SXM3
  32GB" run the same chip at the same clocks and are predicted as one card (``calibration``),
  so their measured difference is framework and version spread (2× on one chip here), not a
  ranking the model could get right or wrong; they count as one card.

Targets: typical error ≤ 20 % for ResNet-50 and ≤ 30 % for the others; Spearman ≥ 0.95 where
there are five cards or more (shown in brackets, not judged, for three or four). Networks only
used to check (not to fit) are marked "held out". After the table: what the sources' own caveats
say about rows and groups (rows flagged SUSPICIOUS, groups one framework measured), every row
kept in the figures.

Then the multi-GPU rows (one node, 2–16 GPUs): each against the single-GPU row of the same
source, framework, card, network, precision and batch, measured speed-up against the planner's
``scaling`` (framework "optimised": these are NVIDIA's and TensorFlow's tuned data-parallel
scripts). Then the held-out rows: Lambda Labs' ResNet-50 (``--holdout``) and BERT SQuAD
(``--transformers``; both with ``--holdout``) on cards the calibration set lacks, per group
and per card. Run: ``python benchmarks/speed_accuracy.py`` (about 10 s).
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict

from calibration import (
    FIT_NETWORKS,
    ROOT,
    catalog,
    holdout_files,
    load_holdout_rows,
    load_rows,
    log_error,
    memory_format,
    multi_gpu_pairs,
    _workload,
    predict,
    predicted_speedup,
    row_assumptions,
    spearman,
    typical_error,
)

from planner.core.parallel import ParallelAssumptions
from planner.core.speed import band_path, rates
from planner.core.speed_bands import FILENAME, outward, path_kind

TARGET = {"resnet50": 0.20}
OTHER_TARGET = 0.30
RHO_TARGET = 0.95


def single_gpu(rows, held_out: bool = False) -> tuple[list[tuple], float]:
    """Per (network, precision) group: rows, cards, typical error, median ratio, Spearman and
    whether the group was fitted (never, with ``held_out``)."""
    groups = defaultdict(list)
    for r in rows:
        if r.num_gpus == 1:
            groups[(r.preset, r.precision)].append(r)
    out = []
    all_errors = []
    for (preset, precision), members in sorted(groups.items()):
        preds = [predict(r) for r in members]
        errors = [log_error(p, r.images_per_s) for p, r in zip(preds, members)]
        all_errors += errors
        ratios = [p / r.images_per_s for p, r in zip(preds, members)]
        by_card = defaultdict(lambda: ([], []))
        for p, r in zip(preds, members):
            by_card[r.catalog_card][0].append(p)
            by_card[r.catalog_card][1].append(r.images_per_s)
        rho = None
        if len(by_card) >= 3:  # judged from five cards; shown (in brackets) from three
            rho = spearman([statistics.median(v[0]) for v in by_card.values()],
                           [statistics.median(v[1]) for v in by_card.values()])
        out.append((preset, precision, len(members), len(by_card), typical_error(errors),
                    statistics.median(ratios), rho, preset in FIT_NETWORKS and not held_out))
    return out, typical_error(all_errors)


def caveats(rows) -> list[str]:
    """What the sources' own caveats say about groups the table cannot judge fairly: rows the
    calibration set's notes flag SUSPICIOUS (kept in the table; the group's error without
    them beside it), and groups measured by one framework only."""
    out = []
    singles = [r for r in rows if r.num_gpus == 1]
    for preset, precision in sorted({(r.preset, r.precision) for r in singles}):
        members = [r for r in singles if (r.preset, r.precision) == (preset, precision)]
        flagged = [r for r in members if "SUSPICIOUS" in r.notes]
        if not flagged:
            continue
        rest = [r for r in members if r not in flagged]
        why = flagged[0].notes[flagged[0].notes.index("SUSPICIOUS"):].split(";")[0]
        shown = ", ".join(f"{r.card} {r.images_per_s:g}/s (predicted {predict(r):.0f})"
                          for r in flagged)
        without = (f"; without them {typical_error([log_error(predict(r), r.images_per_s) for r in rest]) * 100:.0f} %"  # noqa: E501
                   if rest else "")
        out.append(f"{preset} {precision}: {len(flagged)} of {len(members)} rows flagged by the "
                   f"calibration set ({why}): {shown}; kept in the table{without}")
    for preset, precision in sorted({(r.preset, r.precision) for r in singles}):
        members = [r for r in singles if (r.preset, r.precision) == (preset, precision)]
        frameworks = {r.framework.split()[0] for r in members}
        if len(frameworks) != 1:
            continue
        fw = frameworks.pop()
        # The same framework's rows in other precisions on the same cards: how far off the
        # model is for that framework anyway.
        cards = {r.card for r in members}
        # The nearest precision measured by several frameworks: the other 16-bit one.
        near = {"fp16": "mixed", "mixed": "fp16", "bf16": "mixed_bf16"}.get(precision)
        peers = [r for r in singles if r.preset == preset and r.card in cards
                 and r.precision == near and r.framework.split()[0] == fw]
        others = [r for r in singles if r.preset == preset and r.card in cards
                  and r.precision == near and r.framework.split()[0] != fw]
        if not peers or not others:
            continue
        ratio = statistics.median(predict(r) / r.images_per_s for r in peers)
        rest = statistics.median(predict(r) / r.images_per_s for r in others)
        out.append(f"{preset} {precision}: {len(members)} row(s), all {fw}. {fw}'s {near} rows "
                   f"of {preset} on the same card(s) are predicted at {ratio:.2f}× measured "
                   f"({len(peers)} rows), the other frameworks' at {rest:.2f}× ({len(others)} "
                   f"rows): what the model makes of {fw} on those cards, beside {precision}; "
                   f"kept in the table and the total")
    return out


def multi_gpu(rows) -> list[tuple]:
    pa = ParallelAssumptions(framework="optimised")
    return [(r.card, r.preset, r.precision, r.num_gpus, r.images_per_s / one.images_per_s,
             predicted_speedup(r, pa)) for r, one in multi_gpu_pairs(rows)]


def print_groups(table, overall: float) -> int:
    """The per-group table, with targets; returns how many groups miss theirs."""
    print("| network | precision | rows | cards | typical error | median ratio | Spearman | "
          "target | |")
    print("|---|---|---|---|---|---|---|---|---|")
    missed = 0
    for preset, precision, n, cards, err, ratio, rho, fitted in table:
        target = TARGET.get(preset, OTHER_TARGET)
        judged = rho is not None and cards >= 5
        ok = err <= target and (not judged or rho >= RHO_TARGET)
        missed += not ok
        rho_txt = ("–" if rho is None else f"{rho:.2f}" if judged else f"({rho:.2f})")
        role = "fit" if fitted else "held out"
        print(f"| {preset} | {precision} | {n} | {cards} | {err * 100:.0f} % | {ratio:.2f} | "
              f"{rho_txt} | ≤ {target * 100:.0f} % | {role}{'' if ok else ' **FAIL**'} |")
    print(f"\nall single-GPU rows: typical error {overall * 100:.1f} %; "
          f"{missed} of {len(table)} groups miss their target")
    return missed


CLASS = {"datacenter": "data centre", "workstation": "workstation", "consumer": "GeForce"}


def summary(rows, preds) -> tuple:
    """rows, cards, typical error, median ratio predicted / measured and Spearman over the
    cards' medians (None under three cards) of ``rows`` with their predictions ``preds``."""
    errors = [log_error(p, r.images_per_s) for p, r in zip(preds, rows)]
    ratios = [p / r.images_per_s for p, r in zip(preds, rows)]
    by_card = defaultdict(lambda: ([], []))
    for p, r in zip(preds, rows):
        by_card[r.catalog_card][0].append(p)
        by_card[r.catalog_card][1].append(r.images_per_s)
    rho = None
    if len(by_card) >= 3:
        rho = spearman([statistics.median(v[0]) for v in by_card.values()],
                       [statistics.median(v[1]) for v in by_card.values()])
    return (len(rows), len(by_card), typical_error(errors), statistics.median(ratios), rho)


def print_summaries(title: str, groups: dict) -> None:
    """One line per group: its rows, cards, typical error, median ratio and Spearman
    (judged, against RHO_TARGET, from five cards; in brackets from three)."""
    print(f"\n| {title} | rows | cards | typical error | median ratio | Spearman |")
    print("|---|---|---|---|---|---|")
    for key, (rows, preds) in groups.items():
        n, cards, err, ratio, rho = summary(rows, preds)
        rho_txt = ("–" if rho is None else f"{rho:.2f}" if cards >= 5 else f"({rho:.2f})")
        print(f"| {key} | {n} | {cards} | {err * 100:.0f} % | {ratio:.2f} | {rho_txt} |")


def holdout_report(rows) -> dict:
    """The held-out figures ``holdout`` prints, as data: per source, per class of card (data
    centre / workstation / GeForce, the catalog's ``segment``) and per generation (its
    ``architecture``), each by precision; per card; and the rows furthest off."""
    preds = [predict(r) for r in rows]

    def group(key):
        out = defaultdict(lambda: ([], []))
        for r, p in sorted(zip(rows, preds), key=lambda rp: key(rp[0])):
            out[key(r)][0].append(r)
            out[key(r)][1].append(p)
        return dict(out)

    def card(r):
        return catalog().by_name(r.catalog_card)

    worst = sorted(zip(rows, preds), key=lambda rp: -log_error(rp[1], rp[0].images_per_s))
    return {
        "all": group(lambda r: "all held-out rows"),
        "source": group(lambda r: f"{r.holdout} · {r.preset} · {r.precision}"
                                  + (f" · {r.layout}" if r.layout else "")),
        "class": group(lambda r: f"{CLASS.get(card(r).segment, card(r).segment)} · "
                                 f"{r.precision}"),
        "generation": group(lambda r: f"{card(r).architecture} "
                                      f"({card(r).compute_capability}) · {r.precision}"),
        "card": group(lambda r: (r.precision, r.catalog_card, r.preset)),
        "worst": worst,
    }


def holdout() -> None:
    """Every held-out source (``speed-holdout-*.csv``): never fitted. Per source, per class of
    card and per generation (each by precision): typical error, median ratio and Spearman; then
    every card (predicted, measured: the medians of its rows, and their ratio) and the rows
    furthest off."""
    rows = [r for r in load_holdout_rows() if r.num_gpus == 1
            and network_class(r) == "cnn"]
    sources = sorted({r.holdout for r in rows})
    print(f"\nHeld out (never fitted): {len(rows)} single-GPU rows on "
          f"{len({r.catalog_card for r in rows})} catalog cards from {len(sources)} source(s): "
          + ", ".join(f"speed-holdout-{s}.csv ({sum(r.holdout == s for r in rows)})"
                      for s in sources))
    print_held_out(rows)


def transformers() -> None:
    """Lambda Labs' BERT-base and BERT-large SQuAD fine-tuning rows (``speed-holdout-bert.csv``,
    sequences/s at 384 tokens): never fitted. The same tables as ``holdout``."""
    rows = [r for r in load_holdout_rows() if r.num_gpus == 1
            and network_class(r) == "transformer"]
    print(f"\nHeld out: Lambda Labs deeplearning-benchmark, BERT-base and BERT-large SQuAD "
          f"(DLE run_squad.py, 384 tokens; sequences/s), {len(rows)} single-GPU rows on "
          f"{len({r.catalog_card for r in rows})} catalog cards (never fitted)")
    print_held_out(rows, unit="sequences/s")


def print_held_out(rows, unit: str = "images/s") -> None:
    print()
    table, overall = single_gpu(rows, held_out=True)
    print_groups(table, overall)
    rep = holdout_report(rows)
    print_summaries("source · network · precision", rep["source"])
    print_summaries("class · precision", rep["class"])
    print_summaries("generation (compute capability) · precision", rep["generation"])
    print()
    print(f"| precision | card | network | rows | batch | predicted {unit} | measured | ratio "
          "| sources |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (precision, card, preset), (members, preds) in sorted(
            rep["card"].items(), key=lambda kv: (kv[0][0], kv[0][2] != "resnet50", kv[0][2],
                                                 statistics.median(
                                                     r.images_per_s for r in kv[1][0]))):
        pred = statistics.median(preds)
        meas = statistics.median(r.images_per_s for r in members)
        batches = "/".join(sorted({str(r.batch) for r in members}, key=int))
        srcs = ", ".join(sorted({r.holdout for r in members}))
        print(f"| {precision} | {card} | {preset} | {len(members)} | {batches} | {pred:.0f} | "
              f"{meas:.0f} | {pred / meas:.2f} | {srcs} |")
    print("\nRows furthest off (predicted / measured):")
    for r, p in rep["worst"][:10]:
        print(f"- {p / r.images_per_s:.2f}: {r.catalog_card} {r.preset} {r.precision} batch "
              f"{r.batch}: predicted {p:.0f}, measured {r.images_per_s:g} ({r.holdout}; "
              f"{r.framework})")


BANDS_PATH = ROOT / "data" / FILENAME


def bands() -> dict:
    """The error bands the planner shows (``planner.core.speed_bands``), from every single-GPU
    row of the calibration set and the held-out set, less the rows the calibration set's notes
    flag SUSPICIOUS (listed under ``excluded``): per kind of card (compute capability), precision
    and hardware path (the convolutions' path on that card in that precision), the lowest and
    highest measured ÷ predicted throughput, rounded outward to whole percent, each side at
    least the typical error of all those rows (``floor_pct``). The source rows are kept with
    their figures."""
    calibration, _ = load_rows()
    sets = (("calibration", calibration), ("held out", load_holdout_rows()))
    sources = ["benchmarks/data/speed-calibration.csv (single-GPU rows)"] + [
        f"benchmarks/data/{p.name}" for p in holdout_files()]
    groups = defaultdict(list)
    excluded, errors = [], []
    # measured / predicted of each kept row from the unrounded prediction (the band must cover
    # what the planner shows, not the stored one-decimal figure)
    exact = {}
    for name, rows in sets:
        for r in rows:
            if r.num_gpus != 1:
                continue
            predicted = predict(r)
            item = {"set": name, "card": r.catalog_card, "network": r.preset,
                    "framework": r.framework, "layout": memory_format(r), "batch": r.batch,
                    "measured": r.images_per_s, "predicted": round(predicted, 1)}
            if "SUSPICIOUS" in r.notes:
                excluded.append(item)
                continue
            card = catalog().by_name(r.catalog_card)
            cls = network_class(r)
            rr = rates(card, r.precision, row_assumptions(r))
            path = path_kind(band_path(rr, cls))
            groups[(card.compute_capability, r.precision, path, cls)].append(item)
            exact[id(item)] = r.images_per_s / predicted
            errors.append(log_error(predicted, r.images_per_s))
    floor = outward(typical_error(errors), down=False)
    out = []
    for (cc, precision, path, cls), items in sorted(
            groups.items(), key=lambda kv: (kv[0][3] != "cnn",
                                            tuple(int(x) for x in kv[0][0].split(".")),
                                            kv[0][1], kv[0][2])):
        ratios = [exact[id(i)] for i in items]
        out.append({"compute_capability": cc, "precision": precision, "path": path,
                    "network_class": cls,
                    "low_pct": min(outward(min(ratios) - 1, down=True), -floor),
                    "high_pct": max(outward(max(ratios) - 1, down=False), floor),
                    "rows": len(items), "cards": len({i["card"] for i in items}),
                    "measured_low_pct": outward(min(ratios) - 1, down=True),
                    "measured_high_pct": outward(max(ratios) - 1, down=False),
                    "card_spread_pct": card_spread(items),
                    "source_rows": items})
    return {"about": "Error bands of the speed model per kind of card (compute capability), "
                     "precision, hardware path and network class (cnn, transformer): measured "
                     "/ predicted training throughput "
                     "over the benchmark rows below, each side at least floor_pct. Made by "
                     "`python benchmarks/speed_accuracy.py --write-bands`; read by "
                     "planner/core/speed_bands.py.",
            "sources": sources,
            "floor_pct": floor, "floor_rows": len(errors), "bands": out,
            "excluded": excluded}


def card_spread(items: list[dict]) -> int | None:
    """How far apart two cards of one kind measured on one workload: over the rows of one
    network, layout and framework (the same precision: one band), each card's median measured ÷
    predicted; the largest ratio of one card's to another's, less one, as a whole percent
    rounded up. None where no workload was measured on two cards. What a speed-up of one card
    over another of its kind can be off by (``Band.over``)."""
    workloads = defaultdict(lambda: defaultdict(list))
    for i in items:
        workloads[(i["network"], i["layout"], i["framework"])][i["card"]].append(
            i["measured"] / i["predicted"])
    spreads = []
    for cards in workloads.values():
        if len(cards) >= 2:
            medians = [statistics.median(v) for v in cards.values()]
            spreads.append(max(medians) / min(medians) - 1)
    return outward(max(spreads), down=False) if spreads else None


def network_class(row) -> str:
    """The band class of a row's network (``planner.core.speed._network_class``)."""
    return _workload(row.preset, row.batch, row.precision).network_class


def print_bands(derived: dict) -> None:
    print(f"\nError bands shown with each speed (data/{FILENAME}): measured ÷ predicted per "
          f"kind of card and precision, each side at least the typical error of all "
          f"{derived['floor_rows']} rows ({derived['floor_pct']} %)\n")
    print("| class | compute capability | precision | path | rows | cards | measured | band | "
          "networks | sets |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for b in derived["bands"]:
        items = b["source_rows"]
        band = (f"±{b['high_pct']} %" if -b["low_pct"] == b["high_pct"]
                else f"−{-b['low_pct']} / +{b['high_pct']} %")
        print(f"| {b['network_class']} | {b['compute_capability']} | {b['precision']} | "
              f"{b['path']} | {b['rows']} | "
              f"{b['cards']} | {b['measured_low_pct']:+d} … {b['measured_high_pct']:+d} % | "
              f"{band} | {', '.join(sorted({i['network'] for i in items}))} | "
              f"{', '.join(sorted({i['set'] for i in items}))} |")
    for e in derived["excluded"]:
        print(f"- left out (flagged SUSPICIOUS by the calibration set): {e['card']} "
              f"{e['network']} {e['measured']:g}/s (predicted {e['predicted']:.0f})")


def write_bands(derived: dict) -> None:
    import json  # noqa: PLC0415

    BANDS_PATH.write_text(json.dumps(derived, indent=1, ensure_ascii=False) + "\n",
                          encoding="utf-8")
    print(f"wrote {BANDS_PATH.relative_to(ROOT)}")


def main() -> None:
    rows, skipped = load_rows()
    print(f"{len(rows)} rows the planner can predict; left out: "
          + ", ".join(f"{v} ({k})" for k, v in sorted(skipped.items())))
    table, overall = single_gpu(rows)
    print()
    print_groups(table, overall)
    for note in caveats(rows):
        print(f"- {note}")

    multi = multi_gpu(rows)
    print()
    print("| GPUs | rows | measured speed-up (median) | predicted (median) | typical error |")
    print("|---|---|---|---|---|")
    by_n = defaultdict(list)
    for item in multi:
        by_n[item[3]].append(item)
    errs_all = []
    for n, items in sorted(by_n.items()):
        errs = [abs(math.log(p / m)) for *_, m, p in items]
        errs_all += errs
        print(f"| {n} | {len(items)} | {statistics.median(i[4] for i in items):.2f} | "
              f"{statistics.median(i[5] for i in items):.2f} | {typical_error(errs) * 100:.0f} % |")
    if errs_all:
        print(f"\nmulti-GPU speed-ups: typical error {typical_error(errs_all) * 100:.1f} % over "
              f"{len(errs_all)} rows")


if __name__ == "__main__":
    import sys

    if "--holdout" in sys.argv:  # only the held-out checks (about 5 s)
        holdout()
        transformers()
    elif "--transformers" in sys.argv:  # only the BERT rows
        transformers()
    elif "--bands" in sys.argv or "--write-bands" in sys.argv:
        derived = bands()
        print_bands(derived)
        if "--write-bands" in sys.argv:
            write_bands(derived)
    else:
        main()
        holdout()
        transformers()
        print_bands(bands())
