"""Rules of transformer layers: token and patch embeddings, attention, rotary positions.

Each module of a family lists its kinds in ``LAYER_RULES``; ``rules.py`` composes them.
"""

from __future__ import annotations


from planner.core.layers.shapes import (
    F32,
    F32_FIXED,
    MASK,
    LayerError,
    LayerResult,
    SavedTensor,
    numel,
    shape_str,
)
from planner.core.layers.shapes import refs_needed as _refs_needed
from planner.core.layers.schema import FROM_REFS as _FROM_REFS
from planner.core.layers.schema import LayerRule
from planner.core.layers.schema import param as _p
from planner.i18n import QT_TRANSLATE_NOOP, Msg


def _embedding(params, ins):
    x = ins[0]
    num, dim = int(params["num"]), int(params["dim"])
    out = x + (dim,)
    positions = params.get("positions") or "none"
    max_pos = int(params.get("max_positions") or 0)
    seq = x[-1] if x else 1
    table = 0 if params.get("tied") else num * dim  # a tied table is an earlier layer's
    learned = table + int(params.get("token_types") or 0) * dim
    saved = [SavedTensor("input", numel(x))]
    if positions == "learned":
        if max_pos < seq:
            raise LayerError(Msg(QT_TRANSLATE_NOOP(
                "core", "max_positions {max_pos} is shorter than the {seq}-token sequence"),
                max_pos=max_pos, seq=seq))
        learned += max_pos * dim
    elif positions == "rotary":
        rot = int(params.get("rotary_dim") or 0)
        if rot < 2 or rot % 2:
            raise LayerError(Msg(QT_TRANSLATE_NOOP(
                "core", "rotary_dim {rot} must be an even number of at least 2 (the head "
                        "size)"), rot=rot))
        # The cos and sin tables (one sequence, shared by every layer and every sample),
        # kept by the rotations' products in every attention layer.
        saved.append(SavedTensor("own", 2 * seq * rot, F32_FIXED))
    return LayerResult(
        out_shape=out,
        parameters=learned,
        flops_fwd=numel(out),
        flops_bwd=numel(out),
        saved=tuple(saved),
        weight_elements=numel(out),
    )


ATTENTION_IMPLEMENTATIONS = ("sdpa_flash", "sdpa_mem_efficient", "eager")
MEM_EFFICIENT_LSE_ALIGN = 32  # PyTorch's memory-efficient kernel pads its logsumexp rows to 32


def _attention(params, ins):
    _refs_needed(ins, 3)
    q, k, v = ins[0], ins[1], ins[2]
    heads = int(params.get("heads") or 0)
    impl = params.get("implementation") or "sdpa_flash"
    p_drop = float(params.get("dropout") or 0.0)
    if not 0.0 <= p_drop < 1.0:
        raise LayerError(Msg(QT_TRANSLATE_NOOP(
            "core", "dropout {p} must be at least 0 and below 1"), p=p_drop))
    bad = Msg(QT_TRANSLATE_NOOP("core", "q {shape}, k {shape2} and v {shape3} do not fit "
                                        "together"),
              shape=shape_str(q), shape2=shape_str(k), shape3=shape_str(v))
    if heads == 0:  # the shapes carry the heads: q (…, T, d), k (…, S, d), v (…, S, dv)
        if len(q) < 2 or len(k) != len(q) or len(v) != len(q) or k[-1] != q[-1] or \
                k[-2] != v[-2]:
            raise LayerError(bad)
        out = q[:-1] + (v[-1],)
        t_q, t_k, hd, hdv = q[-2], k[-2], q[-1], v[-1]
        groups = numel(q) // (t_q * hd)
        # Fewer k/v heads than q heads (grouped-query attention, k and v not repeated).
        kv_groups = numel(k) // (t_k * hd)
        if not kv_groups or groups % kv_groups or numel(v) != kv_groups * t_k * hdv:
            raise LayerError(bad)
    else:  # sequences of features: q (T, heads·d), k (S, kv_heads·d), v (S, kv_heads·dv)
        kv_heads = int(params.get("kv_heads") or 0) or heads
        if len(q) != 2 or len(k) != 2 or len(v) != 2 or k[0] != v[0]:
            raise LayerError(bad)
        if q[1] % heads:
            raise LayerError(Msg(QT_TRANSLATE_NOOP(
                "core", "heads {heads} do not divide q's {features} features"),
                heads=heads, features=q[1]))
        if heads % kv_heads:
            raise LayerError(Msg(QT_TRANSLATE_NOOP(
                "core", "kv_heads {kv_heads} do not divide heads {heads}"),
                kv_heads=kv_heads, heads=heads))
        hd = q[1] // heads
        if k[1] != kv_heads * hd or v[1] % kv_heads:
            raise LayerError(Msg(QT_TRANSLATE_NOOP(
                "core", "k {shape2} and v {shape3} do not hold kv_heads {kv_heads} of head "
                        "size {hd}"), shape2=shape_str(k), shape3=shape_str(v),
                kv_heads=kv_heads, hd=hd))
        hdv = v[1] // kv_heads
        t_q, t_k = q[0], k[0]
        groups, kv_groups = heads, kv_heads
        out = (t_q, heads * hdv)
    rows = groups * t_q
    scores = rows * t_k
    causal = bool(params.get("causal"))
    if causal and t_q != t_k:
        raise LayerError(Msg(QT_TRANSLATE_NOOP(
            "core", "causal attention needs as many keys as queries, not {t_k} and {t_q}"),
            t_k=t_k, t_q=t_q))
    fwd = 2 * scores * (hd + hdv) + 5 * scores
    # Eager attention on T×(heads·d) sequences (Hugging Face's view + transpose to heads)
    # multiplies non-contiguous head views: matmul's reshape copies q, k and v, and keeps the
    # copies, not its inputs (which matters when they are views of one fused projection).
    eager_copies = impl == "eager" and heads > 0
    saved = [SavedTensor("own" if eager_copies else "input", numel(q))]
    # Grouped-query attention: k and v repeated to every head (Hugging Face's repeat_kv, a
    # copy) unless the kernel reads the groups itself.
    if kv_groups < groups and params.get("repeat_kv", True):
        saved += [SavedTensor("own", groups * t_k * hd), SavedTensor("own", groups * t_k * hdv)]
    elif eager_copies or params.get("kv_cache"):
        # A key/value cache (Hugging Face's forward with use_cache, the config's default, in
        # training too) concatenates k and v into new tensors, which attention then keeps.
        saved += [SavedTensor("own", numel(k)), SavedTensor("own", numel(v))]
    else:
        saved += [SavedTensor("input:1", numel(k)), SavedTensor("input:2", numel(v))]
    if impl == "eager":
        # softmax(q·kᵀ) in fp32 (Hugging Face upcasts), kept by the softmax; dropout keeps a
        # one-byte mask and the dropped probabilities (p·v keeps them).
        saved.append(SavedTensor("own", scores, F32))
        if p_drop > 0:
            saved += [SavedTensor("own", scores, MASK), SavedTensor("own", scores)]
    else:
        # Flash and memory-efficient kernels keep the output and one fp32 logsumexp per query
        # row (padded to 32 rows by the memory-efficient one); dropout is replayed from the
        # random seed, not kept.
        lse_t = t_q if impl == "sdpa_flash" else -(-t_q // MEM_EFFICIENT_LSE_ALIGN) * \
            MEM_EFFICIENT_LSE_ALIGN
        saved += [SavedTensor("output", numel(out)), SavedTensor("own", groups * lse_t, F32)]
        if causal:  # the fused kernels skip the masked half
            fwd //= 2
    return LayerResult(
        out_shape=out,
        flops_fwd=fwd,
        flops_bwd=int(2.5 * fwd),
        saved=tuple(saved),
    )


def _rotary(params, ins):
    x = ins[0]
    n = numel(x)
    # q·cos + rotate_half(q)·sin: the products keep the cos and sin tables (counted once, by
    # the embedding that makes them), nothing per sample here.
    return LayerResult(out_shape=x, flops_fwd=4 * n, flops_bwd=3 * n)


def _patch_embed(params, ins):
    x = ins[0]
    if len(x) != 3:
        raise LayerError(Msg(QT_TRANSLATE_NOOP("core", "needs a C×H×W image, got {shape}"),
                             shape=shape_str(x)))
    c, h, w = x
    p = int(params["patch"])
    dim = int(params["dim"])
    if h % p or w % p:
        raise LayerError(Msg(QT_TRANSLATE_NOOP(
            "core", "patch {p} does not divide the {h}×{w} image"), p=p, h=h, w=w))
    n = (h // p) * (w // p)
    cls = 1 if params["class_token"] else 0
    tokens = n + cls
    parameters = c * p * p * dim + dim + cls * dim + (tokens * dim if params["positions"] else 0)
    fwd = 2 * n * c * p * p * dim + 2 * tokens * dim
    return LayerResult(
        out_shape=(tokens, dim),
        parameters=parameters,
        flops_fwd=fwd,
        flops_bwd=2 * fwd,
        saved=(SavedTensor("input", numel(x)),),  # the convolution's input; cat and add: none
        weight_elements=parameters,
    )


LAYER_RULES: tuple[LayerRule, ...] = (
    LayerRule(
        "embedding",
        QT_TRANSLATE_NOOP("core", "Embedding"),
        (
            _p("num", "int", 30522, QT_TRANSLATE_NOOP("core", "Rows of the table (vocabulary)."),
               minimum=1),
            _p("dim", "int", 768, QT_TRANSLATE_NOOP("core", "Features per row."), minimum=1),
            _p("positions", "choice", "none", QT_TRANSLATE_NOOP(
                "core", "Positions: none, learned (a table of max_positions rows added) or "
                        "rotary (cos/sin tables applied to q and k by rotary layers)."),
               choices=("none", "learned", "rotary")),
            _p("max_positions", "int", 0, QT_TRANSLATE_NOOP(
                "core", "Rows of the learned position table."), minimum=0),
            _p("token_types", "int", 0, QT_TRANSLATE_NOOP(
                "core", "Rows of a token-type (segment) table added (BERT: 2)."), minimum=0),
            _p("rotary_dim", "int", 0, QT_TRANSLATE_NOOP(
                "core", "Features rotated per head (rotary positions: the head size)."),
               minimum=0),
            _p("tied", "bool", False, QT_TRANSLATE_NOOP(
                "core", "The table is an earlier embedding's (an encoder-decoder's shared "
                        "vocabulary): no parameters of its own.")),
        ),
        _embedding,
        QT_TRANSLATE_NOOP(
            "core", "Looks up token ids in a learned table; keeps the ids for backward."
        ),
    ),
    LayerRule(
        "attention",
        QT_TRANSLATE_NOOP("core", "Attention"),
        (
            _FROM_REFS,
            _p("heads", "int", 0, QT_TRANSLATE_NOOP(
                "core", "Query heads; q, k and v are then T×(heads·head size) (0 = the shapes "
                        "carry the heads)."), minimum=0),
            _p("kv_heads", "int", 0, QT_TRANSLATE_NOOP(
                "core", "Key/value heads (grouped-query attention; 0 = as many as heads)."),
               minimum=0),
            _p("causal", "bool", False, QT_TRANSLATE_NOOP(
                "core", "Each token attends only to earlier ones (decoders).")),
            _p("implementation", "choice", "sdpa_flash", QT_TRANSLATE_NOOP(
                "core", "sdpa_flash / sdpa_mem_efficient (PyTorch SDPA kernels: keep q, k, v, "
                        "the output and a logsumexp) or eager (keeps the T×T softmax)."),
               choices=ATTENTION_IMPLEMENTATIONS),
            _p("dropout", "float", 0.0, QT_TRANSLATE_NOOP(
                "core", "Attention dropout probability (eager keeps a mask)."),
               minimum=0.0, maximum=0.99),
            _p("repeat_kv", "bool", True, QT_TRANSLATE_NOOP(
                "core", "With fewer kv_heads: k and v are copied to every head first "
                        "(Hugging Face's repeat_kv) rather than read by group.")),
            _p("kv_cache", "bool", False, QT_TRANSLATE_NOOP(
                "core", "k and v go through a key/value cache first (Hugging Face's forward "
                        "with use_cache, its default, also in training): attention keeps the "
                        "cache's copies, not its inputs.")),
        ),
        _attention,
        QT_TRANSLATE_NOOP(
            "core",
            "Attention of q (this input) with k and v ('from'): SDPA keeps q, k, v, the output "
            "and a logsumexp per row; eager keeps q, k, v and the softmax.",
        ),
    ),
    LayerRule(
        "rotary",
        QT_TRANSLATE_NOOP("core", "Rotary positions"),
        (),
        _rotary,
        QT_TRANSLATE_NOOP(
            "core", "Rotates q or k by position (RoPE); the cos/sin tables are counted once, "
                    "by the embedding."),
    ),
    LayerRule(
        "patch_embed",
        QT_TRANSLATE_NOOP("core", "Patch embedding"),
        (
            _p("patch", "int", 16, QT_TRANSLATE_NOOP("core", "Patch side in pixels."),
               minimum=1),
            _p("dim", "int", 768, QT_TRANSLATE_NOOP("core", "Features per token."), minimum=1),
            _p("class_token", "bool", True, QT_TRANSLATE_NOOP(
                "core", "Prepend a learned class token.")),
            _p("positions", "bool", True, QT_TRANSLATE_NOOP(
                "core", "Add learned position embeddings (one per token).")),
        ),
        _patch_embed,
        QT_TRANSLATE_NOOP(
            "core", "ViT's patch embedding: a patch×patch convolution to tokens, a class "
                    "token and position embeddings; keeps the image."),
    ),
)
