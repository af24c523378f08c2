"""Transformer layer kinds, the draft builder, LoRA/QLoRA, serving, presets and the model-folder
importer."""

from __future__ import annotations

import json
import struct

import pytest

from planner.core.finetune import (
    FinetuneError,
    LoraSetup,
    apply_lora,
    kv_cache_bytes,
    optimizer_8bit_bytes,
    qlora_weight_bytes_per_parameter,
    serving_estimate,
)
from planner.core.layers import LayerSpec, quantized_bytes
from planner.core.memory import Assumptions, estimate
from planner.core.network import NetworkDraft, Setup, analyze, draft_from_json
from planner.core.transformer import (
    PRESETS,
    ConfigError,
    TransformerConfig,
    build_draft,
    tokens_per_step,
)

EXACT = Assumptions(allocator_model=False, cuda_context_bytes=0, library_handles_bytes=0,
                    cublas_workspace_bytes=0)


def _attn(q, k, v, **params) -> NetworkDraft:
    layers = [LayerSpec("input", "in", {"shape": (q[0], 8)}),
              LayerSpec("fc", "q", {"units": q[1]}),
              LayerSpec("fc", "k", {"units": k[1], "input": "in"}),
              LayerSpec("fc", "v", {"units": v[1], "input": "in"}),
              LayerSpec("attention", "att", {"input": "q", "from": ("k", "v"), **params})]
    return NetworkDraft("a", tuple(layers))


def _saved(info) -> list[tuple[str, int, str]]:
    return [(t.source, t.elements, t.storage) for t in info.result.saved]


# ------------------------------------------------------------------------------ attention


@pytest.mark.parametrize("impl", ["sdpa_flash", "sdpa_mem_efficient", "eager"])
def test_attention_keeps_what_each_implementation_keeps(impl):
    t, heads, hd = 100, 4, 16
    a = analyze(_attn((t, heads * hd), (t, heads * hd), (t, heads * hd), heads=heads,
                      implementation=impl))
    assert a.ok, a.problems
    att = a.layers[-1]
    assert att.out_shape == (t, heads * hd)
    saved = _saved(att)
    if impl == "eager":  # matmul of the transposed head views keeps copies of q, k and v
        assert saved[:3] == [("own", t * 64, "act")] * 3
    else:  # the kernels keep their inputs as given
        assert saved[:3] == [("input", t * 64, "act"), ("input:1", t * 64, "act"),
                             ("input:2", t * 64, "act")]
    if impl == "eager":  # the T×T softmax per head, O(sequence²)
        assert saved[3:] == [("own", heads * t * t, "f32")]
    else:  # the output and a logsumexp per query row, O(sequence)
        lse_rows = t if impl == "sdpa_flash" else 128  # padded to 32 rows
        assert saved[3:] == [("output", t * 64, "act"), ("own", heads * lse_rows, "f32")]


def _fused(impl: str, kv_cache: bool, t: int = 128, d: int = 768, heads: int = 12):
    """GPT-2's attention: one fused q/k/v projection split into three views."""
    layers = [LayerSpec("input", "in", {"shape": (t, d)}),
              LayerSpec("fc", "c_attn", {"units": 3 * d}),
              LayerSpec("view", "q", {"split": 3, "input": "c_attn"}),
              LayerSpec("view", "k", {"split": 3, "input": "c_attn"}),
              LayerSpec("view", "v", {"split": 3, "input": "c_attn"}),
              LayerSpec("attention", "att", {"input": "q", "from": ("k", "v"), "heads": heads,
                                             "causal": True, "implementation": impl,
                                             "kv_cache": kv_cache}),
              LayerSpec("fc", "c_proj", {"units": d})]
    return NetworkDraft("fused", tuple(layers))


@pytest.mark.parametrize("impl", ["sdpa_flash", "sdpa_mem_efficient", "eager"])
def test_a_key_value_cache_makes_attention_keep_copies_of_k_and_v(impl):
    """Hugging Face's GPT-2 trains with use_cache on (its default): torch.cat puts k and v in
    a DynamicCache and SDPA keeps those copies, while q (a view) still holds the whole fused
    projection: 5 × T·d kept where the views alone keep 3 × T·d (measured with torch 2.14
    and transformers 5.24 on the CPU: −6.6 % of GPT-2's saved bytes before this rule)."""
    t, d = 128, 768
    setup = Setup(2, "fp32", "sgd", "train")
    kept = {}
    for cache in (False, True):
        est = estimate(analyze(_fused(impl, cache)), setup, EXACT)
        kept[cache] = sum(layer.activation_bytes for layer in est.layers
                          if layer.name in ("q", "k", "v", "att"))
    out_lse = 2 * (t * d + 12 * (t if impl != "sdpa_mem_efficient" else 128)) * 4
    if impl == "eager":  # copies either way: the cache's or matmul's, never both
        assert kept[True] == kept[False] == 2 * 3 * t * d * 4 + 2 * 12 * t * t * 4
    else:
        assert kept[False] == 2 * 3 * t * d * 4 + out_lse
        assert kept[True] == 2 * 5 * t * d * 4 + out_lse


def test_decoder_drafts_model_the_cache_and_encoders_do_not():
    from planner.core.transformer import TransformerConfig, build_draft

    def flags(**kw):
        d = build_draft(TransformerConfig(layers=1, hidden=64, heads=4, intermediate=128,
                                          vocab=100, seq_len=16, max_positions=16, **kw))
        return [bool(layer.params.get("kv_cache")) for layer in d.layers
                if layer.kind == "attention"]

    assert flags() == [True]
    assert flags(kv_cache=False) == [False]
    assert flags(family="gpt2", mlp="gelu_new", norm="layernorm", positions="learned") == [True]
    assert flags(family="bert", mlp="gelu", norm="layernorm", positions="learned") == [False]


def test_eager_attention_dropout_keeps_a_mask_and_the_dropped_probabilities():
    a = analyze(_attn((10, 32), (10, 32), (10, 32), heads=2, implementation="eager",
                      dropout=0.1))
    saved = _saved(a.layers[-1])
    assert ("own", 2 * 100, "mask") in saved and ("own", 2 * 100, "act") in saved


def test_grouped_query_attention_repeats_k_and_v_unless_told_not_to():
    t = 50
    rep = analyze(_attn((t, 64), (t, 16), (t, 16), heads=8, kv_heads=2))
    assert rep.ok, rep.problems
    assert _saved(rep.layers[-1])[1:3] == [("own", 8 * t * 8, "act"), ("own", 8 * t * 8, "act")]
    native = analyze(_attn((t, 64), (t, 16), (t, 16), heads=8, kv_heads=2, repeat_kv=False))
    assert _saved(native.layers[-1])[1:3] == [("input:1", t * 16, "act"),
                                             ("input:2", t * 16, "act")]


@pytest.mark.parametrize("q, k, params, words", [
    ((10, 30), (10, 30), {"heads": 4}, "heads 4 do not divide"),
    ((10, 64), (10, 48), {"heads": 8, "kv_heads": 3}, "kv_heads 3 do not divide heads 8"),
    ((10, 64), (10, 24), {"heads": 8, "kv_heads": 2}, "kv_heads 2 of head size 8"),
])
def test_bad_attention_values_are_named(q, k, params, words):
    a = analyze(_attn(q, k, k, **params))
    assert not a.ok
    assert words in str(a.problems[0]) and "att" in str(a.problems[0])


def test_attention_made_before_heads_existed_keeps_the_same():
    """Imported graphs carry the heads in the shapes (heads = 0): unchanged rule."""
    layers = [LayerSpec("input", "q", {"shape": (4, 10, 8)}),
              LayerSpec("view", "k", {}), LayerSpec("view", "v", {}),
              LayerSpec("attention", "att", {"input": "q", "from": ("k", "v")})]
    a = analyze(NetworkDraft("x", tuple(layers)))
    assert _saved(a.layers[-1]) == [("input", 320, "act"), ("input:1", 320, "act"),
                                    ("input:2", 320, "act"), ("output", 320, "act"),
                                    ("own", 40, "f32")]


# ------------------------------------------------------------------------ other layer kinds


def test_embedding_positions_parameters_and_rotary_tables():
    base = [LayerSpec("input", "ids", {"shape": (64,)})]
    learned = analyze(NetworkDraft("l", tuple(base + [LayerSpec("embedding", "e", {
        "num": 1000, "dim": 32, "positions": "learned", "max_positions": 128,
        "token_types": 2})])))
    assert learned.parameters == (1000 + 128 + 2) * 32
    assert _saved(learned.layers[1]) == [("input", 64, "act")]  # the token ids
    rot = analyze(NetworkDraft("r", tuple(base + [LayerSpec("embedding", "e", {
        "num": 1000, "dim": 32, "positions": "rotary", "rotary_dim": 8})])))
    assert rot.parameters == 1000 * 32
    assert ("own", 2 * 64 * 8, "f32_fixed") in _saved(rot.layers[1])  # cos and sin, once
    short = analyze(NetworkDraft("s", tuple(base + [LayerSpec("embedding", "e", {
        "num": 10, "dim": 4, "positions": "learned", "max_positions": 32})])))
    assert "max_positions 32 is shorter than the 64-token sequence" in str(short.problems[0])


def test_rmsnorm_eager_keeps_the_normalised_tensor_unless_frozen():
    def draft(**p):
        return NetworkDraft("n", (LayerSpec("input", "x", {"shape": (16, 32)}),
                                  LayerSpec("rmsnorm", "n", p)))
    assert _saved(analyze(draft()).layers[1]) == [("input", 512, "act"), ("own", 16, "f32")]
    assert _saved(analyze(draft(implementation="eager")).layers[1])[2] == ("own", 512, "act")
    assert len(_saved(analyze(draft(implementation="eager", frozen=True)).layers[1])) == 2


def test_gelu_new_keeps_four_tensors_of_its_input_size():
    d = NetworkDraft("g", (LayerSpec("input", "x", {"shape": (8, 16)}),
                           LayerSpec("activation", "a", {"function": "gelu_new"})))
    saved = _saved(analyze(d).layers[1])
    assert len(saved) == 4 and all(n == 128 for _s, n, _c in saved)


def test_fc_tied_frozen_lora_and_quantised():
    def fc(**p):
        d = NetworkDraft("f", (LayerSpec("input", "x", {"shape": (10, 64)}),
                               LayerSpec("fc", "f", {"units": 32, "bias": False, **p})))
        return analyze(d).layers[1]
    assert fc(tied=True).result.parameters == 0 and fc(tied=True).result.tied_elements == 2048
    frozen = fc(frozen=True)
    assert frozen.result.saved == () and frozen.result.frozen_parameters == 2048
    lora = fc(lora_rank=4)
    assert lora.result.parameters == 2048 + 4 * (64 + 32)
    assert lora.result.frozen_parameters == 2048
    assert _saved(lora) == [("input", 640, "act"), ("own", 40, "act")]
    q = fc(lora_rank=4, quant="nf4_dq")
    assert q.result.quantized_elements == 2048
    assert q.result.quantized_bytes == quantized_bytes(2048, "nf4_dq") == 1024 + 32 + 4
    bad = analyze(NetworkDraft("b", (LayerSpec("input", "x", {"shape": (4,)}),
                                     LayerSpec("fc", "f", {"units": 2, "quant": "nf4"}))))
    assert "needs a frozen layer" in str(bad.problems[0])


def test_patch_embedding_tokens_parameters_and_bad_patch():
    d = NetworkDraft("v", (LayerSpec("input", "img", {"shape": (3, 224, 224)}),
                           LayerSpec("patch_embed", "p", {"patch": 16, "dim": 768})))
    info = analyze(d).layers[1]
    assert info.out_shape == (197, 768)
    assert info.result.parameters == 3 * 16 * 16 * 768 + 768 + 768 + 197 * 768
    assert _saved(info) == [("input", 3 * 224 * 224, "act")]
    bad = analyze(d.replace_layer(1, d.layers[1].replace(patch=15)))
    assert "patch 15 does not divide the 224×224 image" in str(bad.problems[0])


def test_new_parameters_stay_out_of_older_plan_files():
    layer = LayerSpec("fc", "f", {"units": 3})
    assert layer.to_json() == {"type": "fc", "name": "f", "units": 3, "bias": True}
    lora = LayerSpec("fc", "f", {"units": 3, "lora_rank": 8})
    assert lora.to_json()["lora_rank"] == 8
    back = draft_from_json({"layers": [{"type": "input", "name": "i", "shape": [4]},
                                       lora.to_json()]})
    assert back.layers[1] == lora


# --------------------------------------------------------------------- the builder, presets


@pytest.mark.parametrize("key, published", [
    ("vit_b16", 86_567_656),       # google/vit-base-patch16-224
    ("bert_base", 109_514_298),    # BertForMaskedLM(bert-base-uncased)
    ("gpt2", 124_439_808),         # openai-community/gpt2
    ("llama_1b", 1_235_814_400),   # meta-llama/Llama-3.2-1B
    ("llama_8b", 8_030_261_248),   # meta-llama/Llama-3.1-8B
    ("llama_70b", 70_553_706_496),  # meta-llama/Llama-3.1-70B
])
def test_presets_have_the_published_parameter_counts(key, published):
    from planner.core.presets import load_preset

    draft, setup = load_preset(key)
    a = analyze(draft)
    assert a.ok, a.problems[:1]
    assert a.parameters == published
    assert draft == build_draft(PRESETS[key][0], draft.name, draft.description)


def test_tokens_per_step_and_sequence_length():
    c = TransformerConfig(layers=1, hidden=64, heads=4, intermediate=128, vocab=100,
                          seq_len=256)
    d = build_draft(c)
    assert tokens_per_step(d, 4, 2) == 4 * 2 * 256
    assert tokens_per_step(build_draft(PRESETS["vit_b16"][0]), 4) is None
    longer = d.with_input_shape((512,))
    assert analyze(longer).ok
    e1 = estimate(d, Setup(1, "bf16", "adamw"), EXACT)
    e2 = estimate(longer, Setup(1, "bf16", "adamw"), EXACT)
    assert e2.activations > e1.activations


@pytest.mark.parametrize("field, value", [("heads", 5), ("kv_heads", 3), ("mlp", "relu"),
                                          ("attention", "flash3"), ("layers", 0)])
def test_bad_hyper_parameters_are_named(field, value):
    with pytest.raises(ConfigError, match=field):
        TransformerConfig(**{"hidden": 64, "heads": 8, field: value})


def test_eager_attention_needs_more_memory_than_flash_at_long_context():
    c = TransformerConfig(layers=2, hidden=256, heads=4, intermediate=512, vocab=1000,
                          seq_len=2048, max_positions=4096)
    flash = estimate(build_draft(c), Setup(1, "bf16", "adamw"), EXACT)
    eager = estimate(build_draft(TransformerConfig(**{**c.to_json(), "image": c.image,
                                                      "attention": "eager"})),
                     Setup(1, "bf16", "adamw"), EXACT)
    # eager keeps heads × T × T fp32 probabilities per layer
    assert eager.saved_bytes - flash.saved_bytes >= 2 * 4 * 2048 * 2048 * 4 * 0.9


# ------------------------------------------------------------------------------ LoRA, QLoRA


def _small_decoder():
    return build_draft(TransformerConfig(layers=2, hidden=128, heads=4, kv_heads=2,
                                         intermediate=256, vocab=500, seq_len=64))


def test_lora_trains_only_the_adapters_and_keeps_less():
    d = _small_decoder()
    setup = Setup(2, "fp32", "adamw")
    full = estimate(d, setup, EXACT)
    lora_d = apply_lora(d, LoraSetup(rank=8, targets=("q_proj", "v_proj")))
    lora = estimate(lora_d, setup, EXACT)
    adapters = 2 * (8 * (128 + 128) + 8 * (128 + 64))  # 2 layers × (q: 128→128, v: 128→64)
    assert lora.parameters == full.parameters + adapters
    assert lora.step_totals["gradients"] == adapters * 4
    assert lora.optimizer == 2 * adapters * 4
    assert full.optimizer == 2 * full.parameters * 4
    assert 0 < lora.saved_bytes < full.saved_bytes
    a = lora.analysis
    names = {info.name: info for info in a.layers}
    # Activation gradients flow: the MLP after the first adapter still keeps its tensors.
    mlp = [le for le in lora.layers if le.name == "layers.1.mlp.act"][0]
    assert mlp.activation_bytes > 0
    # Before the first adapter nothing needs a gradient: the first norm keeps nothing.
    first_norm = [le for le in lora.layers if le.name == "layers.0.input_layernorm"][0]
    assert first_norm.activation_bytes == 0 and names["layers.0.input_layernorm"]
    # The layers' kept bytes add up to what the simulated step keeps.
    assert sum(le.activation_bytes for le in lora.layers) == lora.kept_for_backward_bytes


def test_lora_with_no_matching_target_is_an_error():
    with pytest.raises(FinetuneError, match="match no linear layer"):
        apply_lora(_small_decoder(), LoraSetup(targets=("nope",)))
    with pytest.raises(FinetuneError, match="rank"):
        LoraSetup(rank=0)


def test_qlora_stores_the_base_in_four_bits_with_its_constants():
    d = _small_decoder()
    setup = Setup(1, "bf16", "adamw")
    lora = estimate(apply_lora(d, LoraSetup(rank=8, targets=("all-linear",))), setup, EXACT)
    q = estimate(apply_lora(d, LoraSetup(rank=8, targets=("all-linear",), quant="nf4_dq")),
                 setup, EXACT)
    assert q.weights < lora.weights
    linear = sum(info.result.quantized_elements for info in q.analysis.layers)
    assert linear > 0
    assert lora.weights - q.weights == 2 * linear - sum(
        info.result.quantized_bytes for info in q.analysis.layers)
    assert qlora_weight_bytes_per_parameter(True) == pytest.approx(0.5159, abs=1e-4)
    assert qlora_weight_bytes_per_parameter(False) == pytest.approx(0.5625)
    assert optimizer_8bit_bytes(4096) == 2 * (4096 + 8)


def test_serving_kv_cache_of_a_llama_8b():
    d, _ = __import__("planner.core.presets", fromlist=["x"]).load_preset("llama_8b")
    s = serving_estimate(d, context=8192, sequences=4)
    assert s.kv_cache_bytes == kv_cache_bytes(32, 8, 128, 8192, 4) == 4 * 1024 ** 3
    assert s.weights_bytes == 2 * 8_030_261_248
    s4 = serving_estimate(d, context=8192, sequences=4, weight_bits=4, kv_bits=8)
    assert s4.weights_bytes < s.weights_bytes / 3.5 and s4.kv_cache_bytes == 2 * 1024 ** 3
    with pytest.raises(FinetuneError, match="context"):
        serving_estimate(d, context=0, sequences=1)


# ------------------------------------------------------------------------- model folders


def _write_safetensors(path, tensors: dict[str, list[int]], data: bytes = b"") -> None:
    header = {name: {"dtype": "BF16", "shape": shape, "data_offsets": [0, 0]}
              for name, shape in tensors.items()}
    header["__metadata__"] = {"format": "pt"}
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + data)


LLAMA = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 64,
         "intermediate_size": 128, "num_attention_heads": 4, "num_key_value_heads": 2,
         "num_hidden_layers": 2, "vocab_size": 100, "max_position_embeddings": 256,
         "tie_word_embeddings": False, "hidden_act": "silu"}


def _llama_tensors(layers=2, h=64, kv=32, inter=128, vocab=100):
    t = {"model.embed_tokens.weight": [vocab, h], "lm_head.weight": [vocab, h],
         "model.norm.weight": [h]}
    for i in range(layers):
        p = f"model.layers.{i}."
        t |= {p + "self_attn.q_proj.weight": [h, h], p + "self_attn.k_proj.weight": [kv, h],
              p + "self_attn.v_proj.weight": [kv, h], p + "self_attn.o_proj.weight": [h, h],
              p + "mlp.gate_proj.weight": [inter, h], p + "mlp.up_proj.weight": [inter, h],
              p + "mlp.down_proj.weight": [h, inter], p + "input_layernorm.weight": [h],
              p + "post_attention_layernorm.weight": [h],
              p + "self_attn.rotary_emb.inv_freq": [8]}
    return t


def test_model_folder_with_safetensors_headers_is_exact(tmp_path):
    from planner.core.importers.hf_folder import import_model_folder

    (tmp_path / "config.json").write_text(json.dumps(LLAMA))
    tensors = _llama_tensors()
    names = list(tensors)
    half = len(names) // 2
    # Two shards; the data after the header is absent (never read).
    _write_safetensors(tmp_path / "model-00001-of-00002.safetensors",
                       {n: tensors[n] for n in names[:half]})
    _write_safetensors(tmp_path / "model-00002-of-00002.safetensors",
                       {n: tensors[n] for n in names[half:]})
    r = import_model_folder(tmp_path, seq_len=128)
    assert not r.incomplete
    assert r.report.checkpoint_files == 2
    assert r.report.checkpoint_parameters == analyze(r.draft).parameters
    assert r.report.checkpoint_buffers == 16  # the inv_freq buffers are not parameters
    assert r.draft.input_shape == (128,)
    assert any("parameters exact" in n for n in r.notes)


def test_model_folder_mismatch_and_missing_fields_are_named(tmp_path):
    from planner.core.importers.hf_folder import FolderImportError, import_model_folder

    (tmp_path / "config.json").write_text(json.dumps(LLAMA))
    tensors = _llama_tensors()
    tensors["model.extra.weight"] = [10, 10]
    _write_safetensors(tmp_path / "model.safetensors", tensors)
    r = import_model_folder(tmp_path)
    assert r.incomplete and any("difference -100" in w for w in r.warnings)
    assert any("head_dim" in n for n in r.notes)  # missing, default taken, named

    cfg = dict(LLAMA)
    del cfg["num_hidden_layers"]
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(FolderImportError, match="num_hidden_layers"):
        import_model_folder(tmp_path)
    (tmp_path / "config.json").write_text(json.dumps({**LLAMA, "model_type": "t5"}))
    with pytest.raises(FolderImportError, match="model_type 't5'"):
        import_model_folder(tmp_path)
    (tmp_path / "config.json").write_text(json.dumps({**LLAMA, "hidden_size": "big"}))
    with pytest.raises(FolderImportError, match="hidden_size"):
        import_model_folder(tmp_path)


def test_bad_safetensors_header_is_refused_without_reading_on(tmp_path):
    from planner.core.importers.hf_folder import FolderImportError, import_model_folder

    (tmp_path / "config.json").write_text(json.dumps(LLAMA))
    (tmp_path / "model.safetensors").write_bytes(struct.pack("<Q", 1 << 60) + b"{}")
    with pytest.raises(FolderImportError, match="header length"):
        import_model_folder(tmp_path)
    (tmp_path / "model.safetensors").write_bytes(struct.pack("<Q", 10) + b"{not json}")
    with pytest.raises(FolderImportError, match="not valid JSON"):
        import_model_folder(tmp_path)


@pytest.mark.parametrize("cfg, published", [
    ({"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 12, "n_positions": 1024,
      "vocab_size": 50257}, 124_439_808),
    ({"model_type": "bert", "hidden_size": 768, "num_hidden_layers": 12,
      "num_attention_heads": 12, "intermediate_size": 3072, "vocab_size": 30522,
      "max_position_embeddings": 512, "type_vocab_size": 2,
      "architectures": ["BertForMaskedLM"]}, 109_514_298),
    ({"model_type": "vit", "hidden_size": 768, "num_hidden_layers": 12,
      "num_attention_heads": 12, "intermediate_size": 3072, "image_size": 224,
      "patch_size": 16, "id2label": {str(i): str(i) for i in range(1000)}}, 86_567_656),
    ({"model_type": "qwen2", "hidden_size": 896, "intermediate_size": 4864,
      "num_attention_heads": 14, "num_key_value_heads": 2, "num_hidden_layers": 24,
      "vocab_size": 151936, "max_position_embeddings": 32768, "tie_word_embeddings": True},
     494_032_768),  # Qwen/Qwen2.5-0.5B
    ({"model_type": "gemma", "hidden_size": 2048, "intermediate_size": 16384,
      "num_attention_heads": 8, "num_key_value_heads": 1, "head_dim": 256,
      "num_hidden_layers": 18, "vocab_size": 256000, "max_position_embeddings": 8192,
      "hidden_act": "gelu_pytorch_tanh"}, 2_506_172_416),  # google/gemma-2b
])
def test_model_folder_families_have_the_published_counts(tmp_path, cfg, published):
    from planner.core.importers.hf_folder import import_model_folder

    (tmp_path / "config.json").write_text(json.dumps(cfg))
    r = import_model_folder(tmp_path)
    assert analyze(r.draft).parameters == published


def test_cli_estimates_a_model_folder_with_lora(tmp_path, capsys):
    from planner.cli import run

    (tmp_path / "config.json").write_text(json.dumps(LLAMA))
    rc = run(["estimate", str(tmp_path), "--seq-len", "64", "--batch", "2", "--finetune",
              "lora", "--lora-rank", "4", "--serve", "--context", "128", "--json"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["tokens_per_step"] == 128
    assert out["finetune"]["trainable_parameters"] == 2 * (4 * (64 + 64) + 4 * (64 + 32))
    assert out["serving"]["kv_cache_bytes"] == kv_cache_bytes(2, 2, 16, 128, 1)
    assert any("no safetensors" in n for n in out["notes"])


# ------------------------------------------------------------------------ repeated blocks


def test_a_repeated_block_is_saved_once_and_read_back(tmp_path):
    from planner.core.network import load_plan, plan_to_json, save_plan
    from planner.core.presets import load_preset

    d, s = load_preset("llama_8b")
    assert d.repeats and d.repeats[0].times == 32
    data = plan_to_json(d, s)
    assert data["schema_version"] == 2
    blocks = [raw for raw in data["layers"] if raw["type"] == "repeat"]
    assert len(blocks) == 1 and blocks[0]["times"] == 32
    assert len(data["layers"]) < 10  # input, embedding, the block, norm, head
    save_plan(tmp_path / "p.json", d, s)
    back, _ = load_plan(tmp_path / "p.json")
    assert back == d and analyze(back).parameters == 8_030_261_248


def test_a_change_to_the_block_changes_every_copy():
    from planner.core.presets import load_preset

    d, _ = load_preset("llama_1b")
    i = next(k for k, x in enumerate(d.layers) if x.kind == "attention")
    # the attention of copy 3, changed there
    j = i + 3 * d.repeats[0].length
    d2 = d.replace_layer(j, d.layers[j].replace(implementation="eager"))
    atts = [x for x in d2.layers if x.kind == "attention"]
    assert len(atts) == 16 and all(x.get("implementation") == "eager" for x in atts)
    assert d2.repeats == d.repeats
    assert analyze(d2).ok
    # A structural edit inside one copy makes the block plain layers again (still right).
    d3 = d.remove_layer(j)
    assert d3.repeats == ()
    # An edit before the block moves it.
    d4 = d.insert_layer(1, LayerSpec("dropout", "drop", {"p": 0.1}))
    assert d4.repeats[0].first == d.repeats[0].first + 1


def test_plans_without_blocks_keep_schema_one_and_bad_blocks_are_named():
    from planner.core.network import PlanFileError, plan_from_json, plan_to_json

    d = NetworkDraft("x", (LayerSpec("input", "i", {"shape": (4,)}),
                           LayerSpec("fc", "f", {"units": 2})))
    assert plan_to_json(d, Setup())["schema_version"] == 1
    body = [{"type": "fc", "name": "a", "units": 4}, {"type": "add", "name": "r",
                                                       "from": "@input"}]
    good = {"schema_version": 2, "layers": [{"type": "input", "name": "i", "shape": [4]},
                                            {"type": "repeat", "name": "blk", "times": 3,
                                             "layers": body}]}
    draft, _ = plan_from_json(good)
    assert [x.name for x in draft.layers][-2:] == ["blk.2.a", "blk.2.r"]
    assert draft.layers[-1].get("from") == "blk.1.r" and draft.layers[2].get("from") == "i"
    with pytest.raises(PlanFileError, match=r"layers\[1\]\.times"):
        plan_from_json({**good, "layers": [good["layers"][0], {**good["layers"][1],
                                                                "times": 0}]})
    with pytest.raises(PlanFileError, match="cannot come first"):
        plan_from_json({**good, "layers": [good["layers"][1]]})


def test_a_tied_head_adds_its_gradient_into_the_embeddings_out_of_place():
    """Measured with PyTorch on a tied embedding + head (SGD with momentum): the peak is five
    vocabulary×hidden tensors (weight, momentum, the head's gradient, the embedding's, their
    sum), where an untied pair peaks at six (two weights, two momenta, two gradients)."""
    v, d, t = 5000, 64, 8

    def draft(tied):
        return NetworkDraft("t", (LayerSpec("input", "i", {"shape": (t,)}),
                                  LayerSpec("embedding", "e", {"num": v, "dim": d}),
                                  LayerSpec("fc", "h", {"units": v, "bias": False,
                                                        "tied": tied})))
    table = v * d * 4
    for tied, tables in ((False, 6), (True, 5)):
        est = estimate(draft(tied), Setup(1, "fp32", "momentum"), EXACT)
        assert est.parameters == (1 if tied else 2) * v * d
        assert tables * table <= est.peak < tables * table + 64 * v * 4


@pytest.mark.parametrize("use_cache", [True, False, None])
def test_model_folder_use_cache_decides_whether_attention_keeps_cache_copies(tmp_path,
                                                                            use_cache):
    from planner.core.importers.hf_folder import import_model_folder

    cfg = dict(LLAMA)
    if use_cache is not None:
        cfg["use_cache"] = use_cache
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    r = import_model_folder(tmp_path, seq_len=64)
    flags = {bool(layer.params.get("kv_cache")) for layer in r.draft.layers
             if layer.kind == "attention"}
    assert flags == {use_cache is not False}  # Hugging Face's default is on
    if use_cache is None:
        assert any("use_cache (True)" in n for n in r.notes)
