"""A network draft (an input and an ordered list of layers), its analysis, and plan files.

``NetworkDraft`` is immutable; edits make a new draft. ``analyze(draft)`` infers every shape,
names every problem ("layer 3 (conv3): kernel 7×7 is larger than its 5×5 input") and lists the
tensors that exist per sample, which the memory estimate scales by the batch size.

Plan files are JSON with a ``schema_version``; ``load_plan`` names the bad field of a bad file and
``save_plan`` writes atomically (a temporary file, then a rename).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from functools import partial
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import Any, Iterable, NamedTuple, Sequence

from planner.atomicfile import write_json_atomic as _write_json_atomic
from planner.core.gcpause import gc_paused
from planner.core.layers import (
    ACT,
    RULES,
    WIRING_PARAMS,
    LayerError,
    MAX_PARAM_INT,
    LayerResult,
    LayerSpec,
    Shape,
    coerce_param,
    numel,
)
from planner import safeio
from planner.i18n import QT_TRANSLATE_NOOP, Msg, message_of
from planner.safeio import clean

SCHEMA_VERSION = 2  # 2: repeated blocks ("type": "repeat"); a plan without one is still 1
# How PyTorch users run a training step (the names are stable: plan files and the CLI use them).
#   fp32         PyTorch's defaults: fp32 tensors; cuDNN convolutions in TF32 on Ampere and newer
#                (torch.backends.cudnn.allow_tf32 is True), matmuls in strict fp32
#                (torch.get_float32_matmul_precision() == "highest").
#   fp32_strict  fp32 everywhere, TF32 off (allow_tf32 = False for cuDNN and cuBLAS).
#   tf32         fp32 tensors, convolutions and matmuls in TF32
#                (torch.set_float32_matmul_precision("high")).
#   mixed        torch.autocast(dtype=float16) + GradScaler: fp32 weights, gradients and optimizer
#                state; autocast ops compute in fp16 and autograd keeps 16-bit copies.
#   mixed_bf16   torch.autocast(dtype=bfloat16), no scaler; otherwise as "mixed".
#   fp16, bf16   pure 16-bit training: model.half() / model.to(torch.bfloat16).
# fp32, fp32_strict and tf32 spend the same memory; only the speed differs.
PRECISIONS = ("fp32", "fp32_strict", "tf32", "mixed", "mixed_bf16", "fp16", "bf16")
FP32_PRECISIONS = ("fp32", "fp32_strict", "tf32")
MIXED_PRECISIONS = ("mixed", "mixed_bf16")
PRECISION_SHORT = {
    "fp32": QT_TRANSLATE_NOOP("core", "FP32"),
    "fp32_strict": QT_TRANSLATE_NOOP("core", "FP32 strict"),
    "tf32": QT_TRANSLATE_NOOP("core", "TF32"),
    "mixed": QT_TRANSLATE_NOOP("core", "Mixed FP16"),
    "mixed_bf16": QT_TRANSLATE_NOOP("core", "Mixed BF16"),
    "fp16": QT_TRANSLATE_NOOP("core", "Pure FP16"),
    "bf16": QT_TRANSLATE_NOOP("core", "Pure BF16"),
}
PRECISION_LABELS = {
    "fp32": QT_TRANSLATE_NOOP("core", "FP32 (PyTorch defaults: TF32 convolutions on Ampere+)"),
    "fp32_strict": QT_TRANSLATE_NOOP("core", "FP32 strict (TF32 off)"),
    "tf32": QT_TRANSLATE_NOOP("core", "TF32 (convolutions and matmuls)"),
    "mixed": QT_TRANSLATE_NOOP("core", "Mixed FP16 (autocast + GradScaler)"),
    "mixed_bf16": QT_TRANSLATE_NOOP("core", "Mixed BF16 (autocast)"),
    "fp16": QT_TRANSLATE_NOOP("core", "Pure FP16 (fp16 weights)"),
    "bf16": QT_TRANSLATE_NOOP("core", "Pure BF16 (bf16 weights)"),
}
OPTIMIZERS = ("sgd", "momentum", "adam", "adamw")
MODES = ("train", "infer")
MAX_BATCH = 1 << 20


class PlanFileError(ValueError):
    """A plan file that cannot be read; the message names the file and the field."""


@dataclass(frozen=True)
class Setup:
    """How the network is run: batch size, precision, optimizer, training or inference."""

    batch_size: int = 32
    precision: str = "fp32"
    optimizer: str = "adam"
    mode: str = "train"
    checkpointing: bool = False  # gradient checkpointing in √n segments (recompute forward)
    accumulation: int = 1  # micro-batches per optimizer step (gradient accumulation)

    def __post_init__(self):
        if not isinstance(self.batch_size, int) or isinstance(self.batch_size, bool):
            raise ValueError(
                Msg(
                    QT_TRANSLATE_NOOP(
                        "core", "batch size must be a whole number, not {batch_size!r}"
                    ),
                    batch_size=self.batch_size,
                )
            )
        if not 1 <= self.batch_size <= MAX_BATCH:
            raise ValueError(
                Msg(
                    QT_TRANSLATE_NOOP(
                        "core", "batch size {batch_size} must be between 1 and {MAX_BATCH}"
                    ),
                    batch_size=self.batch_size,
                    MAX_BATCH=MAX_BATCH,
                )
            )
        if self.precision not in PRECISIONS:
            raise ValueError(
                Msg(
                    QT_TRANSLATE_NOOP("core", "precision '{precision}' is not one of {choices}"),
                    precision=self.precision,
                    choices=", ".join(PRECISIONS),
                )
            )
        if self.optimizer not in OPTIMIZERS:
            raise ValueError(
                Msg(
                    QT_TRANSLATE_NOOP("core", "optimizer '{optimizer}' is not one of {choices}"),
                    optimizer=self.optimizer,
                    choices=", ".join(OPTIMIZERS),
                )
            )
        if self.mode not in MODES:
            raise ValueError(
                Msg(
                    QT_TRANSLATE_NOOP("core", "mode '{mode}' is not one of {choices}"),
                    mode=self.mode,
                    choices=", ".join(MODES),
                )
            )
        if not isinstance(self.checkpointing, bool):
            raise ValueError(
                Msg(
                    QT_TRANSLATE_NOOP(
                        "core", "checkpointing must be true or false, not {checkpointing!r}"
                    ),
                    checkpointing=self.checkpointing,
                )
            )
        if (not isinstance(self.accumulation, int) or isinstance(self.accumulation, bool)
                or not 1 <= self.accumulation <= 4096):
            raise ValueError(
                Msg(
                    QT_TRANSLATE_NOOP(
                        "core",
                        "gradient accumulation must be a whole number of micro-batches from 1 "
                        "to 4096, not {accumulation!r}",
                    ),
                    accumulation=self.accumulation,
                )
            )

    def to_json(self) -> dict[str, Any]:
        return {
            "batch_size": self.batch_size,
            "precision": self.precision,
            "optimizer": self.optimizer,
            "mode": self.mode,
            "checkpointing": self.checkpointing,
            "accumulation": self.accumulation,
        }


@dataclass(frozen=True)
class NetworkDraft:
    name: str
    layers: tuple[LayerSpec, ...]
    description: str = ""
    # Repeated blocks (planner.core.repeat.Repeat): the layers stay expanded; a change to one
    # copy is made to every copy, and a plan file holds the block once.
    repeats: tuple = ()

    def __post_init__(self):
        object.__setattr__(self, "layers", tuple(self.layers))
        object.__setattr__(self, "repeats", tuple(self.repeats))

    # Edits return new drafts (the UI's undo stack keeps the old ones).
    def with_layers(self, layers: Iterable[LayerSpec]) -> "NetworkDraft":
        layers = tuple(layers)
        if self.repeats:  # a block whose copies no longer line up is plain layers again
            from planner.core.repeat import lines_up  # noqa: PLC0415

            kept = tuple(r for r in self.repeats if lines_up(layers, r))
            return replace(self, layers=layers, repeats=kept)
        return replace(self, layers=layers)

    def replace_layer(self, index: int, layer: LayerSpec) -> "NetworkDraft":
        layers = list(self.layers)
        for rep in self.repeats:
            if rep.copy_of(index) is not None:
                from planner.core.repeat import apply_to_copies  # noqa: PLC0415

                every = apply_to_copies(layers, rep, index, layer)
                if every is not None:  # the copies stay alike and in place
                    return replace(self, layers=tuple(every))
        layers[index] = layer
        return self.with_layers(layers)

    def insert_layer(self, index: int, layer: LayerSpec) -> "NetworkDraft":
        layers = list(self.layers)
        layers.insert(index, layer)
        return self._shifted(index, 1).with_layers(layers)

    def remove_layer(self, index: int) -> "NetworkDraft":
        layers = list(self.layers)
        del layers[index]
        return self._shifted(index, -1).with_layers(layers)

    def _shifted(self, index: int, delta: int) -> "NetworkDraft":
        """Blocks after ``index`` move with an insertion or removal before them."""
        if not self.repeats:
            return self
        return replace(self, repeats=tuple(r._replace(first=r.first + delta)
                                           if r.first > index else r for r in self.repeats))

    def move_layer(self, index: int, to: int) -> "NetworkDraft":
        layers = list(self.layers)
        layer = layers.pop(index)
        layers.insert(to, layer)
        return self.with_layers(layers)

    def unique_name(self, base: str) -> str:
        names = {layer.name for layer in self.layers}
        stem = base.rstrip("0123456789") or base
        i = 1
        while f"{stem}{i}" in names:
            i += 1
        return f"{stem}{i}"

    def index_of(self, name: str) -> int | None:
        for i, layer in enumerate(self.layers):
            if layer.name == name:
                return i
        return None

    @property
    def input_shape(self) -> Shape | None:
        if self.layers and self.layers[0].kind == "input":
            return tuple(self.layers[0].params["shape"])
        return None

    def with_input_shape(self, shape: Shape) -> "NetworkDraft":
        if not self.layers or self.layers[0].kind != "input":
            raise ValueError(Msg(QT_TRANSLATE_NOOP("core", "the draft has no input layer")))
        return self.replace_layer(0, self.layers[0].replace(shape=tuple(shape)))

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "layers": self._layers_json(),
        }

    def _layers_json(self) -> list[dict[str, Any]]:
        if not self.repeats:
            return [layer.to_json() for layer in self.layers]
        from planner.core.repeat import collapse  # noqa: PLC0415

        starts = {}
        for rep in self.repeats:
            body = collapse(self.layers, rep)
            if body is not None:
                starts[rep.first] = (rep, body)
        out: list[dict[str, Any]] = []
        i = 0
        while i < len(self.layers):
            if i in starts:
                rep, body = starts[i]
                out.append({"type": "repeat", "name": rep.name, "times": rep.times,
                            "layers": [layer.to_json() for layer in body]})
                i += rep.length * rep.times
                continue
            out.append(self.layers[i].to_json())
            i += 1
        return out


# --------------------------------------------------------------------------------------------
# Analysis
# --------------------------------------------------------------------------------------------


# How a problem is shown: "layer 3 (conv3): kernel 7×7 is larger than its 5×5 input".
PROBLEM_TEMPLATE = QT_TRANSLATE_NOOP("core", "layer {index} ({name}): {message}")


class Problem(NamedTuple):
    index: int
    name: str
    message: str

    def __str__(self) -> str:
        return clean(PROBLEM_TEMPLATE.format(index=self.index, name=clean(self.name, max_len=80),
                                             message=clean(self.message, max_len=400)))


class Storage(NamedTuple):
    """A tensor's storage, per sample. In-place ops and views share their input's storage."""

    elements: int
    storage_class: str
    producer: int
    last_use: int


class LayerInfo(NamedTuple):
    index: int
    name: str
    kind: str
    in_shapes: tuple[Shape, ...]
    out_shape: Shape | None
    result: LayerResult | None
    error: str | None = None
    blocked: bool = False  # an earlier layer it depends on is invalid
    output_storage: int = -1
    saved_storages: tuple[int, ...] = ()  # storages this layer is the first to keep
    # Per-sample numbers the estimate needs, computed once with the layer's result:
    # (output elements, input elements, parameters, weight elements, fwd FLOPs, bwd FLOPs,
    #  1 if the output is a new tensor else 0, 1 if some weights are frozen, quantised or
    #  tied else 0)
    stats: tuple[int, ...] = ()

    @property
    def parameters(self) -> int:
        return self.result.parameters if self.result else 0


class Columns(NamedTuple):
    """What the analysis worked out, column by column (the estimate turns these into arrays
    without another pass over the layers)."""

    st_elems: tuple[int, ...]  # the storages' fields, as in ``Analysis.storages``
    st_class: tuple[str, ...]
    st_prod: tuple[int, ...]
    st_last: tuple[int, ...]
    saved_owner: tuple[int, ...]  # per ``Analysis.saved``: the layer that first keeps it
    outputs: tuple[int, ...]  # the storages that are a layer's output, ascending
    output_storage: tuple[int, ...]  # per layer
    edge_reader: tuple[int, ...]  # every (reader, read) pair of layers, in reading order
    edge_read: tuple[int, ...]
    workspace_layers: tuple[int, ...]  # layers with convolution workspace


class LayerRows(NamedTuple):
    """The layers' rows of an analysis, field by field (``LayerInfo`` less the index and the
    output storage, which ``Columns`` holds): what the estimate reads, without a ``LayerInfo``
    per layer (``Analysis.layers`` makes those when first read)."""

    names: tuple[str, ...]
    kinds: tuple[str, ...]
    in_shapes: tuple[tuple[Shape, ...], ...]
    out_shapes: tuple[Shape | None, ...]
    results: tuple[LayerResult | None, ...]
    errors: tuple[str | None, ...]
    blocked: tuple[bool, ...]
    saved_storages: Sequence[tuple[int, ...]]  # an analysis's: a FirstKept
    stats: tuple[tuple[int, ...], ...]


class FirstKept(Sequence):
    """``LayerRows.saved_storages`` of an analysis: per layer, the storages it is the first
    to keep, in order, made from ``Analysis.saved`` and ``Columns.saved_owner`` when first
    read (only the ``LayerInfo`` rows read them: the estimate does not, and a cold analysis of
    a deep draft makes hundreds fewer tuples). Reads as the tuple of tuples it stands for."""

    __slots__ = ("_saved", "_owner", "_n", "_rows")

    def __init__(self, saved: tuple[int, ...], owner: tuple[int, ...], n: int) -> None:
        self._saved, self._owner, self._n = saved, owner, n
        self._rows: tuple[tuple[int, ...], ...] | None = None

    def rows(self) -> tuple[tuple[int, ...], ...]:
        rows = self._rows
        if rows is None:
            out: list[tuple[int, ...]] = [()] * self._n
            for sid, i in zip(self._saved, self._owner):
                out[i] += (sid,)
            rows = self._rows = tuple(out)
        return rows

    def __getitem__(self, k):
        return self.rows()[k]

    def __len__(self) -> int:
        return self._n

    def __iter__(self):
        return iter(self.rows())

    def __eq__(self, other) -> bool:
        if isinstance(other, FirstKept):
            other = other.rows()
        return self.rows() == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self.rows())


class _Layers:
    """``Analysis.layers``: the ``LayerInfo`` rows, given, or made from the analysis's
    ``rows`` and ``columns`` when first read (None given). A data descriptor, so the
    dataclass's ``__init__``, ``__eq__`` and ``repr`` go through it."""

    def __get__(self, obj, owner=None):
        if obj is None:
            return ()  # the field's default
        d = obj.__dict__
        infos = d.get("_layers")
        if infos is None:
            r = d["rows"]
            infos = d["_layers"] = tuple(map(new_layer_info, zip(
                range(len(r.names)), r.names, r.kinds, r.in_shapes, r.out_shapes, r.results,
                r.errors, r.blocked, d["columns"].output_storage, r.saved_storages, r.stats)))
        return infos

    def __set__(self, obj, value) -> None:
        obj.__dict__["_layers"] = value


@dataclass(frozen=True)
class Analysis:
    draft: NetworkDraft
    layers: tuple[LayerInfo, ...] = _Layers()  # type: ignore[assignment]
    problems: tuple[Problem, ...] = ()
    # The storages as rows; None: made from ``columns`` when first read (``storages``), as
    # the estimate reads the columns only.
    storage_rows: tuple[Storage, ...] | None = field(default=(), compare=False, repr=False)
    saved: tuple[int, ...] = ()  # unique storages kept for backward
    columns: Columns | None = field(default=None, compare=False, repr=False)
    # The layers' rows as columns; with ``layers`` None, those are made from these when first
    # read (the estimate reads these only).
    rows: LayerRows | None = field(default=None, compare=False, repr=False)

    @property
    def layer_rows(self) -> LayerRows:
        """The layers' rows as columns (made from ``layers`` for an analysis made by hand)."""
        rows = self.rows
        if rows is None:
            infos = self.layers
            rows = LayerRows(*(tuple(map(itemgetter(k), infos))
                               for k in (1, 2, 3, 4, 5, 6, 7, 9, 10)))
            object.__setattr__(self, "rows", rows)
        return rows

    @property
    def storages(self) -> tuple[Storage, ...]:
        """A tensor's storage per row (elements per sample, class, producer, last use)."""
        rows = self.storage_rows
        if rows is None:
            cols = self.columns
            rows = tuple(map(_new_storage, zip(cols.st_elems, cols.st_class, cols.st_prod,
                                               cols.st_last)))
            object.__setattr__(self, "storage_rows", rows)
        return rows

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def parameters(self) -> int:
        return sum(info.parameters for info in self.layers)

    @property
    def output_shape(self) -> Shape | None:
        return self.layers[-1].out_shape if self.layers else None


class InvalidDraft(ValueError):
    def __init__(self, problems: tuple[Problem, ...]):
        self.problems = problems
        super().__init__("; ".join(str(p) for p in problems) or "the draft is empty")


# LayerInfo(*row) and Storage(*row) without a Python call (the analysis makes hundreds).
new_layer_info = partial(tuple.__new__, LayerInfo)
if len(LayerInfo._fields) != 11 or len(Storage._fields) != 4:
    raise RuntimeError("LayerInfo or Storage changed: update the rows analyze() builds "
                       "with new_layer_info and _new_storage")  # pragma: no cover
_new_storage = partial(tuple.__new__, Storage)


def analyze(draft: NetworkDraft) -> Analysis:
    """Infer shapes and tensors. Never raises for a bad draft: problems are listed instead.

    This runs on every edit of a draft of hundreds of layers, so the loop is kept lean, and
    a draft that differs from a recent one in a few layers is analysed by patching that one's
    analysis (``planner.core.incremental``; the same result).
    """
    from planner.core.incremental import analyze_incrementally  # noqa: PLC0415 (imports this)

    with gc_paused():
        return analyze_incrementally(draft, _analyze)


_NOT_WORKED_OUT = (None, None, ())  # (result, problem, stats) of a layer whose input is not
# Kinds read inline by ``_Storages.walk`` (every kind but the input).
_NOT_INPUT = frozenset(RULES) - {"input"}


def _analyze(draft: NetworkDraft) -> Analysis:
    """Every layer in one pass (``_Storages.walk``: its result, then the storages it makes
    and keeps), then the layers' rows."""
    layers = draft.layers
    if not layers:
        empty = Msg(QT_TRANSLATE_NOOP("core", "the draft has no layers"))
        return Analysis(draft, (), (Problem(0, "?", empty),))
    problems: list[Problem] = []
    st = _Storages()
    ins, shapes, rows, blocked = st.walk(layers, problems)
    last = st.output_storage[-1]
    if last >= 0:
        st.last[last] = len(layers) - 1
    if not problems:
        problems += _beyond_total(layers, st)
    results, errors, stats = zip(*rows)
    # The layers' rows stay columns: their LayerInfo rows are made when first read.
    return st.analysis(draft, LayerRows(tuple(map(_NAME, layers)), tuple(map(_KIND, layers)),
                                        tuple(ins), tuple(shapes), results, errors,
                                        blocked, None, stats),
                       tuple(problems))


_NAME, _KIND = attrgetter("name"), attrgetter("kind")


def _naming_problem(i: int, name: Any, kind: str, index: dict[str, int]) -> str:
    """Why layer i's name or kind is not right (``index``: the layers before it by name)."""
    if not name or not isinstance(name, str):
        return Msg(QT_TRANSLATE_NOOP("core", "every layer needs a name"))
    if name in index:
        return Msg(
            QT_TRANSLATE_NOOP("core", "the name '{name}' is already used by an earlier layer"),
            name=clean(name, max_len=80),
        )
    if kind not in RULES:
        return Msg(QT_TRANSLATE_NOOP("core", "unknown layer type '{kind}'"), kind=kind)
    return (Msg(QT_TRANSLATE_NOOP("core", "the first layer must be the input")) if i == 0
            else Msg(QT_TRANSLATE_NOOP("core", "only the first layer can be an input")))


def _reads(layer: LayerSpec, i: int,
           index: dict[str, int]) -> tuple[str | None, tuple[int, ...]]:
    """The layers layer i reads, its main input first, by index: (None, them), or (the problem
    of a name that is not an earlier layer, ())."""
    src = layer.source_name
    refs = layer.ref_names
    error: str | None = None
    if src is not None and src not in index:
        error = Msg(
            QT_TRANSLATE_NOOP(
                "core", "'input' names '{src}', which is not an earlier layer"
            ),
            src=src,
        )
    if refs:
        for ref in refs:
            if ref not in index:
                return Msg(
                    QT_TRANSLATE_NOOP(
                        "core", "'from' names '{ref}', which is not an earlier layer"
                    ),
                    ref=ref,
                ), ()
        if error is not None:
            return error, ()
        return None, (index[src] if src else i - 1,) + tuple([index[r] for r in refs])
    if error is None and (layer.kind == "add" or layer.kind == "concat"):
        error = Msg(QT_TRANSLATE_NOOP("core", "'from' must name an earlier layer"))
    if error is not None:
        return error, ()
    return None, (index[src] if src else i - 1,)


class _Storages:
    """The storages of an analysis as it goes, column by column (elements per sample, class,
    producer, last use), with the storages kept for backward, who reads whom, and each layer's
    output storage."""

    __slots__ = ("elems", "cls", "prod", "last", "saved_seen", "saved_order", "saved_owner",
                 "outputs", "output_storage", "edge_reader", "edge_read", "ws_layers")

    def __init__(self) -> None:
        self.elems: list[int] = []
        self.cls: list[str] = []
        self.prod: list[int] = []
        self.last: list[int] = []
        self.saved_seen: set[int] = set()
        self.saved_order: list[int] = []
        self.saved_owner: list[int] = []
        self.outputs: list[int] = []
        self.output_storage: list[int] = []  # per layer (-1: it has none)
        self.edge_reader: list[int] = []
        self.edge_read: list[int] = []
        self.ws_layers: list[int] = []

    def walk(self, layers: tuple[LayerSpec, ...], problems: list[Problem]):
        """Layer by layer, in one pass: the layers it reads, its result (worked out once:
        ``_RESULTS``), the reads recorded, its output storage and the storages it keeps for
        backward; every problem added to ``problems``. Per layer: its input shapes, its output
        shape (None: not worked out), (result, problem, stats) and whether an earlier layer it
        reads was not worked out (the storages each is the first to keep: ``FirstKept``).

        A layer reading one layer or two (a residual add) whose result is worked out (nearly
        every layer) is read inline; any other (the input, more inputs, a problem) goes
        through ``_wire``."""
        ins: list[tuple[Shape, ...]] = []
        shapes: list[Shape | None] = []
        rows: list[tuple] = []
        blocked_at: list[int] = []
        index: dict[str, int] = {}  # the layers so far by name (a name used twice: the later one)
        cached = _RESULTS.get  # a result worked out before, looked up without a call
        one_input = _NOT_INPUT
        output_storage, st_last, st_elems = self.output_storage, self.last, self.elems
        edge_reader, edge_read, outputs = self.edge_reader, self.edge_read, self.outputs
        cls, prod = self.cls, self.prod
        saved_seen, saved_order, saved_owner = self.saved_seen, self.saved_order, self.saved_owner
        ws_layers = self.ws_layers
        wire = self._wire
        for i, layer in enumerate(layers):
            name = layer.name
            kind = layer.kind
            src = layer.source_name
            in_st: list[int] | None = None  # the storages read, when more than one
            result = None
            if i and kind in one_input and type(name) is str and name and name not in index \
                    and (src is None or src in index):
                j = i - 1 if src is None else index[src]
                refs = layer.ref_names
                if not refs:
                    if kind != "add" and kind != "concat":  # (those need 'from')
                        x = shapes[j]
                        if x is not None:
                            in_shapes = (x,)
                            key = (layer.value_id, in_shapes)
                            row = cached(key) or _work_out(layer, in_shapes, key)
                            result = row[0]
                            if result is not None:
                                stats = row[2]
                                ins.append(in_shapes)
                                shapes.append(result[0])
                                rows.append(row)
                                index[name] = i
                                main = output_storage[j]
                                st_last[main] = i
                                edge_reader.append(i)
                                edge_read.append(j)
                elif len(refs) == 1 and refs[0] in index:  # a residual add, a 'from'
                    r = index[refs[0]]
                    x, y = shapes[j], shapes[r]
                    if x is not None and y is not None:
                        in_shapes = (x, y)
                        key = (layer.value_id, in_shapes)
                        row = cached(key) or _work_out(layer, in_shapes, key)
                        result = row[0]
                        if result is not None:
                            stats = row[2]
                            ins.append(in_shapes)
                            shapes.append(result[0])
                            rows.append(row)
                            index[name] = i
                            main, other = output_storage[j], output_storage[r]
                            in_st = [main, other]
                            st_last[main] = i
                            st_last[other] = i
                            edge_reader.append(i)
                            edge_reader.append(i)
                            edge_read.append(j)
                            edge_read.append(r)
            if result is None:
                placed = wire(i, layer, index, problems, ins, shapes, rows, blocked_at)
                if placed is None:  # not worked out: no storage
                    continue
                result, stats, main, in_st = placed
            if result[7]:  # workspace
                ws_layers.append(i)
            if main >= 0 and not stats[6]:  # in place or a view: the input's storage
                storage = main
            else:
                storage = len(st_elems)
                outputs.append(storage)
                st_elems.append(stats[0])
                cls.append(ACT)
                prod.append(i)
                st_last.append(i)
            output_storage.append(storage)
            saved = result[4]
            if not saved:
                continue
            for source, elements, storage_class in saved:
                if source == "input":
                    sid = main
                elif source == "output":
                    sid = storage
                elif source == "own":
                    sid = len(st_elems)
                    st_elems.append(elements)
                    cls.append(storage_class)
                    prod.append(i)
                    st_last.append(i)
                else:  # "input:k" (k ≥ 1: a layer of several inputs)
                    sid = in_st[int(source.split(":")[1])]  # type: ignore[index]
                if sid not in saved_seen:  # the first to keep it
                    saved_seen.add(sid)
                    saved_order.append(sid)
                    saved_owner.append(i)
        if blocked_at:
            blocked = [False] * len(layers)
            for k in blocked_at:
                blocked[k] = True
            return ins, shapes, rows, tuple(blocked)
        return ins, shapes, rows, (False,) * len(layers)

    def _wire(self, i: int, layer: LayerSpec, index: dict[str, int], problems: list[Problem],
              ins: list, shapes: list, rows: list, blocked_at: list[int]):
        """``walk`` for a layer not read inline: its reads and result found and recorded;
        (result, stats, its main input's storage (-1: none), the storages it reads when more
        than one (else None)), or None when its result is not worked out (its output
        storage -1)."""
        name = layer.name
        kind = layer.kind
        if not name or not isinstance(name, str) or name in index or kind not in RULES \
                or (kind == "input") != (i == 0):
            error, reads = _naming_problem(i, name, kind, index), ()
        elif i:
            error, reads = _reads(layer, i, index)
        else:
            error, reads = None, ()
        in_shapes: tuple[Shape, ...] = ()
        if error is not None:
            row = (None, error, ())
        else:
            got = tuple([shapes[j] for j in reads]) if len(reads) != 1 else (shapes[reads[0]],)
            if None in got:
                row = _NOT_WORKED_OUT
                blocked_at.append(i)
            else:
                in_shapes = got  # type: ignore[assignment]
                key = (layer.value_id, in_shapes)
                row = _RESULTS.get(key) or _work_out(layer, in_shapes, key)
                error = row[1]
        if error is not None:
            problems.append(Problem(i, str(name), error))
        result = row[0]
        shapes.append(result[0] if result is not None else None)
        ins.append(in_shapes)
        rows.append(row)
        index[name] = i
        if result is None:
            self.output_storage.append(-1)
            return None
        in_st: list[int] | None = None
        if len(reads) == 1:
            j = reads[0]
            main = self.output_storage[j]
            self.last[main] = i
            self.edge_reader.append(i)
            self.edge_read.append(j)
        elif reads:
            in_st = self._read_several(i, reads)
            main = in_st[0]
        else:  # the input layer reads nothing
            main = -1
        return result, row[2], main, in_st

    def _read_several(self, i: int, reads: tuple[int, ...]) -> list[int]:
        """Layer i reads several layers: recorded; the storages it reads."""
        in_st = [self.output_storage[j] for j in reads]
        for sid in in_st:
            self.last[sid] = i
        self.edge_reader.extend([i] * len(reads))
        self.edge_read.extend(reads)
        return in_st

    def analysis(self, draft: NetworkDraft, rows: LayerRows,
                 problems: tuple[Problem, ...]) -> Analysis:
        """The analysis of these storages and layers' ``rows`` (their ``saved_storages``
        made here, from the storages kept)."""
        elems, cls, prod, last = self.elems, self.cls, self.prod, self.last
        saved, owner = tuple(self.saved_order), tuple(self.saved_owner)
        return Analysis(
            draft, None, problems, None, saved,
            Columns(tuple(elems), tuple(cls), tuple(prod), tuple(last),
                    owner, tuple(self.outputs), tuple(self.output_storage),
                    tuple(self.edge_reader), tuple(self.edge_read), tuple(self.ws_layers)),
            rows._replace(saved_storages=FirstKept(saved, owner, len(rows.names))),
        )


def _beyond_total(layers: tuple[LayerSpec, ...], st: _Storages) -> list[Problem]:
    """The problem of a network whose tensors together pass MAX_TOTAL_ELEMENTS per sample
    (named at the layer of the largest), or none."""
    total = sum(st.elems)
    if total <= MAX_TOTAL_ELEMENTS:
        return []
    big = max(range(len(st.elems)), key=st.elems.__getitem__)
    at = st.prod[big]
    return [Problem(at, str(layers[at].name), Msg(
        QT_TRANSLATE_NOOP("core", "the tensors of the network hold {total} elements per "
                                  "sample, beyond the bound of {bound}"),
        total=total, bound=MAX_TOTAL_ELEMENTS))]


# Layer results by (kind and parameters, input shapes), the first as ``LayerSpec.value_id``: a
# rule's result depends on nothing else.
# Layers are immutable and an edit changes one of them, so re-analysing a draft after an edit
# reuses every other layer's result, and layers alike in one draft are worked out once.
_RESULTS: dict[tuple[int, tuple[Shape, ...]],
               tuple[LayerResult | None, str | None, tuple[int, ...]]] = {}
_RESULTS_MAX = 20_000
# Checked parameters by kind and parameters (``value_id``): the same layer at other input shapes.
_PARAMS: dict[int, dict[str, Any]] = {}


def apply_layer(layer: LayerSpec, in_shapes: tuple[Shape, ...]):
    """(result, problem, stats) of ``layer`` at ``in_shapes``, worked out once."""
    key = (layer.value_id, in_shapes)
    hit = _RESULTS.get(key)
    if hit is not None:
        return hit
    return _work_out(layer, in_shapes, key)


def _work_out(layer: LayerSpec, in_shapes: tuple[Shape, ...], key: tuple):
    """``apply_layer`` for a layer not worked out before (``key``: its key in ``_RESULTS``).
    The rule is given the input shapes as the key holds them (a tuple: the rules only read
    them)."""
    try:
        value_id = key[0]
        params = _PARAMS.get(value_id)
        if params is None:
            check = _CHECKERS.get(layer.kind)
            if check is None:
                check = _CHECKERS[layer.kind] = _param_checker(layer.kind)
            params = check(layer.params)  # _checked_params, without its call
            if len(_PARAMS) >= _RESULTS_MAX:
                _PARAMS.clear()
            _PARAMS[value_id] = params
        result = _APPLY[layer.kind](params, in_shapes)
        if params.get("frozen") and not result.frozen_parameters:  # a frozen learned tensor
            result = result._replace(frozen_parameters=result.parameters)
        out_n = numel(result[0])
        if out_n <= 0:
            raise LayerError(
                Msg(
                    QT_TRANSLATE_NOOP("core", "output {out_shape} is empty"),
                    out_shape=result.out_shape,
                )
            )
    except LayerError as exc:
        hit = (None, message_of(exc), ())
    except (TypeError, ValueError, KeyError, ZeroDivisionError, OverflowError) as exc:
        hit = (None, Msg(QT_TRANSLATE_NOOP("core", "invalid parameters ({problem})"),
                         problem=str(exc)), ())
    else:
        # The first nine fields in one unpacking (a rule's result is a plain row).
        _, n_params, fwd, bwd, saved, inplace, view, _, weights = result[:9]
        in_n = numel(in_shapes[0]) if len(in_shapes) == 1 else sum(map(numel, in_shapes))
        stats = (out_n, in_n, n_params, weights, fwd, bwd, 0 if (inplace or view) else 1,
                 0 if result[12:] == _NO_WEIGHT_PARTS else 1)
        # Every size within its bound, at once in the usual case: whole numbers ORed together
        # have no bit at or above the bound's only when each is non-negative and below it (a
        # negative one has them all); at the bound itself or beyond, the comparisons decide.
        try:
            ok = not ((out_n | in_n | n_params | weights) >> _ELEMENT_BITS
                      or (fwd | bwd) >> _FLOP_BITS)
        except TypeError:  # a size that is not a whole number: the comparisons decide
            ok = False
        if not ok:
            ok = (out_n <= MAX_ELEMENTS and 0 <= in_n <= MAX_ELEMENTS
                  and 0 <= n_params <= MAX_ELEMENTS and 0 <= weights <= MAX_ELEMENTS
                  and 0 <= fwd <= MAX_FLOPS and 0 <= bwd <= MAX_FLOPS)
        if ok:
            for t in saved:
                if not 0 <= t[1] <= MAX_ELEMENTS:
                    ok = False
                    break
        hit = (result, None, stats)
        if not ok:
            error = _beyond_bounds(stats, result)  # names the size beyond its bound
            if error is not None:
                hit = (None, error, ())
    if len(_RESULTS) >= _RESULTS_MAX:
        _RESULTS.clear()
    _RESULTS[key] = hit
    return hit


_APPLY = {kind: rule.apply for kind, rule in RULES.items()}  # kind → its rule's function


_NO_WEIGHT_PARTS = (0, 0, 0, 0)  # LayerResult's frozen, quantised (elements, bytes), tied


# Sizes are checked where they are formed: per sample, one tensor holds at most MAX_ELEMENTS
# elements and the network MAX_TOTAL_ELEMENTS, so bytes × a batch of MAX_BATCH × 8 bytes per
# element stay exact in the estimate's int64 arithmetic; FLOPs per layer likewise.
MAX_ELEMENTS = 1 << 36
MAX_NAME_CHARS = 1000  # a layer's or a plan's name from a file
MAX_TOTAL_ELEMENTS = 1 << 38
MAX_FLOPS = 1 << 50  # ×MAX_BATCH can pass int64: the estimate then multiplies in Python ints
_ELEMENT_BITS, _FLOP_BITS = 36, 50  # MAX_ELEMENTS and MAX_FLOPS as powers of two
if MAX_ELEMENTS != 1 << _ELEMENT_BITS or MAX_FLOPS != 1 << _FLOP_BITS:
    raise RuntimeError("update _ELEMENT_BITS and _FLOP_BITS")  # pragma: no cover
_BOUNDED = (
    (0, QT_TRANSLATE_NOOP("core", "output elements"), MAX_ELEMENTS),
    (1, QT_TRANSLATE_NOOP("core", "input elements"), MAX_ELEMENTS),
    (2, QT_TRANSLATE_NOOP("core", "parameters"), MAX_ELEMENTS),
    (3, QT_TRANSLATE_NOOP("core", "weight elements"), MAX_ELEMENTS),
    (4, QT_TRANSLATE_NOOP("core", "forward FLOPs"), MAX_FLOPS),
    (5, QT_TRANSLATE_NOOP("core", "backward FLOPs"), MAX_FLOPS),
)


def _beyond_bounds(stats: tuple[int, ...], result: LayerResult) -> str | None:
    """None, or the message naming the first size beyond its bound (a product of dimensions
    that would overflow the estimate's 64-bit arithmetic into a wrong answer)."""
    for k, what, bound in _BOUNDED:
        v = stats[k]
        if not 0 <= v <= bound:
            return Msg(QT_TRANSLATE_NOOP("core", "{what}: {value} per sample is beyond the "
                                                 "bound of {bound}"),
                       what=Msg(what), value=v, bound=bound)
    for t in result.saved:
        if not 0 <= t.elements <= MAX_ELEMENTS:
            return Msg(QT_TRANSLATE_NOOP("core", "{what}: {value} per sample is beyond the "
                                                 "bound of {bound}"),
                       what=Msg(QT_TRANSLATE_NOOP("core", "saved elements")),
                       value=t.elements, bound=MAX_ELEMENTS)
    return None


def clear_cache() -> None:
    """Forget cached layer results and recent analyses (benchmarks measuring a cold start use
    this)."""
    from planner.core.incremental import clear  # noqa: PLC0415 (imports this module)

    _RESULTS.clear()
    _PARAMS.clear()
    clear()


def _checked_params(layer: LayerSpec) -> dict[str, Any]:
    """The rule's parameters, coerced; the wiring ('input', 'from') is left out: the analysis
    resolves it, and a rule sees its inputs' shapes only."""
    check = _CHECKERS.get(layer.kind)
    if check is None:
        check = _CHECKERS[layer.kind] = _param_checker(layer.kind)
    return check(layer.params)


def _param_checker(kind: str):
    """``_checked_params`` for one kind, as one function of straight-line code (a draft with no
    two layers alike checks every layer's parameters: a loop over the specs cost more than the
    rule itself). Values already of their type and in range (what the table and plan files
    hold) are taken as they are, checked inline (coerce_param's own first test, without its
    calls); anything else is parsed by coerce_param."""
    env: dict[str, Any] = {"coerce": coerce_param, "MAX": MAX_PARAM_INT}
    lines = ["def check(given):", "    get = given.get", "    out = {}"]
    for k, (name, t, default, lo, choices, spec) in enumerate(_param_checks(kind)):
        env[f"d{k}"], env[f"c{k}"], env[f"s{k}"], env[f"lo{k}"] = default, choices, spec, lo
        key = repr(name)
        test = {
            1: "type(v) is bool",
            2: f"type(v) is int and lo{k} <= v <= MAX",
            3: f"type(v) is str and v in c{k}",
            4: "v == 'valid' or v == 'same' or (type(v) is int and 0 <= v <= MAX)",
        }.get(t)
        lines.append(f"    v = get({key}, d{k})")
        if test is None:
            lines.append(f"    out[{key}] = coerce(s{k}, v)")
        else:
            lines.append(f"    out[{key}] = v if {test} else coerce(s{k}, v)")
    lines.append("    return out")
    exec(compile("\n".join(lines), f"<parameters of {kind}>", "exec"), env)  # noqa: S102
    return env["check"]


def _param_checks(kind: str) -> tuple:
    """A kind's parameters as _checked_params reads them (wiring left out): name, type code
    (1 bool, 2 int or ints, 3 choice, 4 padding, 0 other), default, lowest whole number
    accepted as it is, choices, spec."""
    wiring = WIRING_PARAMS[kind]
    out = []
    for spec in RULES[kind].params:
        if spec.name in wiring:
            continue
        t = {"bool": 1, "int": 2, "ints": 2, "choice": 3, "padding": 4}.get(spec.type, 0)
        lo = spec.minimum if spec.minimum is not None else (0 if spec.type == "int" else 1)
        out.append((spec.name, t, spec.default, lo, spec.choices, spec))
    return tuple(out)


_CHECKERS: dict[str, Any] = {}  # kind → its _param_checker


# --------------------------------------------------------------------------------------------
# Plan files
# --------------------------------------------------------------------------------------------


def draft_from_json(data: Any, *, where: str = "plan") -> NetworkDraft:
    if not isinstance(data, dict):
        raise PlanFileError(
            Msg(QT_TRANSLATE_NOOP("core", "{where}: expected an object with 'layers'"), where=where)
        )
    raw_layers = data.get("layers")
    if not isinstance(raw_layers, list) or not raw_layers:
        raise PlanFileError(
            Msg(
                QT_TRANSLATE_NOOP("core", "{where}: 'layers' must be a non-empty list"), where=where
            )
        )
    layers: list[LayerSpec] = []
    repeats = []
    for i, raw in enumerate(raw_layers):
        at = f"{where}: layers[{i}]"
        if isinstance(raw, dict) and raw.get("type") == "repeat":
            rep, copies = _repeat_from_json(raw, at, layers)
            repeats.append(rep)
            layers += copies
            continue
        layers.append(_layer_from_json(raw, at))
    name = data.get("name", "")
    if not isinstance(name, str) or len(name) > MAX_NAME_CHARS:
        raise PlanFileError(
            Msg(QT_TRANSLATE_NOOP("core", "{where}: name must be text"), where=where)
        )
    desc = data.get("description", "")
    return NetworkDraft(name or "untitled", tuple(layers), desc if isinstance(desc, str) else "",
                        tuple(repeats))


def _repeat_from_json(raw: dict, at: str, before: list[LayerSpec]):
    """A repeated block of a plan file: its Repeat record and its expanded copies."""
    from planner.core.repeat import Repeat, RepeatError, expand  # noqa: PLC0415

    name, times, body_raw = raw.get("name"), raw.get("times"), raw.get("layers")
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME_CHARS:
        raise PlanFileError(Msg(QT_TRANSLATE_NOOP(
            "core", "{at}.name: a repeated block needs a name"), at=at))
    if not isinstance(body_raw, list) or not body_raw:
        raise PlanFileError(Msg(QT_TRANSLATE_NOOP(
            "core", "{at}.layers: a repeated block needs a non-empty list of layers"), at=at))
    if not before:
        raise PlanFileError(Msg(QT_TRANSLATE_NOOP(
            "core", "{at}: a repeated block cannot come first (the input does)"), at=at))
    body = [_layer_from_json(r, f"{at}.layers[{j}]") for j, r in enumerate(body_raw)]
    if any(layer.kind == "input" for layer in body):
        raise PlanFileError(Msg(QT_TRANSLATE_NOOP(
            "core", "{at}.layers: a repeated block cannot hold an input"), at=at))
    try:
        copies = expand(name.strip(), times, body, before[-1].name)
    except RepeatError as exc:
        raise PlanFileError(Msg(QT_TRANSLATE_NOOP("core", "{at}.times: {problem}"), at=at,
                                problem=message_of(exc))) from None
    return Repeat(name.strip(), len(before), len(body), times), copies


def _layer_from_json(raw: Any, at: str) -> LayerSpec:
    if not isinstance(raw, dict):
        raise PlanFileError(Msg(QT_TRANSLATE_NOOP("core", "{at}: expected an object"), at=at))
    kind = raw.get("type")
    if kind not in RULES:
        raise PlanFileError(
            Msg(
                QT_TRANSLATE_NOOP("core", "{at}.type: unknown layer type {kind!r}"),
                at=at,
                kind=clean(kind, max_len=60) if isinstance(kind, str) else kind,
            )
        )
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise PlanFileError(
            Msg(QT_TRANSLATE_NOOP("core", "{at}.name: every layer needs a name"), at=at)
        )
    if len(name) > MAX_NAME_CHARS:  # a name is shown in tables, charts and terminals
        raise PlanFileError(
            Msg(QT_TRANSLATE_NOOP("core", "{at}.name: longer than {limit} characters"),
                at=at, limit=MAX_NAME_CHARS)
        )
    rule = RULES[kind]
    params = {}
    for key, value in raw.items():
        if key in ("type", "name"):
            continue
        spec = rule.param(key)
        if spec is None:
            raise PlanFileError(
                Msg(
                    QT_TRANSLATE_NOOP(
                        "core", "{at}.{key}: '{kind}' layers have no parameter '{key}'"
                    ),
                    at=at,
                    key=key,
                    kind=kind,
                )
            )
        try:
            params[key] = coerce_param(spec, value)
        except LayerError as exc:
            raise PlanFileError(
                Msg(
                    QT_TRANSLATE_NOOP("core", "{at}.{key}: {problem}"),
                    at=at,
                    key=key,
                    problem=message_of(exc),
                )
            ) from None
    return LayerSpec(kind, name.strip(), params)


def setup_from_json(data: Any, *, where: str = "plan", default: Setup | None = None) -> Setup:
    base = default or Setup()
    if data is None:
        return base
    if not isinstance(data, dict):
        raise PlanFileError(
            Msg(QT_TRANSLATE_NOOP("core", "{where}: setup must be an object"), where=where)
        )
    values = base.to_json()
    for key, value in data.items():
        if key not in values:
            raise PlanFileError(
                Msg(
                    QT_TRANSLATE_NOOP("core", "{where}: setup.{key}: unknown setting"),
                    where=where,
                    key=key,
                )
            )
        values[key] = value
    try:
        return Setup(**values)
    except (TypeError, ValueError) as exc:
        raise PlanFileError(
            Msg(
                QT_TRANSLATE_NOOP("core", "{where}: setup: {problem}"),
                where=where,
                problem=message_of(exc),
            )
        ) from None


def plan_to_json(draft: NetworkDraft, setup: Setup,
                 parallel: dict[str, Any] | None = None) -> dict[str, Any]:
    """The plan file's JSON; ``parallel`` ({"gpus", "nodes", "strategy"}: the several-GPU
    setup) is written when given. Files without it (older ones) mean one GPU, DDP."""
    data: dict[str, Any] = {"schema_version": 1}
    data.update(draft.to_json())
    if any(raw.get("type") == "repeat" for raw in data["layers"]):
        data["schema_version"] = SCHEMA_VERSION  # older apps cannot read repeated blocks
    data["setup"] = setup.to_json()
    if parallel is not None:
        data["parallel"] = {"gpus": int(parallel["gpus"]), "nodes": int(parallel["nodes"]),
                            "strategy": str(parallel["strategy"])}
    return data


def parallel_from_json(data: Any, *, where: str = "plan") -> dict[str, Any] | None:
    """The several-GPU setup a plan file holds ({"gpus", "nodes", "strategy"}), or None when
    it holds none (a file from before it was saved: one GPU, DDP). A bad value names the
    field; the ranges are checked by ``planner.core.parallel.Parallel``."""
    if not isinstance(data, dict) or data.get("parallel") is None:
        return None
    raw = data["parallel"]
    if not isinstance(raw, dict):
        raise PlanFileError(Msg(QT_TRANSLATE_NOOP(
            "core", "{where}: parallel must be an object with gpus, nodes and strategy"),
            where=where))
    out: dict[str, Any] = {}
    for key, kind in (("gpus", int), ("nodes", int), ("strategy", str)):
        value = raw.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise PlanFileError(Msg(QT_TRANSLATE_NOOP(
                "core", "{where}: parallel.{field} is missing or not valid ({value!r})"),
                where=where, field=key, value=clean(repr(value), max_len=40)))
        out[key] = value
    return out


def plan_from_json(data: Any, *, where: str = "plan") -> tuple[NetworkDraft, Setup]:
    if not isinstance(data, dict):
        raise PlanFileError(
            Msg(
                QT_TRANSLATE_NOOP("core", "{where}: not a plan (expected a JSON object)"),
                where=where,
            )
        )
    version = data.get("schema_version")
    if version is None:
        raise PlanFileError(
            Msg(
                QT_TRANSLATE_NOOP(
                    "core", "{where}: schema_version is missing (is this a GPU Planner plan?)"
                ),
                where=where,
            )
        )
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise PlanFileError(
            Msg(
                QT_TRANSLATE_NOOP("core", "{where}: schema_version {version!r} is not valid"),
                where=where,
                version=version,
            )
        )
    if version > SCHEMA_VERSION:
        raise PlanFileError(
            Msg(
                QT_TRANSLATE_NOOP(
                    "core",
                    "{where}: schema_version {version} is newer than this app understands "
                    "({SCHEMA_VERSION}); update GPU Planner",
                ),
                where=where,
                version=version,
                SCHEMA_VERSION=SCHEMA_VERSION,
            )
        )
    draft = draft_from_json(data, where=where)
    setup = setup_from_json(data.get("setup"), where=where)
    return draft, setup


def load_plan(path: str | os.PathLike) -> tuple[NetworkDraft, Setup]:
    draft, setup, _parallel = load_plan_file(path)
    return draft, setup


def load_plan_file(path: str | os.PathLike
                   ) -> tuple[NetworkDraft, Setup, dict[str, Any] | None]:
    """The plan, its setup and its several-GPU setup (None in files from before it was
    saved)."""
    p = Path(path)
    where = clean(p.name, max_len=120)
    if p.is_dir():
        raise PlanFileError(
            Msg(QT_TRANSLATE_NOOP("core", "{where}: is a folder, not a plan file"), where=where)
        )
    try:
        text = safeio.read_text(p, limit=safeio.MAX_PLAN_BYTES)
        data = safeio.loads_json(text)
    except FileNotFoundError:
        raise PlanFileError(
            Msg(QT_TRANSLATE_NOOP("core", "{where}: no such file"), where=where)
        ) from None
    except json.JSONDecodeError as exc:
        raise PlanFileError(
            Msg(
                QT_TRANSLATE_NOOP("core", "{where}: not valid JSON (line {lineno}: {msg})"),
                where=where,
                lineno=exc.lineno,
                msg=exc.msg,
            )
        ) from None
    except (OSError, ValueError) as exc:  # safeio.InputRefused is a ValueError
        raise PlanFileError(
            Msg(
                QT_TRANSLATE_NOOP("core", "{where}: cannot be read ({problem})"),
                where=where,
                problem=message_of(exc),
            )
        ) from None
    draft, setup = plan_from_json(data, where=where)
    return draft, setup, parallel_from_json(data, where=where)


def save_plan(path: str | os.PathLike, draft: NetworkDraft, setup: Setup,
              parallel: dict[str, Any] | None = None) -> None:
    """Write atomically: a temporary file in the same folder, flushed, then renamed over."""
    write_json_atomic(Path(path), plan_to_json(draft, setup, parallel))


def write_json_atomic(path: Path, data: Any) -> None:
    """Write ``data`` as JSON atomically (see planner.atomicfile)."""
    _write_json_atomic(path, data)


@dataclass(frozen=True)
class PresetInfo:
    name: str
    title: str
    description: str
    path: Path = field(compare=False)
