"""The article's memory-reduction techniques as what-ifs on the current network.

Each suggestion is a complete alternative (draft + setup) with its measured saving: the same
estimate is run on it, so a technique that would not help this network is not offered. Each
carries the article's caution: every technique throws information away or costs speed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from planner.core.layers import LayerSpec
from planner.core.memory import Assumptions, estimate
from planner.core.network import Analysis, NetworkDraft, Setup, analyze
from planner.i18n import QT_TRANSLATE_NOOP, Msg

CONV_KINDS = ("conv2d", "conv3d")
# A technique is offered only when it lowers the peak by at least this share: every one of them
# costs accuracy or speed (the article's caution), so a saving of a few tenths of a percent is
# not worth offering (a 1×1 reduction after ResNet-50's first convolution saves 0.4 %).
MIN_SAVING_FRACTION = 0.02



@dataclass(frozen=True)
class Suggestion:
    key: str
    title: str
    detail: str
    caution: str
    saving_bytes: int
    new_peak_bytes: int
    draft: NetworkDraft
    setup: Setup


def _first_conv(draft: NetworkDraft) -> int | None:
    for i, layer in enumerate(draft.layers):
        if layer.kind in CONV_KINDS:
            return i
    return None


def _is_unit(value) -> bool:
    return value in (1, (1,), (1, 1), (1, 1, 1))


def _candidates(draft: NetworkDraft, setup: Setup, analysis: Analysis):
    """(key, title, detail, caution, draft, setup) for every technique that applies."""
    if setup.precision == "fp32":
        yield ("fp16", QT_TRANSLATE_NOOP("core",
                           "Train in 16-bit (mixed precision)"),
               QT_TRANSLATE_NOOP("core",
                   "torch.autocast: convolutions and linear layers compute in 16 bits and keep "
                   "16-bit activations and weight copies; weights, gradients and optimizer "
                   "state stay fp32."),
               QT_TRANSLATE_NOOP("core",
                   "The article: 16-bit halves memory without hurting classification; keep fp32 "
                   "master weights and loss scaling (what mixed precision does)."),
               draft, replace(setup, precision="mixed"))
    if setup.batch_size >= 2:
        half = setup.batch_size // 2
        caution = QT_TRANSLATE_NOOP("core",
                      "A smaller mini-batch is the last resort: convolution kernels are tuned "
                      "for 64 and more.")
        if half < 32:
            caution = Msg(QT_TRANSLATE_NOOP("core",
                              "Batch {half} is below 32: the article warns training then slows "
                              "down markedly. {caution}"), half=half, caution=caution)
        yield ("half_batch", Msg(QT_TRANSLATE_NOOP("core",
                                     "Halve the batch ({batch} → {half})"),
                                 batch=setup.batch_size, half=half),
               QT_TRANSLATE_NOOP("core",
                   "Activations and gradient buffers scale with the batch."), caution,
               draft, replace(setup, batch_size=half))
    first = _first_conv(draft)
    if first is not None:
        conv = draft.layers[first]
        if _is_unit(conv.params.get("stride", 1)):
            new = draft.replace_layer(first, conv.replace(stride=2))
            yield ("stride2", Msg(QT_TRANSLATE_NOOP("core",
                                      "Stride 2 in the first convolution ({name})"),
                                  name=conv.name),
                   QT_TRANSLATE_NOOP("core",
                       "Every later feature map has a quarter of the values."),
                   QT_TRANSLATE_NOOP("core",
                       "Throws away three quarters of the first layer's outputs; accuracy can "
                       "suffer, especially on small inputs."), new, setup)
        # A 2×2 max pool after the first convolution (and its batch norm / activation).
        after = first + 1
        while after < len(draft.layers) and draft.layers[after].kind in (
                "batchnorm", "activation") and not draft.layers[after].source():
            after += 1
        nxt = draft.layers[after] if after < len(draft.layers) else None
        if nxt is None or nxt.kind not in ("maxpool", "avgpool"):
            prev_name = draft.layers[after - 1].name
            name = draft.unique_name("pool")
            new = draft.insert_layer(after, LayerSpec("maxpool", name, {"kernel": 2}))
            new = _retarget(new, old=prev_name, new=name, start=after + 1)
            yield ("pool", Msg(QT_TRANSLATE_NOOP("core",
                                   "2×2 max pool after {name}"), name=conv.name),
                   QT_TRANSLATE_NOOP("core",
                       "Everything after the pool has a quarter of the values."),
                   QT_TRANSLATE_NOOP("core",
                       "Pooling discards position detail; the article warns that overusing "
                       "reduction techniques hurts accuracy."), new, setup)
    # A 1×1 reduction (to a third of the channels) after the convolution with the largest
    # output, as the article's 96 → 32 example.
    best = None
    for info in analysis.layers:
        if info.kind in CONV_KINDS and info.out_shape and info.index + 1 < len(draft.layers):
            size = 1
            for d in info.out_shape:
                size *= d
            if info.out_shape[0] >= 6 and (best is None or size > best[0]):
                best = (size, info)
    if best is not None:
        info = best[1]
        channels = info.out_shape[0]
        reduced = max(1, channels // 3)
        at = info.index + 1
        while at < len(draft.layers) and draft.layers[at].kind in (
                "batchnorm", "activation") and not draft.layers[at].source():
            at += 1
        prev_name = draft.layers[at - 1].name
        name = draft.unique_name("reduce")
        kind = draft.layers[info.index].kind
        new = draft.insert_layer(at, LayerSpec(kind, name, {"filters": reduced, "kernel": 1,
                                                            "padding": "valid"}))
        new = _retarget(new, old=prev_name, new=name, start=at + 1)
        yield ("reduce1x1", Msg(QT_TRANSLATE_NOOP("core",
                                    "1×1 reduction after {name} ({channels} → {reduced} channels)"),
                                name=info.name, channels=channels, reduced=reduced),
               QT_TRANSLATE_NOOP("core",
                   "What follows sees a third of the channels (the article: 32 1×1 filters cut a "
                   "340 MB layer to 113 MB)."),
               QT_TRANSLATE_NOOP("core",
                   "A bottleneck throws information away; use it where channels are plentiful."),
               new, setup)
    if setup.mode == "train" and not setup.checkpointing:
        yield ("checkpoint", QT_TRANSLATE_NOOP("core",
                                 "Gradient checkpointing"),
               QT_TRANSLATE_NOOP("core",
                   "Keep only √n segment outputs and recompute each segment during backward."),
               QT_TRANSLATE_NOOP("core",
                   "Costs about one extra forward pass (roughly a third more compute per "
                   "iteration); throws nothing away."), draft, replace(setup, checkpointing=True))


def _retarget(draft: NetworkDraft, *, old: str, new: str, start: int) -> NetworkDraft:
    """Layers after an insertion that read ``old`` explicitly now read the inserted layer,
    except skip connections (they keep their original source)."""
    layers = list(draft.layers)
    for i in range(start, len(layers)):
        if layers[i].source() == old:
            layers[i] = layers[i].replace(input=new)
    return draft.with_layers(layers)


def suggestions(draft: NetworkDraft, setup: Setup,
                assumptions: Assumptions | None = None, *,
                min_saving_fraction: float = MIN_SAVING_FRACTION) -> list[Suggestion]:
    """The techniques that would lower this network's peak by at least
    ``min_saving_fraction`` of it, largest saving first."""
    analysis = analyze(draft)
    if not analysis.ok:
        return []
    base = estimate(analysis, setup, assumptions).peak
    out = []
    for key, title, detail, caution, new_draft, new_setup in _candidates(draft, setup, analysis):
        new_analysis = analysis if new_draft is draft else analyze(new_draft)
        if not new_analysis.ok:
            continue
        peak = estimate(new_analysis, new_setup, assumptions).peak
        if base - peak >= min_saving_fraction * base and peak < base:
            out.append(Suggestion(key, title, detail, caution, base - peak, peak, new_draft,
                                  new_setup))
    out.sort(key=lambda s: -s.saving_bytes)
    return out
