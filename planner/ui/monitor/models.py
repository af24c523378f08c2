"""Table adapters of the Monitor pane (Qt item models over telemetry values).

* ``GpuTableModel``: one row per card, its latest values. "Memory in use" and "memory
  controller busy" are different columns with different names; the GB/s column is an estimate
  (busy % × peak) and says so; DRAM bandwidth % (GPM, measured) only where the card has it.
  A value that is not available shows "N/A" with the reason as the tooltip.
* ``ProcessTableModel``: the processes on the selected card(s), with their peak.
* ``RecordingsTableModel``: the recordings in the folder, plus the skipped (corrupt) files with
  the reason.
"""

from __future__ import annotations

import datetime as _dt
import math
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QCoreApplication,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QBrush, QColor, QFont, QStandardItem, QStandardItemModel

from planner.ui.i18n import arg
from planner.telemetry.recorder import RecordingInfo, SkippedRecording
from planner.telemetry.types import DeviceInfo, Frame, GpuSample, ProcessSample
from planner.units import GIB, MIB, format_bytes
from planner.ui.tables import HeaderTableModel

_Index = QModelIndex | QPersistentModelIndex

LOST_COLOR = QColor("#b03030")
NA_COLOR = QColor("#808080")
NO_ANSWER_COLOR = QColor("#a86400")
_LOST_BRUSH = QBrush(LOST_COLOR)
_NO_ANSWER_BRUSH = QBrush(NO_ANSWER_COLOR)
_NA_BRUSH = QBrush(NA_COLOR)


def _bold_font() -> QFont:
    f = QFont()
    f.setBold(True)
    return f


_LEFT_ALIGNED = frozenset({"host", "name", "throttle", "state"})
_STATIC_KEYS = frozenset({"host", "name"})  # their text depends on the card only
# The sample fields each other column's cell is computed from (beside the card, whether it is
# lost and what it does not report): a cell whose inputs are the same as at the last frame
# shows the same, and is not computed again. The clocks keep their types (an int and a float
# of the same value are written differently).
_CELL_INPUTS: dict[str, Callable[[GpuSample], object]] = {
    "memory": operator.attrgetter("memory_used_bytes"),
    "memory_pct": operator.attrgetter("memory_used_bytes"),
    "memory_busy": operator.attrgetter("memory_busy_pct"),
    "bandwidth": operator.attrgetter("bandwidth_gbs_estimate", "memory_busy_pct"),
    "dram": operator.attrgetter("dram_bw_util_pct"),
    "gpu_busy": operator.attrgetter("gpu_busy_pct"),
    "clocks": lambda s: (s.sm_clock_mhz, type(s.sm_clock_mhz), s.memory_clock_mhz,
                         type(s.memory_clock_mhz)),
    "power": operator.attrgetter("power_draw_w"),
    "temperature": operator.attrgetter("temperature_c"),
    "fan": operator.attrgetter("fan_pct"),
    "throttle": operator.attrgetter("throttle_reasons"),
    "state": lambda s: None,
}


def format_mib_pair(used: int | None, total: int | None) -> str:
    """"8,192 / 24,564 MiB" as nvidia-smi prints memory."""
    u = "N/A" if used is None else f"{round(used / MIB):,}"
    t = "N/A" if total is None else f"{round(total / MIB):,}"
    return f"{u} / {t} MiB"


def format_gib(n: int | float | None) -> str:
    """Bytes as GiB with one decimal ("8.7 GiB"), smaller amounts as MiB."""
    if n is None or (isinstance(n, float) and math.isnan(n)):
        return "N/A"
    if abs(n) >= GIB:
        return f"{n / GIB:.1f} GiB"
    return format_bytes(n)


def display_name(d: DeviceInfo) -> str:
    """The card's name as shown: a simulated card says so in the user's language."""
    name = d.name
    if d.simulated and name.endswith("(simulated)"):
        name = name[: -len("(simulated)")] + QCoreApplication.translate("Monitor", "(simulated)")
    return name


def card_label(d: DeviceInfo) -> str:
    """"GPU 0: NVIDIA A100" (a card of this computer), "node-a · GPU 3: NVIDIA A100" (a
    card of a cluster: the index is unique across the fleet)."""
    if d.host:
        return f"{d.host} · GPU {d.index}: {display_name(d)}"
    return f"GPU {d.index}: {display_name(d)}"


def plot_label(d: DeviceInfo) -> str:
    """The short name of a card in plot legends: "GPU 0", "node-a · GPU 3"."""
    return f"{d.host} · GPU {d.index}" if d.host else f"GPU {d.index}"


def fleet_order(devices: Sequence[DeviceInfo]) -> tuple[DeviceInfo, ...]:
    """Cards grouped by host (this computer's own first), then by index."""
    return tuple(sorted(devices, key=lambda d: (d.host is not None, d.host or "", d.index)))


def whole_card_state(s: GpuSample | None) -> str:
    """"waiting", "lost" (the card or its node is gone), "no answer" (the card is probably
    fine, its telemetry path is not: a server that did not answer, a failed query) or "ok"."""
    if s is None:
        return "waiting"
    if s.lost:
        return "lost"
    if "*" in s.unavailable:
        return "no answer"
    return "ok"


def short_card_label(d: DeviceInfo) -> str:
    """"GPU 0: RTX 4090 (simulated)": the name without the vendor and brand words."""
    name = display_name(d)
    for word in ("NVIDIA ", "GeForce ", "Tesla "):
        name = name.replace(word, "")
    return f"GPU {d.index}: {name.strip() or display_name(d)}"


# -- the cards ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Column:
    key: str
    header: str
    tip: str


class GpuTableModel(QStandardItemModel):
    """One row per card; ``set_frame()`` with each new frame (or at the redraw rate).

    The cells are ``QStandardItem``s that get a new text, tooltip, colour or font only when
    theirs changed: a view asks every role of every cell at each paint, and answering those
    from Python (about 650 calls per paint at eight cards) was a fifth of the live Monitor's
    CPU; the items answer them in C++. What a cell says is computed here, once per frame."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._make_columns()
        self._keys = [c.key for c in self.columns]
        self._devices: tuple[DeviceInfo, ...] = ()
        self._frame_devices: tuple[DeviceInfo, ...] = ()
        self._samples: dict[int, GpuSample] = {}
        # what each cell shows now, by row and column: (text, tooltip, foreground brush, bold)
        self._shown: list[list[tuple[str, str | None, QBrush | None, bool] | None]] = []
        self._static_texts: dict[tuple[int, str], tuple[str, str | None]] = {}
        self._cell_inputs: dict[tuple[int, str], tuple[object, tuple]] = {}
        # set_frame's: per row and column, (lost, unavailable, inputs, look) of the last frame
        self._memo: list[list[tuple | None]] = []
        self._plan: list[tuple[int, str, Callable[[GpuSample], object] | None]] = []
        self._tips: dict[tuple, str] = {}  # the tooltips made from the card's figures only
        self._set_headers()

    def _make_columns(self) -> None:
        """The column headers in the language now installed (again by ``retranslate``)."""
        self.columns: tuple[_Column, ...] = (
            _Column("name", self.tr("Card"), self.tr("NVML index and name")),
            _Column("memory", self.tr("Memory in use\n/ total"),
                    self.tr("Memory in use (allocated on the card), as nvidia-smi shows it")),
            _Column("memory_pct", self.tr("Memory\nin use %"),
                    self.tr("Memory in use ÷ total memory")),
            _Column("memory_busy", self.tr("Memory-controller\nbusy %"),
                    self.tr("Share of time the memory controller was reading or writing "
                       "(NVML 'memory utilisation'). Not the memory in use.")),
            _Column("bandwidth", self.tr("Bandwidth\nGB/s (est.)"),
                    self.tr("An ESTIMATE: memory-controller busy % × the card's peak bandwidth")),
            _Column("dram", self.tr("DRAM bandwidth\n% (GPM)"),
                    self.tr("Measured DRAM bandwidth utilisation (GPM metrics, Hopper and newer)")),
            _Column("gpu_busy", self.tr("GPU\nbusy %"),
                    self.tr("Share of time a kernel was running on the GPU")),
            _Column("clocks", self.tr("SM / memory\nclock"), self.tr("Current clocks in MHz")),
            _Column("power", self.tr("Power"), self.tr("Power draw in watts")),
            _Column("temperature", self.tr("Temp."), self.tr("GPU temperature in °C")),
            _Column("fan", self.tr("Fan"), self.tr("Fan speed, % of maximum")),
            _Column("throttle", self.tr("Throttle\nreasons"),
                    self.tr("Why the clocks are held below their maximum")),
            _Column("state", self.tr("State"),
                    self.tr("ok; lost when the card (or its host) stopped answering; no "
                            "answer when the telemetry server did not answer")),
        )
        self._host_column = _Column(
            "host", self.tr("Host"), self.tr("The machine the card is in (cards are grouped "
                                             "by host)"))
        self._local_columns = self.columns

    def _set_headers(self) -> None:
        self.setColumnCount(len(self.columns))
        for c, col in enumerate(self.columns):
            item = QStandardItem(col.header)
            item.setToolTip(col.tip)
            self.setHorizontalHeaderItem(c, item)

    def retranslate(self) -> None:
        """Headers and cell texts in the language now installed."""
        had_host = bool(self.columns) and self.columns[0].key == "host"
        self._make_columns()
        if had_host:
            self.columns = (self._host_column,) + self._local_columns
        self._keys = [c.key for c in self.columns]
        self._rebuild()

    # -- feeding --------------------------------------------------------------------------

    def set_frame(self, frame: Frame | None) -> None:
        """The latest frame. Cards of a cluster (``DeviceInfo.host``) get a Host column and
        are grouped by host; this computer's cards keep the NVML order."""
        devices = () if frame is None else frame.devices
        self._samples = {} if frame is None else {s.index: s for s in frame.samples}
        if devices is not self._frame_devices and devices != self._frame_devices:
            self._frame_devices = devices
            fleet = any(d.host for d in devices)
            self.columns = ((self._host_column,) + self._local_columns if fleet
                            else self._local_columns)
            self._keys = [c.key for c in self.columns]
            self._devices = fleet_order(devices) if fleet else tuple(devices)
            self._rebuild()
            return
        # Only the cells whose text, tooltip or colour changed get new data (and are
        # repainted): most do not change every frame. A cell whose inputs are what they were
        # shows what it showed. The loop runs for every cell of every card twice a second:
        # each row keeps, per column, (lost, unavailable, inputs, look) of its last frame.
        shown, item, plan, samples = self._shown, self.item, self._plan, self._samples
        apply = self._apply
        for row, d in enumerate(self._devices):
            s = samples.get(d.index)
            shown_row = shown[row]
            if s is None:
                for col, key, _ in plan:
                    look = self._cell(row, key, d, s)
                    old = shown_row[col]
                    if look != old:
                        shown_row[col] = look
                        apply(item(row, col), look, old)
                continue
            lost, unavailable = s.lost, s.unavailable
            memo = self._memo[row]
            for col, key, inputs_of in plan:
                if inputs_of is None:  # the card's own texts (name, host): by set of cards
                    look = self._cell(row, key, d, s)
                else:
                    inputs = inputs_of(s)
                    m = memo[col]
                    if (m is not None and m[2] == inputs and m[0] is lost
                            and (m[1] is unavailable or m[1] == unavailable)):
                        look = m[3]
                    else:
                        look = self._style(key, *self._text(key, d, s), s)
                        memo[col] = (lost, unavailable, inputs, look)
                old = shown_row[col]
                if look is not old and look != old:
                    shown_row[col] = look
                    apply(item(row, col), look, old)

    def _rebuild(self) -> None:
        """New rows (and columns), as for a new set of cards: the model is reset."""
        self.clear()
        self._set_headers()
        self._shown = [[None] * len(self._keys) for _ in self._devices]
        self._static_texts = {}
        self._cell_inputs = {}
        self._memo = [[None] * len(self._keys) for _ in self._devices]
        self._plan = [(col, key, _CELL_INPUTS.get(key)) for col, key in enumerate(self._keys)]
        self._tips = {}
        align_left = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        align_right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        flags = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled
        for row in range(len(self._devices)):
            items = []
            for col, key in enumerate(self._keys):
                item = QStandardItem()
                item.setFlags(flags)
                item.setTextAlignment(align_left if key in _LEFT_ALIGNED else align_right)
                look = self._look(row, col)
                self._apply(item, look, ("", None, None, False))
                self._shown[row][col] = look
                items.append(item)
            self.appendRow(items)

    def _apply(self, item: QStandardItem, look: tuple, old: tuple) -> None:
        """Give a cell its new look. Each ``setData`` of a ``QStandardItem`` tells the views
        (``dataChanged``) and they repaint the cell: a tooltip is not painted, so when the
        cell changes in what is painted too, the tooltip is set unannounced and the painted
        change announces the cell once (a changed memory figure and its tooltip were two
        signals and two updates of the same cell)."""
        text, tip, brush, bold = look
        if tip != old[1]:
            if text != old[0] or brush is not old[2] or bold != old[3]:
                blocked = self.blockSignals(True)
                item.setData(tip, Qt.ItemDataRole.ToolTipRole)
                self.blockSignals(blocked)
            else:  # only the tooltip: said as before
                item.setData(tip, Qt.ItemDataRole.ToolTipRole)
        if text != old[0]:
            item.setText(text)
        if brush is not old[2]:
            item.setData(brush, Qt.ItemDataRole.ForegroundRole)
        if bold != old[3]:
            item.setData(_bold_font() if bold else None, Qt.ItemDataRole.FontRole)

    def _look(self, row: int, col: int) -> tuple[str, str | None, QBrush | None, bool]:
        """What a cell shows: (text, tooltip, foreground brush, bold)."""
        d = self._devices[row]
        return self._cell(row, self._keys[col], d, self._samples.get(d.index))

    def _cell(self, row: int, key: str, d: DeviceInfo,
              s: GpuSample | None) -> tuple[str, str | None, QBrush | None, bool]:
        """``_look`` of the cell of card ``d`` (in ``row``) in column ``key``, sample ``s``.
        The texts of the columns that depend on the card only (host, name) are computed once
        per set of cards and language (``_rebuild`` forgets them)."""
        if key in _STATIC_KEYS:
            text_tip = self._static_texts.get((row, key))
            if text_tip is None:
                text_tip = self._static_texts[(row, key)] = self._text(key, d, s)
            text, tip = text_tip
            return self._style(key, text, tip, s)
        inputs_of = _CELL_INPUTS.get(key)
        if inputs_of is None:
            return self._style(key, *self._text(key, d, s), s)
        inputs = None if s is None else (s.lost, s.unavailable, inputs_of(s))
        cached = self._cell_inputs.get((row, key))
        if cached is not None and cached[0] == inputs:
            return cached[1]
        look = self._style(key, *self._text(key, d, s), s)
        self._cell_inputs[(row, key)] = (inputs, look)
        return look

    @staticmethod
    def _style(key: str, text: str, tip: str | None,
               s: GpuSample | None) -> tuple[str, str | None, QBrush | None, bool]:
        """A cell's (text, tooltip) with its colour and weight."""
        lost = s is not None and s.lost
        if lost:
            brush = _LOST_BRUSH
        elif key == "state" and s is not None and "*" in s.unavailable:
            brush = _NO_ANSWER_BRUSH
        elif text == "N/A":
            brush = _NA_BRUSH
        else:
            brush = None
        return text, tip, brush, lost and key == "state"

    def column_of(self, key: str) -> int:
        return self._keys.index(key)

    def device_at(self, row: int) -> DeviceInfo | None:
        return self._devices[row] if 0 <= row < len(self._devices) else None

    def row_of(self, device_index: int) -> int:
        for r, d in enumerate(self._devices):
            if d.index == device_index:
                return r
        return -1

    def _tip(self, key: tuple, make: Callable[[], str]) -> str:
        """A tooltip that repeats from frame to frame (its figures are ``key``), translated
        and filled once per language (``_rebuild`` forgets them); bounded."""
        tip = self._tips.get(key)
        if tip is None:
            if len(self._tips) >= 1024:
                self._tips.clear()
            tip = self._tips[key] = make()
        return tip

    def _na(self, s: GpuSample | None, *fields: str) -> tuple[str, str]:
        if s is None:
            return "N/A", self.tr("no sample yet")
        if s.lost:
            return "N/A", s.unavailable.get("*", self.tr("the card is lost"))
        if "*" in s.unavailable:
            return "N/A", s.unavailable["*"]
        for f in fields:
            if f in s.unavailable:
                return "N/A", s.unavailable[f]
        return "N/A", self.tr("not reported by this card")

    # -- the cells: one method per column (``_text_<key>``), or a row of ``_PLAIN`` ---------
    _PLAIN = {  # key: (sample field, fields whose absence explains N/A, format)
        "memory_busy": ("memory_busy_pct", ("memory_busy_pct", "utilization"), "{:.0f}%"),
        "gpu_busy": ("gpu_busy_pct", ("gpu_busy_pct", "utilization"), "{:.0f}%"),
        "temperature": ("temperature_c", ("temperature_c",), "{:.0f} °C"),
        "fan": ("fan_pct", ("fan_pct",), "{:.0f}%"),
    }
    _NEEDS_NO_SAMPLE = frozenset({"host", "name", "state"})

    def _text(self, key: str, d: DeviceInfo, s: GpuSample | None) -> tuple[str, str | None]:
        """(text, tooltip) of one cell; N/A with the reason when the card did not say."""
        if key not in self._NEEDS_NO_SAMPLE and (s is None or s.lost):
            return self._na(s)
        plain = self._PLAIN.get(key)
        if plain is not None:
            field, why, fmt = plain
            value = getattr(s, field)
            return (self._na(s, *why) if value is None else (fmt.format(value), None))
        method = _TEXT_METHODS.get(key)
        return method(self, d, s) if method is not None else ("", None)

    def _text_host(self, d: DeviceInfo, s) -> tuple[str, str | None]:
        return d.host or "", d.host or None

    def _text_name(self, d: DeviceInfo, s) -> tuple[str, str | None]:
        tip = d.uuid + (f"\n{d.pci_bus_id}" if d.pci_bus_id else "")
        if d.peak_bandwidth_gbs:
            tip += "\n" + arg(self.tr("peak bandwidth %1 GB/s"),
                              format(d.peak_bandwidth_gbs, '.0f'))
        return short_card_label(d), card_label(d) + "\n" + tip

    def _text_state(self, d: DeviceInfo, s: GpuSample | None) -> tuple[str, str | None]:
        if s is None:
            return self.tr("waiting"), None
        if s.lost:
            return self.tr("lost"), s.unavailable.get("*", self.tr("the card stopped "
                                                                   "answering"))
        if "*" in s.unavailable:  # not lost: the telemetry path failed, not the card
            return self.tr("no answer"), s.unavailable["*"]
        return self.tr("ok"), None

    def _text_memory(self, d: DeviceInfo, s: GpuSample) -> tuple[str, str | None]:
        if s.memory_used_bytes is None:
            return self._na(s, "memory_used_bytes", "memory")
        return format_mib_pair(s.memory_used_bytes, d.memory_total_bytes), None

    def _text_memory_pct(self, d: DeviceInfo, s: GpuSample) -> tuple[str, str | None]:
        if s.memory_used_bytes is None or not d.memory_total_bytes:
            return self._na(s, "memory_used_bytes", "memory", "memory_total_bytes")
        return f"{100 * s.memory_used_bytes / d.memory_total_bytes:.0f}%", None

    def _text_bandwidth(self, d: DeviceInfo, s: GpuSample) -> tuple[str, str | None]:
        if s.bandwidth_gbs_estimate is None:
            return self._na(s, "bandwidth_gbs_estimate", "memory_busy_pct",
                            "peak_bandwidth_gbs")
        figures = (format(s.memory_busy_pct or 0.0, ".0f"),
                   format(d.peak_bandwidth_gbs or 0.0, ".0f"))
        tip = self._tip(("bandwidth", *figures),
                        lambda: arg(self.tr("estimate: %1% busy × %2 GB/s peak"), *figures))
        return f"~{s.bandwidth_gbs_estimate:.0f}", tip

    def _text_dram(self, d: DeviceInfo, s: GpuSample) -> tuple[str, str | None]:
        if s.dram_bw_util_pct is None:
            return self._na(s, "dram_bw_util_pct")
        return f"{s.dram_bw_util_pct:.0f}%", self.tr("measured (GPM)")

    def _text_clocks(self, d: DeviceInfo, s: GpuSample) -> tuple[str, str | None]:
        if s.sm_clock_mhz is None and s.memory_clock_mhz is None:
            return self._na(s, "sm_clock_mhz", "memory_clock_mhz")
        sm = "N/A" if s.sm_clock_mhz is None else f"{s.sm_clock_mhz:,}"
        mem = "N/A" if s.memory_clock_mhz is None else f"{s.memory_clock_mhz:,}"
        tips = [s.unavailable[k] for k in ("sm_clock_mhz", "memory_clock_mhz")
                if k in s.unavailable]
        return f"{sm} / {mem} MHz", "\n".join(tips) or None

    def _text_power(self, d: DeviceInfo, s: GpuSample) -> tuple[str, str | None]:
        if s.power_draw_w is None:
            return self._na(s, "power_draw_w")
        limit = d.power_limit_w
        tip = None if not limit else self._tip(
            ("power", limit), lambda: arg(self.tr("limit %1 W"), format(limit, '.0f')))
        return f"{s.power_draw_w:.0f} W", tip

    def _text_throttle(self, d: DeviceInfo, s: GpuSample) -> tuple[str, str | None]:
        if s.throttle_reasons is None:
            return self._na(s, "throttle_reasons")
        text = ", ".join(s.throttle_reasons) if s.throttle_reasons else self.tr("none")
        return text, text


# the column's ``_text_<key>`` method, looked up once (not by name at every cell)
_TEXT_METHODS: dict[str, Callable] = {
    name[len("_text_"):]: getattr(GpuTableModel, name)
    for name in dir(GpuTableModel) if name.startswith("_text_")}


# -- processes ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ProcessRow:
    device: int
    process: ProcessSample
    peak_bytes: int | None


class ProcessTableModel(HeaderTableModel):
    """The processes holding memory on the cards, one row each."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[ProcessRow] = []
        self.retranslate()

    def retranslate(self) -> None:
        """Headers in the language now installed."""
        self._headers = (self.tr("GPU"), self.tr("PID"), self.tr("Name"), self.tr("User"),
                         self.tr("Memory"), self.tr("Peak"))
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, len(self._headers) - 1)

    def set_rows(self, rows: Sequence[ProcessRow]) -> None:
        rows = list(rows)
        if rows == self._rows:
            return  # nothing new (processes are sampled every few ticks)
        keys = [(r.device, r.process.pid) for r in rows]
        if keys == [(r.device, r.process.pid) for r in self._rows]:
            old, self._rows = self._rows, rows
            # the same processes: only the cells whose text changed are repainted (memory is
            # shown to 0.1 GiB, so most samples change none)
            for i, (a, b) in enumerate(zip(old, rows, strict=True)):
                if a == b:
                    continue
                changed = [c for c in range(len(self._headers))
                           if self._display(a, c) != self._display(b, c)
                           or self._tip(a, c) != self._tip(b, c)]
                if changed:
                    self.dataChanged.emit(self.index(i, changed[0]),
                                          self.index(i, changed[-1]))
            return
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def row_at(self, row: int) -> ProcessRow | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def row_of(self, device: int, pid: int) -> int:
        for i, r in enumerate(self._rows):
            if r.device == device and r.process.pid == pid:
                return i
        return -1

    def _row_count(self) -> int:
        return len(self._rows)

    @staticmethod
    def _display(r: ProcessRow, c: int) -> str | None:
        p = r.process
        if c == 0:
            return str(r.device)
        if c == 1:
            return str(p.pid)
        if c == 2:
            return p.name
        if c == 3:
            return p.user if p.user is not None else "N/A"
        if c == 4:
            return format_gib(p.memory_used_bytes)
        if c == 5:
            return format_gib(r.peak_bytes)
        return None

    def _tip(self, r: ProcessRow, c: int) -> str | None:
        p = r.process
        if c == 2:
            return p.name
        if c == 4 and p.memory_used_bytes is None:
            return self.tr("the driver does not report per-process memory here")
        if c == 3 and p.user is None:
            return self.tr("the owner could not be read")
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not self._in_range(index):
            return None
        r = self._rows[index.row()]
        c = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(r, c)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tip(r, c)
        if role == Qt.ItemDataRole.TextAlignmentRole and c in (0, 1, 4, 5):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


# -- recordings -----------------------------------------------------------------------------------

def _when(t: float | None) -> str:
    if t is None:
        return "N/A"
    return _dt.datetime.fromtimestamp(t).strftime("%Y-%m-%d %H:%M:%S")


def _duration(s: float) -> str:
    s = int(round(s))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


class RecordingsTableModel(HeaderTableModel):
    """Recordings first (newest first), then the skipped files with the reason."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._headers = (self.tr("Started"), self.tr("Duration"), self.tr("Source"),
                         self.tr("Cards"), self.tr("Samples"), self.tr("Size"),
                         self.tr("File"), self.tr("Status"))
        self._good: list[RecordingInfo] = []
        self._skipped: list[SkippedRecording] = []
        self.current_path: Any = None  # the recording in progress

    def set_listing(self, good: Sequence[RecordingInfo],
                    skipped: Sequence[SkippedRecording]) -> None:
        self.beginResetModel()
        self._good, self._skipped = list(good), list(skipped)
        self.endResetModel()

    def recording_at(self, row: int) -> RecordingInfo | None:
        return self._good[row] if 0 <= row < len(self._good) else None

    def skipped_at(self, row: int) -> SkippedRecording | None:
        i = row - len(self._good)
        return self._skipped[i] if 0 <= i < len(self._skipped) else None

    def _row_count(self) -> int:
        return len(self._good) + len(self._skipped)

    def _is_current(self, rec: RecordingInfo) -> bool:
        if self.current_path is None:
            return False
        try:
            return rec.path.resolve() == type(rec.path)(self.current_path).resolve()
        except OSError:
            return False

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not self._in_range(index):
            return None
        c = index.column()
        rec = self.recording_at(index.row())
        if rec is not None:
            if role == Qt.ItemDataRole.DisplayRole:
                status = self.tr("recording now") if self._is_current(rec) else self.tr("ok")
                return (_when(rec.start_time_s), _duration(rec.duration_s),
                        rec.source or "N/A", ", ".join(rec.device_names) or "N/A",
                        f"{rec.n_samples:,}", format_bytes(rec.size_bytes), rec.path.name,
                        status)[c]
            if role == Qt.ItemDataRole.ToolTipRole:
                return str(rec.path)
            return None
        sk = self.skipped_at(index.row())
        if sk is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            if c == 6:
                return sk.path.name
            if c == 7:
                return arg(self.tr("skipped: %1"), sk.reason)
            return "—"
        if role == Qt.ItemDataRole.ToolTipRole:
            return sk.reason
        if role == Qt.ItemDataRole.ForegroundRole:
            return QBrush(LOST_COLOR)
        return None
