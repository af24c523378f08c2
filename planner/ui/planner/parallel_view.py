"""The Planner pane's "Several GPUs" view: how the drafted run scales over 1…N cards of one
kind, and how many copies of it one card holds (several experiments at once).

``ScalingView.set_plan(document)`` reads the document's analysis, setup, assumptions, estimate
and ``parallel`` setting; ``set_catalog(catalog, preferred=...)`` fills the card combo (default:
the user's own card, else RTX 4090). The plot shows speed-up (×) on the left axis and samples/s
on the right (the same curve: samples/s = speed-up × one card's samples/s), for typical
frameworks and optimised code, with the ideal line. N is the plan's world size, or 8 while the
plan runs on one GPU (a preview of what more cards would give).
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from planner.core.rates import speed_msg
from planner.core.transformer import tokens_per_step
from planner.ui.i18n import arg, tr_msg
from planner.core.parallel import (
    Parallel,
    ParallelAssumptions,
    ScalingPoint,
    copies_that_fit,
    scaling,
)
from planner.units import format_bytes

PREVIEW_GPUS = 8
DEFAULT_CARD = "RTX 4090"


class ScalingView(QWidget):
    """Scaling curve (typical vs optimised vs ideal) and the several-experiments line."""

    card_changed = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("scaling_view")
        self._catalog = None
        self._doc = None
        self.format_bytes = format_bytes
        self.typical: list[ScalingPoint] = []
        self.optimised: list[ScalingPoint] = []
        self.copies = 0

        self.card_combo = QComboBox(self)
        self.card_combo.setObjectName("scaling_card")
        self.card_combo.setToolTip(self.tr("The card the curve is drawn for (one kind of card; "
                                           "the link between cards is its PCIe or NVLink)"))
        self.card_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.card_combo.setMinimumContentsLength(18)
        self.card_combo.currentIndexChanged.connect(self._on_card_changed)
        self.summary = QLabel(self)
        self.summary.setObjectName("scaling_summary")
        self.summary.setWordWrap(True)
        self.copies_label = QLabel(self)
        self.copies_label.setObjectName("copies_label")
        self.copies_label.setWordWrap(True)
        self.copies_label.setTextFormat(Qt.TextFormat.PlainText)

        self.plot = pg.PlotWidget(self)
        self.plot.setObjectName("scaling_plot")
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(False, False)
        self.plot.showGrid(x=True, y=True, alpha=0.25)
        self.plot.setLabel("bottom", self.tr("GPUs"))
        self.plot.setLabel("left", self.tr("speed-up (×)"))
        self.plot.showAxis("right")
        self.plot.setLabel("right", self.tr("samples/s (typical)"))
        # the legend is a line of text under the plot, so it never covers a curve
        self.legend_label = QLabel(self)
        self.legend_label.setObjectName("scaling_legend")
        self.legend_label.setTextFormat(Qt.TextFormat.RichText)
        self.legend_label.setWordWrap(True)
        self.legend_label.setText(
            '<span style="color:#969696">- - -</span> {ideal}\u2003 '
            '<span style="color:#d62728">━●━</span> {typical}\u2003 '
            '<span style="color:#1f77b4">━■━</span> {optimised}'.format(
                ideal=self.tr("ideal"), typical=self.tr("typical framework"),
                optimised=self.tr("optimised code")))
        self.ideal_curve = self.plot.plot([], [], pen=pg.mkPen((150, 150, 150), width=1,
                                                               style=Qt.PenStyle.DashLine),
                                          name=self.tr("ideal"))
        self.typical_curve = self.plot.plot([], [], pen=pg.mkPen("#d62728", width=2),
                                            symbol="o", symbolSize=6, symbolBrush="#d62728",
                                            name=self.tr("typical framework"))
        self.optimised_curve = self.plot.plot([], [], pen=pg.mkPen("#1f77b4", width=2),
                                              symbol="s", symbolSize=6, symbolBrush="#1f77b4",
                                              name=self.tr("optimised code"))
        self.world_line = pg.InfiniteLine(angle=90, movable=False,
                                          pen=pg.mkPen((120, 120, 120), width=1,
                                                       style=Qt.PenStyle.DotLine))
        self.plot.addItem(self.world_line)

        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        lab = QLabel(self.tr("Card:"), self)
        lab.setBuddy(self.card_combo)
        top.addWidget(lab)
        top.addWidget(self.card_combo)
        top.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.legend_label)
        layout.addWidget(self.copies_label)

    # ---- inputs ---------------------------------------------------------------------------
    def set_catalog(self, catalog, preferred: str | None = None) -> None:
        """Fill the card combo; keep the chosen card if it is still there, else ``preferred``
        (the user's own card), else RTX 4090."""
        self._catalog = catalog
        current = self.card_combo.currentText()
        self.card_combo.blockSignals(True)
        self.card_combo.clear()
        names = list(catalog.names) if catalog is not None else []
        self.card_combo.addItems(names)
        default = catalog.by_name(DEFAULT_CARD) if catalog is not None else None
        for choice in (current, preferred, default.name if default is not None else None):
            if choice and choice in names:
                self.card_combo.setCurrentText(choice)
                break
        self.card_combo.blockSignals(False)
        self.recompute()

    def set_card(self, name: str) -> bool:
        i = self.card_combo.findText(name)
        if i < 0:
            return False
        self.card_combo.setCurrentIndex(i)
        return True

    def card(self):
        if self._catalog is None:
            return None
        return self._catalog.by_name(self.card_combo.currentText())

    def set_plan(self, plan) -> None:
        """The plan to scale (a ``planner.core.plan.PlanResult``), or None."""
        self._doc = plan
        self.recompute()

    @Slot(int)
    def _on_card_changed(self, _i: int) -> None:
        self.recompute()
        self.card_changed.emit(self.card_combo.currentText())

    # ---- computing ------------------------------------------------------------------------
    def gpus_shown(self) -> int:
        doc = self._doc
        world = doc.parallel.world if doc is not None else 1
        return world if world > 1 else PREVIEW_GPUS

    def recompute(self) -> None:
        doc = self._doc
        card = self.card()
        self.typical = []
        self.optimised = []
        est = doc.estimate if doc is not None else None
        if est is None or card is None:
            for curve in (self.ideal_curve, self.typical_curve, self.optimised_curve):
                curve.setData([], [])
            if card is None:
                text = self.tr("No card chosen.")
            elif doc is not None and getattr(doc, "is_empty", False):
                text = self.tr("Nothing to estimate yet: the plan has no layers.")
            else:
                text = self.tr("Fix the errors in the draft to see how it scales.")
            self.summary.setText(text)
            self.copies_label.setText("")
            self.copies = 0
            return
        setup = doc.setup
        par = doc.parallel
        n = self.gpus_shown()
        # On one GPU the preview spreads the run over one machine's cards.
        curve_par = par if par.world > 1 else Parallel(min(n, 64), 1, par.strategy)
        work = doc.workload
        grads = doc.gradients
        a = doc.assumptions
        self.typical = scaling(work, card, setup.precision, grads, curve_par,
                               ParallelAssumptions(framework="typical"), a, max_gpus=n)
        self.optimised = scaling(work, card, setup.precision, grads, curve_par,
                                 ParallelAssumptions(framework="optimised"), a, max_gpus=n)
        xs = [p.gpus for p in self.typical]
        self.ideal_curve.setData(xs, xs)
        self.typical_curve.setData(xs, [p.speedup for p in self.typical])
        self.optimised_curve.setData(xs, [p.speedup for p in self.optimised])
        single = self.typical[0].samples_per_s if self.typical else 0.0
        self.plot.getAxis("right").setScale(single or 1.0)
        self.world_line.setValue(par.world if par.world > 1 else 1)
        self.world_line.setVisible(par.world > 1)
        self.plot.setXRange(1, max(n, 2), padding=0.04)
        # whole GPUs only on the x axis (no 2.5 GPUs), at most about a dozen labels
        step = max(1, -(-len(xs) // 12))
        shown = list(xs[::step])
        if xs and shown[-1] != xs[-1]:
            shown.append(xs[-1])
        self.plot.getAxis("bottom").setTicks([[(x, str(x)) for x in shown], []])
        self.plot.setYRange(0, max(n, 2), padding=0.04)
        last_t, last_o = self.typical[-1], self.optimised[-1]
        if setup.mode != "train":
            how = self.tr("Inference needs no gradient exchange: the cards scale almost ideally.")
        else:
            how = arg(self.tr("Each card runs batch %1; the gradients (%2) are all-reduced every "
                              "iteration."),
                      str(setup.batch_size), self.format_bytes(grads))
        if par.world > 1:
            head = self.tr("On %1 × %2 (%3): %4× in a typical framework (%5), %6× in "
                           "optimised code (%7).")
        else:
            head = self.tr("Preview — on %1 × %2 (%3): %4× in a typical framework (%5), "
                           "%6× in optimised code (%7). Set GPUs above 1 to plan it.")
        draft = getattr(doc, "draft", None)
        tokens = tokens_per_step(draft, 1) if draft is not None else None

        def rate(point) -> str:  # "0.42 samples/s", or tokens/s for a text model
            return tr_msg(speed_msg(point.samples_per_s, tokens_per_sample=tokens))

        self.summary.setText(" ".join((
            arg(head, str(n), card.name, par.strategy, f"{last_t.speedup:.2f}", rate(last_t),
                f"{last_o.speedup:.2f}", rate(last_o)),
            how)))
        usable = card.usable_memory_bytes(a.driver_reserved_bytes)
        copies = copies_that_fit(est.peak, usable)
        if copies == 0:
            text = self.tr("Several experiments: one run of this plan (%1) does not fit on a "
                           "%2 (%3 usable).")
        elif copies == 1:
            text = self.tr("Several experiments: one copy of this run (%1) fits on a %2 (%3 "
                           "usable) — several cards can instead run one experiment each.")
        else:
            text = self.tr("Several experiments: %4 copies of this run (%1 each) fit on one %2 "
                           "(%3 usable) — independent runs, no communication at all.")
        self.copies_label.setText(arg(text, self.format_bytes(est.peak), card.name,
                                      self.format_bytes(usable), str(copies)))
        self.copies = copies


__all__ = ["ScalingView", "PREVIEW_GPUS", "DEFAULT_CARD"]
