"""planner.settings: defaults, the JSON file, bad values, corrupt files, atomic saves."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import fields

import pytest

from planner import paths
from planner.core.network import Setup
from planner.settings import (
    DEFAULTS,
    SCHEMA_VERSION,
    Settings,
    SettingsNotice,
    byte_formatter,
    changed_fields,
    load_settings,
    money_formatter,
    save_settings,
    settings_path,
)
from planner.units import GIB, MIB


def test_defaults():
    s = Settings()
    assert s.units == "binary"
    assert s.theme == "system"
    assert s.language == "system"
    assert s.sampling_interval_s == 1.0
    assert s.memory_alert_pct == 95
    assert s.temperature_alert_c == 85
    assert s.recording_retention_days == 30
    assert s.default_batch == 32
    assert s.default_precision == "fp32"
    assert s.default_optimizer == "adam"
    assert (s.currency, s.currency_symbol, s.currency_rate) == ("USD", "$", None)
    assert s.electricity_usd_per_kwh is None
    assert s.first_run_done is False


def test_defaults_match_a_default_setup():
    assert DEFAULTS.new_setup() == Setup()
    assert DEFAULTS.replace(default_batch=8, default_precision="bf16").new_setup() == Setup(
        batch_size=8, precision="bf16")


def test_path_is_in_the_config_folder(planner_home):
    assert settings_path() == paths.config_dir() / "settings.json"
    assert str(settings_path()).startswith(str(planner_home))


def test_missing_file_gives_defaults_and_no_notice(tmp_path):
    assert load_settings(tmp_path / "none.json") == (DEFAULTS, None)


CHANGED = Settings(
    units="decimal", theme="dark", language="zh_CN", sampling_interval_s=0.25,
    memory_alert_pct=80, temperature_alert_c=90, recording_retention_days=0,
    default_batch=1024, default_precision="bf16", default_optimizer="adamw", currency="CNY",
    currency_symbol="¥", currency_rate=7.2, electricity_usd_per_kwh=0.12, first_run_done=True)


@pytest.mark.parametrize("settings", [DEFAULTS, CHANGED], ids=["defaults", "changed"])
def test_round_trip(tmp_path, settings):
    path = tmp_path / "s.json"
    assert save_settings(settings, path) == path
    assert load_settings(path) == (settings, None)


def test_saved_file_is_readable_json(tmp_path):
    path = save_settings(CHANGED, tmp_path / "s.json")
    text = path.read_text(encoding="utf-8")
    assert "\n  \"units\": \"decimal\"," in text  # pretty, one key a line
    assert "¥" in text  # not escaped
    data = json.loads(text)
    assert data["schema_version"] == SCHEMA_VERSION
    assert set(data) == {"schema_version"} | {f.name for f in fields(Settings)}


def test_save_default_path_creates_the_folder(planner_home):
    path = save_settings(CHANGED)
    assert path == planner_home / "config" / "settings.json"
    assert load_settings() == (CHANGED, None)


def test_atomic_save_leaves_no_temp_file(tmp_path):
    path = tmp_path / "s.json"
    save_settings(DEFAULTS, path)
    save_settings(CHANGED, path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]


def test_failed_save_keeps_the_old_file_and_no_temp(tmp_path, monkeypatch):
    path = tmp_path / "s.json"
    save_settings(CHANGED, path)

    def boom(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        save_settings(DEFAULTS, path)
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]
    assert load_settings(path) == (CHANGED, None)


def test_unknown_keys_are_ignored(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"schema_version": 99, "units": "decimal", "colour": "teal",
                                "future": {"a": 1}}), encoding="utf-8")
    settings, notice = load_settings(path)
    assert notice is None
    assert settings == DEFAULTS.replace(units="decimal")


def test_missing_keys_take_defaults(tmp_path):
    path = tmp_path / "s.json"
    path.write_text('{"theme": "light"}', encoding="utf-8")
    assert load_settings(path) == (DEFAULTS.replace(theme="light"), None)


@pytest.mark.parametrize("key, value, words", [
    ("sampling_interval_s", 0.01, "sampling interval"),
    ("sampling_interval_s", 60, "sampling interval"),
    ("sampling_interval_s", "fast", "sampling interval"),
    ("memory_alert_pct", 40, "memory alert"),
    ("memory_alert_pct", 101, "memory alert"),
    ("memory_alert_pct", 90.5, "memory alert"),
    ("temperature_alert_c", 20, "temperature alert"),
    ("temperature_alert_c", 200, "temperature alert"),
    ("default_batch", 0, "default batch size"),
    ("default_batch", 2**21, "default batch size"),
    ("default_batch", True, "default batch size"),
    ("recording_retention_days", 5000, "recording retention"),
    ("recording_retention_days", -1, "recording retention"),
    ("default_precision", "fp8", "default precision"),
    ("default_optimizer", "lion", "default optimizer"),
    ("units", "metric", "units"),
    ("theme", "blue", "theme"),
    ("language", "fr", "language"),
    ("currency", "yuan", "currency"),
    ("currency_symbol", "", "currency symbol"),
    ("currency_rate", 0, "exchange rate"),
    ("currency_rate", -7, "exchange rate"),
    ("electricity_usd_per_kwh", 50, "electricity price"),
    ("electricity_usd_per_kwh", "cheap", "electricity price"),
    ("first_run_done", "yes", "first run done"),
])
def test_bad_value_falls_back_to_its_default_with_a_notice(tmp_path, key, value, words):
    path = tmp_path / "s.json"
    data = {**CHANGED.to_json(), key: value}
    path.write_text(json.dumps(data), encoding="utf-8")
    settings, notice = load_settings(path)
    assert settings == CHANGED.replace(**{key: getattr(DEFAULTS, key)})
    assert isinstance(notice, SettingsNotice)
    assert words in notice
    assert notice.reset_fields == (key,)
    assert notice.backup_path is None
    assert path.read_text(encoding="utf-8") == json.dumps(data)  # left as it was


def test_several_bad_values_are_all_named(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"memory_alert_pct": 10, "default_batch": -3,
                                "theme": "dark"}), encoding="utf-8")
    settings, notice = load_settings(path)
    assert settings == DEFAULTS.replace(theme="dark")
    assert "memory alert" in notice and "default batch size" in notice
    assert set(notice.reset_fields) == {"memory_alert_pct", "default_batch"}


def test_integral_float_is_accepted_for_whole_numbers(tmp_path):
    path = tmp_path / "s.json"
    path.write_text('{"default_batch": 64.0, "sampling_interval_s": 2}', encoding="utf-8")
    settings, notice = load_settings(path)
    assert notice is None
    assert settings.default_batch == 64 and isinstance(settings.default_batch, int)
    assert settings.sampling_interval_s == 2.0


@pytest.mark.parametrize("content", [
    b"{ this is not json",
    b"",
    b"[1, 2, 3]",
    b'"just a string"',
    b"\xff\xfe garbage",
], ids=["bad-json", "empty", "list", "string", "not-utf8"])
def test_corrupt_file_is_set_aside(tmp_path, content):
    path = tmp_path / "settings.json"
    path.write_bytes(content)
    settings, notice = load_settings(path)
    assert settings == DEFAULTS
    assert not path.exists()
    backups = list(tmp_path.glob("settings.json.corrupt-*"))
    assert len(backups) == 1
    backup = backups[0]
    assert re.fullmatch(r"settings\.json\.corrupt-\d{8}-\d{6}", backup.name)
    assert backup.read_bytes() == content
    assert notice.backup_path == backup
    assert str(backup) in notice
    assert "default settings" in notice
    # the next save writes a fresh file and leaves the backup alone
    save_settings(settings, path)
    assert load_settings(path) == (DEFAULTS, None)
    assert backup.read_bytes() == content


def test_two_corrupt_files_in_one_second_keep_both_backups(tmp_path):
    path = tmp_path / "settings.json"
    path.write_bytes(b"{1")
    _, first = load_settings(path)
    path.write_bytes(b"{2")
    _, second = load_settings(path)
    assert first.backup_path != second.backup_path
    assert first.backup_path.read_bytes() == b"{1"
    assert second.backup_path.read_bytes() == b"{2"


def test_unreadable_file_gives_defaults_and_a_notice(tmp_path):
    path = tmp_path / "settings.json"
    path.mkdir()  # reading a folder fails with an OSError
    settings, notice = load_settings(path)
    assert settings == DEFAULTS
    assert "could not be read" in notice
    assert path.is_dir()


@pytest.mark.parametrize("kw, words", [
    ({"units": "metric"}, "units"), ({"sampling_interval_s": 0.0}, "sampling interval"),
    ({"default_batch": 0}, "default batch size"), ({"default_precision": "int8"}, "precision"),
    ({"currency": "usd"}, "currency"), ({"first_run_done": 1}, "first run"),
])
def test_constructing_bad_settings_raises_naming_the_field(kw, words):
    with pytest.raises(ValueError, match=words):
        Settings(**kw)


def test_changed_fields():
    assert changed_fields(DEFAULTS, DEFAULTS) == set()
    assert changed_fields(DEFAULTS, DEFAULTS.replace(theme="dark", default_batch=4)) == {
        "theme", "default_batch"}


@pytest.mark.parametrize("units, n, text", [
    ("binary", 8 * GIB, "8.00 GiB"),
    ("binary", 512 * MIB, "512.0 MiB"),
    ("decimal", 8 * GIB, "8.59 GB"),
    ("decimal", 80 * 10**9, "80.00 GB"),
    ("decimal", 512 * MIB, "536.9 MB"),
    ("decimal", 1500, "1.5 kB"),
    ("decimal", 999, "999 B"),
    ("decimal", 2 * 10**12, "2.00 TB"),
    ("decimal", -3 * 10**6, "-3.0 MB"),
    ("decimal", None, "N/A"),
    ("decimal", float("nan"), "N/A"),
])
def test_byte_formatter(units, n, text):
    assert byte_formatter(units)(n) == text
    assert byte_formatter(DEFAULTS.replace(units=units))(n) == text


def test_byte_formatter_rejects_unknown_units():
    with pytest.raises(ValueError, match="units"):
        byte_formatter("metric")


def test_money_formatter():
    assert money_formatter(DEFAULTS)(1234.5) == "$1,234.50"
    cny = DEFAULTS.replace(currency="CNY", currency_symbol="¥", currency_rate=7.0)
    assert money_formatter(cny)(1000) == "¥7,000.00"
    assert money_formatter(cny)(None) == "N/A"
    assert money_formatter(cny)(-1, decimals=0) == "-¥7"
    # a currency without a rate still shows dollars: values are USD
    assert money_formatter(cny.replace(currency_rate=None))(10) == "$10.00"


def test_settings_module_is_qt_free():
    code = ("import sys, planner.settings; "
            "print([m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph'))])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


def test_interval_limits_match_the_sampler():
    from planner import settings
    from planner.telemetry import sampler

    assert (settings.MIN_INTERVAL_S, settings.MAX_INTERVAL_S) == (
        sampler.MIN_INTERVAL_S, sampler.MAX_INTERVAL_S)
