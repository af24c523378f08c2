"""Norms the default exporter's optimiser merged with an identical twin, planned again.

An untrained network's norms have equal parameters (scale all 1, shift all 0, running mean 0,
variance 1); the exporter stores equal initializers once, so two norms of one input become the
same node with the same inputs, and common-subexpression elimination keeps one of them (and the
activation after it): DPN's two pre-activation norms of a block's input (one before the
projection, one before the first convolution), FastViT's RepMixer norm beside its mixer's
identity branch. Training runs both, with their own parameters and what each keeps.

Where the file carries the exported program's signature, every module's parameters are listed
there: a module of the signature that no node of the file belongs to and whose parameters are
no initializer of the file was merged away. Its twin is a norm of the file with constant-fill
parameters, of the same module name (the leaf: 'bn', 'identity') in a sibling module; the twin's
readers that belong to the merged module's parent (by the module path of their weight, as a
fused convolution's record names the batch norm folded into it, or by their own record), or
failing that the readers outside the twin's own parent, read the merged norm. Those readers
get a copy of the twin's layers (the norm and the activations after it).
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from planner.core.importers.onnx.common import MAX_UNMERGED, SMALL_ELEMENTS
from planner.core.layers import LayerSpec, numel

NORM_OPS = frozenset({"BatchNormalization", "LayerNormalization", "GroupNormalization",
                      "InstanceNormalization", "RMSNormalization"})
# Element-wise operators of one activation input that the optimiser merges with the norm.
_UNARY = frozenset({"Relu", "LeakyRelu", "Sigmoid", "Tanh", "Elu", "Selu", "Celu", "Gelu",
                    "HardSigmoid", "HardSwish", "Softplus", "Mish", "Clip", "Identity"})
_WEIGHTED = frozenset({"Conv", "ConvTranspose", "Gemm", "MatMul"})


def _parent(module: str) -> str:
    return module.rsplit(".", 1)[0] if "." in module else ""


def _inside(module: str, scope: str) -> bool:
    return bool(scope) and (module == scope or module.startswith(scope + "."))


MAX_READ_ELEMENTS = 1 << 24  # values read to tell a constant fill (64 MiB of float32)


def stored_values(imp, name: str):
    """The values of a float initializer, also where they lie in the external data file (the
    default exporter writes every initializer there) or where the skim left them in the file
    (read once, up to MAX_READ_ELEMENTS), or None."""
    v = imp.const(name)
    if v is not None or name not in imp.value_source:
        return v
    import numpy as np  # noqa: PLC0415

    ext = imp.value_source.pop(name)  # read once
    dims = imp.init_dims[name]
    n = numel(dims)
    if n > MAX_READ_ELEMENTS:
        return None
    if ext is None:  # in the file itself
        from planner.core.importers.onnx.reading import embedded_data  # noqa: PLC0415

        if imp.embedded_where is None:
            names = {t for t, e in imp.value_source.items() if e is None} | {name}
            imp.embedded_where = embedded_data(Path(imp.path), names)
        field, offset, size = imp.embedded_where.get(name, (0, 0, 0))
        path = Path(imp.path)
        if field not in (4, 9) or size != 4 * n:
            return None
    else:
        loc = ext.get("location", "")
        if not loc or Path(loc).is_absolute() or ".." in Path(loc).parts:
            return None
        path = Path(imp.path).parent / loc
        try:
            offset = int(ext.get("offset", 0) or 0)
            if int(ext.get("length", 4 * n) or 4 * n) != 4 * n:
                return None
        except ValueError:
            return None
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            raw = f.read(4 * n)
    except (OSError, ValueError):
        return None
    if len(raw) != 4 * n:
        return None
    v = np.frombuffer(raw, "<f4").reshape(dims)
    if n <= SMALL_ELEMENTS:
        imp.values[name] = v
    return v


def constant_fill(imp, name: str) -> bool | None:
    """The initializer holds one value throughout (all 1, all 0), or not; None: unread."""
    v = stored_values(imp, name)
    if v is None or getattr(v, "size", 0) < 1:
        return None
    flat = v.reshape(-1)
    return bool((flat == flat[0]).all())


def _constant_fill(imp, name: str) -> bool:
    return bool(numel(imp.init_dims[name]) <= SMALL_ELEMENTS and constant_fill(imp, name))


def _reader_module(imp, node) -> str:
    """The module a node belongs to: its weight's module path where it applies a named
    weight (a fused convolution's record is the folded batch norm's), else its record's."""
    if node.op_type in _WEIGHTED and len(node.input) > 1 and node.input[1] not in imp.acts:
        o = imp.origin(node.input[1])
        if o and "." in o and not o.startswith(("onnx::", "/")):
            return o.rsplit(".", 1)[0]
    return imp.module_scope(node)


def find(imp) -> None:
    """Record which nodes read a merged twin of a norm (``imp.twin_readers``)."""
    sig = imp.signature
    if not sig or not imp.dynamo:
        return
    modules: dict[str, set[str]] = defaultdict(set)
    for target, kind in sig.items():
        if kind == "PARAMETER" and "." in target:
            module, leaf = target.rsplit(".", 1)
            modules[module].add(leaf)
    represented: set[str] = set()
    for node in imp.nodes:
        scope = imp.module_scope(node)
        while scope and scope not in represented:
            represented.add(scope)
            scope = _parent(scope)
    merged = [m for m, leaves in modules.items() if m not in represented and
              not any(f"{m}.{leaf}" in imp.init_dims for leaf in leaves)]
    if not merged:
        return
    # Norms of the file whose parameters are constant fills, by their module's leaf name.
    survivors: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for k, node in enumerate(imp.nodes):
        if node.op_type not in NORM_OPS or not node.input or node.input[0] not in imp.acts:
            continue
        params = [i for i in node.input[1:3] if i]
        if not params or not all(i in imp.init_dims and _constant_fill(imp, i) for i in params):
            continue
        scope = imp.module_scope(node)
        if scope:
            survivors[scope.rsplit(".", 1)[-1]].append((k, scope))
    taken: set[int] = set()
    for module in sorted(merged):
        if len(imp.twins) >= MAX_UNMERGED:
            break
        leaf = module.rsplit(".", 1)[-1]
        pu = _parent(module)
        best, best_len = None, 0
        for k, scope in survivors.get(leaf, ()):
            ps = _parent(scope)
            if not pu or not ps or _inside(pu, ps) or _inside(ps, pu) or \
                    modules.get(scope, set()) != modules[module]:
                continue  # one module inside the other: the paths cannot tell the readers
            common = len(_common(module, scope))
            if common > best_len:
                best, best_len = (k, scope), common
        if best is None:
            continue
        k, scope = best
        chain = [k]
        end = imp.nodes[k].output[0]
        while True:
            cons = imp.consumers.get(end, [])
            if len(cons) != 1:
                break
            nxt = imp.nodes[cons[0]]
            if nxt.op_type not in _UNARY or not _inside(imp.module_scope(nxt), scope):
                break
            chain.append(cons[0])
            end = nxt.output[0]
        readers = [c for c in dict.fromkeys(imp.consumers.get(end, [])) if c not in taken]
        mods = {c: _reader_module(imp, imp.nodes[c]) for c in readers}
        mine = [c for c in readers if _inside(mods[c], pu)]
        if not mine:
            mine = [c for c in readers if not _inside(mods[c], _parent(scope))]
        if not mine or len(mine) == len(readers):
            imp.twins_undecided.append(module)
            continue
        twin = len(imp.twins)
        imp.twins.append({"module": module, "chain": chain, "end": end, "layers": None})
        for c in mine:
            imp.twin_readers[c] = twin
            taken.add(c)


def _common(a: str, b: str) -> list[str]:
    out = []
    for x, y in zip(a.split("."), b.split(".")):
        if x != y:
            break
        out.append(x)
    return out


def redirect(imp, k: int):
    """Before node ``k`` is mapped: where it reads a merged twin, the twin's copy planned (once)
    and put in place of the chain's output. Returns (tensor, layer to put back) or None."""
    twin_index = imp.twin_readers.get(k)
    if twin_index is None:
        return None
    twin = imp.twins[twin_index]
    end = twin["end"]
    if end not in imp.tensor_layer:
        return None
    original = imp.tensor_layer[end]
    if twin["layers"] is None:
        twin["layers"] = _copy_chain(imp, twin)
    if not twin["layers"]:
        return None
    imp.tensor_layer[end] = twin["layers"][-1]
    return end, original


def _copy_chain(imp, twin) -> list[str]:
    names = []
    for k in twin["chain"]:
        out = imp.nodes[k].output[0]
        if out in imp.tensor_layer:
            layer = imp.tensor_layer[out]
            if layer not in names:
                names.append(layer)
    copies: list[str] = []
    module = twin["module"]
    for layer in names:
        i = imp.layer_index(layer)
        if i is None or i == 0 or imp.layers[i].kind in ("input", "view", "data_input"):
            return []
    for n, layer in enumerate(names):
        i = imp.layer_index(layer)
        spec = imp.layers[i]
        params = dict(spec.params)
        params["input"] = copies[-1] if copies else (
            params.get("input") or imp.layers[i - 1].name)
        leaf = re.sub(r"_\d+$", "", layer.rsplit(".", 1)[-1]) or "act"
        base = f"{module}.{leaf}" if n else module
        name = imp.unique(base)
        imp.layers.append(LayerSpec(spec.kind, name, params))
        imp.layer_out[name] = imp.layer_out.get(layer)
        if layer in imp.auto_inplace:
            imp.auto_inplace.add(name)
        for init in list(imp.claims_of.get(layer, ())):
            imp.claims.append((name, init))
            imp.claims_of[name].append(init)
        copies.append(name)
    return copies


def sinusoid_table(imp, name: str) -> bool:
    """The initializer is a fixed sinusoidal position table (row p: sin(p·w) in one half or the
    even columns, cos(p·w) in the other, w = 1 in the first column; a leading zeroed padding
    row or two allowed): RoFormer's and Marian's SinusoidalPositionalEmbedding make it an
    nn.Embedding weight with requires_grad=False, which the file names as a parameter. Only a
    2-D float table that a Gather or Slice reads is looked at (an embedding lookup), once."""
    cache = imp.__dict__.setdefault("_sinusoid", {})
    known = cache.get(name)
    if known is not None:
        return known
    cache[name] = False
    dims = imp.init_dims.get(name, ())
    if len(dims) != 2 or dims[0] < 16 or not 4 <= dims[1] <= 8192 or dims[1] % 2 or \
            imp.init_type.get(name) != 1 or numel(dims) > MAX_READ_ELEMENTS or not any(
                imp.nodes[k].op_type in ("Gather", "Slice") and imp.nodes[k].input[0] == name
                for k in imp.consumers.get(name, ())):
        return False
    source = imp.value_source.get(name, False)
    v = stored_values(imp, name)
    if source is not False and name not in imp.value_source and name not in imp.values:
        imp.value_source[name] = source  # (read again where a later step needs it)
    if v is None:
        return False
    import numpy as np  # noqa: PLC0415

    half = dims[1] // 2
    for first in range(3):
        p = np.arange(dims[0] - first, dtype=np.float64)
        rows = v[first:].astype(np.float64)
        for sin_col, cos_col in ((0, half), (0, 1)):
            if np.allclose(rows[:, sin_col], np.sin(p), atol=1e-3) and \
                    np.allclose(rows[:, cos_col], np.cos(p), atol=1e-3) and \
                    float(np.abs(rows).max()) <= 1.0 + 1e-3:
                cache[name] = True
                return True
    return False
