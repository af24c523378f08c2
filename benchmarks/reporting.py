"""What the benchmark scripts share: a run that reports instead of failing the shell."""

from __future__ import annotations

import sys
import traceback
from typing import Callable


def run_reporting(main: Callable[[], object], label: str) -> None:
    """Run ``main``; on an exception print it and a FAIL line. Always exits 0: a benchmark
    prints figures, it does not judge."""
    try:
        main()
    except Exception as exc:  # noqa: BLE001 - a benchmark reports, it does not fail the shell
        traceback.print_exc()
        print(f"FAIL: {label} could not run: {exc}")
    sys.exit(0)
