"""Test set-up: offscreen Qt, and a private PLANNER_HOME so tests never touch real config."""

from __future__ import annotations

import os
import tempfile

# Before anything imports Qt.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
_HOME = tempfile.mkdtemp(prefix="planner-test-home-")
os.environ["PLANNER_HOME"] = _HOME

import pytest  # noqa: E402


@pytest.fixture
def planner_home(tmp_path, monkeypatch):
    """A fresh, empty PLANNER_HOME for one test."""
    monkeypatch.setenv("PLANNER_HOME", str(tmp_path / "home"))
    return tmp_path / "home"
