from __future__ import annotations

import copy
import json
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

import ipyask
import ipyask._vocabulary as vocabulary
from ipyask.host import UnknownIntent
from ipyask.protocol import (
    ApprovalIntent,
    AskUserQuestionAnswer,
    AskUserQuestionItem,
    AskUserQuestionOption,
    AskUserQuestionRequest,
    PlanReviewIntent,
)


def test_wire_form_is_camel_case_and_attributes_snake_case() -> None:
    item = AskUserQuestionItem.model_validate(
        {"id": "q", "question": "Q?", "multiSelect": True, "options": [{"label": "A"}]}
    )
    assert item.multi_select is True
    assert item.to_wire() == {
        "id": "q",
        "question": "Q?",
        "multiSelect": True,
        "options": [{"label": "A"}],
    }
    request = AskUserQuestionRequest.model_validate(
        {"questions": [item.to_wire()], "wait": {"callId": "c1", "timed": True}}
    )
    assert request.call_id == "c1"
    assert request.timed
    assert request.to_wire()["wait"] == {"callId": "c1", "timed": True}
    assert ipyask.PendingAnswer(call_id="c1").to_wire() == {"pending": True, "callId": "c1"}
    assert ipyask.host.WaitFrame(remaining_ms=5).to_wire() == {"remainingMs": 5}


def test_snake_case_input_is_accepted_too() -> None:
    item = AskUserQuestionItem(id="q", question="Q?", multi_select=False)
    assert item.to_wire() == {"id": "q", "question": "Q?", "multiSelect": False}


def test_agent_and_signal_never_reach_the_wire() -> None:
    controller = ipyask.host.AbortController()
    request = AskUserQuestionRequest(
        questions=[], agent=ipyask.Agent("a"), signal=controller.signal
    )
    assert request.to_wire() == {"questions": []}


def test_intents_are_discriminated_by_kind() -> None:
    plan = AskUserQuestionItem.model_validate(
        {
            "id": "p",
            "question": "Q",
            "intent": {"kind": "plan-review", "approve": "Go", "callId": "c"},
        }
    )
    assert isinstance(plan.intent, PlanReviewIntent)
    assert plan.intent.call_id == "c"
    approval = AskUserQuestionItem.model_validate(
        {
            "id": "a",
            "question": "Q",
            "intent": {
                "kind": "approval",
                "approve": "Allow",
                "reject": "Deny",
                "always": "Always",
                "subject": {"name": "shell", "icon": "https://example.test/i.png"},
                "display": {"question": {"en": "Run?", "zh": "运行？"}},
            },
        }
    )
    assert isinstance(approval.intent, ApprovalIntent)
    assert approval.intent.subject is not None and approval.intent.subject.name == "shell"


def test_unknown_intent_kinds_are_kept_verbatim() -> None:
    wire = {"id": "m", "question": "Q", "intent": {"kind": "member-question", "brief": {"x": 1}}}
    item = AskUserQuestionItem.model_validate(wire)
    assert isinstance(item.intent, UnknownIntent)
    assert item.to_wire() == wire


def test_localized_display_needs_english() -> None:
    with pytest.raises(ValidationError, match="'en' entry"):
        ApprovalIntent.model_validate(
            {"approve": "A", "reject": "R", "display": {"question": {"zh": "运行？"}}}
        )


def test_bad_shapes_are_rejected_with_the_field_named() -> None:
    with pytest.raises(ValidationError, match="selected"):
        AskUserQuestionAnswer.model_validate({"answers": [{"id": "q"}]})
    with pytest.raises(ValidationError, match="multi_select_x"):
        AskUserQuestionItem.model_validate({"id": "q", "question": "Q", "multi_select_x": 1})


text = st.text(max_size=12)
options = st.lists(
    st.fixed_dictionaries({"label": text}, optional={"description": text}), max_size=4
)
intents = st.one_of(
    st.fixed_dictionaries(
        {"kind": st.just("plan-review"), "approve": text}, optional={"callId": text}
    ),
    st.fixed_dictionaries(
        {"kind": st.just("approval"), "approve": text, "reject": text},
        optional={
            "always": text,
            "subject": st.fixed_dictionaries({"name": text}, optional={"icon": text}),
            "display": st.fixed_dictionaries(
                {"question": st.fixed_dictionaries({"en": text})},
                optional={"detail": st.fixed_dictionaries({"en": text, "fr": text})},
            ),
        },
    ),
    st.fixed_dictionaries({"kind": st.sampled_from(["member-question", "x"]), "note": text}),
)
questions = st.fixed_dictionaries(
    {"id": text, "question": text},
    optional={
        "detail": text,
        "header": text,
        "options": options,
        "multiSelect": st.booleans(),
        "intent": intents,
    },
)
requests = st.fixed_dictionaries(
    {"questions": st.lists(questions, max_size=3)},
    optional={
        "wait": st.fixed_dictionaries(
            {"callId": text.filter(bool)}, optional={"timed": st.booleans()}
        )
    },
)
answers = st.fixed_dictionaries(
    {
        "answers": st.lists(
            st.fixed_dictionaries(
                {"id": text, "selected": st.lists(text, max_size=3)}, optional={"custom": text}
            ),
            max_size=3,
        )
    }
)


@given(requests)
def test_requests_round_trip_through_json_exactly(wire: dict[str, object]) -> None:
    model = AskUserQuestionRequest.model_validate_json(json.dumps(wire))
    assert model.to_wire() == wire
    assert AskUserQuestionRequest.model_validate(model.to_wire()) == model


@given(answers)
def test_answers_round_trip_through_json_exactly(wire: dict[str, object]) -> None:
    model = AskUserQuestionAnswer.model_validate_json(json.dumps(wire))
    assert json.loads(model.model_dump_json(by_alias=True, exclude_none=True)) == wire


def test_models_given_the_same_fields_share_one_set_of_their_names() -> None:
    # pydantic keeps the names of the given fields per model; equal sets are one object.
    first = AskUserQuestionOption.model_validate({"label": "A"})
    second = AskUserQuestionOption.model_validate({"label": "B", "description": None})
    third = AskUserQuestionOption.model_validate({"label": "C"})
    assert first.model_fields_set == {"label"}
    assert second.model_fields_set == {"label", "description"}
    assert first.model_fields_set is third.model_fields_set
    with pytest.raises(TypeError, match="shared"):
        first.model_fields_set.add("description")
    assert first.model_dump(exclude_unset=True) == {"label": "A"}


def test_a_copy_with_changes_names_the_changed_fields_and_leaves_the_original() -> None:
    option = AskUserQuestionOption.model_validate({"label": "A"})
    copied = option.model_copy(update={"description": "why"})
    assert copied.model_fields_set == {"label", "description"}
    assert option.model_fields_set == {"label"}
    assert copied.model_dump(exclude_unset=True) == {"label": "A", "description": "why"}
    assert option.model_dump(exclude_unset=True) == {"label": "A"}
    assert copy.deepcopy(option).model_fields_set == {"label"}
    assert pickle.loads(pickle.dumps(option)).model_fields_set == {"label"}


def test_names_from_input_are_not_kept_without_bound(monkeypatch) -> None:
    # An unknown intent keeps whatever fields its input has: the shared sets stay bounded.
    monkeypatch.setattr(vocabulary, "_FIELD_NAMES", {})
    monkeypatch.setattr(vocabulary, "_MAX_FIELD_NAME_SETS", 3)
    intents = [UnknownIntent.model_validate({"kind": "x", f"field{i}": i}) for i in range(10)]
    assert len(vocabulary._FIELD_NAMES) == 3
    assert [sorted(intent.model_fields_set) for intent in intents][-1] == ["field9", "kind"]


@pytest.mark.parametrize(
    "request_text",
    [
        {"questions": [{"id": "q", "question": "Deploy \ud800?", "options": [{"label": "A"}]}]},
        {"questions": [{"id": "q", "question": "Deploy?", "options": [{"label": "A\udfff"}]}]},
        {"questions": [{"id": "q", "question": "Deploy?"}], "callId": "c\ud83d"},
    ],
)
def test_a_request_with_a_lone_surrogate_is_refused_naming_it(
    request_text: dict[str, object],
) -> None:
    """Text no card, message or store can carry is refused as the request is read, with what
    is wrong and what to do, not where the text is written later."""
    with pytest.raises(ValidationError, match=r"lone surrogate.*remove it or replace it"):
        AskUserQuestionRequest.model_validate(request_text)


def test_a_request_with_a_whole_surrogate_pair_or_any_other_text_is_taken() -> None:
    text = "Deploy 🚀 é 中文?"
    request = AskUserQuestionRequest.model_validate(
        {"questions": [{"id": "q", "question": text, "options": [{"label": "A"}]}]}
    )
    assert request.questions[0].question == text


async def test_a_durable_ask_with_a_lone_surrogate_writes_nothing(tmp_path: object) -> None:
    async with ipyask.connect(f"{tmp_path}/store.db", agent="worker") as agent:
        bad = {"questions": [{"id": "q", "question": "Go \ud800?", "options": [{"label": "A"}]}]}
        with pytest.raises(ValidationError, match="lone surrogate"):
            await agent.ask(bad, call_id="c1")
        assert agent.store.pending_questions() == []
        events = [event["type"] for _, event in agent.store.read_events("worker")]
        assert "user-questions/asked" not in events
