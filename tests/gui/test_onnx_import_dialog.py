"""Opening an ONNX file the planner cannot fully read: the window says so prominently, in plain
words, with the importer's details on demand (and a complete import stays quiet)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

onnx = pytest.importorskip("onnx")

from onnx import helper  # noqa: E402
from PySide6.QtWidgets import QMessageBox  # noqa: E402

from planner.ui.bootstrap import build_main_window  # noqa: E402
from planner.ui.prompts import DialogPrompts  # noqa: E402
from planner.ui.services import Services  # noqa: E402

from gui_prompts import ScriptedPrompts  # noqa: E402

sys.path.insert(0, str(Path(__file__).parents[1] / "unit"))
import onnx_fixtures as fx  # noqa: E402

sys.path.pop(0)


class ImportPrompts(ScriptedPrompts):
    def __init__(self, **kw):
        super().__init__(**kw)
        self.imports: list[tuple[str, str, str, bool]] = []

    def import_warnings(self, title, summary, details, incomplete):
        self.imports.append((title, summary, details, incomplete))


def incomplete_model():
    nodes = [helper.make_node("Conv", ["x", "w1"], ["c1"], name="conv1", kernel_shape=[3, 3]),
             helper.make_node("MysteryOp", ["c1"], ["y"], name="mystery", domain="vendor.ops")]
    model = fx.build(nodes, [fx.tensor("x", ["N", 3, 16, 16])], [fx.tensor("y", None)],
                     [fx.weight("w1", (4, 3, 3, 3))])
    model.opset_import.append(helper.make_opsetid("vendor.ops", 1))
    return model


@pytest.fixture
def window(qtbot, planner_home, tmp_path):
    prompts = ImportPrompts()
    services = Services(prompts=prompts, settings_path=tmp_path / "s.ini",
                        start_preset="seed-example")
    w = build_main_window(services)
    qtbot.addWidget(w)
    w.prompts = prompts
    yield w
    w.document.undo_stack.setClean()
    w.shutdown()


def test_incomplete_import_is_said_prominently_with_details(window, tmp_path):
    path = fx.save(incomplete_model(), tmp_path / "vendor.onnx")
    assert window.files.import_onnx(path)
    title, summary, details, incomplete = window.prompts.imports[-1]
    assert incomplete and "partly read" in title
    assert "too low" in summary and "1 of 2" in summary
    assert "MysteryOp" in details and "not understood" in details
    assert "Incomplete import" in window.statusBar().currentMessage()
    assert window.files.import_result is not None and window.files.import_result.incomplete


def test_complete_import_is_quiet(window, tmp_path):
    path = fx.save(fx.residual_net(), tmp_path / "ok.onnx")
    assert window.files.import_onnx(path)
    assert window.prompts.imports == []
    assert "Opened ok.onnx" in window.statusBar().currentMessage()


def test_the_warning_box_renders_with_details_on_demand(qtbot, tmp_path):
    prompts = DialogPrompts(None)
    prompts.import_warnings("vendor.onnx was only partly read",
                            "The plan does not cover the whole model: memory and speed figures "
                            "are too low. 1 of 2 operations could not be planned.",
                            "• Operators the planner does not understand: MysteryOp.", True)
    box = prompts.last_import_box
    qtbot.addWidget(box)
    assert box.icon() == QMessageBox.Icon.Warning
    assert "MysteryOp" in box.detailedText() and "too low" in box.text()
    box.grab().save(str(tmp_path / "import-warning.png"))
    box.close()


def test_the_box_says_in_plain_words_what_was_approximated_without_node_paths(window,
                                                                              tmp_path):
    """Issue 17: the box was a wall of node paths and jargon. The summary names each kind of
    approximation and what it does to the estimate; node names only in the details."""
    # (a 1-D convolution padding unevenly is still planned with even padding; a 2-D one is
    # planned exactly since round 6, as PyTorch's F.pad before the convolution)
    nodes = [helper.make_node("Conv", ["x", "w1"], ["c1"], name="/features/stem/Conv",
                              kernel_shape=[3], pads=[0, 1]),
             helper.make_node("MysteryOp", ["c1"], ["y"], name="/features/odd/MysteryOp",
                              domain="vendor.ops")]
    model = fx.build(nodes, [fx.tensor("x", ["N", 3, 16])], [fx.tensor("y", None)],
                     [fx.weight("w1", (4, 3, 3))])
    model.opset_import.append(helper.make_opsetid("vendor.ops", 1))
    path = fx.save(model, tmp_path / "odd.onnx")
    assert window.files.import_onnx(path)
    title, summary, details, _incomplete = window.prompts.imports[-1]
    assert "/features" not in summary and "MysteryOp" not in summary
    assert "core's rule" not in summary
    assert "does not know" in summary and "memory may be somewhat low" in summary
    assert "padding" in summary
    assert "Show Details" in summary
    assert "/features/stem/Conv" in details and "MysteryOp" in details


def test_every_kind_of_importer_line_gets_a_plain_sentence():
    from planner.ui.import_summary import classify

    lines = [
        "Conv '/a/b' pads unevenly (0 before, 1 after): the plan pads the rounded-up mean.",
        "Operators the planner does not understand, counted as keeping their input: Foo.",
        "3 of 9 nodes are not in the plan (their input could not be planned), first: x.",
        "This file was exported for inference (eval mode): 4 batch norm(s) were folded.",
        "2 weight tensor(s) of the file (10 values) belong to no layer of the plan: a, b.",
        "Gemm '/fc' has no bias; the plan counts the biases PyTorch has.",
        "No dropout in the file: if the network uses dropout in training, this is an "
        "inference export and the plan leaves out what dropout keeps.",
        "Something entirely new the importer says.",
    ]
    kinds, other = classify(lines)
    assert kinds == ["missing", "unknown", "eval", "dropout", "weights", "bias", "layout"]
    assert other == 1


def test_a_text_model_without_dropout_says_it_may_be_an_inference_export(window, tmp_path):
    """A transformer exported in eval mode cannot be told from the graph (no batch norms):
    the box says in plain words that dropout may be missing and how to export for training."""
    sys.path.insert(0, str(Path(__file__).parents[1] / "unit"))
    try:
        from test_onnx_text import attention_net  # noqa: PLC0415
    finally:
        sys.path.pop(0)
    path = fx.save(attention_net(dynamo=False), tmp_path / "bert-eval.onnx")
    assert window.files.import_onnx(path)
    title, summary, details, incomplete = window.prompts.imports[-1]
    assert not incomplete
    assert "may have been exported for inference" in summary and "model.train()" in summary
    assert "No dropout in the file" in details


def test_a_decoder_without_the_exporters_record_says_a_cache_may_add_memory(window, tmp_path):
    """A stripped decoder file cannot say whether k and v were copied into a key/value cache:
    the box says so in plain words, the details give the figure."""
    sys.path.insert(0, str(Path(__file__).parents[1] / "unit"))
    try:
        from test_onnx_text import _causal, attention_net  # noqa: PLC0415
    finally:
        sys.path.pop(0)
    path = fx.save(_causal(attention_net(True, one_projection=True)), tmp_path / "gpt.onnx")
    assert window.files.import_onnx(path)
    title, summary, details, incomplete = window.prompts.imports[-1]
    assert not incomplete
    assert "key/value cache" in summary and "use_cache=False" in summary
    assert "KiB more at batch" in details


def test_a_stripped_file_and_an_unknown_cache_get_their_own_sentences():
    from planner.ui.import_summary import classify

    from planner.core.importers.onnx import STRIPPED_RECORD
    from planner.core.importers.onnx.kvcache import CACHE_COPIES

    lines = [CACHE_COPIES.format(n=2, bytes="1.0 MiB", batch=8, pct="6.8"),
             STRIPPED_RECORD.format(n=53)]
    assert classify(lines) == (["record", "cache"], 0)


def test_attention_bias_and_folded_buffer_lines_are_not_called_negligible(tmp_path):
    """The importer's lines for a per-head score bias (Swin, BEiT) and for a weight folded
    from parameters and a buffer (EVA) get their own sentences, not the 'bias vectors,
    negligible' one their wording would otherwise match."""
    from planner.core.importers.onnx import SCORE_BIAS
    from planner.ui.import_summary import classify
    from planner.i18n import Msg

    score = str(Msg(SCORE_BIAS, n=4, mib="10.6", batch=2))
    kinds, other = classify([score])
    assert kinds == ["score_bias"] and other == 0
    folded = ("In 12 module(s) (blocks.0.attn, blocks.1.attn, ...) the exporter folded "
              "parameters and buffers into one weight, which the plan counts whole as "
              "parameters.")
    assert classify([folded]) == (["weights"], 0)


def test_an_activation_that_may_run_in_place_gets_its_own_sentence():
    """The importer's figure for ELU / leaky ReLU layers that may run in place (MONAI's VNet:
    21 % of the saved activations) gets its own plain sentence in the box, not 'other'."""
    from planner.core.importers.onnx import MAYBE_INPLACE
    from planner.ui.import_summary import classify
    from planner.i18n import Msg

    line = str(Msg(MAYBE_INPLACE, n=32, mib="18.8", batch=2, pct="21"))
    assert classify([line]) == (["inplace"], 0)
