"""The kernel owns the truth, over the raw Jupyter protocol: a front end's state update is refused
and undone, answers are checked against what the agent asked, and odd view messages get the
protocol's error reply, with no traceback in iopub or the kernel's log."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from jupyter_client.session import json_default

from ipyask.testing import HeadlessFrontend, KernelFrontend

pytestmark = pytest.mark.kernel

DB = (
    '{"questions": [{"id": "db", "question": "Which database?", '
    '"options": [{"label": "Postgres"}, {"label": "SQLite"}]}]}'
)


def forged_cards(key: str, rev: int = 99) -> str:
    card = {
        "key": key,
        "questions": [{"id": "db", "question": "Which database?", "options": [{"label": "EVIL"}]}],
        "status": "pending",
        "wait": "none",
    }
    return json.dumps({"rev": rev, "cards": [card]})


def asked(fe: HeadlessFrontend) -> str:
    fe.execute(f"task = asyncio.ensure_future(svc.ask({DB}))")
    return str(fe.wait_for_card("Which database?")["key"])


def result(fe: HeadlessFrontend) -> str:
    cell = fe.execute("r = await asyncio.wait_for(task, 10)\nprint(json.dumps(r.to_wire()))")
    return cell.stdout.strip()


def kernel_state(fe: HeadlessFrontend, name: str) -> Any:
    """The panel's synced value of trait ``name``, as the kernel serializes it."""
    cell = fe.execute(f"print(json.dumps(panel.get_state([{name!r}])[{name!r}]))")
    return json.loads(cell.stdout)


def resynced(fe: HeadlessFrontend, model: str, name: str) -> None:
    """Wait until this front end's copy of ``name`` is the kernel's value again."""
    value = kernel_state(fe, name)
    fe.kernel.wait_for(
        lambda: fe.kernel.widget_state(model).get(name) == value,
        timeout=5,
        what=f"the kernel's {name} to come back",
    )


def assert_clean(fe: HeadlessFrontend) -> None:
    """No handler raised into iopub, and the kernel's stdout and stderr hold no traceback."""
    fe.execute("pass")  # every message sent before has been handled
    assert fe.kernel.handler_errors == []
    log = fe.kernel.kernel_log()
    assert "Traceback" not in log and "Error" not in log, log


@contextmanager
def escaped_json(kernel: KernelFrontend) -> Iterator[None]:
    """Send JSON with ``\\u`` escapes, as a browser's ``JSON.stringify`` writes a lone surrogate.

    jupyter_client's own packer cannot encode one, so the client's session packs in ASCII.
    """
    session = kernel._session  # the test client's jupyter_client Session
    original = session.pack
    session.pack = lambda obj: json.dumps(
        obj, default=json_default, ensure_ascii=True, allow_nan=False
    ).encode("ascii")
    try:
        yield
    finally:
        session.pack = original


# -- item 1: views cannot write state ------------------------------------------------------------


def test_a_forged_card_cannot_make_the_agent_receive_an_option_it_did_not_offer(
    fe: HeadlessFrontend,
) -> None:
    key = asked(fe)
    model = fe.panel()
    fe.kernel.send_update(model, {"cards": forged_cards(key)})
    resynced(fe, model, "cards")
    assert [o["label"] for o in fe.card(key)["questions"][0]["options"]] == ["Postgres", "SQLite"]
    fe.send("answer", key=key, answer={"answers": [{"id": "db", "selected": ["EVIL"]}]})
    assert fe.wait_for_error()["code"] == "BAD_ANSWER"
    assert fe.execute("print(task.done())").stdout.strip() == "False"
    fe.answer(key, {"db": "SQLite"})
    assert result(fe) == '{"answers": [{"id": "db", "selected": ["SQLite"]}]}'
    assert_clean(fe)


def test_a_forged_empty_card_list_leaves_the_question_answerable(fe: HeadlessFrontend) -> None:
    key = asked(fe)
    model = fe.panel()
    fe.kernel.send_update(model, {"cards": json.dumps({"rev": 99, "cards": []})})
    fe.kernel.send_update(model, {"cards": []})
    resynced(fe, model, "cards")
    fe.answer(key, {"db": "Postgres"})
    assert result(fe) == '{"answers": [{"id": "db", "selected": ["Postgres"]}]}'
    assert fe.errors() == []
    assert_clean(fe)


@pytest.mark.parametrize(
    ("name", "forged"),
    [
        ("protocol_version", 3),
        ("_esm", "alert(1)"),
        ("_css", "* { display: none }"),
        ("_view_name", "EvilView"),
        ("language", "zh"),
        ("layout", "IPY_MODEL_forged"),
    ],
)
def test_ipywidgets_and_anywidget_traits_are_refused_and_resynced(
    fe: HeadlessFrontend, name: str, forged: object
) -> None:
    model = fe.panel()
    before = kernel_state(fe, name)
    fe.kernel.send_update(model, {name: forged})  # applied to this front end's copy at once
    resynced(fe, model, name)
    assert kernel_state(fe, name) == before
    assert_clean(fe)


def test_malformed_updates_are_refused_without_a_traceback(fe: HeadlessFrontend) -> None:
    key = asked(fe)
    model = fe.panel()
    payloads: list[dict[str, Any]] = [
        {"method": "update", "state": {"cards": "{not json"}, "buffer_paths": []},
        {"method": "update", "state": {"cards": 5}},
        {"method": "update", "state": {"cards": [{"key": 1}]}},
        {"method": "update", "state": {"protocol_version": "three"}},
        {"method": "update", "state": "garbage"},
        {"method": "update"},
        {"method": "update", "state": {"cards": None}, "buffer_paths": [["cards", 0, "x"]]},
        {"method": "update", "state": {"cards": "x"}, "buffer_paths": 7},
        {"method": "wave"},
        {"no": "method"},
    ]
    for data in payloads:
        fe.kernel.send_comm_msg(model, data)
    fe.kernel.send_comm_msg(model, payloads[0], [b"\x00\xff"])
    resynced(fe, model, "cards")
    assert fe.card(key)["status"] == "pending"
    fe.answer(key, {"db": "SQLite"})
    assert result(fe) == '{"answers": [{"id": "db", "selected": ["SQLite"]}]}'
    assert_clean(fe)


def test_the_panel_layout_is_owned_by_the_kernel(fe: HeadlessFrontend) -> None:
    layout = str(fe.kernel.widget_state(fe.panel())["layout"]).removeprefix("IPY_MODEL_")
    fe.kernel.send_update(layout, {"display": "none"})
    fe.kernel.wait_for(
        lambda: fe.kernel.widget_state(layout)["display"] is None, timeout=5, what="display"
    )
    assert fe.execute("print(panel.layout.display)").stdout.strip() == "None"
    assert_clean(fe)


# -- item 2: a lone surrogate gets BAD_MESSAGE --------------------------------------------------


@pytest.mark.parametrize(
    "fields",
    [
        {"key": "\ud800"},
        {"viewId": "\ud800"},
        {"viewId": "\udfff", "key": "\ud800"},
        {"answer": {"answers": [{"id": "db", "selected": ["\ud800"]}]}},
    ],
)
def test_a_lone_surrogate_gets_bad_message(fe: HeadlessFrontend, fields: dict[str, Any]) -> None:
    key = asked(fe)
    content = {
        "kind": "answer",
        "protocolVersion": 2,
        "viewId": fe.view_id,
        "key": key,
        "answer": {"answers": [{"id": "db", "selected": ["SQLite"]}]},
        **fields,
    }
    model = fe.panel()
    since = len(fe.kernel.custom_messages(model))
    with escaped_json(fe.kernel):
        fe.kernel.send_custom(model, content)
    reply = fe.kernel.wait_for_custom(
        model, lambda c: isinstance(c, dict) and c.get("kind") == "error", since=since, timeout=5
    ).content
    assert reply["code"] == "BAD_MESSAGE"
    assert reply.get("key") in (None, key) and reply.get("viewId") in (None, fe.view_id)
    assert fe.execute("print(task.done())").stdout.strip() == "False"
    assert_clean(fe)


# -- item 5: protocolVersion is required ---------------------------------------------------------


def test_a_view_message_without_protocol_version_gets_bad_message(fe: HeadlessFrontend) -> None:
    key = asked(fe)
    model = fe.panel()
    answer = {"answers": [{"id": "db", "selected": ["SQLite"]}]}
    fe.kernel.send_custom(
        model, {"kind": "answer", "viewId": fe.view_id, "key": key, "answer": answer}
    )
    error = fe.wait_for_error()
    assert (error["code"], error["key"], error["viewId"]) == ("BAD_MESSAGE", key, fe.view_id)
    assert "protocolVersion" in error["message"]
    assert fe.execute("print(task.done())").stdout.strip() == "False"
    assert_clean(fe)


# -- item 2: every odd view message gets exactly the reply the protocol promises -----------------


@contextmanager
def raw_json(kernel: KernelFrontend, text: str) -> Iterator[None]:
    """Send ``text`` as the custom message's content, verbatim (``NaN``, deep nesting, ...)."""
    session = kernel._session  # the test client's jupyter_client Session
    original = session.pack
    marker = '"@@content@@"'

    def pack(obj: Any) -> bytes:
        packed = json.dumps(obj, default=json_default, ensure_ascii=False)
        return packed.replace(marker, text).encode("utf-8")

    session.pack = pack
    try:
        yield
    finally:
        session.pack = original


def answer_text(fe: HeadlessFrontend, key: str, selected: str) -> str:
    return (
        f'{{"kind": "answer", "protocolVersion": 2, "viewId": "{fe.view_id}", "key": "{key}", '
        f'"answer": {{"answers": [{{"id": "db", "selected": {selected}}}]}}}}'
    )


ODD_CONTENTS = {
    # name: (content, the reply the protocol promises)
    "NaN as a label": (lambda fe, key: answer_text(fe, key, "[NaN]"), "BAD_MESSAGE"),
    "Infinity as protocolVersion": (
        lambda fe, key: answer_text(fe, key, '["SQLite"]').replace(
            '"protocolVersion": 2', '"protocolVersion": Infinity'
        ),
        "BAD_MESSAGE",
    ),
    "nested 400 deep": (lambda fe, key: answer_text(fe, key, "[" * 400 + "]" * 400), "BAD_MESSAGE"),
    "a 4 MB label": (
        lambda fe, key: answer_text(fe, key, '["' + "x" * 4_000_000 + '"]'),
        "BAD_ANSWER",
    ),
    "a 1 MB key": (lambda fe, key: answer_text(fe, "k" * 1_000_000, '["SQLite"]'), "UNKNOWN_CARD"),
    "a list": (lambda fe, key: "[1, 2, 3]", "BAD_MESSAGE"),
    "a number": (lambda fe, key: "7", "BAD_MESSAGE"),
    "null": (lambda fe, key: "null", "BAD_MESSAGE"),
}


@pytest.mark.parametrize("name", list(ODD_CONTENTS))
def test_an_odd_view_message_gets_exactly_one_reply_and_changes_nothing(
    fe: HeadlessFrontend, name: str
) -> None:
    key = asked(fe)
    model = fe.panel()
    content, code = ODD_CONTENTS[name]
    since = len(fe.kernel.custom_messages(model))
    with raw_json(fe.kernel, content(fe, key)):
        fe.kernel.send_custom(model, "@@content@@")
    fe.execute("pass")  # the message has been handled
    errors = [
        m.content
        for m in fe.kernel.custom_messages(model)[since:]
        if isinstance(m.content, dict) and m.content.get("kind") == "error"
    ]
    assert [e["code"] for e in errors] == [code]
    assert len(errors[0]["message"]) < 2_000  # the text does not repeat a huge value
    assert fe.execute("print(task.done())").stdout.strip() == "False"
    fe.answer(key, {"db": "SQLite"})
    assert result(fe) == '{"answers": [{"id": "db", "selected": ["SQLite"]}]}'
    assert_clean(fe)


def test_binary_buffers_beside_a_view_message_are_ignored(fe: HeadlessFrontend) -> None:
    key = asked(fe)
    answer = {"answers": [{"id": "db", "selected": ["Postgres"]}]}
    content = {"kind": "answer", "protocolVersion": 2, "viewId": fe.view_id, "key": key}
    fe.kernel.send_custom(fe.panel(), {**content, "answer": answer}, buffers=[b"\x00\xff" * 1000])
    assert result(fe) == '{"answers": [{"id": "db", "selected": ["Postgres"]}]}'
    assert fe.errors() == []
    assert_clean(fe)
