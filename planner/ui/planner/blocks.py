"""The Planner's layer table: which layer edit actions apply to the current row, and the
repeated blocks (make the selected layers a block "× N", change its copies, unrepeat it; open
and close a block's row with the keys and clicks a tree view uses). Functions of the pane.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QEvent, QItemSelectionModel, QModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QMenu,
)

from planner.ui.i18n import arg, exc_text, tr_core
from planner.ui.planner.layer_table import COL_NAME

if TYPE_CHECKING:
    from planner.ui.planner.pane import PlannerPane


def _tr(text: str) -> str:
    return QCoreApplication.translate("PlannerPane", text)


def update_action_state(pane: PlannerPane) -> None:
    n = len(pane._doc.draft.layers)
    row = pane._doc.current_row
    # Inside a repeated block a layer cannot be added, removed or moved in one copy only
    # (the copies must stay alike): those actions wait for a row outside the block.
    inside = pane.layer_model.block_of_layer(row) is not None if 0 <= row < n else False
    pane.duplicate_action.setEnabled(0 < row < n and not inside)
    pane.remove_action.setEnabled(0 < row < n and n > 1 and not inside)
    pane.up_action.setEnabled(1 < row < n and not inside)
    pane.down_action.setEnabled(0 < row < n - 1 and not inside)
    pane.insert_menu.setEnabled(row > 0 and not inside)
    for action in (pane.duplicate_action, pane.remove_action, pane.up_action,
                   pane.down_action):
        action.setStatusTip(_tr("A layer of a repeated block cannot be added, removed "
                                "or moved in one copy alone") if inside else "")

    update_block_actions(pane)


def selected_layer_range(pane: PlannerPane):
    """(start, end) of the draft layers the table's selected rows show, and whether a
    repeated block's row or layer is among them; None with nothing selected."""
    model = pane.layer_model
    rows = sorted({i.row() for i in pane.layer_view.selectionModel().selectedRows()})
    if not rows:
        index = pane.layer_view.currentIndex()
        rows = [index.row()] if index.isValid() else []
    if not rows:
        return None
    in_block = any(model.block_at(r) is not None for r in rows)
    return model.layer_index(rows[0]), model.layer_index(rows[-1]) + 1, in_block


def repeat_problem(pane: PlannerPane) -> str | None:
    """Why the selection cannot be made a repeated block (translated), or None."""
    from planner.core.repeat import repeatable  # noqa: PLC0415

    sel = pane.selected_layer_range()
    if sel is None:
        return _tr("Select the layers to repeat")
    start, end, in_block = sel
    if in_block:
        return _tr("The selection is or crosses a repeated block")
    why = repeatable(pane._doc.draft.layers, pane._doc.draft.repeats, start, end)
    return tr_core(why) if why else None


def selected_block(pane: PlannerPane):
    """The repeated block whose row is the table's current row, or None."""
    block = current_block(pane)
    return block[0] if block is not None and block[1] else None


def update_block_actions(pane: PlannerPane) -> None:
    why = repeat_problem(pane)
    pane.repeat_action.setEnabled(why is None)
    pane.repeat_action.setStatusTip(why or pane.repeat_action.toolTip())
    rep = selected_block(pane)
    none = _tr("Select a repeated block's row")
    for action in (pane.copies_action, pane.unrepeat_action):
        action.setEnabled(rep is not None)
        action.setStatusTip(action.toolTip() if rep is not None else none)


def repeat_layers(pane: PlannerPane) -> None:
    from planner.core.repeat import RepeatError  # noqa: PLC0415

    if repeat_problem(pane) is not None:
        return
    start, end, _ = pane.selected_layer_range()
    times = pane.ask_copies(_tr("Repeat Layers"),
                            arg(_tr("Copies of the %1 selected layers:"),
                                str(end - start)), 2, 2, 1024)
    if times is None:
        return
    try:
        pane._doc.repeat_layers(start, end, times)
    except RepeatError as exc:
        pane._on_edit_rejected(exc_text(exc))
        return
    select_block_row(pane, pane._doc.draft.repeats[
        [r.first for r in pane._doc.draft.repeats].index(start)])


def set_copies(pane: PlannerPane) -> None:
    from planner.core.repeat import RepeatError  # noqa: PLC0415

    rep = selected_block(pane)
    if rep is None:
        return
    times = pane.ask_copies(_tr("Set Copies"),
                            arg(_tr("Copies of block %1 (Unrepeat Block makes it one "
                                    "copy):"), rep.name),
                            rep.times, min(2, rep.times), max(1024, rep.times))
    if times is None or times == rep.times:
        return
    try:
        pane._doc.set_block_times(rep.name, times)
    except RepeatError as exc:
        pane._on_edit_rejected(exc_text(exc))
        return
    select_block_row(pane, pane._doc.block(rep.name))


def unrepeat_block(pane: PlannerPane) -> None:
    from planner.core.repeat import RepeatError  # noqa: PLC0415

    rep = selected_block(pane)
    if rep is None:
        return
    try:
        pane._doc.unrepeat_block(rep.name)
    except RepeatError as exc:
        pane._on_edit_rejected(exc_text(exc))


def layer_context_menu(pane: PlannerPane, pos) -> None:
    menu = QMenu(pane.layer_view)
    for action in (pane.add_action, pane.duplicate_action, pane.remove_action, None,
                   pane.repeat_action, pane.copies_action, pane.unrepeat_action):
        if action is None:
            menu.addSeparator()
        else:
            menu.addAction(action)
    menu.popup(pane.layer_view.viewport().mapToGlobal(pos))


def current_block(pane: PlannerPane):
    """(Repeat, on its header row) for the table's current row, or None."""
    index = pane.layer_view.currentIndex()
    return pane.layer_model.block_at(index.row()) if index.isValid() else None


def set_block_expanded(pane: PlannerPane, name: str, on: bool) -> None:
    """Show (on) or hide a repeated block's layers in the table; its row stays current."""
    reps = [r for r in pane._doc.draft.repeats if r.name == name]
    if not reps or pane.layer_model.is_expanded(name) == on:
        return
    rep = reps[0]
    block = current_block(pane)
    on_its_row = block is not None and block[0] == rep and block[1]
    keep = pane._doc.current_row
    pane.layer_model.set_expanded(name, on)
    if on_its_row or (not on and rep.copy_of(keep) is not None):
        select_block_row(pane, rep)
    else:
        pane.select_row(keep)


def filter_event(pane: PlannerPane, obj, event) -> bool:
    view = getattr(pane, "layer_view", None)
    if view is not None and obj is view and event.type() == QEvent.Type.KeyPress:
        if view.state() != QAbstractItemView.State.EditingState and block_key(pane, event):
            return True
    if (view is not None and obj is view.viewport()
            and event.type() == QEvent.Type.MouseButtonPress
            and event.button() == Qt.MouseButton.LeftButton):
        index = view.indexAt(event.position().toPoint())
        block = pane.layer_model.block_at(index.row()) if index.isValid() else None
        if block is not None and block[1] and index.column() == COL_NAME:
            rect = view.visualRect(index)
            if event.position().x() < rect.left() + view.fontMetrics().height() + 8:
                select_block_row(pane, block[0])
                pane.set_block_expanded(block[0].name,
                                        not pane.layer_model.is_expanded(block[0].name))
                return True
    return False


def block_key(pane: PlannerPane, event) -> bool:
    block = current_block(pane)
    if block is None or event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
        return False
    rep, header = block
    key = event.key()
    opened = pane.layer_model.is_expanded(rep.name)
    if header and key in (Qt.Key.Key_Right, Qt.Key.Key_Plus, Qt.Key.Key_Asterisk):
        if not opened:
            pane.set_block_expanded(rep.name, True)
        elif key == Qt.Key.Key_Right:  # as in a tree: → on an open block goes into it
            pane.select_row(rep.first)  # its first layer's row
        return True
    if key in (Qt.Key.Key_Left, Qt.Key.Key_Minus):
        if header and opened:
            pane.set_block_expanded(rep.name, False)
        elif not header:  # ← on a block's layer goes to the block's row, − closes it
            if key == Qt.Key.Key_Minus:
                pane.set_block_expanded(rep.name, False)
            select_block_row(pane, rep)
        return True
    return False


def select_block_row(pane: PlannerPane, rep) -> None:
    pane.select_row(rep.first)
    header = pane.layer_model.display_row(rep.first)
    if pane.layer_model.is_expanded(rep.name):
        header -= 1  # the first layer's row follows the block's
        pane.layer_view.selectionModel().setCurrentIndex(
            pane.layer_model.index(header, COL_NAME),
            QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows)


def toggle_block(pane: PlannerPane, index: QModelIndex) -> None:
    block = pane.layer_model.block_at(index.row())
    if block is not None and block[1]:
        pane.set_block_expanded(block[0].name,
                                not pane.layer_model.is_expanded(block[0].name))


def chart_rows(pane: PlannerPane, row: int):
    """The bars the per-layer chart highlights for layer ``row``: a repeated block's row
    highlights every layer of every copy; one of its layers, that layer in every copy."""
    rep = pane.layer_model.block_of_layer(row)
    if rep is None:
        return row
    block = current_block(pane)
    if block is not None and block[0] == rep and block[1] or \
            not pane.layer_model.is_expanded(rep.name):
        return range(rep.first, rep.first + rep.length * rep.times)
    pos = (row - rep.first) % rep.length
    return [rep.first + k * rep.length + pos for k in range(rep.times)]
