"""The pure parts of the headless front end: buffers, the widget tracker, executions."""

from __future__ import annotations

import pytest

from ipyask.testing import Execution
from ipyask.testing._kernel_client.widgets import WidgetTracker
from ipyask.testing._kernel_client.wire import (
    VIEW_MIME,
    Message,
    put_buffers,
    remove_buffers,
    strip_ansi,
)


def _msg(msg_type, content, buffers=(), parent="cell-1"):
    return Message(
        header={"msg_type": msg_type, "msg_id": f"{msg_type}-id"},
        parent_header={"msg_id": parent},
        metadata={},
        content=content,
        buffers=list(buffers),
        channel="iopub",
    )


def test_remove_then_put_buffers_restores_the_state():
    state = {"a": 1, "b": b"xy", "nested": {"c": [b"1", 2, {"d": bytearray(b"3")}]}}
    clean, paths, buffers = remove_buffers(state)
    assert clean == {"a": 1, "nested": {"c": [None, 2, {}]}}
    assert paths == [["b"], ["nested", "c", 0], ["nested", "c", 2, "d"]]
    assert buffers == [b"xy", b"1", b"3"]
    put_buffers(clean, paths, buffers)
    assert clean == {"a": 1, "b": b"xy", "nested": {"c": [b"1", 2, {"d": b"3"}]}}
    assert state["b"] == b"xy"  # input untouched


@pytest.mark.parametrize(
    ("paths", "buffers"),
    [([["a"]], []), ([[]], [b""]), ([["missing", "x"]], [b""])],
)
def test_put_buffers_rejects_paths_that_do_not_fit(paths, buffers):
    with pytest.raises(ValueError, match="buffer"):
        put_buffers({"a": 1}, paths, buffers)


def test_strip_ansi():
    assert strip_ansi("\x1b[31mValueError\x1b[39m: x") == "ValueError: x"


def test_tracker_follows_a_model_through_its_life():
    tracker = WidgetTracker()
    data = {"state": {"_model_name": "AnyModel", "v": 0}, "buffer_paths": [["raw"]]}
    tracker.handle(
        _msg("comm_open", {"comm_id": "m", "target_name": "jupyter.widget", "data": data}, [b"r"])
    )
    tracker.handle(_msg("comm_open", {"comm_id": "x", "target_name": "other", "data": {}}))
    model = tracker.models["m"]
    assert model.model_name == "AnyModel"
    assert model.state == {"_model_name": "AnyModel", "v": 0, "raw": b"r"}
    assert list(tracker.models) == ["m"]

    update = {"method": "update", "state": {"v": 1}, "buffer_paths": []}
    tracker.handle(_msg("comm_msg", {"comm_id": "m", "data": update}))
    custom = {"method": "custom", "content": {"k": 1}}
    tracker.handle(_msg("comm_msg", {"comm_id": "m", "data": custom}, [b"b"], parent="req"))
    tracker.handle(_msg("display_data", {"data": {VIEW_MIME: {"model_id": "m"}}}))
    assert model.state["v"] == 1
    assert [(c.content, c.buffers, c.parent_msg_id) for c in model.custom] == [
        ({"k": 1}, (b"b",), "req")
    ]
    assert tracker.displayed == ["m"]

    assert list(tracker.open) == ["m"]
    tracker.handle(_msg("comm_close", {"comm_id": "m", "data": {}}))
    assert model.closed
    assert tracker.open == {}
    assert tracker.models == {"m": model}  # closed models stay readable


def test_tracker_keeps_open_models_apart_in_order():
    tracker = WidgetTracker()
    for comm_id in ("a", "b", "c"):
        content = {"comm_id": comm_id, "target_name": "jupyter.widget", "data": {"state": {}}}
        tracker.handle(_msg("comm_open", content))
    tracker.close("b")
    tracker.close("unknown")  # nothing to close: no error
    assert list(tracker.open) == ["a", "c"]
    assert list(tracker.models) == ["a", "b", "c"]
    assert tracker.models["b"].closed
    assert not tracker.models["a"].closed


def test_tracker_applies_update_states_from_its_control_comm():
    tracker = WidgetTracker()
    tracker.control_comm_ids.add("ctl")
    data = {
        "method": "update_states",
        "states": {"m": {"model_name": "AnyModel", "state": {"_model_name": "AnyModel", "v": 2}}},
        "buffer_paths": [["m", "state", "raw"]],
    }
    tracker.handle(_msg("comm_msg", {"comm_id": "ctl", "data": data}, [b"r"]))
    assert tracker.models["m"].state == {"_model_name": "AnyModel", "v": 2, "raw": b"r"}
    assert list(tracker.open) == ["m"]
    assert tracker.state_syncs == 1


class _NoWait:
    def wait_for(self, predicate, *, timeout=None, what=""):
        assert predicate(), what


def test_execution_done_needs_reply_and_idle():
    execution = Execution(_NoWait(), "cell-1", "1")
    execution.handle(_msg("status", {"execution_state": "busy"}))
    execution.handle(_msg("stream", {"name": "stdout", "text": "a"}))
    execution.handle(_msg("stream", {"name": "stdout", "text": "b"}))
    assert execution.started
    assert not execution.done
    execution.handle(_msg("execute_reply", {"status": "ok", "execution_count": 3}))
    assert not execution.done
    execution.handle(_msg("status", {"execution_state": "idle"}))
    assert execution.wait() is execution
    assert execution.outputs == [{"output_type": "stream", "name": "stdout", "text": "ab"}]
    assert execution.execution_count == 3


def test_execution_is_done_without_its_idle_after_a_grace_period():
    # ipykernel 7.1-7.3 may publish the cell's idle under a comm message's parent header.
    execution = Execution(_NoWait(), "cell-1", "1")
    execution.handle(_msg("execute_reply", {"status": "ok", "execution_count": 1}))
    assert not execution.done
    execution._reply_at -= 1.0
    assert execution.done
