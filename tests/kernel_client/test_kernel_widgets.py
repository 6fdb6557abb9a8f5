"""The widget comm protocol against a real kernel: state, updates, custom messages, subshells."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.kernel


def test_comm_open_carries_state_and_display_is_recorded(frontend, echo):
    model = frontend.widget(echo.model_id)
    assert model.model_name == "AnyModel"
    assert model.state["value"] == ""
    assert model.state["_esm"].startswith("export default")
    assert model.state["layout"].startswith("IPY_MODEL_")
    assert echo.model_id in [m.model_id for m in frontend.displayed_models("AnyModel")]
    assert model in frontend.models("AnyModel")
    layout_id = model.state["layout"].removeprefix("IPY_MODEL_")
    assert frontend.widget(layout_id).model_name == "LayoutModel"


def test_update_from_the_frontend_sets_the_kernel_trait(frontend, echo):
    frontend.send_update(echo.model_id, {"value": "from the front end"})
    assert frontend.widget_state(echo.model_id)["value"] == "from the front end"
    assert frontend.execute(f"{echo.name}.value").text == "'from the front end'"


def test_update_with_bytes_travels_as_a_buffer(frontend, echo):
    frontend.send_update(echo.model_id, {"blob": b"\x00\x01binary"})
    assert frontend.execute(f"{echo.name}.blob").text == "b'\\x00\\x01binary'"


def test_kernel_updates_are_applied_including_buffers(frontend, echo):
    frontend.execute(f"{echo.name}.value = 'set in the kernel'\n{echo.name}.blob = b'\\xff'")
    state = frontend.widget_state(echo.model_id)
    assert state["value"] == "set in the kernel"
    assert state["blob"] == b"\xff"


@pytest.mark.parametrize("over_subshell", [False, True], ids=["main-shell", "subshell"])
def test_custom_message_round_trip(frontend, echo, over_subshell):
    subshell_id = frontend.create_subshell() if over_subshell else None
    for round_trip in (1, 2):
        since = len(frontend.custom_messages(echo.model_id))
        frontend.send_custom(
            echo.model_id, {"n": round_trip}, [b"payload"], subshell_id=subshell_id
        )
        reply = frontend.wait_for_custom(echo.model_id, since=since)
        assert reply.content == {"echo": {"n": round_trip}, "count": round_trip}
        assert reply.buffers == (b"payload",)
        frontend.wait_for(lambda n=round_trip: frontend.widget_state(echo.model_id)["count"] == n)
    if subshell_id is not None:
        frontend.delete_subshell(subshell_id)
        assert subshell_id not in frontend.list_subshells()


def test_request_state_and_request_states_resend_the_state(frontend, echo):
    frontend.execute(f"{echo.name}.value = 'fresh'")
    frontend.widget_state(echo.model_id)["value"] = "stale"
    frontend.request_state(echo.model_id)
    frontend.wait_for(lambda: frontend.widget_state(echo.model_id)["value"] == "fresh")

    frontend.widget_state(echo.model_id)["value"] = "stale again"
    frontend.request_states()
    assert frontend.widget_state(echo.model_id)["value"] == "fresh"


def test_kernel_side_close_is_tracked(frontend, echo):
    frontend.execute(f"{echo.name}.close()")
    assert frontend.widget(echo.model_id).closed
    assert echo.model_id not in [m.model_id for m in frontend.models()]
    assert echo.model_id in [m.model_id for m in frontend.models(closed=True)]


def test_agent_task_resumes_when_a_widget_message_arrives(frontend, echo):
    frontend.execute(
        f"""
import asyncio
loop = asyncio.get_running_loop()
answer = loop.create_future()

def resolve(widget, content, buffers):
    if "answer" in content:
        loop.call_soon_threadsafe(answer.set_result, content["answer"])

{echo.name}.on_msg(resolve)

async def agent():
    got = await answer
    {echo.name}.value = "answered " + got
    {echo.name}.send({{"agent_done": got}})
    return got

task = asyncio.ensure_future(agent())
"""
    )
    assert frontend.execute("task.done()").text == "False"
    frontend.send_custom(echo.model_id, {"answer": "SQLite"})
    done = frontend.wait_for_custom(echo.model_id, lambda content: "agent_done" in content)
    assert done.content == {"agent_done": "SQLite"}
    assert frontend.widget_state(echo.model_id)["value"] == "answered SQLite"
    assert frontend.execute("task.result()").text == "'SQLite'"


def test_top_level_await_sees_a_widget_message_while_the_cell_runs(frontend, echo):
    frontend.execute(
        f"""
import asyncio
loop = asyncio.get_running_loop()
answer = loop.create_future()
{echo.name}.on_msg(
    lambda widget, content, buffers: "answer" in content
    and loop.call_soon_threadsafe(answer.set_result, content["answer"])
)
"""
    )
    cell = frontend.execute_nowait(
        "print('waiting', flush=True)\ngot = await asyncio.wait_for(answer, 10)\nprint('got', got)"
    )
    frontend.wait_for(lambda: "waiting" in cell.stdout, what="the cell to start waiting")
    frontend.send_custom(echo.model_id, {"answer": "Postgres"})
    cell.wait(timeout=5)
    assert cell.stdout == "waiting\ngot Postgres\n"


def test_errors_in_kernel_side_handlers_are_recorded(frontend, echo):
    before = len(frontend.handler_errors)
    frontend.send_update(echo.model_id, {"count": "not a number"})
    frontend.wait_for(lambda: len(frontend.handler_errors) > before)
    error = frontend.handler_errors[-1]
    assert error.ename == "TraitError"
    assert "not a number" in error.code
    assert "\x1b[" not in error.traceback
