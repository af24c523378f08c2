"""Parameter values: parsing and checking what plan files, the layer table and the CLI give
(``parse_ints``, ``coerce_param``), how a value reads (``format_param``), labels and bounds."""

from __future__ import annotations

import math

from planner.core.layers.schema import ParamSpec
from planner.core.layers.shapes import LayerError, shape_str
from planner.i18n import QT_TRANSLATE_NOOP, Msg


# --------------------------------------------------------------------------------------------
# Parameter parsing (plan files, the layer table, the CLI)
# --------------------------------------------------------------------------------------------

MAX_DIM = 1 << 24  # a sanity bound on one dimension (16 M)
MAX_PARAM_INT = MAX_DIM  # the largest whole-number parameter accepted as it is


def parse_ints(text, *, minimum: int = 1, what: str = "value") -> tuple[int, ...]:
    """'3', '3x3', '3×3', '3,3', [3, 3] → (3, 3); an error message names the problem."""
    if isinstance(text, bool):
        raise LayerError(
            Msg(
                QT_TRANSLATE_NOOP("core", "{what} must be a number, not {text!r}"),
                what=what,
                text=text,
            )
        )
    if isinstance(text, (int, float)):
        items = [text]
    elif isinstance(text, (list, tuple)):
        items = list(text)
    elif isinstance(text, str):
        cleaned = text.strip().lower().replace("×", "x").replace("*", "x").replace(",", "x")
        cleaned = cleaned.replace(" ", "x")
        items = [t for t in cleaned.split("x") if t]
        if not items:
            raise LayerError(Msg(QT_TRANSLATE_NOOP("core", "{what} is empty"), what=what))
    else:
        raise LayerError(
            Msg(
                QT_TRANSLATE_NOOP(
                    "core", "{what} must be a number or list of numbers, not {text!r}"
                ),
                what=what,
                text=text,
            )
        )
    out = []
    for item in items:
        if isinstance(item, bool):  # True is not the number 1 in a shape
            raise LayerError(
                Msg(QT_TRANSLATE_NOOP("core", "{what} must be a number, not {text!r}"),
                    what=what, text=item)
            )
        try:
            f = float(item)
        except (TypeError, ValueError):
            raise LayerError(
                Msg(
                    QT_TRANSLATE_NOOP("core", "{what} '{item}' is not a number"),
                    what=what,
                    item=item,
                )
            ) from None
        if not math.isfinite(f) or f != int(f):
            raise LayerError(
                Msg(
                    QT_TRANSLATE_NOOP("core", "{what} '{item}' is not a whole number"),
                    what=what,
                    item=item,
                )
            )
        v = int(f)
        if v < minimum:
            raise LayerError(
                Msg(
                    QT_TRANSLATE_NOOP("core", "{what} {v} is below {minimum}"),
                    what=what,
                    v=v,
                    minimum=minimum,
                )
            )
        if v > MAX_DIM:
            raise LayerError(
                Msg(QT_TRANSLATE_NOOP("core", "{what} {v} is absurdly large"), what=what, v=v)
            )
        out.append(v)
    return tuple(out)


def _already_valid(spec: ParamSpec, value) -> bool:
    """True for a value that is already of the parameter's type and in range (what a plan file
    loads and what the table stores): the common case skips parsing."""
    t = spec.type
    if t == "int" or t == "ints":
        lo = spec.minimum if spec.minimum is not None else (0 if t == "int" else 1)
        if type(value) is int:
            return lo <= value <= MAX_DIM
        return (t == "ints" and type(value) is tuple and len(value) > 1
                and all(type(v) is int and lo <= v <= MAX_DIM for v in value))
    if t == "bool":
        return type(value) is bool
    if t == "choice":
        return type(value) is str and value in spec.choices
    if t == "padding":
        return (value == "valid" or value == "same"
                or (type(value) is int and 0 <= value <= MAX_DIM))
    return False


def coerce_param(spec: ParamSpec, value):
    """Turn a value from JSON or a text field into the parameter's type, or raise LayerError."""
    if _already_valid(spec, value):
        return value
    if value is None or (isinstance(value, str) and not value.strip()):
        return _missing(spec)
    coerce = _COERCE.get(spec.type)
    if coerce is None:
        raise LayerError(
            Msg(QT_TRANSLATE_NOOP("core", "{what}: unknown parameter type {t}"), what=spec.name,
                t=spec.type)
        )  # pragma: no cover
    return coerce(spec, value)


def _missing(spec: ParamSpec):
    """An empty value: None where the parameter is optional, no layers for a list of them."""
    if spec.optional:
        return None
    if spec.type == "refs":
        return ()
    raise LayerError(Msg(QT_TRANSLATE_NOOP("core", "{what} is required"), what=spec.name))


def _coerce_int(spec: ParamSpec, value) -> int:
    what = spec.name
    if isinstance(value, (list, tuple)) and len(value) != 1:
        raise LayerError(Msg(QT_TRANSLATE_NOOP("core", "{what} must be one number"), what=what))
    return parse_ints(value, minimum=int(spec.minimum or 0), what=what)[0]


def _coerce_float(spec: ParamSpec, value) -> float:
    what = spec.name
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise LayerError(
            Msg(
                QT_TRANSLATE_NOOP("core", "{what} '{value}' is not a number"),
                what=what,
                value=value,
            )
        ) from None
    if not math.isfinite(v):
        raise LayerError(Msg(QT_TRANSLATE_NOOP("core", "{what} must be finite"), what=what))
    if spec.minimum is not None and v < spec.minimum:
        raise LayerError(
            Msg(
                QT_TRANSLATE_NOOP("core", "{what} {v} is below {minimum}"),
                what=what,
                v=v,
                minimum=spec.minimum,
            )
        )
    if spec.maximum is not None and v > spec.maximum:
        raise LayerError(
            Msg(
                QT_TRANSLATE_NOOP("core", "{what} {v} is above {maximum}"),
                what=what,
                v=v,
                maximum=spec.maximum,
            )
        )
    return v


_TRUE_WORDS = ("true", "yes", "1", "on")
_FALSE_WORDS = ("false", "no", "0", "off")


def _coerce_bool(spec: ParamSpec, value) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE_WORDS:
        return True
    if isinstance(value, str) and value.strip().lower() in _FALSE_WORDS:
        return False
    raise LayerError(
        Msg(
            QT_TRANSLATE_NOOP("core", "{what} must be true or false, not {value!r}"),
            what=spec.name,
            value=value,
        )
    )


def _coerce_choice(spec: ParamSpec, value) -> str:
    v = str(value).strip().lower()
    if v not in spec.choices:
        raise LayerError(
            Msg(
                QT_TRANSLATE_NOOP("core", "{what} '{value}' is not one of {choices}"),
                what=spec.name,
                value=value,
                choices=", ".join(spec.choices),
            )
        )
    return v


def _coerce_shape(spec: ParamSpec, value) -> tuple[int, ...]:
    return parse_ints(
        value, minimum=int(spec.minimum if spec.minimum is not None else 1), what=spec.name
    )


def _coerce_ints(spec: ParamSpec, value):
    """One number per dimension, or one number for all (kept as that number)."""
    v = _coerce_shape(spec, value)
    return v[0] if len(v) == 1 else v


def _coerce_padding(spec: ParamSpec, value):
    if isinstance(value, str) and value.strip().lower() in ("valid", "same"):
        return value.strip().lower()
    v = parse_ints(value, minimum=0, what=spec.name)
    return v[0] if len(v) == 1 else v


def _coerce_ref(spec: ParamSpec, value) -> str:
    if not isinstance(value, str):
        raise LayerError(Msg(QT_TRANSLATE_NOOP("core", "{what} must name a layer"),
                             what=spec.name))
    return value.strip()


def _coerce_refs(spec: ParamSpec, value) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(r.strip() for r in value.split(",") if r.strip())
    if isinstance(value, (list, tuple)) and all(isinstance(r, str) for r in value):
        return tuple(r.strip() for r in value)
    raise LayerError(Msg(QT_TRANSLATE_NOOP("core", "{what} must list layer names"),
                         what=spec.name))


# How a value that is not already valid becomes each parameter type (see ParamSpec.type).
_COERCE = {
    "int": _coerce_int,
    "float": _coerce_float,
    "bool": _coerce_bool,
    "choice": _coerce_choice,
    "ints": _coerce_ints,
    "shape": _coerce_shape,
    "padding": _coerce_padding,
    "ref": _coerce_ref,
    "refs": _coerce_refs,
}


def format_param(spec: ParamSpec, value) -> str:
    """How a parameter reads in the layer table."""
    if value is None:
        return ""
    if spec.type == "shape":
        return shape_str(tuple(value))
    if isinstance(value, (list, tuple)):
        if spec.type == "refs":
            return ", ".join(value)
        return "×".join(str(v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


# What the window shows beside each parameter's editor (the JSON key with spaces, translated).
PARAM_LABELS: dict[str, str] = {
    "shape": QT_TRANSLATE_NOOP("core", "shape"),
    "filters": QT_TRANSLATE_NOOP("core", "filters"),
    "kernel": QT_TRANSLATE_NOOP("core", "kernel"),
    "stride": QT_TRANSLATE_NOOP("core", "stride"),
    "padding": QT_TRANSLATE_NOOP("core", "padding"),
    "dilation": QT_TRANSLATE_NOOP("core", "dilation"),
    "groups": QT_TRANSLATE_NOOP("core", "groups"),
    "bias": QT_TRANSLATE_NOOP("core", "bias"),
    "input": QT_TRANSLATE_NOOP("core", "input"),
    "ceil_mode": QT_TRANSLATE_NOOP("core", "ceil mode"),
    "output": QT_TRANSLATE_NOOP("core", "output"),
    "function": QT_TRANSLATE_NOOP("core", "function"),
    "inplace": QT_TRANSLATE_NOOP("core", "inplace"),
    "p": QT_TRANSLATE_NOOP("core", "p"),
    "units": QT_TRANSLATE_NOOP("core", "units"),
    "from": QT_TRANSLATE_NOOP("core", "from"),
    "scale": QT_TRANSLATE_NOOP("core", "scale"),
    "mode": QT_TRANSLATE_NOOP("core", "mode"),
    "hidden": QT_TRANSLATE_NOOP("core", "hidden"),
    "layers": QT_TRANSLATE_NOOP("core", "layers"),
    "bidirectional": QT_TRANSLATE_NOOP("core", "bidirectional"),
    "return_sequences": QT_TRANSLATE_NOOP("core", "return sequences"),
    "output_padding": QT_TRANSLATE_NOOP("core", "output padding"),
    "keeps": QT_TRANSLATE_NOOP("core", "keeps"),
    "affine": QT_TRANSLATE_NOOP("core", "affine"),
    "num": QT_TRANSLATE_NOOP("core", "rows"),
    "dim": QT_TRANSLATE_NOOP("core", "features"),
    "op": QT_TRANSLATE_NOOP("core", "operation"),
    "parameters": QT_TRANSLATE_NOOP("core", "parameters"),
    "tied": QT_TRANSLATE_NOOP("core", "tied"),
    "frozen": QT_TRANSLATE_NOOP("core", "frozen"),
    "lora_rank": QT_TRANSLATE_NOOP("core", "LoRA rank"),
    "quant": QT_TRANSLATE_NOOP("core", "quantised"),
    "positions": QT_TRANSLATE_NOOP("core", "positions"),
    "max_positions": QT_TRANSLATE_NOOP("core", "max positions"),
    "token_types": QT_TRANSLATE_NOOP("core", "token types"),
    "rotary_dim": QT_TRANSLATE_NOOP("core", "rotary size"),
    "heads": QT_TRANSLATE_NOOP("core", "heads"),
    "kv_heads": QT_TRANSLATE_NOOP("core", "kv heads"),
    "causal": QT_TRANSLATE_NOOP("core", "causal"),
    "implementation": QT_TRANSLATE_NOOP("core", "implementation"),
    "dropout": QT_TRANSLATE_NOOP("core", "dropout"),
    "repeat_kv": QT_TRANSLATE_NOOP("core", "repeat kv"),
    "patch": QT_TRANSLATE_NOOP("core", "patch"),
    "class_token": QT_TRANSLATE_NOOP("core", "class token"),
    "split": QT_TRANSLATE_NOOP("core", "split"),
    "standardized": QT_TRANSLATE_NOOP("core", "standardised weight"),
}


def param_label(name: str) -> str:
    """The English label of a parameter ("ceil_mode" → "ceil mode")."""
    return PARAM_LABELS.get(name, name.replace("_", " "))
