"""Every weight initializer attributed to a layer: origins, sharing, folded parameters and
buffers.

A part of the importer (``importer.Importer`` inherits it): its methods read and set the
importer's own state.
"""

from __future__ import annotations

import re
from collections import defaultdict

from planner.core.importers.onnx.common import FLOAT_TYPES, fx_call, percent, recalled
from planner.core.importers.onnx.twins import sinusoid_table
from planner.core.layers import numel
from planner.i18n import QT_TRANSLATE_NOOP, Msg

# Inputs that are never a parameter, whatever they are named: a Resize's region, scales and
# sizes (a float 'scales' initializer of a re-saved file was a weight of no layer: incomplete)
_NOT_PARAMETERS = {"Resize": frozenset({1, 2, 3}), "Upsample": frozenset({1})}


def _operands(node) -> list[str]:
    """The inputs of ``node`` a parameter may be among."""
    skip = _NOT_PARAMETERS.get(node.op_type)
    if not skip:
        return node.input
    return [i for k, i in enumerate(node.input) if k not in skip]


# Layer kinds whose weight is a product's operand (a whole weight folded at export is said apart
# from per-channel factors).
_PRODUCT_KINDS = frozenset({"conv1d", "conv2d", "conv3d", "conv_transpose2d", "conv_transpose3d",
                            "fc", "generic"})

# Names the default exporter gives a constant it computed (named after the op that made it):
# a weight standardised (``reshape_as`` after a batch norm over the weight: 'view_8'), scaled or
# normalised. A parameter only transposed or permuted ('transpose_10': a relative-position table
# for a product) holds all its values, and other names are no evidence.
_COMPUTED_WEIGHT = re.compile(r"(view|reshape|_unsafe_view|mul|div|add|sub|_weight_norm|"
                              r"weight_norm|getitem|rsqrt|sqrt|pow|where)(_\d+)?")

_BLOCK_INDEX = re.compile(r"\.\d+(?=\.|$)")  # a repeated block's index in a module path


class WeightAccounting:
    """Every weight initializer attributed to a layer: origins, sharing, folded parameters and
    buffers."""

    def _account(self, analysis) -> None:
        """Every node and every weight accounted for; what is not, said in plain words."""
        self._node_warnings()
        # Weights: every learned float initializer the network reads is a layer's parameter.
        claimed: dict[str, int] = defaultdict(int)
        for _layer, init in self.claims:
            claimed[init] += 1
        weights, seen = self._file_weights(claimed)
        unclaimed = [w for w in weights if w not in claimed]
        file_weights = sum(weights.values())
        parts = self.part_claims
        # (a packed weight claimed in parts: the parts' elements, besides any whole claims)
        whole = {w: c - parts.get(w, (0, 0))[1] for w, c in claimed.items()}
        claimed_total = sum(parts.get(w, (0, 0))[0] + self.weight_elements(w) * c
                            for w, c in whole.items()) - self.tied_weights
        reused = sum(self.shared_vectors.values())
        reused_weights = sum(self.shared_weights.values())
        shared = sum(numel(self.init_dims[w]) * (c - 1) + parts.get(w, (0, 0))[0] * (c > 0)
                     for w, c in whole.items()
                     if c > 1 or c > 0 and w in parts) - self.tied_weights - reused - \
            reused_weights
        self._derived_warnings(seen, claimed)
        self.file_weights = file_weights
        self.unclaimed = tuple(unclaimed)
        if unclaimed:
            self.incomplete = True
            n = sum(weights[w] for w in unclaimed)
            names = ", ".join(f"'{w}'" for w in unclaimed[:4])
            self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                "core", "{n} weight tensor(s) of the file ({values} values) belong to no layer "
                "of the plan: {names}."), n=len(unclaimed), values=f"{n:,}",
                names=names + (", ..." if len(unclaimed) > 4 else "")))
        self._unread_weights(seen, claimed, file_weights)
        self._unclaimed_scalars(seen, claimed)
        tables = sorted(t for t in self.__dict__.get("_sinusoid", {}).items() if t[1])
        if tables:
            self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                "core", "{n} position table(s) of the file ({names}: {values} values) hold sine "
                "and cosine waves: taken as fixed tables, as PyTorch code makes them (a buffer, "
                "or requires_grad=False as in RoFormer's and Marian's sinusoidal embeddings): "
                "not counted as parameters, and nothing is kept for their gradients."),
                n=len(tables), names=", ".join(f"'{t}'" for t, _ in tables[:3]),
                values=f"{sum(numel(self.init_dims[t]) for t, _ in tables):,}"))
        plan = analysis.parameters
        constant_parts = sum(self.constant_parts.values())
        expected = claimed_total + self.restored_bn_params + constant_parts
        if constant_parts:
            self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                "core", "{n} weight(s) are built by concatenating learned parameters with "
                "constants (Swin-V2's bias: q_bias, a zero k_bias buffer, v_bias): the plan "
                "counts the constant part as parameters, {values} more than the network has."),
                n=len(self.constant_parts), values=f"{constant_parts:,}"))
        if analysis.ok and plan != expected:
            self.incomplete = True
            template = QT_TRANSLATE_NOOP(
                "core", "The plan counts {plan} parameters but its layers read {read} weight "
                "values of the file: {diff} more.") if plan > expected else QT_TRANSLATE_NOOP(
                "core", "The plan counts {plan} parameters but its layers read {read} weight "
                "values of the file: {diff} fewer.")
            self.warnings.append(Msg(template, plan=f"{plan:,}", read=f"{expected:,}",
                                     diff=f"{abs(plan - expected):,}"))
        self._sharing_warnings(analysis, claimed, parts, shared, plan, reused,
                               reused_weights)

    def _unread_weights(self, seen: set[str], claimed, read: int) -> None:
        """The general guard: learned float initializers of the file that no planned node
        reads, directly or through constant arithmetic (weights of nodes left out of the
        plan, or of no node at all), said with their size against the weights the plan
        reads; beyond 0.5 % of those, the estimate is marked incomplete."""
        unread = {t: numel(d) for t, d in self.init_dims.items()
                  if t not in seen and t not in claimed and numel(d) > 1
                  and self.init_type.get(t) in FLOAT_TYPES and t not in self.buffers
                  and t not in self.quant_meta and self.is_learned(t)
                  and t not in self.__dict__.get("_not_parameters", ())}
        if not unread:
            return
        n = sum(unread.values())
        if n > 0.005 * max(1, read):
            self.incomplete = True
        names = sorted(unread, key=lambda t: -unread[t])
        self.warnings.append(Msg(QT_TRANSLATE_NOOP(
            "core", "{n} weight tensor(s) of the file ({values} values, {pct} % of the {read} "
            "the plan reads) are read by no node of the plan: {names}. If they are the "
            "network's parameters (of nodes left out, or of a module the traced call never "
            "ran), the plan lacks them."), n=len(unread), values=f"{n:,}",
            pct=percent(n, read), read=f"{read:,}",
            names=", ".join(f"'{t}'" for t in names[:4]) + (", ..." if len(names) > 4 else "")))

    def _unclaimed_scalars(self, seen: set[str], claimed) -> None:
        """One-element learned parameters (a PReLU's single slope, a learned temperature)
        that planned nodes read but no layer counts: the weight guards above skip one-element
        tensors (an exporter's own scalars are many), so these are said here by name, with
        the estimate marked incomplete (what their gradients keep may be missing too)."""
        scalars = sorted(t for t in seen if t in self.init_dims and t not in claimed
                         and numel(self.init_dims[t]) == 1 and self.scalar_parameter(t) == t)
        if not scalars:
            return
        self.incomplete = True
        self.warnings.append(Msg(QT_TRANSLATE_NOOP(
            "core", "{n} learned one-element parameter(s) of the file ({names}) are read by the "
            "plan's layers as constants: the plan does not count them, nor what their "
            "gradients keep for backward."), n=len(scalars),
            names=", ".join(f"'{t}'" for t in scalars[:4]) + (", ..." if len(scalars) > 4
                                                             else "")))

    def _node_warnings(self) -> None:
        """Nodes by status; operators not understood and nodes not planned, said."""
        counts: dict[str, int] = defaultdict(int)
        for k in range(len(self.nodes)):
            counts[self.status.get(k, "dropped")] += 1
        self.node_counts = dict(counts)
        if self.unknown_ops:
            self.incomplete = True
            parts = [f"{op} ×{len(where)}" if len(where) != 1 else op
                     for op, where in sorted(self.unknown_ops.items()) if where]
            if parts:
                self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                    "core", "Operators the planner does not understand, counted as keeping "
                    "their input for backward (a guess; shapes kept as in the file): {ops}."),
                    ops=", ".join(parts)))
        dropped = [self.nodes[k] for k in range(len(self.nodes))
                   if self.status.get(k, "dropped") == "dropped"]
        if dropped:
            self.incomplete = True
            first = ", ".join(f"{n.op_type} '{self.node_label(n)}'" for n in dropped[:3])
            self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                "core", "{n} of {total} nodes are not in the plan (their input could not be "
                "planned), first: {first}. The estimate covers only part of the network."),
                n=len(dropped), total=len(self.nodes), first=first))

    def _file_weights(self, claimed) -> tuple[dict[str, int], set[str]]:
        """The learned float initializers the planned nodes read (through constant
        subgraphs), with their elements, and every tensor the walk saw."""
        stack = [i for k, node in enumerate(self.nodes) if self.status.get(k) != "constant"
                 for i in _operands(node) if i and i not in self.acts]
        # (and what those inputs read is no weight read by no node: ``_unread_weights``)
        self._not_parameters = {i for node in self.nodes if node.op_type in _NOT_PARAMETERS
                                for k, i in enumerate(node.input)
                                if k in _NOT_PARAMETERS[node.op_type]}
        seen: set[str] = set()
        weights: dict[str, int] = {}
        while stack:
            t = stack.pop()
            if t in seen:
                continue
            seen.add(t)
            if t in self.init_dims:
                if self.init_type.get(t) in FLOAT_TYPES and \
                        (numel(self.init_dims[t]) > 1 or t in claimed) and \
                        (t not in self.buffers or t in claimed) and \
                        (t in claimed or self.is_learned(t)):
                    weights[t] = self.weight_elements(t)
                continue
            p = self.producer.get(t)
            if p is not None:
                stack.extend(i for i in _operands(self.nodes[p]) if i and i not in self.acts)
        return weights, seen

    def _derived_warnings(self, seen: set[str], claimed) -> None:
        """Constants the exporter computed from initializers (possibly from learned
        parameters) and constant-only learned layers' kept tensors, said with their figures."""
        derived = set(t for t in seen if t not in claimed and t in self.init_dims
                      and self.is_derived(t))
        folded = [t for t in claimed if self.is_derived(t)]
        # A convolution's or linear layer's whole weight computed at export (timm's
        # ScaledStdConv: standardize(weight) * gain, folded by the default exporter in eval
        # mode): counted as one weight of its shape; what it was computed from beyond that
        # (a gain per output channel) is not in the file.
        products = [t for t in folded if len(self.init_dims[t]) >= 2 and any(
            kind in _PRODUCT_KINDS for kind, _scope in self.claimants.get(t, ()))
            and _COMPUTED_WEIGHT.fullmatch(t)]
        self.folded_counted = len(folded) - len(products)
        if products:
            self.incomplete = True
            gains = sum(int(self.init_dims[t][0]) for t in products)
            self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                "core", "{n} convolution or linear weight(s) of the file ({names}) are constants "
                "the exporter computed from parameters (a standardised weight times its gain, "
                "as timm's ScaledStdConv; a weight norm): the plan counts each as one weight of "
                "its shape. The parameters they came from beyond that (a gain per output "
                "channel: up to {values}) are not in the file, nor what the standardisation "
                "keeps for backward. Export in training mode (model.train(), dynamo=False) to "
                "count them."), n=len(products), values=f"{gains:,}",
                names=", ".join(f"'{t}'" for t in sorted(products)[:3])
                + (", ..." if len(products) > 3 else "")))
        if self.dynamo_names:
            # The optimiser's own name for what it computed from initializers ('val_3': a
            # position-bias MLP's first product, weight times coordinate table), where no
            # layer claims it as a weight.
            derived.update(t for t in seen if t in self.init_dims and t not in claimed
                           and re.fullmatch(r"val_\d+", t)
                           and self.init_type.get(t) in FLOAT_TYPES
                           and numel(self.init_dims[t]) > 1)
        if self.named_parameters and not self.dynamo_names:
            # The legacy exporter's constant folding names what it computed from parameters
            # and buffers 'onnx::Op_N' (Swin's gathered relative-position bias).
            derived.update(t for t in seen if t in self.init_dims and t.startswith("onnx::")
                           and t not in claimed
                           and self.init_type.get(t) in FLOAT_TYPES
                           and numel(self.init_dims[t]) > 1)
        self._folded_buffers(claimed)
        derived = sorted(derived - self.weight_constants - self.quant_meta)
        self.derived_constants = len(derived)
        if derived:
            n = sum(numel(self.init_dims[t]) for t in derived)
            self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                "core", "{n} constant(s) of the file ({values} values: {names}) were computed "
                "when the file was exported (an expanded class token, a gathered position-bias "
                "table, a mask, rotary sines); the plan takes them as constants, so learned "
                "parameters they came from (if any) are not counted, nor what computing them "
                "keeps for those parameters' gradients (Swin-V2's position-bias MLP). Export "
                "with do_constant_folding=False (dynamo=False) to count them."),
                n=len(derived),
                values=f"{n:,}", names=", ".join(f"'{t}'" for t in derived[:3])
                + (", ..." if len(derived) > 3 else "")))
        kept = sum(self.__dict__.get("constant_kept", {}).values())
        masks = sum(self.__dict__.get("constant_masks", {}).values())
        self.constant_kept_bytes = kept * 4 + masks  # (fp32; weighed in import_onnx)
        if masks:
            self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                "core", "Learned layers compute a tensor from constants alone (a position-bias "
                "MLP over a table of relative coordinates, as in Swin-V2): their parameters are "
                "counted, but what they keep for backward is not planned: {values} values and "
                "{masks} one-byte dropout mask elements ({mib} MiB in fp32), the same at every "
                "batch."), values=f"{kept:,}", masks=f"{masks:,}",
                mib=f"{(kept * 4 + masks) / 2**20:.1f}"))
        elif kept:
            self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                "core", "Learned layers compute a tensor from constants alone (a position-bias "
                "MLP over a table of relative coordinates, as in Swin-V2): their parameters are "
                "counted, but what they keep for backward is not planned: {values} values "
                "({mib} MiB in fp32), the same at every batch."), values=f"{kept:,}",
                mib=f"{kept * 4 / 2**20:.1f}"))

    def _sharing_warnings(self, analysis, claimed, parts, shared: int, plan: int,
                          reused: int, reused_weights: int) -> None:
        """Weights read by several layers (merged equal tensors, ties, shared modules),
        said with what the plan counts for them."""
        dedup = sum(numel(self.init_dims[w]) * (claimed[w] - 1) for w in self.dedup_shared
                    if w not in parts)
        undecided = sum(numel(self.init_dims[w]) * (claimed[w] - 1)
                        for w in self.undecided_shared - self.dedup_shared - self.tied_shared
                        if w not in parts)
        if dedup:
            self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                "core", "{n} weight tensor(s) of the file are each read by layers of different "
                "modules and are equal tensors the exporter stored once (a constant fill, such "
                "as an untrained norm's 1s and 0s, or a copied module's values where the file's "
                "signature lists each copy's own parameter): counted once per layer, {values} "
                "parameters more than the file stores."), n=len(self.dedup_shared),
                values=f"{dedup:,}"))
        if undecided:
            self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                "core", "{n} weight tensor(s) of the file are each read by layers of different "
                "modules, and the file cannot tell equal tensors the exporter stored once "
                "(copied modules) from one weight the network ties: counted once per layer; "
                "if they are tied, the plan counts {values} parameters too many."),
                n=len(self.undecided_shared), values=f"{undecided:,}"))
        if self.tied_shared:
            n = sum(numel(self.init_dims[w]) for w in self.tied_shared)
            self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                "core", "{n} weight tensor(s) of the file ({values} values) are read by layers "
                "of different modules, are no constant fill, and the file's signature lists no "
                "parameter of their own for the later layers: one weight the network ties "
                "between modules, counted once for linear layers (norms and biases have no "
                "tied form: counted per use, said below)."), n=len(self.tied_shared),
                values=f"{n:,}"))
        rest = shared - dedup - undecided
        if rest > 0:
            self.notes.append(Msg(QT_TRANSLATE_NOOP(
                "core", "{n} parameters are counted once per layer although the file stores "
                "them once (the exporter merged identical weight tensors, as it does for "
                "untrained ones)."), n=f"{rest:,}"))
        self._twin_warnings(analysis)
        if self.tied_weights - self.shared_computed:
            self.notes.append(Msg(QT_TRANSLATE_NOOP(
                "core", "{n} weight values are read by more than one linear layer (one module "
                "called several times, or an output layer tied to the token embedding): "
                "counted once, with the gradients of every use added into one."),
                n=f"{self.tied_weights - self.shared_computed:,}"))
        if self.shared_computed:
            self.notes.append(Msg(QT_TRANSLATE_NOOP(
                "core", "{n} parameter values reach several layers through one tensor computed "
                "from them once (a relative-position bias every layer adds): counted once."),
                n=f"{self.shared_computed:,}"))
        if self.maybe_tied:
            n = sum(self.maybe_tied)
            self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                "core", "An output layer's weight ({n} values) has the shape of the token "
                "embedding's table, transposed, and the exporter's constant folding made it a "
                "constant of its own, so the file cannot say whether the two are one tied "
                "weight (GPT-2's and BERT's language-model heads, most Hugging Face language "
                "models): the plan counts them apart. If they are tied, it counts {n} "
                "parameters too many ({pct} of its parameters). Export with "
                "do_constant_folding=False, or with the default exporter, to tell."),
                n=f"{n:,}", pct=f"{percent(n, plan)} %"))
        if reused_weights:
            self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                "core", "{n} weight values that the network shares between layers (one module "
                "called several times, as CoaT's convolutional position encodings are) are "
                "counted once per use: the plan counts {n} parameters more than the network "
                "has ({pct} of them), and their gradients once per use."),
                n=f"{reused_weights:,}",
                pct=f"{percent(reused_weights, plan - reused_weights - reused)} %"))
        if reused:
            self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                "core", "{n} values of vectors (biases, norm scales) that the network shares "
                "between layers (one module called several times) are counted once per use: "
                "the plan counts {n} parameters more than the network has ({pct} of them)."),
                n=f"{reused:,}", pct=f"{percent(reused, plan - reused_weights - reused)} %"))

    def _twin_warnings(self, analysis) -> None:
        """Norms the exporter's optimiser merged with an identical twin (``twins``): planned
        again, or, where the file cannot tell which layers read them, missing; said either
        way with the figure."""
        planned = [t for t in self.twins if t["layers"]]
        if planned:
            names = {info.name: info.parameters for info in analysis.layers}
            values = sum(names.get(layer, 0) for t in planned for layer in t["layers"])
            self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                "core", "{n} norm(s) of the network ({first}) have no node in the file: the "
                "exporter's optimiser merged each with an identical norm of the same input "
                "(equal parameters, as in an untrained network). They are planned again, as "
                "training runs each: {values} parameters and what they keep."),
                n=len(planned), first=", ".join(t["module"] for t in planned[:2])
                + (", ..." if len(planned) > 2 else ""), values=f"{values:,}"))
        if self.fixed_filters:
            self.notes.append(Msg(QT_TRANSLATE_NOOP(
                "core", "{n} convolution(s) apply a fixed filter that is a buffer of their "
                "module, not a parameter (an anti-aliasing blur): planned without parameters, "
                "keeping their input."), n=self.fixed_filters))
        if self.twins_undecided:
            self.incomplete = True
            lost = self.twins_undecided
            self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                "core", "{n} norm module(s) of the network ({first}) have no node in the file "
                "(the exporter's optimiser merged each with an identical norm) and the file "
                "cannot tell which layers read them: the plan leaves them out, so it counts "
                "fewer parameters than the network has."), n=len(lost),
                first=", ".join(lost[:2]) + (", ..." if len(lost) > 2 else "")))

    def _folded_buffers(self, claimed: dict[str, int]) -> None:
        """A bias the default exporter folded out of a module's parameters and buffers (EVA's
        and BEiT's qkv bias: torch.cat of q_bias, the zero buffer k_bias and v_bias, one
        constant 'cat_1'), counted whole as the layer's parameter: the buffers' part is not
        learned, and the file does not say its size. Said, with the size if the parts are
        equal (the exported program's signature names the parts)."""
        sig = self.signature
        if not sig or not claimed:
            return
        # Per module: its own bias vectors, parameters and buffers, that are not initializers
        # of the file (a module's other folded tensors, Swin-V2's logit scale beside its
        # coordinate-table buffers, are not parts of one bias).
        parts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for k, kind in sig.items():
            if k not in self.init_dims and "." in k and "bias" in k.rsplit(".", 1)[1]:
                parts[k.rsplit(".", 1)[0]][kind == "BUFFER"] += 1
        values, modules = 0, set()
        for node in self.nodes:
            for t in node.input:
                if t not in claimed or t in sig or "." in t or re.fullmatch(r"val_\d+", t):
                    continue  # a parameter's own name, or the optimiser's (a transposed weight)
                scope = self.module_scope(node)
                params, bufs = parts.get(scope, (0, 0)) if scope else (0, 0)
                if bufs and params:
                    values += numel(self.init_dims[t]) * bufs // (bufs + params)
                    modules.add(scope)
        if modules:
            self.warnings.append(Msg(QT_TRANSLATE_NOOP(
                "core", "In {n} module(s) ({first}) the exporter folded parameters and buffers "
                "into one weight, which the plan counts whole as parameters; the buffers' part "
                "is not learned and the file does not give its size: the plan may count about "
                "{values} parameters too many (if the parts are equal)."), n=len(modules),
                first=", ".join(sorted(modules)[:2])
                + (", ..." if len(modules) > 2 else ""), values=f"{values:,}"))

    def _is_buffer(self, o: str) -> bool:
        """A module's buffer that only element-wise operators read (Swin's shifted-window
        attention mask added to the scores, EVA's rotary table), not a parameter: named a
        mask, or, in a file of the default exporter, one its record of the traced operations
        does not name as a parameter (it names each one it reads: '%p_blocks_0_gamma').
        Convolutions and norms are not judged by that record: a folded batch norm's replaces
        its convolution's."""
        cached = self._buffer_cache.get(o)
        if cached is not None:
            return cached
        readers, todo, seen = set(), [o], 0
        while todo and seen < 32:
            t = todo.pop()
            seen += 1
            for k in self.consumers.get(t, ()):
                node = self.nodes[k]
                readers.add(node.op_type)
                if node.op_type in ("Unsqueeze", "Reshape", "Squeeze", "Cast", "Expand",
                                    "Identity") and node.output and node.output[0] not in \
                        self.acts:
                    todo.extend(x for x in node.output[:1] if x)
        judged = bool(readers) and readers <= {"Add", "Sub", "Mul", "Where", "Unsqueeze",
                                               "Reshape", "Squeeze", "Cast", "Expand",
                                               "Identity", "Slice", "Split", "Concat", "Tile"}
        last = o.rsplit(".", 1)[-1]
        listed = self.__dict__.get("signature", {}).get(o)  # the exported program's own word
        # (a buffer the signature names is one whatever reads it: a blur's fixed filter)
        result = listed == "BUFFER" if listed else judged and "." in o and ((
            re.fullmatch(r"(\w*_)?masks?", last) is not None
            or self.dynamo and bool(self.fx_parameters)
            and o.replace(".", "_").lower() not in self.fx_parameters))
        self._buffer_cache[o] = result
        return result

    def parameter_reads(self, node, weights, origins, scope: str) -> list[tuple[bool, bool]]:
        """For each weight a layer reads: (read by the initializer's own name, a parameter
        name of the file, not a constant the legacy exporter folded; the default exporter's
        FX record of ``node`` names that initializer's parameter). The legacy exporter writes
        a tensor it merged with an identical one of another module as an ``Identity`` named
        after that module's parameter, the default exporter's record names the parameter the
        PyTorch call read: a parameter read under its own name by two layers is one used
        twice."""
        fx = None
        out = []
        for w, o in zip(weights, origins):
            if o is None:
                out.append((False, False))
                continue
            if fx is None:
                fx = set()
                for p in node.metadata_props:
                    if p.key == "pkg.torch.onnx.fx_node" and "%p_" in p.value:
                        fx.update(x.lower() for x in re.findall(r"%p_(\w+)", p.value[:4000]))
            # (and the module the name says the parameter is in is the one this node runs,
            # at the end of its scope: a tensor some other tool merged and rewired is not)
            module = o.rsplit(".", 1)[0] if "." in o else ""
            tail = ".".join(scope.split(".")[-len(module.split(".")):]) if module else ""
            direct = w == o and not o.startswith("onnx::") and not self.dynamo and \
                bool(module) and recalled(tail, module)
            out.append((direct, o.replace(".", "_").lower() in fx))
        return out

    def _shared_with(self, init: str, kind: str, scope: tuple[str, str],
                     read: tuple[bool, bool] = (False, False)) -> bool:
        """``init`` is a parameter this layer shares with one that claimed it before (not a
        tensor the exporter merged with an identical one of another module, as it does an
        untrained network's zero biases): the same module called again (ALBERT's one layer
        run N times), or a linear layer reading the token embedding's table (an LM head tied
        to it)."""
        before = self.claimants.get(init)
        if not before:
            return False
        if kind in ("fc", "embedding") and any(k == "embedding" for k, _s in before):
            return True  # an LM head, or a decoder's embedding, reading the encoder's table
        # One parameter read by name at every use, whatever the callers' scopes (CoaT's
        # convolutional position encodings, one module called by every block of a stage).
        earlier = self.reads_of.get(init, ())
        if read[0] and any(r[0] for r in earlier) or \
                read[1] and any(r[1] for r in earlier):
            return True
        raw = scope[1]
        if raw and (any(s[1] == raw for _k, s in before) if self.dynamo_names  # module paths
                    # The legacy exporter numbers a module's later calls ('query', then
                    # 'query_1'); two modules named 'conv_1' and 'conv_2' are not one.
                    else any(recalled(raw, s[1]) for _k, s in before)):
            return True
        # Layers of different modules: the exporter stores equal tensors once (an untrained
        # network's norm scales of 1, zero-initialised weights, the equal values of modules
        # copied with copy.deepcopy: nn.TransformerEncoder's layers), so a constant fill is one
        # parameter per layer. Other values: separate parameters where the exported program's
        # signature lists this layer's own ('layers.1.linear1.bias'), one weight the network
        # ties between modules where it does not; without a signature, not to be told.
        from planner.core.importers.onnx.twins import constant_fill  # noqa: PLC0415

        fill = constant_fill(self, init)
        if fill:
            self.dedup_shared.add(init)
            return False
        own = f"{raw}.{init.rsplit('.', 1)[-1]}" if raw and self.signature else ""
        if own and self.signature.get(own) == "PARAMETER":
            self.dedup_shared.add(init)
            return False
        if fill is None or not own:
            self.undecided_shared.add(init)
            return False
        self.tied_shared.add(init)
        return True

    def _transposed_table(self, init: str) -> bool:
        """``init`` (a constant the legacy exporter folded: 'onnx::MatMul_N') has the
        transposed shape of a token embedding's table the plan has: an output layer that may
        be tied to the embedding (its copy, folded), or a weight of its own of that shape."""
        dims = self.init_dims.get(init)
        if dims is None or len(dims) != 2:
            return False
        # (a set of the tables' shapes: a scan of every claimed weight per layer was
        # quadratic, 11 million steps for a 10,000-node legacy eval export)
        return (dims[1], dims[0]) in self.embedding_tables

    def _tied_by_record(self, node, init: str) -> bool:
        """A linear layer whose weight ``init`` is the default exporter's own transposed copy
        ('val_N') of a parameter its record reads ('%p_lm_head_decoder_weight') that a token
        embedding's table is (ESM's and BERT's language-model heads tied to the embedding:
        the file stores the table and the copy, training has one parameter)."""
        dims = self.init_dims.get(init)
        if dims is None or len(dims) != 2 or (dims[1], dims[0]) not in self.embedding_tables:
            return False
        fx: set[str] = set()
        for p in node.metadata_props:
            if p.key == "pkg.torch.onnx.fx_node" and "%p_" in p.value:
                fx.update(x.lower() for x in re.findall(r"%p_(\w+)", p.value[:4000]))
        if not fx or init.replace(".", "_").lower() in fx:
            return False
        by_fx = self._init_by_fx
        if by_fx is None:
            by_fx = self._init_by_fx = {o.replace(".", "_").lower(): o for o in self.init_dims}
        return any(self.init_dims.get(by_fx.get(x, "")) == (dims[1], dims[0]) and any(
            k == "embedding" for k, _s in self.claimants.get(by_fx[x], ())) for x in fx)

    def concat_parts(self, weight: str, origin: str) -> list[str]:
        """Where ``weight`` is a Concat (through renames and views) of learned initializers
        and constants (timm's Swin-V2: ``torch.cat((q_bias, k_bias, v_bias))`` with k_bias a
        zero buffer), the learned parts besides ``origin`` (claimed too: each is a
        parameter); the constant parts' elements go to ``constant_parts`` (the layer counts
        them as parameters). Empty otherwise."""
        p = self.producer.get(weight)
        for _ in range(4):
            if p is None or self.nodes[p].op_type not in (
                    "Identity", "Cast", "Reshape", "Unsqueeze", "Squeeze", "Flatten"):
                break
            p = self.producer.get(self.nodes[p].input[0])
        if p is None or self.nodes[p].op_type != "Concat":
            return []
        out, constant = [], 0
        for i in self.nodes[p].input:
            if not i or i in self.acts:
                return []
            o = self.origin(i)
            if o is not None and self.is_learned(i):
                if o != origin and o not in out:
                    out.append(o)
            else:
                constant += numel(self.dims_of(i) or ())
        if constant and out:
            self.constant_parts[self.nodes[p].output[0]] = constant
        return out

    def _part_of(self, weight: str, origin: str | None) -> int:
        """The elements of ``weight`` where it is a strict part of initializer ``origin``
        (Split or Slice of a packed weight: nn.MultiheadAttention's in_proj_weight split into
        q and k|v for cross-attention), else 0."""
        if not weight or origin is None or weight == origin or origin not in self.init_dims:
            return 0
        p = self.producer.get(weight)
        for _ in range(4):  # through the transpose of the part
            if p is None or self.nodes[p].op_type not in ("Transpose", "Identity", "Cast"):
                break
            p = self.producer.get(self.nodes[p].input[0])
        if p is None or self.nodes[p].op_type not in ("Split", "Slice") or \
                self.nodes[p].input[0] != origin:
            return 0
        n, whole = numel(self.dims_of(weight) or ()), numel(self.init_dims[origin])
        return n if 0 < n < whole else 0

    def from_folded_parameter(self, node, name: str) -> bool:
        """``name`` (read by ``node``) is a constant the default exporter folded out of a
        parameter, so training needs its gradient: one folded from a parameter of the node's
        module (or one inside it) where the file lists its parameters; otherwise a folded
        per-channel factor (one axis above 1: Swin-V2's exp(clamp(logit_scale)) per head, not
        a mask or a rotary table)."""
        if not name or name in self.acts:
            return False
        o = self.origin(name) or name
        if o not in self.init_dims:
            return False
        if not self.dynamo_names:
            # The legacy exporter's constant folding (an eval export's default) names what it
            # computed 'onnx::Mul_N': a per-channel factor among named parameters.
            return self.named_parameters and o.startswith("onnx::") and \
                self.init_type.get(o) in FLOAT_TYPES and \
                sum(1 for d in self.init_dims[o] if d > 1) == 1
        # (a one-element constant is evidence only with the file's list of parameters: a
        # learned scalar folded with the function of it the network applies, xIELU's
        # softplus(alpha) stored as 'softplus', in a module that lost that parameter)
        scalar = self.folded_modules is not None and self._derived_name(o) and \
            numel(self.init_dims[o]) == 1 and self.init_type.get(o) in FLOAT_TYPES
        if not scalar and not self.is_derived(o):
            return False
        if self._reads_lost_parameter(node):
            # The default exporter's record of the call says it read a parameter the file
            # lacks (ResMLP's Affine, addcmul(beta, alpha, x), whose alpha · 1 the optimiser
            # folded into 'tmp' while beta stayed): whatever the module kept, this constant
            # is that parameter.
            return True
        if self.folded_modules is not None:
            # (not a batch norm folded into a convolution: the plan puts those back; YOLO's
            # detection head, whose folded anchor strides are no parameter, has dozens)
            scope = self.module_scope(node)
            # (scope is one of those modules, other than a folded batch norm, or contains one:
            # sets of them and of their enclosing paths, made once, where a scan of them all
            # per node was quadratic)
            own = self.__dict__.get("_folded_own")
            if own is None:
                norms = self._folded_norm_scopes()
                own = self._folded_own = {m for m in self.folded_modules if m not in norms} - \
                    self._merged_modules()
                self._folded_within = {".".join(parts[:k]) for parts in
                                       (m.split(".") for m in own)
                                       for k in range(1, len(parts))}
            if not scope:
                return False
            if scope in own:
                return True
            if scalar:
                return False
            # A module containing one that lost a parameter (an attention whose projections'
            # weights the exporter stored transposed under its own names): only a per-channel
            # factor there, not its rotary tables or masks (a Granite's or OLMo-2's default
            # export counted its rotary sines, +16,384 parameters)
            return scope in self._folded_within and \
                sum(1 for d in self.init_dims[o] if d > 1) == 1
        return sum(1 for d in self.init_dims[o] if d > 1) == 1

    def _reads_lost_parameter(self, node) -> bool:
        """The default exporter's record of ``node``'s call reads a parameter ('%p_…') that
        the exported program lists and the file lacks."""
        lost = self.__dict__.get("_lost_parameters")
        if lost is None:
            lost = self._lost_parameters = {
                t.replace(".", "_").lower() for t, kind in self.signature.items()
                if kind == "PARAMETER" and t not in self.init_dims}
        if not lost:
            return False
        call = fx_call(node)
        return call is not None and any(
            a.startswith("%p_") and a[3:].lower() in lost for a in call[1])

    def _merged_modules(self) -> set[str]:
        """Modules whose missing parameter was merged with its twin in another block, not
        folded: their own nodes read that twin (WavLM's layer 1 multiplies by layer 0's
        gru_rel_pos_const). Not where the nodes read a folded constant instead (the default
        exporter's view of a layer scale, EfficientFormer's ``gamma.view(1, -1, 1, 1)``, while
        its attention blocks' scales, read as they are, are in the file under the same
        pattern)."""
        twins = self.__dict__.get("_twin_patterns") or {}
        if not twins:
            return set()
        merged = set()
        for node in self.nodes:
            scope = self.module_scope(node)
            patterns = twins.get(scope)
            if patterns and scope not in merged and any(
                    i in self.init_dims and _BLOCK_INDEX.sub(".#", i) in patterns
                    for i in node.input):
                merged.add(scope)
        return merged

    def _folded_norm_scopes(self) -> set[str]:
        """The batch norms the default exporter folded into convolutions (by module)."""
        norms = self.__dict__.get("_folded_norms")
        if norms is None:
            norms = {self.module_scope(n) for n in self.nodes if any(
                p.key == "pkg.onnxscript.rewriter.rule_name" and "FuseBatchNorm" in p.value
                for p in n.metadata_props)}
            self._folded_norms = norms
        return norms

    def _folded_parameter_modules(self, model) -> set[str] | None:
        """Modules with a parameter the file lacks, where the file lists the parameters: the
        default exporter may record the exported program's inputs ('p_x: PARAMETER
        target='blocks.0.attn.logit_scale''), and its optimiser folds a parameter into the
        constants computed from it alone. None where the file has no such list."""
        # (torch 2.14 writes it on the graph; the model's own list is read too)
        sig = next((p.value for p in (*model.graph.metadata_props, *model.metadata_props)
                    if p.key == "pkg.torch.export.ExportedProgram.graph_signature"), None)
        if sig is None:
            return None
        lost, kept = set(), set()
        # A missing parameter of a repeated block whose twin in another block the file has
        # (the same path but for the blocks' numbers) may have been merged with it, not
        # folded: the optimiser stores equal tensors once (an untrained WavLM's
        # gru_rel_pos_const, ones in every layer, kept as layer 0's). Which it was, the
        # module's own nodes tell (``_merged_modules``): they read the twin.
        present = {_BLOCK_INDEX.sub(".#", t) for t in self.init_dims if "." in t}
        twins: dict[str, set[str]] = defaultdict(set)
        for target in re.findall(r": PARAMETER target='([^']+)'", sig[:4_000_000]):
            module = target.rsplit(".", 1)[0] if "." in target else ""
            (kept if target in self.init_dims else lost).add(module)
            pattern = _BLOCK_INDEX.sub(".#", target)
            if target not in self.init_dims and pattern in present:
                twins[module].add(pattern)
        self._twin_patterns = dict(twins)
        # (a module that kept one of its parameters lost the other to a merge with an equal
        # tensor, an untrained network's zero bias, not to folding)
        return lost - kept

    def weight_elements(self, init: str) -> int:
        """The parameters an initializer holds: its elements, or for a quantized weight the
        float weight's (MatMulNBits packs two 4-bit values a byte)."""
        return self.quantized.get(init) or numel(self.init_dims[init])

    def is_learned(self, name: str) -> bool:
        """A weight that is a learned tensor, not a constant the exporter computed (a mask, a
        folded index table): PyTorch names parameters by their module path; exporters name
        their own constants 'onnx::Op_N', 'val_N' or '/scope/Constant_output_0'."""
        o = self.origin(name)
        if o is None or not self.is_weight(name):
            return False
        if not self.named_parameters:
            return True
        return not (o.startswith(("onnx::", "/", "_")) or re.fullmatch(r"val_\d+", o)
                    or self.is_derived(o) or self._is_buffer(o) or sinusoid_table(self, o))

    def scalar_parameter(self, name: str) -> str | None:
        """The one-element learned parameter ``name`` is (read directly or through an
        ``Identity``/``Cast``), or None: StarReLU's scale and bias, a learned temperature or
        residual scale. Weights of more than one value are ``is_learned``'s; a one-element
        tensor is a parameter only by its name (a module path, not an exporter's constant)
        and, where the file lists them, the exported program's signature."""
        for _hop in range(4):
            if not name or name in self.acts or name in self.init_dims:
                break
            p = self.producer.get(name)
            if p is None or self.nodes[p].op_type not in ("Identity", "Cast"):
                return None
            name = self.nodes[p].input[0] if self.nodes[p].input else ""
        if not name or name not in self.init_dims or numel(self.init_dims[name]) != 1 or \
                self.init_type.get(name) not in FLOAT_TYPES or not self.named_parameters:
            return None
        last = name.rsplit(".", 1)[-1]
        if "." not in name or not last or name.startswith(("onnx::", "/", "_")) or \
                re.fullmatch(r"val_\d+", name):
            return None
        signature = self.__dict__.get("signature") or {}
        if signature:
            return name if signature.get(name) == "PARAMETER" else None
        return None if self._is_buffer(name) else name

    def is_derived(self, name: str) -> bool:
        """A constant the default exporter folded out of a parameter, named after the op that
        made it ('expand', 'unsqueeze_3')."""
        cache = self.__dict__.setdefault("_derived_cache", {})
        known = cache.get(name)
        if known is None:
            known = cache[name] = self._is_derived(name)
        return known

    def _derived_name(self, name: str) -> bool:
        """A name the default exporter gives a constant it computed (after the op that made
        it), not a parameter's module path nor the optimiser's own 'val_N'."""
        return self.dynamo_names and "." not in name and not re.fullmatch(r"val_\d+", name) \
            and not name.startswith("onnx::") and name.lower() not in self.fx_parameters

    def _is_derived(self, name: str) -> bool:
        if self.init_type.get(name) not in FLOAT_TYPES or \
                numel(self.init_dims.get(name, ())) <= 1:
            return False
        if self.dynamo_names:
            return self._derived_name(name)
        return name.startswith("/") and name.endswith("_output_0")  # legacy constant folding

