"""Undo commands: one QUndoCommand per edit of the plan.

A plan is immutable (a ``NetworkDraft`` and a ``Setup``), so every command keeps the plan before
and after and swaps them; ``select`` remembers which layer row to show afterwards. Consecutive
edits of the same field (spin-box clicks, typing in the batch size) merge into one step.
"""

from __future__ import annotations

import time
from collections.abc import Hashable
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QUndoCommand

from planner.ui.i18n import arg
from planner.core.network import NetworkDraft, Setup

if TYPE_CHECKING:
    from planner.ui.planner.document import PlanDocument

MERGE_ID = 0x504C  # commands with a merge key share this id; mergeWith compares the keys
MERGE_WINDOW_S = 2.0  # edits of one field further apart than this stay separate steps


def _tr(text: str) -> str:
    return QCoreApplication.translate("PlanCommand", text)


class PlanCommand(QUndoCommand):
    """Swap the document's plan between ``before`` and ``after``."""

    def __init__(self, document: PlanDocument, text: str, draft: NetworkDraft, setup: Setup,
                 *, select: int | None = None, merge_key: Hashable | None = None):
        super().__init__(text)
        self._document = document
        self.before = (document.draft, document.setup, document.current_row)
        self.after = (draft, setup, select if select is not None else document.current_row)
        self.merge_key = merge_key
        self.stamp_s = time.monotonic()

    def redo(self) -> None:
        draft, setup, row = self.after
        self._document.set_plan(draft, setup, select=row)

    def undo(self) -> None:
        draft, setup, row = self.before
        self._document.set_plan(draft, setup, select=row)

    def id(self) -> int:
        return MERGE_ID if self.merge_key is not None else -1

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, PlanCommand) or other.merge_key != self.merge_key:
            return False
        if other.stamp_s - self.stamp_s > MERGE_WINDOW_S:
            return False
        self.after = other.after
        self.stamp_s = other.stamp_s
        if self.after[:2] == self.before[:2]:
            self.setObsolete(True)  # the edits cancelled out: nothing to undo
        return True


class EditLayerCommand(PlanCommand):
    def __init__(self, document, row: int, draft: NetworkDraft, *, merge_key=None):
        name = draft.layers[row].name
        super().__init__(document, arg(_tr("Edit layer %1"), name), draft,
                         document.setup, select=row, merge_key=merge_key)


class InsertLayerCommand(PlanCommand):
    def __init__(self, document, row: int, draft: NetworkDraft, text: str):
        super().__init__(document, text, draft, document.setup, select=row)


class RemoveLayerCommand(PlanCommand):
    def __init__(self, document, row: int, draft: NetworkDraft):
        name = document.draft.layers[row].name
        select = min(row, len(draft.layers) - 1)
        super().__init__(document, arg(_tr("Remove layer %1"), name), draft,
                         document.setup, select=select)


class MoveLayerCommand(PlanCommand):
    def __init__(self, document, row: int, to: int, draft: NetworkDraft):
        name = document.draft.layers[row].name
        super().__init__(document, arg(_tr("Move layer %1"), name), draft,
                         document.setup, select=to)


class ChangeSetupCommand(PlanCommand):
    def __init__(self, document, setup: Setup, field: str):
        labels = {"batch_size": _tr("Change batch size"), "precision": _tr("Change precision"),
                  "optimizer": _tr("Change optimizer"), "mode": _tr("Change mode")}
        super().__init__(document, labels.get(field, _tr("Change setup")), document.draft,
                         setup, merge_key=("setup", field))


class ApplySuggestionCommand(PlanCommand):
    def __init__(self, document, title: str, draft: NetworkDraft, setup: Setup):
        super().__init__(document, arg(_tr("Apply: %1"), title), draft, setup)


class BlockCommand(PlanCommand):
    """Repeat Layers…, Set Copies… and Unrepeat Block: one step each."""

    def __init__(self, document, what: str, name: str, times: int, draft: NetworkDraft, *,
                 select: int, merge_key=None):
        text = {"repeat": arg(_tr("Repeat layers as %1 × %2"), name, str(times)),
                "times": arg(_tr("Set copies of %1 to %2"), name, str(times)),
                "unrepeat": arg(_tr("Unrepeat block %1"), name)}[what]
        super().__init__(document, text, draft, document.setup, select=select,
                         merge_key=merge_key)
