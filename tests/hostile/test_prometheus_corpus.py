"""A misbehaving Prometheus on 127.0.0.1 (a tiny http.server in a thread): whatever it answers,
the backend never raises beyond BackendUnavailable, answers within its deadline, shows no
value a card cannot have, and never shows, records or prints the bearer token or a raw
control character."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import subprocess
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from planner import safeio
from planner.telemetry.prometheus import PLAUSIBLE, PrometheusBackend
from planner.telemetry.types import BackendUnavailable

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "tok-3f9a1c-SECRET"
MAX_SECONDS = 5.0


class FakePrometheus:
    """Answers /api/v1/query with ``self.answer(query) -> (status, body bytes, delay_s)``."""

    def __init__(self) -> None:
        self.answer = lambda query: (200, b"{}", 0.0)
        self.queries: list[str] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                q = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
                query = q.get("query", [""])[0]
                fake.queries.append(query)
                status, body, delay = fake.answer(query)
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    if delay:  # trickle: a byte at a time
                        for i in range(len(body)):
                            self.wfile.write(body[i:i + 1])
                            self.wfile.flush()
                            time.sleep(delay)
                    else:
                        self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, format, *args):  # noqa: A002
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def prom():
    server = FakePrometheus()
    yield server
    server.close()


def series(name: str, value, **labels) -> dict:
    base = {"__name__": name, "Hostname": "node-1", "gpu": "0", "UUID": "GPU-1",
            "modelName": "NVIDIA H100", "instance": "node-1:9400"}
    base.update(labels)
    shown = value if isinstance(value, str) else repr(value)
    return {"metric": base, "value": [time.time(), shown]}


def ok_body(result: list) -> bytes:
    return json.dumps({"status": "success", "data": {"resultType": "vector", "result": result}}
                      ).encode()


def card(**values) -> list[dict]:
    v = {"DCGM_FI_DEV_FB_USED": 1000, "DCGM_FI_DEV_FB_FREE": 80000,
         "DCGM_FI_DEV_GPU_UTIL": 50, "DCGM_FI_DEV_GPU_TEMP": 60, "DCGM_FI_DEV_POWER_USAGE": 300}
    v.update(values)
    return [series(k, x) for k, x in v.items()] + [
        {"metric": {"__name__": "up", "instance": "node-1:9400"}, "value": [0, "1"]}]


def _answers() -> dict[str, tuple[int, bytes, float]]:
    big_label = "L" * (1 << 20)
    a: dict[str, tuple[int, bytes, float]] = {
        "deep-body": (200, b"[" * 100_000 + b"]" * 100_000, 0),
        "deep-data": (200, ('{"status":"success","data":' + '{"a":' * 50 + "1" + "}" * 50
                            + "}").encode(), 0),
        "data-list": (200, b'{"status":"success","data":[1,2,3]}', 0),
        "data-string": (200, b'{"status":"success","data":"vector"}', 0),
        "data-null": (200, b'{"status":"success","data":null}', 0),
        "data-number": (200, b'{"status":"success","data":7}', 0),
        "result-dict": (200, b'{"status":"success","data":{"resultType":"vector","result":{}}}',
                        0),
        "result-garbage": (200, ok_body([1, "x", None, [], {"metric": 3},
                                         {"metric": {}, "value": "v"},
                                         {"metric": {"__name__": 5}, "value": [1]}]), 0),
        "resulttype-matrix": (200, json.dumps({"status": "success", "data": {
            "resultType": "\x1b[2Jmatrix", "result": []}}).encode(), 0),
        "status-missing": (200, b'{"data":{}}', 0),
        "empty": (200, b"", 0),
        "html": (200, b"<html><body>Hello \x1b[31m</body></html>", 0),
        "not-utf8": (200,
                     b'{"status":"success","data":{"resultType":"vector","result":[\xff\xfe]}}',
                     0),
        "digits": (200, ('{"status":"success","data":{"resultType":"vector","result":[],"n":'
                         + "9" * 5000 + "}}").encode(), 0),
        "error-echo": (400, json.dumps({"status": "error", "errorType": "bad_data",
                                        "error": f"bad token Bearer {TOKEN}\n\x1b[2J"}).encode(),
                       0),
        "http-500-echo": (500, f"internal error for {TOKEN}\x1b]0;pwned\x07".encode(), 0),
        "http-401": (401, b"unauthorized", 0),
        "http-404": (404, b"not found", 0),
        "http-302": (302, b"", 0),
        "too-big": (200, b'{"status":"success","data":{"resultType":"vector","result":["'
                    + b"x" * (33 * 1024 * 1024) + b'"]}}', 0),
        "trickle": (200, ok_body(card()), 0.05),
        "no-series": (200, ok_body([]), 0),
        "huge-labels": (200, ok_body(card() + [series("DCGM_FI_DEV_SM_CLOCK", 1000,
                                                       modelName=big_label)]), 0),
    }
    for label, values in {
        "minus-1e308": {"DCGM_FI_DEV_FB_USED": -1e308, "DCGM_FI_DEV_FB_FREE": -1e308,
                        "DCGM_FI_DEV_FB_TOTAL": -1e308},
        "plus-1e308": {"DCGM_FI_DEV_FB_USED": 1e308, "DCGM_FI_DEV_POWER_USAGE": 1e308},
        "fb-1e13": {"DCGM_FI_DEV_FB_USED": 1e13, "DCGM_FI_DEV_FB_TOTAL": 1e13},
        "nan": {"DCGM_FI_DEV_GPU_UTIL": "NaN", "DCGM_FI_DEV_FB_USED": "NaN"},
        "inf": {"DCGM_FI_DEV_GPU_UTIL": "+Inf", "DCGM_FI_DEV_GPU_TEMP": "-Inf"},
        "negative": {"DCGM_FI_DEV_GPU_UTIL": -5, "DCGM_FI_DEV_POWER_USAGE": -1,
                     "DCGM_FI_DEV_FB_USED": -1000, "DCGM_FI_DEV_SM_CLOCK": -1},
        "absurd": {"DCGM_FI_DEV_GPU_UTIL": 2000, "DCGM_FI_DEV_GPU_TEMP": 1e6,
                   "DCGM_FI_DEV_MEM_COPY_UTIL": 101, "DCGM_FI_PROF_DRAM_ACTIVE": 7,
                   "DCGM_FI_PROF_PCIE_RX_BYTES": 1e20, "DCGM_FI_DEV_MEM_CLOCK": 1e12},
        "text-values": {"DCGM_FI_DEV_GPU_UTIL": "fifty", "DCGM_FI_DEV_GPU_TEMP": ""},
        "digit-string": {"DCGM_FI_DEV_FB_USED": "9" * 5000},
        "blank-sentinels": {"DCGM_FI_DEV_FB_USED": 2147483632, "DCGM_FI_DEV_GPU_TEMP":
                            140737488355328.0},
    }.items():
        a[f"value-{label}"] = (200, ok_body(card(**values)), 0)
    for label, labels in {
        "token-in-model": {"modelName": f"H100 {TOKEN}"},
        "token-in-host": {"Hostname": TOKEN, "instance": f"{TOKEN}:9400"},
        "token-in-uuid": {"UUID": f"GPU-{TOKEN}"},
        "ansi-model": {"modelName": "\x1b[31mH100\x1b[0m\x1b[2J"},
        "newline-host": {"Hostname": "node-1\nfake line", "instance": "x\r\ny"},
        "bidi-uuid": {"UUID": "GPU-\u202e1-UPG"},
        "nul-model": {"modelName": "H\x00100"},
    }.items():
        a[f"label-{label}"] = (200, ok_body([dict(s, metric={**s["metric"], **labels})
                                             for s in card()]), 0)
    fleet = []
    for i in range(5000):
        fleet += [series("DCGM_FI_DEV_FB_USED", 1000, Hostname=f"node-{i // 8}",
                         UUID=f"GPU-{i}", gpu=str(i % 8), instance=f"node-{i // 8}:9400"),
                  series("DCGM_FI_DEV_GPU_UTIL", 50, Hostname=f"node-{i // 8}",
                         UUID=f"GPU-{i}", gpu=str(i % 8), instance=f"node-{i // 8}:9400")]
    a["fleet-5000"] = (200, ok_body(fleet), 0)
    a["duplicate-uuids"] = (200, ok_body(card() + [dict(s, metric={**s["metric"],
                                                                   "Hostname": "node-2"})
                                                   for s in card()]), 0)
    return a


ANSWERS = _answers()


def _texts(obj) -> list[str]:
    """Every string inside a DeviceInfo / GpuSample (fields, mappings, tuples)."""
    out = []
    if isinstance(obj, str):
        out.append(obj)
    elif dataclasses.is_dataclass(obj):
        for f in dataclasses.fields(obj):
            out += _texts(getattr(obj, f.name))
    elif isinstance(obj, dict) or hasattr(obj, "items"):
        for k, v in obj.items():
            out += _texts(k) + _texts(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            out += _texts(v)
    return out


def _check_clean(texts: list[str], where: str) -> None:
    for t in texts:
        assert TOKEN not in t, f"{where}: the token is shown: {t[:200]!r}"
        assert safeio.is_clean(t), f"{where}: raw control character in {t[:200]!r}"


@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_a_misbehaving_server(prom, name):
    prom.answer = lambda query: ANSWERS[name]
    backend = PrometheusBackend(prom.url, token=TOKEN, timeout_s=2.0, min_interval_s=0.0)
    t0 = time.perf_counter()
    try:
        devices = backend.open()
    except BackendUnavailable as exc:
        text = str(exc)
        assert text and "\n" not in text and len(text) < 1000, text
        _check_clean([text, repr(exc)], name)
        assert time.perf_counter() - t0 < MAX_SECONDS
        return
    samples = backend.sample()
    assert time.perf_counter() - t0 < MAX_SECONDS
    assert devices and len(samples) == len(devices)
    _check_clean(_texts(devices) + _texts(samples), name)
    for d in devices:
        assert d.memory_total_bytes is None or 0 <= d.memory_total_bytes <= 2 ** 50
        assert len(d.name) <= 300 and len(d.host or "") <= 300
    for s in samples:
        for field, (lo, hi) in PLAUSIBLE.items():
            v = getattr(s, field)
            assert v is None or (math.isfinite(v) and lo <= v <= hi), (name, field, v)
        for field in PLAUSIBLE:
            if getattr(s, field) is None and not s.lost and "*" not in s.unavailable:
                assert field in s.unavailable, (name, field)  # N/A says why


def test_absurd_values_say_so_instead_of_showing_them(prom):
    prom.answer = lambda query: ANSWERS["value-absurd"]
    backend = PrometheusBackend(prom.url, timeout_s=2.0, min_interval_s=0.0)
    backend.open()
    s = backend.sample()[0]
    assert s.gpu_busy_pct is None and "impossible value" in s.unavailable["gpu_busy_pct"]
    assert s.temperature_c is None and s.memory_busy_pct is None


def _cli(url: str, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    tok = tmp_path / "token"
    tok.write_text(TOKEN + "\n", encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT), PLANNER_HOME=str(tmp_path / "home"))
    return subprocess.run([sys.executable, "-m", "planner", "monitor", "--prometheus", url,
                           "--token-file", str(tok), *extra], env=env, cwd=str(ROOT),
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("name", ["deep-body", "data-list", "value-minus-1e308",
                                  "label-token-in-model", "label-ansi-model", "http-500-echo",
                                  "error-echo", "value-fb-1e13"])
@pytest.mark.parametrize("as_json", [False, True])
def test_the_cli_against_a_misbehaving_server(prom, tmp_path, name, as_json):
    prom.answer = lambda query: ANSWERS[name]
    p = _cli(prom.url, tmp_path, "--once", *(["--json"] if as_json else []))
    assert p.returncode in (0, 1), p.stderr
    assert "Traceback" not in p.stderr and TOKEN not in p.stdout + p.stderr
    assert safeio.is_clean(p.stdout.replace("\n", "")) and safeio.is_clean(
        p.stderr.replace("\n", ""))
    if p.returncode:
        assert len(p.stderr.strip().splitlines()) == 1
    elif as_json:
        json.loads(p.stdout)


def test_absurd_values_are_recorded_as_missing_not_as_a_crash(prom, tmp_path):
    from planner.telemetry.recorder import Recording

    prom.answer = lambda query: ANSWERS["value-fb-1e13"]
    rec = tmp_path / "rec.sqlite"
    p = _cli(prom.url, tmp_path, "--interval", "0.2", "--duration", "1.2", "--record", str(rec))
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    with Recording(rec) as r:
        frames = list(r.frames())
    assert frames
    assert all(f.samples[0].memory_used_bytes is None for f in frames)
    assert all(f.samples[0].gpu_busy_pct == 50 for f in frames)


def test_a_fleet_too_big_for_one_answer_can_be_narrowed_from_the_cli(prom, tmp_path):
    narrowed = ok_body(card())

    def answer(query: str):
        if 'Hostname=~"node-1"' in query:
            return 200, narrowed, 0
        return 200, b" " * (33 * 1024 * 1024), 0  # the whole fleet: over the 32 MiB bound

    prom.answer = answer
    p = _cli(prom.url, tmp_path, "--once", "--json")
    assert p.returncode == 1 and "narrow" in p.stderr and "--match" in p.stderr
    p = _cli(prom.url, tmp_path, "--once", "--json", "--match", 'Hostname=~"node-1"')
    assert p.returncode == 0, p.stderr
    assert [d["host"] for d in json.loads(p.stdout)["devices"]] == ["node-1"]
