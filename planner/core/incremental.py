"""Re-analysing a draft after an edit by patching the analysis of the draft before it.

An edit changes one layer (or, in a repeated block, the same layer of every copy); every other
layer of the new draft is the very same ``LayerSpec`` object as before. When the changed layers
keep their names, kinds and wiring, and their rules' results keep the same structure (a new
output tensor or not, the same saved tensors of the same classes, workspace or not), the
storages, the saved tensors, the edges and every other layer's row stay what they were: only the
re-applied layers' rows and their storages' sizes change. A layer whose input shapes change with
the edit (its output shape changed) is re-applied too, and so on down the network.

The result is equal, field by field, to a full analysis of the new draft (a unit test compares
them over random edits); anything the patch cannot be sure of (a problem, a changed structure,
too many layers to re-apply, another draft) takes the full analysis. The unchanged columns stay
the same tuple objects, so what the estimate derives from them is reused
(``planner.core.memory`` keys those arrays on them), and ``lineage`` tells the estimate which
rows changed.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import deque
from operator import is_
import weakref
from threading import Lock
from typing import Callable

from planner.core.network import (
    MAX_TOTAL_ELEMENTS,
    Analysis,
    NetworkDraft,
    apply_layer,
)

# The analyses of the last drafts, the newest last: an edit's parent is one of them.
_RECENT: deque[Analysis] = deque(maxlen=4)
# child analysis id → (child, its parent (weakly: the lineage keeps no analysis alive), the
# layers re-applied): what the estimate may patch.
_LINEAGE: dict[int, tuple[Analysis, weakref.ref, tuple[int, ...]]] = {}
_LINEAGE_MAX = 8
# edge tuple id → (the tuple, readers of each layer): the reverse edges of one topology.
_READERS: dict[int, tuple[tuple[int, ...], dict[int, list[int]]]] = {}
_LOCK = Lock()
MAX_REAPPLIED = 64  # beyond this many re-applied layers, a full analysis


def clear() -> None:
    """Forget the recent analyses (a benchmark measuring a cold start)."""
    with _LOCK:
        _RECENT.clear()
        _LINEAGE.clear()
        _READERS.clear()


def analyze_incrementally(draft: NetworkDraft,
                          full: Callable[[NetworkDraft], Analysis]) -> Analysis:
    """``full(draft)``, or the same analysis patched from a recent one."""
    with _LOCK:
        recent = list(_RECENT)
    for parent in reversed(recent):
        a = _patched(parent, draft)
        if a is not None:
            break
    else:
        a = full(draft)
    if a.ok:
        with _LOCK:
            _RECENT.append(a)
    return a


def lineage(analysis: Analysis) -> tuple[Analysis, tuple[int, ...]] | None:
    """(the analysis it was patched from, the layers re-applied), or None."""
    hit = _LINEAGE.get(id(analysis))
    if hit is None or hit[0] is not analysis:
        return None
    parent = hit[1]()
    return (parent, hit[2]) if parent is not None else None


def _readers(cols) -> dict[int, list[int]]:
    """The layers reading each layer (a topology's reverse edges, worked out once)."""
    hit = _READERS.get(id(cols.edge_read))
    if hit is not None and hit[0] is cols.edge_read:
        return hit[1]
    out: dict[int, list[int]] = {}
    for r, j in zip(cols.edge_reader, cols.edge_read):
        out.setdefault(j, []).append(r)
    with _LOCK:
        if len(_READERS) >= _LINEAGE_MAX:
            _READERS.clear()
        _READERS[id(cols.edge_read)] = (cols.edge_read, out)
    return out


def _changed(old: tuple, new: tuple) -> list[int] | None:
    """Indices of the layers that are not the same objects, or None beyond the limit."""
    same = list(map(is_, new, old))
    out: list[int] = []
    k = -1
    try:
        while True:
            k = same.index(False, k + 1)
            out.append(k)
            if len(out) > MAX_REAPPLIED:
                return None
    except ValueError:
        return out


def _structure(r) -> tuple:
    return (r.inplace or r.view, bool(r.workspace),
            tuple([(t.source, t.storage) for t in r.saved]))


def _patched(parent: Analysis, draft: NetworkDraft) -> Analysis | None:
    old_layers, new_layers = parent.draft.layers, draft.layers
    cols = parent.columns
    if len(old_layers) != len(new_layers) or not parent.ok or cols is None:
        return None
    changed = _changed(old_layers, new_layers)
    if changed is None:
        return None
    for i in changed:
        a, b = old_layers[i], new_layers[i]
        if a.name != b.name or a.kind != b.kind or a.source_name != b.source_name \
                or a.ref_names != b.ref_names:
            return None
    prow = parent.layer_rows
    p_ins, p_out, p_results = prow.in_shapes, prow.out_shapes, prow.results
    edge_reader, edge_read = cols.edge_reader, cols.edge_read
    readers = _readers(cols) if changed else {}
    new_out: dict[int, tuple] = {}  # layer → its new output shape, where it changed
    rows: dict[int, tuple] = {}
    todo = set(changed)
    while todo:
        if len(rows) >= MAX_REAPPLIED:
            return None
        i = min(todo)
        todo.discard(i)
        if i == 0:
            in_shapes: tuple = ()
        elif not new_out:
            in_shapes = p_ins[i]
        else:
            lo = bisect_left(edge_reader, i)
            hi = bisect_left(edge_reader, i + 1, lo)
            in_shapes = tuple([new_out[j] if j in new_out else p_out[j]
                               for j in edge_read[lo:hi]])
        result, error, stats = apply_layer(new_layers[i], in_shapes)
        if result is None or error is not None:
            return None
        old_result = p_results[i]
        if result is not old_result and _structure(result) != _structure(old_result):
            return None
        if result.out_shape != p_out[i]:
            new_out[i] = result.out_shape
            todo.update(readers.get(i, ()))
        rows[i] = (in_shapes, result, stats)
    return _assemble(parent, draft, rows)


def _assemble(parent: Analysis, draft: NetworkDraft, rows: dict[int, tuple]) -> Analysis | None:
    cols = parent.columns
    prow = parent.layer_rows
    # The parent's rows with the re-applied layers' changed (a parent has no problems: every
    # error is None and no layer is blocked, as before).
    ins, outs, results, stats_of = (list(prow.in_shapes), list(prow.out_shapes),
                                    list(prow.results), list(prow.stats))
    st_elems = list(cols.st_elems)
    touched: list[int] = []
    st_prod = cols.st_prod
    output_storage = cols.output_storage
    for i, (in_shapes, result, stats) in rows.items():
        ins[i], outs[i], results[i], stats_of[i] = in_shapes, result.out_shape, result, stats
        out_sid = output_storage[i]
        if stats[6]:  # a new output tensor: its storage's size
            st_elems[out_sid] = stats[0]
            touched.append(out_sid)
        if result.saved:
            # Its own tensors' storages: those it produces besides its output, in order.
            lo = bisect_left(st_prod, i)
            own = [sid for sid in range(lo, bisect_left(st_prod, i + 1, lo))
                   if sid != out_sid]
            k = 0
            for t in result.saved:
                if t.source == "own":
                    st_elems[own[k]] = t.elements
                    touched.append(own[k])
                    k += 1
    if sum(st_elems) > MAX_TOTAL_ELEMENTS:
        return None  # the full analysis names the problem
    columns = cols._replace(st_elems=tuple(st_elems)) if touched else cols
    # The storages' and the layers' rows are made from the columns when first read.
    a = Analysis(draft, None, (), None, parent.saved, columns,
                 prow._replace(in_shapes=tuple(ins), out_shapes=tuple(outs),
                               results=tuple(results), stats=tuple(stats_of)))
    with _LOCK:
        if len(_LINEAGE) >= _LINEAGE_MAX:
            _LINEAGE.clear()
        _LINEAGE[id(a)] = (a, weakref.ref(parent), tuple(sorted(rows)))
    return a
