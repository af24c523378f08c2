"""Telemetry test fixtures: the scripted fake pynvml, and a check that no sampler thread leaks."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fake_pynvml import FakePynvml

SAMPLER_THREAD_PREFIX = "planner-telemetry-sampler"


@pytest.fixture
def fake_nvml() -> FakePynvml:
    fake = FakePynvml()
    yield fake
    fake.release()  # never leave a scripted hang blocking a thread


@pytest.fixture(autouse=True)
def no_sampler_thread_survives():
    yield
    alive = [t for t in threading.enumerate()
             if t.name.startswith(SAMPLER_THREAD_PREFIX) and t.is_alive()]
    # A thread deliberately left hung is released by fake_nvml's teardown; give it a moment.
    for t in alive:
        t.join(timeout=2.0)
    alive = [t.name for t in alive if t.is_alive()]
    assert not alive, f"sampler threads survived the test: {alive}"
