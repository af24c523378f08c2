"""The files of the Planner's exports (``planner.ui.exporting`` asks for them): the breakdown,
the per-layer table and the fit table as CSV or JSON, and a chart (a pyqtgraph plot) as PNG or
SVG. Imported on the first export, off the start-up path.

Tables: bytes are whole numbers, every column name carries its unit (``_bytes``, ``_ms``,
``_usd``…), and the file says which plan it is, when it was exported and anything that makes
the figures less than complete (an incomplete ONNX import, cards from the simulated source).
CSV puts that in ``# key: value`` lines above the header (``pandas.read_csv(comment="#")``);
JSON in ``plan``, ``exported``, ``notes`` and ``incomplete`` next to ``columns`` and ``rows``.

Charts: pyqtgraph's ``ImageExporter`` / ``SVGExporter`` on the plot, with a title line (the
plan, the date, the notes) set for the export and taken off again.
"""

from __future__ import annotations

import csv
import datetime as _dt
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication

from planner.core.memory import TERMS, term_label
from planner.i18n import QT_TRANSLATE_NOOP
from planner.ui.i18n import arg, tr_core

TABLE_FILTERS = QT_TRANSLATE_NOOP("PlanExporter", "CSV (*.csv);;JSON (*.json)")
CHART_FILTERS = QT_TRANSLATE_NOOP("PlanExporter",
                                  "PNG image (*.png);;SVG image (*.svg)")
TABLE_SUFFIXES = (".csv", ".json")
CHART_SUFFIXES = (".png", ".svg")

PARALLEL_ONLY_TERMS = ("communication", "gathered")
_PARALLEL_LABELS = {
    "communication": QT_TRANSLATE_NOOP("PlanExporter", "Communication buffers"),
    "gathered": QT_TRANSLATE_NOOP("PlanExporter", "Gathered weights (ZeRO-3 / FSDP)")}


def _tr(text: str) -> str:
    return QApplication.translate("PlanExporter", text)


class NothingToExport(ValueError):
    """The view has nothing to export (no estimate, no rows, no points); the text says why."""


@dataclass(frozen=True)
class ExportMeta:
    """What a file says about itself: the plan, when, and what limits its figures."""

    plan: str
    exported: str = field(default_factory=lambda: _dt.datetime.now().astimezone().isoformat(
        timespec="seconds"))
    notes: tuple[str, ...] = ()
    incomplete: bool = False
    setup: dict[str, Any] = field(default_factory=dict)

    def title(self, what: str) -> str:
        head = f"{what} — {self.plan} — {self.exported.replace('T', ' ')}"
        return "\n".join((head, *self.notes)) if self.notes else head


@dataclass(frozen=True)
class Table:
    """Rows of plain values under column names that carry their units."""

    name: str  # what it is, e.g. "breakdown"
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    notes: tuple[str, ...] = ()  # what this table adds to the file's notes (e.g. filters)


# ------------------------------------------------------------------------------ the tables


def breakdown_table(est, per_gpu=None) -> Table:
    """The breakdown bar as rows: each term's bytes at the peak of the step, then the peak and
    what PyTorch and nvidia-smi would report; a column per GPU when the run is spread."""
    if est is None:
        raise NothingToExport(_tr("There is no estimate to export: the plan is empty or has "
                                  "errors."))
    mode = est.setup.mode
    one = est.terms()
    gpu = per_gpu.terms() if per_gpu is not None else None
    terms = list(TERMS) + ([t for t in PARALLEL_ONLY_TERMS if t in gpu] if gpu else [])
    rows = []
    for t in terms:
        label = tr_core(term_label(t, mode)) if t in TERMS else _tr(_PARALLEL_LABELS[t])
        row: tuple[Any, ...] = (t, label, int(one.get(t, 0)))
        if gpu is not None:
            row += (int(gpu.get(t, 0)),)
        rows.append(row)
    totals = (("peak", _tr("Peak (sum of the terms)"), est.peak,
               per_gpu.peak if per_gpu is not None else None),
              ("allocated", _tr("Tensors at the peak (torch.cuda.max_memory_allocated)"),
               est.allocated_bytes, None),
              ("reserved", _tr("Allocator holds (max_memory_reserved, simulated)"),
               est.reserved_bytes, None),
              ("nvidia_smi", _tr("nvidia-smi shows (reserved + context)"),
               est.nvidia_smi_bytes, None))
    for key, label, value, per in totals:
        row = (key, label, int(value))
        if gpu is not None:
            row += (int(per) if per is not None else None,)
        rows.append(row)
    columns = ("term", "label", "bytes") + (("per_gpu_bytes",) if gpu is not None else ())
    return Table("breakdown", columns, tuple(rows))


def layer_table(est) -> Table:
    """The per-layer table: one row per layer, bytes and FLOPs as whole numbers."""
    if est is None or not est.layers:
        raise NothingToExport(_tr("There are no layers to export: the plan is empty or has "
                                  "errors."))
    columns = ("index", "layer", "type", "output_shape", "parameters",
               "kept_for_backward_bytes", "output_bytes", "workspace_bytes",
               "flops_forward", "flops_backward")
    rows = tuple((layer.index, layer.name, layer.kind,
                  "x".join(map(str, layer.output_shape or ())),
                  int(layer.parameters), int(layer.activation_bytes), int(layer.output_bytes),
                  int(layer.workspace_bytes), int(layer.flops_fwd), int(layer.flops_bwd))
                 for layer in est.layers)
    return Table("per_layer", columns, rows)


def fit_rows_table(rows: Sequence, total: int | None = None) -> Table:
    """The fit table's rows as shown (filtered, sorted); ``total``: rows before the filters."""
    if not rows:
        raise NothingToExport(_tr("There are no cards to export: the plan is empty or has "
                                  "errors, or the filters hide every card."))
    columns = ("card", "memory_gib", "fits", "peak_bytes", "usable_bytes", "headroom_bytes",
               "max_batch", "time_per_iter_ms", "samples_per_s", "samples_per_s_error_pct",
               "samples_per_s_low_pct", "samples_per_s_high_pct",
               "relative_speed", "price_new_usd", "price_new_date", "price_used_usd",
               "price_used_date", "samples_per_s_per_usd", "support", "owned", "note")
    out = []
    for r in rows:
        new, used = r.price_new, r.price_used
        err, band = r.speed.error_band, r.speed.band
        out.append((r.card.name, r.card.memory_gib, bool(r.fits), int(r.peak_bytes),
                    int(r.usable_bytes), int(r.headroom_bytes), int(r.max_batch),
                    round(r.time_per_iter_s * 1000, 4), round(r.samples_per_s, 3),
                    round(err * 100, 1) if err is not None else None,
                    band.low_pct if band is not None else None,
                    band.high_pct if band is not None else None,
                    round(r.relative_speed, 4),
                    new.usd if new else None, new.date if new else None,
                    used.usd if used else None, used.date if used else None,
                    (round(r.samples_per_s_per_usd, 6) if r.samples_per_s_per_usd is not None
                     else None), r.support, bool(r.owned), r.note))
    notes = ()
    if total is not None and total != len(rows):
        notes = (arg(_tr("%1 of %2 cards (the table's filters)"), str(len(rows)), str(total)),)
    return Table("fit", columns, tuple(out), notes)


def write_table(path: str | Path, table: Table, meta: ExportMeta) -> int:
    """Write ``table`` as CSV or JSON (by the suffix); returns the number of rows."""
    path = Path(path)
    notes = (*meta.notes, *table.notes)
    if path.suffix.lower() == ".json":
        data = {"plan": meta.plan, "exported": meta.exported, "table": table.name,
                "incomplete": meta.incomplete, "notes": list(notes), "setup": meta.setup,
                "columns": list(table.columns),
                "rows": [dict(zip(table.columns, row)) for row in table.rows]}
        path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n",
                        encoding="utf-8")
        return len(table.rows)
    if path.suffix.lower() != ".csv":
        raise ValueError(arg(_tr("Export as .csv or .json, not “%1”"), path.suffix))
    with open(path, "w", newline="", encoding="utf-8") as fh:
        fh.write(f"# plan: {meta.plan}\n# exported: {meta.exported}\n# table: {table.name}\n")
        if meta.setup:
            fh.write("# setup: " + ", ".join(f"{k}={v}" for k, v in meta.setup.items()) + "\n")
        if meta.incomplete:
            fh.write("# INCOMPLETE: the figures do not cover the whole model\n")
        for note in notes:
            fh.write(f"# note: {note}\n")
        w = csv.writer(fh)
        w.writerow(table.columns)
        for row in table.rows:
            w.writerow(["" if v is None else v for v in row])
    return len(table.rows)


# ------------------------------------------------------------------------------ the charts


def export_chart(plot, path: str | Path, title: str, legend: Sequence[tuple[Any, str]] = (),
                 width: int = 1200) -> None:
    """``plot`` (a pyqtgraph PlotWidget) as PNG or SVG with ``title`` above it; ``legend``:
    (item, name) pairs drawn in a legend for the export only (views whose legend is a label
    outside the plot)."""
    import pyqtgraph.exporters as pge  # noqa: PLC0415

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in CHART_SUFFIXES:
        raise ValueError(arg(_tr("Export a chart as .png or .svg, not “%1”"), path.suffix))
    item = plot.getPlotItem()
    # a view just built (the fit view on its first export) lays itself out first: that would
    # otherwise undo the readable size given below while the export waits for the title
    QApplication.processEvents()
    old_title = item.titleLabel.text if item.titleLabel.isVisible() else None
    old_opts = dict(item.titleLabel.opts)
    color = plot.palette().color(plot.palette().ColorRole.WindowText).name()
    lines = title.split("\n")
    if old_title:  # the chart's own title (e.g. the step's peak) stays under ours
        lines.insert(1, _plain(old_title))
    html = "<br>".join(
        (f"<b>{_esc(lines[0])}</b>", *(f"<span style='font-size:9pt'>{_esc(x)}</span>"
                                       for x in lines[1:])))
    item.setTitle(html, color=color, size="11pt")
    old_size = None
    if not plot.isVisible() or plot.width() < 480 or plot.height() < 320:
        # a chart on a tab not shown has no size of its own yet: draw it at a readable one
        old_size = plot.size()
        plot.resize(max(plot.width(), 900), max(plot.height(), 560))
    added = None
    if legend:
        added = item.addLegend(offset=(-10, 10))
        for curve, name in legend:
            added.addItem(curve, name)
    try:
        item.layout.activate()
        QApplication.processEvents()
        if suffix == ".png":
            exporter = pge.ImageExporter(item)
            exporter.parameters()["width"] = int(width)
            exporter.export(str(path))
        else:
            try:
                pge.SVGExporter(item).export(str(path))
            except ValueError:
                # pyqtgraph 0.14's SVG post-processing cannot parse the closed paths
                # ("… Z") newer Qt writes; Qt's own SVG generator draws the same scene.
                _render_svg(item, path, title)
    finally:
        if added is not None:
            added.scene().removeItem(added) if added.scene() else None
            item.legend = None
        item.setTitle(old_title, **{k: v for k, v in old_opts.items()
                                    if k in ("color", "size", "bold", "italic")})
        if old_size is not None:
            plot.resize(old_size)
    if not path.exists() or path.stat().st_size == 0:
        raise OSError(_tr("the file was not written"))


def _render_svg(item, path: Path, title: str) -> None:
    from PySide6.QtCore import QRectF, QSize  # noqa: PLC0415
    from PySide6.QtGui import QPainter  # noqa: PLC0415
    from PySide6.QtSvg import QSvgGenerator  # noqa: PLC0415

    rect = item.sceneBoundingRect()
    gen = QSvgGenerator()
    gen.setFileName(str(path))
    gen.setSize(QSize(int(rect.width()), int(rect.height())))
    gen.setViewBox(QRectF(0, 0, rect.width(), rect.height()))
    gen.setTitle(title.split("\n")[0])
    gen.setDescription(title)
    painter = QPainter(gen)
    try:
        item.scene().render(painter, QRectF(0, 0, rect.width(), rect.height()), rect)
    finally:
        painter.end()


def _plain(html: str) -> str:
    import re  # noqa: PLC0415

    return re.sub(r"<[^>]+>", " ", html).replace("&nbsp;", " ").replace("&amp;", "&").strip()


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


__all__ = ["ExportMeta", "Table", "NothingToExport", "breakdown_table", "layer_table",
           "fit_rows_table", "write_table", "export_chart", "TABLE_FILTERS", "CHART_FILTERS",
           "TABLE_SUFFIXES", "CHART_SUFFIXES"]
