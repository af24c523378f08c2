"""The Advisor pane: what to buy, what to sell, and why — with the numbers behind every sentence.

Left: the inputs — the use-case profile (its description, its assumptions, and its memory need,
budget and price weight as editable overrides), the cards owned (detected by the monitor, or added
by hand and saved with the catalog overrides), the price basis and the "prices as of" month (any
month back to 2012: the time machine), the Planner's plan, running cost and rent-vs-buy inputs,
and the advisor's own assumptions in a collapsible group. Right: the ranked recommendations as
cards with their reasons and numbers, the notes, and a chart of the options (net cost against
speed, the user's cards marked).

Every input change schedules one recompute (``core.advisor.advise`` takes ~5–30 ms): on the next
turn of the event loop, or 100 ms after the last change when the previous run took longer than a
frame. While the pane is hidden nothing is computed; it catches up when shown. Bad input never
raises: its message is shown where the notes go.
"""

from __future__ import annotations

import logging
import time
from dataclasses import fields, replace

import shiboken6
from PySide6.QtCore import QDate, QSignalBlocker, QSize, Qt, QTimer, Signal, Slot
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QCompleter,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from planner.core.advisor import (
    PROFILES,
    Advice,
    AdvisorAssumptions,
    AdvisorInputs,
    Profile,
    advise,
    get_profile,
)
from planner.core.catalog import Catalog, CatalogError, OwnedCard, set_owned_cards
from planner.core.memory import Assumptions
from planner.units import GIB
from planner.ui.monthedit import MonthEdit
from planner.ui.advisor.cards import RecommendationList
from planner.ui.advisor.chart import OptionsChart
from planner.ui.advisor.models import OwnedCardsTableModel
from planner.i18n import QT_TRANSLATE_NOOP
from planner.ui.i18n import arg, exc_text, tr_core, tr_msg

log = logging.getLogger(__name__)

_ERROR_STYLE = "color: #a00000;"
FIRST_MONTH = QDate(2012, 1, 1)  # the time machine goes back this far
DEFAULT_PROFILE = "starting"

# The advisor assumptions' labels and tooltips; a field not listed here still gets an editor.
# Marked for translation in the pane's context (the labels are shown with self.tr).
_ASSUMPTION_TEXT = {
    "stale_price_months": (
        QT_TRANSLATE_NOOP("AdvisorPane", "Price stale after (months)"),
        QT_TRANSLATE_NOOP("AdvisorPane",
                          "A price older than this is not taken as the price at the chosen month;"
                          " the card is left out.")),
    "prefer_sold_months": (
        QT_TRANSLATE_NOOP("AdvisorPane", "Sold price preferred within (months)"),
        QT_TRANSLATE_NOOP("AdvisorPane",
                          "A sold price up to this many months older than the newest asking or "
                          "list price is taken instead: what cards sold for beats what sellers "
                          "ask.")),
    "min_speedup": (
        QT_TRANSLATE_NOOP("AdvisorPane", "Minimum speed-up worth buying (×)"),
        QT_TRANSLATE_NOOP("AdvisorPane",
                          "Below this speed-up over your best card, the advice is to keep it.")),
    "legacy_factor": (
        QT_TRANSLATE_NOOP("AdvisorPane", "Score factor, legacy software support"),
        QT_TRANSLATE_NOOP("AdvisorPane",
                          "Score multiplier for cards current software supports only through "
                          "legacy builds.")),
    "unsupported_factor": (
        QT_TRANSLATE_NOOP("AdvisorPane", "Score factor, no current support"),
        QT_TRANSLATE_NOOP("AdvisorPane",
                          "Score multiplier for cards current CUDA and PyTorch no longer "
                          "support.")),
    "average_load": (
        QT_TRANSLATE_NOOP("AdvisorPane", "Average load (share of TDP)"),
        QT_TRANSLATE_NOOP("AdvisorPane",
                          "The share of its TDP a card draws while training (running cost).")),
    "two_gpu_speedup": (
        QT_TRANSLATE_NOOP("AdvisorPane", "Two-GPU speed-up (×)"),
        QT_TRANSLATE_NOOP("AdvisorPane",
                          "How much faster two cards train one network than one (the article: "
                          "four give 2.5–3.8×).")),
    "top": (
        QT_TRANSLATE_NOOP("AdvisorPane", "Recommendations shown"),
        QT_TRANSLATE_NOOP("AdvisorPane",
                          "How many cards to buy are listed at most.")),
}


class _Column(QWidget):
    """A scroll area's content whose height follows its width: wrapped labels report a tall
    minimum (as if squeezed to their narrowest), which QScrollArea would otherwise honour and
    spread as blank space between the cards."""

    def minimumSizeHint(self) -> QSize:
        return QSize(super().minimumSizeHint().width(), 0)


def _month(date: QDate) -> str:
    return date.toString("yyyy-MM")


class AdvisorPane(QWidget):
    """The Advisor pane.

    Public API: ``set_catalog(catalog)``, ``set_plan(plan)`` (a computed PlanResult, or None),
    ``set_detected_cards(names)``, ``set_assumptions(assumptions)`` (the estimate's memory and
    speed assumptions, as the Planner uses), ``set_profile(key)``, ``set_as_of("YYYY-MM")``,
    ``add_owned_card(name, condition)``, ``advice`` (the last Advice, or None),
    ``pending`` (a recompute is scheduled).
    """

    advice_changed = Signal(object)  # the new Advice, or None when the input was bad
    owned_cards_changed = Signal(object)  # tuple[OwnedCard]: the hand-added cards, saved
    status_changed = Signal(str)  # one line: the top recommendation, or why there is none

    def __init__(self, catalog: Catalog, parent: QWidget | None = None, *,
                 assumptions: Assumptions | None = None, overrides_path=None):
        super().__init__(parent)
        self.setObjectName("advisor_pane")
        self._catalog = catalog
        self._assumptions = assumptions or Assumptions()
        self._overrides_path = overrides_path  # None: the user's file (under PLANNER_HOME)
        self._plan = None
        self._detected_names: list[str] = []
        self._advice: Advice | None = None
        self._error = ""
        self._status_line = ""
        self._dirty = True
        self._last_compute_s = 0.0
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._on_recompute)
        self._build_ui()
        self._owned_model.set_cards(self._known_owned(catalog.owned), ())
        self._on_profile_changed()
        self._update_memory_rule()

    # ------------------------------------------------------------------------------------------
    # Construction
    # ------------------------------------------------------------------------------------------
    def _build_ui(self) -> None:
        outer = QHBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.setChildrenCollapsible(False)
        outer.addWidget(split)

        inputs = QWidget()
        left = QVBoxLayout(inputs)
        left.setContentsMargins(4, 4, 8, 4)
        left.addWidget(self._build_profile_group())
        left.addWidget(self._build_owned_group())
        left.addWidget(self._build_prices_group())
        left.addWidget(self._build_running_group())
        left.addWidget(self._build_assumptions_group())
        left.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(inputs)
        scroll.setMinimumWidth(340)
        split.addWidget(scroll)

        right = QSplitter(Qt.Orientation.Vertical)
        right.setChildrenCollapsible(False)
        results = _Column()
        rbox = QVBoxLayout(results)
        rbox.setContentsMargins(8, 4, 4, 4)
        self.heading = QLabel()
        font = self.heading.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.2)
        self.heading.setFont(font)
        self.heading.setWordWrap(True)
        rbox.addWidget(self.heading)
        self.recommendations = RecommendationList()
        rbox.addWidget(self.recommendations)
        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet(_ERROR_STYLE)
        self.error_label.setTextFormat(Qt.TextFormat.PlainText)
        self.error_label.setVisible(False)
        rbox.addWidget(self.error_label)
        self.notes_label = QLabel()
        self.notes_label.setWordWrap(True)
        self.notes_label.setTextFormat(Qt.TextFormat.PlainText)
        self.notes_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        rbox.addWidget(self.notes_label)
        rbox.addStretch(1)
        rscroll = QScrollArea()
        rscroll.setWidgetResizable(True)
        rscroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        rscroll.setFrameShape(QFrame.Shape.NoFrame)
        rscroll.setWidget(results)
        right.addWidget(rscroll)
        self.chart = OptionsChart()
        right.addWidget(self.chart)
        right.setStretchFactor(0, 3)
        right.setStretchFactor(1, 2)
        right.setSizes([560, 340])
        split.addWidget(right)
        split.setStretchFactor(0, 0)
        split.setStretchFactor(1, 1)
        split.setSizes([400, 900])

    def _build_profile_group(self) -> QGroupBox:
        group = QGroupBox(self.tr("Use case"))
        form = QFormLayout(group)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.profile_combo = QComboBox()
        for p in PROFILES:
            self.profile_combo.addItem(tr_core(p.title), p.key)
            self.profile_combo.setItemData(self.profile_combo.count() - 1, tr_core(p.description),
                                           Qt.ItemDataRole.ToolTipRole)
        self.profile_combo.setCurrentIndex(self.profile_combo.findData(DEFAULT_PROFILE))
        self.profile_combo.currentIndexChanged.connect(self._on_profile_changed)
        form.addRow(self.tr("Profile"), self.profile_combo)
        self.profile_description = QLabel()
        self.profile_description.setWordWrap(True)
        form.addRow(self.profile_description)
        self.memory_spin = QDoubleSpinBox()
        self.memory_spin.setRange(0.5, 512)
        self.memory_spin.setDecimals(1)
        self.memory_spin.setSingleStep(1)
        self.memory_spin.setSuffix(self.tr(" GB"))
        self.memory_spin.setToolTip(self.tr("The memory the work needs (without a plan). With "
                                            "your plan, its own estimated peak is used."))
        form.addRow(self.tr("Memory needed"), self.memory_spin)
        # What decides the memory, said next to the figure: the profile's GB, or (with "Use
        # my plan") the plan's estimated peak, and then the GB above is greyed out.
        self.memory_rule_label = QLabel()
        self.memory_rule_label.setObjectName("memory_rule")
        self.memory_rule_label.setWordWrap(True)
        self.memory_rule_label.setStyleSheet("color: palette(dark);")
        form.addRow(self.memory_rule_label)
        self.budget_spin = QDoubleSpinBox()
        self.budget_spin.setRange(0, 1_000_000)
        self.budget_spin.setDecimals(0)
        self.budget_spin.setSingleStep(50)
        self.budget_spin.setPrefix("$")
        self.budget_spin.setSpecialValueText(self.tr("no limit"))
        self.budget_spin.setToolTip(self.tr("The most the purchase may cost, net of what the "
                                            "replaced card fetches used; 0 = no limit."))
        form.addRow(self.tr("Budget (USD)"), self.budget_spin)
        self.price_weight_spin = QDoubleSpinBox()
        self.price_weight_spin.setRange(0, 2)
        self.price_weight_spin.setDecimals(2)
        self.price_weight_spin.setSingleStep(0.05)
        self.price_weight_spin.setToolTip(self.tr("1 = speed per dollar, 0 = speed regardless "
                                                  "of price."))
        form.addRow(self.tr("Price weight"), self.price_weight_spin)
        self.several_check = QCheckBox(self.tr("Several GPUs are an option"))
        self.several_check.setToolTip(self.tr("Also consider two of each card."))
        form.addRow(self.several_check)
        self.profile_assumptions = QLabel()
        self.profile_assumptions.setWordWrap(True)
        self.profile_assumptions.setStyleSheet("color: palette(dark);")
        form.addRow(self.profile_assumptions)
        self.reset_profile_button = QPushButton(self.tr("Reset to the profile's values"))
        self.reset_profile_button.clicked.connect(self._on_reset_profile)
        form.addRow(self.reset_profile_button)
        for spin in (self.memory_spin, self.budget_spin, self.price_weight_spin):
            spin.valueChanged.connect(self._on_override_changed)
        self.several_check.toggled.connect(self._on_override_changed)
        return group

    def _build_owned_group(self) -> QGroupBox:
        group = QGroupBox(self.tr("Cards you own"))
        box = QVBoxLayout(group)
        self._owned_model = OwnedCardsTableModel(self)
        self.owned_model = self._owned_model
        self.owned_view = QTableView()
        self.owned_view.setModel(self._owned_model)
        self.owned_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.owned_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.owned_view.verticalHeader().setVisible(False)
        header = self.owned_view.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in (1, 2, 3):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.owned_view.setMinimumHeight(70)
        self.owned_view.setMaximumHeight(130)
        self.owned_view.setSizeAdjustPolicy(QAbstractItemView.SizeAdjustPolicy.AdjustToContents)
        self.owned_view.selectionModel().selectionChanged.connect(self._on_owned_selection)
        box.addWidget(self.owned_view)
        self.card_combo = QComboBox()
        self.card_combo.setEditable(True)
        self.card_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.card_combo.lineEdit().setPlaceholderText(self.tr("Search the catalog…"))
        self.card_combo.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.card_combo.setMinimumContentsLength(12)
        self.card_combo.lineEdit().returnPressed.connect(self._on_add_owned)
        self.card_combo.setToolTip(self.tr("Type part of a name (e.g. 1080 Ti) to find a card."))
        box.addWidget(self.card_combo)
        row = QHBoxLayout()
        row.addWidget(QLabel(self.tr("Bought")))
        self.condition_combo = QComboBox()
        self.condition_combo.addItem(self.tr("used"), "used")
        self.condition_combo.addItem(self.tr("new"), "new")
        row.addWidget(self.condition_combo)
        row.addStretch(1)
        self.add_button = QPushButton(self.tr("Add"))
        self.add_button.clicked.connect(self._on_add_owned)
        row.addWidget(self.add_button)
        self.remove_button = QPushButton(self.tr("Remove"))
        self.remove_button.setEnabled(False)
        self.remove_button.clicked.connect(self._on_remove_owned)
        row.addWidget(self.remove_button)
        box.addLayout(row)
        self.owned_message = QLabel()
        self.owned_message.setWordWrap(True)
        self.owned_message.setStyleSheet(_ERROR_STYLE)
        self.owned_message.setVisible(False)
        box.addWidget(self.owned_message)
        self._fill_card_combo()
        return group

    def _build_prices_group(self) -> QGroupBox:
        group = QGroupBox(self.tr("Prices and workload"))
        form = QFormLayout(group)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.price_basis_combo = QComboBox()
        self.price_basis_combo.addItem(self.tr("new or used, whichever is cheaper"), "both")
        self.price_basis_combo.addItem(self.tr("new only"), "new")
        self.price_basis_combo.addItem(self.tr("used only"), "used")
        self.price_basis_combo.currentIndexChanged.connect(self._schedule)
        form.addRow(self.tr("Price basis"), self.price_basis_combo)
        row = QHBoxLayout()
        self.as_of_edit = MonthEdit()  # takes a typed "2017-03" (QDateEdit does not)
        self.as_of_edit.setDisplayFormat("yyyy-MM")
        self.as_of_edit.setCalendarPopup(False)
        self.as_of_edit.setMinimumDate(FIRST_MONTH)
        today = QDate.currentDate()
        self.as_of_edit.setMaximumDate(QDate(today.year(), today.month(), 28))
        self.as_of_edit.setDate(QDate(today.year(), today.month(), 1))
        self.as_of_edit.setToolTip(self.tr("The month the prices are taken at: the prices, the "
                                           "cards on sale and their software support as they "
                                           "were then (back to 2012)."))
        self.as_of_edit.dateChanged.connect(self._schedule)
        # the profile's workload depends on the date (planner.core.eras)
        self.as_of_edit.dateChanged.connect(self._on_as_of_changed)
        row.addWidget(self.as_of_edit, 1)
        self.this_month_button = QPushButton(self.tr("This month"))
        self.this_month_button.clicked.connect(self._on_this_month)
        row.addWidget(self.this_month_button)
        form.addRow(self.tr("Prices as of"), row)
        self.use_plan_check = QCheckBox(self.tr("Use my plan (none drafted)"))
        self.use_plan_check.setEnabled(False)
        self.use_plan_check.setToolTip(self.tr("Judge fit and speed on the Planner's network at "
                                               "its batch size and precision instead of the "
                                               "profile's reference workload."))
        self.use_plan_check.toggled.connect(self._schedule)
        self.use_plan_check.toggled.connect(self._update_memory_rule)
        form.addRow(self.use_plan_check)
        return group

    def plan_used(self) -> bool:
        return self._plan is not None and self.use_plan_check.isChecked()

    @Slot()
    def _update_memory_rule(self, *_args) -> None:
        """The memory rule in words: a card qualifies when it has the profile's GB, or, with
        the plan, when the plan's estimated peak fits its usable memory."""
        if not hasattr(self, "memory_rule_label"):
            return
        used = self.plan_used()
        self.memory_spin.setEnabled(not used)
        self._update_profile_text()
        if used:
            need = getattr(self._advice, "needed_bytes", None) if self._advice else None
            peak = f"{need / GIB:.1f} GiB" if need else self.tr("its estimated peak")
            self.memory_rule_label.setText(arg(self.tr(
                    "Using your plan: a card qualifies when the plan's peak (%1, CUDA context "
                    "included) fits its usable memory; the %2 GB above is not used."),
                                               peak, f"{self.memory_spin.value():g}"))
        else:
            self.memory_rule_label.setText(self.tr(
                "A card qualifies when it has at least this much memory."))

    def _build_running_group(self) -> QGroupBox:
        group = QGroupBox(self.tr("Running cost and renting"))
        form = QFormLayout(group)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.electricity_spin = QDoubleSpinBox()
        self.electricity_spin.setRange(0, 5)
        self.electricity_spin.setDecimals(3)
        self.electricity_spin.setSingleStep(0.01)
        self.electricity_spin.setPrefix("$")
        self.electricity_spin.setSuffix(self.tr(" /kWh"))
        self.electricity_spin.setSpecialValueText(self.tr("not set"))
        self.electricity_spin.setToolTip(self.tr("Your electricity price: each card's power "
                                                 "cost per year; 0 = not set."))
        form.addRow(self.tr("Electricity"), self.electricity_spin)
        self.hours_spin = QDoubleSpinBox()
        self.hours_spin.setRange(0.5, 24)
        self.hours_spin.setDecimals(1)
        self.hours_spin.setSingleStep(1)
        self.hours_spin.setValue(8)
        self.hours_spin.setSuffix(self.tr(" h/day"))
        self.hours_spin.setToolTip(self.tr("Hours a day the card trains (running cost and "
                                           "rent vs buy)."))
        form.addRow(self.tr("Training time"), self.hours_spin)
        self.cloud_spin = QDoubleSpinBox()
        self.cloud_spin.setRange(0, 200)
        self.cloud_spin.setDecimals(2)
        self.cloud_spin.setSingleStep(0.1)
        self.cloud_spin.setPrefix("$")
        self.cloud_spin.setSuffix(self.tr(" /hour"))
        self.cloud_spin.setSpecialValueText(self.tr("dated rental prices"))
        self.cloud_spin.setToolTip(self.tr(
            "Renting instead of buying. At 0 the advisor uses the dated rental prices it "
            "knows as of the chosen month (the cheapest and the median per GPU-hour, with the "
            "provider and date) for the card or for one that does the same work; type a rate "
            "to use your own instead."))
        form.addRow(self.tr("Rent (per GPU-hour)"), self.cloud_spin)
        self.rent_info_label = QLabel()
        self.rent_info_label.setWordWrap(True)
        self.rent_info_label.setStyleSheet("color: gray;")
        form.addRow(self.rent_info_label)
        for spin in (self.electricity_spin, self.hours_spin, self.cloud_spin):
            spin.valueChanged.connect(self._schedule)
        return group

    def _build_assumptions_group(self) -> QWidget:
        wrap = QWidget()
        box = QVBoxLayout(wrap)
        box.setContentsMargins(0, 0, 0, 0)
        self.assumptions_toggle = QToolButton()
        self.assumptions_toggle.setText(self.tr("Assumptions"))
        self.assumptions_toggle.setCheckable(True)
        self.assumptions_toggle.setChecked(False)
        self.assumptions_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.assumptions_toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.assumptions_toggle.setStyleSheet("QToolButton { border: none; font-weight: bold; }")
        self.assumptions_toggle.toggled.connect(self._on_assumptions_toggled)
        box.addWidget(self.assumptions_toggle)
        self.assumptions_group = QGroupBox()
        form = QFormLayout(self.assumptions_group)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.assumption_editors: dict[str, QSpinBox | QDoubleSpinBox] = {}
        defaults = AdvisorAssumptions()
        for f in fields(AdvisorAssumptions):
            value = getattr(defaults, f.name)
            label, tip = _ASSUMPTION_TEXT.get(
                f.name, (f.name.replace("_", " ").capitalize(), ""))
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                continue
            if isinstance(value, int):
                editor: QSpinBox | QDoubleSpinBox = QSpinBox()
                editor.setRange(1 if f.name == "top" else 0, 10_000)
            else:
                editor = QDoubleSpinBox()
                editor.setRange(0, 1000)
                editor.setDecimals(2)
                editor.setSingleStep(0.05)
            editor.setValue(value)
            editor.setToolTip(self.tr(tip) if tip else "")
            editor.valueChanged.connect(self._schedule)
            self.assumption_editors[f.name] = editor
            form.addRow(self.tr(label), editor)
        reset = QPushButton(self.tr("Reset to defaults"))
        reset.clicked.connect(self._on_reset_assumptions)
        form.addRow(reset)
        self.assumptions_group.setVisible(False)
        box.addWidget(self.assumptions_group)
        return wrap

    def _fill_card_combo(self) -> None:
        text = self.card_combo.currentText()
        with QSignalBlocker(self.card_combo):
            self.card_combo.clear()
            self.card_combo.addItems(sorted(self._catalog.names, key=str.casefold))
            self.card_combo.setCurrentIndex(-1)
            self.card_combo.setEditText(text)
        completer = QCompleter(self.card_combo.model(), self.card_combo)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.card_combo.setCompleter(completer)

    # ------------------------------------------------------------------------------------------
    # Public API
    # ------------------------------------------------------------------------------------------
    @property
    def advice(self) -> Advice | None:
        """The advice shown (None when the input was bad; see ``error``)."""
        return self._advice

    @property
    def error(self) -> str:
        return self._error

    @property
    def status_line(self) -> str:
        """One line for the status bar: the top recommendation shown, or why there is none
        (what ``status_changed`` last sent)."""
        return self._status_line

    @property
    def pending(self) -> bool:
        """A recompute is scheduled (or deferred until the pane is shown)."""
        return self._dirty

    def set_catalog(self, catalog: Catalog) -> None:
        """A new catalog (reloaded, or with the user's prices): its owned cards replace the
        hand-added list, and the detected cards are matched again."""
        self._catalog = catalog
        self._fill_card_combo()
        self._owned_model.set_cards(self._known_owned(catalog.owned), self._detected())
        self._schedule()

    def set_plan(self, plan) -> None:
        """The Planner's current plan, computed (a ``planner.core.plan.PlanResult`` with an
        estimate), or None."""
        self._plan = plan if plan is not None and plan.estimate is not None else None
        name = plan.draft.name if self._plan is not None else None
        self.use_plan_check.setEnabled(self._plan is not None)
        self.use_plan_check.setText(arg(self.tr("Use my plan (%1)"), name) if name
                                    else self.tr("Use my plan (none drafted)"))
        self._update_memory_rule()
        if self.use_plan_check.isChecked() or self._plan is None:
            self._schedule()

    def set_detected_cards(self, names: list[str], simulated: bool = False) -> None:
        """The cards the monitor found (NVML names or catalog names); they count as owned.
        ``simulated``: they come from the simulated source (--demo), and the table says so."""
        self._detected_names = list(names)
        self._owned_model.simulated = bool(simulated)
        self._owned_model.set_cards(self._owned_model.manual, self._detected())
        self._schedule()

    def set_electricity(self, usd_per_kwh: float) -> None:
        """The electricity price the running costs use (from the preferences)."""
        self.electricity_spin.setValue(usd_per_kwh)

    def set_assumptions(self, assumptions: Assumptions) -> None:
        """The estimate's assumptions (memory and speed model), as the Planner uses them."""
        self._assumptions = assumptions
        self._schedule()

    def set_profile(self, key: str) -> None:
        """Choose a profile by key (raises AdvisorError for an unknown one)."""
        get_profile(key)
        self.profile_combo.setCurrentIndex(self.profile_combo.findData(key))

    def set_as_of(self, month: str) -> None:
        """Prices as of ``month`` ("YYYY-MM")."""
        date = QDate.fromString(month + "-01", "yyyy-MM-dd")
        if not date.isValid():
            raise ValueError(f"as-of must be a month YYYY-MM, not {month!r}")
        self.as_of_edit.setDate(date)

    def as_of(self) -> str:
        return _month(self.as_of_edit.date())

    def add_owned_card(self, name: str, condition: str = "used") -> bool:
        """Add a card by hand (and save it); False, with a message shown, if unknown."""
        self.card_combo.setEditText(name)
        self.condition_combo.setCurrentIndex(self.condition_combo.findData(condition))
        return self._add_owned()

    def profile(self) -> Profile:
        """The chosen profile with the user's overrides applied."""
        base = get_profile(self.profile_combo.currentData())
        budget = self.budget_spin.value()
        return replace(base, memory_gib=round(self.memory_spin.value(), 1),
                       budget_usd=budget if budget > 0 else None,
                       price_weight=round(self.price_weight_spin.value(), 2),
                       several_gpus=self.several_check.isChecked())

    def inputs(self) -> AdvisorInputs:
        electricity = self.electricity_spin.value()
        cloud = self.cloud_spin.value()
        plan = self._plan if (self._plan is not None and self.use_plan_check.isChecked()) \
            else None
        return AdvisorInputs(
            profile=self.profile(), owned=self._owned_model.owned(), budget_usd=None,
            price_basis=self.price_basis_combo.currentData(), as_of=self.as_of(), plan=plan,
            electricity_usd_per_kwh=electricity if electricity > 0 else None,
            hours_per_day=self.hours_spin.value(),
            cloud_usd_per_hour=cloud if cloud > 0 else None,
            several_gpus=self.several_check.isChecked())

    def advisor_assumptions(self) -> AdvisorAssumptions:
        return AdvisorAssumptions(**{name: (round(e.value(), 4) if isinstance(e, QDoubleSpinBox)
                                            else e.value())
                                     for name, e in self.assumption_editors.items()})

    # ------------------------------------------------------------------------------------------
    # Owned cards
    # ------------------------------------------------------------------------------------------
    def _known_owned(self, owned) -> tuple[OwnedCard, ...]:
        return tuple(o for o in owned if self._catalog.by_name(o.name) is not None)

    def _detected(self) -> tuple[OwnedCard, ...]:
        counts: dict[str, int] = {}
        unknown = []
        for name in self._detected_names:
            spec = self._catalog.match_nvml_name(name) or self._catalog.by_name(name)
            if spec is None:
                unknown.append(name)
                continue
            counts[spec.name] = counts.get(spec.name, 0) + 1
        self._unknown_detected = unknown
        return tuple(OwnedCard(n, "used", c) for n, c in counts.items())

    def _add_owned(self) -> bool:
        text = self.card_combo.currentText().strip()
        if not text:
            return False
        spec = self._catalog.by_name(text)
        if spec is None:
            close = self._catalog.closest_names(text)
            msg = arg(self.tr("No card named '%1' in the catalog."), text)
            if close:
                msg += " " + arg(self.tr("Did you mean %1?"), ", ".join(close))
            self._show_owned_message(msg)
            return False
        condition = self.condition_combo.currentData()
        manual = list(self._owned_model.manual)
        for i, o in enumerate(manual):
            if o.name == spec.name and o.condition == condition:
                manual[i] = replace(o, count=o.count + 1)
                break
        else:
            manual.append(OwnedCard(spec.name, condition, 1))
        if not self._save_owned(tuple(manual)):
            return False
        self.card_combo.setEditText("")
        return True

    def _save_owned(self, manual: tuple[OwnedCard, ...]) -> bool:
        try:
            set_owned_cards(manual, self._overrides_path)
        except (CatalogError, OSError) as exc:
            self._show_owned_message(arg(self.tr("Could not save your cards: %1"), str(exc)))
            return False
        self._show_owned_message("")
        self._owned_model.set_cards(manual, self._owned_model.detected)
        self.owned_cards_changed.emit(manual)
        self._schedule()
        return True

    def _show_owned_message(self, text: str) -> None:
        self.owned_message.setText(text)
        self.owned_message.setVisible(bool(text))

    @Slot()
    def _on_add_owned(self) -> None:
        self._add_owned()

    @Slot()
    def _on_remove_owned(self) -> None:
        rows = self.owned_view.selectionModel().selectedRows()
        if not rows:
            return
        row = rows[0].row()
        if self._owned_model.is_detected(row):
            return
        card = self._owned_model.card_at(row)
        manual = tuple(o for o in self._owned_model.manual if o is not card)
        self._save_owned(manual)

    @Slot()
    def _on_owned_selection(self, *_args) -> None:
        rows = self.owned_view.selectionModel().selectedRows()
        self.remove_button.setEnabled(bool(rows) and not self._owned_model.is_detected(
            rows[0].row()))

    # ------------------------------------------------------------------------------------------
    # Inputs
    # ------------------------------------------------------------------------------------------
    @Slot()
    def _on_profile_changed(self) -> None:
        p = get_profile(self.profile_combo.currentData())
        self.profile_description.setText(tr_core(p.description))
        self._load_profile_values(p)
        self._update_profile_text()
        self._schedule()

    def _load_profile_values(self, p: Profile) -> None:
        with (QSignalBlocker(self.memory_spin), QSignalBlocker(self.budget_spin),
              QSignalBlocker(self.price_weight_spin), QSignalBlocker(self.several_check)):
            self.memory_spin.setValue(p.memory_gib)
            self.budget_spin.setValue(p.budget_usd or 0)
            self.price_weight_spin.setValue(p.price_weight)
            self.several_check.setChecked(p.several_gpus)

    @Slot()
    def _on_as_of_changed(self) -> None:
        if hasattr(self, "profile_assumptions"):
            self._update_profile_text()

    def _update_profile_text(self) -> None:
        base = get_profile(self.profile_combo.currentData())
        current = self.profile()
        modified = current != base
        plan = (self._plan.draft.name or self.tr("unnamed")) if self.plan_used() else None
        text = arg(self.tr("Assumes: %1."),
                   tr_msg(current.assumptions_text(self.as_of(), plan=plan)))
        if modified:
            text += " " + self.tr("(Changed from the profile.)")
        from planner.core.eras import era_workload  # noqa: PLC0415

        # The profile's text is the article's (2017); from the era of a planned workload it
        # says what the advice is judged on instead, so the two never disagree on screen.
        era = era_workload(base.key, self.as_of())
        description = tr_core(base.description)
        if era is not None:
            description = arg(self.tr("As of %1 this profile is judged on %2. (The article, "
                                      "2017: %3)"), self.as_of(), tr_core(era.title),
                              description)
        self.profile_description.setText(description)
        # From the era of a planned workload (or with the user's plan) the memory need is its
        # peak, not this figure.
        self.memory_spin.setEnabled(not self.plan_used()
                                    and era is None)
        self.profile_assumptions.setText(text)
        self.reset_profile_button.setEnabled(modified)

    @Slot()
    def _on_override_changed(self, *_args) -> None:
        self._update_profile_text()
        self._schedule()

    @Slot()
    def _on_reset_profile(self) -> None:
        self._load_profile_values(get_profile(self.profile_combo.currentData()))
        self._update_profile_text()
        self._schedule()

    @Slot()
    def _on_this_month(self) -> None:
        today = QDate.currentDate()
        self.as_of_edit.setDate(QDate(today.year(), today.month(), 1))

    @Slot(bool)
    def _on_assumptions_toggled(self, shown: bool) -> None:
        self.assumptions_group.setVisible(shown)
        self.assumptions_toggle.setArrowType(Qt.ArrowType.DownArrow if shown
                                             else Qt.ArrowType.RightArrow)

    @Slot()
    def _on_reset_assumptions(self) -> None:
        defaults = AdvisorAssumptions()
        for name, editor in self.assumption_editors.items():
            with QSignalBlocker(editor):
                editor.setValue(getattr(defaults, name))
        self._schedule()

    # ------------------------------------------------------------------------------------------
    # Recompute
    # ------------------------------------------------------------------------------------------
    @Slot()
    def _schedule(self, *_args) -> None:
        self._dirty = True
        if self.isVisible():
            self._timer.start()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._dirty:
            self._timer.start()

    @Slot()
    def _on_recompute(self) -> None:
        if not self._dirty:
            return
        self._dirty = False
        start = time.perf_counter()
        inputs = None
        try:
            inputs = self.inputs()
            advice = advise(self._catalog, inputs, self._assumptions,
                            self.advisor_assumptions())
        except ValueError as exc:  # AdvisorError, CatalogError, a bad plan: the user's input
            self._show_error(exc_text(exc))
            return
        except Exception as exc:  # a bug: log it, but never a traceback in the user's face
            log.exception("advisor failed")
            self._show_error(arg(self.tr("The advisor failed: %1"), str(exc)))
            return
        finally:
            self._last_compute_s = time.perf_counter() - start
            # The pane can be deleted while the advice is worked out (a language switch
            # rebuilds it; Python's collector may delete a closed window meanwhile): then
            # there is nothing to show it in.
            alive = shiboken6.isValid(self) and shiboken6.isValid(self._timer)
            if alive:  # debounce only when a run takes longer than a frame
                self._timer.setInterval(0 if self._last_compute_s < 0.016 else 100)
        if alive:
            self._show_advice(advice, inputs)

    def _show_error(self, message: str) -> None:
        self._advice = None
        self._error = message
        self.heading.setText(self.tr("No advice"))
        self.recommendations.set_recommendations(())
        self.error_label.setText(message)
        self.error_label.setVisible(True)
        self.notes_label.setText("")
        self.chart.set_options((), (), ())
        self._update_memory_rule()
        self._status_line = message
        self.status_changed.emit(message)
        self.advice_changed.emit(None)

    def _show_advice(self, advice: Advice, inputs: AdvisorInputs) -> None:
        self._advice = advice
        self._error = ""
        self.heading.setText(arg(self.tr("%1 — prices as of %2"),
                                 tr_core(advice.profile.title), advice.as_of))
        self.recommendations.set_recommendations(advice.recommendations)
        self._update_memory_rule()
        notes = [tr_msg(n) for n in advice.notes]
        unknown = getattr(self, "_unknown_detected", [])
        if unknown:
            notes.append(arg(self.tr("Detected but not in the catalog (not counted): %1."),
                             ", ".join(unknown)))
        if not advice.recommendations and not notes:
            notes.append(self.tr("No recommendation for these inputs."))
        self.notes_label.setText("\n".join(f"• {n}" for n in notes))
        self.error_label.setVisible(False)
        self._show_rent_info(advice, inputs)
        recommended = [r.card for r in advice.recommendations if r.action == "buy"]
        # The owned cards' speeds are the advice's own (its fit rows), on the same workload.
        self.chart.set_options(advice.options, recommended, list(advice.owned), advice.workload,
                               advice.tokens_per_sample)
        top = advice.recommendations[0] if advice.recommendations else None
        self._status_line = (
            arg(self.tr("Advisor: %1 %2"),
                {"buy": self.tr("BUY"), "keep": self.tr("KEEP"),
                 "sell": self.tr("SELL")}.get(top.action, top.action), top.card)
            if top else (notes[0] if notes else ""))
        self.status_changed.emit(self._status_line)
        self.advice_changed.emit(advice)

    def _show_rent_info(self, advice: Advice, inputs: AdvisorInputs) -> None:
        """Under the rent control: whose rate the rent-vs-buy figures use."""
        if inputs.cloud_usd_per_hour:
            text = arg(self.tr("Your rate: $%1 per GPU-hour."),
                       f"{inputs.cloud_usd_per_hour:g}")
        else:
            rent = next((r.rent for r in advice.recommendations if r.rent is not None), None)
            if rent is None:
                text = arg(self.tr("No dated rental price is known as of %1; type a rate to "
                                   "compare renting with buying."),
                           advice.as_of)
            else:
                text = arg(self.tr("Top pick vs renting %1 (%2): $%3 per GPU-hour at the cheapest "
                                   "(%4), $%5 the median of %6 offers."),
                           rent.card, rent.month,
                           f"{rent.cheapest_usd_per_hour / rent.work_ratio:.2f}", rent.provider,
                           f"{rent.median_usd_per_hour / rent.work_ratio:.2f}", str(rent.offers))
        self.rent_info_label.setText(text)

