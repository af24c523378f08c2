"""The Planner pane's sections, one builder each: the layer edit actions and their menus, the
run settings bar ("How it runs"), the largest-batch row, the editor (tool bar, layer table,
problems line, properties) and the results (breakdown and the result tabs, whose tables are
built when first shown: ``ensure_tables``).

Each builder makes its section's widgets as children of the pane under the names the pane and
its tests use (``pane.batch_spin``, ``pane.layer_view``, ``pane.tabs``…) and connects them to
the pane's slots. The texts are translated with ``_tr``, in the pane's translation context.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QSortFilterProxyModel, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QTableView,
    QTabWidget,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from planner.core.layers import KINDS, RULES
from planner.core.network import (
    MAX_BATCH, MODES, OPTIMIZERS, PRECISION_LABELS, PRECISION_SHORT, PRECISIONS)
from planner.core.parallel import STRATEGIES
from planner.ui.flow import FlowLayout, group
from planner.ui.i18n import tr_core
from planner.ui.planner.breakdown import BreakdownBar
from planner.ui.planner.layer_table import COL_PARAMS, LayerTableModel, LayerTypeDelegate
from planner.ui.planner.properties import LayerPropertiesPanel
from planner.ui.tables import row_table

if TYPE_CHECKING:
    from planner.ui.planner.charts import LayerChart, StepChart
    from planner.ui.planner.pane import PlannerPane


def _tr(text: str) -> str:
    return QCoreApplication.translate("PlannerPane", text)

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


def build_actions(pane: PlannerPane) -> None:
    pane.add_menu = QMenu(_tr("Add Layer of &Type"), pane)
    pane.insert_menu = QMenu(_tr("&Insert Layer Before"), pane)
    # their layer types (two actions a type) are put in when one is first opened
    pane._kind_menus_filled = False
    pane.add_menu.aboutToShow.connect(pane.fill_kind_menus)
    pane.insert_menu.aboutToShow.connect(pane.fill_kind_menus)
    pane.add_action = QAction(_tr("&Add Layer"), pane)
    pane.add_action.setShortcut(QKeySequence(Qt.Modifier.CTRL | Qt.Key.Key_Return))
    pane.add_action.setToolTip(_tr("Add a layer of the same type after the selected one"))
    pane.add_action.triggered.connect(pane._on_add_same_triggered)
    pane.duplicate_action = QAction(_tr("&Duplicate Layer"), pane)
    pane.duplicate_action.setShortcut(QKeySequence(Qt.Modifier.CTRL | Qt.Key.Key_D))
    pane.duplicate_action.triggered.connect(pane._on_duplicate_triggered)
    pane.remove_action = QAction(_tr("&Remove Layer"), pane)
    pane.remove_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Delete))
    pane.remove_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
    pane.remove_action.triggered.connect(pane._on_remove_triggered)
    pane.up_action = QAction(_tr("Move &Up"), pane)
    pane.up_action.setShortcut(QKeySequence(Qt.Modifier.CTRL | Qt.Key.Key_Up))
    pane.up_action.triggered.connect(pane._on_move_up_triggered)
    pane.down_action = QAction(_tr("Move Do&wn"), pane)
    pane.down_action.setShortcut(QKeySequence(Qt.Modifier.CTRL | Qt.Key.Key_Down))
    pane.down_action.triggered.connect(pane._on_move_down_triggered)
    # Repeated blocks: the selected layers made a block "× N", its count changed, or the
    # block made plain layers again (one copy). ``ask_copies(title, label, value, low,
    # high)`` asks for a number (None: cancelled); tests replace it.
    pane.repeat_action = QAction(_tr("Re&peat Layers…"), pane)
    pane.repeat_action.setToolTip(_tr("Make the selected layers a repeated block of "
                                      "several copies (one row in the editor)"))
    pane.repeat_action.triggered.connect(pane._on_repeat_triggered)
    pane.copies_action = QAction(_tr("Set &Copies…"), pane)
    pane.copies_action.setToolTip(_tr("Change how many copies the selected repeated "
                                      "block has"))
    pane.copies_action.triggered.connect(pane._on_copies_triggered)
    pane.unrepeat_action = QAction(_tr("U&nrepeat Block"), pane)
    pane.unrepeat_action.setToolTip(_tr("Turn the selected repeated block back into "
                                        "plain layers (one copy)"))
    pane.unrepeat_action.triggered.connect(pane._on_unrepeat_triggered)
    pane.ask_copies = pane._ask_copies
    pane.insert_menu.addSeparator()
    pane.insert_menu.addAction(pane.repeat_action)
    pane.assumptions_action = QAction(_tr("Estimate &Assumptions…"), pane)
    pane.assumptions_action.triggered.connect(pane._on_assumptions_triggered)


def fill_kind_menus(pane: PlannerPane) -> None:
    """The layer types of Add Layer of Type and Insert Layer Before (done when either is
    first opened: they are not needed for the first picture)."""
    if pane._kind_menus_filled:
        return
    pane._kind_menus_filled = True
    tail = pane.insert_menu.actions()  # the separator and Repeat Layers…, kept last
    before = tail[0] if tail else None
    for kind in KINDS:
        if kind == "input":
            continue
        label = tr_core(RULES[kind].label)
        add = pane.add_menu.addAction(label)
        add.setData(kind)
        add.setToolTip(tr_core(RULES[kind].help))
        add.triggered.connect(pane._on_add_triggered)
        ins = QAction(label, pane.insert_menu)
        pane.insert_menu.insertAction(before, ins)
        ins.setData(kind)
        ins.setToolTip(tr_core(RULES[kind].help))
        ins.triggered.connect(pane._on_insert_triggered)


def build_ui(pane: PlannerPane, memory_gib: float) -> None:
    root = QVBoxLayout(pane)
    root.setContentsMargins(6, 6, 6, 6)
    root.addWidget(build_setup_bar(pane, memory_gib))
    splitter = QSplitter(Qt.Orientation.Horizontal, pane)
    splitter.setChildrenCollapsible(False)
    splitter.addWidget(build_editor(pane))
    splitter.addWidget(build_results(pane))
    splitter.setStretchFactor(0, 3)
    splitter.setStretchFactor(1, 4)
    # Sized from the width at the first show (``showEvent``) unless a saved layout was
    # restored: the results side gets what a two-column breakdown and the fit table need.
    pane._initial_split = [400, 1000]
    splitter.setSizes(pane._initial_split)
    root.addWidget(splitter, 1)
    pane.splitter = splitter


def build_setup_bar(pane: PlannerPane, memory_gib: float) -> QWidget:
    """"How it runs": batch, precision, optimizer, mode, checkpointing, then the GPUs (the
    largest-batch row is built here too; the results side shows it)."""
    box = QGroupBox(_tr("How it runs"), pane)
    # wraps onto more lines in a narrow window (1024 px) or a longer language
    row = FlowLayout(box, h_spacing=12, v_spacing=4)
    pane.batch_spin = QSpinBox(box)
    pane.batch_spin.setRange(1, MAX_BATCH)
    pane.batch_spin.setKeyboardTracking(False)
    pane.batch_spin.setAccelerated(True)
    pane.batch_spin.setToolTip(_tr("Samples per iteration (mini-batch size)"))
    pane.batch_spin.valueChanged.connect(pane._on_batch_changed)
    pane.precision_combo = QComboBox(box)
    for key in PRECISIONS:
        pane.precision_combo.addItem(tr_core(PRECISION_SHORT[key]), key)
        pane.precision_combo.setItemData(pane.precision_combo.count() - 1,
                                         tr_core(PRECISION_LABELS[key]),
                                         Qt.ItemDataRole.ToolTipRole)
    pane.precision_combo.setToolTip(_tr(
        "How the step runs in PyTorch: fp32 (its defaults), strict fp32 or TF32; mixed "
        "precision with torch.autocast (fp16 with GradScaler, or bf16); or pure 16-bit "
        "weights"))
    pane.precision_combo.currentIndexChanged.connect(pane._on_precision_index_changed)
    pane.optimizer_combo = QComboBox(box)
    pane.optimizer_combo.addItems(list(OPTIMIZERS))
    pane.optimizer_combo.setToolTip(_tr(
        "Optimizer state per parameter: SGD none, momentum one, Adam/AdamW two"))
    pane.optimizer_combo.currentTextChanged.connect(pane._on_optimizer_changed)
    pane.mode_combo = QComboBox(box)
    for mode in MODES:
        pane.mode_combo.addItem(_tr("training") if mode == "train" else
                                _tr("inference"), mode)
    pane.mode_combo.currentIndexChanged.connect(pane._on_mode_changed)
    pane.checkpoint_check = QCheckBox(_tr("Checkpointing"), box)
    pane.checkpoint_check.setToolTip(_tr(
        "Gradient checkpointing: keep only √n segment outputs and recompute the rest during "
        "backward (about a third more compute)"))
    pane.checkpoint_check.toggled.connect(pane._on_checkpointing_toggled)
    for label, widget in ((_tr("Batch"), pane.batch_spin),
                          (_tr("Precision"), pane.precision_combo),
                          (_tr("Optimizer"), pane.optimizer_combo),
                          (_tr("Mode"), pane.mode_combo)):
        lab = QLabel(label, box)
        lab.setBuddy(widget)
        row.addWidget(group(box, lab, widget))
    row.addWidget(pane.checkpoint_check)
    add_parallel_settings(pane, box, row)
    pane._fit_widget = build_fit_row(pane, memory_gib)
    return box


def _count_spin(box: QWidget, name: str, most: int, tip: str) -> QSpinBox:
    """A count from 1 to ``most`` that is taken when typed in full (no keyboard tracking)."""
    spin = QSpinBox(box)
    spin.setObjectName(name)
    spin.setRange(1, most)
    spin.setKeyboardTracking(False)
    spin.setToolTip(tip)
    return spin


def add_parallel_settings(pane: PlannerPane, box: QWidget, row: FlowLayout) -> None:
    """GPUs per machine, machines and the strategy that shares the memory out, at the end of
    the run settings bar."""
    pane.gpus_spin = _count_spin(box, "gpus_spin", 64, _tr(
        "GPUs per machine (data parallel; the batch above is per GPU)"))
    pane.nodes_spin = _count_spin(box, "nodes_spin", 4096, _tr(
        "Machines (nodes); between them the gradients cross the network"))
    pane.strategy_combo = QComboBox(box)
    pane.strategy_combo.setObjectName("strategy_combo")
    for i, key in enumerate(STRATEGIES):
        pane.strategy_combo.addItem(STRATEGY_LABELS[key], key)
        pane.strategy_combo.setItemData(i, _tr(STRATEGY_TIPS[key]),
                                        Qt.ItemDataRole.ToolTipRole)
    pane.strategy_combo.setToolTip(_tr(
        "How the memory is shared out: DDP replicates everything; ZeRO 1/2/3 and FSDP split "
        "optimizer state, gradients and weights over the GPUs"))
    pane.gpus_spin.valueChanged.connect(pane._on_parallel_changed)
    pane.nodes_spin.valueChanged.connect(pane._on_parallel_changed)
    pane.strategy_combo.currentIndexChanged.connect(pane._on_parallel_changed)
    for label, widget in ((_tr("GPUs"), pane.gpus_spin),
                          (_tr("Nodes"), pane.nodes_spin),
                          (_tr("Strategy"), pane.strategy_combo)):
        lab = QLabel(label, box)
        lab.setBuddy(widget)
        lab.setToolTip(widget.toolTip())
        row.addWidget(group(box, lab, widget))


def build_fit_row(pane: PlannerPane, memory_gib: float) -> QWidget:
    box = QWidget(pane)
    row = QHBoxLayout(box)
    row.setContentsMargins(8, 0, 0, 0)
    fit = QLabel(_tr("Largest batch that fits in"), box)
    pane.memory_spin = QDoubleSpinBox(box)
    pane.memory_spin.setRange(0.5, 1024.0)
    pane.memory_spin.setDecimals(1)
    pane.memory_spin.setSingleStep(1.0)
    pane.memory_spin.setSuffix(" GiB")
    pane.memory_spin.setValue(memory_gib)
    pane.memory_spin.setKeyboardTracking(False)
    pane.memory_spin.setToolTip(_tr("A card's memory, as nvidia-smi shows it (GiB)"))
    pane.memory_spin.valueChanged.connect(pane._on_memory_changed)
    pane.max_batch_label = QLabel(box)
    pane.max_batch_label.setMinimumWidth(90)
    font = pane.max_batch_label.font()
    font.setBold(True)
    pane.max_batch_label.setFont(font)
    row.addWidget(fit)
    row.addWidget(pane.memory_spin)
    row.addWidget(QLabel("→", box))
    row.addWidget(pane.max_batch_label)
    row.addStretch(1)
    button = QToolButton(box)
    button.setDefaultAction(pane.assumptions_action)
    button.setText(_tr("Assumptions…"))
    button.setToolTip(_tr("Edit the figures the estimate takes on trust (CUDA context, "
                          "workspace, allocator rounding)"))
    row.addWidget(button)
    return box


def build_edit_bar(pane: PlannerPane, panel: QWidget) -> QToolBar:
    """Add (with its menu of layer types), Insert, Duplicate, Remove, Move up and down."""
    bar = QToolBar(panel)
    bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
    add_button = QToolButton(bar)
    add_button.setDefaultAction(pane.add_action)
    add_button.setText(_tr("Add"))
    add_button.setMenu(pane.add_menu)
    add_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
    bar.addWidget(add_button)
    insert_button = QToolButton(bar)
    insert_button.setText(_tr("Insert"))
    insert_button.setToolTip(_tr("Insert a layer before the selected one"))
    insert_button.setMenu(pane.insert_menu)
    insert_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
    bar.addWidget(insert_button)
    for action in (pane.duplicate_action, pane.remove_action, pane.up_action,
                   pane.down_action):
        bar.addAction(action)
    return bar


def build_layer_table(pane: PlannerPane, panel: QWidget) -> None:
    """The layer table (inline editing, a contiguous selection for Repeat Layers…), its
    columns' widths, its context menu and the keys and clicks of repeated blocks."""
    pane.layer_model = LayerTableModel(pane._doc, pane)
    pane.layer_model.edit_rejected.connect(pane._on_edit_rejected)
    pane.layer_view = row_table(pane.layer_model, panel)
    pane.layer_view.setObjectName("layer_table")
    pane.layer_view.setItemDelegateForColumn(2, LayerTypeDelegate(pane.layer_view))
    # A contiguous range of rows can be selected (Shift+click, Shift+↓): Repeat Layers…
    pane.layer_view.setSelectionMode(QAbstractItemView.SelectionMode.ContiguousSelection)
    pane.layer_view.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                    | QAbstractItemView.EditTrigger.EditKeyPressed
                                    | QAbstractItemView.EditTrigger.AnyKeyPressed)
    header = pane.layer_view.horizontalHeader()
    # The parameters keep a readable width (the table scrolls sideways when the editor is
    # narrow) instead of being squeezed to "filters=64 …" or, in Chinese, to "…".
    header.setSectionResizeMode(COL_PARAMS, QHeaderView.ResizeMode.Interactive)
    header.setStretchLastSection(True)
    fm = pane.layer_view.fontMetrics()
    hfm = header.fontMetrics()
    for col, sample in ((0, "0000"), (1, "layer4.2.conv3x"), (2, "Adaptive avg pool"),
                        (COL_PARAMS, "filters=256 kernel=3×3 stride=2"),
                        (4, "2048×56×56"), (5, "25.56 M"), (6, "9999.9 MiB")):
        title = str(pane.layer_model.headerData(col, Qt.Orientation.Horizontal))
        header.resizeSection(col, max(fm.horizontalAdvance(sample),
                                      hfm.horizontalAdvance(title)) + 20)
    pane.layer_view.selectionModel().currentRowChanged.connect(pane._on_table_row_changed)
    pane.layer_view.addAction(pane.remove_action)
    pane.layer_view.selectionModel().selectionChanged.connect(
        lambda *_: pane._update_action_state())
    pane.layer_view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
    pane.layer_view.customContextMenuRequested.connect(pane._on_layer_context_menu)
    # A repeated block's row opens and closes with →/+ and ←/−, a double-click or a click
    # on its arrow (the keys a tree view uses).
    pane.layer_view.installEventFilter(pane)
    pane.layer_view.viewport().installEventFilter(pane)
    pane.layer_view.doubleClicked.connect(pane._on_layer_double_clicked)


def build_editor(pane: PlannerPane) -> QWidget:
    """The left side: the edit tool bar, the layer table with the problems line under it,
    and the selected layer's properties."""
    panel = QWidget(pane)
    layout = QVBoxLayout(panel)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(build_edit_bar(pane, panel))
    build_layer_table(pane, panel)
    table_box = QWidget(panel)
    tl = QVBoxLayout(table_box)
    tl.setContentsMargins(0, 0, 0, 0)
    tl.addWidget(pane.layer_view, 1)

    pane.problems_label = QLabel(panel)
    pane.problems_label.setObjectName("problems")
    pane.problems_label.setWordWrap(True)
    pane.problems_label.setStyleSheet(_ERROR_STYLE)
    pane.problems_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    pane.problems_label.setVisible(False)
    tl.addWidget(pane.problems_label)

    pane.properties = LayerPropertiesPanel(pane._doc, panel)
    pane.properties.edit_rejected.connect(pane._on_edit_rejected)
    scroll = QScrollArea(panel)
    scroll.setWidget(pane.properties)
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


def build_results(pane: PlannerPane) -> QWidget:
    panel = QWidget(pane)
    layout = QVBoxLayout(panel)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(pane._fit_widget)
    pane.breakdown = BreakdownBar(panel)
    pane.breakdown.setObjectName("breakdown")
    layout.addWidget(pane.breakdown)
    pane.tabs = QTabWidget(panel)
    pane.tabs.setObjectName("result_tabs")
    layout.addWidget(pane.tabs, 1)

    # The charts are plots (pyqtgraph, imported with them): the per-layer chart is built
    # after the window's first picture (``finish_start``) or when first shown or asked for
    # (``chart``); the step chart when its tab is first shown. Until then the pane keeps
    # what each would show (``_chart_args``, ``_step_args``).
    pane._chart: LayerChart | None = None
    pane._chart_args: tuple[object, dict] | None = None  # (estimate, keywords)
    pane._chart_selected: object = ()  # the rows it highlights
    pane._chart_item = None  # its plot item, made a turn ahead (prepare_start)
    pane._chart_holder = QWidget(pane.tabs)
    pane._chart_holder.setObjectName("chart_holder")
    QVBoxLayout(pane._chart_holder).setContentsMargins(0, 0, 0, 0)
    pane._chart_tab = pane.tabs.addTab(pane._chart_holder, _tr("Per-layer chart"))
    pane._step_chart: StepChart | None = None
    pane._step_args: tuple[object, dict] | None = None  # (estimate, keywords)
    pane._step_holder = QWidget(pane.tabs)
    pane._step_holder.setObjectName("step_holder")
    QVBoxLayout(pane._step_holder).setContentsMargins(0, 0, 0, 0)
    pane._step_tab = pane.tabs.addTab(pane._step_holder, _tr("Memory over the step"))

    # The per-layer table, the article's accounting and "What would help" are built
    # when one of them is first shown or asked for (``_ensure_tables``), off the start-up
    # path; until then their tabs hold empty pages.
    pane._tables_built = False
    pane._tables_sized = False
    pane._table_page = tab_page(pane, "table_page", margins=False)
    pane._table_tab = pane.tabs.addTab(pane._table_page, _tr("Per-layer table"))
    pane._classic_page = tab_page(pane, "classic_page")
    pane._classic_tab = pane.tabs.addTab(pane._classic_page, _tr("Article's accounting"))
    pane._suggestion_page = tab_page(pane, "suggestion_page")
    pane._suggestion_tab = pane.tabs.addTab(pane._suggestion_page,
                                            _tr("What would help"))

    pane._fit_holder = QWidget(pane.tabs)
    pane._fit_holder.setObjectName("fit_holder")
    fl = QVBoxLayout(pane._fit_holder)
    fl.setContentsMargins(0, 0, 0, 0)
    pane._fit_tab = pane.tabs.addTab(pane._fit_holder, _tr("Fits on each card"))
    pane.tabs.setTabToolTip(pane._fit_tab, _tr(
        "Every card of the catalog: does the plan fit, the largest batch, speed and price"))
    # The scaling view (a plot) is built when its tab is first shown, off the start-up path.
    pane._scaling_view = None
    pane._scaling_holder = QWidget(pane.tabs)
    pane._scaling_holder.setObjectName("scaling_holder")
    QVBoxLayout(pane._scaling_holder).setContentsMargins(0, 0, 0, 0)
    pane._scaling_tab = pane.tabs.addTab(pane._scaling_holder, _tr("Several GPUs"))
    pane.tabs.setTabToolTip(pane._scaling_tab, _tr(
        "The scaling curve over 1…N GPUs, and how many copies of the run one card holds"))
    if pane._catalog is None:
        pane.tabs.setTabEnabled(pane._fit_tab, False)
    pane.tabs.currentChanged.connect(pane._on_tab_changed)
    # Exports (File ▸ Export, Ctrl+E, the Export button, each view's context menu)
    from planner.ui.exporting import PlanExporter  # noqa: PLC0415

    pane.exporter = PlanExporter(pane)
    pane.tabs.setCornerWidget(pane.exporter.button, Qt.Corner.TopRightCorner)
    pane.exporter.attach(pane.breakdown, "breakdown")
    return panel


def tab_page(pane: PlannerPane, name: str, *, margins: bool = True) -> QWidget:
    page = QWidget(pane.tabs)
    page.setObjectName(name)
    layout = QVBoxLayout(page)
    if not margins:
        layout.setContentsMargins(0, 0, 0, 0)
    return page


def ensure_tables(pane: PlannerPane) -> None:
    """Build the per-layer table, the article's accounting and "What would help" (their
    models and views), once."""
    if pane._tables_built:
        return
    pane._tables_built = True
    from planner.ui.planner.results import (  # noqa: PLC0415 (off the start-up path)
        SORT_ROLE,
        ClassicTableModel,
        LayerEstimateTableModel,
        SuggestionTableModel,
    )

    pane.estimate_model = LayerEstimateTableModel(pane)
    pane.estimate_proxy = QSortFilterProxyModel(pane)
    pane.estimate_proxy.setSourceModel(pane.estimate_model)
    pane.estimate_proxy.setSortRole(SORT_ROLE)
    pane.estimate_view = read_only_view(pane, pane.estimate_proxy)
    pane.estimate_view.setSortingEnabled(True)
    pane.estimate_view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    pane.estimate_view.doubleClicked.connect(pane._on_estimate_row_activated)
    pane._table_page.layout().addWidget(pane.estimate_view)

    classic = pane._classic_page
    cl = classic.layout()
    note = QLabel(_tr(
        "The article's accounting: for each layer, its output (activation) plus the error "
        "(the gradient of that output), at the batch and precision above; the input has no "
        "error. A framework keeps different tensors (see the per-layer table), so this is "
        "for checking the article's worked example, not for sizing a card."), classic)
    note.setWordWrap(True)
    cl.addWidget(note)
    pane.classic_model = ClassicTableModel(pane)
    pane.classic_view = read_only_view(pane, pane.classic_model)
    pane.classic_view.horizontalHeader().setSectionResizeMode(
        3, QHeaderView.ResizeMode.Stretch)
    pane.classic_view.verticalHeader().setSectionResizeMode(
        QHeaderView.ResizeMode.ResizeToContents)
    pane.classic_view.setWordWrap(True)
    cl.addWidget(pane.classic_view, 1)

    helps = pane._suggestion_page
    hl = helps.layout()
    intro = QLabel(_tr(
        "What each of the article's memory-reduction techniques would save on this network, "
        "largest saving first. Each throws information away or costs speed: read the "
        "caution. Apply is one undoable edit."), helps)
    intro.setWordWrap(True)
    hl.addWidget(intro)
    pane.suggestion_model = SuggestionTableModel(pane)
    pane.suggestion_view = read_only_view(pane, pane.suggestion_model)
    pane.suggestion_view.setWordWrap(True)
    sh = pane.suggestion_view.horizontalHeader()
    sh.setStretchLastSection(False)
    sh.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    sh.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    pane.suggestion_view.verticalHeader().setSectionResizeMode(
        QHeaderView.ResizeMode.ResizeToContents)
    hl.addWidget(pane.suggestion_view, 1)
    pane.suggestion_empty = QLabel(helps)
    pane.suggestion_empty.setWordWrap(True)
    pane.suggestion_empty.setVisible(False)
    hl.addWidget(pane.suggestion_empty)

    for model in (pane.estimate_model, pane.suggestion_model):
        model.format_bytes = pane.format_bytes
    pane.exporter.attach(pane.estimate_view, "layers")


def read_only_view(pane: PlannerPane, model) -> QTableView:
    view = row_table(model, pane.tabs)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.horizontalHeader().setStretchLastSection(True)
    return view
