"""One training step (or one inference pass) replayed as tensor allocations and frees.

The step is a sequence of *points*: the forward pass of every layer, the loss, the backward pass
of every layer in reverse, and the optimizer step. Every tensor the step makes is allocated at
one point and is alive up to and including another; what is alive at a point is a cumulative sum
over those events (numpy, no per-event Python loop when evaluating). Each tensor's size is
``per_sample × batch + fixed`` bytes, so what is alive at each point is affine in the batch and the
peak, the largest maximum of affine functions, is solved for the largest batch directly.

What PyTorch does, as modelled here (one step of ``zero_grad(set_to_none=True)``, forward,
``loss.backward()``, ``optimizer.step()``, with the optimizer's state already made by an earlier
step):

* weights and optimizer state live throughout; the input batch lives throughout (the caller holds
  it);
* forward: a layer's new output is allocated; it is freed after its last reader unless a layer
  keeps it for backward (the layers' saved-tensor records), then after the backward of the
  earliest layer that keeps it (backward runs in reverse, so that one is the last to let go);
  tensors a layer makes for itself (indices, masks, statistics) live until its own backward;
* loss (cross entropy): a log-softmax output of the final output's size, kept for its backward;
* backward, layer by layer in reverse: the gradient with respect to each input that needs one
  is allocated, and the parameter gradients (kept for the optimizer); the gradient with respect
  to the layer's output and the tensors it kept are freed after it. A layer whose backward does
  no arithmetic (views, residual adds, concatenations) hands its output's gradient on as it is;
  a second gradient into a tensor already holding one is added into it and freed at once;
* the optimizer's step: Adam's foreach implementation makes one temporary the size of all its
  parameters (``_foreach_sqrt`` of the second moment); SGD (with or without momentum) none.

Gradient checkpointing (PyTorch's ``checkpoint_sequential`` with √n segments): a segment saves
only its input during the forward pass; in backward it runs forward again, keeping what it needs,
just before its own backward. The last segment is not checkpointed (as checkpoint_sequential).
Gradient accumulation: the parameter gradients exist from the previous micro-batch throughout,
and each new one is added into them. Inference (under ``torch.no_grad``): nothing is kept, a
tensor lives from its layer to its last reader.

Precision: fp32 variants and pure 16-bit keep every tensor in that width. ``torch.autocast``
(mixed, mixed_bf16) keeps fp32 weights, gradients and optimizer state; the ops on autocast's
16-bit list (convolutions, linear layers, matmuls, recurrent layers) cast fp32 inputs and their
weights to 16 bits (the cast copies are what they keep for backward) and make 16-bit outputs;
the ops on its fp32 list (layer/group norm, softmax, losses) make fp32 ones; every other op keeps
the width of its input (the wider one for several inputs, as type promotion).

Byte sizes are Python ints until they enter numpy; ``StepEvents`` checks that every sum stays
inside int64 at the largest batch, and the caller falls back to exact Python-int arithmetic
otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import repeat
from typing import NamedTuple

import numpy as np

from planner.core.layers import ACT, F32, F32_FIXED, I64, MASK
from planner.core.network import MAX_BATCH, MIXED_PRECISIONS, Analysis

PHASES = ("forward", "loss", "backward", "recompute", "optimizer")
FORWARD, LOSS, BACKWARD, RECOMPUTE, OPTIMIZER = range(5)
# What a tensor is, for the breakdown at the peak.
CATEGORIES = ("weights", "weight_copies", "gradients", "optimizer", "activations", "transient")
C_WEIGHTS, C_COPIES, C_GRADS, C_OPT, C_ACT, C_TRANSIENT = range(6)

# torch.autocast's op lists on CUDA (torch/csrc/autograd/autocast_mode / amp docs): layer kinds
# on the 16-bit list, and on the fp32 list; every other kind follows its inputs' width. The ONNX
# importer's kinds are named like PyTorch's ops, so both spellings are listed.
AUTOCAST_16 = frozenset({
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "fc", "linear", "gemm", "matmul", "bmm", "baddbmm", "addmm", "attention",
    "scaled_dot_product_attention", "multihead_attention", "lstm", "gru", "rnn", "prelu",
})
AUTOCAST_32 = frozenset({
    "layernorm", "layer_norm", "groupnorm", "group_norm", "rmsnorm", "rms_norm",
    "instancenorm", "instance_norm", "softmax", "log_softmax", "cross_entropy", "nll_loss",
    "mse_loss", "l1_loss", "exp", "log", "pow", "cumsum", "norm",
})
# Adam's and AdamW's foreach step: one temporary per parameter (sqrt of the second moment).
OPTIMIZER_TEMPORARIES = {"sgd": 0, "momentum": 0, "adam": 1, "adamw": 1}

INT64_LIMIT = (1 << 62)  # headroom below 2**63 for the sums


class Point(NamedTuple):
    layer: int  # -1: the loss or the optimizer step
    phase: int


@dataclass(frozen=True, eq=False)
class StepEvents:
    """A step's tensors, independent of the batch size. Sizes in bytes."""

    point_layer: np.ndarray  # per point
    point_phase: np.ndarray
    alloc: np.ndarray  # per tensor: the first point it is alive at
    free: np.ndarray  # the last point it is alive at
    per_sample: np.ndarray  # bytes per sample
    fixed: np.ndarray  # bytes whatever the batch
    category: np.ndarray
    owner: np.ndarray  # the layer that makes it (-1: the loss or the optimizer)
    kept: np.ndarray  # True where autograd keeps it for a layer's backward
    exact_ints: bool  # True when int64 could overflow: sums are done with Python ints
    _cache: dict = field(default_factory=dict, repr=False)
    # Per layer, whether its output needs a gradient (training; None: every layer after the
    # input does). A layer that needs none keeps nothing for backward (a frozen start).
    needs_grad: tuple[bool, ...] | None = None

    @property
    def n_points(self) -> int:
        return len(self.point_layer)

    def _lines(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Live bytes at each point as (per sample, fixed), total and per category."""
        hit = self._cache.get("lines")
        if hit is None:
            t = self.n_points
            dtype = object if self.exact_ints else np.int64
            cats = len(CATEGORIES)
            ps = np.zeros(cats * (t + 1), dtype=dtype)  # (category, point) flattened
            fx = np.zeros(cats * (t + 1), dtype=dtype)
            if len(self.alloc):
                row = self.category * (t + 1)
                start, stop = row + self.alloc, row + self.free + 1
                per_sample, fixed = self.per_sample.astype(dtype), self.fixed.astype(dtype)
                np.add.at(ps, start, per_sample)
                np.subtract.at(ps, stop, per_sample)
                np.add.at(fx, start, fixed)
                np.subtract.at(fx, stop, fixed)
            ps, fx = ps.reshape(cats, t + 1), fx.reshape(cats, t + 1)
            ps_cat = np.cumsum(ps[:, :-1], axis=1)
            fx_cat = np.cumsum(fx[:, :-1], axis=1)
            hit = self._cache["lines"] = (ps_cat.sum(axis=0), fx_cat.sum(axis=0), ps_cat, fx_cat)
        return hit

    def live(self, batch: int) -> np.ndarray:
        """Exact tensor bytes alive at each point at this batch."""
        ps, fx, _, _ = self._lines()
        return ps * batch + fx

    def live_by_category(self, batch: int, point: int) -> dict[str, int]:
        _, _, ps, fx = self._lines()
        return {c: int(ps[k, point]) * batch + int(fx[k, point]) for k, c in enumerate(CATEGORIES)}

    def alive_at(self, point: int) -> np.ndarray:
        """Which tensors are alive at a point (a boolean mask over tensors)."""
        return (self.alloc <= point) & (self.free >= point)


def _bytes_per(storage_class: str, width: int) -> int:
    if storage_class == ACT:
        return width
    if storage_class == I64:
        return 8
    if storage_class == MASK:
        return 1
    return 4  # F32, F32_FIXED


def _trainable(r) -> int:
    """Parameters that get a gradient and optimizer state (all but a frozen base's)."""
    return r.parameters - r.frozen_parameters


def has_frozen(analysis: Analysis) -> bool:
    """True when some layer has frozen or quantised weights (build_step_fast does not cover
    them)."""
    return any(info.result is not None and (info.result.frozen_parameters
                                            or info.result.quantized_elements
                                            or info.result.tied_elements)
               for info in analysis.layers)


def checkpoint_segments(n_layers: int) -> int:
    """Layers per segment under sequential checkpointing: √n, as checkpoint_sequential."""
    return max(1, int(round(n_layers ** 0.5)))


def build_step(analysis: Analysis, precision: str, act_bytes: int, param_bytes: int,
               state_bytes: int, *, mode: str = "train", optimizer: str = "sgd",
               optimizer_states: int = 0, checkpointing: bool = False,
               accumulation: int = 1) -> StepEvents:
    """Replay one step of ``analysis`` (which must be valid) as tensor events.

    ``act_bytes`` is the activation width outside autocast; ``param_bytes`` the stored width of
    weights and gradients; ``state_bytes`` that of each optimizer state.
    """
    infos = analysis.layers
    storages = analysis.storages
    n = len(infos)
    train = mode == "train"
    autocast = precision in MIXED_PRECISIONS
    draft_layers = analysis.draft.layers
    index = {info.name: info.index for info in infos}

    p_layer: list[int] = []
    p_phase: list[int] = []
    t_alloc: list[int] = []
    t_free: list[int] = []
    t_ps: list[int] = []
    t_fx: list[int] = []
    t_cat: list[int] = []
    t_owner: list[int] = []
    t_kept: list[bool] = []

    def tensor(at: int, per_sample: int, fixed: int, cat: int, owner: int, free=None) -> int:
        t_kept.append(False)
        t_alloc.append(at)
        t_free.append(at if free is None else free)
        t_ps.append(per_sample)
        t_fx.append(fixed)
        t_cat.append(cat)
        t_owner.append(owner)
        return len(t_alloc) - 1

    # What each layer reads (layer indices), and whether its output needs a gradient.
    inputs: list[tuple[int, ...]] = [()] * n
    needs_grad = [False] * n
    for i in range(1, n):
        spec = draft_layers[i]
        src = spec.source_name
        ins = (index[src] if src else i - 1,) + tuple(index[r] for r in spec.ref_names)
        inputs[i] = ins
        if train:
            needs_grad[i] = _trainable(infos[i].result) > 0 or any(needs_grad[j] for j in ins)

    seg = checkpoint_segments(n) if (train and checkpointing) else 0
    n_segments = -(-n // seg) if seg else 0

    def segment(i: int) -> int:
        return i // seg if seg else 0

    def checkpointed(i: int) -> bool:
        return bool(seg) and segment(i) < n_segments - 1

    # ---------------------------------------------------------------- forward
    width: dict[int, int] = {}  # storage → bytes per element of its activation-class data
    st_tensor: dict[int, int] = {}  # storage → its tensor (the forward pass's copy)
    st_last_fwd: dict[int, int] = {}  # storage → last forward point that reads it
    st_saved_by: dict = {}  # storage → lowest-index layer keeping it for backward
    st_readers: dict[int, set[int]] = {}  # storage → layers reading it in the forward pass
    own_saved: list[tuple[int, int]] = []  # (tensor, layer): freed after that layer's backward
    fwd_point = [0] * n
    out_width = [act_bytes] * n
    cast_of: dict[tuple[int, int], int] = {}  # (layer, input position) → cast-copy tensor
    weight_copy: dict[int, int] = {}  # layer → its 16-bit weight copy (autocast)

    def forward_layer(i: int, at: int, keep: bool, recompute: bool) -> list[tuple[int, int]]:
        """Allocate what layer ``i`` makes at point ``at``; returns (tensor, storage) made.
        ``keep``: autograd keeps what the layer saves (training, not inside a checkpoint)."""
        info = infos[i]
        r = info.result
        made: list[tuple[int, int]] = []
        ins = inputs[i]
        in_st = [infos[j].output_storage for j in ins]
        kind = info.kind
        if i == 0:
            w = 4 if autocast else act_bytes
        elif autocast:
            in_w = [width[s] for s in in_st]
            w = 2 if kind in AUTOCAST_16 else 4 if kind in AUTOCAST_32 else max(in_w)
        else:
            w = act_bytes
        out_width[i] = w
        casts: dict[int, int] = {}
        if autocast and i > 0 and (kind in AUTOCAST_16 or kind in AUTOCAST_32):
            for k, s in enumerate(in_st):
                if width[s] != w:
                    casts[k] = tensor(at, storages[s].elements * w, 0, C_ACT, i)
                    cast_of[(i, k)] = casts[k]
            if kind in AUTOCAST_16 and r.parameters and not recompute:
                weight_copy[i] = tensor(at, 0, r.parameters * 2, C_COPIES, i)
                t_kept[weight_copy[i]] = train
        sid = info.output_storage
        if i == 0 or not (r.inplace or r.view):
            width[sid] = w
            if not recompute:
                st_tensor[sid] = tensor(at, storages[sid].elements * w, 0, C_ACT, i)
            else:
                made.append((tensor(at, storages[sid].elements * w, 0, C_ACT, i), sid))
        if keep and needs_grad[i]:
            for t in r.saved:
                src = t.source
                if src == "own":
                    if t.storage == F32_FIXED:
                        own = tensor(at, 0, t.elements * 4, C_ACT, i)
                    else:
                        own = tensor(at, t.elements * _bytes_per(t.storage, in_w_of(in_st, w)),
                                     0, C_ACT, i)
                    own_saved.append((own, i))
                    t_kept[own] = True
                    continue
                if src == "output":
                    s = sid
                    k = None
                else:
                    k = 0 if src == "input" else int(src.split(":")[1])
                    s = in_st[k]
                if k is not None and k in casts:
                    t_kept[casts[k]] = True  # the cast copy is kept, freed after this backward
                    continue
                prev = st_saved_by.get(s)
                if recompute:
                    st_saved_by[("r", s)] = min(prev, i) if prev is not None else i
                elif prev is None or i < prev:
                    st_saved_by[s] = i
        if not recompute:
            for s in in_st:
                st_last_fwd[s] = at
            for s in in_st:
                st_readers.setdefault(s, set()).add(i)
        return made

    def in_w_of(in_st: list[int], w: int) -> int:
        return width[in_st[0]] if in_st else w

    for i in range(n):
        at = len(p_layer)
        p_layer.append(i)
        p_phase.append(FORWARD)
        fwd_point[i] = at
        forward_layer(i, at, keep=train and not checkpointed(i), recompute=False)

    last_st = infos[-1].output_storage
    end_of_forward = len(p_layer) - 1
    # ---------------------------------------------------------------- loss
    loss_point = loss_bwd = -1
    final_elems = storages[last_st].elements
    if train:
        loss_point = len(p_layer)
        p_layer.append(-1)
        p_phase.append(LOSS)
        st_last_fwd[last_st] = loss_point
        log_softmax = tensor(loss_point, final_elems * (4 if autocast else act_bytes), 0,
                             C_ACT, -1)
    # ---------------------------------------------------------------- backward
    bwd_point = [-1] * n
    gbuf: dict[int, int] = {}  # layer → the tensor holding the gradient of its output
    total_params = 0
    if train:
        loss_bwd = len(p_layer)
        p_layer.append(-1)
        p_phase.append(BACKWARD)
        t_free[log_softmax] = loss_bwd
        tensor(loss_bwd, final_elems * (4 if autocast else act_bytes), 0, C_TRANSIENT, -1)
        gbuf[n - 1] = tensor(loss_bwd, final_elems * out_width[n - 1], 0, C_TRANSIENT, -1)
        if needs_grad[n - 1] is False:
            del gbuf[n - 1]
    recomputed: dict[int, list[tuple[int, int]]] = {}  # segment → (tensor, storage) remade

    def backward_layer(k: int) -> None:
        at = len(p_layer)
        p_layer.append(k)
        p_phase.append(BACKWARD)
        bwd_point[k] = at
        r = infos[k].result
        g = gbuf.get(k)
        if g is not None:
            t_free[g] = max(t_free[g], at)
        if r.tied_elements:  # the shared weight's second gradient, added in at the end
            tensor(at, 0, r.tied_elements * param_bytes, C_TRANSIENT, k, free=-3)
        if r.flops_bwd == 0 and r.parameters == 0:  # hands its output's gradient on
            for j in inputs[k]:
                if needs_grad[j] and j not in gbuf and g is not None:
                    gbuf[j] = g
            return
        if _trainable(r):
            grad = _trainable(r) * param_bytes
            if accumulation > 1:
                tensor(at, 0, grad, C_TRANSIENT, k)
            else:
                tensor(at, 0, grad, C_GRADS, k, free=-2)  # to the end of the step
            if k in weight_copy:
                tensor(at, 0, r.parameters * 2, C_TRANSIENT, k)  # the 16-bit copy's gradient
                t_free[weight_copy[k]] = at
        for pos, j in enumerate(inputs[k]):
            if not needs_grad[j]:
                continue
            s = infos[j].output_storage
            size = storages[s].elements * width[s]
            if (k, pos) in cast_of:
                tensor(at, storages[s].elements * out_width[k], 0, C_TRANSIENT, k)
            if j not in gbuf:
                gbuf[j] = tensor(at, size, 0, C_TRANSIENT, k)
            else:
                tensor(at, size, 0, C_TRANSIENT, k)
        for key in [(k, pos) for pos in range(len(inputs[k]))]:
            c = cast_of.get(key)
            if c is not None and t_kept[c]:
                t_free[c] = max(t_free[c], at)

    if train:
        order = list(range(n - 1, 0, -1))
        if not seg:
            for k in order:
                if needs_grad[k]:
                    backward_layer(k)
        else:
            for g in range(n_segments - 1, -1, -1):
                members = [i for i in range(g * seg, min((g + 1) * seg, n))]
                if g < n_segments - 1:
                    made_here: list[tuple[int, int]] = []
                    for i in members:
                        if i == 0:
                            continue
                        at = len(p_layer)
                        p_layer.append(i)
                        p_phase.append(RECOMPUTE)
                        made_here += forward_layer(i, at, keep=True, recompute=True)
                    recomputed[g] = made_here
                for k in reversed(members):
                    if k > 0 and needs_grad[k]:
                        backward_layer(k)
    end_of_backward = len(p_layer) - 1
    if train:
        # A tied weight's second gradient is added into the first out of place (measured on
        # PyTorch 2.x: the old gradient, the new one and their sum are alive together).
        for info in infos:
            r = info.result
            if r.tied_elements and needs_grad[info.index]:
                tensor(end_of_backward, 0, r.tied_elements * param_bytes, C_TRANSIENT,
                       info.index)
    # ---------------------------------------------------------------- optimizer
    if train:
        opt_point = len(p_layer)
        p_layer.append(-1)
        p_phase.append(OPTIMIZER)
        total_params = sum(_trainable(info.result) for info in infos)
        temps = OPTIMIZER_TEMPORARIES.get(optimizer, 0)
        if temps and total_params:
            tensor(opt_point, 0, temps * total_params * state_bytes, C_TRANSIENT, -1)
    last_point = len(p_layer) - 1

    # Free points of the forward pass's storages.
    for s, t in st_tensor.items():
        free = st_last_fwd.get(s, t_alloc[t])
        saver = st_saved_by.get(s)
        if saver is not None:
            free = max(free, bwd_point[saver])
            t_kept[t] = True
        if seg:
            # A storage read in a later segment is that segment's checkpointed input: kept until
            # that segment's backward is done.
            prod = storages[s].producer
            for reader_seg in {segment(i) for i in st_readers.get(s, ())}:
                if reader_seg != segment(prod):
                    first = reader_seg * seg
                    members = range(first, min(first + seg, n))
                    pts = [bwd_point[m] for m in members if bwd_point[m] >= 0]
                    if pts:
                        free = max(free, max(pts))
        t_free[t] = free
    if st_tensor:
        t_free[st_tensor[infos[0].output_storage]] = last_point  # the caller holds the input
        if not train:
            t_free[st_tensor[last_st]] = last_point  # the result
    for t, layer in own_saved:
        t_free[t] = max(t_free[t], bwd_point[layer] if bwd_point[layer] >= 0 else t_alloc[t])
    for made in recomputed.values():
        for t, s in made:
            saver = st_saved_by.get(("r", s))
            free = t_alloc[t]
            if saver is not None and bwd_point[saver] >= 0:
                free = max(free, bwd_point[saver])
                t_kept[t] = True
            else:
                # Read by the next layers of the same recomputed segment: free after the
                # segment's last recompute point.
                free = max(free, _segment_end(t_alloc[t], p_phase))
            t_free[t] = free
    if not train:
        for t in weight_copy.values():
            t_free[t] = end_of_forward  # autocast's cast cache empties when the region exits
    for t in range(len(t_free)):
        if t_free[t] == -2:
            t_free[t] = last_point
        elif t_free[t] == -3:
            t_free[t] = end_of_backward
    # Persistent tensors: weights (one per layer with parameters), optimizer state, and the
    # gradients of the previous micro-batch under accumulation.
    for info in infos:
        r = info.result
        params = _trainable(r)
        if not r.parameters:
            continue
        tensor(0, 0, (r.parameters - r.quantized_elements) * param_bytes + r.quantized_bytes,
               C_WEIGHTS, info.index, free=last_point)
        if train and params:
            for _ in range(optimizer_states):
                tensor(0, 0, params * state_bytes, C_OPT, info.index, free=last_point)
            if accumulation > 1:
                tensor(0, 0, params * param_bytes, C_GRADS, info.index, free=last_point)
    del end_of_backward
    ps = np.array(t_ps, dtype=object)
    fx = np.array(t_fx, dtype=object)
    worst = (int(ps.sum()) if len(ps) else 0) * MAX_BATCH + (int(fx.sum()) if len(fx) else 0)
    exact = worst >= INT64_LIMIT
    return StepEvents(
        point_layer=np.array(p_layer, dtype=np.int64),
        point_phase=np.array(p_phase, dtype=np.int8),
        alloc=np.array(t_alloc, dtype=np.int64),
        free=np.array(t_free, dtype=np.int64),
        per_sample=ps if exact else ps.astype(np.int64),
        fixed=fx if exact else fx.astype(np.int64),
        category=np.array(t_cat, dtype=np.int64),
        owner=np.array(t_owner, dtype=np.int64),
        kept=np.array(t_kept, dtype=bool),
        exact_ints=exact,
        # (set where weights are frozen: a draft without parameters keeps its rules' tensors
        # in the per-layer figures, as before)
        needs_grad=tuple(needs_grad) if train and not all(needs_grad[1:]) and
        has_frozen(analysis) else None,
    )


def _segment_end(at: int, phases: list[int]) -> int:
    end = at
    while end + 1 < len(phases) and phases[end + 1] == RECOMPUTE:
        end += 1
    return end


# Storage classes as small integers (an unknown class counts as F32: 4 bytes per sample).
STORAGE_CLASSES = (ACT, F32, F32_FIXED, I64, MASK)
_CLASS_CODE = {c: k for k, c in enumerate(STORAGE_CLASSES)}
C_FIXED = _CLASS_CODE[F32_FIXED]


def class_codes(classes) -> np.ndarray:
    """Each storage class's index in ``STORAGE_CLASSES``."""
    return np.fromiter(map(_CLASS_CODE.get, classes, repeat(1)), dtype=np.int8,
                       count=len(classes))


def class_bytes(codes: np.ndarray, act_bytes: int) -> np.ndarray:
    """Bytes per element of each storage class code."""
    return np.array((act_bytes, 4, 4, 8, 1), dtype=np.int64)[codes]


def _class_bytes(classes, act_bytes: int) -> tuple[np.ndarray, np.ndarray]:
    """(bytes per element, True where the tensor does not grow with the batch) per class."""
    codes = class_codes(classes)
    return class_bytes(codes, act_bytes), codes == C_FIXED


def build_step_fast(analysis: Analysis, params: np.ndarray, fbwd: np.ndarray, act_bytes: int,
                    param_bytes: int, state_bytes: int, *, mode: str, optimizer: str,
                    optimizer_states: int, accumulation: int,
                    saved_owner: np.ndarray | None = None) -> StepEvents | None:
    """``build_step`` for the common case, with numpy instead of a loop over layers: no
    autocast, no checkpointing, and (training) every layer after the input needs a gradient.
    Returns None when the case is not covered or int64 could overflow; the caller then uses
    ``build_step``. Gives the same events (a unit test compares the two). ``params`` and
    ``fbwd``: each layer's parameter count and backward FLOPs, ``saved_owner`` the first keeper
    of each of ``analysis.saved`` (arrays the caller has)."""
    n = len(analysis.layers)
    train = mode == "train"
    cols = analysis.columns
    if cols is None or not cols.st_elems or n < 2:
        return None
    st_el, st_cls, st_prod, st_last = cols.st_elems, cols.st_class, cols.st_prod, cols.st_last
    worst = sum(st_el) * 8 * MAX_BATCH + int(params.sum()) * 64
    if worst >= INT64_LIMIT:
        return None
    # What each layer reads: its main input first, then the layers 'from' names.
    cons_a = np.array(cols.edge_reader, dtype=np.int64)
    prod_a = np.array(cols.edge_read, dtype=np.int64)
    out_storage = np.array(cols.output_storage, dtype=np.int64)
    if train and not (params[cons_a[prod_a == 0]] > 0).all():
        # Every layer after the input needs a gradient when every layer reading the input
        # has parameters (the others read layers that need one, by induction). Otherwise the
        # general replay decides layer by layer.
        return None

    el = np.array(st_el, dtype=np.int64)
    bpe, fixed_cls = _class_bytes(st_cls, act_bytes)
    nbytes = el * bpe
    producer = np.array(st_prod, dtype=np.int64)
    last_use = np.array(st_last, dtype=np.int64)
    n_st = len(el)
    # Points: forward 0..n-1; training adds the loss (n), its backward (n+1), layer k's backward
    # at n+2+(n-1-k) for k = n-1…1, and the optimizer step (2n+1).
    if train:
        loss_point, loss_bwd, opt_point = n, n + 1, 2 * n + 1
        n_points = 2 * n + 2
        bwd = np.full(n, -1, dtype=np.int64)
        bwd[1:] = n + 2 + (n - 1 - np.arange(1, n))
        p_layer = np.concatenate([np.arange(n), [-1, -1], np.arange(n - 1, 0, -1), [-1]])
        p_phase = np.concatenate([np.full(n, FORWARD), [LOSS, BACKWARD],
                                  np.full(n - 1, BACKWARD), [OPTIMIZER]])
    else:
        n_points = n
        p_layer = np.arange(n)
        p_phase = np.full(n, FORWARD)
    last_point = n_points - 1
    final_st = int(out_storage[-1])

    # Storages: outputs of layers and what layers make for themselves.
    is_output = np.zeros(n_st, dtype=bool)
    is_output[out_storage[out_storage >= 0]] = True
    st_free = last_use.copy()
    if train:
        saver = np.full(n_st, -1, dtype=np.int64)
        saver[np.asarray(analysis.saved, dtype=np.int64)] = (
            saved_owner if saved_owner is not None else cols.saved_owner)
        st_free[final_st] = max(int(st_free[final_st]), loss_point)
        kept = saver >= 1
        st_free = np.where(kept, np.maximum(st_free, bwd[np.maximum(saver, 0)]), st_free)
        keep_st = is_output | kept
    else:
        keep_st = is_output  # nothing is kept for backward: no masks, indices, statistics
    st_free[int(out_storage[0])] = last_point  # the caller holds the input
    if not train:
        st_free[final_st] = last_point
    sel = np.nonzero(keep_st)[0]
    alloc_parts = [producer[sel]]
    free_parts = [st_free[sel]]
    ps_parts = [np.where(fixed_cls[sel], 0, nbytes[sel])]
    fx_parts = [np.where(fixed_cls[sel], nbytes[sel], 0)]
    cat_parts = [np.full(len(sel), C_ACT)]
    owner_parts = [producer[sel]]
    kept_sel = (saver[sel] >= 1) if train else np.zeros(len(sel), dtype=bool)

    def add(alloc, free, ps, fx, cat, owner):
        alloc_parts.append(np.asarray(alloc, dtype=np.int64))
        free_parts.append(np.asarray(free, dtype=np.int64))
        ps_parts.append(np.asarray(ps, dtype=np.int64))
        fx_parts.append(np.asarray(fx, dtype=np.int64))
        cat_parts.append(np.asarray(cat, dtype=np.int64))
        owner_parts.append(np.asarray(owner, dtype=np.int64))

    with_params = np.nonzero(params > 0)[0]
    w = params[with_params]
    m = len(with_params)
    zeros_m = np.zeros(m, dtype=np.int64)
    add(zeros_m, np.full(m, last_point), zeros_m, w * param_bytes, np.full(m, C_WEIGHTS),
        with_params)
    if train:
        out_el = el[out_storage]
        final_bytes = int(el[final_st]) * act_bytes
        add([loss_point, loss_bwd], [loss_bwd, loss_bwd], [final_bytes, final_bytes], [0, 0],
            [C_ACT, C_TRANSIENT], [-1, -1])
        for _ in range(optimizer_states):
            add(zeros_m, np.full(m, last_point), zeros_m, w * state_bytes, np.full(m, C_OPT),
                with_params)
        if accumulation > 1:
            add(zeros_m, np.full(m, last_point), zeros_m, w * param_bytes,
                np.full(m, C_GRADS), with_params)
            add(bwd[with_params], bwd[with_params], zeros_m, w * param_bytes,
                np.full(m, C_TRANSIENT), with_params)
        else:
            add(bwd[with_params], np.full(m, last_point), zeros_m, w * param_bytes,
                np.full(m, C_GRADS), with_params)
        total_params = int(params.sum())
        temps = OPTIMIZER_TEMPORARIES.get(optimizer, 0)
        if temps and total_params:
            add([opt_point], [opt_point], [0], [temps * total_params * state_bytes],
                [C_TRANSIENT], [-1])
        # Gradient buffers. A layer whose backward does no arithmetic hands its output's
        # gradient on; the first gradient into a layer's output (from its highest-index
        # reader) is that layer's buffer, later ones are added into it and freed at once.
        passes = (fbwd == 0) & (params == 0)
        grad_edge = prod_a >= 1  # the input data needs no gradient
        ce, pe = cons_a[grad_edge], prod_a[grad_edge]
        maxcons = np.full(n, -1, dtype=np.int64)
        np.maximum.at(maxcons, pe, ce)
        # root[j]: follow the first reader while it hands the gradient on (pointer jumping).
        idx = np.arange(n)
        root = np.where((maxcons >= 0) & passes[np.maximum(maxcons, 0)], maxcons, idx)
        while True:
            nxt = root[root]
            if np.array_equal(nxt, root):
                break
            root = nxt
        first = ce == maxcons[pe]
        # Buffers: allocated by the first computing reader (or the loss, for the last layer).
        is_root = root == np.arange(n)
        is_root[0] = False
        roots = np.nonzero(is_root)[0]
        alloc_at = np.where(roots == n - 1, loss_bwd, bwd[np.maximum(maxcons[roots], 0)])
        # A buffer lives until the backward of the lowest-index layer holding it.
        holder_min = np.full(n, n, dtype=np.int64)
        np.minimum.at(holder_min, root[1:], np.arange(1, n))
        free_at = bwd[holder_min[roots]]
        valid = (maxcons[roots] >= 0) | (roots == n - 1)
        roots, alloc_at, free_at = roots[valid], alloc_at[valid], free_at[valid]
        add(alloc_at, np.maximum(free_at, alloc_at), out_el[roots] * act_bytes,
            np.zeros(len(roots)), np.full(len(roots), C_TRANSIENT), roots)
        # Second and later gradients from computing readers: added in and freed at once.
        extra = ~first & ~passes[ce]
        ec, ep = ce[extra], pe[extra]
        add(bwd[ec], bwd[ec], out_el[ep] * act_bytes, np.zeros(len(ec)),
            np.full(len(ec), C_TRANSIENT), ec)
    return StepEvents(
        point_layer=np.asarray(p_layer, dtype=np.int64),
        point_phase=np.asarray(p_phase, dtype=np.int8),
        alloc=np.concatenate(alloc_parts),
        free=np.concatenate(free_parts),
        per_sample=np.concatenate(ps_parts),
        fixed=np.concatenate(fx_parts),
        category=np.concatenate(cat_parts),
        owner=np.concatenate(owner_parts),
        kept=np.concatenate([kept_sel, np.zeros(sum(map(len, alloc_parts)) - len(sel),
                                                dtype=bool)]),
        exact_ints=False,
    )
