"""Control flow decided by shapes: an ``If`` whose condition is known at import time.

PyTorch's legacy exporter writes some operations on a dimension it cannot fix as an ``If`` on
that dimension (``squeeze(dim)`` where the size along ``dim`` is symbolic: sentence-
transformers' CLS pooling, ``Shape → Gather → Equal(1) → If(Squeeze, Identity)``). The two
branches give different ranks, so ONNX shape inference leaves the output without a shape and
the rest of the graph is lost. Once the importer has evaluated the condition from the shapes
of the batch it plans, the branch taken is spliced into the graph in the ``If``'s place (its
outputs renamed to the ``If``'s through ``Identity`` nodes) and inference runs again. An ``If``
whose condition depends on the data (detection post-processing) stays, and is said.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from planner.core.importers.onnx.graph import Node, topological

if TYPE_CHECKING:  # pragma: no cover
    from planner.core.importers.onnx.importer import Importer

MAX_INLINED_NODES = 10_000  # branch nodes spliced in, over the whole import


def inline_known_ifs(imp: Importer, work) -> bool:
    """Splice in the branch taken of every ``If`` whose condition is now known (in
    ``imp.nodes`` and in the inference copy ``work``); True where any was."""
    helper = imp.onnx.helper
    chosen = []
    for node in imp.nodes:
        if node.op_type != "If" or not node.input or node.input[0] not in imp.values:
            continue
        cond = np.asarray(imp.values[node.input[0]]).reshape(-1)
        if cond.size != 1:
            continue
        branch = imp.attr(node, "then_branch" if bool(cond[0]) else "else_branch")
        if branch is None or len(branch.output) != len(node.output) or branch.initializer \
                or branch.sparse_initializer:
            continue
        spliced = imp.__dict__.setdefault("inlined_branch_nodes", 0) + len(branch.node)
        if spliced > MAX_INLINED_NODES:
            break
        imp.inlined_branch_nodes = spliced
        chosen.append((node, branch))
    replace: dict[str, list] = imp.__dict__.setdefault("branch_protos", {})
    # (the If's first output -> the protos in its place; kept for a second inference copy)
    if not chosen and not any(p.op_type == "If" and len(p.output) and p.output[0] in replace
                              for p in work.graph.node):
        return False
    taken = set(imp.producer) | set(imp.init_dims) | {i.name for i in work.graph.input}
    fresh: dict[str, list] = {}
    for node, branch in chosen:
        rename: dict[str, str] = {}
        new = []
        for bn in branch.node:
            p = type(bn)()
            p.CopyFrom(bn)
            for k, i in enumerate(p.input):
                p.input[k] = rename.get(i, i)
            for k, o in enumerate(p.output):
                if o and o in taken:  # a name the graph already has: made unique
                    n = 1
                    while f"{o}__{n}" in taken:
                        n += 1
                    rename[o] = p.output[k] = f"{o}__{n}"
                taken.add(p.output[k])
            new.append(p)
        for k, (bo, io) in enumerate(zip(branch.output, node.output)):
            if io:
                new.append(helper.make_node("Identity", [rename.get(bo.name, bo.name)], [io],
                                            name=f"{node.name or 'If'}/branch_{k}"))
        fresh[node.output[0]] = new
        imp.inlined_ifs += 1
    replace.update(fresh)
    if fresh:
        nodes = []
        for node in imp.nodes:
            new = fresh.get(node.output[0]) if node.op_type == "If" and node.output else None
            nodes.extend([Node(p) for p in new] if new is not None else [node])
        sources = {i.name for i in work.graph.input} | set(imp.init_dims) | {
            i.name for i in work.graph.initializer}
        imp.nodes = topological(nodes, sources)
        imp.index_nodes()
    kept = []
    for p in work.graph.node:
        new = replace.get(p.output[0]) if p.op_type == "If" and len(p.output) else None
        kept.extend(new if new is not None else [p])
    work.graph.ClearField("node")
    work.graph.node.extend(kept)
    return True
