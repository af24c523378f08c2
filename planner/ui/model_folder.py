"""File ▸ Open Model Folder…: a Hugging Face model folder (config.json and the safetensors
headers, never the weights) opened as a new, untitled plan. What the importer could not read
exactly is said in a message the user cannot miss."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QFileDialog

from planner.ui.i18n import arg


def _tr(text: str) -> str:
    return QCoreApplication.translate("ModelFolder", text)


def choose_and_open(window) -> bool:
    """Ask for a folder (the window's prompts may answer instead, in tests) and open it."""
    ask = getattr(window.prompts, "open_folder", None)
    if callable(ask):
        path = ask(window.files.last_folder())
    else:
        path = QFileDialog.getExistingDirectory(window, _tr("Open model folder"),
                                                window.files.last_folder()) or None
    if not path:
        return False
    window.files.remember_folder(path)
    return open_model_folder(window, path)


def open_model_folder(window, path: str | os.PathLike) -> bool:
    """Import ``path`` and load it into the window's document; False (with the problem shown)
    when it cannot be planned."""
    from planner.core.importers.hf_folder import FolderImportError, import_model_folder

    try:
        result = import_model_folder(path, batch=window.prefs.default_batch)
    except FolderImportError as exc:
        window.prompts.error(_tr("Cannot open model folder"), str(exc))
        return False
    window.document.load(result.draft, result.setup, None, modified=True)
    window.files.import_result = None  # not an ONNX import: its report is shown here
    name = Path(path).name
    report = result.report
    counts = arg(_tr("Parameters in the plan: %1; in the safetensors headers: %2."),
                 f"{report.plan_parameters:,}",
                 f"{report.checkpoint_parameters:,}" if report.checkpoint_parameters is not None
        else _tr("no safetensors files"))
    lines = ["• " + line for line in list(result.warnings) + list(result.notes)] + [counts]
    if result.incomplete:
        window.notify(arg(_tr("%1 was only partly read"), name),
                      _tr("The plan does not match the model folder exactly: check the "
                          "figures.") + "\n\n" + "\n\n".join(lines))
        window.statusBar().showMessage(
            arg(_tr("Incomplete import of %1: the figures are not exact"), name))
    elif result.warnings:
        window.notify(arg(_tr("Opened %1 with warnings"), name), "\n\n".join(lines))
    else:
        window.statusBar().showMessage(arg(_tr("Opened %1 as a new plan (%2)"), name, counts),
        10000)
    return True
