"""One client vocabulary: the code (or Decision outcome) of each end of a
wait, the same in the Go SDK, Python and TypeScript (docs/api.md#client-error-codes;
agent/vocabulary_test.go), for
Client and AsyncClient alike."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any, Awaitable, Callable, Union

import pytest

from conftest import AGENT_TOKEN, Server
from hitl import AsyncClient, Client, HitlError

Either = Union[Client, AsyncClient]


async def call(c: Either, method: str, *args: Any, **kw: Any) -> Any:
    """c.method(*args, **kw), awaited for the AsyncClient, in a thread for Client."""
    if isinstance(c, AsyncClient):
        fn: Callable[..., Awaitable[Any]] = getattr(c, method)
        return await fn(*args, **kw)
    return await asyncio.to_thread(getattr(c, method), *args, **kw)


async def code_of(c: Either, method: str, *args: Any, **kw: Any) -> str:
    with pytest.raises(HitlError) as e:
        await call(c, method, *args, **kw)
    return e.value.code


@pytest.fixture(params=["Client", "AsyncClient"])
def client(request: pytest.FixtureRequest, server: Server) -> Either:
    return Client(server.url, AGENT_TOKEN) if request.param == "Client" else AsyncClient(server.url, AGENT_TOKEN)


async def test_the_question_timed_out_on_the_service(client: Either, run: str) -> None:
    assert await code_of(client, "ask", "Anyone?", timeout=1, run=run) == "timed_out"


async def test_the_clients_wait_ran_out_with_the_question_pending(client: Either, server: Server, run: str) -> None:
    q = await call(client, "ask", "Later?", run=run, wait=False)
    assert await code_of(client, "wait", q.id, timeout=1) == "deadline_exceeded"
    assert (await call(client, "question", q.id)).status == "pending"


async def test_the_question_was_cancelled(client: Either, server: Server, run: str) -> None:
    q = await call(client, "ask", "Cancel me", run=run, wait=False)
    server.api("POST", f"/api/questions/{q.id}/cancel", body={"reason": "not needed"})
    assert await code_of(client, "wait", q.id) == "cancelled"


async def test_the_run_was_cancelled_at_a_checkpoint(client: Either, server: Server, run: str) -> None:
    await call(client, "checkpoint", run, 1)
    server.api("POST", "/api/topics/loop:control", body={"schema": 0, "type": "REQUEST", "request_id": str(uuid.uuid4()), "command": "cancel", "target": {"run_id": run}, "timestamp": "2026-01-01T00:00:00Z", "payload": {}})
    assert await code_of(client, "checkpoint", run, 2) == "cancelled"


@pytest.mark.parametrize("method,args", [("ask", ("Quick?",)), ("request_approval", ("deploy",))])
@pytest.mark.parametrize("timeout,bound", [(0.5, "minimum of 1s (timeouts.min)"), (25 * 3600, "maximum of 24h (timeouts.max)")])
async def test_a_timeout_outside_the_services_bounds_is_invalid_and_asks_nobody(client: Either, server: Server, run: str, method: str, args: Any, timeout: float, bound: str) -> None:
    with pytest.raises(HitlError) as e:
        await call(client, method, *args, timeout=timeout, run=run, **({"op_type": "deploy"} if method == "request_approval" else {}))
    assert e.value.code == "invalid" and bound in e.value.message, e.value.message
    assert server.questions(run) == []


async def test_an_approval_that_timed_out_and_one_denied_are_outcomes(client: Either, run: str) -> None:
    assert (await call(client, "request_approval", "slow", op_type="deploy", timeout=1, run=run)).outcome == "timed_out"
    assert (await call(client, "request_approval", "x", op_type="test_deny", run=run)).outcome == "denied"
