"""The ranked recommendations, one framed card each: a BUY/KEEP/SELL badge, the card's name,
the advisor's plain sentence (wrapped, never cut off) and the numbers behind it."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from planner.ui import money
from planner.core.advisor import Recommendation
from planner.ui.i18n import arg, tr_msg

BADGE_COLORS = {"buy": "#2e7d32", "keep": "#1565c0", "sell": "#e65100"}


def _money(v: float) -> str:
    return money.usd(v)


def _wrapped(text: str = "") -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label  # keep QLabel's own size policy: it carries height-for-width


class RecommendationCard(QFrame):
    """One recommendation. ``badge``, ``title``, ``reason`` and ``facts`` are its labels."""

    def __init__(self, rank: int | None, rec: Recommendation, parent: QWidget | None = None,
                 *, goes_with: int | None = None):
        super().__init__(parent)
        self.recommendation = rec
        self.rank = rank
        self.setObjectName("recommendation_card")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        box = QVBoxLayout(self)
        box.setContentsMargins(10, 8, 10, 8)
        box.setSpacing(4)
        head = QHBoxLayout()
        head.setSpacing(8)
        self.badge = QLabel(self._action_text(rec.action))
        color = BADGE_COLORS.get(rec.action, "#555555")
        self.badge.setStyleSheet(f"background: {color}; color: white; font-weight: bold; "
                                 "border-radius: 3px; padding: 1px 6px;")
        self.badge.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.badge.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        head.addWidget(self.badge)
        # A SELL is not an option to rank: it is what to do with the card the pick replaces,
        # so it has no number and says which pick it goes with.
        if rank is None:
            self.title = QLabel(arg(self.tr("↳ %1 (with pick %2)"), rec.card,
            str(goes_with)) if goes_with else f"↳ {rec.card}")
        else:
            self.title = QLabel(f"{rank}. {rec.card}")
        font = self.title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.title.setFont(font)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        head.addWidget(self.title, 1)
        box.addLayout(head)
        self.reason = _wrapped(tr_msg(rec.reason))
        box.addWidget(self.reason)
        self.facts = _wrapped("   ·   ".join(self.fact_texts(rec)))
        font = self.facts.font()
        font.setPointSizeF(font.pointSizeF() * 0.92)
        self.facts.setFont(font)
        if rec.price is not None:
            self.facts.setToolTip(arg(self.tr("Price source: %1"), rec.price.source)
                                  + (f"\n{rec.price.note}" if rec.price.note else ""))
        box.addWidget(self.facts)

    def _action_text(self, action: str) -> str:
        return {"buy": self.tr("BUY"), "keep": self.tr("KEEP"), "sell": self.tr("SELL")}.get(
            action, action.upper())

    def fact_texts(self, rec: Recommendation) -> list[str]:
        """The key numbers, each a short "label value" string."""
        out = []
        if rec.price_usd is not None:
            cond = rec.price.condition if rec.price else ""
            cond = {"new": self.tr("new"), "used": self.tr("used"),
                    "mixed": self.tr("mixed condition")}.get(cond, cond)
            if rec.price is not None and rec.price.launch:
                cond = self.tr("launch price")
            elif rec.price is not None and rec.price.kind == "asking":
                cond += " " + self.tr("asking")
            dated = f" {cond} ({rec.price.date})" if rec.price and rec.price.date else ""
            out.append(arg(self.tr("price %1"), _money(rec.price_usd) + dated))
        if rec.net_cost_usd is not None and rec.action != "sell":
            out.append(arg(self.tr("net cost %1"), _money(rec.net_cost_usd)))
        if rec.speedup is not None and rec.speed_band is not None:
            out.append(arg(self.tr("speed-up %1× %2"),
                           f"{rec.speedup:.2f}", rec.speed_band.text()))
        elif rec.speedup is not None:
            out.append(arg(self.tr("speed-up %1×"), f"{rec.speedup:.2f}"))
        if rec.fits:
            out.append(arg(self.tr("fits, batch up to %1"), str(rec.max_batch))
                       if rec.max_batch else self.tr("fits"))
        else:
            out.append(self.tr("does not fit"))
        if rec.power_cost_per_year_usd is not None:
            out.append(arg(self.tr("power %1/year"), _money(rec.power_cost_per_year_usd)))
        if rec.rent is not None:
            out.append(arg(self.tr("renting the same work %1–%2/h (%3, %4)"),
                           f"${rec.rent.cheapest_usd_per_hour:.2f}",
                           f"${rec.rent.median_usd_per_hour:.2f}", rec.rent.provider,
                           rec.rent.month))
        if rec.break_even_months is not None:
            out.append(arg(self.tr("break-even %1 months"), f"{rec.break_even_months:g}"))
        support = {"supported": self.tr("supported"), "legacy": self.tr("legacy builds only"),
                   "unsupported": self.tr("unsupported")}.get(rec.support, rec.support)
        out.append(arg(self.tr("software: %1"), support))
        return out


class RecommendationList(QWidget):
    """The ranked cards in a column (put it in a scroll area)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._box = QVBoxLayout(self)
        self._box.setContentsMargins(0, 0, 0, 0)
        self._box.setSpacing(8)
        self._cards: list[RecommendationCard] = []

    def set_recommendations(self, recs: Sequence[Recommendation]) -> None:
        for card in self._cards:
            self._box.removeWidget(card)
            card.deleteLater()
        self._cards = []
        sells = [r for r in recs if r.action == "sell"]
        rank = 0
        first_buy = None
        for r in recs:
            if r.action == "sell":
                continue
            rank += 1
            self._cards.append(RecommendationCard(rank, r, self))
            if r.action == "buy" and first_buy is None:
                first_buy = rank
                # the sale that pays towards this pick comes right under it
                self._cards.extend(RecommendationCard(None, s, self, goes_with=rank)
                                   for s in sells)
        if first_buy is None:
            self._cards.extend(RecommendationCard(None, s, self) for s in sells)
        for card in self._cards:
            self._box.addWidget(card)

    def cards(self) -> list[RecommendationCard]:
        return list(self._cards)
