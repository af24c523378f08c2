"""``python -m planner``: the GUI without arguments, the CLI with a subcommand."""

from planner.app import main

if __name__ == "__main__":
    raise SystemExit(main())
