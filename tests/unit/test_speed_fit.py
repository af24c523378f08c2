"""The speed model against the article, and the fit table."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from planner.cli import run
from planner.core.catalog import load_catalog
from planner.core.fit import fit_table
from planner.core.memory import Assumptions, max_batch
from planner.core.network import Setup, analyze
from planner.core.plan import compute_plan
from planner.core.presets import load_preset
from planner.core.speed import iteration_time, rates, workload

# The article's equivalence table (relative speed on large networks, GTX 1080 = 1.0).
ARTICLE = {
    "GTX 1070": 0.8, "GTX TITAN X": 0.66, "GTX 980 Ti": 0.66, "GTX 980": 0.45,
    "GTX 970": 0.4, "GTX TITAN": 0.33, "GRID K520": 0.2, "GTX 960": 0.2,
}


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def average_ranks(values):
    values = np.asarray(values, dtype=float)
    order = values.argsort()
    ranks = np.empty(len(values))
    ranks[order] = np.arange(1, len(values) + 1)
    for v in np.unique(values):  # ties share their mean rank
        ranks[values == v] = ranks[values == v].mean()
    return ranks


def spearman(a, b) -> float:
    return float(np.corrcoef(average_ranks(a), average_ranks(b))[0, 1])


def relative(catalog, preset, batch, names, reference="GTX 1080", precision="fp32"):
    d, _ = load_preset(preset)
    w = workload(analyze(d), Setup(batch, precision, "momentum"))
    ref = iteration_time(w, catalog.by_name(reference), precision).time_per_iter_s
    return {n: ref / iteration_time(w, catalog.by_name(n), precision).time_per_iter_s
            for n in names}


@pytest.mark.parametrize("preset,batch", [("vgg16", 64), ("alexnet", 128)])
def test_reproduces_the_article_equivalence_table(catalog, preset, batch):
    ours = relative(catalog, preset, batch, ARTICLE)
    names = list(ARTICLE)
    rho = spearman([ARTICLE[n] for n in names], [ours[n] for n in names])
    assert rho >= 0.9, (rho, ours)
    for n in names:
        assert ours[n] == pytest.approx(ARTICLE[n], rel=0.25), (n, ours[n], ARTICLE[n])


def test_small_lstm_does_not_fill_a_big_card(catalog):
    def ratio(preset):
        d, s = load_preset(preset)
        w = workload(analyze(d), s)
        return (iteration_time(w, catalog.by_name("GTX 1070"), "fp32").time_per_iter_s
                / iteration_time(w, catalog.by_name("GTX 1080 Ti"), "fp32").time_per_iter_s)

    small, large = ratio("lstm-128"), ratio("lstm-1024")
    assert abs(small - 1) < 0.15  # the article: barely faster
    assert large > 1.5  # the full difference shows
    assert abs(small - 1) < abs(large - 1) / 4


def test_tensor_cores_speed_up_16_bit_and_pascal_does_not(catalog):
    rel = {}
    for name in ("RTX 3090", "GTX 1080 Ti"):
        card = catalog.by_name(name)
        rel[name] = rates(card, "mixed", Assumptions()).flops_per_s / rates(
            card, "fp32", Assumptions()).flops_per_s
    assert rel["RTX 3090"] > 1.5
    assert rel["GTX 1080 Ti"] == pytest.approx(1.0)  # 1/64-rate FP16: runs at FP32 rate
    assert "tensor" in rates(catalog.by_name("A100 80GB SXM"), "bf16", Assumptions()).path


def test_bandwidth_bound_layers_follow_bandwidth(catalog):
    # Max pooling on a big tensor is bound by memory: the card with twice the bandwidth is
    # about twice as fast however its FLOPS compare.
    from planner.core.layers import LayerSpec
    from planner.core.network import NetworkDraft

    d = NetworkDraft("pool", (LayerSpec("input", "in", {"shape": (64, 224, 224)}),
                              LayerSpec("maxpool", "p", {"kernel": 2})))
    w = workload(analyze(d), Setup(64, "fp32", "sgd", "infer"))
    a, b = catalog.by_name("GTX 1080 Ti"), catalog.by_name("GTX 1070")
    ta = iteration_time(w, a, "fp32").time_per_iter_s
    tb = iteration_time(w, b, "fp32").time_per_iter_s
    assert tb / ta == pytest.approx(a.bandwidth_gbs / b.bandwidth_gbs, rel=0.05)


def test_fit_table_rows(catalog):
    d, s = load_preset("resnet50")
    s = replace(s, batch_size=64)
    rows = {r.card.name: r for r in fit_table(compute_plan(d, s), catalog)}
    assert len(rows) == len(catalog)
    a = analyze(d)
    big, small = rows[catalog.by_name("RTX 4090").name], rows[catalog.by_name("GTX 1060 3GB").name]
    assert big.fits and not small.fits
    assert big.headroom_bytes == big.usable_bytes - big.peak_bytes > 0
    assert big.max_batch == max_batch(a, s, big.usable_bytes)
    assert big.relative_speed > 1 and rows[catalog.by_name("GTX 1080").name].relative_speed == \
        pytest.approx(1.0)
    assert big.support == "supported"
    assert rows[catalog.by_name("GTX TITAN").name].support == "unsupported"
    assert rows[catalog.by_name("GTX 1080 Ti").name].support == "legacy"


def test_gtx_970_is_judged_on_its_fast_memory(catalog):
    d, s = load_preset("resnet50")
    row = next(r for r in fit_table(compute_plan(d, s), catalog) if r.card.name == catalog.by_name(
        "GTX 970").name)
    assert row.usable_bytes == int(3.5 * 2**30) - Assumptions().driver_reserved_bytes
    assert "3.5" in row.note


def test_prices_as_of_mid_2017(catalog):
    d, s = load_preset("resnet18")
    rows = {r.card.name: r for r in fit_table(compute_plan(d, s), catalog, as_of="2017-07")}
    r = rows[catalog.by_name("GTX 1080 Ti").name]
    assert r.price_new is not None and r.price_new.date <= "2017-07"
    assert r.samples_per_s_per_usd and r.samples_per_s_per_usd > 0
    # As of mid-2017, the cards released later are not in the table at all.
    later = [c.name for c in catalog if c.release and c.release > "2017-07"]
    assert "GeForce RTX 4090" in later and "B200" in later
    assert rows and not set(later) & set(rows)
    assert all(catalog.by_name(n).release is None or catalog.by_name(n).release <= "2017-07"
               for n in rows)


def test_fit_cli_contract(capsys):
    code = run(["fit", "preset:resnet18", "--json", "--reference", "GTX 1070"])
    out, err = capsys.readouterr()
    assert code == 0
    rows = json.loads(out)
    keys = {"name", "fits", "peak_bytes", "usable_bytes", "max_batch", "time_per_iter_s",
            "samples_per_s", "relative_speed", "price_usd", "support"}
    assert keys <= set(rows[0])
    ref = next(r for r in rows if r["name"].endswith("GTX 1070"))
    assert ref["relative_speed"] == pytest.approx(1.0)


@pytest.mark.parametrize("argv,needle", [
    (["fit", "preset:resnet18", "--reference", "GTX 1800"], "did you mean"),
    (["fit", "preset:resnet18", "--as-of", "2017"], "--as-of"),
])
def test_fit_cli_bad_input(capsys, argv, needle):
    assert run(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0]
