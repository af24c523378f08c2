"""The preset networks shipped in ``data/presets`` (plan files like any other)."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

from planner.core.network import NetworkDraft, PlanFileError, PresetInfo, Setup, load_plan
from planner.paths import data_path

# The order presets are listed in (the article's examples first).
ORDER = ("seed-example", "seed-reduced", "alexnet", "vgg16", "resnet18", "resnet50",
         "mobilenet_v2", "lstm-128", "lstm-1024", "plankton", "video")


def presets_dir() -> Path:
    return data_path("presets")


def list_presets() -> list[PresetInfo]:
    found = {p.stem: p for p in presets_dir().glob("*.json")}
    names = [n for n in ORDER if n in found] + sorted(set(found) - set(ORDER))
    out = []
    for name in names:
        path = found[name]
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue
        out.append(PresetInfo(name, data.get("name", name), data.get("description", ""), path))
    return out


def preset_names() -> list[str]:
    return [p.name for p in list_presets()]


def load_preset(name: str) -> tuple[NetworkDraft, Setup]:
    path = presets_dir() / f"{name}.json"
    if not path.is_file():
        close = difflib.get_close_matches(name, preset_names(), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise PlanFileError(f"no preset named '{name}'{hint}")
    return load_plan(path)
