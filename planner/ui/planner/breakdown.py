"""The Planner's memory breakdown: ``BreakdownBar``, one horizontal bar stacked by the
estimate's terms, a legend with each term in MiB/GiB (binary, as nvidia-smi) and its share, and
the peak. Painted with QPainter so the labels never clip and it scales with the window. (No
pyqtgraph here: the bar is part of the window's first picture; the plots in
``planner.ui.planner.charts`` are built after it.)"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from planner.core.memory import PHASE_LABELS, TERM_LABELS, TERMS, MemoryEstimate, term_label
from planner.i18n import QT_TRANSLATE_NOOP
from planner.ui.i18n import arg, tr_core
from planner.units import format_bytes

TERM_COLORS = {
    "overhead": QColor("#8c8c8c"),
    "weights": QColor("#1f77b4"),
    "weight_copies": QColor("#aec7e8"),
    "gradients": QColor("#6baed6"),
    "optimizer": QColor("#9467bd"),
    "activations": QColor("#d62728"),
    "transient": QColor("#ff9896"),
    "workspace": QColor("#ff7f0e"),
    "allocator": QColor("#c7c7c7"),
    "communication": QColor("#2ca02c"),
    "gathered": QColor("#17becf"),
}
PARALLEL_TERMS = TERMS + ("communication", "gathered")
PARALLEL_LABELS = {**TERM_LABELS,
                   "communication": QT_TRANSLATE_NOOP("core", "Communication buffers"),
                   "gathered": QT_TRANSLATE_NOOP("core", "Gathered weights (sharded)")}


def _grey(color: QColor) -> QColor:
    v = int(0.3 * color.red() + 0.59 * color.green() + 0.11 * color.blue())
    v = 170 + (v - 128) // 4
    return QColor(v, v, v)



class BreakdownBar(QWidget):
    """A stacked horizontal bar of the memory terms, with a legend and the peak."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._estimate: MemoryEstimate | None = None
        self._stale = False
        self._message = ""
        self._capacity_bytes: int | None = None
        self._per_gpu = None  # planner.core.parallel.PerGpuMemory, on several GPUs
        self._global_batch = 0
        self._legend_cache: tuple | None = None  # (what it depends on, _legend_width)
        self.format_bytes = format_bytes  # the user's units (settings.byte_formatter)
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self.setMinimumWidth(360)
        self.setToolTip(self.tr(
            "The terms are what is alive at the peak of the simulated step. Below them: what "
            "tensors occupy at the peak (torch.cuda.max_memory_allocated), what PyTorch's "
            "caching allocator holds (max_memory_reserved; simulated from its documented "
            "behaviour, not measured), and what nvidia-smi shows (that plus the CUDA context "
            "and libraries). The allocator gives back cached blocks and retries before it "
            "runs out of memory, so fit is judged on the tensors plus the context."))

    def set_estimate(self, estimate: MemoryEstimate | None, *, stale: bool = False,
                     message: str = "", capacity_bytes: int | None = None) -> None:
        """Show ``estimate``; ``stale`` greys it out with ``message`` over it."""
        self._estimate = estimate
        self._stale = stale
        self._message = message
        self._capacity_bytes = capacity_bytes
        self.updateGeometry()
        self.update()

    def set_per_gpu(self, per_gpu, global_batch: int = 0) -> None:
        """Show the memory on each GPU (a ``PerGpuMemory``) instead of the single-GPU terms;
        None goes back to one GPU."""
        self._per_gpu = per_gpu
        self._global_batch = global_batch
        self.updateGeometry()
        self.update()

    def _term_names(self) -> tuple[str, ...]:
        return PARALLEL_TERMS if self._per_gpu is not None else TERMS

    def _values(self) -> dict[str, int]:
        if self._per_gpu is not None:
            return self._per_gpu.terms()
        return self._estimate.terms() if self._estimate is not None else {}

    def _terms(self) -> list[tuple[str, int]]:
        if self._estimate is None:
            return []
        return [(t, v) for t, v in self._values().items() if v > 0]

    _MARGIN = 8
    _BAR_H = 30

    def _legend_columns(self, width: int) -> int:
        """Two legend columns when every line (its label and its own amount) fits in half the
        width, else one."""
        values = self._values()
        mode = self._estimate.setup.mode if self._estimate is not None else "train"
        # asked again and again while a layout settles: measured once per shown figures
        key = (self.font().key(), self.format_bytes, mode, self._term_names(),
               tuple(values.items()))
        if self._legend_cache is None or self._legend_cache[0] != key:
            self._legend_cache = (key, self._legend_width(values, mode))
        needed = self._legend_cache[1]
        return 2 if 2 * needed <= width - 2 * self._MARGIN else 1

    def _legend_width(self, values: dict[str, int], mode: str) -> int:
        """The width one legend line needs: the widest label and its amount."""
        fm = QFontMetrics(self.font())
        total = max(sum(values.values()), 1)
        needed = 0
        for t in self._term_names():
            label = tr_core(term_label(t, mode) if t in TERM_LABELS else PARALLEL_LABELS[t])
            value = values.get(t, 0)
            amount = (f"{self.format_bytes(value)}  ({100 * value / total:.0f}%)" if value
                      else f"{self.format_bytes(0)}  (—)") if values else "9999.9 MiB  (100%)"
            needed = max(needed, 18 + fm.horizontalAdvance(label) + 16
                         + fm.horizontalAdvance(amount) + 12)
        return needed

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        line = QFontMetrics(self.font()).height() + 4
        rows = -(-len(self._term_names()) // self._legend_columns(width))
        return self._MARGIN + line + 4 + self._BAR_H + 10 + (rows + 1) * line + self._MARGIN

    def sizeHint(self) -> QSize:
        width = max(self.width(), 520)
        return QSize(520, self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:
        return QSize(360, self.heightForWidth(max(self.width(), 360)))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.heightForWidth(event.size().width()) != self.height():
            self.updateGeometry()

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        pal = self.palette()
        text_color = pal.color(pal.ColorRole.WindowText)
        fm = QFontMetrics(self.font())
        line = fm.height() + 4
        margin = self._MARGIN
        width = self.width() - 2 * margin
        y = margin
        est = self._estimate
        bold = QFont(self.font())
        bold.setBold(True)
        bold.setPointSizeF(self.font().pointSizeF() * 1.15)
        p.setFont(bold)
        if est is None:
            p.setPen(text_color)
            p.drawText(QRectF(margin, y, width, line * 3),
                       int(Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap),
                       self._message or self.tr("No estimate"))
            return
        fmt = self.format_bytes
        per_gpu = self._per_gpu
        peak = per_gpu.peak if per_gpu is not None else est.peak
        title = (self.tr("Per GPU %1") if per_gpu is not None else self.tr("Peak %1")).replace(
            "%1", fmt(peak))
        mode = est.setup.mode
        sub = (self.tr("training") if mode == "train" else self.tr("inference")) + ", " + \
            arg(self.tr("batch %1"), str(est.setup.batch_size)) + ", " + \
            est.setup.precision
        at = est.peak_at
        if at is not None and per_gpu is None:
            phase = tr_core(PHASE_LABELS[at.phase])
            sub += ", " + (arg(self.tr("at %1 (%2)"), at.name, phase) if at.layer >= 0 else
                           arg(self.tr("at the %1"), phase))
        if per_gpu is not None:
            sub = (arg(self.tr("%1 GPUs, %2, batch %3 each, global %4"),
                       str(per_gpu.parallel.world), per_gpu.parallel.strategy,
                       str(est.setup.batch_size),
                       f"{self._global_batch:,}") + ", " + est.setup.precision)
        p.setPen(QColor(128, 128, 128) if self._stale else text_color)
        p.drawText(QPointF(margin, y + fm.ascent() + 2), title)
        tw = QFontMetrics(bold).horizontalAdvance(title)
        p.setFont(self.font())
        verdict = ""
        if self._capacity_bytes:
            cap = arg(self.tr("of %1"), fmt(self._capacity_bytes))
            fits = peak <= self._capacity_bytes
            verdict = cap + " — " + (self.tr("fits") if fits else self.tr("does not fit"))
        # the details give way (elided; whole in the tooltip) before they run into the verdict
        room = width - tw - 12 - (fm.horizontalAdvance(verdict) + 12 if verdict else 0)
        details = "(" + sub + ")"
        self.setToolTip(details if fm.horizontalAdvance(details) > room else "")
        p.drawText(QPointF(margin + tw + 12, y + fm.ascent() + 2),
                   fm.elidedText(details, Qt.TextElideMode.ElideRight, max(0, int(room))))
        if verdict:
            p.setPen(QColor(128, 128, 128) if self._stale else
                     (QColor(0, 120, 0) if fits else QColor(180, 0, 0)))
            p.drawText(QRectF(margin, y, width, line),
                       int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), verdict)
        y += line + 4
        bar_h = self._BAR_H
        x = float(margin)
        total = max(peak, 1)
        for term, value in self._terms():
            w = width * value / total
            color = TERM_COLORS[term]
            p.fillRect(QRectF(x, y, w, bar_h), _grey(color) if self._stale else color)
            x += w
        p.setPen(QPen(text_color, 1))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(QRectF(margin, y, width, bar_h))
        if self._stale and self._message:
            p.setPen(QColor(160, 0, 0))
            p.setFont(bold)
            p.drawText(QRectF(margin, y, width, bar_h), int(Qt.AlignmentFlag.AlignCenter),
                       self._message)
            p.setFont(self.font())
        y += bar_h + 10
        cols = self._legend_columns(self.width())
        col_w = width / cols
        values = self._values()
        for i, term in enumerate(self._term_names()):
            value = values.get(term, 0)
            cx = margin + (i % cols) * col_w
            cy = y + (i // cols) * line
            color = TERM_COLORS[term]
            p.fillRect(QRectF(cx, cy + 3, 12, 12), _grey(color) if self._stale else color)
            p.setPen(QColor(128, 128, 128) if (self._stale or value == 0) else text_color)
            label = tr_core(term_label(term, est.setup.mode) if term in TERM_LABELS
                            else PARALLEL_LABELS[term])
            share = f"{100 * value / total:.0f}%" if value else "—"
            amount = f"{fmt(value)}  ({share})"
            aw = fm.horizontalAdvance(amount)
            name_w = col_w - 24 - aw - 8
            p.drawText(QRectF(cx + 18, cy, name_w, line),
                       int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                       fm.elidedText(label, Qt.TextElideMode.ElideRight, int(name_w)))
            p.drawText(QRectF(cx + col_w - aw - 12, cy, aw, line),
                       int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), amount)
        rows = -(-len(self._term_names()) // cols)
        p.setPen(QColor(128, 128, 128) if self._stale else text_color)
        foot = self.footer_text()
        p.drawText(QRectF(margin, y + rows * line, width, line),
                   int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                   fm.elidedText(foot, Qt.TextElideMode.ElideRight, int(width)))

    def footer_text(self) -> str:
        """What tensors occupy, what the caching allocator holds, what nvidia-smi shows."""
        est = self._estimate
        if est is None:
            return ""
        fmt = self.format_bytes
        return (arg(self.tr("tensors %1 · allocator holds %2 (simulated) · nvidia-smi %3"),
                    fmt(est.allocated_bytes), fmt(est.reserved_bytes), fmt(est.nvidia_smi_bytes)))
