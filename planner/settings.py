"""The user's preferences: a frozen ``Settings``, read from and written to a readable JSON file.

Qt-free. The file is ``config_dir()/settings.json`` (under ``PLANNER_HOME`` when that is set),
pretty-printed, with a ``schema_version``. Window geometry and recent files are not here: the
main window keeps those in ``gpu-planner.ini`` through QSettings.

Reading never fails:

* no file → the defaults, no notice;
* unknown keys → ignored (a newer version's file still loads);
* a value of the wrong type or out of range → that field's default, and a notice naming it;
* a file that is not JSON, or not a JSON object → renamed aside to
  ``settings.json.corrupt-YYYYmmdd-HHMMSS`` (its bytes untouched), the defaults load, and the
  notice says where the backup is.

The notice is a ``SettingsNotice``: a plain English ``str`` that also carries the structured
facts (``reset_fields``, ``backup_path``, ``error``) so the UI can build a translated message.

Writing is atomic: a temporary file in the same folder, flushed, then ``os.replace``.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from planner import paths, safeio
from planner.atomicfile import write_json_atomic
from planner.core.network import MAX_BATCH, OPTIMIZERS, PRECISIONS, Setup
from planner.units import format_bytes, format_bytes_si

# The sampler's limits (planner.telemetry.sampler; a test keeps them equal). Not imported from
# there: reading the settings at start-up should not load the telemetry package.
MIN_INTERVAL_S = 0.1
MAX_INTERVAL_S = 10.0

SCHEMA_VERSION = 1
FILE_NAME = "settings.json"

UNITS = ("binary", "decimal")
THEMES = ("system", "light", "dark")
LANGUAGES = ("system", "en", "zh_CN")

# inclusive numeric ranges: (min, max, unit shown in notices)
RANGES: dict[str, tuple[float, float, str]] = {
    "sampling_interval_s": (MIN_INTERVAL_S, MAX_INTERVAL_S, "s"),
    "memory_alert_pct": (50, 100, "%"),
    "temperature_alert_c": (40, 110, "°C"),
    "default_batch": (1, MAX_BATCH, ""),
    "recording_retention_days": (0, 3650, "days"),  # 0 = keep forever (as the Recordings view)
    "currency_rate": (0.0001, 1_000_000, "per USD"),  # or None
    "electricity_usd_per_kwh": (0.001, 10, "USD/kWh"),  # or None
}
CHOICES: dict[str, tuple[str, ...]] = {
    "units": UNITS,
    "theme": THEMES,
    "language": LANGUAGES,
    "default_precision": PRECISIONS,
    "default_optimizer": OPTIMIZERS,
}
INT_FIELDS = frozenset({"memory_alert_pct", "temperature_alert_c", "default_batch",
                        "recording_retention_days"})
OPTIONAL_FIELDS = frozenset({"currency_rate", "electricity_usd_per_kwh"})

# Plain names for notices (the UI has its own translated labels).
FIELD_NAMES: dict[str, str] = {
    "units": "units",
    "theme": "theme",
    "language": "language",
    "sampling_interval_s": "sampling interval",
    "memory_alert_pct": "memory alert",
    "temperature_alert_c": "temperature alert",
    "recording_retention_days": "recording retention",
    "default_batch": "default batch size",
    "default_precision": "default precision",
    "default_optimizer": "default optimizer",
    "currency": "currency",
    "currency_symbol": "currency symbol",
    "currency_rate": "exchange rate",
    "electricity_usd_per_kwh": "electricity price",
    "first_run_done": "first run done",
}

# Common display currencies: code → symbol. Any three-letter code is accepted.
CURRENCIES: dict[str, str] = {
    "USD": "$", "CNY": "¥", "EUR": "€", "GBP": "£", "JPY": "¥", "KRW": "₩", "INR": "₹",
    "HKD": "HK$", "TWD": "NT$", "SGD": "S$", "CAD": "C$", "AUD": "A$", "CHF": "CHF",
    "RUB": "₽", "BRL": "R$",
}


@dataclass(frozen=True)
class Settings:
    """Every preference. Money is USD internally; ``currency`` / ``currency_symbol`` /
    ``currency_rate`` (units of that currency per US dollar) only change how it is shown."""

    # Display
    units: str = "binary"  # "binary": MiB/GiB as nvidia-smi; "decimal": MB/GB
    theme: str = "system"  # "system" | "light" | "dark"
    language: str = "system"  # "system" | "en" | "zh_CN"
    # Monitor
    sampling_interval_s: float = 1.0
    memory_alert_pct: int = 95
    temperature_alert_c: int = 85
    recording_retention_days: int = 30
    # Planner defaults (new plans)
    default_batch: int = 32
    default_precision: str = "fp32"  # as the presets
    default_optimizer: str = "adam"
    # Money
    currency: str = "USD"
    currency_symbol: str = "$"
    currency_rate: float | None = None  # currency units per USD; None: show US dollars
    electricity_usd_per_kwh: float | None = None  # None: energy cost not counted
    # First run
    first_run_done: bool = False

    def __post_init__(self) -> None:
        for f in fields(self):
            check_field(f.name, getattr(self, f.name))

    def replace(self, **changes: Any) -> Settings:
        """A copy with some fields changed (checked: a bad value raises ValueError)."""
        return replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        return {"schema_version": SCHEMA_VERSION, **asdict(self)}

    # -- conveniences for the wiring ---------------------------------------------------------

    def new_setup(self, **overrides: Any) -> Setup:
        """The Setup a new plan starts with: default batch, precision and optimizer."""
        kw = {"batch_size": self.default_batch, "precision": self.default_precision,
              "optimizer": self.default_optimizer}
        kw.update(overrides)
        return Setup(**kw)

    @property
    def shows_converted_money(self) -> bool:
        return self.currency != "USD" and self.currency_rate is not None


def check_field(name: str, value: Any) -> Any:
    """The value, normalised (integral floats → int for whole-number fields), or ValueError
    naming the field and what it accepts."""
    label = FIELD_NAMES.get(name, name)
    if name in OPTIONAL_FIELDS and value is None:
        return None
    if name in CHOICES:
        if not isinstance(value, str) or value not in CHOICES[name]:
            raise ValueError(f"{label}: {value!r} is not one of {', '.join(CHOICES[name])}")
        return value
    if name in RANGES:
        lo, hi, unit = RANGES[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{label}: {value!r} is not a number")
        if not math.isfinite(value):
            raise ValueError(f"{label}: {value!r} is not a number")
        if name in INT_FIELDS:
            if isinstance(value, float):
                if not value.is_integer():
                    raise ValueError(f"{label}: {value!r} is not a whole number")
                value = int(value)
        else:
            value = float(value)
        if not lo <= value <= hi:
            shown = f"{_num(lo)}–{_num(hi)}" + (f" {unit}" if unit else "")
            raise ValueError(f"{label}: {_num(value)} is outside {shown}")
        return value
    if name == "currency":
        if not (isinstance(value, str) and len(value) == 3 and value.isascii()
                and value.isalpha() and value.isupper()):
            raise ValueError(f"{label}: {value!r} is not a three-letter code such as USD or CNY")
        return value
    if name == "currency_symbol":
        if not isinstance(value, str) or not value.strip() or len(value) > 4:
            raise ValueError(f"{label}: {value!r} must be 1–4 characters")
        return value
    if name == "first_run_done":
        if not isinstance(value, bool):
            raise ValueError(f"{label}: {value!r} is not true or false")
        return value
    raise ValueError(f"unknown setting {name!r}")


def _num(x: float) -> str:
    return f"{x:g}" if isinstance(x, float) else f"{x}"


DEFAULTS = Settings()


def changed_fields(old: Settings, new: Settings) -> set[str]:
    """Names of the fields that differ: the wiring applies only what changed."""
    return {f.name for f in fields(Settings) if getattr(old, f.name) != getattr(new, f.name)}


# -- the file ----------------------------------------------------------------------------------


def settings_path() -> Path:
    return paths.config_dir() / FILE_NAME


class SettingsNotice(str):
    """What the user should be told after loading: an English sentence, plus the facts.

    ``reset_fields``: names of fields that fell back to their defaults; ``backup_path``: where a
    corrupt file was moved (None when it was not); ``error``: the parse / read error text."""

    reset_fields: tuple[str, ...]
    backup_path: Path | None
    error: str | None

    def __new__(cls, text: str, *, reset_fields: tuple[str, ...] = (),
                backup_path: Path | None = None, error: str | None = None) -> SettingsNotice:
        obj = super().__new__(cls, text)
        obj.reset_fields = tuple(reset_fields)
        obj.backup_path = backup_path
        obj.error = error
        return obj


def load_settings(path: str | os.PathLike | None = None) -> tuple[Settings, SettingsNotice | None]:
    """Read the settings file (``settings_path()`` by default). Never raises for a bad file:
    see the module docstring for what happens then."""
    path = Path(path) if path is not None else settings_path()
    try:
        raw = safeio.read_bytes(path, limit=safeio.MAX_SETTINGS_BYTES)
    except FileNotFoundError:
        return DEFAULTS, None
    except (OSError, safeio.InputRefused) as exc:  # not a file, too large: left as it is
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return DEFAULTS, SettingsNotice(
            f"Your settings file {path} could not be read ({why}); "
            "the default settings are in use.", error=str(exc))
    try:
        data = safeio.loads_json(raw.decode("utf-8"))
        if not isinstance(data, dict):
            raise ValueError(f"it holds a JSON {type(data).__name__}, not an object")
    except (ValueError, UnicodeDecodeError) as exc:  # InputRefused (too deep) is one too
        return DEFAULTS, _set_aside(path, str(exc))

    values: dict[str, Any] = {}
    bad: list[str] = []
    for f in fields(Settings):
        if f.name not in data:
            continue
        try:
            values[f.name] = check_field(f.name, data[f.name])
        except ValueError:
            bad.append(f.name)
    settings = Settings(**values)
    if not bad:
        return settings, None
    problems = []
    for name in bad:
        default = getattr(DEFAULTS, name)
        shown = safeio.clean(repr(data[name]), max_len=60)
        problems.append(f"{FIELD_NAMES[name]} ({shown} → {default!r})")
    return settings, SettingsNotice(
        f"Some settings in {path} were not valid and are back to their defaults: "
        + "; ".join(problems) + ".", reset_fields=tuple(bad))


def _set_aside(path: Path, error: str) -> SettingsNotice:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    backup = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while backup.exists():
        n += 1
        backup = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
    try:
        os.replace(path, backup)
    except OSError as exc:
        return SettingsNotice(
            f"Your settings file {path} was damaged ({error}) and could not be moved aside "
            f"({exc.strerror or exc}); the default settings are in use for now.", error=error)
    return SettingsNotice(
        f"Your settings file was damaged ({error}), so the default settings are in use. "
        f"The old file was kept as {backup}.", backup_path=backup, error=error)


def save_settings(settings: Settings, path: str | os.PathLike | None = None) -> Path:
    """Write atomically (temp file in the same folder, then os.replace); returns the path."""
    path = Path(path) if path is not None else settings_path()
    write_json_atomic(path, settings.to_json())
    return path


# -- formatting by the settings ----------------------------------------------------------------

def format_bytes_decimal(n: int | float | None, *, precision: int = 1) -> str:
    """A byte count in SI units (kB, MB, GB, TB), same layout as ``units.format_bytes``."""
    return format_bytes_si(n, precision=precision)


def byte_formatter(units: str | Settings) -> Callable[..., str]:
    """``format(n, *, precision=1) -> str`` for "binary" (MiB/GiB, ``units.format_bytes``) or
    "decimal" (MB/GB). Accepts the units string or a Settings."""
    if isinstance(units, Settings):
        units = units.units
    if units == "binary":
        return format_bytes
    if units == "decimal":
        return format_bytes_decimal
    raise ValueError(f"units: {units!r} is not one of {', '.join(UNITS)}")


def money_formatter(settings: Settings) -> Callable[..., str]:
    """``format(usd, *, decimals=2) -> str`` in the display currency: converted with the
    rate when one is set ("¥7,230.00"), else US dollars ("$1,000.00"). None → "N/A"."""
    if settings.shows_converted_money:
        symbol, rate = settings.currency_symbol, float(settings.currency_rate)
    else:
        symbol, rate = "$", 1.0

    def fmt(usd: float | None, *, decimals: int = 2) -> str:
        if usd is None or (isinstance(usd, float) and math.isnan(usd)):
            return "N/A"
        v = usd * rate
        sign = "-" if v < 0 else ""
        return f"{sign}{symbol}{abs(v):,.{decimals}f}"

    return fmt
