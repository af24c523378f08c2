"""benchmarks/gpu_truth.py's CPU smoke mode keeps working (the CUDA run is not possible here)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_gpu_truth_smoke_mode_runs_and_prints_predictions(capsys, monkeypatch):
    pytest.importorskip("torch")
    pytest.importorskip("torchvision")
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import gpu_truth
    assert gpu_truth.main(["--smoke"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("tiny |")]
    assert len(rows) == 4  # two batch sizes, fp32 and autocast
    for row in rows:
        cells = [c.strip() for c in row.split("|")]
        assert cells[4] != "n/a" and int(cells[4].replace(",", "")) > 0  # a prediction
        assert cells[-1] == "torch.fx"
