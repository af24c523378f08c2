"""Price observations as data (planner/core/prices.py, data/prices.csv) and the catalog's
"as of" lookups over them."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from planner import paths
from planner.cli import run
from planner.core import catalog as cat
from planner.core import prices as pr
from planner.core.advisor import AdvisorInputs, advise, get_profile
from planner.core.catalog import load_catalog


@pytest.fixture
def catalog(planner_home):
    return load_catalog()


def _shipped_rows() -> list[dict[str, str]]:
    with open(paths.data_path("prices.csv"), newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


HEADER = "card,date,amount,currency,condition,kind,source,market,note\n"


def _write(path, *lines: str, header: str = HEADER):
    path.write_text(header + "".join(line + "\n" for line in lines), encoding="utf-8")
    return path


# ------------------------------------------------------------------ the shipped file


def test_shipped_file_is_complete_valid_and_sourced(catalog):
    rows = _shipped_rows()
    assert len(rows) >= 600
    assert set(pr.COLUMNS) == set(rows[0])
    book = catalog.price_book()
    # every row is used or reported with its row number and why: nothing silently dropped
    used_rows = {o.row for o in book.all_observations() if o.origin == pr.SHIPPED}
    reported = {p.row for p in book.problems if p.file == "prices.csv"}
    assert not used_rows & reported
    duplicates = len(rows) - len({tuple(r.values()) for r in rows})
    assert len(used_rows) + len(reported) + duplicates == len(rows)
    # only the rows whose source does not say which variant it is are left unmatched
    assert book.unmatched and all("not stated" in p.card for p in book.unmatched)
    assert not [p for p in book.problems if not p.unmatched]  # no invalid shipped row
    for o in book.all_observations():
        assert o.source and o.amount > 0 and o.currency in pr.CURRENCIES
        assert o.card in catalog.names


def test_figures_are_kept_as_the_source_states_them(catalog):
    # $2.60 an hour for a g2.8xlarge is four GPUs' price: the figure stays, per GPU is derived
    k520 = [o for o in catalog.observations("GRID K520") if o.gpus == 4]
    assert k520 and {o.amount for o in k520} == {2.6}
    assert {o.per_gpu_hour for o in k520} == {0.65}
    eur = [o for o in catalog.observations("GTX 1070") if o.currency == "EUR"]
    assert eur and all(o.market == "idealo.de" for o in eur)
    # EUR figures are never taken as dollars
    assert all(p.source != o.source for o in eur for p in catalog.price_history("GTX 1070"))


def test_loading_is_lazy(planner_home):
    # Loading the catalog (start-up) reads no price file; the first lookup reads them once.
    root = Path(__file__).resolve().parents[2]
    code = ("from planner.core.catalog import load_catalog; c = load_catalog(); "
            "assert 'prices' not in c._lazy; c.price('GTX 1080', '2017-06'); "
            "book = c._lazy['prices']; c.price('GTX 1080 Ti'); "
            "assert c._lazy['prices'] is book; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=root, timeout=120, env={**os.environ, "PYTHONPATH": str(root)})
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


# ------------------------------------------------------------------ validation


@pytest.mark.parametrize(("line", "field"), [
    ("GTX 1080,2017-13,500,USD,new,list,my shop,,", "date"),
    ("GTX 1080,2017-02-30,500,USD,new,list,my shop,,", "date"),
    ("GTX 1080,yesterday,500,USD,new,list,my shop,,", "date"),
    ("GTX 1080,2017-06,-5,USD,new,list,my shop,,", "amount"),
    ("GTX 1080,2017-06,nan,USD,new,list,my shop,,", "amount"),
    ("GTX 1080,2017-06,cheap,USD,new,list,my shop,,", "amount"),
    ("GTX 1080,2017-06,500,GBP,new,list,my shop,,", "currency"),
    ("GTX 1080,2017-06,500,USD,mint,list,my shop,,", "condition"),
    ("GTX 1080,2017-06,500,USD,new,stolen,my shop,,", "kind"),
    ("GTX 1080,2017-06,500,USD,new,list,,,", "source"),
    ("GTX 1080,2017-06,2.5,USD,used,rental-per-hour,my cloud,,", "condition"),
])
def test_bad_rows_are_reported_with_row_and_field(tmp_path, catalog, line, field):
    f = _write(tmp_path / "p.csv", "GTX 1070,2017-06,350,USD,used,sold,my shop,eBay,ok", line)
    parsed = pr.read_csv_file(f, lambda n: (s.name if (s := catalog.by_name(n)) else None))
    assert [o.card for o in parsed.observations] == ["GeForce GTX 1070"]
    (problem,) = parsed.problems
    assert problem.row == 3 and f"field '{field}'" in problem.message
    assert "p.csv row 3" in str(problem)


def test_unknown_card_is_reported_not_fatal(tmp_path, catalog):
    f = _write(tmp_path / "p.csv", "GTX 9999,2017-06,350,USD,used,sold,my shop,,")
    parsed = pr.read_csv_file(f, lambda n: (s.name if (s := catalog.by_name(n)) else None))
    assert not parsed.observations and parsed.problems[0].unmatched


@pytest.mark.parametrize("content", [b"", b"name,price\nGTX 1080,5\n", b"\xff\xfe\x00garbage",
                                     b"card,date\n"])
def test_a_file_that_is_not_a_price_list_raises(tmp_path, content):
    f = tmp_path / "x.csv"
    f.write_bytes(content)
    with pytest.raises(pr.PriceFileError):
        pr.read_csv_file(f)


# ------------------------------------------------------------------ as of: what was known then


def test_as_of_takes_the_nearest_observation_at_or_before_the_date(catalog):
    series = [p for p in catalog.price_history("GTX 1080 Ti", "new") if p.day]
    assert len(series) >= 12
    for earlier, later in zip(series, series[1:]):
        if earlier.date == later.date:
            continue
        p = catalog.price("GTX 1080 Ti", as_of=earlier.date, condition="new")
        assert p.date == earlier.date  # never a later figure
        assert catalog.price("GTX 1080 Ti", as_of=later.date, condition="new").date == later.date


def test_describe_price_shows_kind_market_and_age(catalog):
    p = catalog.price("RTX 5070", as_of="2026-11", condition="used")
    assert str(cat.describe_price(p, "2026-11")) == "used $539, eBay asking, 2026-08, 3 months old"
    launch = catalog.price("GTX 1070", as_of="2017-03", condition="new")
    assert launch.launch and str(cat.describe_price(launch, "2017-03")).startswith(
        "launch price $379")


def test_sold_is_preferred_to_a_slightly_newer_asking_price(tmp_path, planner_home):
    mine = _write(tmp_path / "mine.csv",
                  "RTX 3080,2026-09,400,USD,used,sold,my saved search,eBay,",
                  "RTX 3080,2026-10,480,USD,used,asking,my saved search,eBay,")
    pr.import_prices(mine, lambda n: "GeForce RTX 3080")
    c = load_catalog()
    assert c.price("RTX 3080", "2026-10", "used").usd == 480  # the nearest
    assert c.price("RTX 3080", "2026-10", "used", prefer_sold_months=3).usd == 400
    assert c.price("RTX 3080", "2026-10", "used", prefer_sold_months=0).usd == 480


def test_rental_quote_cheapest_and_median_with_provider(catalog):
    q = catalog.rental("H100 SXM", "2026-11")
    rates = sorted(o.per_gpu_hour for o in catalog.observations("H100 SXM")
                   if o.rental and o.month == q.month)
    assert q.count == len(rates) >= 5
    assert q.cheapest_usd_per_gpu_hour == rates[0]
    assert q.median_usd_per_gpu_hour == pytest.approx(rates[len(rates) // 2] if len(rates) % 2
                                                      else (rates[len(rates) // 2 - 1]
                                                            + rates[len(rates) // 2]) / 2)
    assert q.cheapest.market and q.month == "2026-10"
    assert catalog.rental("H100 SXM", "2026-09") is None  # not known yet
    assert catalog.rental("RTX 4090", "2026-11") is None  # nobody rents it out here


# ------------------------------------------------------------------ the user's own prices


def test_import_export_and_remove_round_trip(tmp_path, planner_home):
    src = _write(tmp_path / "local.csv",
                 "GTX 1080,2026-11,120,USD,used,sold,my local market,Kleinanzeigen,",
                 "GTX 1080,2026-11,120,USD,used,sold,my local market,Kleinanzeigen,",  # again
                 "GTX 9999,2026-11,120,USD,used,sold,my local market,,")
    c = load_catalog()
    res = pr.import_prices(src, lambda n: (s.name if (s := c.by_name(n)) else None),
                           known=c.price_book().all_observations())
    assert res.added == 1 and res.duplicates == 1 and len(res.problems) == 1
    assert res.path == pr.user_prices_path() and res.path.parent == paths.data_dir()
    c = load_catalog()
    p = c.price("GTX 1080", "2026-11", "used")
    assert (p.usd, p.origin, p.market) == (120, pr.YOURS, "Kleinanzeigen")
    # importing the same file again adds nothing
    assert pr.import_prices(src, lambda n: (s.name if (s := c.by_name(n)) else None)).added == 0
    out = tmp_path / "all.csv"
    pr.export_prices(c.price_book().all_observations(), out)
    back = pr.read_csv_file(out, lambda n: n)
    assert not back.problems
    assert len(back.observations) == len(c.price_book().all_observations())
    assert pr.remove_user_prices() == 1
    assert load_catalog().price("GTX 1080", "2026-11", "used") is None


def test_bad_user_file_is_set_aside_with_a_notice(planner_home):
    path = pr.user_prices_path()
    path.parent.mkdir(parents=True, exist_ok=True)  # a user who has a data folder already
    path.write_text("this is not,a price list\n1,2\n", encoding="utf-8")
    c = load_catalog()
    assert c.price("GTX 1080", "2017-06", "new") is not None  # shipped prices still load
    (notice,) = c.price_book().notices
    assert "moved aside" in notice
    assert not path.exists()
    assert list(path.parent.glob(f"{pr.USER_PRICES_FILENAME}.corrupt-*"))


def test_import_of_a_file_with_no_usable_row_changes_nothing(tmp_path, planner_home):
    src = _write(tmp_path / "bad.csv", "GTX 1080,2026-13,120,USD,used,sold,x,,")
    with pytest.raises(pr.PriceFileError, match="no row could be used"):
        pr.import_prices(src, lambda n: n)
    assert not pr.user_prices_path().exists()


# ------------------------------------------------------------------ coverage (the CLI)


def test_price_coverage_follows_the_observations(capsys, tmp_path, planner_home):
    assert run(["catalog", "--price-coverage", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    years = {c["name"]: c["years"] for c in rec["cards"]}
    assert "R" in years["GRID K520"]["2017"] and "N" in years["GeForce GTX 1080"]["2017"]
    assert rec["rows_not_used"] and all(r["row"] > 1 for r in rec["rows_not_used"])
    before = years["GeForce GTX 680"].get("2026", "")
    assert "U" not in before
    src = _write(tmp_path / "mine.csv", "GTX 680,2026-03,30,USD,used,sold,my sale,eBay,")
    assert run(["catalog", "--import-prices", str(src)]) == 0
    capsys.readouterr()
    assert run(["catalog", "--price-coverage", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    after = {c["name"]: c["years"] for c in rec["cards"]}["GeForce GTX 680"]
    assert "U" in after["2026"]
    assert run(["catalog", "--remove-my-prices"]) == 0


def test_price_coverage_table(capsys, planner_home):
    assert run(["catalog", "--price-coverage"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Card") and "cards with a dated price" in out
    assert "rows 153-170" in out and "names no card" in out


def test_cli_import_rejects_a_non_price_file(capsys, tmp_path, planner_home):
    f = tmp_path / "x.csv"
    f.write_text("a,b\n1,2\n", encoding="utf-8")
    assert run(["catalog", "--import-prices", str(f)]) == 2
    assert "not a price list" in capsys.readouterr().err


def test_price_history_cli(capsys, planner_home):
    assert run(["catalog", "--price-history", "GRID K520", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["card"] == "GRID K520" and len(data["observations"]) >= 30
    assert run(["catalog", "--price-history", "GTX 9999"]) == 2


# ------------------------------------------------------------------ the advisor cites dated prices


@pytest.mark.parametrize(("profile", "as_of"), [("dl-competitions", "2017-03"),
                                                 ("kaggle", "2017-03"),
                                                 ("dl-competitions", "2026-11"),
                                                 ("best", "2026-11")])
def test_advisor_picks_cite_a_dated_price(planner_home, profile, as_of):
    c = load_catalog()
    advice = advise(c, AdvisorInputs(get_profile(profile), as_of=as_of))
    buys = [r for r in advice.recommendations if r.action == "buy"]
    assert buys
    for r in buys:
        assert r.price is not None and r.price.date and r.price.date <= as_of
        assert r.price.source
        assert r.price.date in r.reason and r.price_text in r.reason
        if r.price.launch:
            assert "launch price" in r.reason
        rec = r.to_json()
        assert rec["price_source"] == r.price.source and rec["price_text"]


def test_advisor_rent_vs_buy_rests_on_rental_observations(planner_home):
    c = load_catalog()
    advice = advise(c, AdvisorInputs(get_profile("best"), as_of="2026-11"))
    h100 = next(r for r in advice.recommendations if r.card == "H100 PCIe")
    q = c.rental("H100 PCIe", "2026-11")
    assert h100.rent.card == "H100 PCIe" and h100.rent.work_ratio == 1.0
    assert h100.rent.cheapest_usd_per_hour == q.cheapest_usd_per_gpu_hour
    assert h100.rent.median_usd_per_hour == q.median_usd_per_gpu_hour
    assert h100.rent.break_even_hours_cheapest == pytest.approx(
        h100.net_cost_usd / q.cheapest_usd_per_gpu_hour, abs=1)
    assert q.cheapest.market in h100.reason and "2026-10" in h100.reason
    # the user's own rate replaces the data
    mine = advise(c, AdvisorInputs(get_profile("best"), as_of="2026-11",
                                   cloud_usd_per_hour=3.0))
    assert all(r.rent is None for r in mine.recommendations)
    # before any rental observation, nothing is claimed
    old = advise(c, AdvisorInputs(get_profile("best"), as_of="2020-06"))
    assert all(r.rent is None for r in old.recommendations)


def test_csv_columns_documented():
    text = io.StringIO(paths.data_path("prices.md").read_text(encoding="utf-8")).read()
    for col in pr.COLUMNS:
        assert col in text


def test_a_set_aside_prices_file_is_in_the_advice_and_the_cli(capsys, planner_home):
    pr.user_prices_path().parent.mkdir(parents=True, exist_ok=True)
    pr.user_prices_path().write_text("no,columns\n", encoding="utf-8")
    advice = advise(load_catalog(), AdvisorInputs(get_profile("kaggle"), as_of="2026-11"))
    assert any("moved aside" in str(n) for n in advice.notes)
    pr.user_prices_path().write_text("no,columns\n", encoding="utf-8")
    assert run(["catalog", "--price-coverage"]) == 0
    assert "moved aside" in capsys.readouterr().err


def test_cli_table_labels_asking_and_launch_prices(capsys, planner_home):
    assert run(["catalog", "--architecture", "Ada Lovelace"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("GeForce RTX 4060 Ti 8GB"))
    assert "399L" in row and "240a" in row
    assert "a = an asking price" in out


def test_remove_my_prices_removes_imported_and_entered_ones(capsys, tmp_path, planner_home):
    cat.set_user_price("GTX 1080", cat.PricePoint("2026-11", 111.0, "used", "my listing"))
    src = _write(tmp_path / "mine.csv", "GTX 1080 Ti,2026-11,222,USD,used,sold,my sale,eBay,")
    assert run(["catalog", "--import-prices", str(src)]) == 0
    c = load_catalog()
    assert c.price("GTX 1080", "2026-11", "used").usd == 111
    assert c.price("GTX 1080 Ti", "2026-11", "used").usd == 222
    capsys.readouterr()
    assert run(["catalog", "--remove-my-prices"]) == 0
    assert "removed 2 of your prices (1 imported, 1 entered)" in capsys.readouterr().err
    c = load_catalog()
    assert c.price("GTX 1080", "2026-11", "used") is None
    assert c.price("GTX 1080 Ti", "2026-11", "used") is None
    assert c.price("GTX 1080", "2017-06", "new") is not None  # the shipped history stays
