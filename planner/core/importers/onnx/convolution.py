"""The convolution mappers (Conv, ConvTranspose: padding, their own and restored biases,
folded and standardized weights) and the padding and view helpers the pool and view mappers
share with them. ``mappers.MAPPERS`` dispatches to them."""

from __future__ import annotations

import math

from planner.core.importers.onnx.common import flat, fx_call
from planner.core.importers.onnx.computed import constant_subgraph, normalized_weight
from planner.core.importers.onnx.patterns import restore_bias
from planner.core.layers import LayerSpec, numel
from planner.i18n import QT_TRANSLATE_NOOP, Msg

# --------------------------------------------------------------------------------------------
# Mapping helpers
# --------------------------------------------------------------------------------------------


def norm_padding(begins: list[int], ends: list[int], imp, node, what: str):
    if begins != ends:
        imp.warnings.append(Msg(QT_TRANSLATE_NOOP(
            "core", "{op} '{node}' pads unevenly ({begins} before, {ends} after): the plan "
            "pads the rounded-up mean on both sides."), op=what, node=imp.node_label(node),
            begins=str(begins), ends=str(ends)))
        pads = [math.ceil((b + e) / 2) for b, e in zip(begins, ends)]
    else:
        pads = list(begins)
    return pads[0] if len(set(pads)) == 1 else tuple(pads)


def one(values):
    values = tuple(int(v) for v in values)
    return values[0] if len(set(values)) == 1 else values


def conv_padding(imp, node, dims: int, facts, raw: bool = False):
    auto = imp.attr(node, "auto_pad", b"NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else str(auto)
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        return None if raw else "same"
    if auto == "VALID":
        pads = [0] * (2 * dims)
    else:
        pads = [int(v) for v in (imp.attr(node, "pads") or [0] * (2 * dims))]
    if len(pads) != 2 * dims:
        imp.fail(Msg(QT_TRANSLATE_NOOP(
            "core", "node '{node}' has {n} pads for {dims} spatial dimensions"),
            node=imp.node_label(node), n=len(pads), dims=dims))
    extra = facts.get("extra_pads")
    if extra and len(extra) == 2 * dims:
        pads = [a + b for a, b in zip(pads, extra)]
    if raw:
        return pads
    return norm_padding(pads[:dims], pads[dims:], imp, node, node.op_type)


def _fused_pad(node) -> bool:
    """The default exporter's optimiser fused an explicit Pad (F.pad) into this convolution
    (its rewrite rule FuseConvPad, recorded on the node)."""
    return any(p.key == "pkg.onnxscript.rewriter.rule_name" and "FuseConvPad" in p.value
               for p in node.metadata_props)


def uneven_pad(imp, node, main: str, x, pads: list[int] | None) -> tuple[str, tuple] | None:
    """A 2-D convolution padding unevenly (an F.pad the legacy exporter fused into it:
    HGNetV2's stem, timm's TF-'same' padding; Conv2d(padding='same') with an even kernel):
    PyTorch pads into a new tensor first, which the convolution keeps, and convolves it with
    the even part. Plans that pad (the layer's name, its output shape), or None."""
    # (the planned input: a Pad node the patterns fused into the convolution is not planned)
    x = imp.layer_out.get(imp.tensor_layer[main]) or x
    explicit = _fused_pad(node) and pads is not None and any(pads)
    if pads is None or len(pads) != 4 or x is None or len(x) != 3 or min(pads) < 0 or \
            pads[:2] == pads[2:] and not explicit:
        return None
    # (a pad the optimiser fused is all explicit: the convolution keeps the padded tensor)
    even = [0, 0] if explicit else [min(b, e) for b, e in zip(pads[:2], pads[2:])]
    grow = [b + e - 2 * k for b, e, k in zip(pads[:2], pads[2:], even)]
    shape = (x[0], x[1] + grow[0], x[2] + grow[1])
    key = (imp.tensor_layer[main], tuple(b - k for b, k in zip(pads[:2], even)), shape)
    padding = even[0] if even[0] == even[1] else tuple(even)
    if key in imp.uneven_pads:  # one F.pad the exporter fused into each of its readers
        imp.status[imp.current] = "mapped"
        return imp.uneven_pads[key], padding
    name = imp.emit("elementwise", node, {"op": "other", "keeps": "nothing", "shape": shape},
                    main, out=[], name=imp.layer_name(node, "pad"))
    planned(imp, name, shape)
    imp.uneven_pads[key] = name
    return name, padding


def planned(imp, layer: str, shape: tuple[int, ...] | None = None) -> str:
    """The importer's own name for ``layer``'s output (a layer between the file's tensors: a
    convolution's lifting views, an F.pad the exporter fused), to read it as a tensor; its
    per-sample ``shape`` recorded where given."""
    imp.tensor_layer["\0" + layer] = layer
    if shape is not None:
        imp.layer_out[layer] = shape
    return "\0" + layer


def view_to(imp, node, main: str, tensor: str, suffix: str = "") -> None:
    """Make ``tensor`` a planned tensor: the layer of ``main`` when the shape is the same, a
    view layer otherwise."""
    x = imp.layer_out.get(imp.tensor_layer[main]) or imp.per_sample(main)
    out = imp.per_sample(tensor)
    if out is None or x == out or 0 in out:
        # (an empty slice: torch.roll by 0, a shifted window as large as the input, sliced
        # and concatenated back; the concatenation leaves it out)
        imp.tensor_layer[tensor] = imp.tensor_layer[main]
        imp.status.setdefault(imp.current, "folded")
        return
    copies = node.op_type == "Gather" and len(imp.dims_of(node.input[1]) or ()) > 0
    if numel(out) <= numel(x or ()) and not copies:
        # Reshapes, slices, splits, selects: views of the same storage in PyTorch.
        imp.emit("view", node, {"shape": out}, main, out=[tensor],
                 name=imp.layer_name(node, suffix) if suffix else None)
    else:
        imp.emit("elementwise", node, {"op": "other", "keeps": "nothing", "shape": out}, main,
                 out=[tensor], name=imp.layer_name(node, suffix) if suffix else None)


# --------------------------------------------------------------------------------------------
# Mappers
# --------------------------------------------------------------------------------------------


def map_conv(imp, node, main, acts, facts):
    w = imp.dims_of(node.input[1]) if len(node.input) > 1 else None
    x = imp.per_sample(main)
    if w is None or len(w) < 3 or node.input[1] in imp.acts:
        return imp.placeholder(node, main, " (its weight shape is unknown)")
    dims = len(w) - 2
    stacked = _stacked(imp, node, x, w, dims, facts)
    if stacked is not None:
        # the input merges the batch with windows or heads: convolved as one image of the
        # windows stacked along the height, between two views
        up = imp.emit("view", node, {"shape": stacked[0]}, main, out=[],
                      name=imp.layer_name(node, "stacked"))
        main, x = planned(imp, up, stacked[0]), stacked[0]
    if x is None or len(x) != dims + 1 or dims not in (1, 2, 3):
        return imp.placeholder(node, main)
    if _fixed_filter(imp, node):
        # A filter that is no parameter (anti-aliasing blur: timm's BlurPool2d buffer): no
        # gradient, no optimizer state; autograd keeps the input, as for any convolution.
        out = imp.per_sample(node.output[0])
        if out is not None:
            imp.fixed_filters += 1
            imp.emit("generic", node, {"keeps": "input", "shape": out}, main)
            return None
    kernel = imp.attr(node, "kernel_shape") or list(w[2:])
    strides = imp.attr(node, "strides") or [1] * dims
    dilations = imp.attr(node, "dilations") or [1] * dims
    group = int(imp.attr(node, "group", 1) or 1)
    bias = len(node.input) > 2 and bool(node.input[2])
    bn = facts.get("restore_bn")
    weights = (node.input[1],) + ((node.input[2],) if bias else ())
    bias = _bias_beside_norm(imp, node, bias, bn, int(w[0]))
    padding = conv_padding(imp, node, dims, facts) if dims == 1 else None
    standardized = None
    if node.input[1] not in imp.init_dims and imp.origin(node.input[1]) is None:
        ws = _standardized_weight(imp, node.input[1], numel(w), int(w[0]))
        if ws is not None:
            standardized, claims = ws
            weights = claims + weights[1:]
    magnitude = 0
    if node.input[1] not in imp.init_dims and standardized is None:
        wn = normalized_weight(imp, node.input[1], numel(w))
        if wn is not None:
            magnitude, claims = wn
            weights = claims + weights[1:]
    if dims == 1:
        # A 1-D convolution as a 2-D one over a height of 1 (the same parameters and bytes).
        def lift(v):  # no padding over the height of 1
            return (0, int(v)) if isinstance(v, int) else (0,) + tuple(int(a) for a in v)
        up = planned(imp, imp.emit("view", node, {"shape": (x[0], 1, x[1])}, main, out=[],
                                   name=imp.layer_name(node, "as2d")), (x[0], 1, x[1]))
        params = {"filters": int(w[0]), "kernel": (1, int(kernel[0])),
                  "stride": (1, int(strides[0])),
                  "padding": padding if isinstance(padding, str) else lift(padding),
                  "dilation": (1, int(dilations[0])), "groups": group, "bias": bias}
        if standardized:
            params["standardized"] = standardized
        if magnitude:
            params["weight_norm"] = magnitude
        conv = imp.emit("conv2d", node, params, up, out=[], weights=weights)
        out1 = imp.per_sample(node.output[0])
        conv_t = planned(imp, conv, (out1[0], 1, out1[1]) if out1 else None)
        if out1:  # checked against the plan like every mapped layer's shape
            imp.expect.append((conv, (out1[0], 1, out1[1]), node))
        out = imp.per_sample(node.output[0])
        imp.emit("view", node, {"shape": out}, conv_t, name=imp.layer_name(node, "as1d"))
    else:
        src = main
        padded = uneven_pad(imp, node, main, x, conv_padding(imp, node, dims, facts,
                                                               raw=True)) if dims == 2 else None
        if padded is not None:
            src, padding = "\0" + padded[0], padded[1]
        else:
            padding = conv_padding(imp, node, dims, facts)
        params = {"filters": int(w[0]), "kernel": one(kernel), "stride": one(strides),
                  "padding": padding, "dilation": one(dilations), "groups": group,
                  "bias": bias}
        if standardized:
            params["standardized"] = standardized
        if magnitude:
            params["weight_norm"] = magnitude
        conv = imp.emit("conv2d" if dims == 2 else "conv3d", node, params, src,
                        weights=weights, out=[] if stacked else None)
        if stacked:
            imp.layer_out[conv] = stacked[1]
            imp.expect.append((conv, stacked[1], node))
    if bn is not None:
        _restore_bn(imp, node, bn, int(w[0]))
    if stacked:
        imp.emit("view", node, {"shape": imp.per_sample(node.output[0])},
                 planned(imp, imp.layers[-1].name), name=imp.layer_name(node, "unstacked"))


def _stacked(imp, node, x, w, dims: int, facts) -> tuple[tuple, tuple] | None:
    """A 2-D or 3-D convolution whose per-sample input has one axis more than an image or a
    clip: PyTorch runs it on a batch merged with another axis, ``(B·k, C, H, W)`` (windows:
    EfficientViT-M's local attention over 7×7 windows; heads: MViTv2's pooled queries, keys
    and values, ``(B·heads, C, T, H, W)`` in the video MViT; frames). Per sample that is the
    same filter over k images, planned as one image of the k stacked along the first spatial
    axis: the same parameters, the same input kept and output made, the same products. Only
    where the stacked image convolves to the k outputs stacked (the padding symmetric, the
    strides dividing evenly); else None (then a placeholder, said). Returns the stacked
    input's and output's per-sample shapes."""
    if dims not in (2, 3) or x is None or len(x) != dims + 2:
        return None
    k, c, *space = (int(v) for v in x)
    out = imp.per_sample(node.output[0])
    group = int(imp.attr(node, "group", 1) or 1)
    if out is None or len(out) != dims + 2 or int(out[0]) != k or c != int(w[1]) * group:
        return None
    pads = conv_padding(imp, node, dims, facts, raw=True)
    if pads is None or pads[:dims] != pads[dims:]:
        return None
    kernel = imp.attr(node, "kernel_shape") or list(w[2:])
    strides = imp.attr(node, "strides") or [1] * dims
    dilations = imp.attr(node, "dilations") or [1] * dims

    def size(n: int, a: int) -> int:
        return (n + 2 * pads[a] - int(dilations[a]) * (int(kernel[a]) - 1) - 1) // \
            int(strides[a]) + 1
    outs = [int(v) for v in out[2:]]
    if size(k * space[0], 0) != k * outs[0] or \
            any(size(n, a) != o for a, (n, o) in enumerate(zip(space, outs))):
        return None
    return (c, k * space[0], *space[1:]), (int(out[1]), k * outs[0], *outs[1:])


def _bias_beside_norm(imp, node, bias: bool, bn: str | None, units: int) -> bool:
    """Whether a convolution (or transposed one) has a bias of its own in training: one the
    exporter dropped as zero is restored; where a batch norm was folded into it, the file's
    bias is the norm's shift unless the signature lists one of its own."""
    if not bias and bn is None:
        return restore_bias(imp, node, units)
    if bn is not None and _own_bias(imp, node):
        imp.own_bias += 1  # a bias of its own besides the folded norm (the signature says)
        if not bias:  # its sum with the norm's shift was zero (untrained: torchvision's VGG)
            bias = restore_bias(imp, node, units, dropped=True)
    elif bn is not None and bias:
        bias = False  # the folded bias is the batch norm's shift
        imp.restored_bn_params -= units
    return bias


def _restore_bn(imp, node, bn: str, units: int) -> None:
    """The batch norm folded into the layer just emitted, put back after it."""
    name = imp.unique(bn)
    conv_layer = imp.layers[-1].name
    imp.layers.append(LayerSpec("batchnorm", name, {}))
    imp.tensor_layer[node.output[0]] = name
    imp.layer_out[name] = imp.layer_out.get(conv_layer)
    imp.restored_bn += 1
    imp.restored_bn_params += 2 * units
    imp.restored_bn_channels += units


def _own_bias(imp, node) -> bool:
    """A convolution a batch norm was folded into had a bias of its own: the exported
    program's signature lists it as a parameter (ResNeSt's attention fc1, HRNet's
    downsampling convolutions), under the name of the folded bias or beside the weight's."""
    sig = imp.signature
    if not sig:
        return False
    o = imp.origin(node.input[1]) or ""
    names = [node.input[2] if len(node.input) > 2 else "",
             o[:-len("weight")] + "bias" if o.endswith(".weight") else ""]
    return any(sig.get(t) == "PARAMETER" for t in names if t)


def _fixed_filter(imp, node) -> bool:
    """The convolution's filter is a module's buffer, not a parameter: the exported program's
    signature says so (the default exporter), or it is a Constant node in a file that stores
    the parameters as named initializers (the legacy exporter traces a non-persistent buffer
    as a constant). Not with a bias of its own."""
    w = node.input[1]
    if len(node.input) > 2 and node.input[2] or w in imp.acts:
        return False
    o = imp.origin(w)
    if o is not None:
        return imp.signature.get(o) == "BUFFER"
    p = imp.producer.get(w)
    return p is not None and imp.nodes[p].op_type == "Constant" and imp.named_parameters


def _standardized_weight(imp, weight: str, elements: int, filters: int):
    """A convolution weight computed in the graph by standardising a parameter per filter
    (timm's StdConv2d / ScaledStdConv2d, as F.batch_norm over the weight or as ReduceMean
    arithmetic): ('plain' or 'gain', the initializers that are its parameters), or None.
    The weight is the initializer of the weight's size behind it; the gain, one behind the
    batch norm's scale. The subgraph's other tensors (the legacy exporter's transposed copy of
    the weight, a zero shift) are constants of it, not reported as folded parameters."""
    walk = constant_subgraph(imp, weight)
    if walk is None:
        return None  # computed from activations: not a weight
    ops, inits, nodes = walk
    norm = next((n for n in nodes if n.op_type == "BatchNormalization"), None)
    if "BatchNormalization" not in ops and "ReduceMean" not in ops:
        return None
    main = next((t for t in inits if numel(imp.init_dims[t]) == elements), None)
    if main is None:
        return None
    gain = None
    call = fx_call(norm) if norm is not None else None
    if call is not None and len(call[1]) > 1 and call[1][1] == "None":
        # the default exporter's record: F.batch_norm(w, None, None, weight=None, ...), no
        # gain (transformers' BiT), whatever the scale of ones the file stores (external
        # data, not read) holds
        norm_scale = None
    else:
        norm_scale = norm.input[1] if norm is not None and len(norm.input) > 1 else None
    if norm_scale:
        todo, looked = [norm_scale], 0
        while todo and looked < 16 and gain is None:
            t = todo.pop()
            looked += 1
            if t in imp.init_dims:
                # (the default exporter folds gain × scale into one constant: 'view_10',
                # 'val_12'; a norm without a gain has a scale of ones)
                values = imp.values.get(t)
                if t in inits and numel(imp.init_dims[t]) == filters and (
                        imp.is_learned(t) or values is None
                        or any(float(v) != 1.0 for v in flat(values))):
                    gain = t
                continue
            p = imp.producer.get(t)
            if p is not None:
                todo.extend(i for i in imp.nodes[p].input if i)
    if norm is None:  # written out: a learned per-filter factor is the gain
        gain = next((t for t in inits if t != main and numel(imp.init_dims[t]) == filters
                     and imp.is_learned(t)), None)
    claims = (main,) + ((gain,) if gain else ())
    imp.weight_constants.update(
        t for t in inits if t not in claims)
    return ("gain" if gain else "plain"), claims




def map_conv_transpose(imp, node, main, acts, facts):
    w = imp.dims_of(node.input[1]) if len(node.input) > 1 else None
    x = imp.per_sample(main)
    out = imp.per_sample(node.output[0])
    if w is None or x is None or out is None or len(w) not in (3, 4, 5) or \
            len(x) != len(w) - 1:
        return imp.placeholder(node, main)
    dims = len(w) - 2
    group = int(imp.attr(node, "group", 1) or 1)
    filters = int(w[1]) * group
    kernel = imp.attr(node, "kernel_shape") or list(w[2:])
    strides = imp.attr(node, "strides") or [1] * dims
    bias = len(node.input) > 2 and bool(node.input[2])
    weights = (node.input[1],) + ((node.input[2],) if bias else ())
    # (the default exporter folds a batch norm into a transposed convolution too: LinkNet's
    # decoder, 'FuseBatchNormIntoConvTranspose')
    bn = facts.get("restore_bn")
    bias = _bias_beside_norm(imp, node, bias, bn, filters)
    pads = [int(v) for v in (imp.attr(node, "pads") or [0] * (2 * dims))]
    params = {
        "filters": filters, "kernel": one(kernel), "stride": one(strides),
        "padding": norm_padding(pads[:dims], pads[dims:], imp, node, "ConvTranspose"),
        "output_padding": one(imp.attr(node, "output_padding") or [0] * dims),
        "dilation": one(imp.attr(node, "dilations") or [1] * dims),
        "groups": group, "bias": bias}
    if dims == 1:
        # ConvTranspose1d (audio decoders, 1-D U-Nets) as a 2-D one over a height of 1, as
        # map_conv does for Conv1d: the same parameters and bytes.
        params = {k: ((0, int(v)) if k == "padding" and isinstance(v, int) else
                      (1, int(v)) if k in ("kernel", "stride", "dilation") else
                      (0, int(v)) if k == "output_padding" else v)
                  for k, v in params.items()}
        up = imp.emit("view", node, {"shape": (x[0], 1, x[1])}, main, out=[],
                      name=imp.layer_name(node, "as2d"))
        imp.tensor_layer["\0" + up] = up
        imp.layer_out[up] = (x[0], 1, x[1])
        conv = imp.emit("conv_transpose2d", node, params, "\0" + up, out=[], weights=weights)
        imp.tensor_layer["\0" + conv] = conv
        imp.layer_out[conv] = (out[0], 1, out[1])
        imp.expect.append((conv, (out[0], 1, out[1]), node))
        imp.emit("view", node, {"shape": out}, "\0" + conv, name=imp.layer_name(node, "as1d"))
    else:
        kind = "conv_transpose2d" if dims == 2 else "conv_transpose3d"
        imp.emit(kind, node, params, main, weights=weights)
    if bn is not None:
        _restore_bn(imp, node, bn, filters)
