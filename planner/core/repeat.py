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
