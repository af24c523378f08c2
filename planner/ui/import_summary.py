"""What an ONNX import approximated, in plain words, for the import-warning box.

The importer's warnings name nodes and tensors ("Conv '/layer1/conv/Conv' pads unevenly…"):
right for the details, a wall for a first read. ``describe_import`` sorts them into a few kinds
and says for each, without node paths, what was approximated and what it does to the estimate;
the importer's own lines, the notes and the counts stay behind "Show Details…".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication

from planner.ui.i18n import arg
from planner.i18n import QT_TRANSLATE_NOOP


def _tr(text: str) -> str:
    return QCoreApplication.translate("ImportSummary", text)


# (pattern over the importer's English line, plain sentence: what was approximated and what
# it means for the estimate). The first match wins; a line nothing matches is counted in "other".
KINDS = (
    ("missing", re.compile(r"are not in the plan|covers only part", re.I), QT_TRANSLATE_NOOP(
        "ImportSummary", "Part of the network could not be planned at all: memory and speed "
                         "are too low by what that part needs.")),
    ("unknown", re.compile(r"does not understand|could not be mapped|does not know", re.I),
     QT_TRANSLATE_NOOP(
         "ImportSummary", "Operations the planner does not know were counted as passing their "
                          "input through unchanged: what they keep for backward is a guess, so "
                          "memory may be somewhat low around them.")),
    ("problems", re.compile(r"problems to fix", re.I), QT_TRANSLATE_NOOP(
        "ImportSummary", "The imported plan has errors: no estimate until they are fixed in "
                         "the layer table.")),
    ("record", re.compile(r"lost the exporter's record", re.I), QT_TRANSLATE_NOOP(
        "ImportSummary", "The file lost its exporter's metadata, which says where batch norms "
                         "were folded into convolutions: if the network has batch norms, they "
                         "are missing from the plan and memory is much too low. Open the file "
                         "as exported.")),
    ("eval", re.compile(r"exported for inference", re.I), QT_TRANSLATE_NOOP(
        "ImportSummary", "The file was saved for inference: the plan puts the batch norms back "
                         "for training, but dropout is missing, so training memory is a little "
                         "higher than shown.")),
    ("dropout", re.compile(r"No dropout in the file", re.I), QT_TRANSLATE_NOOP(
        "ImportSummary", "The network has attention but the file has no dropout: it may have "
                         "been exported for inference, and training also keeps what dropout "
                         "keeps (2-31 % more activation memory on BERT, GPT-2 and "
                         "nn.TransformerEncoder). Export with "
                         "model.train() for training figures.")),
    ("cache", re.compile(r"key/value cache", re.I), QT_TRANSLATE_NOOP(
        "ImportSummary", "The file does not say whether this decoder copies keys and values "
                         "into a key/value cache, as Hugging Face models do by default, also in "
                         "training: if it does, attention keeps more than shown (the details "
                         "say how much). Train with use_cache=False, or open a file with its "
                         "exporter's metadata, for exact figures.")),
    ("shape", re.compile(r"fixes the input shape|fixes the shape of input|shapes differ|"
                         r"do not fit together at the shapes asked", re.I), QT_TRANSLATE_NOOP(
        "ImportSummary", "The file fixes its shapes, or the plan's shapes differ from the "
                         "file's in places: check the layers whose output shape looks wrong.")),
    ("score_bias", re.compile(r"bias to their scores", re.I), QT_TRANSLATE_NOOP(
        "ImportSummary", "Attention adds a position bias to its scores: the plan assumes the "
                         "fused kernel CUDA runs for it. Where the math kernel runs instead, "
                         "activation memory is higher by the figure the details give.")),
    ("computed", re.compile(r"batched product", re.I), QT_TRANSLATE_NOOP(
        "ImportSummary", "Attention multiplies by position tensors computed from parameters: "
                         "where the network copies them for every sample, training keeps more "
                         "than shown, by the figure the details give.")),
    ("gelu", re.compile(r"written out with Tanh", re.I), QT_TRANSLATE_NOOP(
        "ImportSummary", "A GELU written out as operations is planned step by step, as PyTorch "
                         "runs one written in Python. If training runs it as one operation "
                         "instead (as BLOOM's does), activation memory is lower by the figure "
                         "the details give, which can be large.")),
    ("inplace", re.compile(r"Run in place", re.I), QT_TRANSLATE_NOOP(
        "ImportSummary", "Some activations (ELU, leaky ReLU) may run in place, which the file "
                         "cannot show: the plan keeps PyTorch's default, and if the network "
                         "runs them in place (inplace=True) activation memory is lower by the "
                         "figure the details give.")),
    ("weights", re.compile(r"belong to no layer|parameters but its layers read|constant\(s\)|"
                           r"folded parameters and buffers|one-element parameter|"
                           r"sine and cosine waves", re.I), QT_TRANSLATE_NOOP(
        "ImportSummary", "The file's weights and the plan's parameters do not match exactly: "
                         "the weight, gradient and optimizer memory may be off by that "
                         "difference.")),
    ("bias", re.compile(r"bias", re.I), QT_TRANSLATE_NOOP(
        "ImportSummary", "Bias vectors were counted as PyTorch has them in training: the "
                         "parameter count may differ slightly from the file's (a negligible "
                         "amount of memory).")),
    ("layout", re.compile(r"pads unevenly|transposes|normalises from axis", re.I),
     QT_TRANSLATE_NOOP(
         "ImportSummary", "A few layers were planned in a simpler equivalent form (even "
                          "padding, untransposed input, normalising the last dimension): "
                          "memory is the same or within a fraction of a percent.")),
)


@dataclass(frozen=True)
class ImportSummary:
    title: str
    summary: str  # plain words: what was approximated and what it means
    details: str  # the importer's own lines, notes and the counts
    status: str  # one line for the status bar
    kinds: tuple[str, ...]  # which KINDS were found (for tests)


def classify(warnings) -> tuple[list[str], int]:
    """The KINDS keys found in ``warnings`` (in KINDS order) and how many lines matched none."""
    found: set[str] = set()
    other = 0
    for line in warnings:
        for key, pattern, _text in KINDS:
            if pattern.search(line):
                found.add(key)
                break
        else:
            other += 1
    return [key for key, _p, _t in KINDS if key in found], other


def describe_import(name: str, result) -> ImportSummary:
    """The box for an import with warnings (``result``: an onnx ImportResult)."""
    report = result.report
    if result.incomplete:
        title = arg(_tr("%1 was only partly read"), name)
        head = arg(_tr("The plan does not cover the whole model: memory and speed figures are too "
                       "low. %1 of %2 operations could not be planned."),
                   str(report.not_understood), str(report.nodes))
        status = arg(_tr("Incomplete import of %1: the figures are too low"), name)
    else:
        title = arg(_tr("Opened %1 with warnings"), name)
        head = _tr("The whole model was read. Some parts were approximated; the estimate "
                   "holds within what each point below says.")
        status = arg(_tr("Opened %1 with warnings"), name)
    kinds, other = classify(result.warnings)
    texts = {key: text for key, _p, text in KINDS}
    bullets = [f"• {_tr(texts[k])}" for k in kinds]
    if other:
        bullets.append("• " + QCoreApplication.translate(
            "ImportSummary", "%n other approximation(s): see the details.", "", other))
    summary = head + ("\n\n" + "\n".join(bullets) if bullets else "")
    summary += "\n\n" + _tr("Show Details… lists each point with the operations it concerns.")
    from planner.ui.i18n import tr_msg  # noqa: PLC0415

    lines = [tr_msg(line) for line in list(result.warnings) + list(result.notes)]
    counts = arg(_tr(
            "Operations: %1 planned, %2 folded into others, %3 not understood. Weights in the "
            "file: %4 values; parameters in the plan: %5."),
                 str(report.mapped), str(report.folded), str(report.not_understood),
                 f"{report.file_weights:,}", f"{report.plan_parameters:,}")
    details = "\n\n".join(["• " + line for line in lines] + [counts])
    return ImportSummary(title, summary, details, status, tuple(kinds))


__all__ = ["describe_import", "classify", "ImportSummary", "KINDS"]
