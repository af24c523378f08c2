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


def test_a_vision_transformer_is_read_through_torch_fx(monkeypatch):
    """ViT (torchvision's VisionTransformer: class token, position embedding, LayerNorm,
    nn.MultiheadAttention, GELU MLP) becomes a planner draft with every parameter counted."""
    pytest.importorskip("torch")
    pytest.importorskip("torchvision")
    from torchvision.models.vision_transformer import VisionTransformer

    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    from torch_drafts import draft_from_module

    from planner.core.network import analyze

    model = VisionTransformer(image_size=32, patch_size=16, num_layers=2, num_heads=2,
                              hidden_dim=16, mlp_dim=32, num_classes=10)
    analysis = analyze(draft_from_module(model, (3, 32, 32), "vit"))
    assert analysis.ok, analysis.problems
    assert analysis.parameters == sum(p.numel() for p in model.parameters())
    kinds = [info.kind for info in analysis.layers]
    assert kinds.count("attention") == 2 and kinds.count("layernorm") == 5
    assert analysis.output_shape == (10,)
