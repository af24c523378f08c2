"""The Catalog pane: browse, search and compare every card; enter prices of your own, add custom
cards, say which cards are yours.

Edits go to the user's override file through ``planner.core.catalog`` (``set_user_price``,
``add_custom_card``, ``set_owned_cards``); then the pane reloads the catalog through the injected
``catalog_loader`` (so the overrides are merged exactly as at start-up) and emits
``catalog_changed`` with the new Catalog for the fit view and the advisor.

Dialogs run through ``dialog_runner`` (a callable taking the dialog and returning True when it
was accepted); tests replace it to fill the dialog in and accept it without a modal loop.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence

from PySide6.QtCore import QCoreApplication, QItemSelection, QModelIndex, Qt, Signal, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from planner.core.catalog import (
    ARCHITECTURES,
    SEGMENTS,
    Catalog,
    CatalogError,
    GpuSpec,
    OwnedCard,
    PricePoint,
    add_custom_card,
    clear_entered_prices,
    set_owned_cards,
    set_user_price,
    software_support,
)
from planner.core import prices as prices_mod
from planner.ui.catalog.chart import PriceHistoryChart
from planner.ui.catalog.dialogs import CompareDialog, CustomCardDialog, PriceDialog
from planner.ui.catalog.models import (
    CARD_ROLE,
    COL_NAME,
    OWNED_MARKER,
    CatalogFilterProxyModel,
    CatalogTableModel,
    PriceHistoryTableModel,
    card_fields,
)
from planner.ui.i18n import arg, exc_text, tr_msg
from planner.ui.tables import row_table

MAX_COMPARE = 4


def _exec_dialog(dialog: QDialog) -> bool:
    return dialog.exec() == QDialog.DialogCode.Accepted


_CSV_FILTER = QCoreApplication.translate("catalog", "Price lists (*.csv);;All files (*)")


class CatalogPane(QWidget):
    """Every card of the catalog: search, filters, details, compare, and the user's edits."""

    catalog_changed = Signal(object)  # the reloaded Catalog, after any edit
    card_selected = Signal(str)  # the card whose details are shown

    def __init__(self, catalog_loader: Callable[[], Catalog], parent: QWidget | None = None):
        super().__init__(parent)
        self._loader = catalog_loader
        self._catalog: Catalog = catalog_loader()
        self._notices: list[str] = []
        self.dialog_runner: Callable[[QDialog], bool] = _exec_dialog
        self.compare_dialog: CompareDialog | None = None
        self.overrides_path = None  # None: the default file in the user data folder
        # File choosers (tests replace them): a path, or "" when cancelled.
        self.open_file_chooser: Callable[[], str] = lambda: QFileDialog.getOpenFileName(
            self, self.tr("Import prices"), "", _CSV_FILTER)[0]
        self.save_file_chooser: Callable[[], str] = lambda: QFileDialog.getSaveFileName(
            self, self.tr("Export the price history"), "price-history.csv", _CSV_FILTER)[0]

        self._build_banner()
        filters = self._build_filters()
        actions = self._build_actions()
        self._build_table()
        details = self._build_details()
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(details)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setSizes([1040, 360])

        layout = QVBoxLayout(self)
        layout.addWidget(self.banner)
        layout.addLayout(filters)
        layout.addLayout(actions)
        layout.addWidget(self.message_label)
        layout.addWidget(self.splitter, 1)
        self._wire()
        self._show_catalog(self._catalog)
        self.table.resizeColumnsToContents()
        self.table.setColumnWidth(COL_NAME, min(self.table.columnWidth(COL_NAME), 230))
        self._update_buttons()
        self.show_details(None)

    # ---- building the pane, section by section --------------------------------------------
    def _build_banner(self) -> None:
        """The banner (notices, kept until dismissed) and the last action's message."""
        self.banner = QFrame()
        self.banner.setObjectName("catalogBanner")
        self.banner.setStyleSheet(
            "#catalogBanner { background: #fff4ce; border: 1px solid #d8b600; "
            "border-radius: 3px; } #catalogBanner QLabel { color: #3b2f00; }")
        self.banner_label = QLabel()
        self.banner_label.setWordWrap(True)
        self.banner_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.dismiss_button = QPushButton(self.tr("Dismiss"))
        self.dismiss_button.clicked.connect(self._on_dismiss_banner)
        b = QHBoxLayout(self.banner)
        b.addWidget(self.banner_label, 1)
        b.addWidget(self.dismiss_button, 0, Qt.AlignmentFlag.AlignTop)
        self.banner.setVisible(False)
        self.message_label = QLabel()
        self.message_label.setWordWrap(True)
        self.message_label.setVisible(False)

    def _build_filters(self) -> QHBoxLayout:
        """Search words, architecture, segment, minimum memory, mine only."""
        self.search_edit = QLineEdit()
        self.search_edit.setPlaceholderText(self.tr("Search name, architecture, chip…"))
        self.search_edit.setClearButtonEnabled(True)
        self.architecture_combo = QComboBox()
        self.architecture_combo.addItem(self.tr("All"), None)
        for a in ARCHITECTURES:
            self.architecture_combo.addItem(a, a)
        self.segment_combo = QComboBox()
        self.segment_combo.addItem(self.tr("All"), None)
        for s in SEGMENTS:
            self.segment_combo.addItem(self.tr(s), s)
        self.min_memory_spin = QDoubleSpinBox()
        self.min_memory_spin.setRange(0, 1024)
        self.min_memory_spin.setDecimals(0)
        self.min_memory_spin.setSingleStep(2)
        self.min_memory_spin.setSuffix(" GiB")
        self.min_memory_spin.setSpecialValueText(self.tr("any"))
        self.mine_only_check = QCheckBox(self.tr("Mine only"))

        filters = QHBoxLayout()
        filters.addWidget(self.search_edit, 2)
        for label, w in ((self.tr("Architecture:"), self.architecture_combo),
                         (self.tr("Segment:"), self.segment_combo),
                         (self.tr("Memory at least:"), self.min_memory_spin)):
            lab = QLabel(label)
            lab.setBuddy(w)
            filters.addSpacing(8)
            filters.addWidget(lab)
            filters.addWidget(w)
        filters.addSpacing(8)
        filters.addWidget(self.mine_only_check)
        return filters

    def _build_actions(self) -> QHBoxLayout:
        """Compare, edit price, add card, mine / not mine, the prices menu, the count."""
        self.compare_button = QPushButton(self.tr("Compare"))
        self.compare_button.setToolTip(self.tr("Select two to four cards to compare them "
                                               "side by side"))
        self.edit_price_button = QPushButton(self.tr("Edit price…"))
        self.add_card_button = QPushButton(self.tr("Add custom card…"))
        self.mark_mine_button = QToolButton()
        self.mark_mine_button.setText(self.tr("Mark as mine"))
        self.mark_mine_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        menu = QMenu(self.mark_mine_button)
        self.mine_new_action = QAction(self.tr("Mine (bought new)"), self)
        self.mine_used_action = QAction(self.tr("Mine (bought used)"), self)
        menu.addAction(self.mine_new_action)
        menu.addAction(self.mine_used_action)
        self.mark_mine_button.setMenu(menu)
        self.not_mine_button = QPushButton(self.tr("Not mine"))
        self.prices_button = QToolButton()
        self.prices_button.setText(self.tr("Prices"))
        self.prices_button.setToolTip(self.tr(
            "Your own prices (a CSV with the columns card, date, amount, currency, condition, "
            "kind, source) and the merged price history"))
        self.prices_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        prices_menu = QMenu(self.prices_button)
        self.import_prices_action = QAction(self.tr("Import prices…"), self)
        self.export_prices_action = QAction(self.tr("Export the price history…"), self)
        self.remove_prices_action = QAction(self.tr("Remove my prices"), self)
        self.remove_prices_action.setToolTip(self.tr(
            "Delete the prices you imported or entered; the shipped history stays"))
        for act in (self.import_prices_action, self.export_prices_action,
                    self.remove_prices_action):
            prices_menu.addAction(act)
        self.prices_button.setMenu(prices_menu)
        self.count_label = QLabel()
        actions = QHBoxLayout()
        for w in (self.compare_button, self.edit_price_button, self.add_card_button,
                  self.mark_mine_button, self.not_mine_button, self.prices_button):
            actions.addWidget(w)
        actions.addStretch(1)
        actions.addWidget(self.count_label)
        return actions

    def _build_table(self) -> None:
        """The cards, sortable, filtered by the proxy."""
        self.model = CatalogTableModel(self)
        self.proxy = CatalogFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.table = row_table(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # catalog order to start
        self.table.setSelectionMode(QTableView.SelectionMode.ExtendedSelection)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)

    def _build_details(self) -> QWidget:
        """The selected card's details and its price history (chart and table)."""
        self.details_title = QLabel()
        self.details_title.setWordWrap(True)
        self.details_browser = QTextBrowser()
        self.details_browser.setOpenExternalLinks(True)
        self.price_model = PriceHistoryTableModel(self)
        self.price_table = QTableView()
        self.price_table.setModel(self.price_model)
        self.price_table.verticalHeader().setVisible(False)
        # The source (publisher, page, date) wraps so it can be read in full.
        self.price_table.setWordWrap(True)
        self.price_table.horizontalHeader().setStretchLastSection(True)
        self.price_table.horizontalHeader().sectionResized.connect(
            lambda *_: self.price_table.resizeRowsToContents())
        self.price_table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.price_chart = PriceHistoryChart()
        self.price_tabs = QTabWidget()
        self.price_tabs.addTab(self.price_chart, self.tr("Chart"))
        self.price_tabs.addTab(self.price_table, self.tr("Table"))
        self.price_tabs.setDocumentMode(True)
        self.unmatched_label = QLabel()
        self.unmatched_label.setWordWrap(True)
        self.unmatched_label.setStyleSheet("color: gray;")
        self.unmatched_label.setVisible(False)
        details = QWidget()
        d = QVBoxLayout(details)
        d.setContentsMargins(0, 0, 0, 0)
        d.addWidget(self.details_title)
        d.addWidget(self.details_browser, 2)
        d.addWidget(QLabel("<b>" + self.tr("Price history") + "</b>"))
        d.addWidget(self.price_tabs, 3)
        d.addWidget(self.unmatched_label)
        details.setMinimumWidth(320)
        return details

    def _wire(self) -> None:
        self.search_edit.textChanged.connect(self._on_filters_changed)
        self.architecture_combo.currentIndexChanged.connect(self._on_filters_changed)
        self.segment_combo.currentIndexChanged.connect(self._on_filters_changed)
        self.min_memory_spin.valueChanged.connect(self._on_filters_changed)
        self.mine_only_check.toggled.connect(self._on_filters_changed)
        self.compare_button.clicked.connect(self._on_compare_clicked)
        self.edit_price_button.clicked.connect(self._on_edit_price_clicked)
        self.add_card_button.clicked.connect(self._on_add_card_clicked)
        self.mark_mine_button.clicked.connect(self._on_mark_mine_new)
        self.mine_new_action.triggered.connect(self._on_mark_mine_new)
        self.mine_used_action.triggered.connect(self._on_mark_mine_used)
        self.not_mine_button.clicked.connect(self._on_not_mine_clicked)
        self.import_prices_action.triggered.connect(self._on_import_prices)
        self.export_prices_action.triggered.connect(self._on_export_prices)
        self.remove_prices_action.triggered.connect(self._on_remove_prices)
        self.table.selectionModel().selectionChanged.connect(self._on_selection_changed)
        self.table.selectionModel().currentRowChanged.connect(self._on_current_row_changed)
        self.proxy.rowsInserted.connect(self._update_count)
        self.proxy.rowsRemoved.connect(self._update_count)
        self.proxy.modelReset.connect(self._update_count)
        self.proxy.layoutChanged.connect(self._update_count)

    # ---- public API ------------------------------------------------------------------------
    @property
    def catalog(self) -> Catalog:
        return self._catalog

    @property
    def notices(self) -> list[str]:
        """Notices shown in the banner (kept until dismissed, even after a reload)."""
        return list(self._notices)

    def add_notices(self, notices) -> None:
        """Show notices that came with a catalog loaded before this pane existed (a corrupt
        overrides file set aside at start-up: the pane's own reload no longer sees it)."""
        for n in notices:
            if n not in self._notices:
                self._notices.append(n)
        self._update_banner()

    def visible_names(self) -> list[str]:
        return [self.proxy.index(i, 0).data(CARD_ROLE).name
                for i in range(self.proxy.rowCount())]

    def selected_names(self) -> list[str]:
        rows = sorted(self.table.selectionModel().selectedRows(), key=lambda i: i.row())
        return [i.data(CARD_ROLE).name for i in rows]

    def select_cards(self, names: Sequence[str]) -> None:
        """Select these cards (the first becomes current and shows its details)."""
        sel = self.table.selectionModel()
        selection = QItemSelection()
        first: QModelIndex | None = None
        for name in names:
            src = self.model.row_of(name)
            if src < 0:
                spec = self._catalog.by_name(name)
                src = self.model.row_of(spec.name) if spec else -1
            if src < 0:
                continue
            idx = self.proxy.mapFromSource(self.model.index(src, 0))
            if not idx.isValid():
                continue
            selection.select(idx, idx.siblingAtColumn(self.proxy.columnCount() - 1))
            first = first or idx
        flags = (sel.SelectionFlag.ClearAndSelect | sel.SelectionFlag.Rows)
        sel.select(selection, flags)
        if first is not None:
            sel.setCurrentIndex(first, sel.SelectionFlag.NoUpdate)
            self.table.scrollTo(first)

    @Slot(str)
    def show_card(self, name: str) -> None:
        """Show one card (e.g. double-clicked in the fit table); clears filters hiding it."""
        spec = self._catalog.by_name(name)
        if spec is None:
            return
        if self.proxy.mapFromSource(self.model.index(self.model.row_of(spec.name), 0)) \
                .isValid() is False:
            self.search_edit.clear()
            self.architecture_combo.setCurrentIndex(0)
            self.segment_combo.setCurrentIndex(0)
            self.min_memory_spin.setValue(0)
            self.mine_only_check.setChecked(False)
        self.select_cards([spec.name])

    def reload(self) -> Catalog:
        """Load the catalog again (overrides merged), show it and emit ``catalog_changed``."""
        catalog = self._loader()
        selected = self.selected_names()
        self._show_catalog(catalog)
        if selected:
            self.select_cards(selected)
        if self.compare_dialog is not None and self.compare_dialog.isVisible():
            cards = [catalog.by_name(c.name) for c in self.compare_dialog.model.cards]
            self.compare_dialog.set_cards([c for c in cards if c is not None], catalog)
        self.catalog_changed.emit(catalog)
        return catalog

    def compare(self, names: Sequence[str]) -> CompareDialog | None:
        """Open (or refill) the side-by-side comparison of two to four cards."""
        cards = [c for c in (self._catalog.by_name(n) for n in names) if c is not None]
        if not 2 <= len(cards) <= MAX_COMPARE:
            self._say(self.tr("Select two to four cards to compare."), error=True)
            return None
        if self.compare_dialog is None:
            self.compare_dialog = CompareDialog(cards, self._catalog, self)
        else:
            self.compare_dialog.set_cards(cards, self._catalog)
        self.compare_dialog.show()
        self.compare_dialog.raise_()
        return self.compare_dialog

    def edit_price(self, name: str | None = None) -> bool:
        """Ask for a price of the user's own for the card (default: the current one)."""
        spec = self._card_or_current(name)
        if spec is None:
            return False
        dialog = PriceDialog(spec, self._catalog, self)
        try:
            if not self.dialog_runner(dialog):
                return False
            point = dialog.price_point()
        finally:
            dialog.deleteLater()
        return point is not None and self.apply_price(spec.name, point)

    def apply_price(self, name: str, point: PricePoint) -> bool:
        try:
            set_user_price(name, point, self.overrides_path)
        except (OSError, CatalogError) as exc:
            self._say(arg(self.tr("Could not save the price: %1"), str(exc)), error=True)
            return False
        self.reload()
        self._say(arg(self.tr("Saved your price for %1: $%2 %3 (%4)."),
                      name, f"{point.usd:,.0f}", self.tr(point.condition), point.date))
        return True

    def import_prices(self, path: str | None = None) -> bool:
        """Add the user's own prices from a CSV (asks for the file); says what was taken."""
        path = path if path is not None else self.open_file_chooser()
        if not path:
            return False
        cat = self._catalog

        def match(name: str) -> str | None:
            spec = cat.by_name(name)
            return spec.name if spec is not None else None

        try:
            res = prices_mod.import_prices(path, match, cat.user_prices_path,
                                           known=cat.price_book().all_observations())
        except (OSError, prices_mod.PriceFileError) as exc:
            self._say(arg(self.tr("Could not import the prices: %1"), exc_text(exc)),
            error=True)
            return False
        self.reload()
        text = arg(self.tr("Imported %1 prices (%2 already known)."),
                   str(res.added), str(res.duplicates))
        if res.problems:
            text += " " + arg(self.tr("Rows not imported: %1; the first: %2"),
                              str(len(res.problems)), str(res.problems[0]))
        self._say(text, error=bool(res.problems))
        return True

    def export_prices(self, path: str | None = None) -> bool:
        """Write the merged price history (shipped, the catalog's, the user's) to a CSV."""
        path = path if path is not None else self.save_file_chooser()
        if not path:
            return False
        obs = self._catalog.price_book().all_observations()
        try:
            prices_mod.export_prices(obs, path)
        except OSError as exc:
            self._say(arg(self.tr("Could not export the prices: %1"), str(exc)),
                      error=True)
            return False
        self._say(arg(self.tr("Wrote %1 prices to %2."), str(len(obs)), str(path)))
        return True

    def remove_imported_prices(self) -> bool:
        """Delete the user's own prices, imported and entered (the shipped history stays)."""
        try:
            n = prices_mod.remove_user_prices(self._catalog.user_prices_path)
            m = clear_entered_prices(self.overrides_path)
        except (OSError, CatalogError) as exc:
            self._say(arg(self.tr("Could not remove your prices: %1"), str(exc)),
                      error=True)
            return False
        self.reload()
        self._say(arg(self.tr("Removed %1 of your prices (%2 imported, %3 entered)."),
                      str(n + m), str(n), str(m)))
        return n + m > 0

    def add_custom_card(self) -> bool:
        """Ask for a custom card and store it."""
        dialog = CustomCardDialog(self._catalog, self)
        try:
            if not self.dialog_runner(dialog):
                return False
            spec = dialog.spec()
        finally:
            dialog.deleteLater()
        return spec is not None and self.apply_custom_card(spec)

    def apply_custom_card(self, spec: GpuSpec) -> bool:
        try:
            add_custom_card(spec, self.overrides_path)
        except (OSError, CatalogError) as exc:
            self._say(arg(self.tr("Could not save the card: %1"), str(exc)), error=True)
            return False
        self.reload()
        self.show_card(spec.name)
        self._say(arg(self.tr("Added your card %1."), spec.name))
        return True

    def mark_owned(self, names: Sequence[str], condition: str = "new") -> bool:
        names = [n for n in names if n]
        if not names:
            return False
        keys = {n.casefold() for n in names}
        owned = [o for o in self._catalog.owned if o.name.casefold() not in keys]
        owned += [OwnedCard(name=n, condition=condition) for n in names]
        return self._save_owned(owned, arg(self.tr("Marked as yours: %1."), ", ".join(names)))

    def unmark_owned(self, names: Sequence[str]) -> bool:
        keys = {n.casefold() for n in names}
        owned = [o for o in self._catalog.owned if o.name.casefold() not in keys]
        if len(owned) == len(self._catalog.owned):
            return False
        return self._save_owned(owned, arg(self.tr("No longer marked as yours: %1."),
                                           ", ".join(names)))

    @Slot(object)
    def show_details(self, card: GpuSpec | None) -> None:
        if card is None:
            self.details_title.setText("<i>" + self.tr("Select a card to see its details.")
                                       + "</i>")
            self.details_browser.clear()
            self.price_model.set_points(())
            self.price_chart.set_card(None, None)
            return
        cat = self._catalog
        mine = next((o for o in cat.owned if o.name == card.name), None)
        title = f"<h3 style='margin:0'>{html.escape(card.name)}</h3>"
        if mine is not None:
            title += "<b>" + OWNED_MARKER + " " + html.escape(
                arg(self.tr("Yours (bought %1)"), self.tr(mine.condition))) + "</b>"
        if card.custom:
            title += " <i>" + html.escape(self.tr("a card you added")) + "</i>"
        self.details_title.setText(title)
        rows = []
        for label, text, _value in card_fields():
            rows.append(f"<tr><td style='color:gray; padding-right:10px'>{html.escape(label)}"
                        f"</td><td>{html.escape(text(card, cat))}</td></tr>")
        extra = []
        _status, reason = software_support(card.compute_capability)
        extra.append((self.tr("Software support"), tr_msg(reason)))
        if card.aliases:
            extra.append((self.tr("Also called"), ", ".join(card.aliases)))
        if card.nvml_names:
            extra.append((self.tr("Names NVML reports"), ", ".join(card.nvml_names)))
        if card.variant_of:
            extra.append((self.tr("Variant of"), card.variant_of))
        if card.quirks:
            extra.append((self.tr("Quirks"), "; ".join(f"{k}: {v}"
                                                      for k, v in card.quirks.items())))
        if card.notes:
            extra.append((self.tr("Notes"), card.notes))
        extra.append((self.tr("Source"), card.source or "—"))
        body = "<table cellspacing='0' cellpadding='1'>" + "".join(rows) + "</table>"
        for label, text in extra:
            body += f"<p><b>{html.escape(label)}:</b> {html.escape(str(text))}</p>"
        self.details_browser.setHtml(body)
        self.price_model.set_points(cat.price_history(card))
        self.price_chart.set_card(cat, card)
        for col in range(self.price_model.columnCount() - 1):
            self.price_table.resizeColumnToContents(col)
        self.price_table.resizeRowsToContents()

    # ---- internals ---------------------------------------------------------------------------
    def _card_or_current(self, name: str | None) -> GpuSpec | None:
        if name is not None:
            return self._catalog.by_name(name)
        idx = self.table.selectionModel().currentIndex()
        if not idx.isValid():
            names = self.selected_names()
            return self._catalog.by_name(names[0]) if names else None
        return idx.data(CARD_ROLE)

    def _show_catalog(self, catalog: Catalog) -> None:
        self._catalog = catalog
        book = catalog.price_book()  # read here, when the pane is first shown, not at start-up
        for n in (*catalog.notices, *(tr_msg(x) for x in book.notices)):
            if n not in self._notices:
                self._notices.append(n)
        unmatched = book.unmatched
        self.unmatched_label.setText(arg(self.tr(
                "Price rows not used (they name no single catalog card): %1."),
                                         str(len(unmatched))))
        self.unmatched_label.setToolTip("\n".join(str(p) for p in unmatched[:12]) + (
            "\n…" if len(unmatched) > 12 else "") + "\n" + self.tr(
            "gpu-planner catalog --price-coverage lists them all."))
        self.unmatched_label.setVisible(bool(unmatched))
        self.model.set_catalog(catalog)
        self._update_banner()
        self._update_count()
        current = self.table.selectionModel().currentIndex()
        self.show_details(current.data(CARD_ROLE) if current.isValid() else None)

    def _update_banner(self) -> None:
        if not self._notices:
            self.banner.setVisible(False)
            self.banner_label.clear()
            return
        items = "".join(f"<li>{html.escape(n)}</li>" for n in self._notices)
        self.banner_label.setText("<b>" + html.escape(self.tr("About your catalog data:"))
                                  + f"</b><ul style='margin:0'>{items}</ul>")
        self.banner.setVisible(True)

    def _save_owned(self, owned: list[OwnedCard], message: str) -> bool:
        try:
            set_owned_cards(owned, self.overrides_path)
        except (OSError, CatalogError) as exc:
            self._say(arg(self.tr("Could not save your cards: %1"), str(exc)),
                      error=True)
            return False
        self.reload()
        self._say(message)
        return True

    def _say(self, text: str, *, error: bool = False) -> None:
        self.message_label.setStyleSheet("color: #b00000;" if error else "")
        self.message_label.setText(text)
        self.message_label.setVisible(bool(text))

    def _update_buttons(self) -> None:
        names = self.selected_names()
        n = len(names)
        self.compare_button.setEnabled(2 <= n <= MAX_COMPARE)
        self.edit_price_button.setEnabled(n >= 1)
        self.mark_mine_button.setEnabled(n >= 1)
        self.not_mine_button.setEnabled(any(self._catalog.is_owned(x) for x in names))

    @Slot()
    def _update_count(self) -> None:
        self.count_label.setText(arg(self.tr("%1 of %2 cards"),
                                     str(self.proxy.rowCount()), str(self.model.rowCount())))

    @Slot()
    def _on_filters_changed(self) -> None:
        self.proxy.set_filters(
            search=self.search_edit.text(),
            architecture=self.architecture_combo.currentData(),
            segment=self.segment_combo.currentData(),
            min_memory_gib=self.min_memory_spin.value(),
            owned_only=self.mine_only_check.isChecked())
        self._update_count()

    @Slot(QItemSelection, QItemSelection)
    def _on_selection_changed(self, _selected, _deselected) -> None:
        self._update_buttons()

    @Slot(QModelIndex, QModelIndex)
    def _on_current_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        card = current.data(CARD_ROLE) if current.isValid() else None
        self.show_details(card)
        if card is not None:
            self.card_selected.emit(card.name)

    @Slot()
    def _on_dismiss_banner(self) -> None:
        self._notices.clear()
        self._update_banner()

    @Slot()
    def _on_compare_clicked(self) -> None:
        self.compare(self.selected_names())

    @Slot()
    def _on_edit_price_clicked(self) -> None:
        self.edit_price()

    @Slot()
    def _on_add_card_clicked(self) -> None:
        self.add_custom_card()

    @Slot()
    def _on_mark_mine_new(self) -> None:
        self.mark_owned(self.selected_names(), "new")

    @Slot()
    def _on_mark_mine_used(self) -> None:
        self.mark_owned(self.selected_names(), "used")

    @Slot()
    def _on_not_mine_clicked(self) -> None:
        self.unmark_owned(self.selected_names())

    @Slot()
    def _on_import_prices(self) -> None:
        self.import_prices()

    @Slot()
    def _on_export_prices(self) -> None:
        self.export_prices()

    @Slot()
    def _on_remove_prices(self) -> None:
        self.remove_imported_prices()
