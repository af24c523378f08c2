"""The first-run welcome: what was found on this computer, and where the app keeps its files.

``welcome_text(cards, source)`` builds the message (HTML) so tests can read it without a dialog;
``WelcomeDialog`` shows it (non-modal; the main window opens it once, when the settings say the
first run is not done yet).
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from planner.ui.i18n import arg
from planner import paths

NO_DRIVER = "No NVIDIA driver found — planning and advice still work"


def _tr(text: str) -> str:
    return QApplication.translate("Welcome", text)


def welcome_text(cards: list[str], source: str) -> str:
    """``cards``: the names of the cards found (catalog names where they matched);
    ``source``: "nvml", "simulated" or "unavailable"."""
    parts = [_tr("<h3>Welcome to GPU Planner</h3>"),
             _tr("<p>Draft a network and see the memory it needs to train, how it fits and runs "
                 "on every NVIDIA card, what to buy or sell, and what your cards do live.</p>")]
    if source == "simulated":
        found = arg(_tr("<p><b>Simulated cards</b> are shown in the Monitor (demo mode): "
                        "%1.</p>"),
                    escape(", ".join(cards)) or "—")
    elif cards:
        found = arg(_tr("<p><b>Found on this computer:</b> %1. They count as your cards in the fit "
                        "table and the Advisor.</p>"),
                    escape(", ".join(cards)))
    else:
        found = "<p><b>" + _tr(NO_DRIVER) + ".</b> " + _tr(
            "The Monitor can show a simulated demo instead.") + "</p>"
    parts.append(found)
    rows = ((_tr("Settings"), paths.config_dir(create=False)),
            (_tr("Your data (catalog overrides, autosave)"), paths.data_dir(create=False)),
            (_tr("Recordings"), paths.recordings_dir(create=False)))
    parts.append("<p>" + _tr("Where files are kept:") + "</p><ul>" + "".join(
        f"<li>{escape(label)}: <code>{escape(str(path))}</code></li>" for label, path in rows)
        + "</ul>")
    parts.append(_tr("<p>Ctrl+1…4 switch between Planner, Monitor, Catalog and Advisor; "
                     "Edit ▸ Preferences… sets units, theme, sampling and defaults.</p>"))
    return "".join(parts)


class WelcomeDialog(QDialog):
    def __init__(self, text: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("welcome_dialog")
        self.setWindowTitle(_tr("Welcome to GPU Planner"))
        layout = QVBoxLayout(self)
        self.label = QLabel(text, self)
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setMinimumWidth(520)
        layout.addWidget(self.label)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok, self)
        buttons.accepted.connect(self.accept)
        layout.addWidget(buttons)
