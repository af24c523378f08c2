"""File ▸ ONNX Input Shapes…: an imported encoder-decoder file's two token inputs get a field
each, and the plan is imported again at the shapes typed (as --input NAME=SHAPE does)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

onnx = pytest.importorskip("onnx")

from planner.ui.onnx_inputs import InputShapesDialog, edit_input_shapes  # noqa: E402
from test_onnx_import_dialog import window as window  # noqa: E402, F401 - the fixture

sys.path.insert(0, str(Path(__file__).parents[1] / "unit"))
import onnx_fixtures as fx  # noqa: E402
from test_onnx_inputs import cross_attention_net  # noqa: E402

sys.path.pop(0)


def _answer(window, shapes):
    """The dialog's answer, scripted: records what it was shown."""
    shown = []

    def ask(name, inputs, given):
        shown.append((name, inputs, given))
        return shapes
    window.prompts.onnx_input_shapes = ask
    return shown


def _inputs(window):
    return {layer.name: tuple(layer.params["shape"]) for layer in window.document.draft.layers
            if layer.kind in ("input", "data_input")}


def test_each_input_gets_its_shape_and_the_file_is_imported_again(window, tmp_path):
    path = fx.save(cross_attention_net(), tmp_path / "encdec.onnx")
    assert window.files.import_onnx(path)
    assert list(_inputs(window).values()) == [(128,), (128,)]  # open lengths: the default
    shown = _answer(window, {"input_ids": (96,), "decoder_input_ids": (24,)})
    assert edit_input_shapes(window, background=False)
    name, inputs, given = shown[-1]
    assert name == "encdec.onnx"
    assert [i[0] for i in inputs] == ["input_ids", "decoder_input_ids"]
    assert list(given) == ["attention_mask", "decoder_attention_mask"]
    assert list(_inputs(window).values()) == [(96,), (24,)]
    assert window.files.import_result.report.complete
    assert window.onnx_inputs_action.text()


def test_without_an_onnx_import_it_says_what_to_do(window):
    assert not edit_input_shapes(window, background=False)
    assert window.prompts.errors and "ONNX" in window.prompts.errors[-1][1]


def test_the_dialog_reads_every_field_and_names_a_wrong_one(qtbot, tmp_path):
    inputs = (("input_ids", "input", (128,)), ("pixel_values", "pixel_values", (3, 224, 224)))
    dialog = InputShapesDialog("clip.onnx", inputs, ("attention_mask",))
    qtbot.addWidget(dialog)
    assert dialog.fields["pixel_values"].text() == "3×224×224"
    dialog.fields["input_ids"].setText("77")
    assert dialog.read_shapes() == {"input_ids": (77,), "pixel_values": (3, 224, 224)}
    dialog.fields["pixel_values"].setText("3xbig")
    dialog._on_accept()
    assert dialog.shapes is None and "pixel_values" in dialog.error_label.text()
    dialog.resize(dialog.sizeHint())
    dialog.grab().save(str(tmp_path / "onnx-input-shapes.png"))
