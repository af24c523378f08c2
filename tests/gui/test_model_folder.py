"""File ▸ Open Model Folder…: a Hugging Face folder opens as a new plan; a bad one says why."""

from __future__ import annotations

import json

import pytest

from planner.ui.main_window import build_main_window
from planner.ui.services import Services

from gui_prompts import ScriptedPrompts  # tests/gui is on sys.path (pytest rootdir mode)

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

LLAMA = {"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
         "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 2,
         "vocab_size": 100, "max_position_embeddings": 256}


class FolderPrompts(ScriptedPrompts):
    def __init__(self, folder):
        super().__init__()
        self.folder = folder

    def open_folder(self, start):
        return str(self.folder)


def test_open_model_folder_loads_the_plan(qtbot, planner_home, tmp_path):
    from planner.ui.model_folder import choose_and_open

    folder = tmp_path / "tiny-llama"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(LLAMA))
    prompts = FolderPrompts(folder)
    w = build_main_window(Services(settings_path=tmp_path / "s.ini", prompts=prompts,
                                   start_preset="seed-example"))
    qtbot.addWidget(w)
    assert w.open_folder_action.text()
    assert choose_and_open(w)
    kinds = [layer.kind for layer in w.document.draft.layers]
    assert "attention" in kinds and "rotary" in kinds
    assert not prompts.errors


def test_bad_model_folder_names_the_field(qtbot, planner_home, tmp_path):
    from planner.ui.model_folder import open_model_folder

    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({**LLAMA, "model_type": "t5"}))
    prompts = ScriptedPrompts()
    w = build_main_window(Services(settings_path=tmp_path / "s.ini", prompts=prompts,
                                   start_preset="seed-example"))
    qtbot.addWidget(w)
    before = w.document.draft
    assert not open_model_folder(w, folder)
    assert w.document.draft is before
    assert prompts.errors and "model_type 't5'" in prompts.errors[0][1]
