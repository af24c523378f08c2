"""Small ONNX graphs built with onnx.helper for the importer's tests (no torch needed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from planner.core.layers import LayerSpec
from planner.core.network import NetworkDraft

OPSET = 17


def weight(name: str, dims: Sequence[int], value: float = 0.01) -> TensorProto:
    """A float initializer of the given shape (small graphs only: real data)."""
    return numpy_helper.from_array(np.full(tuple(dims), value, dtype=np.float32), name)


def const(name: str, values, dtype=np.float32) -> TensorProto:
    return numpy_helper.from_array(np.asarray(values, dtype=dtype), name)


def tensor(name: str, dims: Sequence[Any] | None, elem=TensorProto.FLOAT):
    """A value info; a str in dims is a symbolic dimension; None dims: no shape at all."""
    if dims is None:
        return helper.make_tensor_value_info(name, elem, None)
    return helper.make_tensor_value_info(name, elem, list(dims))


def build(nodes, inputs, outputs, initializers=(), *, opset: int = OPSET, name="fixture",
          value_info=()) -> onnx.ModelProto:
    graph = helper.make_graph(list(nodes), name, list(inputs), list(outputs),
                              initializer=list(initializers), value_info=list(value_info))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="planner-tests")
    model.ir_version = 8
    return model


def save(model: onnx.ModelProto, path: Path) -> Path:
    onnx.save_model(model, str(path))
    return path


def import_saved(tmp_path: Path, model: onnx.ModelProto, name: str = "m.onnx", **kw):
    """Save ``model`` under ``tmp_path`` and import it (``import_onnx`` keywords)."""
    from planner.core.importers.onnx import import_onnx  # noqa: PLC0415

    return import_onnx(save(model, tmp_path / name), **kw)


def layer_kinds(result) -> list[str]:
    return [layer.kind for layer in result.draft.layers[1:]]


def saved_per_sample(result, batch: int = 2) -> int:
    """Elements kept for backward per sample (fp32 bytes / 4), allocator rounding off."""
    from planner.core.memory import Assumptions, estimate  # noqa: PLC0415
    from planner.core.network import Setup, analyze  # noqa: PLC0415

    exact = Assumptions(allocator_block_bytes=1, allocator_segment_bytes=1)
    est = estimate(analyze(result.draft), Setup(batch_size=batch, precision="fp32"), exact)
    return est.saved_bytes // 4 // batch


def single_op(op: str, in_shape: Sequence[Any], out_shape: Sequence[Any] | None = None,
              inits: Sequence[TensorProto] = (), extra_inputs: Sequence[str] = (),
              outputs: int = 1, opset: int = OPSET, **attrs) -> onnx.ModelProto:
    """input 'x' (batch 'N' + in_shape) → op → 'y' (shape left to inference when not given)."""
    node = helper.make_node(op, ["x", *extra_inputs],
                            ["y"] + [f"y{k}" for k in range(1, outputs)], name=f"the_{op}",
                            **attrs)
    out = tensor("y", ["N", *out_shape] if out_shape is not None else None)
    return build([node], [tensor("x", ["N", *in_shape])], [out], inits, opset=opset)


# --------------------------------------------------------------------------------------------
# A small residual network with a concatenation, and its hand-drafted twin
# --------------------------------------------------------------------------------------------


def residual_net(batch: Any = "N") -> onnx.ModelProto:
    """conv-bn-relu-maxpool, a residual block, a 1×1 branch concatenated, then the head."""
    h = helper
    nodes = [
        h.make_node("Conv", ["x", "conv1.w"], ["c1"], name="/conv1/Conv", kernel_shape=[3, 3],
                    pads=[1, 1, 1, 1], strides=[2, 2]),
        h.make_node("BatchNormalization", ["c1", "bn1.s", "bn1.b", "bn1.m", "bn1.v"],
                    ["b1", "b1.m", "b1.v"], name="/bn1/BatchNormalization", training_mode=1),
        h.make_node("Relu", ["b1"], ["r1"], name="/relu/Relu"),
        h.make_node("MaxPool", ["r1"], ["p1"], name="/maxpool/MaxPool", kernel_shape=[3, 3],
                    strides=[2, 2], pads=[1, 1, 1, 1]),
        h.make_node("Conv", ["p1", "b.conv1.w"], ["c2"], name="/layer1/layer1.0/conv1/Conv",
                    kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        h.make_node("BatchNormalization", ["c2", "b.bn1.s", "b.bn1.b", "b.bn1.m", "b.bn1.v"],
                    ["b2", "b2.m", "b2.v"], name="/layer1/layer1.0/bn1/BatchNormalization",
                    training_mode=1),
        h.make_node("Relu", ["b2"], ["r2"], name="/layer1/layer1.0/relu/Relu"),
        h.make_node("Conv", ["r2", "b.conv2.w"], ["c3"], name="/layer1/layer1.0/conv2/Conv",
                    kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        h.make_node("BatchNormalization", ["c3", "b.bn2.s", "b.bn2.b", "b.bn2.m", "b.bn2.v"],
                    ["b3", "b3.m", "b3.v"], name="/layer1/layer1.0/bn2/BatchNormalization",
                    training_mode=1),
        h.make_node("Add", ["b3", "p1"], ["a1"], name="/layer1/layer1.0/Add"),
        h.make_node("Relu", ["a1"], ["r3"], name="/layer1/layer1.0/relu_1/Relu"),
        h.make_node("Conv", ["p1", "side.w", "side.b"], ["s1"], name="/side/Conv",
                    kernel_shape=[1, 1]),
        h.make_node("Concat", ["r3", "s1"], ["cat"], name="/Concat", axis=1),
        h.make_node("GlobalAveragePool", ["cat"], ["g"], name="/avgpool/GlobalAveragePool"),
        h.make_node("Flatten", ["g"], ["f"], name="/Flatten", axis=1),
        h.make_node("Gemm", ["f", "fc.w", "fc.b"], ["y"], name="/fc/Gemm", transB=1),
    ]
    inits = [weight("conv1.w", (8, 3, 3, 3)), weight("b.conv1.w", (8, 8, 3, 3)),
             weight("b.conv2.w", (8, 8, 3, 3)), weight("side.w", (4, 8, 1, 1)),
             weight("side.b", (4,)), weight("fc.w", (10, 12)), weight("fc.b", (10,))]
    for bn in ("bn1", "b.bn1", "b.bn2"):
        inits += [weight(f"{bn}.s", (8,), 1.0), weight(f"{bn}.b", (8,), 0.0),
                  weight(f"{bn}.m", (8,), 0.0), weight(f"{bn}.v", (8,), 1.0)]
    return build(nodes, [tensor("x", [batch, 3, 32, 32])], [tensor("y", [batch, 10])], inits)


def residual_twin() -> NetworkDraft:
    """residual_net drafted by hand in the planner."""
    conv = {"kernel": 3, "padding": 1, "bias": False}
    layers = [
        LayerSpec("input", "input", {"shape": (3, 32, 32)}),
        LayerSpec("conv2d", "conv1", {"filters": 8, "stride": 2, **conv}),
        LayerSpec("batchnorm", "bn1"),
        LayerSpec("activation", "relu", {"function": "relu", "inplace": True}),
        LayerSpec("maxpool", "maxpool", {"kernel": 3, "stride": 2, "padding": 1}),
        LayerSpec("conv2d", "layer1.0.conv1", {"filters": 8, **conv}),
        LayerSpec("batchnorm", "layer1.0.bn1"),
        LayerSpec("activation", "layer1.0.relu", {"function": "relu", "inplace": True}),
        LayerSpec("conv2d", "layer1.0.conv2", {"filters": 8, **conv}),
        LayerSpec("batchnorm", "layer1.0.bn2"),
        LayerSpec("add", "layer1.0.add", {"from": "maxpool"}),
        LayerSpec("activation", "layer1.0.relu_1", {"function": "relu", "inplace": True}),
        LayerSpec("conv2d", "side", {"filters": 4, "kernel": 1, "input": "maxpool"}),
        LayerSpec("concat", "concat", {"from": ("side",), "input": "layer1.0.relu_1"}),
        LayerSpec("global_avgpool", "avgpool"),
        LayerSpec("flatten", "flatten"),
        LayerSpec("fc", "fc", {"units": 10}),
    ]
    return NetworkDraft("twin", tuple(layers))


def lstm_net(bidirectional: bool = False, last_only: bool = False) -> onnx.ModelProto:
    """x: N × 20 steps × 8 features (batch first) → Transpose → LSTM(16) → ... → Gemm."""
    h = helper
    dirs = 2 if bidirectional else 1
    hidden, feats, steps = 16, 8, 20
    nodes = [
        h.make_node("Transpose", ["x"], ["xt"], name="/Transpose", perm=[1, 0, 2]),
        h.make_node("LSTM", ["xt", "W", "R", "B"], ["Y", "Y_h", "Y_c"], name="/lstm/LSTM",
                    hidden_size=hidden,
                    direction="bidirectional" if bidirectional else "forward"),
    ]
    if last_only:
        nodes += [
            h.make_node("Transpose", ["Y_h"], ["ht"], name="/Transpose_1", perm=[1, 0, 2]),
            h.make_node("Reshape", ["ht", "shape2"], ["hr"], name="/Reshape"),
            h.make_node("Gemm", ["hr", "fc.w", "fc.b"], ["y"], name="/fc/Gemm", transB=1),
        ]
        out = tensor("y", ["N", 5])
    else:
        nodes += [
            h.make_node("Transpose", ["Y"], ["yt"], name="/Transpose_1", perm=[2, 0, 1, 3]),
            h.make_node("Reshape", ["yt", "shape3"], ["yr"], name="/Reshape"),
            h.make_node("MatMul", ["yr", "fc.w2"], ["mm"], name="/fc/MatMul"),
            h.make_node("Add", ["mm", "fc.b"], ["y"], name="/fc/Add"),
        ]
        out = tensor("y", ["N", steps, 5])
    inits = [weight("W", (dirs, 4 * hidden, feats)), weight("R", (dirs, 4 * hidden, hidden)),
             weight("B", (dirs, 8 * hidden)), weight("fc.w", (5, hidden * dirs)),
             weight("fc.w2", (hidden * dirs, 5)), weight("fc.b", (5,)),
             const("shape2", [0, -1], np.int64), const("shape3", [0, 0, -1], np.int64)]
    return build(nodes, [tensor("x", ["N", steps, feats])], [out], inits)


def scoped(node, *scopes: str):
    """The default exporter's record of the module a node belongs to (its name scopes)."""
    p = node.metadata_props.add()
    p.key, p.value = "pkg.torch.onnx.name_scopes", repr(["", *scopes, node.name])
    return node


def signed(model: onnx.ModelProto, *parameters: str) -> onnx.ModelProto:
    """The default exporter's record of the exported program's parameters (its signature)."""
    p = model.graph.metadata_props.add()
    p.key = "pkg.torch.export.ExportedProgram.graph_signature"
    p.value = "\n# inputs\n" + "\n".join(
        f"p_{n.replace('.', '_')}: PARAMETER target='{n}'" for n in parameters)
    return model
