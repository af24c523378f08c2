"""Accuracy benchmark: the planner's estimate against what PyTorch really keeps for backward.

Run it in a separate virtual environment with a CPU PyTorch (see ``benchmarks/README.md``)::

    /tmp/torchvenv/bin/python benchmarks/accuracy.py [--batch 16] [--breakdown]

For each torchvision-based preset (alexnet, vgg16, resnet18, resnet50, mobilenet_v2) it builds
the real torchvision model (``weights=None``, train mode, fp32) and compares, at batch 16 and a
224×224 input:

1. the parameter count: must be exact;
2. the saved-activation bytes: the planner's ``activations`` term, with allocator rounding
   switched off (rounding is what the caching allocator does to a tensor, not what autograd
   keeps), against the sum of the *unique storages* that autograd saves for backward during the
   forward pass, recorded with ``torch.autograd.graph.saved_tensors_hooks``: each saved tensor
   is deduplicated by ``untyped_storage().data_ptr()`` and its storage's ``nbytes()`` counted
   once; tensors whose storage is a parameter's are left out (weights are a separate term).
   Buffers that autograd saves (batch norm's running mean/var) are counted and shown
   separately. Pass band: ±5 %.

The planner models CUDA; this runs on the CPU. The one difference that matters at these sizes is
dropout: CPU autograd keeps an fp32 noise tensor (4 bytes an element) where CUDA's fused kernel
keeps a one-byte mask. The table shows that excess and the error with it taken out.

The LSTM presets (``lstm-128``, ``lstm-1024``) are compared with ``torch.nn.LSTM`` +
``Linear`` for information only: a CPU LSTM keeps different tensors from cuDNN's reserve space,
which is what the planner models.

A network outside the band gets a ``FAIL`` marker and a per-layer-type breakdown (planner layer
kinds vs the torch module that first saved each storage) to help find the cause. The exit
status is always 0: this prints figures, it is not a test. CI does not run it.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import torch
import torchvision

from planner.core.memory import Assumptions, estimate
from planner.core.network import Setup, analyze
from planner.core.presets import load_preset

MIB = 1 << 20
TOLERANCE_PCT = 5.0
CNN_PRESETS = ("alexnet", "vgg16", "resnet18", "resnet50", "mobilenet_v2")
LSTM_PRESETS = ("lstm-128", "lstm-1024")
# Allocator rounding off: every tensor counts its exact bytes.
NO_ROUNDING = Assumptions(allocator_block_bytes=1, allocator_segment_bytes=1,
                          allocator_large_threshold_bytes=1 << 62)

# Torch module type -> the planner's layer kind it corresponds to (for the breakdown).
TORCH_GROUP = {
    "Conv2d": "conv2d", "BatchNorm2d": "batchnorm", "ReLU": "activation",
    "ReLU6": "activation", "Hardtanh": "activation", "MaxPool2d": "maxpool",
    "AdaptiveAvgPool2d": "avgpool", "Dropout": "dropout", "Linear": "fc", "LSTM": "lstm",
    "Flatten": "flatten",
}
PLANNER_GROUP = {"adaptive_avgpool": "avgpool", "global_avgpool": "avgpool",
                 "avgpool": "avgpool"}


def fmt_mib(n: float) -> str:
    return f"{n / MIB:.3f}"


# --------------------------------------------------------------------------------------------
# The planner's side
# --------------------------------------------------------------------------------------------


def planner_side(name: str, batch: int) -> dict:
    draft, _setup = load_preset(name)
    analysis = analyze(draft)
    est = estimate(analysis, Setup(batch, "fp32", "sgd", "train"), NO_ROUNDING)
    by_kind: dict[str, int] = defaultdict(int)
    for layer in est.layers:
        by_kind[PLANNER_GROUP.get(layer.kind, layer.kind)] += layer.activation_bytes
    return {"parameters": analysis.parameters, "activations": est.saved_bytes,
            "by_kind": dict(by_kind), "layers": est.layers}


# --------------------------------------------------------------------------------------------
# The torch side: what autograd really keeps
# --------------------------------------------------------------------------------------------


class SavedRecorder:
    """Records every tensor autograd saves while a forward pass runs, deduplicated by storage,
    and which module (innermost one running) saved it first."""

    def __init__(self, model: torch.nn.Module):
        self.model = model
        self.param_ptrs = {p.untyped_storage().data_ptr() for p in model.parameters()}
        self.buffer_ptrs = {b.untyped_storage().data_ptr() for b in model.buffers()}
        self.stack: list[tuple[str, str, int]] = []  # (name, type, call number)
        self.calls = 0
        self.storages: dict[int, dict] = {}
        self.param_saves = 0
        self.inplace_out: dict[int, int] = {}  # call of an in-place module -> output storage
        self.handles = []
        for qual, mod in model.named_modules():
            label = (qual or "<model>", type(mod).__name__)
            self.handles.append(mod.register_forward_pre_hook(self._push(label)))
            self.handles.append(mod.register_forward_hook(self._pop))

    def _push(self, label):
        def hook(_mod, _inputs):
            self.calls += 1  # a module called twice (resnet's relu) is two calls
            self.stack.append(label + (self.calls,))
        return hook

    def _pop(self, mod, _inputs, output):
        _qual, _type, call = self.stack.pop()
        if isinstance(output, torch.Tensor) and getattr(mod, "inplace", False):
            self.inplace_out[call] = output.untyped_storage().data_ptr()

    def _pack(self, t: torch.Tensor):
        st = t.untyped_storage()
        ptr = st.data_ptr()
        if ptr in self.param_ptrs:
            self.param_saves += 1
            return t
        if ptr not in self.storages:
            owner, owner_type, call = self.stack[-1] if self.stack else ("<none>", "<none>", 0)
            # A module that calls functional ops in its own forward (resnet's residual add,
            # mobilenet's avgpool) shows as its container type; mark it as functional.
            leaf = owner == "<none>" or not any(True for _ in self._module(owner).children())
            self.storages[ptr] = {
                "nbytes": st.nbytes(), "dtype": t.dtype, "numel": st.nbytes() // t.element_size(),
                "owner": owner, "call": call,
                "owner_type": owner_type if leaf else f"{owner_type}(functional)",
                "buffer": ptr in self.buffer_ptrs,
            }
        return t

    def _module(self, qual: str) -> torch.nn.Module:
        return self.model if qual == "<model>" else self.model.get_submodule(qual)

    def run(self, x: torch.Tensor):
        with torch.autograd.graph.saved_tensors_hooks(self._pack, lambda t: t):
            out = self.model(x)
        for h in self.handles:
            h.remove()
        return out  # keep it (and so the graph and every saved storage) alive while counting


def graph_saved(out: torch.Tensor, param_ptrs: set[int]) -> tuple[int, dict[int, set[str]]]:
    """Cross-check: walk the autograd graph and sum the unique storages its nodes hold; also
    say which backward nodes (grad_fn names) hold each storage."""
    seen_nodes, seen_ptrs, total = set(), set(), 0
    holders: dict[int, set[str]] = defaultdict(set)
    todo = [out.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or node in seen_nodes:
            continue
        seen_nodes.add(node)
        for attr in dir(node):
            if not attr.startswith("_saved_"):
                continue
            val = getattr(node, attr, None)  # the graph is alive, so nothing is freed yet
            vals = val if isinstance(val, (tuple, list)) else (val,)
            for v in vals:
                if isinstance(v, torch.Tensor):
                    st = v.untyped_storage()
                    ptr = st.data_ptr()
                    if ptr in param_ptrs:
                        continue
                    holders[ptr].add(node.name())
                    if ptr in seen_ptrs:
                        continue
                    seen_ptrs.add(ptr)
                    total += st.nbytes()
        todo.extend(fn for fn, _ in node.next_functions)
    return total, holders


def torch_side(model: torch.nn.Module, x: torch.Tensor) -> dict:
    model.train()
    rec = SavedRecorder(model)
    out = rec.run(x)
    graph_total, holders = graph_saved(out, rec.param_ptrs)
    by_op: dict[str, int] = defaultdict(int)
    for ptr, names in holders.items():
        if ptr in rec.storages:
            by_op[" + ".join(sorted(names))] += rec.storages[ptr]["nbytes"]
    # In-place modules whose saved tensor is not their output's storage kept a copy.
    copies: dict[str, list[int]] = defaultdict(list)
    for ptr, s in rec.storages.items():
        out_ptr = rec.inplace_out.get(s["call"])
        if out_ptr is not None and out_ptr != ptr:
            copies[s["owner_type"]].append(s["nbytes"])
    total = sum(s["nbytes"] for s in rec.storages.values())
    buffers = sum(s["nbytes"] for s in rec.storages.values() if s["buffer"])
    # CPU dropout keeps fp32 noise; CUDA keeps a one-byte mask of the same number of elements.
    drop = [s for s in rec.storages.values() if s["owner_type"] == "Dropout"]
    dropout_excess = sum(s["nbytes"] - s["numel"] for s in drop)
    by_type: dict[str, int] = defaultdict(int)
    by_group: dict[str, int] = defaultdict(int)
    by_dtype: dict[str, int] = defaultdict(int)
    for s in rec.storages.values():
        key = s["owner_type"] + (" [buffer]" if s["buffer"] else "")
        by_type[key] += s["nbytes"]
        by_group[TORCH_GROUP.get(s["owner_type"], s["owner_type"])] += s["nbytes"]
        by_dtype[str(s["dtype"]).replace("torch.", "")] += s["nbytes"]
    del out
    return {
        "parameters": sum(p.numel() for p in model.parameters()),
        "saved": total, "graph_saved": graph_total, "buffers": buffers,
        "dropout_excess": dropout_excess, "by_type": dict(by_type), "by_group": dict(by_group),
        "by_dtype": dict(by_dtype), "storages": rec.storages, "param_saves": rec.param_saves,
        "by_op": dict(by_op), "inplace_copies": dict(copies),
    }


class LSTMNet(torch.nn.Module):
    """The planner's LSTM presets: LSTM over T×F (batch first), last step, a Linear."""

    def __init__(self, features: int, hidden: int, layers: int, bidirectional: bool, units: int):
        super().__init__()
        self.lstm = torch.nn.LSTM(features, hidden, layers, batch_first=True,
                                  bidirectional=bidirectional)
        self.fc = torch.nn.Linear(hidden * (2 if bidirectional else 1), units)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.fc(out[:, -1])


# --------------------------------------------------------------------------------------------
# The peak of one training step: the planner's simulated step against the CPU profiler
# --------------------------------------------------------------------------------------------

# The planner's peak with nothing but tensors: no context, libraries, cuBLAS or convolution
# workspace (CPU kernels have none of them), no allocator rounding (the CPU allocator has none).
TENSORS_ONLY = Assumptions(cuda_context_bytes=0, library_handles_bytes=0,
                           cublas_workspace_bytes=0, allocator_model=False,
                           conv_algorithm="implicit_gemm")
PEAK_NETWORKS = ("alexnet", "vgg11", "vgg16", "vgg19", "vgg16_bn", "resnet18", "resnet34",
                 "resnet50", "resnet101", "resnext50_32x4d", "wide_resnet50_2", "mobilenet_v2",
                 "densenet121", "squeezenet1_0", "squeezenet1_1", "mnasnet1_0", "googlenet")
AUTOCAST_NETWORKS = ("resnet18", "resnet50", "vgg16", "mobilenet_v2", "densenet121")


def torchvision_model(name: str) -> torch.nn.Module:
    kw = {"aux_logits": False, "init_weights": False} if name == "googlenet" else {}
    return getattr(torchvision.models, name)(weights=None, **kw)


def measured_peak(model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor) -> dict:
    """The CPU profiler's memory timeline over one SGD-momentum step (after a first step made
    the momentum buffers): its largest total, and the largest of each category."""
    from torch.profiler import ProfilerActivity, profile
    from torch.profiler._memory_profiler import MemoryProfileTimeline

    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()

    step()
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True, record_shapes=True,
                 with_stack=True) as prof:
        step()
    timeline = MemoryProfileTimeline(prof._memory_profile())
    _times, sizes = timeline._coalesce_timeline("cpu")
    totals = [sum(row) for row in sizes]
    at = max(range(len(totals)), key=totals.__getitem__)
    return {"peak": totals[at]}


def planner_peak(draft, batch: int, precision: str = "fp32") -> dict:
    est = estimate(analyze(draft), Setup(batch, precision, "momentum", "train"), TENSORS_ONLY)
    at = est.peak_at
    return {"peak": est.peak, "at": f"{at.name} ({at.phase})"}


def peak_table(batches: list[int], size: int, names=PEAK_NETWORKS) -> tuple[list, list]:
    from torch_drafts import draft_from_module

    rows, misses = [], []
    for name in names:
        model = torchvision_model(name)
        draft = draft_from_module(model, (3, size, size), name)
        for b in batches:
            torch.manual_seed(0)
            x = torch.randn(b, 3, size, size)
            y = torch.randint(0, 1000, (b,))
            meas = measured_peak(model, x, y)
            plan = planner_peak(draft, b)
            err = 100.0 * (plan["peak"] - meas["peak"]) / meas["peak"]
            ok = abs(err) <= TOLERANCE_PCT
            if not ok:
                misses.append(f"{name}@{b}")
            rows.append([name, str(b), fmt_mib(plan["peak"]), fmt_mib(meas["peak"]),
                         f"{err:+.2f}", "yes" if ok else "NO  FAIL", plan["at"]])
            print("  " + " | ".join(rows[-1]), flush=True)
        del model
    return rows, misses


def autocast_saved(model: torch.nn.Module, x: torch.Tensor) -> int:
    """Unique storages autograd keeps for backward under CPU autocast bf16, parameters left
    out (their 16-bit copies are not parameter storage, so they count)."""
    model.train()
    rec = SavedRecorder(model)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = rec.run(x)
    total = sum(s["nbytes"] for s in rec.storages.values())
    del out
    return total


def autocast_table(batch: int, size: int, names=AUTOCAST_NETWORKS) -> tuple[list, list]:
    from torch_drafts import draft_from_module

    rows, misses = [], []
    for name in names:
        model = torchvision_model(name)
        draft = draft_from_module(model, (3, size, size), name)
        torch.manual_seed(0)
        meas = autocast_saved(model, torch.randn(batch, 3, size, size))
        est = estimate(analyze(draft), Setup(batch, "mixed_bf16", "momentum", "train"),
                       TENSORS_ONLY)
        plan = est.kept_for_backward_bytes
        copies = est.step_totals["weight_copies"]
        err = 100.0 * (plan - meas) / meas
        ok = abs(err) <= TOLERANCE_PCT
        if not ok:
            misses.append(name)
        rows.append([name, str(batch), fmt_mib(plan), fmt_mib(meas), f"{err:+.2f}",
                     "yes" if ok else "NO  FAIL", fmt_mib(copies)])
        print("  " + " | ".join(rows[-1]), flush=True)
        del model
    return rows, misses


# --------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------


def table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"

    sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(headers), sep] + [line(r) for r in rows])


def breakdown(name: str, plan: dict, meas: dict) -> str:
    keys = sorted(set(plan["by_kind"]) | set(meas["by_group"]),
                  key=lambda k: -max(plan["by_kind"].get(k, 0), meas["by_group"].get(k, 0)))
    rows = []
    for k in keys:
        p, t = plan["by_kind"].get(k, 0), meas["by_group"].get(k, 0)
        if p == 0 and t == 0:
            continue
        rows.append([k, fmt_mib(p), fmt_mib(t), f"{(p - t) / MIB:+.3f}"])
    out = [f"\nBreakdown for {name} (bytes attributed to the layer that first keeps each storage):",
           table(["layer kind", "planner MiB", "torch MiB", "planner - torch MiB"], rows)]
    out.append("  torch by module type: " + ", ".join(
        f"{k} {fmt_mib(v)}" for k, v in sorted(meas["by_type"].items(), key=lambda kv: -kv[1])))
    out.append("  torch by dtype: " + ", ".join(
        f"{k} {fmt_mib(v)}" for k, v in sorted(meas["by_dtype"].items(), key=lambda kv: -kv[1])))
    out.append("  torch by backward node holding each storage (' + ' = held by several): "
               + ", ".join(f"{k} {fmt_mib(v)}"
                           for k, v in sorted(meas["by_op"].items(), key=lambda kv: -kv[1])))
    for typ, sizes in meas["inplace_copies"].items():
        out.append(f"  NOTE: {len(sizes)} in-place {typ} module(s) saved a separate copy of their "
                   f"input (not their output's storage): {fmt_mib(sum(sizes))} MiB")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--size", type=int, default=224, help="input height and width")
    ap.add_argument("--breakdown", action="store_true",
                    help="print the per-layer-type breakdown for every network, not only misses")
    ap.add_argument("--skip-lstm", action="store_true")
    ap.add_argument("--what", default="saved,peak,autocast",
                    help="comma-separated sections: saved, peak, autocast")
    ap.add_argument("--peak-batches", default="2,8", help="batch sizes of the peak table")
    ap.add_argument("--networks", default="", help="comma-separated subset of the peak and "
                    "autocast networks (default: all)")
    args = ap.parse_args(argv)
    what = set(args.what.split(","))
    subset = [n for n in args.networks.split(",") if n]
    if "peak" in what or "autocast" in what:
        print(f"GPU Planner peak benchmark: torch {torch.__version__} (CPU), torchvision "
              f"{torchvision.__version__}, {args.size}×{args.size} input, fp32, train mode.")
    if "peak" in what:
        batches = [int(v) for v in args.peak_batches.split(",")]
        print("Peak of one SGD-momentum step (zero_grad(set_to_none=True), forward, cross "
              "entropy, backward, step; after a first step made the momentum buffers): the "
              "planner's simulated step with tensors only (no context, workspace or allocator "
              "rounding) against the largest total of torch.profiler's memory timeline "
              "(profile_memory=True, MemoryProfileTimeline). Networks converted from "
              "torchvision with torch.fx (benchmarks/torch_drafts.py).")
        rows, misses = peak_table(batches, args.size, subset or PEAK_NETWORKS)
        print(table(["network", "batch", "planner peak (MiB)", "profiler peak (MiB)", "error %",
                     "within ±5%?", "planner's peak at"], rows))
        print(f"\n{'FAIL: ' + ', '.join(misses) if misses else 'PASS: every row'} "
              f"(±{TOLERANCE_PCT:g}%, {len(rows)} rows)\n")
    if "autocast" in what:
        b = args.batch
        print(f"torch.autocast('cpu', dtype=torch.bfloat16), batch {b}: bytes autograd keeps "
              "for backward (unique storages seen by saved_tensors_hooks, parameters left out, "
              "so the 16-bit weight copies count) against the planner's mixed_bf16 step "
              "(what its layers keep, the 16-bit casts and weight copies).")
        rows, misses = autocast_table(b, args.size, [n for n in subset
                                                     if n in AUTOCAST_NETWORKS]
                                      or AUTOCAST_NETWORKS)
        print(table(["network", "batch", "planner kept (MiB)", "autograd kept (MiB)",
                     "error %", "within ±5%?", "of which weight copies (MiB)"], rows))
        print(f"\n{'FAIL: ' + ', '.join(misses) if misses else 'PASS: every row'} "
              f"(±{TOLERANCE_PCT:g}%)\n")
    if "saved" not in what:
        return 0
    torch.manual_seed(0)
    torch.set_grad_enabled(True)
    b = args.batch
    print(f"GPU Planner accuracy benchmark: torch {torch.__version__} (CPU), "
          f"torchvision {torchvision.__version__}; batch {b}, fp32, train mode, "
          f"{args.size}×{args.size} input")
    print("Saved bytes: planner 'activations' term with allocator rounding OFF (rounding is an "
          "allocator effect, not what autograd saves) vs the sum of unique storages saved by "
          "autograd (saved_tensors_hooks), parameters excluded, buffers included.\n")

    rows, details, misses = [], [], []
    for name in CNN_PRESETS:
        plan = planner_side(name, b)
        model = getattr(torchvision.models, name)(weights=None)
        x = torch.randn(b, 3, args.size, args.size)
        meas = torch_side(model, x)
        if meas["graph_saved"] != meas["saved"]:
            print(f"note: {name}: graph walk finds {meas['graph_saved']} bytes, hooks "
                  f"{meas['saved']} bytes")
        err = 100.0 * (plan["activations"] - meas["saved"]) / meas["saved"]
        cuda_like = meas["saved"] - meas["dropout_excess"]
        err_cuda = 100.0 * (plan["activations"] - cuda_like) / cuda_like
        exact = plan["parameters"] == meas["parameters"]
        ok = abs(err) <= TOLERANCE_PCT
        if not (ok and exact):
            misses.append(name)
        rows.append([
            name, f"{plan['parameters']:,}", f"{meas['parameters']:,}",
            "yes" if exact else "NO  FAIL", fmt_mib(plan["activations"]), fmt_mib(meas["saved"]),
            f"{err:+.2f}", "yes" if ok else "NO  FAIL",
            fmt_mib(meas["buffers"]), fmt_mib(meas["dropout_excess"]), f"{err_cuda:+.2f}",
        ])
        if args.breakdown or not ok:
            details.append(breakdown(name, plan, meas))
        del model, meas

    print(table(["network", "params planner", "params torch", "exact?", "saved planner (MiB)",
                 "saved torch (MiB)", "error %", "within ±5%?", "of which buffers (MiB)",
                 "CPU dropout excess (MiB)¹", "error % (CUDA dropout)"], rows))
    print("\n¹ CPU dropout saves an fp32 noise tensor (4 B/element); CUDA's fused kernel saves a "
          "1 B mask. The excess is already in 'saved torch'; the last column removes it.")
    print("  'of which buffers' = batch norm running mean/var that autograd keeps a reference "
          "to (they exist anyway as model state).")
    for d in details:
        print(d)
    if misses:
        print(f"\nFAIL: {', '.join(misses)} outside ±{TOLERANCE_PCT:g}% or parameter count "
              "not exact")
    else:
        print(f"\nPASS: all {len(CNN_PRESETS)} networks exact in parameters and within "
              f"±{TOLERANCE_PCT:g}% in saved bytes")

    if not args.skip_lstm:
        print("\nLSTM presets (informational: CPU LSTM saves differ from cuDNN's reserve space, "
              "which the planner models; not pass/fail)")
        lrows, ldetails = [], []
        for name in LSTM_PRESETS:
            plan = planner_side(name, b)
            draft, _ = load_preset(name)
            inp = next(layer for layer in draft.layers if layer.kind == "input")
            lstm = next(layer for layer in draft.layers if layer.kind == "lstm")
            fc = next(layer for layer in draft.layers if layer.kind == "fc")
            steps, feats = (int(v) for v in inp.params["shape"])
            p = lstm.params
            model = LSTMNet(feats, int(p["hidden"]), int(p.get("layers", 1)),
                            bool(p.get("bidirectional", False)), int(fc.params["units"]))
            meas = torch_side(model, torch.randn(b, steps, feats))
            err = 100.0 * (plan["activations"] - meas["saved"]) / meas["saved"]
            lrows.append([name, f"{steps}×{feats} → {p['hidden']}", f"{plan['parameters']:,}",
                          f"{meas['parameters']:,}",
                          "yes" if plan["parameters"] == meas["parameters"] else "NO",
                          fmt_mib(plan["activations"]), fmt_mib(meas["saved"]), f"{err:+.2f}"])
            ldetails.append(f"  {name}: planner by kind: " + ", ".join(
                f"{k} {fmt_mib(v)}" for k, v in plan["by_kind"].items() if v) +
                "; torch by module: " + ", ".join(
                f"{k} {fmt_mib(v)}" for k, v in meas["by_type"].items()) +
                "; torch by dtype: " + ", ".join(
                f"{k} {fmt_mib(v)}" for k, v in meas["by_dtype"].items()))
        print(table(["preset", "input → hidden", "params planner", "params torch", "exact?",
                     "saved planner (MiB)", "saved torch CPU (MiB)", "difference %"], lrows))
        print("\n".join(ldetails))
    return 0


if __name__ == "__main__":
    from reporting import run_reporting

    run_reporting(main, "benchmark")
