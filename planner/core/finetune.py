"""How a transformer is trained or served: full fine-tuning, LoRA, QLoRA, and serving with a KV
cache. Each mode is a transformation of the draft (frozen layers, adapters, quantised weights)
that the ordinary memory estimate then plans, or, for serving, a closed formula.

* full: every weight trains (the draft as it is).
* LoRA (Hu et al. 2021; Hugging Face peft): every weight of the base is frozen (no gradient, no
  optimizer state); the target projections get adapters A (r × in) and B (out × r). A frozen
  linear layer keeps nothing for backward (its input's gradient needs only the weight); an
  adapted one keeps its input (for A's gradient) and the rank-r intermediate (for B's).
  Activation gradients still flow through every layer after the first adapter.
* QLoRA (Dettmers et al. 2023, "QLoRA: Efficient Finetuning of Quantized LLMs", §2–3;
  bitsandbytes Linear4bit): LoRA on a base whose linear weights are stored as 4-bit NormalFloat
  (half a byte a weight) with one fp32 absmax per block of 64 weights, or with double
  quantisation one 8-bit absmax per 64 and one fp32 constant per 256 blocks (0.127 bits a
  weight of constants instead of 0.5). Compute is in bf16: each linear layer's weight is
  dequantised to bf16 for its product and freed after it (a transient of one layer's weight).
  Embeddings, norms and the LM head stay in bf16. The paged 8-bit optimizer (bitsandbytes
  paged_adamw_8bit) keeps Adam's two moments at one byte each plus one fp32 scale per block
  of 2048 values (Dettmers et al. 2022, "8-bit Optimizers via Block-wise Quantization"), in
  unified memory that is paged to the host under pressure. This cannot be measured on a CPU
  (bitsandbytes kernels are CUDA-only): benchmarks/gpu_truth.py is where it is measured.
* serving: the weights at 16, 8 or 4 bits plus the KV cache: 2 (k and v) × layers × kv_heads ×
  head size × context × concurrent sequences × bytes per element, and the activations of one
  forward step of the longest prompt.

Every figure taken on trust is in ``FinetuneAssumptions``. No I/O, no Qt.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from planner.core.layers import FREEZABLE_KINDS, NF4_BLOCK, NF4_DQ_BLOCK, LayerSpec, \
    quantized_bytes
from planner.core.network import NetworkDraft
from planner.i18n import QT_TRANSLATE_NOOP, Msg

MODES = ("full", "lora", "qlora")
# Projections LoRA usually adapts, by the names Hugging Face gives them.
ATTENTION_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "c_attn", "query", "key", "value")
ALL_LINEAR = "all-linear"
DEFAULT_TARGETS = ("q_proj", "v_proj", "c_attn", "query", "value")


class FinetuneError(ValueError):
    """A bad fine-tuning or serving setting; the message names the field."""


@dataclass(frozen=True)
class FinetuneAssumptions:
    """What the fine-tuning and serving figures take on trust (shown with them)."""

    # bitsandbytes' 8-bit optimizers: one fp32 absmax per block of this many state values.
    optimizer_8bit_block: int = 2048
    # Serving: the fraction of a card's memory a server (vLLM's gpu_memory_utilization) lets
    # the weights and KV cache use.
    serving_memory_fraction: float = 0.9
    # Serving: activation memory of one forward step, as a multiple of hidden × tokens of the
    # step's batch (the MLP's intermediate dominates; 0 = not counted).
    serving_activation_factor: float = 4.0

    def __post_init__(self):
        if not isinstance(self.optimizer_8bit_block, int) or self.optimizer_8bit_block < 1:
            raise FinetuneError(Msg(QT_TRANSLATE_NOOP(
                "core", "optimizer_8bit_block must be a whole number of at least 1")))
        if not 0 < self.serving_memory_fraction <= 1:
            raise FinetuneError(Msg(QT_TRANSLATE_NOOP(
                "core", "serving_memory_fraction must be above 0 and at most 1")))
        if not 0 <= self.serving_activation_factor <= 100:
            raise FinetuneError(Msg(QT_TRANSLATE_NOOP(
                "core", "serving_activation_factor must be between 0 and 100")))

    @staticmethod
    def describe() -> dict[str, str]:
        return {
            "optimizer_8bit_block": QT_TRANSLATE_NOOP(
                "core", "values per fp32 scale of bitsandbytes' 8-bit optimizer state (block-"
                        "wise quantisation, Dettmers et al. 2022)"),
            "serving_memory_fraction": QT_TRANSLATE_NOOP(
                "core", "share of a card's memory a server gives weights and KV cache (vLLM's "
                        "gpu_memory_utilization default 0.9)"),
            "serving_activation_factor": QT_TRANSLATE_NOOP(
                "core", "activations of one serving step as a multiple of hidden × tokens (a "
                        "guess; the MLP's intermediate dominates)"),
        }

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class LoraSetup:
    """LoRA's settings: rank, target projections (their last name part, or 'all-linear')."""

    rank: int = 16
    targets: tuple[str, ...] = DEFAULT_TARGETS
    quant: str = "none"  # QLoRA: nf4 or nf4_dq
    optimizer_8bit: bool = False

    def __post_init__(self):
        if not isinstance(self.rank, int) or isinstance(self.rank, bool) or \
                not 1 <= self.rank <= 4096:
            raise FinetuneError(Msg(QT_TRANSLATE_NOOP(
                "core", "LoRA rank must be a whole number from 1 to 4096, not {rank!r}"),
                rank=self.rank))
        if not self.targets or not all(isinstance(t, str) and t for t in self.targets):
            raise FinetuneError(Msg(QT_TRANSLATE_NOOP(
                "core", "LoRA targets must name at least one projection")))
        if self.quant not in ("none", "nf4", "nf4_dq", "int8"):
            raise FinetuneError(Msg(QT_TRANSLATE_NOOP(
                "core", "LoRA quant '{quant}' is not none, nf4, nf4_dq or int8"),
                quant=self.quant))


def _is_target(layer: LayerSpec, targets: tuple[str, ...]) -> bool:
    if layer.kind != "fc" or layer.get("tied"):
        return False
    if ALL_LINEAR in targets:  # peft's 'all-linear': every linear layer but the output head
        return layer.name.split(".")[-1] not in ("lm_head", "classifier", "decoder")
    return layer.name.split(".")[-1] in targets


def apply_lora(draft: NetworkDraft, lora: LoraSetup) -> NetworkDraft:
    """The draft with every learned tensor frozen and adapters on the target projections (and,
    for QLoRA, the frozen linear weights of the base quantised). Raises FinetuneError when no
    layer matches the targets."""
    out: list[LayerSpec] = []
    matched = 0
    for layer in draft.layers:
        if layer.kind == "fc":
            target = _is_target(layer, lora.targets)
            matched += target
            quant = lora.quant if not layer.get("tied") and \
                layer.name.split(".")[-1] not in ("lm_head", "classifier", "decoder") \
                else "none"
            out.append(layer.replace(frozen=True, lora_rank=lora.rank if target else 0,
                                     quant=quant))
        elif layer.kind in FREEZABLE_KINDS:
            out.append(layer.replace(frozen=True))
        else:
            out.append(layer)
    if not matched:
        raise FinetuneError(Msg(QT_TRANSLATE_NOOP(
            "core", "LoRA targets {targets} match no linear layer of the draft"),
            targets=", ".join(lora.targets)))
    return draft.with_layers(out)


def qlora_weight_bytes_per_parameter(double_quant: bool) -> float:
    """Bytes a 4-bit NF4 weight takes with its constants (QLoRA §3): 0.5 + 4/64 = 0.5625, or
    with double quantisation 0.5 + 1/64 + 4/(64·256) ≈ 0.5159."""
    if double_quant:
        return 0.5 + 1 / NF4_BLOCK + 4 / (NF4_BLOCK * NF4_DQ_BLOCK)
    return 0.5 + 4 / NF4_BLOCK


def optimizer_8bit_bytes(trainable: int, a: FinetuneAssumptions | None = None) -> int:
    """Adam's two moments in 8 bits with one fp32 scale per block (bitsandbytes)."""
    a = a or FinetuneAssumptions()
    blocks = -(-trainable // a.optimizer_8bit_block)
    return 2 * (trainable + 4 * blocks)


# --------------------------------------------------------------------------------------------
# Serving
# --------------------------------------------------------------------------------------------

SERVING_BITS = (16, 8, 4)


@dataclass(frozen=True)
class ServingEstimate:
    weights_bytes: int
    kv_cache_bytes: int
    activation_bytes: int
    context: int
    sequences: int
    weight_bits: int
    kv_bits: int

    @property
    def total_bytes(self) -> int:
        return self.weights_bytes + self.kv_cache_bytes + self.activation_bytes

    def to_json(self) -> dict[str, Any]:
        return {"weights_bytes": self.weights_bytes, "kv_cache_bytes": self.kv_cache_bytes,
                "activation_bytes": self.activation_bytes, "total_bytes": self.total_bytes,
                "context": self.context, "sequences": self.sequences,
                "weight_bits": self.weight_bits, "kv_bits": self.kv_bits}


def kv_cache_bytes(layers: int, kv_heads: int, head_dim: int, context: int, sequences: int,
                   kv_bits: int = 16) -> int:
    """k and v of every layer for every token of every sequence."""
    return 2 * layers * kv_heads * head_dim * context * sequences * kv_bits // 8


def serving_estimate(draft: NetworkDraft, *, context: int, sequences: int,
                     weight_bits: int = 16, kv_bits: int = 16,
                     assumptions: FinetuneAssumptions | None = None) -> ServingEstimate:
    """Weights at ``weight_bits`` (4 = NF4 with its block constants) plus the KV cache of
    ``sequences`` sequences of ``context`` tokens, read from the draft's attention layers."""
    from planner.core.network import analyze  # noqa: PLC0415

    a = assumptions or FinetuneAssumptions()
    for name, v in (("context", context), ("sequences", sequences)):
        if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= 1 << 24:
            raise FinetuneError(Msg(QT_TRANSLATE_NOOP(
                "core", "{name} must be a whole number from 1 to 16777216, not {v!r}"),
                name=name, v=v))
    if weight_bits not in SERVING_BITS or kv_bits not in SERVING_BITS:
        raise FinetuneError(Msg(QT_TRANSLATE_NOOP(
            "core", "weight and KV bits must be 16, 8 or 4, not {w} and {k}"),
            w=weight_bits, k=kv_bits))
    analysis = analyze(draft)
    if not analysis.ok:
        from planner.core.network import InvalidDraft  # noqa: PLC0415

        raise InvalidDraft(analysis.problems)
    params = analysis.parameters
    weights = {16: 2 * params, 8: params + 4 * -(-params // 4096),
               4: quantized_bytes(params, "nf4")}[weight_bits]
    kv = 0
    hidden = 0
    found = False
    for info in analysis.layers:
        if info.kind != "attention":
            continue
        found = True
        spec = draft.layers[info.index]
        k_shape = info.in_shapes[1]
        v_shape = info.in_shapes[2]
        per_token = (k_shape[-1] * (numel_rows(k_shape) if not spec.get("heads") else 1)
                     + v_shape[-1] * (numel_rows(v_shape) if not spec.get("heads") else 1))
        kv += per_token * context * sequences * kv_bits // 8
        hidden = max(hidden, info.in_shapes[0][-1])
    if not found:
        raise FinetuneError(Msg(QT_TRANSLATE_NOOP(
            "core", "the draft has no attention layer: there is no KV cache to plan")))
    act = int(a.serving_activation_factor * hidden * sequences * 2)
    return ServingEstimate(weights, kv, act, context, sequences, weight_bits, kv_bits)


def numel_rows(shape: tuple[int, ...]) -> int:
    """Heads of a (…, T, d) shape: the product of its leading dimensions."""
    n = 1
    for d in shape[:-2]:
        n *= d
    return n
