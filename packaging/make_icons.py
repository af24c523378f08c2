"""Render resources/icons/gpu-planner.svg into the icon files the packages need.

Writes, next to the SVG:

* ``gpu-planner-<N>.png`` for the freedesktop hicolor sizes (16 … 512),
* ``gpu-planner.ico`` (Windows: 16 … 256, PNG-compressed entries, Vista and later),
* ``gpu-planner.icns`` (macOS: 16 … 1024, PNG entries, 10.7 and later).

Uses Qt only (QSvgRenderer from PySide6.QtSvg); the ICO and ICNS containers are written by
hand so no other imaging library is needed. The output is committed; run this again after
changing the SVG::

    python packaging/make_icons.py            # write the files
    python packaging/make_icons.py --check    # exit 1 if a committed file is missing or stale
"""

from __future__ import annotations

import argparse
import os
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ICONS = ROOT / "resources" / "icons"
SVG = ICONS / "gpu-planner.svg"
NAME = "gpu-planner"

HICOLOR_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# ICNS element types holding PNG data, and their pixel size (Apple's iconutil layout).
ICNS_TYPES = (
    (b"icp4", 16), (b"icp5", 32), (b"icp6", 64), (b"ic07", 128), (b"ic08", 256),
    (b"ic09", 512), (b"ic10", 1024), (b"ic11", 32), (b"ic12", 64), (b"ic13", 256),
    (b"ic14", 512),
)


def render_png(size: int) -> bytes:
    """The SVG drawn at ``size``×``size`` pixels, as PNG bytes."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        raise SystemExit(f"cannot read {SVG}")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(0)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    # Quality 0 is the strongest (still lossless) zlib compression.
    if not image.convertToFormat(QImage.Format.Format_ARGB32).save(buffer, "PNG", 0):
        raise SystemExit(f"cannot encode a {size}px PNG")
    buffer.close()
    return bytes(data.data())


def build_ico(pngs: dict[int, bytes]) -> bytes:
    header = struct.pack("<HHH", 0, 1, len(ICO_SIZES))
    offset = len(header) + 16 * len(ICO_SIZES)
    entries, blobs = b"", b""
    for s in ICO_SIZES:
        png = pngs[s]
        dim = 0 if s >= 256 else s  # 0 means 256 in an ICONDIRENTRY
        entries += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(png), offset)
        offset += len(png)
        blobs += png
    return header + entries + blobs


def build_icns(pngs: dict[int, bytes]) -> bytes:
    body = b""
    for kind, size in ICNS_TYPES:
        png = pngs[size]
        body += kind + struct.pack(">I", 8 + len(png)) + png
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def outputs() -> dict[Path, bytes]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    _app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])  # noqa: F841
    sizes = sorted(set(HICOLOR_SIZES) | set(ICO_SIZES) | {s for _, s in ICNS_TYPES})
    pngs = {s: render_png(s) for s in sizes}
    files = {ICONS / f"{NAME}-{s}.png": pngs[s] for s in HICOLOR_SIZES}
    files[ICONS / f"{NAME}.ico"] = build_ico(pngs)
    files[ICONS / f"{NAME}.icns"] = build_icns(pngs)
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="only check that the committed files exist and match the SVG")
    args = parser.parse_args(argv)
    stale = []
    for path, data in outputs().items():
        current = path.read_bytes() if path.exists() else None
        if current == data:
            continue
        if args.check:
            stale.append(path)
        else:
            path.write_bytes(data)
            print(f"wrote {path.relative_to(ROOT)} ({len(data)} bytes)")
    if stale:
        for p in stale:
            print(f"stale or missing: {p.relative_to(ROOT)}", file=sys.stderr)
        print("run: python packaging/make_icons.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
