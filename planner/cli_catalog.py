"""`gpu-planner catalog [--json]`: list the built-in GPU catalog (with the user's overrides).

Qt-free. ``add_catalog_parser(subparsers)`` registers the subcommand; planner/cli.py wires it.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from planner.core.catalog import (
    ARCHITECTURES,
    SEGMENTS,
    SUPPORT_LABELS,
    Catalog,
    CatalogError,
    GpuSpec,
    load_catalog,
    software_support,
)


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
                _fmt(c.launch_price_usd, ".0f"), _fmt(new.usd if new else None, ".0f"),
                _fmt(used.usd if used else None, ".0f"), SUPPORT_LABELS[status]]
        out.write("  ".join(f"{v:{a}{w}}" for v, (_, w, a) in zip(vals, cols)).rstrip() + "\n")
    out.write(f"\n{len(cards)} cards. FP16 TC: dense FP16 tensor TFLOPS (FP16 accumulate). "
              "New/Used $: latest price point" + (f" on or before {as_of}" if as_of else "")
              + "; * = a card you own.\n")


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
