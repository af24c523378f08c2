"""The plan's files: new, open (plans and ONNX models, in the background), save, recent files,
the last folder, presets and the autosave — one object the main window owns and its File menu
calls.

A bad file shows its problem (through the window's ``Prompts``) and leaves the current plan as
it is. An import that covers only part of a model says so where it cannot be missed: a warning
box, and the status bar until the next message. The autosave is written a moment after each
edit (``autosave_delay_ms``) and removed once the plan is saved or the window closes cleanly.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal, Slot
from PySide6.QtWidgets import QWidget

from planner import paths
from planner.core.network import (
    NetworkDraft,
    PlanFileError,
    Setup,
    load_plan_file,
    save_plan,
)
from planner.core.parallel import Parallel
from planner.core.plan import compute_plan
from planner.ui.i18n import arg, exc_text
from planner.ui.session import WindowSession, parallel_json

log = logging.getLogger("planner.ui")


def default_input():
    from planner.core.layers import LayerSpec

    return LayerSpec("input", "input", {"shape": (3, 224, 224)})


class PlanFiles(QObject):
    """Files of the plan in ``document``; ``window`` parents dialogs and the open progress."""

    autosaved = Signal(str)  # path of the autosave just written
    file_saved = Signal(str)
    open_finished = Signal(str, bool)  # File ▸ Open in the background: path, opened or not
    message = Signal(str, int)  # for the status bar: text, milliseconds (0 = until the next)
    recent_changed = Signal()

    def __init__(self, window: QWidget, document, session: WindowSession, prompts, prefs,
                 *, autosave_delay_ms: int):
        """``prefs`` is a callable giving the preferences now in force (the default batch of
        an import, the setup of a new plan)."""
        super().__init__(window)
        self._window = window
        self.document = document
        self.session = session
        self.prompts = prompts
        self._prefs = prefs
        self.import_result = None  # the last ONNX import (its report travels with the plan)
        self.import_path: Path | None = None  # its file (File ▸ ONNX Input Shapes…)
        self._opening = None  # a BackgroundOpen in progress
        self._prepared_open = None  # (draft, (analysis, estimate, assumptions)) from it
        self._opened_parallel = None  # the several-GPU setup read with it
        self._autosave_timer = QTimer(self)
        self._autosave_timer.setSingleShot(True)
        self._autosave_timer.setInterval(autosave_delay_ms)
        self._autosave_timer.timeout.connect(self._on_autosave_timeout)

    # ---- names ---------------------------------------------------------------------------
    def plan_title(self) -> str:
        path = self.document.path
        return path.name if path is not None else self.document.draft.name

    def file_stem(self) -> str:
        name = self.document.draft.name.strip().lower()
        stem = "".join(c if c.isalnum() or c in "-_" else "-" for c in name).strip("-")
        return stem or "plan"

    def recent_files(self) -> list[str]:
        return self.session.recent_files()

    def clear_recent(self) -> None:
        self.session.clear_recent()
        self.recent_changed.emit()

    def _add_recent(self, path: Path) -> None:
        self.session.add_recent(path)
        self.recent_changed.emit()

    def last_folder(self) -> str:
        """Where the file dialogs start: the open plan's folder, else the folder of the last
        file opened or saved (kept between starts), else the home folder."""
        if self.document.path is not None:
            return str(self.document.path.parent)
        return self.session.last_folder() or str(Path.home())

    def remember_folder(self, path: str | Path) -> None:
        self.session.set_last_folder(Path(path).resolve().parent)

    # ---- replacing the plan --------------------------------------------------------------
    def maybe_save(self) -> bool:
        """True when it is fine to replace the current plan (saved, discarded or unchanged)."""
        if not self.document.modified:
            return True
        answer = self.prompts.save_changes(self.plan_title())
        if answer == "save":
            return self.save()
        return answer == "discard"

    def new_plan(self) -> None:
        if self.maybe_save():
            draft = NetworkDraft("untitled", (default_input(),))
            try:
                setup = self._prefs().new_setup()
            except ValueError:
                setup = Setup()
            self.document.load(draft, setup, None)

    def load_preset(self, name: str) -> bool:
        from planner.core.presets import load_preset

        try:
            draft, setup = load_preset(name)
        except PlanFileError as exc:
            self.prompts.error(self.tr("Cannot load preset"), exc_text(exc))
            return False
        self.document.load(draft, setup, None)
        return True

    def ask_and_open(self) -> None:
        """File ▸ Open…: ask for a file, then open it in the background."""
        if not self.maybe_save():
            return
        path = self.prompts.open_path(self.last_folder())
        if path:
            self.remember_folder(path)
            self.open_in_background(path)

    # ---- opening -------------------------------------------------------------------------
    def open_file(self, path: str | os.PathLike, _load=None) -> bool:
        """Open a plan file or an ONNX model; a bad file shows its problem and leaves the
        current plan as is. An ONNX model opens as an untitled plan named after the model."""
        if Path(path).suffix.lower() == ".onnx":
            return self.import_onnx(path, _load)
        try:
            if _load is None:
                draft, setup, parallel = load_plan_file(path)
            else:
                draft, setup = _load(path)
                parallel = self._opened_parallel  # read with the file, in the worker
        except PlanFileError as exc:
            self.prompts.error(self.tr("Cannot open plan"), exc_text(exc))
            return False
        ready, self._prepared_open = self._prepared_open, None
        self._opened_parallel = None
        self.document.load(draft, setup, Path(path),
                           prepared=ready[1] if ready and ready[0] is draft else None)
        self._apply_plan_parallel(parallel)
        self._add_recent(Path(path))
        self.message.emit(arg(self.tr("Opened %1"), str(path)), 5000)
        return True

    def _apply_plan_parallel(self, parallel: dict | None) -> None:
        """The several-GPU setup a plan file holds; a file without one (older) is one GPU."""
        try:
            par = Parallel(**parallel) if parallel else Parallel()
        except (TypeError, ValueError) as exc:
            self.message.emit(arg(self.tr("The file's multi-GPU setup was not used: %1"),
                                  str(exc)), 10000)
            par = Parallel()
        self.document.set_parallel(par)

    def import_onnx(self, path: str | os.PathLike, _load=None, input_shape=None) -> bool:
        """``input_shape``: per input name (File ▸ ONNX Input Shapes…,
        planner/ui/onnx_inputs.py)."""
        from planner.core.importers.onnx import OnnxImportError, import_onnx

        try:
            if _load is not None:
                result = _load(path, batch=self._prefs().default_batch)
            else:
                result = import_onnx(path, batch=self._prefs().default_batch,
                                     input_shape=input_shape)
        except OnnxImportError as exc:
            self.prompts.error(self.tr("Cannot open ONNX model"), exc_text(exc))
            return False
        ready, self._prepared_open = self._prepared_open, None
        self.document.load(result.draft, result.setup, None, modified=True,
                           prepared=ready[1] if ready and ready[0] is result.draft else None)
        self._add_recent(Path(path))
        self.import_result = result
        self.import_path = Path(path)
        name = Path(path).name
        if result.warnings or result.incomplete:
            self._show_import_warnings(name, result)
        else:
            self.message.emit(arg(self.tr("Opened %1 as a new plan"), name), 5000)
        return True

    def open_in_background(self, path: str | os.PathLike, input_shape=None) -> None:
        """File ▸ Open: read (and import) the file in a worker thread, a progress dialog with
        Cancel after 200 ms, then show it here; ``open_finished`` says how it went. The window
        never waits on the file (a FIFO, a slow disk, a large ONNX model)."""
        from planner.importing import ChildImport, ImportCancelled, gc_paused, importer_for
        from planner.safeio import MAX_ONNX_BYTES, check_regular
        from planner.ui.file_open import BackgroundOpen

        if self._opening is not None:
            self._opening.cancel()
        path = str(path)
        batch = self._prefs().default_batch
        assumptions = self.document.assumptions

        def prepare(draft, setup) -> None:
            # worked out here, not on the GUI thread: the document takes them as they are
            plan = compute_plan(draft, setup, assumptions)
            est = plan.estimate
            if est is not None:
                try:  # the allocator replay and the step's points: here, not on the GUI thread
                    est.reserved_bytes  # noqa: B018
                    est.timeline  # noqa: B018
                except (ValueError, ArithmeticError):
                    est = None  # the document says why when it tries again
            self._prepared_open = (draft, (plan.analysis, est, assumptions))

        importer = importer_for(path)
        child = None
        if importer is not None:
            # in a child process (planner/importing.py): onnx's shape inference holds Python's
            # lock for seconds, and Cancel must really stop it
            more = {"input_shape": input_shape} if input_shape else {}  # an ONNX file's
            child = ChildImport(importer, path, batch=batch, what=Path(path).name, **more)

            def work():
                if Path(path).suffix.lower() == ".onnx":
                    check_regular(path, limit=MAX_ONNX_BYTES)  # never block on a FIFO
                result = child.run()
                with gc_paused():  # a large graph: not on the GUI thread, no collector pause
                    prepare(result.draft, result.setup)
                return result
        else:
            def work():
                with gc_paused():
                    draft, setup, parallel = load_plan_file(path)
                    if job.cancel_requested.is_set():
                        raise ImportCancelled()  # the worker stops here, not after the step
                    self._opened_parallel = parallel
                    prepare(draft, setup)
                return draft, setup
        job = BackgroundOpen(self._window, work,
                             arg(self.tr("Opening %1…"), Path(path).name),
                             self.tr("Cancel"), on_cancel=child.cancel if child else None)
        self._opening = job

        def done(value, exc) -> None:
            self._opening = None

            def replay(*_args, **_kw):
                if exc is not None:
                    raise exc
                return value

            try:
                ok = self.open_file(path, replay)
            except Exception as err:  # noqa: BLE001 - any failure is a message, not a crash
                log.warning("opening %s: %s", path, err, exc_info=True)
                self.prompts.error(arg(self.tr("Cannot open %1"), Path(path).name),
                                   exc_text(err) or type(err).__name__)
                ok = False
            self.open_finished.emit(path, ok)

        def cancelled() -> None:
            self._opening = None
            self.message.emit(arg(self.tr("Opening %1 cancelled"), Path(path).name),
                              5000)
            self.open_finished.emit(path, False)

        job.finished.connect(done)
        job.cancelled.connect(cancelled)
        job.start()

    def _show_import_warnings(self, name: str, result) -> None:
        """An incomplete import says so where it cannot be missed (a warning box, and the
        status bar until the next message): what was approximated in plain words, the
        importer's own lines (node names) behind Show Details (planner/ui/import_summary.py)."""
        from planner.ui.import_summary import describe_import  # noqa: PLC0415

        box = describe_import(name, result)
        self.message.emit(box.status, 0 if result.incomplete else 15000)
        show = getattr(self.prompts, "import_warnings", None)
        if callable(show):
            show(box.title, box.summary, box.details, result.incomplete)
        else:
            self._window.notify(box.title, box.summary + "\n\n" + box.details)

    # ---- saving --------------------------------------------------------------------------
    def save(self) -> bool:
        if self.document.path is None:
            return self.save_as()
        return self.save_to(self.document.path)

    def save_as(self) -> bool:
        suggested = str(Path(self.last_folder()) / (self.file_stem() + ".json"))
        path = self.prompts.save_path(suggested)
        if path:
            self.remember_folder(path)
        return bool(path) and self.save_to(Path(path))

    def save_to(self, path: Path) -> bool:
        doc = self.document
        try:
            save_plan(path, doc.draft, doc.setup, parallel_json(doc.parallel))
        except OSError as exc:
            self.prompts.error(self.tr("Cannot save plan"),
                               arg(self.tr("%1: %2"), str(path), exc.strerror or str(exc)))
            return False
        doc.mark_saved(path)
        self._add_recent(path)
        self.discard_autosave()
        self.message.emit(arg(self.tr("Saved %1"), str(path)), 5000)
        self.file_saved.emit(str(path))
        return True

    # ---- autosave ------------------------------------------------------------------------
    def schedule_autosave(self) -> None:
        """After an edit: write the autosave a moment later (edits in a row write it once)."""
        if self.document.modified:
            self._autosave_timer.start()

    @Slot()
    def _on_autosave_timeout(self) -> None:
        self.write_autosave()

    def write_autosave(self) -> None:
        path = paths.autosave_path()
        try:
            save_plan(path, self.document.draft, self.document.setup,
                      parallel_json(self.document.parallel))
        except OSError as exc:
            self.message.emit(arg(self.tr("Autosave failed: %1"), exc.strerror or str(exc)), 8000)
            return
        self.autosaved.emit(str(path))

    def cancel_open(self) -> None:
        """Stop an open in progress (its import process is terminated)."""
        if self._opening is not None:
            self._opening.cancel()

    def discard_autosave(self) -> None:
        self._autosave_timer.stop()
        try:
            paths.autosave_path().unlink(missing_ok=True)
        except OSError:
            pass
