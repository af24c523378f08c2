"""The window session (gpu-planner.ini): what the window remembers, typed, with defaults."""

from __future__ import annotations

import dataclasses

from planner.core.memory import Assumptions
from planner.core.parallel import Parallel
from planner.ui.session import DEFAULT_MEMORY_GIB, WindowSession, open_ini


def test_a_fresh_session_gives_the_defaults(qapp, tmp_path):
    s = WindowSession(open_ini(tmp_path / "new.ini"))
    assert s.geometry() is None and s.window_state() is None and s.tab() == 0
    assert s.memory_gib() == DEFAULT_MEMORY_GIB
    assert s.assumptions() == Assumptions()
    assert s.parallel() == Parallel()
    assert s.cluster() == {} and s.recent_files() == [] and s.last_folder() is None


def test_values_survive_a_restart(qapp, tmp_path):
    ini = tmp_path / "gpu-planner.ini"
    s = WindowSession(open_ini(ini))
    s.set_memory_gib(80.0)
    s.set_parallel(Parallel(4, 1, "fsdp"))
    s.set_assumptions(dataclasses.replace(Assumptions(), cuda_context_bytes=555 << 20))
    s.set_cluster({"url": "http://127.0.0.1:9090"})
    for name in ("a.json", "b.json", "a.json"):
        s.add_recent(tmp_path / name)
    s.set_last_folder(tmp_path)
    s.sync()
    again = WindowSession(open_ini(ini))
    assert again.memory_gib() == 80.0
    assert again.parallel() == Parallel(4, 1, "fsdp")
    assert again.assumptions().cuda_context_bytes == 555 << 20
    assert again.cluster() == {"url": "http://127.0.0.1:9090"}
    assert again.recent_files() == [str((tmp_path / n).resolve()) for n in ("a.json", "b.json")]
    assert again.last_folder() == str(tmp_path)


def test_unreadable_values_give_the_defaults(qapp, tmp_path):
    ini = tmp_path / "gpu-planner.ini"
    ini.write_text("[planner]\nmemory_gib=lots\nparallel={\"gpus\": \"x\"}\n"
                   "assumptions=[1, 2\n[window]\ntab=third\n[monitor]\ncluster=[1]\n"
                   "[files]\nlast_folder=/no/such/folder\n", encoding="utf-8")
    s = WindowSession(open_ini(ini))
    assert s.memory_gib() == DEFAULT_MEMORY_GIB
    assert s.parallel() == Parallel()
    assert s.assumptions() == Assumptions()
    assert s.tab() == 0 and s.cluster() == {} and s.last_folder() is None
