"""Money on screen, in the currency the user chose (Preferences ▸ Money).

Prices stay US dollars everywhere (the catalog, the advisor, plan files); only their display is
converted. The main window sets the display currency from the preferences at start and when
they change, then refreshes the panes that show prices; the panes format through ``usd()``.
"""

from __future__ import annotations

from typing import Callable

_symbol = "$"
_rate = 1.0


def set_display_currency(symbol: str, rate: float | None) -> None:
    """Show amounts as ``symbol`` × ``rate`` (units per US dollar); ``None`` rate: US dollars."""
    global _symbol, _rate
    if rate is None or rate <= 0:
        _symbol, _rate = "$", 1.0
    else:
        _symbol, _rate = symbol or "$", float(rate)


def usd(amount: float | None, *, none: str = "—") -> str:
    """"$1,299" (cents below $10), or the converted amount ("¥9,353")."""
    if amount is None:
        return none
    v = amount * _rate
    sign = "−" if v < 0 else ""
    v = abs(v)
    return f"{sign}{_symbol}{v:,.0f}" if v >= 10 else f"{sign}{_symbol}{v:,.2f}"


def converter() -> Callable[[float], float]:
    """USD → the display currency (charts' axes)."""
    rate = _rate
    return lambda amount: amount * rate


def symbol() -> str:
    return _symbol
