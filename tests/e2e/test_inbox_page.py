"""The inbox page (``/ipyask/inbox``) in a real Jupyter Server, enabled as installing ipyask
enables it: Jupyter's own login and XSRF checks, and an agent in another process answered from
Chromium at a phone's size through the default store under the server's root.

One server for the module; each test asks its own questions (by call id) on the shared store.
One more server signs in two people by their own tokens (``ada`` and ``grace``): who answers on
the page is recorded, and a question assigned to one of them is theirs alone to answer.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.cookiejar import CookieJar
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from playwright.sync_api import expect

from helpers.agent_processes import AGENT, finish
from ipyask.store import open_store

from ._inbox_page import (
    YES,
    agent_asking,
    axe_violations,
    card_of,
    pending_ids,
    phone_page,
    wait_for_question,
)
from ._pages import PageLog, save_screenshot
from ._servers import Server, jupyter_server, serving

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Locator, Page

pytestmark = pytest.mark.slow

START_TIMEOUT = 90.0


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("inbox-page-root")


@pytest.fixture(scope="module")
def server(root: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    base = tmp_path_factory.mktemp("inbox-page-home")
    with serving(lambda: jupyter_server(root, base), START_TIMEOUT) as started:
        yield started


@pytest.fixture(scope="module")
def store_path(root: Path) -> str:
    """The default store under the server's root: where its notebooks' kernels ask."""
    return str(root / ".ipyask" / "questions.sqlite3")


class Client:
    """HTTP requests to the server, keeping its cookies as a browser would; never follows a
    redirect (a refusal is seen as such)."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.cookies = CookieJar()

        class _NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args: Any, **kwargs: Any) -> None:
                return None

        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.cookies), _NoRedirect()
        )

    def request(
        self, method: str, path: str, body: object = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.server.url + path, data=data, method=method, headers=headers or {}
        )
        try:
            with self.opener.open(request, timeout=15) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            with error:
                return error.code, dict(error.headers), error.read()

    def cookie(self, name: str) -> str:
        return next(c.value for c in self.cookies if c.name == name and c.value is not None)


def answer(key: str, view_id: str = "script") -> dict[str, Any]:
    return {"kind": "answer", "viewId": view_id, "protocolVersion": 2, "key": key, "answer": YES}


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    with phone_page(browser) as opened:
        yield opened


def test_without_a_login_the_page_sends_to_jupyters_login_and_the_api_refuses(
    server: Server,
) -> None:
    client = Client(server)
    status, headers, _ = client.request("GET", "/ipyask/inbox")
    assert status == 302
    assert headers["Location"].startswith("/login?next=")
    assert client.request("GET", "/ipyask/api/events")[0] == 403
    assert client.request("POST", "/ipyask/api/messages", {"kind": "hello"})[0] == 403
    status, _, body = client.request("GET", "/ipyask/static/widget.js")
    assert status == 302 and b"export" not in body
    # with Jupyter's token, the page (the extension is enabled by installing ipyask)
    status, _, body = client.request("GET", f"/ipyask/inbox?token={server.token}")
    assert status == 200 and b'class="ipyask-page"' in body


def wait_for_card(client: Client, key: str) -> None:
    """Read the page's event stream (as a page does) until it shows the card ``key``: a page
    answers only the cards it shows."""
    request = urllib.request.Request(client.server.url + "/ipyask/api/events")
    with client.opener.open(request, timeout=30) as stream:
        for line in stream:
            if line.startswith(b"data: ") and key.encode() in line:
                return
    raise AssertionError(f"the event stream ended without card {key}")


def test_a_cross_site_post_without_the_xsrf_token_is_refused_and_answers_nothing(
    server: Server, store_path: str
) -> None:
    client = Client(server)
    assert client.request("GET", f"/ipyask/inbox?token={server.token}")[0] == 200  # signed in
    known = set(pending_ids(store_path))
    with agent_asking(store_path, "xsrf-1") as agent:
        key = wait_for_question(store_path, known)
        wait_for_card(client, key)
        # what another site's form could send: the login cookie, no XSRF token
        status, _, body = client.request("POST", "/ipyask/api/messages", answer(key))
        assert status == 403
        assert b"'_xsrf' argument missing" in body
        assert key in pending_ids(store_path)
        # the page's own request carries the token from its cookie
        headers = {"X-XSRFToken": client.cookie("_xsrf")}
        assert client.request("POST", "/ipyask/api/messages", answer(key), headers)[0] == 204
        assert finish(agent)["answer"] == YES


@pytest.mark.browser
def test_on_a_phone_the_page_shows_a_question_as_it_is_asked_and_answers_it(
    page: Page, server: Server, store_path: str
) -> None:
    log = PageLog(page)
    known = set(pending_ids(store_path))
    with agent_asking(store_path, "phone-1") as agent:
        page.goto(f"{server.url}/ipyask/inbox?token={server.token}")
        wait_for_question(store_path, known)
        card = card_of(page, agent.pid)
        expect(card).to_be_visible()
        expect(card.get_by_role("radio", name="Yes")).to_be_visible()
        width = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
        assert width[0] <= width[1], "the page scrolls sideways on a phone"
        save_screenshot(page, "inbox-page-phone-question")
        assert axe_violations(page) == []
        card.get_by_role("radio", name="Yes").tap()
        card.get_by_role("button", name="Submit").tap()
        assert finish(agent)["answer"] == YES
        expect(card).to_contain_text("Answered")
        save_screenshot(page, "inbox-page-phone-answered")
        assert log.unexpected() == []


@pytest.mark.browser
def test_a_question_answered_elsewhere_settles_on_the_open_page(
    page: Page, server: Server, store_path: str
) -> None:
    page.goto(f"{server.url}/ipyask/inbox?token={server.token}")
    expect(page.locator(".ipyask-page--ready")).to_be_visible()
    known = set(pending_ids(store_path))
    with agent_asking(store_path, "elsewhere-1") as agent:
        key = wait_for_question(store_path, known)
        card = card_of(page, agent.pid)
        expect(card.get_by_role("radio", name="No")).to_be_visible()
        done = subprocess.run(
            [sys.executable, AGENT, store_path, "--answer", key, "No"],
            capture_output=True, text=True, timeout=30, check=True,
        )  # fmt: skip
        assert done.stdout.strip() == "accepted"
        assert finish(agent)["answer"] == {"answers": [{"id": "q1", "selected": ["No"]}]}
        expect(card).to_contain_text("Answered")
        expect(card.get_by_role("radio", name="No")).to_have_count(0)


@pytest.mark.browser
def test_an_answer_that_does_not_reach_the_server_is_said_so_on_its_card_and_can_be_sent_again(
    page: Page, server: Server, store_path: str
) -> None:
    page.goto(f"{server.url}/ipyask/inbox?token={server.token}")
    expect(page.locator(".ipyask-page--ready")).to_be_visible()
    known = set(pending_ids(store_path))
    with agent_asking(store_path, "unsent-1") as agent:
        key = wait_for_question(store_path, known)
        card = card_of(page, agent.pid)
        page.route("**/ipyask/api/messages", lambda route: route.abort())
        card.get_by_role("radio", name="Yes").tap()
        card.get_by_role("button", name="Submit").tap()
        expect(card).to_contain_text("Your answer did not reach the Jupyter server")
        assert key in pending_ids(store_path)
        page.unroute("**/ipyask/api/messages")
        card.get_by_role("button", name="Submit").tap()
        assert finish(agent)["answer"] == YES
        expect(card).to_contain_text("Answered")


ASKED_BY_AN_ENDED_PROCESS = "the process that asked ({process}) has ended"


@pytest.mark.browser
def test_a_page_opened_after_the_agent_process_died_shows_its_question_as_ended(
    browser: Browser, server: Server, store_path: str
) -> None:
    known = set(pending_ids(store_path))
    with agent_asking(store_path, "ended-1") as agent, phone_page(browser) as first:
        key = wait_for_question(store_path, known)
        first.goto(f"{server.url}/ipyask/inbox?token={server.token}")
        expect(card_of(first, agent.pid).get_by_role("radio", name="Yes")).to_be_visible()
        agent.kill()  # the agent's process dies; its question stays open in the store
        agent.wait()
        ended = f'.ipyask-card[data-ipyask-group$=":{agent.pid} · ended"]'
        with phone_page(browser) as later:
            later.goto(f"{server.url}/ipyask/inbox?token={server.token}")
            card = later.locator(ended)
            expect(card).to_be_visible()
            process = card.get_attribute("data-ipyask-group")
            assert process is not None
            origin = process.split(" · ")[-2]
            expect(card).to_contain_text(ASKED_BY_AN_ENDED_PROCESS.format(process=origin))
            save_screenshot(later, "inbox-page-phone-ended")
        expect(first.locator(ended)).to_be_visible()  # the page open already says it too
    done = subprocess.run(
        [sys.executable, AGENT, store_path, "--answer", key, "Yes"],
        capture_output=True, text=True, timeout=30, check=True,
    )  # fmt: skip
    assert done.stdout.strip() == "accepted"  # the answer is kept for when it asks again


# -- two Jupyter users on one server ----------------------------------------------------------

TESTS = Path(__file__).resolve().parents[1]
NOT_ASSIGNEE = "This question is assigned to someone else: only they may answer it."
"""What a card says when the person answering it is not its assignee (strings.js)."""


class People:
    """A Jupyter Server whose identity provider signs in ``ada`` and ``grace``, each by a token
    of their own (tests/e2e/_identities.py), and the store its inbox page answers on."""

    def __init__(self, server: Server, tokens: dict[str, str], store_path: str) -> None:
        self.server = server
        self.tokens = tokens
        self.store_path = store_path

    def inbox_url(self, name: str) -> str:
        return f"{self.server.url}/ipyask/inbox?token={self.tokens[name]}"


@pytest.fixture(scope="module")
def people(tmp_path_factory: pytest.TempPathFactory) -> Iterator[People]:
    root = tmp_path_factory.mktemp("inbox-page-people-root")
    base = tmp_path_factory.mktemp("inbox-page-people-home")
    tokens = {name: secrets.token_hex(16) for name in ("ada", "grace")}
    config = base / "config"
    config.mkdir(parents=True, exist_ok=True)
    users = {token: name for name, token in tokens.items()}
    (config / "jupyter_server_config.json").write_text(
        json.dumps({"NamedTokens": {"tokens": users}}), encoding="utf-8"
    )

    def make() -> Server:
        server = jupyter_server(
            root, base, "--ServerApp.identity_provider_class=e2e._identities.NamedTokens"
        )
        path = [str(TESTS), *filter(None, [server.env.get("PYTHONPATH")])]
        server.env["PYTHONPATH"] = os.pathsep.join(path)  # where the identity provider is
        # Who answers is the Jupyter user alone, not the tests' $IPYASK_USER (ada) of the process
        server.env.pop("IPYASK_USER", None)
        return server

    with serving(make, START_TIMEOUT) as started:
        yield People(started, tokens, str(root / ".ipyask" / "questions.sqlite3"))


def card_with_key(page: Page, key: str) -> Locator:
    """The card of the store's question ``key``."""
    return page.locator(f'.ipyask-card[data-key="{key}"]')


def answered_by(location: str, key: str) -> tuple[str | None, str | None]:
    """Who answered the store's question ``key``, and through which door (from its record)."""
    store = open_store(location)
    try:
        record = store.question(key)
    finally:
        store.close()
    assert record is not None and record.terminal is not None, f"{key} is not settled"
    by = record.terminal.answered_by
    assert by is not None, f"{key} was settled without saying by whom"
    return by.who, by.door


def audit_line(location: str, key: str) -> dict[str, Any]:
    """The line of ``python -m ipyask audit`` about the question ``key``."""
    done = subprocess.run(
        [sys.executable, "-m", "ipyask", "audit", "--store", location],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    [line] = [line for line in lines if line["id"] == key]
    return line


@pytest.mark.browser
def test_as_grace_a_question_assigned_to_ada_is_refused_and_hers_is_recorded_as_hers(
    page: Page, people: People
) -> None:
    location = people.store_path
    known = set(pending_ids(location))
    with agent_asking(location, "for-ada", assignee="ada") as for_ada:
        assigned = wait_for_question(location, known)
        with agent_asking(location, "for-anyone") as for_anyone:
            anyone = wait_for_question(location, known | {assigned})
            page.goto(people.inbox_url("grace"))
            card = card_with_key(page, assigned)
            expect(card).to_have_attribute("data-ipyask-group", re.compile("for ada to answer$"))
            card.get_by_role("radio", name="Yes").tap()
            card.get_by_role("button", name="Submit").tap()
            expect(card).to_contain_text(NOT_ASSIGNEE)
            save_screenshot(page, "inbox-page-phone-not-assignee")
            assert assigned in pending_ids(location)  # still open, for ada
            expect(card).not_to_contain_text("Answered")
            assert for_ada.poll() is None  # the agent still waits

            other = card_with_key(page, anyone)
            other.get_by_role("radio", name="Yes").tap()
            other.get_by_role("button", name="Submit").tap()
            assert finish(for_anyone)["answer"] == YES
            expect(other).to_contain_text("Answered")
    assert answered_by(location, anyone) == ("grace", "inbox-page")
    line = audit_line(location, anyone)
    assert line["who"] == "grace"
    assert line["door"] == "inbox-page"
    assert line["host"] is None  # a Jupyter identity, not an OS user of a machine
    assert line["outcome"] == "answered"
    assert line["decision"] == "Yes"
    assert line["answer"] == YES
    assert line["callId"] == "for-anyone"
    assert line["assignee"] is None
    assert line["digest"].startswith("sha256:")
    assert line["when"].endswith("+00:00")


@pytest.mark.browser
def test_as_ada_only_mine_shows_her_assigned_question_and_she_answers_it(
    page: Page, people: People
) -> None:
    location = people.store_path
    known = set(pending_ids(location))
    with agent_asking(location, "ada-only", assignee="ada") as for_ada:
        assigned = wait_for_question(location, known)
        with agent_asking(location, "anyone-else"):
            anyone = wait_for_question(location, known | {assigned})
            page.goto(people.inbox_url("ada"))
            card, other = card_with_key(page, assigned), card_with_key(page, anyone)
            expect(card).to_be_visible()
            expect(other).to_be_visible()
            mine = page.get_by_role("checkbox", name="Only mine (ada)")
            mine.check()
            expect(card).to_be_visible()
            expect(other).to_be_hidden()
            save_screenshot(page, "inbox-page-phone-only-mine")
            card.get_by_role("radio", name="Yes").tap()
            card.get_by_role("button", name="Submit").tap()
            assert finish(for_ada)["answer"] == YES
            expect(card).to_contain_text("Answered")
    assert answered_by(location, assigned) == ("ada", "inbox-page")
