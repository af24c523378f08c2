"""planner.i18n: markers return their text, Msg keeps the English text and its template."""

from __future__ import annotations

import copy
import pickle

from planner.core.layers import RULES, LayerError, coerce_param
from planner.core.network import Problem, analyze, draft_from_json
from planner.i18n import QT_TRANSLATE_NOOP, Msg, message_of


def test_marker_returns_text():
    assert QT_TRANSLATE_NOOP("core", "Weights") == "Weights"


def test_msg_is_the_english_text():
    m = Msg("kernel {kernel} is larger than its {input} input", kernel="7×7", input="5×5")
    assert m == "kernel 7×7 is larger than its 5×5 input"
    assert str(m) == m and isinstance(m, str)
    assert m.template == "kernel {kernel} is larger than its {input} input"
    assert m.args == {"kernel": "7×7", "input": "5×5"}
    assert f"{m}" == str(m) and m + "!" == str(m) + "!"
    for clone in (pickle.loads(pickle.dumps(m)), copy.deepcopy(m)):
        assert clone == m and clone.template == m.template


def test_msg_keeps_conversions():
    assert Msg("{v!r} and {n:,}", v="x", n=1234) == "'x' and 1,234"


def test_layer_errors_carry_templates():
    draft = draft_from_json({"layers": [
        {"type": "input", "name": "in", "shape": [3, 5, 5]},
        {"type": "conv2d", "name": "conv1", "kernel": 7},
        {"type": "add", "name": "sum", "from": "nowhere"},
    ]})
    problems = analyze(draft).problems
    assert str(problems[0]) == "layer 1 (conv1): kernel 7×7 is larger than its 5×5 input"
    msg = problems[0].message
    assert isinstance(msg, Msg)
    assert msg.template == "kernel {kernel} is larger than its {input} input"
    assert problems[1].message.template == "'from' names '{ref}', which is not an earlier layer"
    assert isinstance(problems[0], Problem)


def test_message_of():
    try:
        coerce_param(RULES["conv2d"].param("filters"), "many")
    except LayerError as exc:
        assert isinstance(message_of(exc), Msg)
        assert message_of(exc) == str(exc)
    assert message_of(ValueError("plain")) == "plain"
