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


# ---- making a block in the editor, changing its count, unrepeating it -----------------------
def _small_cnn():
    from planner.core.layers import LayerSpec
    from planner.core.network import NetworkDraft

    return NetworkDraft("small cnn", (
        LayerSpec("input", "in", {"shape": (3, 32, 32)}),
        LayerSpec("conv2d", "c1", {"filters": 16, "kernel": 3, "padding": "same"}),
        LayerSpec("conv2d", "c2", {"filters": 16, "kernel": 3, "padding": "same"}),
        LayerSpec("batchnorm", "bn2", {}),
        LayerSpec("activation", "r2", {"function": "relu"}),
        LayerSpec("add", "skip", {"from": "c1"}),
        LayerSpec("flatten", "f", {}),
        LayerSpec("fc", "fc", {"units": 10}),
    ))


def _select_rows(pane, first: int, last: int) -> None:
    from PySide6.QtCore import QItemSelection, QItemSelectionModel

    model, view = pane.layer_model, pane.layer_view
    view.selectionModel().setCurrentIndex(model.index(first, COL_NAME),
                                          QItemSelectionModel.SelectionFlag.NoUpdate)
    view.selectionModel().select(
        QItemSelection(model.index(first, 0), model.index(last, model.columnCount() - 1)),
        QItemSelectionModel.SelectionFlag.ClearAndSelect)


def _answer(pane, value):
    asked = []

    def ask(title, label, current, low, high):
        asked.append((title, label, current, low, high))
        return value

    pane.ask_copies = ask
    return asked


def test_repeat_layers_makes_three_layers_a_block_of_four_copies(make_window):
    w = make_window(preset="resnet18")
    pane, doc = w.planner, w.document
    doc.load(_small_cnn(), doc.setup, None)
    model = pane.layer_model
    plain, plain_params = doc.draft, doc.analysis.parameters
    body_params = sum(doc.analysis.layers[i].parameters for i in (2, 3, 4))
    assert body_params == 16 * 16 * 9 + 16 + 2 * 16  # conv 16→16 3×3, batch norm
    assert model.rowCount() == 8
    _select_rows(pane, 2, 4)  # c2, bn2, r2
    assert pane.repeat_action.isEnabled()
    asked = _answer(pane, 4)
    steps = doc.undo_stack.count()
    pane.repeat_action.trigger()
    assert asked and asked[0][2:] == (2, 2, 1024)  # default 2, from 2 to 1024
    assert doc.undo_stack.count() == steps + 1
    (rep,) = doc.draft.repeats
    assert (rep.first, rep.length, rep.times) == (2, 3, 4)
    assert len(doc.draft.layers) == 8 - 3 + 12
    assert model.rowCount() == 6  # in, c1, the block's row, skip, f, fc
    row = _block_row(model)
    assert row == 2 and model.data(model.index(row, COL_NAME)) == f"▸ {rep.name} × 4"
    assert pane.layer_view.currentIndex().row() == row  # the new block's row is selected
    assert doc.failure is None and doc.estimate is not None
    assert doc.analysis.parameters == plain_params - body_params + 4 * body_params
    assert doc.estimate.parameters == doc.analysis.parameters
    # the layer after the block reads the last copy; each copy reads the one before it
    after = doc.draft.layers[rep.first + 12]
    assert after.name == "skip" and after.params.get("from") == "c1"
    assert doc.analysis.layers[rep.first + 12].error is None
    assert doc.draft.layers[rep.first + 3].params.get("input") in (None, "", f"{rep.name}.0.r2")
    assert pane.copies_action.isEnabled() and pane.unrepeat_action.isEnabled()
    doc.undo_stack.undo()
    assert doc.draft == plain and doc.analysis.parameters == plain_params
    assert model.rowCount() == 8


def test_repeat_layers_updates_references_after_the_range_to_the_last_copy(make_window):
    from planner.core.layers import LayerSpec

    w = make_window(preset="resnet18")
    pane, doc = w.planner, w.document
    draft = _small_cnn()
    layers = list(draft.layers)
    layers[5] = LayerSpec("add", "skip", {"from": "r2", "input": "c1"})  # reads r2 by name
    doc.load(draft.with_layers(layers), doc.setup, None)
    _select_rows(pane, 2, 4)
    _answer(pane, 3)
    pane.repeat_action.trigger()
    (rep,) = doc.draft.repeats
    skip = doc.draft.layers[doc.draft.index_of("skip")]
    assert skip.params["from"] == f"{rep.name}.2.r2"  # the last of the 3 copies
    assert all(info.error is None for info in doc.analysis.layers)


def test_repeat_layers_is_disabled_on_the_input_or_across_a_block(make_window):
    w = make_window()  # llama_8b
    pane, doc = w.planner, w.document
    model = pane.layer_model
    row = _block_row(model)
    _select_rows(pane, row - 1, row)  # the embedding and the block's row
    assert not pane.repeat_action.isEnabled()
    assert "repeated block" in pane.repeat_action.statusTip()
    _select_rows(pane, row + 1, row + 2)  # the final norm and the head: fine
    assert pane.repeat_action.isEnabled()
    _select_rows(pane, 0, 1)  # the input
    assert not pane.repeat_action.isEnabled()
    assert "input" in pane.repeat_action.statusTip()
    model.set_expanded("layers", True)
    _select_rows(pane, row + 1, row + 3)  # layers inside the open block
    assert not pane.repeat_action.isEnabled()
    _select_rows(pane, row + 17, row + 17)  # the final norm, outside the block
    assert not pane.copies_action.isEnabled() and not pane.unrepeat_action.isEnabled()
    assert pane.copies_action.statusTip()
    steps = doc.undo_stack.count()
    _select_rows(pane, row - 1, row)
    pane.repeat_action.trigger()  # a disabled action does nothing
    assert doc.undo_stack.count() == steps


def test_set_copies_of_a_preset_block_changes_the_parameters_and_survives_a_reopen(
        make_window, tmp_path, qtbot):
    target = tmp_path / "gpt2.json"
    prompts = ScriptedPrompts(save_answer_path=str(target))
    w = make_window(prompts, preset="gpt2")
    pane, doc = w.planner, w.document
    model = pane.layer_model
    (rep,) = doc.draft.repeats
    assert rep.times == 12
    full, before = doc.draft, doc.analysis.parameters
    per_copy = sum(doc.analysis.layers[i].parameters
                   for i in range(rep.first, rep.first + rep.length))
    assert per_copy > 7e6  # a GPT-2 decoder layer: 7.09 M
    pane.select_row(rep.first)
    assert pane.copies_action.isEnabled()
    asked = _answer(pane, 2)
    steps = doc.undo_stack.count()
    pane.copies_action.trigger()
    assert asked[0][2] == 12
    assert doc.undo_stack.count() == steps + 1
    assert doc.draft.repeats[0].times == 2
    assert doc.analysis.parameters == before - 10 * per_copy
    assert len(doc.draft.layers) == len(full.layers) - 10 * rep.length
    assert all(info.error is None for info in doc.analysis.layers)
    row = _block_row(model)
    assert model.data(model.index(row, COL_NAME)) == f"▸ {rep.name} × 2"
    after = doc.draft.layers[rep.first + 2 * rep.length:]
    refs = [str(v) for layer in after for v in layer.params.values()]
    assert not any(f"{rep.name}.11." in r for r in refs)  # nothing reads a copy that is gone
    doc.undo_stack.undo()
    assert doc.draft == full and doc.analysis.parameters == before
    doc.undo_stack.redo()
    assert w.files.save_as()
    data = json.loads(target.read_text(encoding="utf-8"))
    assert [raw["times"] for raw in data["layers"] if raw["type"] == "repeat"] == [2]
    edited = doc.draft
    w.files.load_preset("resnet50")
    assert w.files.open_file(target)
    qtbot.waitUntil(lambda: doc.path == target, timeout=10000)
    assert doc.draft == edited and doc.draft.repeats[0].times == 2
    assert doc.analysis.parameters == before - 10 * per_copy
    assert not prompts.errors


def test_unrepeat_turns_the_block_into_one_copy_of_plain_layers(make_window):
    w = make_window(preset="resnet18")
    pane, doc = w.planner, w.document
    doc.load(_small_cnn(), doc.setup, None)
    plain = doc.draft
    _select_rows(pane, 2, 4)
    _answer(pane, 5)
    pane.repeat_action.trigger()
    assert doc.draft.repeats
    steps = doc.undo_stack.count()
    pane.unrepeat_action.trigger()
    assert doc.undo_stack.count() == steps + 1
    assert doc.draft == plain  # Repeat ×5 then Unrepeat: the layers as they were
    assert pane.layer_model.rowCount() == 8
    doc.undo_stack.undo()
    assert doc.draft.repeats[0].times == 5


def test_the_properties_panel_shows_the_copies_as_a_spin_box(make_window):
    from PySide6.QtWidgets import QSpinBox

    w = make_window(preset="gpt2")
    pane, doc = w.planner, w.document
    (rep,) = doc.draft.repeats
    full, before = doc.draft, doc.analysis.parameters
    per_copy = sum(doc.analysis.layers[i].parameters
                   for i in range(rep.first, rep.first + rep.length))
    pane.select_row(rep.first)
    spin = pane.properties.findChild(QSpinBox, "block_copies")
    assert spin is not None and spin.value() == 12
    steps = doc.undo_stack.count()
    spin.setValue(11)
    spin.setValue(10)  # two arrow clicks in a moment: one undo step
    assert doc.undo_stack.count() == steps + 1
    assert doc.draft.repeats[0].times == 10
    assert doc.analysis.parameters == before - 2 * per_copy
    spin = pane.properties.findChild(QSpinBox, "block_copies")
    assert spin.value() == 10
    doc.undo_stack.undo()
    assert doc.draft == full
    assert pane.properties.findChild(QSpinBox, "block_copies").value() == 12
    pane.select_row(len(doc.draft.layers) - 1)  # the head: no block, no copies
    assert pane.properties.findChild(QSpinBox, "block_copies") is None
    # after Unrepeat the panel no longer speaks of a block
    pane.select_row(rep.first)
    pane.unrepeat_action.trigger()
    assert not doc.draft.repeats
    assert pane.properties.findChild(QSpinBox, "block_copies") is None
