"""The tool-approval and form presentations the kernel derives for a card, and their fallbacks."""

from __future__ import annotations

from typing import Any

import pytest

from ipyask.host import form_question, tool_approval_question
from ipyask.widget import (
    Card,
    FormPresentation,
    GenericPresentation,
    ToolApprovalPresentation,
)

FLAT = {
    "type": "object",
    "properties": {"path": {"type": "string", "title": "Path"}, "force": {"type": "boolean"}},
    "required": ["path"],
}
NESTED = {"type": "object", "properties": {"opts": {"type": "object"}}}


def view_of(*questions: Any) -> dict[str, Any]:
    return Card(key="k", questions=list(questions)).to_wire()["view"]


def test_a_tool_approval_presents_its_tool_arguments_decisions_and_edit_form() -> None:
    item = tool_approval_question(
        "rm",
        {"path": "/", "force": True},
        schema=FLAT,
        decisions=("reject", "approve", "edit"),
        description="Deletes *files*.",
    )
    view = view_of(item)
    assert view["detailHtml"] == ["<p>Deletes <em>files</em>.</p>\n"]
    presentation = view["presentation"]
    assert presentation["kind"] == "tool-approval"
    assert presentation["toolName"] == "rm"
    assert presentation["arguments"] == {"path": "/", "force": True}
    assert presentation["decisions"] == [
        {"kind": "approve", "label": "Approve"},
        {"kind": "edit", "label": "Edit"},
        {"kind": "reject", "label": "Reject"},
    ]
    assert presentation["hasSchema"] is True
    fields = presentation["editForm"]["fields"]
    assert [(f["name"], f["kind"], f["required"]) for f in fields] == [
        ("path", "string", True),
        ("force", "boolean", False),
    ]


@pytest.mark.parametrize(
    ("schema", "decisions", "has_form", "has_schema"),
    [
        (NESTED, ("approve", "edit"), False, True),  # not a flat form: the JSON editor
        (None, ("approve", "edit"), False, False),
        (FLAT, ("approve",), False, True),  # no edit, no form
    ],
)
def test_the_edit_form_exists_only_for_a_flat_schema_and_an_edit_decision(
    schema, decisions, has_form, has_schema
) -> None:
    item = tool_approval_question("rm", {}, schema=schema, decisions=decisions)
    presentation = Card(key="k", questions=[item]).view().presentation
    assert isinstance(presentation, ToolApprovalPresentation)
    assert (presentation.edit_form is not None, presentation.has_schema) == (has_form, has_schema)


def test_a_form_presents_its_typed_fields_and_actions() -> None:
    item = form_question(
        "Contact?",
        {
            "type": "object",
            "title": "T",
            "properties": {
                "when": {"type": "string", "format": "date"},
                "n": {"type": "integer", "minimum": 1},
            },
        },
    )
    presentation = Card(key="k", questions=[item]).view().presentation
    assert isinstance(presentation, FormPresentation)
    assert (presentation.accept, presentation.decline, presentation.cancel) == (
        "Submit",
        "Decline",
        "Cancel",
    )
    assert presentation.form.title == "T"
    assert [field.kind for field in presentation.form.fields] == ["string", "integer"]


def test_in_a_batch_or_with_mismatched_labels_they_fall_back_to_the_generic_flow() -> None:
    tool = tool_approval_question("rm", {}, decisions=("approve", "reject"))
    form = form_question("Contact?", {"type": "object", "properties": {}})
    assert isinstance(
        Card(key="k", questions=[tool, form.model_copy(update={"id": "f"})]).view().presentation,
        GenericPresentation,
    )
    mismatched = tool.model_copy(update={"options": tool.options[:1]})  # type: ignore[index]
    assert isinstance(
        Card(key="k", questions=[mismatched]).view().presentation, GenericPresentation
    )
    intent = form.intent
    assert intent is not None
    bad_schema = form.model_copy(
        update={"intent": intent.model_copy(update={"requested_schema": NESTED})}
    )
    assert isinstance(
        Card(key="k", questions=[bad_schema]).view().presentation, GenericPresentation
    )
