"""The advisor's workloads by era: the article's before 2023, transformers from 2023 on."""

from __future__ import annotations

import pytest

from planner.core.advisor import AdvisorInputs, advise, get_profile
from planner.core.catalog import load_catalog
from planner.core.eras import ERA_WORKLOADS, era_workload
from planner.core.memory import Assumptions, peak_bytes
from planner.core.network import analyze
from planner.core.plan import compute_plan
from planner.core.presets import load_preset


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def test_era_workloads_start_in_2023_and_keep_the_article_before():
    assert era_workload("nlp-research", "2022-12") is None
    assert era_workload("nlp-research", "2023-01") is ERA_WORKLOADS["nlp-research"]
    assert era_workload("kaggle", "2026-12") is None  # the profile's own workload stays
    advice = advise(load_catalog(), AdvisorInputs(get_profile("nlp-research"),
                                                  as_of="2017-06"))
    assert "LSTM" in advice.workload


def test_nlp_research_today_is_judged_on_an_8b_fine_tune_planned_on_each_card(catalog):
    prof = get_profile("nlp-research")
    advice = advise(catalog, AdvisorInputs(prof, as_of="2026-12"))
    assert "QLoRA" in prof.assumptions_text("2026-12")
    assert "8 GB" not in prof.assumptions_text("2026-12")
    buys = [r for r in advice.recommendations if r.action == "buy"]
    assert buys, advice.notes
    draft, setup = ERA_WORKLOADS["nlp-research"].build()
    peak = peak_bytes(analyze(draft), setup, Assumptions())
    assert peak > 12 * 1024 ** 3  # a 12 GB card, the 2017-workload's pick, does not fit
    for r in buys:  # every card advised holds the planned peak
        spec = catalog.by_name(r.card)
        assert spec.usable_memory_bytes(Assumptions().driver_reserved_bytes) >= peak
        assert "QLoRA" in r.reason


def test_best_regardless_of_cost_today_ranks_an_h100_above_a_5090(catalog):
    advice = advise(catalog, AdvisorInputs(get_profile("best"), as_of="2026-12"))
    order = [r.card for r in advice.recommendations if r.action == "buy"]
    h100 = [i for i, c in enumerate(order) if "H100" in c]
    r5090 = [i for i, c in enumerate(order) if "5090" in c]
    assert h100, order
    assert not r5090 or h100[0] < r5090[0]


def test_the_users_plan_replaces_the_era_workload(catalog):
    draft, setup = load_preset("resnet18")
    advice = advise(catalog, AdvisorInputs(get_profile("nlp-research"), as_of="2026-12",
                                           plan=compute_plan(draft, setup)))
    assert advice.workload == draft.name
    assert all("QLoRA" not in r.reason for r in advice.recommendations)
