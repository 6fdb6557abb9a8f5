"""Cells through a real kernel: outputs, errors, queueing, subshells, raw requests, timeouts."""

from __future__ import annotations

import pytest

from ipyask.testing import CellAborted, FrontendTimeout, KernelError

pytestmark = pytest.mark.kernel


def test_kernel_info_announces_subshells(frontend):
    assert frontend.kernel_info["implementation"] == "ipython"
    assert frontend.supports_subshells  # ipykernel >= 7


def test_outputs_are_collected_in_order(frontend):
    cell = frontend.execute(
        "import sys\n"
        "print('one')\n"
        "print('two')\n"
        "print('oops', file=sys.stderr)\n"
        "display({'a': 1}, raw=True)\n"
        "6 * 7"
    )
    assert cell.status == "ok"
    assert cell.stdout == "one\ntwo\n"
    assert cell.stderr == "oops\n"
    assert cell.text == "42"
    assert [o["output_type"] for o in cell.outputs] == [
        "stream",
        "stream",
        "display_data",
        "execute_result",
    ]
    assert cell.outputs[2]["data"] == {"a": 1}


def test_clear_output_empties_the_outputs(frontend):
    cell = frontend.execute(
        "from IPython.display import clear_output\n"
        "print('gone')\n"
        "clear_output()\n"
        "print('kept')\n"
        "clear_output(wait=True)\n"
        "print('replaced')"
    )
    assert cell.stdout == "replaced\n"


def test_an_error_raises_with_the_traceback(frontend):
    with pytest.raises(KernelError) as info:
        frontend.execute("def inner():\n    raise ValueError('bad value')\ninner()")
    error = info.value
    assert (error.ename, error.evalue) == ("ValueError", "bad value")
    assert "inner()" in error.traceback
    assert "\x1b[" not in str(error)
    assert "ValueError: bad value" in str(error)


def test_an_error_can_be_inspected_instead(frontend):
    cell = frontend.execute("1 / 0", raise_on_error=False)
    assert cell.status == "error"
    assert cell.error is not None
    assert cell.error.ename == "ZeroDivisionError"


def test_cells_queue_in_order(frontend):
    first = frontend.execute_nowait("import time\ntime.sleep(0.2)\norder = ['first']")
    second = frontend.execute_nowait("order.append('second')\norder")
    assert not first.done
    assert second.wait().text == "['first', 'second']"
    assert first.done
    assert first.execution_count is not None
    assert second.execution_count == first.execution_count + 1


def test_a_queued_cell_after_an_error_is_aborted(frontend):
    # The sleep lets the second request reach the kernel before the first one fails.
    failing = frontend.execute_nowait("import time\ntime.sleep(0.2)\nraise RuntimeError('stop')")
    queued = frontend.execute_nowait("never_defined = 1")
    with pytest.raises(KernelError):
        failing.wait()
    with pytest.raises(CellAborted):
        queued.wait()
    assert frontend.execute("'never_defined' in dir()").text == "False"


def test_a_cell_can_run_on_a_subshell_while_main_is_busy(frontend):
    subshell_id = frontend.create_subshell()
    frontend.execute("import threading\nrelease = threading.Event()")
    busy = frontend.execute_nowait("release.wait(10)")
    # print, not a cell value: ipykernel 7.4 can lose the execute_result of one of two cells
    # that finish at the same time on different subshells (they share the display hook).
    side = frontend.execute(
        "print(threading.current_thread().name)\nrelease.set()", subshell_id=subshell_id
    )
    assert side.stdout.startswith("subshell-")
    assert busy.wait().text == "True"
    frontend.delete_subshell(subshell_id)


def test_request_returns_the_reply(frontend):
    reply = frontend.request("comm_info_request", {"target_name": "jupyter.widget"})
    assert reply["content"]["status"] == "ok"
    assert reply["header"]["msg_type"] == "comm_info_reply"


def test_a_timeout_says_what_was_awaited_and_what_the_kernel_did(frontend):
    frontend.execute("print('last thing')")
    with pytest.raises(FrontendTimeout) as info:
        frontend.wait_for(lambda: False, timeout=0.3, what="the impossible")
    message = str(info.value)
    assert "timed out after 0.3 s waiting for the impossible" in message
    assert "last iopub messages" in message
    assert "last thing" in message
    assert isinstance(info.value, TimeoutError)
