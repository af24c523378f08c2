"""Repeated blocks ("decoder layer × 32"): one block of layers, copied ``times`` times.

A draft keeps its layers expanded (every copy is a layer of its own, so the analysis, the
estimate and the per-layer figures see them all) plus a ``Repeat`` record per block: where
copy 0 starts, how many layers one copy has, how many copies. A change to one copy's layer is
made to the same layer of every copy (``apply_to_copies``); a plan file holds the block once
(``{"type": "repeat", "name": "layers", "times": 32, "layers": [...]}``, schema version 2).

Inside a block's layers in a file, names are local to the block; ``input`` and ``from`` may
name a layer of the same copy (local name), the layer before the copy (``@input``: the
block's input for copy 0, the previous copy's last layer after), or a layer before the block.
Copy ``k`` of local layer ``x`` is named ``<name>.<k>.<x>``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from planner.core.layers import LayerSpec
from planner.i18n import QT_TRANSLATE_NOOP, Msg

BLOCK_INPUT = "@input"
MAX_TIMES = 4096


class RepeatError(ValueError):
    """A bad repeated block; the message names the field."""


class Repeat(NamedTuple):
    name: str  # the copies' name prefix ("layers")
    first: int  # index of copy 0's first layer in the expanded draft
    length: int  # layers per copy
    times: int

    def copy_of(self, index: int) -> tuple[int, int] | None:
        """(copy, position in the copy) of an expanded layer index, or None outside."""
        if not self.first <= index < self.first + self.length * self.times:
            return None
        return divmod(index - self.first, self.length)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "first": self.first, "length": self.length,
                "times": self.times}


def _local(name: str, prefix: str) -> str | None:
    return name[len(prefix):] if name.startswith(prefix) else None


def _map_refs(params: dict[str, Any], fn) -> dict[str, Any]:
    out = dict(params)
    if out.get("input"):
        out["input"] = fn(out["input"])
    ref = out.get("from")
    if isinstance(ref, str) and ref:
        out["from"] = fn(ref)
    elif isinstance(ref, (tuple, list)):
        out["from"] = tuple(fn(r) for r in ref)
    return out


def map_refs(params: dict[str, Any], fn) -> dict[str, Any]:
    """``params`` with ``fn`` applied to every layer name it refers to (``input``, ``from``)."""
    return _map_refs(params, fn)


def expand(name: str, times: int, body: list[LayerSpec], before: str) -> list[LayerSpec]:
    """The ``times`` copies of ``body`` (local names), after the layer named ``before``."""
    if not isinstance(times, int) or isinstance(times, bool) or not 1 <= times <= MAX_TIMES:
        raise RepeatError(Msg(QT_TRANSLATE_NOOP(
            "core", "times must be a whole number from 1 to {limit}, not {times!r}"),
            limit=MAX_TIMES, times=times))
    if not body:
        raise RepeatError(Msg(QT_TRANSLATE_NOOP("core", "a repeated block needs layers")))
    local = {layer.name for layer in body}
    out: list[LayerSpec] = []
    prev = before
    for k in range(times):
        prefix = f"{name}.{k}."

        def fn(ref: str, prefix=prefix, prev=prev) -> str:
            if ref == BLOCK_INPUT:
                return prev
            return prefix + ref if ref in local else ref

        copy = [LayerSpec(layer.kind, prefix + layer.name, _map_refs(layer.params, fn))
                for layer in body]
        out += copy
        prev = copy[-1].name
    return out


def lines_up(layers: tuple[LayerSpec, ...], rep: Repeat) -> bool:
    """A quick check that the block's copies are still where the record says: every copy has
    the block's names and kinds in order (what an insertion, removal or move breaks). Whether
    their parameters are alike is checked when the plan is saved (``collapse``)."""
    end = rep.first + rep.length * rep.times
    if rep.first < 1 or end > len(layers):
        return False
    p0 = f"{rep.name}.0."
    n0 = len(p0)
    first = layers[rep.first:rep.first + rep.length]
    if not all(layer.name.startswith(p0) for layer in first):
        return False
    for k in range(1, rep.times):
        prefix = f"{rep.name}.{k}."
        start = rep.first + k * rep.length
        for j, ref in enumerate(first):
            layer = layers[start + j]
            if layer.kind != ref.kind or layer.name != prefix + ref.name[n0:]:
                return False
    return True


def collapse(layers: tuple[LayerSpec, ...], rep: Repeat) -> list[LayerSpec] | None:
    """Copy 0 with local names (``@input`` for the layer before the block), or None when the
    copies are no longer alike (then the draft is saved expanded)."""
    if rep.first < 1 or rep.first + rep.length * rep.times > len(layers):
        return None
    before = layers[rep.first - 1].name
    prefix0 = f"{rep.name}.0."

    def to_local(ref: str) -> str:
        if ref == before:
            return BLOCK_INPUT
        loc = _local(ref, prefix0)
        return loc if loc is not None else ref

    body = []
    for layer in layers[rep.first:rep.first + rep.length]:
        loc = _local(layer.name, prefix0)
        if loc is None:
            return None
        body.append(LayerSpec(layer.kind, loc, _map_refs(layer.params, to_local)))
    again = expand(rep.name, rep.times, body, before)
    if tuple(again) != layers[rep.first:rep.first + rep.length * rep.times]:
        return None
    return body


def apply_to_copies(layers: list[LayerSpec], rep: Repeat, index: int,
                    new: LayerSpec) -> list[LayerSpec] | None:
    """``layers`` with ``new`` at ``index`` and the same change in every other copy, or None
    when the change cannot be made alike (a rename out of the block's naming)."""
    where = rep.copy_of(index)
    if where is None:
        return None
    k0, pos = where
    prefix_k0 = f"{rep.name}.{k0}."
    loc = _local(new.name, prefix_k0)
    if loc is None:
        return None
    before = layers[rep.first - 1].name

    def prev_of(k: int) -> str:
        return before if k == 0 else layers[rep.first + k * rep.length - 1].name

    def to_local(ref: str) -> str:
        if ref == prev_of(k0):
            return BLOCK_INPUT
        r = _local(ref, prefix_k0)
        return r if r is not None else ref

    local_params = _map_refs(new.params, to_local)
    local_names = {(_local(layer.name, prefix_k0) or "")
                   for layer in layers[rep.first + k0 * rep.length:
                                       rep.first + (k0 + 1) * rep.length]} | {loc}
    out = list(layers)
    for k in range(rep.times):
        prefix = f"{rep.name}.{k}."

        def fn(ref: str, prefix=prefix, k=k) -> str:
            if ref == BLOCK_INPUT:
                return prev_of(k)
            return prefix + ref if ref in local_names else ref

        out[rep.first + k * rep.length + pos] = LayerSpec(new.kind, prefix + loc,
                                                          _map_refs(local_params, fn))
    return out


# ---- making a block, changing its count, undoing it (the layer editor's Repeat Layers…) ------
def _in_block(ref: str, rep: Repeat) -> tuple[int, str] | None:
    """(copy, local name) of a reference to a layer of ``rep``'s copies, else None."""
    head = f"{rep.name}."
    if not ref.startswith(head):
        return None
    k, dot, loc = ref[len(head):].partition(".")
    if not dot or not k.isdigit() or int(k) >= rep.times:
        return None
    return int(k), loc


def _rename_after(layers: list[LayerSpec], fn) -> list[LayerSpec]:
    return [LayerSpec(layer.kind, layer.name, _map_refs(layer.params, fn)) for layer in layers]


def _shift(repeats, end: int, delta: int, skip: Repeat | None = None) -> list[Repeat]:
    return [r._replace(first=r.first + delta) if r.first >= end else r
            for r in repeats if r != skip]


def block_name(layers, repeats, base: str = "block") -> str:
    """A name for a new block that no block has and no layer's name starts with."""
    used = {r.name for r in repeats}
    i = 1
    while True:
        name = f"{base}{i}"
        if name not in used and not any(layer.name.startswith(name + ".") or layer.name == name
                                        for layer in layers):
            return name
        i += 1


def repeatable(layers, repeats, start: int, end: int) -> str | None:
    """Why layers ``start``…``end - 1`` cannot become a repeated block, or None when they can."""
    if not 1 <= start < end <= len(layers):
        if start == 0 and end > 0:
            return QT_TRANSLATE_NOOP("core", "the input layer cannot be repeated")
        return QT_TRANSLATE_NOOP("core", "select the layers to repeat")
    if any(layer.kind == "input" for layer in layers[start:end]):
        return QT_TRANSLATE_NOOP("core", "the input layer cannot be repeated")
    for r in repeats:
        if start < r.first + r.length * r.times and r.first < end:
            return QT_TRANSLATE_NOOP("core", "the selection overlaps a repeated block")
    return None


def repeat_range(layers, repeats, start: int, end: int, times: int,
                 name: str) -> tuple[list[LayerSpec], tuple[Repeat, ...]]:
    """Layers ``start``…``end - 1`` made a block of ``times`` copies named ``name``: copy 0
    reads what the first of them read, each later copy the copy before it, and the layers
    after the block that read one of them read the last copy's (all blocks, shifted)."""
    why = repeatable(layers, repeats, start, end)
    if why is not None:
        raise RepeatError(Msg(why))
    layers = list(layers)
    span = layers[start:end]
    before = layers[start - 1].name
    names = {layer.name for layer in span}

    def to_local(ref: str) -> str:
        return BLOCK_INPUT if ref == before else ref

    body = [LayerSpec(layer.kind, layer.name, _map_refs(layer.params, to_local))
            for layer in span]
    copies = expand(name, times, body, before)
    last = f"{name}.{times - 1}."
    after = _rename_after(layers[end:], lambda ref: last + ref if ref in names else ref)
    rep = Repeat(name, start, len(span), times)
    kept = _shift(repeats, end, len(copies) - len(span)) + [rep]
    return layers[:start] + copies + after, tuple(sorted(kept, key=lambda r: r.first))


def set_times(layers, repeats, rep: Repeat,
              times: int) -> tuple[list[LayerSpec], tuple[Repeat, ...]]:
    """The block ``rep`` with ``times`` copies; the layers after it that read one of the
    copies that are gone read the last copy now."""
    layers = list(layers)
    body = collapse(tuple(layers), rep)
    if body is None:
        raise RepeatError(Msg(QT_TRANSLATE_NOOP(
            "core", "the copies of block {name} are no longer alike"), name=rep.name))
    copies = expand(rep.name, times, body, layers[rep.first - 1].name)
    end = rep.first + rep.length * rep.times

    def fn(ref: str) -> str:
        where = _in_block(ref, rep)
        if where is None or where[0] < times:
            return ref
        return f"{rep.name}.{times - 1}.{where[1]}"

    new = rep._replace(times=times)
    kept = [new if r == rep else r for r in _shift(repeats, end, len(copies) - (end - rep.first))]
    return (layers[:rep.first] + copies + _rename_after(layers[end:], fn),
            tuple(sorted(kept, key=lambda r: r.first)))


def unrepeat(layers, repeats, rep: Repeat) -> tuple[list[LayerSpec], tuple[Repeat, ...]]:
    """The block ``rep`` turned back into plain layers, one copy: its layers take their names
    local to the block (or copy 0's names when one of those is taken), and the layers after
    it read them."""
    layers = list(layers)
    body = collapse(tuple(layers), rep)
    if body is None:
        raise RepeatError(Msg(QT_TRANSLATE_NOOP(
            "core", "the copies of block {name} are no longer alike"), name=rep.name))
    end = rep.first + rep.length * rep.times
    before = layers[rep.first - 1].name
    outside = {layer.name for layer in layers[:rep.first] + layers[end:]}
    local = {layer.name for layer in body}
    plain = not (local & outside)

    def named(loc: str) -> str:
        return loc if plain else f"{rep.name}.0.{loc}"

    def inside(ref: str) -> str:
        if ref == BLOCK_INPUT:
            return before
        return named(ref) if ref in local else ref

    one = [LayerSpec(layer.kind, named(layer.name), _map_refs(layer.params, inside))
           for layer in body]

    def fn(ref: str) -> str:
        where = _in_block(ref, rep)
        return ref if where is None else named(where[1])

    kept = _shift(repeats, end, rep.length - (end - rep.first), skip=rep)
    return layers[:rep.first] + one + _rename_after(layers[end:], fn), tuple(kept)
