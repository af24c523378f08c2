"""Making a repeated block from plain layers, changing its count, and undoing it (core)."""

from __future__ import annotations

import pytest

from planner.core.layers import LayerSpec
from planner.core.network import NetworkDraft, analyze, draft_from_json
from planner.core.presets import load_preset
from planner.core.repeat import (
    RepeatError, block_name, repeat_range, repeatable, set_times, unrepeat)


def _draft() -> NetworkDraft:
    return NetworkDraft("mlp", (
        LayerSpec("input", "x", {"shape": (64,)}),
        LayerSpec("fc", "a", {"units": 32}),
        LayerSpec("fc", "b", {"units": 32}),
        LayerSpec("activation", "r", {"function": "relu"}),
        LayerSpec("add", "res", {"from": "a", "input": "r"}),
        LayerSpec("fc", "head", {"units": 32, "input": "r"}),
        LayerSpec("fc", "out", {"units": 10}),
    ))


def _make(draft, start, end, times):
    name = block_name(draft.layers, draft.repeats)
    layers, repeats = repeat_range(draft.layers, draft.repeats, start, end, times, name)
    return NetworkDraft(draft.name, tuple(layers), repeats=repeats)


def test_a_range_becomes_a_block_whose_later_readers_read_the_last_copy():
    d = _draft()
    base = analyze(d)
    body = sum(base.layers[i].parameters for i in (2, 3))
    blocked = _make(d, 2, 4, 3)  # b, r  × 3
    (rep,) = blocked.repeats
    assert (rep.name, rep.first, rep.length, rep.times) == ("block1", 2, 2, 3)
    a = analyze(blocked)
    assert a.ok, a.problems
    assert a.parameters == base.parameters - body + 3 * body
    names = [layer.name for layer in blocked.layers]
    assert names[2:8] == [f"block1.{k}.{n}" for k in range(3) for n in ("b", "r")]
    res = blocked.layers[names.index("res")]
    head = blocked.layers[names.index("head")]
    assert res.params["input"] == "block1.2.r" and res.params["from"] == "a"
    assert head.params["input"] == "block1.2.r"
    # a plan file holds it once and reads back to the same draft
    data = blocked.to_json()
    assert [raw["type"] for raw in data["layers"]].count("repeat") == 1
    assert draft_from_json(data) == blocked


def test_changing_the_count_moves_readers_of_removed_copies_to_the_last_one():
    blocked = _make(_draft(), 2, 4, 5)
    (rep,) = blocked.repeats
    layers, repeats = set_times(blocked.layers, blocked.repeats, rep, 2)
    two = NetworkDraft("mlp", tuple(layers), repeats=repeats)
    assert repeats[0].times == 2 and len(two.layers) == len(blocked.layers) - 3 * 2
    assert two.layers[two.index_of("res")].params["input"] == "block1.1.r"
    assert analyze(two).ok
    layers, repeats = set_times(two.layers, two.repeats, repeats[0], 40)
    assert analyze(NetworkDraft("mlp", tuple(layers), repeats=repeats)).ok
    with pytest.raises(RepeatError, match="times"):
        set_times(two.layers, two.repeats, two.repeats[0], 0)


def test_unrepeat_is_the_inverse_of_repeat():
    d = _draft()
    blocked = _make(d, 1, 4, 4)
    layers, repeats = unrepeat(blocked.layers, blocked.repeats, blocked.repeats[0])
    assert repeats == () and tuple(layers) == d.layers


def test_blocks_after_the_range_move_with_it():
    d, _setup = load_preset("gpt2")
    (rep,) = d.repeats
    blocked = _make(d, 2, 3, 3)  # the dropout before the block, × 3
    assert [r.first for r in blocked.repeats] == [2, rep.first + 2]
    a = analyze(blocked)
    assert a.ok, a.problems
    assert a.parameters == analyze(d).parameters
    layers, repeats = set_times(blocked.layers, blocked.repeats, blocked.repeats[1], 2)
    two = NetworkDraft(d.name, tuple(layers), repeats=repeats)
    assert [r.times for r in two.repeats] == [3, 2] and analyze(two).ok
    assert draft_from_json(two.to_json()) == two


def test_what_cannot_be_repeated_is_named():
    d = _make(_draft(), 2, 4, 3)
    assert "input" in repeatable(d.layers, d.repeats, 0, 2)
    assert "repeated block" in repeatable(d.layers, d.repeats, 1, 3)
    assert "repeated block" in repeatable(d.layers, d.repeats, 7, 9)
    assert repeatable(d.layers, d.repeats, 8, 9) is None
    assert repeatable(d.layers, d.repeats, 3, 3) is not None
    with pytest.raises(RepeatError, match="times"):
        _make(_draft(), 2, 4, 5000)
