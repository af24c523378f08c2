"""Translation markers for Qt-free code (the core, the CLI's shared texts).

The core never imports Qt, yet its fixed texts (layer labels, help, term labels, advisor
profiles, suggestion titles, error messages) are shown by the window, translated. Two tools:

* ``QT_TRANSLATE_NOOP(context, text)`` returns ``text`` unchanged. ``pyside6-lupdate``
  recognises the call and extracts ``text`` into the ``.ts`` under ``context`` (the core uses
  the context ``"core"``); the window translates it where it is shown
  (``planner.ui.i18n.tr_core``).
* ``Msg(template, **args)`` is a ``str`` holding the English text ``template.format(**args)``
  (so comparisons, logs, the CLI and the tests see exactly the text they always did) that also
  remembers ``template`` and ``args``: the window translates the template and then formats it
  (``planner.ui.i18n.tr_msg``). An argument may itself be a ``Msg`` (translated in turn).

Everything here is plain Python: no Qt, no work at import time.
"""

from __future__ import annotations

from typing import Any

CORE = "core"  # the translation context of every core text


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:  # noqa: N802 (Qt's spelling)
    """Mark ``text`` for translation in ``context``; returns it unchanged."""
    return text


def N_(text: str) -> str:
    """Nothing: a reminder that ``text`` is translated where it is shown (context "core")."""
    return text


class Msg(str):
    """An English message that knows its template: ``str(msg)`` is the formatted English text.

    >>> m = Msg("kernel {kernel} is larger than its {input} input", kernel="7×7", input="5×5")
    >>> m == "kernel 7×7 is larger than its 5×5 input"
    True
    """

    template: str
    args: dict[str, Any]

    def __new__(cls, template: str, /, **args: Any) -> "Msg":
        text = template.format(**args) if args else template
        self = super().__new__(cls, text)
        self.template = template
        self.args = args
        return self

    def __reduce__(self):  # pickles (and copies) as a Msg
        return (_rebuild, (self.template, self.args))

    def __repr__(self) -> str:
        return f"Msg({self.template!r}, {self.args!r})"


def _rebuild(template: str, args: dict[str, Any]) -> Msg:
    return Msg(template, **args)


def message_of(exc: BaseException) -> str:
    """The message of an exception raised with one argument: the ``Msg`` when it was raised
    with one (so it can still be translated), else ``str(exc)``."""
    if len(exc.args) == 1 and isinstance(exc.args[0], Msg):
        return exc.args[0]
    return str(exc)


class Money(str):
    """An amount of US dollars in a message: reads "$1,299" as text; the window shows it in the
    user's display currency (``planner.ui.i18n.tr_msg``)."""

    usd: float

    def __new__(cls, usd: float) -> "Money":
        self = super().__new__(cls, f"${usd:,.0f}")
        self.usd = float(usd)
        return self

    def __reduce__(self):
        return (Money, (self.usd,))
