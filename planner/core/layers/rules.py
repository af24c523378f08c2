"""The rule table: every layer kind's rule, composed from the families (``conv``, ``norm_act``,
``dense``, ``attention``, ``ops``), with the parameters every kind shares (``input``, ``frozen``)
and what the spec and the analysis derive from them."""

from __future__ import annotations

from planner.core.layers import attention, conv, dense, norm_act, ops
from planner.core.layers.schema import LayerRule
from planner.core.layers.schema import param as _p
from planner.i18n import QT_TRANSLATE_NOOP

# The kinds in the layer picker's order (and KINDS'): the classic layers, then those of modern
# networks.
_ORDER = (
    "input",
    "conv2d",
    "conv3d",
    "maxpool",
    "avgpool",
    "adaptive_avgpool",
    "global_avgpool",
    "batchnorm",
    "layernorm",
    "activation",
    "dropout",
    "flatten",
    "fc",
    "add",
    "concat",
    "upsample",
    "lstm",
    "conv_transpose2d",
    "conv_transpose3d",
    "gru",
    "generic",
    "view",
    "matmul",
    "softmax",
    "rmsnorm",
    "embedding",
    "attention",
    "rotary",
    "patch_embed",
    "einsum",
    "where",
    "elementwise",
    "data_input",
)
_BY_KIND = {r.kind: r for family in (ops, conv, norm_act, dense, attention)
            for r in family.LAYER_RULES}
if sorted(_BY_KIND) != sorted(_ORDER) or len(_ORDER) != sum(
        len(family.LAYER_RULES) for family in (ops, conv, norm_act, dense, attention)):
    raise RuntimeError(  # pragma: no cover
        "a layer kind is missing from _ORDER, or listed by two families")

# Kinds that read further layers through 'from'.
MULTI_INPUT_KINDS = frozenset({"concat", "generic", "matmul", "attention", "einsum", "where",
                               "elementwise"})

# Every layer but the input may read an earlier layer instead of the one just before it
# (ResNet's downsample branch, Inception's parallel towers).
INPUT_PARAM = _p(
    "input",
    "ref",
    "",
    QT_TRANSLATE_NOOP(
        "core", "Read this earlier layer's output instead of the previous layer's (branches)."
    ),
    optional=True,
)
# Kinds with learned tensors that fine-tuning may freeze (fc has its own 'frozen': freezing
# it changes what it keeps).
FROZEN_PARAM = _p(
    "frozen",
    "bool",
    False,
    QT_TRANSLATE_NOOP("core", "Frozen weights: no gradient, no optimizer state."),
)
FREEZABLE_KINDS = frozenset({"conv2d", "conv3d", "batchnorm", "layernorm", "rmsnorm", "lstm",
                             "gru", "conv_transpose2d", "conv_transpose3d", "embedding",
                             "patch_embed", "elementwise"})
RULES: dict[str, LayerRule] = {
    kind: (
        rule
        if kind == "input"
        else LayerRule(rule.kind, rule.label,
                       rule.params + ((FROZEN_PARAM,) if kind in FREEZABLE_KINDS else ())
                       + (INPUT_PARAM,), rule.apply, rule.help)
    )
    for kind, rule in ((kind, _BY_KIND[kind]) for kind in _ORDER)
}

KINDS: tuple[str, ...] = tuple(RULES)
# Parameters that name the layers read ('input', 'from'): the analysis resolves them to input
# shapes; no rule reads them.
WIRING_PARAMS: dict[str, frozenset[str]] = {
    kind: frozenset(p.name for p in rule.params if p.type in ("ref", "refs"))
    for kind, rule in RULES.items()
}
# Parameters added for transformers and fine-tuning: left out of a plan file at their default,
# so files of networks that do not use them read as before.
OMIT_AT_DEFAULT = frozenset({"tied", "frozen", "lora_rank", "quant", "positions",
                             "max_positions", "token_types", "rotary_dim", "heads", "kv_heads",
                             "causal", "implementation", "dropout", "repeat_kv", "split",
                             "standardized"})
