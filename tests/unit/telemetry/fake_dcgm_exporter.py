"""A tiny stand-in for dcgm-exporter: serves a fixture file as /metrics on 127.0.0.1.

    node = FakeDcgmExporter(FIXTURES / "node-a.prom")   # a free port on 127.0.0.1
    node.address          # "127.0.0.1:PORT", for a Prometheus scrape config
    node.answering = False   # the node stops answering: requests hang (scrapes time out)
    node.answering = True    # and answers again
    node.close()             # always (a fixture's teardown): releases hung requests too

Run by hand (``python fake_dcgm_exporter.py node-a.prom``) it serves until Ctrl-C.
"""

from __future__ import annotations

import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

FIXTURES = Path(__file__).parent / "dcgm_fixtures"
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"  # Prometheus text exposition format
HANG_LIMIT_S = 30.0  # a hung request gives up by itself after this (close() releases it first)


class FakeDcgmExporter:
    def __init__(self, fixture: Path | str, host: str = "127.0.0.1", port: int = 0) -> None:
        self.fixture = Path(fixture)
        self.body = self.fixture.read_bytes()
        self.requests = 0
        self._answering = threading.Event()
        self._answering.set()
        self._closed = threading.Event()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                fake.requests += 1
                if not fake._answering.is_set():
                    # accept, read the request, never answer (until released)
                    fake._closed.wait(HANG_LIMIT_S)
                    return
                if self.path.split("?")[0] != "/metrics":
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", CONTENT_TYPE)
                self.send_header("Content-Length", str(len(fake.body)))
                self.end_headers()
                self.wfile.write(fake.body)

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                pass

        self._server = ThreadingHTTPServer((host, port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True,
                                        name=f"fake-dcgm-exporter-{self.port}")
        self._thread.start()

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def address(self) -> str:
        return f"{self._server.server_address[0]}:{self.port}"

    @property
    def answering(self) -> bool:
        return self._answering.is_set()

    @answering.setter
    def answering(self, value: bool) -> None:
        if value:
            self._answering.set()
        else:
            self._answering.clear()

    def close(self) -> None:
        self._closed.set()  # release hung requests
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=2.0)

    def __enter__(self) -> FakeDcgmExporter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


if __name__ == "__main__":  # pragma: no cover - a manual aid
    fixture = FIXTURES / (sys.argv[1] if len(sys.argv) > 1 else "node-a.prom")
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 9400
    with FakeDcgmExporter(fixture, port=port) as node:
        print(f"serving {fixture.name} on http://{node.address}/metrics (Ctrl-C to stop)")
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
