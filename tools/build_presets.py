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


def _resnet(name, title, block, layers, batch):
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
                b.conv(f"{p}.conv1", planes, 1, bias=False)
                b.add("batchnorm", f"{p}.bn1")
                b.relu(f"{p}.relu1")
                b.conv(f"{p}.conv2", planes, 3, stride=stride, padding=1, bias=False)
                b.add("batchnorm", f"{p}.bn2")
                b.relu(f"{p}.relu2")
                b.conv(f"{p}.conv3", planes * 4, 1, bias=False)
                main = b.add("batchnorm", f"{p}.bn3")
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
         f"torchvision {name} (224×224×3, 1000 classes).")


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
    mobilenet_v2()
    lstm(128)
    lstm(1024)
    plankton()
    video()
    print("presets written to", ROOT / "data" / "presets")
