"""ONNX import benchmark: torchvision networks exported both ways, against autograd.

Run it in the torch venv (see ``benchmarks/README.md``)::

    PYTHONPATH=. /work/torchvenv/bin/python benchmarks/onnx_accuracy.py \
        [--cache /work/onnx-cache] [--batches 2,8] [--networks resnet50,vit_b_16] [--modes ...]

Every network (``weights=None``, 224×224, Inception-v3 299×299; the text models of
``TEXT_NETWORKS`` with 128 token ids; the timm models of ``TIMM_NETWORKS`` where timm is
installed; exported with a batch of 1 as users do) is exported once per mode into the cache
folder, and the files are reused. Where torch refuses the export as made, the workaround a user
takes is used and the run says so: a training graph torch cannot run on one sample (DeepLabV3's
batch norm after a global pool) is exported at batch 2; a text model whose SDPA call uses
``enable_gqa`` (which ``dynamo=False`` cannot convert) is exported with an all-ones attention
mask.

* ``dynamo_eval``: ``torch.onnx.export(model.eval(), (x,), f)``, all defaults (the default
  exporter; it folds batch norms into the convolutions and drops zero biases);
* ``dynamo_train``: the same after ``model.train()`` with ``training=TrainingMode.TRAINING``;
* ``legacy_train``: ``dynamo=False, do_constant_folding=False, training=TRAINING``, a symbolic
  batch axis;
* ``legacy_eval``: ``model.eval()``, ``dynamo=False``, other arguments default.

Each file is imported with ``import_onnx(path, batch=B)`` for two batch sizes, and compared with
the network in train mode on the CPU at that batch:

1. parameters: the plan's against ``sum(p.numel())``;
2. saved-activation bytes: the plan's (fp32, allocator rounding off) against what autograd saves
   for backward (``torch.autograd.graph.saved_tensors_hooks``, unique storages, parameters
   excluded: ``benchmarks/accuracy.py``'s ``torch_side``), with CUDA's kernels where the CPU's
   differ (``cuda_kernels``: dropout keeps a one-byte mask, attention with dropout runs fused);
3. the import time of each file.

An export that fails in this torch is a row saying so. Eval exports remove dropout, which a
training step has: their saved bytes are expected low by the masks (the import says so). The
exit status is always 0: it prints figures; CI does not run it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import statistics
import sys
import time
import traceback
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "benchmarks"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import onnx  # noqa: E402
import torch  # noqa: E402
import torchvision  # noqa: E402
from accuracy import NO_ROUNDING, TOLERANCE_PCT, table, torch_side  # noqa: E402

from planner.core.importers.onnx import OnnxImportError, import_onnx  # noqa: E402
from planner.core.memory import estimate  # noqa: E402
from planner.core.network import Setup, analyze  # noqa: E402

NETWORKS = (
    "resnet18", "resnet50", "resnext50_32x4d", "wide_resnet50_2", "vgg16", "vgg11_bn",
    "densenet121", "inception_v3", "googlenet", "mobilenet_v2", "mobilenet_v3_small",
    "mobilenet_v3_large", "shufflenet_v2_x1_0", "mnasnet1_0", "efficientnet_b0",
    "efficientnet_v2_s", "regnet_y_400mf", "regnet_x_400mf", "convnext_tiny", "vit_b_16",
    "swin_t", "swin_v2_t", "squeezenet1_0", "alexnet", "fcn_resnet50",
    "deeplabv3_mobilenet_v3_large", "lraspp_mobilenet_v3_large", "maxvit_t",
)
# Text models from another library (transformers), random weights, built from small configs:
# token ids in, SEQUENCE tokens, the library's defaults otherwise (dropout 0.1, SDPA attention);
# '_eager' variants use transformers' explicit softmax attention instead.
TEXT_NETWORKS = ("bert_tiny", "bert_tiny_eager", "gpt2_tiny", "gpt2_tiny_eager", "llama_tiny",
                 "albert_tiny", "distilbert_tiny", "phi_tiny", "gpt_neox_tiny",
                 "mobilebert_tiny", "bloom_tiny", "opt_tiny", "gptj_tiny",
                 # round 12: more of the libraries' text families
                 "roberta_tiny", "electra_tiny", "deberta_tiny", "mpnet_tiny", "gpt_neo_tiny",
                 "mistral_tiny", "qwen2_tiny", "gemma_tiny", "falcon_tiny", "t5enc_tiny",
                 "bart_tiny",
                 # round 13: fused qkv projection sliced three ways; recent families
                 "phi3_tiny", "modernbert_tiny", "qwen3_tiny", "gemma2_tiny", "smollm3_tiny",
                 "granite_tiny", "olmo_tiny",
                 # eager attention in the recent decoders (their softmax and products kept)
                 "llama_tiny_eager", "qwen2_tiny_eager", "phi3_tiny_eager", "qwen3_tiny_eager",
                 # round 14: mixture of experts, multi-query attention, partial rotary with
                 # biased projections, sliding-window code models
                 "mixtral_tiny", "gpt_bigcode_tiny", "stablelm_tiny", "starcoder2_tiny",
                 # round 15: recent decoders (``_TEXT15``), convolution and pooling encoders,
                 # Fourier mixing and a state-space model
                 "cohere_tiny", "olmo2_tiny", "gemma3_tiny", "glm_tiny", "helium_tiny",
                 "apertus_tiny", "lfm2_tiny", "seedoss_tiny", "arcee_tiny", "ernie45_tiny",
                 "olmo3_tiny", "exaone4_tiny", "nemotron_tiny", "persimmon_tiny", "mpt_tiny",
                 "xglm_tiny", "biogpt_tiny", "codegen_tiny", "squeezebert_tiny", "funnel_tiny",
                 "convbert_tiny", "megatronbert_tiny", "fnet_tiny", "mamba_tiny",
                 # round 16 (``_text15``'s table)
                 "roformer_tiny", "rembert_tiny", "canine_tiny", "xlnet_tiny", "ibert_tiny",
                 "xmod_tiny", "glm4_tiny")
SEQUENCE = 128
# Networks from another vision library (timm, random weights), where it is installed: the
# transformer and mixer families the torchvision list has least of.
TIMM_NETWORKS = ("timm_vit_tiny_patch16_224", "timm_deit_tiny_patch16_224",
                 "timm_mixer_s16_224", "timm_mobilevit_xxs", "timm_convnext_atto",
                 "timm_swin_tiny_patch4_window7_224", "timm_poolformer_s12",
                 "timm_eva02_tiny_patch14_224", "timm_efficientnet_b0", "timm_regnetx_002",
                 "timm_nf_resnet26", "timm_cait_xxs24_224",
                 # round 5: convolution families with odd blocks, and CoAtNet
                 "timm_res2net50_26w_4s", "timm_regnety_002", "timm_ghostnet_100",
                 "timm_mixnet_s", "timm_hrnet_w18_small", "timm_coatnet_nano_rw_224",
                 # round 12: mobile and hybrid families
                 "timm_tinynet_e", "timm_lcnet_050", "timm_mobilenetv3_small_100",
                 "timm_repvgg_a0", "timm_edgenext_xx_small", "timm_fastvit_t8",
                 "timm_convnextv2_atto", "timm_levit_128s", "timm_efficientvit_b0",
                 "timm_rexnet_100", "timm_mobilevitv2_050", "timm_ghostnetv2_100",
                 # round 13: metaformers, MLPs, hierarchical and cross-scale attention, RNNs
                 "timm_efficientformerv2_s0", "timm_mambaout_femto", "timm_starnet_s1",
                 "timm_xcit_nano_12_p16_224", "timm_gcvit_xxtiny", "timm_pvt_v2_b0",
                 "timm_hiera_tiny_224", "timm_resmlp_12_224", "timm_gmlp_ti16_224",
                 "timm_crossvit_tiny_240", "timm_inception_next_tiny", "timm_sequencer2d_s",
                 # round 15: anti-aliased pooling (reflect pad), TF-'same' padding, scaled
                 # weight standardisation, an attention pool's latent query, a hybrid ViT
                 "timm_resnetblur18", "timm_tf_efficientnet_b0", "timm_test_nfnet",
                 "timm_nf_resnet26", "timm_test_vit3", "timm_vit_tiny_r_s16_p8_224",
                 # round 16: anti-aliased and space-to-depth, CSP and dual paths, split
                 # attention, reparameterised, hybrid mobile, convolutional-attention ViTs
                 "timm_tresnet_m", "timm_cspdarknet53", "timm_dla34", "timm_dpn68",
                 "timm_selecsls42b", "timm_ese_vovnet19b_dw", "timm_skresnet18",
                 "timm_resnest14d", "timm_regnetz_b16", "timm_gernet_s", "timm_fbnetv3_b",
                 "timm_sebotnet33ts_256", "timm_coat_tiny", "timm_visformer_tiny",
                 "timm_pit_ti_224", "timm_convit_tiny", "timm_davit_tiny",
                 "timm_mobilenetv4_conv_small", "timm_mobilenetv4_hybrid_medium",
                 "timm_repghostnet_050")
# Image models of transformers (random weights, small configs; pixel values in) and small
# torch.nn networks of constructs the families above lack (Conv1d, GroupNorm, InstanceNorm,
# ConvTranspose + Resize).
HF_VISION = ("hf_resnet", "hf_convnext", "hf_vit", "hf_swin",
             # round 13: self-supervised and contrastive image towers, hierarchical ones
             "hf_dinov2", "hf_siglip", "hf_clip", "hf_beit", "hf_segformer", "hf_swinv2",
             "hf_convnextv2", "hf_pvtv2",
             # round 14: mobile and convolutional families of transformers, a detection
             # transformer's encoder, dense prediction, weight standardisation, registers
             "hf_mobilevit", "hf_efficientnet", "hf_regnet", "hf_levit", "hf_yolos", "hf_dpt",
             "hf_data2vec_vision", "hf_bit", "hf_mobilenet_v2", "hf_focalnet",
             "hf_swiftformer", "hf_dinov2_reg",
             # round 16 (``_hf_vision``'s table)
             "hf_poolformer", "hf_mobilevitv2", "hf_glpn", "hf_vitdet", "hf_hiera", "hf_pvt",
             "hf_dinov3")
# round 13: an audio model of transformers (raw waveform in: a convolution feature encoder,
# then a transformer), 16,000 samples (one second at 16 kHz)
HF_AUDIO = ("hf_wav2vec2", "hf_hubert", "hf_wavlm")
TORCH_NETS = ("conv1d_net", "norms_net", "unet_net", "mha_weights_net", "transformer_net",
              "r3d_18_net")
MODES = ("dynamo_eval", "dynamo_train", "legacy_train", "legacy_eval")
SEGMENTATION = {"fcn_resnet50", "deeplabv3_mobilenet_v3_large", "lraspp_mobilenet_v3_large"}


class _Out(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        return self.m(x)["out"]


class _Ids(torch.nn.Module):
    """token ids → last hidden state (what a text model's ONNX file computes)."""

    def __init__(self, m):
        super().__init__()
        self.m = m
        self.mask = False  # pass an all-ones attention mask (the legacy Llama workaround)

    def forward(self, ids):
        if self.mask:
            return self.m(input_ids=ids, attention_mask=torch.ones_like(ids)).last_hidden_state
        return self.m(input_ids=ids).last_hidden_state


class _Pixels(torch.nn.Module):
    """pixel values (or another keyword input: an audio model's waveform, ``input_values``) →
    last hidden state (a transformers image or audio model's ONNX file)."""

    def __init__(self, m, key: str = "pixel_values"):
        super().__init__()
        self.m = m
        self.key = key

    def forward(self, x):
        return self.m(**{self.key: x}).last_hidden_state


def _hf_vision(name: str):
    import transformers as tf  # noqa: PLC0415 - only these rows need it

    if name == "hf_resnet":  # convolution + batch norm pairs only (bias-free convolutions)
        return _Pixels(tf.ResNetModel(tf.ResNetConfig(
            hidden_sizes=[64, 128, 256, 512], depths=[1, 1, 1, 1], layer_type="basic")))
    if name == "hf_convnext":
        return _Pixels(tf.ConvNextModel(tf.ConvNextConfig(
            hidden_sizes=[48, 96, 192, 384], depths=[1, 1, 2, 1])))
    small = {"hidden_size": 192, "num_hidden_layers": 2, "num_attention_heads": 3,
             "intermediate_size": 768}
    if name == "hf_dinov2":  # layer scale, SwiGLU off, interpolated positions
        return _Pixels(tf.Dinov2Model(tf.Dinov2Config(**small, image_size=224, patch_size=16)))
    if name == "hf_siglip":  # no class token (its attention-pooling head off: the file's
        # output is last_hidden_state, which the head does not feed)
        return _Pixels(tf.SiglipVisionModel(tf.SiglipVisionConfig(
            **small, image_size=224, patch_size=16, vision_use_head=False)))
    if name == "hf_clip":  # pre-norm, quick GELU
        return _Pixels(tf.CLIPVisionModel(tf.CLIPVisionConfig(
            **small, image_size=224, patch_size=32)))
    if name == "hf_beit":  # relative-position bias per layer, layer scale
        return _Pixels(tf.BeitModel(tf.BeitConfig(
            **small, use_relative_position_bias=True), add_pooling_layer=False))
    if name == "hf_segformer":  # overlapping patch embeddings, reduced-key attention, Mix-FFN
        return _Pixels(tf.SegformerModel(tf.SegformerConfig(
            depths=[1, 1, 1, 1], hidden_sizes=[32, 64, 160, 256])))
    if name == "hf_swinv2":  # cosine attention, log-spaced continuous position bias MLP
        return _Pixels(tf.Swinv2Model(tf.Swinv2Config(embed_dim=48, depths=[2, 2],
                                                      num_heads=[3, 6], window_size=7)))
    if name == "hf_convnextv2":  # global response normalisation
        return _Pixels(tf.ConvNextV2Model(tf.ConvNextV2Config(
            hidden_sizes=[48, 96, 192, 384], depths=[1, 1, 2, 1])))
    if name == "hf_pvtv2":  # spatial-reduction attention, depthwise convolution in the MLP
        return _Pixels(tf.PvtV2Model(tf.PvtV2Config(depths=[1, 1, 1, 1])))
    if name == "hf_mobilevit":  # convolutions and transformers over unfolded patches
        return _Pixels(tf.MobileViTModel(tf.MobileViTConfig(
            hidden_sizes=[48, 64, 80], neck_hidden_sizes=[8, 8, 16, 16, 24, 32, 64]),
            expand_output=False))
    if name == "hf_efficientnet":  # squeeze-excitation, depthwise, drop-connect
        return _Pixels(tf.EfficientNetModel(tf.EfficientNetConfig(
            width_coefficient=0.5, depth_coefficient=0.5)))
    if name == "hf_regnet":
        return _Pixels(tf.RegNetModel(tf.RegNetConfig(
            hidden_sizes=[32, 64, 160, 384], depths=[1, 1, 2, 1], groups_width=16)))
    if name == "hf_levit":  # attention biases gathered by a constant index, batch norms
        return _Pixels(tf.LevitModel(tf.LevitConfig()))
    if name == "hf_yolos":  # a ViT with detection tokens
        return _Pixels(tf.YolosModel(tf.YolosConfig(**small, num_detection_tokens=10),
                                     add_pooling_layer=False))
    if name == "hf_dpt":  # ViT backbone and a convolutional decoder (depth estimation)
        return _Pixels(tf.DPTModel(tf.DPTConfig(**small, backbone_out_indices=[0, 1]),
                                   add_pooling_layer=False))
    if name == "hf_data2vec_vision":  # BEiT-style relative-position bias
        return _Pixels(tf.Data2VecVisionModel(tf.Data2VecVisionConfig(
            **small, use_relative_position_bias=True), add_pooling_layer=False))
    if name == "hf_bit":  # weight-standardised convolutions, group norm
        return _Pixels(tf.BitModel(tf.BitConfig(hidden_sizes=[128, 256, 512, 1024],
                                                depths=[1, 1, 1, 1])))
    if name == "hf_mobilenet_v2":
        return _Pixels(tf.MobileNetV2Model(tf.MobileNetV2Config(depth_multiplier=0.5)))
    if name == "hf_focalnet":  # focal modulation instead of attention
        return _Pixels(tf.FocalNetModel(tf.FocalNetConfig(embed_dim=48, depths=[1, 1, 2, 1]),
                                        add_pooling_layer=False))
    if name == "hf_swiftformer":  # efficient additive attention
        return _Pixels(tf.SwiftFormerModel(tf.SwiftFormerConfig(depths=[1, 1, 2, 1],
                                                                embed_dims=[24, 32, 64, 96])))
    if name == "hf_dinov2_reg":  # register tokens
        return _Pixels(tf.Dinov2WithRegistersModel(tf.Dinov2WithRegistersConfig(
            **small, image_size=224, patch_size=16, num_register_tokens=4)))
    # round 16: pooling mixers, separable attention, dense prediction, windowed ViT with
    # relative positions, mask-unit pooling, spatial-reduction attention, rotary DINOv3
    made = {
        "hf_poolformer": lambda: tf.PoolFormerModel(tf.PoolFormerConfig(
            depths=[1, 1, 1, 1], hidden_sizes=[32, 64, 96, 128])),
        "hf_mobilevitv2": lambda: tf.MobileViTV2Model(tf.MobileViTV2Config(
            width_multiplier=0.5)),
        "hf_glpn": lambda: tf.GLPNModel(tf.GLPNConfig(
            depths=[1, 1, 1, 1], hidden_sizes=[16, 32, 64, 128],
            num_attention_heads=[1, 2, 4, 8], decoder_hidden_size=32)),
        "hf_vitdet": lambda: tf.VitDetModel(tf.VitDetConfig(
            hidden_size=96, num_hidden_layers=2, num_attention_heads=4, mlp_ratio=2,
            window_size=7, window_block_indices=[0], use_relative_position_embeddings=True)),
        "hf_hiera": lambda: tf.HieraModel(tf.HieraConfig(
            embed_dim=32, depths=[1, 1, 1, 1], num_heads=[1, 2, 4, 8])),
        "hf_pvt": lambda: tf.PvtModel(tf.PvtConfig(
            hidden_sizes=[32, 64, 128, 256], depths=[1, 1, 1, 1],
            num_attention_heads=[1, 2, 4, 8])),
        "hf_dinov3": lambda: tf.DINOv3ViTModel(tf.DINOv3ViTConfig(
            hidden_size=96, num_hidden_layers=2, num_attention_heads=4, intermediate_size=256)),
    }.get(name)
    if made is not None:
        return _Pixels(made())
    if name == "hf_swin":  # relative-position bias added to the scores (warned)
        return _Pixels(tf.SwinModel(tf.SwinConfig(embed_dim=48, depths=[2, 2],
                                                  num_heads=[3, 6], window_size=7)))
    return _Pixels(tf.ViTModel(tf.ViTConfig(
        hidden_size=192, num_hidden_layers=2, num_attention_heads=3, intermediate_size=768),
        add_pooling_layer=False))


def _torch_net(name: str):
    N = torch.nn
    if name == "conv1d_net":  # a 1-D CNN (16 channels × 256 steps)
        return N.Sequential(N.Conv1d(16, 64, 5, padding=2), N.BatchNorm1d(64), N.ReLU(),
                            N.Conv1d(64, 64, 3, stride=2), N.ReLU(), N.AdaptiveAvgPool1d(1),
                            N.Flatten(), N.Linear(64, 10)), (16, 256)
    if name == "norms_net":  # GroupNorm, affine and plain InstanceNorm
        return N.Sequential(N.Conv2d(3, 32, 3, padding=1), N.GroupNorm(8, 32), N.SiLU(),
                            N.Conv2d(32, 64, 3, stride=2, padding=1),
                            N.InstanceNorm2d(64, affine=True), N.ReLU(),
                            N.Conv2d(64, 64, 3, padding=1), N.InstanceNorm2d(64),
                            N.ReLU()), (3, 64, 64)
    if name == "mha_weights_net":  # nn.MultiheadAttention returning its weights (math path)
        return _Mha(), (64, 128)
    if name == "transformer_net":  # nn.TransformerEncoder, 2 layers, GELU, pre-norm
        layer = N.TransformerEncoderLayer(128, 4, 512, batch_first=True, norm_first=True,
                                          activation="gelu")
        return N.TransformerEncoder(layer, 2, enable_nested_tensor=False), (64, 128)
    if name == "r3d_18_net":  # torchvision's 3-D ResNet on 8 frames of 112×112
        return torchvision.models.video.r3d_18(weights=None), (3, 8, 112, 112)
    return _UNet(), (3, 128, 128)


class _Mha(torch.nn.Module):
    """Self-attention that also returns its weights (averaged over heads), then a linear."""

    def __init__(self):
        super().__init__()
        self.a = torch.nn.MultiheadAttention(128, 4, batch_first=True)
        self.f = torch.nn.Linear(128, 128)

    def forward(self, x):
        y, w = self.a(x, x, x, need_weights=True)
        return self.f(y) + w.mean()


class _UNet(torch.nn.Module):
    """A two-level U-Net: ConvTranspose up, skip concat, bilinear Resize at the end."""

    def __init__(self):
        super().__init__()
        N = torch.nn
        self.d1 = N.Sequential(N.Conv2d(3, 32, 3, padding=1), N.BatchNorm2d(32), N.ReLU())
        self.d2 = N.Sequential(N.Conv2d(32, 64, 3, stride=2, padding=1), N.BatchNorm2d(64),
                               N.ReLU())
        self.up = N.ConvTranspose2d(64, 32, 2, stride=2)
        self.c = N.Sequential(N.Conv2d(64, 32, 3, padding=1), N.ReLU(), N.Conv2d(32, 5, 1))

    def forward(self, x):
        a = self.d1(x)
        y = self.c(torch.cat([self.up(self.d2(a)), a], 1))
        return torch.nn.functional.interpolate(y, scale_factor=2, mode="bilinear",
                                               align_corners=False)


def _text15(name: str):
    """Round 15's and 16's text families: small configs, token ids in; None for another
    name."""
    import transformers as tf  # noqa: PLC0415 - only the text rows need it

    ll = {"hidden_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
          "num_key_value_heads": 2, "intermediate_size": 344, "bos_token_id": 0,
          "eos_token_id": 0, "pad_token_id": 0, "vocab_size": 1000,
          "attn_implementation": "sdpa"}
    hd = {**ll, "head_dim": 32}
    bertish = {"hidden_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
               "intermediate_size": 512, "vocab_size": 1000}
    builders = {
        "cohere": lambda: tf.CohereModel(tf.CohereConfig(**ll)),
        "olmo2": lambda: tf.Olmo2Model(tf.Olmo2Config(**ll)),
        # (sliding-window and global layers; eager: its soft-capping has no SDPA path)
        "gemma3": lambda: tf.Gemma3TextModel(tf.Gemma3TextConfig(
            **{**hd, "sliding_window": 64, "attn_implementation": "eager"})),
        "glm": lambda: tf.GlmModel(tf.GlmConfig(**hd)),  # interleaved rotary
        "helium": lambda: tf.HeliumModel(tf.HeliumConfig(**hd)),
        "apertus": lambda: tf.ApertusModel(tf.ApertusConfig(**ll)),  # xIELU, learned scalars
        "lfm2": lambda: tf.Lfm2Model(tf.Lfm2Config(  # a short convolution, then attention
            **{**ll, "layer_types": ["conv", "full_attention"]})),
        "seedoss": lambda: tf.SeedOssModel(tf.SeedOssConfig(**hd)),
        "arcee": lambda: tf.ArceeModel(tf.ArceeConfig(**ll)),  # ReLU² MLP
        "ernie45": lambda: tf.Ernie4_5Model(tf.Ernie4_5Config(**hd)),
        "olmo3": lambda: tf.Olmo3Model(tf.Olmo3Config(**ll)),
        "exaone4": lambda: tf.Exaone4Model(tf.Exaone4Config(**ll)),
        "nemotron": lambda: tf.NemotronModel(tf.NemotronConfig(**hd)),  # LayerNorm1p, ReLU²
        "persimmon": lambda: tf.PersimmonModel(tf.PersimmonConfig(**bertish)),
        "mpt": lambda: tf.MptModel(tf.MptConfig(d_model=128, n_layers=2, n_heads=4,
                                                vocab_size=1000, max_seq_len=256)),
        "xglm": lambda: tf.XGLMModel(tf.XGLMConfig(
            d_model=128, num_layers=2, attention_heads=4, ffn_dim=512, vocab_size=1000,
            max_position_embeddings=256)),
        "biogpt": lambda: tf.BioGptModel(tf.BioGptConfig(**bertish)),
        "codegen": lambda: tf.CodeGenModel(tf.CodeGenConfig(
            n_embd=128, n_layer=2, n_head=4, rotary_dim=16, n_positions=256, vocab_size=1000,
            bos_token_id=0, eos_token_id=0)),
        # (grouped 1-D convolutions in place of linear layers; its pooler is in the model)
        "squeezebert": lambda: tf.SqueezeBertModel(tf.SqueezeBertConfig(
            **bertish, embedding_size=128)),
        "funnel": lambda: tf.FunnelBaseModel(tf.FunnelConfig(  # pools the sequence
            d_model=128, n_head=4, d_head=32, d_inner=512, block_sizes=[1, 1],
            vocab_size=1000)),
        "convbert": lambda: tf.ConvBertModel(tf.ConvBertConfig(**bertish, embedding_size=128)),
        "megatronbert": lambda: tf.MegatronBertModel(tf.MegatronBertConfig(**bertish),
                                                     add_pooling_layer=False),
        "fnet": lambda: tf.FNetModel(tf.FNetConfig(  # Fourier transforms mix the tokens
            hidden_size=128, num_hidden_layers=2, intermediate_size=512, vocab_size=1000),
            add_pooling_layer=False),
        # round 16: rotary encoders with a sinusoidal table, decoupled embeddings, character
        # hashing and downsampling, two-stream attention, adapters per language, GLM-4
        "roformer": lambda: tf.RoFormerModel(tf.RoFormerConfig(**bertish, embedding_size=128)),
        "rembert": lambda: tf.RemBertModel(tf.RemBertConfig(
            **bertish, input_embedding_size=64, output_embedding_size=128)),
        "canine": lambda: tf.CanineModel(tf.CanineConfig(
            hidden_size=128, num_hidden_layers=2, num_attention_heads=4, intermediate_size=512,
            num_hash_buckets=512, downsampling_rate=4)),
        "xlnet": lambda: tf.XLNetModel(tf.XLNetConfig(
            d_model=128, n_layer=2, n_head=4, d_inner=512, vocab_size=1000)),
        "ibert": lambda: tf.IBertModel(tf.IBertConfig(**bertish)),
        "xmod": lambda: tf.XmodModel(tf.XmodConfig(**bertish, languages=("en_XX",),
                                                   default_language="en_XX")),
        "glm4": lambda: tf.Glm4Model(tf.Glm4Config(**hd)),
        "mamba": lambda: tf.MambaModel(tf.MambaConfig(
            hidden_size=64, num_hidden_layers=2, state_size=8, vocab_size=1000,
            use_mambapy=False)),
    }
    make = builders.get(name.removesuffix("_tiny"))
    return _Ids(make()) if make else None


def _text(name: str):
    import transformers as tf  # noqa: PLC0415 - only the text rows need it

    made = _text15(name)
    if made is not None:
        return made
    attn = "eager" if name.endswith("_eager") else "sdpa"
    small = {"vocab_size": 1000, "attn_implementation": attn}
    if name.startswith("albert"):  # one layer's weights shared by all four layers
        return _Ids(tf.AlbertModel(tf.AlbertConfig(
            embedding_size=64, hidden_size=256, num_hidden_layers=4, num_attention_heads=4,
            intermediate_size=1024, **small), add_pooling_layer=False))
    if name.startswith("distilbert"):
        return _Ids(tf.DistilBertModel(tf.DistilBertConfig(
            dim=256, n_layers=2, n_heads=4, hidden_dim=1024, **small)))
    if name.startswith("modernbert"):  # alternating local/global attention, GeGLU, no biases
        return _Ids(tf.ModernBertModel(tf.ModernBertConfig(
            hidden_size=128, num_hidden_layers=3, num_attention_heads=4, intermediate_size=256,
            global_attn_every_n_layers=3, local_attention=64, pad_token_id=0, bos_token_id=0,
            eos_token_id=0, cls_token_id=0, sep_token_id=0, **small)))
    if name.startswith(("qwen3", "gemma2", "smollm3", "granite", "olmo")):
        # q/k norms (Qwen3), logit soft-capping and sandwich norms (Gemma-2), NoPE layers
        # (SmolLM3), scaled residuals and logits (Granite), non-parametric norms (OLMo)
        key = name.split("_")[0]
        cls = {"qwen3": (tf.Qwen3Model, tf.Qwen3Config),
               "gemma2": (tf.Gemma2Model, tf.Gemma2Config),
               "smollm3": (tf.SmolLM3Model, tf.SmolLM3Config),
               "granite": (tf.GraniteModel, tf.GraniteConfig),
               "olmo": (tf.OlmoModel, tf.OlmoConfig)}[key]
        extra = {"head_dim": 32} if key in ("qwen3", "gemma2") else {}
        # (Gemma-2's soft-capping has no SDPA path in transformers: eager attention)
        impl = {**small, "attn_implementation": "eager"} if key == "gemma2" else small
        return _Ids(cls[0](cls[1](
            hidden_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
            intermediate_size=344, bos_token_id=0, eos_token_id=0, pad_token_id=0, **extra,
            **impl)))
    if name.startswith("mixtral"):  # a router picks 2 of 4 experts for every token
        return _Ids(tf.MixtralModel(tf.MixtralConfig(
            hidden_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
            intermediate_size=256, num_local_experts=4, num_experts_per_tok=2, bos_token_id=0,
            eos_token_id=0, pad_token_id=0, **small)))
    if name.startswith("gpt_bigcode"):  # one key/value head shared by all (multi-query)
        return _Ids(tf.GPTBigCodeModel(tf.GPTBigCodeConfig(
            n_embd=256, n_layer=2, n_head=4, n_positions=256, multi_query=True,
            bos_token_id=0, eos_token_id=0, **small)))
    if name.startswith(("stablelm", "starcoder2")):
        cls = (tf.StableLmModel, tf.StableLmConfig) if name.startswith("stablelm") else \
            (tf.Starcoder2Model, tf.Starcoder2Config)
        return _Ids(cls[0](cls[1](
            hidden_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
            intermediate_size=344, bos_token_id=0, eos_token_id=0, pad_token_id=0, **small)))
    if name.startswith("phi3"):  # one qkv projection sliced into q, k and v; gate_up fused
        return _Ids(tf.Phi3Model(tf.Phi3Config(
            hidden_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
            intermediate_size=344, bos_token_id=0, eos_token_id=0, pad_token_id=0, **small)))
    if name.startswith("phi"):  # partial rotary: q and k rebuilt by torch.cat
        return _Ids(tf.PhiModel(tf.PhiConfig(
            hidden_size=256, num_hidden_layers=2, num_attention_heads=4, intermediate_size=688,
            bos_token_id=0, eos_token_id=0, **small)))
    if name.startswith("gpt_neox"):  # parallel attention and MLP, two norms of one input
        return _Ids(tf.GPTNeoXModel(tf.GPTNeoXConfig(
            hidden_size=256, num_hidden_layers=2, num_attention_heads=4, intermediate_size=688,
            rotary_pct=0.25, bos_token_id=0, eos_token_id=0, **small)))
    if name.startswith("mobilebert"):  # NoNorm: x · weight + bias in modules named LayerNorm
        return _Ids(tf.MobileBertModel(tf.MobileBertConfig(
            hidden_size=128, num_hidden_layers=2, num_attention_heads=4, intermediate_size=256,
            embedding_size=64, intra_bottleneck_size=64, true_hidden_size=64, **small),
            add_pooling_layer=False))
    if name.startswith("bloom"):  # ALiBi; a GELU that is a custom autograd function in training
        return _Ids(tf.BloomModel(tf.BloomConfig(hidden_size=256, n_layer=2, n_head=4,
                                                 vocab_size=1000)))
    if name.startswith("opt"):
        return _Ids(tf.OPTModel(tf.OPTConfig(
            hidden_size=256, num_hidden_layers=2, num_attention_heads=4, ffn_dim=1024,
            max_position_embeddings=256, word_embed_proj_dim=256, pad_token_id=1, **small)))
    if name.startswith("gptj"):  # rotary on part of each head, gelu_new written out
        return _Ids(tf.GPTJModel(tf.GPTJConfig(
            n_embd=256, n_layer=2, n_head=4, rotary_dim=32, n_positions=256, bos_token_id=0,
            eos_token_id=0, **small)))
    if name.startswith("roberta"):  # position ids from a cumulative sum over the padding mask
        return _Ids(tf.RobertaModel(tf.RobertaConfig(
            hidden_size=128, num_hidden_layers=2, num_attention_heads=4, intermediate_size=512,
            **small), add_pooling_layer=False))
    if name.startswith("electra"):  # embeddings narrower than the hidden size, projected
        return _Ids(tf.ElectraModel(tf.ElectraConfig(
            embedding_size=64, hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
            intermediate_size=512, **small)))
    if name.startswith("deberta"):  # disentangled relative-position attention
        return _Ids(tf.DebertaV2Model(tf.DebertaV2Config(
            hidden_size=128, num_hidden_layers=2, num_attention_heads=4, intermediate_size=512,
            vocab_size=1000)))
    if name.startswith("mpnet"):  # relative-position bias buckets
        return _Ids(tf.MPNetModel(tf.MPNetConfig(
            hidden_size=128, num_hidden_layers=2, num_attention_heads=4, intermediate_size=512,
            vocab_size=1000), add_pooling_layer=False))
    if name.startswith("gpt_neo_"):  # local and global attention layers, no attention scaling
        return _Ids(tf.GPTNeoModel(tf.GPTNeoConfig(
            hidden_size=128, num_layers=2, num_heads=4, attention_types=[[["global", "local"], 1]],
            window_size=64, max_position_embeddings=256, vocab_size=1000,
            attn_implementation="eager")))
    if name.startswith(("mistral", "qwen2", "gemma")):  # RMSNorm, rotary, GQA, gated MLP
        cls = {"mistral": (tf.MistralModel, tf.MistralConfig),
               "qwen2": (tf.Qwen2Model, tf.Qwen2Config),
               "gemma": (tf.GemmaModel, tf.GemmaConfig)}[name.split("_")[0]]
        extra = {"head_dim": 32} if name.startswith("gemma") else {}
        return _Ids(cls[0](cls[1](
            hidden_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
            intermediate_size=344, bos_token_id=0, eos_token_id=0, pad_token_id=0, **extra,
            **small)))
    if name.startswith("falcon"):  # multi-query attention, parallel attention and MLP
        return _Ids(tf.FalconModel(tf.FalconConfig(
            hidden_size=128, num_hidden_layers=2, num_attention_heads=4, bos_token_id=0,
            eos_token_id=0, **small)))
    if name.startswith("t5enc"):  # T5's encoder: RMS-style norm, relative-position buckets
        return _Ids(tf.T5EncoderModel(tf.T5Config(
            d_model=128, d_kv=32, d_ff=512, num_layers=2, num_heads=4, vocab_size=1000)))
    if name.startswith("bart"):  # encoder and decoder (decoder ids: the shifted inputs)
        return _Ids(tf.BartModel(tf.BartConfig(
            d_model=128, encoder_layers=1, decoder_layers=1, encoder_attention_heads=4,
            decoder_attention_heads=4, encoder_ffn_dim=512, decoder_ffn_dim=512,
            max_position_embeddings=256, vocab_size=1000, pad_token_id=1)))
    if name.startswith("bert"):
        m = tf.BertModel(tf.BertConfig(hidden_size=128, num_hidden_layers=2,
                                       num_attention_heads=4, intermediate_size=512, **small),
                         add_pooling_layer=False)
    elif name.startswith("gpt2"):
        m = tf.GPT2Model(tf.GPT2Config(n_embd=128, n_layer=2, n_head=4, n_positions=512,
                                       bos_token_id=0, eos_token_id=0, **small))
    else:
        m = tf.LlamaModel(tf.LlamaConfig(hidden_size=128, num_hidden_layers=2,
                                         num_attention_heads=4, num_key_value_heads=2,
                                         intermediate_size=344, bos_token_id=0,
                                         eos_token_id=0, **small))
    return _Ids(m)


def build(name: str):
    if name in TEXT_NETWORKS:
        torch.manual_seed(0)
        return _text(name), SEQUENCE
    if name in HF_VISION:
        torch.manual_seed(0)
        return _hf_vision(name), 224
    if name in TORCH_NETS:
        torch.manual_seed(0)
        return _torch_net(name)
    if name in HF_AUDIO:
        import transformers as tf  # noqa: PLC0415 - only these rows need it

        torch.manual_seed(0)
        audio = {"hidden_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
                 "intermediate_size": 512, "conv_dim": (64,) * 7, "num_conv_pos_embeddings": 32,
                 "num_conv_pos_embedding_groups": 4, "layerdrop": 0.0}
        cls = {"hf_wav2vec2": (tf.Wav2Vec2Model, tf.Wav2Vec2Config),
               "hf_hubert": (tf.HubertModel, tf.HubertConfig),  # wav2vec2's network
               # gated relative-position bias in every layer's attention
               "hf_wavlm": (tf.WavLMModel, tf.WavLMConfig)}[name]
        return _Pixels(cls[0](cls[1](**audio)), "input_values"), (16000,)
    if name.startswith("timm_"):
        import timm  # noqa: PLC0415 - optional, only these rows need it

        torch.manual_seed(0)
        m = timm.create_model(name[len("timm_"):], pretrained=False)
        return m, int(m.pretrained_cfg.get("input_size", (3, 224, 224))[-1])
    if name in SEGMENTATION:
        m = getattr(torchvision.models.segmentation, name)(weights=None, weights_backbone=None,
                                                           aux_loss=False)
        return _Out(m), 224
    kw = {"aux_logits": False, "init_weights": True} if name in ("inception_v3",
                                                                  "googlenet") else {}
    return getattr(torchvision.models, name)(weights=None, **kw), (
        299 if name == "inception_v3" else 224)


def export(name: str, mode: str, cache: Path) -> tuple[Path | None, str]:
    """The cached file (exported now if missing) or None and the exporter's error."""
    path = cache / f"{name}.{mode}.onnx"
    status = cache / f"{name}.{mode}.status"
    if path.exists():
        return path, ""
    if status.exists():
        s = json.loads(status.read_text())
        if not s.get("ok"):
            return None, s.get("error", "export failed")
    model, size = build(name)
    try:
        return _export(name, mode, path, status, model, example(name, 1, size))
    except _NoGqa as exc:
        # transformers calls SDPA with enable_gqa when no mask is given, which the legacy
        # exporter cannot convert; with an (all-ones) attention mask it repeats k and v.
        model.mask = True
        path_, err = _export(name, mode, path, status, model, example(name, 1, size),
                             batch1_error=exc.args[0], note="an all-ones attention mask")
        return (path_, err) if path_ is not None else (None, f"{exc.args[0]} (and: {err})")
    except _OneSample as exc:
        # Batch norm after a global pool (DeepLabV3's ASPP) cannot train on one sample:
        # torch refuses the trace ("Expected more than 1 value per channel when training").
        # The workaround a user takes: export the training graph with a batch of 2.
        err, rows = exc.args[0], _export(name, mode, path, status, model,
                                         example(name, 2, size), batch1_error=exc.args[0])
        return rows if rows[0] is not None else (None, f"{err} (and at batch 2: {rows[1]})")


class _OneSample(Exception):
    """torch cannot run the training graph on a batch of one."""


class _NoGqa(Exception):
    """the legacy exporter cannot convert SDPA with enable_gqa."""


def _export(name, mode, path, status, model, x, batch1_error: str = "", note: str = ""):
    names = {"input_names": ["input"], "output_names": ["out"],
             "dynamic_axes": {"input": {0: "batch"}, "out": {0: "batch"}}}
    if name in TEXT_NETWORKS:
        names["dynamic_axes"] = {"input": {0: "batch", 1: "sequence"},
                                 "out": {0: "batch", 1: "sequence"}}
    t = time.time()
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            warnings.simplefilter("ignore")
            if mode == "dynamo_eval":
                torch.onnx.export(model.eval(), (x,), str(path))
            elif mode == "dynamo_train":
                torch.onnx.export(model.train(), (x,), str(path),
                                  training=torch.onnx.TrainingMode.TRAINING)
            elif mode == "legacy_train":
                torch.onnx.export(model.train(), (x,), str(path), dynamo=False,
                                  do_constant_folding=False,
                                  training=torch.onnx.TrainingMode.TRAINING, **names)
            else:
                torch.onnx.export(model.eval(), (x,), str(path), dynamo=False)
        done = {"ok": True, "s": round(time.time() - t, 1)}
        if batch1_error:
            done["batch"] = int(x.shape[0])
            done["batch1_error"] = batch1_error
            done["with"] = note or f"a batch of {int(x.shape[0])}"
        status.write_text(json.dumps(done))
        return path, ""
    except Exception as exc:  # noqa: BLE001 - the row records it
        chain, e = [], exc
        while e is not None and len(chain) < 8:  # torch.export wraps the model's own error
            chain.append(e)
            e = e.__cause__ or e.__context__
        msg = "".join(traceback.format_exception_only(type(exc), exc)).strip().splitlines()
        err = (msg[0] if msg else repr(exc))[:200]
        root = next((c for c in reversed(chain) if "more than 1 value per channel" in str(c)),
                    None)
        if path.exists():
            path.unlink()
        if root is not None and not batch1_error and x.shape[0] == 1:
            raise _OneSample(f"{type(root).__name__}: {root}"[:200]) from None
        if "enable_gqa" in str(exc) and not batch1_error and isinstance(model, _Ids):
            raise _NoGqa(err) from None
        status.write_text(json.dumps({"ok": False, "error": err}))
        return None, err


def example(name: str, batch: int, size) -> torch.Tensor:
    if name in TEXT_NETWORKS:
        return torch.randint(0, 1000, (batch, size))
    if isinstance(size, tuple):  # a torch.nn network's per-sample input shape
        return torch.randn(batch, *size)
    return torch.randn(batch, 3, size, size)


@contextlib.contextmanager
def cuda_kernels():
    """Measure on the CPU what CUDA keeps where the two differ in kernels, not in the network.

    * Dropout: the CPU multiplies by an fp32 noise tensor and keeps it; CUDA's fused kernel
      (``native_dropout``, which also runs on the CPU) keeps a one-byte mask. Every dropout,
      module or functional (attention probabilities), runs as ``native_dropout`` here.
    * Scaled-dot-product attention with dropout: the CPU falls back to the math kernel, which
      keeps the T×T probabilities, the noise and the dropped probabilities; CUDA's fused
      kernels (flash, memory-efficient) apply dropout inside and keep q, k, v, the output and
      a logsumexp, as the CPU's own fused kernel does without dropout. Run here without the
      dropout (the same tensors are kept; only the values differ).
    """
    F = torch.nn.functional
    masks: list[int] = []
    dropout, sdpa = F.dropout, F.scaled_dot_product_attention

    def native(input, p=0.5, training=True, inplace=False):  # noqa: A002, ARG001
        if not training or p == 0.0:
            return input
        out, mask = torch.native_dropout(input, p, True)
        masks.append(mask.numel())  # one byte each
        return out

    def fused(query, key, value, attn_mask=None, dropout_p=0.0, *args, **kwargs):  # noqa: ARG001
        return sdpa(query, key, value, attn_mask, 0.0, *args, **kwargs)

    F.dropout, F.scaled_dot_product_attention = native, fused
    try:
        yield masks
    finally:
        F.dropout, F.scaled_dot_product_attention = dropout, sdpa


def time_import(path: Path, batch: int, repeats: int = 1, input_shape=None):
    times, result = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        result = import_onnx(path, batch=batch, input_shape=input_shape)
        times.append(time.perf_counter() - t)
    return statistics.median(times), result


def planner_figures(draft, batch: int) -> tuple[int, int]:
    analysis = analyze(draft)
    est = estimate(analysis, Setup(batch, "fp32", "sgd", "train"), NO_ROUNDING)
    return analysis.parameters, est.saved_bytes  # all the step keeps for backward


def fmt_mib(b: float) -> str:
    return f"{b / 2**20:,.1f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", default="/work/onnx-cache", help="folder of exported files")
    ap.add_argument("--batches", default="2,8")
    extra: tuple[str, ...] = TORCH_NETS
    for module, rows in (("transformers", TEXT_NETWORKS + HF_VISION + HF_AUDIO),
                         ("timm", TIMM_NETWORKS)):
        try:
            __import__(module)
            extra += rows
        except ImportError:
            print(f"({module} is not installed: its rows are skipped)")
    ap.add_argument("--networks", default=",".join(NETWORKS + extra))
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--markdown", action="store_true", help="print the table as markdown")
    args = ap.parse_args(argv)
    torch.manual_seed(0)
    torch.set_num_threads(max(1, torch.get_num_threads()))
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    batches = [int(b) for b in args.batches.split(",")]
    print(f"GPU Planner ONNX import benchmark: torch {torch.__version__} (CPU), torchvision "
          f"{torchvision.__version__}, onnx {onnx.__version__}; fp32, train step, exported "
          f"at batch 1, planned at batches {batches}.\n")
    rows, notes, misses = [], [], []
    headers = ["network", "export", "batch", "import ms", "params plan", "params torch",
               "diff", "saved plan MiB", "saved torch MiB¹", "error %", "verdict"]
    shown = 0
    if args.markdown:  # rows as they come (a long run shows its progress)
        print("| " + " | ".join(headers) + " |")
        print("|" + "---|" * len(headers), flush=True)

    def flush_rows():
        nonlocal shown
        if args.markdown:
            for r in rows[shown:]:
                print("| " + " | ".join(r) + " |", flush=True)
        shown = len(rows)

    for name in args.networks.split(","):
        flush_rows()
        measured: dict[int, dict] = {}
        for mode in args.modes.split(","):
            path, err = export(name, mode, cache)
            st = cache / f"{name}.{mode}.status"
            s = json.loads(st.read_text()) if st.exists() else {}
            if s.get("batch1_error"):
                notes.append(f"  {name} ({mode}): exported with {s.get('with')}: as the "
                             f"benchmark exports it, torch fails ({s['batch1_error'][:120]})")
            if path is None:
                rows.append([name, mode, "-", "-", "-", "-", "-", "-", "-", "-",
                             f"export fails: {err[:70]}"])
                continue
            for b in batches:
                try:
                    t_import, result = time_import(
                        path, b, input_shape=(SEQUENCE,) if name in TEXT_NETWORKS else None)
                except OnnxImportError as exc:
                    rows.append([name, mode, str(b), "-", "-", "-", "-", "-", "-", "-",
                                 f"import refused: {str(exc)[:70]}"])
                    misses.append(f"{name}/{mode}")
                    continue
                if not analyze(result.draft).ok:
                    rows.append([name, mode, str(b), "-", "-", "-", "-", "-", "-", "-",
                                 "plan has problems (warned incomplete)"])
                    misses.append(f"{name}/{mode}")
                    continue
                params, saved = planner_figures(result.draft, b)
                if b not in measured:
                    model, size = build(name)
                    with cuda_kernels() as masks:
                        m = torch_side(model, example(name, b, size))
                    measured[b] = {"parameters": m["parameters"], "saved": m["saved"],
                                   "dropout_excess": m["dropout_excess"],
                                   "dropout_masks": sum(masks)}
                    del model, m
                meas = measured[b]
                cuda_like = meas["saved"] - meas["dropout_excess"]
                err_cuda = 100.0 * (saved - cuda_like) / cuda_like
                eval_mode = mode.endswith("_eval")
                told = result.report.eval_export  # recognised (by its batch norms) and said
                # An eval export has no dropout: compare with training less its masks too.
                no_drop = cuda_like - meas["dropout_masks"]
                err_nodrop = 100.0 * (saved - no_drop) / no_drop if eval_mode else err_cuda
                exact = params == meas["parameters"]
                ok = abs(err_cuda) <= TOLERANCE_PCT
                verdict = "pass" if ok and exact else (
                    "params off" if ok else "saved off")
                if not result.report.complete:
                    verdict += ", warned incomplete"
                elif eval_mode and not ok and abs(err_nodrop) <= TOLERANCE_PCT:
                    verdict = "eval export: no dropout" + (
                        " (warned)" if told else " (not said: no batch norm to tell it by)")
                if not (ok and exact):
                    misses.append(f"{name}/{mode}/b{b}")
                rows.append([
                    name, mode, str(b), f"{t_import * 1e3:.0f}", f"{params:,}",
                    f"{meas['parameters']:,}", f"{params - meas['parameters']:+,}",
                    fmt_mib(saved), fmt_mib(cuda_like), f"{err_cuda:+.2f}", verdict,
                ])
                if b == batches[0] and result.warnings:
                    notes.append(f"  {name} ({mode}): " + " | ".join(
                        w[:160] for w in result.warnings))
    if args.markdown:
        flush_rows()
    else:
        print(table(headers, rows))
    print("\n¹ what autograd saves on the CPU, with CPU dropout's fp32 noise counted as CUDA's "
          "1-byte mask (the planner's rule).")
    print("\nImport warnings (first batch):" if notes else "\nImport warnings: none")
    for n in notes:
        print(n)
    print(f"\nMISSES: {len(misses)} of {len(rows)} rows: {', '.join(misses[:40])}"
          if misses else "\nPASS: every row exact in parameters and within "
          f"±{TOLERANCE_PCT:g}% in saved bytes")
    return 0


if __name__ == "__main__":
    from reporting import run_reporting

    run_reporting(main, "benchmark")
