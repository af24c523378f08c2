"""One answer to "the largest batch on this card": the fit table, the Planner pane's row and the
CLI's --memory all ask core.fit.largest_batch, which judges the card's memory less the driver's
reserve (an assumption), and say so."""

from __future__ import annotations

import json

import pytest

from planner.cli import run
from planner.core.catalog import load_catalog
from planner.core.fit import fit_table, largest_batch, largest_batch_explained
from planner.core.memory import Assumptions, max_batch
from planner.core.network import Setup, analyze
from planner.core.plan import compute_plan
from planner.core.presets import load_preset
from planner.units import GIB, MIB

SETUP = Setup(32, "fp32", "momentum")


@pytest.fixture(scope="module")
def resnet():
    return analyze(load_preset("resnet50")[0])


def cards_of(catalog, total_bytes):
    cards = [c for c in catalog if c.fast_memory_bytes == total_bytes]
    assert cards, "the catalog has cards of this size"
    return cards


@pytest.mark.parametrize("reserve_mib", [300, 0, 2048])
def test_fit_table_and_largest_batch_give_one_answer_with_the_reserve(resnet, reserve_mib):
    catalog = load_catalog()
    a = Assumptions(driver_reserved_bytes=reserve_mib * MIB)
    cards = cards_of(catalog, 24 * GIB)
    rows = fit_table(compute_plan(resnet.draft, SETUP, a, analysis=resnet), catalog, cards=cards)
    answer = largest_batch(resnet, SETUP, 24 * GIB, a)
    assert answer > 0
    assert {r.max_batch for r in rows} == {answer}  # every 24 GiB card, the same figure
    # …which is the batch that fits the memory less the reserve, and the next one does not
    assert answer == max_batch(resnet, SETUP, 24 * GIB - reserve_mib * MIB, a)
    from planner.core.memory import peak_bytes
    from planner.core.memory import with_batch

    assert peak_bytes(resnet, with_batch(SETUP, answer), a) <= 24 * GIB - reserve_mib * MIB
    assert peak_bytes(resnet, with_batch(SETUP, answer + 1), a) > 24 * GIB - reserve_mib * MIB


def test_a_larger_reserve_leaves_a_smaller_batch(resnet):
    small = largest_batch(resnet, SETUP, 24 * GIB, Assumptions(driver_reserved_bytes=0))
    large = largest_batch(resnet, SETUP, 24 * GIB, Assumptions(driver_reserved_bytes=4 * GIB))
    assert large < small


def test_the_explanation_names_total_reserve_and_what_is_left():
    text = largest_batch_explained(24 * GIB, Assumptions(driver_reserved_bytes=300 * MIB))
    assert "24.00 GiB" in text and "300.0 MiB" in text and "23.71 GiB" in text
    assert "driver" in text and "assumption" in text


def test_cli_memory_gives_the_fit_tables_answer(capsys, resnet):
    assert run(["estimate", "preset:resnet50", "--batch", "32", "--optimizer", "momentum",
                "--json", "--memory", "24"]) == 0
    data = json.loads(capsys.readouterr().out)
    catalog = load_catalog()
    rows = fit_table(compute_plan(resnet.draft, SETUP, analysis=resnet), catalog,
                     cards=cards_of(catalog, 24 * GIB))
    assert data["max_batch"] == rows[0].max_batch
    assert run(["estimate", "preset:resnet50", "--memory", "24"]) == 0
    assert "its driver keeps" in capsys.readouterr().out
