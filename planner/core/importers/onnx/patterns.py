"""The patterns folded into one layer before the nodes are mapped (``prepass``): x·sigmoid(x)
as SiLU; MatMul + bias as a linear layer; Pad folded into the next convolution or pooling; GELU
written with ``Erf`` or ``Tanh``; layer norm and RMSNorm written with ``ReduceMean``; batch
norms the exporter folded into convolutions (put back); scaled-dot-product attention decomposed
into MatMul → Softmax → MatMul (one fused layer)."""

from __future__ import annotations

import re

from planner.core.importers.onnx import tf_export
from planner.core.importers.onnx.common import flat
from planner.core.layers import numel

# --------------------------------------------------------------------------------------------
# Patterns
# --------------------------------------------------------------------------------------------

_REGION_OPS = {"Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "Reciprocal", "Erf", "Erfc", "Tanh",
               "ReduceMean", "Cast", "Neg"}
_REGION_LIMIT = 14


def only_consumer(imp, tensor: str) -> int | None:
    users = imp.consumers.get(tensor, [])
    return users[0] if len(users) == 1 else None


def _pads_of(imp, node) -> list[int] | None:
    mode = imp.attr(node, "mode", b"constant")
    if mode not in (b"constant", "constant"):
        return None
    pads = imp.attr(node, "pads")
    if pads is None and len(node.input) > 1:
        pads = imp.const(node.input[1])
    if len(node.input) > 2 and node.input[2]:
        value = imp.const(node.input[2])
        if value is None or any(float(v) != 0.0 for v in flat(value)):
            return None
    if pads is None or (len(node.input) > 3 and node.input[3]):
        return None
    pads = [int(v) for v in flat(pads)]
    rank = len(pads) // 2
    if rank < 3 or any(p < 0 for p in pads):
        return None
    begins, ends = pads[:rank], pads[rank:]
    if any(begins[:2]) or any(ends[:2]):
        return None
    return begins[2:] + ends[2:]


def _dropped_bias(node) -> bool:
    """The default exporter removed this node's bias because it was all zeros (untrained)."""
    meta = {p.key: p.value for p in node.metadata_props}
    rule = meta.get("pkg.onnxscript.rewriter.rule_name", "")
    if "RemoveOptionalBias" not in rule or "FuseBatchNorm" in rule:
        return False
    # The rule is listed on every convolution; the PyTorch call says whether it had a bias.
    fx = meta.get("pkg.torch.onnx.fx_node", "")
    m = re.search(r"target=torch\.ops\.aten\.(\w+)[^(]*\(args = \((.*)", fx)
    if not m:
        return False
    args = [a.strip() for a in m.group(2).split(",")]
    k = 0 if m.group(1) == "addmm" else 2
    return len(args) > k and args[k].startswith("%")


def restore_bias(imp, node, units: int, dropped: bool | None = None) -> bool:
    """Count a bias the exporter dropped as zero (``dropped``: known to be, else read from
    the node's record): the plan has it, and the weight accounting expects it."""
    if dropped or dropped is None and _dropped_bias(node):
        imp.restored_bias += 1
        imp.restored_bn_params += units
        return True
    return False


def _folded_bn(imp, node) -> str | None:
    """The batch norm the exporter folded into this convolution (its module name), or None."""
    for p in node.metadata_props:
        if p.key == "pkg.onnxscript.rewriter.rule_name" and "FuseBatchNorm" in p.value:
            scope = imp.module_scope(node)
            return scope or "bn"
    return None


def _ultralytics_bn(imp, node) -> str | None:
    """The batch norm Ultralytics' exporter fused into this convolution: its Conv module is
    ``conv`` (a convolution without bias) then ``bn``, and ``fuse()`` gives the convolution
    the norm's shift as a bias ('model.2.cv1.conv.bias'; onnxslim, which Ultralytics runs
    after exporting, merges equal biases, so the bias may carry another Conv module's name).
    Plain convolutions (a detection head's last 1×1, the DFL's fixed one, without bias) are
    not Conv modules' and keep other names."""
    if not getattr(imp, "ultralytics", False) or len(node.input) < 3:
        return None
    w, b = node.input[1], node.input[2]
    if not (w.endswith(".conv.weight") and b.endswith(".conv.bias")):
        return None
    return w[:-len(".conv.weight")] + ".bn"


def _gated(imp, gate_nodes: tuple[int, ...], x: str, gate: str, function: str) -> None:
    """``x · gate(x)``, where the gate's only reader is that product (SiLU, Hardswish, Mish as
    exporters write them out): one activation ``function`` at the product, keeping x; the
    gate's nodes are skipped."""
    u = only_consumer(imp, gate)
    if u is None:
        return
    mul = imp.nodes[u]
    if mul.op_type == "Mul" and set(mul.input) == {x, gate}:
        imp.skip.update(gate_nodes)
        imp.fused[u] = {"silu": x} if function == "silu" else {"silu": x, "function": function}


def _softplus_threshold(imp, k: int) -> bool:
    """``where(x > threshold, x, softplus(x))``: PyTorch's Softplus (beta 1, its threshold of
    20) as the default exporter writes it. Fused into one softplus at the Where (which reads
    x; the comparison and the ONNX Softplus are skipped). True where it was."""
    nodes = imp.nodes
    node = nodes[k]
    x = node.input[0]
    u = only_consumer(imp, node.output[0])
    if u is None or nodes[u].op_type != "Where" or len(nodes[u].input) != 3:
        return False
    where = nodes[u]
    if list(where.input[1:]) != [x, node.output[0]]:
        return False
    g = imp.producer.get(where.input[0])
    if g is None or nodes[g].op_type != "Greater" or nodes[g].input[0] != x or \
            nodes[g].input[1] in imp.acts or only_consumer(imp, nodes[g].output[0]) != u:
        return False
    imp.skip.update((k, g))
    imp.fused[u] = {"activation": "softplus", "root": x}
    return True


def prepass(imp) -> None:
    nodes = imp.nodes
    named = any("." in name and not name.startswith("onnx::") for name in imp.init_dims)
    for k, node in enumerate(nodes):
        op = node.op_type
        if op == "Sigmoid" and node.output:
            _gated(imp, (k,), node.input[0], node.output[0], "silu")
        elif op == "Softplus" and node.output and node.input:
            # the default exporter's softplus with its threshold: one softplus; else
            # x · tanh(softplus(x)), Mish as the legacy exporter writes it below opset 18 (no
            # Mish op): one mish keeping x, not three layers keeping x, the tanh and a product
            t = only_consumer(imp, node.output[0])
            if not _softplus_threshold(imp, k) and t is not None and \
                    nodes[t].op_type == "Tanh" and nodes[t].output:
                _gated(imp, (k, t), node.input[0], nodes[t].output[0], "mish")
        elif op == "HardSigmoid" and node.output and \
                abs(float(imp.attr(node, "alpha", 0.2)) - 1 / 6) < 1e-4 and \
                abs(float(imp.attr(node, "beta", 0.5)) - 0.5) < 1e-6:
            # x · hardsigmoid(x): hardswish as the legacy exporter writes it below opset 14
            # (no HardSwish op): one hardswish keeping x, not a product keeping both
            _gated(imp, (k,), node.input[0], node.output[0], "hardswish")
        elif op in ("MatMul", "Gemm") and len(node.input) >= 2 and imp.is_weight(node.input[1]) \
                and len(imp.dims_of(node.input[1]) or ()) == 2 and node.output:
            w = imp.dims_of(node.input[1])
            trans = op == "Gemm" and int(imp.attr(node, "transB", 0))
            units = w[0] if trans else w[1]
            if op == "Gemm" and len(node.input) > 2 and node.input[2]:
                continue
            u = only_consumer(imp, node.output[0])
            if u is not None and nodes[u].op_type == "Add":
                other = [i for i in nodes[u].input if i != node.output[0]]
                if len(other) == 1 and imp.is_weight(other[0]) and \
                        numel(imp.dims_of(other[0]) or ()) == units:
                    imp.fused[k] = {"bias": other[0]}
                    imp.fused[u] = {"alias": True}
        elif op == "Pad" and node.output:
            u = only_consumer(imp, node.output[0])
            pads = _pads_of(imp, node)
            # (not into a convolution: an explicit pad before one is PyTorch's F.pad, a
            # 'same' padding of an even kernel or timm's and EfficientNet-PyTorch's TF-'same'
            # convolutions, and the convolution keeps the padded tensor, not its input)
            if u is not None and pads is not None and nodes[u].op_type in (
                    "MaxPool", "AveragePool") and nodes[u].input[0] == node.output[0]:
                imp.skip.add(k)
                imp.fused.setdefault(u, {})["extra_pads"] = pads
        elif op == "Conv":
            bn = _folded_bn(imp, node)
            # The legacy exporter's constant folding names a convolution's weight and bias
            # 'onnx::Conv_N' where it folded a batch norm into them; other weights keep their
            # module path. Where every parameter was folded (Hugging Face's ResNet: nothing
            # but convolution + norm pairs) no name has a path: its own node names tell it.
            legacy = named or (node.name.startswith("/") and len(node.input) > 2 and
                               node.input[2].startswith("onnx::"))
            # (an Identity where the exporter merged equal folded weights: a zero-initialised
            # last norm of a residual block makes its convolution's weight all zeros)
            if bn is None and legacy and len(node.input) > 1 and \
                    node.input[1].startswith("onnx::") and \
                    (imp.origin(node.input[1]) or "") in imp.init_dims:
                bn = imp.module_scope(node)
                bn = (bn.rsplit(".", 1)[0] + ".bn" if "." in bn else f"{bn}.bn") if bn \
                    else "bn"
            if bn is None:
                bn = tf_export.folded_bn(imp, node)
            if bn is None:
                bn = _ultralytics_bn(imp, node)
            if bn is not None:
                imp.fused.setdefault(k, {})["restore_bn"] = bn
        elif op == "ConvTranspose":
            bn = _folded_bn(imp, node) or tf_export.folded_bn(imp, node)
            if bn is not None:
                imp.fused.setdefault(k, {})["restore_bn"] = bn
        elif op == "Mul" and imp.tensorflow:
            tf_export.prepass(imp, k, node)
    for k, node in enumerate(nodes):
        if node.op_type in ("Erf", "Erfc", "Tanh", "ReduceMean") and k not in imp.skip:
            _try_region(imp, k)
        elif node.op_type == "GlobalAveragePool" and imp.tensorflow and k not in imp.skip \
                and len(imp.full_shape(node.input[0]) or ()) == 3:
            # tf2onnx writes a mean over the last axis of N×T×C as a GlobalAveragePool of
            # the 3-D tensor (Keras's LayerNormalization: tf.nn.moments)
            _try_region(imp, k)
    for k, node in enumerate(nodes):
        if node.op_type == "Softmax" and k not in imp.skip:
            _try_attention(imp, k)


def _region(imp, x: str):
    """The element-wise/reduction nodes computed from ``x`` and constants only."""
    outs = {x}
    region: list[int] = []
    members: set[int] = set()
    frontier = list(imp.consumers.get(x, []))
    while frontier:
        k = frontier.pop()
        if k in members:
            continue
        node = imp.nodes[k]
        if node.op_type not in _REGION_OPS and not (
                node.op_type == "GlobalAveragePool" and imp.tensorflow) or k in imp.skip or \
                imp.fused.get(k):
            continue
        if not all(not i or i in outs or i not in imp.acts for i in node.input):
            continue
        members.add(k)
        region.append(k)
        if len(region) > _REGION_LIMIT:
            return None
        for o in node.output:
            if o:
                outs.add(o)
                frontier.extend(imp.consumers.get(o, []))
    return members, outs


def _try_region(imp, anchor: int) -> None:
    # Candidate roots: walk back from the anchor through single-activation element-wise nodes.
    roots: list[str] = []
    frontier = [anchor]
    for _ in range(6):
        nxt = []
        for k in frontier:
            for i in imp.nodes[k].input:
                if i in imp.acts and i not in roots:
                    roots.append(i)
                    p = imp.producer.get(i)
                    if p is not None and imp.nodes[p].op_type in _REGION_OPS and \
                            not imp.fused.get(p):
                        nxt.append(p)
        frontier = nxt
        if not frontier or len(roots) > 12:
            break
    for x in roots:
        got = _region(imp, x)
        if got is None:
            continue
        members, outs = got
        if anchor not in members:
            continue
        readers = [k for k in members if x in imp.nodes[k].input]
        if len(readers) < 2:
            continue
        exits = [o for o in outs if o != x and (
            any(u not in members for u in imp.consumers.get(o, [])) or
            not imp.consumers.get(o))]
        if len(exits) != 1:
            continue
        exit_t = exits[0]
        if imp.full_shape(exit_t) != imp.full_shape(x):
            continue
        ops = [imp.nodes[k].op_type for k in members]
        kind = None
        targets = {_aten_target(imp.nodes[k]) for k in members} - {None}
        if "Erfc" in ops and "Mul" in ops and imp.tensorflow:
            # TensorFlow's exact GELU (tf.nn.gelu, Keras's 'gelu': 0.5 * x * erfc(-x / sqrt
            # 2)), one activation as PyTorch's nn.GELU keeps it
            kind = "gelu"
        elif "Erf" in ops and "Mul" in ops or "Tanh" in ops and ops.count("Mul") >= 3:
            # One GELU where PyTorch ran one (aten.gelu, which the default exporter records);
            # a GELU written out in Python (GPT-2's gelu_new, ESM's x * 0.5 * (1 + erf(x /
            # sqrt 2))) keeps every step, so it stays op by op. Without the record, the Erf
            # form is taken for nn.GELU where it is the exporters' decomposition of aten.gelu
            # (_exporter_erf_gelu), and the Tanh form, rarer as a module, op by op.
            if "Tanh" in ops and _custom_function_gelu(imp, members):
                kind = "gelu"
                imp.custom_gelu += 1
            elif targets:
                kind = "gelu" if targets == {"gelu"} else None
            elif "Erf" in ops:
                kind = "gelu" if _exporter_erf_gelu(imp, members, outs, x) else None
                if kind is None:
                    _written_tanh_gelu(imp, members, outs, x, exit_t, imp.written_erf_gelu)
            if kind is None and "Tanh" in ops:
                _written_tanh_gelu(imp, members, outs, x, exit_t)
        elif ("ReduceMean" in ops or "GlobalAveragePool" in ops) and \
                _reduces_last_axis(imp, members, x):
            centred = any(imp.nodes[k].op_type == "Sub" and x in imp.nodes[k].input
                          for k in members)
            kind = "layernorm" if centred else "rmsnorm"
        if kind is None:
            continue
        exit_node = imp.producer[exit_t]
        weights = [i for k in members for i in imp.nodes[k].input
                   if i and i not in imp.acts and imp.is_weight(i)]
        for k in members:
            if k != exit_node:
                imp.skip.add(k)
        imp.fused[exit_node] = {"region": kind, "root": x, "weights": tuple(weights),
                                "nodes": len(members),
                                # torch.nn.RMSNorm's kernel, or the norm written out in Python
                                # (Hugging Face's Llama, T5...), which keeps x·rsqrt too
                                "written_out": kind == "rmsnorm" and targets != {"rms_norm"}
                                # (Keras's LayerNormalization is the framework's norm)
                                or kind == "layernorm" and not imp.tensorflow
                                and _python_layernorm(imp, targets)}
        return


# GELU modules whose training form is a custom autograd function that keeps only its input,
# and whose inference form (what any export shows: exporters inline the function's forward)
# is the tanh formula written out: transformers' BloomGelu (GeLUFunction in training,
# bloom_gelu_forward otherwise). By class (the default exporter's record) or by the module's
# attribute name (the legacy exporter's node names).
_CUSTOM_FUNCTION_GELU = {"BloomGelu": "gelu_impl"}


def _custom_function_gelu(imp, members) -> bool:
    node = imp.nodes[min(members)]
    classes = _record_classes(node)
    if classes is not None:
        return any(c in _CUSTOM_FUNCTION_GELU for c in classes)
    scope = imp.module_scope(node)
    return bool(scope) and scope.rsplit(".", 1)[-1] in _CUSTOM_FUNCTION_GELU.values()


def _written_tanh_gelu(imp, members, outs, x: str, exit_t: str, into=None) -> None:
    """A tanh GELU left op by op (as PyTorch runs one written in Python: GPT-2's gelu_new):
    the per-sample elements its steps keep beyond what one fused GELU keeps (its input), which
    F.gelu(approximate='tanh'), or a custom autograd function with this inference form,
    BLOOM's, would keep instead. The file cannot tell the two apart; the import says the
    figure. ``into``: where to note it (an Erf GELU written out: ``written_erf_gelu``)."""
    kept: set[str] = set()
    for k in members:
        node = imp.nodes[k]
        acts = [i for i in node.input if i in outs]
        if node.op_type in ("Mul", "Div") and len(acts) == 2:
            kept.update(acts)
        elif node.op_type == "Pow" and acts:
            kept.add(acts[0])
        elif node.op_type in ("Tanh", "Sqrt", "Reciprocal") and node.output:
            kept.add(node.output[0])
        elif node.op_type == "Erf" and acts:
            kept.add(acts[0])
    # (the fused GELU keeps x; Python's Erf form keeps x / sqrt 2, x * 0.5 and 1 + erf, not x)
    n = len(kept - {x}) if into is None else max(len(kept) - 1, 0)
    extra = n * numel(imp.per_sample(x) or ())
    if extra:
        (imp.written_gelu if into is None else into)[exit_t] = extra


def _exporter_erf_gelu(imp, members, outs, x: str) -> bool:
    """An Erf GELU as the exporters write aten.gelu (nn.GELU, F.gelu) in a file without the
    default exporter's record: from opset 20 both write one Gelu operator, so an Erf form
    there is Python code; before 20, dynamo=False writes (x * (erf(x / sqrt 2) + 1)) * 0.5 and
    the default exporter x * (0.5 * (erf(x / sqrt 2) + 1)): x is read by the Div and by a
    product with the computed factor. Python's usual x * 0.5 * (1 + erf(x / sqrt 2)) (ESM,
    BERT's gelu_python) multiplies x by a constant first: op by op, as autograd runs it."""
    if imp.opset >= 20:
        return False
    readers = [imp.nodes[k] for k in members if x in imp.nodes[k].input]
    if sorted(n.op_type for n in readers) != ["Div", "Mul"]:
        return False
    mul = next(n for n in readers if n.op_type == "Mul")
    return all(i in outs for i in mul.input if i)


def _python_layernorm(imp, targets: set) -> bool:
    """A layer norm written out in Python, not torch.nn.LayerNorm: the default exporter's
    record shows the steps, not aten.layer_norm; without a record, a file of opset 17 or
    later (both exporters write nn.LayerNorm as one LayerNormalization there; before 17 the
    legacy exporter wrote it out too, and the file cannot tell)."""
    if targets:
        return not targets & {"layer_norm", "native_layer_norm"}
    return imp.opset >= 17


def _aten_target(node) -> str | None:
    """The PyTorch op the default exporter recorded for a node ('gelu', 'mul'), or None."""
    for p in node.metadata_props:
        if p.key == "pkg.torch.onnx.fx_node":
            m = re.search(r"target=torch\.ops\.aten\.(\w+)", p.value)
            return m.group(1) if m else None
    return None


def _reduces_last_axis(imp, members, x) -> bool:
    rank = len(imp.full_shape(x) or ())
    for k in members:
        node = imp.nodes[k]
        if node.op_type == "GlobalAveragePool":  # of N×T×C: over the last axis only
            if len(imp.full_shape(node.input[0]) or ()) != 3:
                return False
            continue
        if node.op_type != "ReduceMean":
            continue
        axes = imp.attr(node, "axes")
        if axes is None and len(node.input) > 1 and node.input[1]:
            v = imp.const(node.input[1])
            axes = None if v is None else list(flat(v))
        if axes is None or [int(a) % rank for a in axes] != [rank - 1]:
            return False
    return rank > 0


def _try_attention(imp, k_soft: int) -> None:
    """MatMul(q, kᵀ) → [scale, mask] → Softmax → MatMul(·, v): PyTorch's scaled_dot_product_
    attention as both exporters write it. Fused (one layer keeping q, k, v, the output and a
    logsumexp) where the file says it came from scaled_dot_product_attention or scales q and k
    alike (SDPA's own export); otherwise it stays an explicit softmax attention."""
    nodes = imp.nodes
    soft = nodes[k_soft]
    u = only_consumer(imp, soft.output[0])
    chain = []
    guard = _nan_guard(imp, soft.output[0])
    if guard is not None:  # the default exporter's softmax → IsNaN → Where(·, 0, softmax)
        chain.extend(guard)
        u = only_consumer(imp, nodes[guard[-1]].output[0])
    while u is not None and nodes[u].op_type in ("Dropout", "Cast") and len(chain) < 4:
        chain.append(u)
        u = only_consumer(imp, nodes[u].output[0])
    if u is None or nodes[u].op_type != "MatMul":
        return
    pv = nodes[u]
    probs = nodes[chain[-1]].output[0] if chain else soft.output[0]
    if pv.input[0] != probs or pv.input[1] not in imp.acts:
        return
    # Back from the softmax through scaling and masking to the score MatMul.
    skipped = [k_soft] + chain
    t = soft.input[0]
    qk = None
    for _ in range(4):
        p = imp.producer.get(t)
        if p is None:
            return
        n = nodes[p]
        if n.op_type == "MatMul":
            qk = p
            break
        if n.op_type not in ("Mul", "Div", "Add", "Where", "Cast") or \
                only_consumer(imp, n.output[0]) is None:
            return
        acts = [i for i in n.input if i in imp.acts]
        if len(acts) != 1:
            return
        skipped.append(p)
        t = acts[0]
    if qk is None or only_consumer(imp, nodes[qk].output[0]) is None:
        return
    q, kt = nodes[qk].input[0], nodes[qk].input[1]
    if q not in imp.acts or kt not in imp.acts:
        return
    evidence = any("scaled_dot_product_attention" in (nodes[j].name or "") or any(
        "scaled_dot_product_attention" in p.value for p in nodes[j].metadata_props
        if p.key == "pkg.torch.onnx.fx_node") for j in (u, k_soft, qk))

    def unscaled(tensor):
        p = imp.producer.get(tensor)
        if p is not None and nodes[p].op_type == "Mul" and \
                only_consumer(imp, tensor) is not None:
            acts = [i for i in nodes[p].input if i in imp.acts]
            consts = [i for i in nodes[p].input if i not in imp.acts]
            if len(acts) == 1 and len(consts) == 1:
                return acts[0], p, consts[0]
        return tensor, None, None

    q0, pq, cq = unscaled(q)
    k0, pk, ck = unscaled(kt)
    alike = pq is not None and pk is not None and (cq == ck or _same_value(imp, cq, ck))
    if not (evidence or alike):
        return
    rank = len(imp.full_shape(q) or ())
    if rank > 4:
        # PyTorch's fused kernels (flash, memory-efficient; CPU and CUDA) take 4-D q, k, v
        # only: on more dimensions (NesT's and Hiera's windows × heads) scaled_dot_product_
        # attention runs its math kernel, which keeps the scaled q and k, the softmax and v,
        # as the explicit ops of the file are planned.
        imp.math_attention += 1
        return
    for j in skipped + [qk]:
        imp.skip.add(j)
    bias = _score_bias(imp, qk, skipped)
    mask = _converted_mask(imp, qk, skipped) if bias is None else None
    if pq is not None and pk is not None:
        imp.skip.update((pq, pk))
        q, kt = q0, k0
    imp.fused[u] = {"attention": (_batched_view(imp, q), _batched_view(imp, kt),
                                  _batched_view(imp, pv.input[1])),
                    "copied": elided_copies(imp, (u, k_soft, qk)), "bias": bias,
                    "mask": mask}


def _score_bias(imp, qk: int, skipped: list[int]) -> str | None:
    """Count a fused attention whose scores get a T×T bias of each head added (a relative-
    position bias, ALiBi; not a mask shared by the heads, causal or padding): PyTorch runs it
    with the memory-efficient kernel on CUDA (as planned), the math kernel elsewhere, which
    also keeps the T×T softmax. ``imp.biased_scores`` sums the per-sample scores of those blocks.
    Returns the bias (a tensor computed without activations), or None."""
    scores = imp.nodes[qk].output[0]
    full, per = imp.full_shape(scores), imp.per_sample(scores)
    if full is None or per is None or len(full) < 2 or full[-2] < 2:
        return None
    for j in skipped:
        n = imp.nodes[j]
        if n.op_type != "Add":
            continue
        for b in n.input:
            s = imp.full_shape(b) if b not in imp.acts else None
            if s is not None and len(s) >= 3 and s[-3] > 1 and \
                    tuple(s[-2:]) == tuple(full[-2:]):
                imp.biased_attention += 1
                imp.biased_scores += numel(per)
                return b
    return None


def _converted_mask(imp, qk: int, skipped: list[int]) -> tuple[int, ...] | None:
    """A boolean mask that scaled_dot_product_attention turns into a float one at every call
    (``convert_boolean_attn_mask``; both exporters write it as Where(mask, 0, -inf) inside
    the call): the memory-efficient kernel CUDA runs for a masked attention keeps that fresh
    float tensor for backward, one per call (Falcon: B×1×T×T per layer; the default exporter's
    optimiser may merge the calls' identical Where into one, PyTorch still makes one each).
    Returns its per-sample shape where its first axis is the batch, else None (a mask shared
    by the samples is small; a float mask passed in is kept by reference, nothing new)."""
    nodes = imp.nodes
    full = imp.full_shape(nodes[qk].output[0])
    if full is None or len(full) < 3:
        return None
    for j in skipped:
        if nodes[j].op_type != "Add":
            continue
        for b in nodes[j].input:
            p = imp.producer.get(b)
            if b in imp.acts or p is None or nodes[p].op_type != "Where" or \
                    not _inside_sdpa(nodes[p], nodes[qk]):
                continue
            s = imp.full_shape(b)
            if s is None or len(s) < 3 or tuple(s[-2:]) != tuple(full[-2:]) or s[-3] != 1:
                continue
            if s[0] != imp.batch_infer:
                return None
            shape_only = not _reads_input_values(imp, b)
            if shape_only and _materialised_mask(nodes[p]):
                # a model that always passes its causal mask (transformers' Falcon: "always
                # materialize the mask", allow_is_causal_skip=False), by the default
                # exporter's record of its classes: converted at every call, kept
                imp.materialised_masks += 1
                return tuple(s[1:])
            if shape_only and _window_mask(imp, b, int(s[-1])):
                # built from the sequence length alone, but a band of positions (|i - j| <=
                # w: ModernBERT's local attention, a sliding window): no causal kernel does
                # it, so training passes the mask and SDPA converts it at every call.
                imp.window_masks += 1
                return tuple(s[1:])
            if shape_only and _masks_nothing(imp, nodes[p].input[0]):
                # a constant mask that is true everywhere (an encoder's bidirectional mask
                # the exporter traced and folded: DINOv2's): transformers skips it in
                # training, and it masks nothing either way: nothing to plan or say
                return None
            if shape_only:
                # built from the sequence length alone (a causal mask): transformers' recent
                # models skip it in training and run the causal kernel, which keeps no mask;
                # others (Falcon) pass it. Not planned; said with its size.
                imp.shape_masks += 1
                imp.shape_mask_elements += numel(s[1:])
                return None
            return tuple(s[1:])
    return None


_COMPARISONS = {"Less", "LessOrEqual", "Greater", "GreaterOrEqual"}
MAX_MASK_READ = 1 << 22  # elements of a constant mask read to see whether it masks anything


def _masks_nothing(imp, cond: str) -> bool:
    """``cond`` (a Where's condition, through views and casts) is a boolean constant of the
    file that is true everywhere."""
    import numpy as np  # noqa: PLC0415

    t = cond
    for _ in range(6):
        p = imp.producer.get(t)
        if p is None or imp.nodes[p].op_type not in ("Expand", "Identity", "Cast", "Reshape",
                                                     "Unsqueeze", "Squeeze"):
            break
        t = imp.nodes[p].input[0]
    value = imp.const(t)
    if value is None:
        init = imp.square_consts.get(t)
        if init is None or int(init.data_type) != 9 or \
                not 0 < numel(tuple(int(d) for d in init.dims)) <= MAX_MASK_READ:
            return False
        if int(init.data_location) == 1:  # (a copy: the skimmed model keeps no mask data)
            init = _copied(init)
            imp._read_small_external(init, most=MAX_MASK_READ)
        if int(init.data_location) == 1 or not init.raw_data:
            return False
        try:
            value = imp.onnx.numpy_helper.to_array(init)
        except Exception:  # noqa: BLE001 - unreadable: not evidence
            return False
    try:
        arr = np.asarray(value)
        return arr.dtype == np.bool_ and arr.size > 0 and bool(arr.all())
    except (TypeError, ValueError):
        return False


def _copied(tensor):
    out = type(tensor)()
    out.CopyFrom(tensor)
    return out


def _record_classes(node) -> list[str] | None:
    """The classes the default exporter's record names for ``node`` (last part of each, the
    outermost first), or None where the file has no record."""
    for p in node.metadata_props:
        if p.key == "pkg.torch.onnx.class_hierarchy":
            return [c.rsplit(".", 1)[-1] for c in re.findall(r"'([\w.]+)'", p.value[:4000])]
    return None


# Models whose forward builds its causal mask with allow_is_causal_skip=False (transformers
# 5.24: FalconModel, to add ALiBi onto it), so training passes it to every attention call.
_MATERIALISED_MASK_MODELS = {"FalconModel"}


def _materialised_mask(node) -> bool:
    return any(c in _MATERIALISED_MASK_MODELS for c in _record_classes(node) or ())


def _window_mask(imp, tensor: str, length: int, limit: int = 400) -> bool:
    """``tensor`` (a mask made from shapes alone) is a band of positions that restricts a
    ``length``-token sequence: a distance (Abs) compared with a bound (ModernBERT's local
    attention), or a causal comparison plus a window shifted by a constant below the length
    (a sliding window: Mistral's, where its window is shorter than the sequence; a longer
    one is the causal mask, which transformers skips in training)."""
    import numpy as np  # noqa: PLC0415

    seen, todo, compared, shifts, distance = set(), [tensor], 0, [], False
    while todo and len(seen) < limit:
        t = todo.pop()
        if t in seen:
            continue
        seen.add(t)
        p = imp.producer.get(t)
        if p is None or imp.nodes[p].op_type == "Shape":
            continue
        node = imp.nodes[p]
        op = node.op_type
        distance |= op == "Abs"
        compared += op in _COMPARISONS
        if op in ("Sub", "Add") or op in _COMPARISONS:
            for i in node.input:
                v = imp.const(i) if i not in imp.acts else None
                try:
                    v = None if v is None else np.asarray(v).reshape(-1)
                    if v is not None and v.size == 1:
                        shifts.append(abs(int(v[0])))
                except (TypeError, ValueError, OverflowError):
                    pass
        todo.extend(i for i in node.input if i)
    if distance and compared:
        return True
    return compared >= 2 and any(0 < w < length for w in shifts)


def _reads_input_values(imp, tensor: str, limit: int = 400) -> bool:
    """Whether ``tensor`` is computed from the values of a graph input (a padding mask, the
    token ids), not only from shapes (Shape reads none of its input's values) and constants."""
    inputs = set(getattr(imp, "data_inputs", ())) | set(getattr(imp, "side_inputs", ()))
    seen, todo = set(), [tensor]
    while todo and len(seen) < limit:
        t = todo.pop()
        if t in seen:
            continue
        seen.add(t)
        if t in inputs:
            return True
        p = imp.producer.get(t)
        if p is None or imp.nodes[p].op_type == "Shape":
            continue
        todo.extend(i for i in imp.nodes[p].input if i)
    return False


_SDPA_SCOPE = re.compile(r"'scaled_dot_product_attention(?:_\d+)?'\s*\]?\s*$")


def _inside_sdpa(node, qk) -> bool:
    """``node`` belongs to the scaled_dot_product_attention call of the score product ``qk``:
    the default exporter's scope record names the call last; the legacy exporter names both
    nodes under one module path ('/m/h.0/self_attention/Where', '…/MatMul')."""
    for p in node.metadata_props:
        if p.key == "pkg.torch.onnx.name_scopes":
            # (a module's later calls are numbered: 'scaled_dot_product_attention_1')
            return _SDPA_SCOPE.search(p.value[-200:]) is not None
    a, _, _ = (node.name or "").rpartition("/")
    b, _, _ = (qk.name or "").rpartition("/")
    return bool(a) and a == b


# A copy PyTorch makes that the default exporter's optimiser may drop from the file (a one-input
# Concat or an Identity is removed, its consumers read the source): torch.cat (of one tensor and
# an empty key/value cache, Hugging Face's DynamicCache in training), clone / contiguous.
_COPY_FX = re.compile(r"(?:cat|clone|contiguous|_to_copy|copy)(?:_\d+)?")
_FX_ARGS = re.compile(r"args = \((.*?)\), kwargs")


# Of those, the ones whose result is a fresh contiguous tensor whatever the layout of their
# input: torch.cat, and .contiguous(), which torch.export records as aten.clone(memory_format=
# torch.contiguous_format) (Whisper's q; a plain clone of a transposed q would keep its
# strides, but nothing clones q before attention but to make it contiguous); _to_copy (a
# cast) keeps its input's strides.
_CONTIGUOUS_FX = re.compile(r"(?:cat|contiguous|clone)(?:_\d+)?")


def _sdpa_args(imp, members) -> list[str] | None:
    """The FX arguments of the scaled_dot_product_attention call that the default exporter
    recorded on one of ``members`` ('%sdpa = …scaled_dot_product_attention(args = (%q, %cat,
    %cat_1, …))'), or None."""
    for j in members:
        for p in imp.nodes[j].metadata_props:
            if p.key != "pkg.torch.onnx.fx_node" or \
                    "scaled_dot_product_attention" not in p.value:
                continue
            m = _FX_ARGS.search(p.value[:2000])
            if m is None:
                return None
            args = [a.strip() for a in m.group(1).split(",")]
            return args if len(args) >= 3 else None
    return None


def _elided(imp, arg: str, pattern=_COPY_FX) -> bool:
    """``arg`` names a copying op's result that has no tensor of that name in the file: a
    copy the optimiser removed."""
    name = arg[1:] if arg.startswith("%") else ""
    return bool(name) and pattern.fullmatch(name) is not None and \
        name not in imp.producer and name not in imp.init_dims and name != imp.input_name


def elided_copies(imp, members) -> tuple[bool, bool]:
    """(key copied, value copied) for a decomposed scaled_dot_product_attention: the default
    exporter records each node's FX node; an argument named for a copying op with no tensor
    of that name in the file is a copy the optimiser removed, and attention keeps the copy."""
    args = _sdpa_args(imp, members)
    if args is None:
        return False, False
    return _elided(imp, args[1]), _elided(imp, args[2])


def elided_input(imp, node: int) -> bool:
    """The first argument of the FX node that the default exporter recorded on ``node`` is a
    copy the optimiser removed (``torch.cat`` onto an empty key/value cache): the node read
    the copy, not the tensor the file now gives it."""
    for p in imp.nodes[node].metadata_props:
        if p.key != "pkg.torch.onnx.fx_node":
            continue
        m = _FX_ARGS.search(p.value[:2000])
        return m is not None and _elided(imp, m.group(1).split(",")[0].strip())
    return False


def elided_contiguous_query(imp, members) -> bool:
    """The query that scaled_dot_product_attention read was made afresh, contiguous in its
    heads-first order, by an op the optimiser removed from the file: Phi-3's
    torch.cat([q_rotated, q_pass]) with an empty q_pass (full rotary), which the default
    exporter drops as a no-op (the legacy exporter keeps the Concat); Whisper's, BART-style
    ``q.view(…).transpose(1, 2).contiguous()``."""
    args = _sdpa_args(imp, members)
    return args is not None and _elided(imp, args[0], _CONTIGUOUS_FX)


def _batched_view(imp, tensor: str) -> str:
    """``tensor``, or the tensor it is a reshape of where its own batch axis is lost (the
    default exporter writes kᵀ as reshape → transpose → reshape, merging batch and heads)."""
    if imp.batch_axis(tensor) is not None:
        return tensor
    full = imp.full_shape(tensor)
    t = tensor
    for _ in range(6):
        p = imp.producer.get(t)
        if p is None or imp.nodes[p].op_type not in ("Reshape", "Transpose", "Squeeze",
                                                     "Unsqueeze", "Identity"):
            break
        t = imp.nodes[p].input[0]
        shape = imp.full_shape(t)
        # the same elements in as many dimensions, with the batch axis known
        if imp.batch_axis(t) is not None and full is not None and shape is not None and \
                len(shape) == len(full) and numel(shape) == numel(full):
            return t
    return tensor


def _nan_guard(imp, probs: str) -> list[int] | None:
    """[IsNaN, Where] when ``probs`` feeds only ``Where(IsNaN(probs), c, probs)`` (the default
    exporter's decomposition of scaled_dot_product_attention zeroes fully masked rows so)."""
    users = imp.consumers.get(probs, [])
    if len(users) != 2:
        return None
    nodes = imp.nodes
    isnan = next((u for u in users if nodes[u].op_type == "IsNaN"), None)
    where = next((u for u in users if nodes[u].op_type == "Where"), None)
    if isnan is None or where is None:
        return None
    w = nodes[where]
    if len(w.input) != 3 or w.input[0] != nodes[isnan].output[0] or w.input[2] != probs or \
            w.input[1] in imp.acts or only_consumer(imp, nodes[isnan].output[0]) is None:
        return None
    return [isnan, where]


def _same_value(imp, a, b) -> bool:
    va, vb = imp.const(a), imp.const(b)
    try:
        return va is not None and vb is not None and flat(va) == flat(vb)
    except Exception:  # noqa: BLE001
        return False


