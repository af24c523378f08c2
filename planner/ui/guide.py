"""Help ▸ User guide (F1): what each pane does, how the estimate and the speed are made, how
sure they are and where the files live, in the window's language.

The guide is a page of HTML per language in ``resources/`` (``guide_<language>.html``), shown
in a browser widget; a language without its own page shows the English one.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from planner import paths
from planner.ui import i18n


def guide_html(language: str | None = None) -> str:
    """The guide's HTML for ``language`` ("en", "zh_CN"; None: the one installed now)."""
    language = language or i18n.current_language()
    for code in (language, "en"):
        page = paths.resource_path(f"guide_{code}.html")
        if page.is_file():
            return page.read_text(encoding="utf-8")
    return ""


class GuideDialog(QDialog):
    def __init__(self, parent: QWidget | None = None, language: str | None = None):
        super().__init__(parent)
        self.setObjectName("guide_dialog")
        self.setWindowTitle(self.tr("GPU Planner — user guide"))
        self.browser = QTextBrowser(self)
        self.browser.setOpenExternalLinks(False)
        self.browser.setHtml(guide_html(language))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser, 1)
        layout.addWidget(buttons)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.resize(760, 640)
