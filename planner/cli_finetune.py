"""The CLI's transformer options for ``estimate`` and ``fit``: sequence length, fine-tuning mode
(full, LoRA, QLoRA), and serving with a KV cache. Qt-free, over planner.core.finetune."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from planner.core.finetune import (
    DEFAULT_TARGETS,
    FinetuneAssumptions,
    FinetuneError,
    LoraSetup,
    apply_lora,
    optimizer_8bit_bytes,
    serving_estimate,
)
from planner.core.network import InvalidDraft, NetworkDraft, Setup
from planner.core.transformer import tokens_per_step
from planner.units import format_bytes, format_count


class _Usage(Exception):
    pass


def add_finetune_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("transformers")
    g.add_argument("--seq-len", dest="seq_len", type=int, metavar="TOKENS",
                   help="tokens per sequence (a draft whose input is token ids; model folders)")
    g.add_argument("--finetune", choices=("full", "lora", "qlora"),
                   help="full fine-tuning, LoRA (frozen base, adapters) or QLoRA (LoRA on a "
                        "4-bit NF4 base)")
    g.add_argument("--lora-rank", dest="lora_rank", type=int, default=16, metavar="R")
    g.add_argument("--lora-targets", dest="lora_targets", metavar="NAMES",
                   default=",".join(DEFAULT_TARGETS),
                   help="projections adapted (last name part, comma-separated; all-linear)")
    g.add_argument("--no-double-quant", dest="double_quant", action="store_false",
                   help="QLoRA without double quantisation of the constants")
    g.add_argument("--optimizer-8bit", dest="optimizer_8bit", action="store_true",
                   help="bitsandbytes' (paged) 8-bit AdamW state for the trainable weights")
    g.add_argument("--serve", action="store_true",
                   help="serving: weights plus the KV cache (see --context, --sequences)")
    g.add_argument("--context", type=int, default=8192, metavar="TOKENS")
    g.add_argument("--sequences", type=int, default=1, metavar="N",
                   help="concurrent sequences served")
    g.add_argument("--weight-bits", dest="weight_bits", type=int, choices=(16, 8, 4),
                   default=16)
    g.add_argument("--kv-bits", dest="kv_bits", type=int, choices=(16, 8, 4), default=16)


def _usage(msg: str):
    from planner.cli import UsageError  # noqa: PLC0415 (cli imports this module)

    return UsageError(msg)


def apply_finetune_options(args, draft: NetworkDraft) -> NetworkDraft:
    seq = getattr(args, "seq_len", None)
    if seq is not None:
        shape = draft.input_shape
        if not shape or len(shape) != 1:
            raise _usage("--seq-len needs a draft whose input is a sequence of token ids")
        if not 1 <= seq <= 1 << 20:
            raise _usage("--seq-len must be between 1 and 1048576 tokens")
        draft = draft.with_input_shape((seq,))
    mode = getattr(args, "finetune", None)
    if mode in ("lora", "qlora"):
        targets = tuple(t.strip() for t in str(args.lora_targets).split(",") if t.strip())
        quant = ("nf4_dq" if args.double_quant else "nf4") if mode == "qlora" else "none"
        try:
            draft = apply_lora(draft, LoraSetup(rank=args.lora_rank, targets=targets,
                                                quant=quant))
        except FinetuneError as exc:
            raise _usage(str(exc)) from None
    return draft


def _trainable(est) -> int:
    return sum(info.result.parameters - info.result.frozen_parameters
               for info in est.analysis.layers if info.result is not None)


def finetune_json(args, draft: NetworkDraft, setup: Setup, est) -> dict[str, Any]:
    out: dict[str, Any] = {}
    tokens = tokens_per_step(draft, setup.batch_size, setup.accumulation)
    if tokens is not None:
        out["tokens_per_step"] = tokens
    mode = getattr(args, "finetune", None)
    if mode:
        trainable = _trainable(est)
        out["finetune"] = {"mode": mode, "trainable_parameters": trainable}
        if mode != "full":
            out["finetune"]["lora_rank"] = args.lora_rank
        if getattr(args, "optimizer_8bit", False):
            opt8 = optimizer_8bit_bytes(trainable)
            out["finetune"]["optimizer_8bit_bytes"] = opt8
            out["finetune"]["peak_with_optimizer_8bit"] = est.peak - est.optimizer + opt8
            out.setdefault("warnings", []).append(
                "8-bit optimizer: state from its formula (bitsandbytes, block-wise, "
                f"{FinetuneAssumptions().optimizer_8bit_block} values per fp32 scale); not "
                "measured")
        if mode == "qlora":
            out.setdefault("warnings", []).append(
                "QLoRA: NF4 weights and constants from their formula (QLoRA paper §3, "
                "bitsandbytes); not measured on a GPU by this planner's benchmarks; the bf16 "
                "dequantised copy of one layer's weight during its product is not in the peak")
    if getattr(args, "serve", False):
        try:
            s = serving_estimate(draft, context=args.context, sequences=args.sequences,
                                 weight_bits=args.weight_bits, kv_bits=args.kv_bits)
        except (FinetuneError, InvalidDraft) as exc:
            raise _usage(str(exc)) from None
        out["serving"] = s.to_json()
    return out


def print_finetune(args, draft: NetworkDraft, setup: Setup, est) -> None:
    data = finetune_json(args, draft, setup, est)
    for w in data.get("warnings", []):
        print(f"warning: {w}", file=sys.stderr)
    if "tokens_per_step" in data:
        print(f"  Tokens per step: {data['tokens_per_step']:,} ({setup.batch_size} sequences "
              f"of {draft.input_shape[0]:,} tokens × {setup.accumulation} micro-batches)")
    ft = data.get("finetune")
    if ft:
        print(f"  Fine-tuning: {ft['mode']}, {format_count(ft['trainable_parameters'])} "
              "trainable parameters")
        if "peak_with_optimizer_8bit" in ft:
            print(f"  With the 8-bit optimizer: state {format_bytes(ft['optimizer_8bit_bytes'])},"
                  f" peak {format_bytes(ft['peak_with_optimizer_8bit'])}")
    sv = data.get("serving")
    if sv:
        print(f"  Serving {sv['sequences']} sequence(s) of {sv['context']:,} tokens: weights "
              f"({sv['weight_bits']}-bit) {format_bytes(sv['weights_bytes'])}, KV cache "
              f"({sv['kv_bits']}-bit) {format_bytes(sv['kv_cache_bytes'])}, activations "
              f"{format_bytes(sv['activation_bytes'])} (a guess), total "
              f"{format_bytes(sv['total_bytes'])}")


def sequence_tokens(draft: NetworkDraft) -> int | None:
    """Tokens per sample of a draft whose input is token ids (None for others)."""
    return tokens_per_step(draft, 1)


def fit_row_json(row, tokens: int | None) -> dict[str, Any]:
    from planner.core.speed import tokens_per_s  # noqa: PLC0415

    out = row.to_json()
    if tokens:
        out["tokens_per_s"] = tokens_per_s(row.speed, tokens)
    return out
