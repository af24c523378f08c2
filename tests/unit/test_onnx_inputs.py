"""ONNX files with several data inputs (onnx.helper graphs, no torch): an encoder-decoder's
input_ids + decoder_input_ids joined by cross-attention, a two-tower network's image + token ids
joined by a concat. Every input that feeds learned layers on its own is followed, with its own
per-sample shape and the same batch; masks stay as given. Measured against autograd with
transformers' T5, BART, Whisper and CLIP in benchmarks/onnx_accuracy.py."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from onnx import TensorProto, helper  # noqa: E402
from onnx_fixtures import build, const, import_saved, saved_per_sample, tensor, weight  # noqa: E402

from planner.core.importers.onnx import OnnxImportError  # noqa: E402
from planner.core.network import analyze  # noqa: E402

V, C, H = 50, 32, 4
D = C // H
INT = TensorProto.INT64


def _heads(src, out):
    return [helper.make_node("Reshape", [src, "heads"], [out + "_r"], name=f"/attn/view_{out}"),
            helper.make_node("Transpose", [out + "_r"], [out], name=f"/attn/transpose_{out}",
                             perm=[0, 2, 1, 3])]


def cross_attention_net():
    """input_ids → embedding → k, v; decoder_input_ids → the same embedding (a shared
    vocabulary) → q; attention of the decoder's q over the encoder's k and v (softmax of
    scaled scores plus both padding masks, as the legacy exporter writes it) → output
    projection. The masks are inputs too: attention_mask shares the encoder's length by name,
    decoder_attention_mask has a length of its own name."""
    h = helper
    sdpa = "/attn/scaled_dot_product_attention"
    nodes = [
        h.make_node("Gather", ["emb.weight", "input_ids"], ["e"], name="/embed/Gather"),
        h.make_node("Gather", ["emb.weight", "decoder_input_ids"], ["d"],
                    name="/decoder/embed/Gather"),
        h.make_node("MatMul", ["d", "wq.weight"], ["q"], name="/q/MatMul"),
        h.make_node("MatMul", ["e", "wk.weight"], ["k"], name="/k/MatMul"),
        h.make_node("MatMul", ["e", "wv.weight"], ["v"], name="/v/MatMul"),
    ]
    for p in ("q", "k", "v"):
        nodes += _heads(p, p + "4")
    nodes += [
        # masks: (1 - m) * -10000, broadcast over heads and the other axis
        h.make_node("Cast", ["attention_mask"], ["mf"], name="/mask/Cast", to=TensorProto.FLOAT),
        h.make_node("Sub", ["one", "mf"], ["mi"], name="/mask/Sub"),
        h.make_node("Mul", ["mi", "big"], ["mb"], name="/mask/Mul"),
        h.make_node("Unsqueeze", ["mb", "axes12"], ["m4"], name="/mask/Unsqueeze"),
        h.make_node("Cast", ["decoder_attention_mask"], ["df"], name="/dmask/Cast",
                    to=TensorProto.FLOAT),
        h.make_node("Sub", ["one", "df"], ["di"], name="/dmask/Sub"),
        h.make_node("Mul", ["di", "big"], ["db"], name="/dmask/Mul"),
        h.make_node("Unsqueeze", ["db", "axes13"], ["d4"], name="/dmask/Unsqueeze"),
        h.make_node("Transpose", ["k4"], ["kt"], name=f"{sdpa}/Transpose", perm=[0, 1, 3, 2]),
        h.make_node("Mul", ["q4", "s"], ["qs"], name=f"{sdpa}/Mul"),
        h.make_node("Mul", ["kt", "s"], ["kts"], name=f"{sdpa}/Mul_1"),
        h.make_node("MatMul", ["qs", "kts"], ["sc"], name=f"{sdpa}/MatMul"),
        h.make_node("Add", ["sc", "m4"], ["scm"], name=f"{sdpa}/Add"),
        h.make_node("Add", ["scm", "d4"], ["scd"], name=f"{sdpa}/Add_1"),
        h.make_node("Softmax", ["scd"], ["p"], name=f"{sdpa}/Softmax", axis=-1),
        h.make_node("MatMul", ["p", "v4"], ["o4"], name=f"{sdpa}/MatMul_1"),
        h.make_node("Transpose", ["o4"], ["o4t"], name="/attn/Transpose_o", perm=[0, 2, 1, 3]),
        h.make_node("Reshape", ["o4t", "merge"], ["o"], name="/attn/Reshape_o"),
        h.make_node("MatMul", ["o", "wo.weight"], ["y"], name="/o/MatMul"),
    ]
    inits = [weight("emb.weight", (V, C))] + [weight(f"w{p}.weight", (C, C)) for p in "qkvo"]
    inits += [const("s", D ** -0.25), const("one", 1.0), const("big", -10000.0),
              const("heads", [0, -1, H, D], np.int64), const("merge", [0, -1, C], np.int64),
              const("axes12", [1, 2], np.int64), const("axes13", [1, 3], np.int64)]
    inputs = [tensor("input_ids", ["batch", "enc_len"], INT),
              tensor("attention_mask", ["batch", "enc_len"], INT),
              tensor("decoder_input_ids", ["batch", "dec_len"], INT),
              tensor("decoder_attention_mask", ["batch", "dec_mask_len"], INT)]
    return build(nodes, inputs, [tensor("y", None)], inits, opset=17)


def test_an_encoder_decoder_file_plans_both_inputs_and_their_cross_attention(tmp_path):
    te, td = 96, 32
    r = import_saved(tmp_path, cross_attention_net(), batch=4,
                     input_shape={"input_ids": (te,), "decoder_input_ids": (td,)})
    layers = r.draft.layers
    assert [(x.kind, tuple(x.params["shape"])) for x in layers
            if x.kind in ("input", "data_input")] == [("input", (te,)), ("data_input", (td,))]
    assert r.report.complete and analyze(r.draft).ok, r.warnings
    assert analyze(r.draft).output_shape == (td, C)
    att = [x for x in layers if x.kind == "attention"]
    assert len(att) == 1, [x.kind for x in layers]
    # The shared vocabulary counted once, as the file stores it.
    assert r.report.plan_parameters == V * C + 4 * C * C == r.report.file_weights
    # The masks stay as given, each at the length of the input it goes with.
    assert any("'attention_mask', 'decoder_attention_mask'" in n for n in r.notes), r.notes
    # Kept for backward, per sample: both inputs' token ids (the embeddings keep them), both
    # embeddings' outputs (the projections read them), q, k, v, the attention's output (read
    # by the output projection too) and a logsumexp per head and query row; the encoder's k
    # and v once, though made from one storage that two projections read.
    want = te + td + te * C + td * C + td * C + 2 * te * C + td * C + H * td
    assert saved_per_sample(r) == want
    # The decoder's length alone changes what the decoder side keeps.
    r2 = import_saved(tmp_path, cross_attention_net(), "m2.onnx", batch=4,
                      input_shape={"input_ids": (te,), "decoder_input_ids": (2 * td,)})
    assert r2.report.complete
    assert saved_per_sample(r2) - want == td + 3 * td * C + H * td


def test_one_shape_still_means_the_primary_input(tmp_path):
    r = import_saved(tmp_path, cross_attention_net(), batch=2, input_shape=(64,))
    shapes = {x.name: tuple(x.params["shape"]) for x in r.draft.layers
              if x.kind in ("input", "data_input")}
    assert shapes["input"] == (64,)
    assert list(shapes.values())[1] == (128,)  # the decoder's length: open, the default
    assert any("decoder_input_ids" in n and "128 tokens" in n for n in r.notes), r.notes
    assert r.report.complete


def test_a_wrong_or_unknown_input_shape_names_the_input(tmp_path):
    with pytest.raises(OnnxImportError) as info:
        import_saved(tmp_path, cross_attention_net(), batch=2,
                     input_shape={"decoder_ids": (16,)})
    assert "'decoder_ids'" in str(info.value) and "'decoder_input_ids'" in str(info.value)
    with pytest.raises(OnnxImportError) as info:
        import_saved(tmp_path, cross_attention_net(), "b.onnx", batch=2,
                     input_shape={"decoder_input_ids": (16, 4)})
    assert "'decoder_input_ids'" in str(info.value)


def two_tower_net():
    """An image (conv → global pool) and token ids (embedding → mean over tokens), each
    projected, concatenated, then a head: CLIP-like towers, joined where the graph joins."""
    h = helper
    nodes = [
        h.make_node("Conv", ["pixel_values", "conv.weight"], ["c"], name="/vision/conv/Conv",
                    kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        h.make_node("Relu", ["c"], ["cr"], name="/vision/act/Relu"),
        h.make_node("GlobalAveragePool", ["cr"], ["g"], name="/vision/pool/GlobalAveragePool"),
        h.make_node("Flatten", ["g"], ["gf"], name="/vision/Flatten"),
        h.make_node("Gemm", ["gf", "img_proj.weight"], ["a"], name="/img_proj/Gemm", transB=1),
        h.make_node("Gather", ["tok.weight", "input_ids"], ["t"], name="/text/embed/Gather"),
        h.make_node("ReduceMean", ["t", "ax1"], ["tm"], name="/text/ReduceMean", keepdims=0),
        h.make_node("Gemm", ["tm", "txt_proj.weight"], ["b"], name="/txt_proj/Gemm", transB=1),
        h.make_node("Concat", ["a", "b"], ["ab"], name="/Concat", axis=1),
        h.make_node("Gemm", ["ab", "head.weight"], ["y"], name="/head/Gemm", transB=1),
    ]
    inits = [weight("conv.weight", (8, 3, 3, 3)), weight("img_proj.weight", (16, 8)),
             weight("tok.weight", (V, C)), weight("txt_proj.weight", (16, C)),
             weight("head.weight", (10, 32)), const("ax1", [1], np.int64)]
    inputs = [tensor("input_ids", ["batch", "seq"], INT),
              tensor("pixel_values", ["batch", 3, 16, 16])]
    return build(nodes, inputs, [tensor("y", None)], inits, opset=18)


def test_a_two_tower_file_follows_both_towers(tmp_path):
    r = import_saved(tmp_path, two_tower_net(), batch=2,
                     input_shape={"input_ids": (40,), "pixel_values": (3, 24, 24)})
    shapes = [(x.kind, tuple(x.params["shape"])) for x in r.draft.layers
              if x.kind in ("input", "data_input")]
    # the image first (a float input), the token ids its own input
    assert shapes == [("input", (3, 24, 24)), ("data_input", (40,))]
    assert r.report.complete and analyze(r.draft).ok, r.warnings
    assert r.report.plan_parameters == r.report.file_weights == \
        8 * 27 + 16 * 8 + V * C + 16 * C + 10 * 32
    kinds = [x.kind for x in r.draft.layers]
    assert "embedding" in kinds and "concat" in kinds
    # Per sample: the image (the conv keeps it), the ReLU's output (ReLU keeps it; the global
    # pool keeps nothing), the pooled vector (its Gemm), the token ids (the embedding; the
    # mean over tokens keeps nothing), the mean (its Gemm), the concat (the head).
    want = 3 * 24 * 24 + 8 * 24 * 24 + 8 + 40 + C + 32
    assert saved_per_sample(r) == want
    r2 = import_saved(tmp_path, two_tower_net(), "t2.onnx", batch=2,
                      input_shape={"input_ids": (80,), "pixel_values": (3, 24, 24)})
    assert saved_per_sample(r2) - want == 40


def test_a_mask_input_alone_reaches_no_learned_layer_and_stays_as_given(tmp_path):
    r = import_saved(tmp_path, cross_attention_net(), batch=2,
                     input_shape={"input_ids": (16,), "decoder_input_ids": (8,)})
    names = [x.name for x in r.draft.layers if x.kind in ("input", "data_input")]
    assert len(names) == 2 and not any("mask" in n for n in names)


def test_cli_takes_one_input_shape_per_input_and_json_carries_each(tmp_path, capsys):
    import json  # noqa: PLC0415

    from onnx_fixtures import save  # noqa: PLC0415

    from planner.cli import run  # noqa: PLC0415

    p = save(cross_attention_net(), tmp_path / "encdec.onnx")
    code = run(["estimate", str(p), "--batch", "4", "--json", "--input", "input_ids=96",
                "--input", "decoder_input_ids=32"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    assert [(i["name"], i["shape"]) for i in data["import"]["inputs"]] == [
        ("input_ids", [96]), ("decoder_input_ids", [32])]
    assert data["import"]["inputs_as_given"] == ["attention_mask", "decoder_attention_mask"]
    assert not data["incomplete"]
    # the same plan as the library's
    lib = import_saved(tmp_path, cross_attention_net(), "lib.onnx", batch=4,
                       input_shape={"input_ids": (96,), "decoder_input_ids": (32,)})
    assert data["parameters"] == lib.report.plan_parameters
    # a shape alone is the primary input's; a name twice, or a name the file lacks, is an error
    code = run(["estimate", str(p), "--json", "--input", "96"])
    out, err = capsys.readouterr()
    assert code == 0 and json.loads(out)["import"]["inputs"][0]["shape"] == [96]
    code = run(["estimate", str(p), "--json", "--input", "input_ids=96", "--input",
                "input_ids=64"])
    out, err = capsys.readouterr()
    assert code == 2 and "twice" in err and "'input_ids'" in err
    code = run(["estimate", str(p), "--json", "--input", "decoder=32"])
    out, err = capsys.readouterr()
    assert code == 2 and "'decoder'" in err and "'decoder_input_ids'" in err


def test_shapes_the_files_constants_contradict_are_planned_at_the_files_own_and_said(tmp_path):
    """An export without dynamic axes folds its position table at the example's length: asked
    for another length, the layers do not fit together; the plan takes the file's, and says so."""
    h = helper
    nodes = [h.make_node("Gather", ["emb.weight", "ids"], ["e"], name="/embed/Gather"),
             h.make_node("Add", ["e", "onnx::Add_7"], ["ep"], name="/embed/Add"),
             h.make_node("MatMul", ["ep", "w.weight"], ["y"], name="/fc/MatMul")]
    inits = [weight("emb.weight", (V, C)), weight("w.weight", (C, C)),
             const("onnx::Add_7", np.full((1, 8, C), 0.5))]
    model = build(nodes, [tensor("ids", [1, 8], INT)], [tensor("y", None)], inits)
    r = import_saved(tmp_path, model, batch=2, input_shape=(16,))
    assert r.incomplete
    said = [w for w in r.warnings if "'ids'" in w and "at 16" in w and "planned at 8" in w]
    assert said, r.warnings
    assert r.draft.layers[0].params["shape"] == (8,)
    assert analyze(r.draft).ok


def test_position_ids_for_rotary_tables_stay_as_given(tmp_path):
    """input_ids + position_ids (an LLM file with both): the rotary table's inverse frequencies
    (a vector, not a weight matrix) times the positions reach no learned layer alone, so the
    positions are as given and only the token ids are followed."""
    h = helper
    half = D // 2
    nodes = [
        h.make_node("Gather", ["emb.weight", "input_ids"], ["e"], name="/embed/Gather"),
        h.make_node("MatMul", ["e", "wq.weight"], ["q"], name="/q/MatMul"),
        h.make_node("Cast", ["position_ids"], ["pf"], name="/rot/Cast", to=TensorProto.FLOAT),
        h.make_node("Unsqueeze", ["pf", "ax1"], ["p3"], name="/rot/Unsqueeze"),
        h.make_node("Unsqueeze", ["inv_freq", "ax01"], ["f3"], name="/rot/Unsqueeze_1"),
        h.make_node("MatMul", ["f3", "p3"], ["fr"], name="/rot/MatMul"),
        h.make_node("Transpose", ["fr"], ["frt"], name="/rot/Transpose", perm=[0, 2, 1]),
        h.make_node("Concat", ["frt", "frt"], ["emb8"], name="/rot/Concat", axis=-1),
        h.make_node("Cos", ["emb8"], ["cos"], name="/rot/Cos"),
        h.make_node("Tile", ["cos", "reps"], ["cosC"], name="/rot/Tile"),
        h.make_node("Mul", ["q", "cosC"], ["y"], name="/rot/Mul"),
    ]
    inits = [weight("emb.weight", (V, C)), weight("wq.weight", (C, C)),
             weight("inv_freq", (half,)), const("ax1", [1], np.int64),
             const("ax01", [0, 2], np.int64), const("reps", [1, 1, H], np.int64)]
    inputs = [tensor("input_ids", ["batch", "seq"], INT),
              tensor("position_ids", ["batch", "seq"], INT)]
    model = build(nodes, inputs, [tensor("y", None)], inits, opset=17)
    r = import_saved(tmp_path, model, batch=2, input_shape=(16,))
    assert [x.kind for x in r.draft.layers].count("data_input") == 0
    assert r.report.inputs_as_given == ("position_ids",)
    assert r.report.inputs[0][0] == "input_ids"


def test_an_open_image_size_of_a_second_input_is_an_error_naming_it(tmp_path):
    model = two_tower_net()
    dims = model.graph.input[1].type.tensor_type.shape.dim
    dims[2].Clear()
    dims[2].dim_param = "height"
    with pytest.raises(OnnxImportError) as info:
        import_saved(tmp_path, model, batch=2)
    assert "'pixel_values'" in str(info.value) and "--input pixel_values=SHAPE" in str(info.value)
