"""Write data/presets/<name>.json for the transformer presets of planner.core.transformer.

    PYTHONPATH=. python tools/make_transformer_presets.py
"""

from __future__ import annotations

from pathlib import Path

from planner.core.network import Setup, plan_to_json, write_json_atomic
from planner.core.transformer import PRESETS, build_draft

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    for key, (config, title, description, setup) in PRESETS.items():
        draft = build_draft(config, title, description)
        data = plan_to_json(draft, Setup(**setup))
        data["transformer"] = config.to_json()
        write_json_atomic(ROOT / "data" / "presets" / f"{key}.json", data)
        print(key, len(draft.layers), "layers")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
