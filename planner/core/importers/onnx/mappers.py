"""One function per operator.

A mapper gets (importer, node, main activation, activation inputs, fused facts) and emits layers
(``imp.emit``), folds the node into the layer before it (``imp.alias``) or lists it as not
understood (``imp.placeholder``). What a layer keeps for backward follows the core's rules. The
patterns folded into one layer before the nodes are mapped are in ``patterns``.
"""

from __future__ import annotations

import math
from typing import Any

from planner.core.importers.onnx import contrib, tf_export
from planner.core.importers.onnx.common import FLOAT_TYPES, MAX_CONSTANT_WALK, flat, fx_call
from planner.core.importers.onnx.computed import (
    broadcast_operand,
    gather_indices,
    larger_computed_factor,
)
from planner.core.importers.onnx.convolution import (
    map_conv, map_conv_transpose, norm_padding, one, planned, uneven_pad, view_to)
from planner.core.importers.onnx.patterns import (
    elided_contiguous_query,
    elided_copies,
    elided_input,
    only_consumer,
    restore_bias,
)
from planner.core.importers.onnx.strides import (
    LAYOUT_KEEPING,
    contiguous,
    einsum_pair,
    einsum_terms,
    layout,
    matmul_copies,
)
from planner.core.layers import RULES, LayerSpec, numel, shape_str
from planner.i18n import QT_TRANSLATE_NOOP, Msg


def _pool_params(imp, node, facts, raw: bool = False) -> dict[str, Any] | None:
    kernel = imp.attr(node, "kernel_shape")
    if not kernel:
        return None
    dims = len(kernel)
    strides = imp.attr(node, "strides") or [1] * dims
    auto = imp.attr(node, "auto_pad", b"NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else str(auto)
    pads = [int(v) for v in (imp.attr(node, "pads") or [0] * (2 * dims))]
    extra = facts.get("extra_pads")
    if extra and len(extra) == 2 * dims:
        pads = [a + b for a, b in zip(pads, extra)]
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        total = []
        x = imp.per_sample(node.input[0])
        for k in range(dims):
            size = x[1 + k] if x and len(x) == dims + 1 else kernel[k]
            out = math.ceil(size / strides[k])
            total.append(max((out - 1) * strides[k] + kernel[k] - size, 0))
        pads = [t // 2 for t in total] + [t - t // 2 for t in total]
    params = {"kernel": one(kernel), "stride": one(strides),
              "ceil_mode": bool(imp.attr(node, "ceil_mode", 0))}
    if raw:
        return {**params, "pads": pads}
    padding = norm_padding(pads[:dims], pads[dims:], imp, node, node.op_type)
    return {"kernel": params["kernel"], "stride": params["stride"], "padding": padding,
            "ceil_mode": params["ceil_mode"]}


def _map_pool(kind: str):
    def mapper(imp, node, main, acts, facts):
        x = imp.per_sample(main)
        raw = _pool_params(imp, node, facts, raw=True)
        if raw is not None and x is not None and len(x) == 2 and len(raw["pads"]) == 2:
            return _pool_1d(imp, node, main, x, raw, kind)
        if raw is None or x is None or len(x) not in (3, 4):
            return imp.placeholder(node, main)
        padded = uneven_pad(imp, node, main, x, raw["pads"]) if len(x) == 3 else None
        if padded is not None:  # an F.pad before the pooling, fused into it
            params = {"kernel": raw["kernel"], "stride": raw["stride"],
                      "padding": padded[1], "ceil_mode": raw["ceil_mode"]}
            main = "\0" + padded[0]
        else:
            params = _pool_params(imp, node, facts)
        imp.emit(kind, node, params, main)
    return mapper


def _pool_1d(imp, node, main: str, x, raw: dict, kind: str) -> None:
    """MaxPool1d / AvgPool1d (a 1-D CNN's pooling; Next-ViT's reduction of its keys and
    values over the sequence): a 2-D pooling over a height of 1 between two views, as a 1-D
    convolution is planned (the same bytes kept and made)."""
    begin, end = raw["pads"]
    out = imp.per_sample(node.output[0])
    if begin != end or out is None or len(out) != 2:
        return imp.placeholder(node, main)
    up = planned(imp, imp.emit("view", node, {"shape": (x[0], 1, x[1])}, main, out=[],
                               name=imp.layer_name(node, "as2d")), (x[0], 1, x[1]))
    pool = imp.emit(kind, node, {"kernel": (1, int(raw["kernel"])),
                                 "stride": (1, int(raw["stride"])), "padding": (0, int(begin)),
                                 "ceil_mode": raw["ceil_mode"]}, up, out=[])
    imp.expect.append((pool, (out[0], 1, out[1]), node))
    imp.emit("view", node, {"shape": out}, planned(imp, pool, (out[0], 1, out[1])),
             name=imp.layer_name(node, "as1d"))
    return None


def _followed_by_flatten(imp, tensor: str) -> bool:
    users = imp.consumers.get(tensor, [])
    if not users:
        return True
    for u in users:
        n = imp.nodes[u]
        out = n.output[0] if n.output else ""
        if n.op_type in ("Flatten", "Reshape", "Squeeze") and \
                len(imp.per_sample(out) or ()) == 1:
            continue
        return False
    return True


def _map_global_avgpool(imp, node, main, acts, facts):
    x = imp.per_sample(main)
    if x is None or len(x) not in (2, 3, 4):
        return imp.placeholder(node, main)
    if _followed_by_flatten(imp, node.output[0]):
        # (the layer gives C, not the file's C×1×1: a later reshape back to C×1×1, Keras's
        # squeeze-and-excite as tf2onnx writes it, is a view to plan: Importer.materialise)
        imp.flat_pools.add(imp.emit("global_avgpool", node, {}, main))
        return
    # mean() keeping dims: keeps nothing, C×1×1.
    imp.emit("elementwise", node, {"op": "other", "keeps": "nothing",
                                   "shape": imp.per_sample(node.output[0])}, main)


def _map_global_maxpool(imp, node, main, acts, facts):
    """GlobalMaxPool (AdaptiveMaxPool2d(1): CBAM's channel attention, timm's 'max' and
    'avgmax' global pools): PyTorch's adaptive max pooling keeps its input and the int64
    indices of its C×1×1 output (planned as the output's size: C values a sample)."""
    x = imp.per_sample(main)
    out = imp.per_sample(node.output[0])
    if x is None or out is None or len(x) not in (2, 3, 4):
        return imp.placeholder(node, main)
    imp.emit("elementwise", node, {"op": "other", "keeps": "input_output", "shape": out},
             main)


def _map_reduce(imp, node, main, acts, facts):
    x = imp.per_sample(main)
    out = imp.per_sample(node.output[0])
    if x is None or out is None:
        return imp.placeholder(node, main)
    op = node.op_type
    if op == "ReduceMean":
        axes = imp.attr(node, "axes")
        if axes is None and len(node.input) > 1 and node.input[1]:
            axes = imp.const(node.input[1])
        bax = imp.batch_axis(main)
        if axes is not None and bax is not None and len(x) in (2, 3, 4):
            rank = len(x) + 1
            norm = sorted({int(a) % rank for a in flat(axes)})
            ps = [a - (1 if a > bax else 0) for a in norm if a != bax]
            if bax not in norm and ps == list(range(1, len(x))) and len(out) == 1 and \
                    _followed_by_flatten(imp, node.output[0]):
                imp.flat_pools.add(imp.emit("global_avgpool", node, {}, main))
                return
    keeps = "nothing" if op in ("ReduceMean", "ReduceSum") else "inputs"
    if op in ("ReduceL2", "ReduceLogSumExp", "ReduceSumSquare"):
        # a norm (F.normalize, Swin-V2's cosine attention) and logsumexp keep their input and
        # the (small) result; a sum of squares its input
        keeps = "input"
    ambiguous = False
    if op in ("ReduceMax", "ReduceMin"):
        keeps = "input_output"  # amax / amin (and max() of everything): input and result
        if _max_over_dim(imp, node):
            keeps = "indices"
            # amax / amin over one axis are written the same way, unless the file reads the
            # indices (ArgMax of the same input): the plan takes the larger (importer)
            ambiguous = fx_call(node) is None and not _indices_read(imp, node)
    name = imp.emit("elementwise", node, {"op": "other", "keeps": keeps, "shape": out}, main)
    if ambiguous:
        imp.ambiguous_max.append(name)


def _indices_read(imp, node) -> bool:
    """Whether the file also takes the indices of this max / min (``torch.max(x, dim)`` with
    its indices used: an ArgMax / ArgMin of the same input over the same axis); ``amax`` has
    none, and the exporter drops an ArgMax nobody reads."""
    arg = "ArgMax" if node.op_type == "ReduceMax" else "ArgMin"
    axes = imp.attr(node, "axes")
    if axes is None and len(node.input) > 1 and node.input[1]:
        axes = imp.const(node.input[1])
    for k in imp.consumers.get(node.input[0], ()):
        other = imp.nodes[k]
        if other.op_type == arg and axes is not None and \
                [int(imp.attr(other, "axis", 0))] == [int(a) for a in flat(axes)]:
            return True
    return False


def _max_over_dim(imp, node) -> bool:
    """A max / min that PyTorch ran as ``torch.max(x, dim)`` (``x.max(dim).values``: Hiera's
    pooling over mask units), which keeps int64 indices of the result for backward, not its
    input as ``amax`` does. The default exporter's record says which; without one, a
    reduction over one axis that drops it is taken for ``max(dim)`` (``amax`` keeps its
    input: the legacy exporter writes both as the same ReduceMax)."""
    call = fx_call(node)
    if call is not None:
        return call[0] in ("aten.max.dim", "aten.min.dim")
    if int(imp.attr(node, "keepdims", 1) or 0):
        return False
    axes = imp.attr(node, "axes")
    if axes is None and len(node.input) > 1 and node.input[1]:
        axes = imp.const(node.input[1])
    return axes is not None and len(flat(axes)) == 1


def _map_batchnorm(imp, node, main, acts, facts):
    x = imp.per_sample(main)
    if x is None or len(x) < 1:
        return imp.placeholder(node, main)
    mode = imp.attr(node, "training_mode", None)
    if mode == 0 or (mode is None and len([o for o in node.output if o]) == 1 and
                     imp.opset >= 14):
        imp.eval_bn += 1
    imp.buffers.update(i for i in node.input[3:5] if i)
    imp.emit("batchnorm", node, {}, main, out=[node.output[0]],
             weights=tuple(i for i in node.input[1:3] if i))


def _map_layernorm(imp, node, main, acts, facts):
    x = imp.per_sample(main)
    if x is None:
        return imp.placeholder(node, main)
    axis = int(imp.attr(node, "axis", -1))
    rank = len(x) + 1
    if axis % rank != rank - 1:
        imp.warnings.append(Msg(QT_TRANSLATE_NOOP(
            "core", "LayerNormalization '{node}' normalises from axis {axis}; the plan "
            "normalises the last dimension (parameters and statistics may differ)."),
            node=imp.node_label(node), axis=axis))
        imp.incomplete = True
    # no bias input, or a constant the legacy exporter writes for bias=None (a Constant
    # node's zeros, not an initializer): LayerNorm(bias=False), the scale alone
    b = node.input[2] if len(node.input) > 2 else ""
    bias = bool(b) and (b in imp.init_dims or imp.origin(b) is not None)
    scale = node.input[1] if len(node.input) > 1 else ""
    # a scale the exporter made up (a Constant node's ones, the default exporter's 'val_N')
    # and no learned shift: LayerNorm(elementwise_affine=False), DiT's adaLN norms
    if scale and not imp.is_learned(scale) and not (bias and imp.is_learned(b)):
        imp.emit("layernorm", node, {"affine": False}, main, out=[node.output[0]])
        return
    imp.emit("layernorm", node, {} if bias else {"bias": False}, main, out=[node.output[0]],
             weights=tuple(i for i in node.input[1:3] if i and (bias or i != b)))


def _map_instancenorm(imp, node, main, acts, facts):
    """InstanceNormalization: torch's InstanceNorm, and GroupNorm as both exporters write it
    (a reshape to the groups, InstanceNormalization with constant ones and zeros, a reshape
    back, then the module's weight multiplied and its bias added). Like native_group_norm it
    keeps its input (and per-group statistics, a few values a sample); the affine product
    that follows keeps nothing more (the norm's backward recomputes the normalised tensor)
    and its two tensors are the norm's parameters."""
    weights = tuple(i for i in node.input[1:3] if i and _learned(imp, i))
    learned = sum(_learned(imp, i) for i in weights)
    imp.norm_layers.add(imp.emit("elementwise", node, {"op": "other", "keeps": "input",
                                                       "parameters": learned},
                                 main, weights=weights))
    # GroupNorm's affine: Reshape → Mul(weight) → Add(bias), one value per channel each.
    view = only_consumer(imp, node.output[0])
    if view is None or imp.nodes[view].op_type != "Reshape":
        return
    t = imp.nodes[view].output[0]
    affine = imp.norm_affine
    for op in ("Mul", "Add"):
        u = only_consumer(imp, t)
        if u is None or imp.nodes[u].op_type != op:
            return
        other = [i for i in imp.nodes[u].input if i and i != t]
        if len(other) != 1 or other[0] in imp.acts or not imp.is_weight(other[0]):
            return
        affine.add(u)
        t = imp.nodes[u].output[0]


def _map_rmsnorm(imp, node, main, acts, facts):
    has_scale = len(node.input) > 1 and bool(node.input[1])
    imp.emit("rmsnorm", node, {"affine": has_scale}, main, out=[node.output[0]],
             weights=(node.input[1],) if has_scale else ())


def _map_activation(function: str):
    def mapper(imp, node, main, acts, facts):
        imp.auto_inplace.add(imp.emit("activation", node, {"function": function}, main))
    return mapper


def _map_clip(imp, node, main, acts, facts):
    lo = imp.attr(node, "min")
    hi = imp.attr(node, "max")
    if len(node.input) > 1 and node.input[1]:
        v = imp.const(node.input[1])
        lo = round(float(flat(v)[0]), 6) if v is not None and len(flat(v)) else None
    if len(node.input) > 2 and node.input[2]:
        v = imp.const(node.input[2])
        hi = round(float(flat(v)[0]), 6) if v is not None and len(flat(v)) else None
    function = "relu" if lo == 0 and (hi is None or hi >= 3.0e38) else "relu6"
    imp.auto_inplace.add(imp.emit("activation", node, {"function": function}, main))


def _map_softmax(imp, node, main, acts, facts):
    imp.emit("softmax", node, {}, main)


def _map_prelu(imp, node, main, acts, facts):
    """PReLU: its learned slope (one, or one a channel) is a parameter; PyTorch keeps the
    input (and reads the slope) for both gradients."""
    slope = node.input[1] if len(node.input) > 1 else ""
    # (the slope is PReLU's weight whatever the exporter named it: the default exporter
    # stores its view, (1, C, 1, 1), as a constant of its own, 'val_6')
    origin = imp.origin(slope) if slope else None
    if origin is None and slope:
        # (a one-element slope through a view: the legacy exporter's Unsqueeze of
        # nn.PReLU()'s single weight, MONAI's default activation, which origin() takes for a
        # scalar operand of arithmetic)
        origin = slope = _before_views(imp, slope)
    learned = numel(imp.init_dims[origin]) if origin in imp.init_dims and \
        imp.init_type.get(origin) in FLOAT_TYPES else 0
    imp.emit("elementwise", node, {"op": "other", "keeps": "input", "parameters": learned},
             main, weights=(slope,) if learned else ())


def _map_max_min(imp, node, main, acts, facts):
    """Elementwise Max / Min of two operands (torch.maximum / minimum); ONNX's variadic form
    over more activations is no layer the plan has: a placeholder, said."""
    if sum(1 for i in node.input if i and i in imp.acts) > 2:
        return imp.placeholder(node, main)
    return _map_binary(imp, node, main, acts, facts)


def _map_keeps_input(imp, node, main, acts, facts):
    """abs() and log() keep their input (the gradient is the input's sign, or 1 / input)."""
    imp.emit("elementwise", node, {"op": "other", "keeps": "input"}, main)


def dropout_ratio(imp, node) -> float:
    """A Dropout node's probability (its attribute, or its constant ratio input; 0.5, ONNX's
    default, where neither says)."""
    ratio = imp.attr(node, "ratio")
    if ratio is None and len(node.input) > 1 and node.input[1]:
        v = imp.const(node.input[1])
        ratio = float(flat(v)[0]) if v is not None and len(flat(v)) else None
    p = 0.5 if ratio is None else round(float(ratio), 6)
    return p if 0.0 <= p < 1.0 else 0.5


def _map_dropout(imp, node, main, acts, facts):
    p = dropout_ratio(imp, node)
    if p == 0.0:  # PyTorch returns the input itself: no mask, no new tensor
        imp.alias(node, main)
        return
    imp.emit("dropout", node, {"p": p}, main, out=[node.output[0]])


def _map_gemm(imp, node, main, acts, facts):
    b = imp.dims_of(node.input[1]) if len(node.input) > 1 else None
    if node.input[1] in imp.acts:
        return _map_matmul(imp, node, main, acts, facts)
    if b is None or len(b) != 2:
        return imp.placeholder(node, main)
    trans_b = int(imp.attr(node, "transB", 0))
    if int(imp.attr(node, "transA", 0)):
        imp.warnings.append(Msg(QT_TRANSLATE_NOOP(
            "core", "Gemm '{node}' transposes its input (transA); the plan reads it "
            "untransposed."), node=imp.node_label(node)))
    units = int(b[0] if trans_b else b[1])
    bias_t = node.input[2] if len(node.input) > 2 and node.input[2] else facts.get("bias")
    restored = not bias_t and restore_bias(imp, node, units)
    imp.emit("fc", node, {"units": units, "bias": bool(bias_t) or restored}, main,
             weights=(node.input[1],) + ((bias_t,) if bias_t else ()))


def _map_matmul(imp, node, main, acts, facts):
    if len(node.input) < 2:
        return imp.placeholder(node, main)
    a, b = node.input[0], node.input[1]
    if a in imp.acts and b in imp.acts:
        if a not in imp.tensor_layer or b not in imp.tensor_layer:
            return imp.placeholder(node, main)
        copies = matmul_copies(imp, a, b)
        if copies is None:
            # torch.matmul reshapes its operands to 3-D; a slice of a larger tensor (q, k, v
            # selected from one projection) cannot be viewed so and is copied: the copy is
            # kept.
            a, b = (_contiguous(imp, node, t, k) for k, t in enumerate((a, b)))
        else:
            # The batched path, from the operands' strides: each expanded to the broadcast
            # batch and reshaped to 3-D; one that cannot be so viewed (a broadcast axis, heads
            # transposed before the merge: LambdaNet's position lambdas) is copied, and bmm
            # keeps the copy, as large as the expanded operand.
            sa, sb = imp.per_sample(a), imp.per_sample(b)
            lead = _broadcast_lead(sa, sb)
            a, b = (_copy_of(imp, node, t, k, _expanded(imp, t, lead)) if copied else t
                    for k, (t, copied) in enumerate(zip((a, b), copies)))
        imp.emit("matmul", node, {"from": (imp.tensor_layer[b],)}, a)
        return
    w = imp.dims_of(b)
    if a == main and w is not None and len(w) == 2 and imp.is_weight(b):
        bias = facts.get("bias")
        restored = not bias and restore_bias(imp, node, int(w[1]))
        if _last_axis_moved(imp, main):
            main = _copy_of(imp, node, main, 0)
        parts = _learned_bias_parts(imp, bias) if bias else None
        if parts is not None:
            # a bias joined from learned vectors and constants (BEiT's q_bias | zeros |
            # v_bias): the product, then the add of the learned parts, which are all the
            # parameters it has
            product = f"\0unbiased:{node.output[0]}"
            name = imp.emit("fc", node, {"units": int(w[1]), "bias": False}, main, out=[],
                            weights=(b,))
            imp.tensor_layer[product] = name
            imp.layer_out[name] = imp.per_sample(node.output[0])
            imp.acts.add(product)
            imp.set_per_sample(product, imp.per_sample(node.output[0]))
            imp.emit("elementwise", node, {"op": "add", "keeps": "nothing",
                                           "parameters": sum(_learned(imp, t) for t in parts)},
                     product, name=imp.layer_name(node, "bias"), weights=tuple(parts))
            return
        imp.emit("fc", node, {"units": int(w[1]), "bias": bool(bias) or restored}, main,
                 weights=(b,) + ((bias,) if bias else ()))
        return
    if a == main and w is not None and broadcast_operand(imp, node, a, b, w):
        return
    if w is not None and imp.is_weight(b) and a == main:
        # x @ W with a batched weight: parameters of W, keeps the input.
        imp.emit("elementwise", node, {"op": "other", "keeps": "input",
                                       "parameters": numel(w),
                                       "shape": imp.per_sample(node.output[0])}, main,
                 weights=(b,))
        return
    return imp.placeholder(node, main)


def _learned_bias_parts(imp, bias: str) -> tuple[str, ...] | None:
    """The learned vectors a bias is joined from by a Concat with constants (a frozen zero
    part: BEiT's and Data2Vec's q_bias | k_bias zeros | v_bias), or None where the bias is
    one learned tensor (or all of it is learned)."""
    t = bias
    for _ in range(4):
        p = imp.producer.get(t)
        if p is None:
            return None
        n = imp.nodes[p]
        if n.op_type == "Concat":
            break
        if n.op_type not in ("Identity", "Cast") or not n.input:
            return None
        t = n.input[0]
    else:
        return None
    ins = [i for i in n.input if i]
    learned = tuple(i for i in ins if imp.is_learned(i) and imp.origin(i) in imp.init_dims)
    total = numel(imp.dims_of(bias) or ())
    if not learned or len(learned) == len(ins) or \
            sum(_learned(imp, i) for i in learned) >= total:
        return None
    return learned


def _sliced(imp, tensor: str) -> bool:
    """Whether ``tensor`` is a view of part of a larger activation (through reshapes)."""
    for _ in range(8):
        p = imp.producer.get(tensor)
        if p is None:
            return False
        n = imp.nodes[p]
        if n.op_type in ("Slice", "Split") or (
                n.op_type == "Gather" and not imp.dims_of(n.input[1]) and n.input[0] in imp.acts):
            return True
        if n.op_type not in ("Transpose", "Reshape", "Squeeze", "Unsqueeze", "Identity"):
            return False
        tensor = n.input[0]
    return False


def _contiguous(imp, node, tensor: str, k: int) -> str:
    # A batched (4-D or more) operand is reshaped to 3-D by torch.matmul, which copies a
    # slice. A 3-D one (torch.bmm: the batch merged with the heads) is read as it is, a view
    # of the projection that keeps its whole storage (nn.MultiheadAttention's math path),
    # unless the merge itself copied it: a reshape of transposed heads (BLOOM's q).
    if not (_sliced(imp, tensor) or _permuted_result(imp, tensor)) or \
            len(imp.per_sample(tensor) or ()) < 3 or \
            len(imp.full_shape(tensor) or ()) < 4 and not _merged_after_transpose(imp, tensor):
        return tensor
    return _copy_of(imp, node, tensor, k)


def _permuted_result(imp, tensor: str) -> bool:
    """``tensor`` is computed element-wise (with constants or parameters: a bias added, a
    scale divided) from heads permuted out of the token order (x.view(B, T, H, d).permute(0,
    2, 1, 3)): PyTorch's element-wise ops keep their input's memory order, so the result is
    still permuted, and every torch.matmul of it copies it to merge batch and heads (DeBERTa's
    q + q_bias, scaled, read by the scores' product and by the content-to-position one: two
    copies kept)."""
    passed = False
    for _ in range(8):
        p = imp.producer.get(tensor)
        if p is None:
            return False
        n = imp.nodes[p]
        acts = [i for i in n.input if i in imp.acts]
        if n.op_type in LAYOUT_KEEPING and len(acts) == 1:
            passed = True
            tensor = acts[0]
            continue
        if n.op_type == "Transpose":
            perm = list(imp.attr(n, "perm", []) or [])
            return passed and len(perm) >= 4 and perm[:-2] != list(range(len(perm) - 2))
        if n.op_type not in ("Slice", "Split", "Squeeze", "Unsqueeze", "Identity"):
            return False
        tensor = n.input[0]
    return False


def _merged_after_transpose(imp, tensor: str) -> bool:
    """``tensor`` is a reshape to fewer axes of a transpose (back to its slice): a reshape
    PyTorch cannot make as a view, so it copies."""
    merged = False
    for _ in range(8):
        p = imp.producer.get(tensor)
        if p is None:
            return False
        n = imp.nodes[p]
        if n.op_type == "Reshape":
            before, after = imp.full_shape(n.input[0]), imp.full_shape(n.output[0])
            merged = merged or (before is not None and after is not None and
                                len(after) < len(before))
        elif n.op_type == "Transpose" and merged:
            return True
        elif n.op_type not in ("Squeeze", "Unsqueeze", "Identity", "Transpose"):
            return False
        tensor = n.input[0]
    return False


def _last_axis_moved(imp, tensor: str) -> bool:
    """Whether ``tensor`` is a transpose that moves the last axis (x.permute(0, 2, 3, 1),
    x.transpose(1, 2) of a 3-D tensor): a linear layer's matmul cannot fold it to 2-D as a
    view and copies it, keeping the copy (CaiT's talking-heads projections over the heads
    of the attention scores and probabilities, which the scores' softmax also keeps)."""
    p = imp.producer.get(tensor)
    if p is None or imp.nodes[p].op_type != "Transpose":
        return False
    perm = list(imp.attr(imp.nodes[p], "perm", []) or [])
    # (or keeps it but reorders the axes before it, x.transpose(0, 1) of B×T×C: F.linear
    # flattens them to one with a reshape, a copy, and keeps it: WavLM's q, k and v
    # projections of hidden_states.transpose(0, 1), in F.multi_head_attention_forward, each
    # make their own)
    return len(perm) >= 3 and (perm[-1] != len(perm) - 1 or perm[:-1] != sorted(perm[:-1]))


def _copy_of(imp, node, tensor: str, k: int, shape: tuple[int, ...] | None = None) -> str:
    """A copy of activation ``tensor`` that ``node``'s layer reads (and keeps); ``shape``: its
    per-sample shape where the copy is expanded (broadcast) beyond ``tensor``'s."""
    copy = f"\0copy{k}:{node.output[0]}"
    params: dict[str, Any] = {"op": "other", "keeps": "nothing"}
    same = shape is None or shape == imp.per_sample(tensor)
    if not same:
        params["shape"] = shape
    imp.tensor_layer[copy] = imp.emit(
        "elementwise", node, params, tensor, out=[],
        name=imp.layer_name(node, f"contiguous{k}"))
    imp.layer_out[imp.tensor_layer[copy]] = imp.layer_out.get(imp.tensor_layer[tensor]) \
        if same else shape
    imp.acts.add(copy)
    imp.set_per_sample(copy, imp.per_sample(tensor) if same else shape)
    return copy


def _broadcast_lead(sa, sb) -> tuple[int, ...] | None:
    """The broadcast of two per-sample operands' leading (batch-like) axes, or None."""
    if sa is None or sb is None or len(sa) < 2 or len(sb) < 2:
        return None
    a, b = sa[:-2], sb[:-2]
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    if any(x != y and 1 not in (x, y) for x, y in zip(a, b)):
        return None
    return tuple(max(x, y) for x, y in zip(a, b))


def _expanded(imp, tensor: str, lead) -> tuple[int, ...] | None:
    """``tensor``'s per-sample shape expanded to the leading axes ``lead`` (None: as it is)."""
    s = imp.per_sample(tensor)
    if s is None or lead is None or len(s) < 2:
        return None
    return tuple(lead) + tuple(s[-2:])


def _learned(imp, name: str) -> int:
    """Elements of a learned tensor (a weight initializer), 0 for constants."""
    return numel(imp.init_dims[imp.origin(name)]) if imp.is_learned(name) else 0


def _map_binary(imp, node, main, acts, facts):
    op = node.op_type
    if facts.get("silu"):  # x · sigmoid(x), or x · hardsigmoid(x) (``function``)
        function = facts.get("function", "silu")
        name = imp.layer_name(node, function) if imp.module_scope(node) else None
        imp.auto_inplace.add(imp.emit("activation", node, {"function": function},
                                      facts["silu"], name=name))
        return
    ins = [i for i in node.input if i]
    act_ins = [i for i in ins if i in imp.acts]
    out = imp.per_sample(node.output[0])
    if len(act_ins) >= 2:
        a, b = act_ins[0], act_ins[1]
        sa, sb = imp.per_sample(a), imp.per_sample(b)
        if sa == sb == out and op == "Add" and a != b:
            la, lb = imp.tensor_layer[a], imp.tensor_layer[b]
            if la != lb:
                main_t, other = (a, lb) if imp.layer_index(la) >= imp.layer_index(lb) \
                    else (b, la)
                imp.emit("add", node, {"from": other}, main_t)
                return
        keeps = {"Add": "nothing", "Sub": "nothing", "Mul": "inputs", "Div": "inputs",
                 "Pow": "inputs"}.get(op, "inputs")
        big = a if numel(sa or ()) >= numel(sb or ()) else b
        small = b if big == a else a
        if op in ("Mul", "Div"):
            # A factor or divisor without a gradient (computed from token ids: ESM's token-
            # dropout ratio) is all the product keeps: the other operand's gradient needs it
            # alone (a divisor's own gradient would need the dividend).
            free = [t for t in (a, b) if imp.no_gradient(t)]
            if len(free) == 2:
                keeps = "nothing"
            elif free and (op == "Mul" or free[0] == node.input[1]):
                keeps = "input"
                big, small = free[0], b if free[0] == a else a
        params: dict[str, Any] = {"op": op.lower() if op.lower() in (
            "add", "sub", "mul", "div", "pow") else "other", "keeps": keeps,
            "from": (imp.tensor_layer[small],)}
        if out is not None and out != imp.per_sample(big):
            params["shape"] = out
        imp.emit("elementwise", node, params, big)
        return
    # One activation and a constant or a learned tensor.
    other = next((i for i in ins if i not in imp.acts), None)
    if imp.current in imp.norm_affine:
        # A group norm's weight or bias (see _map_instancenorm): its parameters, nothing kept;
        # GroupNorm(affine=False) as the default exporter writes it multiplies by ones and
        # adds zeros of its own ('val_44'): no parameters.
        o = imp.origin(other) or other
        call = fx_call(node)
        learned = not (call is not None and call[0] == "aten.group_norm.default" and
                       len(call[1]) > 3 and call[1][2 if op == "Mul" else 3] == "None")
        imp.norm_layers.add(imp.emit(
            "elementwise", node, {"op": op.lower(), "keeps": "nothing",
                                  "parameters": numel(imp.init_dims[o]) if learned else 0},
            main, weights=(o,) if learned else ()))
        return
    learned = _learned(imp, other) if other else 0
    weights: tuple[str, ...] = (other,) if learned else ()
    if learned and other not in imp.init_dims:
        # (a learned table read through a constant index)
        gather_indices(imp, other, "bias_lookup_indices")
    counted = False
    if other and not learned:
        # A tensor computed from parameters in the graph (Swin-V2's position-bias MLP and
        # logit scale, a bias with a zeroed part): those parameters are this layer's.
        weights = _parameters_behind(imp, other)
        learned = sum(numel(imp.init_dims[w]) for w in weights)
        counted = not weights and imp.behind_counted
    x = imp.per_sample(main)
    # (and, from the legacy exporter's constant folding, a per-channel bias reshaped: ConvNeXt-
    # V2's GRN bias, 'onnx::Add_N')
    if (op in ("Mul", "Div") or op == "Add" and not imp.dynamo_names) and not learned and \
            imp.from_folded_parameter(node, other):
        # A factor folded out of a parameter (Swin-V2's exp(clamp(logit_scale)), ConvNeXt's
        # layer scale reshaped) is still learned in training: the product keeps its
        # activation for that gradient, and the factor counts as the parameter (an
        # element-wise function or reshape of it: as many values).
        o = imp.origin(other) or other
        learned = numel(imp.init_dims[o])
        weights = (o,)
    if not learned and other and op in ("Mul", "Div", "Add", "Sub"):
        # a one-element parameter (StarReLU's learned scale and bias): its gradient needs
        # the activation a product reads
        scalar = imp.scalar_parameter(other)
        if scalar is not None:
            learned, weights = 1, (scalar,)
    if op in ("Mul", "Div"):
        # (a factor made from parameters counted at an earlier layer is learned too: the
        # product keeps its activation for their gradient)
        keeps = "input" if learned or counted else "nothing"
    elif op in ("Pow", "Max", "Min"):  # (torch.maximum / minimum keep both operands)
        keeps = "input"
    else:
        keeps = "nothing"
    params = {"op": op.lower() if op.lower() in ("add", "sub", "mul", "div", "pow") else
              "other", "keeps": keeps, "parameters": learned}
    if out is not None and out != x:
        params["shape"] = out
    copy = larger_computed_factor(imp, node, op, other, main, x, out) if learned else None
    if copy is not None:
        params.update(keeps="inputs", shape=out, **{"from": (copy,)})
    imp.emit("elementwise", node, params, main, weights=weights)


_BROADCASTING = {"Add", "Sub", "Mul", "Div", "Pow", "Where", "Max", "Min", "Equal", "Less",
                 "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or"}
_PASS_THROUGH = ("Identity", "Cast", "Reshape", "Unsqueeze", "Squeeze", "Transpose", "Flatten")


def _parameters_behind(imp, tensor: str) -> tuple[str, ...]:
    """Learned initializers a constant (activation-free) subgraph computes ``tensor`` from,
    not yet claimed by another layer; the data operand of a product (a coordinate table) is
    not a parameter."""
    walked = imp.__dict__.setdefault("behind_walked", set())  # nodes already accounted
    # nodes of walks that found parameters: a later walk reaching one computes its tensor
    # from parameters counted before (the same sigmoid(alpha) read through four selects:
    # EfficientViM's layer scales); ``imp.behind_counted`` says so for the last walk
    from_learned = imp.__dict__.setdefault("behind_learned", set())
    imp.behind_counted = False
    this_walk: list[int] = []
    found: list[str] = []
    kept: dict[str, int] = {}  # what autograd keeps in that subgraph: tensor -> elements
    masks: dict[str, int] = {}  # dropout masks kept there (one byte each): tensor -> elements
    data: set[str] = set()  # tensors a product reads as its data, not as its weight
    stack, seen = [tensor], set()
    while stack and len(seen) < MAX_CONSTANT_WALK:
        t = stack.pop()
        if t in seen or t in imp.acts:
            continue
        seen.add(t)
        p = imp.producer.get(t)
        if p is None or p in walked:
            if p is not None and p in from_learned:
                imp.behind_counted = True
            continue
        walked.add(p)
        this_walk.append(p)
        node = imp.nodes[p]
        passes = t in data and node.op_type in _PASS_THROUGH
        if node.op_type == "Gather" and len(node.input) > 1 and node.input[1] and \
                node.input[0] in imp.init_dims and imp.is_learned(node.input[0]):
            # a learned table gathered by a constant index (TinyViT's and LeViT's
            # attention_biases[:, attention_bias_idxs]): autograd keeps the int64 index once
            # for the table's gradient, which no layer plans (said with LOOKUP_INDICES)
            dims = imp.dims_of(node.input[1])
            counted = imp.__dict__.setdefault("counted_lookups", set())
            if dims is not None and p not in counted and (
                    imp.is_integer(node.input[1]) or imp.init_type.get(node.input[1]) in (6, 7)):
                counted.add(p)
                imp.bias_lookup_indices += numel(dims)
        for k, i in enumerate(node.input):
            if not i or i in imp.acts:
                continue
            product = node.op_type in ("MatMul", "Gemm", "Conv")
            if k == 0 and product or passes and k == 0:
                data.add(i)
            if i in imp.init_dims:
                if i in data:
                    imp.buffers.add(i)
                elif i not in found and (imp.is_learned(i) or product and imp.is_weight(i)):
                    # (a product's weight the legacy exporter renamed 'onnx::MatMul_N')
                    found.append(i)
            else:
                stack.append(i)
        # a learned product over a constant table (a position-bias MLP over relative
        # coordinates: Swin-V2's, timm's SwinV2-CR) keeps its data operand, an activation
        # between its layers its output: once, at every batch
        if node.op_type in ("MatMul", "Gemm") and len(node.input) > 1 and \
                not imp.is_learned(node.input[0]) and any(
                    i in imp.init_dims and imp.is_weight(i) for i in node.input[1:]):
            kept[_before_views(imp, node.input[0])] = numel(imp.full_shape(node.input[0]) or ())
        elif node.op_type in _KEEPS_OUTPUT and node.output and node.output[0]:
            kept[node.output[0]] = numel(imp.full_shape(node.output[0]) or ())
        elif node.op_type == "Dropout" and node.output and node.output[0] and \
                dropout_ratio(imp, node) > 0:
            # (a dropout between the MLP's layers, SwinV2-CR's meta_mlp.drop1: a new tensor,
            # which the next layer keeps, and a one-byte mask)
            masks[node.output[0]] = numel(imp.full_shape(node.output[0]) or ())
        elif node.op_type in _KEEPS_INPUT and node.input and node.input[0]:
            kept[_before_views(imp, node.input[0])] = numel(imp.full_shape(node.input[0]) or ())
    if found and (kept or masks):
        imp.__dict__.setdefault("constant_kept", {}).update(kept)
        imp.__dict__.setdefault("constant_masks", {}).update(masks)
    if found:
        from_learned.update(this_walk)
    return tuple(found)


_KEEPS_OUTPUT = {"Relu", "Sigmoid", "Tanh", "Exp"}
_VIEWS = {"Dropout", "Identity", "Cast", "Reshape", "Flatten", "Unsqueeze", "Squeeze"}


def _before_views(imp, tensor: str) -> str:
    """The tensor a chain of views (or a dropout of 0) was made from: one storage with it."""
    for _hop in range(8):
        q = imp.producer.get(tensor)
        if q is None or imp.nodes[q].op_type not in _VIEWS or not imp.nodes[q].input or \
                imp.nodes[q].op_type == "Dropout" and dropout_ratio(imp, imp.nodes[q]) > 0:
            break
        tensor = imp.nodes[q].input[0]
    return tensor
_KEEPS_INPUT = {"Gelu", "Erf", "Erfc", "LeakyRelu", "Elu", "Softplus"}


def _map_region(imp, node, main, acts, facts):
    kind = facts["region"]
    root = facts["root"]
    weights = facts.get("weights", ())
    name = imp.layer_name(node, kind) if imp.module_scope(node) else None
    if kind == "gelu":
        imp.emit("activation", node, {"function": "gelu"}, root, name=name)
    elif kind == "layernorm":
        eager = bool(facts.get("written_out"))
        if eager:
            imp.eager_layernorms.append(imp.per_sample(root))
        # (a scale alone: Cohere's and OLMo's LayerNorm without a bias; neither: a norm
        # without affine parameters)
        params = {"implementation": "eager"} if eager else {}
        if len(weights) == 1:
            params["bias"] = False
        elif not weights:
            params["affine"] = False
        imp.emit("layernorm", node, params, root, name=name, weights=weights)
        if len(weights) > 2:
            imp.notes.append(Msg(QT_TRANSLATE_NOOP(
                "core", "A layer norm written out as operators ('{node}') has {n} learned "
                "tensor(s); the plan counts a scale and a bias."), node=imp.node_label(node),
                n=len(weights)))
    elif weights and facts.get("written_out"):
        # x · rsqrt(mean(x²) + eps), then · weight: the product with the weight keeps the
        # normalised tensor (its own storage), besides what the norm keeps.
        norm = imp.emit("rmsnorm", node, {"affine": False}, root, out=[],
                        name=imp.layer_name(node, "rmsnorm") if imp.module_scope(node) else None)
        imp.tensor_layer["\0" + norm] = norm
        imp.layer_out[norm] = imp.per_sample(root)
        learned = sum(_learned(imp, w) or _folded_factor(imp, node, w) for w in weights)
        imp.emit("elementwise", node, {"op": "mul", "keeps": "input", "parameters": learned},
                 "\0" + norm, name=imp.layer_name(node, "scale") if imp.module_scope(node)
                 else None, weights=weights)
    else:
        imp.emit("rmsnorm", node, {"affine": bool(weights)}, root, name=name, weights=weights)
    imp.fused_patterns[kind] = imp.fused_patterns.get(kind, 0) + 1


def _folded_factor(imp, node, w: str) -> int:
    """Elements of a norm's scale the exporter folded out of its parameter (Gemma's
    x·(1 + weight): the constant 1 + weight), counted as that parameter; 0 otherwise."""
    if not imp.from_folded_parameter(node, w):
        return 0
    return numel(imp.init_dims[imp.origin(w) or w])


def _map_attention_fused(imp, node, main, acts, facts):
    q, kt, v = facts["attention"]
    for t in (q, kt, v):
        if t not in imp.tensor_layer:
            return imp.placeholder(node, main)
    bias = facts.get("bias")
    table = _parameters_behind(imp, bias) if bias else ()
    if table:
        # the scores' bias computed from parameters alone (T5's relative-position table,
        # looked up by constant buckets): its parameters, beside the attention (a side layer
        # that keeps nothing per sample)
        imp.emit("elementwise", node, {"op": "other", "keeps": "nothing", "shape": (1,),
                                       "parameters": sum(numel(imp.init_dims[w])
                                                         for w in table)},
                 q, out=[], weights=table,
            name=imp.layer_name(node, "score_bias"))
    mask = facts.get("mask")
    if mask:
        # the float mask scaled_dot_product_attention made from a boolean one for this call,
        # which the memory-efficient kernel keeps (``patterns._converted_mask``)
        imp.emit("elementwise", node, {"op": "other", "keeps": "output", "shape": mask}, q,
                 out=[], name=imp.layer_name(node, "attention_mask"))
    qs, ks, vs = imp.per_sample(q), imp.per_sample(kt), imp.per_sample(v)
    k_layer = imp.tensor_layer[kt]
    if qs is not None and ks is not None and vs is not None and len(qs) >= 2 and \
            (len(ks) != len(qs) or len(vs) != len(qs)):
        # k or v reached through reshapes that merge the batch with the heads (a key/value
        # repeat for grouped heads): plan them in q's layout (views, the same elements).
        lead, d = numel(qs[:-2]), qs[-1]
        tk = numel(ks) // (lead * d) if numel(ks) % (lead * d) == 0 else 0
        dv = numel(vs) // (lead * tk) if tk and numel(vs) % (lead * tk) == 0 else 0
        if not dv:
            return imp.placeholder(node, main)
        ks, vs = _as_view(imp, kt, qs[:-2] + (tk, d)), qs[:-2] + (tk, dv)
        k_layer = ks
        v_layer = _as_view(imp, v, vs)
        ks = imp.layer_out[ks]
        params: dict[str, Any] = {}
        grouped = _grouped_kv(imp, kt, v, qs, tk, d, dv)
        if grouped is not None:
            k_layer, v_layer = grouped
            params["repeat_kv"] = False
        attn = imp.emit("attention", node, {"from": (k_layer, v_layer), **params}, q,
                        name=imp.layer_name(node, "attention") if imp.module_scope(node)
                        else None)
        imp.fused_patterns["attention"] = imp.fused_patterns.get("attention", 0) + 1
        _head_major_output(imp, node, q, attn)
        return None
    grouped = _grouped_kv(imp, kt, v, qs, vs[-2], qs[-1], vs[-1]) \
        if qs is not None and vs is not None and len(qs) >= 3 and len(vs) == len(qs) else None
    if grouped is not None:
        attn = imp.emit("attention", node, {"from": grouped, "repeat_kv": False}, q,
                        name=imp.layer_name(node, "attention") if imp.module_scope(node)
                        else None)
        imp.fused_patterns["attention"] = imp.fused_patterns.get("attention", 0) + 1
        _head_major_output(imp, node, q, attn)
        return None
    if qs is not None and ks is not None and len(ks) >= 2 and ks[-2] == qs[-1] and \
            (ks[-1] != qs[-1] or ks[-2] != ks[-1]):
        # kᵀ in the file: plan k itself (a view), as attention reads it.
        name = imp.unique(f"{k_layer}.t")
        src = imp.tensor_layer[kt]
        imp.layers.append(LayerSpec("view", name, {"shape": ks[:-2] + (ks[-1], ks[-2]),
                                                   "input": src}))
        imp.layer_out[name] = ks[:-2] + (ks[-1], ks[-2])
        k_layer = name
    v_layer = imp.tensor_layer[v]
    k_copy, v_copy = facts.get("copied", (False, False))
    if k_copy:
        k_layer = _copy_layer(imp, k_layer)
    if v_copy:
        v_layer = _copy_layer(imp, v_layer)
    params = {"from": (k_layer, v_layer)}
    if qs is not None and ks is not None and vs is not None and len(ks) == len(qs) >= 3 and \
            ks[-3] < qs[-3] and vs[-3] == ks[-3]:
        # Fewer key/value heads than query heads where attention reads them (Falcon's
        # multi-query attention, broadcast by scaled_dot_product_attention): no repeated
        # copies in the file, none in training.
        params["repeat_kv"] = False
    attn = imp.emit("attention", node, params, q,
                    name=imp.layer_name(node, "attention") if imp.module_scope(node) else None)
    imp.fused_patterns["attention"] = imp.fused_patterns.get("attention", 0) + 1
    _head_major_output(imp, node, q, attn)


def _head_major_output(imp, node, q: str, attn: str) -> None:
    """Flash attention writes its output in q's memory layout. A q made afresh in head-major
    order (torch.cat of the rotated and the passed-through halves: Phi's and GPT-NeoX's
    partial rotary) gives a head-major output, so the transpose back to tokens that follows
    (transpose(1, 2).contiguous()) is a copy, which the next layer keeps besides the output
    attention keeps. A q that is a view of the projection (heads transposed) needs none. The
    default exporter drops a torch.cat of q with an empty tensor (Phi-3's full rotary): its
    record of the attention call still names the query 'cat_…'."""
    if not elided_contiguous_query(imp, (imp.current,)):
        t = q
        for _ in range(3):
            p = imp.producer.get(t)
            if p is None or imp.nodes[p].op_type not in ("Mul", "Cast", "Identity"):
                break
            acts = [i for i in imp.nodes[p].input if i in imp.acts]
            if len(acts) != 1:
                return
            t = acts[0]
        p = imp.producer.get(t)
        if p is None or imp.nodes[p].op_type != "Concat" or \
                sum(1 for i in imp.nodes[p].input if i) < 2:
            return

    def next_op(tensor):  # its one reader, shape lookups aside (an unfolded export's)
        users = [k for k in imp.consumers.get(tensor, [])
                 if imp.nodes[k].op_type not in ("Shape", "Size")]
        return users[0] if len(users) == 1 else None

    u = next_op(node.output[0])
    for _ in range(2):  # through a reshape that keeps the layout (the default exporter's)
        if u is None or imp.nodes[u].op_type not in ("Reshape", "Identity"):
            break
        u = next_op(imp.nodes[u].output[0])
    if u is None or imp.nodes[u].op_type != "Transpose":
        return
    perm = list(imp.attr(imp.nodes[u], "perm", []) or [])
    if len(perm) < 3 or perm[-1] != len(perm) - 1 or perm[-2] == len(perm) - 2:
        return  # not a swap of heads and tokens
    name = imp.unique(f"{attn}.contiguous")
    imp.layers.append(LayerSpec("elementwise", name, {"op": "other", "keeps": "nothing",
                                                      "input": attn}))
    imp.layer_out[name] = imp.layer_out.get(attn)
    imp.tensor_layer[node.output[0]] = name
    imp.head_major_copies += 1


def _copy_layer(imp, src: str) -> str:
    """A copy of layer ``src`` (a new storage, as torch.cat makes) that a later layer keeps."""
    name = imp.unique(f"{src}.copy")
    imp.layers.append(LayerSpec("elementwise", name, {"op": "other", "keeps": "nothing",
                                                      "input": src}))
    imp.layer_out[name] = imp.layer_out.get(src)
    imp.elided_copies += 1
    return name


def _repeat_source(imp, tensor: str) -> tuple[str, int, int] | None:
    """(the tensor before the repeat, the repeat, the repeat's first node) where ``tensor`` is
    k or v repeated to every head: Unsqueeze → Expand of the new axis → Reshape merging it
    (Hugging Face's repeat_kv)."""
    t = tensor
    for _ in range(6):
        p = imp.producer.get(t)
        if p is None:
            return None
        n = imp.nodes[p]
        if n.op_type == "Expand":
            src = n.input[0]
            before, after = imp.full_shape(src), imp.full_shape(n.output[0])
            if before is None or after is None or len(before) != len(after):
                return None
            grown = [(a, b) for a, b in zip(before, after) if a != b]
            if len(grown) != 1 or grown[0][0] != 1 or grown[0][1] < 2:
                return None
            first = p
            u = imp.producer.get(src)
            if u is not None and imp.nodes[u].op_type == "Unsqueeze":
                src, first = imp.nodes[u].input[0], u
            return (src, grown[0][1], first) if src in imp.tensor_layer else None
        if n.op_type not in ("Reshape", "Transpose", "Identity", "Squeeze", "Unsqueeze"):
            return None
        t = n.input[0]
    return None


def _grouped_kv(imp, kt, v, qs, tk, d, dv) -> tuple[str, str] | None:
    """k and v before their repeat to every head, as views in q's layout, where the network
    runs attention on the key/value groups in training: a file with no mask input (no padding)
    is, in Hugging Face's SDPA attention, scaled_dot_product_attention(enable_gqa=True), which
    keeps k and v once; the exported trace repeats them (repeat_kv), as it does with a mask."""
    if imp.side_inputs or len(qs) < 3:
        return None
    rk, rv = _repeat_source(imp, kt), _repeat_source(imp, v)
    if rk is None or rv is None or rk[1] != rv[1] or qs[-3] % rk[1]:
        return None
    lead = qs[:-3] + (qs[-3] // rk[1],)
    for (src, _n, _first), last in ((rk, d), (rv, dv)):
        ps = imp.per_sample(src)
        if ps is None or numel(ps) != numel(lead) * tk * last:
            return None
    imp.grouped_attention += 1
    out = []
    for (src, _n, first), last in ((rk, d), (rv, dv)):
        layer = imp.tensor_layer[src]
        # The repeat read a key/value-cache copy the default exporter's optimiser removed
        # (Hugging Face's DynamicCache: torch.cat onto an empty cache, also in training): the
        # copy is what attention keeps, not a view of a fused qkv projection (Phi-3).
        if elided_input(imp, first):
            layer = _copy_layer(imp, layer)
        out.append(_as_view(imp, src, lead + (tk, last), layer))
    return out[0], out[1]


def _as_view(imp, tensor: str, shape: tuple[int, ...], src: str | None = None) -> str:
    """A view layer of ``tensor``'s layer (or of layer ``src``) with ``shape`` (or that layer
    when it has it)."""
    src = src or imp.tensor_layer[tensor]
    if imp.layer_out.get(src) == shape:
        return src
    name = imp.unique(f"{src}.view")
    imp.layers.append(LayerSpec("view", name, {"shape": shape, "input": src}))
    imp.layer_out[name] = shape
    return name


def _map_attention_op(imp, node, main, acts, facts):
    """ONNX's opset-23 Attention: q, k, v (4-D: B×H×T×D) → fused attention."""
    ins = list(node.input)
    if len(ins) < 3 or any(i not in imp.tensor_layer for i in ins[:3]):
        return imp.placeholder(node, main)
    q, k, v = ins[:3]
    if len(imp.per_sample(q) or ()) != len(imp.per_sample(k) or (1,)):
        return imp.placeholder(node, main)
    k_layer, v_layer = imp.tensor_layer[k], imp.tensor_layer[v]
    k_copy, v_copy = elided_copies(imp, (imp.current,))
    if k_copy:
        k_layer = _copy_layer(imp, k_layer)
    if v_copy:
        v_layer = _copy_layer(imp, v_layer)
    imp.emit("attention", node, {"from": (k_layer, v_layer)}, q, out=[node.output[0]])


def _map_concat(imp, node, main, acts, facts):
    out = imp.per_sample(node.output[0])
    bax = imp.batch_axis(node.output[0])
    if out is None:
        return imp.placeholder(node, main)
    inputs = [i for i in node.input if i and 0 not in (imp.per_sample(i) or (1,))]
    if main not in inputs and inputs and inputs[0] in imp.acts and \
            inputs[0] in imp.tensor_layer:
        main = inputs[0]  # (an empty slice left out)
    if len(inputs) == 1:
        # torch.cat of one tensor (or of one and empty ones the exporter dropped, a key/value
        # cache's first update) is a copy: a new storage, which a later layer may keep.
        imp.emit("elementwise", node, {"op": "other", "keeps": "nothing"}, inputs[0])
        return
    axis = int(imp.attr(node, "axis", 1)) % (len(out) + (1 if bax is not None else 0))
    ps_axis = axis - (1 if bax is not None and axis > bax else 0)
    if ps_axis == 0 and bax is not None and axis != bax and all(i in imp.acts for i in inputs) \
            and all(i in imp.tensor_layer for i in inputs):
        shapes = [imp.per_sample(i) for i in inputs]
        if all(s is not None and len(s) == len(out) and s[1:] == out[1:] for s in shapes):
            imp.emit("concat", node, {"from": tuple(imp.tensor_layer[i] for i in inputs[1:])},
                     inputs[0])
            return
    # Any other axis, or with a learned tensor (a class token): an element-wise join.
    others = tuple(dict.fromkeys(imp.tensor_layer[i] for i in inputs
                                 if i in imp.acts and i != main and i in imp.tensor_layer))
    learned = sum(_learned(imp, i) for i in inputs if i not in imp.acts)
    params: dict[str, Any] = {"op": "other", "keeps": "nothing", "shape": out,
                              "parameters": learned}
    if others:
        params["from"] = others
    imp.emit("elementwise", node, params, main,
             weights=tuple(i for i in inputs if i not in imp.acts and _learned(imp, i)))


def _map_resize(imp, node, main, acts, facts):
    x = imp.per_sample(main)
    out = imp.per_sample(node.output[0])
    if x is None or out is None or len(x) not in (3, 4) or out[0] != x[0]:
        return imp.placeholder(node, main)
    scales = {o // i if i and o % i == 0 else 0 for o, i in zip(out[1:], x[1:])}
    mode = imp.attr(node, "mode", b"nearest")
    mode = mode.decode() if isinstance(mode, bytes) else str(mode)
    if len(scales) != 1 or 0 in scales:
        # Any other size (a segmentation head resizing to the input): keeps nothing.
        imp.emit("elementwise", node, {"op": "other", "keeps": "nothing", "shape": out}, main)
        return
    imp.emit("upsample", node, {"scale": scales.pop(),
                                "mode": "nearest" if mode == "nearest" else "bilinear"}, main)


def _map_pad(imp, node, main, acts, facts):
    out = imp.per_sample(node.output[0])
    if out is None:
        return imp.placeholder(node, main)
    mode = imp.attr(node, "mode", b"constant")
    mode = mode.decode() if isinstance(mode, bytes) else str(mode)
    # PyTorch's reflection and replication pads keep their input for backward
    # (reflection_pad2d_backward(grad, self, padding)); a constant pad and the circular one
    # (slices and a concat) keep nothing.
    keeps = "input" if mode in ("reflect", "edge") else "nothing"
    imp.emit("elementwise", node, {"op": "other", "keeps": keeps, "shape": out}, main)


def _map_rnn(kind: str):
    def mapper(imp, node, main, acts, facts):
        x = imp.per_sample(main)
        hidden = imp.attr(node, "hidden_size")
        direction = imp.attr(node, "direction", b"forward")
        direction = direction.decode() if isinstance(direction, bytes) else str(direction)
        if x is None or len(x) != 2 or not hidden:
            return imp.placeholder(node, main)
        outs = list(node.output)
        y = outs[0] if outs else ""
        returns_seq = bool(y) and bool(imp.consumers.get(y)) or not any(outs[1:])
        params = {"hidden": int(hidden), "layers": 1,
                  "bidirectional": direction == "bidirectional",
                  "return_sequences": returns_seq}
        if not (len(node.input) > 3 and node.input[3]):
            imp.warnings.append(Msg(QT_TRANSLATE_NOOP(
                "core", "{op} '{node}' has no bias; the plan counts the biases PyTorch has."),
                op=node.op_type, node=imp.node_label(node)))
        targets = [o for o in outs if o]
        dirs = 2 if params["bidirectional"] else 1
        weights = _rnn_weights(imp, [i for i in node.input[1:4] if i])
        if kind == "lstm":
            _projected_lstm(imp, node, params, x, dirs, weights)
        if returns_seq and y:
            imp.layer_shape[y] = (x[0], int(hidden) * dirs)
        for h in outs[1:3]:
            if h:
                imp.layer_shape[h] = (int(hidden) * dirs,)
        if not returns_seq and targets:
            targets = [t for t in targets if t != y] + ([y] if y in targets else [])
        imp.emit(kind, node, params, main, out=targets, name=imp.layer_name(node),
                 weights=weights)
        if not returns_seq and y:
            imp.tensor_layer.pop(y, None)
    return mapper


def _projected_lstm(imp, node, params, x, dirs: int, weights: tuple[str, ...]) -> None:
    """PyTorch's LSTM(proj_size=p) as the default exporter writes it: an ONNX LSTM has no
    projection, so the file's node says hidden_size=p, its weights are cut to p-wide gates
    and the projection (weight_hr) is left out, while the initial cell state it reads keeps
    the true hidden width h. The file then computes another network: the plan is PyTorch's
    (hidden h, projection p; its parameters the file lacks counted and said)."""
    c0 = node.input[6] if len(node.input) > 6 and node.input[6] else None
    dims = imp.dims_of(c0) if c0 else None
    p = int(params["hidden"])
    if not dims or len(dims) != 3 or int(dims[-1]) <= p:
        return
    h = int(dims[-1])
    params.update(hidden=h, proj=p)
    fin = int(x[-1])
    network = (4 * h * (fin + p) + 8 * h + p * h) * dirs
    # (what the layer will claim: each weight's initializer, through computed copies)
    claims = [imp.origin(w) or w for w in weights]
    in_file = sum(numel(imp.init_dims[w]) for w in claims if w in imp.init_dims)
    imp.restored_bn_params += network - in_file  # (parameters the plan has, the file lacks)
    imp.incomplete = True  # the file's own figures are not the network's
    imp.warnings.append(Msg(QT_TRANSLATE_NOOP(
        "core", "LSTM '{node}' reads a cell state {h} wide but says hidden_size={p}: PyTorch's "
        "LSTM(hidden_size={h}, proj_size={p}), which the exporter writes without its "
        "projection and with its weights cut to {p}-wide gates, so the file computes another "
        "network. The plan is PyTorch's LSTM: {n} parameters the file does not hold "
        "({file} there). Check the exported file before using it."),
        node=imp.node_label(node), h=h, p=p, n=f"{network - in_file:,}", file=f"{in_file:,}"))


def _rnn_weights(imp, names: list[str]) -> tuple[str, ...]:
    """An RNN node's W, R and B, or where the file computes one (the default exporter
    concatenates each direction's gates, sliced from the forward and the reverse parameters,
    into one tensor) every learned initializer it is computed from."""
    out: list[str] = []
    for name in names:
        behind = () if name in imp.init_dims else _parameters_behind(imp, name)
        out.extend(behind or (name,))
    return tuple(out)


def _map_identity(imp, node, main, acts, facts):
    imp.alias(node, main)


def _map_view(imp, node, main, acts, facts):
    """Reshape, Transpose, Squeeze, Unsqueeze, Flatten, Slice, Expand, Gather of an
    activation: a view (same elements) or a copy of another size."""
    if node.op_type == "Gather" and len(node.input) > 1 and node.input[1] in imp.acts and \
            node.input[0] not in imp.acts:
        return _map_embedding(imp, node, main, acts, facts)
    src = node.input[0] if node.input and node.input[0] in imp.tensor_layer else main
    if node.op_type == "Expand" and node.output and imp.consumers.get(node.output[0]) and all(
            imp.nodes[u].op_type in _BROADCASTING or _index_of(imp.nodes[u], node.output[0])
            for u in imp.consumers[node.output[0]]):
        # expand_as before an element-wise op (F.normalize's denominator): a view of the small
        # tensor, which the op broadcasts anyway; what it keeps is the small storage.
        imp.alias(node, src)
        return
    x = imp.per_sample(src)
    out = imp.per_sample(node.output[0])
    if node.op_type in ("Flatten", "Reshape", "Squeeze", "Unsqueeze", "Transpose") and \
            out is not None and x is not None and numel(out) == numel(x):
        imp.pending_view(node, src, node.output[0])
        return
    view_to(imp, node, src, node.output[0])


def _map_rearrange(imp, node, main, acts, facts):
    """DepthToSpace / SpaceToDepth (nn.PixelShuffle, PixelUnshuffle, space-to-depth stems):
    a permuted copy of its input; autograd keeps nothing for it (its backward is the inverse
    permutation)."""
    out = imp.per_sample(node.output[0])
    if out is None or numel(out) != numel(imp.per_sample(main) or ()):
        return imp.placeholder(node, main)
    imp.emit("elementwise", node, {"op": "other", "keeps": "nothing", "shape": out}, main)


def _index_of(reader, tensor: str) -> bool:
    """``tensor`` is the index ``reader`` gathers or scatters by (idx[..., None].expand(-1,
    -1, C) for torch.gather / scatter): an expanded view of the small index is what it keeps."""
    return reader.op_type in ("GatherElements", "ScatterElements", "GatherND", "ScatterND") \
        and len(reader.input) > 1 and reader.input[1] == tensor and reader.input[0] != tensor


def _map_split(imp, node, main, acts, facts):
    outs = [o for o in node.output if o]
    for k, o in enumerate(outs):
        view_to(imp, node, main, o, suffix=f"split{k}")
    if not outs:
        imp.status[imp.current] = "folded"


def _map_embedding(imp, node, main, acts, facts):
    table = imp.dims_of(node.input[0])
    if table is not None and len(table) >= 3 and int(imp.attr(node, "axis", 0)) == 0:
        return _map_rows_of_weight(imp, node, main, table)
    if table is None or len(table) != 2 or int(imp.attr(node, "axis", 0)) != 0:
        return imp.placeholder(node, main)
    ids = node.input[1]
    x = imp.per_sample(ids)
    out = imp.per_sample(node.output[0])
    if x is None or out != x + (int(table[1]),):
        return imp.placeholder(node, main)
    if _constant_table(imp, node, node.input[0]):
        # a lookup in a fixed table (M2M100's sinusoidal positions, a module's buffer): no
        # parameters, nothing kept (no gradient flows into it)
        imp.buffers.add(node.input[0])
        imp.emit("elementwise", node, {"op": "other", "keeps": "nothing", "shape": out}, ids)
        return
    imp.emit("embedding", node, {"num": int(table[0]), "dim": int(table[1])}, ids,
             weights=(node.input[0],))


def _constant_table(imp, node, table: str) -> bool:
    """The table a token lookup reads is no parameter: the default exporter's record reads it
    as a buffer or a constant ('%b_…', '%c_…'), or the file computes it from nothing learned
    (a Constant node's value)."""
    call = fx_call(node)
    if call is not None and call[1]:
        return call[1][0].startswith(("%b_", "%c_"))
    if table in imp.init_dims or imp.origin(table) is not None:
        return False
    stack, seen = [table], set()
    while stack:
        t = stack.pop()
        if t in seen:
            continue
        if t in imp.acts or len(seen) >= MAX_CONSTANT_WALK:
            return False  # computed from the input, or too far to tell
        seen.add(t)
        if t in imp.init_dims:
            if imp.is_learned(t):
                return False
            continue
        p = imp.producer.get(t)
        if p is not None:
            stack.extend(i for i in imp.nodes[p].input if i)
    return True


def _parameter_read(imp, node, data: str) -> bool:
    """``data`` is a parameter: a learned initializer, or one the default exporter's optimiser
    renamed ('val_152') that its record of the call reads as '%p_…'."""
    if imp.is_learned(data):
        return True
    call = fx_call(node)
    return call is not None and bool(call[1]) and call[1][0].startswith("%p_")


def _map_rows_of_weight(imp, node, main, table, learned: bool = False) -> None:
    """A stacked weight indexed by computed ids, ``weight[ids]`` (a mixture of experts'
    per-token expert matrices, transformers' batched_mm experts: ``gate_up_proj[expert_ids]``):
    an embedding lookup of the flattened rows, which keeps the ids and counts the whole
    weight, viewed back to its shape. The product reading it keeps the gathered copy."""
    ids = node.input[1]
    x = imp.per_sample(ids)
    if x is not None and node.op_type == "GatherND":
        x = x[:-1] or (1,)  # ids[..., None]
    out = imp.per_sample(node.output[0])
    row = tuple(int(d) for d in table[1:])
    if x is None or out != x + row or not (learned or imp.is_learned(node.input[0])):
        return imp.placeholder(node, main)
    emb = imp.emit("embedding", node, {"num": int(table[0]), "dim": numel(row)}, ids, out=[],
                   name=imp.layer_name(node, "rows"), weights=(node.input[0],))
    imp.tensor_layer["\0" + emb] = emb
    imp.layer_out[emb] = x + (numel(row),)
    imp.emit("view", node, {"shape": out}, "\0" + emb)


def _map_where(imp, node, main, acts, facts):
    if facts.get("activation"):  # an activation written with a Where (patterns: softplus)
        imp.emit("activation", node, {"function": facts["activation"]}, facts["root"])
        return
    ins = [i for i in node.input[1:3] if i]
    data = [i for i in ins if i in imp.acts and i in imp.tensor_layer]
    if not data:
        return imp.placeholder(node, main)
    first = data[0]
    others = tuple(imp.tensor_layer[i] for i in data[1:])
    params: dict[str, Any] = {"from": others} if others else {}
    out = imp.per_sample(node.output[0])
    planned = _broadcast_of(imp.layer_out.get(imp.tensor_layer[i]) or imp.per_sample(i)
                            for i in data)
    if out is not None and len(node.input) > 2 and node.input[0] not in imp.acts and \
            planned is not None and out != planned:
        # the condition (not an activation: Funnel's token-type matrix, B × T × T) widens
        # the selected values (its per-head biases, B × n × T × 1, expanded by views the
        # plan leaves small) to the scores' shape
        params["shape"] = out
    imp.emit("where", node, params, first)


def _broadcast_of(shapes) -> tuple[int, ...] | None:
    out: tuple[int, ...] = ()
    for s in shapes:
        if s is None:
            return None
        n = max(len(out), len(s))
        a, b = (1,) * (n - len(out)) + tuple(out), (1,) * (n - len(s)) + tuple(s)
        if any(x != y and 1 not in (x, y) for x, y in zip(a, b)):
            return None
        out = tuple(max(x, y) for x, y in zip(a, b))
    return out


def _map_einsum(imp, node, main, acts, facts):
    ins = [i for i in node.input if i]
    out = imp.per_sample(node.output[0])
    if out is None:
        return imp.placeholder(node, main)
    if len(ins) == 2 and _map_einsum_pair(imp, node, ins, out):
        return None
    if any(i not in imp.acts for i in ins) or any(i not in imp.tensor_layer for i in ins):
        return imp.placeholder(node, main)
    imp.emit("einsum", node, {"shape": out, "from": tuple(imp.tensor_layer[i] for i in ins[1:])},
             ins[0])
    return None


def _einsum_layout(imp, tensor: str):
    """(full shape, strides) of an Einsum operand: an activation's from its views, a weight
    (or a constant) dense as stored."""
    if tensor in imp.acts:
        got = layout(imp, tensor)
        return None if got is None else got[:2]
    dims = imp.dims_of(tensor)
    return None if dims is None or None in dims else (tuple(dims), contiguous(tuple(dims)))


def _map_einsum_pair(imp, node, ins: list[str], out) -> bool:
    """torch.einsum of two operands, any equation of batch, contracted and free indices (no
    ellipsis, no diagonal): ATen's bmm of the operands permuted and reshaped to 3-D keeps
    both; an operand the reshape cannot view is copied, and the copy is kept. A learned
    operand (x · W written as an Einsum: XLNet's projections ``ibh,hnd->ibnd``) is a layer's
    parameters; its copy, where made, is kept once, not per sample (counted for a note). An
    operand computed from constants is the plan's constant: only the activation is kept."""
    if any(t in imp.acts and t not in imp.tensor_layer for t in ins):
        return False
    eq = imp.attr(node, "equation")
    eq = eq.decode() if isinstance(eq, bytes) else str(eq or "")
    lay = [_einsum_layout(imp, t) for t in ins]
    if any(v is None for v in lay):
        return False
    terms = einsum_terms(eq, tuple(len(v[0]) for v in lay))
    if terms is None:
        return False
    pair = einsum_pair(terms[0], terms[1], [v[0] for v in lay], [v[1] for v in lay])
    if pair is None:
        return False
    (copied, inner) = pair
    is_act = [t in imp.acts and t in imp.tensor_layer for t in ins]
    if not any(is_act):
        return False
    weight = next((t for t, a in zip(ins, is_act) if not a and imp.is_weight(t)
                   and imp.is_learned(t)), None)
    kept = [(_copy_of(imp, node, t, k) if c else t)
            for k, (t, a, c) in enumerate(zip(ins, is_act, copied)) if a]
    for t, a, c, v in zip(ins, is_act, copied, lay):
        if not a and c and t == weight:
            imp.einsum_constant_copies += numel(v[0])
            imp.einsum_constant_count += 1
    params: dict[str, Any] = {"shape": out, "inner": int(inner)}
    if len(kept) > 1:
        params["from"] = tuple(imp.tensor_layer[t] for t in kept[1:])
    weights: tuple[str, ...] = ()
    if weight is not None:
        params["parameters"] = _learned(imp, weight)
        weights = (weight,)
    imp.emit("einsum", node, params, kept[0], weights=weights)
    return True


def _map_mask(imp, node, main, acts, facts):
    """Comparisons and other boolean results: no gradient flows, nothing is kept."""
    out = imp.per_sample(node.output[0]) if node.output else None
    params: dict[str, Any] = {"op": "other", "keeps": "nothing"}
    if out is not None and out != imp.per_sample(main):
        params["shape"] = out
    others = tuple(dict.fromkeys(imp.tensor_layer[i] for i in acts if i != main))
    if others:
        params["from"] = others
    imp.emit("elementwise", node, params, main)


def _map_index_arithmetic(imp, node, main, acts, facts):
    """CumSum keeps nothing for backward (its gradient is a reversed cumulative sum);
    GatherElements keeps its int64 index, unless it gathers integers (RoBERTa's position ids,
    computed from the token ids), where no gradient flows."""
    if node.op_type == "GatherElements" and not imp.is_integer(node.input[0]):
        return _map_gather_of_activation(imp, node, main, acts, facts)
    return _map_mask(imp, node, main, acts, facts)


def _map_gather_of_activation(imp, node, main, acts, facts):
    """GatherElements / GatherND of an activation: a new tensor of the output's shape.
    GatherElements is torch.gather (take_along_dim), whose backward keeps its source and its
    index; GatherND is tensor indexing (x[..., idx]: aten.index), which keeps its index only
    (measured with saved_tensors_hooks, torch 2.14). An index computed per sample (an
    activation) is kept; a constant one (DeBERTa's relative positions, Falcon's key/value slots
    of its fused projection) is not per sample."""
    data = node.input[0] if node.input else ""
    index = node.input[1] if len(node.input) > 1 else ""
    out = imp.per_sample(node.output[0]) if node.output else None
    table = imp.dims_of(data) if data and data not in imp.acts else None
    if node.op_type == "GatherND" and table and len(table) >= 2 and index in imp.acts and \
            not int(imp.attr(node, "batch_dims", 0) or 0) and \
            (imp.dims_of(index) or (0,))[-1] == 1 and _parameter_read(imp, node, data):
        # weight[ids] written as GatherND with ids[..., None] (the default exporter's
        # aten.index of a parameter: batched_mm experts)
        return _map_rows_of_weight(imp, node, main, table, learned=True)
    if data not in imp.tensor_layer or out is None or imp.is_integer(data):
        return imp.placeholder(node, main)
    per_sample_index = index in imp.acts and index in imp.tensor_layer
    params: dict[str, Any] = {"op": "other", "shape": out}
    if node.op_type == "GatherND":
        if per_sample_index:  # main: the index, kept; the data read through 'from'
            params.update(keeps="input", **{"from": (imp.tensor_layer[data],)})
            return imp.emit("elementwise", node, params, index)
        # (the default exporter's adaptive average pool to a size that does not divide the
        # input: windows gathered by a constant index, then means; PyTorch's pool keeps its
        # input for backward, which the gather's source is a view of)
        params["keeps"] = "input" if _in_adaptive_pool(node) else "nothing"
    elif per_sample_index:
        src = imp.tensor_layer[index]
        at = imp.layer_index(src)
        for _ in range(4):  # through views of the index (an unsqueeze before the expand)
            if at is None or imp.layers[at].kind != "view" or at == 0:
                break
            up = imp.layers[at].params.get("input") or imp.layers[at - 1].name
            at = imp.layer_index(up)
        if at is not None and imp.layers[at].params.get("keeps") == "indices":
            # a view of the int64 indices the layer making them keeps already (topk's,
            # expanded: idx[..., None].expand(-1, -1, C)): one storage, kept once
            params["keeps"] = "input"
        else:  # the source and the int64 index (8 bytes an element)
            params.update(keeps="input_index", **{"from": (src,)})
    else:
        params["keeps"] = "input"
        imp.gather_indices += _constant_index_elements(imp, index)
    return imp.emit("elementwise", node, params, data)


def _constant_index_elements(imp, index: str) -> int:
    """Elements of the int64 index torch.gather keeps once (not per sample) where the index is
    a constant: the tensor before an Expand (DeBERTa's c2p_pos, T×T, expanded over batch and
    heads), or, folded into one constant, its values without the axes along which they
    repeat."""
    for _ in range(4):
        p = imp.producer.get(index)
        if p is None or imp.nodes[p].op_type not in ("Expand", "Identity"):
            break
        index = imp.nodes[p].input[0]
    dims = imp.dims_of(index)
    if dims is None:
        return 0
    value = imp.const(index)
    if value is not None and hasattr(value, "shape") and tuple(value.shape) == tuple(dims):
        for axis, size in enumerate(dims):
            if size > 1 and (value == value.take([0], axis=axis)).all():
                value = value.take([0], axis=axis)
        return int(value.size)
    if index in imp.init_dims:  # folded, values unread: perhaps expanded (an upper bound)
        imp.gather_indices_folded += numel(dims)
        return 0
    return numel(dims)


def _map_scatter(imp, node, main, acts, facts):
    """ScatterElements / ScatterND (torch.scatter, scatter_add, index_put): a new tensor of
    its data's shape; backward gathers the gradient through the index, which is all it keeps
    (a per-sample index; a constant one is not per sample). A multiplying or max/min
    reduction also needs the values: planned as a guess."""
    data = node.input[0] if node.input else ""
    index = node.input[1] if len(node.input) > 1 else ""
    out = imp.per_sample(node.output[0]) if node.output else None
    reduction = imp.attr(node, "reduction", b"none")
    reduction = reduction.decode() if isinstance(reduction, bytes) else str(reduction)
    if out is None or reduction not in ("none", "add") or imp.is_integer(data):
        return imp.placeholder(node, main)
    others = tuple(dict.fromkeys(imp.tensor_layer[t] for t in (data, node.input[2] if len(
        node.input) > 2 else "") if t and t in imp.acts and t in imp.tensor_layer))
    params: dict[str, Any] = {"op": "other", "shape": out}
    if index in imp.acts and index in imp.tensor_layer:
        params["keeps"] = "input"  # main: the index, kept
        if others:
            params["from"] = others
        return imp.emit("elementwise", node, params, index)
    src = data if data in imp.acts and data in imp.tensor_layer else main
    params["keeps"] = "nothing"
    rest = tuple(o for o in others if o != imp.tensor_layer[src])
    if rest:
        params["from"] = rest
    return imp.emit("elementwise", node, params, src)


def _map_grid_sample(imp, node, main, acts, facts):
    """GridSample (F.grid_sample: spatial transformers, RAFT-style warping, deformable
    sampling): backward keeps its input and its grid (a per-sample grid is kept too)."""
    out = imp.per_sample(node.output[0]) if node.output else None
    data = node.input[0] if node.input else ""
    grid = node.input[1] if len(node.input) > 1 else ""
    if out is None or data not in imp.acts or data not in imp.tensor_layer:
        return imp.placeholder(node, main)
    params: dict[str, Any] = {"op": "other", "keeps": "input", "shape": out}
    if grid in imp.acts and grid in imp.tensor_layer:
        params.update(keeps="inputs", **{"from": (imp.tensor_layer[grid],)})
    imp.emit("elementwise", node, params, data)


def _map_new_of_shape(imp, node, main, acts, facts):
    """AffineGrid (F.affine_grid: a grid linear in theta) and Col2Im (F.fold: its backward is
    an unfold): a new tensor of the output's shape; autograd keeps nothing for either."""
    out = imp.per_sample(node.output[0]) if node.output else None
    if out is None:
        return imp.placeholder(node, main)
    imp.emit("elementwise", node, {"op": "other", "keeps": "nothing", "shape": out}, main)


def _in_adaptive_pool(node) -> bool:
    """The node is part of F.adaptive_avg_pool*d as torch.export decomposed it (the record's
    innermost call, module or functional, is the pool)."""
    for p in node.metadata_props:
        if p.key == "pkg.torch.onnx.stack_trace":
            lines = [ln for ln in p.value[-2000:].strip().splitlines() if ln.strip()]
            return bool(lines) and "adaptive_avg_pool" in lines[-1]
    return False


def _map_topk(imp, node, main, acts, facts):
    """torch.topk (a mixture of experts' routing): values and int64 indices; backward
    scatters the gradient back through the indices, which it keeps."""
    out = imp.per_sample(node.output[0])
    if out is None:
        return imp.placeholder(node, main)
    imp.emit("elementwise", node, {"op": "other", "keeps": "indices", "shape": out}, main,
             out=[o for o in node.output[:2] if o])


def _map_unary(keeps: str):
    def mapper(imp, node, main, acts, facts):
        imp.emit("elementwise", node, {"op": "other", "keeps": keeps}, main)
    return mapper


MAPPERS = {
    "Conv": map_conv,
    "ConvTranspose": map_conv_transpose,
    "MaxPool": _map_pool("maxpool"),
    "AveragePool": _map_pool("avgpool"),
    "GlobalAveragePool": _map_global_avgpool,
    "GlobalMaxPool": _map_global_maxpool,
    "ReduceMean": _map_reduce,
    "ReduceSum": _map_reduce,
    "ReduceMax": _map_reduce,
    "ReduceL2": _map_reduce,
    "ReduceLogSumExp": _map_reduce,
    "ReduceSumSquare": _map_reduce,
    "ReduceMin": _map_reduce,
    "BatchNormalization": _map_batchnorm,
    "LayerNormalization": _map_layernorm,
    "RMSNormalization": _map_rmsnorm,
    "InstanceNormalization": _map_instancenorm,
    "CumSum": _map_index_arithmetic,
    "GatherElements": _map_index_arithmetic,
    "GatherND": _map_gather_of_activation,
    "SimplifiedLayerNormalization": _map_rmsnorm,
    "Relu": _map_activation("relu"),
    "LeakyRelu": _map_activation("leaky_relu"),
    "Gelu": _map_activation("gelu"),
    "Sigmoid": _map_activation("sigmoid"),
    "Tanh": _map_activation("tanh"),
    "HardSwish": _map_activation("hardswish"),
    "HardSigmoid": _map_activation("hardsigmoid"),
    "Elu": _map_activation("elu"),
    "Selu": _map_activation("selu"),
    "Celu": _map_activation("celu"),
    "Softplus": _map_activation("softplus"),
    "Mish": _map_activation("mish"),
    "Swish": _map_activation("silu"),  # (opset 24: x · sigmoid(alpha · x); alpha 1 is SiLU)
    "LogSoftmax": _map_softmax,  # (log_softmax keeps its output, as softmax does)
    "PRelu": _map_prelu,
    "Abs": _map_keeps_input,
    "Log": _map_keeps_input,
    "Max": _map_max_min,
    "Min": _map_max_min,
    "Clip": _map_clip,
    "Softmax": _map_softmax,
    "Dropout": _map_dropout,
    "Gemm": _map_gemm,
    "MatMul": _map_matmul,
    "Flatten": _map_view,
    "Reshape": _map_view,
    "Squeeze": _map_view,
    "Unsqueeze": _map_view,
    "Transpose": _map_view,
    "Slice": _map_view,
    "Expand": _map_view,
    "Tile": _map_view,
    "TopK": _map_topk,
    "ScatterElements": _map_scatter,
    "GridSample": _map_grid_sample,
    "AffineGrid": _map_new_of_shape,
    "Col2Im": _map_new_of_shape,
    "ScatterND": _map_scatter,
    "Gather": _map_view,
    "Split": _map_split,
    "DepthToSpace": _map_rearrange,
    "SpaceToDepth": _map_rearrange,
    "Identity": _map_identity,
    "Cast": _map_identity,
    "Add": _map_binary,
    "Sub": _map_binary,
    "Mul": _map_binary,
    "Div": _map_binary,
    "Pow": _map_binary,
    "Concat": _map_concat,
    "Resize": _map_resize,
    "Upsample": _map_resize,
    "Pad": _map_pad,
    "LSTM": _map_rnn("lstm"),
    "GRU": _map_rnn("gru"),
    "Where": _map_where,
    "Einsum": _map_einsum,
    "Attention": _map_attention_op,
    "Sqrt": _map_unary("output"),
    "Exp": _map_unary("output"),
    "Erf": _map_unary("input"),
    "Erfc": _map_unary("input"),  # (tf2onnx leaves TensorFlow's Erfc unconverted)
    "Sin": _map_unary("input"),  # a sinusoidal embedding (diffusion timesteps, positions)
    "Cos": _map_unary("input"),
    "Neg": _map_unary("nothing"),
    "Reciprocal": _map_unary("output"),
    **{op: _map_mask for op in ("IsNaN", "IsInf", "Equal", "Less", "Greater", "LessOrEqual",
                                "GreaterOrEqual", "Not", "And", "Or", "Xor", "ArgMax",
                                "ArgMin", "Sign", "Floor", "Ceil", "Round")},
}


def map_node(imp, node, main, acts, facts) -> None:
    if "region" in facts:
        return _map_region(imp, node, main, acts, facts)
    if "attention" in facts:
        return _map_attention_fused(imp, node, main, acts, facts)
    if "tf_norm" in facts:
        return tf_export.map_norm(imp, node, main, acts, facts)
    if contrib.is_contrib(node):
        # onnxruntime's operators (com.microsoft): never the ONNX operator of the same name
        return contrib.map_contrib(imp, node, main, acts, facts)
    mapper = MAPPERS.get(node.op_type) or contrib.QUANT_MAPPERS.get(node.op_type)
    if mapper is None:
        return imp.placeholder(node, main)
    return mapper(imp, node, main, acts, facts)


assert all(kind in RULES for kind in ("view", "matmul", "softmax", "rmsnorm", "embedding",
                                      "attention", "einsum", "where", "elementwise"))
_ = shape_str
