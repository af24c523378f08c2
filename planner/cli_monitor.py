"""``gpu-planner monitor``: live GPU telemetry on the command line (Qt-free).

    gpu-planner monitor [--demo] [--once] [--json] [--interval S] [--duration S] [--record FILE]
    gpu-planner monitor --prometheus URL [--token-file PATH | --token-env NAME]
                        [--insecure | --ca-file PATH] [...the options above]

``--once --json`` prints one object::

    {"source": "nvml" | "simulated", "devices": [{"index", "name", "uuid",
     "memory_total_bytes", "memory_used_bytes", "memory_busy_pct", "bandwidth_gbs_estimate",
     "peak_bandwidth_gbs", "gpu_busy_pct", "power_w", "temperature_c",
     "processes": [{"pid", "name", "user", "memory_used_bytes"}]}]}

(plus "timestamp_s", "driver_version", "cuda_version" and per device "lost"). Without
``--once`` it prints a line per card per tick (``--json``: one object per tick) until
``--duration`` seconds have passed or Ctrl-C (exit 0). Without a driver: exit status 1 and one
line on stderr, no traceback. ``memory_busy_pct`` is the memory controller's busy time, not
memory in use; ``bandwidth_gbs_estimate`` is busy % × the card's peak, an estimate.

``--prometheus URL`` watches a cluster instead: the dcgm-exporter series a Prometheus server
scrapes, with the same JSON (``"source": "prometheus"``); every device then has a ``host``
(null for this computer's own cards) and a ``reason`` when the whole card has no data (lost,
or the server did not answer). A bearer token is read from a file (``--token-file``) or an
environment variable (``--token-env``), never from the command line, where it would show in
the shell history and the process list.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import queue
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from planner.safeio import (
    MAX_CA_BYTES,
    MAX_TOKEN_BYTES,
    InputRefused,
    clean,
    is_clean,
    read_bytes,
    read_text,
)
from planner.telemetry.sampler import MAX_INTERVAL_S, MIN_INTERVAL_S, Sampler
from planner.telemetry.types import BackendUnavailable, DeviceInfo, Frame, TelemetryBackend
from planner.units import format_bytes

EXIT_OK = 0
EXIT_NO_BACKEND = 1
EXIT_RECORDING_FAILED = 3  # monitoring went on, but the recording stopped (disk full, I/O)
DEMO_DEVICES = 3
DEMO_OFFSET_S = 60.0  # start the simulated job mid-run, so --demo --once shows a busy card

BackendFactory = Callable[[bool], TelemetryBackend]


def make_backend(demo: bool) -> TelemetryBackend:
    """The real source, or the simulated one with --demo. Tests replace this."""
    if demo:
        from planner.telemetry.simulated import SimulatedBackend

        return SimulatedBackend(n_devices=DEMO_DEVICES, seed=0, time_offset_s=DEMO_OFFSET_S)
    from planner.telemetry.nvml import NvmlBackend

    return NvmlBackend()


MAX_DURATION_S = 366 * 86400.0


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not a number of seconds: {clean(text, max_len=40)!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(
            f"not a finite number of seconds: {clean(text, max_len=40)!r}")
    return value


def _interval(text: str) -> float:
    value = _seconds(text)
    if not MIN_INTERVAL_S <= value <= MAX_INTERVAL_S:
        raise argparse.ArgumentTypeError(
            f"the interval must be between {MIN_INTERVAL_S:g} and {MAX_INTERVAL_S:g} s, "
            f"got {value:g}")
    return value


def _duration(text: str) -> float:
    value = _seconds(text)
    if not 0 < value <= MAX_DURATION_S:
        raise argparse.ArgumentTypeError(
            f"the duration must be more than 0 s and at most {MAX_DURATION_S:.0f} s, got {text}")
    return value


def make_prometheus_backend(url: str, *, token: str | None = None, insecure: bool = False,
                            ca_file: str | None = None, selector: str | None = None
                            ) -> TelemetryBackend:
    """The cluster source (Prometheus scraping dcgm-exporter)."""
    from planner.telemetry.prometheus import PrometheusBackend

    verify: bool | str = False if insecure else (ca_file or True)
    return PrometheusBackend(url, token=token, verify=verify, selector=selector)


class _OptionError(Exception):
    """A bad option found after parsing (exit 2, one line)."""


def _check_ca_file(path: str) -> None:
    """The CA file must be a readable PEM bundle: checked before the first request, so a
    wrong file is a usage error (exit 2), not a server that cannot be reached."""
    import ssl  # noqa: PLC0415

    shown = clean(path, max_len=200)
    try:
        data = read_bytes(path, limit=MAX_CA_BYTES)
        if not data.strip():
            raise _OptionError(f"the CA file {shown} is empty")
        ssl.create_default_context(cadata=data.decode("ascii"))
    except InputRefused as exc:
        raise _OptionError(f"cannot use the CA file: {exc}") from None
    except OSError as exc:  # ssl.SSLError is an OSError
        why = getattr(exc, "strerror", None) or getattr(exc, "reason", None) or str(exc)
        raise _OptionError(f"cannot use the CA file {shown}: {clean(why, max_len=200)}"
                           ) from None
    except (UnicodeDecodeError, ValueError):
        raise _OptionError(f"the CA file {shown} is not a PEM certificate bundle") from None


def _nonempty(what: str):
    def parse(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"the {what} is empty")
        return text

    parse.__name__ = what
    return parse


def _selector(text: str) -> str:
    """Extra Prometheus label matchers, e.g. ``Hostname=~"node-1.*"``: no braces or control
    characters (they would change the query, not narrow it)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("the selector is empty")
    if any(c in text for c in "{}") or not is_clean(text) or len(text) > 1000:
        raise argparse.ArgumentTypeError(
            "give label matchers only, e.g. Hostname=~\"node-1.*\" (no braces)")
    return text


def _read_token(args: argparse.Namespace) -> str | None:
    """The bearer token from --token-file or --token-env; the message never holds the token."""
    path = getattr(args, "token_file", None)
    env = getattr(args, "token_env", None)
    if path:
        shown = clean(path, max_len=200)
        try:
            token = read_text(path, limit=MAX_TOKEN_BYTES).strip()
        except InputRefused as exc:
            raise _OptionError(f"cannot use the token file: {exc}") from None
        except OSError as exc:
            why = getattr(exc, "strerror", None) or type(exc).__name__
            raise _OptionError(f"cannot read the token file {shown}: {why}") from None
        if not token:
            raise _OptionError(f"the token file {shown} is empty")
        if not is_clean(token) or any(c.isspace() for c in token):
            raise _OptionError(f"the token file {shown} holds more than one token (spaces, "
                               "line breaks or control characters)")
        return token
    if env:
        token = os.environ.get(env, "").strip()
        if not token:
            raise _OptionError(f"the environment variable {env} is not set or empty")
        return token
    return None


def add_monitor_parser(subparsers: Any) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "monitor", help="live memory, bandwidth and utilisation of the NVIDIA cards",
        description="Live telemetry of the NVIDIA cards in this computer (NVML). Memory in use "
                    "and memory-controller busy % are different things; GB/s figures derived "
                    "from busy % are estimates.")
    p.add_argument("--demo", action="store_true",
                   help="a simulated source (several cards); no GPU needed")
    p.add_argument("--once", action="store_true", help="print one sample and exit")
    p.add_argument("--json", action="store_true",
                   help="JSON: one object (--once) or one object per tick")
    p.add_argument("--interval", type=_interval, default=1.0, metavar="S",
                   help=f"seconds between samples, {MIN_INTERVAL_S:g}–{MAX_INTERVAL_S:g} "
                        "(default 1)")
    p.add_argument("--duration", type=_duration, default=None, metavar="S",
                   help="stop after S seconds (default: until Ctrl-C)")
    p.add_argument("--record", metavar="FILE", default=None, type=_nonempty("recording file"),
                   help="also record to this SQLite file")
    cluster = p.add_argument_group(
        "cluster", "watch the GPUs of a cluster through a Prometheus server that scrapes "
                   "NVIDIA's dcgm-exporter on each node")
    cluster.add_argument("--prometheus", metavar="URL", default=None, type=_nonempty("URL"),
                         help="the Prometheus server, e.g. http://prometheus:9090")
    cluster.add_argument("--match", metavar="MATCHERS", default=None, type=_selector,
                         help='only these series, as Prometheus label matchers, e.g. '
                              'Hostname=~"node-1.*" (narrows a fleet too big for one answer)')
    token = cluster.add_mutually_exclusive_group()
    token.add_argument("--token-file", metavar="PATH", default=None, type=_nonempty("token file"),
                       help="read a bearer token from this file")
    token.add_argument("--token-env", metavar="NAME", default=None,
                       type=_nonempty("variable name"),
                       help="read a bearer token from this environment variable")
    tls = cluster.add_mutually_exclusive_group()
    tls.add_argument("--ca-file", metavar="PATH", default=None, type=_nonempty("CA file"),
                     help="trust the server's TLS certificate through this CA file (PEM)")
    tls.add_argument("--insecure", action="store_true",
                     help="do not verify the server's TLS certificate")
    p.set_defaults(func=run_monitor)
    return p


# -- output -------------------------------------------------------------------------------------

def _say(text: str, stream: TextIO) -> None:
    try:
        print(text, file=stream, flush=True)
    except UnicodeEncodeError:
        enc = getattr(stream, "encoding", None) or "ascii"
        print(text.encode(enc, "replace").decode(enc), file=stream, flush=True)


def frame_to_json(frame: Frame) -> dict[str, Any]:
    devices = {d.index: d for d in frame.devices}
    out = []
    for s in frame.samples:
        d = devices.get(s.index) or DeviceInfo(s.index, f"GPU {s.index}", s.uuid)
        out.append({
            "index": s.index,
            "name": d.name,
            "uuid": d.uuid,
            "host": d.host,
            "memory_total_bytes": d.memory_total_bytes,
            "memory_used_bytes": s.memory_used_bytes,
            "memory_busy_pct": s.memory_busy_pct,
            "bandwidth_gbs_estimate": s.bandwidth_gbs_estimate,
            "peak_bandwidth_gbs": d.peak_bandwidth_gbs,
            "gpu_busy_pct": s.gpu_busy_pct,
            "power_w": s.power_draw_w,
            "temperature_c": s.temperature_c,
            "lost": s.lost,
            "reason": s.unavailable.get("*"),
            "processes": [
                {"pid": p.pid, "name": p.name, "user": p.user,
                 "memory_used_bytes": p.memory_used_bytes}
                for p in (s.processes or ())
            ],
        })
    return {"source": frame.source, "timestamp_s": frame.timestamp_s,
            "driver_version": frame.driver_version, "cuda_version": frame.cuda_version,
            "devices": out}


def _num(v: float | None, fmt: str, unit: str = "") -> str:
    return "N/A" if v is None else f"{v:{fmt}}{unit}"


def frame_lines(frame: Frame) -> list[str]:
    """One readable line per card."""
    clock = _dt.datetime.fromtimestamp(frame.timestamp_s).strftime("%H:%M:%S")
    devices = {d.index: d for d in frame.devices}
    lines = []
    for s in frame.samples:
        d = devices.get(s.index)
        name = d.name if d else f"GPU {s.index}"
        where = f"{d.host}  " if d is not None and d.host else ""
        reason = s.unavailable.get("*")
        if s.lost:
            lines.append(f"{clock}  {where}GPU{s.index}  {name}  LOST "
                         f"({reason or 'the card stopped answering'})")
            continue
        if reason:
            lines.append(f"{clock}  {where}GPU{s.index}  {name}  N/A ({reason})")
            continue
        total = format_bytes(d.memory_total_bytes) if d else "N/A"
        bw = ("N/A" if s.bandwidth_gbs_estimate is None
              else f"~{s.bandwidth_gbs_estimate:.0f} GB/s est.")
        procs = "" if s.processes is None else f"  procs {len(s.processes)}"
        lines.append(
            f"{clock}  {where}GPU{s.index}  {name}  mem in use {format_bytes(s.memory_used_bytes)}"
            f" / {total}  mem-ctrl busy {_num(s.memory_busy_pct, '.0f', '%')} ({bw})"
            f"  gpu busy {_num(s.gpu_busy_pct, '.0f', '%')}"
            f"  {_num(s.power_draw_w, '.0f', ' W')}  {_num(s.temperature_c, '.0f', ' C')}"
            f"{procs}")
    return lines


def _emit(frame: Frame, as_json: bool, out: TextIO) -> None:
    if as_json:
        _say(json.dumps(frame_to_json(frame)), out)
    else:
        for line in frame_lines(frame):
            _say(clean(line), out)  # names and reasons from a driver or a server



def _no_backend(exc: BackendUnavailable, err: TextIO, hint: bool = True) -> int:
    _say(f"{exc}; try --demo" if hint else str(exc), err)
    return EXIT_NO_BACKEND


# -- the command --------------------------------------------------------------------------------

def run_monitor(args: argparse.Namespace, *, backend_factory: BackendFactory | None = None,
                out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    url = getattr(args, "prometheus", None)
    factory = backend_factory or make_backend
    try:
        if not url and (getattr(args, "token_file", None) or getattr(args, "token_env", None)
                        or getattr(args, "ca_file", None) or getattr(args, "insecure", False)
                        or getattr(args, "match", None)):
            raise _OptionError("--token-file, --token-env, --ca-file, --insecure and --match go "
                               "with --prometheus URL")
        if url and args.demo:
            raise _OptionError("--demo and --prometheus cannot be used together")
        if url and backend_factory is None:
            token = _read_token(args)
            make_prometheus_backend(url, token=token)  # check the URL now, not in the thread
            ca_file, insecure = getattr(args, "ca_file", None), getattr(args, "insecure", False)
            selector = getattr(args, "match", None)
            if ca_file:
                _check_ca_file(ca_file)

            def factory(demo: bool) -> TelemetryBackend:
                return make_prometheus_backend(url, token=token, insecure=insecure,
                                               ca_file=ca_file, selector=selector)
    except (_OptionError, ValueError) as exc:
        _say(f"gpu-planner monitor: {exc}", err)
        return 2
    hint = not url  # "try --demo" suits this computer's cards, not a cluster
    recorder = None
    if args.record:
        from planner.telemetry.recorder import Recorder, RecordingError

        try:
            recorder = Recorder(args.record)
        except (RecordingError, OSError) as exc:
            _say(f"gpu-planner monitor: cannot record: {clean(exc)}", err)
            return 2
        recorder.on_error = lambda text: _say(
            f"gpu-planner monitor: {text}; monitoring goes on without recording", err)
    try:
        if args.once:
            status = _once(args, factory, recorder, out, err, hint)
        else:
            status = _loop(args, factory, recorder, out, err, hint)
    finally:
        if recorder is not None:
            recorder.close()
    if recorder is not None and recorder.error is not None:
        # told once when it happened; the summary says what was lost, and the status is not 0
        _say(f"gpu-planner monitor: {recorder.lost_text()}", err)
        return EXIT_RECORDING_FAILED
    return status


def _once(args: argparse.Namespace, factory: BackendFactory, recorder: Any, out: TextIO,
          err: TextIO, hint: bool = True) -> int:
    backend = factory(args.demo)
    try:
        devices = tuple(backend.open())
    except BackendUnavailable as exc:
        return _no_backend(exc, err, hint)
    try:
        samples = tuple(backend.sample())
    finally:
        backend.close()
    frame = Frame(time.time(), time.monotonic(), backend.source, backend.driver_version,
                  backend.cuda_version, devices, samples)
    if recorder is not None:
        recorder.write(frame)
    _emit(frame, args.json, out)
    return EXIT_OK


def _loop(args: argparse.Namespace, factory: BackendFactory, recorder: Any, out: TextIO,
          err: TextIO, hint: bool = True) -> int:
    events: queue.Queue[Frame | BaseException] = queue.Queue()
    sampler = Sampler(lambda: factory(args.demo), interval_s=args.interval,
                      on_frame=events.put, on_error=events.put)
    end = None if args.duration is None else time.monotonic() + args.duration
    sampler.start()
    try:
        while True:
            timeout = 0.2 if end is None else min(0.2, end - time.monotonic())
            if timeout <= 0:
                break
            try:
                item = events.get(timeout=timeout)
            except queue.Empty:
                if not sampler.is_running():
                    break
                continue
            if isinstance(item, BackendUnavailable):
                return _no_backend(item, err, hint)
            if isinstance(item, BaseException):
                _say(f"gpu-planner monitor: {clean(item, max_len=400)}", err)
                continue
            if recorder is not None:
                recorder.write(item)
            _emit(item, args.json, out)
    except KeyboardInterrupt:
        pass
    finally:
        sampler.stop(timeout=2.0)
    return EXIT_OK
