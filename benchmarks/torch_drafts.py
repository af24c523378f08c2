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


def draft_from_module(model: nn.Module, input_shape: tuple[int, ...], name: str) -> NetworkDraft:
    gm = torch.fx.symbolic_trace(model)
    modules = dict(gm.named_modules())
    layers: list[LayerSpec] = []
    names: dict[str, str] = {}  # fx node → planner layer name

    def emit(kind: str, node, src, **params):
        lname = node.name.replace("_", ".")
        if src is not None and (not layers or names[src.name] != layers[-1].name):
            params["input"] = names[src.name]
        layers.append(LayerSpec(kind, lname, params))
        names[node.name] = lname

    def alias(node, src):
        names[node.name] = names[src.name]

    for node in gm.graph.nodes:
        if node.op == "placeholder":
            layers.append(LayerSpec("input", "input", {"shape": tuple(input_shape)}))
            names[node.name] = "input"
            continue
        if node.op == "output":
            break
        args = node.args
        src = args[0] if args and isinstance(args[0], torch.fx.Node) else None
        if node.op == "call_module":
            m = modules[node.target]
            if isinstance(m, nn.Conv2d):
                pad = m.padding if isinstance(m.padding, str) else _one(m.padding)
                emit("conv2d", node, src, filters=m.out_channels, kernel=_one(m.kernel_size),
                     stride=_one(m.stride), padding=pad, dilation=_one(m.dilation),
                     groups=m.groups, bias=m.bias is not None)
            elif isinstance(m, nn.BatchNorm2d):
                emit("batchnorm", node, src)
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
                emit("add", node, a, **{"from": names[b.name]})
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
            else:
                raise Unsupported(f"{name}: function {getattr(fn, '__name__', fn)}")
        elif node.op == "call_method":
            if node.target in ("view", "reshape", "flatten"):
                emit("flatten", node, src)
            elif node.target == "mean":
                emit("global_avgpool", node, src)
            else:
                raise Unsupported(f"{name}: method {node.target}")
        else:
            raise Unsupported(f"{name}: {node.op} {node.target}")
    return NetworkDraft(name, tuple(layers))
