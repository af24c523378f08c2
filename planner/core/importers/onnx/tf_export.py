"""Files from TensorFlow (tf2onnx, keras2onnx): the batch norms TensorFlow's optimiser folds.

A Keras model is converted from its inference graph, where ``BatchNormalization`` is
``x * scale + shift`` with ``scale = gamma / sqrt(var + eps)`` and ``shift = beta - mean * scale``
(``tf.nn.batch_normalization``: ops ``<layer>/batchnorm/mul``, ``mul_1``, ``sub``, ``add_1``;
``FusedBatchNorm*`` in Keras 2). Grappler, before tf2onnx reads the graph, folds the product into
a convolution right before it (its weight becomes ``…/convolution/merged_input``, the
convolution node keeps the ``…/batchnorm/mul_1`` name, the shift becomes its bias
``…/batchnorm/sub``) and removes additions of all-zero constants (an untrained network's biases
and shifts). Where it cannot fold (a depthwise convolution, a convolution with a bias of its
own) the norm stays as a per-channel ``Mul`` (and ``Add``) named in the norm's scope.

Training has the norms: each is put back as a batch norm layer (2 parameters per channel,
gamma and beta, and what autograd keeps for backward); Keras's moving mean and variance are
buffers, as PyTorch's running statistics are (``model.count_params()`` counts them too).
The names are the only record: nothing else in the file tells a folded norm."""

from __future__ import annotations

import re

from planner.core.layers import numel
from planner.i18n import QT_TRANSLATE_NOOP, Msg

PRODUCERS = ("tf2onnx", "keras2onnx")
# '<scope>/batchnorm/mul_1', '<scope>/FusedBatchNormV3' (the norm's op names)
_BN = re.compile(r"^(.*?)/(?:batchnorm|FusedBatchNorm\w*)(?:/|:|$)")


def is_tensorflow(model) -> bool:
    """A file tf2onnx or keras2onnx wrote (its producer says), or one whose tensor names are
    TensorFlow's ('scope/op:0') where the producer was lost."""
    if (model.producer_name or "").lower() in PRODUCERS:
        return True
    names = [t.name for t in model.graph.initializer[:200]]
    return len(names) >= 4 and sum(1 for n in names if n.endswith(":0")) >= 0.8 * len(names)


def norm_scope(name: str) -> str | None:
    """The Keras layer of a batch norm op named ``name`` ('stage1/bn'), or None."""
    m = _BN.match(name or "")
    return m.group(1).replace("/", ".") if m and m.group(1) else None


def folded_bn(imp, node) -> str | None:
    """The batch norm TensorFlow folded into this convolution (its layer name), or None: the
    node keeps the norm's product name, or its bias is the norm's shift, or its weight is
    grappler's merged product (a norm's scale: Keras writes no other product after a
    convolution) or tf2onnx's fused one."""
    if not imp.tensorflow:
        return None
    scope = norm_scope(node.name)
    if scope is None and len(node.input) > 2:
        scope = norm_scope(node.input[2])
    if scope is None and node.output:
        # tf2onnx's own fold of a FusedBatchNormV3 (Keras 2): the convolution writes the
        # norm's output, its weight and bias are '…_weights_fused_bn', '…_bias_fused_bn'
        scope = norm_scope(node.output[0])
    if scope is None and len(node.input) > 1 and (
            re.search(r"/merged_input(:\d+)?$", node.input[1]) or
            any(i.endswith("_fused_bn") for i in node.input[1:3])):
        conv = node.name.rsplit("/", 1)[0] if "/" in node.name else node.name
        scope = f"{conv.replace('/', '.')}.bn"
    return scope


def _channel_constant(imp, t: str) -> int | None:
    """Elements of a per-channel constant broadcast over axis 1 of an N×C×… activation
    ([1, C, 1, 1], [C, 1, 1]), or None."""
    if not t or t in imp.acts or t not in imp.init_dims:
        return None
    dims = [int(d) for d in imp.init_dims[t]]
    if len(dims) < 2:
        return None
    lead = dims[1:] if len(dims) >= 3 and dims[0] == 1 else dims
    if len(lead) < 2 or any(d != 1 for d in lead[1:]):
        return None
    return lead[0]


def prepass(imp, k: int, node) -> None:
    """A norm's product left as a per-channel Mul (and its shift as the Add after it):
    planned as one batch norm layer (``map_norm``)."""
    if not imp.tensorflow or not node.name.endswith("/mul_1"):
        return
    scope = norm_scope(node.name)
    if scope is None or len(node.input) != 2 or not node.output:
        return
    acts = [i for i in node.input if i in imp.acts]
    consts = [i for i in node.input if i not in imp.acts]
    if len(acts) != 1 or len(consts) != 1:
        return
    units = _channel_constant(imp, consts[0])
    if units is None:
        return
    weights = [consts[0]]
    from planner.core.importers.onnx.patterns import only_consumer  # noqa: PLC0415

    u = only_consumer(imp, node.output[0])
    if u is not None:
        add = imp.nodes[u]
        other = [i for i in add.input if i != node.output[0]]
        if add.op_type == "Add" and norm_scope(add.name) == scope and len(other) == 1 and \
                _channel_constant(imp, other[0]) == units:
            weights.append(other[0])
            imp.fused[u] = {"alias": True}
    imp.fused.setdefault(k, {})["tf_norm"] = (scope, tuple(weights), units)


def map_norm(imp, node, main, acts, facts):
    """The batch norm of ``prepass``: 2 parameters per channel (gamma and beta) whatever the
    file kept of them (the scale alone where the shift was all zeros); keeps its input."""
    scope, weights, units = facts["tf_norm"]
    x = imp.per_sample(main)
    if x is None or len(x) < 2 or x[0] != units:
        from planner.core.importers.onnx.mappers import MAPPERS  # noqa: PLC0415

        return MAPPERS[node.op_type](imp, node, main, acts, {})
    imp.emit("batchnorm", node, {}, main, name=imp.unique(scope), weights=weights)
    imp.shiftless_norms += len(weights) == 1  # its shift was all zeros: removed
    imp.restored_bn += 1
    imp.restored_bn_params += 2 * units - sum(numel(imp.init_dims[w]) for w in weights)
    imp.restored_bn_channels += units
    return None


def missing_biases(imp, said=frozenset()) -> tuple[int, int, int]:
    """Convolutions and fully connected layers planned without a bias of their own: (layers,
    their output units, layers with one). TensorFlow's optimiser removes a bias of all zeros
    (an untrained network's; before a batch norm, too, which it then folds), so the file
    cannot tell a removed bias from none."""
    layers = units = biased = 0
    for k, node in enumerate(imp.nodes):
        if imp.status.get(k) != "mapped" or len(node.input) < 2 or k in said:
            continue
        w = imp.dims_of(node.input[1])
        if not w or node.input[1] in imp.acts:
            continue
        facts = imp.fused.get(k, {})
        if node.op_type in ("Conv", "ConvTranspose") and len(w) >= 3:
            has = len(node.input) > 2 and bool(node.input[2]) and not facts.get("restore_bn")
            group = int(imp.attr(node, "group", 1) or 1)
            n = int(w[0]) if node.op_type == "Conv" else int(w[1]) * group
        elif node.op_type == "MatMul" and len(w) == 2:
            has = bool(facts.get("bias"))
            n = int(w[1])
        elif node.op_type == "Gemm" and len(w) == 2:
            has = len(node.input) > 2 and bool(node.input[2])
            n = int(w[0] if int(imp.attr(node, "transB", 0) or 0) else w[1])
        else:
            continue
        if has:
            biased += 1
        else:
            layers += 1
            units += n
    return layers, units, biased

TF_NORMS = QT_TRANSLATE_NOOP(
    "core", "This file was converted from TensorFlow's inference graph: {n} batch norm(s) "
    "were folded into the convolutions before them or written as a per-channel product, so "
    "their parameters and what they keep for backward are not in the file as norms. Training "
    "has them: the plan puts them back as batch norms with a learned scale and shift "
    "({params} parameters; the moving mean and variance, {buffers} values that Keras's "
    "count_params() also counts, are buffers, not parameters). A norm without a learned "
    "scale or shift (Keras's scale=False or center=False) has {channels} fewer per part it "
    "lacks. Dropout layers the conversion removed are not planned.")
TF_BIASES = QT_TRANSLATE_NOOP(
    "core", "TensorFlow's optimiser removes all-zero tensors before the conversion, and this "
    "file shows it did ({what}: an untrained network), so it cannot tell whether its {n} "
    "convolution or dense layer(s) without a bias had one (Keras's use_bias=True, the "
    "default): the plan assumes not; if they had, it counts up to {units} parameters too "
    "few.")
TF_BIASES_NOTE = QT_TRANSLATE_NOOP(
    "core", "{n} convolution or dense layer(s) have no bias in the file and are planned "
    "without one (TensorFlow's optimiser removes a bias only where it is all zeros, as in an "
    "untrained network; if they had one, {units} parameters more).")
TF_FUSED_BIAS = QT_TRANSLATE_NOOP(
    "core", "tf2onnx folded {n} batch norm(s) into the convolutions before them together with "
    "any bias of their own, so the file cannot tell whether those convolutions had one "
    "(Keras's use_bias=True, the default): the plan assumes not; if they had, it counts up to "
    "{units} parameters too few.")
_SHIFTLESS = QT_TRANSLATE_NOOP("core", "batch norms without a shift")
_NO_BIAS = QT_TRANSLATE_NOOP("core", "no layer with a bias")


def warnings(imp, warnings: list, notes: list) -> None:
    """What a TensorFlow file's folds mean for the plan, with their figures."""
    if imp.restored_bn:
        units = imp.restored_bn_channels
        warnings.insert(0, Msg(TF_NORMS, n=imp.restored_bn, params=f"{2 * units:,}",
                               buffers=f"{2 * units:,}", channels=f"{units:,}"))
    fused = [(k, node) for k, node in enumerate(imp.nodes)
             if imp.fused.get(k, {}).get("restore_bn") and imp.status.get(k) == "mapped"
             and any(i.endswith("_fused_bn") for i in node.input[1:3])]
    if fused:
        n = sum(int((imp.dims_of(node.input[1]) or (0,))[0]) for _k, node in fused)
        warnings.append(Msg(TF_FUSED_BIAS, n=len(fused), units=f"{n:,}"))
    layers, units, biased = missing_biases(imp, {k for k, _node in fused})
    if not layers:
        return
    shiftless = imp.shiftless_norms + sum(
        1 for k, node in enumerate(imp.nodes) if imp.fused.get(k, {}).get("restore_bn")
        and not (len(node.input) > 2 and node.input[2]))
    what = _SHIFTLESS if shiftless else _NO_BIAS if not biased else None
    if what is not None:
        warnings.append(Msg(TF_BIASES, what=Msg(what), n=layers, units=f"{units:,}"))
    else:
        notes.append(Msg(TF_BIASES_NOTE, n=layers, units=f"{units:,}"))
