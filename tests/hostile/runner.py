"""Run many CLI cases in one interpreter (fast), each bounded in time, and report for each:
exit status, stdout, stderr, seconds, the process's peak RSS after it, and any exception that
escaped ``planner.cli.run`` (a traceback the user would have seen).

    python tests/hostile/runner.py CASES.json RESULTS.json

The interpreter limits its own address space (RLIMIT_AS), so a case that tries to read
/dev/zero into memory fails here instead of taking the machine down.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import resource
import signal
import sys
import time
import traceback
from pathlib import Path

# far above the 5 s the tests allow: a hang is reported, not waited on
CASE_TIMEOUT_S = int(os.environ.get("PLANNER_HOSTILE_TIMEOUT_S", "20"))
ADDRESS_SPACE = 6 << 30


class Hang(Exception):
    pass


def _alarm(signum, frame):  # noqa: ARG001
    raise Hang(f"no answer in {CASE_TIMEOUT_S} s")


def peak_rss_bytes() -> int:
    """This interpreter's own peak. On Linux ru_maxrss survives exec, so a runner started from
    a large pytest process (the whole suite, ~1 GiB by the time these tests run) would report
    its parent's size; VmHWM is the high-water mark of this process's own memory."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024  # kB
    except (OSError, ValueError, IndexError):
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux


def run_case(case: dict) -> dict:
    from planner.cli import run

    saved = {k: os.environ.get(k) for k in case.get("env", {})}
    os.environ.update(case.get("env", {}))
    out, err = io.StringIO(), io.StringIO()
    escaped = None
    signal.alarm(CASE_TIMEOUT_S)
    t0, cpu0 = time.perf_counter(), time.process_time()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = run(case["argv"])
            except SystemExit as exc:
                rc = exc.code if isinstance(exc.code, int) else 1
    except BaseException as exc:  # noqa: BLE001 - what the user would have seen as a traceback
        rc = 1
        escaped = "".join(traceback.format_exception(exc))[-3000:]
    finally:
        signal.alarm(0)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    # CPU seconds: the wall clock also counts the other jobs of a shared machine (a hang is
    # stopped by the alarm)
    seconds, wall = time.process_time() - cpu0, time.perf_counter() - t0
    return {"id": case["id"], "rc": rc, "stdout": out.getvalue()[-20000:],
            "stderr": err.getvalue()[-5000:], "seconds": seconds, "wall": wall,
            "peak_rss": peak_rss_bytes(), "escaped": escaped}


def main(argv: list[str]) -> int:
    cases = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    signal.signal(signal.SIGALRM, _alarm)
    results = []
    for case in cases:
        results.append(run_case(case))
        Path(argv[1]).write_text(json.dumps(results), encoding="utf-8")  # what got done
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    raise SystemExit(main(sys.argv[1:]))
