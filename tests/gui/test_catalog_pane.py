"""The Catalog pane: search and filters, details with price history, compare, the user's edits
(a price, a custom card, owned cards) persisted to the override file, and the banner for a corrupt
override file. Dialogs are filled in and accepted directly: nothing modal runs."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog

from planner.core.catalog import default_overrides_path, load_catalog
from planner.ui.catalog.dialogs import CustomCardDialog, PriceDialog
from planner.ui.catalog.models import COL_NAME, COL_NEW, COL_USED, OWNED_MARKER
from planner.ui.catalog.pane import CatalogPane

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    # The offscreen platform plugin warns about these (show(), raise_()); they are not ours.
    pytest.mark.qt_log_ignore("propagateSizeHints", "does not support raise"),
]


@pytest.fixture
def make_pane(qtbot, planner_home):
    def make():
        pane = CatalogPane(load_catalog)
        qtbot.addWidget(pane)
        pane.resize(1400, 900)
        pane.show()
        qtbot.waitExposed(pane)
        return pane
    return make


@pytest.fixture
def pane(make_pane):
    return make_pane()


def runner(fill):
    """A dialog runner that fills the dialog in, accepts it and reports what happened."""
    seen = []

    def run(dialog: QDialog) -> bool:
        seen.append(dialog)
        fill(dialog)
        return dialog.result() == QDialog.DialogCode.Accepted
    run.seen = seen
    return run


def test_item_models_pass_the_model_tester(pane, qtmodeltester):
    pane.select_cards(["GeForce GTX 970"])
    assert pane.price_model.rowCount() > 0
    qtmodeltester.check(pane.model)
    qtmodeltester.check(pane.proxy)
    qtmodeltester.check(pane.price_model)
    dialog = pane.compare(["GeForce GTX 1080", "GeForce GTX 1080 Ti"])
    qtmodeltester.check(dialog.model)


def test_every_card_is_listed(pane):
    assert pane.model.rowCount() == len(load_catalog()) >= 80
    assert pane.proxy.rowCount() == pane.model.rowCount()
    assert not pane.banner.isVisible()
    tip = pane.model.index(0, COL_NAME).data(Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith("Source: ") and len(tip) > len("Source: ")


def test_search_filters_rows(pane, qtbot):
    qtbot.keyClicks(pane.search_edit, "1080")
    names = pane.visible_names()
    assert names and all("1080" in n for n in names)
    assert "GeForce GTX 1080 Ti" in names
    assert f"{len(names)} of" in pane.count_label.text()
    pane.search_edit.setText("gp102")  # the chip
    assert "GeForce GTX 1080 Ti" in pane.visible_names()
    assert "GeForce GTX 1080" not in pane.visible_names()
    pane.search_edit.setText("maxwell 980")
    assert set(pane.visible_names()) >= {"GeForce GTX 980", "GeForce GTX 980 Ti"}
    pane.search_edit.clear()
    assert pane.proxy.rowCount() == pane.model.rowCount()


def test_filters(pane):
    pane.architecture_combo.setCurrentIndex(pane.architecture_combo.findData("Hopper"))
    assert pane.visible_names() and all(pane.catalog.by_name(n).architecture == "Hopper"
                                        for n in pane.visible_names())
    pane.architecture_combo.setCurrentIndex(0)
    pane.segment_combo.setCurrentIndex(pane.segment_combo.findData("workstation"))
    pane.min_memory_spin.setValue(40)
    names = pane.visible_names()
    assert names
    for n in names:
        c = pane.catalog.by_name(n)
        assert c.segment == "workstation" and c.memory_gib >= 40


def test_selecting_shows_details_with_price_history(pane, qtbot):
    with qtbot.waitSignal(pane.card_selected) as sig:
        pane.select_cards(["GeForce GTX 970"])
    assert sig.args == ["GeForce GTX 970"]
    assert "GeForce GTX 970" in pane.details_title.text()
    text = pane.details_browser.toPlainText()
    assert "Maxwell" in text and "fast_memory_gib" in text and "Source:" in text
    assert "legacy builds only" in text
    points = pane.price_model.points
    assert points and [p.date for p in points] == sorted(p.date for p in points)
    assert pane.price_model.index(0, 3).data() == points[0].source
    assert pane.price_model.headerData(1, Qt.Orientation.Horizontal) == "USD"


def test_compare_three_cards(pane, qtbot):
    names = ["GeForce GTX 1080", "GeForce GTX 1080 Ti", "GeForce RTX 3090"]
    pane.select_cards(names)
    assert pane.selected_names() == names
    assert pane.compare_button.isEnabled()
    qtbot.mouseClick(pane.compare_button, Qt.MouseButton.LeftButton)
    dialog = pane.compare_dialog
    assert dialog is not None and dialog.isVisible() and not dialog.isModal()
    model = dialog.model
    assert model.columnCount() == 3
    assert [model.headerData(i, Qt.Orientation.Horizontal) for i in range(3)] == names
    labels = model.field_labels()
    mem = labels.index("Memory (GiB)")
    seg = labels.index("Segment")
    assert [model.index(mem, i).data() for i in range(3)] == ["8", "11", "24"]
    assert model.differs(mem) and model.index(mem, 0).data(Qt.ItemDataRole.BackgroundRole)
    assert not model.differs(seg) and model.index(seg, 0).data(
        Qt.ItemDataRole.BackgroundRole) is None
    pane.select_cards(names + ["GeForce GTX 970", "GeForce GTX 980"])
    assert not pane.compare_button.isEnabled()  # five is too many


def test_edit_price_persists_and_reloads(pane, qtbot, planner_home):
    pane.select_cards(["GeForce GTX 1080"])

    def fill(d: PriceDialog):
        assert d.card.name == "GeForce GTX 1080"
        d.set_values("2026-05", 123, "used", "a local listing")
        d.accept()

    pane.dialog_runner = runner(fill)
    with qtbot.waitSignal(pane.catalog_changed) as sig:
        qtbot.mouseClick(pane.edit_price_button, Qt.MouseButton.LeftButton)
    catalog = sig.args[0]
    p = catalog.price("GeForce GTX 1080", None, "used")
    assert (p.date, p.usd, p.condition, p.source) == ("2026-05", 123, "used", "a local listing")
    path = default_overrides_path()
    assert path.is_relative_to(planner_home)
    saved = json.loads(path.read_text())
    assert saved["prices"]["GeForce GTX 1080"][0]["usd"] == 123
    row = pane.model.row_of("GeForce GTX 1080")
    assert pane.model.index(row, COL_USED).data() == "$123 (2026-05)"
    assert pane.selected_names() == ["GeForce GTX 1080"]  # selection kept over the reload
    assert any(pt.usd == 123 for pt in pane.price_model.points)
    assert "Saved your price" in pane.message_label.text()


def test_price_dialog_rejects_a_zero_price(pane):
    pane.select_cards(["GeForce GTX 1080"])

    def fill(d: PriceDialog):
        d.set_values("2026-05", 0, "new")
        d.accept()
        assert d.error_label.isVisibleTo(d) and "more than $0" in d.error_label.text()

    pane.dialog_runner = runner(fill)
    assert pane.edit_price() is False
    assert not default_overrides_path().exists()


def test_add_custom_card(pane, qtbot):
    good = dict(name="My Frankencard", architecture="Ada Lovelace", segment="consumer",
                compute_capability="8.9", memory_gib=48, bandwidth_gbs=1008, fp32_tflops=82.6,
                memory_type="GDDR6X", bus_width_bits=384, fp16_tensor_tflops=165.2, tdp_w=450,
                launch_price_usd=2500, release="2024-06")
    errors = []

    def fill(d: CustomCardDialog):
        d.set_values(**{**good, "compute_capability": "eight"})
        d.accept()
        assert d.result() != QDialog.DialogCode.Accepted  # still open
        errors.append(d.error_text)
        d.set_values(name="GeForce RTX 4090", compute_capability="8.9")
        d.accept()
        errors.append(d.error_text)
        d.set_values(**good)
        d.accept()

    pane.dialog_runner = runner(fill)
    with qtbot.waitSignal(pane.catalog_changed) as sig:
        qtbot.mouseClick(pane.add_card_button, Qt.MouseButton.LeftButton)
    assert "compute_capability" in errors[0] and "8.6" in errors[0]
    assert "already called" in errors[1]
    card = sig.args[0].by_name("My Frankencard")
    assert card is not None and card.custom and card.memory_gib == 48
    assert card.fp16_tensor_tflops == 165.2 and card.release == "2024-06"
    assert "My Frankencard" in pane.visible_names()
    row = pane.model.row_of("My Frankencard")
    assert "(custom)" in pane.model.index(row, COL_NAME).data()
    # no dated price: the launch price stands in, flagged as such
    assert pane.model.index(row, COL_NEW).data() == "$2,500 launch (2024-06)"
    assert pane.selected_names() == ["My Frankencard"]
    saved = json.loads(default_overrides_path().read_text())
    assert saved["custom_cards"][0]["name"] == "My Frankencard"


def test_cancelled_dialog_changes_nothing(pane):
    pane.select_cards(["GeForce GTX 1080"])
    pane.dialog_runner = runner(lambda d: d.reject())
    assert pane.edit_price() is False
    assert pane.add_custom_card() is False
    assert not default_overrides_path().exists()


def test_mark_as_mine_and_not_mine(pane, qtbot):
    pane.select_cards(["GeForce GTX 1070", "GeForce GTX 970"])
    assert not pane.not_mine_button.isEnabled()
    with qtbot.waitSignal(pane.catalog_changed) as sig:
        pane.mine_used_action.trigger()
    cat = sig.args[0]
    assert cat.is_owned("GeForce GTX 1070") and cat.is_owned("GeForce GTX 970")
    assert {o.condition for o in cat.owned} == {"used"}
    row = pane.model.row_of("GeForce GTX 970")
    assert pane.model.index(row, COL_NAME).data().startswith(OWNED_MARKER)
    pane.mine_only_check.setChecked(True)
    assert sorted(pane.visible_names()) == ["GeForce GTX 1070", "GeForce GTX 970"]
    pane.mine_only_check.setChecked(False)
    pane.select_cards(["GeForce GTX 970"])
    assert pane.not_mine_button.isEnabled()
    with qtbot.waitSignal(pane.catalog_changed) as sig:
        qtbot.mouseClick(pane.not_mine_button, Qt.MouseButton.LeftButton)
    assert [o.name for o in sig.args[0].owned] == ["GeForce GTX 1070"]


def test_corrupt_override_file_shows_a_banner_and_the_full_table(make_pane):
    shipped = len(load_catalog())
    path = default_overrides_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{ this is not json", encoding="utf-8")
    pane = make_pane()
    assert pane.banner.isVisible()
    text = pane.banner_label.text()
    assert "could not be read" in text and "moved aside" in text
    assert pane.model.rowCount() == shipped
    assert not path.exists() and list(path.parent.glob(path.name + ".corrupt-*"))
    pane.reload()  # the file is gone now: the notice stays until dismissed
    assert pane.banner.isVisible()
    pane.dismiss_button.click()
    assert not pane.banner.isVisible()


# ------------------------------------------------------------------ price history and your prices


def test_price_chart_shows_each_series_with_its_source_on_hover(pane):
    pane.select_cards(["GeForce GTX 1080"])
    counts = pane.price_chart.point_count()
    history = pane.catalog.price_history("GeForce GTX 1080")
    assert counts["new"] == sum(p.condition == "new" for p in history) >= 20
    assert counts["launch"] >= 1 and counts["rental"] == 0
    assert not pane.price_chart.rental_plot.isVisible()
    tips = pane.price_chart.tips("new")
    assert any("Newegg (US)" in t and "github:JohnPehrson" in t for t in tips)
    assert any(t.startswith("launch price $599") for t in pane.price_chart.tips("launch"))
    plot = pane.price_chart.prices_plot.getPlotItem()
    assert "USD" in plot.getAxis("left").labelText
    assert plot.getAxis("bottom").labelText
    pane.select_cards(["H100 SXM5"])
    assert pane.price_chart.point_count()["rental"] >= 5
    assert pane.price_chart.rental_plot.isVisible()
    assert any("per GPU-hour" in t for t in pane.price_chart.tips("rental"))


def test_a_card_without_dated_prices_says_so(pane):
    pane.select_cards(["Tesla K80"])
    assert not pane.price_chart.prices_plot.isVisible()
    assert "No dated price" in pane.price_chart.empty_label.text()


def test_import_export_and_remove_your_prices(pane, tmp_path):
    src = tmp_path / "mine.csv"
    src.write_text("card,date,amount,currency,condition,kind,source,market\n"
                   "GTX 1080,2026-11,95,USD,used,sold,my local sale,Kleinanzeigen\n"
                   "GTX 9999,2026-11,95,USD,used,sold,my local sale,\n", encoding="utf-8")
    changed = []
    pane.catalog_changed.connect(changed.append)
    pane.open_file_chooser = lambda: str(src)
    pane.import_prices_action.trigger()
    assert changed and changed[-1].price("GTX 1080", "2026-11", "used").usd == 95
    text = pane.message_label.text()
    assert "Imported 1" in text and "row 3" in text  # the rejected row, by number
    pane.select_cards(["GeForce GTX 1080"])
    assert any("Your own price" in t for t in pane.price_chart.tips("used"))
    out = tmp_path / "all.csv"
    pane.save_file_chooser = lambda: str(out)
    pane.export_prices_action.trigger()
    exported = out.read_text(encoding="utf-8")
    assert "my local sale" in exported and "github:ewyluda" in exported
    pane.remove_prices_action.trigger()
    assert pane.catalog.price("GTX 1080", "2026-11", "used") is None
    assert "Removed 1" in pane.message_label.text()


def test_a_bad_prices_file_is_set_aside_with_a_banner(make_pane, planner_home):
    from planner.core import prices as pr

    pr.user_prices_path().parent.mkdir(parents=True, exist_ok=True)
    pr.user_prices_path().write_bytes(b"\x00\x01 not a csv at all")
    pane = make_pane()
    assert pane.banner.isVisible()
    assert "moved aside" in pane.banner_label.text()
    assert pane.catalog.price("GTX 1080", "2017-06", "new") is not None
