"""onnxruntime's contrib operators (domain ``com.microsoft``, and the few it registers in the
ONNX domain) and quantized graphs: what files from Hugging Face Optimum (``--optimize O1-O4``,
onnxruntime's transformer optimizer), onnxruntime's quantization tools and fp16 converters hold.

Shapes. ONNX's shape inference has no schema for these operators; ``shape_stand_ins`` replaces
each one, in the copy shape inference works on only, by standard operators that give the same
output shapes (an ``Identity`` of the input, a ``MatMul`` with a typed stand-in of the weight's
shape, a ``Gather``), so the whole graph is inferred in one pass.

Mapping. Each fused operator is planned as what autograd keeps for its unfused PyTorch
equivalent: ``SkipLayerNormalization`` as the residual add and the layer norm (the dense
layer's bias it may carry is that layer's parameter), ``BiasGelu``/``FastGelu`` as the bias and
one GELU, ``Attention`` as the q, k and v projections and fused scaled-dot-product attention,
``EmbedLayerNormalization`` as the embeddings, their sum and the layer norm, and so on.
Operators of the domain without a mapping are listed as not understood (never read as the
ONNX operator of the same name: ``com.microsoft`` ``Attention`` is not opset 23's).

Quantized weights (``DequantizeLinear`` of an integer initializer, ``MatMulInteger``,
``QLinearConv``, ``MatMulNBits``'s packed 4-bit blocks) are the float parameters they stand
for: counted by their logical elements; scales and zero points are no parameters.
"""

from __future__ import annotations

from typing import Any

from planner.core.layers import numel
from planner.i18n import QT_TRANSLATE_NOOP, Msg

MS = "com.microsoft"

# Contrib operators whose output 0 has the shape of input 0 (and, for the skip norms, output
# 3, the sum of input, skip and bias).
_SAME_SHAPE = {"FastGelu", "BiasGelu", "Gelu", "QuickGelu", "BiasAdd", "RotaryEmbedding",
               "SkipLayerNormalization", "SkipSimplifiedLayerNormalization",
               "SimplifiedLayerNormalization", "LayerNormalization", "BiasDropout",
               "BiasSoftmax", "FastGeluGrad", "GemmaRotaryEmbedding"}
# Operators onnxruntime registers in the ONNX domain that ONNX itself does not define.
_ORT_IN_ONNX_DOMAIN = {"SimplifiedLayerNormalization", "SkipSimplifiedLayerNormalization"}
# Integer initializers these operators read as a (quantized) weight: input position.
_QUANTIZED_WEIGHT_SLOT = {"DequantizeLinear": 0, "MatMulInteger": 1, "ConvInteger": 1,
                          "QLinearConv": 3, "QLinearMatMul": 3, "MatMulNBits": 1,
                          "GatherBlockQuantized": 0, "DynamicQuantizeMatMul": 1,
                          "MatMulIntegerToFloat": 1}
# ... and where their scales and zero points are (quantization metadata, no parameters).
_QUANT_META = {"DequantizeLinear": (1, 2), "QuantizeLinear": (1, 2), "MatMulInteger": (2, 3),
               "ConvInteger": (2, 3), "QLinearConv": (1, 2, 4, 5, 6, 7),
               "QLinearMatMul": (1, 2, 4, 5, 6, 7), "MatMulNBits": (2, 3, 4),
               "GatherBlockQuantized": (2, 3), "DynamicQuantizeMatMul": (2, 3),
               "MatMulIntegerToFloat": (2, 3, 4, 5)}
_INT_TYPES = {2, 3, 4, 5, 6, 12, 21, 22}  # (u)int8/16/32, (u)int4


def is_contrib(node) -> bool:
    """A node of onnxruntime's contrib domain, or one of its ops in the ONNX domain."""
    return node.domain == MS or (node.domain in ("", "ai.onnx") and
                                 node.op_type in _ORT_IN_ONNX_DOMAIN)


# ------------------------------------------------------------------------------ quantization
def quantized_weights(imp, graph) -> None:
    """Integer initializers read as weights by quantized operators: recorded as float
    parameters of their logical size (``imp.quantized``); their scales and zero points as
    quantization metadata (``imp.quant_meta``)."""
    imp.quantized: dict[str, int] = {}
    imp.quant_meta: set[str] = set()
    dims, types = imp.init_dims, imp.init_type
    gathers: dict[str, str] = {}  # Gather output -> its integer table
    for node in graph.node:
        op = node.op_type
        ins = list(node.input)
        if op == "Gather" and ins and ins[0] in dims and types.get(ins[0]) in _INT_TYPES:
            gathers[node.output[0]] = ins[0]
        for k in _QUANT_META.get(op, ()):
            if k < len(ins) and ins[k] in dims:
                imp.quant_meta.add(ins[k])
        k = _QUANTIZED_WEIGHT_SLOT.get(op)
        if k is None or k >= len(ins):
            continue
        w = ins[k]
        if op == "DequantizeLinear" and w in gathers:  # a quantized embedding table
            w = gathers[w]
        if w not in dims or types.get(w) not in _INT_TYPES or numel(dims[w]) < 2:
            continue
        if op == "MatMulNBits":
            kk, nn = _attr(node, "K", 0), _attr(node, "N", 0)
            imp.quantized[w] = int(kk) * int(nn) if kk and nn else numel(dims[w])
        else:
            imp.quantized[w] = numel(dims[w])
    for w in imp.quantized:
        types[w] = 1  # read as the float weight it stands for
        imp.values.pop(w, None)
    imp.quant_meta -= set(imp.quantized)
    imp.buffers.update(imp.quant_meta)


def _attr(node, name, default=None):
    for a in node.attribute:
        if a.name == name:
            if a.type == 2:  # INT
                return a.i
            if a.type == 1:
                return a.f
            if a.type == 7:
                return list(a.ints)
    return default


# --------------------------------------------------------------------------- shape stand-ins
def shape_stand_ins(imp, work) -> int:
    """Replace the contrib nodes of ``work`` (shape inference's copy) by standard nodes with
    the same output shapes. Returns how many were replaced."""
    helper = imp.onnx.helper
    g = work.graph
    dims = imp.init_dims
    new_nodes, extra_inputs = [], []
    replaced = 0

    def typed(name, elem, shape):
        vi = helper.make_tensor_value_info(name, elem, list(shape))
        extra_inputs.append(vi)
        return name

    for node in g.node:
        op = node.op_type
        if not is_contrib(node) or op in ("QuantizeLinear", "DequantizeLinear"):
            new_nodes.append(node)
            continue
        ins, outs = list(node.input), list(node.output)
        tag = f"__planner_stand_in_{replaced}"
        elem = imp.init_type.get(ins[1], 1) if len(ins) > 1 and ins[1] in dims else 1
        made: list | None = None
        if op in _SAME_SHAPE and ins and ins[0]:
            made = [helper.make_node("Identity", [ins[0]], [outs[0]])]
            if len(outs) > 3 and outs[3]:
                made.append(helper.make_node("Identity", [ins[0]], [outs[3]]))
        elif op == "Attention" and len(ins) > 1 and ins[1] in dims:
            hidden = _attr(node, "qkv_hidden_sizes") or []
            w = dims[ins[1]]
            v = int(hidden[2]) if len(hidden) == 3 else int(w[-1]) // 3
            made = [helper.make_node("MatMul", [ins[0], typed(tag, elem, (w[0], v))],
                                     [outs[0]])]
        elif op in ("MultiHeadAttention", "GroupQueryAttention", "PackedAttention") and ins:
            made = _attention_stand_in(helper, node, ins, outs, tag, dims)
        elif op == "EmbedLayerNormalization" and len(ins) > 2 and ins[2]:
            made = [helper.make_node("Gather", [ins[2], ins[0]], [outs[0]])]
            if len(outs) > 2 and outs[2]:
                made.append(helper.make_node("Gather", [ins[2], ins[0]], [outs[2]]))
        elif op == "MatMulNBits" and len(ins) > 2:
            k, n = _attr(node, "K", 0), _attr(node, "N", 0)
            if k and n:
                made = [helper.make_node("MatMul", [ins[0], typed(
                    tag, imp.init_type.get(ins[2], 1), (int(k), int(n)))], [outs[0]])]
        elif op in ("FusedMatMul", "GemmFastGelu") and len(ins) > 1:
            ta, tb = int(_attr(node, "transA", 0) or 0), int(_attr(node, "transB", 0) or 0)
            if not (_attr(node, "transBatchA", 0) or _attr(node, "transBatchB", 0)):
                eq = f"...{'ji' if ta else 'ij'},...{'kj' if tb else 'jk'}->...ik"
                made = [helper.make_node("Einsum", ins[:2], [outs[0]], equation=eq)]
        elif op == "FusedConv":
            keep = [a for a in node.attribute if a.name not in ("activation", "activation_params")]
            c = helper.make_node("Conv", ins[:3], [outs[0]])
            c.attribute.extend(keep)
            made = [c]
        if made is None:
            new_nodes.append(node)
            continue
        replaced += 1
        new_nodes.extend(made)
    if replaced:
        g.ClearField("node")
        g.node.extend(new_nodes)
        g.input.extend(extra_inputs)
    return replaced


def _attention_stand_in(helper, node, ins, outs, tag, dims):
    """Output 0 of MultiHeadAttention / GroupQueryAttention: query's shape with v's head size
    (packed q/k/v in one input: the q part)."""
    q = ins[0]
    k = ins[1] if len(ins) > 1 else ""
    v = ins[2] if len(ins) > 2 else ""
    heads = int(_attr(node, "num_heads", 0) or 0)
    if node.op_type == "GroupQueryAttention" and not k:
        kv = int(_attr(node, "kv_num_heads", 0) or 0)
        if not heads or not kv:
            return None
        # packed (B, S, (heads + 2 kv) · d): the q part
        return _packed_q(helper, q, outs[0], tag, heads, kv)
    if k and v and k not in dims and v not in dims:
        # q (B, S, D), k (B, L, D), v (B, L, Dv): (q · kᵀ) · v has q's rows and v's columns
        return [helper.make_node("Einsum", [q, k], [f"{tag}_s"], equation="bsd,bld->bsl"),
                helper.make_node("Einsum", [f"{tag}_s", v], [outs[0]],
                                 equation="bsl,bld->bsd")]
    return [helper.make_node("Identity", [q], [outs[0]])]


def _packed_q(helper, q, out, tag, heads, kv):
    """The q part of a packed q/k/v tensor (its last axis split heads : kv : kv)."""
    return [
        helper.make_node("Shape", [q], [f"{tag}_shape"], start=-1),
        helper.make_node("Div", [f"{tag}_shape", f"{tag}_parts"], [f"{tag}_unit"]),
        helper.make_node("Mul", [f"{tag}_unit", f"{tag}_heads"], [f"{tag}_end"]),
        helper.make_node("Slice", [q, f"{tag}_zero", f"{tag}_end", f"{tag}_axis"], [out]),
        helper.make_node("Constant", [], [f"{tag}_parts"],
                         value=helper.make_tensor("p", 7, [1], [heads + 2 * kv])),
        helper.make_node("Constant", [], [f"{tag}_heads"],
                         value=helper.make_tensor("h", 7, [1], [heads])),
        helper.make_node("Constant", [], [f"{tag}_zero"],
                         value=helper.make_tensor("z", 7, [1], [0])),
        helper.make_node("Constant", [], [f"{tag}_axis"],
                         value=helper.make_tensor("a", 7, [1], [-1])),
    ]


# ---------------------------------------------------------------------------------- mapping
def _after(imp, kind: str, node, params: dict[str, Any], src: str, shape, *,
           out: list[str] = (), name: str | None = None, weights: tuple[str, ...] = (),
           suffix: str = "") -> str:
    """A layer reading planner layer ``src`` (not a tensor of the file), claiming
    ``weights``; its output stands for the tensors ``out``."""
    key = f"\0{src}"
    dict.__setitem__(imp.tensor_layer, key, src)
    name = name or imp.layer_name(node, suffix)
    layer = imp.emit(kind, node, params, key, out=list(out), name=name,
                     weights=tuple(w for w in weights if w))
    dict.pop(imp.tensor_layer, key, None)
    imp.layer_out[layer] = tuple(shape) if shape is not None else None
    return layer


def _bias_layer(imp, node, src: str, bias: str, shape, suffix: str = "bias") -> str:
    """A dense layer's bias that a fused operator adds (its parameters, nothing kept)."""
    if not bias:
        return src
    n = numel(imp.init_dims.get(imp.origin(bias) or bias, ()) or (0,))
    return _after(imp, "elementwise", node, {"op": "add", "keeps": "nothing", "parameters": n},
                  src, shape, weights=(bias,), suffix=suffix)


def _input(node, k: int) -> str:
    return node.input[k] if len(node.input) > k else ""


def _map_skip_norm(imp, node, main, acts, facts):
    """SkipLayerNormalization(x, skip, gamma, beta, bias) = LayerNorm(x + skip + bias):
    the residual add keeps nothing, the norm keeps its input (the sum, output 3)."""
    x, skip = _input(node, 0), _input(node, 1)
    if x not in imp.tensor_layer or skip not in imp.tensor_layer:
        return imp.placeholder(node, main)
    shape = imp.per_sample(node.output[0])
    src = _bias_layer(imp, node, imp.tensor_layer[x], _input(node, 4), shape)
    total = _after(imp, "add", node, {"from": imp.tensor_layer[skip]}, src, shape,
                   out=[node.output[3]] if len(node.output) > 3 and node.output[3] else [],
                   suffix="add")
    gamma, beta = _input(node, 2), _input(node, 3)
    if node.op_type == "SkipSimplifiedLayerNormalization":
        _after(imp, "rmsnorm", node, {"affine": bool(gamma)}, total, shape,
               out=[node.output[0]], weights=(gamma,), suffix="norm")
        return None
    _after(imp, "layernorm", node, {} if beta else {"bias": False}, total, shape,
           out=[node.output[0]], weights=(gamma, beta), suffix="norm")
    return None


def _map_simplified_norm(imp, node, main, acts, facts):
    scale = _input(node, 1)
    imp.emit("rmsnorm", node, {"affine": bool(scale)}, main, out=[node.output[0]],
             weights=(scale,) if scale else ())


def _map_layernorm_ms(imp, node, main, acts, facts):
    from planner.core.importers.onnx.mappers import MAPPERS  # noqa: PLC0415

    return MAPPERS["LayerNormalization"](imp, node, main, acts, facts)


def _map_gelu(imp, node, main, acts, facts):
    """Gelu, BiasGelu (x + bias, then erf GELU) and FastGelu (tanh GELU, bias optional): the
    dense layer's bias, then one GELU keeping its input (F.gelu)."""
    shape = imp.per_sample(node.output[0])
    src = _bias_layer(imp, node, imp.tensor_layer[main], _input(node, 1), shape)
    _after(imp, "activation", node, {"function": "gelu"}, src, shape, out=[node.output[0]],
           name=imp.layer_name(node))
    if node.op_type == "FastGelu":
        imp.fast_gelus = getattr(imp, "fast_gelus", 0) + 1
        imp.fast_gelu_elements = getattr(imp, "fast_gelu_elements", 0) + numel(shape or ())


def _map_quick_gelu(imp, node, main, acts, facts):
    """QuickGelu: x · sigmoid(alpha · x). alpha = 1 is SiLU (nn.SiLU keeps its input);
    another alpha is written in Python (CLIP's quick_gelu), which keeps x and the sigmoid."""
    alpha = float(_attr(node, "alpha", 1.702) or 1.702)
    shape = imp.per_sample(node.output[0])
    if abs(alpha - 1.0) < 1e-6:
        imp.emit("activation", node, {"function": "silu"}, main)
        return
    sig = _after(imp, "elementwise", node, {"op": "other", "keeps": "output"},
                 imp.tensor_layer[main], shape, suffix="sigmoid")
    _after(imp, "elementwise", node, {"op": "mul", "keeps": "input", "from": (sig,)},
           imp.tensor_layer[main], shape, out=[node.output[0]], suffix="mul")


def _map_bias_add(imp, node, main, acts, facts):
    """BiasAdd(x, bias, skip) = x + bias + skip."""
    x, skip = _input(node, 0), _input(node, 2)
    if x not in imp.tensor_layer or skip not in imp.tensor_layer:
        return imp.placeholder(node, main)
    shape = imp.per_sample(node.output[0])
    src = _bias_layer(imp, node, imp.tensor_layer[x], _input(node, 1), shape)
    _after(imp, "add", node, {"from": imp.tensor_layer[skip]}, src, shape,
           out=[node.output[0]], suffix="add")


def _map_rotary(imp, node, main, acts, facts):
    """RotaryEmbedding(x, positions, cos, sin): x · cos + rotate(x) · sin with the tables as
    buffers: keeps only the gathered tables (a few values per token), planned as nothing."""
    imp.buffers.update(i for i in node.input[2:4] if i)
    imp.emit("elementwise", node, {"op": "other", "keeps": "nothing"}, main,
             out=[node.output[0]])


def _heads_view(imp, node, src: str, shape, suffix: str) -> str:
    return _after(imp, "elementwise", node, {"op": "other", "keeps": "nothing",
                                             "shape": tuple(shape)}, src, shape, suffix=suffix)


def _map_attention(imp, node, main, acts, facts):
    """com.microsoft Attention(x, weights, bias, mask_index, past, attention_bias): the q, k
    and v projections of x (one packed weight) and fused attention over num_heads heads."""
    x, w, b = _input(node, 0), _input(node, 1), _input(node, 2)
    if _input(node, 4) or w in imp.acts or imp.dims_of(w) is None or len(imp.dims_of(w)) != 2:
        return imp.placeholder(node, main)
    xs = imp.per_sample(x)
    out = imp.per_sample(node.output[0])
    heads = int(_attr(node, "num_heads", 0) or 0)
    wd = imp.dims_of(w)
    sizes = [int(s) for s in (_attr(node, "qkv_hidden_sizes") or [])] or [int(wd[1]) // 3] * 3
    if xs is None or out is None or len(xs) != 2 or not heads or sum(sizes) != wd[1]:
        return imp.placeholder(node, main)
    t = xs[0]
    src = imp.tensor_layer[x]
    proj = []
    for k, (units, part) in enumerate(zip(sizes, "qkv")):
        # the packed weight and bias are claimed once (by q's projection), their elements
        # split over the three
        proj.append(_after(imp, "fc", node, {"units": units, "bias": bool(b)}, src,
                           (t, units), weights=(w, b) if k == 0 else (), suffix=part))
    params: dict[str, Any] = {"from": (proj[1], proj[2]), "heads": heads}
    if int(_attr(node, "unidirectional", 0) or 0):
        params["causal"] = True
    _after(imp, "attention", node, params, proj[0], out, out=[node.output[0]],
           suffix="attention")
    imp.fused_patterns["attention"] = imp.fused_patterns.get("attention", 0) + 1
    imp.contrib_attention = getattr(imp, "contrib_attention", 0) + 1


def _map_mha(imp, node, main, acts, facts):
    """MultiHeadAttention(q, k, v, bias, key_padding_mask, attention_bias, past…) and
    GroupQueryAttention(q, k, v, past_key, past_value, seqlens_k, total_length, cos, sin)
    on B×S×(heads·d) activations: fused attention (GroupQueryAttention: causal, k and v on
    the key/value heads, rotary inside)."""
    q, k, v = _input(node, 0), _input(node, 1), _input(node, 2)
    gqa = node.op_type == "GroupQueryAttention"
    heads = int(_attr(node, "num_heads", 0) or 0)
    kv_heads = int(_attr(node, "kv_num_heads", 0) or 0) if gqa else heads
    qs = imp.per_sample(q)
    out = imp.per_sample(node.output[0])
    past = [_input(node, 3), _input(node, 4)] if gqa else [_input(node, 6), _input(node, 7)]
    if not heads or not kv_heads or qs is None or len(qs) != 2 or out is None or \
            any(p and p in imp.acts and imp.per_sample(p) and numel(imp.per_sample(p)) > 0
                for p in past):
        return imp.placeholder(node, main)
    src = imp.tensor_layer[q]
    if not k:  # packed q, k, v (B, S, (heads + 2·kv) · d)
        if not gqa or qs[1] % (heads + 2 * kv_heads):
            return imp.placeholder(node, main)
        d = qs[1] // (heads + 2 * kv_heads)
        t = qs[0]
        q_l = _heads_view(imp, node, src, (t, heads * d), "q")
        k_l = _heads_view(imp, node, src, (t, kv_heads * d), "k")
        v_l = _heads_view(imp, node, src, (t, kv_heads * d), "v")
    else:
        if k not in imp.tensor_layer or v not in imp.tensor_layer:
            return imp.placeholder(node, main)
        ks, vs = imp.per_sample(k), imp.per_sample(v)
        if ks is None or vs is None or len(ks) != 2 or len(vs) != 2:
            return imp.placeholder(node, main)
        q_l, k_l, v_l = src, imp.tensor_layer[k], imp.tensor_layer[v]
        if not gqa and _input(node, 3):  # the projections' biases, packed (3·D)
            q_l = _bias_layer(imp, node, q_l, _input(node, 3), qs)
    if gqa:
        imp.buffers.update(i for i in node.input[7:9] if i)  # cos / sin caches
    params: dict[str, Any] = {"from": (k_l, v_l), "heads": heads}
    if kv_heads != heads:
        params["kv_heads"] = kv_heads
        # as the importer plans a traced repeat_kv: k and v kept once where the network has
        # no mask input (SDPA's enable_gqa), repeated where it has one
        params["repeat_kv"] = bool(imp.side_inputs)
    if gqa:
        params["causal"] = True
    _after(imp, "attention", node, params, q_l, out, out=[node.output[0]], suffix="attention")
    imp.fused_patterns["attention"] = imp.fused_patterns.get("attention", 0) + 1
    imp.contrib_attention = getattr(imp, "contrib_attention", 0) + 1


def _map_embed_norm(imp, node, main, acts, facts):
    """EmbedLayerNormalization(ids, segment_ids, word, position, segment, gamma, beta, mask,
    position_ids): word, position and segment embeddings, their sum (output 2) and the layer
    norm (output 0). Output 1 (the mask's lengths) is computed from the mask alone."""
    ids = _input(node, 0)
    word, pos, segt = _input(node, 2), _input(node, 3), _input(node, 4)
    wd = imp.dims_of(word)
    out = imp.per_sample(node.output[0])
    if ids not in imp.tensor_layer or wd is None or len(wd) != 2 or out is None:
        return imp.placeholder(node, main)
    emb = imp.emit("embedding", node, {"num": int(wd[0]), "dim": int(wd[1])}, ids, out=[],
                   name=imp.layer_name(node, "word"), weights=(word,))
    imp.layer_out[emb] = out
    src = emb
    for table, suffix in ((pos, "position"), (segt, "segment")):
        td = imp.dims_of(table) if table else None
        if td is None:
            continue
        src = _after(imp, "elementwise", node, {"op": "add", "keeps": "nothing",
                                                "parameters": numel(td)}, src, out,
                     weights=(table,), suffix=suffix)
    total_out = [node.output[2]] if len(node.output) > 2 and node.output[2] else []
    if total_out:
        imp.tensor_layer[total_out[0]] = src
    gamma, beta = _input(node, 5), _input(node, 6)
    _after(imp, "layernorm", node, {} if beta else {"bias": False}, src, out,
           out=[node.output[0]], weights=(gamma, beta), suffix="norm")


def _map_nbits(imp, node, main, acts, facts):
    """MatMulNBits(x, packed weight, scales, zero points, g_idx, bias): a linear layer of
    K × N (its packed weight counts as K · N parameters; scales and zero points are no
    parameters)."""
    n = int(_attr(node, "N", 0) or 0)
    if not n:
        return imp.placeholder(node, main)
    bias = _input(node, 5)
    imp.emit("fc", node, {"units": n, "bias": bool(bias)}, main,
             weights=(_input(node, 1),) + ((bias,) if bias else ()))
    imp.quantized_layers = getattr(imp, "quantized_layers", 0) + 1


def _as_node(node, op: str, inputs: list[str]):
    """``node`` read as standard operator ``op`` with ``inputs`` (its attributes kept)."""
    from planner.core.importers.onnx.graph import Node  # noqa: PLC0415

    n = Node.__new__(Node)
    n.proto, n.op_type, n.name, n.domain = node.proto, op, node.name, ""
    n.input, n.output = list(inputs), list(node.output)
    n.attribute = [a for a in node.attribute if a.name not in (
        "activation", "activation_params", "alpha", "transA", "transB")]
    n.metadata_props = node.metadata_props
    return n


def _map_as(op: str, slots: tuple[int, ...]):
    """Quantized products (QLinearConv, QLinearMatMul, MatMulInteger, ConvInteger) and fused
    ones (FusedConv, FusedMatMul without transposes): the float operator on the same data
    and weights."""
    def mapper(imp, node, main, acts, facts):
        from planner.core.importers.onnx.mappers import MAPPERS  # noqa: PLC0415

        if node.op_type == "FusedMatMul" and any(
                int(_attr(node, a, 0) or 0) for a in ("transA", "transB", "transBatchA",
                                                       "transBatchB")):
            return imp.placeholder(node, main)
        ins = [node.input[k] if k < len(node.input) else "" for k in slots]
        while ins and not ins[-1]:
            ins.pop()
        fake = _as_node(node, op, ins)
        if node.op_type.startswith(("QLinear", "MatMulInteger", "ConvInteger")):
            imp.quantized_layers = getattr(imp, "quantized_layers", 0) + 1
        result = MAPPERS[op](imp, fake, main, acts, facts)
        if node.op_type == "FusedConv":
            act = _attr(node, "activation")
            fn = {b"Relu": "relu", "Relu": "relu", b"Sigmoid": "sigmoid", "Sigmoid": "sigmoid",
                  b"Tanh": "tanh", "Tanh": "tanh", b"LeakyRelu": "leaky_relu",
                  "LeakyRelu": "leaky_relu"}.get(act) if act is not None else None
            if fn:
                layer = imp.tensor_layer[node.output[0]]
                _after(imp, "activation", node, {"function": fn}, layer,
                       imp.per_sample(node.output[0]), out=[node.output[0]], suffix="act")
        return result
    return mapper


def _map_quantize(imp, node, main, acts, facts):
    """QuantizeLinear / DequantizeLinear / DynamicQuantizeLinear of an activation: a fake
    quantization step the float network does not have (output 0 is its input)."""
    for o in node.output[:1]:
        if o:
            imp.tensor_layer[o] = imp.tensor_layer[main]
    imp.status[imp.current] = "folded"
    imp.quantize_steps = getattr(imp, "quantize_steps", 0) + 1


MS_MAPPERS = {
    "SkipLayerNormalization": _map_skip_norm,
    "SkipSimplifiedLayerNormalization": _map_skip_norm,
    "SimplifiedLayerNormalization": _map_simplified_norm,
    "LayerNormalization": _map_layernorm_ms,
    "Gelu": _map_gelu,
    "BiasGelu": _map_gelu,
    "FastGelu": _map_gelu,
    "QuickGelu": _map_quick_gelu,
    "BiasAdd": _map_bias_add,
    "RotaryEmbedding": _map_rotary,
    "Attention": _map_attention,
    "MultiHeadAttention": _map_mha,
    "GroupQueryAttention": _map_mha,
    "EmbedLayerNormalization": _map_embed_norm,
    "MatMulNBits": _map_nbits,
    "FusedMatMul": _map_as("MatMul", (0, 1)),
    "FusedConv": _map_as("Conv", (0, 1, 2)),
    "QuantizeLinear": _map_quantize,
    "DequantizeLinear": _map_quantize,
}
# Standard ONNX operators of quantized graphs.
QUANT_MAPPERS = {
    "QuantizeLinear": _map_quantize,
    "DequantizeLinear": _map_quantize,
    "DynamicQuantizeLinear": _map_quantize,
    "QLinearConv": _map_as("Conv", (0, 3, 8)),
    "QLinearMatMul": _map_as("MatMul", (0, 3)),
    "MatMulInteger": _map_as("MatMul", (0, 1)),
    "ConvInteger": _map_as("Conv", (0, 1)),
}


def map_contrib(imp, node, main, acts, facts):
    mapper = MS_MAPPERS.get(node.op_type)
    if mapper is None:
        return imp.placeholder(node, main)
    return mapper(imp, node, main, acts, facts)


def notes(imp) -> None:
    """What the plan of an optimised or quantized file means, said once."""
    fast = getattr(imp, "fast_gelus", 0)
    if fast:
        # the file cannot tell which: said with the figure (a warning, not a note)
        extra = 3 * getattr(imp, "fast_gelu_elements", 0) * 4
        imp.warnings.append(Msg(QT_TRANSLATE_NOOP(
            "core", "{n} FastGelu operator(s) (onnxruntime's fused tanh GELU) are planned as "
            "one GELU each, keeping its input (F.gelu(approximate='tanh')). If the network "
            "writes the GELU in Python (GPT-2's gelu_new), training keeps 3 more tensors of "
            "its size: {mib} MiB more per sample in fp32 than planned."), n=fast,
            mib=f"{extra / 2**20:.2f}"))
    fused = getattr(imp, "contrib_attention", 0)
    if fused:
        imp.notes.append(Msg(QT_TRANSLATE_NOOP(
            "core", "{n} attention operator(s) fused by onnxruntime (com.microsoft) are "
            "planned as their projections and fused scaled-dot-product attention (q, k, v, "
            "the output and a logsumexp kept)."), n=fused))
    steps = getattr(imp, "quantize_steps", 0)
    if steps:
        # measured: Optimum's dynamic and static (QDQ) quantized BERT, GPT-2, Llama and ViT
        # files planned 16-67 % above what the float network keeps (cause not found yet)
        imp.incomplete = True
        imp.warnings.append(Msg(QT_TRANSLATE_NOOP(
            "core", "The file quantizes its activations ({n} quantize/dequantize steps): the "
            "saved activations of such files were measured up to 67 % above what the float "
            "network keeps in training. Plan the unquantized export for training figures."),
            n=steps))
    q = getattr(imp, "quantized", {})
    if q:
        imp.notes.append(Msg(QT_TRANSLATE_NOOP(
            "core", "The file stores {n} weight tensor(s) quantized ({values} values as 8- or "
            "4-bit integers with scales): they are counted as the float parameters they stand "
            "for, and the plan trains them at the precision you choose (the file's own "
            "storage is an inference format; for QLoRA-style training choose --finetune "
            "qlora)."), n=len(q), values=f"{sum(q.values()):,}"))

