"""The ONNX importer's warnings, notes and errors are translatable core messages (Msg): the
window shows them in Chinese."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "unit"))

from onnx import helper  # noqa: E402
from onnx_fixtures import build, const, save, tensor, weight  # noqa: E402

from planner.core.importers.onnx import OnnxImportError, import_onnx  # noqa: E402
from planner.i18n import Msg, message_of  # noqa: E402
from planner.ui import i18n  # noqa: E402
from test_i18n import zh_app  # noqa: E402, F401 - the zh_CN translator fixture


def _warned_import(tmp_path):
    """An unknown operator, a folded constant and a fixed batch: warnings and notes."""
    h = helper
    nodes = [h.make_node("MatMul", ["x", "blk.w.weight"], ["s"], name="/blk/MatMul"),
             h.make_node("Add", ["s", "onnx::Add_7"], ["b"], name="/blk/Add"),
             h.make_node("Hardmax", ["b"], ["y"], name="/blk/Hardmax")]
    inits = [weight("blk.w.weight", (16, 16)), const("onnx::Add_7", np.full((1, 4, 16), 0.1))]
    model = build(nodes, [tensor("x", [1, 4, 16])], [tensor("y", None)], inits)
    return import_onnx(save(model, tmp_path / "w.onnx"), batch=8)


def test_import_warnings_notes_and_errors_are_translated(zh_app, tmp_path):  # noqa: F811
    r = _warned_import(tmp_path)
    assert r.warnings and r.notes and r.incomplete
    for line in r.warnings + r.notes:
        assert isinstance(line, Msg), line
        zh = i18n.tr_msg(line)
        assert zh != str(line) and any("\u4e00" <= c <= "\u9fff" for c in zh), zh
    unknown = next(w for w in r.warnings if "does not understand" in w)
    assert "Hardmax" in i18n.tr_msg(unknown) and "不理解" in i18n.tr_msg(unknown)
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07garbage-that-is-not-protobuf" * 3)
    with pytest.raises(OnnxImportError) as err:
        import_onnx(bad)
    msg = message_of(err.value)
    assert isinstance(msg, Msg) and msg.startswith("bad.onnx: ")
    assert "不是 ONNX 文件" in i18n.tr_msg(msg) or "无法" in i18n.tr_msg(msg), i18n.tr_msg(msg)
    i18n.remove_translators(zh_app)
    assert i18n.tr_msg(unknown) == str(unknown)  # English again
