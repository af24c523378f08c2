"""``LayerSpec``: one layer of a draft (kind, unique name, parameters), immutable and hashable."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import count
from typing import Any, Mapping

from planner.core.layers.rules import MULTI_INPUT_KINDS, OMIT_AT_DEFAULT, RULES, WIRING_PARAMS


@dataclass(frozen=True, eq=False, init=False)
class LayerSpec:
    """One layer of a draft: kind, unique name, parameters (missing ones take defaults).

    Worked out once when it is made, read-only (the analysis, the step's timeline and the speed
    model read them for every layer on every edit): ``source_name``, the layer read as the main
    input when it is not the previous one (None: the previous one; also ``source()``);
    ``ref_names``, the further layers it reads (also ``refs()``); ``value_key``, what its
    result depends on: kind and parameters without the wiring; ``value_id``, a number equal
    for layers of equal ``value_key`` (the analysis's caches key on it: a number hashes at
    once, the nested tuple it stands for at every lookup).
    """

    kind: str
    name: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def __init__(self, kind: str, name: str, params: Mapping[str, Any] | None = None):
        # Written by hand, not the dataclass's: a frozen dataclass sets every field through
        # object.__setattr__, and an import makes one spec per layer (100,000 of them for a
        # 100,000-node graph, where the generated __init__ and its __post_init__ were 15 %
        # of the mapping).
        rule = RULES.get(kind)
        merged = rule.defaults() if rule else {}
        if params:
            merged.update(params)
        d = self.__dict__
        d["kind"] = kind
        d["name"] = name
        d["params"] = merged
        self._derive(_freeze_params(merged))

    def _derive(self, frozen: tuple) -> None:
        kind = self.kind
        key = (kind, self.name, frozen)
        # What the layer computes depends on its kind and parameters, not on its name nor on
        # the names of the layers it reads (the rule sees their shapes): layers alike (a
        # network's repeated blocks, every residual add) share one computed result.
        wiring = WIRING_PARAMS.get(kind)
        value_key = (kind, tuple(p for p in frozen if p[0] not in wiring) if wiring
                     else frozen)
        params = self.params
        d = self.__dict__
        d["_key"] = key
        d["_hash"] = hash(key)
        d["value_key"] = value_key
        d["value_id"] = _value_id(value_key)
        # What it reads, worked out once (the analysis asks for every layer on every edit).
        d["source_name"] = params.get("input") or None
        d["ref_names"] = self._compute_refs()

    def __reduce__(self):
        # Pickled as what it is made of; its hash is worked out again where it is loaded (a
        # str's hash differs from one process to the next: an import runs in a child process).
        return (_restore_spec, (self.kind, self.name, self.params, self._key[2]))

    def __eq__(self, other):
        return self is other or (isinstance(other, LayerSpec) and self._key == other._key)

    def __hash__(self):
        return self._hash

    def get(self, name: str, default=None):
        return self.params.get(name, default)

    def replace(self, *, name: str | None = None, kind: str | None = None, **params) -> "LayerSpec":
        merged = dict(self.params) if kind in (None, self.kind) else {}
        merged.update(params)
        return LayerSpec(kind or self.kind, name if name is not None else self.name, merged)

    def source(self) -> str | None:
        """The layer read as the main input when it is not the previous one."""
        return self.source_name

    def refs(self) -> tuple[str, ...]:
        """Names of earlier layers this one reads besides its main input."""
        return self.ref_names

    def _compute_refs(self) -> tuple[str, ...]:
        if self.kind == "add":
            ref = self.params.get("from")
            return (ref,) if ref else ()
        if self.kind in MULTI_INPUT_KINDS:
            refs = self.params.get("from") or ()
            if isinstance(refs, str):
                refs = tuple(r.strip() for r in refs.split(",") if r.strip())
            return tuple(refs)
        return ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.kind, "name": self.name}
        rule = RULES.get(self.kind)
        for k, v in self.params.items():
            if k == "input" and not v:
                continue  # reads the previous layer, the usual case
            if k in OMIT_AT_DEFAULT and rule is not None:
                spec = rule.param(k)
                if spec is not None and v == spec.default:
                    continue
            out[k] = list(v) if isinstance(v, tuple) else v
        return out


def _restore_spec(kind: str, name: str, params: dict, frozen: tuple) -> LayerSpec:
    """A pickled LayerSpec (its params already merged with the defaults and frozen)."""
    spec = object.__new__(LayerSpec)
    spec.__dict__.update(kind=kind, name=name, params=params)
    spec._derive(frozen)
    return spec


# value_key → its number. Numbers are never reused (a counter), so forgetting the table (it
# is bounded) only makes later layers alike to earlier ones count as different, never the other
# way round.
_VALUE_IDS: dict[tuple, int] = {}
_VALUE_IDS_MAX = 100_000
_NEXT_ID = count()


def _value_id(value_key: tuple) -> int:
    vid = _VALUE_IDS.get(value_key)
    if vid is None:
        if len(_VALUE_IDS) >= _VALUE_IDS_MAX:
            _VALUE_IDS.clear()
        vid = _VALUE_IDS.setdefault(value_key, next(_NEXT_ID))
    return vid


# Values that freeze to themselves: most parameters are, so the recursion is skipped for them
# (a 100,000-layer import made half a million calls).
_ATOMS = frozenset({str, int, float, bool, type(None)})


def _freeze_params(params: dict) -> tuple:
    """``_freeze(params)``: the sorted items, as they are where every value is already
    hashable (numbers, names, tuples of them: nearly every layer's), else frozen one by one."""
    items = tuple(sorted(params.items()))
    try:
        hash(items)
    except TypeError:
        return _freeze(params)
    return items


def _freeze(v):
    if isinstance(v, (list, tuple)):
        return tuple(x if type(x) in _ATOMS else _freeze(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, x if type(x) in _ATOMS else _freeze(x)) for k, x in v.items()))
    return v
