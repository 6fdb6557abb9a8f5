"""The table of question kinds: an intent finds its kind by ``kind``, and only a known one does."""

from __future__ import annotations

import pytest

from ipyask._intents import check_intents
from ipyask.host import UnknownIntent, form_question, tool_approval_question
from ipyask.kinds import KINDS, kind_of
from ipyask.protocol import AskUserQuestionItem, AskUserQuestionRequest
from ipyask.widget import Card


def test_a_known_intent_finds_its_kind() -> None:
    tool = tool_approval_question("write", {"path": "a"})
    form = form_question("Book", {"type": "object", "properties": {}})
    assert kind_of(tool.intent) is KINDS["tool-approval"]
    assert kind_of(form.intent) is KINDS["form"]
    assert kind_of(None) is None


@pytest.mark.parametrize("name", ["generic", "choose-file"])
def test_an_unknown_intent_finds_no_kind_even_named_generic(name: str) -> None:
    question = AskUserQuestionItem.model_validate(
        {"id": "q", "question": "?", "options": [{"label": "A"}], "intent": {"kind": name}}
    )
    assert isinstance(question.intent, UnknownIntent)
    assert kind_of(question.intent) is None
    check_intents(AskUserQuestionRequest(questions=[question]))  # a hint only: never refused
    card = Card(key="k", questions=[question])
    assert card.to_wire()["view"]["presentation"] == {"kind": "generic"}


def test_an_unknown_intent_carrying_a_known_kind_name_is_not_served_by_that_kind() -> None:
    # Built directly (validation routes the name "form" to FormIntent): it is not a form.
    assert kind_of(UnknownIntent(kind="form")) is None


def test_importing_ipyask_does_not_load_the_markdown_renderer() -> None:
    """The kinds load with the vocabulary; markdown-it loads with the first card that needs it
    (an agent process that only asks never renders Markdown)."""
    import subprocess
    import sys

    code = "import sys, ipyask\nassert 'markdown_it' not in sys.modules\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_tool_approval_kind_reads_a_scoped_always_allow_and_no_other_kind_does() -> None:
    """The transcript asks the question's kind for an answer's scope: only an Always allow of a
    tool approval has one (its rule and how long it holds)."""
    tool = tool_approval_question("write", {"path": "a"}, decisions=("approve", "always"))
    kind = KINDS["tool-approval"]
    saved = {"scope": "saved", "rule": "write(path='a')"}
    assert kind.scope(tool.intent, ["Always allow"], saved) == ("always-saved", "write(path='a')")
    assert kind.scope(tool.intent, ["Always allow"], {**saved, "scope": "session"}) == (
        "always-session",
        "write(path='a')",
    )
    assert kind.scope(tool.intent, ["Approve"], saved) is None
    assert kind.scope(tool.intent, ["Always allow"], {"scope": "forever", "rule": "x"}) is None
    form = form_question("Book", {"type": "object", "properties": {}})
    assert KINDS["form"].scope(form.intent, ["Submit"], saved) is None
