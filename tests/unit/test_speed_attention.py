"""Transformer training speed (issue 14): eager attention's memory-bound kernels over the
batch × heads × queries × keys scores, TF32 matrix products at the tensor cores' GEMM
efficiency, a per-tensor optimizer loop, and error bands from the measured BERT rows
(benchmarks/data/speed-holdout-bert.csv), never from the CNN rows."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.core.catalog import load_catalog
from planner.core.memory import Assumptions
from planner.core.network import Setup, analyze
from planner.core.presets import load_preset
from planner.core.speed import (
    UNCHECKED_NETWORK,
    iteration_time,
    rates,
    speed_notes,
    workload,
)
from planner.core.speed_bands import band_for
from planner.core.transformer import TransformerConfig, build_draft

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def _bert(attention: str, seq: int = 256) -> TransformerConfig:
    return TransformerConfig(family="bert", layers=2, hidden=256, heads=4, intermediate=1024,
                             vocab=2000, max_positions=512, seq_len=seq, mlp="gelu",
                             norm="layernorm", positions="learned", token_types=2,
                             attention=attention, attention_dropout=0.1, dropout=0.1)


def _speed(config, card, precision="fp16", a=None, batch=16, optimizer="adam"):
    w = workload(analyze(build_draft(config)), Setup(batch, precision, optimizer))
    return iteration_time(w, card, precision, a)


def test_eager_attention_pays_for_its_scores_and_flash_does_not(catalog):
    # Same FLOPs either way; eager attention writes and reads the scores tensor in kernels
    # of its own, so its step is longer, and the gap grows with the square of the sequence.
    a100 = catalog.by_name("A100 SXM4 80GB")
    gaps = []
    for seq in (128, 512):
        eager = _speed(_bert("eager", seq), a100, batch=256)
        flash = _speed(_bert("sdpa_flash", seq), a100, batch=256)
        assert not eager.host_bound and not flash.host_bound
        assert eager.time_per_iter_s > flash.time_per_iter_s * 1.05
        gaps.append(eager.time_per_iter_s - flash.time_per_iter_s)
    assert gaps[1] > 8 * gaps[0]  # 4× the sequence: 16× the scores (and 4× the copies)


def test_the_scores_passes_are_an_assumption(catalog):
    a100 = catalog.by_name("A100 SXM4 80GB")
    base = _speed(_bert("eager", 512), a100, batch=64)
    none = _speed(_bert("eager", 512), a100, a=Assumptions(eager_attention_passes=0), batch=64)
    more = _speed(_bert("eager", 512), a100, a=Assumptions(eager_attention_passes=42), batch=64)
    assert none.time_per_iter_s < base.time_per_iter_s < more.time_per_iter_s


def test_tf32_matrix_products_run_at_the_tensor_cores_gemm_efficiency(catalog):
    # tf32_efficiency was fitted on cuDNN's TF32 convolutions; cuBLAS's TF32 GEMMs (a
    # transformer's work) reach the fraction the FP16 tensor-core GEMMs do.
    a = Assumptions()
    a100 = catalog.by_name("A100 SXM4 80GB")
    r = rates(a100, "tf32", a)
    assert r.gemm.tensor and r.gemm.label == "tensor cores (TF32)"
    ratio = r.gemm.flops_per_s / r.conv.flops_per_s
    assert ratio == pytest.approx(a.tensor_efficiency / a.tf32_efficiency)
    assert r.gemm.flops_per_s > r.conv.flops_per_s


def test_a_per_tensor_optimizer_loop_costs_more_than_a_fused_step(catalog):
    v100 = catalog.by_name("Tesla V100 SXM2 32GB")
    fused = _speed(_bert("eager"), v100, "fp32", batch=2)
    loop = _speed(_bert("eager"), v100, "fp32", Assumptions(optimizer_for_loop=True), batch=2)
    assert loop.time_per_iter_s > fused.time_per_iter_s


def test_a_transformer_gets_the_transformer_rows_band_not_the_cnns(catalog):
    a100 = catalog.by_name("A100 SXM4 80GB")
    eager = _speed(_bert("eager"), a100, "tf32")
    assert eager.band is not None
    assert eager.band == band_for("8.0", "tf32", "tensor cores (TF32)", "transformer")
    assert eager.band != band_for("8.0", "tf32", "tensor cores (TF32)", "cnn")
    # A CNN keeps its own band.
    resnet = workload(analyze(load_preset("resnet50")[0]), Setup(64, "tf32", "momentum"))
    assert iteration_time(resnet, a100, "tf32").band == band_for("8.0", "tf32",
                                                                 "tensor cores (TF32)")


def test_fused_attention_was_not_measured_so_it_shows_no_band(catalog):
    flash = _speed(_bert("sdpa_flash"), catalog.by_name("A100 SXM4 80GB"), "tf32")
    assert flash.band is None and flash.unbanded == UNCHECKED_NETWORK
    assert any("did not check" in n for n in speed_notes(flash))


@pytest.fixture()
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import calibration  # noqa: PLC0415
    import speed_accuracy  # noqa: PLC0415

    return calibration, speed_accuracy


def test_every_bert_row_lies_within_the_band_shown_for_it(bench):
    calibration, _ = bench
    rows = calibration.load_holdout_rows(calibration.BERT_CSV)
    assert len(rows) >= 100 and {r.preset for r in rows} == {"bert_base_squad384",
                                                            "bert_large_squad384"}
    outside = []
    for r in rows:
        card = calibration.catalog().by_name(r.catalog_card)
        w = calibration._workload(r.preset, r.batch, r.precision)
        est = iteration_time(w, card, r.precision, calibration.row_assumptions(r))
        if est.band is None or not est.band.covers(est.samples_per_s, r.images_per_s):
            outside.append((r.card, r.preset, r.precision, r.images_per_s,
                            round(est.samples_per_s), est.band_text()))
    assert not outside


def test_the_bert_rows_are_predicted_within_the_issue_target(bench):
    # Held out (never fitted): typical error at most 30 % per network and precision.
    calibration, speed_accuracy = bench
    table, overall = speed_accuracy.single_gpu(
        calibration.load_holdout_rows(calibration.BERT_CSV), held_out=True)
    assert len(table) == 6
    assert all(err <= 0.30 for *_, err, _ratio, _rho, _fit in table)
    assert overall <= 0.20


def test_the_band_file_keeps_transformer_bands_apart(bench):
    import json  # noqa: PLC0415

    _, speed_accuracy = bench
    shipped = json.loads(speed_accuracy.BANDS_PATH.read_text(encoding="utf-8"))
    derived = speed_accuracy.bands()

    def key(d):
        return [(b["network_class"], b["compute_capability"], b["precision"], b["path"],
                 b["low_pct"], b["high_pct"], b["rows"]) for b in d["bands"]]

    assert key(shipped) == key(derived)
    classes = {b["network_class"] for b in shipped["bands"]}
    assert classes == {"cnn", "transformer"}
    for b in shipped["bands"]:
        networks = {i["network"] for i in b["source_rows"]}
        assert all(n.startswith("bert_") for n in networks) == (b["network_class"]
                                                                 == "transformer")


def test_the_bert_draft_is_the_squad_model(bench):
    # BertForQuestionAnswering at 384 tokens: BERT-base 12 × (hidden 768, 12 heads), the
    # vocabulary padded to 30,528, a 2-logit head.
    calibration, _ = bench
    a = calibration._analysis("bert_base_squad384")
    draft = a.draft
    assert draft.layers[-1].name == "qa_outputs" and draft.layers[-1].params["units"] == 2
    attn = [s for s in draft.layers if s.kind == "attention"]
    assert len(attn) == 12 and all(s.params["heads"] == 12 for s in attn)
    assert all(s.params["implementation"] == "eager" for s in attn)
    assert draft.input_shape == (384,)
    # bert-base-uncased's parameters (109.5 M with the 30,522 vocabulary; the pooler, which
    # SQuAD does not use, left out) plus 6·768 padded rows and the 2-logit head.
    assert 108_850_000 < a.parameters < 108_950_000
