"""Transformer drafts from their hyper-parameters: decoders (Llama, Mistral, Qwen2, Gemma
shapes), GPT-2, BERT and ViT, built from the planner's layer kinds op by op, in the order
Hugging Face's modules run them (so what each layer keeps is what autograd keeps there).

``TransformerConfig`` holds the published hyper-parameters; ``build_draft(config)`` gives the
NetworkDraft (one input of ``seq_len`` token ids, or an image for ViT). The presets and the
model-folder importer both use it. No I/O, no Qt.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from planner.core.layers import ATTENTION_IMPLEMENTATIONS, LayerSpec
from planner.core.network import NetworkDraft
from planner.i18n import QT_TRANSLATE_NOOP, Msg

FAMILIES = ("decoder", "gpt2", "bert", "vit")
MLPS = ("swiglu", "gelu", "gelu_new")
NORMS = ("rmsnorm", "layernorm")
POSITIONS = ("rotary", "learned")
MAX_LAYERS = 1024


class ConfigError(ValueError):
    """A hyper-parameter out of range; the message names the field."""


@dataclass(frozen=True)
class TransformerConfig:
    family: str = "decoder"
    layers: int = 2
    hidden: int = 512
    heads: int = 8
    kv_heads: int = 0  # 0 = heads (no grouped-query attention)
    head_dim: int = 0  # 0 = hidden / heads
    intermediate: int = 2048
    vocab: int = 32000
    max_positions: int = 2048
    seq_len: int = 512
    mlp: str = "swiglu"
    gate_act: str = "silu"  # the gated MLP's activation (Gemma: gelu, i.e. GeGLU)
    norm: str = "rmsnorm"
    rmsnorm_impl: str = "eager"  # Hugging Face's LlamaRMSNorm
    positions: str = "rotary"
    tied: bool = False
    attention: str = "sdpa_flash"
    attention_dropout: float = 0.0
    dropout: float = 0.0  # hidden (residual / embedding) dropout
    # Hugging Face's decoders (GPT-2, Llama…) run their forward with use_cache, the config's
    # default, in training too (unless gradient checkpointing turns it off): each layer's k and
    # v are concatenated into a DynamicCache, and attention keeps those copies.
    kv_cache: bool = True
    qkv_bias: bool = False
    mlp_bias: bool = False
    token_types: int = 0  # BERT: 2
    image: tuple[int, int, int] = (3, 224, 224)  # ViT
    patch: int = 16
    labels: int = 1000  # ViT classifier

    def __post_init__(self):
        def bad(field: str, value: Any, why: str):
            raise ConfigError(Msg(QT_TRANSLATE_NOOP("core", "{field} = {value!r}: {why}"),
                                  field=field, value=value, why=Msg(why)))

        if self.family not in FAMILIES:
            bad("family", self.family, QT_TRANSLATE_NOOP("core", "not a known family"))
        for name in ("layers", "hidden", "heads", "intermediate", "vocab", "seq_len"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                bad(name, v, QT_TRANSLATE_NOOP("core", "must be a whole number of at least 1"))
        if self.layers > MAX_LAYERS:
            bad("layers", self.layers, QT_TRANSLATE_NOOP("core", "more than 1024 layers"))
        if self.kv_heads < 0 or (self.kv_heads and self.heads % self.kv_heads):
            bad("kv_heads", self.kv_heads, QT_TRANSLATE_NOOP("core",
                                                             "must divide the heads"))
        if not self.head_dim and self.hidden % self.heads:
            bad("heads", self.heads, QT_TRANSLATE_NOOP("core",
                                                       "must divide the hidden size"))
        if self.mlp not in MLPS:
            bad("mlp", self.mlp, QT_TRANSLATE_NOOP("core", "not swiglu, gelu or gelu_new"))
        if self.gate_act not in ("silu", "gelu"):
            bad("gate_act", self.gate_act, QT_TRANSLATE_NOOP("core", "not silu or gelu"))
        if self.norm not in NORMS:
            bad("norm", self.norm, QT_TRANSLATE_NOOP("core", "not rmsnorm or layernorm"))
        if self.positions not in POSITIONS:
            bad("positions", self.positions, QT_TRANSLATE_NOOP("core",
                                                               "not rotary or learned"))
        if self.attention not in ATTENTION_IMPLEMENTATIONS:
            bad("attention", self.attention, QT_TRANSLATE_NOOP(
                "core", "not sdpa_flash, sdpa_mem_efficient or eager"))
        for name in ("attention_dropout", "dropout"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or not 0 <= v < 1:
                bad(name, v, QT_TRANSLATE_NOOP("core", "must be at least 0 and below 1"))
        if self.positions == "learned" and self.family != "vit" and \
                self.max_positions < self.seq_len:
            bad("seq_len", self.seq_len, QT_TRANSLATE_NOOP(
                "core", "longer than max_positions (the learned position table)"))

    @property
    def size(self) -> int:
        return self.head_dim or self.hidden // self.heads

    @property
    def kv(self) -> int:
        return self.kv_heads or self.heads

    def to_json(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["image"] = list(self.image)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "TransformerConfig":
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(Msg(QT_TRANSLATE_NOOP("core", "unknown field(s): {names}"),
                                  names=", ".join(unknown)))
        values = dict(data)
        if "image" in values:
            values["image"] = tuple(values["image"])
        return cls(**values)

    def with_seq_len(self, seq_len: int) -> "TransformerConfig":
        return replace(self, seq_len=seq_len)


class _Builder:
    def __init__(self):
        self.layers: list[LayerSpec] = []

    def add(self, kind: str, name: str, **params) -> str:
        self.layers.append(LayerSpec(kind, name, params))
        return name

    @property
    def last(self) -> str:
        return self.layers[-1].name


def _norm(b: _Builder, c: TransformerConfig, name: str, src: str | None = None) -> str:
    extra = {"input": src} if src else {}
    if c.norm == "rmsnorm":
        return b.add("rmsnorm", name, implementation=c.rmsnorm_impl, **extra)
    return b.add("layernorm", name, **extra)


def _dropout(b: _Builder, p: float, name: str) -> None:
    if p > 0:  # nn.Dropout(0) returns its input: nothing made, nothing kept
        b.add("dropout", name, p=float(p))


def _attention_block(b: _Builder, c: TransformerConfig, pre: str, x: str) -> str:
    """q, k, v projections of ``x``, rotary positions, attention, output projection."""
    d, kv = c.heads * c.size, c.kv * c.size
    att = {"heads": c.heads, "kv_heads": c.kv if c.kv != c.heads else 0,
           "causal": c.family in ("decoder", "gpt2"), "implementation": c.attention,
           "dropout": float(c.attention_dropout),
           # Hugging Face copies k and v to every head (repeat_kv) for eager attention; SDPA
           # without a padding mask reads the groups itself (enable_gqa).
           "repeat_kv": c.attention == "eager"}
    if c.kv_cache and c.family in ("decoder", "gpt2"):  # encoders keep no cache
        att["kv_cache"] = True
    if c.family == "gpt2":  # one fused projection, split into three views
        qkv = b.add("fc", f"{pre}.c_attn", units=3 * c.hidden, bias=True, input=x)
        q = b.add("view", f"{pre}.q", split=3, input=qkv)
        k = b.add("view", f"{pre}.k", split=3, input=qkv)
        v = b.add("view", f"{pre}.v", split=3, input=qkv)
        b.add("attention", f"{pre}.attn", input=q, **{"from": (k, v)}, **att)
        return b.add("fc", f"{pre}.c_proj", units=c.hidden, bias=True)
    names = {"decoder": ("q_proj", "k_proj", "v_proj", "o_proj"),
             "bert": ("query", "key", "value", "dense"),
             # transformers 5 names ViT's projections like a decoder's
             "vit": ("q_proj", "k_proj", "v_proj", "o_proj")}[c.family]
    bias = c.qkv_bias or c.family in ("bert", "vit")
    q = b.add("fc", f"{pre}.{names[0]}", units=d, bias=bias, input=x)
    k = b.add("fc", f"{pre}.{names[1]}", units=kv, bias=bias, input=x)
    v = b.add("fc", f"{pre}.{names[2]}", units=kv, bias=bias, input=x)
    if c.positions == "rotary" and c.family == "decoder":
        q = b.add("rotary", f"{pre}.q_rot", input=q)
        k = b.add("rotary", f"{pre}.k_rot", input=k)
    b.add("attention", f"{pre}.attn", input=q, **{"from": (k, v)}, **att)
    return b.add("fc", f"{pre}.{names[3]}", units=c.hidden,
                 bias=c.family in ("bert", "vit"))


def _mlp(b: _Builder, c: TransformerConfig, pre: str, x: str) -> str:
    if c.mlp == "swiglu":
        gate = b.add("fc", f"{pre}.gate_proj", units=c.intermediate, bias=c.mlp_bias, input=x)
        act = b.add("activation", f"{pre}.act", function=c.gate_act)
        up = b.add("fc", f"{pre}.up_proj", units=c.intermediate, bias=c.mlp_bias, input=x)
        b.add("elementwise", f"{pre}.mul", op="mul", keeps="inputs", input=act,
              **{"from": (up,)})
        del gate
        return b.add("fc", f"{pre}.down_proj", units=c.hidden, bias=c.mlp_bias)
    up_name, down_name = (("c_fc", "c_proj") if c.family == "gpt2"
                          else ("intermediate", "output"))
    b.add("fc", f"{pre}.{up_name}", units=c.intermediate, bias=True, input=x)
    b.add("activation", f"{pre}.act", function=c.mlp)
    return b.add("fc", f"{pre}.{down_name}", units=c.hidden, bias=True)


def build_draft(c: TransformerConfig, name: str = "transformer",
                description: str = "") -> NetworkDraft:
    b = _Builder()
    if c.family == "vit":
        b.add("input", "input", shape=tuple(c.image))
        x = b.add("patch_embed", "embeddings", patch=c.patch, dim=c.hidden)
        _dropout(b, c.dropout, "embeddings.dropout")
    else:
        b.add("input", "input", shape=(c.seq_len,))
        emb: dict[str, Any] = {"num": c.vocab, "dim": c.hidden}
        if c.positions == "rotary":
            emb.update(positions="rotary", rotary_dim=c.size)
        else:
            emb.update(positions="learned", max_positions=c.max_positions)
        if c.token_types:
            emb["token_types"] = c.token_types
        b.add("embedding", "embed_tokens", **emb)
        if c.family == "bert":
            b.add("layernorm", "embeddings.LayerNorm")
        _dropout(b, c.dropout, "embeddings.dropout")
    x = b.last
    first = len(b.layers)
    for i in range(c.layers):
        pre = f"layers.{i}"
        if c.family == "bert":  # post-norm: LN(x + dropout(attn(x)))
            a = _attention_block(b, c, f"{pre}.attention", x)
            _dropout(b, c.dropout, f"{pre}.attention.dropout")
            b.add("add", f"{pre}.attention.residual", **{"from": x})
            x = b.add("layernorm", f"{pre}.attention.LayerNorm")
            _mlp(b, c, pre, x)
            _dropout(b, c.dropout, f"{pre}.output.dropout")
            b.add("add", f"{pre}.output.residual", **{"from": x})
            x = b.add("layernorm", f"{pre}.output.LayerNorm")
            del a
            continue
        n1 = _norm(b, c, f"{pre}.input_layernorm", src=x)
        _attention_block(b, c, f"{pre}.self_attn", n1)
        _dropout(b, c.dropout, f"{pre}.attn_dropout")
        h = b.add("add", f"{pre}.attn_residual", **{"from": x})
        n2 = _norm(b, c, f"{pre}.post_attention_layernorm", src=h)
        _mlp(b, c, f"{pre}.mlp", n2)
        _dropout(b, c.dropout, f"{pre}.mlp_dropout")
        x = b.add("add", f"{pre}.mlp_residual", **{"from": h})
    length = (len(b.layers) - first) // c.layers
    from planner.core.repeat import Repeat  # noqa: PLC0415

    repeats = (Repeat("layers", first, length, c.layers),)
    if c.family == "vit":
        b.add("layernorm", "layernorm")
        b.add("view", "cls_token", shape=(c.hidden,))  # sequence_output[:, 0]: a view
        b.add("fc", "classifier", units=c.labels, bias=True)
    elif c.family == "bert":  # BertForMaskedLM's head
        b.add("fc", "cls.transform.dense", units=c.hidden, bias=True)
        b.add("activation", "cls.transform.act", function="gelu")
        b.add("layernorm", "cls.transform.LayerNorm")
        b.add("fc", "cls.decoder", units=c.vocab, bias=True, tied=c.tied)
    else:
        _norm(b, c, "norm")
        b.add("fc", "lm_head", units=c.vocab, bias=False, tied=c.tied)
    return NetworkDraft(name, tuple(b.layers), description, repeats)


def tokens_per_step(draft: NetworkDraft, batch: int, accumulation: int = 1) -> int | None:
    """Tokens one optimizer step processes (sequences × tokens each), or None for a draft
    whose input is not a sequence of token ids."""
    shape = draft.input_shape
    if not shape or len(shape) != 1 or len(draft.layers) < 2 or \
            draft.layers[1].kind != "embedding":
        return None
    return batch * accumulation * int(shape[0])


# The shipped transformer presets: published hyper-parameters (the sources are named in each
# preset's description), a default sequence length and batch (sequences).
PRESETS: dict[str, tuple[TransformerConfig, str, str, dict[str, Any]]] = {
    "vit_b16": (
        TransformerConfig(family="vit", layers=12, hidden=768, heads=12, intermediate=3072,
                          vocab=1, seq_len=197, mlp="gelu", norm="layernorm",
                          positions="learned", labels=1000),
        QT_TRANSLATE_NOOP("core", "ViT-B/16"),
        QT_TRANSLATE_NOOP("core", "ViT-Base, 16×16 patches, 224×224×3, 1000 classes: 12 layers, "
                                  "hidden 768, MLP 3072, 12 heads (Dosovitskiy et al. 2021, "
                                  "Table 1; google/vit-base-patch16-224)."),
        {"batch_size": 64, "precision": "mixed_bf16", "optimizer": "adamw"}),
    "bert_base": (
        TransformerConfig(family="bert", layers=12, hidden=768, heads=12, intermediate=3072,
                          vocab=30522, max_positions=512, seq_len=128, mlp="gelu",
                          norm="layernorm", positions="learned", tied=True, token_types=2,
                          attention_dropout=0.1, dropout=0.1),
        QT_TRANSLATE_NOOP("core", "BERT-base"),
        QT_TRANSLATE_NOOP("core", "BERT-base with its masked-LM head, 128-token sequences: 12 "
                                  "layers, hidden 768, 12 heads, vocabulary 30,522, 512 "
                                  "positions (Devlin et al. 2019; bert-base-uncased)."),
        {"batch_size": 32, "precision": "mixed_bf16", "optimizer": "adamw"}),
    "gpt2": (
        TransformerConfig(family="gpt2", layers=12, hidden=768, heads=12, intermediate=3072,
                          vocab=50257, max_positions=1024, seq_len=1024, mlp="gelu_new",
                          norm="layernorm", positions="learned", tied=True,
                          attention_dropout=0.1, dropout=0.1),
        QT_TRANSLATE_NOOP("core", "GPT-2 (124M)"),
        QT_TRANSLATE_NOOP("core", "GPT-2 small, 1024-token sequences: 12 layers, hidden 768, 12 "
                                  "heads, vocabulary 50,257, LM head tied (Radford et al. "
                                  "2019; openai-community/gpt2 config)."),
        {"batch_size": 8, "precision": "mixed_bf16", "optimizer": "adamw"}),
    "llama_1b": (
        TransformerConfig(family="decoder", layers=16, hidden=2048, heads=32, kv_heads=8,
                          head_dim=64, intermediate=8192, vocab=128256,
                          max_positions=131072, seq_len=2048, tied=True),
        QT_TRANSLATE_NOOP("core", "Llama-shaped 1B"),
        QT_TRANSLATE_NOOP("core", "Llama 3.2 1B's shape, 2048-token sequences: 16 layers, hidden "
                                  "2048, 32 heads with 8 key/value heads, SwiGLU 8192, "
                                  "vocabulary 128,256, tied head (meta-llama/Llama-3.2-1B "
                                  "config.json)."),
        {"batch_size": 4, "precision": "bf16", "optimizer": "adamw"}),
    "llama_8b": (
        TransformerConfig(family="decoder", layers=32, hidden=4096, heads=32, kv_heads=8,
                          intermediate=14336, vocab=128256, max_positions=131072,
                          seq_len=2048),
        QT_TRANSLATE_NOOP("core", "Llama-shaped 8B"),
        QT_TRANSLATE_NOOP("core", "Llama 3.1 8B's shape, 2048-token sequences: 32 layers, hidden "
                                  "4096, 32 heads with 8 key/value heads, SwiGLU 14336, "
                                  "vocabulary 128,256 (Llama 3 paper, Table 3; "
                                  "meta-llama/Llama-3.1-8B config.json)."),
        {"batch_size": 1, "precision": "bf16", "optimizer": "adamw"}),
    "llama_70b": (
        TransformerConfig(family="decoder", layers=80, hidden=8192, heads=64, kv_heads=8,
                          intermediate=28672, vocab=128256, max_positions=131072,
                          seq_len=2048),
        QT_TRANSLATE_NOOP("core", "Llama-shaped 70B"),
        QT_TRANSLATE_NOOP("core", "Llama 3.1 70B's shape, 2048-token sequences: 80 layers, "
                                  "hidden 8192, 64 heads with 8 key/value heads, SwiGLU 28672, "
                                  "vocabulary 128,256 (Llama 3 paper, Table 3; "
                                  "meta-llama/Llama-3.1-70B config.json)."),
        {"batch_size": 1, "precision": "bf16", "optimizer": "adamw"}),
}
