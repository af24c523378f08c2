"""Build data/prices.csv from the collected price sources (prices.csv + prices_nonusd.csv).

Usage: python tools/import_price_sources.py SOURCE_DIR [data/prices.csv]

Every figure, date and source is copied as the source file states it. What this adds:
- ``card``: the catalog's name for the card (data/gpus.json); the source's own label is kept in
  ``source_card``. A label that names no single catalog card (a variant the source does not
  state) is kept as it is, so the loader reports the row as unmatched instead of guessing.
- ``currency`` (USD or EUR) and ``amount`` (the ``usd`` / ``eur`` figure unchanged).
- ``kind`` ``rental-per-hour`` for rental rows (the source codes them condition
  ``rent_per_hour``, kind ``list``); their condition is left empty.
- ``condition`` ``mixed`` where the source's notes flag a row "mixed condition" (GPU Poet's RTX 50
  rows); otherwise the source's coding.
- ``market`` (where the price was seen: eBay, Amazon, a retailer, a cloud provider) read from
  the notes, and ``gpus`` (how many GPUs an hourly rate is for: 4 for AWS g2.8xlarge).
- the catalog's own GPU Poet price points (data/gpus.json), as asking prices on eBay.
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

CARD_NAMES = {
    "A100 40GB": "A100 SXM4 40GB",  # every row names an SXM4 40GB instance type
    "A100 40GB PCIe": "A100 PCIe 40GB",
    "A100 PCIe 80GB": "A100 PCIe 80GB",
    "A100 SXM 80GB": "A100 SXM4 80GB",
    "B200 180GB": "B200",
    "GeForce GTX 960 (2GB)": "GeForce GTX 960",
    "GeForce GTX Titan (Kepler)": "GeForce GTX TITAN",
    "GeForce GTX Titan X (Maxwell)": "GeForce GTX TITAN X",
    "Titan X (Pascal)": "TITAN X (Pascal)",
    "Titan Xp": "TITAN Xp",
    "GeForce RTX 3060 12GB": "GeForce RTX 3060",
    "GeForce RTX 3080 (10GB)": "GeForce RTX 3080",
    "H100 PCIe 80GB": "H100 PCIe",
    "H100 SXM 80GB": "H100 SXM5",
    "H200 141GB": "H200 SXM",
    "L40S 48GB": "NVIDIA L40S",
    "NVIDIA GRID K520 (AWS g2.2xlarge)": "GRID K520",
    "NVIDIA GRID K520 (AWS g2.8xlarge)": "GRID K520",
}
GPUS = {"NVIDIA GRID K520 (AWS g2.8xlarge)": 4}
COLUMNS = ("card", "date", "amount", "currency", "condition", "kind", "market", "gpus",
           "source", "source_date", "source_card", "note")


def _market(row: dict, label: str) -> str:
    notes, source = row["notes"], row["source"]
    m = re.match(r"On-demand list price per GPU-hour, ([^,]+),", notes)
    if m:
        return m.group(1)
    if "AWS EC2" in notes:
        return "AWS"
    m = re.search(r"at merchant '([^']+)', region (\w+)", notes)
    if m:
        merchant = "geizhals" if m.group(1) == "geizhals_unknown" else m.group(1)
        return f"{merchant} ({m.group(2)})"
    if "gpupoet" in source:
        return "eBay + Amazon" if "eBay and Amazon" in notes else "eBay"
    if "ebay-2021-2023" in source:
        return "eBay"
    if "gpu-price-tracker" in source:
        return "Amazon"
    if "idealo" in source:
        return "idealo.de"
    return ""


def convert(row: dict, currency: str) -> dict:
    label = row["card"]
    rental = row["condition"] == "rent_per_hour"
    condition = "" if rental else row["condition"]
    if condition == "used" and "mixed condition" in row["notes"]:
        condition = "mixed"
    return {
        "card": CARD_NAMES.get(label, label),
        "date": row["date"],
        "amount": row[currency.lower()],
        "currency": currency,
        "condition": condition,
        "kind": "rental-per-hour" if rental else row["kind"],
        "market": _market(row, label),
        "gpus": str(GPUS.get(label, 1)) if rental else "",
        "source": row["source"],
        "source_date": row["source_date"],
        "source_card": label,
        "note": row["notes"],
    }


def catalog_rows(gpus_json: Path) -> list[dict]:
    """The catalog's own GPU Poet points (data/gpus.json) as observations, so they say what
    they are: GPU Poet tracks active US eBay (and Amazon) listings, asking prices (sources.md,
    section 3). The loader then keeps them once (the catalog's month-dated copy is the same
    figure)."""
    import json

    out = []
    for card in json.loads(gpus_json.read_text(encoding="utf-8"))["cards"]:
        for p in card.get("prices") or []:
            if not p["source"].startswith("GPU Poet"):
                continue
            out.append({"card": card["name"], "date": p["date"], "amount": f"{p['usd']:g}",
                        "currency": "USD", "condition": p["condition"], "kind": "asking",
                        "market": "Amazon" if "on Amazon" in p["source"] else "eBay",
                        "gpus": "", "source": p["source"],
                        "source_date": "", "source_card": "",
                        "note": "A price point of data/gpus.json; GPU Poet's figures are "
                                "asking prices of active US listings (eBay; Amazon where the "
                                "source says so)."})
    return out


def main(argv: list[str]) -> int:
    src = Path(argv[1])
    out = Path(argv[2]) if len(argv) > 2 else Path(__file__).resolve().parents[1] / "data" / \
        "prices.csv"
    rows = []
    for name, currency in (("prices.csv", "USD"), ("prices_nonusd.csv", "EUR")):
        with open(src / name, newline="", encoding="utf-8") as f:
            rows += [convert(r, currency) for r in csv.DictReader(f)]
    rows += catalog_rows(Path(__file__).resolve().parents[1] / "data" / "gpus.json")
    with open(out, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    print(f"{len(rows)} rows -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
