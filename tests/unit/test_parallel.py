"""Several GPUs: memory per GPU by strategy, and the article's scaling figures."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from planner.cli import run
from planner.core.catalog import load_catalog
from planner.core.fit import fit_table
from planner.core.layers import LayerSpec
from planner.core.memory import Assumptions, estimate
from planner.core.network import NetworkDraft, Setup, analyze
from planner.core.parallel import (
    Parallel,
    ParallelAssumptions,
    copies_that_fit,
    gradient_bytes,
    parameter_bytes_per_parameter,
    per_gpu_memory,
    scaling,
)
from planner.core.plan import compute_plan
from planner.core.presets import load_preset
from planner.core.speed import workload

EXACT = Assumptions(allocator_block_bytes=1, allocator_segment_bytes=1,
                    allocator_large_threshold_bytes=1 << 62)


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def test_zero_paper_bytes_per_parameter():
    assert parameter_bytes_per_parameter("mixed", "adam") == 16  # 2 + 2 + 12
    assert parameter_bytes_per_parameter("fp32", "sgd") == 8


@pytest.mark.parametrize("strategy,weights,grads,opt", [
    ("ddp", 1, 1, 1), ("zero1", 1, 1, 1 / 8), ("zero2", 1, 1 / 8, 1 / 8),
    ("zero3", 1 / 8, 1 / 8, 1 / 8), ("fsdp", 1 / 8, 1 / 8, 1 / 8),
])
def test_sharding_divides_what_the_stage_shards(strategy, weights, grads, opt):
    d, s = load_preset("resnet50")
    est = estimate(d, replace(s, precision="mixed", optimizer="adam"), EXACT)
    m = per_gpu_memory(est, Parallel(8, 1, strategy))
    assert m.weights == pytest.approx(est.weights * weights, rel=1e-6)
    assert m.gradients == pytest.approx(est.gradients * grads, rel=1e-6)
    assert m.optimizer == pytest.approx(est.optimizer * opt, rel=1e-6)
    assert m.activations == est.activations  # per-GPU batch: unchanged
    assert m.communication > 0
    if strategy in ("zero3", "fsdp"):
        assert m.gathered > 0


def test_one_gpu_is_the_plain_estimate():
    d, s = load_preset("resnet18")
    est = estimate(d, s)
    assert per_gpu_memory(est, Parallel(1, 1, "zero3")).peak == est.peak


def test_more_sharding_never_needs_more_memory():
    d, s = load_preset("vgg16")
    est = estimate(d, replace(s, optimizer="adam"))
    peaks = [per_gpu_memory(est, Parallel(8, 1, st)).peak
             for st in ("ddp", "zero1", "zero2")]
    assert peaks == sorted(peaks, reverse=True)


def speedups(catalog, preset, framework, n=4):
    d, s = load_preset(preset)
    s = Setup(s.batch_size, "fp32", "momentum")
    a = analyze(d)
    est = estimate(a, s)
    pts = scaling(workload(a, s), catalog.by_name("GTX 1080"), "fp32", gradient_bytes(est),
                  Parallel(n, 1, "ddp"), ParallelAssumptions(framework=framework))
    return [p.speedup for p in pts]


@pytest.mark.parametrize("preset", ["resnet50", "vgg16"])
def test_four_gpus_match_the_article_for_convolutional_networks(catalog, preset):
    typical = speedups(catalog, preset, "typical")
    optimised = speedups(catalog, preset, "optimised")
    assert 2.5 <= typical[-1] <= 3.0
    assert 3.6 <= optimised[-1] <= 3.8
    assert typical == sorted(typical) and optimised == sorted(optimised)


def test_dense_networks_gain_much_less(catalog):
    dense = NetworkDraft("dense", (
        LayerSpec("input", "in", {"shape": (4096,)}),
        LayerSpec("fc", "fc1", {"units": 4096}), LayerSpec("activation", "r1"),
        LayerSpec("fc", "fc2", {"units": 4096}), LayerSpec("activation", "r2"),
        LayerSpec("fc", "fc3", {"units": 1000})))
    a = analyze(dense)
    s = Setup(128, "fp32", "momentum")
    pts = scaling(workload(a, s), catalog.by_name("GTX 1080"), "fp32",
                  gradient_bytes(estimate(a, s)), Parallel(4, 1, "ddp"),
                  ParallelAssumptions(framework="optimised"))
    assert pts[-1].speedup < 0.5 * speedups(catalog, "resnet50", "optimised")[-1]


def test_nvlink_beats_pcie_and_network_is_slowest(catalog):
    d, s = load_preset("resnet50")
    a = analyze(d)
    est = estimate(a, s)
    w = workload(a, s)
    card = catalog.by_name("A100 80GB SXM")

    def comm(parallel):
        return scaling(w, card, s.precision, gradient_bytes(est), parallel)[-1].communication_s

    assert comm(Parallel(8, 1)) < comm(Parallel(1, 8))


def test_copies_that_fit():
    assert copies_that_fit(3 * 2**30, 23 * 2**30) == 7
    assert copies_that_fit(30 * 2**30, 23 * 2**30) == 0


def test_fit_table_with_several_gpus(catalog):
    d, s = load_preset("resnet50")
    single = {r.card.name: r for r in fit_table(compute_plan(d, s), catalog)}
    many = {r.card.name: r for r in fit_table(compute_plan(d, replace(s, optimizer="adam"),
                                                              parallel=Parallel(4, 1, "zero3")),
                                                 catalog)}
    name = catalog.by_name("RTX 4090").name
    assert many[name].samples_per_s > 2.5 * single[name].samples_per_s


def test_estimate_cli_parallel_json(capsys):
    assert run(["estimate", "preset:resnet50", "--gpus", "4", "--strategy", "zero2",
                "--optimizer", "adam", "--json", "--memory", "24"]) == 0
    data = json.loads(capsys.readouterr().out)
    par = data["parallel"]
    assert par["gpus"] == 4 and par["strategy"] == "zero2" and par["global_batch"] == 256
    assert par["per_gpu_bytes"]["peak"] < data["bytes"]["peak"] + par["per_gpu_bytes"][
        "communication"]
    assert par["per_gpu_bytes"]["optimizer"] * 4 == pytest.approx(data["bytes"]["optimizer"],
                                                                 rel=1e-3)


@pytest.mark.parametrize("argv,needle", [
    (["estimate", "preset:resnet50", "--gpus", "0"], "GPUs per node"),
    (["estimate", "preset:resnet50", "--strategy", "zero9"], "invalid choice"),
])
def test_parallel_cli_bad_input(capsys, argv, needle):
    assert run(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0]
