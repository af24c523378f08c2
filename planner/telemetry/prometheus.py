"""Telemetry of a cluster: a Prometheus server that scrapes NVIDIA's dcgm-exporter on each node.

The same interface as the NVML and simulated backends (``open() -> [DeviceInfo]``,
``sample() -> (GpuSample, ...)``, ``close()``), over Prometheus's HTTP API, with the standard
library only (http.client + ssl + json): no new dependency.

One round of telemetry is ONE instant query, ``/api/v1/query``, for the dcgm-exporter series
and ``up``::

    {__name__=~"up|DCGM_FI_DEV_FB_USED|DCGM_FI_DEV_FB_FREE|..."}

The answer is grouped by host (the ``Hostname`` label dcgm-exporter adds, else ``instance``)
and GPU (``UUID``, else ``gpu``; a MIG instance adds ``GPU_I_ID``). Cards are numbered
0…N-1 in (host, gpu) order, so ``index`` is unique across the fleet; ``DeviceInfo.host`` says
which machine a card is in. No ``time`` parameter is sent: Prometheus evaluates at its own
"now", so a skewed clock here cannot hide or invent data.

Mapping (dcgm-exporter metric, its unit → where it goes):

- DCGM_FI_DEV_FB_USED / _FREE / _RESERVED (MiB) → memory_used / _free / _reserved_bytes (× 2^20)
- DCGM_FI_DEV_FB_TOTAL (MiB), else used + free (+ reserved) → DeviceInfo.memory_total_bytes
- DCGM_FI_DEV_MEM_COPY_UTIL (%) → memory_busy_pct (memory controller busy, not memory in use)
- DCGM_FI_PROF_DRAM_ACTIVE (ratio 0–1) → dram_bw_util_pct (× 100; measured, DCP metrics)
- DCGM_FI_DEV_GPU_UTIL (%) → gpu_busy_pct;  DCGM_FI_DEV_POWER_USAGE (W) → power_draw_w;
  DCGM_FI_DEV_GPU_TEMP (°C) → temperature_c
- DCGM_FI_PROF_PCIE_RX_BYTES / _TX_BYTES (bytes/s, DCP gauges) → pcie_rx_bytes_s / pcie_tx_bytes_s
- DCGM_FI_DEV_SM_CLOCK / _MEM_CLOCK (MHz) → sm_clock_mhz / memory_clock_mhz
- DCGM_FI_DEV_POWER_MGMT_LIMIT (W) → DeviceInfo.power_limit_w
- DCGM_FI_PROF_NVLINK_RX_BYTES / _TX_BYTES (bytes/s) → ``backend.nvlink_bytes_s[index]``
  (GpuSample has no NVLink fields yet)
- labels: ``modelName`` → name, ``UUID`` → uuid, ``pci_bus_id``, ``DCGM_FI_DRIVER_VERSION``
  → driver_version ("several: …" when the hosts differ)

DCGM's "blank" sentinels (no value) become None with a reason. Fan, throttle reasons,
processes and the peak-bandwidth estimate are not available this way and say so.

Faults, each a plain sentence and none of them fatal to the rest of the app:

- open(): server unreachable, not answering in ``timeout_s``, an HTTP or Prometheus error,
  refused credentials, or no dcgm-exporter series at all → ``BackendUnavailable``.
- a tick whose query fails (timeout, HTTP error, ``"status": "error"``) → every card of the
  fleet with no values and ``unavailable["*"]`` = the reason (``lost`` stays False: the card
  is probably fine, the telemetry path is not).
- a metric missing for a GPU → that field None, reason "not exported by dcgm-exporter on host X".
- a node whose series stop (Prometheus writes staleness markers when a scrape fails, and
  ``up`` turns 0) → its cards ``lost`` with "no data from host X since HH:MM:SS"; the other
  nodes go on, and the cards come back when the node does. Series that stop without staleness
  markers (federation, explicit timestamps) vanish after Prometheus's lookback (5 min default).

Bounds: every request has a total deadline of ``timeout_s`` (socket timeouts plus a watchdog
that shuts the socket down, so a server trickling bytes cannot hold a tick longer), the query
carries ``timeout=`` so Prometheus abandons it too, answers over 32 MiB are refused, and at
most one round runs per ``min_interval_s``: a faster sample() returns the previous round's
samples. All calls happen in the sampling thread, never the GUI thread.

Credentials: a bearer token (or user:password in the URL, sent as Basic auth) goes only into
the Authorization header. It is kept in an object whose repr is ``<hidden>``, never appears in
``repr(backend)``, ``backend.url``, exceptions, reasons or log lines (reasons are scrubbed of
it in case a server echoes it), and never reaches a Frame, so never a recording.
"""

from __future__ import annotations

import base64
import datetime as _dt
import http.client
import logging
import math
import socket
import ssl
import threading
import time
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from planner.safeio import InputRefused, clean, loads_json
from planner.telemetry.types import BackendUnavailable, DeviceInfo, GpuSample, frozen_mapping

__all__ = ["METRICS", "PrometheusBackend", "HttpGet"]

log = logging.getLogger(__name__)

MIB = 2**20
MAX_ANSWER_BYTES = 32 * MIB

FB_USED = "DCGM_FI_DEV_FB_USED"
FB_FREE = "DCGM_FI_DEV_FB_FREE"
FB_RESERVED = "DCGM_FI_DEV_FB_RESERVED"
FB_TOTAL = "DCGM_FI_DEV_FB_TOTAL"
POWER_LIMIT = "DCGM_FI_DEV_POWER_MGMT_LIMIT"
NVLINK_RX = "DCGM_FI_PROF_NVLINK_RX_BYTES"
NVLINK_TX = "DCGM_FI_PROF_NVLINK_TX_BYTES"

# GpuSample field → (metric, scale, as int)
SAMPLE_FIELDS: dict[str, tuple[str, float, bool]] = {
    "memory_used_bytes": (FB_USED, MIB, True),
    "memory_free_bytes": (FB_FREE, MIB, True),
    "memory_reserved_bytes": (FB_RESERVED, MIB, True),
    "memory_busy_pct": ("DCGM_FI_DEV_MEM_COPY_UTIL", 1.0, False),
    "dram_bw_util_pct": ("DCGM_FI_PROF_DRAM_ACTIVE", 100.0, False),
    "gpu_busy_pct": ("DCGM_FI_DEV_GPU_UTIL", 1.0, False),
    "power_draw_w": ("DCGM_FI_DEV_POWER_USAGE", 1.0, False),
    "temperature_c": ("DCGM_FI_DEV_GPU_TEMP", 1.0, False),
    "pcie_rx_bytes_s": ("DCGM_FI_PROF_PCIE_RX_BYTES", 1.0, False),
    "pcie_tx_bytes_s": ("DCGM_FI_PROF_PCIE_TX_BYTES", 1.0, False),
    "sm_clock_mhz": ("DCGM_FI_DEV_SM_CLOCK", 1.0, True),
    "memory_clock_mhz": ("DCGM_FI_DEV_MEM_CLOCK", 1.0, True),
}

# What a real card can report, in the GpuSample's unit; a value outside is shown as N/A with
# its reason (not "20000000000000 %", and nothing that overflows a recording's columns).
PLAUSIBLE: dict[str, tuple[float, float]] = {
    "memory_used_bytes": (0, 2.0**50),  # 1 PiB
    "memory_free_bytes": (0, 2.0**50),
    "memory_reserved_bytes": (0, 2.0**50),
    "memory_busy_pct": (0, 100),
    "dram_bw_util_pct": (0, 100),
    "gpu_busy_pct": (0, 100),
    "power_draw_w": (0, 10_000),
    "temperature_c": (-100, 250),
    "pcie_rx_bytes_s": (0, 1e12),
    "pcie_tx_bytes_s": (0, 1e12),
    "sm_clock_mhz": (0, 100_000),
    "memory_clock_mhz": (0, 100_000),
}

METRICS: tuple[str, ...] = tuple(dict.fromkeys(
    [m for m, _, _ in SAMPLE_FIELDS.values()] + [FB_TOTAL, POWER_LIMIT, NVLINK_RX, NVLINK_TX]))

HOST_LABELS = ("Hostname", "hostname", "kubernetes_node", "node", "instance")

NOT_VIA_DCGM = {
    "fan_pct": "not exported by dcgm-exporter",
    "throttle_reasons": "not read through Prometheus",
    "processes": "per-process data is not available through dcgm-exporter",
    "bandwidth_gbs_estimate": "the card's peak bandwidth is unknown (dcgm-exporter does not "
                              "export the memory bus width and clock)",
}

# (url, headers, timeout_s) → (HTTP status, body). Raises TimeoutError / OSError on failure.
HttpGet = Callable[[str, Mapping[str, str], float], tuple[int, bytes]]


class _Secret:
    """A credential: usable through .value, never shown."""

    __slots__ = ("value",)

    def __init__(self, value: str) -> None:
        self.value = value

    def __repr__(self) -> str:
        return "<hidden>"

    __str__ = __repr__

    def __reduce__(self) -> tuple:
        raise TypeError("credentials are not pickled")


class _RoundFailed(Exception):
    """Internal: a round of queries failed; ``reason`` is the user-facing sentence."""

    def __init__(self, reason: str, *, auth: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.auth = auth


def _http_get(url: str, headers: Mapping[str, str], timeout_s: float,
              context: ssl.SSLContext | None = None) -> tuple[int, bytes]:
    """GET with a TOTAL deadline: socket timeouts, plus a watchdog that shuts the socket."""
    parts = urllib.parse.urlsplit(url)
    target = parts.path or "/"
    if parts.query:
        target += "?" + parts.query
    conn: http.client.HTTPConnection
    if parts.scheme == "https":
        conn = http.client.HTTPSConnection(parts.hostname, parts.port, timeout=timeout_s,
                                           context=context)
    else:
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout_s)
    expired = threading.Event()
    sockets: list[socket.socket] = []  # conn.sock goes None when the response takes it over

    def abort() -> None:
        expired.set()
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    timer = threading.Timer(timeout_s, abort)
    timer.daemon = True
    timer.start()
    try:
        conn.connect()
        if conn.sock is not None:
            sockets.append(conn.sock)
        if expired.is_set():
            raise TimeoutError
        conn.request("GET", target, headers=dict(headers))
        resp = conn.getresponse()
        body = resp.read(MAX_ANSWER_BYTES + 1)
        if expired.is_set():
            raise TimeoutError
        if len(body) > MAX_ANSWER_BYTES:
            raise _RoundFailed(f"Prometheus answered with more than {MAX_ANSWER_BYTES // MIB} "
                               "MiB; narrow the selection to fewer hosts with label matchers "
                               "(on the command line: --match 'Hostname=~\"node-1.*\"')")
        return resp.status, body
    except (OSError, http.client.HTTPException):
        if expired.is_set():
            raise TimeoutError from None
        raise
    finally:
        timer.cancel()
        conn.close()


def _is_blank(v: float) -> bool:
    """DCGM's "no value" sentinels (int32/int64 blanks, the fp64 blank 2^47) and NaN/Inf."""
    if not math.isfinite(v):
        return True
    return 0x7FFFFFF0 <= v <= 0x7FFFFFFF or v >= 0x7FFFFFFFFFFFFFF0 or v == 140737488355328.0


def _clock_text(wall_s: float) -> str:
    return _dt.datetime.fromtimestamp(wall_s).strftime("%H:%M:%S")


def _gpu_sort_key(key: tuple[str, str, str], gpu_label: str) -> tuple:
    host, gid, mig = key
    n = int(gpu_label) if gpu_label.isdigit() else 1 << 30
    return (host, n, gid, mig)


@dataclass
class _Series:
    """What one round says about one GPU."""

    values: dict[str, float] = field(default_factory=dict)  # metric → value (blank → NaN)
    labels: dict[str, str] = field(default_factory=dict)  # of the first series seen


@dataclass
class _Round:
    gpus: dict[tuple[str, str, str], _Series]
    up: dict[str, float]  # instance → up value


@dataclass
class _Card:
    key: tuple[str, str, str]
    info: DeviceInfo
    instance: str | None
    last_seen_wall_s: float


class PrometheusBackend:
    """GPU telemetry of a cluster from Prometheus (dcgm-exporter series)."""

    source = "prometheus"

    def __init__(self, url: str, *, token: str | None = None, verify: bool | str = True,
                 timeout_s: float = 2.0, min_interval_s: float = 1.0,
                 http: HttpGet | None = None, selector: str | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 wall_clock: Callable[[], float] = time.time) -> None:
        """``verify``: True (system CAs), False (no verification: --insecure) or a CA file.
        ``selector``: extra label matchers for the dcgm series, e.g. ``job="dcgm"``.
        ``http``: inject the transport (tests); by default http.client with a deadline."""
        if not timeout_s > 0:
            raise ValueError("timeout_s must be more than 0")
        parts = urllib.parse.urlsplit(url.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {_strip_userinfo(url)!r}")
        secrets: list[str] = []
        auth: str | None = None
        if token:
            auth = f"Bearer {token}"
            secrets.append(token)
        elif parts.username is not None:  # user:password@ in the URL → Basic auth
            user = urllib.parse.unquote(parts.username)
            password = urllib.parse.unquote(parts.password or "")
            auth = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
            secrets += [p for p in (password, parts.password) if p]
        if auth:
            secrets.append(auth.split(" ", 1)[1])
        self._auth = _Secret(auth) if auth else None
        self._secrets = _Secret("\n".join(secrets)) if secrets else None
        netloc = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
        if parts.port:
            netloc += f":{parts.port}"
        self.url = urllib.parse.urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))
        self.verify = verify
        self.timeout_s = float(timeout_s)
        self.min_interval_s = max(0.0, float(min_interval_s))
        self.selector = selector
        self._http = http
        self._clock = clock
        self._wall = wall_clock
        self._context: ssl.SSLContext | None = None
        self._cards: list[_Card] = []
        self._last_round_at: float | None = None
        self._last_samples: tuple[GpuSample, ...] | None = None
        self._last_failure: str | None = None
        self.driver_version: str | None = None
        self.cuda_version: str | None = None
        self.rounds = 0  # queries sent (for tests and the pane's status line)
        self.devices_changed = False  # GPUs appeared that open() did not list: reopen to see them
        self.nvlink_bytes_s: dict[int, tuple[float | None, float | None]] = {}  # index → (rx, tx)

    def __repr__(self) -> str:
        return (f"PrometheusBackend(url={self.url!r}, auth={'<hidden>' if self._auth else None}, "
                f"verify={self.verify!r}, timeout_s={self.timeout_s:g})")

    # -- the query ------------------------------------------------------------------------

    def _scrub(self, text: str) -> str:
        if self._secrets is not None:
            for s in self._secrets.value.split("\n"):
                if s:
                    text = text.replace(s, "<hidden>")
        return text

    def _label(self, value: Any) -> str:
        """A label value as shown and recorded: secrets scrubbed, control characters escaped,
        at most 200 characters."""
        return clean(self._scrub(str(value)), max_len=200)

    @property
    def query(self) -> str:
        names = "|".join(("up",) + METRICS)
        extra = f", {self.selector}" if self.selector else ""
        return f'{{__name__=~"{names}"{extra}}}'

    def _ssl_context(self) -> ssl.SSLContext | None:
        if not self.url.startswith("https:"):
            return None
        if self._context is None:
            if self.verify is False:
                ctx = ssl.create_default_context()
                ctx.check_hostname = False
                ctx.verify_mode = ssl.CERT_NONE
            elif isinstance(self.verify, str):
                try:
                    ctx = ssl.create_default_context(cafile=self.verify)
                except (OSError, ssl.SSLError) as exc:
                    raise _RoundFailed(f"cannot use the CA file {self.verify}: "
                                       f"{getattr(exc, 'strerror', None) or exc}") from None
            else:
                ctx = ssl.create_default_context()
            self._context = ctx
        return self._context

    def _get(self, query: str) -> Any:
        params = urllib.parse.urlencode({"query": query, "timeout": f"{self.timeout_s:g}s"})
        url = f"{self.url}/api/v1/query?{params}"
        headers = {"Accept": "application/json", "User-Agent": "gpu-planner"}
        if self._auth is not None:
            headers["Authorization"] = self._auth.value
        context = self._ssl_context()
        self.rounds += 1
        try:
            if self._http is not None:
                status, body = self._http(url, headers, self.timeout_s)
            else:
                status, body = _http_get(url, headers, self.timeout_s, context)
        except _RoundFailed:
            raise
        except TimeoutError:
            raise _RoundFailed(f"Prometheus did not answer within {self.timeout_s:g} s") from None
        except ssl.SSLCertVerificationError as exc:
            raise _RoundFailed(
                f"the TLS certificate of {self.url} is not trusted "
                f"({exc.verify_message or exc.reason}); give its CA with --ca-file, "
                "or --insecure to skip the check") from None
        except ConnectionRefusedError:
            raise _RoundFailed(f"cannot connect to Prometheus at {self.url}: "
                               "connection refused") from None
        except socket.gaierror as exc:
            raise _RoundFailed(f"cannot find the host of {self.url}: {exc.strerror}") from None
        except (OSError, http.client.HTTPException) as exc:
            what = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
            raise _RoundFailed(self._scrub(
                f"cannot talk to Prometheus at {self.url}: {what}")) from None
        return self._decode(status, body)

    def _decode(self, status: int, body: bytes) -> Any:
        try:
            doc = loads_json(body.decode("utf-8", "replace"), max_depth=16)
        except InputRefused as exc:
            raise _RoundFailed(f"Prometheus answered with a body this app does not read ({exc})"
                               ) from None
        except ValueError:
            doc = None
        if isinstance(doc, dict) and doc.get("status") == "error":
            kind = doc.get("errorType") or f"HTTP {status}"
            raise _RoundFailed(clean(self._scrub(
                f"Prometheus answered with an error ({kind}): {doc.get('error', '?')}"),
                max_len=400), auth=status in (401, 403))
        if status in (401, 403):
            raise _RoundFailed(f"Prometheus at {self.url} refused the credentials "
                               f"(HTTP {status}); check the token", auth=True)
        if status != 200:
            phrase = http.client.responses.get(status, "")
            snippet = " ".join(body.decode("utf-8", "replace").split())[:200]
            raise _RoundFailed(clean(self._scrub(
                f"Prometheus answered HTTP {status} {phrase}".rstrip()
                + (f": {snippet}" if snippet else "")), max_len=400))
        if not isinstance(doc, dict) or doc.get("status") != "success":
            raise _RoundFailed(f"{self.url} did not answer like a Prometheus server "
                               "(no JSON with \"status\": \"success\")")
        data = doc.get("data") or {}
        if not isinstance(data, dict):
            raise _RoundFailed("Prometheus answered with an unexpected result "
                               f"('data' is a {type(data).__name__}, expected an object)")
        if data.get("resultType") != "vector" or not isinstance(data.get("result"), list):
            raise _RoundFailed("Prometheus answered with an unexpected result type "
                               f"({clean(repr(data.get('resultType')), max_len=60)}, "
                               "expected a vector)")
        return data["result"]

    def _round(self) -> _Round:
        gpus: dict[tuple[str, str, str], _Series] = {}
        up: dict[str, float] = {}
        for item in self._get(self.query):
            try:
                labels = {str(k): self._label(v) for k, v in item["metric"].items()}
                value = float(item["value"][1])
            except (KeyError, IndexError, TypeError, ValueError, AttributeError):
                continue
            name = labels.pop("__name__", "")
            if name == "up":
                if "instance" in labels:
                    up[labels["instance"]] = value
                continue
            host = next((labels[k] for k in HOST_LABELS if labels.get(k)), "?")
            gid = labels.get("UUID") or labels.get("uuid") or f"gpu{labels.get('gpu', '?')}"
            key = (host, gid, labels.get("GPU_I_ID", ""))
            s = gpus.setdefault(key, _Series(labels=labels))
            s.values.setdefault(name, math.nan if _is_blank(value) else value)
        return _Round(gpus, up)

    # -- open / close ---------------------------------------------------------------------

    def open(self) -> list[DeviceInfo]:
        self._cards = []
        self._last_round_at = self._last_samples = None
        try:
            rnd = self._round()
        except _RoundFailed as exc:
            raise BackendUnavailable(exc.reason, "prometheus") from None
        if not rnd.gpus:
            raise BackendUnavailable(
                f"Prometheus at {self.url} has no dcgm-exporter series "
                f"({FB_USED} and the others); is dcgm-exporter running and scraped?",
                "prometheus: empty result")
        now = self._wall()
        order = sorted(rnd.gpus, key=lambda k: _gpu_sort_key(k, rnd.gpus[k].labels.get("gpu", "")))
        drivers = set()
        for i, key in enumerate(order):
            s = rnd.gpus[key]
            self._cards.append(_Card(key, self._device(i, key, s), s.labels.get("instance"), now))
            if s.labels.get("DCGM_FI_DRIVER_VERSION"):
                drivers.add(s.labels["DCGM_FI_DRIVER_VERSION"])
        self.driver_version = (None if not drivers else next(iter(drivers)) if len(drivers) == 1
                               else "several: " + ", ".join(sorted(drivers)))
        self.cuda_version = None
        self._last_round_at = self._clock()
        self._last_samples = self._samples(rnd)
        return [c.info for c in self._cards]

    def _device(self, index: int, key: tuple[str, str, str], s: _Series) -> DeviceInfo:
        host, gid, mig = key
        lab = s.labels
        un: dict[str, str] = {}
        name = lab.get("modelName") or f"GPU {lab.get('gpu', '?')}"
        if mig:
            name += f" MIG {lab.get('GPU_I_PROFILE') or mig}"
        v = s.values
        total = None
        mib = (0, 2.0**30)  # up to 1 PiB
        if _ok(v.get(FB_TOTAL), *mib):
            total = int(v[FB_TOTAL] * MIB)
        elif _ok(v.get(FB_USED), *mib) and _ok(v.get(FB_FREE), *mib):
            reserved = v[FB_RESERVED] if _ok(v.get(FB_RESERVED), *mib) else 0.0
            total = int((v[FB_USED] + v[FB_FREE] + reserved) * MIB)
        else:
            un["memory_total_bytes"] = f"not exported by dcgm-exporter on host {host}"
        limit = v.get(POWER_LIMIT) if _ok(v.get(POWER_LIMIT), 0, 10_000) else None
        if limit is None:
            un["power_limit_w"] = f"not exported by dcgm-exporter on host {host}"
        for k in ("memory_bus_width_bits", "max_memory_clock_mhz", "peak_bandwidth_gbs",
                  "compute_capability"):
            un[k] = "not exported by dcgm-exporter"
        return DeviceInfo(
            index=index, name=name, uuid=lab.get("UUID") or lab.get("uuid") or f"{host}/{gid}",
            pci_bus_id=lab.get("pci_bus_id"), memory_total_bytes=total, power_limit_w=limit,
            mig_mode=True if mig else None, simulated=False, unavailable=frozen_mapping(un),
            host=host)

    def close(self) -> None:
        self._last_samples = None

    @property
    def devices(self) -> list[DeviceInfo]:
        return [c.info for c in self._cards]

    # -- sampling -------------------------------------------------------------------------

    def sample(self) -> tuple[GpuSample, ...]:
        now = self._clock()
        if (self._last_samples is not None and self._last_round_at is not None
                and now - self._last_round_at < self.min_interval_s):
            return self._last_samples  # bounded in rate: the previous round's answer
        self._last_round_at = now
        try:
            rnd = self._round()
        except _RoundFailed as exc:
            if exc.reason != self._last_failure:
                log.warning("telemetry from Prometheus: %s", exc.reason)
            self._last_failure = exc.reason
            self._last_samples = tuple(
                GpuSample(index=c.info.index, uuid=c.info.uuid,
                          unavailable=frozen_mapping({"*": exc.reason})) for c in self._cards)
            return self._last_samples
        if self._last_failure is not None:
            log.info("telemetry from Prometheus: answering again")
        self._last_failure = None
        self._last_samples = self._samples(rnd)
        return self._last_samples

    def _samples(self, rnd: _Round) -> tuple[GpuSample, ...]:
        wall = self._wall()
        known = {c.key for c in self._cards}
        if not self.devices_changed and any(k not in known for k in rnd.gpus):
            self.devices_changed = True
            log.info("telemetry from Prometheus: GPUs appeared that were not there at start")
        out = []
        for c in self._cards:
            s = rnd.gpus.get(c.key)
            host = c.info.host
            down = c.instance is not None and rnd.up.get(c.instance) == 0
            if s is None or down:
                reason = f"no data from host {host} since {_clock_text(c.last_seen_wall_s)}"
                if down:
                    reason += " (Prometheus cannot scrape its dcgm-exporter)"
                self.nvlink_bytes_s.pop(c.info.index, None)
                out.append(GpuSample(index=c.info.index, uuid=c.info.uuid, lost=True,
                                     unavailable=frozen_mapping({"*": reason})))
                continue
            c.last_seen_wall_s = wall
            out.append(self._card_sample(c, s))
        return tuple(out)

    def _card_sample(self, c: _Card, s: _Series) -> GpuSample:
        host = c.info.host
        un: dict[str, str] = dict(NOT_VIA_DCGM)
        kw: dict[str, Any] = {}
        for fname, (metric, scale, as_int) in SAMPLE_FIELDS.items():
            v = s.values.get(metric)
            if v is None:
                un[fname] = f"not exported by dcgm-exporter on host {host}"
                kw[fname] = None
            elif math.isnan(v):
                un[fname] = f"dcgm-exporter on host {host} reports no value"
                kw[fname] = None
            elif not PLAUSIBLE[fname][0] <= v * scale <= PLAUSIBLE[fname][1]:
                un[fname] = (f"dcgm-exporter on host {host} reports an impossible value "
                             f"({v:.6g})")
                kw[fname] = None
            else:
                kw[fname] = int(round(v * scale)) if as_int else v * scale
        rx, tx = s.values.get(NVLINK_RX), s.values.get(NVLINK_TX)
        self.nvlink_bytes_s[c.info.index] = (rx if _ok(rx, 0, 1e13) else None,
                                             tx if _ok(tx, 0, 1e13) else None)
        return GpuSample(index=c.info.index, uuid=c.info.uuid, **kw, lost=False,
                         unavailable=frozen_mapping(un))


def _ok(v: float | None, lo: float = -math.inf, hi: float = math.inf) -> bool:
    return v is not None and not math.isnan(v) and lo <= v <= hi


def _strip_userinfo(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    if parts.username is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)[1]
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, "", ""))
