"""Restart survival, failover across replicas and 429, against real `hitl serve` processes."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import AGENT_TOKEN, Person, Server, free_port
from hitl import AsyncClient, Client, HitlError

pool = ThreadPoolExecutor(max_workers=4)


def test_a_waiting_ask_survives_a_restart_of_the_service(fresh_server: Server, run: str) -> None:
    fresh_server.start()
    c = Client(fresh_server.url, AGENT_TOKEN)
    fut = pool.submit(lambda: c.ask("Still there after a restart?", run=run))
    person = Person(fresh_server)
    q = person.question(run)
    fresh_server.kill()  # kill -9 while the call long-polls
    fresh_server.start()  # same port, same database
    person.answer(q["id"], "yes, still here")
    assert fut.result(timeout=60) == "yes, still here"


def test_an_approval_waits_out_the_service_being_down(fresh_server: Server, run: str) -> None:
    fresh_server.start()
    c = Client(fresh_server.url, AGENT_TOKEN)
    fut = pool.submit(lambda: c.request_approval("deploy", op_type="deploy", run=run))
    person = Person(fresh_server)
    q = person.question(run)
    fresh_server.restart()
    person.answer(q["id"], "approve")
    assert fut.result(timeout=60).outcome == "approved"


def test_fails_over_to_the_next_url_when_the_first_is_dead(server: Server, person: Person, run: str, monkeypatch: pytest.MonkeyPatch) -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("HITL_URL", f"{dead}, {server.url}")
    monkeypatch.setenv("HITL_TOKEN", AGENT_TOKEN)
    c = Client()
    assert c.urls == [dead, server.url]
    fut = pool.submit(lambda: c.ask("Which replica?", run=run))
    q = person.question(run)
    assert q["idempotencyKey"].startswith("failover:")  # a create may be sent again at the next replica
    person.answer(q["id"], "the second")
    assert fut.result(timeout=30) == "the second"
    assert c._st.current == 1  # it sticks to the replica that answers
    assert len(person.pending(run)) == 0


def test_all_replicas_down_is_unavailable() -> None:
    c = Client(f"http://127.0.0.1:{free_port()},http://127.0.0.1:{free_port()}", AGENT_TOKEN)
    with pytest.raises(HitlError) as e:
        c.check("shell", "ls")
    assert e.value.code == "unavailable" and "not answering" in e.value.message


@pytest.fixture
def limited(hitl_bin: str, tmp_path: Path) -> Server:
    # 60 questions a minute per token: a burst of ten, then one a second.
    s = Server(hitl_bin, tmp_path, env={"HITL_RATE_TOKEN_PER_MINUTE": "60", "HITL_RATE_RUN_PER_MINUTE": "0"})
    s.start()
    return s


def test_429_waits_retry_after_and_succeeds(limited: Server, run: str) -> None:
    try:
        slept: list[float] = []
        import time

        def sleep(s: float) -> None:
            slept.append(s)
            time.sleep(s)  # the client under test really waits what the service asked

        c = Client(limited.url, AGENT_TOKEN, sleep=sleep)
        ids = {c.ask(f"q{i}", run=run, wait=False).id for i in range(12)}
        assert len(ids) == 12  # every question was asked, none twice
        assert slept and all(s >= 1 for s in slept)  # Retry-After, in whole seconds
        assert c._st.retries == slept
    finally:
        limited.kill()


async def test_async_429_and_failover(limited: Server, run: str) -> None:
    try:
        c = AsyncClient(f"http://127.0.0.1:{free_port()},{limited.url}", AGENT_TOKEN)
        ids = {(await c.ask(f"q{i}", run=run, wait=False)).id for i in range(12)}
        assert len(ids) == 12 and c._st.retries
        await c.aclose()
    finally:
        limited.kill()


def test_events_resume_after_a_restart_without_losing_one(fresh_server: Server, run: str) -> None:
    fresh_server.start()
    c = Client(fresh_server.url, AGENT_TOKEN)
    stream = c.events(after=0)
    first = c.ask("before the restart", run=run, wait=False)
    assert next(ev for ev in stream if ev.type == "question_asked").data["questionId"] == first.id
    fresh_server.kill()
    other = Client(fresh_server.url, AGENT_TOKEN)
    fut = pool.submit(lambda: next(ev for ev in stream if ev.type == "question_asked"))  # the stream reconnects with Last-Event-ID
    fresh_server.start()
    second = other.ask("after the restart", run=run, wait=False)
    assert fut.result(timeout=60).data["questionId"] == second.id
