"""A graceful restart of the service (SIGTERM, what systemctl and docker send;
SIGINT, Ctrl-C) while a client waits: on a question (long poll), on the event
stream (SSE) and on a checkpoint held while its run is paused. The service
comes back on the same database; the client gets its answer, raises nothing,
and nothing is asked twice. Whatever the stopping service answers the waiting
request with (today an empty 200, a 503 with Retry-After, a closed
connection), the client treats it as "try again"."""

from __future__ import annotations

import asyncio
import signal
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterator

import pytest

from conftest import AGENT_TOKEN, Person, Server
from hitl import AsyncClient, Client

pool = ThreadPoolExecutor(max_workers=4)

SIGNALS = [pytest.param(signal.SIGTERM, id="SIGTERM"), pytest.param(signal.SIGINT, id="SIGINT")]


@pytest.fixture
def up(fresh_server: Server) -> Iterator[Server]:
    fresh_server.start()
    yield fresh_server


def control(server: Server, run: str, cmd: str) -> None:
    server.api("POST", "/api/topics/loop:control", body={"schema": 0, "type": "REQUEST", "request_id": str(uuid.uuid4()), "command": cmd, "target": {"run_id": run}, "timestamp": "2026-01-01T00:00:00Z", "payload": {}})


def held(server: Server, run: str, it: int, timeout: float = 30) -> None:
    """Waits until the service holds the paused run's checkpoint at
    iteration it: the report is recorded (the run's nextIter) before the
    call is held, so a stop after this stops a service that holds it."""
    deadline = time.monotonic() + timeout
    while True:
        control = server.api("GET", f"/api/runs/{run}")["control"]
        if control.get("nextIter") == it:
            return
        assert time.monotonic() < deadline, f"the checkpoint at {it} was not held: {control}"
        time.sleep(0.02)


def asked_once(server: Server, run: str) -> None:
    qs = server.questions(run)
    assert len(qs) == 1, f"asked {len(qs)} times: {qs}"


@pytest.mark.parametrize("sig", SIGNALS)
def test_sync_ask_waits_out_a_graceful_restart(up: Server, run: str, sig: int) -> None:
    c = Client(up.url, AGENT_TOKEN)
    fut = pool.submit(lambda: c.ask("Still there after a restart?", run=run))
    q = Person(up).question(run)
    up.stop(sig)  # the long poll is answered by a service on its way out
    up.start()  # same port, same database
    Person(up).answer(q["id"], "yes")
    assert fut.result(timeout=60) == "yes"
    asked_once(up, run)


@pytest.mark.parametrize("sig", SIGNALS)
async def test_async_ask_waits_out_a_graceful_restart(up: Server, run: str, sig: int) -> None:
    async with AsyncClient(up.url, AGENT_TOKEN) as c:
        task = asyncio.create_task(c.ask("Still there after a restart?", run=run))
        q = await asyncio.to_thread(Person(up).question, run)
        await asyncio.to_thread(up.stop, sig)
        await asyncio.to_thread(up.start)
        Person(up).answer(q["id"], "yes")
        assert await asyncio.wait_for(task, 60) == "yes"
    asked_once(up, run)


@pytest.mark.parametrize("sig", SIGNALS)
def test_sync_events_carry_on_through_a_graceful_restart(up: Server, run: str, sig: int) -> None:
    c = Client(up.url, AGENT_TOKEN)
    q = c.ask("Streamed?", run=run, wait=False)
    stream = c.events(after=0)
    assert next(ev for ev in stream if ev.type == "question_asked" and ev.data.get("questionId") == q.id)

    def answered() -> Any:
        return next(ev for ev in stream if ev.type == "question_answered" and ev.data.get("questionId") == q.id)

    fut = pool.submit(answered)  # the stream waits for the next event
    up.stop(sig)
    up.start()
    Person(up).answer(q.id, "yes")
    assert fut.result(timeout=60).data["questionId"] == q.id
    assert c.wait(q.id, timeout=30) == "yes"
    asked_once(up, run)


@pytest.mark.parametrize("sig", SIGNALS)
async def test_async_events_carry_on_through_a_graceful_restart(up: Server, run: str, sig: int) -> None:
    async with AsyncClient(up.url, AGENT_TOKEN) as c:
        q = await c.ask("Streamed?", run=run, wait=False)

        async def answered() -> str:
            seen_asked = False
            async for ev in c.events(after=0):
                if ev.data.get("questionId") != q.id:
                    continue
                if ev.type == "question_asked":
                    seen_asked = True
                if ev.type == "question_answered":
                    assert seen_asked
                    return ev.id
            raise AssertionError("the stream ended")

        task = asyncio.create_task(answered())
        await asyncio.to_thread(up.stop, sig)
        await asyncio.to_thread(up.start)
        Person(up).answer(q.id, "yes")
        assert await asyncio.wait_for(task, 60)
        assert await c.wait(q.id, timeout=30) == "yes"
    asked_once(up, run)


@pytest.mark.parametrize("sig", SIGNALS)
def test_sync_paused_checkpoint_waits_out_a_graceful_restart(up: Server, run: str, sig: int) -> None:
    c = Client(up.url, AGENT_TOKEN)
    c.checkpoint(run, 1)
    control(up, run, "pause")
    fut = pool.submit(lambda: c.checkpoint(run, 2))
    held(up, run, 2)
    up.stop(sig)
    up.start()
    assert not fut.done(), "a paused run's checkpoint returned across the restart"
    control(up, run, "resume")
    assert fut.result(timeout=60).status == "running"


@pytest.mark.parametrize("sig", SIGNALS)
async def test_async_paused_checkpoint_waits_out_a_graceful_restart(up: Server, run: str, sig: int) -> None:
    async with AsyncClient(up.url, AGENT_TOKEN) as c:
        await c.checkpoint(run, 1)
        control(up, run, "pause")
        task = asyncio.create_task(c.checkpoint(run, 2))
        await asyncio.to_thread(held, up, run, 2)
        await asyncio.to_thread(up.stop, sig)
        await asyncio.to_thread(up.start)
        assert not task.done(), "a paused run's checkpoint returned across the restart"
        control(up, run, "resume")
        assert (await asyncio.wait_for(task, 60)).status == "running"


@pytest.mark.parametrize("body", [None, [], "not json", 3], ids=["empty", "a list", "text", "a number"])
def test_a_2xx_without_its_json_object_is_a_transport_failure_and_the_wait_retries(body: Any) -> None:
    """The flow shared by both clients, fed the replies a stopping service
    or a proxy gives (an empty, cut or non-JSON 200): each is retried after
    a pause, and the question's real answer ends the wait."""
    from hitl import _protocol as p

    st = p.State(urls=["http://a"], token=None)
    flow = p.wait(st, "q1", None)
    op = next(flow)
    pauses = 0
    for _ in range(3):
        assert isinstance(op, p.Attempt) and op.path == "/api/questions/q1"
        op = flow.send(p.Reply(200, {}, body))
        assert isinstance(op, p.Pause), f"a 200 with {body!r} was not retried"
        pauses += 1
        op = flow.send(None)
    with pytest.raises(StopIteration) as done:
        flow.send(p.Reply(200, {}, {"question": {"id": "q1", "status": "answered"}}))
    assert done.value.value["status"] == "answered" and pauses == 3
