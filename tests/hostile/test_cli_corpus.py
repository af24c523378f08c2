"""The CLI against the hostile corpus (tests/hostile/corpus.py): every case exits with the
status it should, says one line (no traceback) when it fails, answers within 5 s under 1 GB,
prints no raw control character, and leaves the files it was given exactly as they were.

Most cases run in two interpreters that each take half of them (tests/hostile/runner.py,
bounded in address space); the cases that need their own interpreter (the terminal's
encoding, PLANNER_HOME, the exit path of ``python -m planner``) run one process each with
RLIMIT_AS = 1 GiB, in a pool of two.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus  # noqa: E402

sys.path.pop(0)

ROOT = Path(__file__).resolve().parents[2]
RUNNER = Path(__file__).resolve().parent / "runner.py"
MAX_SECONDS = 5.0
MAX_RSS = 1 << 30
SUBPROCESS_AS = 1 << 30
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f\x9b\u202a-\u202e\u2066-\u2069]")

# The corpus is generated once, at collection, into a private folder removed at exit.
_ROOT_DIR = Path(tempfile.mkdtemp(prefix="planner-hostile-"))
atexit.register(shutil.rmtree, _ROOT_DIR, True)


def _root(tmp_path_factory=None) -> Path:
    return _ROOT_DIR


def _sha(path: str) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def _env(extra: dict[str, str], home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"PYTHONPATH": str(ROOT), "PLANNER_HOME": str(home), "OPENBLAS_NUM_THREADS": "1",
                "OMP_NUM_THREADS": "1", "PYTHONHASHSEED": "0"})
    env.pop("PYTHONIOENCODING", None)
    env.update(extra)
    return env


# -- in-process cases, in two interpreters -----------------------------------------------------

CASES = corpus.cli_cases(_ROOT_DIR)
SUB_CASES = corpus.subprocess_cases(_ROOT_DIR)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    root = _root(tmp_path_factory)
    cases = CASES
    hashes = {p: _sha(p) for c in cases for p in c.intact}
    home = root / "home"
    halves = [cases[0::2], cases[1::2]]
    procs = []
    for i, half in enumerate(halves):
        (root / f"cases-{i}.json").write_text(json.dumps([c.to_json() for c in half]),
                                              encoding="utf-8")
        procs.append(subprocess.Popen(
            [sys.executable, str(RUNNER), str(root / f"cases-{i}.json"),
             str(root / f"results-{i}.json")], env=_env({}, home), cwd=str(ROOT),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT))
    for p in procs:
        out, _ = p.communicate(timeout=900)
        assert p.returncode == 0, out.decode(errors="replace")[-3000:]
    got = {}
    for i in range(2):
        for r in json.loads((root / f"results-{i}.json").read_text(encoding="utf-8")):
            got[r["id"]] = r
    return got, hashes


def check(case: corpus.Case, r: dict, hashes: dict[str, str | None]) -> None:
    where = f"{case.id}: {case.argv!r}"
    assert r["escaped"] is None, f"{where}: an exception escaped:\n{r['escaped']}"
    assert "Traceback" not in r["stderr"], f"{where}: traceback:\n{r['stderr']}"
    assert r["rc"] == case.rc, f"{where}: exit {r['rc']}, stderr {r['stderr']!r}"
    lines = r["stderr"].strip().splitlines()
    if case.rc != 0:
        assert len(lines) == 1, f"{where}: not one line: {r['stderr']!r}"
        assert lines[0].startswith("gpu-planner"), where
        if case.msg:
            assert re.search(case.msg, lines[0], re.IGNORECASE), f"{where}: {lines[0]!r}"
    for line in lines:
        assert not CONTROL.search(line), f"{where}: raw control character in {line!r}"
    if case.stdout_clean:
        assert not CONTROL.search(r["stdout"]), f"{where}: raw control character on stdout"
    # CPU seconds where the case ran in its own process (its wall clock also counts the other
    # jobs of a shared machine; a hang is stopped by the 60 s deadline and fails on rc)
    assert r["seconds"] < MAX_SECONDS, (
        f"{where}: {r['seconds']:.1f} s" + (f" CPU, {r['wall']:.1f} s wall" if "wall" in r else ""))
    assert r["peak_rss"] < MAX_RSS, f"{where}: peak {r['peak_rss'] / 2**20:.0f} MiB"
    assert case.intact or not any(p for p in case.intact)
    for p in case.intact:
        assert hashes[p] is not None, f"{where}: {p} was not readable before"
        assert _sha(p) == hashes[p], f"{where}: {p} was changed"


def test_the_corpus_is_large():
    assert len(CASES) + len(SUB_CASES) >= 300, len(CASES) + len(SUB_CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_cli_case(case, results):
    got, hashes = results
    assert case.id in got, f"{case.id} did not run (the runner stopped before it)"
    check(case, got[case.id], hashes)


# -- one interpreter per case ------------------------------------------------------------------

def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (SUBPROCESS_AS, SUBPROCESS_AS))


def _run_one(case: corpus.Case, home: Path, scratch: Path) -> dict:
    out_path, err_path = scratch / f"{case.id}.out", scratch / f"{case.id}.err"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen([sys.executable, "-m", "planner", *case.argv],
                             env=_env(case.env, home), cwd=str(ROOT), stdout=out, stderr=err,
                             stdin=subprocess.DEVNULL, preexec_fn=_limit)
        deadline = t0 + 60
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                p.kill()
                pid, status, usage = os.wait4(p.pid, 0)
                break
            time.sleep(0.01)
        seconds = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
    return {"id": case.id, "rc": p.returncode,
            "stdout": out_path.read_bytes().decode("utf-8", "replace"),
            "stderr": err_path.read_bytes().decode("utf-8", "replace"),
            "seconds": usage.ru_utime + usage.ru_stime, "wall": seconds,
            "peak_rss": usage.ru_maxrss * 1024, "escaped": None,
            "raw_stdout": out_path.read_bytes()}


@pytest.fixture(scope="module")
def sub_results(tmp_path_factory):
    root = _root(tmp_path_factory)
    cases = SUB_CASES
    hashes = {p: _sha(p) for c in cases for p in c.intact}
    scratch = root / "sub"
    scratch.mkdir(exist_ok=True)
    with ThreadPoolExecutor(2) as pool:
        done = list(pool.map(lambda c: _run_one(c, root / "home", scratch), cases))
    return {r["id"]: r for r in done}, hashes


@pytest.mark.parametrize("case", SUB_CASES, ids=[c.id for c in SUB_CASES])
def test_cli_case_in_its_own_process(case, sub_results):
    got, hashes = sub_results
    r = got[case.id]
    check(case, r, hashes)
    if case.env.get("PYTHONIOENCODING") == "ascii":
        r["raw_stdout"].decode("ascii")  # what an ASCII terminal was given: ASCII only
        if case.rc == 0:
            assert r["stdout"].strip(), f"{case.id}: printed nothing"


# -- what the numbers from outside change ------------------------------------------------------

def test_the_budget_given_is_the_one_the_advice_says_it_assumes(capsys):
    from planner.cli import run

    assert run(["advise", "--profile", "starting", "--budget", "5000"]) == 0
    assumes = [line for line in capsys.readouterr().out.splitlines() if "assumes:" in line]
    assert len(assumes) == 1 and "budget $5,000" in assumes[0]
    assert run(["advise", "--profile", "starting"]) == 0
    assert "budget $300" in capsys.readouterr().out  # the profile's own


@pytest.mark.parametrize("argv", [["--electricity", "0"], ["--hours", "0"], ["--hours", "24"],
                                  ["--cloud", "0"], ["--electricity", "0.35", "--hours", "12"]])
def test_edge_values_give_strict_json_and_no_negative_money(capsys, argv):
    from planner.cli import run

    assert run(["advise", "--profile", "starting", "--json", *argv]) == 0
    out = capsys.readouterr().out
    data = json.loads(out, parse_constant=lambda c: pytest.fail(f"{c} in the JSON"))
    assert data
    assert "$-" not in out and "-$" not in out
