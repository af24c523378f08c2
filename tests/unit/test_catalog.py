"""The built-in GPU catalog (data/gpus.json) and its loader (planner/core/catalog.py)."""

from __future__ import annotations

import argparse
import copy
import io
import json
import re
import subprocess
import sys

import pytest

from planner import paths
from planner.cli_catalog import add_catalog_parser, catalog_command
from planner.core import catalog as cat
from planner.core.catalog import (
    Catalog,
    CatalogError,
    GpuSpec,
    Overrides,
    OwnedCard,
    PricePoint,
    load_catalog,
    software_support,
)

GIB = 1024**3
MONTH = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")


def _raw() -> dict:
    return json.loads(paths.data_path("gpus.json").read_text(encoding="utf-8"))


RAW = _raw()
ROWS = RAW["cards"]
ROW_IDS = [r["name"] for r in ROWS]


@pytest.fixture
def catalog(planner_home) -> Catalog:
    return load_catalog()


@pytest.fixture
def overrides_file(planner_home):
    return paths.data_dir() / cat.OVERRIDES_FILENAME


# ------------------------------------------------------------------ schema and units

ARCH_CC = {
    "Kepler": {"3.0", "3.5", "3.7"},
    "Maxwell": {"5.0", "5.2"},
    "Pascal": {"6.0", "6.1"},
    "Volta": {"7.0"},
    "Turing": {"7.5"},
    "Ampere": {"8.0", "8.6"},
    "Ada Lovelace": {"8.9"},
    "Hopper": {"9.0"},
    "Blackwell": {"10.0", "12.0"},
}

# field: (type, minimum, maximum, required)
RANGES = {
    "memory_gib": ((int, float), 1, 200, True),
    "bandwidth_gbs": ((int, float), 50, 10_000, True),
    "fp32_tflops": ((int, float), 0.5, 200, True),
    "bus_width_bits": (int, 64, 8192, False),
    "memory_data_rate_gbps": ((int, float), 1.0, 32, False),
    "cuda_cores": (int, 300, 30_000, False),
    "boost_clock_mhz": (int, 500, 3000, False),
    "fp16_tflops": ((int, float), 0.01, 300, False),
    "fp16_tensor_tflops": ((int, float), 20, 5000, False),
    "fp16_tensor_fp32acc_tflops": ((int, float), 10, 5000, False),
    "bf16_tensor_tflops": ((int, float), 10, 5000, False),
    "int8_tops": ((int, float), 5, 10_000, False),
    "tdp_w": ((int, float), 30, 1200, True),
    "pcie_gen": (int, 3, 6, False),
    "launch_price_usd": ((int, float), 50, 20_000, False),
}


def test_schema_header():
    assert RAW["schema_version"] == 1
    notes = RAW["field_notes"]
    for key in ("memory_gib", "fp16_tensor_tflops", "bf16_tensor_tflops", "prices"):
        assert notes[key]
    assert "vendor" in notes["memory_gib"]
    assert "DENSE" in notes["fp16_tensor_tflops"] and "FP16 accumulate" in notes[
        "fp16_tensor_tflops"]


@pytest.mark.parametrize("row", ROWS, ids=ROW_IDS)
def test_row_schema_and_units(row):
    name = row["name"]
    assert isinstance(name, str) and name.strip() == name and name
    assert row["architecture"] in ARCH_CC, name
    assert row["compute_capability"] in ARCH_CC[row["architecture"]], name
    assert row["segment"] in ("consumer", "workstation", "datacenter")
    assert isinstance(row["nvml_names"], list)
    for n in row["nvml_names"]:  # may be empty for a variant (checked below)
        assert isinstance(n, str) and n, name
    assert row["nvml_names"] or row["variant_of"], f"{name}: no NVML name and no variant_of"
    assert row["memory_type"] in cat.MEMORY_TYPES
    assert row["release"] is None or MONTH.match(row["release"])
    assert row["release"] is None or "2012-01" <= row["release"] <= "2026-12"
    assert isinstance(row["source"], str) and len(row["source"]) > 10
    assert row["quirks"] is None or isinstance(row["quirks"], dict)
    assert row["nvlink"] is None or row["nvlink"].startswith("NVLink ")
    for key, (typ, lo, hi, required) in RANGES.items():
        v = row[key]
        if v is None:
            assert not required, f"{name}: {key} is required"
            continue
        assert isinstance(v, typ) and not isinstance(v, bool), f"{name}: {key}={v!r}"
        assert lo <= v <= hi, f"{name}: {key}={v} outside [{lo}, {hi}]"
    if row["segment"] == "datacenter":
        assert row["launch_price_usd"] is None, f"{name}: no public list price for DC parts"
    # memory type and architecture agree
    if row["memory_type"].startswith("HBM"):
        assert row["bus_width_bits"] is None or row["bus_width_bits"] >= 3072
    else:
        assert row["bus_width_bits"] is None or row["bus_width_bits"] <= 512


@pytest.mark.parametrize("row", ROWS, ids=ROW_IDS)
def test_tensor_and_fp16_fields_agree(row):
    name, arch = row["name"], row["architecture"]
    tc = row["has_tensor_cores"]
    if arch in ("Kepler", "Maxwell", "Pascal"):
        assert not tc and row["fp16_tensor_tflops"] is None
    if arch in ("Kepler", "Maxwell"):
        assert row["fp16_tflops"] is None, f"{name}: no native FP16 arithmetic"
    if arch == "Pascal" and row["compute_capability"] == "6.1":
        # consumer Pascal runs FP16 at 1/64 rate
        assert row["fp16_tflops"] == pytest.approx(row["fp32_tflops"] / 64, rel=0.02)
    if arch in ("Volta", "Ampere", "Ada Lovelace", "Hopper", "Blackwell"):
        assert tc, name
    if row["fp16_tensor_tflops"] is not None:
        assert tc
        assert row["fp16_tensor_tflops"] > row["fp32_tflops"]
        for k in ("fp16_tensor_fp32acc_tflops", "bf16_tensor_tflops"):
            if row[k] is not None:
                assert row[k] <= row["fp16_tensor_tflops"] * 1.001, (name, k)
    if arch in ("Kepler", "Maxwell", "Pascal", "Volta", "Turing"):
        assert row["bf16_tensor_tflops"] is None, f"{name}: BF16 arrived with Ampere"


def test_card_count(catalog):
    assert len(catalog) >= 80
    assert len(ROWS) == len(catalog)


def test_no_duplicate_names_or_nvml_names():
    names = [r["name"].casefold() for r in ROWS]
    assert len(names) == len(set(names))
    labels = names + [a.casefold() for r in ROWS for a in r["aliases"]]
    assert len(labels) == len(set(labels)), "an alias repeats a name or another alias"
    nvml = [n.casefold() for r in ROWS for n in r["nvml_names"]]
    dup = {n for n in nvml if nvml.count(n) > 1}
    assert not dup


ARTICLE_CARDS = [
    "GTX 680", "GTX 960", "GTX 970", "GTX 980", "GTX 980 Ti", "GTX Titan (Kepler)",
    "GTX Titan X (Maxwell)", "GTX 1050 Ti", "GTX 1060 3GB", "GTX 1060 6GB", "GTX 1070",
    "GTX 1080", "GTX 1080 Ti", "Titan X (Pascal)", "GRID K520",
]

REQUIRED_CARDS = ARTICLE_CARDS + [
    "GTX 660", "GTX 670", "GTX 770", "GTX 780", "GTX 780 Ti", "GTX 750 Ti", "GTX 1050",
    "GTX 1070 Ti", "Titan Xp", "Titan V", "Titan RTX", "RTX 2060", "RTX 2070", "RTX 2080",
    "RTX 2080 Ti", "RTX 2060 SUPER", "RTX 2070 SUPER", "RTX 2080 SUPER", "GTX 1650",
    "GTX 1660", "GTX 1660 SUPER", "GTX 1660 Ti", "RTX 3060", "RTX 3060 Ti", "RTX 3070",
    "RTX 3070 Ti", "RTX 3080 10GB", "RTX 3080 12GB", "RTX 3080 Ti", "RTX 3090", "RTX 3090 Ti",
    "RTX 4060", "RTX 4060 Ti 8GB", "RTX 4060 Ti 16GB", "RTX 4070", "RTX 4070 SUPER",
    "RTX 4070 Ti", "RTX 4070 Ti SUPER", "RTX 4080", "RTX 4080 SUPER", "RTX 4090",
    "RTX 5060 Ti 16GB", "RTX 5070", "RTX 5070 Ti", "RTX 5080", "RTX 5090",
    "Quadro P6000", "Quadro RTX 6000", "Quadro RTX 8000", "RTX A4000", "RTX A5000",
    "RTX A6000", "RTX 4000 Ada", "RTX 6000 Ada", "RTX PRO 6000 Blackwell",
    "Tesla K80", "Tesla M40", "P100 PCIe", "V100 SXM2 16GB", "V100 SXM2 32GB", "V100 PCIe",
    "T4", "A10", "A30", "A100 40GB PCIe", "A100 40GB SXM", "A100 80GB PCIe", "A100 80GB SXM",
    "L4", "L40S", "H100 PCIe", "H100 SXM", "H200", "B200",
]


@pytest.mark.parametrize("name", REQUIRED_CARDS)
def test_required_card_present(catalog, name):
    assert catalog.by_name(name) is not None, (name, catalog.closest_names(name))


@pytest.mark.parametrize(("name", "arch", "gib"), [
    ("GTX 680", "Kepler", 2), ("GTX Titan (Kepler)", "Kepler", 6), ("GRID K520", "Kepler", 4),
    ("GTX 970", "Maxwell", 4), ("GTX Titan X (Maxwell)", "Maxwell", 12),
    ("GTX 1060 3GB", "Pascal", 3), ("GTX 1060 6GB", "Pascal", 6), ("GTX 1080 Ti", "Pascal", 11),
    ("Titan X (Pascal)", "Pascal", 12), ("RTX 3090", "Ampere", 24), ("H200", "Hopper", 141),
    ("RTX 5090", "Blackwell", 32), ("A100 80GB SXM", "Ampere", 80),
])
def test_key_cards_memory_and_architecture(catalog, name, arch, gib):
    card = catalog.by_name(name)
    assert card.architecture == arch
    assert card.memory_gib == gib
    assert card.memory_bytes == gib * GIB


# ------------------------------------------------------------------ physical consistency

@pytest.mark.parametrize("row", [r for r in ROWS if r["bus_width_bits"]
                                 and r["memory_data_rate_gbps"]], ids=lambda r: r["name"])
def test_bandwidth_matches_bus_width_times_data_rate(row):
    expected = row["bus_width_bits"] / 8 * row["memory_data_rate_gbps"]
    assert row["bandwidth_gbs"] == pytest.approx(expected, rel=0.02)


@pytest.mark.parametrize("row", [r for r in ROWS if r["cuda_cores"] and r["boost_clock_mhz"]],
                         ids=lambda r: r["name"])
def test_fp32_matches_cores_times_clock(row):
    expected = 2 * row["cuda_cores"] * row["boost_clock_mhz"] / 1e6
    assert row["fp32_tflops"] == pytest.approx(expected, rel=0.03)


@pytest.mark.parametrize(("name", "bw", "fp32"), [
    # well-known datasheet figures
    ("GTX 1080", 320, 8.9), ("GTX 1080 Ti", 484, 11.3), ("GTX 970", 224, 3.9),
    ("GTX Titan X (Maxwell)", 336, 6.6), ("RTX 3090", 936, 35.6), ("RTX 4090", 1008, 82.6),
    ("A100 40GB SXM", 1555, 19.5), ("H100 SXM", 3350, 67), ("H200", 4800, 67),
    ("V100 SXM2 16GB", 900, 15.7), ("T4", 320, 8.1), ("RTX 5090", 1792, 104.8),
])
def test_datasheet_spot_checks(catalog, name, bw, fp32):
    card = catalog.by_name(name)
    assert card.bandwidth_gbs == pytest.approx(bw, rel=0.01)
    assert card.fp32_tflops == pytest.approx(fp32, rel=0.01)


@pytest.mark.parametrize(("name", "tensor"), [
    ("RTX 2080 Ti", 107.6), ("RTX 3090", 142.3), ("RTX 4090", 330.3), ("A100 80GB SXM", 312),
    ("H100 SXM", 989.5), ("V100 SXM2 16GB", 125), ("T4", 65),
])
def test_dense_tensor_figures(catalog, name, tensor):
    assert catalog.by_name(name).fp16_tensor_tflops == pytest.approx(tensor, rel=0.01)


# ------------------------------------------------------------------ prices

ALL_PRICES = [(r["name"], p) for r in ROWS for p in r["prices"]]


@pytest.mark.parametrize(("name", "point"), ALL_PRICES,
                         ids=[f"{n}@{p['date']}-{p['condition']}" for n, p in ALL_PRICES])
def test_every_price_is_dated_sourced_and_conditioned(catalog, name, point):
    assert MONTH.match(point["date"]) and "2012-01" <= point["date"] <= "2026-12"
    assert point["condition"] in ("new", "used")
    assert isinstance(point["source"], str) and len(point["source"]) >= 10
    # up to a data-centre module's tens of thousands
    assert isinstance(point["usd"], (int, float)) and 10 <= point["usd"] <= 100_000
    card = catalog.by_name(name)
    if card.release:
        assert point["date"] >= card.release, "a price before the card existed"


def test_enough_prices_recorded():
    assert len(ALL_PRICES) >= 25


# Which cards have a dated price in which year is data, not a test: `gpu-planner catalog
# --price-coverage` prints it (and the README quotes it). What is tested is that the report
# follows the observations (tests/unit/test_prices.py) and that the article's cards of 2017
# have their 2017 prices.
@pytest.mark.parametrize("name", ["GTX 1080", "GTX 1080 Ti", "GTX 980", "GTX 980 Ti",
                                  "TITAN Xp", "GTX 1050 Ti", "GTX 1060 6GB", "GRID K520"])
def test_article_cards_have_dated_2017_prices(catalog, name):
    years = catalog.price_coverage()[catalog.by_name(name).name]
    assert "2017" in years
    assert any(o.date.startswith("2017") and o.source for o in catalog.observations(name))


@pytest.mark.parametrize("name", ["RTX 5090", "RTX 5080", "RTX 5070 Ti", "RTX 5060 Ti 16GB",
                                  "RTX 4090", "RTX 4060 Ti 16GB", "RTX 3090", "RTX 3060"])
def test_todays_popular_cards_have_2026_prices(catalog, name):
    assert any(p.date.startswith("2026") for p in catalog.by_name(name).prices)


def test_the_2026_shortage_is_in_the_prices(catalog):
    # Street prices rose well above MSRP in early 2026 (DRAM shortage): the catalog says so
    # instead of quoting launch prices as today's.
    for name in ("RTX 5090", "RTX 5080", "RTX 5070 Ti"):
        card = catalog.by_name(name)
        assert catalog.price(card, "2026-01", "new").usd > 1.3 * card.launch_price_usd


@pytest.mark.parametrize("name", ["RTX 4090", "RTX 3090"])
def test_popular_cards_have_launch_and_2026_prices(catalog, name):
    card = catalog.by_name(name)
    assert card.launch_price_usd is not None and card.release is not None
    assert any(p.date.startswith("2026") for p in card.prices)
    # the launch price is flagged as such; in the release month a dated street price (the
    # nearest observation) is preferred to it
    launch = catalog.launch_price(card)
    assert launch.usd == card.launch_price_usd and launch.launch and launch.date == card.release
    at_release = catalog.price(card, as_of=card.release, condition="new")
    assert at_release.date == card.release and not at_release.launch
    assert at_release.day and at_release.kind == "asking" and at_release.market == "Amazon"


def test_launch_price_stands_in_only_where_nothing_is_dated(catalog):
    p = catalog.price("GTX 1070", as_of="2016-06", condition="new")
    assert p.launch and p.usd == 379 and p.date == "2016-06"
    assert "launch price" in str(cat.describe_price(p, "2016-06"))
    assert catalog.price("GTX 1070", as_of="2016-05", condition="new") is None  # before release
    assert catalog.price("GTX 1070", as_of="2016-06", condition="used") is None  # never a guess


@pytest.mark.parametrize(("name", "date", "usd"), [
    ("GTX Titan X (Maxwell)", "2017-06", 550),
    ("GTX Titan (Kepler)", "2016-06", 350),
    ("GTX 970", "2016-06", 210),
    ("GTX 970", "2017-06", 150),
])
def test_article_used_prices(catalog, name, date, usd):
    pts = [p for p in catalog.by_name(name).prices if p.condition == "used" and p.date == date]
    assert [p.usd for p in pts] == [usd]
    assert "seed article" in pts[0].source


@pytest.mark.parametrize(("name", "as_of", "condition", "usd", "date"), [
    ("GTX 1080", "2016-04", "new", None, None),          # before release
    ("GTX 1080", "2016-05", "new", 799.99, "2016-05"),   # the one US listing of 2016-05-29
    ("GTX 1080", "2016-12", "new", 607.99, "2016-12"),   # the monthly US retail series
    ("GTX 1080", "2017-03", "new", 504.98, "2017-03"),   # after the March 2017 cut to $499
    ("GTX 1080", "2017-06", "new", 517.48, "2017-06"),
    ("GTX 1080", "2017-08", "new", 503.74, "2017-08"),   # 2017-08-29 beats the month's $500
    ("GTX 1080", "2017-06", "used", None, None),
    ("GTX 1080", "2026-11", "used", None, None),         # no dated source found
    ("RTX 3090", "2026-02", "used", 850, "2026-02"),     # the catalog's own point
    ("RTX 3090", "2026-03", "used", 849, "2026-03"),     # GPU Poet, eBay asking
    ("RTX 3090", None, "used", 990, "2026-07"),          # the latest observation
    ("RTX 5090", "2026-01", "new", 4250, "2026-01"),     # the 2026 memory-shortage prices
    ("GTX 970", "2016-12", "used", 210, "2016-06"),
    ("GTX 970", "2017-07", "used", 150, "2017-06"),
    ("GTX 1080 Ti", "2017-03", "new", 714.98, "2017-03"),  # Newegg, 2017-03-25
    ("H100 SXM", "2026-01", "new", None, None),          # no public list price
    ("H100 SXM", "2026-06", "new", 27500, "2026-05"),    # a dated street price
])
def test_price_as_of(catalog, name, as_of, condition, usd, date):
    p = catalog.price(name, as_of=as_of, condition=condition)
    if usd is None:
        assert p is None
    else:
        assert (p.usd, p.date, p.condition) == (usd, date, condition)


def test_price_rejects_bad_arguments(catalog):
    with pytest.raises(ValueError):
        catalog.price("GTX 1080", as_of="2017/06")
    with pytest.raises(ValueError):
        catalog.price("GTX 1080", condition="refurbished")
    with pytest.raises(KeyError):
        catalog.price("GTX 9999")


# ------------------------------------------------------------------ quirks and memory

def test_gtx_970_quirk(catalog):
    card = catalog.by_name("GeForce GTX 970")
    assert card.quirks["fast_memory_gib"] == 3.5
    assert "3.5" in card.quirks["note"]
    assert card.memory_bytes == 4 * GIB
    assert card.fast_memory_bytes == int(3.5 * GIB)
    reserved = 300 * 1024**2
    assert card.usable_memory_bytes(reserved) == int(3.5 * GIB) - reserved
    assert card.usable_memory_bytes(reserved, fast_only=False) == 4 * GIB - reserved
    other = catalog.by_name("GTX 980")
    assert other.fast_memory_bytes == other.memory_bytes
    assert other.usable_memory_bytes(10 * GIB) == 0


def test_dual_gpu_boards_are_per_gpu(catalog):
    assert catalog.by_name("Tesla K80").gpus_per_board == 2
    assert catalog.by_name("Tesla K80").memory_gib == 12
    assert catalog.by_name("GRID K520").gpus_per_board == 2
    assert catalog.by_name("GTX 1080").gpus_per_board == 1


# ------------------------------------------------------------------ names

@pytest.mark.parametrize(("nvml", "memory_gib", "expected"), [
    ("NVIDIA GeForce RTX 3090", None, "GeForce RTX 3090"),
    ("GeForce GTX 1080", None, "GeForce GTX 1080"),
    ("NVIDIA H100 80GB HBM3", None, "H100 SXM5"),
    ("NVIDIA H200", None, "H200 SXM"),
    ("NVIDIA H100 PCIe", None, "H100 PCIe"),
    ("Tesla V100-SXM2-16GB", None, "Tesla V100 SXM2 16GB"),
    ("NVIDIA A100-SXM4-80GB", None, "A100 SXM4 80GB"),
    ("GeForce GTX 1060 6GB", None, "GeForce GTX 1060 6GB"),
    ("GeForce GTX 1060 3GB", None, "GeForce GTX 1060 3GB"),
    ("TITAN X (Pascal)", None, "TITAN X (Pascal)"),
    ("GeForce GTX TITAN X", None, "GeForce GTX TITAN X"),
    ("GRID K520", None, "GRID K520"),
    # fuzzy: spacing, case, vendor words, memory suffix
    ("nvidia geforce  rtx 4090", None, "GeForce RTX 4090"),
    ("RTX 3090", None, "GeForce RTX 3090"),
    ("NVIDIA GeForce GTX 1080 Ti 11GB", None, "GeForce GTX 1080 Ti"),
    ("NVIDIA H200 141GB HBM3e", None, "H200 SXM"),
    # same NVML name, told apart by memory
    ("NVIDIA GeForce RTX 4060 Ti", 16, "GeForce RTX 4060 Ti 16GB"),
    ("NVIDIA GeForce RTX 4060 Ti", 8, "GeForce RTX 4060 Ti 8GB"),
    ("NVIDIA GeForce RTX 3060", 8, "GeForce RTX 3060 8GB"),
    ("GeForce GTX 960", 4, "GeForce GTX 960 4GB"),
    ("NVIDIA GeForce RTX 5060 Ti", 8, "GeForce RTX 5060 Ti 8GB"),
    ("NVIDIA Unknown Accelerator X", None, None),
    ("", None, None),
])
def test_match_nvml_name(catalog, nvml, memory_gib, expected):
    mem = int(memory_gib * GIB * 0.98) if memory_gib else None  # NVML reports a bit less
    card = catalog.match_nvml_name(nvml, mem)
    assert (card.name if card else None) == expected


def test_by_name_and_closest_names(catalog):
    assert catalog.by_name("geforce gtx 1080 ti").name == "GeForce GTX 1080 Ti"
    assert catalog.by_name("Titan X (Pascal)").name == "TITAN X (Pascal)"
    assert catalog.by_name("GTX Titan X (Maxwell)").name == "GeForce GTX TITAN X"
    assert catalog.by_name("no such card") is None
    assert "GeForce GTX 1080 Ti" in catalog.closest_names("GTX 1080 TI")
    assert "GeForce RTX 4090" in catalog.closest_names("rtx 4090")
    assert len(catalog.closest_names("GTX 1060", n=2)) == 2


# ------------------------------------------------------------------ validation of shipped rows

def _write_catalog(tmp_path, rows):
    path = tmp_path / "gpus.json"
    path.write_text(json.dumps({"schema_version": 1, "cards": rows}), encoding="utf-8")
    return path


@pytest.mark.parametrize(("mutate", "field"), [
    (lambda r: r.update(bandwidth_gbs=-3), "bandwidth_gbs"),
    (lambda r: r.update(bandwidth_gbs="fast"), "bandwidth_gbs"),
    (lambda r: r.update(compute_capability="8"), "compute_capability"),
    (lambda r: r.update(architecture="Fermi"), "architecture"),
    (lambda r: r.update(segment="gaming"), "segment"),
    (lambda r: r.update(release="June 2016"), "release"),
    (lambda r: r.pop("source"), "source"),
    (lambda r: r.update(cuda_cores=2560.5), "cuda_cores"),
    (lambda r: r["prices"].append({"date": "2017-06", "usd": 499, "condition": "new"}),
     "source"),
    (lambda r: r["prices"].append({"date": "2017-06", "usd": 499, "condition": "mint",
                                   "source": "x"}), "condition"),
    (lambda r: r.update(quirks={"fast_memory_gib": 9}), "quirks"),
])
def test_bad_shipped_row_names_card_and_field(tmp_path, planner_home, mutate, field):
    rows = copy.deepcopy(ROWS[:5])
    target = next(r for r in rows if r["name"] == "GeForce GTX 680") if any(
        r["name"] == "GeForce GTX 680" for r in rows) else rows[0]
    mutate(target)
    with pytest.raises(CatalogError) as info:
        load_catalog(_write_catalog(tmp_path, rows))
    msg = str(info.value)
    assert target["name"] in msg and f"'{field}'" in msg


def test_duplicate_rows_rejected(tmp_path, planner_home):
    rows = copy.deepcopy(ROWS[:3])
    rows.append(copy.deepcopy(rows[0]))
    with pytest.raises(CatalogError, match="listed twice|already used"):
        load_catalog(_write_catalog(tmp_path, rows))
    rows = copy.deepcopy(ROWS[:3])
    rows[1]["nvml_names"] = list(rows[0]["nvml_names"])
    with pytest.raises(CatalogError, match="nvml_names"):
        load_catalog(_write_catalog(tmp_path, rows))


def test_spec_round_trip(catalog):
    for card in catalog:
        again = cat.spec_from_dict(card.to_dict(), "round trip")
        assert again == card
        assert again.quirks == card.quirks


# ------------------------------------------------------------------ overrides

def _custom_row(name="My Lab Card", **kw):
    row = {"name": name, "architecture": "Ampere", "compute_capability": "8.6",
           "segment": "consumer", "memory_gib": 20, "bandwidth_gbs": 700, "fp32_tflops": 30.0}
    row.update(kw)
    return row


def test_overrides_merge(overrides_file):
    overrides_file.write_text(json.dumps({
        "schema_version": 1,
        "prices": {
            "GeForce GTX 1080 Ti": [{"date": "2026-11", "usd": 140, "condition": "used",
                                     "source": "my local listing"}],
            "rtx 3090": [{"date": "2026-02", "usd": 650, "condition": "used"}],
        },
        "custom_cards": [_custom_row(prices=[{"date": "2026-10", "usd": 900,
                                              "condition": "new"}])],
        "owned": [{"name": "GTX 1070", "condition": "used", "count": 2},
                  {"name": "My Lab Card"}],
    }), encoding="utf-8")
    c = load_catalog()
    assert c.notices == ()
    assert c.price("GTX 1080 Ti", as_of="2026-11", condition="used").usd == 140
    assert c.price("GTX 1080 Ti", as_of="2026-10", condition="used") is None  # none shipped
    assert c.price("GTX 1080 Ti", as_of="2026-10", condition="new").usd == 908.31  # 2018-03
    # same month as a shipped point: the user's entry wins
    p = c.price("RTX 3090", as_of="2026-02", condition="used")
    assert (p.usd, p.source) == (650, cat.USER_PRICE_SOURCE)
    mine = c.by_name("My Lab Card")
    assert mine.custom and mine.source == cat.CUSTOM_CARD_SOURCE
    assert c.price(mine, condition="new").usd == 900
    assert len(c) == len(ROWS) + 1
    assert [(o.name, o.condition, o.count) for o in c.owned] == [
        ("GeForce GTX 1070", "used", 2), ("My Lab Card", "new", 1)]
    assert c.is_owned("GeForce GTX 1070") and not c.is_owned("GeForce GTX 1080")


def test_override_entries_that_match_nothing_give_notices(overrides_file):
    overrides_file.write_text(json.dumps({
        "schema_version": 1,
        "prices": {"GeForce GTX 9090": [{"date": "2026-01", "usd": 1, "condition": "new"}]},
        "custom_cards": [_custom_row(name="GeForce GTX 1080")],
        "owned": [{"name": "Voodoo 2"}],
    }), encoding="utf-8")
    c = load_catalog()
    assert overrides_file.exists(), "a valid file must not be set aside"
    assert len(c.notices) == 3
    assert any("GTX 9090" in n for n in c.notices)
    assert any("same name as a built-in" in n for n in c.notices)
    assert any("Voodoo 2" in n for n in c.notices)
    assert not c.by_name("GeForce GTX 1080").custom


@pytest.mark.parametrize("content", [
    "{ this is not json",
    "",
    json.dumps([1, 2, 3]),
    json.dumps({"schema_version": 99}),
    json.dumps({"schema_version": 1, "prices": {"GTX 1080": [{"date": "2026", "usd": 5,
                                                               "condition": "new"}]}}),
    json.dumps({"schema_version": 1, "prices": {"GTX 1080": [{"date": "2026-01", "usd": "cheap",
                                                               "condition": "new"}]}}),
    json.dumps({"schema_version": 1, "custom_cards": [{"name": "half a card"}]}),
    json.dumps({"schema_version": 1, "owned": [{"name": "GTX 1080", "count": 0}]}),
])
def test_corrupt_overrides_set_aside_with_notice(overrides_file, content):
    overrides_file.write_text(content, encoding="utf-8")
    c = load_catalog()
    assert len(c) == len(ROWS), "the shipped catalog still loads"
    assert not overrides_file.exists()
    aside = list(overrides_file.parent.glob(cat.OVERRIDES_FILENAME + ".corrupt-*"))
    assert len(aside) == 1
    assert re.fullmatch(re.escape(cat.OVERRIDES_FILENAME) + r"\.corrupt-\d{8}-\d{6}",
                        aside[0].name)
    assert aside[0].read_text(encoding="utf-8") == content, "the user's data is kept"
    assert len(c.notices) == 1
    assert "could not be read" in c.notices[0] and aside[0].name in c.notices[0]
    # and the next start is clean
    assert load_catalog().notices == ()


def test_save_and_helpers_round_trip(overrides_file):
    cat.set_user_price("GeForce GTX 1070", PricePoint("2026-11", 85.0, "used", "my listing"))
    spec = cat.spec_from_dict(_custom_row(name="Borrowed Card"), "test", custom=True)
    cat.add_custom_card(spec)
    cat.set_owned_cards([OwnedCard("GeForce GTX 1070", "used", 1)])
    assert overrides_file.exists()
    assert list(overrides_file.parent.glob("*.tmp")) == [], "no temp file left behind"
    ov = cat.load_overrides()
    assert ov.prices["GeForce GTX 1070"] == (PricePoint("2026-11", 85.0, "used", "my listing"),)
    assert [c.name for c in ov.custom_cards] == ["Borrowed Card"]
    assert ov.owned == (OwnedCard("GeForce GTX 1070", "used", 1),)
    c = load_catalog()
    assert c.notices == ()
    assert c.price("GTX 1070", condition="used").usd == 85
    assert c.by_name("Borrowed Card").custom
    # replacing a custom card keeps one copy
    cat.add_custom_card(cat.spec_from_dict(_custom_row(name="Borrowed Card", memory_gib=24),
                                           "test", custom=True))
    assert [c.memory_gib for c in cat.load_overrides().custom_cards] == [24]


def test_save_overrides_explicit_path(tmp_path):
    path = tmp_path / "sub" / "ov.json"
    ov = cat.with_price(Overrides(), "GTX 1080", PricePoint("2026-01", 100, "used", "x source"))
    cat.save_overrides(ov, path)
    assert json.loads(path.read_text())["schema_version"] == 1
    assert cat.load_overrides(path) == ov


def test_with_owned_validates():
    with pytest.raises(CatalogError):
        cat.with_owned(Overrides(), [OwnedCard("GTX 1080", "broken", 1)])


# ------------------------------------------------------------------ software support

@pytest.mark.parametrize(("cc", "status", "words"), [
    ("3.0", "unsupported", "CUDA 12"),
    ("3.5", "unsupported", "Kepler"),
    ("3.7", "unsupported", "Kepler"),
    ("5.0", "legacy", "CUDA 13"),
    ("5.2", "legacy", "12.x"),
    ("6.1", "legacy", "PyTorch"),
    ("7.0", "legacy", "CUDA 13"),
    ("7.5", "supported", "CUDA 13"),
    ("8.6", "supported", "PyTorch"),
    ("9.0", "supported", "CUDA 13"),
    ("10.0", "supported", "12.8"),
    ("12.0", "supported", "12.8"),
    ((2, 1), "unsupported", "cuDNN"),
])
def test_software_support(cc, status, words):
    got, reason = software_support(cc)
    assert got == status
    assert words in reason
    assert cat.SUPPORT_LABELS[got]


def test_support_labels():
    assert cat.SUPPORT_LABELS["legacy"] == "legacy builds only"


def test_every_card_has_a_support_status(catalog):
    for card in catalog:
        status, reason = software_support(card.compute_capability)
        assert status in cat.SUPPORT_LABELS and reason


# ------------------------------------------------------------------ CLI

def _run_cli(argv):
    parser = argparse.ArgumentParser(prog="gpu-planner")
    sub = parser.add_subparsers(dest="command")
    add_catalog_parser(sub)
    args = parser.parse_args(argv)
    out, err = io.StringIO(), io.StringIO()
    assert args.func is catalog_command
    rc = args.func(args, out=out, err=err)
    return rc, out.getvalue(), err.getvalue()


def test_cli_json(planner_home):
    rc, out, err = _run_cli(["catalog", "--json"])
    assert rc == 0 and err == ""
    data = json.loads(out)
    assert isinstance(data, list) and len(data) == len(ROWS)
    keys = {"name", "architecture", "compute_capability", "memory_bytes", "bandwidth_gbs",
            "fp32_tflops", "fp16_tensor_tflops", "tdp_w", "release", "launch_price_usd",
            "prices"}
    for rec in data:
        assert keys <= rec.keys()
        for p in rec["prices"]:
            assert set(p) == {"date", "usd", "condition", "source"}
    ti = next(r for r in data if r["name"] == "GeForce GTX 1080 Ti")
    assert ti["memory_bytes"] == 11 * GIB
    assert ti["software_support"]["status"] == "legacy"


def test_cli_json_filters_and_as_of(planner_home):
    rc, out, _ = _run_cli(["catalog", "--json", "--segment", "datacenter"])
    data = json.loads(out)
    assert rc == 0 and data and all(r["segment"] == "datacenter" for r in data)
    rc, out, _ = _run_cli(["catalog", "--json", "--architecture", "Pascal", "--as-of",
                           "2017-06"])
    data = json.loads(out)
    assert {r["architecture"] for r in data} == {"Pascal"}
    g1080 = next(r for r in data if r["name"] == "GeForce GTX 1080")
    assert g1080["price_new"]["usd"] == 517.48 and g1080["price_new"]["day"] == "2017-06-22"
    rc, _, err = _run_cli(["catalog", "--as-of", "June"])
    assert rc == 2 and "as-of" in err


def test_cli_table(planner_home):
    rc, out, _ = _run_cli(["catalog"])
    assert rc == 0
    lines = out.splitlines()
    assert lines[0].startswith("Name")
    assert any(line.startswith("GeForce GTX 1080 Ti ") for line in lines)
    assert f"{len(ROWS)} cards" in out


def test_cli_shows_notices_on_stderr(overrides_file):
    overrides_file.write_text("{broken", encoding="utf-8")
    rc, out, err = _run_cli(["catalog", "--json"])
    assert rc == 0 and json.loads(out)
    assert "notice:" in err and "moved aside" in err


def test_cli_reports_broken_shipped_catalog(tmp_path, planner_home):
    bad = tmp_path / "gpus.json"
    bad.write_text("{}", encoding="utf-8")
    args = argparse.Namespace(json=True, segment=None, architecture=None, as_of=None,
                              catalog_path=bad)
    err = io.StringIO()
    assert catalog_command(args, out=io.StringIO(), err=err) == 1
    assert "invalid" in err.getvalue()


# ------------------------------------------------------------------ layering

def test_catalog_module_is_qt_free_and_quiet_at_import():
    code = (
        "import sys, builtins\n"
        "opened = []\n"
        "real_open = builtins.open\n"
        "def spy(f, *a, **k):\n"
        "    opened.append(str(f)); return real_open(f, *a, **k)\n"
        "builtins.open = spy\n"
        "import planner.core.catalog, planner.cli_catalog\n"
        "builtins.open = real_open\n"
        "bad = [m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph', "
        "'planner.telemetry', 'pynvml'))]\n"
        "assert not bad, bad\n"
        "assert not [f for f in opened if 'gpus.json' in f or 'overrides' in f], opened\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_gpu_spec_is_frozen(catalog):
    card = catalog.by_name("GTX 1080")
    assert isinstance(card, GpuSpec)
    with pytest.raises(AttributeError):
        card.memory_gib = 16  # type: ignore[misc]


def test_in_august_2026_every_rtx_50_card_was_cheaper_used_than_new(catalog):
    # GPU Poet's September 2026 report, one method for both columns: the catalog keeps both.
    for name in ("RTX 5090", "RTX 5080", "RTX 5070 Ti", "RTX 5070", "RTX 5060 Ti 16GB",
                 "RTX 5060"):
        new = catalog.price(name, "2026-08", "new")
        used = catalog.price(name, "2026-08", "used")
        assert new.date == used.date == "2026-08", name
        assert used.usd < new.usd, name
