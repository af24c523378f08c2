"""Scripted answers to the questions a window asks, so no modal dialog ever blocks a test."""

from __future__ import annotations


class ScriptedPrompts:
    """Answers every question the window asks, and records them."""

    def __init__(self, *, restore=False, save_answer="discard", open_answer=None,
                 save_answer_path=None):
        self.restore = restore
        self.save_answer = save_answer
        self.open_answer = open_answer
        self.save_answer_path = save_answer_path
        self.errors: list[tuple[str, str]] = []
        self.asked: list[str] = []

    def restore_autosave(self, path):
        self.asked.append("restore")
        return self.restore

    def save_changes(self, plan_name):
        self.asked.append(f"save_changes:{plan_name}")
        return self.save_answer

    def open_path(self, folder):
        return self.open_answer

    def save_path(self, suggested):
        return self.save_answer_path

    def error(self, title, text):
        self.errors.append((title, text))
