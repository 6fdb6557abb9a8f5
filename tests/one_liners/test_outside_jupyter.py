"""``ask_blocking`` and friends in plain Python: answered by registered answerers, else NO_PROVIDER.

No kernel runs here: the calls wait on the ipyask loop, from the main thread with or without a
running loop, and from worker threads.
"""

from __future__ import annotations

import _thread
import asyncio
import math
import threading
import time
from collections.abc import Iterator

import pytest

import ipyask
from ipyask.testing import SKIP, Other, ScriptedAnswerer


@pytest.fixture
def service() -> Iterator[ipyask.UserQuestions]:
    """The default service, fresh for each test (closed afterwards)."""
    default = ipyask.default_service()
    yield default
    asyncio.run(default.aclose())


class Stuck:
    """An answerer that never answers; records that it started and how it ended."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.cancelled = threading.Event()

    async def __call__(self, request: ipyask.protocol.AskUserQuestionRequest, next: object) -> None:
        self.started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled.set()
            raise


def test_a_registered_answerer_answers(service: ipyask.UserQuestions) -> None:
    script = ScriptedAnswerer({"answer": "SQLite"})
    script.register(service)
    assert ipyask.ask_blocking("Which database?", ["Postgres", "SQLite"]) == "SQLite"
    question = script.requests[0].questions[0]
    assert (question.question, question.multi_select) == ("Which database?", False)


def test_return_values_match_ask(service: ipyask.UserQuestions) -> None:
    replies: list[object] = [Other("Zig", selected=["Rust"]), SKIP, Other("typed"), SKIP]
    ScriptedAnswerer({"answer": lambda _: replies.pop(0)}).register(service)
    langs = ["Python", "Rust"]
    assert ipyask.ask_blocking("Languages?", langs, multi_select=True) == ["Rust", "Zig"]
    assert ipyask.ask_blocking("Languages?", langs, multi_select=True) == []
    assert ipyask.ask_blocking("Name?", header="Naming", detail="**any**") == "typed"
    assert ipyask.ask_blocking("Database?", ["SQLite"]) is None


def test_header_and_detail_reach_the_answerer(service: ipyask.UserQuestions) -> None:
    script = ScriptedAnswerer({"answer": "A"})
    script.register(service)
    ipyask.ask_blocking("Pick", ["A"], header="Choice", detail="Some *detail*")
    question = script.requests[0].questions[0]
    assert (question.header, question.detail) == ("Choice", "Some *detail*")


def test_approve_blocking(service: ipyask.UserQuestions) -> None:
    ScriptedAnswerer({"approval": "Always allow"}).register(service)
    assert ipyask.approve_blocking("Delete build/?", always="Always allow") == "Always allow"


def test_approve_shows_its_approve_label_on_the_button(service: ipyask.UserQuestions) -> None:
    script = ScriptedAnswerer({"approval": "Cancel"})
    script.register(service)
    answer = ipyask.approve_blocking(
        "Apply the plan?", approve="Apply", reject="Cancel", always="Always allow terraform"
    )
    assert answer == "Cancel"
    question = script.requests[0].questions[0]
    card = ipyask.widget.Card(key="k", questions=[question]).view().presentation
    assert isinstance(card, ipyask.widget.ApprovalPresentation)
    assert card.approve_label == {"en": "Apply"}  # the button says what approve= says
    assert card.question == {"en": "Apply the plan?"}


def test_no_answerer_is_no_provider(service: ipyask.UserQuestions) -> None:
    with pytest.raises(ipyask.UserQuestionError) as caught:
        ipyask.ask_blocking("Anyone?")
    assert caught.value.code == "NO_PROVIDER"


async def test_await_ask_outside_jupyter_is_no_provider_not_a_hang(
    service: ipyask.UserQuestions,
) -> None:
    with pytest.raises(ipyask.UserQuestionError) as caught:
        await asyncio.wait_for(ipyask.ask("Anyone?"), 5)
    assert caught.value.code == "NO_PROVIDER"


async def test_from_a_thread_while_a_loop_runs_elsewhere(service: ipyask.UserQuestions) -> None:
    ScriptedAnswerer({"answer": "Yes"}).register(service)
    answers = await asyncio.gather(
        *(asyncio.to_thread(ipyask.ask_blocking, "Proceed?", ["Yes", "No"]) for _ in range(3))
    )
    assert answers == ["Yes", "Yes", "Yes"]


async def test_on_a_thread_whose_loop_runs(service: ipyask.UserQuestions) -> None:
    # The answerer runs on the ipyask loop, so blocking this loop does not deadlock.
    ScriptedAnswerer({"answer": "Yes"}).register(service)
    assert ipyask.ask_blocking("Proceed?", ["Yes", "No"]) == "Yes"


def test_an_answerer_error_is_raised(service: ipyask.UserQuestions) -> None:
    async def refuse(request: ipyask.protocol.AskUserQuestionRequest, next: object) -> None:
        raise ipyask.UserQuestionError.of("ASK_CANCELLED")

    service.on_request(refuse)
    with pytest.raises(ipyask.UserQuestionError) as caught:
        ipyask.ask_blocking("Proceed?")
    assert caught.value.code == "ASK_CANCELLED"


def test_a_timeout_returns_pending(service: ipyask.UserQuestions) -> None:
    stuck = Stuck()
    service.on_request(stuck)
    started = time.monotonic()
    result = ipyask.ask_blocking("Proceed?", ["Yes"], timeout=0.2)
    assert isinstance(result, ipyask.PendingAnswer)
    assert result.call_id.startswith("cell-")
    assert time.monotonic() - started >= 0.19
    assert stuck.cancelled.wait(5)


def test_a_timed_question_answered_in_its_window(service: ipyask.UserQuestions) -> None:
    script = ScriptedAnswerer({"answer": "Yes"})
    script.register(service)
    assert ipyask.ask_blocking("Proceed?", ["Yes"], timeout=30) == "Yes"
    request = script.requests[0]
    assert request.timed and request.agent is not None and request.call_id is not None


async def test_await_ask_takes_a_timeout_too(service: ipyask.UserQuestions) -> None:
    script = ScriptedAnswerer({"answer": "Yes"})
    script.register(service)
    assert await ipyask.ask("Proceed?", ["Yes"], timeout=30) == "Yes"
    request = script.requests[0]
    assert request.timed and request.agent is not None and request.call_id is not None
    with pytest.raises(ipyask.UserQuestionError) as caught:
        await ipyask.ask("Proceed?", timeout=0)
    assert caught.value.code == "BAD_TIMEOUT"


@pytest.mark.parametrize("timeout", [0, -1, True, math.nan, math.inf, "5", 3e6])
def test_bad_timeouts(service: ipyask.UserQuestions, timeout: object) -> None:
    with pytest.raises(ipyask.UserQuestionError) as caught:
        ipyask.ask_blocking("Proceed?", timeout=timeout)  # type: ignore[arg-type]
    assert caught.value.code == "BAD_TIMEOUT"


def test_ctrl_c_ends_the_wait_as_aborted(service: ipyask.UserQuestions) -> None:
    stuck = Stuck()
    service.on_request(stuck)

    def interrupt() -> None:
        if stuck.started.wait(30):
            _thread.interrupt_main()

    threading.Thread(target=interrupt).start()
    with pytest.raises(ipyask.UserQuestionError) as caught:
        ipyask.ask_blocking("Proceed?")
    assert caught.value.code == "ASK_ABORTED"
    assert isinstance(caught.value.__cause__, KeyboardInterrupt)
    assert not isinstance(caught.value, asyncio.CancelledError)
    assert stuck.cancelled.wait(5)
    # IPython shows the interrupt as one short line, not a chained traceback
    assert caught.value._render_traceback_() == [  # type: ignore[attr-defined]
        "Interrupted: the question was cancelled and the agent was told (ASK_ABORTED)."
    ]


def test_the_calls_are_public() -> None:
    assert issubclass(ipyask.errors.BlockingUnsupportedError, ipyask.UserQuestionError)
    assert ipyask.errors.BlockingUnsupportedError("why").code == "BLOCKING_UNSUPPORTED"
    assert {"ask_blocking", "approve_blocking"} <= set(ipyask.__all__)


def test_ask_batch_asks_a_whole_request(service: ipyask.UserQuestions) -> None:
    script = ScriptedAnswerer({"db": "SQLite", "name": Other("demo")})
    script.register(service)
    request = {
        "questions": [
            {"id": "db", "question": "Database?", "options": [{"label": "SQLite"}]},
            {"id": "name", "question": "Name?"},
        ]
    }
    batch = asyncio.run(ipyask.ask_batch(request))
    assert batch.to_wire() == {
        "answers": [
            {"id": "db", "selected": ["SQLite"]},
            {"id": "name", "selected": [], "custom": "demo"},
        ]
    }
    assert [q.id for q in script.requests[0].questions] == ["db", "name"]
