"""Exporting what the Planner shows: the breakdown, the per-layer and fit tables as CSV and
JSON, the charts as PNG and SVG; nothing is written for an empty plan."""

from __future__ import annotations

import csv
import json

import pytest
from PySide6.QtGui import QImage

from planner.core.catalog import load_catalog
from planner.core.parallel import Parallel
from planner.ui.main_window import build_main_window
from planner.ui.services import Services

from gui_prompts import ScriptedPrompts  # tests/gui is on sys.path (pytest rootdir mode)

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]


@pytest.fixture
def window(qtbot, planner_home, tmp_path):
    services = Services(prompts=ScriptedPrompts(), settings_path=tmp_path / "settings.ini",
                        start_preset="resnet50", catalog_loader=load_catalog)
    w = build_main_window(services)
    qtbot.addWidget(w)
    w.show()
    w.load_catalog()
    told: list[tuple[str, str]] = []
    ex = w.planner.exporter
    ex.inform = lambda title, text: told.append((title, text))
    w.told = told
    yield w
    w.document.undo_stack.setClean()


def _csv(path):
    lines = path.read_text(encoding="utf-8").splitlines()
    meta = [x for x in lines if x.startswith("#")]
    rows = list(csv.DictReader(x for x in lines if not x.startswith("#")))
    return meta, rows


def test_breakdown_exports_whole_bytes_with_the_plan_name_and_date(window, tmp_path):
    est = window.document.estimate
    out = window.planner.exporter.export("breakdown", tmp_path / "b.csv")
    assert out is not None
    meta, rows = _csv(out)
    assert any(m.startswith("# plan: ") and "ResNet" in m for m in meta), meta
    assert any(m.startswith("# exported: 20") for m in meta)
    by_term = {r["term"]: r for r in rows}
    assert int(by_term["weights"]["bytes"]) == est.weights  # a whole number, not 9.75e+07
    assert int(by_term["peak"]["bytes"]) == est.peak
    assert "bytes" in rows[0] and "e+" not in out.read_text()
    data = json.loads(window.planner.exporter.export("breakdown", tmp_path / "b.json")
                      .read_text(encoding="utf-8"))
    assert data["incomplete"] is False and data["exported"].startswith("20")
    peak = [r for r in data["rows"] if r["term"] == "peak"][0]
    assert peak["bytes"] == est.peak and isinstance(peak["bytes"], int)


def test_breakdown_on_several_gpus_has_a_per_gpu_column(window, tmp_path):
    window.document.set_parallel(Parallel(4, 1, "zero3"))
    data = json.loads(window.planner.exporter.export("breakdown", tmp_path / "b.json")
                      .read_text(encoding="utf-8"))
    assert "per_gpu_bytes" in data["columns"]
    assert data["setup"]["gpus"] == 4 and data["setup"]["strategy"] == "zero3"
    rows = {r["term"]: r for r in data["rows"]}
    assert rows["peak"]["per_gpu_bytes"] == window.document.per_gpu.peak
    assert rows["gathered"]["per_gpu_bytes"] > 0


def test_per_layer_table_exports_every_layer(window, tmp_path):
    est = window.document.estimate
    meta, rows = _csv(window.planner.exporter.export("layers", tmp_path / "l.csv"))
    assert len(rows) == len(est.layers) > 50
    assert {"kept_for_backward_bytes", "output_bytes", "flops_forward"} <= set(rows[0])
    conv1 = est.layers[1]
    assert rows[1]["layer"] == conv1.name
    assert int(rows[1]["kept_for_backward_bytes"]) == conv1.activation_bytes


def test_fit_table_exports_the_rows_shown(window, tmp_path):
    pane = window.planner
    pane.show_result_tab("fit")
    view = pane.ensure_fit_view()
    view.fits_only_check.setChecked(True)
    shown = view.visible_names()
    assert 0 < len(shown) < len(view.rows)
    # Ctrl+E on the fit tab exports the fit table
    assert pane.exporter.current_kind() == "fit"
    data = json.loads(pane.exporter.export("fit", tmp_path / "f.json").read_text("utf-8"))
    assert [r["card"] for r in data["rows"]] == shown
    assert all(r["fits"] for r in data["rows"])
    assert isinstance(data["rows"][0]["peak_bytes"], int)
    assert {"price_new_usd", "time_per_iter_ms", "samples_per_s"} <= set(data["columns"])
    assert any("filters" in n for n in data["notes"])


@pytest.mark.parametrize("key", ["layer_chart", "step_chart", "scaling_chart", "fit_chart",
                                 "fit_memory_chart"])
def test_charts_export_as_png_and_svg_with_a_title(window, tmp_path, key):
    ex = window.planner.exporter
    plot = ex.chart(key)[0]
    own_title = plot.getPlotItem().titleLabel.isVisible()
    png = ex.export(key, tmp_path / f"{key}.png")
    assert png is not None, window.told
    image = QImage(str(png))
    assert image.width() >= 1000 and image.height() > 300
    svg = ex.export(key, tmp_path / f"{key}.svg")
    text = svg.read_text(encoding="utf-8")
    assert "<svg" in text and "ResNet" in text  # the title names the plan
    # the title comes off again after the export (a chart's own title stays)
    assert plot.getPlotItem().titleLabel.isVisible() == own_title
    # and the exported chart is the one shown
    assert plot.isVisible()


def test_an_empty_plan_refuses_every_export_with_a_message(window, tmp_path):
    window._on_new_triggered()
    assert window.document.is_empty
    ex = window.planner.exporter
    for key in ("breakdown", "layers", "fit", "layer_chart", "step_chart", "scaling_chart",
                "fit_chart"):
        assert ex.export(key, tmp_path / f"{key}.csv") is None
    assert len(window.told) == 7
    assert all("Nothing to export" == t for t, _ in window.told)
    assert list(tmp_path.glob("*.csv")) == []


def test_file_menu_has_the_exports_and_ctrl_e(window):
    titles = [a.text() for a in window.menuBar().actions()[0].menu().actions()]
    ex = window.planner.exporter
    assert ex.menu.menuAction().text() in titles
    assert ex.export_view_action.shortcut().toString() == "Ctrl+E"
    texts = [a.text() for a in ex.menu.actions() if a.text()]
    assert len(texts) == 1 + 8
    # and each view offers its export in a context menu
    assert ex.actions["layer_chart"] in window.planner.chart.actions()
    assert ex.actions["breakdown"] in window.planner.breakdown.actions()


def test_export_asks_for_a_path_in_the_last_folder_and_adds_the_suffix(window, tmp_path):
    asked = []
    ex = window.planner.exporter
    ex.last_folder = lambda: str(tmp_path)
    ex.ask_save_path = lambda title, suggested, filters: (
        asked.append((title, suggested, filters)) or str(tmp_path / "mine"))
    out = ex.export("layers")
    assert out == tmp_path / "mine.csv" and out.is_file()
    assert asked[0][1].startswith(str(tmp_path)) and "JSON" in asked[0][2]


def test_an_incomplete_import_is_said_in_the_file(window, tmp_path):
    class Result:
        incomplete = True
        warnings = ("node /x/y: an op not understood",)
        draft = window.document.draft

    window.files.import_result = Result()
    meta, _rows = _csv(window.planner.exporter.export("breakdown", tmp_path / "b.csv"))
    assert any("INCOMPLETE" in m for m in meta), meta
    data = json.loads(window.planner.exporter.export("layers", tmp_path / "l.json")
                      .read_text("utf-8"))
    assert data["incomplete"] is True and any("INCOMPLETE" in n for n in data["notes"])


def test_ctrl_e_works_only_with_the_planner_in_front(window):
    """On the Monitor, Catalog or Advisor, Ctrl+E must not export the Planner's hidden view."""
    action = window.planner.exporter.export_view_action
    assert action.isEnabled()
    window.tabs.setCurrentIndex(1)
    assert not action.isEnabled()
    window.tabs.setCurrentIndex(0)
    assert action.isEnabled()
