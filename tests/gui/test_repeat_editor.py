"""A repeated block in the layer editor: one collapsed row ("layers × 32") that expands on
demand to the block's layers shown once; an edit there changes every copy (one undo step);
the block survives saving and reopening. Built through the app's own factory."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from planner.core.network import load_plan
from planner.ui.planner.layer_table import (
    COL_COUNT, COL_INDEX, COL_KEPT, COL_NAME, COL_PARAMS, COL_TYPE)
from planner.units import format_bytes, format_count

from gui_prompts import ScriptedPrompts
from test_planner_pane import make_window as make_any_window  # noqa: F401 (a fixture)

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]


@pytest.fixture
def make_window(make_any_window):  # noqa: F811 (the fixture imported above)
    def make(prompts=None, preset="llama_8b"):
        return make_any_window(prompts, preset)

    return make


def _block_row(model) -> int:
    rows = [r for r in range(model.rowCount())
            if model.data(model.index(r, COL_TYPE)) == "Repeated block"]
    assert len(rows) == 1, rows
    return rows[0]


def _names(model) -> list[str]:
    return [model.data(model.index(r, COL_NAME)) for r in range(model.rowCount())]


def test_llama_8b_shows_its_32_decoder_layers_as_one_collapsed_row(make_window, qtmodeltester):
    w = make_window()
    pane, doc = w.planner, w.document
    (rep,) = doc.draft.repeats
    assert (rep.times, rep.length) == (32, 16)
    model = pane.layer_model
    assert len(doc.draft.layers) == 516
    assert model.rowCount() == 516 - 32 * 16 + 1  # input, embedding, the block, norm, head
    row = _block_row(model)
    assert model.data(model.index(row, COL_NAME)) == "▸ layers × 32"
    assert model.data(model.index(row, COL_INDEX)) == f"{rep.first}–{rep.first + 511}"
    assert model.data(model.index(row, COL_PARAMS)) == "32 copies of 16 layers"
    span = range(rep.first, rep.first + 512)
    weights = sum(doc.analysis.layers[i].parameters for i in span)
    assert weights > 6.9e9  # 32 × 218 M: the block holds most of the 8 B
    assert model.data(model.index(row, COL_COUNT)) == format_count(weights)
    kept = sum(doc.estimate.layers[i].activation_bytes for i in span)
    assert model.data(model.index(row, COL_KEPT)) == format_bytes(kept)
    # the block's row is not edited in place (its layers are, once expanded)
    assert not model.flags(model.index(row, COL_PARAMS)) & Qt.ItemFlag.ItemIsEditable
    assert "32 copies" in model.data(model.index(row, COL_NAME), Qt.ItemDataRole.ToolTipRole)
    # the rows after the block are the layers after it
    assert _names(model)[row + 1:] == ["norm", "lm_head"]
    assert model.layer_index(row + 1) == rep.first + 512
    qtmodeltester.check(model)
    model.set_expanded("layers", True)
    qtmodeltester.check(model)


def test_keys_expand_and_collapse_the_block_which_shows_its_layers_once(make_window, qtbot):
    w = make_window()
    w.show()
    pane, doc = w.planner, w.document
    model, view = pane.layer_model, pane.layer_view
    (rep,) = doc.draft.repeats
    collapsed = model.rowCount()
    row = _block_row(model)
    pane.select_row(rep.first)
    assert view.currentIndex().row() == row  # a layer of a collapsed block: the block's row
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Right)
    assert model.rowCount() == collapsed + 16  # copy 0's layers, once
    assert model.data(model.index(row, COL_NAME)) == "▾ layers × 32"
    assert view.currentIndex().row() == row  # still on the block's row
    body = [model.data(model.index(r, COL_NAME)).strip() for r in range(row + 1, row + 17)]
    assert body[0] == "input_layernorm" and "self_attn.q_proj" in body
    assert body[-1] == "mlp_residual"
    assert all(not name.startswith("layers.") for name in body)
    assert [model.layer_index(r) for r in range(row + 1, row + 17)] == \
        list(range(rep.first, rep.first + 16))
    # references inside the block read as the block has them (a file's local names)
    q = row + 1 + body.index("self_attn.q_proj")
    assert "input=input_layernorm" in model.data(model.index(q, COL_PARAMS))
    assert "input=@input" in model.data(model.index(row + 1, COL_PARAMS))
    # the per-layer chart: the block's row lights the whole block
    assert pane.chart.selected == frozenset(range(rep.first, rep.first + 512))
    # → again goes into the block (as in a tree view); ← comes back to its row
    qtbot.keyClick(view, Qt.Key.Key_Right)
    assert view.currentIndex().row() == row + 1
    assert doc.current_row == rep.first
    assert pane.chart.selected == frozenset(rep.first + k * 16 for k in range(32))
    qtbot.keyClick(view, Qt.Key.Key_Down)
    assert doc.current_row == rep.first + 1
    qtbot.keyClick(view, Qt.Key.Key_Left)
    assert view.currentIndex().row() == row and model.rowCount() == collapsed + 16
    qtbot.keyClick(view, Qt.Key.Key_Left)  # ← on the open block's row closes it
    assert model.rowCount() == collapsed
    qtbot.keyClick(view, Qt.Key.Key_Plus)
    assert model.rowCount() == collapsed + 16
    qtbot.keyClick(view, Qt.Key.Key_Minus)
    assert model.rowCount() == collapsed
    # a double-click on the block's row toggles it too
    pane._on_layer_double_clicked(model.index(row, COL_INDEX))
    assert model.rowCount() == collapsed + 16
    # a chart click on a layer of copy 17 selects its row in the open block
    pane.select_row(rep.first + 17 * 16 + 3)
    assert view.currentIndex().row() == row + 1 + 3
    pane.set_block_expanded("layers", False)
    assert view.currentIndex().row() == row


def test_an_edit_in_the_block_changes_every_copy_and_undo_restores_them(make_window):
    w = make_window()
    pane, doc = w.planner, w.document
    model = pane.layer_model
    (rep,) = doc.draft.repeats
    model.set_expanded("layers", True)
    row = _block_row(model)
    q = row + 1 + 1  # input_layernorm, then self_attn.q_proj
    assert model.data(model.index(q, COL_NAME)).strip() == "self_attn.q_proj"
    before_draft, before_params = doc.draft, doc.analysis.parameters
    steps = doc.undo_stack.count()
    assert model.setData(model.index(q, COL_PARAMS), "units=4096 bias=yes input=input_layernorm")
    assert doc.undo_stack.count() == steps + 1  # one step for all 32 copies
    qs = [layer for layer in doc.draft.layers if layer.name.endswith(".self_attn.q_proj")]
    assert len(qs) == 32 and all(layer.params["bias"] for layer in qs)
    assert [layer.params["input"] for layer in qs] == \
        [f"layers.{k}.input_layernorm" for k in range(32)]
    assert doc.analysis.parameters == before_params + 32 * 4096
    assert doc.draft.repeats == before_draft.repeats  # still one block
    # a rename, typed as the block names it, renames the layer of every copy
    assert model.setData(model.index(q, COL_NAME), "self_attn.query")
    assert doc.undo_stack.count() == steps + 2
    assert [layer.name for layer in doc.draft.layers
            if layer.name.endswith(".self_attn.query")] == \
        [f"layers.{k}.self_attn.query" for k in range(32)]
    assert model.data(model.index(q, COL_NAME)).strip() == "self_attn.query"
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    assert doc.draft == before_draft
    assert doc.analysis.parameters == before_params


def test_the_properties_of_a_block_layer_say_every_copy_changes(make_window):
    from PySide6.QtWidgets import QLabel

    w = make_window()
    pane, doc = w.planner, w.document
    (rep,) = doc.draft.repeats
    pane.select_row(rep.first + 1)
    note = pane.properties.findChild(QLabel, "block_note")
    assert note is not None and "layers × 32" in note.text() and "every copy" in note.text()
    pane.select_row(rep.first + 512)  # the final norm, outside the block
    assert pane.properties.findChild(QLabel, "block_note") is None


def test_layers_of_the_block_cannot_be_removed_or_moved_in_one_copy(make_window):
    w = make_window()
    pane, doc = w.planner, w.document
    (rep,) = doc.draft.repeats
    pane.select_row(rep.first + 3)
    for action in (pane.remove_action, pane.duplicate_action, pane.up_action,
                   pane.down_action):
        assert not action.isEnabled()
    assert "repeated block" in pane.remove_action.statusTip()
    # Add after the block's row: a layer after the whole block, which stays one block
    names = {layer.name for layer in doc.draft.layers}
    pane.add_action.trigger()
    end = rep.first + 512
    assert doc.draft.layers[end].name not in names  # the new layer, right after the block
    assert doc.draft.layers[end + 1].name == "norm"
    assert doc.draft.repeats == (rep,)
    pane.select_row(end + 1)  # the final norm: outside the block
    assert pane.remove_action.isEnabled()


def test_saving_and_reopening_keeps_the_block(make_window, tmp_path, qtbot):
    target = tmp_path / "llama.json"
    prompts = ScriptedPrompts(save_answer_path=str(target))
    w = make_window(prompts)
    pane, doc = w.planner, w.document
    pane.layer_model.set_expanded("layers", True)
    row = _block_row(pane.layer_model)
    assert pane.layer_model.setData(pane.layer_model.index(row + 1 + 2, COL_PARAMS),
                                    "units=1024 bias=yes input=input_layernorm")  # k_proj
    edited = doc.draft
    assert w.files.save_as()
    data = json.loads(target.read_text(encoding="utf-8"))
    blocks = [raw for raw in data["layers"] if raw["type"] == "repeat"]
    assert len(blocks) == 1 and blocks[0]["times"] == 32 and len(blocks[0]["layers"]) == 16
    assert blocks[0]["layers"][2]["bias"] is True
    assert len(data["layers"]) == 5  # the block once, not 512 layers
    w.files.load_preset("resnet50")
    assert not doc.draft.repeats
    assert w.files.open_file(target)
    qtbot.waitUntil(lambda: doc.path == target, timeout=10000)
    assert doc.draft == edited and doc.draft.repeats == edited.repeats
    assert load_plan(target)[0].repeats == edited.repeats
    model = pane.layer_model
    assert model.rowCount() == 5  # shown collapsed again
    assert model.data(model.index(_block_row(model), COL_NAME)) == "▸ layers × 32"
    assert not prompts.errors
