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
  a second gradient into a tensor already holding one is added into it and freed at once
  (the same gradient handed on twice, as by ``x + x``, is added out of place: autograd cannot
  add in place into a storage still shared; either way one more buffer at that point);
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
from bisect import bisect_left
from itertools import chain, repeat, starmap
import struct
from typing import Any, NamedTuple

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
    cache: dict = field(default_factory=dict, repr=False)  # derived arrays (here, core.memory)
    # Per layer, whether its output needs a gradient (training; None: every layer after the
    # input does). A layer that needs none keeps nothing for backward (a frozen start).
    needs_grad: tuple[bool, ...] | None = None

    @property
    def n_points(self) -> int:
        return len(self.point_layer)

    def lines(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Live bytes at each point as (per sample, fixed), total and per category."""
        hit = self.cache.get("lines")
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
            hit = self.cache["lines"] = (ps_cat.sum(axis=0), fx_cat.sum(axis=0), ps_cat, fx_cat)
        return hit

    def live(self, batch: int) -> np.ndarray:
        """Exact tensor bytes alive at each point at this batch."""
        ps, fx, _, _ = self.lines()
        return ps * batch + fx

    def live_by_category(self, batch: int, point: int) -> dict[str, int]:
        _, _, ps, fx = self.lines()
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
    return any(r is not None and (r.frozen_parameters or r.quantized_elements
                                  or r.tied_elements)
               for r in analysis.layer_rows.results)


def checkpoint_segments(n_layers: int) -> int:
    """Layers per segment under sequential checkpointing: √n, as checkpoint_sequential."""
    return max(1, int(round(n_layers ** 0.5)))



_NO_CASTS: dict[int, int] = {}


def _tensor_maker(r: "_Replay"):
    """The replay's one way to make a tensor (a plain function over its lists: it runs for
    every tensor of the step)."""
    alloc, free_, ps, fx = r.t_alloc.append, r.t_free.append, r.t_ps.append, r.t_fx.append
    cat_, owner_, kept = r.t_cat.append, r.t_owner.append, r.t_kept

    def tensor(at: int, per_sample: int, fixed: int, cat: int, owner: int,
               free: int | None = None) -> int:
        alloc(at)
        free_(at if free is None else free)
        ps(per_sample)
        fx(fixed)
        cat_(cat)
        owner_(owner)
        kept.append(False)
        return len(kept) - 1

    return tensor


class _Replay:
    """``build_step``'s state while it replays a step: the points so far, the tensors made,
    and the bookkeeping of the pass in progress. Its methods are the step's phases, called in
    order by ``build_step``."""

    def __init__(self, analysis: Analysis, precision: str, act_bytes: int, param_bytes: int,
                 state_bytes: int, mode: str, checkpointing: bool, accumulation: int):
        self.analysis = analysis
        self.infos = infos = analysis.layers
        self.storages = analysis.storages
        self.n = n = len(infos)
        self.train = train = mode == "train"
        self.autocast = precision in MIXED_PRECISIONS
        self.act_bytes, self.param_bytes, self.state_bytes = act_bytes, param_bytes, state_bytes
        self.accumulation = accumulation
        self.p_layer: list[int] = []
        self.p_phase: list[int] = []
        # Per tensor: where it is allocated and freed, its size, category, owner, and whether
        # autograd keeps it (one list each: the free point and kept are set later).
        self.t_alloc: list[int] = []
        self.t_free: list[int] = []
        self.t_ps: list[int] = []
        self.t_fx: list[int] = []
        self.t_cat: list[int] = []
        self.t_owner: list[int] = []
        self.t_kept: list[bool] = []
        # tensor(at, per_sample, fixed, category, owner, free=None) → the new tensor's index
        self.tensor = _tensor_maker(self)
        self.inputs, self.needs_grad = _wiring(analysis, train)
        self.seg = seg = checkpoint_segments(n) if (train and checkpointing) else 0
        self.n_segments = -(-n // seg) if seg else 0
        # forward
        self.width: dict[int, int] = {}  # storage → bytes per element of its activation data
        self.st_tensor: dict[int, int] = {}  # storage → its tensor (the forward pass's copy)
        self.st_last_fwd: dict[int, int] = {}  # storage → last forward point that reads it
        self.st_saved_by: dict = {}  # storage → lowest-index layer keeping it for backward
        self.st_readers: dict[int, set[int]] = {}  # storage → layers reading it (forward)
        self.own_saved: list[tuple[int, int]] = []  # (tensor, layer): freed after its backward
        self.out_width = [act_bytes] * n
        self.cast_of: dict[tuple[int, int], int] = {}  # (layer, input position) → cast copy
        self.weight_copy: dict[int, int] = {}  # layer → its 16-bit weight copy (autocast)
        self.end_of_forward = -1
        self.last_st = infos[-1].output_storage
        # backward
        self.bwd_point = [-1] * n
        self.gbuf: dict[int, int] = {}  # layer → the tensor holding its output's gradient
        self.recomputed: dict[int, list[tuple[int, int]]] = {}  # segment → (tensor, storage)
        self.end_of_backward = -1

    # ------------------------------------------------------------------ helpers
    def point(self, layer: int, phase: int) -> int:
        self.p_layer.append(layer)
        self.p_phase.append(phase)
        return len(self.p_layer) - 1

    def segment(self, i: int) -> int:
        return i // self.seg if self.seg else 0

    # ------------------------------------------------------------------ forward
    def forward_layer(self, i: int, at: int, keep: bool,
                      recompute: bool) -> list[tuple[int, int]]:
        """Allocate what layer ``i`` makes at point ``at``; returns (tensor, storage) made.
        ``keep``: autograd keeps what the layer saves (training, not inside a checkpoint)."""
        infos = self.infos
        info = infos[i]
        r = info.result
        width, tensor = self.width, self.tensor
        autocast, act_bytes = self.autocast, self.act_bytes
        made: list[tuple[int, int]] = []
        in_st = [infos[j].output_storage for j in self.inputs[i]]
        kind = info.kind
        if i == 0:
            w = 4 if autocast else act_bytes
        elif autocast:
            in_w = [width[s] for s in in_st]
            w = 2 if kind in AUTOCAST_16 else 4 if kind in AUTOCAST_32 else max(in_w)
        else:
            w = act_bytes
        self.out_width[i] = w
        casts = self._autocast_copies(i, at, in_st, w, recompute) if autocast and i > 0 and (
            kind in AUTOCAST_16 or kind in AUTOCAST_32) else _NO_CASTS
        sid = info.output_storage
        if i == 0 or not (r.inplace or r.view):
            width[sid] = w
            size = self.storages[sid].elements * w
            if not recompute:
                self.st_tensor[sid] = tensor(at, size, 0, C_ACT, i)
            else:
                made.append((tensor(at, size, 0, C_ACT, i), sid))
        if keep and r.saved and self.needs_grad[i]:
            self._keep_saved(i, at, r, in_st, sid, w, casts, recompute)
        if not recompute:
            st_last_fwd = self.st_last_fwd
            for s in in_st:
                st_last_fwd[s] = at
            if self.seg:  # who reads what: checkpointed segments keep their inputs
                st_readers = self.st_readers
                for s in in_st:
                    st_readers.setdefault(s, set()).add(i)
        return made

    def _autocast_copies(self, i: int, at: int, in_st: list[int], w: int,
                         recompute: bool) -> dict[int, int]:
        """Autocast's casts of layer ``i``'s inputs (input position → tensor) and, on its
        16-bit list, the 16-bit copy of its weights."""
        kind = self.infos[i].kind
        r = self.infos[i].result
        casts: dict[int, int] = {}
        for k, s in enumerate(in_st):
            if self.width[s] != w:
                casts[k] = self.tensor(at, self.storages[s].elements * w, 0, C_ACT, i)
                self.cast_of[(i, k)] = casts[k]
        if kind in AUTOCAST_16 and r.parameters and not recompute:
            self.weight_copy[i] = self.tensor(at, 0, r.parameters * 2, C_COPIES, i)
            self.t_kept[self.weight_copy[i]] = self.train
        return casts

    def _keep_saved(self, i: int, at: int, r, in_st: list[int], sid: int, w: int,
                    casts: dict[int, int], recompute: bool) -> None:
        """What layer ``i`` keeps for backward: tensors of its own, or a storage (its input,
        output or a cast copy of an input) marked kept by the lowest-index keeper."""
        st_saved_by = self.st_saved_by
        for t in r.saved:
            src = t.source
            if src == "own":
                if t.storage == F32_FIXED:
                    own = self.tensor(at, 0, t.elements * 4, C_ACT, i)
                else:
                    in_w = self.width[in_st[0]] if in_st else w
                    own = self.tensor(at, t.elements * _bytes_per(t.storage, in_w), 0, C_ACT, i)
                self.own_saved.append((own, i))
                self.t_kept[own] = True
                continue
            if src == "output":
                s = sid
                k = None
            else:
                k = 0 if src == "input" else int(src.split(":")[1])
                s = in_st[k]
            if k is not None and k in casts:
                self.t_kept[casts[k]] = True  # the cast copy is kept, freed after this backward
                continue
            prev = st_saved_by.get(s)
            if recompute:
                st_saved_by[("r", s)] = min(prev, i) if prev is not None else i
            elif prev is None or i < prev:
                st_saved_by[s] = i

    def forward_pass(self) -> None:
        keep = self.train
        p_layer, p_phase, forward_layer = self.p_layer, self.p_phase, self.forward_layer
        seg, last_seg = self.seg, self.n_segments - 1
        for i in range(self.n):
            at = len(p_layer)
            p_layer.append(i)
            p_phase.append(FORWARD)
            checkpointed = bool(seg) and i // seg < last_seg
            forward_layer(i, at, keep and not checkpointed, False)
        self.end_of_forward = len(self.p_layer) - 1

    # ------------------------------------------------------------------ loss
    def loss(self) -> None:
        """Cross entropy: a log-softmax kept for its backward; then its backward, which makes
        the gradient of the network's output."""
        n, autocast, act_bytes = self.n, self.autocast, self.act_bytes
        final_elems = self.storages[self.last_st].elements
        loss_point = self.point(-1, LOSS)
        self.st_last_fwd[self.last_st] = loss_point
        log_softmax = self.tensor(loss_point, final_elems * (4 if autocast else act_bytes), 0,
                                  C_ACT, -1)
        loss_bwd = self.point(-1, BACKWARD)
        self.t_free[log_softmax] = loss_bwd
        self.tensor(loss_bwd, final_elems * (4 if autocast else act_bytes), 0, C_TRANSIENT, -1)
        self.gbuf[n - 1] = self.tensor(loss_bwd, final_elems * self.out_width[n - 1], 0,
                                       C_TRANSIENT, -1)
        if self.needs_grad[n - 1] is False:
            del self.gbuf[n - 1]

    # ------------------------------------------------------------------ backward
    def backward_layer(self, k: int) -> None:
        at = len(self.p_layer)
        self.p_layer.append(k)
        self.p_phase.append(BACKWARD)
        self.bwd_point[k] = at
        r = self.infos[k].result
        gbuf, t_free, tensor = self.gbuf, self.t_free, self.tensor
        needs_grad, param_bytes = self.needs_grad, self.param_bytes
        g = gbuf.get(k)
        if g is not None:
            t_free[g] = max(t_free[g], at)
        if r.tied_elements:  # the shared weight's second gradient, added in at the end
            tensor(at, 0, r.tied_elements * param_bytes, C_TRANSIENT, k, free=-3)
        if r.flops_bwd == 0 and r.parameters == 0:  # hands its output's gradient on
            for j in self.inputs[k]:
                if needs_grad[j] and g is not None:
                    if j not in gbuf:
                        gbuf[j] = g
                    elif gbuf[j] == g:
                        # The same gradient a second time (x + x, x + x.view(...)): its storage
                        # is shared, so autograd adds the two out of place, a new buffer
                        # beside the incoming one.
                        s = self.infos[j].output_storage
                        tensor(at, self.storages[s].elements * self.width[s], 0, C_TRANSIENT,
                               k)
            return
        trainable = r.parameters - r.frozen_parameters
        if trainable:
            grad = trainable * param_bytes
            if self.accumulation > 1:
                tensor(at, 0, grad, C_TRANSIENT, k)
            else:
                tensor(at, 0, grad, C_GRADS, k, free=-2)  # to the end of the step
            if k in self.weight_copy:
                tensor(at, 0, r.parameters * 2, C_TRANSIENT, k)  # the 16-bit copy's gradient
                t_free[self.weight_copy[k]] = at
        infos, storages, width, cast_of = self.infos, self.storages, self.width, self.cast_of
        for pos, j in enumerate(self.inputs[k]):
            if not needs_grad[j]:
                continue
            s = infos[j].output_storage
            size = storages[s].elements * width[s]
            if cast_of and (k, pos) in cast_of:
                tensor(at, storages[s].elements * self.out_width[k], 0, C_TRANSIENT, k)
            if j not in gbuf:
                gbuf[j] = tensor(at, size, 0, C_TRANSIENT, k)
            else:
                tensor(at, size, 0, C_TRANSIENT, k)
        if cast_of:  # autocast's kept casts die after this backward
            for pos in range(len(self.inputs[k])):
                c = cast_of.get((k, pos))
                if c is not None and self.t_kept[c]:
                    t_free[c] = max(t_free[c], at)

    def backward_pass(self) -> None:
        """Backward in reverse; under checkpointing each segment but the last runs forward
        again (keeping what its layers need) just before its own backward."""
        n, seg, needs_grad, backward_layer = self.n, self.seg, self.needs_grad, \
            self.backward_layer
        if not seg:
            for k in range(n - 1, 0, -1):
                if needs_grad[k]:
                    backward_layer(k)
        else:
            for g in range(self.n_segments - 1, -1, -1):
                members = range(g * seg, min((g + 1) * seg, n))
                if g < self.n_segments - 1:
                    self.recomputed[g] = self._recompute(members)
                for k in reversed(members):
                    if k > 0 and needs_grad[k]:
                        backward_layer(k)
        self.end_of_backward = len(self.p_layer) - 1

    def _recompute(self, members: range) -> list[tuple[int, int]]:
        made: list[tuple[int, int]] = []
        p_layer, p_phase, forward_layer = self.p_layer, self.p_phase, self.forward_layer
        for i in members:
            if i == 0:
                continue
            at = len(p_layer)
            p_layer.append(i)
            p_phase.append(RECOMPUTE)
            made += forward_layer(i, at, True, True)
        return made

    def tied_gradients(self) -> None:
        """A tied weight's second gradient is added into the first out of place (measured on
        PyTorch 2.x: the old gradient, the new one and their sum are alive together)."""
        for info in self.infos:
            r = info.result
            if r.tied_elements and self.needs_grad[info.index]:
                self.tensor(self.end_of_backward, 0, r.tied_elements * self.param_bytes,
                            C_TRANSIENT, info.index)

    # ------------------------------------------------------------------ optimizer
    def optimizer_step(self, optimizer: str) -> None:
        opt_point = self.point(-1, OPTIMIZER)
        total_params = sum(_trainable(info.result) for info in self.infos)
        temps = OPTIMIZER_TEMPORARIES.get(optimizer, 0)
        if temps and total_params:
            self.tensor(opt_point, 0, temps * total_params * self.state_bytes, C_TRANSIENT, -1)

    # ------------------------------------------------------------------ frees
    def free_forward_storages(self) -> None:
        """When each storage made in the forward pass dies: after its last reader, or after
        the backward of the lowest-index layer keeping it, or (checkpointing) after the
        backward of the segment it is the input of."""
        t_alloc, t_free, t_kept = self.t_alloc, self.t_free, self.t_kept
        bwd_point, seg, n = self.bwd_point, self.seg, self.n
        for s, t in self.st_tensor.items():
            free = self.st_last_fwd.get(s, t_alloc[t])
            saver = self.st_saved_by.get(s)
            if saver is not None:
                free = max(free, bwd_point[saver])
                t_kept[t] = True
            if seg:
                # A storage read in a later segment is that segment's checkpointed input: kept
                # until that segment's backward is done.
                prod_seg = self.storages[s].producer // seg
                for reader_seg in {i // seg for i in self.st_readers.get(s, ())}:
                    if reader_seg != prod_seg:
                        first = reader_seg * seg
                        pts = [bwd_point[m] for m in range(first, min(first + seg, n))
                               if bwd_point[m] >= 0]
                        if pts:
                            free = max(free, max(pts))
            t_free[t] = free
        last_point = len(self.p_layer) - 1
        if self.st_tensor:
            t_free[self.st_tensor[self.infos[0].output_storage]] = last_point  # the caller's
            if not self.train:
                t_free[self.st_tensor[self.last_st]] = last_point  # the result

    def free_kept(self) -> None:
        """Tensors layers made for themselves die after their layer's backward; what a
        recomputed segment made, after its keeper's backward or the segment's recompute."""
        t_alloc, t_free, t_kept = self.t_alloc, self.t_free, self.t_kept
        bwd_point = self.bwd_point
        for t, layer in self.own_saved:
            t_free[t] = max(t_free[t], bwd_point[layer] if bwd_point[layer] >= 0 else t_alloc[t])
        for made in self.recomputed.values():
            for t, s in made:
                saver = self.st_saved_by.get(("r", s))
                free = t_alloc[t]
                if saver is not None and bwd_point[saver] >= 0:
                    free = max(free, bwd_point[saver])
                    t_kept[t] = True
                else:
                    # Read by the next layers of the same recomputed segment: free after the
                    # segment's last recompute point.
                    free = max(free, _segment_end(t_alloc[t], self.p_phase))
                t_free[t] = free
        if not self.train:
            for t in self.weight_copy.values():
                t_free[t] = self.end_of_forward  # autocast's cast cache empties on exit
        last_point = len(self.p_layer) - 1
        for t in range(len(t_free)):
            if t_free[t] == -2:
                t_free[t] = last_point
            elif t_free[t] == -3:
                t_free[t] = self.end_of_backward

    # ------------------------------------------------------------------ persistent
    def persistent(self, optimizer_states: int) -> None:
        """Weights (one per layer with parameters), optimizer state, and the gradients of the
        previous micro-batch under accumulation: alive throughout."""
        last_point = len(self.p_layer) - 1
        param_bytes, state_bytes, tensor = self.param_bytes, self.state_bytes, self.tensor
        train, accumulation = self.train, self.accumulation
        for info in self.infos:
            r = info.result
            if not r.parameters:
                continue
            params = _trainable(r)
            tensor(0, 0, (r.parameters - r.quantized_elements) * param_bytes + r.quantized_bytes,
                   C_WEIGHTS, info.index, free=last_point)
            if train and params:
                for _ in range(optimizer_states):
                    tensor(0, 0, params * state_bytes, C_OPT, info.index, free=last_point)
                if accumulation > 1:
                    tensor(0, 0, params * param_bytes, C_GRADS, info.index, free=last_point)

    def events(self) -> StepEvents:
        ps = np.array(self.t_ps, dtype=object)
        fx = np.array(self.t_fx, dtype=object)
        worst = (int(ps.sum()) if len(ps) else 0) * MAX_BATCH + (int(fx.sum()) if len(fx) else 0)
        exact = worst >= INT64_LIMIT
        needs_grad = self.needs_grad
        return StepEvents(
            point_layer=np.array(self.p_layer, dtype=np.int64),
            point_phase=np.array(self.p_phase, dtype=np.int8),
            alloc=np.array(self.t_alloc, dtype=np.int64),
            free=np.array(self.t_free, dtype=np.int64),
            per_sample=ps if exact else ps.astype(np.int64),
            fixed=fx if exact else fx.astype(np.int64),
            category=np.array(self.t_cat, dtype=np.int64),
            owner=np.array(self.t_owner, dtype=np.int64),
            kept=np.array(self.t_kept, dtype=bool),
            exact_ints=exact,
            # (set where weights are frozen: a draft without parameters keeps its rules'
            # tensors in the per-layer figures, as before)
            needs_grad=tuple(needs_grad) if self.train and not all(needs_grad[1:]) and
            has_frozen(self.analysis) else None,
        )


def _wiring(analysis: Analysis, train: bool) -> tuple[list[tuple[int, ...]], list[bool]]:
    """What each layer reads (layer indices, main input first), and (training) whether its
    output needs a gradient: it has trainable weights or reads a layer that needs one."""
    infos = analysis.layers
    n = len(infos)
    draft_layers = analysis.draft.layers
    index = {info.name: info.index for info in infos}
    inputs: list[tuple[int, ...]] = [()] * n
    needs_grad = [False] * n
    for i in range(1, n):
        spec = draft_layers[i]
        src = spec.source_name
        ins = (index[src] if src else i - 1,) + tuple(index[r] for r in spec.ref_names)
        inputs[i] = ins
        if train:
            needs_grad[i] = _trainable(infos[i].result) > 0 or any(needs_grad[j] for j in ins)
    return inputs, needs_grad


def build_step(analysis: Analysis, precision: str, act_bytes: int, param_bytes: int,
               state_bytes: int, *, mode: str = "train", optimizer: str = "sgd",
               optimizer_states: int = 0, checkpointing: bool = False,
               accumulation: int = 1) -> StepEvents:
    """Replay one step of ``analysis`` (which must be valid) as tensor events, layer by layer.

    ``act_bytes`` is the activation width outside autocast; ``param_bytes`` the stored width of
    weights and gradients; ``state_bytes`` that of each optimizer state.
    """
    r = _Replay(analysis, precision, act_bytes, param_bytes, state_bytes, mode, checkpointing,
                accumulation)
    r.forward_pass()
    if r.train:
        r.loss()
        r.backward_pass()
    else:
        r.end_of_backward = len(r.p_layer) - 1
    if r.train:
        r.tied_gradients()
        r.optimizer_step(optimizer)
    r.free_forward_storages()
    r.free_kept()
    r.persistent(optimizer_states)
    return r.events()


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
    """Each storage class's index in ``STORAGE_CLASSES`` (a read-only array)."""
    return np.frombuffer(bytes(map(_CLASS_CODE.get, classes, repeat(1))), dtype=np.int8)


def class_bytes(codes: np.ndarray, act_bytes: int) -> np.ndarray:
    """Bytes per element of each storage class code."""
    return np.array((act_bytes, 4, 4, 8, 1), dtype=np.int64)[codes]


_CODES: dict[int, tuple[tuple, np.ndarray]] = {}


def storage_codes(classes: tuple) -> np.ndarray:
    """``class_codes`` made once per tuple object (as ``as_array``)."""
    hit = _CODES.get(id(classes))
    if hit is not None and hit[0] is classes:
        return hit[1]
    codes = class_codes(classes)  # read-only
    if len(_CODES) >= 64:
        _CODES.clear()
    _CODES[id(classes)] = (classes, codes)
    return codes


class _Parts:
    """Tensors made by the vectorised replay, in groups of numpy arrays. ``order``: each
    group's (group, point, rank) sort keys, when the tensors must come in the order the
    layer-by-layer replay makes them (the allocator simulation serves them in that order)."""

    def __init__(self, keyed: bool):
        self.alloc: list[np.ndarray] = []
        self.free: list[np.ndarray] = []
        self.ps: list[np.ndarray] = []
        self.fx: list[np.ndarray] = []
        self.cat: list[np.ndarray] = []
        self.owner: list[np.ndarray] = []
        self.kept: list[np.ndarray] = []
        self.keys: list[tuple[np.ndarray, np.ndarray, np.ndarray]] | None = [] if keyed else None

    def add(self, alloc, free, ps, fx, cat, owner, kept=False, key=None) -> None:
        alloc = np.asarray(alloc, dtype=np.int64)
        m = len(alloc)
        self.alloc.append(alloc)
        self.free.append(np.asarray(free, dtype=np.int64))
        self.ps.append(np.asarray(ps, dtype=np.int64))
        self.fx.append(np.asarray(fx, dtype=np.int64))
        self.cat.append(np.full(m, cat, dtype=np.int64) if isinstance(cat, int)
                        else np.asarray(cat, dtype=np.int64))
        self.owner.append(np.asarray(owner, dtype=np.int64))
        self.kept.append(np.full(m, kept, dtype=bool) if isinstance(kept, bool)
                         else np.asarray(kept, dtype=bool))
        if self.keys is not None:
            self.keys.append(tuple([np.full(m, v, dtype=np.int64) if isinstance(v, int)
                                    else np.asarray(v, dtype=np.int64) for v in key]))

    def events(self, p_layer, p_phase, needs_grad) -> StepEvents:
        cols = [np.concatenate(x) for x in (self.alloc, self.free, self.ps, self.fx, self.cat,
                                            self.owner, self.kept)]
        if self.keys is not None:
            group, point, rank = (np.concatenate(x) for x in zip(*self.keys))
            order = np.lexsort((rank, point, group))
            cols = [c[order] for c in cols]
        alloc, free, ps, fx, cat, owner, kept = cols
        return StepEvents(
            point_layer=np.asarray(p_layer, dtype=np.int64),
            point_phase=np.asarray(p_phase, dtype=np.int8),
            alloc=alloc, free=free, per_sample=ps, fixed=fx, category=cat, owner=owner,
            kept=kept, exact_ints=False, needs_grad=needs_grad)


class _Layout(NamedTuple):
    """The step's points for the vectorised replay: forward 0…n-1; training adds the loss
    (n), its backward (n+1), the backward of each layer needing a gradient in reverse, and the
    optimizer step."""

    n_points: int
    bwd: np.ndarray  # per layer, its backward point (-1: none)
    p_layer: np.ndarray
    p_phase: np.ndarray
    loss_point: int
    loss_bwd: int
    end_of_backward: int
    opt_point: int


def _layout(n: int, train: bool, ng: np.ndarray) -> _Layout:
    if not train:
        return _Layout(n, np.full(n, -1, dtype=np.int64), np.arange(n),
                       np.full(n, FORWARD), -1, -1, n - 1, -1)
    ks = np.nonzero(ng)[0][::-1]  # layers whose backward runs, in reverse
    nb = len(ks)
    bwd = np.full(n, -1, dtype=np.int64)
    bwd[ks] = n + 2 + np.arange(nb)
    p_layer = np.concatenate([np.arange(n), [-1, -1], ks, [-1]])
    p_phase = np.concatenate([np.full(n, FORWARD), [LOSS, BACKWARD], np.full(nb, BACKWARD),
                              [OPTIMIZER]])
    return _Layout(n + nb + 3, bwd, p_layer, p_phase, n, n + 1, n + 1 + nb, n + 2 + nb)


class _Weights(NamedTuple):
    """Per layer: parameters, those that train, stored weight bytes per parameter byte width
    (quantised elements and their bytes), tied elements."""

    params: np.ndarray
    trainable: np.ndarray
    quantized_elements: np.ndarray
    quantized_bytes: np.ndarray
    tied: np.ndarray


_NEEDS_GRAD: dict = {}


def _needs_grad(cols, trainable: np.ndarray, n: int) -> np.ndarray:
    """Per layer, whether its output needs a gradient (as ``_wiring``: its own trainable
    weights, or a layer it reads that needs one; readers come after what they read). Worked
    out once per topology and set of trainable layers."""
    trains = trainable > 0
    key = (id(cols.edge_reader), id(cols.edge_read), trains.tobytes())
    hit = _NEEDS_GRAD.get(key)
    if hit is not None and hit[0] is cols.edge_reader and hit[1] is cols.edge_read:
        return hit[2]
    ng = trains.tolist()
    ng[0] = False
    for r, j in zip(cols.edge_reader, cols.edge_read):
        if ng[j]:
            ng[r] = True
    out = np.array(ng, dtype=bool)
    out.flags.writeable = False
    if len(_NEEDS_GRAD) >= 64:
        _NEEDS_GRAD.clear()
    _NEEDS_GRAD[key] = (cols.edge_reader, cols.edge_read, out)
    return out


def _forward_tensors(parts: _Parts, analysis: Analysis, el, lay: _Layout, train: bool, ng,
                     all_ng: bool, out_storage, act_bytes: int, saved_owner, saved) -> None:
    """What the forward pass allocates: every layer's new output, and (training) the tensors
    a layer needing a gradient keeps for itself; each freed after its last reader or after
    the backward of the lowest-index layer keeping it."""
    cols = analysis.columns
    codes = storage_codes(cols.st_class)
    bpe, fixed_cls = class_bytes(codes, act_bytes), codes == C_FIXED
    nbytes = el * bpe
    producer = as_array(cols.st_prod)
    st_free = as_array(cols.st_last).copy()
    n_st = len(el)
    final_st = int(out_storage[-1])
    is_output = np.zeros(n_st, dtype=bool)
    is_output[out_storage[out_storage >= 0]] = True
    saver = np.full(n_st, -1, dtype=np.int64)
    if train:
        if all_ng:
            saver[as_array(saved)] = (
                saved_owner if saved_owner is not None else cols.saved_owner)
        else:  # the lowest-index keeper among the layers that need a gradient
            kl, ks = keep_pairs(analysis)
            use = ng[kl] if len(kl) else np.zeros(0, dtype=bool)
            low = np.full(n_st, lay.n_points + len(ng), dtype=np.int64)
            np.minimum.at(low, ks[use], kl[use])
            saver = np.where(low < lay.n_points + len(ng), low, -1)
        st_free[final_st] = max(int(st_free[final_st]), lay.loss_point)
        kept = saver >= 1
        st_free = np.where(kept, np.maximum(st_free, lay.bwd[np.maximum(saver, 0)]), st_free)
        keep_st = is_output | kept
    else:
        keep_st = is_output  # nothing is kept for backward: no masks, indices, statistics
    last_point = lay.n_points - 1
    st_free[int(out_storage[0])] = last_point  # the caller holds the input
    if not train:
        st_free[final_st] = last_point
    sel = np.nonzero(keep_st)[0]
    parts.add(producer[sel], st_free[sel], np.where(fixed_cls[sel], 0, nbytes[sel]),
              np.where(fixed_cls[sel], nbytes[sel], 0), C_ACT, producer[sel],
              kept=saver[sel] >= 1, key=(0, producer[sel], sel))


def _weight_tensors(parts: _Parts, w: _Weights, lay: _Layout, param_bytes: int) -> None:
    """The weights of every layer with parameters (quantised ones in their stored bytes):
    alive throughout."""
    with_params = np.nonzero(w.params > 0)[0]
    m = len(with_params)
    stored = ((w.params - w.quantized_elements) * param_bytes + w.quantized_bytes)[with_params]
    zeros = np.zeros(m, dtype=np.int64)
    parts.add(zeros, np.full(m, lay.n_points - 1), zeros, stored, C_WEIGHTS, with_params,
              key=(1, with_params, 0))


def _optimizer_state(parts: _Parts, w: _Weights, lay: _Layout, param_bytes: int,
                     state_bytes: int, optimizer_states: int, accumulation: int) -> None:
    """The optimizer's state of every trainable weight and (accumulation) the previous
    micro-batches' gradients: alive throughout."""
    last_point = lay.n_points - 1
    trains = np.nonzero(w.trainable > 0)[0]
    t = w.trainable[trains]
    mt = len(trains)
    zeros = np.zeros(mt, dtype=np.int64)
    for k in range(optimizer_states):
        parts.add(zeros, np.full(mt, last_point), zeros, t * state_bytes, C_OPT, trains,
                  key=(1, trains, 1 + k))
    if accumulation > 1:
        parts.add(zeros, np.full(mt, last_point), zeros, t * param_bytes, C_GRADS, trains,
                  key=(1, trains, 1 + optimizer_states))


def _parameter_gradients(parts: _Parts, w: _Weights, lay: _Layout, ng, param_bytes: int,
                         accumulation: int) -> None:
    """Each layer's weight gradient, made by its backward: kept for the optimizer, or added
    into the accumulated one and freed at once; a tied weight's gradient, added into the
    shared one at the end of backward."""
    trains = np.nonzero(w.trainable > 0)[0]
    at = lay.bwd[trains]
    grad = w.trainable[trains] * param_bytes
    zeros = np.zeros(len(trains), dtype=np.int64)
    if accumulation > 1:
        parts.add(at, at, zeros, grad, C_TRANSIENT, trains, key=(0, at, 1))
    else:
        parts.add(at, np.full(len(trains), lay.n_points - 1), zeros, grad, C_GRADS, trains,
                  key=(0, at, 1))
    tied = np.nonzero((w.tied > 0) & ng)[0]
    if len(tied):
        at = lay.bwd[tied]
        size = w.tied[tied] * param_bytes
        z = np.zeros(len(tied), dtype=np.int64)
        end = np.full(len(tied), lay.end_of_backward)
        parts.add(at, end, z, size, C_TRANSIENT, tied, key=(0, at, 0))
        parts.add(end, end, z, size, C_TRANSIENT, tied, key=(0, end, (1 << 40) + tied))


def _loss_tensors(parts: _Parts, lay: _Layout, final_bytes: int) -> None:
    """The loss's log-softmax (kept for its backward) and the gradient its backward makes."""
    parts.add([lay.loss_point, lay.loss_bwd], [lay.loss_bwd, lay.loss_bwd],
              [final_bytes, final_bytes], [0, 0], [C_ACT, C_TRANSIENT], [-1, -1],
              key=(0, [lay.loss_point, lay.loss_bwd], 0))


def _optimizer_temporaries(parts: _Parts, w: _Weights, lay: _Layout, optimizer: str,
                           state_bytes: int) -> None:
    total = int(w.trainable.sum())
    temps = OPTIMIZER_TEMPORARIES.get(optimizer, 0)
    if temps and total:
        parts.add([lay.opt_point], [lay.opt_point], [0], [temps * total * state_bytes],
                  C_TRANSIENT, [-1], key=(0, lay.opt_point, 0))


def _gradient_buffers(parts: _Parts, cols, lay: _Layout, w: _Weights, ng, fbwd, out_el,
                      act_bytes: int, exact_order: bool) -> None:
    """The gradients of the layers' outputs. A layer whose backward does no arithmetic hands
    its output's gradient on; the first gradient into a layer's output (from its
    highest-index reader) is that layer's buffer, alive until the backward of the lowest-index
    layer holding it; later ones are added into it and freed at once, as is the buffer's own
    gradient handed on a second time (a layer reading one output twice). ``exact_order``: the
    tensors keyed in the layer-by-layer replay's order."""
    n = len(ng)
    cons_a, prod_a = as_array(cols.edge_reader), as_array(cols.edge_read)
    e_idx = np.arange(len(cons_a))
    if len(cons_a):  # each edge's input position in its reader
        starts = np.concatenate([[True], cons_a[1:] != cons_a[:-1]])
        pos = e_idx - np.maximum.accumulate(np.where(starts, e_idx, 0))
    else:
        pos = e_idx
    passes = (fbwd == 0) & (w.params == 0)
    grad_edge = ng[prod_a]  # gradients flow into the layers that need one
    ce, pe, pos = cons_a[grad_edge], prod_a[grad_edge], pos[grad_edge]
    maxcons = np.full(n, -1, dtype=np.int64)
    np.maximum.at(maxcons, pe, ce)
    # The first gradient into each layer's output: its highest-index reader's, and that
    # reader's first input position reading it (a layer may read one output twice).
    minpos = np.full(n, 1 << 30, dtype=np.int64)
    at_max = ce == maxcons[pe]
    np.minimum.at(minpos, pe[at_max], pos[at_max])
    first = at_max & (pos == minpos[pe])
    if not exact_order:
        minpos = np.zeros(n, dtype=np.int64)  # (the keys are not used)
    # root[j]: follow the first reader while it hands the gradient on (pointer jumping).
    idx = np.arange(n)
    root = np.where((maxcons >= 0) & passes[np.maximum(maxcons, 0)], maxcons, idx)
    while True:
        nxt = root[root]
        if np.array_equal(nxt, root):
            break
        root = nxt
    # Buffers: allocated by the first computing reader (or the loss, for the last layer).
    is_root = (root == idx) & ng
    is_root[n - 1] = True  # the loss's gradient (made even when nothing needs it)
    roots = np.nonzero(is_root)[0]
    last = roots == n - 1
    alloc_at = np.where(last, lay.loss_bwd, lay.bwd[np.maximum(maxcons[roots], 0)])
    holder = np.nonzero(ng)[0]
    holder_min = np.full(n, n, dtype=np.int64)
    np.minimum.at(holder_min, root[holder], holder)
    free_at = lay.bwd[np.minimum(holder_min[roots], n - 1)]
    valid = (maxcons[roots] >= 0) | last
    roots, alloc_at, free_at, last = roots[valid], alloc_at[valid], free_at[valid], last[valid]
    parts.add(alloc_at, np.maximum(free_at, alloc_at), out_el[roots] * act_bytes,
              np.zeros(len(roots)), C_TRANSIENT, np.where(last, -1, maxcons[roots]),
              key=(0, alloc_at, np.where(last, 1, 2 + minpos[roots])))
    # Second and later gradients: from a computing reader, added into the buffer and freed
    # at once; the very gradient the buffer holds, handed on again by a reader doing no
    # arithmetic (x + x, x + x.view(...)), added out of place (its storage is shared): in both
    # cases one more buffer alive at that reader's backward.
    extra = ~first & (~passes[ce] | (root[ce] == root[pe]))
    ec, ep = ce[extra], pe[extra]
    parts.add(lay.bwd[ec], lay.bwd[ec], out_el[ep] * act_bytes, np.zeros(len(ec)),
              C_TRANSIENT, ec, key=(0, lay.bwd[ec], 2 + pos[extra]))


def build_step_fast(analysis: Analysis, params: np.ndarray, fbwd: np.ndarray, act_bytes: int,
                    param_bytes: int, state_bytes: int, *, mode: str, optimizer: str,
                    optimizer_states: int, accumulation: int,
                    saved_owner: np.ndarray | None = None,
                    weights: _Weights | None = None,
                    st_elems: np.ndarray | None = None) -> StepEvents | None:
    """``build_step`` with numpy instead of a loop over layers, for every case without
    autocast and checkpointing. Returns None when the case is not covered (a layer needing a
    gradient that nothing reads, or the last layer needing none while others do) or int64
    could overflow; the
    caller then uses ``build_step``. Gives the same events (a unit test compares the two).
    ``params`` and ``fbwd``: each layer's parameter count and backward FLOPs, ``saved_owner``
    the first keeper of each of ``analysis.saved``, ``weights`` the frozen, quantised and tied
    parts (``step_weights``; None: nothing frozen), ``st_elems`` the storages' elements."""
    train = mode == "train"
    cols = analysis.columns
    if cols is None or not cols.st_elems or len(cols.output_storage) < 2:
        return None
    n = len(cols.output_storage)
    w = weights if weights is not None else _Weights(params, params, np.zeros_like(params),
                                                     np.zeros_like(params),
                                                     np.zeros_like(params))
    el = st_elems if st_elems is not None else as_array(cols.st_elems)
    worst = int(el.sum()) * 8 * MAX_BATCH + int(params.sum()) * 64 + \
        int(w.quantized_bytes.sum())
    if worst >= INT64_LIMIT:
        return None
    out_storage = as_array(cols.output_storage)
    if train:
        reads_input = as_array(cols.edge_reader)[as_array(cols.edge_read) == 0]
        if weights is None and (params[reads_input] > 0).all():
            # Every layer reading the input has weights, and every other layer reads one that
            # needs a gradient: all do but the input.
            ng = np.ones(n, dtype=bool)
            ng[0] = False
        else:
            ng = _needs_grad(cols, w.trainable, n)
        all_ng = bool(ng[1:].all())
        if weights is not None or not all_ng:
            # Cases the layer-by-layer replay used to take: it covers the rarer ones (nothing
            # needing a gradient at the end, a layer needing one that no gradient reaches).
            readers = np.zeros(n, dtype=bool)
            readers[as_array(cols.edge_read)] = True
            if (not ng[n - 1] and ng.any()) or not readers[:-1][ng[:-1]].all():
                return None
    else:
        ng = np.zeros(n, dtype=bool)
        all_ng = True
    # The vectorised replay has always made these cases' tensors in its own order; cases the
    # layer-by-layer replay used to take come in that replay's order (the allocator
    # simulation's answer depends on the order within a point).
    exact_order = weights is not None or not all_ng
    parts = _Parts(keyed=exact_order)
    lay = _layout(n, train, ng)
    _forward_tensors(parts, analysis, el, lay, train, ng, all_ng, out_storage, act_bytes,
                     saved_owner, analysis.saved)
    _weight_tensors(parts, w, lay, param_bytes)
    if train:
        _loss_tensors(parts, lay, int(el[out_storage[-1]]) * act_bytes)
        _optimizer_state(parts, w, lay, param_bytes, state_bytes, optimizer_states,
                         accumulation)
        _parameter_gradients(parts, w, lay, ng, param_bytes, accumulation)
        _optimizer_temporaries(parts, w, lay, optimizer, state_bytes)
        _gradient_buffers(parts, cols, lay, w, ng, fbwd, el[out_storage], act_bytes,
                          exact_order)
    needs_grad = (tuple(ng.tolist()) if train and not all_ng and weights is not None
                  else None)
    return parts.events(lay.p_layer, lay.p_phase, needs_grad)


def step_weights(params: np.ndarray, table: np.ndarray) -> "_Weights | None":
    """The frozen, quantised and tied parts of each layer's weights for ``build_step_fast``
    from a table of (frozen parameters, quantised elements, quantised bytes, tied elements)
    per layer; None when no layer has any (``has_frozen`` is False)."""
    if not table.any():
        return None
    frozen, qe, qb, tied = table.T.copy()
    return _Weights(params, params - frozen, qe, qb, tied)


_ARRAYS: dict[int, tuple[tuple, np.ndarray]] = {}
_PACK = struct.pack


def int_array(values) -> np.ndarray:
    """A sequence of Python ints as a read-only int64 array, packed by ``struct`` (half of
    ``np.fromiter``'s cost per int: the estimate converts thousands per analysis); anything
    not a whole number within int64 goes through ``np.fromiter`` as before (same result or
    error)."""
    try:
        return np.frombuffer(_PACK(f"{len(values)}q", *values), dtype=np.int64)
    except struct.error:
        arr = np.fromiter(values, dtype=np.int64, count=len(values))
        arr.flags.writeable = False
        return arr


def int_rows(rows, width: int) -> np.ndarray:
    """``int_array`` of a sequence of rows of ``width`` ints each, as an m×width array (each row
    packed by one ``struct`` call: flattening the rows first cost more than packing them)."""
    m = len(rows)
    pack = _ROW_PACKERS.get(width)
    if pack is None:
        pack = _ROW_PACKERS[width] = struct.Struct(f"{width}q").pack
    try:
        flat = np.frombuffer(b"".join(starmap(pack, rows)), dtype=np.int64)
    except (struct.error, TypeError):
        flat = np.fromiter(chain.from_iterable(rows), dtype=np.int64, count=width * m)
        flat.flags.writeable = False
    return flat.reshape(m, width)


_ROW_PACKERS: dict[int, Any] = {}


def as_array(values: tuple) -> np.ndarray:
    """A tuple of ints as a read-only int64 array, made once per tuple object: the analyses
    patched from one another share their unchanged columns (``core.incremental``)."""
    hit = _ARRAYS.get(id(values))
    if hit is not None and hit[0] is values:
        return hit[1]
    arr = int_array(values)
    if len(_ARRAYS) >= 64:
        _ARRAYS.clear()
    _ARRAYS[id(values)] = (values, arr)
    return arr


_KEEPS: dict[int, tuple] = {}


def keep_pairs(analysis: Analysis) -> tuple[np.ndarray, np.ndarray]:
    """Every (layer, storage) a layer keeps for backward, in order: not only each storage's
    first keeper (``Analysis.saved``), since a frozen layer keeps nothing when it needs no
    gradient. Worked out once per structure (the analyses patched from one another share
    their storages' producers, edges and saved storages)."""
    cols = analysis.columns
    key = id(cols.st_prod)
    hit = _KEEPS.get(key)
    if hit is not None and hit[0] is cols.st_prod and hit[1] is cols.edge_read \
            and hit[2] is analysis.saved:
        return hit[3]
    er, ed, out_st, st_prod = cols.edge_reader, cols.edge_read, cols.output_storage, \
        cols.st_prod
    layers: list[int] = []
    storages: list[int] = []
    for info in analysis.layers:
        saved = info.result.saved
        if not saved:
            continue
        i = info.index
        lo = bisect_left(er, i)
        ins = [out_st[j] for j in ed[lo:bisect_left(er, i + 1, lo)]]
        first = bisect_left(st_prod, i)
        own = iter([s for s in range(first, bisect_left(st_prod, i + 1, first))
                    if s != info.output_storage])
        for t in saved:
            src = t.source
            if src == "input":
                sid = ins[0]
            elif src == "output":
                sid = info.output_storage
            elif src == "own":
                sid = next(own)
            else:  # "input:k"
                sid = ins[int(src.split(":")[1])]
            layers.append(i)
            storages.append(sid)
    pairs = (np.array(layers, dtype=np.int64), np.array(storages, dtype=np.int64))
    if len(_KEEPS) >= 64:
        _KEEPS.clear()
    _KEEPS[key] = (cols.st_prod, cols.edge_read, analysis.saved, pairs)
    return pairs
