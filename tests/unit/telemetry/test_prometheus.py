"""The Prometheus (dcgm-exporter) backend against a REAL Prometheus, plus scripted faults.

A module fixture starts Debian's ``prometheus`` on 127.0.0.1 scraping two fake dcgm-exporter
nodes (fake_dcgm_exporter.py, 2 GPUs each, from dcgm_fixtures/) every second. Faults a real
server cannot be made to show on demand (a server that never answers, one that trickles, HTTP
500) come from small scripted servers on 127.0.0.1. Everything is loopback; every process and
server is stopped in teardown.
"""

from __future__ import annotations

import io
import json
import logging
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from fake_dcgm_exporter import FIXTURES, FakeDcgmExporter

from planner.telemetry.prometheus import SAMPLE_FIELDS, PrometheusBackend
from planner.telemetry.types import BackendUnavailable

PROMETHEUS = shutil.which("prometheus")
TOKEN = "tok-5ecret-Zq81x"  # must never show anywhere
MIB = 2**20
READY_TIMEOUT_S = 30.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(predicate, timeout_s: float, what: str, step_s: float = 0.1):
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s:g} s waiting for {what}")
        time.sleep(step_s)


# -- the fixture files, read independently of the backend -----------------------------------

_LINE = re.compile(r'^(\w+)\{(.*)\}\s+(\S+)$')
_LABEL = re.compile(r'(\w+)="([^"]*)"')


def fixture_series(name: str) -> list[tuple[str, dict[str, str], float]]:
    out = []
    for line in (FIXTURES / name).read_text().splitlines():
        m = _LINE.match(line)
        if m:
            out.append((m[1], dict(_LABEL.findall(m[2])), float(m[3])))
    return out


def fixture_values(name: str) -> dict[tuple[str, str], float]:
    """(gpu, metric) → value."""
    return {(lab["gpu"], metric): v for metric, lab, v in fixture_series(name)}


# -- a real Prometheus scraping two fake nodes ------------------------------------------------

class Cluster:
    def __init__(self, tmp: Path) -> None:
        self.nodes = {"node-a": FakeDcgmExporter(FIXTURES / "node-a.prom"),
                      "node-b": FakeDcgmExporter(FIXTURES / "node-b.prom")}
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        targets = ", ".join(f"'{n.address}'" for n in self.nodes.values())
        (tmp / "prometheus.yml").write_text(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
            "scrape_configs:\n  - job_name: dcgm\n    static_configs:\n"
            f"      - targets: [{targets}]\n")
        self.log = tmp / "prometheus.log"
        self._log_file = open(self.log, "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [PROMETHEUS, f"--config.file={tmp / 'prometheus.yml'}",
             f"--storage.tsdb.path={tmp / 'tsdb'}", f"--web.listen-address=127.0.0.1:{self.port}",
             "--storage.tsdb.retention.time=1h"],
            stdout=self._log_file, stderr=subprocess.STDOUT)

    def count(self, query: str) -> int | None:
        q = urllib.parse.urlencode({"query": f"count({query})"})
        try:
            with urllib.request.urlopen(f"{self.url}/api/v1/query?{q}", timeout=1) as r:
                result = json.load(r)["data"]["result"]
        except (OSError, ValueError, KeyError):
            return None
        return int(result[0]["value"][1]) if result else 0

    def wait_ready(self) -> None:
        def ready():
            if self.proc.poll() is not None:
                raise AssertionError("prometheus exited:\n" + self.log.read_text()[-2000:])
            return self.count("DCGM_FI_DEV_FB_USED") == 4
        wait_until(ready, READY_TIMEOUT_S, "Prometheus to scrape both fake nodes")

    def stop(self) -> None:
        try:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        finally:
            self._log_file.close()
            for n in self.nodes.values():
                n.close()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if PROMETHEUS is None:
        pytest.skip("the prometheus binary is not installed here (Debian package 'prometheus'; "
                    ".ci/run installs it)")
    c = Cluster(tmp_path_factory.mktemp("prometheus"))
    try:
        c.wait_ready()
        yield c
    finally:
        c.stop()


@pytest.fixture
def healthy(cluster):
    """Both nodes answering and all four cards visible, before and after the test."""
    def all_back():
        for n in cluster.nodes.values():
            n.answering = True
        wait_until(lambda: cluster.count("DCGM_FI_DEV_FB_USED") == 4
                   and cluster.count("up == 1") == 2, 15, "both nodes to be scraped again")
    all_back()
    yield cluster
    all_back()


def test_open_lists_the_fleet_grouped_by_host(healthy):
    b = PrometheusBackend(healthy.url)
    devices = b.open()
    assert [(d.index, d.host) for d in devices] == [
        (0, "node-a"), (1, "node-a"), (2, "node-b"), (3, "node-b")]
    assert [d.name for d in devices] == ["NVIDIA H100 80GB HBM3"] * 2 + [
        "NVIDIA A100-SXM4-80GB"] * 2
    uuids = {lab["UUID"] for f in ("node-a.prom", "node-b.prom")
             for _, lab, _ in fixture_series(f)}
    assert {d.uuid for d in devices} == uuids
    # total = used + free + reserved (MiB × 2^20)
    assert devices[0].memory_total_bytes == (40960 + 39936 + 663) * MIB
    assert devices[2].memory_total_bytes == devices[3].memory_total_bytes == 81920 * MIB
    assert devices[0].pci_bus_id == "00000000:18:00.0"
    assert all(d.simulated is False for d in devices)
    assert devices[0].power_limit_w == 700.0
    assert devices[2].power_limit_w is None
    assert "not exported by dcgm-exporter on host node-b" in devices[2].unavailable["power_limit_w"]
    assert b.source == "prometheus" and b.cuda_version is None
    assert b.driver_version == "several: 535.104.05, 550.54.15"
    b.close()


def test_a_sample_matches_the_fixture_and_partial_series_say_why(healthy):
    b = PrometheusBackend(healthy.url)
    devices = b.open()
    samples = b.sample()
    assert len(samples) == 4 and not any(s.lost for s in samples)
    for d, s in zip(devices, samples):
        values = fixture_values(f"{d.host}.prom")
        gpu = str(d.index % 2)
        for fname, (metric, scale, _as_int) in SAMPLE_FIELDS.items():
            got = getattr(s, fname)
            if (gpu, metric) in values:
                want = values[(gpu, metric)] * scale
                assert got == pytest.approx(want), (d.host, gpu, fname)
            else:  # a partial series: None, and the reason names the host
                assert got is None, (d.host, gpu, fname)
                assert s.unavailable[fname] == f"not exported by dcgm-exporter on host {d.host}"
    a0, b0, b1 = samples[0], samples[2], samples[3]
    assert a0.memory_used_bytes == 40960 * MIB and a0.dram_bw_util_pct == pytest.approx(42.3)
    assert a0.pcie_rx_bytes_s == 12e9 and a0.memory_busy_pct == 61.0
    assert b0.pcie_rx_bytes_s is None and b1.dram_bw_util_pct is None
    assert b.nvlink_bytes_s[0] == (24e9, 25e9) and b.nvlink_bytes_s[2] == (None, None)
    assert a0.processes is None and "dcgm-exporter" in a0.unavailable["processes"]


def test_rounds_are_bounded_in_rate(healthy):
    b = PrometheusBackend(healthy.url, min_interval_s=1.0)
    b.open()
    first = b.sample()  # within 1 s of open(): the open round's answer
    rounds = b.rounds
    for _ in range(20):
        assert b.sample() is first
    assert b.rounds == rounds == 1


def test_a_node_that_stops_answering_is_lost_while_the_other_goes_on(healthy):
    b = PrometheusBackend(healthy.url, min_interval_s=0.2)
    b.open()
    t0 = time.monotonic()
    healthy.nodes["node-b"].answering = False  # scrapes of node-b now time out

    def lost():
        samples = b.sample()
        return samples if samples[2].lost else None
    samples = wait_until(lost, 20, "node-b's cards to be marked lost", step_s=0.25)
    took = time.monotonic() - t0
    assert samples[3].lost
    assert re.fullmatch(r"no data from host node-b since \d\d:\d\d:\d\d.*",
                        samples[2].unavailable["*"])
    assert not samples[0].lost and not samples[1].lost
    assert samples[0].memory_used_bytes == 40960 * MIB
    assert took < 10, f"took {took:.1f} s"
    # ...and the node comes back
    healthy.nodes["node-b"].answering = True
    def back():
        samples = b.sample()
        return None if samples[2].lost else samples
    samples = wait_until(back, 20, "node-b to come back", step_s=0.25)
    assert samples[2].memory_used_bytes == 70000 * MIB


def test_prometheus_error_json_from_the_real_server(healthy):
    bad = PrometheusBackend(healthy.url, selector='job=~"("')  # an invalid regex
    with pytest.raises(BackendUnavailable) as exc:
        bad.open()
    assert "bad_data" in str(exc.value) and "Traceback" not in str(exc.value)
    # the same error on a tick: the cards stay, with the reason
    b = PrometheusBackend(healthy.url, min_interval_s=0)
    b.open()
    b.selector = 'job=~"("'
    samples = b.sample()
    assert len(samples) == 4
    assert all("bad_data" in s.unavailable["*"] and not s.lost for s in samples)
    assert all(s.memory_used_bytes is None for s in samples)


def test_cli_once_json_has_a_host_per_device(healthy, monkeypatch, capsys, tmp_path):
    from planner import cli

    monkeypatch.setenv("PLANNER_TEST_TOKEN", TOKEN)
    rec = tmp_path / "fleet.sqlite"
    code = cli.run(["monitor", "--prometheus", healthy.url, "--token-env", "PLANNER_TEST_TOKEN",
                    "--once", "--json", "--record", str(rec)])
    out, err = capsys.readouterr()
    assert code == 0, err
    obj = json.loads(out)
    assert obj["source"] == "prometheus"
    assert [d["host"] for d in obj["devices"]] == ["node-a", "node-a", "node-b", "node-b"]
    assert obj["devices"][2]["memory_used_bytes"] == 70000 * MIB
    assert obj["devices"][0]["reason"] is None
    assert TOKEN not in out + err
    assert TOKEN.encode() not in rec.read_bytes()


def test_cli_lines_name_the_host(healthy, capsys):
    from planner import cli

    assert cli.run(["monitor", "--prometheus", healthy.url, "--once"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4 and "node-b  GPU3  NVIDIA A100-SXM4-80GB  mem in use" in lines[3]


# -- faults without a real server ---------------------------------------------------------

def test_unreachable_url_is_backend_unavailable_without_the_token():
    b = PrometheusBackend(f"http://127.0.0.1:{free_port()}", token=TOKEN, timeout_s=2)
    t0 = time.monotonic()
    with pytest.raises(BackendUnavailable) as exc:
        b.open()
    assert time.monotonic() - t0 < 2
    msg = str(exc.value)
    assert "connection refused" in msg and "127.0.0.1" in msg and "\n" not in msg
    assert TOKEN not in msg and TOKEN not in repr(exc.value) and TOKEN not in repr(b)


@pytest.fixture
def silent_server():
    """Accepts connections and never answers."""
    srv = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept():
        srv.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(srv.accept()[0])
            except OSError:
                continue
    t = threading.Thread(target=accept, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.getsockname()[1]}"
    stop.set()
    t.join(2)
    for c in held:
        c.close()
    srv.close()


def test_a_server_that_never_answers_times_out(silent_server):
    b = PrometheusBackend(silent_server, timeout_s=0.5)
    t0 = time.monotonic()
    with pytest.raises(BackendUnavailable) as exc:
        b.open()
    took = time.monotonic() - t0
    assert str(exc.value) == "Prometheus did not answer within 0.5 s"
    assert 0.4 < took < 1.5


def vector_from_fixtures(*names: str) -> list[dict]:
    """The /api/v1/query answer a Prometheus scraping these fixture files would give."""
    out = []
    for i, name in enumerate(names):
        inst = f"127.0.0.1:{9400 + i}"
        for metric, labels, v in fixture_series(name):
            out.append({"metric": {"__name__": metric, **labels, "instance": inst,
                                   "job": "dcgm"}, "value": [time.time(), repr(v)]})
        out.append({"metric": {"__name__": "up", "instance": inst, "job": "dcgm"},
                    "value": [time.time(), "1"]})
    return out


class ScriptedPrometheus:
    """/api/v1/query with a switchable mode: ok, hang, trickle, http500, error, unauthorized."""

    def __init__(self, tls_context=None) -> None:
        self.mode = "ok"
        self.result = vector_from_fixtures("node-a.prom", "node-b.prom")
        self.auth_seen: list[str | None] = []
        self.release = threading.Event()
        sp = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                sp.auth_seen.append(self.headers.get("Authorization"))
                mode = sp.mode
                if mode == "hang":
                    sp.release.wait(10)
                    return
                if mode == "trickle":  # headers, then a byte now and then: never finishes
                    self.send_response(200)
                    self.send_header("Content-Length", "100000")
                    self.end_headers()
                    for _ in range(50):
                        if sp.release.wait(0.1):
                            return
                        try:
                            self.wfile.write(b" ")
                            self.wfile.flush()
                        except OSError:
                            return
                    return
                if mode == "http500":
                    body = b"upstream exploded\n"
                    status = 500
                elif mode == "error":
                    body = json.dumps({"status": "error", "errorType": "execution",
                                       "error": "query processing would load too many "
                                                "samples into memory"}).encode()
                    status = 422
                elif mode == "unauthorized":  # a server that echoes what it was sent
                    body = f"bad credentials: {self.headers.get('Authorization')}".encode()
                    status = 401
                else:
                    body = json.dumps({"status": "success", "data": {
                        "resultType": "vector", "result": sp.result}}).encode()
                    status = 200
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        scheme = "http"
        if tls_context is not None:
            self.server.socket = tls_context.wrap_socket(self.server.socket, server_side=True)
            scheme = "https"
        self.url = f"{scheme}://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(2)


@pytest.fixture
def scripted():
    sp = ScriptedPrometheus()
    yield sp
    sp.close()


@pytest.mark.parametrize("mode, expected", [
    ("hang", "Prometheus did not answer within 0.5 s"),
    ("trickle", "Prometheus did not answer within 0.5 s"),
    ("http500", "Prometheus answered HTTP 500 Internal Server Error: upstream exploded"),
    ("error", "Prometheus answered with an error (execution): query processing would load "
              "too many samples into memory"),
])
def test_a_failing_tick_keeps_the_cards_with_the_reason(scripted, mode, expected):
    b = PrometheusBackend(scripted.url, token=TOKEN, timeout_s=0.5, min_interval_s=0)
    assert len(b.open()) == 4
    assert scripted.auth_seen[-1] == f"Bearer {TOKEN}"
    scripted.mode = mode
    t0 = time.monotonic()
    samples = b.sample()
    assert time.monotonic() - t0 < 1.5  # bounded by timeout_s, also against a trickle
    assert len(samples) == 4
    for s in samples:
        assert s.unavailable["*"] == expected and not s.lost and s.memory_used_bytes is None
    scripted.mode = "ok"
    assert b.sample()[0].memory_used_bytes == 40960 * MIB  # and it recovers


def test_the_token_never_leaks(scripted, caplog):
    caplog.set_level(logging.DEBUG)
    b = PrometheusBackend(scripted.url, token=TOKEN, min_interval_s=0)
    assert TOKEN not in repr(b) and TOKEN not in str(vars(b))
    scripted.mode = "unauthorized"  # the server echoes the header back
    with pytest.raises(BackendUnavailable) as exc:
        b.open()
    assert "401" in str(exc.value) and TOKEN not in str(exc.value)
    scripted.mode = "ok"
    b.open()
    scripted.mode = "unauthorized"
    reason = b.sample()[0].unavailable["*"]
    assert "refused the credentials" in reason and TOKEN not in reason
    scripted.mode = "http500"
    b.sample()
    assert TOKEN not in caplog.text
    # credentials in the URL are sent as Basic auth and never shown
    u = PrometheusBackend(scripted.url.replace("//", f"//me:{TOKEN}@"))
    assert TOKEN not in u.url and TOKEN not in repr(u)


def test_blank_values_and_new_gpus(scripted):
    b = PrometheusBackend(scripted.url, min_interval_s=0)
    b.open()
    for item in scripted.result:
        if item["metric"]["__name__"] == "DCGM_FI_DEV_GPU_TEMP":
            item["value"][1] = "9223372036854775794"  # DCGM's int64 blank
    extra = json.loads(json.dumps(scripted.result[0]))
    extra["metric"]["UUID"] = "GPU-new"
    scripted.result.append(extra)
    s = b.sample()[0]
    assert s.temperature_c is None and "reports no value" in s.unavailable["temperature_c"]
    assert b.devices_changed


def test_no_dcgm_series_is_backend_unavailable(scripted):
    scripted.result = [r for r in scripted.result if r["metric"]["__name__"] == "up"]
    with pytest.raises(BackendUnavailable, match="no dcgm-exporter series"):
        PrometheusBackend(scripted.url).open()


def test_tls_verify_ca_file_and_insecure(tmp_path):
    import ssl

    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed (needed to make a test certificate)")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    sp = ScriptedPrometheus(tls_context=ctx)
    try:
        with pytest.raises(BackendUnavailable, match="not trusted.*--ca-file"):
            PrometheusBackend(sp.url).open()
        assert len(PrometheusBackend(sp.url, verify=str(cert)).open()) == 4
        assert len(PrometheusBackend(sp.url, verify=False).open()) == 4
        with pytest.raises(BackendUnavailable, match="cannot use the CA file"):
            PrometheusBackend(sp.url, verify=str(tmp_path / "missing.pem")).open()
    finally:
        sp.close()


# -- the CLI's options --------------------------------------------------------------------

def run_cli(*argv: str) -> tuple[int, str, str]:
    import argparse

    import planner.cli_monitor as cm

    parser = argparse.ArgumentParser(prog="gpu-planner")
    cm.add_monitor_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["monitor", *argv])
    out, err = io.StringIO(), io.StringIO()
    return args.func(args, out=out, err=err), out.getvalue(), err.getvalue()


def test_cli_option_errors(tmp_path, monkeypatch):
    monkeypatch.delenv("PLANNER_NO_SUCH_VAR", raising=False)
    url = "http://127.0.0.1:1"
    cases = [
        (("--prometheus", url, "--token-file", str(tmp_path / "nope")), "cannot read the token"),
        (("--prometheus", url, "--token-env", "PLANNER_NO_SUCH_VAR"), "is not set or empty"),
        (("--insecure",), "go with --prometheus"),
        (("--demo", "--prometheus", url), "cannot be used together"),
        (("--prometheus", "ftp://x"), "not an http(s) URL"),
    ]
    for argv, text in cases:
        code, out, err = run_cli(*argv, "--once")
        assert code == 2 and text in err and out == "" and "Traceback" not in err, argv


def test_cli_unreachable_prometheus_is_one_line_exit_1(tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    code, out, err = run_cli("--prometheus", f"http://127.0.0.1:{free_port()}",
                             "--token-file", str(token_file), "--once", "--json")
    assert code == 1 and out == ""
    assert len(err.strip().splitlines()) == 1 and "connection refused" in err
    assert "try --demo" not in err and TOKEN not in err


def test_cli_loop_through_the_sampler(scripted):
    code, out, err = run_cli("--prometheus", scripted.url, "--json", "--interval", "0.2",
                             "--duration", "0.7")
    assert code == 0, err
    objs = [json.loads(line) for line in out.splitlines()]
    assert objs and all(len(o["devices"]) == 4 for o in objs)


def test_module_is_qt_free_and_core_free():
    code = ("import sys, planner.telemetry.prometheus\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', "
            "'pynvml') or m.startswith('planner.core')]\n"
            "assert not bad, bad\n")
    repo = Path(__file__).resolve().parents[3]
    proc = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 0, proc.stderr
