"""Translations: extract the app's texts into the .ts files and compile them to .qm.

    python tools/i18n.py update    # pyside6-lupdate over planner/**/*.py → resources/i18n/*.ts
    python tools/i18n.py compile   # pyside6-lrelease → resources/i18n/*.qm (gitignored)
    python tools/i18n.py check     # exit 1 when a .ts has unfinished or vanished-in-use entries
    python tools/i18n.py fill zh_CN FILE.json   # {"source": "translation"} → unfinished entries

``update`` keeps every existing translation (lupdate merges); texts no longer in the source
become "vanished" (kept for reuse, not compiled). Open the .ts in ``pyside6-linguist`` to
translate.

Two house conventions lupdate cannot see on its own are handled here, on temporary copies of
the sources (the files themselves are not touched):

* a module helper ``def _tr(text): return QCoreApplication.translate("Context", text)`` —
  its calls ``_tr("…")`` are extracted under ``Context``;
* ``QT_TRANSLATE_NOOP("core", "…")`` from ``planner.i18n`` (the Qt-free core's markers) is
  recognised by lupdate as it is.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "planner"
I18N = ROOT / "resources" / "i18n"
CATALOG = "gpu_planner"
LANGUAGES = ("zh_CN",)

_HELPER = re.compile(
    r"^def (_\w*tr\w*)\(text[^)]*\)[^:]*:\s*\n\s+return Q\w*Application\.translate\("
    r"\"([^\"]+)\", text\)", re.M)


def _tool(name: str) -> str:
    here = Path(sys.executable).parent
    for candidate in (here / name, here / f"{name}.exe"):
        if candidate.is_file():
            return str(candidate)
    found = shutil.which(name) or shutil.which(name.removeprefix("pyside6-"))
    if not found:
        sys.exit(f"i18n: {name} not found (pip install PySide6-Essentials)")
    return found


def ts_files() -> list[Path]:
    return [I18N / f"{CATALOG}_{lang}.ts" for lang in LANGUAGES]


def _prepared_sources(tmp: Path) -> list[Path]:
    """Copies of planner/**/*.py with ``_tr("…")`` helpers spelt out for lupdate."""
    out = []
    for src in sorted(SOURCES.rglob("*.py")):
        if "__pycache__" in src.parts:
            continue
        text = src.read_text(encoding="utf-8")
        for name, context in _HELPER.findall(text):
            body = text.split("\n")
            text = "\n".join(
                line if line.lstrip().startswith(f"def {name}(") else
                re.sub(rf"(?<![\w.]){re.escape(name)}\(",
                       f'QCoreApplication.translate("{context}", ', line)
                for line in body)
        dest = tmp / src.relative_to(ROOT)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(text, encoding="utf-8")
        out.append(dest)
    return out


def update() -> None:
    I18N.mkdir(parents=True, exist_ok=True)
    lupdate = _tool("pyside6-lupdate")
    with tempfile.TemporaryDirectory(prefix="gpu-planner-i18n-") as tmp:
        sources = _prepared_sources(Path(tmp))
        listing = Path(tmp) / "sources.lst"
        listing.write_text("\n".join(str(s) for s in sources), encoding="utf-8")
        for ts in ts_files():
            lang = ts.stem.split("_", 2)[-1]
            subprocess.run([lupdate, "-locations", "none", "-source-language", "en",
                            "-target-language", lang, f"@{listing}", "-ts", str(ts)],
                           check=True)


def compile_all(out_dir: Path | None = None) -> list[Path]:
    lrelease = _tool("pyside6-lrelease")
    done = []
    for ts in ts_files():
        if not ts.is_file():
            continue
        qm = (out_dir or ts.parent) / (ts.stem + ".qm")
        qm.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([lrelease, "-silent", str(ts), "-qm", str(qm)], check=True)
        done.append(qm)
    return done


def check() -> int:
    import xml.etree.ElementTree as ET  # noqa: PLC0415

    bad = 0
    for ts in ts_files():
        for ctx in ET.parse(ts).getroot().iter("context"):
            name = ctx.findtext("name")
            for m in ctx.iter("message"):
                t = m.find("translation")
                kind = t.get("type") if t is not None else "missing"
                if kind in ("unfinished", "missing"):
                    bad += 1
                    print(f"{ts.name}: [{name}] {kind}: {m.findtext('source')!r}")
    return 1 if bad else 0


def fill(language: str, table_path: str) -> int:
    """Fill the unfinished entries of one language whose source text the JSON table gives.

    Edits the .ts as text (not through ElementTree) so lupdate's own layout, DOCTYPE included,
    stays as it is; prints how many entries were filled and which unfinished ones remain.
    """
    import html  # noqa: PLC0415
    import json  # noqa: PLC0415

    table = json.loads(Path(table_path).read_text(encoding="utf-8"))
    ts = I18N / f"{CATALOG}_{language}.ts"
    text = ts.read_text(encoding="utf-8")
    pattern = re.compile(
        r"(<source>)([^<]*)(</source>(?:\s*<(?:comment|extracomment|translatorcomment)>.*?"
        r"</(?:comment|extracomment|translatorcomment)>)*\s*)"
        r'<translation type="unfinished">\s*</translation>', re.S)
    filled = 0

    def _sub(m: re.Match) -> str:
        nonlocal filled
        source = html.unescape(m.group(2))
        if source not in table:
            return m.group(0)
        filled += 1
        value = html.escape(table[source], quote=False)
        return f"{m.group(1)}{m.group(2)}{m.group(3)}<translation>{value}</translation>"

    ts.write_text(pattern.sub(_sub, text), encoding="utf-8")
    print(f"{ts.name}: {filled} filled")
    return check()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=("update", "compile", "check", "fill"))
    parser.add_argument("args", nargs="*", help="fill: LANGUAGE FILE.json")
    args = parser.parse_args(argv)
    if args.command == "fill":
        if len(args.args) != 2:
            parser.error("fill takes LANGUAGE FILE.json")
        return fill(*args.args)
    if args.command == "update":
        update()
    elif args.command == "compile":
        for qm in compile_all():
            print(qm.relative_to(ROOT))
    else:
        return check()
    return 0


if __name__ == "__main__":
    sys.exit(main())
