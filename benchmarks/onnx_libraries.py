"""ONNX files as other model libraries write them, against autograd (issue #12).

Where a library has its own exporter, the file is made the way its users make it:

* Ultralytics (YOLO): ``YOLO("yolov8n.yaml").export(format="onnx", imgsz=320)``, which fuses
  every Conv module's batch norm before calling ``torch.onnx.export`` (and runs onnxslim when
  it is installed). Autograd's side: the same network, unfused, in training mode.
* diffusers (``UNet2DModel``: the noisy sample and the timestep in; ``UNet2DConditionModel``:
  the text encoder's hidden states too; ``AutoencoderKL``),
  segmentation_models_pytorch (U-Net on ResNet-18 and EfficientNet-B0, SegFormer, PSPNet,
  FPN, DeepLabV3+), open_clip (the ViT-B/32, ResNet-50 and ConvNeXt image towers, the text
  tower) and MONAI (2-D and 3-D U-Nets, VNet, UNETR, SegResNet, DynUNet, a 3-D DenseNet):
  ``torch.onnx.export`` both ways (the default exporter in eval mode; the legacy
  one in training mode).

Random weights, no downloads. Saved bytes are what the planner keeps for backward at batch 2
(fp32, allocator rounding off) against what ``saved_tensors_hooks`` sees on the CPU (dropout
and attention as CUDA keeps them: ``onnx_accuracy.cuda_kernels``).

    OMP_NUM_THREADS=1 python benchmarks/onnx_libraries.py [--cache DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import torch  # noqa: E402

import onnx_accuracy as oa  # noqa: E402
from onnx_accuracy import planner_figures  # noqa: E402

from planner.core.importers.onnx import import_onnx  # noqa: E402

BATCH = 2
YOLO = ("yolov8n", "yolo11n", "yolov8n-seg", "yolov8n-cls")
IMG = 320


def saved_by_autograd(model, inputs) -> tuple[int, int]:
    """(parameters, bytes autograd keeps for backward over one forward pass). Not
    ``accuracy.torch_side``: these models take several inputs (the UNet's sample and timestep)
    and return lists and dicts (Ultralytics' training heads), which its recorder and its
    autograd-graph cross-check do not; the same hooks and ``cuda_kernels`` otherwise."""
    seen: dict[int, int] = {}

    def pack(t):
        st = t.untyped_storage()
        seen.setdefault(st.data_ptr(), st.nbytes())
        return t

    with oa.cuda_kernels():
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            model(*inputs)
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    return (sum(p.numel() for p in model.parameters()),
            sum(n for k, n in seen.items() if k not in params))


def yolo_rows(cache: Path):
    os.environ.setdefault("YOLO_OFFLINE", "1")
    try:
        from ultralytics import YOLO as Yolo  # noqa: PLC0415
    except ImportError:
        print("(ultralytics is not installed: its rows are skipped)")
        return
    from ultralytics.utils import LOGGER  # noqa: PLC0415

    LOGGER.setLevel("ERROR")  # (it logs every export to stdout)
    for name in YOLO:
        path = cache / f"{name}.onnx"
        if not path.exists():
            here = Path.cwd()
            os.chdir(cache)  # (it writes the file beside the working directory)
            try:
                out = Yolo(f"{name}.yaml").export(format="onnx", imgsz=IMG, verbose=False)
            finally:
                os.chdir(here)
            Path(cache, out).replace(path)
        torch.manual_seed(0)
        model = Yolo(f"{name}.yaml").model.train()
        for p in model.parameters():
            p.requires_grad_(True)
        yield name, "ultralytics export", path, (3, IMG, IMG), model, \
            (torch.randn(BATCH, 3, IMG, IMG),)


class _Unet(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x, t):
        return self.m(x, t).sample


def _diffusers_unet():
    import diffusers  # noqa: PLC0415

    return _Unet(diffusers.UNet2DModel(
        sample_size=32, in_channels=3, out_channels=3, layers_per_block=1,
        block_out_channels=(32, 64), norm_num_groups=8,
        down_block_types=("DownBlock2D", "AttnDownBlock2D"),
        up_block_types=("AttnUpBlock2D", "UpBlock2D"))), \
        lambda b: (torch.randn(b, 3, 32, 32), torch.tensor([10] * b))


class _CondUnet(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x, t, text):
        return self.m(x, t, encoder_hidden_states=text).sample


def _diffusers_cond_unet():
    """A Stable-Diffusion-style UNet2DConditionModel, small: latents, the timestep and the
    text encoder's hidden states in (cross-attention), as DreamBooth and LoRA fine-tuning
    train it."""
    import diffusers  # noqa: PLC0415

    return _CondUnet(diffusers.UNet2DConditionModel(
        sample_size=16, in_channels=4, out_channels=4, layers_per_block=1,
        block_out_channels=(32, 64), norm_num_groups=8, cross_attention_dim=64,
        attention_head_dim=8,
        down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
        up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"))), \
        lambda b: (torch.randn(b, 4, 16, 16), torch.tensor([10] * b), torch.randn(b, 77, 64))


class _Vae(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        return self.m(x).sample


def _diffusers_vae():
    """diffusers' AutoencoderKL (Stable Diffusion's VAE), small: an image in, its
    reconstruction out (the encoder, the sampled latent, the decoder with its mid attention)."""
    import diffusers  # noqa: PLC0415

    return _Vae(diffusers.AutoencoderKL(
        in_channels=3, out_channels=3, latent_channels=4, block_out_channels=(32, 64),
        down_block_types=("DownEncoderBlock2D",) * 2, up_block_types=("UpDecoderBlock2D",) * 2,
        norm_num_groups=8, sample_size=64)), lambda b: (torch.randn(b, 3, 64, 64),)


def _smp(arch: str, encoder: str):
    def make():
        import segmentation_models_pytorch as smp  # noqa: PLC0415

        return getattr(smp, arch)(encoder, encoder_weights=None, classes=3), \
            lambda b: (torch.randn(b, 3, 128, 128),)
    return make


def _clip_visual():
    import open_clip  # noqa: PLC0415

    return open_clip.create_model("ViT-B-32", pretrained=None).visual, \
        lambda b: (torch.randn(b, 3, 224, 224),)


def _clip(name: str):
    """An open_clip image tower (ResNet with attention pooling, ConvNeXt through timm)."""
    def make():
        import open_clip  # noqa: PLC0415

        return open_clip.create_model(name, pretrained=None).visual, \
            lambda b: (torch.randn(b, 3, 224, 224),)
    return make


class _ClipText(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, ids):
        return self.m.encode_text(ids)


def _clip_text():
    """open_clip's ViT-B/32 text tower: 77 token ids in, a causal transformer, the last
    token's features projected."""
    import open_clip  # noqa: PLC0415

    m = open_clip.create_model("ViT-B-32", pretrained=None)
    # (the image tower and the logit scale, which the text's export never reads)
    m.visual, m.logit_scale = None, None
    return _ClipText(m), \
        lambda b: (torch.randint(0, 1000, (b, 77)),)


def _monai(name: str):
    """MONAI's medical-imaging networks, small, 3-D volumes (one channel, 32³) but the 2-D
    UNet; their own defaults otherwise (PReLU, instance norms, in-place leaky ReLU and ELU)."""
    def make():
        from monai.networks import nets  # noqa: PLC0415

        vol = lambda b: (torch.randn(b, 1, 32, 32, 32),)  # noqa: E731
        made = {
            "unet2d": lambda: (nets.UNet(2, 3, 2, channels=(16, 32, 64, 128), strides=(2, 2, 2),
                                         num_res_units=2, norm="batch"),
                               lambda b: (torch.randn(b, 3, 64, 64),)),
            "basicunet": lambda: (nets.BasicUNet(3, 1, 2, features=(8, 8, 16, 32, 64, 8)), vol),
            "segresnet": lambda: (nets.SegResNet(3, init_filters=8, in_channels=1,
                                                 out_channels=2), vol),
            "vnet": lambda: (nets.VNet(3, 1, 2), vol),
            "unetr": lambda: (nets.UNETR(1, 2, img_size=(32, 32, 32), feature_size=8,
                                         hidden_size=96, mlp_dim=192, num_heads=4), vol),
            "dynunet": lambda: (nets.DynUNet(3, 1, 2, kernel_size=[3, 3, 3, 3],
                                             strides=[1, 2, 2, 2],
                                             upsample_kernel_size=[2, 2, 2],
                                             filters=[8, 16, 32, 64]), vol),
            "densenet121_3d": lambda: (nets.DenseNet121(spatial_dims=3, in_channels=1,
                                                        out_channels=2), vol),
        }
        return made[name]()
    return make


# (name, the library to import, builder: () -> (model, batch -> inputs)), exported with
# torch.onnx.export both ways
EXPORTED = (
    ("diffusers_unet2d", "diffusers", _diffusers_unet),  # sample and timestep in
    # round 14: Stable Diffusion's UNet (text hidden states in) and VAE
    ("diffusers_unet2d_condition", "diffusers", _diffusers_cond_unet),
    ("diffusers_autoencoder_kl", "diffusers", _diffusers_vae),
    ("smp_unet_resnet18", "segmentation_models_pytorch", _smp("Unet", "resnet18")),
    ("smp_segformer_mit_b0", "segmentation_models_pytorch", _smp("Segformer", "mit_b0")),
    ("open_clip_vit_b32", "open_clip", _clip_visual),
    # round 16: more of segmentation_models_pytorch, open_clip's other towers, MONAI
    ("smp_pspnet_resnet34", "segmentation_models_pytorch", _smp("PSPNet", "resnet34")),
    ("smp_fpn_resnet34", "segmentation_models_pytorch", _smp("FPN", "resnet34")),
    ("smp_deeplabv3plus_resnet34", "segmentation_models_pytorch",
     _smp("DeepLabV3Plus", "resnet34")),
    ("smp_unet_efficientnet_b0", "segmentation_models_pytorch", _smp("Unet", "efficientnet-b0")),
    ("open_clip_rn50", "open_clip", _clip("RN50")),
    ("open_clip_convnext_tiny", "open_clip", _clip("convnext_tiny")),
    ("open_clip_vit_b32_text", "open_clip", _clip_text),
    ("monai_unet2d", "monai", _monai("unet2d")),
    ("monai_basicunet", "monai", _monai("basicunet")),
    ("monai_segresnet", "monai", _monai("segresnet")),
    ("monai_vnet", "monai", _monai("vnet")),
    ("monai_unetr", "monai", _monai("unetr")),
    ("monai_dynunet", "monai", _monai("dynunet")),
    ("monai_densenet121_3d", "monai", _monai("densenet121_3d")),
)


def exported_rows(cache: Path, only=None):
    for name, library, make in EXPORTED:
        if only and name not in only:
            continue
        try:
            __import__(library)
        except ImportError:
            print(f"({library} is not installed: {name} is skipped)")
            continue
        torch.manual_seed(0)
        with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
            warnings.simplefilter("ignore")
            model, inputs = make()
        one = inputs(1)
        names = [f"in{k}" for k in range(len(one))]
        for mode in ("dynamo_eval", "legacy_train"):
            path = cache / f"{name}.{mode}.onnx"
            failed = cache / f"{name}.{mode}.failed"
            if not path.exists() and not failed.exists():
                try:
                    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()), \
                            contextlib.redirect_stderr(io.StringIO()):
                        warnings.simplefilter("ignore")
                        if mode == "dynamo_eval":
                            torch.onnx.export(model.eval(), one, str(path))
                        else:
                            torch.onnx.export(model.train(), one, str(path), dynamo=False,
                                              do_constant_folding=False,
                                              training=torch.onnx.TrainingMode.TRAINING,
                                              input_names=names,
                                              dynamic_axes={n: {0: "b"} for n in names})
                except Exception as exc:  # noqa: BLE001 - the row says torch failed
                    failed.write_text(f"{type(exc).__name__}: {str(exc)[:80]}")
                    path.unlink(missing_ok=True)
            if failed.exists():
                print(f"| {name} | {mode} | - | - | - | - | - | - | export fails in torch: "
                      f"{failed.read_text()[:80]} |")
                continue
            yield name, mode, path, None, model.train(), inputs(BATCH)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", default="/work/cache-onnx-libraries")
    ap.add_argument("--only", default="", help="comma-separated row names (default: all)")
    args = ap.parse_args(argv)
    only = set(filter(None, args.only.split(",")))
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    print(f"torch {torch.__version__}; batch {BATCH}, fp32 train step")
    print("| network | export | import ms | params plan | params torch | saved plan MiB | "
          "saved torch MiB | error % | warnings |")
    print("|---|---|---|---|---|---|---|---|---|")
    misses = []
    for rows in ((() if only else yolo_rows(cache)), exported_rows(cache, only)):
        for name, mode, path, shape, model, inputs in rows:
            t0 = time.perf_counter()
            r = import_onnx(path, batch=BATCH, input_shape=shape)
            ms = (time.perf_counter() - t0) * 1e3
            params, saved = planner_figures(r.draft, BATCH)
            t_params, t_saved = saved_by_autograd(model, inputs)
            err = (saved / t_saved - 1) * 100
            said = "; ".join(w[:60] for w in r.warnings[:2]) or "-"
            if not r.report.complete:
                said = "incomplete; " + said
            print(f"| {name} | {mode} | {ms:.0f} | {params:,} | {t_params:,} | "
                  f"{saved / 2**20:.1f} | {t_saved / 2**20:.1f} | {err:+.2f} | {said} |")
            if params != t_params or abs(err) > oa.TOLERANCE_PCT:
                misses.append(f"{name}/{mode}")
    print(f"MISSES: {len(misses)}: {', '.join(misses)}" if misses else "all rows pass")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
