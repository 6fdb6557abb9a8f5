"""PostgreSQL: an ask and a claim are each one round trip to the server, run as one
transaction (all of it or none), their statements prepared once per connection."""

from __future__ import annotations

from typing import Any

import pytest

from ipyask.store import PostgresStore, Terminal, open_store

from ._postgres_only import POSTGRES_ONLY, QUESTIONS

psycopg = pytest.importorskip("psycopg")

pytestmark = POSTGRES_ONLY

YES = Terminal.model_validate(
    {"outcome": "answered", "answer": {"answers": [{"id": "q1", "selected": ["Yes"]}]}}
)


@pytest.fixture
def statements(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The statements (or strings of statements) sent from now on, one per round trip."""
    sent: list[str] = []
    execute = psycopg.Cursor.execute

    def counted(cursor: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        sent.append(str(query))
        return execute(cursor, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", counted)
    return sent


def refuse_events(admin: Any, name: str, when: str = "") -> None:
    """Make the database refuse every insert of an event (``when``: those it matches)."""
    admin.execute(
        "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS"
        " $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$"
    )
    admin.execute(
        f"CREATE TRIGGER {name} BEFORE INSERT ON ipyask_events FOR EACH ROW {when}"
        " EXECUTE FUNCTION refuse()"
    )


def events(store: PostgresStore, session_id: str) -> list[str]:
    return [event["type"] for _, event in store.read_events(session_id)]


def test_an_ask_and_a_claim_are_one_round_trip_each(
    store: PostgresStore, statements: list[str]
) -> None:
    store.open_question_at("s1", "c0", QUESTIONS, request_id="r0")  # prepares (once)
    prepared = len(statements)
    assert prepared > 1 and all(s.startswith("PREPARE") for s in statements[:-1])

    del statements[:]
    store.open_question_at("s1", "c1", QUESTIONS, request_id="r1")
    assert len(statements) == 1 and statements[0].startswith("EXECUTE")
    del statements[:]
    assert store.resolve_question("r1", YES).status == "accepted"
    assert len(statements) == 1 and statements[0].startswith("EXECUTE")
    del statements[:]
    results = store.resolve_questions([("r0", YES), ("r1", YES)])
    # One trip for the batch, one more to read how the record settled before was settled.
    assert [r.status for r in results] == ["accepted", "already-resolved"]
    assert len(statements) == 2
    assert events(store, "s1") == ["user-questions/asked"] * 2 + ["user-questions/answered"] * 2


def test_a_claim_whose_event_the_database_refuses_leaves_the_record_open(
    store: PostgresStore, location: str
) -> None:
    store.open_question_at("s1", "c1", QUESTIONS, request_id="r1")
    with psycopg.connect(location, autocommit=True) as admin:
        refuse_events(
            admin, "refuse_answers", "WHEN (NEW.body->>'type' = 'user-questions/answered')"
        )
        with pytest.raises(psycopg.errors.RaiseException, match="refused by the test"):
            store.resolve_question("r1", YES)
        # The update that settled the record went with the event: the record is still open.
        assert [r.id for r in store.pending_questions()] == ["r1"]
        assert events(store, "s1") == ["user-questions/asked"]
        admin.execute("DROP TRIGGER refuse_answers ON ipyask_events")
    assert store.resolve_question("r1", YES).status == "accepted"


def test_an_ask_whose_event_the_database_refuses_writes_no_record(
    store: PostgresStore, location: str
) -> None:
    with psycopg.connect(location, autocommit=True) as admin:
        refuse_events(admin, "refuse_asks")
        with pytest.raises(psycopg.errors.RaiseException, match="refused by the test"):
            store.open_question_at("s1", "c1", QUESTIONS, request_id="r1")
        assert store.question("r1") is None and store.pending_questions() == []


def test_a_claim_wakes_a_feed_of_a_session_whose_id_is_not_ascii(
    store: PostgresStore, location: str
) -> None:
    # The claim's notification names the session's channel as the server computes it; the
    # waiting agent listens on the channel computed in Python: they must agree.
    session = "séance-研究-1"
    store.open_question_at(session, "c1", QUESTIONS, request_id="r1")
    agent = open_store(location)
    try:
        feed = agent.changes(lambda: {session})
        try:
            assert store.resolve_question("r1", YES).status == "accepted"
            assert feed.wait(5.0)
        finally:
            feed.close()
    finally:
        agent.close()


def test_statements_are_prepared_again_on_a_new_connection(
    store: PostgresStore, location: str
) -> None:
    store.open_question_at("s1", "c1", QUESTIONS, request_id="r1")
    with psycopg.connect(location, autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    store.open_question_at("s1", "c2", QUESTIONS, request_id="r2")  # a new connection
    assert [r.status for r in store.resolve_questions([("r1", YES), ("r2", YES)])] == [
        "accepted",
        "accepted",
    ]
