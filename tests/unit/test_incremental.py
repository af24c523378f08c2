"""Re-analysing after an edit by patching the analysis before it: always the full analysis's
result, field by field."""

from __future__ import annotations

import random

import pytest

from planner.core import incremental
from planner.core.finetune import LoraSetup, apply_lora
from planner.core.layers import LayerSpec
from planner.core.memory import Assumptions, estimate, max_batch
from planner.core.network import Setup, _analyze, analyze, clear_cache
from planner.core.presets import load_preset


def _edits(draft, rng, count):
    """Random one-parameter edits (numbers nudged, switches flipped), one after another."""
    for _ in range(count):
        i = rng.randrange(len(draft.layers))
        layer = draft.layers[i]
        options = {}
        for k, v in layer.params.items():
            if isinstance(v, bool):
                options[k] = not v
            elif isinstance(v, int) and v > 0:
                options[k] = max(1, v + rng.choice((-1, 1, 2)))
            elif isinstance(v, float):
                options[k] = min(0.9, v + 0.1)
        if not options:
            continue
        k = rng.choice(sorted(options))
        yield draft.replace_layer(i, layer.replace(**{k: options[k]}))


@pytest.mark.parametrize("preset", ["resnet50", "llama_1b", "gpt2", "inception_v3",
                                    "lstm-128", "mobilenet_v2"])
def test_a_patched_analysis_is_the_full_one(preset):
    clear_cache()
    rng = random.Random(preset)
    draft = load_preset(preset)[0]
    if preset == "llama_1b":
        draft = apply_lora(draft, LoraSetup(8))
    analyze(draft)
    patched = 0
    for new in _edits(draft, rng, 30):
        a = analyze(new)
        b = _analyze(new)
        patched += incremental.lineage(a) is not None
        assert a.draft is new
        assert a.layers == b.layers
        assert a.storages == b.storages
        assert a.saved == b.saved and a.problems == b.problems
        assert a.columns == b.columns
        if a.ok:
            s = Setup(2, "fp32", "adam")
            assert estimate(a, s).to_json() == estimate(b, s).to_json()
            assert max_batch(a, s, 8 << 30) == max_batch(b, s, 8 << 30)
        if a.ok and rng.random() < 0.5:
            draft = new  # edits pile up, as in the editor
    assert patched >= 5  # most edits are patched


def test_an_edit_that_changes_shapes_downstream_reapplies_the_readers():
    draft = load_preset("resnet18")[0]
    analyze(draft)
    i = next(k for k, x in enumerate(draft.layers) if x.kind == "conv2d" and k > 3)
    new = draft.replace_layer(i, draft.layers[i].replace(filters=draft.layers[i].get(
        "filters") + 8))
    a = analyze(new)
    b = _analyze(new)
    if a.ok:  # the channel change may break a residual add: then the full analysis says so
        assert a.layers == b.layers and a.columns == b.columns
        parent, reapplied = incremental.lineage(a)
        assert i in reapplied and len(reapplied) > 1  # its readers too
    else:
        assert a.problems == b.problems and incremental.lineage(a) is None


def test_a_broken_edit_is_named_as_by_the_full_analysis():
    draft = load_preset("resnet18")[0]
    analyze(draft)
    i = next(k for k, x in enumerate(draft.layers) if x.kind == "conv2d")
    bad = draft.replace_layer(i, draft.layers[i].replace(kernel=999))
    a = analyze(bad)
    assert not a.ok and a.problems == _analyze(bad).problems
    renamed = draft.replace_layer(i, LayerSpec("conv2d", "other", dict(draft.layers[i].params)))
    assert analyze(renamed).layers == _analyze(renamed).layers


def test_clear_cache_forgets_recent_analyses():
    draft = load_preset("resnet18")[0]
    analyze(draft)
    clear_cache()
    new = draft.replace_layer(3, draft.layers[3].replace())
    assert incremental.lineage(analyze(new)) is None
    assert estimate(analyze(new), Setup(1, "fp32", "sgd"), Assumptions()).peak > 0
