"""Application entry: the CLI with a subcommand, the window without one."""

from __future__ import annotations

import sys
from typing import Sequence

GUI_FLAGS = ("--self-test",)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and not any(a in GUI_FLAGS for a in args):
        from planner.cli import run  # noqa: PLC0415

        return run(args)
    from planner.ui.main_window import run_gui  # noqa: PLC0415

    return run_gui(args)


def main_gui() -> int:
    """The console-less launcher (gui-scripts entry point)."""
    return main()
