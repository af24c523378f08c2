"""The measured training throughput the speed model is calibrated and checked on.

``data/speed-calibration.csv`` (539 rows; sources and caveats in its ``.md``): NVIDIA's
DeepLearningExamples READMEs (V100, A100; PyTorch, TensorFlow, MXNet, PaddlePaddle) and
TensorFlow's May-2017 benchmarks (P100, K80). Shared by ``calibrate_speed.py`` (fits the few
parameters) and ``speed_accuracy.py`` (predicted against measured).

How a row becomes a planner prediction:

* **card**: the catalog card of the same chip and clocks (``CARDS``). The DGX-2's V100 SXM3
  32GB is not in the catalog; it runs the V100 SXM2's clocks (DGX-2: 2 PFLOPS tensor over 16
  GPUs = 125 each), so it is predicted as the SXM2 32GB card. A K80 row is one GK210 die, which
  is what the catalog's K80 row is (per GPU, two per board).
* **network**: a planner preset (``NETWORKS``). "ResNet-50 v1.5" is torchvision's resnet50
  (stride on the 3×3); TensorFlow 2017's "ResNet-50" is v1 (stride on the 1×1, about 5 % fewer
  FLOPs), predicted with the same preset. SE-ResNeXt101-32x4d is the preset built from
  DeepLearningExamples' own definition (``models/resnet.py``: ResNeXt-101 32×4d with a
  16-channel squeeze-and-excitation before each residual add); it is not in ``FIT_NETWORKS``, so
  its rows check the model without having shaped it.
* **precision** (``PRECISIONS``): ``fp32`` → ``fp32`` (these rows are all on Volta and older,
  where PyTorch's default and strict FP32 are the same); ``tf32`` → ``tf32`` (convolutions and
  matmuls in TF32: TensorFlow's default on A100, and PyTorch's until 1.12, which the 2020–21
  containers of these rows predate); ``amp`` → ``mixed`` (autocast fp16 + loss scaling);
  ``fp16`` → ``fp16``.
* **batch**: the row's per-GPU batch; where the source states none, DLE's usual one (256 in
  16-bit and TF32, 128 in FP32; ``DEFAULT_BATCH``).
* **optimizer**: SGD with momentum (what these ResNet recipes use; EfficientNet's RMSprop keeps
  one state too); Adam for BERT (``optimizer``), stepped per tensor in a loop where the recipe
  does (``optimizer_for_loop``: BertAdam in FP32).
* **layout and fusion** (``row_assumptions``): the memory format the recipe ran (NCHW, PyTorch's
  default, or channels-last: ``memory_format``) and whether its batch norms fuse the ReLU and
  residual add after them (``fused_bn_activation``: MXNet in float16).

``load_holdout_rows`` reads every ``data/speed-holdout-*.csv`` (one held-out source each, sources
and caveats in its ``.md``; optional columns ``repository``, the GitHub repository the rows come
from, Lambda's where absent, and ``memory_format``, the layout the row ran in) the same way:
measured rows on cards the calibration set lacks, never fitted. Each row names its catalog card
and the planner precision of what ran.
``load_holdout_rows(BERT_CSV)`` alone: Lambda's BERT-base and BERT-large SQuAD
fine-tuning rows (sequences/s, in ``images_per_s``).
"""

from __future__ import annotations

import csv
import math
import sys
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from planner.core.catalog import load_catalog  # noqa: E402
from planner.core.memory import ACT_BYTES, Assumptions  # noqa: E402
from planner.core.network import Setup, analyze  # noqa: E402
from planner.core.parallel import Parallel, ParallelAssumptions, scaling  # noqa: E402
from planner.core.presets import load_preset  # noqa: E402
from planner.core.speed import SIXTEEN_BIT, iteration_time, workload  # noqa: E402

CSV = Path(__file__).resolve().parent / "data" / "speed-calibration.csv"
# Measured throughput on other cards, never fitted (``load_holdout_rows``): every
# ``speed-holdout-<source>.csv`` here is one held-out source (sources and caveats in its .md).
DATA = Path(__file__).resolve().parent / "data"
HOLDOUT_CSV = DATA / "speed-holdout-lambda.csv"
HOLDOUT_GLOB = "speed-holdout-*.csv"
# The repository a held-out file's rows come from, where the file has no ``repository`` column.
DEFAULT_REPOSITORY = "lambdal/deeplearning-benchmark"
# A held-out file may state each row's activation layout (an optional ``memory_format``
# column); rows without one take ``memory_format``'s rule.
LAYOUTS = ("nchw", "channels_last")
# Lambda's BERT SQuAD fine-tuning rows (sources in its .md), never fitted; one of the
# held-out sources (its rows are banded as transformers).
BERT_CSV = DATA / "speed-holdout-bert.csv"

CARDS = {
    "A100 40GB SXM4": "A100 SXM4 40GB",
    "A100 80GB SXM4": "A100 SXM4 80GB",
    "Tesla K80 (one GK210 GPU)": "Tesla K80",
    "Tesla P100 SXM2 16GB (DGX-1)": "Tesla P100 SXM2 16GB",
    "Tesla V100 SXM2 16GB": "Tesla V100 SXM2 16GB",
    "Tesla V100 SXM2 32GB": "Tesla V100 SXM2 32GB",
    "Tesla V100 SXM3 32GB (DGX-2)": "Tesla V100 SXM2 32GB",
}
NETWORKS = {
    "ResNet-50 v1.5": "resnet50",
    "ResNet-50": "resnet50",
    "ResNet-152": "resnet152",
    "VGG-16": "vgg16",
    "AlexNet": "alexnet",
    "Inception-v3": "inception_v3",
    "ResNeXt101-32x4d": "resnext101_32x4d",
    "SE-ResNeXt101-32x4d": "se_resnext101_32x4d",
    "EfficientNet-B0": "efficientnet_b0",
    "EfficientNet-B4": "efficientnet_b4",
    "ResNet-18": "resnet18",
    "MobileNetV2": "mobilenet_v2",
    "ResNeXt101-32x8d": "resnext101_32x8d",
    # Transformers: built from their hyper-parameters, not shipped presets (``_analysis``).
    "BERT-base SQuAD": "bert_base_squad384",
    "BERT-large SQuAD": "bert_large_squad384",
}
PRECISIONS = {"fp32": "fp32", "tf32": "tf32", "amp": "mixed", "fp16": "fp16"}
DEFAULT_BATCH = {"fp32": 128, "tf32": 256, "mixed": 256, "fp16": 256}

# Rows used to fit the parameters; every other network only checks them (held out).
FIT_NETWORKS = ("resnet50", "vgg16", "resnext101_32x4d", "efficientnet_b0", "inception_v3")


@dataclass(frozen=True)
class Row:
    card: str  # as the source names it
    catalog_card: str
    network: str  # the source's name
    preset: str
    precision: str  # the planner's name
    batch: int
    batch_stated: bool
    framework: str
    images_per_s: float  # total over num_gpus
    num_gpus: int
    source: str
    notes: str
    holdout: str = ""  # the held-out source (``speed-holdout-<holdout>.csv``); "" for calibration
    layout: str = ""  # the activation layout the source states ("nchw", "channels_last"), if any

    @property
    def fit(self) -> bool:
        return self.preset in FIT_NETWORKS and self.num_gpus == 1


def load_rows(path: Path = CSV) -> tuple[list[Row], dict[str, int]]:
    """The rows the planner can predict, and a count of the others by reason."""
    rows, skipped = [], {}
    with open(path, newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            preset = NETWORKS.get(r["model"])
            card = CARDS.get(r["card"])
            prec = PRECISIONS.get(r["precision"])
            if preset is None or card is None or prec is None:
                why = (f"network {r['model']}" if preset is None else
                       f"card {r['card']}" if card is None else f"precision {r['precision']}")
                skipped[why] = skipped.get(why, 0) + 1
                continue
            stated = bool(r["batch"].strip())
            batch = int(r["batch"]) if stated else DEFAULT_BATCH[prec]
            rows.append(Row(r["card"], card, r["model"], preset, prec, batch, stated,
                            r["framework"], float(r["images_per_s"]), int(r["num_gpus"]),
                            r["source"], r["notes"]))
    return rows, skipped


def holdout_files(directory: Path = DATA) -> list[Path]:
    """Every held-out source: ``speed-holdout-<source>.csv`` in ``directory``, by name."""
    return sorted(directory.glob(HOLDOUT_GLOB))


def holdout_name(path: Path) -> str:
    """``speed-holdout-lambda-logs.csv`` → ``lambda-logs``."""
    return path.stem.removeprefix("speed-holdout-")


def load_holdout_rows(path: Path | None = None) -> list[Row]:
    """The held-out rows: a check on cards the calibration set does not have, used by no fit.
    ``path``: one source's file; by default every ``speed-holdout-*.csv`` (``holdout_files``).
    Each row names its catalog card and the planner precision of what ran
    (``planner_precision``: TF32 where the container ran it). A model with no preset in
    ``NETWORKS`` is an error, not a silently smaller check."""
    paths = [path] if path is not None else holdout_files()
    out = []
    for p in paths:
        name = holdout_name(p)
        with open(p, newline="", encoding="utf-8") as f:
            for r in csv.DictReader(f):
                preset = NETWORKS.get(r["model"])
                if preset is None:
                    raise ValueError(f"{p.name}: no preset for model {r['model']!r} "
                                     "(add it to calibration.NETWORKS)")
                repo = (r.get("repository") or "").strip() or DEFAULT_REPOSITORY
                layout = (r.get("memory_format") or "").strip()
                if layout not in ("", *LAYOUTS):
                    raise ValueError(f"{p.name}: memory_format {layout!r} is not one of "
                                     f"{LAYOUTS}")
                out.append(Row(r["card"], r["catalog_card"], r["model"], preset,
                               r["planner_precision"], int(r["batch"]),
                               r["batch_stated"] == "yes", r["framework"],
                               float(r["images_per_s"]), int(r["num_gpus"]),
                               f"github {repo} {r['file']} @{r['commit']}", r["notes"], name,
                               layout))
    return out


def bert_squad_draft(large: bool, seq_len: int = 384):
    """BERT fine-tuned on SQuAD as DeepLearningExamples' ``run_squad.py`` builds it
    (``modeling.BertForQuestionAnswering``): the BERT builder's encoder (post-norm, GELU MLP,
    hidden and attention dropout 0.1, eager attention: DLE's ``BertSelfAttention`` multiplies
    q·kᵀ, scales, adds the mask, softmax, dropout, multiplies by v), the vocabulary padded to a
    multiple of 8 (30,522 → 30,528, ``run_squad.py``), and the question-answering head (one
    linear layer to 2 logits) instead of the masked-LM head; ``max_seq_length=384``
    (``scripts/run_squad.sh``). BERT-base: 12 layers, hidden 768, 12 heads, MLP 3072;
    BERT-large: 24, 1024, 16, 4096 (Devlin et al. 2019, Table/section 3)."""
    from planner.core.layers import LayerSpec  # noqa: PLC0415
    from planner.core.network import NetworkDraft  # noqa: PLC0415
    from planner.core.transformer import TransformerConfig, build_draft  # noqa: PLC0415

    layers, hidden, heads, mlp = (24, 1024, 16, 4096) if large else (12, 768, 12, 3072)
    c = TransformerConfig(family="bert", layers=layers, hidden=hidden, heads=heads,
                          intermediate=mlp, vocab=30528, max_positions=512, seq_len=seq_len,
                          mlp="gelu", norm="layernorm", positions="learned", tied=True,
                          token_types=2, attention="eager", attention_dropout=0.1,
                          dropout=0.1)
    draft = build_draft(c, "bert_large_squad" if large else "bert_base_squad")
    body = [spec for spec in draft.layers if not spec.name.startswith("cls.")]
    body.append(LayerSpec("fc", "qa_outputs", {"units": 2, "bias": True}))
    return NetworkDraft(draft.name, tuple(body), draft.description, draft.repeats)


@lru_cache(maxsize=None)
def _analysis(preset: str):
    if preset.startswith("bert_") and preset.endswith("_squad384"):
        return analyze(bert_squad_draft(preset.startswith("bert_large")))
    draft, _ = load_preset(preset)
    return analyze(draft)


def optimizer(preset: str) -> str:
    """The optimizer a row's recipe steps: Adam for BERT on SQuAD (``run_squad.py``: BertAdam,
    or apex FusedAdam with --fp16), SGD with momentum for the CNN recipes."""
    return "adam" if preset.startswith("bert_") else "momentum"


@lru_cache(maxsize=None)
def _workload(preset: str, batch: int, precision: str):
    return workload(_analysis(preset), Setup(batch, precision, optimizer(preset)))


@lru_cache(maxsize=None)
def catalog():
    return load_catalog()


def predict(row: Row, a: Assumptions | None = None) -> float:
    """Predicted single-GPU images/s for ``row`` (at its per-GPU batch, in its memory
    format: ``memory_format``)."""
    a = row_assumptions(row, a)
    card = catalog().by_name(row.catalog_card)
    w = _workload(row.preset, row.batch, row.precision)
    return iteration_time(w, card, row.precision, a).samples_per_s


def row_assumptions(row: Row, a: Assumptions | None = None) -> Assumptions:
    """``a`` (the defaults) with what the row's recipe ran: its memory format and whether its
    batch norms fuse the ReLU after them."""
    return replace(a or Assumptions(), memory_format=memory_format(row),
                   fused_bn_activation=fused_bn_activation(row),
                   optimizer_for_loop=optimizer_for_loop(row))


def optimizer_for_loop(row: Row) -> bool:
    """Whether the row's optimizer steps each parameter tensor in a Python loop: DLE's BERT
    ``run_squad.py`` without --fp16 uses ``BertAdam`` (``optimization.py``: clipping, moments
    and update per tensor, one kernel per operation); with --fp16 apex's ``FusedAdam``
    (multi-tensor). The CNN recipes' SGD is PyTorch's (foreach by default since 1.13; the
    step is a small share of a CNN's iteration)."""
    return row.preset.startswith("bert_") and row.precision in ("fp32", "tf32")


def memory_format(row: Row) -> str:
    """The activation layout a row ran in, which decides whether cuDNN transposes around its
    tensor-core kernels. PyTorch's default is NCHW: Lambda's runs pass no ``--memory-format``
    (their configs), nor do DLE's PyTorch FP32/TF32 recipes; DLE's PyTorch AMP recipes set
    ``memory_format: nhwc`` (``PyTorch/Classification/ConvNets/configs.yml`` @097c7ff9, every
    platform and network), and TensorFlow's, MXNet's and Paddle's tensor-core paths run NHWC.
    The 2019 and 2020-06 PyTorch AMP rows predate configs.yml and state no layout: they are
    predicted channels-last like the later ones (they measure 1.3-1.6x below them on the same
    card, as NCHW would; not assumed). A held-out row whose source states its layout (the
    optional ``memory_format`` column) runs in that layout."""
    if row.layout:
        return row.layout
    pytorch = row.framework.startswith("PyTorch")
    if pytorch and ("Lambda" in row.framework or row.precision in ("fp32", "tf32")):
        return "nchw"
    return "channels_last"


def fused_bn_activation(row: Row) -> bool:
    """Whether the row's recipe fuses ReLU (and the residual add) into batch norm: DLE's MXNet
    ResNet-50 in float16 (its ``runner``: ``--fuse-bn-relu 1 --fuse-bn-add-relu 1`` for
    ``--dtype float16``, not for float32). Every other row runs them as separate kernels (or
    fuses them in ways not stated: TensorFlow's XLA)."""
    return row.framework.startswith("MXNet") and row.precision in SIXTEEN_BIT


def log_error(pred: float, measured: float) -> float:
    return abs(math.log(pred / measured))


def typical_error(errors: list[float]) -> float:
    """exp(mean |log(pred/measured)|) − 1: 0.2 = typically 20 % off either way."""
    return math.exp(sum(errors) / len(errors)) - 1 if errors else float("nan")


def ranks(values: list[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(a: list[float], b: list[float]) -> float:
    ra, rb = ranks(a), ranks(b)
    n = len(a)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = math.sqrt(sum((x - ma) ** 2 for x in ra))
    vb = math.sqrt(sum((y - mb) ** 2 for y in rb))
    return cov / (va * vb) if va and vb else float("nan")


def multi_gpu_pairs(rows: list[Row]) -> list[tuple[Row, Row]]:
    """(multi-GPU row, the single-GPU row of the same source, framework, card, network,
    precision and batch): the measured speed-up is their ratio."""
    singles = {(r.card, r.preset, r.precision, r.framework, r.source, r.batch): r
               for r in rows if r.num_gpus == 1}
    out = []
    for r in rows:
        if r.num_gpus > 1:
            one = singles.get((r.card, r.preset, r.precision, r.framework, r.source, r.batch))
            if one is not None:
                out.append((r, one))
    return out


def predicted_speedup(row: Row, pa: ParallelAssumptions, a: Assumptions | None = None) -> float:
    """The planner's speed-up on ``row.num_gpus`` GPUs of one node, data-parallel."""
    card = catalog().by_name(row.catalog_card)
    w = _workload(row.preset, row.batch, row.precision)
    grads = _analysis(row.preset).parameters * ACT_BYTES[row.precision]
    return scaling(w, card, row.precision, grads, Parallel(row.num_gpus, 1, "ddp"), pa,
                   row_assumptions(row, a))[-1].speedup
