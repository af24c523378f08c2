"""The advisor's workloads by era: what a profile's work is at the advice's date.

Before 2023 the profiles keep the article's 2017 workloads (the time machine: as of 2017 the
picks are the article's). From 2023 on, the profiles whose work changed with transformers are
judged on a transformer workload planned on every card: the memory need is that plan's peak,
not a fixed number of GB.

* NLP research: QLoRA (a 4-bit NF4 base with double quantisation, LoRA rank 16 on q_proj and
  v_proj) of a Llama-shaped 8B model at a 2048-token context, one sequence a step, bf16 (how
  7–8B models are fine-tuned on one research card: peft + bitsandbytes on Llama 3 / Mistral
  7B; the NF4 weights come from their formula, not a measurement);
* computer-vision research and large data sets: ViT-B/16 at 224×224, batch 64, mixed bf16;
* the best regardless of cost: full fine-tuning of a Llama-shaped 1B model at a 2048-token
  context, one sequence a step, bf16 AdamW.

No I/O beyond the presets, no Qt.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, NamedTuple

from planner.core.network import NetworkDraft, Setup
from planner.i18n import QT_TRANSLATE_NOOP

TRANSFORMER_ERA = "2023-01"


class EraWorkload(NamedTuple):
    since: str  # YYYY-MM from which this workload stands for the profile
    title: str  # translatable source text
    build: Callable[[], tuple[NetworkDraft, Setup]]


def _lora_8b() -> tuple[NetworkDraft, Setup]:
    from planner.core.finetune import LoraSetup, apply_lora  # noqa: PLC0415
    from planner.core.presets import load_preset  # noqa: PLC0415

    draft, setup = load_preset("llama_8b")
    draft = apply_lora(draft.with_input_shape((2048,)),
                       LoraSetup(rank=16, targets=("q_proj", "v_proj"), quant="nf4_dq"))
    return draft, replace(setup, batch_size=1, precision="bf16", optimizer="adamw")


def _vit_b16() -> tuple[NetworkDraft, Setup]:
    from planner.core.presets import load_preset  # noqa: PLC0415

    draft, setup = load_preset("vit_b16")
    return draft, replace(setup, batch_size=64, precision="mixed_bf16", optimizer="adamw")


def _full_1b() -> tuple[NetworkDraft, Setup]:
    from planner.core.presets import load_preset  # noqa: PLC0415

    draft, setup = load_preset("llama_1b")
    return draft.with_input_shape((2048,)), replace(setup, batch_size=1, precision="bf16",
                                                    optimizer="adamw")


ERA_WORKLOADS: dict[str, EraWorkload] = {
    "nlp-research": EraWorkload(TRANSFORMER_ERA, QT_TRANSLATE_NOOP(
        "core", "QLoRA fine-tuning of a Llama-shaped 8B model (4-bit base, rank 16, "
                "2048-token context, bf16)"), _lora_8b),
    "cv-research": EraWorkload(TRANSFORMER_ERA, QT_TRANSLATE_NOOP(
        "core", "ViT-B/16 at batch 64 (224×224, mixed bf16)"), _vit_b16),
    "large-datasets": EraWorkload(TRANSFORMER_ERA, QT_TRANSLATE_NOOP(
        "core", "ViT-B/16 at batch 64 (224×224, mixed bf16)"), _vit_b16),
    "best": EraWorkload(TRANSFORMER_ERA, QT_TRANSLATE_NOOP(
        "core", "full fine-tuning of a Llama-shaped 1B model (2048-token context, bf16)"),
        _full_1b),
}


def era_workload(profile_key: str, as_of: str) -> EraWorkload | None:
    """The workload a profile is judged on as of ``as_of`` (YYYY-MM), or None for the
    profile's own (the article's) reference workload."""
    era = ERA_WORKLOADS.get(profile_key)
    if era is None or as_of < era.since:
        return None
    return era
