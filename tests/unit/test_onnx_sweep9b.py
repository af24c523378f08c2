"""Files converted from TensorFlow/Keras by tf2onnx (round 9's silent rows: Keras ResNet50
-80,680 parameters, MobileNetV2 -27,976, no warning), rebuilt with onnx.helper (no TF): the
batch norms grappler folded into convolutions or left as per-channel products are put back,
and what the file cannot tell (removed all-zero biases) is said with its figure."""

from __future__ import annotations

import pytest

onnx = pytest.importorskip("onnx")

from onnx import helper  # noqa: E402
from onnx_fixtures import build, const, import_saved, saved_per_sample  # noqa: E402
from onnx_fixtures import tensor, weight  # noqa: E402

from planner.core.network import analyze  # noqa: E402

h = helper
S = "model_1"  # the Keras model's scope


def _tf(model):
    model.producer_name, model.producer_version = "tf2onnx", "1.17.0"
    return model


def _keras_cnn(trained: bool):
    """Keras's Conv2D(8, use_bias=False) + BN + ReLU, DepthwiseConv2D + BN + ReLU, a
    Conv2D(16) with a bias + BN, global average pool, Dense(10), on a 3×8×8 NHWC input, as
    tf2onnx writes it. Untrained (``trained`` False): every shift and bias is zero, so grappler
    removed them: the first norm's scale is folded into the convolution (its weight
    'merged_input', the node named after the norm's product), the depthwise norm is a Mul
    alone, the dense layer has no bias. Trained: the folded norm's shift is the convolution's
    bias ('batchnorm/sub'), the depthwise norm is Mul + Add, the biased convolution keeps its
    bias and its norm as Mul + Add, the dense layer its BiasAdd."""
    c = lambda n, v: h.make_node("Constant", [], [n], value=h.make_tensor(  # noqa: E731
        n, onnx.TensorProto.INT64, [len(v)], v))
    bn1, dw, bn2 = (f"{S}/bn1/batchnorm", f"{S}/dw_bn/batchnorm", f"{S}/bn2/batchnorm")
    conv1 = ["t:0", f"{S}/conv1/convolution/merged_input:0"] + (
        [f"{bn1}/sub:0"] if trained else [])
    nodes = [
        h.make_node("Transpose", ["x"], ["t:0"], name=f"{bn1}/mul_1__6", perm=[0, 3, 1, 2]),
        h.make_node("Conv", conv1, ["c1:0"], name="Conv__22" if trained else f"{bn1}/mul_1",
                    kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        h.make_node("Relu", ["c1:0"], ["r1:0"], name=f"{S}/re_lu/Relu"),
        h.make_node("Conv", ["r1:0", "const_fold_opt__9"], ["d:0"],
                    name=f"{S}/dw/depthwise", kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                    group=8),
        h.make_node("Mul", ["d:0", f"{dw}/mul:0"], ["dm:0"], name=f"{dw}/mul_1"),
    ]
    last = "dm:0"
    if trained:
        nodes.append(h.make_node("Add", ["dm:0", "const_fold_opt__10"], ["da:0"],
                                 name=f"{dw}/add_1"))
        last = "da:0"
    nodes += [h.make_node("Relu", [last], ["r2:0"], name=f"{S}/re_lu_1/Relu")]
    if trained:
        nodes += [
            h.make_node("Conv", ["r2:0", f"{S}/conv2/convolution/ReadVariableOp:0",
                                 f"{S}/conv2/Squeeze:0"], ["c2:0"],
                        name=f"{S}/conv2/BiasAdd", kernel_shape=[1, 1]),
            h.make_node("Mul", ["c2:0", f"{bn2}/mul:0"], ["m2:0"], name=f"{bn2}/mul_1"),
            h.make_node("Add", ["m2:0", "const_fold_opt__11"], ["a2:0"], name=f"{bn2}/add_1"),
        ]
    else:
        nodes += [h.make_node("Conv", ["r2:0", f"{S}/conv2/convolution/merged_input:0"],
                              ["a2:0"], name=f"{bn2}/mul_1", kernel_shape=[1, 1])]
    nodes += [
        h.make_node("GlobalAveragePool", ["a2:0"], ["g:0"], name=f"{S}/gap/Mean"),
        c("axes", [2, 3]),
        h.make_node("Squeeze", ["g:0", "axes"], ["s:0"], name=f"{S}/gap/Mean_Squeeze__15"),
        h.make_node("MatMul", ["s:0", f"{S}/dense/Cast/ReadVariableOp:0"],
                    ["mm:0"] if trained else ["y"], name=f"{S}/dense/MatMul"),
    ]
    if trained:
        nodes.append(h.make_node("Add", ["mm:0", f"{S}/dense/BiasAdd/ReadVariableOp:0"],
                                 ["y"], name=f"{S}/dense/BiasAdd"))
    inits = [weight(f"{S}/conv1/convolution/merged_input:0", (8, 3, 3, 3)),
             weight("const_fold_opt__9", (8, 1, 3, 3)),
             weight(f"{dw}/mul:0", (1, 8, 1, 1), 0.9),
             weight(f"{S}/dense/Cast/ReadVariableOp:0", (16, 10))]
    if trained:
        inits += [weight(f"{bn1}/sub:0", (8,), 0.1), weight("const_fold_opt__10", (1, 8, 1, 1)),
                  weight(f"{S}/conv2/convolution/ReadVariableOp:0", (16, 8, 1, 1)),
                  weight(f"{S}/conv2/Squeeze:0", (16,), 0.2),
                  weight(f"{bn2}/mul:0", (1, 16, 1, 1), 0.8),
                  weight("const_fold_opt__11", (1, 16, 1, 1), 0.3),
                  weight(f"{S}/dense/BiasAdd/ReadVariableOp:0", (10,), 0.05)]
    else:
        inits += [weight(f"{S}/conv2/convolution/merged_input:0", (16, 8, 1, 1))]
    return _tf(build(nodes, [tensor("x", ["unk__1", 8, 8, 3])], [tensor("y", ["unk__2", 10])],
                     inits))


def _torch_twin():
    """The same network as training runs it (norms as BatchNormalization in training mode,
    every Keras bias present): what the TensorFlow files must plan."""
    def bn(x, y, name, c):
        return h.make_node("BatchNormalization", [x, f"{name}.s", f"{name}.b", f"{name}.m",
                                                  f"{name}.v"], [y, f"{y}.m", f"{y}.v"],
                           name=f"/{name}/BatchNormalization", training_mode=1)
    nodes = [
        h.make_node("Transpose", ["x"], ["t"], name="/Transpose", perm=[0, 3, 1, 2]),
        h.make_node("Conv", ["t", "conv1.w"], ["c1"], name="/conv1/Conv", kernel_shape=[3, 3],
                    pads=[1, 1, 1, 1]),
        bn("c1", "b1", "bn1", 8),
        h.make_node("Relu", ["b1"], ["r1"], name="/relu/Relu"),
        h.make_node("Conv", ["r1", "dw.w"], ["d"], name="/dw/Conv", kernel_shape=[3, 3],
                    pads=[1, 1, 1, 1], group=8),
        bn("d", "b2", "dw_bn", 8),
        h.make_node("Relu", ["b2"], ["r2"], name="/relu_1/Relu"),
        h.make_node("Conv", ["r2", "conv2.w", "conv2.b"], ["c2"], name="/conv2/Conv",
                    kernel_shape=[1, 1]),
        bn("c2", "b3", "bn2", 16),
        h.make_node("GlobalAveragePool", ["b3"], ["g"], name="/gap/GlobalAveragePool"),
        h.make_node("Flatten", ["g"], ["f"], name="/Flatten", axis=1),
        h.make_node("Gemm", ["f", "fc.w", "fc.b"], ["y"], name="/fc/Gemm", transB=1),
    ]
    inits = [weight("conv1.w", (8, 3, 3, 3)), weight("dw.w", (8, 1, 3, 3)),
             weight("conv2.w", (16, 8, 1, 1)), weight("conv2.b", (16,)),
             weight("fc.w", (10, 16)), weight("fc.b", (10,))]
    for name, ch in (("bn1", 8), ("dw_bn", 8), ("bn2", 16)):
        inits += [weight(f"{name}.s", (ch,), 1.0), weight(f"{name}.b", (ch,), 0.0),
                  weight(f"{name}.m", (ch,), 0.0), weight(f"{name}.v", (ch,), 1.0)]
    return build(nodes, [tensor("x", ["N", 8, 8, 3])], [tensor("y", ["N", 10])], inits)


# conv1 216 + bn 16, depthwise 72 + bn 16, conv2 128 + bias 16 + bn 32, dense 160 + bias 10
KERAS_TRAINABLE = 216 + 16 + 72 + 16 + 128 + 16 + 32 + 160 + 10


def test_trained_keras_file_plans_its_folded_norms_back(tmp_path):
    """A trained Keras network's file: every norm put back (the folded one, the depthwise
    Mul + Add, the biased convolution's Mul + Add), parameters exactly Keras's trainable
    count, and what training keeps the same as the network with its batch norms."""
    result = import_saved(tmp_path, _keras_cnn(trained=True), batch=2)
    twin = import_saved(tmp_path, _torch_twin(), "twin.onnx", batch=2)
    kinds = [layer.kind for layer in result.draft.layers]
    assert kinds.count("batchnorm") == 3
    assert analyze(result.draft).parameters == KERAS_TRAINABLE
    assert analyze(twin.draft).parameters == KERAS_TRAINABLE
    assert saved_per_sample(result) == saved_per_sample(twin)
    text = " ".join(result.warnings)
    assert "TensorFlow" in text and "3 batch norm(s)" in text
    assert "count_params()" in text  # the moving statistics are buffers: said
    assert "too few" not in text  # every layer kept its bias: nothing removed
    assert result.report.complete


def test_untrained_keras_file_says_what_the_removed_zeros_may_have_been(tmp_path):
    """Untrained: the shifts and biases were all zeros and grappler removed them. The norms
    are put back (2 parameters per channel); the convolution bias and the dense bias the file
    cannot show are said with their figure (16 + 10 = 26 parameters, and conv1's 8 and the
    depthwise's 8 a Keras layer may have had), never silently missing."""
    result = import_saved(tmp_path, _keras_cnn(trained=False), batch=2)
    twin = import_saved(tmp_path, _torch_twin(), "twin.onnx", batch=2)
    plan = analyze(result.draft).parameters
    assert plan == KERAS_TRAINABLE - 16 - 10
    assert [layer.kind for layer in result.draft.layers].count("batchnorm") == 3
    assert saved_per_sample(result) == saved_per_sample(twin)
    text = " ".join(result.warnings)
    assert "TensorFlow" in text and "3 batch norm(s)" in text
    # 4 layers without a bias in the file: 8 + 8 + 16 + 10 output units
    assert "up to 42 parameters too few" in text


def test_untrained_keras_file_without_norms_says_its_biases_may_be_missing(tmp_path):
    """A VGG-style untrained Keras network (no norm): no layer of the file has a bias (all
    zeros, removed); the plan assumes none and says how many parameters that may miss."""
    nodes = [
        h.make_node("Transpose", ["x"], ["t:0"], name=f"{S}/conv/convolution__6",
                    perm=[0, 3, 1, 2]),
        h.make_node("Conv", ["t:0", f"{S}/conv/convolution/ReadVariableOp:0"], ["c:0"],
                    name=f"{S}/conv/convolution", kernel_shape=[3, 3]),
        h.make_node("Relu", ["c:0"], ["r:0"], name=f"{S}/conv/Relu"),
        h.make_node("Flatten", ["r:0"], ["f:0"], name=f"{S}/flatten/Reshape", axis=1),
        h.make_node("MatMul", ["f:0", f"{S}/fc/Cast/ReadVariableOp:0"], ["y"],
                    name=f"{S}/fc/MatMul"),
    ]
    inits = [weight(f"{S}/conv/convolution/ReadVariableOp:0", (4, 3, 3, 3)),
             weight(f"{S}/fc/Cast/ReadVariableOp:0", (16, 5))]
    model = _tf(build(nodes, [tensor("x", ["unk__1", 4, 4, 3])], [tensor("y", ["unk__2", 5])],
                      inits))
    result = import_saved(tmp_path, model, batch=2)
    assert analyze(result.draft).parameters == 108 + 80
    assert "up to 9 parameters too few" in " ".join(result.warnings)


def test_per_channel_products_of_other_files_are_not_taken_for_norms(tmp_path):
    """The same Mul by a per-channel constant in a file not from TensorFlow (a PyTorch layer
    scale) stays a product: the norm rule reads TensorFlow's names only."""
    model = _keras_cnn(trained=True)
    model.producer_name = "pytorch"
    for init in model.graph.initializer:
        init.name = init.name.replace(":0", "")
    for node in model.graph.node:
        node.input[:] = [i.replace(":0", "") for i in node.input]
        node.output[:] = [o.replace(":0", "") for o in node.output]
    result = import_saved(tmp_path, model, batch=2)
    assert [layer.kind for layer in result.draft.layers].count("batchnorm") == 0
    assert "TensorFlow" not in " ".join(result.warnings)




def test_squeeze_and_excite_reshaped_back_after_a_global_pool(tmp_path):
    """Keras's squeeze-and-excite as tf2onnx writes it (EfficientNetB0 failed to plan: 'needs
    a C×H×W input, got 32'): GlobalAveragePool, Squeeze to N×C, Reshape to [-1, C, 1, 1],
    a 1×1 convolution, a sigmoid gate multiplied into the feature map."""
    nodes = [
        h.make_node("Conv", ["x", "stem.w"], ["f"], name=f"{S}/stem/convolution",
                    kernel_shape=[1, 1]),
        h.make_node("GlobalAveragePool", ["f"], ["g"], name=f"{S}/se_squeeze/Mean"),
        h.make_node("Squeeze", ["g", "axes"], ["s"], name=f"{S}/se_squeeze/Mean_Squeeze__9"),
        h.make_node("Reshape", ["s", "shape"], ["r"], name=f"{S}/se_reduce/convolution__35"),
        h.make_node("Conv", ["r", "se.w", "se.b"], ["c"], name=f"{S}/se_reduce/convolution",
                    kernel_shape=[1, 1]),
        h.make_node("Sigmoid", ["c"], ["sg"], name=f"{S}/se_reduce/Sigmoid"),
        h.make_node("Mul", ["f", "sg"], ["y"], name=f"{S}/se_excite/Mul"),
    ]
    inits = [weight("stem.w", (8, 3, 1, 1)), weight("se.w", (8, 8, 1, 1)),
             weight("se.b", (8,)), const("axes", [2, 3], dtype="int64"),
             const("shape", [-1, 8, 1, 1], dtype="int64")]
    model = _tf(build(nodes, [tensor("x", ["unk__1", 3, 6, 6])],
                      [tensor("y", ["unk__2", 8, 6, 6])], inits))
    result = import_saved(tmp_path, model, batch=2)
    analysis = analyze(result.draft)
    assert analysis.ok, analysis
    assert analysis.parameters == 24 + 64 + 8
    assert not any("problems" in w for w in result.warnings)


def _keras_block():
    """Keras's LayerNormalization (tf.nn.moments: the mean over the last axis of N×T×C as
    tf2onnx writes it, a GlobalAveragePool of the 3-D tensor) and Dense(32, 'gelu') (exact
    GELU, 0.5 * x * erfc(-x / sqrt 2), with TensorFlow's Erfc that tf2onnx leaves
    unconverted) on an 8×16 input."""
    L = f"{S}/layer_normalization"
    G = f"{S}/dense/Gelu"
    nodes = [
        h.make_node("GlobalAveragePool", ["x"], ["mean:0"], name=f"{L}/moments/mean"),
        h.make_node("Neg", ["mean:0"], ["neg:0"], name=f"{L}/Neg"),
        h.make_node("Sub", ["x", "mean:0"], ["d:0"], name=f"{L}/moments/SquaredDifference"),
        h.make_node("Mul", ["d:0", "d:0"], ["d2:0"], name=f"{L}/moments/SquaredDifference__1"),
        h.make_node("GlobalAveragePool", ["d2:0"], ["var:0"], name=f"{L}/moments/variance"),
        h.make_node("Add", ["var:0", f"{L}/add/y:0"], ["ve:0"], name=f"{L}/add"),
        h.make_node("Sqrt", ["ve:0"], ["sd:0"], name=f"{L}/Rsqrt"),
        h.make_node("Reciprocal", ["sd:0"], ["rs:0"], name=f"{L}/Rsqrt__2"),
        h.make_node("Mul", ["rs:0", f"{L}/Reshape:0"], ["sc:0"], name=f"{L}/mul"),
        h.make_node("Mul", ["x", "sc:0"], ["m2:0"], name=f"{L}/mul_2"),
        h.make_node("Mul", ["neg:0", "sc:0"], ["m1:0"], name=f"{L}/mul_1"),
        h.make_node("Add", ["m1:0", f"{L}/Reshape_1:0"], ["a1:0"], name=f"{L}/add_1"),
        h.make_node("Add", ["m2:0", "a1:0"], ["n:0"], name=f"{L}/add_2"),
        h.make_node("MatMul", ["n:0", f"{S}/dense/Cast/ReadVariableOp:0"], ["f:0"],
                    name=f"{S}/dense/Tensordot/MatMul"),
        h.make_node("Add", ["f:0", f"{S}/dense/BiasAdd/ReadVariableOp:0"], ["fb:0"],
                    name=f"{S}/dense/BiasAdd"),
        h.make_node("Mul", [f"{G}/mul/x:0", "fb:0"], ["half:0"], name=f"{G}/mul"),
        h.make_node("Neg", ["fb:0"], ["gn:0"], name=f"{G}/Neg"),
        h.make_node("Mul", ["gn:0", f"{G}/Cast/x:0"], ["gs:0"], name=f"{G}/mul_1"),
        h.make_node("Erfc", ["gs:0"], ["e:0"], name=f"{G}/Erfc"),
        h.make_node("Mul", ["half:0", "e:0"], ["y"], name=f"{G}/mul_2"),
    ]
    inits = [const(f"{L}/add/y:0", 0.001), weight(f"{L}/Reshape:0", (16,), 1.0),
             weight(f"{L}/Reshape_1:0", (16,), 0.1),
             weight(f"{S}/dense/Cast/ReadVariableOp:0", (16, 32)),
             weight(f"{S}/dense/BiasAdd/ReadVariableOp:0", (32,), 0.1),
             const(f"{G}/mul/x:0", 0.5), const(f"{G}/Cast/x:0", 0.70710677)]
    return _tf(build(nodes, [tensor("x", ["unk__1", 8, 16])], [tensor("y", ["unk__2", 8, 32])],
                     inits))


def test_keras_layer_norm_and_exact_gelu_plan_as_one_layer_each(tmp_path):
    """Keras's LayerNormalization and exact GELU (Erfc) are one norm and one GELU as PyTorch's
    nn.LayerNorm and nn.GELU keep them: the norm its input and statistics, the linear layer
    its input, the GELU its input. Before: Erfc not understood (incomplete), the norm op by
    op (3 tensors of its size more)."""
    result = import_saved(tmp_path, _keras_block(), batch=2)
    kinds = [layer.kind for layer in result.draft.layers]
    assert kinds == ["input", "layernorm", "fc", "activation"]
    assert result.draft.layers[-1].params["function"] == "gelu"
    assert result.report.complete and not result.report.not_understood_ops
    assert analyze(result.draft).parameters == 32 + 16 * 32 + 32
    # layer norm: x (128) + mean and rstd (8 + 8); fc: its input (128); GELU: its input (256)
    assert saved_per_sample(result) == 128 + 16 + 128 + 256


def test_keras2_batch_norm_fused_by_tf2onnx_is_put_back(tmp_path):
    """Keras 2 (tf_keras) writes FusedBatchNormV3, which tf2onnx itself folds into the
    convolution before it: the weight and bias are '…_weights_fused_bn' / '…_bias_fused_bn'
    and the convolution writes the norm's output. Before: 26 parameters short, no warning (a
    silent -16 with trained weights: the convolution's own bias went into the fused one)."""
    nodes = [
        h.make_node("Transpose", ["x"], ["t:0"], name="model/conv2d/Conv2D__6",
                    perm=[0, 3, 1, 2]),
        h.make_node("Conv", ["t:0", "model/conv2d/Conv2D_weights_fused_bn",
                             "model/conv2d/Conv2D_bias_fused_bn"],
                    ["model/batch_normalization/FusedBatchNormV3:0"], name="model/conv2d/Conv2D",
                    kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        h.make_node("Relu", ["model/batch_normalization/FusedBatchNormV3:0"], ["y"],
                    name="model/re_lu/Relu"),
    ]
    inits = [weight("model/conv2d/Conv2D_weights_fused_bn", (16, 3, 3, 3)),
             weight("model/conv2d/Conv2D_bias_fused_bn", (16,), 0.1)]
    model = _tf(build(nodes, [tensor("x", ["unk__1", 8, 8, 3])],
                      [tensor("y", ["unk__2", 16, 8, 8])], inits))
    result = import_saved(tmp_path, model, batch=2)
    assert [layer.kind for layer in result.draft.layers] == \
        ["input", "view", "conv2d", "batchnorm", "activation"]
    assert analyze(result.draft).parameters == 432 + 32
    text = " ".join(result.warnings)
    assert "1 batch norm(s)" in text and "up to 16 parameters too few" in text
