"""`gpu-planner catalog [--json]`: list the built-in GPU catalog (with the user's overrides).

Qt-free. ``add_catalog_parser(subparsers)`` registers the subcommand; planner/cli.py wires it.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from planner.core import prices as prices_mod
from planner.core.catalog import (
    ARCHITECTURES,
    SEGMENTS,
    SUPPORT_LABELS,
    Catalog,
    CatalogError,
    GpuSpec,
    clear_entered_prices,
    load_catalog,
    software_support,
)
from planner.core.prices import REQUIRED_COLUMNS, PriceFileError

COVERAGE_YEARS = tuple(str(y) for y in range(2012, 2027))


def add_catalog_parser(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "catalog",
        help="list the GPU catalog",
        description="List the built-in GPU catalog, merged with your own prices and cards.",
    )
    p.add_argument("--json", action="store_true", help="print a JSON list of card objects")
    p.add_argument("--segment", choices=SEGMENTS, help="only cards of this segment")
    p.add_argument("--architecture", choices=ARCHITECTURES, metavar="ARCH",
                   help="only cards of this architecture (" + ", ".join(ARCHITECTURES) + ")")
    p.add_argument("--as-of", metavar="YYYY-MM", default=None,
                   help="prices as of this month (default: the latest known)")
    prices = p.add_argument_group("price history")
    prices.add_argument("--price-coverage", action="store_true",
                        help="which cards have a dated price in each year (N new, U used, "
                             "M mixed condition, L launch price, R rental), and the price rows "
                             "that are not used")
    prices.add_argument("--price-history", metavar="CARD",
                        help="every dated price of one card, with its source")
    prices.add_argument("--import-prices", metavar="CSV",
                        help="add your own prices from a CSV (columns: " +
                             ", ".join(REQUIRED_COLUMNS) + "; optional: market, gpus, note)")
    prices.add_argument("--export-prices", metavar="CSV",
                        help="write the merged price history (shipped, catalog and yours)")
    prices.add_argument("--remove-my-prices", action="store_true",
                        help="delete the prices you imported or entered (the shipped history "
                             "stays)")
    p.set_defaults(func=catalog_command)
    return p


def card_record(catalog: Catalog, card: GpuSpec, as_of: str | None = None) -> dict[str, Any]:
    """One card as a JSON-ready object: every field, memory_bytes, current prices, support."""
    rec = card.to_dict()
    status, reason = software_support(card.compute_capability)
    rec["software_support"] = {"status": status, "label": SUPPORT_LABELS[status],
                               "reason": reason}
    rec["owned"] = catalog.is_owned(card)
    for cond in ("new", "used"):
        p = catalog.price(card, as_of=as_of, condition=cond)
        rec[f"price_{cond}"] = p.to_dict() if p is not None else None
    return rec


def _fmt(v: Any, spec: str = "") -> str:
    if v is None:
        return "N/A"
    return format(v, spec) if spec else str(v)


def _table(catalog: Catalog, cards: list[GpuSpec], as_of: str | None, out: TextIO) -> None:
    cols = [("Name", 34, "<"), ("Arch", 12, "<"), ("CC", 4, ">"), ("Mem GB", 6, ">"),
            ("GB/s", 7, ">"), ("FP32 TF", 7, ">"), ("FP16 TC", 7, ">"), ("TDP W", 5, ">"),
            ("Release", 7, "<"), ("Launch $", 8, ">"), ("New $", 7, ">"), ("Used $", 7, ">"),
            ("Support", 18, "<")]
    out.write("  ".join(f"{h:{a}{w}}" for h, w, a in cols).rstrip() + "\n")
    for c in cards:
        new = catalog.price(c, as_of=as_of, condition="new")
        used = catalog.price(c, as_of=as_of, condition="used")
        status, _ = software_support(c.compute_capability)
        name = c.name + (" *" if catalog.is_owned(c) else "")
        vals = [name[:34], c.architecture, c.compute_capability, _fmt(c.memory_gib, "g"),
                _fmt(c.bandwidth_gbs, ".0f"), _fmt(c.fp32_tflops, ".1f"),
                _fmt(c.fp16_tensor_tflops, ".0f"), _fmt(c.tdp_w, ".0f"), _fmt(c.release),
                _fmt(c.launch_price_usd, ".0f"), _price_cell(new), _price_cell(used),
                SUPPORT_LABELS[status]]
        out.write("  ".join(f"{v:{a}{w}}" for v, (_, w, a) in zip(vals, cols)).rstrip() + "\n")
    out.write(f"\n{len(cards)} cards. FP16 TC: dense FP16 tensor TFLOPS (FP16 accumulate). "
              "New/Used $: the nearest dated price" + (f" on or before {as_of}" if as_of else "")
              + " (a = an asking price, L = the launch price: no dated price); * = a card you "
              "own.\n")


def _price_cell(p: Any) -> str:
    if p is None:
        return "N/A"
    return f"{p.usd:.0f}" + ("L" if p.launch else "a" if p.kind == "asking" else "")


def catalog_command(args: argparse.Namespace, out: TextIO | None = None,
                    err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        catalog = load_catalog(getattr(args, "catalog_path", None),
                               getattr(args, "overrides_path", None))
    except CatalogError as exc:
        err.write(f"gpu-planner catalog: the built-in GPU catalog is invalid: {exc}\n")
        return 1
    as_of = getattr(args, "as_of", None)
    if as_of is not None:
        try:
            catalog.price(catalog.cards[0], as_of=as_of)
        except ValueError as exc:
            err.write(f"gpu-planner catalog: --as-of: {exc}\n")
            return 2
    for notice in catalog.notices:
        err.write(f"notice: {notice}\n")
    if _price_options(args):
        return _price_command(catalog, args, out, err)
    cards = [c for c in catalog.cards
             if (getattr(args, "segment", None) in (None, c.segment))
             and (getattr(args, "architecture", None) in (None, c.architecture))]
    if getattr(args, "json", False):
        json.dump([card_record(catalog, c, as_of) for c in cards], out, indent=1,
                  ensure_ascii=False)
        out.write("\n")
    else:
        _table(catalog, cards, as_of, out)
    return 0


# --------------------------------------------------------------------------- price options


def _price_options(args: argparse.Namespace) -> bool:
    return any(getattr(args, k, None) for k in ("price_coverage", "price_history",
                                                 "import_prices", "export_prices",
                                                 "remove_my_prices"))


def _match(catalog: Catalog):
    def match(name: str) -> str | None:
        spec = catalog.by_name(name)
        return spec.name if spec is not None else None
    return match


def coverage_record(catalog: Catalog) -> dict[str, Any]:
    """The coverage report as data: per card, the years with a dated price and what kind."""
    book = catalog.price_book()
    cov = catalog.price_coverage()
    return {
        "legend": {"N": "new", "U": "used", "M": "mixed condition", "L": "launch price (MSRP)",
                   "R": "rental per GPU-hour",
                   "lower case": "only in another currency (EUR), never taken as dollars"},
        "years": list(COVERAGE_YEARS),
        "cards": [{"name": c.name, "release": c.release, "years": cov[c.name]}
                  for c in catalog.cards],
        "observations": len(book.all_observations()),
        "rows_not_used": [{"file": p.file, "row": p.row, "card": p.card, "reason": p.message}
                          for p in book.problems],
        "warnings": [str(n) for n in book.notices],
    }


def _coverage_table(rec: dict[str, Any], out: TextIO) -> None:
    years = rec["years"]
    out.write(f"{'Card':<34} " + " ".join(f"{y[2:]:>4}" for y in years) + "\n")
    counts = {y: 0 for y in years}
    for c in rec["cards"]:
        cells = []
        for y in years:
            v = c["years"].get(y, "")
            counts[y] += bool(v)
            cells.append(f"{v or '·':>4}")
        out.write(f"{c['name'][:34]:<34} " + " ".join(cells) + "\n")
    out.write(f"{'cards with a dated price':<34} " +
              " ".join(f"{counts[y]:>4}" for y in years) + "\n")
    out.write(f"\n{rec['observations']} observations. N new, U used, M mixed condition, "
              "L launch price (MSRP), R rental per GPU-hour; lower case: only in EUR; · none. A "
              "year counts when a price is dated in it.\n")
    if rec["rows_not_used"]:
        out.write(f"\n{len(rec['rows_not_used'])} price rows are not used:\n")
        for (file, card, reason), rows in _grouped(rec["rows_not_used"]):
            out.write(f"  {file} {_row_ranges(rows)} ({card}): {reason}\n")


def _grouped(problems: list[dict[str, Any]]):
    groups: dict[tuple[str, str, str], list[int]] = {}
    for p in problems:
        groups.setdefault((p["file"], p["card"], p["reason"]), []).append(p["row"])
    return groups.items()


def _row_ranges(rows: list[int]) -> str:
    """[153, 154, 155, 160] -> "rows 153-155, 160"."""
    rows = sorted(rows)
    spans: list[list[int]] = []
    for r in rows:
        if spans and r == spans[-1][1] + 1:
            spans[-1][1] = r
        else:
            spans.append([r, r])
    text = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in spans)
    return ("row " if len(rows) == 1 else "rows ") + text


def _price_command(catalog: Catalog, args: argparse.Namespace, out: TextIO,
                   err: TextIO) -> int:
    prog = "gpu-planner catalog"
    user_path = catalog.user_prices_path or prices_mod.user_prices_path()
    if getattr(args, "remove_my_prices", False):
        n = prices_mod.remove_user_prices(user_path)
        m = clear_entered_prices(getattr(args, "overrides_path", None))
        err.write(f"{prog}: removed {n + m} of your prices ({n} imported, {m} entered).\n")
        if m:
            catalog = load_catalog(getattr(args, "catalog_path", None),
                                   getattr(args, "overrides_path", None))
        catalog.forget_prices()
    if getattr(args, "import_prices", None):
        try:
            res = prices_mod.import_prices(args.import_prices, _match(catalog), user_path,
                                           known=catalog.price_book().all_observations())
        except PriceFileError as exc:
            err.write(f"{prog}: --import-prices: {exc}\n")
            return 2
        for p in res.problems:
            err.write(f"warning: not imported: {p}\n")
        err.write(f"{prog}: imported {res.added} prices into {res.path} ({res.duplicates} "
                  f"already known, {len(res.problems)} rows rejected).\n")
        catalog.forget_prices()
    for notice in catalog.price_book().notices:
        err.write(f"notice: {notice}\n")
    if getattr(args, "export_prices", None):
        obs = catalog.price_book().all_observations()
        prices_mod.export_prices(obs, args.export_prices)
        err.write(f"{prog}: wrote {len(obs)} prices to {args.export_prices}.\n")
    if getattr(args, "price_history", None):
        spec = catalog.by_name(args.price_history)
        if spec is None:
            close = catalog.closest_names(args.price_history)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            err.write(f"{prog}: --price-history: no card named {args.price_history!r}{hint}\n")
            return 2
        obs = catalog.observations(spec)
        if getattr(args, "json", False):
            json.dump({"card": spec.name, "observations": [o.to_row() | {"origin": o.origin}
                                                           for o in obs]},
                      out, indent=1, ensure_ascii=False)
            out.write("\n")
        else:
            out.write(f"{spec.name}: {len(obs)} dated prices\n")
            for o in obs:
                what = "rental per hour" if o.rental else f"{o.condition} {o.kind}".strip()
                amount = f"{o.amount:,.4g}" if o.rental else f"{o.amount:,.2f}"
                per = f" for {o.gpus} GPUs" if o.gpus > 1 else ""
                out.write(f"  {o.date:<10}  {o.currency} {amount:>10}{per}  {what:<20}  "
                          f"{o.market or '—'}  [{o.origin}] {o.source[:90]}\n")
    if getattr(args, "price_coverage", False):
        rec = coverage_record(catalog)
        if getattr(args, "json", False):
            json.dump(rec, out, indent=1, ensure_ascii=False)
            out.write("\n")
        else:
            _coverage_table(rec, out)
    return 0
