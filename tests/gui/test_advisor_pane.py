"""The Advisor pane: inputs on the left, ranked recommendations, notes and the options chart.

Every test builds the pane over the shipped catalog with a fresh PLANNER_HOME (so no saved
owned cards), shows it offscreen and waits until the scheduled recompute has run. Qt warnings
fail the tests.
"""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from planner import paths
from planner.core.advisor import AdvisorError
from planner.core.catalog import OVERRIDES_FILENAME, load_catalog
from planner.core.plan import compute_plan
from planner.core.presets import load_preset
from planner.ui.advisor import pane as pane_module
from planner.ui.advisor.pane import AdvisorPane

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    # The offscreen platform plugin warns about this on every show(); it is not ours.
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]


@pytest.fixture
def make_pane(qtbot, planner_home):
    def make(catalog=None, *, show=True):
        pane = AdvisorPane(catalog or load_catalog())
        qtbot.addWidget(pane)
        pane.resize(1400, 900)
        if show:
            pane.show()
            settle(qtbot, pane)
        return pane

    return make


@pytest.fixture
def pane(make_pane):
    return make_pane()


def settle(qtbot, pane) -> None:
    """Wait until the scheduled recompute has run."""
    qtbot.waitUntil(lambda: not pane.pending, timeout=5000)


def recs(pane):
    assert pane.advice is not None, pane.error
    return pane.advice.recommendations


def shown(pane):
    """(badge, title, reason, facts) of each recommendation card on screen."""
    return [(c.badge.text(), c.title.text(), c.reason.text(), c.facts.text())
            for c in pane.recommendations.cards()]


def overrides_file():
    return paths.data_dir() / OVERRIDES_FILENAME


def test_default_profile_shows_recommendations(pane):
    assert pane.profile_combo.currentData() == "starting"
    assert "needs 6 GB" in pane.profile_assumptions.text()
    r = recs(pane)
    assert r and r[0].action == "buy"
    cards = shown(pane)
    assert len(cards) == len(r)
    badge, title, reason, facts = cards[0]
    assert badge == "BUY" and r[0].card in title and reason == r[0].reason
    assert "price $" in facts and "software:" in facts
    assert pane.advice.as_of in pane.heading.text()
    assert "reference workload" in pane.notes_label.text()
    assert not pane.error_label.isVisible()


@pytest.mark.parametrize(("profile", "month", "pick"), [
    ("dl-competitions", "2017-03", "GTX 1080 Ti"),
    ("almost-no-money", "2017-07", "GTX 1050 Ti"),
])
def test_time_machine(pane, qtbot, profile, month, pick):
    pane.set_as_of(month)
    pane.set_profile(profile)
    assert pane.pending
    settle(qtbot, pane)
    assert pane.advice.as_of == month
    assert pick in recs(pane)[0].card
    badge, title, reason, _ = shown(pane)[0]
    assert badge == "BUY" and pick in title and pick in reason
    assert month in pane.heading.text()


def test_typing_a_month_into_prices_as_of(pane, qtbot):
    # After a click or Ctrl+A, typing "2017-03" sets March 2017 (a QDateEdit kept 2026).
    edit = pane.as_of_edit
    edit.setFocus()
    edit.lineEdit().selectAll()
    qtbot.keyClicks(edit.lineEdit(), "2017-03")
    qtbot.keyClick(edit.lineEdit(), Qt.Key.Key_Return)
    assert pane.as_of() == "2017-03"
    edit.lineEdit().selectAll()
    qtbot.keyClicks(edit.lineEdit(), "2099-01")  # after the last month offered: not taken
    qtbot.keyClick(edit.lineEdit(), Qt.Key.Key_Return)
    edit.clearFocus()
    assert pane.as_of() == "2017-03" and edit.text() == "2017-03"
    qtbot.keyClick(edit, Qt.Key.Key_Up)
    assert pane.as_of() == "2017-04"


def test_as_of_goes_back_to_2012_only(pane):
    pane.set_as_of("2005-06")
    assert pane.as_of() == "2012-01"
    pane.this_month_button.click()
    assert pane.as_of() == pane_module.QDate.currentDate().toString("yyyy-MM")


def test_owned_card_added_by_hand_is_kept_first_and_persisted(pane, qtbot, qtmodeltester):
    pane.set_profile("best")
    pane.budget_spin.setValue(10_000)  # within it nothing is 1.25× an RTX 5090
    settle(qtbot, pane)
    pane.card_combo.setEditText("RTX 5090")
    pane.condition_combo.setCurrentIndex(pane.condition_combo.findData("new"))
    with qtbot.waitSignal(pane.owned_cards_changed) as blocker:
        qtbot.mouseClick(pane.add_button, Qt.MouseButton.LeftButton)
    assert [o.name for o in blocker.args[0]] == ["GeForce RTX 5090"]
    settle(qtbot, pane)
    qtmodeltester.check(pane.owned_model)
    assert pane.owned_model.rowCount() == 1
    assert pane.owned_model.index(0, 3).data() == "added"
    first = recs(pane)[0]
    assert first.action == "keep" and first.card == "GeForce RTX 5090"
    assert shown(pane)[0][0] == "KEEP"
    # Saved in the overrides file under PLANNER_HOME, and read back by the catalog.
    saved = json.loads(overrides_file().read_text(encoding="utf-8"))
    assert saved["owned"] == [{"name": "GeForce RTX 5090", "condition": "new", "count": 1}]
    assert [o.name for o in load_catalog().owned] == ["GeForce RTX 5090"]
    # A pane built later starts with it.
    again = AdvisorPane(load_catalog())
    qtbot.addWidget(again)
    assert [o.name for o in again.owned_model.manual] == ["GeForce RTX 5090"]
    # Remove it: the file follows.
    pane.owned_view.selectRow(0)
    assert pane.remove_button.isEnabled()
    qtbot.mouseClick(pane.remove_button, Qt.MouseButton.LeftButton)
    settle(qtbot, pane)
    assert pane.owned_model.rowCount() == 0
    assert json.loads(overrides_file().read_text(encoding="utf-8"))["owned"] == []
    assert recs(pane)[0].action == "buy"


def test_unknown_card_name_says_did_you_mean(pane):
    assert not pane.add_owned_card("GTX 1080 Tie")
    assert pane.owned_message.isVisible()
    assert "Did you mean" in pane.owned_message.text()
    assert "1080 Ti" in pane.owned_message.text()
    assert pane.owned_model.rowCount() == 0
    assert not overrides_file().exists()


def test_detected_cards_count_as_owned_and_are_not_saved(pane, qtbot, qtmodeltester):
    pane.set_detected_cards(["NVIDIA GeForce GTX 1070", "NVIDIA Imaginary 9000"])
    settle(qtbot, pane)
    qtmodeltester.check(pane.owned_model)
    assert pane.owned_model.rowCount() == 1
    assert pane.owned_model.index(0, 0).data() == "GeForce GTX 1070"
    assert pane.owned_model.index(0, 3).data() == "detected"
    pane.owned_view.selectRow(0)
    assert not pane.remove_button.isEnabled()  # the monitor found it; it cannot be removed
    assert any("your GeForce GTX 1070" in r.reason for r in recs(pane))
    assert "Imaginary 9000" in pane.notes_label.text()
    assert not overrides_file().exists()
    # The same card added by hand is not counted twice.
    pane.add_owned_card("GTX 1070")
    settle(qtbot, pane)
    assert [o.name for o in pane.owned_model.owned()] == ["GeForce GTX 1070"]


def test_simulated_cards_are_labelled_simulated_not_detected(pane, qtbot):
    # With --demo the simulated cards stand in for this computer's: the table says so.
    pane.set_detected_cards(["NVIDIA GeForce RTX 4090"], simulated=True)
    settle(qtbot, pane)
    assert pane.owned_model.rowCount() == 1
    assert pane.owned_model.index(0, 3).data() == "simulated"


def test_plan_is_used_when_asked(pane, qtbot):
    assert not pane.use_plan_check.isEnabled()
    draft, setup = load_preset("resnet18")
    pane.set_plan(compute_plan(draft, setup))
    assert pane.use_plan_check.isEnabled()
    assert "ResNet-18" in pane.use_plan_check.text()
    settle(qtbot, pane)
    assert recs(pane) and all("ResNet-18" not in r.reason for r in recs(pane))
    pane.use_plan_check.setChecked(True)
    settle(qtbot, pane)
    assert recs(pane) and all("ResNet-18" in r.reason for r in recs(pane)
                              if r.action == "buy")
    assert "ResNet-18" in pane.chart.title()  # the chart names the workload it measures
    pane.set_plan(None)
    settle(qtbot, pane)
    assert not pane.use_plan_check.isEnabled()
    assert recs(pane) and all("ResNet-18" not in r.reason for r in recs(pane))


def test_with_the_plan_the_assumptions_speak_of_the_plan_not_the_profiles_workload(pane, qtbot):
    # With "Use my plan" the line under the profile said "needs 6 GB … speed measured on vgg16
    # at batch 64" beside advice judged on the user's Llama: it names the plan instead.
    draft, setup = load_preset("llama_1b")
    pane.set_plan(compute_plan(draft, setup))
    settle(qtbot, pane)
    before = pane.profile_assumptions.text()
    assert "vgg16" in before or "judged on" in before
    pane.use_plan_check.setChecked(True)
    settle(qtbot, pane)
    text = pane.profile_assumptions.text()
    assert draft.name in text and "your plan" in text
    assert "vgg16" not in text and "needs" not in text
    pane.use_plan_check.setChecked(False)
    settle(qtbot, pane)
    assert pane.profile_assumptions.text() == before


def test_electricity_and_cloud_price(pane, qtbot):
    pane.electricity_spin.setValue(0.3)
    pane.cloud_spin.setValue(1.2)
    settle(qtbot, pane)
    buys = [r for r in recs(pane) if r.action == "buy"]
    assert buys
    for badge, _, reason, facts in shown(pane):
        if badge == "BUY":
            assert "a year in electricity" in reason and "pays for itself" in reason
            assert "power $" in facts and "break-even" in facts
    pane.electricity_spin.setValue(0)  # "not set"
    settle(qtbot, pane)
    assert recs(pane) and all("a year in electricity" not in r.reason for r in recs(pane))


def test_chart_has_points_and_marks_the_owned_card(pane, qtbot):
    pane.set_profile("dl-competitions")
    pane.add_owned_card("GTX 1070", "used")
    settle(qtbot, pane)
    points = pane.chart.points()
    assert len(points) == len(pane.advice.options) > 0
    top = recs(pane)[0]
    assert any(name == top.card and cost == pytest.approx(top.net_cost_usd, abs=0.01)
               for name, cost, _ in points)
    owned = pane.chart.owned_points()
    assert [n for n, _, _ in owned] == ["GeForce GTX 1070"]
    assert owned[0][1] == 0.0 and owned[0][2] > 0
    # Everything recommended is above the owned card's line.
    assert all(speed > owned[0][2] for _, _, speed in points)
    assert pane.chart.owned_marker_visible()
    assert "GeForce GTX 1070" in pane.chart.owned_label()
    axis = pane.chart.getPlotItem().getAxis
    assert "USD" in axis("bottom").labelText and "samples/s" in axis("left").labelText


def test_profile_overrides_and_reset(pane, qtbot):
    pane.set_profile("dl-competitions")
    settle(qtbot, pane)
    assert pane.budget_spin.value() == 800
    assert not pane.reset_profile_button.isEnabled()
    pane.budget_spin.setValue(300)
    settle(qtbot, pane)
    assert pane.advice.profile.budget_usd == 300
    assert "$300" in pane.profile_assumptions.text()
    assert "Changed" in pane.profile_assumptions.text()
    buys = [r for r in recs(pane) if r.action == "buy"]
    assert buys and all(r.net_cost_usd <= 300 for r in buys)
    pane.budget_spin.setValue(0)  # no limit
    settle(qtbot, pane)
    assert pane.advice.profile.budget_usd is None
    qtbot.mouseClick(pane.reset_profile_button, Qt.MouseButton.LeftButton)
    settle(qtbot, pane)
    assert pane.advice.profile.budget_usd == 800
    assert not pane.reset_profile_button.isEnabled()


def test_nothing_fits_shows_the_notes(pane, qtbot):
    pane.memory_spin.setValue(500)
    settle(qtbot, pane)
    assert recs(pane) == ()
    assert pane.recommendations.cards() == []
    assert "No card priced" in pane.notes_label.text()
    assert pane.chart.points() == []


def test_advisor_error_is_shown_not_raised(pane, qtbot, monkeypatch):
    def fail(*_args, **_kwargs):
        raise AdvisorError("as-of must be a month YYYY-MM, not 'soon'")

    monkeypatch.setattr(pane_module, "advise", fail)
    with qtbot.waitSignal(pane.advice_changed) as blocker:
        pane.electricity_spin.setValue(0.2)
    assert blocker.args == [None]
    assert pane.advice is None
    assert pane.error_label.isVisible()
    assert "YYYY-MM" in pane.error_label.text()
    assert pane.recommendations.cards() == []


def test_advisor_assumptions_are_editable(pane, qtbot):
    assert not pane.assumptions_group.isVisible()
    pane.assumptions_toggle.click()
    assert pane.assumptions_group.isVisible()
    pane.add_owned_card("GTX 1070")
    settle(qtbot, pane)
    assert recs(pane)[0].action == "buy"
    pane.assumption_editors["min_speedup"].setValue(500)
    settle(qtbot, pane)
    assert recs(pane)[0].action == "keep"
    assert "500" in recs(pane)[0].reason
    pane.assumption_editors["top"].setValue(1)
    settle(qtbot, pane)
    assert pane.advisor_assumptions().top == 1


def test_hidden_pane_defers_the_work(make_pane, qtbot):
    pane = make_pane(show=False)
    assert pane.pending and pane.advice is None
    pane.set_plan(compute_plan(*load_preset("resnet18")))
    pane.use_plan_check.setChecked(True)
    assert pane.advice is None
    with qtbot.waitSignal(pane.advice_changed):
        pane.show()
    assert "ResNet-18" in recs(pane)[0].reason


def test_set_catalog_reads_owned_cards(pane, qtbot):
    pane.add_owned_card("RTX 3060")
    settle(qtbot, pane)
    catalog = load_catalog()
    pane.set_catalog(catalog)
    settle(qtbot, pane)
    assert [o.name for o in pane.owned_model.manual] == ["GeForce RTX 3060"]
    assert pane.card_combo.findText("GeForce RTX 3060") >= 0


def test_rent_controls_use_dated_rental_prices_unless_you_type_a_rate(pane, qtbot):
    pane.profile_combo.setCurrentIndex(pane.profile_combo.findData("best"))
    pane.as_of_edit.setDate(pane_module.QDate(2026, 11, 1))
    pane.cloud_spin.setValue(0)
    settle(qtbot, pane)
    assert pane.cloud_spin.text() == "dated rental prices"
    with_rent = [r for r in recs(pane) if r.rent is not None]
    assert with_rent
    rent = with_rent[0].rent
    info = pane.rent_info_label.text()
    assert rent.card in info and rent.provider in info and rent.month in info
    facts = [f for b, _, _, f in shown(pane) if b == "BUY"]
    assert any("renting the same work" in f and rent.provider in f for f in facts)
    pane.cloud_spin.setValue(2.5)
    settle(qtbot, pane)
    assert all(r.rent is None for r in recs(pane))
    assert "Your rate: $2.5" in pane.rent_info_label.text()
    pane.as_of_edit.setDate(pane_module.QDate(2020, 6, 1))
    pane.cloud_spin.setValue(0)
    settle(qtbot, pane)
    assert "No dated rental price is known as of 2020-06" in pane.rent_info_label.text()


def test_with_my_plan_the_plans_peak_decides_and_the_pane_says_so(pane, qtbot):
    """Issue 17: with "Use my plan" the pane said "Memory needed 12.0 GB" while the plan's
    peak decided. Now the GB is greyed out and the rule names the plan's peak."""
    pane.set_profile("dl-competitions")
    pane.memory_spin.setValue(12)
    settle(qtbot, pane)
    assert pane.memory_spin.isEnabled()
    assert "at least this much memory" in pane.memory_rule_label.text()
    assert pane.advice.needed_bytes is None
    pane.set_plan(compute_plan(*load_preset("resnet50")))
    pane.use_plan_check.setChecked(True)
    settle(qtbot, pane)
    need = pane.advice.needed_bytes
    assert need and need > 0
    assert not pane.memory_spin.isEnabled()
    rule = pane.memory_rule_label.text()
    assert f"{need / 2**30:.1f} GiB" in rule and "12 GB above is not used" in rule
    assert "judged on your plan (ResNet-50): its peak" in pane.profile_assumptions.text()
    assert "not used" in pane.notes_label.text()
    catalog = load_catalog()
    buys = [r for r in recs(pane) if r.action == "buy"]
    assert buys
    from planner.core.memory import Assumptions
    reserve = Assumptions().driver_reserved_bytes
    for r in buys:  # each pick holds the plan's peak, whatever the profile's 12 GB says
        assert r.fits
        assert catalog.by_name(r.card).usable_memory_bytes(reserve) >= need
    pane.use_plan_check.setChecked(False)
    settle(qtbot, pane)
    assert pane.memory_spin.isEnabled() and pane.advice.needed_bytes is None


def test_a_sell_is_not_ranked_among_the_buys(pane, qtbot):
    """Issue 17: SELL appeared as rank 6 among the BUYs. It goes right under the pick it pays
    towards, without a rank; the options are numbered 1, 2, 3… with no gap."""
    pane.set_profile("dl-competitions")
    pane.set_as_of("2026-11")
    pane.add_owned_card("RTX 3060", "used")
    settle(qtbot, pane)
    assert any(r.action == "sell" for r in recs(pane))
    cards = pane.recommendations.cards()
    badges = [c.badge.text() for c in cards]
    assert badges[0] == "BUY" and badges[1] == "SELL"
    assert cards[1].rank is None and "with pick 1" in cards[1].title.text()
    ranks = [c.rank for c in cards if c.recommendation.action != "sell"]
    assert ranks == list(range(1, len(ranks) + 1))
    assert all(c.title.text().startswith(f"{c.rank}. ") for c in cards if c.rank)


def test_every_recommended_option_is_labelled_or_named_on_hover(pane, qtbot):
    """Issue 17: only one point of the options chart had a label."""
    pane.set_profile("dl-competitions")
    pane.add_owned_card("GTX 1070", "used")
    settle(qtbot, pane)
    recommended = [r.card for r in recs(pane) if r.action == "buy"]
    assert len(recommended) >= 3
    chart = pane.chart
    assert chart.labelled_names() == recommended
    shown_labels = chart.label_texts()
    assert len(shown_labels) >= 3
    rects = [lab.mapRectToScene(lab.boundingRect()) for lab in chart._labels
             if lab.isVisible()]
    for i, a in enumerate(rects):  # legible: no label over another
        assert not any(a.intersects(b) for b in rects[i + 1:])
    for name, _cost, _speed in chart.points():  # and every point is named on hover
        assert name in chart.tip_of(name)


def test_the_profile_text_says_which_workload_the_advice_is_judged_on(pane):
    """As of 2017 the profile's text is the article's; from the transformer era it says the
    advice is judged on that era's workload (not "recurrent networks; 8 GB")."""
    pane.set_profile("nlp-research")
    pane.set_as_of("2017-07")
    assert pane.profile_description.text().startswith("Recurrent networks")
    pane.set_as_of("2026-11")
    text = pane.profile_description.text()
    assert text.startswith("As of 2026-11 this profile is judged on QLoRA fine-tuning"), text
    assert "The article, 2017: Recurrent networks" in text


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_chart_names_its_workload_and_its_axis_title_fits_at_1024x700(
        make_pane, qtbot, qapp, language):
    # The y-axis title was cut off in Chinese ("在 Llama-shaped 8B 上的速度（样本/…"): the
    # unit stays on the axis, the workload's name goes in the title across the chart.
    from PySide6.QtGui import QFontMetricsF

    from planner.ui import i18n

    if language != "en":
        assert i18n.install_translator(qapp, language) is not None
    try:
        pane = make_pane(show=False)
        pane.resize(1024, 640)  # the pane's share of a 1024×700 window
        pane.set_profile("nlp-research")
        pane.set_as_of("2026-12")
        pane.show()
        settle(qtbot, pane)
        assert pane.advice.tokens_per_sample == 2048
        assert "Llama-shaped 8B" in pane.chart.title()
        axis = pane.chart.getPlotItem().getAxis("left")
        assert "Llama" not in axis.labelText
        assert ("tokens/s" if language == "en" else "词元/秒") in axis.labelText
        qtbot.waitUntil(lambda: pane.chart.getPlotItem().getViewBox().height() > 50)
        text_width = QFontMetricsF(axis.label.font()).horizontalAdvance(axis.labelText)
        assert text_width < axis.height(), (axis.labelText, text_width, axis.height())
        # The chart plots what the advice says: tokens/s for a text workload.
        top = next(r for r in recs(pane) if r.action == "buy")
        point = next(p for p in pane.chart.points() if p[0] == top.card)
        option = next(o for o in pane.advice.options if o[0] == top.card)
        assert point[2] == pytest.approx(option[2] * 2048)
    finally:
        if language != "en":
            i18n.remove_translators(qapp)
