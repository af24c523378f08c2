"""The whole fit table (every catalog card, the largest batch on each) for a ~500-layer network.

Target (issue 3): median under 20 ms. Run: python benchmarks/fit_speed.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from speed import deep_resnet  # noqa: E402

from planner.core.catalog import load_catalog  # noqa: E402
from planner.core.fit import fit_table  # noqa: E402
from planner.core.network import Setup  # noqa: E402
from planner.core.plan import compute_plan  # noqa: E402


def main() -> None:
    catalog = load_catalog()
    draft = deep_resnet()
    setup = Setup(32, "fp32", "adam")
    print(f"network: {len(draft.layers)} layers; catalog: {len(catalog)} cards")
    fit_table(compute_plan(draft, setup), catalog)  # warm

    def after_edit(i):
        d = draft.replace_layer(5, draft.layers[5].replace(filters=64 + (i % 7)))
        return fit_table(compute_plan(d, setup), catalog)

    def table_only(i):
        return fit_table(plan, catalog)

    plan = compute_plan(draft, setup)
    for label, fn in (("fit table (plan computed once)", table_only),
                      ("edit + plan + fit table", after_edit)):
        times = []
        for i in range(40):
            t0 = time.perf_counter()
            fn(i)
            times.append((time.perf_counter() - t0) * 1000)
        times.sort()
        print(f"{label:<30} median {statistics.median(times):6.2f} ms   "
              f"p90 {times[int(0.9 * len(times))]:6.2f} ms   target < 20 ms")


if __name__ == "__main__":
    main()
