"""The widget class: defaults, validation, state round-trip and the card API."""

from __future__ import annotations

import gc
import json
import re
import weakref
from pathlib import Path
from typing import Any

import ipywidgets
import pytest
import traitlets
from pydantic import ValidationError

import ipyask.widget as widget_module
import ipyask.widget._card_store as store_module
from ipyask._vocabulary import AskUserQuestionAnswer, AskUserQuestionItem
from ipyask.widget import PROTOCOL_VERSION, Card, CountdownFrame, QuestionWidget

from .widget_cardkit import approval, batch, form_card, generic, plan, timed, tool_approval


def test_public_names_are_exported() -> None:
    public = {name for name in dir(widget_module) if not name.startswith("_")}
    assert set(widget_module.__all__) <= public
    assert "QuestionWidget" in widget_module.__all__
    assert sorted(widget_module.__all__) == sorted(set(widget_module.__all__))


def test_defaults() -> None:
    widget = QuestionWidget()
    assert widget.cards == []
    assert widget.language == ""
    assert widget.protocol_version == PROTOCOL_VERSION
    assert widget.get_cards() == []
    state = widget.get_state()
    assert json.loads(state["cards"]) == {"rev": 1, "live": 0, "pages": 0}
    assert state["language"] == ""
    assert state["protocol_version"] == PROTOCOL_VERSION
    widget.close()


def test_esm_and_css_are_the_shipped_files() -> None:
    static = Path(widget_module.__file__).parent / "static"
    widget = QuestionWidget()
    assert widget._esm == (static / "widget.js").read_text(encoding="utf-8")
    assert widget._css == (static / "widget.css").read_text(encoding="utf-8")
    # The bundle's default export is anywidget's entry points: esbuild names it, then exports it.
    default = re.search(r"^export \{\s*(\w+) as default\s*\};", widget._esm, re.MULTILINE)
    assert default is not None
    assert f"var {default[1]} = {{ initialize, render }};" in widget._esm
    widget.close()


def test_a_closed_widget_is_freed() -> None:
    # Nothing global keeps a closed widget alive (a panel per cell must not leak).
    widget = QuestionWidget(cards=[generic("a")])
    widget.set_card(generic("b"))
    ref = weakref.ref(widget)
    widget.close()
    del widget
    gc.collect()
    assert ref() is None


def test_css_rules_are_all_scoped_under_the_root_class() -> None:
    css = (Path(widget_module.__file__).parent / "static" / "widget.css").read_text("utf-8")
    body = "".join(part.split("*/")[-1] for part in css.split("/*"))  # drop comments
    selectors = [block.split("{")[0] for block in body.split("}") if "{" in block]
    for selector_list in selectors:
        # Commas inside :is(...) / :not(...) do not start a new selector.
        for selector in re.split(r",(?![^(]*\))", selector_list):
            assert selector.strip().startswith(".ipyask"), selector


def test_unknown_constructor_arguments_are_rejected() -> None:
    with pytest.raises(TypeError, match="layout, value"):
        QuestionWidget(value=1, layout=None)


def test_protocol_version_is_read_only() -> None:
    widget = QuestionWidget()
    with pytest.raises(traitlets.TraitError, match="read-only"):
        widget.protocol_version = 99
    widget.close()


@pytest.mark.parametrize("language", ["", "en", "zh", "zh-CN", "zh_Hans", "de-DE"])
def test_language_accepts_tags(language: str) -> None:
    widget = QuestionWidget(language=language)
    assert widget.language == language
    widget.close()


@pytest.mark.parametrize("language", ["english!", "zh CN", "-", "<script>"])
def test_language_rejects_garbage(language: str) -> None:
    with pytest.raises(traitlets.TraitError, match="language"):
        QuestionWidget(language=language)


def test_cards_are_normalized_to_wire_dicts_with_a_view() -> None:
    widget = QuestionWidget(cards=[generic("g1"), plan("p1"), approval("a1")])
    kinds = [card["view"]["presentation"]["kind"] for card in widget.cards]
    assert kinds == ["generic", "plan-review", "approval"]
    first = widget.cards[0]
    assert first["status"] == "pending" and first["wait"] == "none"
    assert "callId" not in first
    assert first["view"]["detailHtml"][0].startswith("<p>We need <strong>one</strong>")
    widget.close()


def test_state_round_trip() -> None:
    cards = [generic("g1"), batch("b1"), plan("p1"), approval("a1"), timed("t1")]
    widget = QuestionWidget(cards=cards)
    assert widget.get_cards() == cards
    clone = QuestionWidget(cards=widget.cards)  # wire dicts (with views) are accepted back
    assert clone.cards == widget.cards
    assert clone.get_cards() == cards
    widget.close()
    clone.close()


def test_view_html_cannot_be_injected_through_state() -> None:
    wire = generic("g1").to_wire()
    wire["view"] = {"presentation": {"kind": "generic"}, "detailHtml": ["<img src=x onerror=1>"]}
    widget = QuestionWidget(cards=[wire])
    assert "onerror" not in widget.cards[0]["view"]["detailHtml"][0]
    widget.close()


@pytest.mark.parametrize(
    ("card", "message"),
    [
        ({"key": "k", "questions": []}, "questions"),
        ({"key": "", "questions": [{"id": "a", "question": "?"}]}, "key"),
        ({"key": "k", "questions": [{"id": "a"}]}, "question"),
        ({"key": "k", "wait": "timed", "questions": [{"id": "a", "question": "?"}]}, "call_id"),
        ({"key": "k", "callId": "c", "questions": [{"id": "a", "question": "?"}]}, "call_id"),
        (
            {"key": "k", "questions": [{"id": "a", "question": "?"}, {"id": "a", "question": "!"}]},
            "unique",
        ),
        (
            {
                "key": "k",
                "questions": [{"id": "a", "question": "?"}],
                "answer": {"answers": [{"id": "a", "selected": []}]},
            },
            "answered",
        ),
        (
            {
                "key": "k",
                "questions": [{"id": "a", "question": "?"}],
                "frame": {"remainingMs": 1, "seq": 1},
            },
            "timed",
        ),
        (
            {"key": "k", "questions": [{"id": "a", "question": "?"}], "timeoutMs": 5000},
            "only a 'timed' card has a timeout",
        ),
        (
            {
                "key": "k",
                "callId": "c",
                "wait": "timed",
                "questions": [{"id": "a", "question": "?"}],
                "timeoutMs": 0,
            },
            "timeoutMs",
        ),
        ({"key": "k", "status": "lost", "questions": [{"id": "a", "question": "?"}]}, "status"),
        ({"key": "k", "questions": [{"id": "a", "question": "?"}], "extra": 1}, "extra"),
    ],
)
def test_bad_cards_are_rejected(card: dict[str, object], message: str) -> None:
    with pytest.raises(traitlets.TraitError, match=message):
        QuestionWidget(cards=[card])


def test_cards_must_be_a_list_with_unique_keys() -> None:
    widget = QuestionWidget()
    with pytest.raises(traitlets.TraitError):
        widget.cards = "nope"  # type: ignore[assignment]
    with pytest.raises(traitlets.TraitError, match="valid card"):
        widget.cards = [{"key": "k"}]
    with pytest.raises(traitlets.TraitError, match="unique"):
        widget.cards = [generic("same"), generic("same")]
    assert widget.cards == []
    widget.close()


def test_set_card_adds_and_replaces_in_place() -> None:
    widget = QuestionWidget(cards=[generic("a"), generic("b")])
    widget.set_card(generic("c"))
    widget.set_card(plan("a"))
    assert [card.key for card in widget.get_cards()] == ["a", "b", "c"]
    assert widget.cards[0]["view"]["presentation"]["kind"] == "plan-review"
    widget.close()


def test_update_card_validates_changes() -> None:
    widget = QuestionWidget(cards=[timed("t")])
    answer = {"answers": [{"id": "q1", "selected": ["SQLite"]}]}
    updated = widget.update_card("t", status="answered", answer=answer, frame=None)
    assert updated.status == "answered"
    assert updated.answer == AskUserQuestionAnswer.model_validate(answer)
    assert widget.get_card("t") == updated
    with pytest.raises(ValidationError):
        widget.update_card("t", status="pending", notice="x")  # an answer needs 'answered'
    assert widget.get_card("t") == updated  # unchanged after a failed update
    widget.update_card("t", notice="done")
    assert widget.get_card("t").notice == "done"
    with pytest.raises(KeyError):
        widget.update_card("missing", status="expired")
    widget.close()


def _cards_to_settle() -> list[Card]:
    """A card of every kind, and some with the fields settling leaves alone or clears."""
    return [
        generic("g"),
        batch("b"),
        plan("p"),
        approval("a"),
        tool_approval("ta"),
        form_card("f"),
        timed("t"),
        timed("th", held=True, timeout_ms=30_000),
        generic(
            "n",
            notice="Waiting for the store",
            notice_code="asked-earlier",
            notice_params={"process": "host:1"},
        ),
        generic("s", source={"session": "s-1", "agent": "agent-1", "askedAt": 1.5}),
        generic("c", call_id="call-c", wait="indefinite", status="continued"),
    ]


SETTLEMENTS: list[dict[str, Any]] = [
    {"status": "answered"},
    {"status": "answered", "answer": "batch"},
    {"status": "answered", "answer": "model"},  # a validated answer: nothing to check again
    {
        "status": "answered",
        "answer": "batch",
        "notice": "Settled elsewhere",
        "notice_code": "settled-elsewhere",
    },
    {"status": "cancelled", "notice": "You cancelled", "notice_code": "you-cancelled"},
    {
        "status": "expired",
        "notice": "Asked by host:1",
        "notice_code": "asked-earlier",
        "notice_params": {"process": "host:1"},
    },
    {"status": "expired", "notice": "plain text"},
]


@pytest.mark.parametrize("settlement", SETTLEMENTS)
def test_settle_card_keeps_what_update_card_would(settlement: dict[str, Any]) -> None:
    # Settling changes the stored card without parsing it: the state must be exactly what the
    # validated update gives (the same text, in the same field order, in the same pages).
    by_update = QuestionWidget(cards=_cards_to_settle())
    by_settle = QuestionWidget(cards=_cards_to_settle())
    for card in _cards_to_settle():
        fields = dict(settlement)
        if fields.get("answer") in ("batch", "model"):
            given = {
                "answers": [{"id": question.id, "selected": []} for question in card.questions]
            }
            as_model = fields["answer"] == "model"
            fields["answer"] = AskUserQuestionAnswer.model_validate(given) if as_model else given
        changes = {"answer": None, "notice": None, **fields}
        updated = by_update.update_card(card.key, **changes)
        wire = by_settle.settle_card(card.key, **fields)
        assert wire == updated.to_wire()
        assert by_settle.get_card(card.key) == updated
    layout = "layout"  # each widget's own
    settled, updated_state = by_settle.get_state(), by_update.get_state()
    assert settled.pop(layout) != updated_state.pop(layout)
    assert settled == updated_state
    by_update.close()
    by_settle.close()


def test_settling_a_settled_card_again_keeps_what_update_card_would(record_calls) -> None:
    # The second settlement replaces an answer and a notice that end the stored text.
    by_update = QuestionWidget(cards=_cards_to_settle())
    by_settle = QuestionWidget(cards=_cards_to_settle())
    answer = {"answers": [{"id": "q1", "selected": []}]}
    outcomes: list[dict[str, Any]] = [
        {"status": "answered", "answer": answer},
        {
            "status": "expired",
            "notice": "gone",
            "notice_code": "asked-earlier",
            "notice_params": {"process": "h:1"},
        },
        {"status": "cancelled"},
    ]
    key = "p"  # a plan review: a long view, rewritten by no settlement
    dumped = record_calls(store_module, "_dump")
    for fields in outcomes:
        updated = by_update.update_card(key, **{"answer": None, "notice": None, **fields})
        assert by_settle.settle_card(key, **fields) == updated.to_wire()
    # Each settlement writes its card's new end, never the whole card again; all but the first
    # (of a pending card, whose end is its status) write its old end too, to find it.
    ends = [value for value in dumped if isinstance(value, dict) and "view" not in value]
    assert len(ends) == 2 * len(outcomes) - 1
    assert by_settle.get_state()["history_0"] == by_update.get_state()["history_0"]
    with pytest.raises(ValueError, match="does not set"):
        by_settle.store.settle(key, {"status": "expired", "wait": "timed"})
    for statusless in ({"notice": "gone"}, {"status": None}):
        with pytest.raises(ValueError, match="sets the card's status"):
            by_settle.store.settle(key, statusless)
    assert by_settle.get_card(key).status == "cancelled"  # refused settlements change nothing
    by_update.close()
    by_settle.close()


def test_settle_card_validates_what_it_sets() -> None:
    widget = QuestionWidget(cards=[timed("t")])
    before = widget.get_state()
    answer = {"answers": [{"id": "q1", "selected": ["SQLite"]}]}
    refused: list[dict[str, Any]] = [
        {"status": "pending"},  # not a final status
        {"status": "cancelled", "answer": answer},  # an answer needs 'answered'
        {"status": "cancelled", "answer": AskUserQuestionAnswer.model_validate(answer)},
        {  # a code needs its text, with a validated answer too
            "status": "answered",
            "answer": AskUserQuestionAnswer.model_validate(answer),
            "notice_code": "settled-elsewhere",
        },
        {"status": "expired", "notice_code": "time-ran-out"},  # a code needs its text
        {"status": "expired", "notice": "x", "notice_params": {"a": "b"}},  # params need a code
        {"status": "answered", "answer": {"answers": "no"}},
    ]
    for fields in refused:
        with pytest.raises(ValidationError):
            widget.settle_card("t", **fields)
    assert widget.get_state() == before  # nothing changed
    with pytest.raises(KeyError):
        widget.settle_card("missing", "expired")
    wire = widget.settle_card("t", "answered", answer=answer)
    assert wire["status"] == "answered" and wire["frame"] == {"remainingMs": 10_000, "seq": 1}
    assert widget.get_card("t").answer == AskUserQuestionAnswer.model_validate(answer)
    widget.close()


def test_remove_card() -> None:
    widget = QuestionWidget(cards=[generic("a"), generic("b")])
    assert widget.remove_card("a").key == "a"
    assert [card.key for card in widget.get_cards()] == ["b"]
    with pytest.raises(KeyError):
        widget.remove_card("a")
    with pytest.raises(KeyError):
        widget.get_card("a")
    widget.close()


def test_close_closes_the_widgets_own_layout_but_not_one_assigned_later() -> None:
    widget = QuestionWidget()
    own, own_id = widget.layout, widget.layout.model_id
    widget.close()
    assert own.comm is None and widget.comm is None
    assert own_id not in ipywidgets.widgets.widget._instances  # not left registered

    shared = ipywidgets.Layout(width="20em")
    other = QuestionWidget()
    other.layout = shared
    other.close()
    assert shared.comm is not None
    shared.close()


def test_send_frame_stores_the_frame_and_sends_it(widget_sends) -> None:
    widget, sent = widget_sends
    widget.set_card(timed("t", remaining_ms=9000, seq=0))
    first = widget.send_frame("t", 8000)
    second = widget.send_frame("t", 7000)
    assert second.seq > first.seq
    assert widget.get_card("t").frame == CountdownFrame(remaining_ms=7000, seq=second.seq)
    assert [message for message in sent if message["kind"] == "frame"] == [
        {"kind": "frame", "protocolVersion": 2, "key": "t", "remainingMs": 8000, "seq": first.seq},
        {"kind": "frame", "protocolVersion": 2, "key": "t", "remainingMs": 7000, "seq": second.seq},
    ]
    widget.set_card(generic("g"))
    with pytest.raises(ValidationError):
        widget.send_frame("g", 1000)  # only timed cards carry a frame


def test_cards_sync_only_on_change(widget_sends) -> None:
    widget, _ = widget_sends
    widget.set_card(generic("a"))
    rev = widget.store.rev
    widget.cards = list(widget.cards)  # same content: no new revision, nothing synced
    assert widget.store.rev == rev


def test_card_model_helpers() -> None:
    card = timed("t")
    assert card.keyed and not generic("g").keyed
    assert Card.model_validate(card.to_wire()) == card


def test_cards_sync_as_json_text_reusing_unchanged_cards() -> None:
    widget = QuestionWidget()
    widget.set_card(Card(key="a", questions=[AskUserQuestionItem(id="q", question="A?")]))
    head, first = widget.get_state(["cards", "live_0"]).values()
    assert isinstance(head, str) and isinstance(first, str)
    assert json.loads(head) == {"rev": 2, "live": 1, "pages": 0}
    assert json.loads(first) == widget.cards
    widget.set_card(Card(key="b", questions=[AskUserQuestionItem(id="q", question="<b>?")]))
    texts = widget.store._texts
    assert texts["a"] == first[1:-1]  # the card's text
    assert json.loads(widget.get_state(["live_0"])["live_0"]) == widget.cards
    widget.update_card("a", status="cancelled")
    names = ["cards", "live_0", "history_0"]
    state = {k: json.loads(v) for k, v in widget.get_state(names).items()}
    assert state["cards"] == {"rev": 4, "live": 1, "pages": 1}
    assert [c["key"] for c in state["live_0"]] == ["b"]
    assert [(c["key"], c["status"]) for c in state["history_0"]] == [("a", "cancelled")]
    widget.close()


def test_status_changes_reuse_the_rendered_markdown(record_calls) -> None:
    import ipyask.widget._cards as cards_module

    rendered = record_calls(cards_module, "render_markdown")
    widget = QuestionWidget(cards=[plan("p")])
    assert len(rendered) == 1
    html = widget.cards[0]["view"]
    widget.update_card("p", status="cancelled", notice="stopped")
    assert len(rendered) == 1  # same questions: the view is reused, not rendered again
    assert widget.cards[0]["view"] == html and widget.cards[0]["status"] == "cancelled"
    widget.set_card(plan("p"))  # equal questions (new objects): reused too
    assert len(rendered) == 1
    changed = plan("p").questions[0].model_copy(update={"detail": "Another plan"})
    widget.set_card(plan("p").model_copy(update={"questions": [changed]}))
    assert rendered[1:] == ["Another plan"]  # other questions: rendered again
    widget.close()


def test_get_card_follows_assignments_of_the_cards_trait() -> None:
    widget = QuestionWidget(cards=[generic("a")])
    first = widget.get_card("a")
    assert widget.get_card("a") == first  # parsed anew from the kept text
    widget.cards = [plan("a").to_wire(), generic("b").to_wire()]
    assert widget.get_card("a").questions[0].id == "plan"
    assert [card.key for card in widget.get_cards()] == ["a", "b"]
    widget.cards = [widget.cards[1]]
    with pytest.raises(KeyError):
        widget.get_card("a")
    assert widget.get_card("b").key == "b"
    widget.close()


def test_the_wire_view_is_the_card_view_model_dumped() -> None:
    for card in (generic("g"), batch("b"), plan("p"), approval("a"), timed("t")):
        assert card.to_wire()["view"] == card.view().to_wire()
