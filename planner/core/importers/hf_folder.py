"""Open a model without its weights from a Hugging Face model folder.

``import_model_folder(path)`` reads ``config.json`` (llama, mistral, qwen2, gemma, gpt2, bert,
vit model types) and, when present, the headers of the ``*.safetensors`` files: the 8-byte
little-endian header length and the JSON header after it (tensor names, dtypes and shapes),
bounded, never the tensor data. It returns a :class:`FolderImportResult`: the NetworkDraft
(built by planner.core.transformer), a Setup, and a :class:`FolderReport` that says which
fields were read, which were missing (and what was taken instead) or not understood, and
whether the parameter count matches the checkpoint's tensors exactly.

Nothing is downloaded. A folder that cannot be planned raises :class:`FolderImportError` naming
the file and the field.
"""

from __future__ import annotations

import json
import os
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planner import safeio
from planner.core.network import NetworkDraft, PlanFileError, Setup, analyze
from planner.core.transformer import ConfigError, TransformerConfig, build_draft
from planner.i18n import QT_TRANSLATE_NOOP, Msg, message_of
from planner.safeio import clean

MODEL_TYPES = ("llama", "mistral", "qwen2", "gemma", "gpt2", "bert", "vit")
MAX_CONFIG_BYTES = 4 * 1024 * 1024
MAX_HEADER_BYTES = 100 * 1024 * 1024  # safetensors' own limit on the header
MAX_SAFETENSORS_FILES = 4096
DEFAULT_SEQ_LEN = 2048
# Tensors a checkpoint may hold that are not parameters (buffers some versions saved).
BUFFER_SUFFIXES = ("rotary_emb.inv_freq", "position_ids", "attn.bias", "attn.masked_bias")
DTYPE_BYTES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1,
               "U8": 1, "BOOL": 1, "F8_E4M3": 1, "F8_E5M2": 1}


class FolderImportError(PlanFileError):
    """A model folder that cannot be planned; the message names the file and the field."""


@dataclass(frozen=True)
class FolderReport:
    model_type: str = ""
    fields_read: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()  # "field (took value)"
    not_understood: tuple[str, ...] = ()
    checkpoint_files: int = 0
    checkpoint_parameters: int | None = None  # from the safetensors headers
    checkpoint_buffers: int = 0
    plan_parameters: int = 0
    complete: bool = True

    def to_json(self) -> dict:
        return {"model_type": self.model_type, "fields_read": list(self.fields_read),
                "missing": list(self.missing), "not_understood": list(self.not_understood),
                "checkpoint_files": self.checkpoint_files,
                "checkpoint_parameters": self.checkpoint_parameters,
                "checkpoint_buffers": self.checkpoint_buffers,
                "plan_parameters": self.plan_parameters, "complete": self.complete}


@dataclass(frozen=True)
class FolderImportResult:
    draft: NetworkDraft
    setup: Setup
    config: TransformerConfig
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    report: FolderReport = field(default_factory=FolderReport)

    @property
    def incomplete(self) -> bool:
        return not self.report.complete


def _fail(where: str, msg: str, **kw) -> FolderImportError:
    return FolderImportError(Msg(QT_TRANSLATE_NOOP("core", "{where}: {problem}"), where=where,
                                 problem=Msg(msg, **kw)))


class _Fields:
    """Reads config.json's fields, remembering what was read, missing or defaulted."""

    def __init__(self, data: dict[str, Any], where: str):
        self.data = data
        self.where = where
        self.read: list[str] = []
        self.missing: list[str] = []

    def need(self, *names: str) -> int:
        for name in names:
            if name in self.data and self.data[name] is not None:
                return self._int(name)
        raise _fail(self.where, QT_TRANSLATE_NOOP("core", "the field '{name}' is missing"),
                    name=names[0])

    def get(self, name: str, default: Any) -> Any:
        if name in self.data and self.data[name] is not None:
            self.read.append(name)
            v = self.data[name]
            if isinstance(default, bool):
                if not isinstance(v, bool):
                    raise _fail(self.where, QT_TRANSLATE_NOOP(
                        "core", "the field '{name}' must be true or false, not {value}"),
                        name=name, value=clean(repr(v), max_len=40))
                return v
            if isinstance(default, int):
                return self._int(name)
            return v
        self.missing.append(f"{name} ({default})")
        return default

    def _int(self, name: str) -> int:
        v = self.data[name]
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= 1 << 32:
            raise _fail(self.where, QT_TRANSLATE_NOOP(
                "core", "the field '{name}' must be a whole number, not {value}"),
                name=name, value=clean(repr(v), max_len=40))
        if name not in self.read:
            self.read.append(name)
        return v


def _config(f: _Fields, model_type: str, seq_len: int | None) -> tuple[TransformerConfig, list]:
    notes: list[str] = []
    if model_type in ("llama", "mistral", "qwen2", "gemma"):
        hidden = f.need("hidden_size")
        heads = f.need("num_attention_heads")
        max_pos = f.get("max_position_embeddings", 2048)
        act = str(f.data.get("hidden_activation") or f.get(
            "hidden_act", "silu" if model_type != "gemma" else "gelu_pytorch_tanh"))
        gate = "silu" if act == "silu" else "gelu" if act.startswith("gelu") else None
        if gate is None:
            raise _fail(f.where, QT_TRANSLATE_NOOP(
                "core", "the field 'hidden_act' = {value} is not understood"),
                value=clean(act, max_len=40))
        tied = f.get("tie_word_embeddings", model_type == "gemma")
        cfg = TransformerConfig(
            family="decoder", layers=f.need("num_hidden_layers"), hidden=hidden, heads=heads,
            kv_heads=f.get("num_key_value_heads", heads), head_dim=f.get("head_dim", 0),
            intermediate=f.need("intermediate_size"), vocab=f.need("vocab_size"),
            max_positions=max_pos, seq_len=seq_len or min(max_pos, DEFAULT_SEQ_LEN),
            gate_act=gate, tied=bool(tied),
            qkv_bias=bool(f.get("attention_bias", model_type == "qwen2")),
            mlp_bias=bool(f.get("mlp_bias", False)), kv_cache=bool(f.get("use_cache", True)))
        if cfg.kv_heads == cfg.heads:
            cfg = TransformerConfig(**{**cfg.to_json(), "image": cfg.image, "kv_heads": 0})
        return cfg, notes
    if model_type == "gpt2":
        hidden = f.need("n_embd", "hidden_size")
        max_pos = f.get("n_positions", 1024)
        inner = f.get("n_inner", 4 * hidden) or 4 * hidden
        act = str(f.get("activation_function", "gelu_new"))
        mlp = "gelu_new" if act == "gelu_new" else "gelu"
        if act not in ("gelu_new", "gelu", "gelu_pytorch_tanh"):
            raise _fail(f.where, QT_TRANSLATE_NOOP(
                "core", "the field 'activation_function' = {value} is not understood"),
                value=clean(act, max_len=40))
        return TransformerConfig(
            family="gpt2", layers=f.need("n_layer", "num_hidden_layers"), hidden=hidden,
            heads=f.need("n_head", "num_attention_heads"), intermediate=inner,
            vocab=f.need("vocab_size"), max_positions=max_pos,
            seq_len=seq_len or max_pos, mlp=mlp, norm="layernorm", positions="learned",
            tied=bool(f.get("tie_word_embeddings", True)),
            attention_dropout=float(f.get("attn_pdrop", 0.1)),
            dropout=float(f.get("resid_pdrop", 0.1)),
            kv_cache=bool(f.get("use_cache", True))), notes
    if model_type == "bert":
        max_pos = f.get("max_position_embeddings", 512)
        archs = f.data.get("architectures") or []
        if archs and not any("MaskedLM" in str(a) or "PreTraining" in str(a) for a in archs):
            notes.append(f"planned with the masked-LM head; the folder's architecture is "
                         f"{clean(str(archs[0]), max_len=60)}")
        return TransformerConfig(
            family="bert", layers=f.need("num_hidden_layers"), hidden=f.need("hidden_size"),
            heads=f.need("num_attention_heads"), intermediate=f.need("intermediate_size"),
            vocab=f.need("vocab_size"), max_positions=max_pos,
            seq_len=seq_len or min(max_pos, 512), mlp="gelu", norm="layernorm",
            positions="learned", tied=bool(f.get("tie_word_embeddings", True)),
            token_types=f.get("type_vocab_size", 2),
            attention_dropout=float(f.get("attention_probs_dropout_prob", 0.1)),
            dropout=float(f.get("hidden_dropout_prob", 0.1))), notes
    # vit
    image = f.get("image_size", 224)
    labels = len(f.data.get("id2label") or {}) or f.get("num_labels", 2)
    return TransformerConfig(
        family="vit", layers=f.need("num_hidden_layers"), hidden=f.need("hidden_size"),
        heads=f.need("num_attention_heads"), intermediate=f.need("intermediate_size"),
        vocab=1, seq_len=1, mlp="gelu", norm="layernorm", positions="learned",
        image=(f.get("num_channels", 3), image, image), patch=f.get("patch_size", 16),
        labels=labels, attention_dropout=float(f.get("attention_probs_dropout_prob", 0.0)),
        dropout=float(f.get("hidden_dropout_prob", 0.0))), notes


def read_safetensors_header(path: Path) -> dict[str, Any]:
    """The JSON header of one .safetensors file: 8 bytes of length, then that many bytes of
    JSON. Reads nothing of the tensor data."""
    where = clean(path.name, max_len=120)
    try:
        with open(path, "rb") as fh:
            head = fh.read(8)
            if len(head) != 8:
                raise _fail(where, QT_TRANSLATE_NOOP("core", "shorter than a safetensors header"))
            (length,) = struct.unpack("<Q", head)
            if not 2 <= length <= MAX_HEADER_BYTES:
                raise _fail(where, QT_TRANSLATE_NOOP(
                    "core", "header length {length} is not between 2 and {limit} bytes"),
                    length=length, limit=MAX_HEADER_BYTES)
            raw = fh.read(length)
    except OSError as exc:
        raise _fail(where, QT_TRANSLATE_NOOP("core", "cannot be read ({problem})"),
                    problem=exc.strerror or str(exc)) from None
    if len(raw) != length:
        raise _fail(where, QT_TRANSLATE_NOOP("core", "the header is cut short"))
    try:
        header = safeio.loads_json(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise _fail(where, QT_TRANSLATE_NOOP("core", "the header is not valid JSON ({problem})"),
                    problem=clean(str(exc), max_len=120)) from None
    if not isinstance(header, dict):
        raise _fail(where, QT_TRANSLATE_NOOP("core", "the header is not a JSON object"))
    return header


def _checkpoint(folder: Path) -> tuple[int, int, int, list[str]] | None:
    """(files, parameters, buffer elements, notes) from the safetensors headers, or None."""
    files = sorted(p for p in folder.glob("*.safetensors") if p.is_file())
    if not files:
        return None
    if len(files) > MAX_SAFETENSORS_FILES:
        raise _fail(clean(folder.name, max_len=120), QT_TRANSLATE_NOOP(
            "core", "more than {limit} safetensors files"), limit=MAX_SAFETENSORS_FILES)
    params = buffers = 0
    notes: list[str] = []
    seen: set[str] = set()
    for path in files:
        header = read_safetensors_header(path)
        for name, info in header.items():
            if name == "__metadata__" or name in seen:
                continue
            seen.add(name)
            where = f"{clean(path.name, max_len=80)}: {clean(name, max_len=80)}"
            shape = info.get("shape") if isinstance(info, dict) else None
            if not isinstance(shape, list) or not all(
                    isinstance(d, int) and not isinstance(d, bool) and 0 <= d < 1 << 40
                    for d in shape):
                raise _fail(where, QT_TRANSLATE_NOOP("core", "the tensor's shape is not valid"))
            n = 1
            for d in shape:
                n *= d
            if name.endswith(BUFFER_SUFFIXES):
                buffers += n
                continue
            dtype = info.get("dtype")
            if dtype in ("U8", "I8", "I32") and ("weight" in name or "qweight" in name):
                notes.append(f"{where}: packed {dtype} weights (a quantised checkpoint); "
                             "its element count is not a parameter count")
            params += n
    return len(files), params, buffers, notes


def import_model_folder(path: str | os.PathLike, *, seq_len: int | None = None,
                        batch: int | None = None) -> FolderImportResult:
    folder = Path(path)
    fname = clean(folder.name or str(folder), max_len=120)
    if not folder.is_dir():
        raise _fail(fname, QT_TRANSLATE_NOOP("core", "is not a folder"))
    cfg_path = folder / "config.json"
    if not cfg_path.is_file():
        raise _fail(fname, QT_TRANSLATE_NOOP("core", "has no config.json"))
    where = f"{fname}/config.json"
    try:
        data = safeio.loads_json(safeio.read_text(cfg_path, limit=MAX_CONFIG_BYTES))
    except json.JSONDecodeError as exc:
        raise _fail(where, QT_TRANSLATE_NOOP("core", "not valid JSON (line {lineno}: {msg})"),
                    lineno=exc.lineno, msg=exc.msg) from None
    except (OSError, ValueError) as exc:
        raise _fail(where, QT_TRANSLATE_NOOP("core", "cannot be read ({problem})"),
                    problem=message_of(exc)) from None
    if not isinstance(data, dict):
        raise _fail(where, QT_TRANSLATE_NOOP("core", "not a JSON object"))
    model_type = data.get("model_type")
    if model_type is None:
        raise _fail(where, QT_TRANSLATE_NOOP("core", "the field 'model_type' is missing"))
    if model_type not in MODEL_TYPES:
        raise _fail(where, QT_TRANSLATE_NOOP(
            "core", "model_type '{model_type}' is not one the planner knows ({known})"),
            model_type=clean(str(model_type), max_len=40), known=", ".join(MODEL_TYPES))
    f = _Fields(data, where)
    try:
        config, notes = _config(f, model_type, seq_len)
    except ConfigError as exc:
        raise _fail(where, QT_TRANSLATE_NOOP("core", "{problem}"),
                    problem=message_of(exc)) from None
    title = clean(str(data.get("_name_or_path") or folder.name), max_len=120) or model_type
    draft = build_draft(config, title, f"{model_type} from {fname}/config.json")
    analysis = analyze(draft)
    if not analysis.ok:
        raise _fail(where, QT_TRANSLATE_NOOP("core", "the plan built from it is not valid: "
                                                     "{problem}"),
                    problem=str(analysis.problems[0]))
    warnings: list[str] = []
    understood = {"quantization_config"}
    if "quantization_config" in data:
        warnings.append("config.json has a quantization_config: the folder's weights are "
                        "quantised; the plan trains them as its training mode says (use "
                        "--finetune qlora for 4-bit)")
    not_understood = sorted(k for k in ("rope_scaling", "sliding_window", "num_experts",
                                        "num_local_experts")
                            if data.get(k) and k not in understood)
    for k in not_understood:
        if k in ("num_experts", "num_local_experts"):
            warnings.append(f"config.json: '{k}' (mixture of experts) is not planned: the "
                            "plan has one dense MLP per layer")
        else:
            notes.append(f"config.json: '{k}' does not change memory at this context and is "
                         "not planned")
    ckpt = _checkpoint(folder)
    complete = not any("mixture" in w for w in warnings)
    files = 0
    ck_params = None
    buffers = 0
    if ckpt is not None:
        files, ck_params, buffers, ck_notes = ckpt
        warnings += ck_notes
        if ck_params != analysis.parameters:
            complete = False
            warnings.append(f"the safetensors headers hold {ck_params:,} parameters, the plan "
                            f"{analysis.parameters:,} (difference "
                            f"{analysis.parameters - ck_params:+,}): the figures are not exact")
        else:
            notes.append(f"parameters exact: {ck_params:,} in {files} safetensors file(s)")
    else:
        notes.append("no safetensors files: the parameter count comes from config.json alone")
    if f.missing:
        notes.append("config.json lacks " + ", ".join(f.missing) + " (the values in brackets "
                     "were taken)")
    report = FolderReport(model_type, tuple(f.read), tuple(f.missing), tuple(not_understood),
                          files, ck_params, buffers, analysis.parameters, complete)
    setup = Setup(batch_size=batch or 1, precision="bf16" if config.family == "decoder"
                  else "mixed_bf16", optimizer="adamw")
    return FolderImportResult(draft, setup, config, tuple(warnings), tuple(notes), report)
