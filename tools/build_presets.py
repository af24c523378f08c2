"""Writes data/presets/*.json: the preset networks, layer for layer.

The torchvision networks follow torchvision's definitions (torchvision/models/*.py) so that
parameter counts are exact. Run from the repository root: ``python tools/build_presets.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from planner.core.layers import LayerSpec  # noqa: E402
from planner.core.network import NetworkDraft, Setup, save_plan  # noqa: E402


class Builder:
    def __init__(self, shape):
        self.layers = [LayerSpec("input", "input", {"shape": tuple(shape)})]

    @property
    def last(self) -> str:
        return self.layers[-1].name

    def add(self, kind, name, **params):
        self.layers.append(LayerSpec(kind, name, params))
        return name

    def conv(self, name, filters, kernel, stride=1, padding=0, groups=1, bias=True, **kw):
        return self.add("conv2d", name, filters=filters, kernel=kernel, stride=stride,
                        padding=padding, groups=groups, bias=bias, **kw)

    def relu(self, name, inplace=True, function="relu"):
        return self.add("activation", name, function=function, inplace=inplace)


def save(name, title, builder, setup, description):
    draft = NetworkDraft(title, tuple(builder.layers), description)
    save_plan(ROOT / "data" / "presets" / f"{name}.json", draft, setup)


def seed_example():
    b = Builder((3, 250, 250))
    for i, f in enumerate((32, 64, 96), 1):
        b.conv(f"conv{i}", f, 3, padding="valid")
    save("seed-example", "Seed article example", b, Setup(128, "fp32", "sgd"),
         "The article's worked example: batch 128, 250×250×3 inputs, unpadded 3×3 convolutions "
         "with 32, 64 and 96 filters.")


def seed_reduced():
    b = Builder((3, 250, 250))
    b.conv("conv1", 32, 3, stride=2, padding="valid")
    b.add("maxpool", "pool1", kernel=2)
    b.conv("conv2", 64, 3, padding="valid")
    b.conv("conv3", 96, 3, padding="valid")
    b.conv("reduce1x1", 32, 1, padding="valid")
    save("seed-reduced", "Seed article example, reduced", b, Setup(128, "fp32", "sgd"),
         "The article's memory-reduction variant: stride 2 in the first convolution, a 2×2 max "
         "pool after it, and 32 1×1 filters to reduce the 96 channels.")


def alexnet():
    b = Builder((3, 224, 224))
    b.conv("features.0", 64, 11, stride=4, padding=2)
    b.relu("features.1")
    b.add("maxpool", "features.2", kernel=3, stride=2)
    b.conv("features.3", 192, 5, padding=2)
    b.relu("features.4")
    b.add("maxpool", "features.5", kernel=3, stride=2)
    b.conv("features.6", 384, 3, padding=1)
    b.relu("features.7")
    b.conv("features.8", 256, 3, padding=1)
    b.relu("features.9")
    b.conv("features.10", 256, 3, padding=1)
    b.relu("features.11")
    b.add("maxpool", "features.12", kernel=3, stride=2)
    b.add("adaptive_avgpool", "avgpool", output=(6, 6))
    b.add("flatten", "flatten")
    b.add("dropout", "classifier.0", p=0.5)
    b.add("fc", "classifier.1", units=4096)
    b.relu("classifier.2")
    b.add("dropout", "classifier.3", p=0.5)
    b.add("fc", "classifier.4", units=4096)
    b.relu("classifier.5")
    b.add("fc", "classifier.6", units=1000)
    save("alexnet", "AlexNet", b, Setup(128, "fp32", "momentum"),
         "torchvision alexnet (224×224×3, 1000 classes).")


def vgg16():
    b = Builder((3, 224, 224))
    cfg = [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M",
           512, 512, 512, "M"]
    i = 0
    for v in cfg:
        if v == "M":
            b.add("maxpool", f"features.{i}", kernel=2, stride=2)
            i += 1
        else:
            b.conv(f"features.{i}", v, 3, padding=1)
            b.relu(f"features.{i + 1}")
            i += 2
    b.add("adaptive_avgpool", "avgpool", output=(7, 7))
    b.add("flatten", "flatten")
    b.add("fc", "classifier.0", units=4096)
    b.relu("classifier.1")
    b.add("dropout", "classifier.2", p=0.5)
    b.add("fc", "classifier.3", units=4096)
    b.relu("classifier.4")
    b.add("dropout", "classifier.5", p=0.5)
    b.add("fc", "classifier.6", units=1000)
    save("vgg16", "VGG-16", b, Setup(64, "fp32", "momentum"),
         "torchvision vgg16 (224×224×3, 1000 classes, 138,357,544 parameters).")


def _resnet(name, title, block, layers, batch, groups=1, width_per_group=64, note="",
            se_squeeze=0):
    """torchvision's ResNet; ``se_squeeze`` > 0 adds NVIDIA DeepLearningExamples' squeeze-and-
    excitation to each bottleneck (models/resnet.py ``SEBottleneck``: a 1x1 convolution to
    ``se_squeeze`` channels, an activation, one back, a sigmoid; ``residual + out * gate``)."""
    b = Builder((3, 224, 224))
    b.conv("conv1", 64, 7, stride=2, padding=3, bias=False)
    b.add("batchnorm", "bn1")
    b.relu("relu")
    b.add("maxpool", "maxpool", kernel=3, stride=2, padding=1)
    inplanes = 64
    expansion = 1 if block == "basic" else 4
    for li, (planes, blocks) in enumerate(zip((64, 128, 256, 512), layers), 1):
        for bi in range(blocks):
            stride = 2 if (bi == 0 and li > 1) else 1
            p = f"layer{li}.{bi}"
            block_in = b.last
            if block == "basic":
                b.conv(f"{p}.conv1", planes, 3, stride=stride, padding=1, bias=False)
                b.add("batchnorm", f"{p}.bn1")
                b.relu(f"{p}.relu1")
                b.conv(f"{p}.conv2", planes, 3, padding=1, bias=False)
                main = b.add("batchnorm", f"{p}.bn2")
            else:
                width = int(planes * (width_per_group / 64)) * groups
                b.conv(f"{p}.conv1", width, 1, bias=False)
                b.add("batchnorm", f"{p}.bn1")
                b.relu(f"{p}.relu1")
                b.conv(f"{p}.conv2", width, 3, stride=stride, padding=1, groups=groups,
                       bias=False)
                b.add("batchnorm", f"{p}.bn2")
                b.relu(f"{p}.relu2")
                b.conv(f"{p}.conv3", planes * 4, 1, bias=False)
                main = b.add("batchnorm", f"{p}.bn3")
                if se_squeeze:
                    main = _squeeze_excite(b, p, main, planes * 4, se_squeeze)
            if stride != 1 or inplanes != planes * expansion:
                b.conv(f"{p}.downsample.0", planes * expansion, 1, stride=stride, bias=False,
                       input=block_in)
                b.add("batchnorm", f"{p}.downsample.1")
                b.add("add", f"{p}.add", **{"from": main})
            else:
                b.add("add", f"{p}.add", **{"from": block_in})
            b.relu(f"{p}.relu")
            inplanes = planes * expansion
    b.add("global_avgpool", "avgpool")
    b.add("fc", "fc", units=1000)
    save(name, title, b, Setup(batch, "fp32", "momentum"),
         note or f"torchvision {name} (224×224×3, 1000 classes).")


# Layer names of a squeeze-and-excitation block, as each source names them: pool, reduce,
# activation, expand, gate, product.
DLE_SE = ("squeeze.pooling", "squeeze.squeeze", "squeeze.activation", "squeeze.expand",
          "squeeze.sigmoid", "squeeze.scale")  # DeepLearningExamples' SqueezeAndExcitation
TORCHVISION_SE = ("se.avgpool", "se.fc1", "se.silu", "se.fc2", "se.sigmoid", "se.scale")


def _squeeze_excite(b, p, x, channels, squeeze, names=DLE_SE, function="relu", inplace=True):
    """x × sigmoid(expand(act(reduce(pool(x))))): the gate's 1x1 convolutions have biases."""
    pool, reduce, act, expand, gate, product = (f"{p}.{n}" for n in names)
    b.add("adaptive_avgpool", pool, output=(1, 1))
    b.conv(reduce, squeeze, 1)
    b.relu(act, function=function, inplace=inplace)
    b.conv(expand, channels, 1)
    b.relu(gate, function="sigmoid", inplace=False)
    return b.add("elementwise", product, op="mul", keeps="inputs", input=x,
                 **{"from": (gate,)})


def mobilenet_v2():
    b = Builder((3, 224, 224))
    b.conv("features.0.0", 32, 3, stride=2, padding=1, bias=False)
    b.add("batchnorm", "features.0.1")
    b.relu("features.0.2", function="relu6")
    cin = 32
    idx = 1
    for t, c, n, s in ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                       (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)):
        for i in range(n):
            stride = s if i == 0 else 1
            p = f"features.{idx}"
            block_in = b.last
            hidden = cin * t
            if t != 1:
                b.conv(f"{p}.expand", hidden, 1, bias=False)
                b.add("batchnorm", f"{p}.expand_bn")
                b.relu(f"{p}.expand_relu6", function="relu6")
            b.conv(f"{p}.dw", hidden, 3, stride=stride, padding=1, groups=hidden, bias=False)
            b.add("batchnorm", f"{p}.dw_bn")
            b.relu(f"{p}.dw_relu6", function="relu6")
            b.conv(f"{p}.project", c, 1, bias=False)
            b.add("batchnorm", f"{p}.project_bn")
            if stride == 1 and cin == c:
                b.add("add", f"{p}.add", **{"from": block_in})
            cin = c
            idx += 1
    b.conv("features.18.0", 1280, 1, bias=False)
    b.add("batchnorm", "features.18.1")
    b.relu("features.18.2", function="relu6")
    b.add("global_avgpool", "avgpool")
    b.add("dropout", "classifier.0", p=0.2)
    b.add("fc", "classifier.1", units=1000)
    save("mobilenet_v2", "MobileNetV2", b, Setup(128, "fp32", "momentum"),
         "torchvision mobilenet_v2 (224×224×3, 1000 classes).")


def _basic(b, name, filters, kernel, stride=1, padding=0, **kw):
    """torchvision's BasicConv2d: convolution without bias, batch norm, ReLU."""
    b.conv(f"{name}.conv", filters, kernel, stride=stride, padding=padding, bias=False, **kw)
    b.add("batchnorm", f"{name}.bn")
    return b.relu(f"{name}.relu")


def inception_v3():
    """torchvision inception_v3 with aux_logits=False (299×299×3)."""
    b = Builder((3, 299, 299))
    _basic(b, "Conv2d_1a_3x3", 32, 3, stride=2)
    _basic(b, "Conv2d_2a_3x3", 32, 3)
    _basic(b, "Conv2d_2b_3x3", 64, 3, padding=1)
    b.add("maxpool", "maxpool1", kernel=3, stride=2)
    _basic(b, "Conv2d_3b_1x1", 80, 1)
    _basic(b, "Conv2d_4a_3x3", 192, 3)
    b.add("maxpool", "maxpool2", kernel=3, stride=2)

    def block_a(p, pool_features):
        x = b.last
        a = _basic(b, f"{p}.branch1x1", 64, 1, input=x)
        _basic(b, f"{p}.branch5x5_1", 48, 1, input=x)
        c = _basic(b, f"{p}.branch5x5_2", 64, 5, padding=2)
        _basic(b, f"{p}.branch3x3dbl_1", 64, 1, input=x)
        _basic(b, f"{p}.branch3x3dbl_2", 96, 3, padding=1)
        d = _basic(b, f"{p}.branch3x3dbl_3", 96, 3, padding=1)
        b.add("avgpool", f"{p}.pool", kernel=3, stride=1, padding=1, input=x)
        _basic(b, f"{p}.branch_pool", pool_features, 1)
        b.add("concat", f"{p}.cat", **{"from": (a, c, d)})

    def block_b(p):
        x = b.last
        a = _basic(b, f"{p}.branch3x3", 384, 3, stride=2, input=x)
        _basic(b, f"{p}.branch3x3dbl_1", 64, 1, input=x)
        _basic(b, f"{p}.branch3x3dbl_2", 96, 3, padding=1)
        d = _basic(b, f"{p}.branch3x3dbl_3", 96, 3, stride=2)
        b.add("maxpool", f"{p}.pool", kernel=3, stride=2, input=x)
        b.add("concat", f"{p}.cat", **{"from": (a, d)})

    def block_c(p, c7):
        x = b.last
        a = _basic(b, f"{p}.branch1x1", 192, 1, input=x)
        _basic(b, f"{p}.branch7x7_1", c7, 1, input=x)
        _basic(b, f"{p}.branch7x7_2", c7, (1, 7), padding=(0, 3))
        c = _basic(b, f"{p}.branch7x7_3", 192, (7, 1), padding=(3, 0))
        _basic(b, f"{p}.branch7x7dbl_1", c7, 1, input=x)
        _basic(b, f"{p}.branch7x7dbl_2", c7, (7, 1), padding=(3, 0))
        _basic(b, f"{p}.branch7x7dbl_3", c7, (1, 7), padding=(0, 3))
        _basic(b, f"{p}.branch7x7dbl_4", c7, (7, 1), padding=(3, 0))
        d = _basic(b, f"{p}.branch7x7dbl_5", 192, (1, 7), padding=(0, 3))
        b.add("avgpool", f"{p}.pool", kernel=3, stride=1, padding=1, input=x)
        _basic(b, f"{p}.branch_pool", 192, 1)
        b.add("concat", f"{p}.cat", **{"from": (a, c, d)})

    def block_d(p):
        x = b.last
        _basic(b, f"{p}.branch3x3_1", 192, 1, input=x)
        a = _basic(b, f"{p}.branch3x3_2", 320, 3, stride=2)
        _basic(b, f"{p}.branch7x7x3_1", 192, 1, input=x)
        _basic(b, f"{p}.branch7x7x3_2", 192, (1, 7), padding=(0, 3))
        _basic(b, f"{p}.branch7x7x3_3", 192, (7, 1), padding=(3, 0))
        d = _basic(b, f"{p}.branch7x7x3_4", 192, 3, stride=2)
        b.add("maxpool", f"{p}.pool", kernel=3, stride=2, input=x)
        b.add("concat", f"{p}.cat", **{"from": (a, d)})

    def block_e(p):
        x = b.last
        a = _basic(b, f"{p}.branch1x1", 320, 1, input=x)
        m = _basic(b, f"{p}.branch3x3_1", 384, 1, input=x)
        c1 = _basic(b, f"{p}.branch3x3_2a", 384, (1, 3), padding=(0, 1))
        c2 = _basic(b, f"{p}.branch3x3_2b", 384, (3, 1), padding=(1, 0), input=m)
        _basic(b, f"{p}.branch3x3dbl_1", 448, 1, input=x)
        n = _basic(b, f"{p}.branch3x3dbl_2", 384, 3, padding=1)
        d1 = _basic(b, f"{p}.branch3x3dbl_3a", 384, (1, 3), padding=(0, 1))
        d2 = _basic(b, f"{p}.branch3x3dbl_3b", 384, (3, 1), padding=(1, 0), input=n)
        b.add("avgpool", f"{p}.pool", kernel=3, stride=1, padding=1, input=x)
        _basic(b, f"{p}.branch_pool", 192, 1)
        b.add("concat", f"{p}.cat", **{"from": (a, c1, c2, d1, d2)})

    block_a("Mixed_5b", 32)
    block_a("Mixed_5c", 64)
    block_a("Mixed_5d", 64)
    block_b("Mixed_6a")
    for p, c7 in (("Mixed_6b", 128), ("Mixed_6c", 160), ("Mixed_6d", 160), ("Mixed_6e", 192)):
        block_c(p, c7)
    block_d("Mixed_7a")
    block_e("Mixed_7b")
    block_e("Mixed_7c")
    b.add("global_avgpool", "avgpool")
    b.add("dropout", "dropout", p=0.5)
    b.add("fc", "fc", units=1000)
    save("inception_v3", "Inception-v3", b, Setup(64, "fp32", "momentum"),
         "torchvision inception_v3 without the auxiliary classifier (299×299×3, 1000 classes).")


def _make_divisible(v, divisor=8):
    new_v = max(divisor, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def efficientnet(variant, width, depth, resolution, dropout, batch):
    """torchvision efficientnet_b{variant}: MBConv blocks with squeeze-and-excitation, SiLU."""
    import math

    b = Builder((3, resolution, resolution))
    stem = _make_divisible(32 * width)
    b.conv("features.0.0", stem, 3, stride=2, padding=1, bias=False)
    b.add("batchnorm", "features.0.1")
    b.relu("features.0.2", function="silu")
    stages = ((1, 3, 1, 32, 16, 1), (6, 3, 2, 16, 24, 2), (6, 5, 2, 24, 40, 2),
              (6, 3, 2, 40, 80, 3), (6, 5, 1, 80, 112, 3), (6, 5, 2, 112, 192, 4),
              (6, 3, 1, 192, 320, 1))
    cin = stem
    for si, (t, k, s, _i, c, n) in enumerate(stages, 1):
        out = _make_divisible(c * width)
        for i in range(int(math.ceil(n * depth))):
            stride = s if i == 0 else 1
            p = f"features.{si}.{i}"
            block_in = b.last
            hidden = _make_divisible(cin * t)
            if hidden != cin:
                b.conv(f"{p}.expand", hidden, 1, bias=False)
                b.add("batchnorm", f"{p}.expand_bn")
                b.relu(f"{p}.expand_silu", function="silu")
            b.conv(f"{p}.dw", hidden, k, stride=stride, padding=(k - 1) // 2, groups=hidden,
                   bias=False)
            b.add("batchnorm", f"{p}.dw_bn")
            x = b.relu(f"{p}.dw_silu", function="silu")
            squeeze = max(1, cin // 4)
            _squeeze_excite(b, p, x, hidden, squeeze, TORCHVISION_SE, "silu", inplace=False)
            b.conv(f"{p}.project", out, 1, bias=False)
            b.add("batchnorm", f"{p}.project_bn")
            if stride == 1 and cin == out:
                b.add("add", f"{p}.add", **{"from": block_in})
            cin = out
    last = 4 * cin
    b.conv("features.8.0", last, 1, bias=False)
    b.add("batchnorm", "features.8.1")
    b.relu("features.8.2", function="silu")
    b.add("global_avgpool", "avgpool")
    b.add("dropout", "classifier.0", p=dropout)
    b.add("fc", "classifier.1", units=1000)
    save(f"efficientnet_b{variant}", f"EfficientNet-B{variant}", b,
         Setup(batch, "fp32", "momentum"),
         f"torchvision efficientnet_b{variant} ({resolution}×{resolution}×3, 1000 classes); "
         "the squeeze-and-excitation product is an element-wise layer.")


def lstm(hidden):
    b = Builder((100, hidden))
    b.add("lstm", "lstm", hidden=hidden, layers=1, return_sequences=False)
    b.add("fc", "fc", units=10)
    save(f"lstm-{hidden}", f"LSTM, {hidden} hidden units", b, Setup(128, "fp32", "adam"),
         f"The article's {'small' if hidden == 128 else 'large'} LSTM: {hidden} hidden units, "
         f"100 steps of {hidden} features, batch 128 (the article: batch > 64).")


def plankton():
    b = Builder((2, 50, 50))
    for block, f in enumerate((32, 64, 128), 1):
        b.conv(f"conv{block}a", f, 3, padding="same")
        b.relu(f"relu{block}a")
        b.conv(f"conv{block}b", f, 3, padding="same")
        b.relu(f"relu{block}b")
        b.add("maxpool", f"pool{block}", kernel=2)
    b.add("flatten", "flatten")
    b.add("fc", "fc1", units=512)
    b.relu("relu_fc1")
    b.add("dropout", "drop1", p=0.5)
    b.add("fc", "fc2", units=100)
    save("plankton", "Plankton classifier", b, Setup(128, "fp32", "adam"),
         "A small CNN for the article's plankton-sized problem: 50×50×2 inputs, about 100 "
         "classes.")


def video():
    b = Builder((3, 25, 75, 75))
    b.add("conv3d", "conv1", filters=64, kernel=3, padding="same", bias=False)
    b.add("batchnorm", "bn1")
    b.relu("relu1")
    b.add("maxpool", "pool1", kernel=(1, 2, 2))
    b.add("conv3d", "conv2", filters=128, kernel=3, padding="same", bias=False)
    b.add("batchnorm", "bn2")
    b.relu("relu2")
    b.add("maxpool", "pool2", kernel=2)
    b.add("conv3d", "conv3", filters=256, kernel=3, padding="same", bias=False)
    b.add("batchnorm", "bn3")
    b.relu("relu3")
    b.add("maxpool", "pool3", kernel=2)
    b.add("global_avgpool", "avgpool")
    b.add("fc", "fc", units=101)
    save("video", "Video (25×75×75×3)", b, Setup(32, "fp32", "adam"),
         "A small 3-D CNN on the article's video example: 25 frames of 75×75×3.")


if __name__ == "__main__":
    seed_example()
    seed_reduced()
    alexnet()
    vgg16()
    _resnet("resnet18", "ResNet-18", "basic", (2, 2, 2, 2), 128)
    _resnet("resnet50", "ResNet-50", "bottleneck", (3, 4, 6, 3), 64)
    _resnet("resnet152", "ResNet-152", "bottleneck", (3, 8, 36, 3), 64)
    _resnet("resnext101_32x4d", "ResNeXt-101 32×4d", "bottleneck", (3, 4, 23, 3), 64,
            groups=32, width_per_group=4,
            note="ResNeXt-101 32×4d as NVIDIA's DeepLearningExamples train it: torchvision's "
                 "ResNet with groups=32, width_per_group=4 (224×224×3, 1000 classes).")
    _resnet("se_resnext101_32x4d", "SE-ResNeXt-101 32×4d", "bottleneck", (3, 4, 23, 3), 64,
            groups=32, width_per_group=4, se_squeeze=16,
            note="SE-ResNeXt-101 32×4d as NVIDIA's DeepLearningExamples define it: ResNeXt-101 "
                 "32×4d with a squeeze-and-excitation block (16 channels) before each "
                 "residual add (224×224×3, 1000 classes).")
    _resnet("resnext101_32x8d", "ResNeXt-101 32×8d", "bottleneck", (3, 4, 23, 3), 64,
            groups=32, width_per_group=8)
    inception_v3()
    efficientnet(0, 1.0, 1.0, 224, 0.2, 64)
    efficientnet(4, 1.4, 1.8, 380, 0.4, 32)
    mobilenet_v2()
    lstm(128)
    lstm(1024)
    plankton()
    video()
    print("presets written to", ROOT / "data" / "presets")
