"""Watching a cluster from the Monitor pane: what to connect to, and the dialog that asks.

* ``ClusterConfig``: the Prometheus server (URL, bearer token, TLS). The token is kept in memory
  and never shown: ``repr()`` hides it, ``display_url`` drops any user:password, and
  ``to_settings()`` includes the token (and a URL's credentials) only when the user ticked
  "remember token".
* ``PeakFillingBackend``: wraps a backend whose cards lack a peak bandwidth (dcgm-exporter does
  not export the bus width and memory clock) and fills it from a ``lookup(name)`` the main
  window builds from the catalog, plus the bandwidth estimate (memory-controller busy % × that
  peak). Telemetry stays Qt-free and does not know the catalog; the catalog does not know
  telemetry. Runs in the sampling thread, so the frames (and the recording) carry the values.
* ``ClusterDialog``: URL, token (hidden as typed), "remember token", a CA file or "don't verify
  TLS", the query interval.
"""

from __future__ import annotations

import dataclasses
import logging
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from planner.ui.i18n import arg
from planner.telemetry.types import DeviceInfo, GpuSample, frozen_mapping

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 2.0
DEFAULT_MIN_INTERVAL_S = 1.0

PeakLookup = Callable[[str], "float | None"]


def strip_userinfo(url: str) -> str:
    """The URL without ``user:password@`` (for labels, logs and settings)."""
    try:
        parts = urllib.parse.urlsplit(url.strip())
    except ValueError:
        return ""
    if "@" not in parts.netloc:
        return url.strip()
    netloc = parts.netloc.rsplit("@", 1)[1]
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, parts.query, ""))


def url_problem(url: str) -> str | None:
    """Why this is not a usable server URL, or None."""
    try:
        parts = urllib.parse.urlsplit(url.strip())
        host = parts.hostname
    except ValueError:
        return "not a valid URL"
    if parts.scheme not in ("http", "https"):
        return "the URL must start with http:// or https://"
    if not host:
        return "the URL names no server"
    return None


@dataclass(frozen=True)
class ClusterConfig:
    url: str
    token: str | None = field(default=None, repr=False)
    remember_token: bool = False
    ca_file: str | None = None
    insecure: bool = False  # don't verify TLS certificates
    timeout_s: float = DEFAULT_TIMEOUT_S
    min_interval_s: float = DEFAULT_MIN_INTERVAL_S

    def __repr__(self) -> str:
        return (f"ClusterConfig(url={self.display_url!r}, token="
                f"{'<hidden>' if self.token else None}, remember_token={self.remember_token}, "
                f"ca_file={self.ca_file!r}, insecure={self.insecure})")

    __str__ = __repr__

    @property
    def display_url(self) -> str:
        return strip_userinfo(self.url)

    @property
    def verify(self) -> bool | str:
        """What PrometheusBackend's ``verify`` takes: False, a CA file, or True."""
        if self.insecure:
            return False
        return self.ca_file or True

    def to_settings(self) -> dict[str, Any]:
        """What may be written to the settings file: no credential unless remembered."""
        out: dict[str, Any] = {
            "url": self.url if self.remember_token else self.display_url,
            "remember_token": self.remember_token,
            "ca_file": self.ca_file or "",
            "insecure": self.insecure,
            "timeout_s": self.timeout_s,
            "min_interval_s": self.min_interval_s,
        }
        if self.remember_token and self.token:
            out["token"] = self.token
        return out

    @classmethod
    def from_settings(cls, data: Mapping[str, Any] | None) -> ClusterConfig | None:
        if not data or not str(data.get("url") or "").strip():
            return None

        def num(key: str, default: float) -> float:
            try:
                v = float(data.get(key, default))
            except (TypeError, ValueError):
                return default
            return v if v > 0 else default

        return cls(url=str(data["url"]).strip(), token=(str(data["token"]) if data.get("token")
                                                         else None),
                   remember_token=bool(data.get("remember_token", False)),
                   ca_file=str(data.get("ca_file") or "") or None,
                   insecure=bool(data.get("insecure", False)),
                   timeout_s=num("timeout_s", DEFAULT_TIMEOUT_S),
                   min_interval_s=num("min_interval_s", DEFAULT_MIN_INTERVAL_S))


def prometheus_factory(config: ClusterConfig) -> Callable[[], Any]:
    """The default: a zero-argument factory of a PrometheusBackend (built in the sampling
    thread, like every backend)."""

    def make() -> Any:
        from planner.telemetry.prometheus import PrometheusBackend

        return PrometheusBackend(config.url, token=config.token, verify=config.verify,
                                 timeout_s=config.timeout_s,
                                 min_interval_s=config.min_interval_s)

    return make


class PeakFillingBackend:
    """A backend wrapper that fills a missing peak bandwidth from ``lookup(card name)``.

    Where the peak comes from the lookup, the bandwidth estimate (busy % × peak) is computed
    here, and stays an estimate (the field's name says so)."""

    def __init__(self, inner: Any, lookup: PeakLookup) -> None:
        self.inner = inner
        self._lookup = lookup
        self._peaks: dict[int, float] = {}  # index → peak from the lookup

    @property
    def source(self) -> Any:
        return self.inner.source

    @property
    def driver_version(self) -> str | None:
        return self.inner.driver_version

    @property
    def cuda_version(self) -> str | None:
        return self.inner.cuda_version

    @property
    def min_interval_s(self) -> float:
        return float(getattr(self.inner, "min_interval_s", 0.0) or 0.0)

    def _fill(self, d: DeviceInfo) -> DeviceInfo:
        if d.peak_bandwidth_gbs:
            return d
        try:
            peak = self._lookup(d.name)
        except Exception:  # noqa: BLE001 - a lookup failure only means "unknown"
            log.debug("peak bandwidth lookup failed for %s", d.name, exc_info=True)
            peak = None
        if not peak or peak <= 0:
            return d
        self._peaks[d.index] = float(peak)
        un = {k: v for k, v in d.unavailable.items() if k != "peak_bandwidth_gbs"}
        return dataclasses.replace(d, peak_bandwidth_gbs=float(peak),
                                   unavailable=frozen_mapping(un))

    def open(self) -> list[DeviceInfo]:
        self._peaks.clear()
        return [self._fill(d) for d in self.inner.open()]

    def sample(self) -> tuple[GpuSample, ...]:
        samples = self.inner.sample()
        if not self._peaks:
            return tuple(samples)
        out = []
        for s in samples:
            peak = self._peaks.get(s.index)
            if (peak is None or s.lost or s.bandwidth_gbs_estimate is not None
                    or s.memory_busy_pct is None):
                out.append(s)
                continue
            un = {k: v for k, v in s.unavailable.items() if k != "bandwidth_gbs_estimate"}
            out.append(dataclasses.replace(
                s, bandwidth_gbs_estimate=s.memory_busy_pct / 100.0 * peak,
                unavailable=frozen_mapping(un)))
        return tuple(out)

    def close(self) -> None:
        self.inner.close()


class ClusterDialog(QDialog):
    """Ask for a Prometheus server. ``config()`` is the answer once accepted."""

    def __init__(self, config: ClusterConfig | None = None, parent: QWidget | None = None,
                 *, ask_ca_file: Callable[[QWidget], str | None] | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ClusterDialog")
        self.setWindowTitle(self.tr("Watch a cluster"))
        self._ask_ca_file = ask_ca_file
        intro = QLabel(self.tr("A Prometheus server that scrapes NVIDIA's dcgm-exporter on "
                               "each node. Only its HTTP query API is used."), self)
        intro.setWordWrap(True)
        self.url_edit = QLineEdit(self)
        self.url_edit.setPlaceholderText("https://prometheus.example.org:9090")
        self.token_edit = QLineEdit(self)
        self.token_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.token_edit.setPlaceholderText(self.tr("optional"))
        self.remember_check = QCheckBox(self.tr("Remember token (stored in the settings file "
                                                "in clear text)"), self)
        self.ca_edit = QLineEdit(self)
        self.ca_edit.setPlaceholderText(self.tr("system certificates"))
        self.ca_button = QPushButton(self.tr("Browse…"), self)
        self.ca_button.clicked.connect(self._on_browse)
        self.insecure_check = QCheckBox(self.tr("Don't verify TLS certificates"), self)
        self.insecure_check.toggled.connect(self._on_insecure)
        self.interval_spin = QDoubleSpinBox(self)
        self.interval_spin.setRange(0.5, 60.0)
        self.interval_spin.setDecimals(1)
        self.interval_spin.setSingleStep(0.5)
        self.interval_spin.setSuffix(self.tr(" s"))
        self.interval_spin.setValue(DEFAULT_MIN_INTERVAL_S)
        self.interval_spin.setToolTip(self.tr("At most one query per this many seconds; the "
                                              "monitor samples no faster"))
        self.error_label = QLabel("", self)
        self.error_label.setStyleSheet("color: #b03030;")
        self.error_label.setWordWrap(True)

        ca_row = QHBoxLayout()
        ca_row.addWidget(self.ca_edit, 1)
        ca_row.addWidget(self.ca_button)
        form = QFormLayout()
        form.addRow(self.tr("Server URL:"), self.url_edit)
        form.addRow(self.tr("Bearer token:"), self.token_edit)
        form.addRow("", self.remember_check)
        form.addRow(self.tr("CA file:"), ca_row)
        form.addRow("", self.insecure_check)
        form.addRow(self.tr("Query every:"), self.interval_spin)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(self.tr("Watch"))
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(intro)
        lay.addLayout(form)
        lay.addWidget(self.error_label)
        lay.addWidget(self.buttons)
        self.setMinimumWidth(520)
        self._timeout_s = DEFAULT_TIMEOUT_S
        if config is not None:
            self.url_edit.setText(config.url)
            self.token_edit.setText(config.token or "")
            self.remember_check.setChecked(config.remember_token)
            self.ca_edit.setText(config.ca_file or "")
            self.insecure_check.setChecked(config.insecure)
            self.interval_spin.setValue(config.min_interval_s)
            self._timeout_s = config.timeout_s

    @Slot(bool)
    def _on_insecure(self, on: bool) -> None:
        self.ca_edit.setEnabled(not on)
        self.ca_button.setEnabled(not on)

    @Slot()
    def _on_browse(self) -> None:
        if self._ask_ca_file is not None:
            path = self._ask_ca_file(self)
        else:
            path, _ = QFileDialog.getOpenFileName(
                self, self.tr("CA certificate"), "",
                self.tr("Certificates (*.pem *.crt *.cer);;All files (*)"))
        if path:
            self.ca_edit.setText(path)

    def config(self) -> ClusterConfig:
        token = self.token_edit.text().strip() or None
        return ClusterConfig(url=self.url_edit.text().strip(), token=token,
                             remember_token=self.remember_check.isChecked(),
                             ca_file=(self.ca_edit.text().strip() or None)
                             if not self.insecure_check.isChecked() else None,
                             insecure=self.insecure_check.isChecked(),
                             timeout_s=self._timeout_s,
                             min_interval_s=float(self.interval_spin.value()))

    def accept(self) -> None:
        problem = url_problem(self.url_edit.text())
        if problem is not None:
            self.error_label.setText(arg(self.tr("Server URL: %1"), self.tr(problem)))
            return
        self.error_label.setText("")
        super().accept()
