"""Held-out measurements (issue 14): every ``benchmarks/data/speed-holdout-*.csv`` is a source the
speed model is checked against and the error bands are derived from, and the held-out report
says, per source, per class of card and per generation, where the model is wrong."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
COLUMNS = ["card", "catalog_card", "model", "precision", "planner_precision", "batch",
           "batch_stated", "framework", "images_per_s", "num_gpus", "file", "commit",
           "commit_bs", "date", "notes"]


@pytest.fixture()
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import calibration  # noqa: PLC0415
    import speed_accuracy  # noqa: PLC0415

    return calibration, speed_accuracy


def _write(path: Path, rows: list[dict], extra: tuple[str, ...] = ()) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS + list(extra))
        w.writeheader()
        for r in rows:
            w.writerow(r)


def _row(card: str, ips: float, **kw) -> dict:
    base = {"card": card, "catalog_card": card, "model": "ResNet-50 v1.5", "precision": "fp32",
            "planner_precision": "fp32", "batch": "64", "batch_stated": "yes",
            "framework": "PyTorch test", "images_per_s": str(ips), "num_gpus": "1",
            "file": "t.csv", "commit": "0" * 40, "commit_bs": "0" * 40, "date": "2024",
            "notes": ""}
    base.update(kw)
    return base


def test_every_holdout_file_in_the_folder_is_a_source(bench, tmp_path):
    calibration, _ = bench
    _write(tmp_path / "speed-holdout-alpha.csv", [_row("GeForce RTX 3090", 500)])
    _write(tmp_path / "speed-holdout-beta.csv",
           [_row("B200", 3000, repository="someone/else"), _row("H200 SXM", 2200,
                                                                 repository="")],
           extra=("repository",))
    (tmp_path / "speed-calibration.csv").write_text("not a held-out file\n", encoding="utf-8")
    files = calibration.holdout_files(tmp_path)
    assert [p.name for p in files] == ["speed-holdout-alpha.csv", "speed-holdout-beta.csv"]
    rows = [r for p in files for r in calibration.load_holdout_rows(p)]
    assert [(r.catalog_card, r.holdout) for r in rows] == [
        ("GeForce RTX 3090", "alpha"), ("B200", "beta"), ("H200 SXM", "beta")]
    # A row names the repository it came from; Lambda's where the file has no such column.
    assert rows[1].source.startswith("github someone/else t.csv @")
    assert rows[0].source.startswith("github lambdal/deeplearning-benchmark ")
    assert rows[2].source.startswith("github lambdal/deeplearning-benchmark ")


def test_a_holdout_row_the_planner_cannot_build_is_an_error_not_a_smaller_check(bench,
                                                                                tmp_path):
    calibration, _ = bench
    path = tmp_path / "speed-holdout-x.csv"
    _write(path, [_row("GeForce RTX 3090", 500, model="SSD300")])
    with pytest.raises(ValueError, match="SSD300"):
        calibration.load_holdout_rows(path)


def test_the_shipped_sources_are_all_loaded_and_all_feed_the_bands(bench):
    calibration, speed_accuracy = bench
    files = calibration.holdout_files()
    assert len(files) >= 2  # Lambda's tables and Lambda's per-run logs at least
    every = calibration.load_holdout_rows()
    per_file = [r for p in files for r in calibration.load_holdout_rows(p)]
    assert len(every) == len(per_file) > 60
    assert {r.holdout for r in every} == {calibration.holdout_name(p) for p in files}
    shipped = json.loads(speed_accuracy.BANDS_PATH.read_text(encoding="utf-8"))
    for p in files:
        assert f"benchmarks/data/{p.name}" in shipped["sources"]
    held_out_rows = sum(1 for b in shipped["bands"] for i in b["source_rows"]
                        if i["set"] == "held out")
    assert held_out_rows == sum(1 for r in every if r.num_gpus == 1)
    # Blackwell data-centre cards are measured now (Lambda's B200 logs): they show a band.
    assert any(b["compute_capability"] == "10.0" for b in shipped["bands"])


def test_the_holdout_report_breaks_the_error_down_by_source_class_and_generation(bench,
                                                                                 capsys):
    _, speed_accuracy = bench
    speed_accuracy.holdout()
    out = capsys.readouterr().out
    assert "speed-holdout-lambda.csv" in out and "speed-holdout-lambda-logs.csv" in out
    assert "| class · precision |" in out
    for cls in ("data centre", "workstation", "GeForce"):
        assert f"| {cls} · mixed |" in out
    assert "| generation (compute capability) · precision |" in out
    assert "| Blackwell (10.0) · mixed |" in out and "| Hopper (9.0) · fp32 |" in out
    # The rows furthest off come first, each with its prediction and measurement: the first
    # is the largest |log(predicted / measured)| over every held-out CNN row (`--holdout`; the
    # transformer rows are `--transformers`' report, checked below).
    calibration, _ = bench
    lines = [ln for ln in out.split("Rows furthest off")[1].splitlines() if ln.startswith("- ")]
    assert len(lines) == 10
    ratios = [float(ln[2:].split(":")[0]) for ln in lines]
    offs = [abs(math.log(r)) for r in ratios]
    assert offs == sorted(offs, reverse=True)
    rows = [r for r in calibration.load_holdout_rows() if r.num_gpus == 1]
    for report, cls in ((out, "cnn"), (None, "transformer")):
        if report is None:
            speed_accuracy.transformers()
            report = capsys.readouterr().out
        lines = [ln for ln in report.split("Rows furthest off")[1].splitlines()
                 if ln.startswith("- ")]
        members = [r for r in rows if speed_accuracy.network_class(r) == cls]
        assert members
        worst = max(members,
                    key=lambda r: abs(math.log(calibration.predict(r) / r.images_per_s)))
        assert worst.catalog_card in lines[0] and f"measured {worst.images_per_s:g}" in lines[0]


def test_a_speed_up_over_a_card_of_the_same_kind_is_off_by_what_its_cards_measure_apart(bench):
    # A kind of card measured on several networks and layouts (GA10x in AMP: Lambda's ResNet-50
    # at 1.03-1.33x its figure, timm's MobileNetV2 channels-last at 1.49x) has a wide band, but
    # two of its cards on one workload share the network's and the software's bias: an RTX 3080
    # over an RTX 3060 is off by what two such cards measured apart on one workload.
    from planner.core.speed_bands import Band  # noqa: PLC0415

    _, speed_accuracy = bench
    wide = Band(-14, 50, "8.6", "mixed", 25, 7, -2, 50, 14, card_spread_pct=12)
    assert wide.over(wide).text() == "±14 %"  # 12 % apart, floored at 14 %
    apart = Band(-14, 50, "8.6", "mixed", 25, 7, -2, 50, 14, card_spread_pct=30)
    assert apart.over(apart).text() == "−24 / +30 %"  # 1 / 1.3 − 1 = −23.1 %, rounded out
    # Without a workload measured on two cards, the rows' extremes, as before.
    alone = Band(-14, 50, "8.6", "mixed", 25, 7, -2, 50, 14)
    assert alone.over(alone).text() == "−35 / +54 %"

    def item(card, network, ratio, layout="nchw", fw="f"):
        return {"card": card, "network": network, "layout": layout, "framework": fw,
                "measured": 100 * ratio, "predicted": 100.0}

    items = [item("A", "resnet50", 1.0), item("B", "resnet50", 1.2),
             item("A", "mobilenet_v2", 1.5), item("C", "vgg16", 0.9)]
    assert speed_accuracy.card_spread(items) == 20
    assert speed_accuracy.card_spread([item("A", "resnet50", 1.0),
                                       item("B", "resnet50", 1.4, layout="channels_last")]) is None
    # The shipped bands carry it where two cards of a kind share a workload.
    shipped = json.loads(speed_accuracy.BANDS_PATH.read_text(encoding="utf-8"))
    ga10x = next(b for b in shipped["bands"]
                 if (b["compute_capability"], b["precision"]) == ("8.6", "mixed"))
    assert ga10x["card_spread_pct"] is not None
    assert ga10x["card_spread_pct"] < ga10x["measured_high_pct"] - ga10x["measured_low_pct"]
