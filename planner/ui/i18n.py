"""The window's language: which translations exist, which one to load, and core texts.

The app's texts go through Qt's translation system (``self.tr``,
``QCoreApplication.translate``); the Simplified Chinese translation is
``resources/i18n/gpu_planner_zh_CN.ts``, compiled to ``.qm`` when the wheel or the frozen app
is built. In a source checkout without a ``.qm``, the ``.ts`` is compiled on the fly into the
cache folder (when ``pyside6-lrelease`` / ``lrelease`` is found).

Switching language at run time: ``install_translator(app, language)`` removes the translators
it installed before and installs the new ones; Qt then sends every widget a
``QEvent.LanguageChange``. Widgets built with ``self.tr`` keep their old texts until they are
re-translated, so the window rebuilds its panes (or itself) around the same document: the
plan, its undo stack and its file are kept.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from planner import paths
from planner.i18n import Money, Msg

log = logging.getLogger("planner.ui.i18n")

CATALOG = "gpu_planner"  # resources/i18n/gpu_planner_<language>.ts / .qm
CORE_CONTEXT = "core"
# What the settings offer: "system" follows the desktop's locale.
LANGUAGES = ("system", "en", "zh_CN")
_NAMES = {"en": "English", "zh_CN": "简体中文"}

# The translators this module installed, per application (removed on the next switch).
_INSTALLED: dict[int, list[QTranslator]] = {}


def available_languages() -> list[tuple[str, str]]:
    """``(code, name in that language)`` for English and every shipped translation."""
    out = [("en", _NAMES["en"])]
    folder = paths.resource_path("i18n")
    found = set()
    if folder.is_dir():
        for f in folder.iterdir():
            if f.name.startswith(CATALOG + "_") and f.suffix in (".ts", ".qm"):
                found.add(f.stem[len(CATALOG) + 1:])
    for code in sorted(found):
        out.append((code, _NAMES.get(code, code)))
    return out


def system_language(locale: QLocale | None = None) -> str:
    """The language the desktop asks for: "zh_CN" for any Chinese locale, else "en"."""
    locale = locale or QLocale.system()
    if locale.language() == QLocale.Language.Chinese:
        return "zh_CN"
    for name in locale.uiLanguages():
        if name.lower().startswith("zh"):
            return "zh_CN"
    return "en"


def resolve_language(language: str | None) -> str:
    """"system" (or None / unknown) → the system's language; "en" and "zh_CN" as they are."""
    if language in ("en", "zh_CN"):
        return language
    return system_language()


def _lrelease() -> str | None:
    for name in ("pyside6-lrelease", "lrelease", "lrelease-qt6"):
        found = shutil.which(name)
        if found:
            return found
    # The one next to this interpreter (a virtual environment that is not on PATH).
    import sys  # noqa: PLC0415

    here = Path(sys.executable).parent
    for name in ("pyside6-lrelease", "pyside6-lrelease.exe"):
        if (here / name).is_file():
            return str(here / name)
    return None


def compile_ts(ts: Path, qm: Path) -> bool:
    """``lrelease ts -qm qm``; False (and a log line) when lrelease is missing or fails."""
    tool = _lrelease()
    if tool is None:
        log.info("no lrelease found to compile %s", ts)
        return False
    qm.parent.mkdir(parents=True, exist_ok=True)
    try:
        subprocess.run([tool, "-silent", str(ts), "-qm", str(qm)], check=True,
                       capture_output=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as exc:
        log.warning("compiling %s failed: %s", ts, exc)
        return False
    return qm.is_file()


def qm_path(language: str) -> Path | None:
    """The compiled translation for ``language``: the shipped .qm, or (in a source checkout)
    one compiled from the .ts into the cache folder, rebuilt when the .ts is newer."""
    shipped_qm = paths.resource_path("i18n", f"{CATALOG}_{language}.qm")
    ts = paths.resource_path("i18n", f"{CATALOG}_{language}.ts")
    if shipped_qm.is_file() and (not ts.is_file()
                                 or shipped_qm.stat().st_mtime >= ts.stat().st_mtime):
        return shipped_qm
    if not ts.is_file():
        return shipped_qm if shipped_qm.is_file() else None
    cached = paths.cache_dir() / "i18n" / f"{CATALOG}_{language}.qm"
    if cached.is_file() and cached.stat().st_mtime >= ts.stat().st_mtime:
        return cached
    if compile_ts(ts, cached):
        return cached
    return shipped_qm if shipped_qm.is_file() else None


def _qt_translations_dir() -> str:
    return QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)


def remove_translators(app: QCoreApplication) -> None:
    """Remove the translators ``install_translator`` installed on ``app``."""
    for t in _INSTALLED.pop(id(app), []):
        app.removeTranslator(t)


def install_translator(app: QCoreApplication, language: str | None = "system"
                       ) -> QTranslator | None:
    """Load ``language`` ("system" | "en" | "zh_CN") into ``app``, replacing what this function
    installed before. Also loads Qt's own translation (standard buttons and dialogs) when
    PySide6 ships it. Returns the app's translator, or None for English (or when no
    translation could be loaded: the app then stays in English)."""
    remove_translators(app)
    code = resolve_language(language)
    if code == "en":
        QLocale.setDefault(QLocale(QLocale.Language.English, QLocale.Country.UnitedStates))
        return None
    qm = qm_path(code)
    translator = QTranslator(app)
    if qm is None or not translator.load(str(qm)):
        log.warning("no usable translation for %s (looked for %s)", code, qm)
        return None
    installed = [translator]
    app.installTranslator(translator)
    qt = QTranslator(app)
    if qt.load(QLocale(code), "qtbase", "_", _qt_translations_dir()):
        app.installTranslator(qt)
        installed.append(qt)
    _INSTALLED[id(app)] = installed
    QLocale.setDefault(QLocale(code))
    return translator


def current_language(app: QCoreApplication | None = None) -> str:
    """"zh_CN" while a translation this module installed is active, else "en"."""
    app = app or QCoreApplication.instance()
    return "zh_CN" if app is not None and _INSTALLED.get(id(app)) else "en"


# -- core texts --------------------------------------------------------------------------------


def tr_core(text: str) -> str:
    """A fixed core text (marked with ``QT_TRANSLATE_NOOP("core", …)``), translated. A ``Msg``
    is translated as a template (``tr_msg``)."""
    if isinstance(text, Msg):
        return tr_msg(text)
    if not text:
        return text
    return QCoreApplication.translate(CORE_CONTEXT, text)


def _tr_arg(value: Any) -> Any:
    if isinstance(value, Money):
        from planner.ui import money

        return money.usd(value.usd)
    return tr_msg(value) if isinstance(value, Msg) else value


def tr_msg(msg: Any) -> str:
    """A core message, translated: a ``Msg`` has its template translated and then formatted
    with its arguments (themselves translated when they are ``Msg``); any other text goes
    through ``tr_core``. Falls back to the English text when the translation does not
    format (a translator dropped a field)."""
    if not isinstance(msg, Msg):
        return tr_core(str(msg)) if isinstance(msg, str) else str(msg)
    template = QCoreApplication.translate(CORE_CONTEXT, msg.template)
    if not msg.args:
        return template
    try:
        return template.format(**{k: _tr_arg(v) for k, v in msg.args.items()})
    except (KeyError, IndexError, ValueError):
        return str(msg)


_PLACEHOLDER = re.compile(r"%(\d)")


def arg(text: str, *values: Any) -> str:
    """Qt's placeholders filled: ``arg(self.tr("%1 of %2 cards"), 3, 40)``. The one way ui
    code puts values into a translated text (a translator may reorder %1…%9). Filled in one
    pass, so a value that itself holds "%2" stays as it is; a placeholder without a value
    stays visible."""
    def fill(m: re.Match) -> str:
        i = int(m.group(1))
        return str(values[i - 1]) if 0 < i <= len(values) else m.group(0)

    return _PLACEHOLDER.sub(fill, text)


def exc_text(exc: BaseException) -> str:
    """A core error's message in the current language (its ``Msg`` when it carries one)."""
    from planner.i18n import message_of  # noqa: PLC0415

    return tr_msg(message_of(exc))


def tr_problem(problem) -> str:
    """A ``planner.core.network.Problem`` ("layer 3 (conv3): …"), translated."""
    from planner.core.network import PROBLEM_TEMPLATE  # noqa: PLC0415

    template = QCoreApplication.translate(CORE_CONTEXT, PROBLEM_TEMPLATE)
    try:
        return template.format(index=problem.index, name=problem.name,
                               message=tr_msg(problem.message))
    except (KeyError, IndexError, ValueError):
        return str(problem)


def language_name(code: str) -> str:
    return _NAMES.get(code, code)


def env_language() -> str | None:
    """``GPU_PLANNER_LANG`` (tests, screenshots): overrides the setting when set."""
    return os.environ.get("GPU_PLANNER_LANG") or None


# -- re-translating a live widget ---------------------------------------------------------------

_TEXT_PROPERTIES = (("text", "setText"), ("toolTip", "setToolTip"), ("title", "setTitle"),
                    ("suffix", "setSuffix"), ("placeholderText", "setPlaceholderText"))


class TextBindings:
    """Which widget shows which fixed source text, so a widget that must keep running (the
    Monitor: its sampler, history and recording) can show another language without being
    rebuilt.

    ``record(obj)`` (a context manager around the code that builds ``obj``'s widgets) notes
    every source text ``obj.tr`` translates; ``capture()`` then finds, in ``obj`` and its
    children, every text property (and combo-box item) that shows one of them, and
    ``apply()`` sets each again from its source in the language now installed. Texts built
    with arguments are not captured: their owner refreshes them from its state.
    """

    def __init__(self, root: Any, context: str):
        self._root = root
        self._context = context
        self._sources: list[str] = []
        self._bound: list[tuple[Any, str, Any, str]] = []

    def _tr(self, text: str, *args: Any) -> str:
        self._sources.append(text)
        return QCoreApplication.translate(self._context, text, *args)

    def record(self, *modules: Any):
        """Note what ``root.tr`` translates while the block runs (an instance attribute shadows
        the method meanwhile; lupdate still sees the ``self.tr`` calls), and what the module
        helpers ``_tr`` of ``modules`` translate (builders of the root's widgets kept in other
        modules; each helper must translate in this context)."""
        bindings = self
        saved = [(m, m._tr) for m in modules]

        class _Recording:
            def __enter__(self):
                bindings._root.tr = bindings._tr
                for m, _ in saved:
                    m._tr = bindings._tr
                return bindings

            def __exit__(self, *exc):
                del bindings._root.tr
                for m, helper in saved:
                    m._tr = helper
                return False

        return _Recording()

    def capture(self) -> int:
        from PySide6.QtWidgets import QComboBox, QWidget  # noqa: PLC0415

        by_text: dict[str, str] = {}
        for source in self._sources:
            by_text.setdefault(QCoreApplication.translate(self._context, source), source)
        self._bound = []
        for w in [self._root, *self._root.findChildren(QWidget)]:
            for getter, setter in _TEXT_PROPERTIES:
                get = getattr(w, getter, None)
                if get is None or not callable(get):
                    continue
                try:
                    value = get()
                except TypeError:
                    continue
                if isinstance(value, str) and value in by_text:
                    self._bound.append((w, setter, None, by_text[value]))
            if isinstance(w, QComboBox):
                for i in range(w.count()):
                    if w.itemText(i) in by_text:
                        self._bound.append((w, "setItemText", i, by_text[w.itemText(i)]))
        return len(self._bound)

    def apply(self) -> None:
        import shiboken6  # noqa: PLC0415

        for widget, setter, index, source in self._bound:
            if not shiboken6.isValid(widget):
                continue
            text = QCoreApplication.translate(self._context, source)
            if index is None:
                getattr(widget, setter)(text)
            elif index < widget.count():
                widget.setItemText(index, text)
