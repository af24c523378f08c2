"""The Monitor pane's sections, one builder each: the banner, the source line, the alert line,
the replay bar, the controls, the cards table, the plots, the processes box and the stack
that shows them (or the empty state's explanation).

Each builder makes its section's widgets as children of the pane, under the names the pane
and its tests use (``pane.banner``, ``pane.card_combo``, ``pane.gpu_table``…), and connects
them to the pane's slots; ``build_ui`` lays the sections out. The fixed texts are translated
with ``_tr`` (the pane's translation context), which the pane's ``TextBindings`` notes while
the builders run, so a change of language shows them again without a rebuild.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from planner.i18n import QT_TRANSLATE_NOOP
from planner.telemetry.sampler import MAX_INTERVAL_S, MIN_INTERVAL_S
from planner.ui.flow import FlowLayout, group
from planner.ui.monitor.models import GpuTableModel, ProcessTableModel
from planner.ui.monitor.plots import take_plots
from planner.ui.monitor.tables import fit_process_columns, row_table

if TYPE_CHECKING:
    from planner.ui.monitor.pane import MonitorPane


def _tr(text: str) -> str:
    return QCoreApplication.translate("MonitorPane", text)


WINDOWS: tuple[tuple[str, float | None], ...] = (
    (QT_TRANSLATE_NOOP("MonitorPane", "1 min"), 60.0),
    (QT_TRANSLATE_NOOP("MonitorPane", "10 min"), 600.0),
    (QT_TRANSLATE_NOOP("MonitorPane", "1 h"), 3600.0),
    (QT_TRANSLATE_NOOP("MonitorPane", "Whole session"), None))


def _tinted_frame(pane: MonitorPane, name: str, css: str) -> QFrame:
    """A frame in its own colours (``css``: the body of its style rule)."""
    frame = QFrame(pane)
    frame.setObjectName(name)
    frame.setStyleSheet(f"#{name} {{ {css} }}")
    return frame


def build_ui(pane: MonitorPane) -> None:
    """The pane, section by section (each builder makes its widgets; this lays them out)."""
    build_banner(pane)
    src = build_source_line(pane)
    build_alert_line(pane)
    build_replay_bar(pane)
    controls = build_controls(pane)
    build_card_table(pane)
    build_plots(pane)
    build_process_box(pane)
    build_stack(pane)

    layout = QVBoxLayout(pane)
    layout.setContentsMargins(6, 6, 6, 6)
    layout.addWidget(pane.banner)
    layout.addLayout(src)
    layout.addWidget(pane.alert_label)
    layout.addWidget(pane.replay_bar)
    layout.addLayout(controls)
    layout.addWidget(pane.stack, 1)
    layout.addWidget(pane.status_label)
    pane._set_empty(_tr("Waiting for the first sample…"))


def build_banner(pane: MonitorPane) -> None:
    """The yellow banner: no telemetry (with the demo button), or the cluster's state."""
    pane.banner = _tinted_frame(pane, "monitorBanner", "background: #fff4ce; border: 1px "
                                "solid #e0c060; border-radius: 4px;")
    pane.banner_label = QLabel("", pane.banner)
    pane.banner_label.setWordWrap(True)
    pane.demo_button = QPushButton(_tr("Try the simulated demo"), pane.banner)
    pane.demo_button.clicked.connect(pane.switch_to_demo)
    bl = QHBoxLayout(pane.banner)
    bl.setContentsMargins(10, 6, 10, 6)
    bl.addWidget(pane.banner_label, 1)
    bl.addWidget(pane.demo_button)
    pane.banner_local_button = QPushButton(_tr("Local cards"), pane.banner)
    pane.banner_local_button.setToolTip(_tr("Stop watching the cluster and show this "
                                                "computer's cards again"))
    pane.banner_local_button.clicked.connect(pane.switch_to_local)
    pane.banner_local_button.setVisible(False)
    bl.addWidget(pane.banner_local_button)
    pane.banner.setVisible(False)


def build_source_line(pane: MonitorPane) -> QHBoxLayout:
    """SIMULATED badge, where the data comes from, the recording, Cluster… / Local cards."""
    pane.simulated_label = QLabel(_tr("SIMULATED"), pane)
    pane.simulated_label.setObjectName("simulatedBadge")
    pane.simulated_label.setStyleSheet(
        "#simulatedBadge { background: #6a3d9a; color: white; font-weight: bold; "
        "padding: 2px 8px; border-radius: 3px; }")
    pane.simulated_label.setToolTip(_tr("Every value shown comes from a simulated source, "
                                       "not from a GPU"))
    pane.source_label = QLabel("", pane)
    pane.recording_label = QLabel("", pane)
    pane.recording_label.setTextInteractionFlags(
        Qt.TextInteractionFlag.TextSelectableByMouse)
    pane.source_label.setSizePolicy(QSizePolicy.Policy.Ignored,
                                    QSizePolicy.Policy.Preferred)
    pane.cluster_button = QPushButton(_tr("Cluster…"), pane)
    pane.cluster_button.setToolTip(_tr("Watch the GPUs of a cluster through a "
                                           "Prometheus server (dcgm-exporter)"))
    pane.cluster_button.clicked.connect(pane.open_cluster_dialog)
    pane.local_button = QPushButton(_tr("Local cards"), pane)
    pane.local_button.setToolTip(_tr("Stop watching the cluster and show this "
                                         "computer's cards again"))
    pane.local_button.clicked.connect(pane.switch_to_local)
    pane.local_button.setVisible(False)
    src = QHBoxLayout()
    src.addWidget(pane.simulated_label)
    src.addWidget(pane.source_label, 1)
    src.addWidget(pane.recording_label)
    src.addWidget(pane.cluster_button)
    src.addWidget(pane.local_button)
    return src


def build_alert_line(pane: MonitorPane) -> None:
    pane.alert_label = QLabel("", pane)
    pane.alert_label.setObjectName("alertLine")
    pane.alert_label.setWordWrap(True)
    pane.alert_label.setStyleSheet("#alertLine { background: #fde0dc; color: #8a1c12; "
                                   "border: 1px solid #e8a39b; padding: 3px 8px; }")
    pane.alert_label.setVisible(False)


def build_replay_bar(pane: MonitorPane) -> None:
    """Shown during a replay: what is replayed, the session chooser, Back to live."""
    pane.replay_bar = _tinted_frame(pane, "replayBar",
                                    "background: #dbe9f7; border: 1px solid #8fb3d9;")
    pane.replay_label = QLabel("", pane.replay_bar)
    f = QFont(pane.replay_label.font())
    f.setBold(True)
    pane.replay_label.setFont(f)
    pane.replay_label.setWordWrap(True)  # a long one (what the recording lost) wraps
    # A recording holds one session per run of the monitor (and a new one whenever the set
    # of cards changed): this chooses which one is replayed; shown when there are several.
    pane.session_combo = QComboBox(pane.replay_bar)
    pane.session_combo.setSizeAdjustPolicy(
        QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    pane.session_combo.setMinimumContentsLength(32)  # the full text is in the list
    pane.session_combo.setToolTip(_tr("The session of this recording to replay"))
    pane.session_combo.setVisible(False)
    pane.session_combo.activated.connect(pane._on_session_chosen)
    pane.live_button = QPushButton(_tr("Back to live"), pane.replay_bar)
    pane.live_button.clicked.connect(pane.stop_replay)
    rl = QHBoxLayout(pane.replay_bar)
    rl.setContentsMargins(8, 3, 8, 3)
    rl.addWidget(pane.replay_label, 1)
    rl.addWidget(pane.session_combo)
    rl.addWidget(pane.live_button)
    pane.replay_bar.setVisible(False)


def build_controls(pane: MonitorPane) -> FlowLayout:
    """Card, time window, interval, pause, alert thresholds, exports, recordings."""
    build_view_controls(pane)
    build_alert_and_file_controls(pane)
    # one bar that wraps onto a second line when the window is narrow (1024 px, Chinese)
    controls = FlowLayout(h_spacing=12, v_spacing=4)
    controls.addWidget(group(pane, QLabel(_tr("Card:"), pane), pane.card_combo))
    controls.addWidget(group(pane, QLabel(_tr("Window:"), pane), pane.window_combo))
    controls.addWidget(group(pane, QLabel(_tr("Sample every"), pane),
                             pane.interval_spin))
    controls.addWidget(pane.pause_button)
    controls.addWidget(group(pane, QLabel(_tr("Alert at memory"), pane),
                             pane.memory_alert_spin, QLabel(_tr("or"), pane),
                             pane.temp_alert_spin))
    controls.addWidget(group(pane, pane.export_plot_button, pane.export_data_button,
                             pane.recordings_button))
    return controls


def build_view_controls(pane: MonitorPane) -> None:
    """What the plots show: the card, the time window, the interval, pause."""
    pane.card_combo = QComboBox(pane)
    pane.card_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
    pane.card_combo.currentIndexChanged.connect(pane._on_card_combo)
    pane.window_combo = QComboBox(pane)
    for text, seconds in WINDOWS:
        pane.window_combo.addItem(_tr(text), seconds)
    pane.window_combo.setCurrentIndex(1)
    pane.window_combo.currentIndexChanged.connect(pane._on_window_changed)
    pane.interval_spin = QDoubleSpinBox(pane)
    pane.interval_spin.setRange(MIN_INTERVAL_S, MAX_INTERVAL_S)
    pane.interval_spin.setDecimals(1)
    pane.interval_spin.setSingleStep(0.1)
    pane.interval_spin.setSuffix(_tr(" s"))
    pane.interval_spin.setValue(pane.bridge.interval_s)
    pane.interval_spin.setToolTip(_tr("Seconds between samples (0.1–10)"))
    pane.interval_spin.valueChanged.connect(pane._on_interval_changed)
    pane.pause_button = QPushButton(_tr("Pause plots"), pane)
    pane.pause_button.setCheckable(True)
    pane.pause_button.setToolTip(_tr("Freeze the plots; sampling and recording go on"))
    pane.pause_button.toggled.connect(pane.set_paused)


def build_alert_and_file_controls(pane: MonitorPane) -> None:
    """The alert thresholds, the exports and the recordings browser."""
    pane.export_plot_button = QPushButton(_tr("Export plot…"), pane)
    pane.export_plot_button.clicked.connect(pane._on_export_plot)
    pane.export_data_button = QPushButton(_tr("Export data…"), pane)
    pane.export_data_button.clicked.connect(pane._on_export_data)
    pane.recordings_button = QPushButton(_tr("Recordings…"), pane)
    pane.recordings_button.clicked.connect(pane.open_recordings)
    pane.memory_alert_spin = QSpinBox(pane)
    pane.memory_alert_spin.setRange(1, 100)
    pane.memory_alert_spin.setSuffix(" %")
    pane.memory_alert_spin.setValue(int(round(pane.alerts.memory_pct)))
    pane.memory_alert_spin.setToolTip(_tr("Alert when memory in use passes this share of "
                                         "the card's memory"))
    pane.memory_alert_spin.valueChanged.connect(pane._on_alert_thresholds)
    pane.temp_alert_spin = QSpinBox(pane)
    pane.temp_alert_spin.setRange(30, 120)
    pane.temp_alert_spin.setSuffix(" °C")
    pane.temp_alert_spin.setValue(int(round(pane.alerts.temperature_c)))
    pane.temp_alert_spin.setToolTip(_tr("Alert when a card's temperature passes this"))
    pane.temp_alert_spin.valueChanged.connect(pane._on_alert_thresholds)


def build_card_table(pane: MonitorPane) -> None:
    pane.gpu_model = GpuTableModel(pane)
    pane.gpu_table = row_table(pane, pane.gpu_model)
    pane.gpu_table.setWordWrap(False)
    hh = pane.gpu_table.horizontalHeader()
    # Interactive, fitted to the contents when the cards change and every few seconds:
    # ResizeToContents would measure every cell at every update (most of the pane's CPU)
    hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    hh.setStretchLastSection(True)
    pane.gpu_table.selectionModel().currentRowChanged.connect(pane._on_gpu_row)


def build_plots(pane: MonitorPane) -> None:
    pane.plots = take_plots(pane)  # made ahead by the window after its first picture, or now
    pane.plots.setMinimumHeight(320)
    pane.window_note = QLabel("", pane)
    pane.window_note.setStyleSheet("color: #555;")


def build_process_box(pane: MonitorPane) -> None:
    """The processes on the selected card, follow / compare with the plan."""
    pane.process_model = ProcessTableModel(pane)
    pane.process_table = row_table(pane, pane.process_model)
    ph = pane.process_table.horizontalHeader()
    ph.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    ph.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)  # the name takes the rest
    ph.setStretchLastSection(False)
    pane.process_model.modelReset.connect(lambda: fit_process_columns(pane))
    pane.process_table.setWordWrap(False)
    pane.process_table.setTextElideMode(Qt.TextElideMode.ElideRight)
    pane.process_table.selectionModel().selectionChanged.connect(pane._on_process_selected)
    pane.compare_button = QPushButton(_tr("Compare with plan"), pane)
    pane.compare_button.setToolTip(_tr("The plan's predicted peak against the peak of the "
                                      "followed process (or of the selected card)"))
    pane.compare_button.clicked.connect(pane.compare_with_plan)
    pane.unfollow_button = QPushButton(_tr("Stop following"), pane)
    pane.unfollow_button.clicked.connect(pane.unfollow)
    pane.unfollow_button.setEnabled(False)
    pane.comparison_label = QLabel(_tr("Select a process to follow its memory."), pane)
    pane.comparison_label.setWordWrap(True)
    pane.proc_box = proc_box = QGroupBox(_tr("Processes on the selected card"), pane)
    pl = QVBoxLayout(proc_box)
    pl.addWidget(pane.process_table, 1)
    pb = QHBoxLayout()
    pb.addWidget(pane.compare_button)
    pb.addWidget(pane.unfollow_button)
    pb.addStretch(1)
    pl.addLayout(pb)
    pl.addWidget(pane.comparison_label)


def build_stack(pane: MonitorPane) -> None:
    """Cards over plots and processes (splitters), or the empty state's explanation."""
    plot_box = QWidget(pane)
    pv = QVBoxLayout(plot_box)
    pv.setContentsMargins(0, 0, 0, 0)
    pv.addWidget(pane.plots, 1)
    pv.addWidget(pane.window_note)
    lower = QSplitter(Qt.Orientation.Horizontal, pane)
    lower.addWidget(plot_box)
    lower.addWidget(pane.proc_box)
    lower.setStretchFactor(0, 4)
    lower.setStretchFactor(1, 1)
    lower.setSizes([980, 400])
    pane.splitter = QSplitter(Qt.Orientation.Vertical, pane)
    pane.splitter.addWidget(pane.gpu_table)
    pane.splitter.addWidget(lower)
    pane.splitter.setStretchFactor(0, 0)
    pane.splitter.setStretchFactor(1, 1)
    pane.splitter.setSizes([150, 650])

    pane.empty_label = QLabel("", pane)
    pane.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    pane.empty_label.setWordWrap(True)
    pane.empty_label.setStyleSheet("color: #555; font-size: 13pt;")
    pane.stack = QStackedWidget(pane)
    pane.stack.addWidget(pane.empty_label)
    pane.stack.addWidget(pane.splitter)

    pane.status_label = QLabel("", pane)
    pane.status_label.setStyleSheet("color: #444;")
    pane.status_label.setSizePolicy(QSizePolicy.Policy.Ignored,
                                    QSizePolicy.Policy.Preferred)
