"""ONNX files with several inputs, and the gathers of activations: the import against autograd.

Encoder-decoder files (T5, BART, Whisper: input_ids or input_features + decoder_input_ids) and a
two-tower file (CLIP: input_ids + pixel_values), small configs from transformers with random
weights (no hub access), plus DeBERTa-v2 (GatherElements) and Falcon (GatherND in the default
exporter's file). Each is exported

* ``dynamo`` / ``legacy``: ``torch.onnx.export(model.eval(), args, f)`` with the default exporter
  and with ``dynamo=False`` (what users make; an inference export: no dropout in the file);
* ``dynamo_train`` / ``legacy_train``: ``model.train()`` with ``training=TRAINING`` (the legacy
  one also ``do_constant_folding=False``), where dropout is in the file,

at batch 1, imported at batch 2 (every input followed at the shape it was exported with), and
compared with what autograd keeps for one training step on the CPU (``accuracy.torch_side``):
for an inference export with the network's dropout switched off (the network the file holds),
for a training export with it (dropout's CUDA one-byte masks, ``onnx_accuracy.cuda_kernels``).
Target: parameters equal to the network's (or the difference warned), saved bytes within ±5 %
(or the remaining gap warned with its figure). Needs transformers; not run by CI.

    PYTHONPATH=. python benchmarks/onnx_multi_input.py [--models t5,bart] [--modes legacy]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import time
import traceback
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import torch  # noqa: E402
from accuracy import TOLERANCE_PCT, table, torch_side  # noqa: E402
from onnx_accuracy import cuda_kernels, planner_figures  # noqa: E402

from planner.core.importers.onnx import OnnxImportError, import_onnx  # noqa: E402

V = 1000
MODES = ("dynamo", "legacy", "dynamo_train", "legacy_train")
MODELS = ("t5", "bart", "whisper", "clip", "deberta_v2", "falcon")


class _Wrap(torch.nn.Module):
    """Positional inputs -> the model's first output tensor."""

    def __init__(self, m, keys):
        super().__init__()
        self.m, self.keys = m, keys

    def forward(self, *xs):
        out = self.m(**dict(zip(self.keys, xs)))
        return out if isinstance(out, torch.Tensor) else out.to_tuple()[0]


def _ids(b, t=64):
    return torch.randint(0, V, (b, t))


def build(name: str):
    """(module, example(batch) -> the tuple of inputs)."""
    import transformers as tf  # noqa: PLC0415

    small = dict(vocab_size=V)
    seq = dict(d_model=128, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
               decoder_attention_heads=4, encoder_ffn_dim=512, decoder_ffn_dim=512)
    txt = dict(hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
               intermediate_size=512, **small)
    if name == "t5":
        m = tf.T5Model(tf.T5Config(d_model=128, d_kv=32, d_ff=512, num_layers=2, num_heads=4,
                                   decoder_start_token_id=0, **small))
        return _Wrap(m, ["input_ids", "decoder_input_ids"]), lambda b: (_ids(b), _ids(b, 32))
    if name == "bart":
        m = tf.BartModel(tf.BartConfig(max_position_embeddings=128, **seq, **small))
        return _Wrap(m, ["input_ids", "decoder_input_ids"]), lambda b: (_ids(b), _ids(b, 32))
    if name == "whisper":
        m = tf.WhisperModel(tf.WhisperConfig(
            num_mel_bins=80, max_source_positions=1500, max_target_positions=64,
            pad_token_id=0, bos_token_id=0, eos_token_id=0, decoder_start_token_id=0, **seq,
            **small))
        return _Wrap(m, ["input_features", "decoder_input_ids"]), \
            lambda b: (torch.randn(b, 80, 3000), _ids(b, 16))
    if name == "clip":
        m = tf.CLIPModel(tf.CLIPConfig(
            text_config=dict(max_position_embeddings=64, **txt),
            vision_config=dict(hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
                               intermediate_size=512, image_size=224, patch_size=32),
            projection_dim=64))
        return _Wrap(m, ["input_ids", "pixel_values"]), \
            lambda b: (_ids(b, 32), torch.randn(b, 3, 224, 224))
    if name == "deberta_v2":
        m = tf.DebertaV2Model(tf.DebertaV2Config(
            relative_attention=True, position_buckets=32, max_relative_positions=64,
            pos_att_type=["p2c", "c2p"], **txt))
        return _Wrap(m, ["input_ids"]), lambda b: (_ids(b),)
    if name == "falcon":
        m = tf.FalconModel(tf.FalconConfig(
            hidden_size=256, num_hidden_layers=2, num_attention_heads=4,
            new_decoder_architecture=False, multi_query=True, bos_token_id=0, eos_token_id=0,
            **small))
        return _Wrap(m, ["input_ids"]), lambda b: (_ids(b),)
    raise KeyError(name)


def export(name: str, mode: str, cache: Path) -> tuple[Path | None, str]:
    path = cache / f"{name}.{mode}.onnx"
    status = cache / f"{name}.{mode}.status"
    if path.exists():
        return path, ""
    if status.exists():
        return None, json.loads(status.read_text())["error"]
    torch.manual_seed(0)
    model, example = build(name)
    args = example(1)
    train = mode.endswith("_train")
    kw: dict = {} if mode.startswith("dynamo") else {"dynamo": False}
    if train:
        kw["training"] = torch.onnx.TrainingMode.TRAINING
        if not mode.startswith("dynamo"):
            kw["do_constant_folding"] = False
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            warnings.simplefilter("ignore")
            torch.onnx.export(model.train() if train else model.eval(), args, str(path), **kw)
        return path, ""
    except Exception as exc:  # noqa: BLE001 - an export that fails is a row saying so
        err = "".join(traceback.format_exception_only(type(exc), exc)).strip().splitlines()[0]
        status.write_text(json.dumps({"error": err[:160]}))
        if path.exists():
            path.unlink()
        return None, err[:160]


class _Args(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, xs):
        return self.m(*xs)


def autograd(name: str, batch: int, dropout: bool) -> tuple[int, int]:
    """(parameters, bytes autograd keeps) for one training step at ``batch``."""
    torch.manual_seed(0)
    model, example = build(name)
    if not dropout:  # modules, and the probabilities functional dropout reads off its module
        for mod in model.modules():
            if isinstance(mod, torch.nn.Dropout):
                mod.p = 0.0
            for key, value in list(vars(mod).items()):
                if "dropout" in key and isinstance(value, float):
                    setattr(mod, key, 0.0)
    with cuda_kernels():
        m = torch_side(_Args(model), example(batch))
    return m["parameters"], m["saved"] - m["dropout_excess"]


def row(name: str, mode: str, cache: Path, batch: int) -> dict:
    path, err = export(name, mode, cache)
    if path is None:
        return {"model": name, "mode": mode, "verdict": "export fails: " + err[:90]}
    t = time.perf_counter()
    try:
        res = import_onnx(path, batch=batch)
    except OnnxImportError as exc:
        return {"model": name, "mode": mode, "verdict": "refused: " + str(exc)[:120]}
    ms = 1000 * (time.perf_counter() - t)
    p_plan, s_plan = planner_figures(res.draft, batch)
    has_dropout = any(layer.kind == "dropout" for layer in res.draft.layers)
    p_torch, s_torch = autograd(name, batch, dropout=has_dropout)
    err_pct = 100.0 * (s_plan - s_torch) / s_torch
    warned = [str(w) for w in res.warnings]
    ok = abs(err_pct) <= TOLERANCE_PCT and p_plan == p_torch
    verdict = "pass" if ok else ("warned" if warned else "MISS")
    return {"model": name, "mode": mode, "ms": ms, "inputs": " + ".join(
        f"{n} {'×'.join(map(str, s))}" for n, _l, s in getattr(res.report, "inputs", ())),
        "p_plan": p_plan, "p_torch": p_torch, "file": res.report.file_weights,
        "s_plan": s_plan, "s_torch": s_torch, "err": err_pct, "dropout": has_dropout,
        "complete": res.report.complete, "verdict": verdict, "warnings": warned}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", default="/tmp/planner-onnx-multi", help="folder of exports")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--json", help="also write the rows here (JSON lines)")
    args = ap.parse_args(argv)
    try:
        import transformers  # noqa: F401, PLC0415
    except ImportError:
        print("transformers is not installed: nothing to measure")
        return 0
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    print(f"torch {torch.__version__} (CPU); fp32 train step at batch {args.batch}; autograd "
          "without dropout for inference exports, with it (CUDA masks) for training exports.\n")
    rows = []
    for name in args.models.split(","):
        for mode in args.modes.split(","):
            r = row(name, mode, cache, args.batch)
            rows.append(r)
            if args.json:
                with open(args.json, "a") as f:
                    f.write(json.dumps(r) + "\n")
    out = []
    for r in rows:
        if "s_plan" not in r:
            out.append([r["model"], r["mode"], "", "", "", "", "", "", r["verdict"]])
            continue
        out.append([r["model"], r["mode"], r["inputs"], f"{r['p_plan']:,}", f"{r['p_torch']:,}",
                    f"{r['s_plan'] / 2**20:,.2f}", f"{r['s_torch'] / 2**20:,.2f}",
                    f"{r['err']:+.2f}", r["verdict"]])
    print(table(["model", "export", "inputs followed", "params plan", "params torch",
                 "saved plan MiB", "saved autograd MiB", "error %", "verdict"], out))
    for r in rows:
        for w in r.get("warnings", ()):
            print(f"  {r['model']} {r['mode']}: {w[:220]}")
    misses = [r for r in rows if r.get("verdict") == "MISS"]
    print(f"\n{len(rows)} rows, {sum(r.get('verdict') == 'pass' for r in rows)} pass, "
          f"{sum(r.get('verdict') == 'warned' for r in rows)} off target and warned, "
          f"{len(misses)} silent misses.")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
