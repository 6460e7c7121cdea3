"""Client and AsyncClient take the same parameters for every public call:
each is written once in the shared core (_base_client.py) and both clients
derive their method from it, keeping the full signature for users (mypy
checks the assert_type lines below; they fail if a method's parameters or
result type are lost)."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, Coroutine, Mapping

import pytest

from hitl import AsyncClient, Checkpoint, Client, Decision, PolicyDecision, Question

PUBLIC = ["whoami", "ask", "wait", "question", "cancel", "request_approval", "check", "checkpoint", "done", "abort", "events"]


@pytest.mark.parametrize("name", PUBLIC)
def test_same_signature_on_both_clients(name: str) -> None:
    s, a = getattr(Client, name), getattr(AsyncClient, name)
    assert inspect.signature(s).parameters == inspect.signature(a).parameters, name
    if name != "events":  # events: Iterator[Event] and AsyncIterator[Event]
        assert inspect.signature(s) == inspect.signature(a), name
    assert s.__doc__ and s.__doc__ == a.__doc__, name
    assert s.__name__ == a.__name__ == name
    assert s.__qualname__ == f"Client.{name}" and a.__qualname__ == f"AsyncClient.{name}"
    if name != "events":
        assert inspect.iscoroutinefunction(a) and not inspect.iscoroutinefunction(s), name
    assert "Call[" not in str(inspect.signature(s)), "the flow's generator type leaked into the signature"


def test_a_wrong_argument_is_refused_as_before() -> None:
    c = Client("http://127.0.0.1:9")
    with pytest.raises(TypeError):
        c.ask("q", nope=1)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        c.check()  # type: ignore[call-arg]


if TYPE_CHECKING:
    from typing_extensions import assert_type

    def typed(c: Client, a: AsyncClient) -> None:
        assert_type(c.question("q"), Question)
        _ = assert_type(a.question("q"), Coroutine[Any, Any, Question])
        assert_type(c.request_approval("x", op_type="shell", timeout=300), Decision)
        _ = assert_type(a.request_approval("x", op_type="shell", timeout=300), Coroutine[Any, Any, Decision])
        assert_type(c.check("shell", "ls"), PolicyDecision)
        _ = assert_type(a.checkpoint("run", 1, model="m"), Coroutine[Any, Any, Checkpoint])
        assert_type(c.whoami(), Mapping[str, Any])
        assert_type(c.ask("q", options=["a"], timeout=300), Any)
