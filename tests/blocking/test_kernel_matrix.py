"""Asking from a cell in real kernels: ipykernel 6.x, 7.3 and the latest 7.x, each from its venv.

Every test runs in each matrix cell (kernel series × front end × form), observes what happened,
records it for ``docs/support-matrix.json`` and then checks it against :data:`EXPECTED`. The
front end is ``HeadlessFrontend``; a "subshell" front end sends the panel's messages over a
kernel subshell like JupyterLab ≥ 4.4, a "main" one on the main shell like VS Code or a Lab with
``commsOverSubshells`` off. Like a real view, it says ``hello`` once the card is shown.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from ipyask.testing import CellAborted, Execution, HeadlessFrontend

from ._matrix import CELLS, Cell, Kernel

pytestmark = pytest.mark.kernel

BLOCKING_CELLS = [cell for cell in CELLS if cell.form == "blocking"]

EXPECTED = {
    cell: "unsupported" if (cell.series, cell.frontend) == ("7.3", "main") else "works"
    for cell in CELLS
}
"""ipykernel 7.0–7.3 hold a busy cell's comm messages on the main shell: there, both forms fail
with BLOCKING_UNSUPPORTED. Everything else works."""

ASK = {
    "await": "a = await ipyask.ask('Proceed?', ['Yes', 'No'])",
    "blocking": "a = ipyask.ask_blocking('Proceed?', ['Yes', 'No'])",
}

Record = Callable[..., None]


def start(kernel: Kernel, cell: Cell) -> HeadlessFrontend:
    kernel.reset()
    return kernel.view(cell.frontend)


def shown(view: HeadlessFrontend, question: str) -> str:
    """Wait for the card, say hello like a freshly mounted view; the card's key."""
    key = str(view.wait_for_card(question)["key"])
    view.send("hello")
    return key


def unsupported(kernel: Kernel, execution: Execution) -> bool:
    """Whether the cell failed with ipyask's clear BLOCKING_UNSUPPORTED error."""
    kernel.settle(execution, raise_on_error=False)
    error = execution.error
    if error is None:
        return False
    assert error.ename == "BlockingUnsupportedError", error
    assert "start the agent as a task" in error.evalue
    return True


@pytest.mark.parametrize("cell", CELLS, ids=str)
def test_answer(record: Record, kernels: Callable[[str], Kernel], cell: Cell) -> None:
    """The person answers while the cell waits; the cells queued behind run after it, in order."""
    kernel = kernels(cell.series)
    view = start(kernel, cell)
    strategy = kernel.strategy(cell.form)
    first = kernel.fe.execute_nowait(f"{ASK[cell.form]}\norder.append(('A', a))")
    queued = [
        kernel.fe.execute_nowait("order.append(('B', a))"),
        kernel.fe.execute_nowait("order.append('C')"),
    ]
    key = shown(view, "Proceed?")
    view.answer(key, {"answer": "Yes"})
    if unsupported(kernel, first):
        outcome = "unsupported"
        assert view.wait_for_status(key, "cancelled")["notice"]
        for execution in queued:  # the failed cell aborts the queue, as any error does
            with pytest.raises(CellAborted):
                kernel.settle(execution)
        # The panel now knows how this front end sends: the next ask fails at once, no card.
        started = time.monotonic()
        again = kernel.run(ASK[cell.form], raise_on_error=False)
        assert unsupported(kernel, again)
        assert time.monotonic() - started < 1.5
        assert [c["status"] for c in view.cards()] == ["cancelled"]
    else:
        first.raise_for_status()
        for execution in queued:
            kernel.settle(execution)
        assert kernel.text("print(order)") == "[('A', 'Yes'), ('B', 'Yes'), 'C']"
        assert view.wait_for_status(key, "answered")["answer"] == {
            "answers": [{"id": "answer", "selected": ["Yes"]}]
        }
        outcome = "works"
    record(outcome, version=kernel.version, strategy=strategy)
    assert outcome == EXPECTED[cell]


@pytest.mark.parametrize("cell", CELLS, ids=str)
def test_interrupt(record: Record, kernels: Callable[[str], Kernel], cell: Cell) -> None:
    """A kernel interrupt ends the wait with ASK_ABORTED and cancels the card."""
    kernel = kernels(cell.series)
    view = start(kernel, cell)
    waiting = kernel.fe.execute_nowait(ASK[cell.form])
    queued = kernel.fe.execute_nowait("order.append('B')")
    key = shown(view, "Proceed?")
    kernel.fe.interrupt()
    kernel.settle(waiting, raise_on_error=False)
    assert waiting.error is not None
    # Shown as one line (InterruptedAskError); always a UserQuestionError with ASK_ABORTED.
    assert waiting.error.ename in ("InterruptedAskError", "UserQuestionError", "AskCancelledError")
    assert kernel.text("print(isinstance(sys.last_value, ipyask.UserQuestionError))") == "True"
    assert kernel.text("print(sys.last_value.code)") == "ASK_ABORTED"
    assert view.wait_for_status(key, "cancelled")["notice"]
    with pytest.raises(CellAborted):  # as after any failed cell
        kernel.settle(queued)
    assert kernel.text("print(order)") == "[]"
    record("works", version=kernel.version)


@pytest.mark.parametrize("cell", BLOCKING_CELLS, ids=str)
def test_timeout(record: Record, kernels: Callable[[str], Kernel], cell: Cell) -> None:
    """``timeout=``: the view counts down; when it runs out the call returns PendingAnswer."""
    kernel = kernels(cell.series)
    view = start(kernel, cell)
    waiting = kernel.fe.execute_nowait(
        "a = ipyask.ask_blocking('Proceed?', ['Yes', 'No'], timeout=30)\nprint(repr(a))"
    )
    key = shown(view, "Proceed?")
    view.claim(key)
    kernel.fe.wait_for(lambda: view.frames(key) or waiting.done, timeout=20, what="a frame")
    if waiting.done and unsupported(kernel, waiting):
        outcome = "unsupported"
    else:
        assert 0 < view.frames(key)[0] <= 30_000
        view.time_out(key)
        kernel.settle(waiting)
        assert waiting.stdout.startswith("PendingAnswer(pending=True, call_id='cell-")
        assert view.wait_for_status(key, "expired")["notice"]
        outcome = "works"
    record(outcome, version=kernel.version)
    assert outcome == EXPECTED[cell]


@pytest.mark.parametrize("cell", BLOCKING_CELLS, ids=str)
def test_two_waits(record: Record, kernels: Callable[[str], Kernel], cell: Cell) -> None:
    """Two blocking calls in one cell (a question, then an approval); queued cells still wait."""
    kernel = kernels(cell.series)
    view = start(kernel, cell)
    waiting = kernel.fe.execute_nowait(
        "x = ipyask.ask_blocking('First?', ['Yes', 'No'])\n"
        "y = ipyask.approve_blocking('Deploy?', always='Always')\n"
        "order.append((x, y))"
    )
    queued = kernel.fe.execute_nowait("order.append('B')")
    first = shown(view, "First?")
    view.answer(first, {"answer": "No"})
    second = view.cards
    kernel.fe.wait_for(
        lambda: waiting.done or len(second()) == 2, timeout=20, what="the second card"
    )
    if waiting.done and unsupported(kernel, waiting):
        outcome = "unsupported"
    else:
        view.answer(str(view.wait_for_card("Deploy?")["key"]), {"approval": "Always"})
        kernel.settle(waiting)
        kernel.settle(queued)
        assert kernel.text("print(order)") == "[('No', 'Always'), 'B']"
        outcome = "works"
    record(outcome, version=kernel.version)
    assert outcome == EXPECTED[cell]


@pytest.mark.parametrize("series", list({cell.series: 0 for cell in CELLS}))
def test_other_forms_still_work_after_a_blocking_call(
    kernels: Callable[[str], Kernel], series: str
) -> None:
    """After a blocking call (whatever it changed), an agent task and ``await`` still work."""
    kernel = kernels(series)
    frontend = "main" if series != "7.3" else "subshell"
    view = start(kernel, Cell(series, frontend, "blocking"))
    waiting = kernel.fe.execute_nowait(ASK["blocking"])
    view.answer(shown(view, "Proceed?"), {"answer": "Yes"})
    kernel.settle(waiting)
    kernel.run("task = asyncio.ensure_future(ipyask.ask('Later?', ['Yes', 'No']))")
    view.answer(str(view.wait_for_card("Later?")["key"]), {"answer": "No"})
    assert kernel.text("print(await asyncio.wait_for(task, 10))") == "No"
    waiting = kernel.fe.execute_nowait(f"{ASK['await']}\nprint(a)")
    view.answer(str(view.wait_for_card("Proceed?")["key"]), {"answer": "Yes"})
    assert kernel.settle(waiting).stdout.strip() == "Yes"
    handler = "print(get_ipython().kernel.shell_handlers['execute_request'].__name__)"
    assert kernel.text(handler) == "execute_request"  # ipykernel 6: the recorder is gone
    assert kernel.fe.handler_errors == []


def working_frontend(series: str) -> str:
    return "subshell" if series == "7.3" else "main"


@pytest.mark.parametrize("series", list({cell.series: 0 for cell in CELLS}))
def test_await_through_wait_for_and_gather(kernels: Callable[[str], Kernel], series: str) -> None:
    """Tasks a cell starts to ask (``wait_for`` and ``gather`` make them) count as the cell's."""
    kernel = kernels(series)
    view = start(kernel, Cell(series, working_frontend(series), "await"))
    waiting = kernel.fe.execute_nowait(
        "a, b = await asyncio.gather(\n"
        "    asyncio.wait_for(ipyask.ask('One?', ['Yes', 'No']), 30),\n"
        "    ipyask.ask('Two?', ['Yes', 'No']),\n"
        ")\n"
        "order.append((a, b))"
    )
    queued = kernel.fe.execute_nowait("order.append('B')")
    view.answer(shown(view, "One?"), {"answer": "Yes"})
    view.answer(str(view.wait_for_card("Two?")["key"]), {"answer": "No"})
    kernel.settle(waiting)
    kernel.settle(queued)
    assert kernel.text("print(order)") == "[('Yes', 'No'), 'B']"


@pytest.mark.parametrize("series", list({cell.series: 0 for cell in CELLS}))
def test_an_ask_task_that_outlives_its_cell(kernels: Callable[[str], Kernel], series: str) -> None:
    """A task the cell started but did not await keeps waiting after the cell; later cells run."""
    kernel = kernels(series)
    view = start(kernel, Cell(series, working_frontend(series), "await"))
    first = kernel.fe.execute_nowait(
        "task = asyncio.ensure_future(ipyask.ask('Later?', ['Yes', 'No']))\n"
        "await asyncio.sleep(0.5)\n"
        "order.append('A')"
    )
    queued = kernel.fe.execute_nowait("order.append('B')")
    key = shown(view, "Later?")
    kernel.settle(first)
    kernel.settle(queued)
    assert kernel.text("print(order, task.done())") == "['A', 'B'] False"
    view.answer(key, {"answer": "No"})
    assert kernel.text("print(await asyncio.wait_for(task, 10))") == "No"
    assert kernel.text("order.append('C'); print(order)") == "['A', 'B', 'C']"


@pytest.mark.parametrize("series", list({cell.series: 0 for cell in CELLS}))
def test_from_a_worker_thread(kernels: Callable[[str], Kernel], series: str) -> None:
    """``ask_blocking`` on another thread waits there; on ipykernel ≥ 7.4 even while the main
    thread blocks too (joining that thread), elsewhere while the main thread is free."""
    kernel = kernels(series)
    view = start(kernel, Cell(series, working_frontend(series), "blocking"))
    code = (
        "import threading\n"
        "box = []\n"
        "ask = lambda: box.append(ipyask.ask_blocking('Worker?', ['Yes', 'No']))\n"
        "worker = threading.Thread(target=ask)\n"
        "worker.start()"
    )
    main_blocks = series == "7.x"
    cell = kernel.fe.execute_nowait(code + ("\nworker.join(30)" if main_blocks else ""))
    view.answer(shown(view, "Worker?"), {"answer": "Yes"})
    kernel.settle(cell, 40)
    assert kernel.text("worker.join(10); print(box)") == "['Yes']"
