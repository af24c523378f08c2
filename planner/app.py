"""Application entry: the CLI with a subcommand, the window without one."""

from __future__ import annotations

import sys
from typing import Sequence

GUI_FLAGS = ("--self-test", "--demo")
DESKTOP_FLAGS = ("--install-desktop-entry", "--uninstall-desktop-entry")


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in DESKTOP_FLAGS:
        return desktop_entry(args[0], args[1:])
    # The window when there is no argument or the first is one of its flags; a subcommand
    # (whose own options may share a name with a window flag, like `monitor --demo`) is the CLI.
    if args and args[0] not in GUI_FLAGS:
        from planner.cli import run  # noqa: PLC0415

        return run(args)
    from planner.ui.bootstrap import run_gui  # noqa: PLC0415

    return run_gui(args)


def desktop_entry(flag: str, rest: Sequence[str] = ()) -> int:
    """``--install-desktop-entry`` / ``--uninstall-desktop-entry``: the per-user menu entry
    (Linux XDG folders), without starting Qt. Prints what it did; one line and 1 on error."""
    from planner import desktop  # noqa: PLC0415

    if rest:
        print(f"gpu-planner: {flag} takes no arguments (got {' '.join(rest)})", file=sys.stderr)
        return 1
    try:
        if flag == "--install-desktop-entry":
            done = desktop.install_desktop_entry()
            print(f"Installed the GPU Planner menu entry ({desktop.describe()}):")
        else:
            done = desktop.uninstall_desktop_entry()
            print("Removed the GPU Planner menu entry:" if done
                  else "No GPU Planner menu entry was installed.")
    except (desktop.DesktopEntryError, OSError) as exc:
        print(f"gpu-planner: {exc}", file=sys.stderr)
        return 1
    for path in done:
        print(f"  {path}")
    return 0


def main_gui() -> int:
    """The console-less launcher (gui-scripts entry point)."""
    return main()
