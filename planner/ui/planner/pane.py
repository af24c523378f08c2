"""The Planner pane: draft a network, set how it runs, see its memory footprint.

Left: the run settings, the layer table (inline editing), the problems line and the selected
layer's properties. Right: the peak and its stacked breakdown, then tabs with the per-layer chart,
the per-layer table, the article's accounting, the "what would help" list, how the plan fits on
every card of the catalog ("Fits on each card", a ``FitView`` built when first shown) and how it
scales over several GPUs ("Several GPUs", a ``ScalingView``).

Several GPUs: the run settings include GPUs per node, nodes and the strategy (DDP, ZeRO 1/2/3,
FSDP). With more than one GPU the breakdown shows the memory on each GPU (communication buffers
and gathered weights included) and the global batch; the batch size stays per GPU.

Every change goes through the document's undo stack; the document recomputes synchronously and
emits ``plan_changed`` once, and ``_on_plan_changed`` refreshes every view in the same frame.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QEvent,
    QItemSelectionModel,
    QModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
    Slot,
)
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QMenu,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QTableView,
    QTabWidget,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from planner.core.layers import KINDS, RULES, LayerSpec
from planner.core.fit import largest_batch, largest_batch_explained
from planner.core.memory import Assumptions
from planner.core.network import (
    MAX_BATCH, MODES, OPTIMIZERS, PRECISION_LABELS, PRECISION_SHORT, PRECISIONS)
from planner.core.parallel import STRATEGIES, Parallel
from planner.ui.planner.breakdown import BreakdownBar
from planner.ui.planner.document import PlanDocument
from planner.ui.planner.layer_table import COL_NAME, COL_PARAMS, LayerTableModel, LayerTypeDelegate
from planner.ui.planner.properties import LayerPropertiesPanel
if TYPE_CHECKING:  # built on first use, off the start-up path
    from planner.ui.planner.charts import LayerChart, StepChart
    from planner.ui.planner.parallel_view import ScalingView
    from planner.ui.planner.results import (
        ClassicTableModel,
        LayerEstimateTableModel,
        SuggestionTableModel,
    )
from planner.units import GIB, format_bytes
from planner.ui.flow import FlowLayout, group
from planner.ui.i18n import arg, exc_text, tr_core, tr_msg, tr_problem
from planner.ui.tables import row_table

_ERROR_STYLE = "color: #a00000;"

STRATEGY_LABELS = {"ddp": "DDP", "zero1": "ZeRO-1", "zero2": "ZeRO-2", "zero3": "ZeRO-3",
                   "fsdp": "FSDP"}
STRATEGY_TIPS = {
    "ddp": "Data parallel (DDP): every GPU holds the weights, gradients and optimizer state, "
           "plus a flat copy of the gradients for the all-reduce",
    "zero1": "ZeRO stage 1: the optimizer state is split over the GPUs",
    "zero2": "ZeRO stage 2: optimizer state and gradients are split over the GPUs",
    "zero3": "ZeRO stage 3: weights, gradients and optimizer state are split; each layer's "
             "weights are gathered while it runs (more communication)",
    "fsdp": "Fully sharded data parallel (PyTorch FSDP): like ZeRO-3",
}


def _suggestions(draft, setup, assumptions):
    """The reduction advisor, imported when first needed (no work at import time)."""
    from planner.core.reduce import suggestions

    return suggestions(draft, setup, assumptions)


class _BuiltOnUse:
    """An attribute of the Planner's result tables, which are built the first time one of them
    is shown or asked for (``PlannerPane._ensure_tables``)."""

    def __set_name__(self, owner, name: str) -> None:
        self.slot = "_" + name

    def __get__(self, pane, owner=None):
        if pane is None:
            return self
        pane._ensure_tables()
        return getattr(pane, self.slot)

    def __set__(self, pane, value) -> None:
        setattr(pane, self.slot, value)


class PlannerPane(QWidget):
    """The Planner pane. ``actions`` holds the layer edit actions the main window's Edit menu
    shows; the pane's own tool bar shows the same actions."""

    status_changed = Signal(str)  # one line for the status bar: the peak, or why there is none
    card_activated = Signal(str)  # a card was double-clicked in the fit view
    assumptions_changed = Signal(object)  # the user edited the assumptions (to persist them)
    message = Signal(str)  # a transient message (a rejected edit)
    view_built = Signal(str, object)  # a view built on first show ("fit", "scaling"): its layout

    def __init__(self, document: PlanDocument, parent: QWidget | None = None, *,
                 memory_gib: float = 24.0, catalog=None, defer_views: bool = False):
        super().__init__(parent)
        self.setObjectName("planner_pane")
        self._doc = document
        # defer_views: the result view shown (a chart, a table) waits for ``finish_start``
        # (the window calls it after its first picture); otherwise it is built at once.
        self._views_deferred = defer_views
        self._catalog = catalog
        self._owned_names: tuple[str, ...] = ()  # detected by the monitor
        self._fit_dirty = True
        self._scaling_dirty = True
        self.fit_view = None  # built when its tab is first shown (ensure_fit_view)
        self.format_bytes = format_bytes
        self._suggestions_dirty = True
        self._tables_dirty = True
        self._selecting = False
        self._build_actions()
        self._build_ui(memory_gib)
        document.plan_changed.connect(self._on_plan_changed)
        document.current_row_changed.connect(self._on_current_row_changed)
        self._on_plan_changed()
        self._on_current_row_changed(document.current_row)

    # ------------------------------------------------------------------------------------------
    # Construction
    # ------------------------------------------------------------------------------------------
    def _build_actions(self) -> None:
        self.add_menu = QMenu(self.tr("Add Layer of &Type"), self)
        self.insert_menu = QMenu(self.tr("&Insert Layer Before"), self)
        # their layer types (two actions a type) are put in when one is first opened
        self._kind_menus_filled = False
        self.add_menu.aboutToShow.connect(self.fill_kind_menus)
        self.insert_menu.aboutToShow.connect(self.fill_kind_menus)
        self.add_action = QAction(self.tr("&Add Layer"), self)
        self.add_action.setShortcut(QKeySequence(Qt.Modifier.CTRL | Qt.Key.Key_Return))
        self.add_action.setToolTip(self.tr("Add a layer of the same type after the selected one"))
        self.add_action.triggered.connect(self._on_add_same_triggered)
        self.duplicate_action = QAction(self.tr("&Duplicate Layer"), self)
        self.duplicate_action.setShortcut(QKeySequence(Qt.Modifier.CTRL | Qt.Key.Key_D))
        self.duplicate_action.triggered.connect(self._on_duplicate_triggered)
        self.remove_action = QAction(self.tr("&Remove Layer"), self)
        self.remove_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Delete))
        self.remove_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.remove_action.triggered.connect(self._on_remove_triggered)
        self.up_action = QAction(self.tr("Move &Up"), self)
        self.up_action.setShortcut(QKeySequence(Qt.Modifier.CTRL | Qt.Key.Key_Up))
        self.up_action.triggered.connect(self._on_move_up_triggered)
        self.down_action = QAction(self.tr("Move Do&wn"), self)
        self.down_action.setShortcut(QKeySequence(Qt.Modifier.CTRL | Qt.Key.Key_Down))
        self.down_action.triggered.connect(self._on_move_down_triggered)
        # Repeated blocks: the selected layers made a block "× N", its count changed, or the
        # block made plain layers again (one copy). ``ask_copies(title, label, value, low,
        # high)`` asks for a number (None: cancelled); tests replace it.
        self.repeat_action = QAction(self.tr("Re&peat Layers…"), self)
        self.repeat_action.setToolTip(self.tr("Make the selected layers a repeated block of "
                                              "several copies (one row in the editor)"))
        self.repeat_action.triggered.connect(self._on_repeat_triggered)
        self.copies_action = QAction(self.tr("Set &Copies…"), self)
        self.copies_action.setToolTip(self.tr("Change how many copies the selected repeated "
                                              "block has"))
        self.copies_action.triggered.connect(self._on_copies_triggered)
        self.unrepeat_action = QAction(self.tr("U&nrepeat Block"), self)
        self.unrepeat_action.setToolTip(self.tr("Turn the selected repeated block back into "
                                                "plain layers (one copy)"))
        self.unrepeat_action.triggered.connect(self._on_unrepeat_triggered)
        self.ask_copies = self._ask_copies
        self.insert_menu.addSeparator()
        self.insert_menu.addAction(self.repeat_action)
        self.assumptions_action = QAction(self.tr("Estimate &Assumptions…"), self)
        self.assumptions_action.triggered.connect(self._on_assumptions_triggered)

    @Slot()
    def fill_kind_menus(self) -> None:
        """The layer types of Add Layer of Type and Insert Layer Before (done when either is
        first opened: they are not needed for the first picture)."""
        if self._kind_menus_filled:
            return
        self._kind_menus_filled = True
        tail = self.insert_menu.actions()  # the separator and Repeat Layers…, kept last
        before = tail[0] if tail else None
        for kind in KINDS:
            if kind == "input":
                continue
            label = tr_core(RULES[kind].label)
            add = self.add_menu.addAction(label)
            add.setData(kind)
            add.setToolTip(tr_core(RULES[kind].help))
            add.triggered.connect(self._on_add_triggered)
            ins = QAction(label, self.insert_menu)
            self.insert_menu.insertAction(before, ins)
            ins.setData(kind)
            ins.setToolTip(tr_core(RULES[kind].help))
            ins.triggered.connect(self._on_insert_triggered)

    def _build_ui(self, memory_gib: float) -> None:
        root = QVBoxLayout(self)
        root.setContentsMargins(6, 6, 6, 6)
        root.addWidget(self._build_setup_bar(memory_gib))
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(self._build_editor())
        splitter.addWidget(self._build_results())
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 4)
        # Sized from the width at the first show (``showEvent``) unless a saved layout was
        # restored: the results side gets what a two-column breakdown and the fit table need.
        self._initial_split = [400, 1000]
        splitter.setSizes(self._initial_split)
        root.addWidget(splitter, 1)
        self.splitter = splitter

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        if self._initial_split is not None:
            if self.splitter.sizes() == self._initial_split:  # no saved layout restored
                total = max(self.splitter.width(), self.width() - 12)
                results = max(730, int(total * 0.6))
                editor = max(260, total - results)
                self.splitter.setSizes([editor, total - editor])
            self._initial_split = None

    def _build_setup_bar(self, memory_gib: float) -> QWidget:
        box = QGroupBox(self.tr("How it runs"), self)
        # wraps onto more lines in a narrow window (1024 px) or a longer language
        row = FlowLayout(box, h_spacing=12, v_spacing=4)
        self.batch_spin = QSpinBox(box)
        self.batch_spin.setRange(1, MAX_BATCH)
        self.batch_spin.setKeyboardTracking(False)
        self.batch_spin.setAccelerated(True)
        self.batch_spin.setToolTip(self.tr("Samples per iteration (mini-batch size)"))
        self.batch_spin.valueChanged.connect(self._on_batch_changed)
        self.precision_combo = QComboBox(box)
        for key in PRECISIONS:
            self.precision_combo.addItem(tr_core(PRECISION_SHORT[key]), key)
            self.precision_combo.setItemData(self.precision_combo.count() - 1,
                                             tr_core(PRECISION_LABELS[key]),
                                             Qt.ItemDataRole.ToolTipRole)
        self.precision_combo.setToolTip(self.tr(
            "How the step runs in PyTorch: fp32 (its defaults), strict fp32 or TF32; mixed "
            "precision with torch.autocast (fp16 with GradScaler, or bf16); or pure 16-bit "
            "weights"))
        self.precision_combo.currentIndexChanged.connect(self._on_precision_index_changed)
        self.optimizer_combo = QComboBox(box)
        self.optimizer_combo.addItems(list(OPTIMIZERS))
        self.optimizer_combo.setToolTip(self.tr(
            "Optimizer state per parameter: SGD none, momentum one, Adam/AdamW two"))
        self.optimizer_combo.currentTextChanged.connect(self._on_optimizer_changed)
        self.mode_combo = QComboBox(box)
        for mode in MODES:
            self.mode_combo.addItem(self.tr("training") if mode == "train" else
                                    self.tr("inference"), mode)
        self.mode_combo.currentIndexChanged.connect(self._on_mode_changed)
        self.checkpoint_check = QCheckBox(self.tr("Checkpointing"), box)
        self.checkpoint_check.setToolTip(self.tr(
            "Gradient checkpointing: keep only √n segment outputs and recompute the rest during "
            "backward (about a third more compute)"))
        self.checkpoint_check.toggled.connect(self._on_checkpointing_toggled)
        for label, widget in ((self.tr("Batch"), self.batch_spin),
                              (self.tr("Precision"), self.precision_combo),
                              (self.tr("Optimizer"), self.optimizer_combo),
                              (self.tr("Mode"), self.mode_combo)):
            lab = QLabel(label, box)
            lab.setBuddy(widget)
            row.addWidget(group(box, lab, widget))
        row.addWidget(self.checkpoint_check)
        self.gpus_spin = QSpinBox(box)
        self.gpus_spin.setObjectName("gpus_spin")
        self.gpus_spin.setRange(1, 64)
        self.gpus_spin.setKeyboardTracking(False)
        self.gpus_spin.setToolTip(self.tr("GPUs per machine (data parallel; the batch above is "
                                          "per GPU)"))
        self.nodes_spin = QSpinBox(box)
        self.nodes_spin.setObjectName("nodes_spin")
        self.nodes_spin.setRange(1, 4096)
        self.nodes_spin.setKeyboardTracking(False)
        self.nodes_spin.setToolTip(self.tr("Machines (nodes); between them the gradients cross "
                                           "the network"))
        self.strategy_combo = QComboBox(box)
        self.strategy_combo.setObjectName("strategy_combo")
        for i, key in enumerate(STRATEGIES):
            self.strategy_combo.addItem(STRATEGY_LABELS[key], key)
            self.strategy_combo.setItemData(i, self.tr(STRATEGY_TIPS[key]),
                                            Qt.ItemDataRole.ToolTipRole)
        self.strategy_combo.setToolTip(self.tr(
            "How the memory is shared out: DDP replicates everything; ZeRO 1/2/3 and FSDP split "
            "optimizer state, gradients and weights over the GPUs"))
        self.gpus_spin.valueChanged.connect(self._on_parallel_changed)
        self.nodes_spin.valueChanged.connect(self._on_parallel_changed)
        self.strategy_combo.currentIndexChanged.connect(self._on_parallel_changed)
        for label, widget in ((self.tr("GPUs"), self.gpus_spin),
                              (self.tr("Nodes"), self.nodes_spin),
                              (self.tr("Strategy"), self.strategy_combo)):
            lab = QLabel(label, box)
            lab.setBuddy(widget)
            lab.setToolTip(widget.toolTip())
            row.addWidget(group(box, lab, widget))
        self._fit_widget = self._build_fit_row(memory_gib)
        return box

    def _build_fit_row(self, memory_gib: float) -> QWidget:
        box = QWidget(self)
        row = QHBoxLayout(box)
        row.setContentsMargins(8, 0, 0, 0)
        fit = QLabel(self.tr("Largest batch that fits in"), box)
        self.memory_spin = QDoubleSpinBox(box)
        self.memory_spin.setRange(0.5, 1024.0)
        self.memory_spin.setDecimals(1)
        self.memory_spin.setSingleStep(1.0)
        self.memory_spin.setSuffix(" GiB")
        self.memory_spin.setValue(memory_gib)
        self.memory_spin.setKeyboardTracking(False)
        self.memory_spin.setToolTip(self.tr("A card's memory, as nvidia-smi shows it (GiB)"))
        self.memory_spin.valueChanged.connect(self._on_memory_changed)
        self.max_batch_label = QLabel(box)
        self.max_batch_label.setMinimumWidth(90)
        font = self.max_batch_label.font()
        font.setBold(True)
        self.max_batch_label.setFont(font)
        row.addWidget(fit)
        row.addWidget(self.memory_spin)
        row.addWidget(QLabel("→", box))
        row.addWidget(self.max_batch_label)
        row.addStretch(1)
        button = QToolButton(box)
        button.setDefaultAction(self.assumptions_action)
        button.setText(self.tr("Assumptions…"))
        button.setToolTip(self.tr("Edit the figures the estimate takes on trust (CUDA context, "
                                  "workspace, allocator rounding)"))
        row.addWidget(button)
        return box

    def _build_editor(self) -> QWidget:
        panel = QWidget(self)
        layout = QVBoxLayout(panel)
        layout.setContentsMargins(0, 0, 0, 0)
        bar = QToolBar(panel)
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        add_button = QToolButton(bar)
        add_button.setDefaultAction(self.add_action)
        add_button.setText(self.tr("Add"))
        add_button.setMenu(self.add_menu)
        add_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        bar.addWidget(add_button)
        insert_button = QToolButton(bar)
        insert_button.setText(self.tr("Insert"))
        insert_button.setToolTip(self.tr("Insert a layer before the selected one"))
        insert_button.setMenu(self.insert_menu)
        insert_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        bar.addWidget(insert_button)
        for action in (self.duplicate_action, self.remove_action, self.up_action,
                       self.down_action):
            bar.addAction(action)
        layout.addWidget(bar)

        self.layer_model = LayerTableModel(self._doc, self)
        self.layer_model.edit_rejected.connect(self._on_edit_rejected)
        self.layer_view = row_table(self.layer_model, panel)
        self.layer_view.setObjectName("layer_table")
        self.layer_view.setItemDelegateForColumn(2, LayerTypeDelegate(self.layer_view))
        # A contiguous range of rows can be selected (Shift+click, Shift+↓): Repeat Layers…
        self.layer_view.setSelectionMode(QAbstractItemView.SelectionMode.ContiguousSelection)
        self.layer_view.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                        | QAbstractItemView.EditTrigger.EditKeyPressed
                                        | QAbstractItemView.EditTrigger.AnyKeyPressed)
        header = self.layer_view.horizontalHeader()
        # The parameters keep a readable width (the table scrolls sideways when the editor is
        # narrow) instead of being squeezed to "filters=64 …" or, in Chinese, to "…".
        header.setSectionResizeMode(COL_PARAMS, QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        fm = self.layer_view.fontMetrics()
        hfm = header.fontMetrics()
        for col, sample in ((0, "0000"), (1, "layer4.2.conv3x"), (2, "Adaptive avg pool"),
                            (COL_PARAMS, "filters=256 kernel=3×3 stride=2"),
                            (4, "2048×56×56"), (5, "25.56 M"), (6, "9999.9 MiB")):
            title = str(self.layer_model.headerData(col, Qt.Orientation.Horizontal))
            header.resizeSection(col, max(fm.horizontalAdvance(sample),
                                          hfm.horizontalAdvance(title)) + 20)
        self.layer_view.selectionModel().currentRowChanged.connect(self._on_table_row_changed)
        self.layer_view.addAction(self.remove_action)
        self.layer_view.selectionModel().selectionChanged.connect(
            lambda *_: self._update_action_state())
        self.layer_view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.layer_view.customContextMenuRequested.connect(self._on_layer_context_menu)
        # A repeated block's row opens and closes with →/+ and ←/−, a double-click or a click
        # on its arrow (the keys a tree view uses).
        self.layer_view.installEventFilter(self)
        self.layer_view.viewport().installEventFilter(self)
        self.layer_view.doubleClicked.connect(self._on_layer_double_clicked)
        table_box = QWidget(panel)
        tl = QVBoxLayout(table_box)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(self.layer_view, 1)

        self.problems_label = QLabel(panel)
        self.problems_label.setObjectName("problems")
        self.problems_label.setWordWrap(True)
        self.problems_label.setStyleSheet(_ERROR_STYLE)
        self.problems_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.problems_label.setVisible(False)
        tl.addWidget(self.problems_label)

        self.properties = LayerPropertiesPanel(self._doc, panel)
        self.properties.edit_rejected.connect(self._on_edit_rejected)
        scroll = QScrollArea(panel)
        scroll.setWidget(self.properties)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setMinimumHeight(120)
        vsplit = QSplitter(Qt.Orientation.Vertical, panel)
        vsplit.setChildrenCollapsible(False)
        vsplit.addWidget(table_box)
        vsplit.addWidget(scroll)
        vsplit.setStretchFactor(0, 3)
        vsplit.setStretchFactor(1, 2)
        vsplit.setSizes([440, 340])
        layout.addWidget(vsplit, 1)
        return panel

    def _build_results(self) -> QWidget:
        panel = QWidget(self)
        layout = QVBoxLayout(panel)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._fit_widget)
        self.breakdown = BreakdownBar(panel)
        self.breakdown.setObjectName("breakdown")
        layout.addWidget(self.breakdown)
        self.tabs = QTabWidget(panel)
        self.tabs.setObjectName("result_tabs")
        layout.addWidget(self.tabs, 1)

        # The charts are plots (pyqtgraph, imported with them): the per-layer chart is built
        # after the window's first picture (``finish_start``) or when first shown or asked for
        # (``chart``); the step chart when its tab is first shown. Until then the pane keeps
        # what each would show (``_chart_args``, ``_step_args``).
        self._chart: LayerChart | None = None
        self._chart_args: tuple[object, dict] | None = None  # (estimate, keywords)
        self._chart_selected: object = ()  # the rows it highlights
        self._chart_item = None  # its plot item, made a turn ahead (prepare_start)
        self._chart_holder = QWidget(self.tabs)
        self._chart_holder.setObjectName("chart_holder")
        QVBoxLayout(self._chart_holder).setContentsMargins(0, 0, 0, 0)
        self._chart_tab = self.tabs.addTab(self._chart_holder, self.tr("Per-layer chart"))
        self._step_chart: StepChart | None = None
        self._step_args: tuple[object, dict] | None = None  # (estimate, keywords)
        self._step_holder = QWidget(self.tabs)
        self._step_holder.setObjectName("step_holder")
        QVBoxLayout(self._step_holder).setContentsMargins(0, 0, 0, 0)
        self._step_tab = self.tabs.addTab(self._step_holder, self.tr("Memory over the step"))

        # The per-layer table, the article's accounting and "What would help" are built
        # when one of them is first shown or asked for (``_ensure_tables``), off the start-up
        # path; until then their tabs hold empty pages.
        self._tables_built = False
        self._tables_sized = False
        self._table_page = self._tab_page("table_page", margins=False)
        self._table_tab = self.tabs.addTab(self._table_page, self.tr("Per-layer table"))
        self._classic_page = self._tab_page("classic_page")
        self._classic_tab = self.tabs.addTab(self._classic_page, self.tr("Article's accounting"))
        self._suggestion_page = self._tab_page("suggestion_page")
        self._suggestion_tab = self.tabs.addTab(self._suggestion_page,
                                                self.tr("What would help"))

        self._fit_holder = QWidget(self.tabs)
        self._fit_holder.setObjectName("fit_holder")
        fl = QVBoxLayout(self._fit_holder)
        fl.setContentsMargins(0, 0, 0, 0)
        self._fit_tab = self.tabs.addTab(self._fit_holder, self.tr("Fits on each card"))
        self.tabs.setTabToolTip(self._fit_tab, self.tr(
            "Every card of the catalog: does the plan fit, the largest batch, speed and price"))
        # The scaling view (a plot) is built when its tab is first shown, off the start-up path.
        self._scaling_view = None
        self._scaling_holder = QWidget(self.tabs)
        self._scaling_holder.setObjectName("scaling_holder")
        QVBoxLayout(self._scaling_holder).setContentsMargins(0, 0, 0, 0)
        self._scaling_tab = self.tabs.addTab(self._scaling_holder, self.tr("Several GPUs"))
        self.tabs.setTabToolTip(self._scaling_tab, self.tr(
            "The scaling curve over 1…N GPUs, and how many copies of the run one card holds"))
        if self._catalog is None:
            self.tabs.setTabEnabled(self._fit_tab, False)
        self.tabs.currentChanged.connect(self._on_tab_changed)
        # Exports (File ▸ Export, Ctrl+E, the Export button, each view's context menu)
        from planner.ui.exporting import PlanExporter  # noqa: PLC0415

        self.exporter = PlanExporter(self)
        self.tabs.setCornerWidget(self.exporter.button, Qt.Corner.TopRightCorner)
        self.exporter.attach(self.breakdown, "breakdown")
        return panel

    def _tab_page(self, name: str, *, margins: bool = True) -> QWidget:
        page = QWidget(self.tabs)
        page.setObjectName(name)
        layout = QVBoxLayout(page)
        if not margins:
            layout.setContentsMargins(0, 0, 0, 0)
        return page

    def _ensure_tables(self) -> None:
        """Build the per-layer table, the article's accounting and "What would help" (their
        models and views), once."""
        if self._tables_built:
            return
        self._tables_built = True
        from planner.ui.planner.results import (  # noqa: PLC0415 (off the start-up path)
            SORT_ROLE,
            ClassicTableModel,
            LayerEstimateTableModel,
            SuggestionTableModel,
        )

        self.estimate_model = LayerEstimateTableModel(self)
        self.estimate_proxy = QSortFilterProxyModel(self)
        self.estimate_proxy.setSourceModel(self.estimate_model)
        self.estimate_proxy.setSortRole(SORT_ROLE)
        self.estimate_view = self._read_only_view(self.estimate_proxy)
        self.estimate_view.setSortingEnabled(True)
        self.estimate_view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.estimate_view.doubleClicked.connect(self._on_estimate_row_activated)
        self._table_page.layout().addWidget(self.estimate_view)

        classic = self._classic_page
        cl = classic.layout()
        note = QLabel(self.tr(
            "The article's accounting: for each layer, its output (activation) plus the error "
            "(the gradient of that output), at the batch and precision above; the input has no "
            "error. A framework keeps different tensors (see the per-layer table), so this is "
            "for checking the article's worked example, not for sizing a card."), classic)
        note.setWordWrap(True)
        cl.addWidget(note)
        self.classic_model = ClassicTableModel(self)
        self.classic_view = self._read_only_view(self.classic_model)
        self.classic_view.horizontalHeader().setSectionResizeMode(
            3, QHeaderView.ResizeMode.Stretch)
        self.classic_view.verticalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.classic_view.setWordWrap(True)
        cl.addWidget(self.classic_view, 1)

        helps = self._suggestion_page
        hl = helps.layout()
        intro = QLabel(self.tr(
            "What each of the article's memory-reduction techniques would save on this network, "
            "largest saving first. Each throws information away or costs speed: read the "
            "caution. Apply is one undoable edit."), helps)
        intro.setWordWrap(True)
        hl.addWidget(intro)
        self.suggestion_model = SuggestionTableModel(self)
        self.suggestion_view = self._read_only_view(self.suggestion_model)
        self.suggestion_view.setWordWrap(True)
        sh = self.suggestion_view.horizontalHeader()
        sh.setStretchLastSection(False)
        sh.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        sh.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.suggestion_view.verticalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        hl.addWidget(self.suggestion_view, 1)
        self.suggestion_empty = QLabel(helps)
        self.suggestion_empty.setWordWrap(True)
        self.suggestion_empty.setVisible(False)
        hl.addWidget(self.suggestion_empty)

        for model in (self.estimate_model, self.suggestion_model):
            model.format_bytes = self.format_bytes
        self.exporter.attach(self.estimate_view, "layers")

    def _read_only_view(self, model) -> QTableView:
        view = row_table(model, self.tabs)
        view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        view.horizontalHeader().setStretchLastSection(True)
        return view

    # The result tables' models and views: built when first asked for (``_ensure_tables``).
    estimate_model: LayerEstimateTableModel = _BuiltOnUse()
    estimate_proxy: QSortFilterProxyModel = _BuiltOnUse()
    estimate_view: QTableView = _BuiltOnUse()
    classic_model: ClassicTableModel = _BuiltOnUse()
    classic_view: QTableView = _BuiltOnUse()
    suggestion_model: SuggestionTableModel = _BuiltOnUse()
    suggestion_view: QTableView = _BuiltOnUse()
    suggestion_empty: QLabel = _BuiltOnUse()

    # ------------------------------------------------------------------------------------------
    # Public
    # ------------------------------------------------------------------------------------------
    # The result tabs, by name (each view is built or filled when its tab is first shown).
    RESULT_TABS = ("layer_chart", "step", "layers", "classic", "suggestions", "fit", "scaling")

    def _result_tab_index(self) -> dict[str, int]:
        return {"layer_chart": self._chart_tab, "step": self._step_tab,
                "layers": self._table_tab, "classic": self._classic_tab,
                "suggestions": self._suggestion_tab, "fit": self._fit_tab,
                "scaling": self._scaling_tab}

    def result_tab(self) -> str:
        """The result tab shown: one of ``RESULT_TABS``."""
        i = self.tabs.currentIndex()
        return next((name for name, k in self._result_tab_index().items() if k == i), "")

    def show_result_tab(self, name: str) -> None:
        """Show the result tab ``name`` (one of ``RESULT_TABS``; KeyError for another), built
        and filled now."""
        index = self._result_tab_index()[name]
        deferred, self._views_deferred = self._views_deferred, False
        self.tabs.setCurrentIndex(index)
        if deferred:
            self._refresh_current_tab()

    @property
    def document(self) -> PlanDocument:
        return self._doc

    def memory_bytes(self) -> int:
        return round(self.memory_spin.value() * GIB)

    def memory_gib(self) -> float:
        """The card memory the plan is checked against (the window keeps it between starts)."""
        return self.memory_spin.value()

    def refresh_prices(self) -> None:
        """Show the prices again (the display currency changed)."""
        if self.fit_view is not None:
            self.fit_view.recompute()

    # ---- the catalog, the user's cards, units --------------------------------------------
    @property
    def catalog(self):
        return self._catalog

    def _effective_catalog(self):
        """The catalog with the cards the monitor detected counted as owned."""
        cat = self._catalog
        if cat is None or not self._owned_names:
            return cat
        from dataclasses import replace as dc_replace  # noqa: PLC0415

        from planner.core.catalog import OwnedCard  # noqa: PLC0415

        extra = tuple(OwnedCard(n, "used") for n in self._owned_names if not cat.is_owned(n))
        return dc_replace(cat, owned=cat.owned + extra) if extra else cat

    def _preferred_card(self) -> str | None:
        cat = self._effective_catalog()
        if cat is None:
            return None
        for owned in cat.owned:
            card = cat.by_name(owned.name)
            if card is not None:
                return card.name
        return None

    def set_catalog(self, catalog) -> None:
        """A new catalog (the user edited a price, added a card, marked one as theirs)."""
        self._catalog = catalog
        self.tabs.setTabEnabled(self._fit_tab, catalog is not None)
        self._push_catalog()
        if self.tabs.currentIndex() == self._fit_tab:  # e.g. restored as the last tab shown
            self._refresh_current_tab()

    def set_owned_cards(self, names) -> None:
        """Catalog names of the cards this computer has (from the monitor): highlighted as the
        user's own in the fit view, and the scaling view's default card."""
        names = tuple(dict.fromkeys(names))
        if names != self._owned_names:
            self._owned_names = names
            self._push_catalog()

    def _push_catalog(self) -> None:
        cat = self._effective_catalog()
        if cat is None:
            return
        if self._scaling_view is not None:
            self._scaling_view.set_catalog(cat, self._preferred_card())
        if self.fit_view is not None:
            self.fit_view.set_catalog(cat)

    @property
    def chart(self) -> LayerChart:
        """The per-layer chart, built on first use with the plan's estimate (after the window's
        first picture, when its tab is shown, or when asked for)."""
        if self._chart is None:
            from planner.ui.planner.charts import LayerChart  # noqa: PLC0415 (pyqtgraph)

            item, self._chart_item = self._chart_item, None
            self._chart = self._put_chart(LayerChart(self._chart_holder, plot_item=item),
                                          "layer_chart", self._chart_args)
            self._chart.set_selected(self._chart_selected)
        return self._chart

    def _put_chart(self, chart, name: str, args: tuple[object, dict] | None):
        """Show a chart just built in its tab's page, with its export and the plan's estimate
        (``args``: what ``_on_plan_changed`` kept for it)."""
        chart.setObjectName(name)
        chart.layer_clicked.connect(self._on_chart_layer_clicked)
        page = chart.parentWidget()
        page.layout().addWidget(chart)
        chart.show()  # now, not at the next event (it is shown when its tab is)
        self.exporter.attach(chart, name)
        if args is not None:
            estimate, kwargs = args
            chart.set_estimate(estimate, **kwargs)
        return chart

    def _set_chart_selected(self, rows) -> None:
        self._chart_selected = rows
        if self._chart is not None:
            self._chart.set_selected(rows)

    @property
    def step_chart(self) -> StepChart:
        """The memory-over-the-step chart, built on first use with the plan's estimate."""
        if self._step_chart is None:
            from planner.ui.planner.charts import StepChart  # noqa: PLC0415 (pyqtgraph)

            chart = StepChart(self._step_holder)
            chart.format_bytes = self.format_bytes
            self._step_chart = self._put_chart(chart, "step_chart", self._step_args)
        return self._step_chart

    @property
    def scaling_view(self) -> ScalingView:
        """The several-GPUs view, built on first use (its module too)."""
        if self._scaling_view is None:
            from planner.ui.planner.parallel_view import ScalingView

            view = ScalingView(self._scaling_holder)
            view.format_bytes = self.format_bytes
            self._scaling_holder.layout().addWidget(view)
            self._scaling_view = view
            self.exporter.attach(view.plot, "scaling_chart")
            cat = self._effective_catalog()
            if cat is not None:
                view.set_catalog(cat, self._preferred_card())
            self._scaling_dirty = True
        return self._scaling_view

    def ensure_fit_view(self):
        """The fit view, built now if it was not yet (it is built when its tab is shown)."""
        if self.fit_view is None and self._catalog is not None:
            from planner.ui.planner.fit_view import FitView  # noqa: PLC0415

            self.fit_view = FitView(self._effective_catalog(), self._fit_holder)
            self.fit_view.setObjectName("fit_view")
            self.fit_view.card_activated.connect(self.card_activated)
            self.exporter.attach(self.fit_view.table, "fit")
            self.exporter.attach(self.fit_view.speed_chart, "fit_chart")
            self.exporter.attach(self.fit_view.memory_chart, "fit_memory_chart")
            self.view_built.emit("fit", self.fit_view)
            # In a scroll area: on a small screen (1024×700) the view scrolls instead of
            # pushing the window taller than the screen.
            scroll = QScrollArea(self._fit_holder)
            scroll.setObjectName("fit_scroll")
            scroll.setWidgetResizable(True)
            scroll.setFrameShape(QScrollArea.Shape.NoFrame)
            scroll.setWidget(self.fit_view)
            self._fit_holder.layout().addWidget(scroll)
            self._fit_dirty = True
        if self.fit_view is not None and self._fit_dirty:
            self._fit_dirty = False
            self.fit_view.set_plan(self._doc.result)
        return self.fit_view

    def refresh_scaling(self) -> None:
        self._scaling_dirty = False
        self.scaling_view.set_plan(self._doc.result)

    def set_byte_formatter(self, fmt) -> None:
        """Bytes as the user's settings say (binary MiB/GiB or decimal MB/GB)."""
        self.format_bytes = fmt
        self.breakdown.format_bytes = fmt
        if self._step_chart is not None:
            self._step_chart.format_bytes = fmt
        if self._scaling_view is not None:
            self._scaling_view.format_bytes = fmt
        if self._tables_built:
            for model in (self.estimate_model, self.suggestion_model):
                model.format_bytes = fmt
        self._on_plan_changed()

    def set_parallel_controls(self, parallel: Parallel) -> None:
        for widget, value in ((self.gpus_spin, parallel.gpus), (self.nodes_spin, parallel.nodes)):
            if widget.value() != value:
                widget.blockSignals(True)
                widget.setValue(value)
                widget.blockSignals(False)
        i = self.strategy_combo.findData(parallel.strategy)
        if i != self.strategy_combo.currentIndex():
            self.strategy_combo.blockSignals(True)
            self.strategy_combo.setCurrentIndex(i)
            self.strategy_combo.blockSignals(False)

    def current_row(self) -> int:
        """The draft layer index of the table's current row (a block's row: its first layer)."""
        index = self.layer_view.currentIndex()
        return (self.layer_model.layer_index(index.row()) if index.isValid()
                else self._doc.current_row)

    def select_row(self, row: int) -> None:
        """Show draft layer ``row`` (in a collapsed repeated block: the block's row)."""
        if not 0 <= row < len(self._doc.draft.layers):
            return
        shown = self.layer_model.display_row(row)
        if not 0 <= shown < self.layer_model.rowCount():
            return
        self._selecting = True
        try:
            index = self.layer_model.index(shown, COL_NAME)
            self.layer_view.selectionModel().setCurrentIndex(
                index, QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows)
            self.layer_view.scrollTo(self.layer_model.index(shown, 0))  # keep "#" in view
        finally:
            self._selecting = False
        self._doc.select_row(row)
        self.properties.show_row(row)
        self._set_chart_selected(self._chart_rows(row))
        self._update_action_state()

    def _chart_rows(self, row: int):
        """The bars the per-layer chart highlights for layer ``row``: a repeated block's row
        highlights every layer of every copy; one of its layers, that layer in every copy."""
        rep = self.layer_model.block_of_layer(row)
        if rep is None:
            return row
        block = self._current_block()
        if block is not None and block[0] == rep and block[1] or \
                not self.layer_model.is_expanded(rep.name):
            return range(rep.first, rep.first + rep.length * rep.times)
        pos = (row - rep.first) % rep.length
        return [rep.first + k * rep.length + pos for k in range(rep.times)]

    def summary(self) -> str:
        est = self._doc.estimate
        if self._doc.is_empty:
            return self.tr("Nothing to estimate yet: the plan has no layers")
        if est is None:
            n = len(self._doc.analysis.problems)
            return self.tr("Fix the %n problem(s) to see the estimate", "", n)
        fit = self.max_batch_label.text()
        doc = self._doc
        if doc.per_gpu is not None:
            return arg(self.tr("Per GPU %1 on %5 GPUs (%6, global batch %7) · %2 parameters · "
                               "largest batch in %3 GiB: %4"),
                       self.format_bytes(doc.per_gpu.peak), f"{est.parameters:,}",
                       f"{self.memory_spin.value():g}", fit, str(doc.parallel.world),
                       doc.parallel.strategy, f"{doc.global_batch:,}")
        return arg(self.tr("Peak %1 · %2 parameters · largest batch in %3 GiB: %4"),
                   self.format_bytes(est.peak), f"{est.parameters:,}",
                   f"{self.memory_spin.value():g}", fit)

    def apply_suggestion(self, row: int) -> None:
        items = self.suggestion_model.suggestions
        if 0 <= row < len(items):
            s = items[row]
            self._doc.apply_plan(tr_msg(s.title), s.draft, s.setup)

    def refresh_suggestions(self) -> None:
        """Recompute the "what would help" list now (it is otherwise computed when shown)."""
        self._suggestions_dirty = False
        for r in range(self.suggestion_model.rowCount()):
            self.suggestion_view.setIndexWidget(
                self.suggestion_model.index(r, self.suggestion_model.APPLY_COLUMN), None)
        if self._doc.estimate is None:
            self.suggestion_model.set_suggestions(())
            self.suggestion_empty.setText(self.tr("Fix the errors in the draft to see what "
                                                  "would help."))
            self.suggestion_empty.setVisible(True)
            return
        try:
            found = _suggestions(self._doc.draft, self._doc.setup, self._doc.assumptions)
        except ValueError as exc:
            found = []
            self.suggestion_empty.setText(exc_text(exc))
        else:
            self.suggestion_empty.setText(self.tr("None of the techniques would save memory on "
                                                  "this network as it is set up."))
        self.suggestion_model.set_suggestions(found)
        self.suggestion_empty.setVisible(not found)
        for r in range(len(found)):
            cell = QWidget(self.suggestion_view)
            cell_layout = QHBoxLayout(cell)
            cell_layout.setContentsMargins(6, 2, 6, 2)
            button = QPushButton(self.tr("Apply"), cell)
            button.setObjectName(f"apply_{found[r].key}")
            button.setToolTip(found[r].detail)
            button.setProperty("suggestion_row", r)
            button.clicked.connect(self._on_apply_clicked)
            cell_layout.addWidget(button, 0, Qt.AlignmentFlag.AlignVCenter)
            self.suggestion_view.setIndexWidget(
                self.suggestion_model.index(r, self.suggestion_model.APPLY_COLUMN), cell)
        self.suggestion_view.resizeColumnToContents(self.suggestion_model.APPLY_COLUMN)
        self.suggestion_view.resizeRowsToContents()

    # ------------------------------------------------------------------------------------------
    # Following the document
    # ------------------------------------------------------------------------------------------
    @Slot()
    def _on_plan_changed(self) -> None:
        doc = self._doc
        setup = doc.setup
        for widget, value in ((self.batch_spin, setup.batch_size),):
            if widget.value() != value:
                widget.blockSignals(True)
                widget.setValue(value)
                widget.blockSignals(False)
        i = self.precision_combo.findData(setup.precision)
        if self.precision_combo.currentIndex() != i:
            self.precision_combo.blockSignals(True)
            self.precision_combo.setCurrentIndex(i)
            self.precision_combo.blockSignals(False)
        for combo, text in ((self.optimizer_combo, setup.optimizer),):
            if combo.currentText() != text:
                combo.blockSignals(True)
                combo.setCurrentText(text)
                combo.blockSignals(False)
        i = self.mode_combo.findData(setup.mode)
        if self.mode_combo.currentIndex() != i:
            self.mode_combo.blockSignals(True)
            self.mode_combo.setCurrentIndex(i)
            self.mode_combo.blockSignals(False)
        if self.checkpoint_check.isChecked() != setup.checkpointing:
            self.checkpoint_check.blockSignals(True)
            self.checkpoint_check.setChecked(setup.checkpointing)
            self.checkpoint_check.blockSignals(False)
        self.checkpoint_check.setEnabled(setup.mode == "train")
        self.optimizer_combo.setEnabled(setup.mode == "train")
        self.set_parallel_controls(doc.parallel)

        est = doc.estimate
        problems = doc.analysis.problems
        if problems:
            lines = [tr_problem(p) for p in problems[:6]]
            if len(problems) > 6:
                lines.append(arg(self.tr("… and %1 more"), str(len(problems) - 6)))
            self.problems_label.setText("\n".join(lines))
            self.problems_label.setToolTip("\n".join(tr_problem(p) for p in problems))
        self.problems_label.setVisible(bool(problems))
        # No numbers from before an error or from an empty plan: the state, said plainly.
        if doc.is_empty:
            stale_msg = self.tr("Nothing to estimate yet: the plan has no layers. Add one "
                                "(Edit ▸ Add Layer), open a model or pick a preset.")
            detail = ""
        else:
            stale_msg = self.tr("Fix the errors to see the estimate")
            detail = doc.failure or ""
        self.breakdown.set_per_gpu(doc.per_gpu, doc.global_batch)
        if est is not None:
            self.breakdown.set_estimate(est, capacity_bytes=self.memory_bytes())
        else:
            self.breakdown.set_estimate(None, message=stale_msg + ("\n" + detail if detail
                                                                   else ""))
        self._chart_args = self._step_args = (est, {"stale": est is None, "message": (
            self.tr("Nothing to estimate yet") if doc.is_empty
            else self.tr("Fix the errors to see the estimate"))})
        if self._chart is not None:
            self._chart.set_estimate(est, **self._chart_args[1])
        self._set_chart_selected(self._chart_rows(doc.current_row))
        if self._step_chart is not None:
            self._step_chart.set_estimate(est, **self._step_args[1])
        self._update_max_batch()
        # The tables and the suggestions are filled when their tab is shown (or now, if it is).
        self._tables_dirty = True
        self._suggestions_dirty = True
        self._fit_dirty = True
        self._scaling_dirty = True
        self._refresh_current_tab()
        self._update_action_state()
        self.status_changed.emit(self.summary())

    def _update_max_batch(self) -> None:
        doc = self._doc
        if doc.estimate is None:
            self.max_batch_label.setText("—")
            self.max_batch_label.setToolTip(self.tr("Fix the errors to see the estimate"))
            return
        # On several GPUs what sharding saves per GPU is room for a larger per-GPU batch.
        n = largest_batch(doc.analysis, doc.setup, self.memory_bytes(), doc.assumptions,
                          freed_bytes=max(0, doc.result.sharding_saves))
        self.max_batch_label.setText(arg(self.tr("batch %1"), f"{n:,}") if n else
                                     self.tr("not even batch 1"))
        tip = tr_msg(largest_batch_explained(self.memory_bytes(), doc.assumptions))
        if doc.per_gpu is not None:
            tip += arg(self.tr(" (per GPU, on %1 GPUs)"), str(doc.parallel.world))
        self.max_batch_label.setToolTip(tip)
        self.breakdown.set_estimate(doc.estimate, capacity_bytes=self.memory_bytes())

    def _update_action_state(self) -> None:
        n = len(self._doc.draft.layers)
        row = self._doc.current_row
        # Inside a repeated block a layer cannot be added, removed or moved in one copy only
        # (the copies must stay alike): those actions wait for a row outside the block.
        inside = self.layer_model.block_of_layer(row) is not None if 0 <= row < n else False
        self.duplicate_action.setEnabled(0 < row < n and not inside)
        self.remove_action.setEnabled(0 < row < n and n > 1 and not inside)
        self.up_action.setEnabled(1 < row < n and not inside)
        self.down_action.setEnabled(0 < row < n - 1 and not inside)
        self.insert_menu.setEnabled(row > 0 and not inside)
        for action in (self.duplicate_action, self.remove_action, self.up_action,
                       self.down_action):
            action.setStatusTip(self.tr("A layer of a repeated block cannot be added, removed "
                                        "or moved in one copy alone") if inside else "")

        self._update_block_actions()

    def selected_layer_range(self):
        """(start, end) of the draft layers the table's selected rows show, and whether a
        repeated block's row or layer is among them; None with nothing selected."""
        model = self.layer_model
        rows = sorted({i.row() for i in self.layer_view.selectionModel().selectedRows()})
        if not rows:
            index = self.layer_view.currentIndex()
            rows = [index.row()] if index.isValid() else []
        if not rows:
            return None
        in_block = any(model.block_at(r) is not None for r in rows)
        return model.layer_index(rows[0]), model.layer_index(rows[-1]) + 1, in_block

    def _repeat_problem(self) -> str | None:
        """Why the selection cannot be made a repeated block (translated), or None."""
        from planner.core.repeat import repeatable  # noqa: PLC0415

        sel = self.selected_layer_range()
        if sel is None:
            return self.tr("Select the layers to repeat")
        start, end, in_block = sel
        if in_block:
            return self.tr("The selection is or crosses a repeated block")
        why = repeatable(self._doc.draft.layers, self._doc.draft.repeats, start, end)
        return tr_core(why) if why else None

    def _selected_block(self):
        """The repeated block whose row is the table's current row, or None."""
        block = self._current_block()
        return block[0] if block is not None and block[1] else None

    def _update_block_actions(self) -> None:
        why = self._repeat_problem()
        self.repeat_action.setEnabled(why is None)
        self.repeat_action.setStatusTip(why or self.repeat_action.toolTip())
        rep = self._selected_block()
        none = self.tr("Select a repeated block's row")
        for action in (self.copies_action, self.unrepeat_action):
            action.setEnabled(rep is not None)
            action.setStatusTip(action.toolTip() if rep is not None else none)

    def _ask_copies(self, title: str, label: str, value: int, low: int, high: int):
        number, ok = QInputDialog.getInt(self, title, label, value, low, high)
        return number if ok else None

    @Slot()
    def _on_repeat_triggered(self) -> None:
        from planner.core.repeat import RepeatError  # noqa: PLC0415

        if self._repeat_problem() is not None:
            return
        start, end, _ = self.selected_layer_range()
        times = self.ask_copies(self.tr("Repeat Layers"),
                                arg(self.tr("Copies of the %1 selected layers:"),
                                    str(end - start)), 2, 2, 1024)
        if times is None:
            return
        try:
            self._doc.repeat_layers(start, end, times)
        except RepeatError as exc:
            self._on_edit_rejected(exc_text(exc))
            return
        self._select_block_row(self._doc.draft.repeats[
            [r.first for r in self._doc.draft.repeats].index(start)])

    @Slot()
    def _on_copies_triggered(self) -> None:
        from planner.core.repeat import RepeatError  # noqa: PLC0415

        rep = self._selected_block()
        if rep is None:
            return
        times = self.ask_copies(self.tr("Set Copies"),
                                arg(self.tr("Copies of block %1 (Unrepeat Block makes it one "
                                            "copy):"), rep.name),
                                rep.times, min(2, rep.times), max(1024, rep.times))
        if times is None or times == rep.times:
            return
        try:
            self._doc.set_block_times(rep.name, times)
        except RepeatError as exc:
            self._on_edit_rejected(exc_text(exc))
            return
        self._select_block_row(self._doc.block(rep.name))

    @Slot()
    def _on_unrepeat_triggered(self) -> None:
        from planner.core.repeat import RepeatError  # noqa: PLC0415

        rep = self._selected_block()
        if rep is None:
            return
        try:
            self._doc.unrepeat_block(rep.name)
        except RepeatError as exc:
            self._on_edit_rejected(exc_text(exc))

    def _on_layer_context_menu(self, pos) -> None:
        menu = QMenu(self.layer_view)
        for action in (self.add_action, self.duplicate_action, self.remove_action, None,
                       self.repeat_action, self.copies_action, self.unrepeat_action):
            if action is None:
                menu.addSeparator()
            else:
                menu.addAction(action)
        menu.popup(self.layer_view.viewport().mapToGlobal(pos))

    # ---- repeated blocks in the layer table --------------------------------------------------
    def _current_block(self):
        """(Repeat, on its header row) for the table's current row, or None."""
        index = self.layer_view.currentIndex()
        return self.layer_model.block_at(index.row()) if index.isValid() else None

    def set_block_expanded(self, name: str, on: bool) -> None:
        """Show (on) or hide a repeated block's layers in the table; its row stays current."""
        reps = [r for r in self._doc.draft.repeats if r.name == name]
        if not reps or self.layer_model.is_expanded(name) == on:
            return
        rep = reps[0]
        block = self._current_block()
        on_its_row = block is not None and block[0] == rep and block[1]
        keep = self._doc.current_row
        self.layer_model.set_expanded(name, on)
        if on_its_row or (not on and rep.copy_of(keep) is not None):
            self._select_block_row(rep)
        else:
            self.select_row(keep)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802
        view = getattr(self, "layer_view", None)
        if view is not None and obj is view and event.type() == QEvent.Type.KeyPress:
            if view.state() != QAbstractItemView.State.EditingState and self._block_key(event):
                return True
        if (view is not None and obj is view.viewport()
                and event.type() == QEvent.Type.MouseButtonPress
                and event.button() == Qt.MouseButton.LeftButton):
            index = view.indexAt(event.position().toPoint())
            block = self.layer_model.block_at(index.row()) if index.isValid() else None
            if block is not None and block[1] and index.column() == COL_NAME:
                rect = view.visualRect(index)
                if event.position().x() < rect.left() + view.fontMetrics().height() + 8:
                    self._select_block_row(block[0])
                    self.set_block_expanded(block[0].name,
                                            not self.layer_model.is_expanded(block[0].name))
                    return True
        return super().eventFilter(obj, event)

    def _block_key(self, event) -> bool:
        block = self._current_block()
        if block is None or event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            return False
        rep, header = block
        key = event.key()
        opened = self.layer_model.is_expanded(rep.name)
        if header and key in (Qt.Key.Key_Right, Qt.Key.Key_Plus, Qt.Key.Key_Asterisk):
            if not opened:
                self.set_block_expanded(rep.name, True)
            elif key == Qt.Key.Key_Right:  # as in a tree: → on an open block goes into it
                self.select_row(rep.first)  # its first layer's row
            return True
        if key in (Qt.Key.Key_Left, Qt.Key.Key_Minus):
            if header and opened:
                self.set_block_expanded(rep.name, False)
            elif not header:  # ← on a block's layer goes to the block's row, − closes it
                if key == Qt.Key.Key_Minus:
                    self.set_block_expanded(rep.name, False)
                self._select_block_row(rep)
            return True
        return False

    def _select_block_row(self, rep) -> None:
        self.select_row(rep.first)
        header = self.layer_model.display_row(rep.first)
        if self.layer_model.is_expanded(rep.name):
            header -= 1  # the first layer's row follows the block's
            self.layer_view.selectionModel().setCurrentIndex(
                self.layer_model.index(header, COL_NAME),
                QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows)

    @Slot(QModelIndex)
    def _on_layer_double_clicked(self, index: QModelIndex) -> None:
        block = self.layer_model.block_at(index.row())
        if block is not None and block[1]:
            self.set_block_expanded(block[0].name,
                                    not self.layer_model.is_expanded(block[0].name))

    @Slot(int)
    def _on_current_row_changed(self, row: int) -> None:
        self.select_row(row)

    # ------------------------------------------------------------------------------------------
    # User edits
    # ------------------------------------------------------------------------------------------
    @Slot(QModelIndex, QModelIndex)
    def _on_table_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._selecting or not current.isValid():
            return
        row = self.layer_model.layer_index(current.row())
        self._doc.select_row(row)
        self.properties.show_row(row)
        self._set_chart_selected(self._chart_rows(row))
        self._update_action_state()

    @Slot(int)
    def _on_chart_layer_clicked(self, row: int) -> None:
        self.select_row(row)

    @Slot(QModelIndex)
    def _on_estimate_row_activated(self, index: QModelIndex) -> None:
        row = self.estimate_proxy.mapToSource(index).row()
        self.select_row(row)

    @Slot(str)
    def _on_edit_rejected(self, text: str) -> None:
        self.problems_label.setText(text)
        self.problems_label.setVisible(True)
        self.message.emit(text)

    def _new_layer(self, kind: str, row: int) -> LayerSpec:
        draft = self._doc.draft
        params = {}
        if kind == "add" and row >= 2:
            params["from"] = draft.layers[row - 2].name
        elif kind == "concat" and row >= 2:
            params["from"] = (draft.layers[row - 2].name,)
        base = {"conv2d": "conv", "conv3d": "conv", "activation": "act", "batchnorm": "bn",
                "fc": "fc", "maxpool": "pool", "avgpool": "pool"}.get(kind, kind)
        return LayerSpec(kind, draft.unique_name(base), params)

    def _insert(self, kind: str, row: int) -> None:
        layer = self._new_layer(kind, row)
        self._doc.insert_layer(row, layer, arg(self.tr("Add layer %1"), layer.name))

    def _row_after_current(self) -> int:
        """Where "add after the selected layer" inserts: after a repeated block as a whole
        when the selection is in one (a layer is not added to one copy alone)."""
        row = self._doc.current_row
        rep = self.layer_model.block_of_layer(row)
        return rep.first + rep.length * rep.times if rep is not None else row + 1

    @Slot()
    def _on_add_triggered(self) -> None:
        kind = self.sender().data()
        self._insert(kind, self._row_after_current())

    @Slot()
    def _on_insert_triggered(self) -> None:
        kind = self.sender().data()
        self._insert(kind, max(1, self._doc.current_row))

    @Slot()
    def _on_add_same_triggered(self) -> None:
        row = self._doc.current_row
        layers = self._doc.draft.layers
        kind = layers[row].kind if 0 < row < len(layers) else "conv2d"
        self._insert(kind, self._row_after_current())

    @Slot()
    def _on_duplicate_triggered(self) -> None:
        row = self._doc.current_row
        layers = self._doc.draft.layers
        if not 0 < row < len(layers):
            return
        layer = layers[row]
        copy = layer.replace(name=self._doc.draft.unique_name(layer.name))
        self._doc.insert_layer(row + 1, copy,
                               arg(self.tr("Duplicate layer %1"), layer.name))

    @Slot()
    def _on_remove_triggered(self) -> None:
        row = self._doc.current_row
        if row > 0:
            self._doc.remove_layer(row)

    @Slot()
    def _on_move_up_triggered(self) -> None:
        row = self._doc.current_row
        if row > 1:
            self._doc.move_layer(row, row - 1)

    @Slot()
    def _on_move_down_triggered(self) -> None:
        row = self._doc.current_row
        if 0 < row < len(self._doc.draft.layers) - 1:
            self._doc.move_layer(row, row + 1)

    def _change_setup(self, field: str, value) -> None:
        try:
            setup = replace(self._doc.setup, **{field: value})
        except ValueError as exc:
            self._on_edit_rejected(exc_text(exc))
            return
        self._doc.change_setup(setup, field)

    @Slot(int)
    def _on_batch_changed(self, value: int) -> None:
        self._change_setup("batch_size", value)

    @Slot(int)
    def _on_precision_index_changed(self, index: int) -> None:
        value = self.precision_combo.itemData(index)
        if value:
            self._change_setup("precision", value)

    @Slot(str)
    def _on_optimizer_changed(self, value: str) -> None:
        self._change_setup("optimizer", value)

    @Slot(int)
    def _on_mode_changed(self, _index: int) -> None:
        self._change_setup("mode", self.mode_combo.currentData())

    @Slot(bool)
    def _on_checkpointing_toggled(self, on: bool) -> None:
        self._change_setup("checkpointing", on)

    @Slot(int)
    def _on_parallel_changed(self, _value: int) -> None:
        try:
            parallel = Parallel(self.gpus_spin.value(), self.nodes_spin.value(),
                                self.strategy_combo.currentData() or "ddp")
        except ValueError as exc:
            self._on_edit_rejected(exc_text(exc))
            return
        self._doc.set_parallel(parallel)

    @Slot(float)
    def _on_memory_changed(self, _value: float) -> None:
        self._update_max_batch()
        self.status_changed.emit(self.summary())

    @Slot(int)
    def _on_tab_changed(self, _index: int) -> None:
        if self.isVisible():  # the user's choice (not a tab restored before the first show)
            self._views_deferred = False
        self._refresh_current_tab()

    def prepare_start(self) -> None:
        """What ``finish_start`` needs, made a turn of the event loop ahead of it: the per-layer
        chart's plot item (most of building the chart), if that is the view shown."""
        if self._views_deferred and self._chart is None and self._chart_item is None \
                and self.tabs.currentIndex() == self._chart_tab:
            import pyqtgraph as pg  # noqa: PLC0415

            self._chart_item = pg.PlotItem()

    def finish_start(self) -> None:
        """Build the result view shown, which ``defer_views`` kept for after the window's first
        picture (the per-layer chart, or the tab the window restored)."""
        if self._views_deferred:
            self._views_deferred = False
            self._refresh_current_tab()

    def _refresh_current_tab(self) -> None:
        if self._views_deferred:
            return
        index = self.tabs.currentIndex()
        if index == self._chart_tab:
            self.chart  # noqa: B018 - built when first shown
        elif index in (self._table_tab, self._classic_tab, self._suggestion_tab):
            self._ensure_tables()
        if index == self._suggestion_tab and self._suggestions_dirty:
            self.refresh_suggestions()
        elif index == self._fit_tab:
            self.ensure_fit_view()
        elif index == self._step_tab:
            self.step_chart  # noqa: B018 - built when first shown
        elif index == self._scaling_tab and self._scaling_dirty:
            self.refresh_scaling()
        elif index in (self._table_tab, self._classic_tab) and self._tables_dirty:
            self.refresh_tables()

    def refresh_tables(self) -> None:
        """Fill the per-layer and the article's tables now (otherwise done when shown)."""
        self._tables_dirty = False
        doc = self._doc
        est = doc.estimate  # None (an error, an empty plan): empty tables, not old numbers
        rows_before = self.estimate_model.rowCount()
        self.estimate_model.set_estimate(est)
        self.classic_model.set_estimate(est)
        if self.estimate_model.rowCount() != rows_before or not self._tables_sized:
            self._tables_sized = True
            self.estimate_view.resizeColumnsToContents()
            self.classic_view.resizeColumnsToContents()

    @Slot()
    def _on_apply_clicked(self) -> None:
        row = self.sender().property("suggestion_row")
        if row is not None:
            self.apply_suggestion(int(row))

    @Slot()
    def _on_assumptions_triggered(self) -> None:
        from planner.ui.planner.assumptions_dialog import AssumptionsDialog

        dialog = AssumptionsDialog(self._doc.assumptions, self)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self.set_assumptions(dialog.assumptions())

    def set_assumptions(self, assumptions: Assumptions) -> None:
        self._doc.set_assumptions(assumptions)
        self.assumptions_changed.emit(assumptions)


__all__ = ["PlannerPane", "QSizePolicy"]
