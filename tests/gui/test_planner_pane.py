"""The Planner pane and the main window, built through the app's own factory.

No modal dialog ever opens: the prompts are scripted. Qt warnings fail the tests.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import Qt

from planner import paths
from planner.core.network import load_plan
from planner.core.presets import list_presets
from planner.ui.bootstrap import build_main_window, run_gui
from planner.ui.planner.layer_table import COL_NAME, COL_PARAMS, COL_SHAPE, parse_params_text
from planner.ui.planner.results import SORT_ROLE
from planner.ui.services import Services

from gui_prompts import ScriptedPrompts  # tests/gui is on sys.path (pytest rootdir mode)

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    # The offscreen platform plugin warns about this on every show(); it is not ours.
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]


@pytest.fixture
def make_window(qtbot, planner_home, tmp_path):
    made = []

    def make(prompts=None, preset="seed-example"):
        prompts = prompts or ScriptedPrompts()
        services = Services(prompts=prompts, settings_path=tmp_path / "settings.ini",
                            start_preset=preset, autosave_delay_ms=30)
        window = build_main_window(services)
        qtbot.addWidget(window)
        window.prompts = prompts
        made.append(window)
        return window

    yield make
    for window in made:
        window.document.undo_stack.setClean()


@pytest.fixture
def window(make_window):
    w = make_window()
    w.show()
    return w


def peak(w) -> int:
    est = w.document.estimate
    assert est is not None, w.document.failure
    return est.peak


def params_index(w, row):
    return w.planner.layer_model.index(row, COL_PARAMS)


def test_item_models_pass_the_model_tester(window, qtmodeltester):
    pane = window.planner
    pane.refresh_suggestions()
    pane.refresh_tables()
    assert pane.estimate_model.rowCount() == 4 and pane.classic_model.rowCount() == 4
    for model in (pane.layer_model, pane.estimate_model, pane.estimate_proxy,
                  pane.classic_model, pane.suggestion_model):
        qtmodeltester.check(model)


def test_starts_on_planner_with_an_estimate(window):
    assert window.tabs.currentWidget() is window.planner
    assert window.document.draft.name == "Seed article example"
    assert peak(window) > 0
    assert "Seed article example" in window.windowTitle()
    assert not window.isWindowModified()
    assert "Peak" in window.planner.summary()
    assert window.planner.max_batch_label.text().startswith("batch")


def test_editing_filters_changes_the_peak_and_undo_redo_restore_it(window):
    model = window.planner.layer_model
    before = peak(window)
    assert model.data(params_index(window, 1)).startswith("filters=32")
    assert model.setData(params_index(window, 1), "filters=64 kernel=3 stride=1 padding=valid")
    after = peak(window)
    assert after > before
    assert window.document.draft.layers[1].params["filters"] == 64
    assert window.isWindowModified()
    assert model.data(model.index(1, COL_SHAPE)) == "64×248×248"
    window.undo_action.trigger()
    assert peak(window) == before
    assert not window.isWindowModified()
    window.redo_action.trigger()
    assert peak(window) == after


def test_text_that_does_not_parse_is_not_applied_and_names_the_layer(window, qtbot):
    model = window.planner.layer_model
    draft = window.document.draft
    before = peak(window)
    with qtbot.waitSignal(model.edit_rejected) as blocker:
        assert not model.setData(params_index(window, 2), "filters=abc")
    message = blocker.args[0]
    assert "layer 2 (conv2)" in message and "abc" in message
    assert window.document.draft == draft
    assert peak(window) == before
    assert window.planner.problems_label.isVisibleTo(window)
    assert "conv2" in window.planner.problems_label.text()
    assert window.document.undo_stack.count() == 0


def test_unknown_parameter_names_are_rejected(window):
    with pytest.raises(ValueError, match="not a parameter"):
        parse_params_text("conv2d", "filterz=3")


def test_kernel_larger_than_input_shows_its_error_and_keeps_the_rest(window):
    model = window.planner.layer_model
    before = peak(window)
    assert model.setData(params_index(window, 1), "filters=32 kernel=300")
    assert window.document.estimate is None
    label = window.planner.problems_label
    assert label.isVisibleTo(window)
    assert "layer 1 (conv1)" in label.text() and "300×300" in label.text()
    tip = model.data(params_index(window, 1), Qt.ItemDataRole.ToolTipRole)
    assert "conv1" in tip and "larger than" in tip
    assert model.data(params_index(window, 1), Qt.ItemDataRole.BackgroundRole) is not None
    window.planner.select_row(1)
    from PySide6.QtWidgets import QLabel

    error_label = window.planner.properties.findChild(QLabel, "layer_error")
    assert error_label.isVisibleTo(window) and "larger than" in error_label.text()
    # The other layers are still there and the input row still has its shape.
    assert model.rowCount() == 4
    assert model.data(model.index(0, COL_SHAPE)) == "3×250×250"
    assert model.data(model.index(3, COL_NAME)) == "conv3"
    assert "Fix" in window.planner.summary()
    assert window.planner.max_batch_label.text() == "—"
    # No numbers from before the error: the breakdown says what to fix, the tables are
    # empty; undo brings the estimate back.
    assert window.planner.breakdown._estimate is None
    assert "Fix the errors" in window.planner.breakdown._message
    assert "larger than" in window.planner.breakdown._message
    window.planner.refresh_tables()
    assert window.planner.estimate_model.rowCount() == 0
    window.undo_action.trigger()
    assert peak(window) == before
    assert not window.planner.problems_label.isVisibleTo(window)


def test_properties_panel_edits_are_undoable(window, qtbot):
    pane = window.planner
    pane.select_row(2)
    spin = pane.properties.findChild(type(pane.batch_spin), "param_filters")
    assert spin is not None and spin.value() == 64
    before = peak(window)
    spin.setValue(128)
    assert window.document.draft.layers[2].params["filters"] == 128
    assert peak(window) > before
    window.undo_action.trigger()
    assert peak(window) == before
    assert spin.value() == 64


def test_ctrl_z_in_a_layer_field_undoes_the_plan(window, qtbot):
    # The cursor stays in the kernel field after an edit; Ctrl+Z there undoes the plan's
    # last edit (the field has nothing of its own to undo), and the field shows the old value.
    from PySide6.QtWidgets import QLineEdit

    pane = window.planner
    pane.select_row(1)
    kernel = pane.properties.findChild(QLineEdit, "param_kernel")
    window.activateWindow()
    kernel.setFocus()
    qtbot.waitUntil(kernel.hasFocus, timeout=2000)
    before = kernel.text()
    kernel.selectAll()
    qtbot.keyClicks(kernel, "5x5")
    qtbot.keyClick(kernel, Qt.Key.Key_Return)
    assert window.document.draft.layers[1].params["kernel"] == (5, 5)
    assert kernel.hasFocus()
    qtbot.keyClick(kernel, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.document.draft.layers[1].params["kernel"] != (5, 5)
    assert kernel.text() == before
    # a half-typed value keeps the field's own undo: the plan is not touched
    draft = window.document.draft
    qtbot.keyClicks(kernel, "7")
    qtbot.keyClick(kernel, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.document.draft == draft
    assert kernel.text() == before


def test_properties_panel_rejects_bad_text(window, qtbot):
    from PySide6.QtWidgets import QLineEdit

    pane = window.planner
    pane.select_row(1)
    kernel = pane.properties.findChild(QLineEdit, "param_kernel")
    draft = window.document.draft
    kernel.setText("three")
    with qtbot.waitSignal(pane.properties.edit_rejected) as blocker:
        kernel.editingFinished.emit()
    assert "layer 1 (conv1)" in blocker.args[0]
    assert window.document.draft == draft


def test_setup_controls_change_the_peak(window):
    pane = window.planner
    before = peak(window)
    pane.batch_spin.setValue(64)
    assert window.document.setup.batch_size == 64
    assert peak(window) < before
    pane.precision_combo.setCurrentIndex(pane.precision_combo.findData("fp16"))
    half = peak(window)
    pane.mode_combo.setCurrentIndex(pane.mode_combo.findData("infer"))
    assert peak(window) < half
    assert not pane.optimizer_combo.isEnabled()
    while window.document.undo_stack.canUndo():
        window.undo_action.trigger()
    assert peak(window) == before
    assert pane.batch_spin.value() == 128
    assert pane.precision_combo.currentData() == "fp32"


def test_layer_actions_are_undoable(window):
    pane = window.planner
    doc = window.document
    pane.select_row(1)
    pane.duplicate_action.trigger()
    assert [layer.name for layer in doc.draft.layers] == ["input", "conv1", "conv4", "conv2",
                                                          "conv3"]
    assert doc.current_row == 2
    pane.up_action.trigger()
    assert doc.draft.layers[1].name == "conv4"
    pane.down_action.trigger()
    assert doc.draft.layers[2].name == "conv4"
    pane.remove_action.trigger()
    assert [layer.name for layer in doc.draft.layers] == ["input", "conv1", "conv2", "conv3"]
    pane.add_menu.aboutToShow.emit()  # as the menu does when it opens: its types go in
    maxpool = next(a for a in pane.add_menu.actions() if a.data() == "maxpool")
    pane.select_row(3)
    maxpool.trigger()
    assert doc.draft.layers[4].kind == "maxpool"
    assert doc.estimate is not None
    assert pane.layer_model.rowCount() == 5
    while doc.undo_stack.canUndo():
        window.undo_action.trigger()
    assert [layer.name for layer in doc.draft.layers] == ["input", "conv1", "conv2", "conv3"]
    assert pane.layer_model.rowCount() == 4


def test_save_and_open_round_trip(make_window, tmp_path):
    target = tmp_path / "plans" / "mine.json"
    prompts = ScriptedPrompts(save_answer_path=str(target))
    w = make_window(prompts)
    w.planner.layer_model.setData(params_index(w, 1), "filters=48")
    w.planner.batch_spin.setValue(32)
    edited_draft, edited_setup = w.document.draft, w.document.setup
    assert w.files.save_as()
    assert target.is_file()
    assert not w.isWindowModified()
    assert "mine.json" in w.windowTitle()
    assert load_plan(target) == (edited_draft, edited_setup)
    assert w.files.recent_files()[0] == str(target.resolve())
    w.files.load_preset("vgg16")
    assert w.document.draft.name != edited_draft.name
    assert w.files.open_file(target)
    assert w.document.draft == edited_draft and w.document.setup == edited_setup
    assert w.document.path == target
    # The recent list is persisted: a new window sees it.
    w2 = make_window(ScriptedPrompts())
    assert w2.files.recent_files()[0] == str(target.resolve())
    assert not prompts.errors


def test_a_bad_file_names_the_field_and_leaves_the_plan_untouched(window, tmp_path):
    window.planner.layer_model.setData(params_index(window, 1), "filters=40")
    draft, setup = window.document.draft, window.document.setup
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"schema_version": 1, "name": "x", "layers": [
        {"type": "input", "name": "input", "shape": [3, 32, 32]},
        {"type": "conv2d", "name": "c", "kernel": "big"}]}), encoding="utf-8")
    assert not window.files.open_file(bad)
    _title, text = window.prompts.errors[-1]
    assert "layers[1].kernel" in text
    assert window.document.draft == draft and window.document.setup == setup
    assert window.isWindowModified()
    assert window.document.undo_stack.canUndo()
    assert not window.files.open_file(tmp_path / "missing.json")
    assert "no such file" in window.prompts.errors[-1][1]


def test_closing_with_changes_asks_and_cancel_keeps_the_window(make_window, qtbot):
    prompts = ScriptedPrompts(save_answer="cancel")
    w = make_window(prompts)
    w.show()
    w.planner.batch_spin.setValue(7)
    assert not w.close()
    assert w.isVisible()
    assert prompts.asked[-1].startswith("save_changes")
    prompts.save_answer = "discard"
    assert w.close()


def test_autosave_is_written_and_restored_by_a_new_window(make_window, qtbot):
    w = make_window()
    autosave = paths.autosave_path()
    assert not autosave.exists()
    with qtbot.waitSignal(w.files.autosaved, timeout=3000):
        w.planner.layer_model.setData(params_index(w, 3), "filters=100")
    assert autosave.is_file()
    edited = w.document.draft
    # Simulate a crash: the window goes away without a clean close.
    prompts = ScriptedPrompts(restore=True)
    w2 = make_window(prompts)
    assert prompts.asked == ["restore"]
    assert w2.document.draft == edited
    assert w2.isWindowModified()
    # A clean quit deletes the autosave.
    w2.prompts.save_answer = "discard"
    assert w2.close()
    assert not autosave.exists()


def test_declining_the_restore_deletes_the_autosave(make_window, qtbot):
    w = make_window()
    with qtbot.waitSignal(w.files.autosaved, timeout=3000):
        w.planner.batch_spin.setValue(3)
    w2 = make_window(ScriptedPrompts(restore=False))
    assert w2.document.setup.batch_size == 128
    assert not paths.autosave_path().exists()


def test_applying_a_suggestion_lowers_the_peak_and_undo_restores_it(window, qtbot):
    pane = window.planner
    pane.show_result_tab("suggestions")  # "What would help" computes on show
    model = pane.suggestion_model
    assert model.rowCount() > 0
    before = peak(window)
    first = model.suggestions[0]
    from PySide6.QtWidgets import QPushButton

    cell = pane.suggestion_view.indexWidget(model.index(0, model.APPLY_COLUMN))
    button = cell.findChild(QPushButton)
    assert button is not None and button.text() == "Apply"
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert peak(window) < before
    assert peak(window) == first.new_peak_bytes
    assert window.document.undo_stack.count() == 1
    window.undo_action.trigger()
    assert peak(window) == before


def test_every_preset_loads_without_errors(window):
    names = [p.name for p in list_presets()]
    assert set(window.preset_actions) == set(names)
    for name in names:
        window.preset_actions[name].trigger()
        assert window.document.analysis.ok, (name, window.document.failure)
        assert window.document.estimate is not None
        assert not window.planner.problems_label.isVisibleTo(window)
        assert not window.isWindowModified()
    assert not window.prompts.errors


def test_assumptions_change_the_estimate_and_persist(make_window, tmp_path):
    from dataclasses import replace

    w = make_window()
    before = peak(w)
    a = replace(w.document.assumptions, cuda_context_bytes=1024**3)
    w.planner.set_assumptions(a)
    assert peak(w) == before + 1024**3 - 400 * 1024**2
    w2 = build_main_window(Services(prompts=ScriptedPrompts(),
                                    settings_path=tmp_path / "settings.ini",
                                    start_preset="seed-example"))
    try:
        assert w2.document.assumptions == a
    finally:
        w2.deleteLater()


def test_new_plan_and_title(window):
    window.new_action.trigger()
    assert [layer.kind for layer in window.document.draft.layers] == ["input"]
    assert "untitled" in window.windowTitle()


def test_self_test_reports_its_outcome(qapp, capsys):
    from planner.ui.bootstrap import binding_drops_references

    if binding_drops_references():  # the self-test must refuse a binding that will crash
        assert run_gui(["--self-test"]) == 1
        assert "PySide6" in capsys.readouterr().err
    else:
        assert run_gui(["--self-test"]) == 0
        assert "self-test OK" in capsys.readouterr().out


def test_result_tables_follow_edits_when_shown(window):
    pane = window.planner
    pane.show_result_tab("layers")
    model = pane.estimate_model
    kept = model.index(1, 5).data(SORT_ROLE)
    pane.batch_spin.setValue(64)
    assert model.index(1, 5).data(SORT_ROLE) * 2 == kept
    pane.show_result_tab("classic")
    assert pane.classic_model.index(1, 0).data() == "conv1"
    assert "input − kernel" in pane.classic_model.index(1, 3).data()
    pane.layer_model.setData(params_index(window, 1), "filters=32 kernel=300")
    assert pane.classic_model.rowCount() == 0  # no numbers from before the error


def test_step_chart_marks_the_peak_and_names_layers(make_window, qtbot, tmp_path):
    w = make_window(preset="resnet18")
    w.resize(1024, 700)
    w.show()
    pane = w.planner
    # the user's path: the tab is selected, its chart (built when first shown) is on screen
    # with the plan made before it existed
    titles = [pane.tabs.tabText(i) for i in range(pane.tabs.count())]
    pane.tabs.setCurrentIndex(titles.index("Memory over the step"))
    chart = pane.step_chart
    assert chart.isVisible()
    est = w.document.estimate
    at = est.peak_at
    assert at.phase == "backward"
    assert at.name in chart.peak_text() and "peak" in chart.peak_text()
    points = est.timeline
    first_bwd = next(i for i, p in enumerate(points) if p.phase == "backward" and p.layer >= 0)
    assert chart.describe(first_bwd).startswith(points[first_bwd].name + " — backward")
    left = chart.getPlotItem().getAxis("left").labelText
    assert "MiB" in left
    with qtbot.waitSignal(chart.layer_clicked, timeout=1000) as blocker:
        chart.layer_clicked.emit(points[first_bwd].layer)
    assert blocker.args == [points[first_bwd].layer]
    w.grab().save(str(tmp_path / "step_chart.png"))
    # A bad draft greys the last good step out and says why.
    pane.layer_model.setData(pane.layer_model.index(1, 3), "filters=32 kernel=3000")
    assert chart._note.isVisible()
    # Inference: no backward in the step, the activation term is not "kept for backward".
    pane.layer_model.setData(pane.layer_model.index(1, 3), "filters=64 kernel=7")


def test_window_renders(window, qtbot, tmp_path):
    window.resize(1200, 800)
    for i in range(window.planner.tabs.count()):
        window.planner.tabs.setCurrentIndex(i)
        image = window.grab()
        assert not image.isNull()
    assert Path(tmp_path).exists()


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(row=st.integers(0, 3), column=st.sampled_from([1, 2, 3]),
       text=st.one_of(st.text(max_size=30),
                      st.sampled_from(["filters=0", "kernel=1x2x3", "stride=-1", "padding=same",
                                       "groups=7", "from=conv1", "input=nowhere", "shape=3x0x5",
                                       "filters=64 kernel=3 kernel=5", "p=2", "lstm", "add"])))
def test_random_edits_never_crash(window, row, column, text):
    model = window.planner.layer_model
    model.setData(model.index(row, column), text)
    doc = window.document
    assert (doc.estimate is None) == bool(doc.analysis.problems) or doc.failure
    for r in range(model.rowCount()):
        for c in range(model.columnCount()):
            model.data(model.index(r, c))
            model.data(model.index(r, c), Qt.ItemDataRole.ToolTipRole)
    while doc.undo_stack.canUndo():
        doc.undo_stack.undo()
    assert doc.estimate is not None


def test_assumptions_dialog_edits_every_field(qtbot):
    from PySide6.QtWidgets import QLineEdit, QSpinBox

    from planner.core.memory import Assumptions
    from planner.ui.planner.assumptions_dialog import AssumptionsDialog

    dialog = AssumptionsDialog(Assumptions())
    qtbot.addWidget(dialog)
    assert dialog.edited() == Assumptions()
    dialog.findChild(QSpinBox, "cuda_context_bytes").setValue(1024)
    assert dialog.edited().cuda_context_bytes == 1024**3
    from PySide6.QtWidgets import QCheckBox

    dialog.findChild(QCheckBox, "allocator_model").setChecked(False)
    assert dialog.edited().allocator_model is False
    dialog.findChild(QSpinBox, "cublas_workspace_bytes").setValue(8320)  # 8.125 MiB
    assert dialog.edited().cublas_workspace_bytes == 8320 * 1024
    pairs = dialog.findChild(QLineEdit, "architecture_efficiency")
    pairs.setText("Kepler=0.5")
    assert dialog.edited().architecture_efficiency == (("Kepler", 0.5),)
    pairs.setText("Kepler=fast")
    dialog._on_accepted()
    assert "not a number" in dialog._error.text()
    assert dialog.assumptions() == Assumptions()
    dialog._on_restore_defaults()
    assert dialog.edited() == Assumptions()
    dialog._on_accepted()
    assert dialog.result() == dialog.DialogCode.Accepted


def test_reference_fields_complete_earlier_layer_names(make_window):
    from PySide6.QtWidgets import QLineEdit

    w = make_window(preset="resnet18")
    row = next(i for i, layer in enumerate(w.document.draft.layers) if layer.kind == "add")
    w.planner.select_row(row)
    ref = w.planner.properties.findChild(QLineEdit, "param_from")
    names = ref.completer().model().stringList()
    assert names == [layer.name for layer in w.document.draft.layers[:row]]
    assert ref.text() == w.document.draft.layers[row].params["from"]


def test_an_empty_plan_shows_nothing_to_estimate(window, qtbot):
    # File ▸ New: no "largest batch 41,841", no "0 samples/s", no "42 copies fit".
    window.new_action.trigger()
    pane = window.planner
    assert window.document.is_empty and window.document.estimate is None
    assert "Nothing to estimate yet" in pane.summary()
    assert pane.breakdown._estimate is None and "no layers" in pane.breakdown._message
    assert pane.max_batch_label.text() == "—"
    qtbot.waitUntil(lambda: pane._catalog is not None, timeout=10000)
    pane.show_result_tab("fit")
    fit = pane.ensure_fit_view()
    assert fit.model.rowCount() == 0 and fit.stack.currentIndex() == 1
    assert "Nothing to estimate yet" in fit.empty_label.text()
    assert "Fix the plan" not in fit.empty_label.text()
    pane.show_result_tab("scaling")
    view = pane.scaling_view
    assert "Nothing to estimate yet" in view.summary.text() and view.copies == 0
