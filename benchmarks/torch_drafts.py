"""Turn a torchvision network into a planner NetworkDraft by tracing it with torch.fx.

For the benchmarks only (torch is never a dependency of the project). Modules and functions are
mapped to the planner's layer kinds one to one: Conv2d, BatchNorm2d, ReLU/ReLU6/Hardtanh/SiLU/
Hardswish/Sigmoid/GELU, MaxPool2d, AvgPool2d, AdaptiveAvgPool2d (mean() for 1×1, as PyTorch),
Dropout, Linear, flatten/view, residual add and concatenation. Anything else raises
``Unsupported`` naming the node, so a network is either converted in full or not at all.
"""

from __future__ import annotations

import operator

import torch
import torch.fx
from torch.fx.passes.shape_prop import ShapeProp
import torch.nn as nn
import torch.nn.functional as F

from planner.core.layers import LayerSpec
from planner.core.network import NetworkDraft


class Unsupported(ValueError):
    pass


_ACT_MODULES = {nn.ReLU: "relu", nn.ReLU6: "relu6", nn.SiLU: "silu", nn.Hardswish: "hardswish",
                nn.Sigmoid: "sigmoid", nn.GELU: "gelu", nn.Hardsigmoid: "hardsigmoid",
                nn.Tanh: "tanh", nn.LeakyReLU: "leaky_relu"}
_ACT_FUNCS = {F.relu: "relu", torch.relu: "relu", F.relu6: "relu6", F.silu: "silu",
              F.hardswish: "hardswish", torch.sigmoid: "sigmoid", F.gelu: "gelu"}


def _pair(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


def _one(v):
    t = _pair(v)
    return t[0] if t[0] == t[1] else list(t)


def _per_sample(node) -> tuple[int, ...] | None:
    """A tensor node's shape without the batch dimension (from ShapeProp), else None."""
    meta = node.meta.get("tensor_meta")
    shape = getattr(meta, "shape", None)
    return tuple(int(d) for d in shape[1:]) if shape is not None else None


def _is_tensor(node) -> bool:
    return "tensor_meta" in node.meta


def draft_from_module(model: nn.Module, input_shape: tuple[int, ...], name: str) -> NetworkDraft:
    gm = torch.fx.symbolic_trace(model)
    modules = dict(gm.named_modules())
    # Shapes of every node (one sample, eval mode so batch norm accepts it): views take theirs.
    was_training = model.training
    try:
        gm.eval()
        with torch.no_grad():
            ShapeProp(gm).propagate(torch.zeros(1, *input_shape))
    finally:
        gm.train(was_training)
    layers: list[LayerSpec] = []
    names: dict[str, str] = {}  # fx node → planner layer name
    learned: dict[str, int] = {}  # fx node → elements of the parameter it is (get_attr, expand)

    def emit(kind: str, node, src, **params):
        lname = node.name.replace("_", ".")
        if src is not None and (not layers or names[src.name] != layers[-1].name):
            params["input"] = names[src.name]
        layers.append(LayerSpec(kind, lname, params))
        names[node.name] = lname

    def emit_as(kind: str, lname: str, src_layer: str, **params):
        """A further planner layer for one fx node (MultiheadAttention's parts)."""
        if src_layer != layers[-1].name:
            params["input"] = src_layer
        layers.append(LayerSpec(kind, lname, params))
        return lname

    def alias(node, src):
        names[node.name] = names[src.name]

    def attention(node, m: nn.MultiheadAttention, src) -> None:
        """torch.nn.MultiheadAttention (self-attention, need_weights=False) as PyTorch runs it
        in training: one packed in-projection, a contiguous copy split into q, k, v, fused
        scaled-dot-product attention, a contiguous copy of its output, the out-projection."""
        if not (m._qkv_same_embed_dim and m.in_proj_bias is not None
                and node.args[0] is node.args[1] is node.args[2]
                and node.kwargs.get("need_weights") is False and m.batch_first):
            raise Unsupported(f"{name}: {node.target}: only batch-first self-attention with "
                              "need_weights=False is mapped")
        seq, e = _per_sample(src)
        heads = m.num_heads
        base = node.name.replace("_", ".")
        emit_as("fc", f"{base}.in_proj", names[src.name], units=3 * e, bias=True)
        packed = emit_as("generic", f"{base}.qkv", f"{base}.in_proj", keeps="nothing")
        q = emit_as("view", f"{base}.q", packed, shape=(heads, seq, e // heads))
        k = emit_as("view", f"{base}.k", packed, shape=(heads, seq, e // heads))
        emit_as("view", f"{base}.v", packed, shape=(heads, seq, e // heads))
        emit_as("attention", f"{base}.sdpa", q, **{"from": (k, f"{base}.v")})
        emit_as("view", f"{base}.merge", f"{base}.sdpa", shape=(seq, e))
        emit_as("generic", f"{base}.out", f"{base}.merge", keeps="nothing")
        names[node.name] = emit_as("fc", f"{base}.out_proj", f"{base}.out", units=e,
                                   bias=m.out_proj.bias is not None)

    for node in gm.graph.nodes:
        if node.op == "placeholder":
            layers.append(LayerSpec("input", "input", {"shape": tuple(input_shape)}))
            names[node.name] = "input"
            continue
        if node.op == "output":
            break
        args = node.args
        src = args[0] if args and isinstance(args[0], torch.fx.Node) else None
        if node.op == "get_attr":
            learned[node.name] = int(gm.get_parameter(node.target).numel())
            continue
        if node.op == "call_module" and isinstance(modules[node.target],
                                                   nn.MultiheadAttention):
            attention(node, modules[node.target], src)
            continue
        if not _is_tensor(node):
            continue  # shape arithmetic and checks (x.shape, _assert, dim()): no tensor
        if node.op == "call_method" and node.target == "expand" and src is not None \
                and src.name in learned:
            learned[node.name] = learned[src.name]  # a broadcast view of a parameter
            continue
        if node.op == "call_function" and node.target is operator.getitem \
                and src is not None and not _is_tensor(src):
            continue
        if node.op == "call_function" and node.target is operator.getitem and src is not None \
                and src.op == "call_module" and isinstance(modules[src.target],
                                                            nn.MultiheadAttention):
            alias(node, src)  # (attn_output, None)[0]
            continue
        if node.op == "call_module":
            m = modules[node.target]
            if isinstance(m, nn.Conv2d):
                pad = m.padding if isinstance(m.padding, str) else _one(m.padding)
                emit("conv2d", node, src, filters=m.out_channels, kernel=_one(m.kernel_size),
                     stride=_one(m.stride), padding=pad, dilation=_one(m.dilation),
                     groups=m.groups, bias=m.bias is not None)
            elif isinstance(m, nn.BatchNorm2d):
                emit("batchnorm", node, src)
            elif isinstance(m, nn.LayerNorm):
                emit("layernorm", node, src)
            elif type(m) in _ACT_MODULES:
                emit("activation", node, src, function=_ACT_MODULES[type(m)],
                     inplace=bool(getattr(m, "inplace", False)))
            elif isinstance(m, nn.Hardtanh):  # ReLU6's base class
                emit("activation", node, src, function="relu6", inplace=bool(m.inplace))
            elif isinstance(m, nn.MaxPool2d):
                emit("maxpool", node, src, kernel=_one(m.kernel_size),
                     stride=_one(m.stride if m.stride is not None else m.kernel_size),
                     padding=_one(m.padding), ceil_mode=bool(m.ceil_mode))
            elif isinstance(m, nn.AvgPool2d):
                emit("avgpool", node, src, kernel=_one(m.kernel_size),
                     stride=_one(m.stride if m.stride is not None else m.kernel_size),
                     padding=_one(m.padding), ceil_mode=bool(m.ceil_mode))
            elif isinstance(m, nn.AdaptiveAvgPool2d):
                emit("adaptive_avgpool", node, src, output=_one(m.output_size))
            elif isinstance(m, nn.Dropout) and m.p == 0:
                alias(node, src)  # dropout(p=0) returns its input: no mask, no new tensor
            elif isinstance(m, nn.Dropout):
                emit("dropout", node, src, p=float(m.p))
            elif isinstance(m, nn.Linear):
                emit("fc", node, src, units=m.out_features, bias=m.bias is not None)
            elif isinstance(m, nn.Flatten):
                emit("flatten", node, src)
            elif isinstance(m, nn.Identity):
                alias(node, src)
            else:
                raise Unsupported(f"{name}: module {node.target} ({type(m).__name__})")
        elif node.op == "call_function":
            fn = node.target
            if fn in (torch.flatten,):
                emit("flatten", node, src)
            elif fn in (operator.add, torch.add, operator.iadd):
                a, b = args[0], args[1]
                if isinstance(b, torch.fx.Node) and b.name in learned:
                    # + a learned tensor (ViT's position embedding): a new tensor, keeps nothing
                    emit("elementwise", node, a, op="add", keeps="nothing",
                         parameters=learned[b.name])
                else:
                    emit("add", node, a, **{"from": names[b.name]})
            elif fn is torch.cat and any(p.name in learned for p in args[0]):
                # a learned tensor joined to one activation (ViT's class token)
                parts = [p for p in args[0] if p.name not in learned]
                if len(parts) != 1:
                    raise Unsupported(f"{name}: {node.name}: cat of several activations and "
                                      "parameters")
                emit("elementwise", node, parts[0], op="other", keeps="nothing",
                     parameters=sum(learned[p.name] for p in args[0] if p.name in learned),
                     shape=_per_sample(node))
            elif fn is torch.cat and len(args[0]) == 1:  # a copy of one tensor (DenseNet)
                emit("generic", node, args[0][0], keeps="nothing")
            elif fn is torch.cat:
                parts = list(args[0])
                emit("concat", node, parts[0], **{"from": [names[p.name] for p in parts[1:]]})
            elif fn in _ACT_FUNCS:
                emit("activation", node, src, function=_ACT_FUNCS[fn],
                     inplace=bool(node.kwargs.get("inplace", False)))
            elif fn is F.adaptive_avg_pool2d:
                emit("adaptive_avgpool", node, src, output=_one(args[1]))
            elif fn is F.dropout:
                emit("dropout", node, src, p=float(node.kwargs.get("p", args[1] if len(args) > 1
                                                                   else 0.5)))
            elif fn is operator.getitem and src is not None and _is_tensor(src):
                emit("view", node, src, shape=_per_sample(node))  # a slice: a view
            else:
                raise Unsupported(f"{name}: function {getattr(fn, '__name__', fn)}")
        elif node.op == "call_method":
            if node.target in ("view", "reshape", "flatten"):
                out = _per_sample(node)
                if out is not None and len(out) > 1:
                    emit("view", node, src, shape=out)
                else:
                    emit("flatten", node, src)
            elif node.target in ("permute", "transpose"):
                emit("view", node, src, shape=_per_sample(node))
            elif node.target == "mean":
                emit("global_avgpool", node, src)
            else:
                raise Unsupported(f"{name}: method {node.target}")
        else:
            raise Unsupported(f"{name}: {node.op} {node.target}")
    return NetworkDraft(name, tuple(layers))
