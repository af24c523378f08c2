"""The preset networks shipped in ``data/presets`` (plan files like any other)."""

from __future__ import annotations

import json
from pathlib import Path

from planner.core.network import NetworkDraft, PlanFileError, PresetInfo, Setup, load_plan
from planner.i18n import QT_TRANSLATE_NOOP
from planner.paths import data_path

# The order presets are listed in (the article's examples first).
ORDER = ("seed-example", "seed-reduced", "alexnet", "vgg16", "resnet18", "resnet50",
         "mobilenet_v2", "lstm-128", "lstm-1024", "plankton", "video",
         # The networks of the speed calibration (benchmarks/speed_accuracy.py).
         "resnet152", "resnext101_32x4d", "se_resnext101_32x4d", "resnext101_32x8d",
         "inception_v3",
         "efficientnet_b0", "efficientnet_b4",
         # Transformers (planner.core.transformer.PRESETS; tools/make_transformer_presets.py).
         "vit_b16", "bert_base", "gpt2", "llama_1b", "llama_8b", "llama_70b")


# The shipped presets' titles and descriptions, exactly as in their files, so that the window
# can show them translated (a test keeps this list and the files in step): these, and the
# transformer presets' (``TRANSLATABLE``, below, reads them from planner.core.transformer only
# when asked: that module is off the start-up path).
_FILE_TEXTS = (
    QT_TRANSLATE_NOOP("core", "Seed article example"),
    QT_TRANSLATE_NOOP("core", "The article's worked example: batch 128, 250×250×3 inputs, "
                              "unpadded 3×3 convolutions with 32, 64 and 96 filters."),
    QT_TRANSLATE_NOOP("core", "Seed article example, reduced"),
    QT_TRANSLATE_NOOP("core", "The article's memory-reduction variant: stride 2 in the first "
                              "convolution, a 2×2 max pool after it, and 32 1×1 filters to "
                              "reduce the 96 channels."),
    QT_TRANSLATE_NOOP("core", "torchvision alexnet (224×224×3, 1000 classes)."),
    QT_TRANSLATE_NOOP("core", "torchvision vgg16 (224×224×3, 1000 classes, 138,357,544 "
                              "parameters)."),
    QT_TRANSLATE_NOOP("core", "torchvision resnet18 (224×224×3, 1000 classes)."),
    QT_TRANSLATE_NOOP("core", "torchvision resnet50 (224×224×3, 1000 classes)."),
    QT_TRANSLATE_NOOP("core", "torchvision mobilenet_v2 (224×224×3, 1000 classes)."),
    QT_TRANSLATE_NOOP("core", "LSTM, 128 hidden units"),
    QT_TRANSLATE_NOOP("core", "The article's small LSTM: 128 hidden units, 100 steps of 128 "
                              "features, batch 128 (the article: batch > 64)."),
    QT_TRANSLATE_NOOP("core", "LSTM, 1024 hidden units"),
    QT_TRANSLATE_NOOP("core", "The article's large LSTM: 1024 hidden units, 100 steps of 1024 "
                              "features, batch 128 (the article: batch > 64)."),
    QT_TRANSLATE_NOOP("core", "Plankton classifier"),
    QT_TRANSLATE_NOOP("core", "A small CNN for the article's plankton-sized problem: 50×50×2 "
                              "inputs, about 100 classes."),
    QT_TRANSLATE_NOOP("core", "Video (25×75×75×3)"),
    QT_TRANSLATE_NOOP("core", "A small 3-D CNN on the article's video example: 25 frames of "
                              "75×75×3."),
    QT_TRANSLATE_NOOP("core", "torchvision resnet152 (224×224×3, 1000 classes)."),
    QT_TRANSLATE_NOOP("core", "ResNeXt-101 32×4d as NVIDIA's DeepLearningExamples train it: "
                              "torchvision's ResNet with groups=32, width_per_group=4 (224×224×3, "
                              "1000 classes)."),
    QT_TRANSLATE_NOOP("core", "SE-ResNeXt-101 32×4d as NVIDIA's DeepLearningExamples define it: "
                              "ResNeXt-101 32×4d with a squeeze-and-excitation block (16 "
                              "channels) before each residual add (224×224×3, 1000 "
                              "classes)."),
    QT_TRANSLATE_NOOP("core", "torchvision resnext101_32x8d (224×224×3, 1000 classes)."),
    QT_TRANSLATE_NOOP("core", "torchvision inception_v3 without the auxiliary classifier "
                              "(299×299×3, 1000 classes)."),
    QT_TRANSLATE_NOOP("core", "torchvision efficientnet_b0 (224×224×3, 1000 classes); the "
                              "squeeze-and-excitation product is an element-wise layer."),
    QT_TRANSLATE_NOOP("core", "torchvision efficientnet_b4 (380×380×3, 1000 classes); the "
                              "squeeze-and-excitation product is an element-wise layer."),
)


def __getattr__(name: str):
    if name == "TRANSLATABLE":
        from planner.core.transformer import PRESETS  # noqa: PLC0415

        return (*(text for _config, title, desc, _setup in PRESETS.values()
                  for text in (title, desc)), *_FILE_TEXTS)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


NAMES_AS_IS = ("AlexNet", "VGG-16", "ResNet-18", "ResNet-50", "MobileNetV2", "ResNet-152",
               "ResNeXt-101 32×4d", "SE-ResNeXt-101 32×4d", "ResNeXt-101 32×8d", "Inception-v3",
               "EfficientNet-B0", "EfficientNet-B4")


def presets_dir() -> Path:
    return data_path("presets")


def list_presets() -> list[PresetInfo]:
    found = {p.stem: p for p in presets_dir().glob("*.json")}
    names = [n for n in ORDER if n in found] + sorted(set(found) - set(ORDER))
    out = []
    for name in names:
        path = found[name]
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue
        out.append(PresetInfo(name, data.get("name", name), data.get("description", ""), path))
    return out


def preset_names() -> list[str]:
    return [p.name for p in list_presets()]


def load_preset(name: str) -> tuple[NetworkDraft, Setup]:
    path = presets_dir() / f"{name}.json"
    if not path.is_file():
        import difflib  # only for this message: off the start-up path

        close = difflib.get_close_matches(name, preset_names(), n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise PlanFileError(f"no preset named '{name}'{hint}")
    return load_plan(path)
