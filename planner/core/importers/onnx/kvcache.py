"""Key/value-cache copies a file no longer shows: said with their size, never left out silently.

Hugging Face's decoders run with a key/value cache by default, also in training
(``use_cache=True``): each attention layer appends k and v to an empty ``DynamicCache``
(``torch.cat``), a copy that attention keeps instead of the views of the projection's output.
The default exporter's optimiser deletes that one-input ``Concat``; its own record of the traced
operations (``pkg.torch.onnx.fx_node``) still shows it, and ``patterns.elided_copies`` puts the
copies back. A file without that record (the legacy exporter's, or one whose metadata an
optimiser such as onnxsim or onnxruntime's, or a re-save, stripped) cannot tell: the same graph
comes from a decoder trained with ``use_cache=False`` (no copy) or with the cache (copies).

Where such a file is a decoder (a causal mask built in the graph: ``Trilu``, a lower-triangular
mask constant, or positions compared with positions) and copying k and v would change what the
plan keeps, :func:`cache_copy_warning` says by how much. An encoder (BERT, a vision transformer)
has no cache and no causal mask, and is left alone.
"""

from __future__ import annotations

from pathlib import Path

from planner.core.importers.onnx.common import percent
from planner.i18n import QT_TRANSLATE_NOOP, Msg

CACHE_COPIES = QT_TRANSLATE_NOOP(
    "core", "{n} attention block(s) of this decoder (it builds a causal mask) read keys and values "
    "straight from their projections, and the file no longer has the exporter's record that "
    "says whether the model copied them into a key/value cache (the record is missing from "
    "legacy exports and from files an optimiser or a re-save stripped of their metadata). If the "
    "model runs with a key/value cache (Hugging Face decoders do by default, also in training), "
    "attention keeps those copies: {bytes} more at batch {batch} ({pct} % of the plan's saved "
    "bytes), not in the plan. Training with use_cache=False avoids them; a file from "
    "torch.onnx.export with its metadata kept is planned exactly.")

_COMPARE = {"Less", "LessOrEqual", "Greater", "GreaterOrEqual"}
_PASS = {"Unsqueeze", "Reshape", "Cast", "Expand", "Add", "Sub", "Squeeze", "Identity",
         "Slice", "Gather"}
_MASK_OPS = _PASS | {"Where", "Mul", "Not", "Equal", "And", "Or", "Xor", "Neg", "Min", "Max",
                     "Tile", "ConstantOfShape", "IsNaN", "Div"}
_BOOL, _FLOAT, _FLOAT16, _BFLOAT16 = 9, 1, 10, 16
_ELEMENT = {_BOOL: "?", _FLOAT: "<f4", _FLOAT16: "<f2"}
MAX_MASKS = 64  # square constants looked at


def square_constant(t) -> bool:
    """An initializer that may be an attention mask: bool or float, its last two axes T×T."""
    dims = tuple(int(d) for d in t.dims)
    return len(dims) >= 2 and dims[-1] == dims[-2] >= 2 and int(t.data_type) in _ELEMENT


def _corner(imp, t):
    """The mask's top-left 2×2 (m00, m01, m10, m11) of its first T×T slice, or None (unread)."""
    import numpy as np  # noqa: PLC0415

    dims = tuple(int(d) for d in t.dims)
    n = dims[-1]
    idx = (0, 1, n, n + 1)
    value = imp.values.get(t.name)
    if value is None and int(t.data_location) != 1 and t.raw_data:
        try:
            value = imp.onnx.numpy_helper.to_array(t)
        except Exception:  # noqa: BLE001 - unreadable: not evidence
            value = None
    if value is not None:
        flat = np.asarray(value).reshape(-1)
        return tuple(flat[i].item() for i in idx) if flat.size > n + 1 else None
    if int(t.data_location) != 1:
        return _embedded_corner(imp, t, idx)
    ext = {e.key: e.value for e in t.external_data}
    loc = ext.get("location", "")
    if not loc or Path(loc).is_absolute() or ".." in Path(loc).parts:
        return None
    dtype = np.dtype(_ELEMENT[int(t.data_type)])
    try:
        offset = int(ext.get("offset", 0) or 0)
        with open(Path(imp.path).parent / loc, "rb") as f:
            out = []
            for i in idx:
                f.seek(offset + i * dtype.itemsize)
                raw = f.read(dtype.itemsize)
                if len(raw) != dtype.itemsize:
                    return None
                out.append(np.frombuffer(raw, dtype)[0].item())
            return tuple(out)
    except (OSError, ValueError):
        return None


def _embedded_corner(imp, t, idx):
    """The corner of a mask stored in the file itself whose data the skim left out (a
    relative-position bias per head, CoAtNet's, or a large mask): read from the file."""
    import numpy as np  # noqa: PLC0415

    from planner.core.importers.onnx.reading import embedded_data  # noqa: PLC0415

    where = imp.embedded_masks
    if where is None:
        names = {c.name for c in list(imp.square_consts.values())[:MAX_MASKS]
                 if int(c.data_location) != 1 and not c.raw_data}
        where = imp.embedded_masks = embedded_data(Path(imp.path), names)
    if t.name not in where:
        return None
    field, offset, size = where[t.name]
    if field == 4 and int(t.data_type) != _FLOAT:
        return None
    dtype = np.dtype(_ELEMENT[int(t.data_type)])
    if (idx[-1] + 1) * dtype.itemsize > size:
        return None
    try:
        with open(imp.path, "rb") as f:
            out = []
            for i in idx:
                f.seek(offset + i * dtype.itemsize)
                out.append(np.frombuffer(f.read(dtype.itemsize), dtype)[0].item())
        return tuple(out)
    except (OSError, ValueError, IndexError):
        return None


def _lower_triangular(corner) -> bool:
    """A causal mask's corner: the diagonal and below alike, above the diagonal different (a
    bool mask of either sense; an additive 0 / -inf one; a multiplicative 1 / 0 one)."""
    m00, m01, m10, m11 = corner
    if not m00 == m10 == m11 != m01:
        return False
    if isinstance(m00, bool):
        return True
    return (m00 == 0 and m01 < -1e3) or (m00 == 1 and m01 == 0)


def _positions(imp, tensor: str) -> bool:
    """A tensor of positions: a Range (through views and casts), or a constant counting up or
    down by one (a Range the exporter folded)."""
    import numpy as np  # noqa: PLC0415

    t = tensor
    for _ in range(6):
        value = imp.values.get(t)
        if value is not None:
            flat = np.asarray(value).reshape(-1)
            if flat.size < 2 or flat.dtype.kind not in "iuf":
                return False
            step = np.diff(flat)
            return bool(np.all(step == step[0]) and abs(step[0]) == 1)
        p = imp.producer.get(t)
        if p is None:
            return False
        node = imp.nodes[p]
        if node.op_type == "Range":
            return True
        if node.op_type not in _PASS or not node.input:
            return False
        t = node.input[0]
    return False


def _reaches_softmax(imp, name: str) -> bool:
    """Whether constant ``name`` reaches a Softmax through mask arithmetic only (what a mask
    does: expanded, cast, compared, added to or selecting the scores), not through a layer."""
    frontier, seen = [name], {name}
    for _ in range(8):
        nxt = []
        for t in frontier:
            for k in imp.consumers.get(t, ())[:16]:
                node = imp.nodes[k]
                if node.op_type == "Softmax":
                    return True
                if node.op_type in _MASK_OPS:
                    nxt.extend(o for o in node.output if o and o not in seen)
        seen.update(nxt)
        frontier = nxt[:64]
    return False


def causal(imp) -> bool | None:
    """True where the graph builds a causal mask, None where a mask constant cannot be read,
    False where nothing in the graph says decoder."""
    unread = False
    for node in imp.nodes:
        if node.op_type == "Trilu":
            return True
        if node.op_type in _COMPARE and len(node.input) == 2 and \
                all(_positions(imp, i) for i in node.input):
            return True
    for t in list(imp.square_consts.values())[:MAX_MASKS]:
        if not _reaches_softmax(imp, t.name):
            continue  # a weight matrix, a position table: not a mask
        corner = _corner(imp, t)
        if corner is None:
            unread = True
        elif _lower_triangular(corner):
            return True
    return None if unread else False


def cache_copy_warning(imp, draft, setup) -> Msg | None:
    """The warning for a decoder file without the exporter's record whose attention would keep
    more with k and v copied into a key/value cache (None where the file says, or it is an
    encoder, or the copies would not change what is kept)."""
    from planner.core.layers import LayerSpec  # noqa: PLC0415
    from planner.core.memory import estimate  # noqa: PLC0415
    from planner.units import format_bytes  # noqa: PLC0415

    if imp.dynamo or imp.elided_copies:
        return None  # the exporter's record is there: the plan follows it
    layers = list(draft.layers)
    attention = [i for i, layer in enumerate(layers)
                 if layer.kind == "attention" and len(layer.get("from") or ()) == 2]
    if not attention or causal(imp) is False:
        return None
    names = {layer.name for layer in layers}
    out: list = []
    for i, layer in enumerate(layers):
        if i in attention:
            copies = []
            for src in layer.get("from"):
                name, k = f"{src}.cache", 1
                while name in names:
                    k += 1
                    name = f"{src}.cache{k}"
                names.add(name)
                out.append(LayerSpec("elementwise", name, {"op": "other", "keeps": "nothing",
                                                           "input": src}))
                copies.append(name)
            main = layer.source() or layers[i - 1].name
            layer = layer.replace(input=main, **{"from": tuple(copies)})
        out.append(layer)
    try:
        base = estimate(imp.analysis, setup).saved_bytes
        more = estimate(draft.with_layers(out), setup).saved_bytes - base
    except Exception:  # noqa: BLE001 - a plan that cannot be estimated says so elsewhere
        return None
    if base <= 0 or more <= base // 1000:
        return None
    return Msg(CACHE_COPIES, n=len(attention), bytes=format_bytes(more),
               batch=setup.batch_size, pct=percent(more, base, 1))
