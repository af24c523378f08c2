"""Speeds as text: slow steps keep their digits ("0.42 samples/s", never "0 samples/s"), text
models read in tokens/s, with the error band where there is one; the CLI's fit table and the
advisor's reasons say the same."""

from __future__ import annotations

import re

import pytest

from planner.cli import run
from planner.core.rates import rate_text, speed_msg


@pytest.mark.parametrize("value, text", [
    (0.0, "0"), (0.0071, "0.0071"), (0.042, "0.042"), (0.42, "0.42"), (0.999, "1.0"),
    (1.0, "1.0"), (4.56, "4.6"), (12.34, "12.3"), (99.94, "99.9"), (123.4, "123"),
    (15304.2, "15,304"), (float("nan"), "—"), (None, "—"),
])
def test_a_rate_keeps_two_significant_figures_below_ten(value, text):
    assert rate_text(value) == text


def test_speed_says_tokens_for_text_models_and_seconds_for_slow_steps():
    assert speed_msg(0.42) == "0.42 samples/s"
    assert speed_msg(0.42, band_pct=20) == "0.42 samples/s ±20 %"
    assert speed_msg(0.42, band_pct=20, time_per_step_s=2.38) == \
        "0.42 samples/s ±20 %, 2.4 s per step"
    assert speed_msg(0.42, tokens_per_sample=2048) == "860 tokens/s"
    assert speed_msg(300.0, time_per_step_s=0.2) == "300 samples/s"  # a fast step: no seconds
    assert speed_msg(0.001, time_per_step_s=1000.0) == "0.0010 samples/s, 1,000 s per step"


def test_cli_fit_of_a_language_model_shows_tokens_per_second(capsys):
    code = run(["fit", "preset:llama_70b"])
    out, _err = capsys.readouterr()
    assert code == 0
    lines = out.splitlines()
    header = next(line for line in lines if line.strip().startswith("card"))
    assert "tokens/s" in header and "samples/s" not in header
    col = header.index("tokens/s") + len("tokens/s")
    rates = [line[col - 10:col].strip() for line in lines
             if line.startswith("  GeForce") or line.startswith("  Tesla")]
    assert len(rates) > 20
    # 70 B parameters take seconds a step on old cards: the figure keeps its digits
    assert all(re.fullmatch(r"[\d,]+(\.\d+)?", r) and float(r.replace(",", "")) > 0
               for r in rates), rates
    assert "0.0" not in rates


def test_cli_fit_of_a_cnn_stays_in_samples_per_second(capsys):
    code = run(["fit", "preset:resnet18"])
    out, _err = capsys.readouterr()
    assert code == 0
    header = next(line for line in out.splitlines() if line.strip().startswith("card"))
    assert "samples/s" in header and "tokens/s" not in header


def test_advice_on_a_slow_workload_gives_a_meaningful_speed(capsys):
    code = run(["advise", "--profile", "nlp-research", "--as-of", "2026-11"])
    out, _err = capsys.readouterr()
    assert code == 0
    speeds = re.findall(r"in bf16, ([^,]+(?:,\d{3})*) tokens/s", out)  # a text workload
    assert speeds, out[:2000]
    assert all(float(s.replace(",", "")) > 0 for s in speeds), speeds
    assert not re.search(r"(?<![\d.,])[01] (samples|tokens)/s", out)
