"""Open an ONNX file as an editable plan: the graph only, never the weight data.

``import_onnx(path, batch=None, input_shape=None)`` returns an :class:`ImportResult`: a
``NetworkDraft`` of the planner's own layers, a ``Setup``, and an :class:`ImportReport` that
accounts for the whole file (every node mapped, folded into a layer, or listed as not
understood; every weight initializer claimed by a layer; the plan's parameter count against the
file's). ``warnings`` are what makes the estimate incomplete or approximate; ``notes`` are facts
worth saying (a batch fixed by the export, a pattern recognised). Every problem with the file
itself raises :class:`OnnxImportError` with one clear message; nothing else escapes.

The parts: ``reading`` (a bounded skim of the protobuf that never reads weight data),
``graph`` (order, unique names), ``evaluate`` (shape computations), ``importer`` (shapes,
batch axes, accounting), ``mappers`` (operators and patterns → layers).
"""

from __future__ import annotations

import gc
import os
from dataclasses import dataclass, field
from pathlib import Path

from planner.core.importers.onnx.common import percent
from planner.core.layers import numel, shape_str
from planner.core.network import NetworkDraft, PlanFileError, Setup
from planner.i18n import QT_TRANSLATE_NOOP, Msg, message_of

__all__ = ["ImportReport", "ImportResult", "OnnxImportError", "import_onnx"]

MISSING_ONNX = QT_TRANSLATE_NOOP(
    "core", "Opening ONNX files needs the onnx package: pip install onnx")


class OnnxImportError(PlanFileError):
    """An ONNX file that cannot be opened as a plan; the message says why in one line."""


@dataclass(frozen=True)
class ImportReport:
    """How much of the file the plan covers, and what it could not read."""

    nodes: int = 0
    mapped: int = 0
    folded: int = 0  # views, casts, fused patterns, constant and shape arithmetic
    not_understood: int = 0
    not_understood_ops: tuple[str, ...] = ()
    file_weights: int = 0  # weight values the file holds (unique initializers)
    plan_parameters: int = 0
    unclaimed_weights: tuple[str, ...] = ()
    restored_batchnorms: int = 0
    eval_export: bool = False
    complete: bool = True
    # The inputs the plan follows, the primary first: (graph input, plan layer, per-sample
    # shape planned); and those taken as given (masks, positions, token types).
    inputs: tuple[tuple[str, str, tuple[int, ...]], ...] = ()
    inputs_as_given: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {"nodes": self.nodes, "mapped": self.mapped, "folded": self.folded,
                "not_understood": self.not_understood,
                "not_understood_ops": list(self.not_understood_ops),
                "file_weights": self.file_weights, "plan_parameters": self.plan_parameters,
                "unclaimed_weights": list(self.unclaimed_weights),
                "restored_batchnorms": self.restored_batchnorms,
                "eval_export": self.eval_export, "complete": self.complete,
                "inputs": [{"name": n, "layer": layer, "shape": list(shape)}
                           for n, layer, shape in self.inputs],
                "inputs_as_given": list(self.inputs_as_given)}


@dataclass(frozen=True)
class ImportResult:
    draft: NetworkDraft
    setup: Setup
    warnings: tuple[str, ...]
    batch_from_model: int | None
    notes: tuple[str, ...] = ()
    report: ImportReport = field(default_factory=ImportReport)

    @property
    def incomplete(self) -> bool:
        return not self.report.complete


def _onnx():
    try:
        import onnx  # noqa: PLC0415
        import onnx.numpy_helper  # noqa: F401, PLC0415
        import onnx.shape_inference  # noqa: F401, PLC0415
    except ImportError:
        raise OnnxImportError(Msg(MISSING_ONNX)) from None
    return onnx


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    msg = text[0] if text else type(exc).__name__
    return msg if len(msg) <= 200 else msg[:197] + "..."


EVAL_EXPORT = QT_TRANSLATE_NOOP(
    "core", "This file was exported for inference (eval mode){what}. Training has them: the "
    "plan puts the batch norms back (parameters and what they keep for backward), but dropout "
    "layers the export removed are not planned. For a file that matches training, export with "
    "model.train() and torch.onnx.export(model, (x,), 'm.onnx', dynamo=False, "
    "do_constant_folding=False, training=torch.onnx.TrainingMode.TRAINING) (the default "
    "exporter folds batch norms even in training mode).")
MATERIALISED_MASKS = QT_TRANSLATE_NOOP(
    "core", "{n} attention call(s) get a causal mask from a model that always passes it "
    "(Falcon, as the exporter's record of its classes says): scaled_dot_product_attention "
    "keeps a float copy of it per call: planned.")
WINDOW_MASKS = QT_TRANSLATE_NOOP(
    "core", "{n} attention call(s) get a band of positions as their mask (local or "
    "sliding-window attention, built from the sequence length): training passes it, "
    "and scaled_dot_product_attention keeps a float copy of it per call: planned.")
CUSTOM_GELU = QT_TRANSLATE_NOOP(
    "core", "{n} GELU(s) written out with Tanh belong to BLOOM's GELU module, which "
    "trains with a custom autograd function keeping only its input (the file shows "
    "its inference form): each is planned as one GELU.")
FOLDED_BN = QT_TRANSLATE_NOOP(
    "core", ": {n} batch norm(s) were folded into the convolutions before them, so their "
    "parameters and saved tensors are not in the file (nor whether those convolutions had a "
    "bias of their own: the plan assumes not, the usual convolution + norm pair; if they "
    "had, it counts up to {bias} parameters too few)")
FOLDED_BN_SIGNED = QT_TRANSLATE_NOOP(
    "core", ": {n} batch norm(s) were folded into the convolutions before them, so their "
    "parameters and saved tensors are not in the file ({own} of those convolutions had a bias "
    "of their own, as the exported program's signature in the file says: counted)")
EVAL_BN = QT_TRANSLATE_NOOP(
    "core", ": its {n} batch norm(s) use running statistics; the plan counts what training "
    "keeps")
FUSED = {
    "gelu": QT_TRANSLATE_NOOP(
        "core", "{n} GELU block(s) written out as several operators were planned as one layer "
        "each (what PyTorch keeps for them)."),
    "layernorm": QT_TRANSLATE_NOOP(
        "core", "{n} layer norm block(s) written out as several operators were planned as one "
        "layer each (what PyTorch keeps for them)."),
    "rmsnorm": QT_TRANSLATE_NOOP(
        "core", "{n} RMSNorm block(s) written out as several operators were planned as one "
        "norm each (what PyTorch keeps for them)."),
    "attention": QT_TRANSLATE_NOOP(
        "core", "{n} scaled-dot-product attention block(s) were planned as PyTorch's fused "
        "kernel on CUDA (flash or memory-efficient: it keeps q, k, v, the output and a "
        "logsumexp per row, also with dropout). Where training runs the math kernel instead "
        "(attention weights returned, a CPU run with dropout), each also keeps its "
        "T×T probabilities: more memory than planned."),
}

# A fused attention with an additive T×T bias (benchmarks/onnx_accuracy.py: HF Swin -14.6 %,
# timm BEiT -15.5 % against a CPU step, which runs the math kernel for them).
SCORE_BIAS = QT_TRANSLATE_NOOP(
    "core", "{n} attention block(s) add a T×T bias to their scores (relative positions, a "
    "window mask). The plan assumes PyTorch's memory-efficient kernel, which CUDA runs for "
    "them; it also keeps the bias itself, not counted where the bias is per sample (shifted "
    "windows). Where the math kernel runs instead (on the CPU, with a head size or GPU the "
    "fused kernels refuse, or with attention weights returned), each block also keeps its "
    "T×T softmax: {mib} MiB more at batch {batch} in fp32.")

# DeBERTa-v2 (benchmarks/onnx_accuracy.py): its c2p and p2c products read position keys and
# queries computed from the position table and repeated over the batch for torch.bmm.
COMPUTED_OPERANDS = QT_TRANSLATE_NOOP(
    "core", "{n} batched product(s) multiply an activation by a tensor the file computes from "
    "parameters alone (relative-position keys and queries, as in DeBERTa). The plan has that "
    "tensor once, not per sample; where the network repeats it over the batch for the product "
    "(DeBERTa does), training also keeps each sample's copy: {mib} MiB more at batch {batch} in "
    "fp32.")

STRIPPED_RECORD = QT_TRANSLATE_NOOP(
    "core", "This file comes from PyTorch's default exporter (its names say so) but lost the "
    "exporter's record of the traced operations (metadata stripped by an optimiser or a "
    "re-save). The default exporter folds batch norms into the convolutions before them, also "
    "in training mode, and removes all-zero biases; only that record tells which of the {n} "
    "convolution(s) had them, so the plan has none: if the network has batch norms, their "
    "parameters and what they keep for backward are missing (about half of the saved bytes on "
    "a ResNet). Open the file as exported, or export with dynamo=False, "
    "do_constant_folding=False and training=torch.onnx.TrainingMode.TRAINING.")
_WHERE = QT_TRANSLATE_NOOP("core", "{file}: {why}")


FIXED_CONSTANTS = QT_TRANSLATE_NOOP(
    "core", "The plan's layers do not fit together at the shapes asked ({asked}): the file "
    "computed constants at its own input shapes (a position table, a mask; an export without "
    "dynamic axes), first problem: {problem}. Planned at the file's shapes instead ({shapes}). "
    "Export with dynamic shapes (dynamic_shapes, or dynamic_axes with dynamo=False) to plan "
    "other sizes.")


def _at_file_shapes(onnx, importer, path, batch, imp, draft, setup):
    """Shapes asked that the file's own constants contradict: the import again at the file's
    shapes, said; the first import where that does not help either."""
    again = importer(onnx, path, batch, None)
    try:
        d2, s2 = again.run()
    except Exception:  # noqa: BLE001 - the first import's problems say more
        return imp, draft, setup
    if not again.analysis.ok:
        return imp, draft, setup
    asked = ", ".join(f"'{n}' {shape_str(s)}" for n, _l, s in imp.followed_inputs())
    shapes = ", ".join(f"'{n}' {shape_str(s)}" for n, _l, s in again.followed_inputs())
    again.warnings.insert(0, Msg(FIXED_CONSTANTS, asked=asked, shapes=shapes,
                                 problem=str(imp.analysis.problems[0])))
    again.incomplete = True
    return again, d2, s2
WRITTEN_GELU = QT_TRANSLATE_NOOP(
    "core", "{n} GELU(s) written out with Tanh are planned operation by operation, as PyTorch "
    "runs a GELU written in Python (GPT-2's gelu_new keeps each step for backward). If "
    "training runs one GELU there instead (F.gelu(approximate='tanh'), or a custom autograd "
    "function whose inference form this is, as BLOOM's), the plan is {mib} MiB too high at "
    "batch {batch} in fp32 ({pct} % of its saved activations): the file cannot tell which.")

WRITTEN_ERF_GELU = QT_TRANSLATE_NOOP(
    "core", "{n} GELU(s) written out with Erf, not as the exporters write torch's GELU (one "
    "Gelu operator from opset 20; before it x * (erf(x / sqrt 2) + 1) * 0.5), are planned "
    "operation by operation, as PyTorch runs a GELU written in Python (ESM's x * 0.5 * (1 + "
    "erf(x / sqrt 2)) keeps x / sqrt 2, x * 0.5 and 1 + erf for backward). If training runs "
    "one GELU there instead, the plan is {mib} MiB too high at batch {batch} in fp32 ({pct} % "
    "of its saved activations).")


def _written_gelu_warning(imp, setup, written: dict, text: str = WRITTEN_GELU) -> Msg:
    """The figure for tanh GELUs planned op by op (patterns._written_tanh_gelu), or with
    ``WRITTEN_ERF_GELU`` for Erf GELUs Python wrote out."""
    return _figure_warning(imp, setup, text, len(written),
                           sum(written.values()) * setup.batch_size * 4)


def _figure_warning(imp, setup, text: str, n: int, extra: int) -> Msg:
    """A warning saying ``extra`` bytes of saved activations at the asked batch, in MiB and as
    a share of what the plan keeps."""
    from planner.core.memory import estimate  # noqa: PLC0415

    try:
        base = estimate(imp.analysis, setup).saved_bytes
    except Exception:  # noqa: BLE001 - a plan that cannot be estimated says so elsewhere
        base = 0
    pct = percent(extra, base, 0) if base > 0 else "?"
    return Msg(text, n=n, mib=f"{extra / 2**20:,.1f}", batch=setup.batch_size, pct=pct)


MAYBE_INPLACE = QT_TRANSLATE_NOOP(
    "core", "{n} activation(s) (ELU, SELU, CELU, leaky ReLU) are planned keeping their input "
    "for backward, as PyTorch's modules do by default (inplace=False). Run in place "
    "(inplace=True, as MONAI's VNet and BasicUNet and DCGAN-style networks run them) they keep "
    "their output in their input's storage instead, and activation memory is {mib} MiB lower "
    "than planned at batch {batch} ({pct} % of the plan's saved activations). The file does not "
    "record which.")


AMBIGUOUS_AMAX = QT_TRANSLATE_NOOP(
    "core", "{n} max or min reduction(s) over one axis could be amax / amin or torch.max(x, "
    "dim): dynamo=False writes both as the same ReduceMax (the default exporter's file says "
    "which). The plan takes amax, which keeps its input (the whole storage of a view, such as "
    "a q sliced from a packed projection) and its result for backward, the larger here; if "
    "the network uses torch.max(x, dim), which keeps int64 indices of its result instead, "
    "activation memory is {mib} MiB lower than planned at batch {batch}.")
AMBIGUOUS_MAX_DIM = QT_TRANSLATE_NOOP(
    "core", "{n} max or min reduction(s) over one axis could be amax / amin or torch.max(x, "
    "dim): dynamo=False writes both as the same ReduceMax (the default exporter's file says "
    "which). The plan takes torch.max(x, dim), which keeps int64 indices of its result for "
    "backward, the larger here; if the network uses amax, which keeps its input and its "
    "result instead, activation memory is {mib} MiB lower than planned at batch {batch}.")

EAGER_LAYERNORM = QT_TRANSLATE_NOOP(
    "core", "{n} layer norm(s) are written out in the file as operators, as Python code writes "
    "them (both exporters write torch.nn.LayerNorm as one LayerNormalization from opset 17): "
    "planned as PyTorch keeps them step by step, x - mean twice (computed twice, as DeBERTa's "
    "and ConvNeXt's LayerNorm write it; the exporter merged the two), the std and the "
    "normalised tensor. Where the code computes x - mean once, activation memory is {mib} MiB "
    "lower than planned at batch {batch}.")

LOOKUP_INDICES = QT_TRANSLATE_NOOP(
    "core", "A tensor the network gathers from a learned table by a constant index (relative-"
    "position buckets or biases, as WavLM's T×T or TinyViT's attention biases) reaches "
    "activations: planned, but autograd also keeps the int64 index once for the table's "
    "gradient, which the plan leaves out: {mib} MiB more than planned, at any batch.")

GATHER_INDICES = QT_TRANSLATE_NOOP(
    "core", "Activations gathered by a constant index (torch.gather over relative positions, "
    "as DeBERTa's content-to-position scores) are planned, but autograd also keeps each int64 "
    "index once for backward, which the plan leaves out: {mib} MiB more than planned, at any "
    "batch.")
EINSUM_WEIGHT_COPIES = QT_TRANSLATE_NOOP(
    "core", "{n} Einsum product(s) multiply by a weight that torch.einsum must copy to reorder "
    "it (its contracted indices are taken in alphabetical order, as in 'ibnd,hnd->ibh'); "
    "autograd keeps each copy once for backward, which the plan leaves out: {mib} MiB more "
    "than planned in fp32, at any batch.")
GATHER_INDICES_FOLDED = QT_TRANSLATE_NOOP(
    "core", "Activations gathered by a constant index (torch.gather over relative positions, "
    "as DeBERTa's content-to-position scores) are planned, but autograd also keeps each int64 "
    "index once for backward, which the plan leaves out: up to {mib} MiB more than planned, at "
    "any batch (the exporter folded the indices into constants, perhaps expanded over the "
    "heads, where autograd keeps the tensor before the expansion).")

def _ambiguous_max(imp, draft, setup):
    """Max / min reductions over one axis the file cannot tell apart (``torch.max(x, dim)``
    keeps int64 indices, ``amax`` its input's storage and its result): both readings are
    estimated, the larger is planned (a plan never below what training may keep) and the
    warning gives the other's figure. amax is the larger unless another layer keeps the
    input's storage anyway."""
    from planner.core.memory import estimate  # noqa: PLC0415
    from planner.core.network import analyze  # noqa: PLC0415

    names = set(imp.ambiguous_max)
    layers = tuple(layer.replace(keeps="input_output") if layer.name in names else layer
                   for layer in draft.layers)
    amax = draft.with_layers(layers)
    other = analyze(amax)
    try:
        as_dim = estimate(imp.analysis, setup).saved_bytes
        as_amax = estimate(other, setup).saved_bytes if other.ok else -1
    except Exception:  # noqa: BLE001 - a plan that cannot be estimated says so elsewhere
        as_dim, as_amax = 0, -1
    n = len(names)
    if as_amax > as_dim:
        imp.analysis = other
        return amax, Msg(AMBIGUOUS_AMAX, n=n, mib=f"{(as_amax - as_dim) / 2**20:,.1f}",
                         batch=setup.batch_size)
    mib = f"{(as_dim - as_amax) / 2**20:,.1f}" if as_amax >= 0 else "?"  # (amax: no plan)
    return draft, Msg(AMBIGUOUS_MAX_DIM, n=n, mib=mib, batch=setup.batch_size)


def import_onnx(path: str | os.PathLike, *, batch: int | None = None,
                input_shape: tuple[int, ...] | dict[str, tuple[int, ...]] | None = None
                ) -> ImportResult:
    """Read the graph of an ONNX file and map it onto a draft (see the module docstring).

    ``batch``: the batch to plan (default: the file's if it fixes one above 1, else 32).
    ``input_shape``: the per-sample shape to plan (a sequence length for token ids) of the
    primary input, or a dict of them by input name (an encoder-decoder's two token inputs).
    """
    # The import allocates millions of small objects and leaves no reference cycles worth
    # collecting meanwhile: the cyclic collector's full passes over a growing heap were 15 %
    # of a 100,000-node import (13 of them). It runs again once the import is done.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _import_onnx(path, batch, input_shape)
    finally:
        if collecting:
            gc.enable()


def _import_onnx(path, batch, input_shape) -> ImportResult:
    where = Path(path).name if str(path) else "?"
    onnx = _onnx()
    from planner.core.importers.onnx.importer import ImportFailure, Importer  # noqa: PLC0415
    from planner.core.importers.onnx.kvcache import cache_copy_warning  # noqa: PLC0415

    imp = Importer(onnx, Path(path), batch, input_shape)
    try:
        draft, setup = imp.run()
        if input_shape and not imp.analysis.ok:
            imp, draft, setup = _at_file_shapes(onnx, Importer, Path(path), batch, imp,
                                                draft, setup)
    except ImportFailure as exc:
        raise OnnxImportError(Msg(_WHERE, file=where, why=message_of(exc))) from None
    except OnnxImportError:
        raise
    except RecursionError:
        raise OnnxImportError(Msg(_WHERE, file=where, why=Msg(QT_TRANSLATE_NOOP(
            "core", "the graph is nested too deeply to read")))) from None
    except MemoryError:
        raise OnnxImportError(Msg(_WHERE, file=where, why=Msg(QT_TRANSLATE_NOOP(
            "core", "the file is too large to read")))) from None
    except Exception as exc:  # noqa: BLE001 - one error type leaves this module
        raise OnnxImportError(Msg(_WHERE, file=where, why=Msg(QT_TRANSLATE_NOOP(
            "core", "cannot be read as an ONNX network ({why})"), why=_one_line(exc)))) \
            from None
    ambiguous = None
    if imp.ambiguous_max:
        draft, ambiguous = _ambiguous_max(imp, draft, setup)
    warnings = list(imp.warnings)
    notes = list(dict.fromkeys(imp.notes))  # a re-run at the file's shapes says some twice
    eval_bn = imp.eval_bn
    eval_export = bool(imp.restored_bn or eval_bn)
    if imp.tensorflow:
        from planner.core.importers.onnx import tf_export  # noqa: PLC0415

        tf_export.warnings(imp, warnings, notes)
    elif imp.restored_bn:
        folded = Msg(FOLDED_BN_SIGNED, n=imp.restored_bn, own=imp.own_bias) if \
            imp.signature else Msg(FOLDED_BN, n=imp.restored_bn,
                                   bias=f"{imp.restored_bn_channels:,}")
        warnings.insert(0, Msg(EVAL_EXPORT, what=folded))
    elif eval_bn:
        warnings.insert(0, Msg(EVAL_EXPORT, what=Msg(EVAL_BN, n=eval_bn)))
    # Convolutions a batch norm may have been folded into: read by an activation or a sum (a
    # convolution + norm + activation block), not by a view or another norm (a patch embedding).
    after_norm = {"Relu", "Clip", "Sigmoid", "HardSigmoid", "HardSwish", "LeakyRelu", "Elu",
                  "Selu", "PRelu", "Mul", "Add", "Tanh", "Softplus", "Mish", "Gelu"}
    convs = sum(1 for node in imp.nodes if node.op_type == "Conv" and node.output and any(
        imp.nodes[k].op_type in after_norm for k in imp.consumers.get(node.output[0], ())))
    if convs and imp.dynamo_names and not imp.dynamo and not imp.restored_bn:
        warnings.insert(0, Msg(STRIPPED_RECORD, n=convs))
    kinds = {layer.kind for layer in draft.layers}
    if "attention" in kinds or imp.math_attention:  # (SDPA's math kernel: op by op)
        # Measured limits of transformer files (benchmarks/onnx_accuracy.py): said, never
        # passed off as exact.
        if imp.elided_copies:
            notes.append(Msg(QT_TRANSLATE_NOOP(
                "core", "{n} copies of keys and values that PyTorch makes in training "
                "(torch.cat onto an empty key/value cache) were removed from the file by the "
                "exporter's optimiser, as its own record of the traced operations shows; the "
                "plan puts them back (attention keeps the copies)."), n=imp.elided_copies))
        cache = cache_copy_warning(imp, draft, setup)
        if cache is not None:
            warnings.append(cache)
        if imp.head_major_copies:
            notes.append(Msg(QT_TRANSLATE_NOOP(
                "core", "{n} attention block(s) read a q made afresh in head-major order "
                "(torch.cat of rotated and passed-through halves: partial rotary positions). "
                "Flash attention writes its output in that order, so the transpose back to "
                "tokens is a copy, which the next layer keeps: planned (the memory-efficient "
                "kernel writes token order and makes no copy)."), n=imp.head_major_copies))
        if imp.biased_attention:
            warnings.append(Msg(SCORE_BIAS, n=imp.biased_attention,
                                mib=f"{imp.biased_scores * setup.batch_size * 4 / 2**20:,.1f}",
                                batch=setup.batch_size))
        if imp.grouped_attention:
            notes.append(Msg(QT_TRANSLATE_NOOP(
                "core", "{n} grouped-query attention block(s) repeat keys and values to every "
                "head in the file (repeat_kv, as traced for the export); with no mask input, "
                "training runs scaled_dot_product_attention on the key/value groups "
                "(enable_gqa, what transformers does without a padding mask) and keeps them "
                "once, as planned. With a padding mask the repeated copies are kept too."),
                n=imp.grouped_attention))
    # Attention in any form, fused or eager (q·kᵀ, softmax, ·v as matrix products of
    # activations: DeBERTa, MPNet): transformers train with dropout, so a file without any is
    # most likely an inference export (model.eval(), the default exporter).
    eager_attention = "softmax" in kinds and "matmul" in kinds
    if ("attention" in kinds or imp.math_attention or eager_attention) and \
            "dropout" not in kinds and not eval_export:
        warnings.append(Msg(QT_TRANSLATE_NOOP(
            "core", "No dropout in the file: if the network uses dropout in training, this "
            "is an inference export and the plan leaves out what dropout keeps (measured "
            "2-31 % of the saved bytes on BERT, GPT-2 and nn.TransformerEncoder), and "
            "parameters the network uses only in training are not in the file (wav2vec2's "
            "masked_spec_embed for SpecAugment). Export with model.train() for training "
            "figures.")))
    if imp.shape_masks:
        warnings.append(Msg(QT_TRANSLATE_NOOP(
            "core", "{n} attention call(s) get a boolean mask that the file builds from the "
            "sequence length alone (a causal mask, or one that masks nothing, as BERT-style "
            "encoders build from an all-ones attention mask). Recent transformers models skip "
            "it in training and run the kernel without a mask (causal where it is), which keeps "
            "none: planned so. A model that passes the mask (Falcon) keeps a float copy of it "
            "per call: {mib} MiB more at batch {batch}."), n=imp.shape_masks,
            mib=f"{imp.shape_mask_elements * setup.batch_size * 4 / 2**20:,.1f}",
            batch=setup.batch_size))
    if imp.computed_operands:
        warnings.append(Msg(COMPUTED_OPERANDS, n=imp.computed_operands,
                            mib=f"{imp.computed_elements * setup.batch_size * 4 / 2**20:,.1f}",
                            batch=setup.batch_size))
    for count, text in ((imp.materialised_masks, MATERIALISED_MASKS),
                        (imp.window_masks, WINDOW_MASKS), (imp.custom_gelu, CUSTOM_GELU)):
        if count:
            notes.append(Msg(text, n=count))
    if imp.written_gelu:
        warnings.append(_written_gelu_warning(imp, setup, imp.written_gelu))
    if imp.written_erf_gelu:
        warnings.append(_written_gelu_warning(imp, setup, imp.written_erf_gelu,
                                              WRITTEN_ERF_GELU))
    if imp.merged_ops:
        notes.append(Msg(QT_TRANSLATE_NOOP(
            "core", "{n} operation(s) the exporter's optimiser merged with an identical one "
            "(equal parameters, as in an untrained network: two norms of one input) are "
            "planned again, as training runs each, as its record of the traced operations "
            "shows."), n=imp.merged_ops))
    if imp.folded_counted:
        notes.append(Msg(QT_TRANSLATE_NOOP(
            "core", "{n} per-channel factor(s) the exporter folded out of parameters (a layer "
            "scale, a logit scale) are counted as the parameters they came from, and the "
            "products with them keep their input for those parameters' gradients."),
            n=imp.folded_counted))
    if imp.restored_bias:
        warnings.append(Msg(QT_TRANSLATE_NOOP(
            "core", "The exporter removed {n} bias vector(s) that were all zeros (an untrained "
            "network's); the plan counts them, as training has them."), n=imp.restored_bias))
    if ambiguous is not None:
        warnings.append(ambiguous)
    lookups = imp.lookup_indices
    if imp.bias_lookup_indices * 8 >= 2**20 / 20:  # (what reads as 0.0 MiB is not said)
        lookups += imp.bias_lookup_indices
    if lookups:
        warnings.append(Msg(LOOKUP_INDICES, mib=f"{lookups * 8 / 2**20:,.1f}"))
    if imp.gather_indices_folded:
        n = imp.gather_indices + imp.gather_indices_folded
        warnings.append(Msg(GATHER_INDICES_FOLDED, mib=f"{n * 8 / 2**20:,.2f}"))
    elif imp.gather_indices:
        warnings.append(Msg(GATHER_INDICES, mib=f"{imp.gather_indices * 8 / 2**20:,.2f}"))
    if imp.einsum_constant_copies:
        warnings.append(Msg(EINSUM_WEIGHT_COPIES, n=imp.einsum_constant_count,
                            mib=f"{imp.einsum_constant_copies * 4 / 2**20:,.2f}"))
    if imp.eager_layernorms:
        n = sum(numel(shape) for shape in imp.eager_layernorms if shape)
        warnings.append(Msg(EAGER_LAYERNORM, n=len(imp.eager_layernorms),
                            mib=f"{n * setup.batch_size * 4 / 2**20:,.1f}",
                            batch=setup.batch_size))
    # (an either-or the file cannot tell, as amax against max(x, dim): said with the other
    # figure, the estimate not marked incomplete; the whole graph is planned)
    maybe_inplace = getattr(imp, "maybe_inplace_elements", 0) * setup.batch_size * 4
    if maybe_inplace:
        warnings.append(_figure_warning(imp, setup, MAYBE_INPLACE, len(imp.maybe_inplace),
                                        maybe_inplace))
    for kind, n in sorted(imp.fused_patterns.items()):
        notes.append(Msg(FUSED[kind], n=n))
    # Figures said as "if the network ..." (contrib.notes: a FastGelu that may be GPT-2's
    # Python gelu_new, 3 more tensors of its size) mark the estimate incomplete too where
    # they pass 5 % of the saved bytes: GPT-2 through Optimum's O2 planned -59 %, complete.
    maybe = 3 * getattr(imp, "fast_gelu_elements", 0) * 4 * setup.batch_size
    if getattr(imp, "constant_kept_bytes", 0) or maybe:
        # What learned layers over constants keep (said above with its figure) is left out
        # of the plan: beyond the accuracy target's 5 % of the saved bytes, the estimate is
        # marked incomplete too.
        from planner.core.memory import estimate  # noqa: PLC0415

        try:
            base = estimate(imp.analysis, setup).saved_bytes
        except Exception:  # noqa: BLE001 - a plan that cannot be estimated says so elsewhere
            base = 0
        if getattr(imp, "constant_kept_bytes", 0) > 0.05 * base or maybe > 0.05 * base:
            imp.incomplete = True
    counts = imp.node_counts
    unknown = sorted({op for op, where_ in imp.unknown_ops.items() if where_})
    report = ImportReport(
        nodes=len(imp.nodes), mapped=counts.get("mapped", 0),
        folded=counts.get("folded", 0) + counts.get("constant", 0),
        not_understood=counts.get("unknown", 0) + counts.get("dropped", 0),
        not_understood_ops=tuple(unknown), file_weights=imp.file_weights,
        plan_parameters=imp.analysis.parameters, unclaimed_weights=imp.unclaimed,
        restored_batchnorms=imp.restored_bn, eval_export=eval_export,
        complete=not imp.incomplete, inputs=imp.followed_inputs(),
        inputs_as_given=tuple(imp.side_inputs))
    return ImportResult(draft, setup, tuple(warnings), imp.fixed_batch, tuple(notes), report)
