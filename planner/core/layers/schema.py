"""A layer kind's schema: its parameters (``ParamSpec``) and its rule (``LayerRule``: label,
parameters, the function that applies it, help), and parameters several kinds share."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Callable, Mapping

from planner.core.layers.shapes import LayerResult, Shape
from planner.i18n import QT_TRANSLATE_NOOP


# --------------------------------------------------------------------------------------------
# Parameter schema
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ParamSpec:
    name: str
    type: str  # int | float | bool | choice | ints | padding | ref | refs | shape
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    optional: bool = False  # None allowed (meaning "as documented in help")


def param(name, type_, default, help_, **kw) -> ParamSpec:
    return ParamSpec(name, type_, default, help_, **kw)


@dataclass(frozen=True)
class LayerRule:
    kind: str
    label: str
    params: tuple[ParamSpec, ...]
    apply: Callable[[Mapping[str, Any], list[Shape]], LayerResult]
    help: str

    def defaults(self) -> dict[str, Any]:
        """A new dict of the parameters' defaults (a copy of one made once: every LayerSpec
        made asks, 128,000 of them in a 100,000-node ONNX import)."""
        return dict(self._defaults)

    @cached_property
    def _defaults(self) -> dict[str, Any]:  # (cached_property writes __dict__: frozen is fine)
        return {p.name: p.default for p in self.params}

    def param(self, name: str) -> ParamSpec | None:
        for p in self.params:
            if p.name == name:
                return p
        return None


FROM_REFS = param(
    "from",
    "refs",
    (),
    QT_TRANSLATE_NOOP("core", "Further layers it reads (the other operands)."),
)
OUT_SHAPE = param(
    "shape",
    "shape",
    None,
    QT_TRANSLATE_NOOP("core", "Output shape per sample (empty = the input's)."),
    optional=True,
)
