"""Command-line interface over the same engine as the GUI (Qt-free).

``gpu-planner estimate SOURCE ...``, ``gpu-planner presets``; ``--json`` prints one object that
scripts rely on. Bad input: exit status 2 and one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import math
import sys
from dataclasses import replace
from typing import Any, Sequence

from planner import __version__
from planner.core.layers import LayerError, parse_ints
from planner.core.memory import PHASE_LABELS, TERMS, Assumptions, term_label
from planner.core.network import (
    OPTIMIZERS,
    PRECISIONS,
    InvalidDraft,
    NetworkDraft,
    PlanFileError,
    Setup,
    load_plan_file,
)
from planner.core.presets import list_presets, load_preset
from planner import safeio
from planner.safeio import clean
from planner.units import GIB, format_bytes, format_count

EXIT_USAGE = 2


class UsageError(Exception):
    """Bad input from the user: reported in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, no usage dump
        raise UsageError(f"{self.prog}: {message}")


# -- numbers and texts from outside: finite, in range, not empty --------------------------------

def number(lo: float, hi: float, *, low_open: bool = False, integer: bool = False):
    """An argparse type: a finite number in [lo, hi] ((lo, hi] with ``low_open``); inf, nan,
    1e300 and the empty string are refused with one line."""

    def parse(text: str):
        shown = clean(text, max_len=40)
        try:
            value = float(text) if not integer else int(text.strip(), 10)
        except (ValueError, OverflowError):
            kind = "a whole number" if integer else "a number"
            raise argparse.ArgumentTypeError(f"{shown!r} is not {kind}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{shown!r} is not a finite number")
        if value < lo or (low_open and value == lo) or value > hi:
            lo_txt = f"more than {lo:.15g}" if low_open else f"at least {lo:.15g}"
            raise argparse.ArgumentTypeError(f"{shown} is out of range ({lo_txt} and at most "
                                             f"{hi:.15g})")
        return value

    parse.__name__ = "integer" if integer else "number"
    return parse


def text(what: str = "value"):
    """An argparse type: a non-empty text without control characters."""

    def parse(value: str) -> str:
        if not value.strip():
            raise argparse.ArgumentTypeError(f"the {what} is empty")
        if "\x00" in value:
            raise argparse.ArgumentTypeError(f"the {what} holds a NUL character")
        return value

    parse.__name__ = what
    return parse


def load_source(source: str, *, batch: int | None = None, input_shape=None,
                imported: list | None = None,
                parallel: list | None = None,
                seq_len: int | None = None) -> tuple[NetworkDraft, Setup]:
    """A plan file, ``preset:NAME`` or an ONNX file (planned at ``batch`` and
    ``input_shape`` when given; its ImportResult is appended to ``imported``; a plan file's
    saved several-GPU setup, a dict, to ``parallel``)."""
    try:
        if source.startswith("preset:"):
            return load_preset(source.split(":", 1)[1])
        if os.path.isdir(source):  # a Hugging Face model folder (config.json, safetensors)
            from planner.core.importers.hf_folder import import_model_folder  # noqa: PLC0415

            result = import_model_folder(source, seq_len=seq_len, batch=batch)
            if imported is not None:
                imported.append(result)
            return result.draft, result.setup
        if source.lower().endswith(".onnx"):
            from planner.core.importers.onnx import import_onnx  # noqa: PLC0415

            _check_input_file(source, safeio.MAX_ONNX_BYTES)

            result = import_onnx(source, batch=batch, input_shape=input_shape)
            if imported is not None:
                imported.append(result)
            return result.draft, result.setup
        draft, setup, saved = load_plan_file(source)
        if parallel is not None and saved is not None:
            parallel.append(saved)
        return draft, setup
    except PlanFileError as exc:
        raise UsageError(str(exc)) from None


from planner.cli_finetune import (  # noqa: E402 (transformer options, kept in their module)
    add_finetune_options,
    apply_finetune_options,
    finetune_json,
    fit_row_json,
    print_finetune,
    sequence_tokens,
)


def _check_input_file(path: str, limit: int) -> None:
    """A file another library reads (ONNX): a regular file within the bound, or one line."""
    try:
        safeio.check_regular(path, limit=limit)
    except FileNotFoundError:
        raise UsageError(f"{clean(path, max_len=200)}: no such file") from None
    except (OSError, safeio.InputRefused) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise UsageError(f"{clean(path, max_len=200)}: cannot be read ({why})") from None


def report_import(args, out: dict | None = None) -> None:
    """An ONNX import's warnings on stderr (and in ``out``, the --json object): an estimate
    that covers less than the file says so."""
    result = getattr(args, "import_result", None)
    if result is None:
        return
    lines = list(result.warnings)
    if result.incomplete:
        lines.insert(0, "INCOMPLETE: the plan does not cover the whole imported model; the "
                        "figures below are not exact for it.")
    for line in lines + list(result.notes):
        print(f"warning: {line}" if line in lines else f"note: {line}", file=sys.stderr)
    if out is not None:
        out["warnings"] = lines
        out["notes"] = list(result.notes)
        out["incomplete"] = result.incomplete
        out["import"] = result.report.to_json()


def add_estimate_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", type=text("source"),
                   help="a plan file (.json), preset:NAME, or a model.onnx")
    p.add_argument("--batch", type=int,
                   help="batch size (default: the plan's)")
    p.add_argument("--input", metavar="[NAME=]CxHxW", type=text("input shape"),
                   action="append",
                   help="per-sample input shape, e.g. 3x224x224 (128 for token ids); an ONNX "
                        "file with several inputs takes one per input, named: --input "
                        "input_ids=128 --input decoder_input_ids=32 (a shape alone is the "
                        "file's primary input)")
    p.add_argument("--precision", choices=PRECISIONS)
    p.add_argument("--optimizer", choices=OPTIMIZERS)
    p.add_argument("--mode", choices=("train", "infer"))
    p.add_argument("--conv-algorithm", dest="conv_algorithm",
                   choices=("typical", "implicit_gemm", "im2col", "fft", "winograd"))
    p.add_argument("--memory-format", dest="memory_format", choices=("nchw", "channels_last"),
                   help="activation layout of the convolutions (speed): nchw, PyTorch's "
                        "default, or channels_last (model.to(memory_format="
                        "torch.channels_last))")
    # Unset flags take the plan file's saved setup (GPUs, nodes, strategy), else 1 GPU, DDP.
    p.add_argument("--gpus", type=int, default=None, metavar="N",
                   help="GPUs per node (data parallel; --batch is per GPU; default: the "
                        "plan file's, else 1)")
    p.add_argument("--nodes", type=int, default=None, metavar="M",
                   help="machines (default: the plan file's, else 1)")
    p.add_argument("--strategy", choices=("ddp", "zero1", "zero2", "zero3", "fsdp"),
                   default=None, help="how weights, gradients and optimizer state are shared "
                                      "(default: the plan file's, else ddp)")
    p.add_argument("--checkpointing", action="store_true", default=None,
                   help="gradient checkpointing (√n segments, forward recomputed)")
    p.add_argument("--accumulation", type=int, metavar="N",
                   help="micro-batches per optimizer step (gradient accumulation)")
    add_finetune_options(p)
    add_assumptions_option(p)


# An assumptions file is small; anything larger is not one.
MAX_ASSUMPTIONS_FILE_BYTES = 1 << 20


def add_assumptions_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--assumptions", metavar="FILE.json",
                   help="the estimate's assumptions (the fields of the Assumptions dialog, "
                        "e.g. {\"cuda_context_bytes\": 524288000, \"allocator_model\": false}); "
                        "fields left out keep their defaults")


def load_assumptions(path: str | None, base: Assumptions | None = None) -> Assumptions:
    """Assumptions from a JSON file; every problem names the file and the field."""
    from dataclasses import fields  # noqa: PLC0415

    base = base or Assumptions()
    if not path:
        return base
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_ASSUMPTIONS_FILE_BYTES + 1)
    except OSError as exc:
        raise UsageError(f"--assumptions {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_ASSUMPTIONS_FILE_BYTES:
        raise UsageError(f"--assumptions {path}: larger than "
                         f"{MAX_ASSUMPTIONS_FILE_BYTES // 1024} KiB, not an assumptions file")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"--assumptions {path}: not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise UsageError(f"--assumptions {path}: must be a JSON object of field: value")
    known = {f.name: f for f in fields(Assumptions)}
    for key in data:
        if key not in known:
            raise UsageError(f"--assumptions {path}: {key}: unknown field (known: "
                             f"{', '.join(known)})")
    values = base.to_json()
    values.update(data)
    for key, value in data.items():
        # One field at a time, so the message names the one that is wrong.
        try:
            Assumptions.from_json({**base.to_json(), key: value})
        except (TypeError, ValueError) as exc:
            raise UsageError(f"--assumptions {path}: {key}: {exc}") from None
    try:
        return Assumptions.from_json(values)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"--assumptions {path}: {exc}") from None


def resolve_parallel(args):
    from planner.core.parallel import Parallel  # noqa: PLC0415

    saved = getattr(args, "plan_parallel", None) or {}
    gpus = args.gpus if args.gpus is not None else saved.get("gpus", 1)
    nodes = args.nodes if args.nodes is not None else saved.get("nodes", 1)
    strategy = args.strategy if args.strategy is not None else saved.get("strategy", "ddp")
    try:
        return Parallel(gpus, nodes, strategy)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def input_shapes(values, onnx_file: bool):
    """``--input`` as given (a list, one per use): one shape (the primary input's), or for an
    ONNX file {input name: shape}, a shape without a name standing for the primary input."""
    if isinstance(values, str):
        values = [values]
    named: dict = {}
    for value in values:
        name, sep, spec = value.rpartition("=") if "=" in value else ("", "", value)
        name = name.strip()
        if sep and not name:
            raise UsageError(f"--input {value}: the input's name is missing before '='")
        if sep and not onnx_file:
            raise UsageError(f"--input {value}: named inputs are for ONNX files; a plan has "
                             "one input, give its shape alone")
        key = name or None
        if key in named:
            raise UsageError(f"--input is given twice for "
                             f"{'input ' + repr(name) if name else 'the primary input'}")
        try:
            named[key] = parse_ints(spec, what=f"--input {name}" if name else "--input")
        except (LayerError, ValueError) as exc:
            raise UsageError(str(exc)) from None
    if list(named) == [None]:
        return named[None]
    return named


def resolve_setup(args) -> tuple[NetworkDraft, Setup, Assumptions]:
    onnx_file = args.source.lower().endswith(".onnx")
    shape = input_shapes(args.input, onnx_file) if args.input else None
    imported: list = []
    saved_parallel: list = []
    folder = os.path.isdir(args.source)
    draft, setup = load_source(args.source, batch=args.batch if (onnx_file or folder) else None,
                               input_shape=shape, imported=imported, parallel=saved_parallel,
                               seq_len=getattr(args, "seq_len", None))
    args.import_result = imported[0] if imported else None
    args.plan_parallel = saved_parallel[0] if saved_parallel else None
    values = setup.to_json()
    if args.batch is not None:
        values["batch_size"] = args.batch
    for key in ("precision", "optimizer", "mode", "checkpointing", "accumulation"):
        if getattr(args, key, None) is not None:
            values[key] = getattr(args, key)
    try:
        setup = Setup(**values)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.input and not onnx_file:  # an ONNX file is imported at that shape
        try:
            draft = draft.with_input_shape(shape)
        except (LayerError, ValueError) as exc:
            raise UsageError(str(exc)) from None
    draft = apply_finetune_options(args, draft)
    assumptions = load_assumptions(getattr(args, "assumptions", None))
    if getattr(args, "conv_algorithm", None):
        assumptions = replace(assumptions, conv_algorithm=args.conv_algorithm)
    if getattr(args, "memory_format", None):
        assumptions = replace(assumptions, memory_format=args.memory_format)
    return draft, setup, assumptions


def _computed_plan(draft, setup, assumptions, parallel):
    """The plan computed once (``planner.core.plan``); a plan with problems, or one whose
    estimate fails (an overflow), is a usage error naming what is wrong."""
    from planner.core.plan import compute_plan  # noqa: PLC0415

    plan = compute_plan(draft, setup, assumptions, parallel)
    if plan.problems:
        raise UsageError("; ".join(str(p) for p in plan.problems))
    if plan.estimate is None:
        raise UsageError(str(plan.failure or "nothing to estimate: the plan has no layers"))
    return plan


def _cmd_estimate(args) -> int:
    draft, setup, assumptions = resolve_setup(args)
    from planner.core.fit import largest_batch, largest_batch_explained  # noqa: PLC0415

    parallel = resolve_parallel(args)
    plan = _computed_plan(draft, setup, assumptions, parallel)
    analysis, est, per_gpu = plan.analysis, plan.estimate, plan.per_gpu
    mb = None
    if args.memory is not None:
        if not args.memory > 0:
            raise UsageError("--memory must be a positive number of GiB")
        # Sharding only changes batch-independent terms: what it saves is free for the batch.
        mb = largest_batch(analysis, setup, int(args.memory * GIB), assumptions,
                           freed_bytes=plan.sharding_saves)
    if args.json:
        out: dict[str, Any] = est.to_json()
        if mb is not None:
            out["max_batch"] = mb
        if per_gpu is not None:
            out["parallel"] = {"gpus": parallel.gpus, "nodes": parallel.nodes,
                               "strategy": parallel.strategy,
                               "global_batch": setup.batch_size * parallel.world,
                               "per_gpu_bytes": dict(per_gpu.terms(), peak=per_gpu.peak)}
        report_import(args, out)
        ft = finetune_json(args, draft, setup, est)
        out.setdefault("warnings", []).extend(ft.pop("warnings", []))
        out.update(ft)
        print(json.dumps(out))
        return 0
    report_import(args)
    print(f"{clean(draft.name, max_len=120)}: {format_count(est.parameters)} parameters, "
          f"batch {setup.batch_size}, {setup.precision}, {setup.optimizer}, {setup.mode}")
    print_finetune(args, draft, setup, est)
    result = getattr(args, "import_result", None)
    if result is not None and result.incomplete:
        print("  INCOMPLETE: the plan covers only part of the ONNX file (warnings on stderr)")
    at = est.peak_at
    if at is not None:
        where = f"{at.phase} of {at.name}" if at.layer >= 0 else PHASE_LABELS[at.phase]
        print(f"  What is alive at the peak ({where}):")
    for term in TERMS:
        print(f"  {term_label(term, setup.mode):<36} {format_bytes(getattr(est, term)):>12}")
    print(f"  {'Peak':<36} {format_bytes(est.peak):>12}")
    print(f"  {'  tensors (max_memory_allocated)':<36} {format_bytes(est.allocated_bytes):>12}")
    print(f"  {'  allocator (max_memory_reserved)':<36} {format_bytes(est.reserved_bytes):>12}"
          "  simulated")
    print(f"  {'  nvidia-smi (reserved + context)':<36} {format_bytes(est.nvidia_smi_bytes):>12}")
    if per_gpu is not None:
        print(f"  On {parallel.world} GPUs ({parallel.strategy}, global batch "
              f"{setup.batch_size * parallel.world}), per GPU:")
        for term, value in per_gpu.terms().items():
            if value:
                print(f"    {term:<34} {format_bytes(value):>12}")
        print(f"    {'peak per GPU':<34} {format_bytes(per_gpu.peak):>12}")
    if mb is not None:
        print(f"  Largest batch in {args.memory:g} GiB: {mb}")
        print(f"    {largest_batch_explained(int(args.memory * GIB), assumptions)}")
    print()
    print(f"  {'layer':<28} {'output':<16} {'params':>10} {'kept':>12} {'FLOPs':>10}")
    for layer in est.layers:
        shape = "×".join(map(str, layer.output_shape or ()))
        print(f"  {clean(layer.name)[:28]:<28} {shape:<16} {format_count(layer.parameters):>10} "
              f"{format_bytes(layer.activation_bytes):>12} "
              f"{format_count(layer.flops_fwd + layer.flops_bwd):>10}")
    return 0


def _cmd_fit(args) -> int:
    from planner.core.catalog import CatalogError, load_catalog  # noqa: PLC0415
    from planner.core.fit import fit_table  # noqa: PLC0415

    draft, setup, assumptions = resolve_setup(args)
    report_import(args)
    plan = _computed_plan(draft, setup, assumptions, resolve_parallel(args))
    try:
        catalog = load_catalog()
    except CatalogError as exc:
        raise UsageError(str(exc)) from None
    if args.reference and catalog.by_name(args.reference) is None:
        close = catalog.closest_names(args.reference)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise UsageError(f"no card named '{args.reference}'{hint}")
    if args.as_of is not None and not _is_month(args.as_of):
        raise UsageError(f"--as-of must be a month YYYY-MM, not '{args.as_of}'")
    rows = fit_table(plan, catalog, reference=args.reference, as_of=args.as_of)
    if args.fits_only:
        rows = [r for r in rows if r.fits]
    for notice in catalog.notices:
        print(f"gpu-planner: {clean(notice)}", file=sys.stderr)
    tokens = sequence_tokens(draft)
    if args.json:
        print(json.dumps([fit_row_json(r, tokens) for r in rows]))
        return 0
    if tokens:
        print(f"  Tokens per sample: {tokens:,} (speeds in tokens/s = samples/s × {tokens:,})")
    from planner.core.rates import display_rate, rate_text  # noqa: PLC0415

    rate_head = "tokens/s" if tokens else "samples/s"  # a text model's speed in tokens
    ref = args.reference or "GTX 1080"
    par = resolve_parallel(args)
    each = (f"; {par.world} GPUs of each card ({par.strategy}), peak per GPU"
            if par.world > 1 else "; peak")
    from planner.core.speed import UNCHECKED_NETWORK  # noqa: PLC0415

    band = ""
    if any(r.speed.band is not None for r in rows):
        band = ("; band: how far measured training throughput was from these figures on "
                "that kind of card in that precision (benchmarks/speed_accuracy.py)")
    if any(r.speed.unbanded == UNCHECKED_NETWORK for r in rows):
        band += "; speeds without an error band (layers the calibration did not check)"
    elif any(r.speed.band is None for r in rows):
        band += "; '—': no benchmark measured that kind of card in this precision"
    print(f"{clean(draft.name, max_len=120)}: batch {setup.batch_size}, {setup.precision}, "
          f"{setup.mode}{each} {format_bytes(rows[0].peak_bytes) if rows else '?'}; "
          f"speed relative to {ref}{band}")
    print(f"  {'card':<28} {'fits':<5} {'usable':>10} {'max batch':>9} {'ms/iter':>9} "
          f"{rate_head:>10} {'band':>12} {'rel.':>6} {'price':>12} {'software':<18}")
    for r in rows:
        price = r.price
        ptxt = f"${price.usd:,.0f} {price.condition[0]} {price.date}" if price else "—"
        print(f"  {clean(r.card.name)[:28]:<28} {'yes' if r.fits else 'no':<5} "
              f"{format_bytes(r.usable_bytes):>10} {r.max_batch:>9} "
              f"{r.time_per_iter_s * 1e3:>9.1f} "
              f"{rate_text(display_rate(r.samples_per_s, tokens)):>10} "
              f"{r.speed.band_text() or '—':>12} {r.relative_speed:>6.2f} {ptxt:>12} "
              f"{r.support:<18}")
    return 0


def _cmd_advise(args) -> int:
    from planner.core.advisor import (  # noqa: PLC0415
        AdvisorError,
        AdvisorInputs,
        advise,
        get_profile,
    )
    from planner.core.catalog import CatalogError, OwnedCard, load_catalog  # noqa: PLC0415

    try:
        profile = get_profile(args.profile)
        catalog = load_catalog()
        assumptions = load_assumptions(args.assumptions)
        plan = None
        if args.plan:
            from planner.core.plan import compute_plan  # noqa: PLC0415

            draft, setup = load_source(args.plan)
            plan = compute_plan(draft, setup, assumptions)
        owned = tuple(OwnedCard(name, "used", 1) for name in (args.owned or ()))
        inputs = AdvisorInputs(
            profile, owned=owned or catalog.owned, budget_usd=args.budget,
            price_basis=args.price, as_of=args.as_of, plan=plan,
            electricity_usd_per_kwh=args.electricity, hours_per_day=args.hours,
            cloud_usd_per_hour=args.cloud)
        advice = advise(catalog, inputs, assumptions)
    except (AdvisorError, CatalogError) as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps(advice.to_json()))
        return 0
    print(clean(f"{advice.profile.title} — prices as of {advice.as_of}"))
    shown = advice.profile
    if args.budget is not None:  # the budget the advice used, not the profile's
        import dataclasses  # noqa: PLC0415

        shown = dataclasses.replace(shown, budget_usd=args.budget)
    print(f"  assumes: {shown.assumptions_text(advice.as_of)}")
    for i, r in enumerate(advice.recommendations, 1):  # names from the plan and the overrides
        print(f"  {i}. {r.action.upper():<5} {clean(r.reason)}")
    for note in advice.notes:
        print(f"  · {clean(note)}")
    return 0


def _cmd_profiles(args) -> int:
    from planner.core.advisor import PROFILES  # noqa: PLC0415

    if args.json:
        print(json.dumps([{"name": p.key, "title": p.title, "description": p.description,
                           "memory_gib": p.memory_gib, "budget_usd": p.budget_usd,
                           "price_weight": p.price_weight, "workload": p.workload,
                           "article": p.article} for p in PROFILES]))
        return 0
    for p in PROFILES:
        print(f"{p.key:<22} {p.title}: {p.assumptions_text()}")
    return 0


def _is_month(text: str) -> bool:
    import re  # noqa: PLC0415

    return bool(re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", text))


def _cmd_presets(args) -> int:
    presets = list_presets()
    if args.json:
        print(json.dumps([{"name": p.name, "title": p.title, "description": p.description}
                          for p in presets]))
        return 0
    for p in presets:
        print(f"{p.name:<14} {p.description}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="gpu-planner",
                     description="Plan, monitor and buy NVIDIA GPUs for deep learning. "
                                 "Without a subcommand the window opens.")
    parser.add_argument("--version", action="version", version=f"gpu-planner {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    p = sub.add_parser("estimate", help="memory footprint of a plan, layer by layer")
    add_estimate_options(p)
    p.add_argument("--memory", type=number(0, 1 << 20, low_open=True), metavar="GIB",
                   help="also solve the largest batch on a card with this much memory "
                        "(less the driver's reserve, as the fit table)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_estimate)

    p = sub.add_parser("fit", help="how the plan fits and runs on every card of the catalog")
    add_estimate_options(p)
    p.add_argument("--reference", metavar="CARD", type=text("card name"),
                   help="speeds relative to this card (default: GTX 1080, the article's)")
    p.add_argument("--as-of", dest="as_of", metavar="YYYY-MM", type=text("month"),
                   help="prices as of this month")
    p.add_argument("--fits-only", dest="fits_only", action="store_true",
                   help="only the cards it fits on")
    p.add_argument("--json", action="store_true", help="print a JSON list, one object per card")
    p.set_defaults(func=_cmd_fit)

    p = sub.add_parser("advise", help="what to buy, what to sell, and why")
    p.add_argument("--profile", required=True, type=text("profile"),
                   help="a use case (see: gpu-planner profiles)")
    p.add_argument("--budget", type=number(0, 1e9), metavar="USD",
                   help="net budget (default: profile's)")
    p.add_argument("--owned", action="append", metavar="NAME", type=text("card name"),
                   help="a card you own (repeat); default: the cards saved in the app")
    p.add_argument("--plan", metavar="SOURCE", type=text("plan"),
                   help="advise on this plan (file or preset:NAME)")
    p.add_argument("--as-of", dest="as_of", metavar="YYYY-MM", type=text("month"),
                   help="prices as of this month")
    p.add_argument("--price", choices=("new", "used", "both"), default="both",
                   help="price basis (default: both)")
    p.add_argument("--electricity", type=number(0, 100), metavar="USD_PER_KWH",
                   help="electricity price, for the running cost")
    p.add_argument("--hours", type=number(0, 24), default=8.0,
                   help="hours of training a day (0–24)")
    p.add_argument("--cloud", type=number(0, 1e6), metavar="USD_PER_HOUR",
                   help="a cloud GPU's hourly price, for rent against buy")
    add_assumptions_option(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_advise)

    p = sub.add_parser("profiles", help="list the advisor's use-case profiles")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_cmd_profiles)

    p = sub.add_parser("presets", help="list the preset networks")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_cmd_presets)

    for module, adder in (("planner.cli_catalog", "add_catalog_parser"),
                          ("planner.cli_monitor", "add_monitor_parser")):
        if importlib.util.find_spec(module) is not None:  # being written alongside
            getattr(importlib.import_module(module), adder)(sub)
    return parser


def _safe_streams() -> None:
    """Whatever the terminal's encoding (PYTHONIOENCODING=ascii, a C locale), print: a
    character it cannot show is escaped instead of raising UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):
            pass


def _os_problem(exc: OSError) -> str:
    why = exc.strerror or type(exc).__name__
    where = exc.filename
    return clean(f"{where}: {why}" if where else why, max_len=400)


def _say_error(msg: str) -> None:
    msg = clean(msg, max_len=2000)
    print(msg if msg.startswith("gpu-planner") else f"gpu-planner: {msg}", file=sys.stderr)


def run(argv: Sequence[str] | None = None) -> int:
    _safe_streams()
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 0
        return int(args.func(args) or 0)
    except UsageError as exc:
        _say_error(str(exc))
        return EXIT_USAGE
    except InvalidDraft as exc:
        _say_error(str(exc))
        return EXIT_USAGE
    except BrokenPipeError:
        return 0
    except OSError as exc:  # the config folder not writable, a disk error: one line
        _say_error(f"cannot use a file or folder: {_os_problem(exc)}")
        return EXIT_USAGE
    except (RecursionError, MemoryError) as exc:
        _say_error(f"the input is too large or too deeply nested ({type(exc).__name__})")
        return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(run())
