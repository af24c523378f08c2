"""The frozen program's entry script (PyInstaller runs this as ``__main__``).

Same behaviour as ``python -m planner``: the window without arguments, the CLI with a
subcommand, ``--self-test`` / ``--install-desktop-entry`` as in ``planner.app``.
"""

import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()  # a frozen child process must not start the app again
    from planner.app import main

    sys.exit(main())
