"""Transformer accuracy: the planner's drafts against Hugging Face models built from configs.

Run in the CPU torch venv (transformers and peft installed; nothing is downloaded, weights are
random)::

    PYTHONPATH=. /work/torchvenv/bin/python benchmarks/transformer_accuracy.py [--batch 2]
        [--seq 128] [--only gpt2,llama-small] [--breakdown] [--no-cache]

For BERT-base, GPT-2 (124M), ViT-B/16 and a small Llama-shaped decoder (4 layers, hidden 512),
with eager and SDPA attention, full fine-tuning and LoRA (peft, rank 8 on the attention
projections), in fp32, it compares:

1. parameters: the model's unique parameters against the draft's (must be exact);
2. saved bytes: unique storages autograd saves during the forward pass
   (``torch.autograd.graph.saved_tensors_hooks``, as benchmarks/accuracy.py; parameters left out)
   against the planner's ``kept_for_backward_bytes`` with allocator rounding off (±5 %);
3. peak: the CPU profiler's memory timeline over one SGD-momentum step (as benchmarks/
   accuracy.py) against the planner's simulated step with nothing but tensors (±5 %).

The planner models CUDA; on the CPU, dropout keeps an fp32 noise tensor where CUDA keeps a
one-byte mask, so the runs set every dropout to 0 (BERT's and GPT-2's defaults are 0.1) and
CPU SDPA picks its own kernel (the table names the attention implementation the draft
assumed). The decoders run as Hugging Face runs them by default, with ``use_cache`` on (a
DynamicCache takes copies of each layer's k and v, and attention keeps the copies: the drafts'
``kv_cache``); ``--no-cache`` runs both sides without it. Exit status 0: it prints figures;
CI does not run it.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "benchmarks"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import torch  # noqa: E402

from accuracy import NO_ROUNDING, TENSORS_ONLY, SavedRecorder, measured_peak, table  # noqa: E402
from planner.core.finetune import LoraSetup, apply_lora  # noqa: E402
from planner.core.memory import estimate  # noqa: E402
from planner.core.network import Setup, analyze  # noqa: E402
from planner.core.transformer import TransformerConfig, build_draft  # noqa: E402

MIB = 1 << 20
TOL = 5.0


def hf_model(name: str, attn: str, seq: int, cache: bool = True):
    """(torch module returning logits, planner config, input maker, target maker)."""
    import transformers as T

    if name == "gpt2":
        cfg = T.GPT2Config(n_positions=1024, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
        model = T.GPT2LMHeadModel(cfg)
        pc = TransformerConfig(family="gpt2", layers=12, hidden=768, heads=12,
                               intermediate=3072, vocab=50257, max_positions=1024,
                               seq_len=seq, mlp="gelu_new", norm="layernorm",
                               positions="learned", tied=True)
    elif name == "bert":
        cfg = T.BertConfig(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
        model = T.BertForMaskedLM(cfg)
        pc = TransformerConfig(family="bert", layers=12, hidden=768, heads=12,
                               intermediate=3072, vocab=30522, max_positions=512,
                               seq_len=seq, mlp="gelu", norm="layernorm",
                               positions="learned", tied=True, token_types=2)
    elif name == "vit":
        cfg = T.ViTConfig()
        model = T.ViTForImageClassification(cfg)
        pc = TransformerConfig(family="vit", layers=12, hidden=768, heads=12,
                               intermediate=3072, vocab=1, seq_len=197, mlp="gelu",
                               norm="layernorm", positions="learned", labels=2)
    elif name == "llama-small":
        cfg = T.LlamaConfig(hidden_size=512, intermediate_size=1376, num_hidden_layers=4,
                            num_attention_heads=8, num_key_value_heads=4, vocab_size=32000,
                            max_position_embeddings=2048, tie_word_embeddings=False)
        model = T.LlamaForCausalLM(cfg)
        pc = TransformerConfig(family="decoder", layers=4, hidden=512, heads=8, kv_heads=4,
                               intermediate=1376, vocab=32000, seq_len=seq)
    else:
        raise SystemExit(f"unknown network {name}")
    model.config._attn_implementation = attn
    impl = "eager" if attn == "eager" else "sdpa_flash"
    pc = TransformerConfig(**{**pc.to_json(), "image": tuple(pc.image), "attention": impl,
                              "kv_cache": cache})

    class Logits(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, x):
            if name == "vit":
                return self.inner(pixel_values=x).logits
            if name in ("gpt2", "llama-small"):
                return self.inner(input_ids=x, use_cache=cache).logits
            return self.inner(input_ids=x).logits

    def make_x(b):
        torch.manual_seed(0)
        if name == "vit":
            return torch.randn(b, 3, 224, 224)
        return torch.randint(0, pc.vocab, (b, seq))

    def make_y(b, logits_shape):
        if name == "vit":
            return torch.randint(0, pc.labels, (b,))
        return torch.randint(0, pc.vocab, (b, seq))

    return Logits(model), pc, make_x, make_y


class LMLoss(torch.nn.Module):
    """cross_entropy over the last dimension, as the planner's loss."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, x):
        out = self.inner(x)
        return out.reshape(-1, out.shape[-1])


def lora_model(model, name):
    from peft import LoraConfig, get_peft_model

    targets = {"gpt2": ["c_attn"], "bert": ["query", "value"], "vit": ["q_proj", "v_proj"],
               "llama-small": ["q_proj", "v_proj"]}[name]
    cfg = LoraConfig(r=8, lora_alpha=16, lora_dropout=0.0, target_modules=targets)
    inner = get_peft_model(model.inner, cfg)
    model.inner = inner
    return model, tuple(targets)


def run_one(name: str, attn: str, mode: str, batch: int, seq: int, breakdown: bool,
            cache: bool = True):
    model, pc, make_x, make_y = hf_model(name, attn, seq, cache)
    draft = build_draft(pc, name)
    if mode == "lora":
        model, targets = lora_model(model, name)
        draft = apply_lora(draft, LoraSetup(rank=8, targets=targets))
    model.train()
    params = sum(p.numel() for p in model.parameters())
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    analysis = analyze(draft)
    if not analysis.ok:
        raise SystemExit(f"{name}: {analysis.problems}")
    x = make_x(batch)
    rec = SavedRecorder(model)
    out = rec.run(x)
    saved = sum(s["nbytes"] for s in rec.storages.values())
    by_owner: dict[str, int] = defaultdict(int)
    for s in rec.storages.values():
        by_owner[s["owner_type"]] += s["nbytes"]
    del out
    setup = Setup(batch, "fp32", "momentum", "train")
    est = estimate(analysis, setup, NO_ROUNDING)
    plan_saved = est.kept_for_backward_bytes
    # Peak: one SGD-momentum step through the profiler.
    wrapped = LMLoss(model)
    y = make_y(batch, None).reshape(-1)
    meas = measured_peak(wrapped, x, y)["peak"]
    plan_peak = estimate(analysis, setup, TENSORS_ONLY).peak
    row = {"name": name, "attn": attn, "mode": mode, "params": params,
           "plan_params": analysis.parameters, "trainable": trainable,
           "saved": saved, "plan_saved": plan_saved, "peak": meas, "plan_peak": plan_peak}
    if breakdown:
        print(f"-- {name} {attn} {mode}: torch saved by module type")
        for k, v in sorted(by_owner.items(), key=lambda kv: -kv[1]):
            print(f"   {k:40s} {v / MIB:10.2f} MiB")
        per_kind: dict[str, int] = defaultdict(int)
        for layer in est.layers:
            per_kind[layer.kind] += layer.activation_bytes
        print("   planner by kind:", {k: round(v / MIB, 2) for k, v in per_kind.items()})
        at = est.peak_at
        print(f"   planner peak at {at.name} ({at.phase})")
    return row


def pct(a: float, b: float) -> float:
    return 100.0 * (a - b) / b if b else 0.0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--only", default="bert,gpt2,vit,llama-small")
    ap.add_argument("--attn", default="eager,sdpa")
    ap.add_argument("--modes", default="full,lora")
    ap.add_argument("--breakdown", action="store_true")
    ap.add_argument("--no-cache", action="store_true",
                    help="decoders without use_cache (both the model and the draft)")
    args = ap.parse_args(argv)
    torch.set_num_threads(2)
    rows = []
    for name in args.only.split(","):
        for attn in args.attn.split(","):
            for mode in args.modes.split(","):
                r = run_one(name, attn, mode, args.batch, args.seq, args.breakdown,
                            not args.no_cache)
                rows.append(r)
                print(f"{name} {attn} {mode}: params {r['params']} / {r['plan_params']}; "
                      f"saved {pct(r['plan_saved'], r['saved']):+.1f} %; "
                      f"peak {pct(r['plan_peak'], r['peak']):+.1f} %", flush=True)
    print()
    print(f"batch {args.batch}, sequence {args.seq} tokens (ViT: 197), fp32, CPU, dropout 0, "
          f"decoders' use_cache {'off' if args.no_cache else 'on'}.")
    out = []
    for r in rows:
        ok_p = "exact" if r["params"] == r["plan_params"] else \
            f"{r['plan_params'] - r['params']:+d}"
        es, ep = pct(r["plan_saved"], r["saved"]), pct(r["plan_peak"], r["peak"])
        flag = "" if abs(es) <= TOL and abs(ep) <= TOL and ok_p == "exact" else " FAIL"
        out.append([r["name"], r["attn"], r["mode"], f"{r['params']:,}", ok_p,
                    f"{r['saved'] / MIB:.1f}", f"{r['plan_saved'] / MIB:.1f}", f"{es:+.1f}",
                    f"{r['peak'] / MIB:.1f}", f"{r['plan_peak'] / MIB:.1f}", f"{ep:+.1f}{flag}"])
    print(table(["network", "attention", "training", "parameters", "planner",
                 "saved (MiB)", "planner", "error %", "peak (MiB)", "planner", "error %"], out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
