"""An importer that never finishes on its own (a huge model on a slow share): the GUI tests
register it for ``.onnx`` to check that Cancel really stops the import process."""

from __future__ import annotations

import time


def import_slowly(path, **_options):
    time.sleep(600)
    raise AssertionError("the import was not stopped")
