"""A dialog editing the estimate's Assumptions; each field's tooltip is Assumptions.describe().

Fields are laid out by type, so a field added to Assumptions appears without a change here:
byte counts in MiB/KiB/B spin boxes, switches in check boxes, fractions and seconds in
decimal spin boxes, whole numbers in spin boxes, the convolution algorithm in a combo box, and
per-architecture factors as "Kepler=0.6, Maxwell=0.85". Memory fields and speed-model fields
are in separate groups.
"""

from __future__ import annotations

from dataclasses import fields

from PySide6.QtCore import QCoreApplication, Qt, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QFrame,
    QLineEdit,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from planner.core.memory import CONV_ALGORITHMS, MEMORY_FORMATS, Assumptions
from planner.i18n import QT_TRANSLATE_NOOP
from planner.ui.i18n import tr_core

# Byte fields → (unit shown, bytes per unit). Any other *_bytes field is shown in MiB.
_UNITS = {
    "allocator_block_bytes": ("B", 1),
    "allocator_large_threshold_bytes": ("KiB", 1024),
    "allocator_segment_bytes": ("KiB", 1024),
    "allocator_large_segment_bytes": ("KiB", 1024),
    "allocator_min_large_alloc_bytes": ("KiB", 1024),
    "allocator_round_large_bytes": ("KiB", 1024),
    "cublas_workspace_bytes": ("KiB", 1024),
}
_MIB = ("MiB", 1024**2)


_LABELS = {
    "cuda_context_bytes": QT_TRANSLATE_NOOP("AssumptionsDialog", "CUDA context"),
    "library_handles_bytes": QT_TRANSLATE_NOOP("AssumptionsDialog", "Library handles"),
    "allocator_block_bytes": QT_TRANSLATE_NOOP("AssumptionsDialog", "Allocator block"),
    "allocator_large_threshold_bytes": QT_TRANSLATE_NOOP("AssumptionsDialog",
                                                         "Allocator large threshold"),
    "allocator_segment_bytes": QT_TRANSLATE_NOOP("AssumptionsDialog", "Allocator segment"),
    "allocator_model": QT_TRANSLATE_NOOP("AssumptionsDialog", "Model the caching allocator"),
    "allocator_large_segment_bytes": QT_TRANSLATE_NOOP("AssumptionsDialog",
                                                       "Allocator large segment"),
    "allocator_min_large_alloc_bytes": QT_TRANSLATE_NOOP("AssumptionsDialog",
                                                         "Allocator own-segment threshold"),
    "allocator_round_large_bytes": QT_TRANSLATE_NOOP("AssumptionsDialog",
                                                     "Allocator large rounding"),
    "cublas_workspace_bytes": QT_TRANSLATE_NOOP("AssumptionsDialog", "cuBLAS workspace"),
    "conv_algorithm": QT_TRANSLATE_NOOP("AssumptionsDialog", "Convolution algorithm"),
    "workspace_cap_bytes": QT_TRANSLATE_NOOP("AssumptionsDialog", "Workspace cap"),
    "driver_reserved_bytes": QT_TRANSLATE_NOOP("AssumptionsDialog", "Driver reserved"),
    "compute_efficiency": QT_TRANSLATE_NOOP("AssumptionsDialog", "Compute efficiency"),
    "tensor_efficiency": QT_TRANSLATE_NOOP("AssumptionsDialog", "Tensor efficiency"),
    "memory_efficiency": QT_TRANSLATE_NOOP("AssumptionsDialog", "Memory efficiency"),
    "architecture_efficiency": QT_TRANSLATE_NOOP("AssumptionsDialog", "Architecture efficiency"),
    "saturation_items_per_core": QT_TRANSLATE_NOOP("AssumptionsDialog",
                                                   "Saturation items per core"),
    "kernel_launch_s": QT_TRANSLATE_NOOP("AssumptionsDialog", "Kernel launch time"),
    "tensor_architecture_efficiency": QT_TRANSLATE_NOOP("AssumptionsDialog",
                                                        "Tensor-core architecture efficiency"),
    "tf32_efficiency": QT_TRANSLATE_NOOP("AssumptionsDialog", "TF32 efficiency"),
    "winograd_speedup": QT_TRANSLATE_NOOP("AssumptionsDialog", "Winograd speed-up"),
    "grouped_conv_efficiency": QT_TRANSLATE_NOOP("AssumptionsDialog",
                                                 "Grouped convolution efficiency"),
    "depthwise_bandwidth_efficiency": QT_TRANSLATE_NOOP("AssumptionsDialog",
                                                        "Depthwise convolution efficiency"),
    "depthwise_sm_cycles_per_byte": QT_TRANSLATE_NOOP("AssumptionsDialog",
                                                      "SM cycles per byte (depthwise)"),
    "pseudo_half_efficiency": QT_TRANSLATE_NOOP("AssumptionsDialog",
                                                "16-bit without fast FP16"),
    "dual_issue_fp32_efficiency": QT_TRANSLATE_NOOP("AssumptionsDialog",
                                                    "Shared FP32/INT32 datapath efficiency"),
    "cpu_launch_s": QT_TRANSLATE_NOOP("AssumptionsDialog", "CPU time per operator"),
    "input_pipeline_gbs": QT_TRANSLATE_NOOP("AssumptionsDialog", "Input pipeline (GB/s)"),
    "narrow_tile_efficiency": QT_TRANSLATE_NOOP("AssumptionsDialog", "Narrow GEMM tile efficiency"),
    "memory_sm_cycles_per_element": QT_TRANSLATE_NOOP("AssumptionsDialog",
                                                      "SM cycles per element (memory-bound)"),
    "power_clock_exponent": QT_TRANSLATE_NOOP("AssumptionsDialog", "Power-limited clock exponent"),
    "streaming_bandwidth_fraction": QT_TRANSLATE_NOOP("AssumptionsDialog",
                                                      "Streaming bandwidth share"),
    "memory_format": QT_TRANSLATE_NOOP("AssumptionsDialog", "Convolution memory format"),
    "fused_bn_activation": QT_TRANSLATE_NOOP("AssumptionsDialog",
                                             "Batch norm fuses ReLU and add"),
    "eager_attention_passes": QT_TRANSLATE_NOOP("AssumptionsDialog",
                                                "Eager attention: passes over the scores"),
    "optimizer_for_loop": QT_TRANSLATE_NOOP("AssumptionsDialog",
                                            "Optimizer step as a per-tensor loop"),
}


def _label(name: str) -> str:
    if name in _LABELS:
        return QCoreApplication.translate("AssumptionsDialog", _LABELS[name])
    return name.removesuffix("_bytes").removesuffix("_s").replace("_", " ").capitalize()


def _is_memory(name: str) -> bool:
    return name.endswith("_bytes") or name in ("conv_algorithm", "allocator_model")


def format_pairs(pairs) -> str:
    return ", ".join(f"{k}={v:g}" for k, v in pairs)


def parse_pairs(text: str) -> tuple[tuple[str, float], ...]:
    """'Kepler=0.6, Maxwell=0.85' → (('Kepler', 0.6), ('Maxwell', 0.85)); ValueError if bad."""
    out = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"'{item}' is not name=factor")
        try:
            out.append((name.strip(), float(value)))
        except ValueError:
            raise ValueError(f"'{value.strip()}' in '{item}' is not a number") from None
    return tuple(out)


class AssumptionsDialog(QDialog):
    """Edit a copy of the assumptions; ``assumptions()`` returns the accepted one."""

    def __init__(self, assumptions: Assumptions, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(self.tr("Estimate assumptions"))
        self.setMinimumWidth(880)
        layout = QVBoxLayout(self)
        intro = QLabel(self.tr("Every figure the estimate takes on trust. Hover a field for what "
                               "it means; changes apply to every plan."), self)
        intro.setWordWrap(True)
        layout.addWidget(intro)
        # Side by side (the two groups stacked are taller than a 700-pixel screen), in a
        # scroll area: the speed model's rows alone outgrow a 700-pixel screen, and the
        # buttons below must stay on it.
        content = QWidget(self)
        memory = QGroupBox(self.tr("Memory"), content)
        speed = QGroupBox(self.tr("Speed model"), content)
        forms = {True: QFormLayout(memory), False: QFormLayout(speed)}
        groups = QHBoxLayout(content)
        groups.setContentsMargins(0, 0, 0, 0)
        groups.addWidget(memory, 0, Qt.AlignmentFlag.AlignTop)
        groups.addWidget(speed, 0, Qt.AlignmentFlag.AlignTop)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(content)
        layout.addWidget(scroll, 1)
        self._editors: dict[str, QWidget] = {}
        describe = Assumptions.describe()
        for f in fields(Assumptions):
            editor = self._make_editor(f.name, getattr(assumptions, f.name))
            editor.setObjectName(f.name)
            editor.setToolTip(tr_core(describe.get(f.name, "")))
            label = QLabel(_label(f.name), self)
            label.setToolTip(tr_core(describe.get(f.name, "")))
            forms[_is_memory(f.name)].addRow(label, editor)
            self._editors[f.name] = editor
        speed.setVisible(forms[False].rowCount() > 0)
        self._error = QLabel(self)
        self._error.setStyleSheet("color: #a00000;")
        self._error.setWordWrap(True)
        layout.addWidget(self._error)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
            | QDialogButtonBox.StandardButton.RestoreDefaults, self)
        buttons.accepted.connect(self._on_accepted)
        buttons.rejected.connect(self.reject)
        buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults).clicked.connect(
            self._on_restore_defaults)
        layout.addWidget(buttons)
        self._result = assumptions
        # Open showing every row where the screen has room, else as tall as it allows.
        screen = self.screen()
        room = screen.availableGeometry().height() - 80 if screen is not None else 700
        self.resize(self.sizeHint().width(),
                    min(self.sizeHint().height() + content.sizeHint().height()
                        - scroll.sizeHint().height(), max(room, 400)))

    def _make_editor(self, name: str, value) -> QWidget:
        if name in ("conv_algorithm", "memory_format"):
            combo = QComboBox(self)
            combo.addItems(list(CONV_ALGORITHMS if name == "conv_algorithm"
                                else MEMORY_FORMATS))
            return self._set(combo, name, value)
        if isinstance(value, bool):
            return self._set(QCheckBox(self), name, value)
        if isinstance(value, tuple):
            return self._set(QLineEdit(self), name, value)
        if isinstance(value, float):
            box = QDoubleSpinBox(self)
            if name.endswith("_s"):
                box.setDecimals(7)
                box.setRange(0.0, 10.0)
                box.setSingleStep(1e-6)
                box.setSuffix(" s")
            else:
                box.setDecimals(3)
                box.setRange(0.0, 10.0)
                box.setSingleStep(0.05)
            return self._set(box, name, value)
        box = QSpinBox(self)
        box.setRange(0, 2**31 - 1)
        if name.endswith("_bytes"):
            box.setSuffix(" " + _UNITS.get(name, _MIB)[0])
        return self._set(box, name, value)

    def _set(self, editor: QWidget, name: str, value) -> QWidget:
        if isinstance(editor, QCheckBox):
            editor.setChecked(bool(value))
        elif isinstance(editor, QComboBox):
            editor.setCurrentText(str(value))
        elif isinstance(editor, QLineEdit):
            editor.setText(format_pairs(value) if isinstance(value, tuple) else str(value))
        elif isinstance(editor, QDoubleSpinBox):
            editor.setValue(float(value))
        elif isinstance(editor, QSpinBox):
            scale = _UNITS.get(name, _MIB)[1] if name.endswith("_bytes") else 1
            editor.setValue(int(value) // scale)
        return editor

    def edited(self) -> Assumptions:
        """The assumptions as the fields say; raises ValueError naming a bad field."""
        values = {}
        for name, editor in self._editors.items():
            if isinstance(editor, QCheckBox):
                values[name] = editor.isChecked()
            elif isinstance(editor, QComboBox):
                values[name] = editor.currentText()
            elif isinstance(editor, QLineEdit):
                try:
                    values[name] = parse_pairs(editor.text())
                except ValueError as exc:
                    raise ValueError(f"{_label(name)}: {exc}") from None
            elif isinstance(editor, QDoubleSpinBox):
                values[name] = editor.value()
            else:
                scale = _UNITS.get(name, _MIB)[1] if name.endswith("_bytes") else 1
                values[name] = editor.value() * scale
        return Assumptions(**values)

    def assumptions(self) -> Assumptions:
        return self._result

    @Slot()
    def _on_accepted(self) -> None:
        try:
            self._result = self.edited()
        except (ValueError, TypeError) as exc:
            self._error.setText(str(exc))
            return
        self.accept()

    @Slot()
    def _on_restore_defaults(self) -> None:
        defaults = Assumptions()
        for name, editor in self._editors.items():
            self._set(editor, name, getattr(defaults, name))
