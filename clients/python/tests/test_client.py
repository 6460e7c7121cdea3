"""The sync and async clients against a real `hitl serve`; a person answers through the API."""

from __future__ import annotations

import json
import os
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, TypeVar

import pytest

from conftest import ADMIN_TOKEN, AGENT_TOKEN, ALICE_TOKEN, Person, Server
from hitl import AsyncClient, Client, Decision, HitlError, Question

T = TypeVar("T")
pool = ThreadPoolExecutor(max_workers=8)


def agent(server: Server) -> Client:
    return Client(server.url, AGENT_TOKEN)


def answered(call: Callable[[], T], person: Person, run: str, *answer: Any, **kw: Any) -> T:
    """Run the agent's call while the person answers its question; return what the call returned."""
    fut = pool.submit(call)
    q = person.question(run)
    person.answer(q["id"], *answer, **kw)
    return fut.result(timeout=30)


class TestAsk:
    def test_a_text_answer_is_returned(self, server: Server, person: Person, run: str) -> None:
        c = agent(server)
        assert answered(lambda: c.ask("Which branch?", run=run), person, run, "main") == "main"

    def test_a_choice_returns_the_option_value(self, server: Server, person: Person, run: str) -> None:
        c = agent(server)
        got = answered(lambda: c.ask("Which DB?", options=["prod", {"label": "Staging", "value": "stg"}], run=run), person, run, "Staging")
        assert got == "stg"

    def test_multi_select_returns_a_list(self, server: Server, person: Person, run: str) -> None:
        c = agent(server)
        got = answered(lambda: c.ask("Which envs?", options=["dev", "stg", "prod"], multi=True, run=run), person, run, ["dev", "prod"])
        assert got == ["dev", "prod"]

    def test_yes_no_returns_a_bool(self, server: Server, person: Person, run: str) -> None:
        c = agent(server)
        assert answered(lambda: c.ask("Ship it?", yes_no=True, run=run), person, run, "no") is False

    def test_what_the_person_sees(self, server: Server, person: Person, run: str) -> None:
        c = agent(server)
        fut = pool.submit(lambda: c.ask("Pick", options=["a", "b"], run=run, context={"currentStep": "step 3"}, sensitive=False))
        q = person.question(run)
        assert (q["question"], q["responseType"], [o["label"] for o in q["options"]]) == ("Pick", "choice", ["a", "b"])
        assert q["context"]["currentStep"] == "step 3" and q["asker"] == "api:agent"
        person.answer(q["id"], "a")
        assert fut.result(timeout=30) == "a"

    def test_timeout_with_a_default_returns_the_default(self, server: Server, run: str) -> None:
        c = agent(server)
        assert c.ask("Retry?", yes_no=True, default=True, timeout=1, run=run) is True

    def test_timeout_without_a_default_raises_timed_out(self, server: Server, run: str) -> None:
        with pytest.raises(HitlError) as e:
            agent(server).ask("Anyone?", timeout=1, run=run)
        assert e.value.code == "timed_out"

    def test_cancelled_raises_cancelled(self, server: Server, person: Person, run: str) -> None:
        c = agent(server)
        fut = pool.submit(lambda: c.ask("Cancel me", run=run))
        q = person.question(run)
        server.api("POST", f"/api/questions/{q['id']}/cancel", body={"reason": "not needed"})
        with pytest.raises(HitlError) as e:
            fut.result(timeout=30)
        assert e.value.code == "cancelled" and "not needed" in e.value.message and e.value.by == "api:alice"

    def test_no_wait_then_wait(self, server: Server, person: Person, run: str) -> None:
        c = agent(server)
        q = c.ask("Later?", run=run, wait=False)
        assert isinstance(q, Question) and q.id.startswith("q_") and q.status == "pending" and q.run == run
        with pytest.raises(HitlError) as e:
            c.wait(q.id, timeout=1)
        assert e.value.code == "deadline_exceeded"
        assert c.question(q.id).status == "pending"
        person.answer(q.id, "now")
        assert c.wait(q.id) == "now"

    def test_a_sensitive_answer_is_handed_over_once(self, server: Server, person: Person, run: str) -> None:
        c = agent(server)
        assert answered(lambda: c.ask("API key?", sensitive=True, run=run), person, run, "s3cret-value") == "s3cret-value"
        (q,) = server.api("GET", f"/api/jobs/{run}/questions")["questions"]
        assert "s3cret-value" not in str(q) and q["response"]["redacted"] is True

    def test_the_same_key_picks_up_the_same_question(self, server: Server, run: str) -> None:
        c = agent(server)
        a = c.ask("Once", run=run, key="k1", wait=False)
        b = c.ask("Once", run=run, key="k1", wait=False)
        assert a.id == b.id

    def test_default_run_is_named_after_user_and_principal(self, server: Server, person: Person, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("USER", "ci")
        monkeypatch.setenv("HITL_URL", server.url)
        monkeypatch.setenv("HITL_TOKEN", AGENT_TOKEN)
        c = Client()
        q = c.ask("Whose run?", wait=False)
        assert q.run == "py-ci@api:agent"
        c.cancel(q.id)

    def test_bad_input_is_invalid_before_anything_is_sent(self, server: Server) -> None:
        c = agent(server)
        calls: list[Callable[[], Any]] = [lambda: c.ask("x", options=["a"], yes_no=True, run="r"), lambda: c.ask("x", multi=True, run="r"), lambda: c.ask("x", timeout=-1, run="r")]
        for call in calls:
            with pytest.raises(HitlError) as e:
                call()
            assert e.value.code == "invalid"
        with pytest.raises(HitlError) as e:
            Client("ftp://x")
        assert e.value.code == "invalid"

    def test_the_services_errors_carry_its_codes(self, server: Server) -> None:
        with pytest.raises(HitlError) as e:
            Client(server.url, "wrong-token-0123456789").ask("x", run="r1")
        assert (e.value.code, e.value.status) == ("unauthorized", 401)
        with pytest.raises(HitlError) as e:  # alice answers; she may not ask
            Client(server.url, ALICE_TOKEN).ask("x", run="r1")
        assert (e.value.code, e.value.status) == ("forbidden", 403)
        with pytest.raises(HitlError) as e:
            agent(server).ask("", run="r1")
        assert (e.value.code, e.value.status) == ("invalid", 400)

    def test_nobody_answers_their_own_question(self, server: Server, run: str) -> None:
        q = agent(server).ask("Mine", run=run, wait=False)
        with pytest.raises(AssertionError, match="403"):
            server.api("POST", f"/api/questions/{q.id}/answer", token=AGENT_TOKEN, body={"response": {"value": "x"}})


class TestApproval:
    def test_policy_allow_returns_at_once(self, server: Server, person: Person, run: str) -> None:
        d = agent(server).request_approval("read the weather", op_type="test_allow", run=run)
        assert (d.outcome, d.by, d.rule, d.allowed) == ("approved", "policy", "test-allow", True)
        assert person.pending(run) == []

    def test_policy_deny_returns_at_once(self, server: Server, person: Person, run: str) -> None:
        d = agent(server).request_approval("drop the db", op_type="test_deny", run=run)
        assert (d.outcome, d.by, d.rule, d.allowed) == ("denied", "policy", "test-deny", False)
        assert "test-deny" in d.reason and person.pending(run) == []

    def test_approved_by_a_person(self, server: Server, person: Person, run: str) -> None:
        c = agent(server)
        fut = pool.submit(lambda: c.request_approval("deploy v2", op_type="deploy", resource="prod/web", reason="tests pass", risk="high", run=run))
        q = person.question(run)
        assert q["type"] == "approval" and q["operation"] == {"opType": "deploy", "operation": "deploy v2", "resource": "prod/web", "context": "tests pass", "risk": "high", "agent": "api:agent"}
        person.answer(q["id"], "approve", text="go ahead")
        d = fut.result(timeout=30)
        assert d == Decision("approved", message="go ahead", by="api:alice", question_id=q["id"], rule="default")

    def test_denied_with_a_reason(self, server: Server, person: Person, run: str) -> None:
        c = agent(server)
        d = answered(lambda: c.request_approval("deploy v3", op_type="deploy", run=run), person, run, "deny", text="freeze")
        assert (d.outcome, d.reason, d.by, d.allowed) == ("denied", "freeze", "api:alice", False)

    def test_a_reply_in_words_is_responded(self, server: Server, person: Person, run: str) -> None:
        c = agent(server)
        d = answered(lambda: c.request_approval("deploy v4", op_type="deploy", run=run), person, run, "reply", text="use the staging database instead")
        assert (d.outcome, d.message, d.reason, d.by, d.allowed) == ("responded", "use the staging database instead", "", "api:alice", False)

    def test_edited_input_comes_back_parsed(self, server: Server, person: Person, run: str) -> None:
        c = agent(server)
        fut = pool.submit(lambda: c.request_approval("send mail", op_type="api_call", input={"to": "all@x.io", "n": 1}, run=run))
        q = person.question(run)
        assert q["operation"]["resource"] == '{"n":1,"to":"all@x.io"}'
        person.answer(q["id"], "approve", edited='{"to": "me@x.io", "n": 1}')
        d = fut.result(timeout=30)
        assert (d.outcome, d.edited_input, d.allowed) == ("edited", {"to": "me@x.io", "n": 1}, True)

    def test_timed_out(self, server: Server, run: str) -> None:
        d = agent(server).request_approval("slow", op_type="deploy", timeout=1, run=run)
        assert (d.outcome, d.allowed) == ("timed_out", False)

    def test_check_decides_without_asking(self, server: Server, person: Person, run: str) -> None:
        c = agent(server)
        assert c.check("test_allow").decision == "allow"
        assert (c.check("test_deny", "x").decision, c.check("test_deny", "x").rule) == ("deny", "test-deny")
        shell = c.check("shell", "git status && make test")
        assert shell.decision == "ask" and len(shell.parts) >= 2
        assert person.pending(run) == []


class TestSteering:
    def test_checkpoint_done_abort(self, server: Server, run: str) -> None:
        c = agent(server)
        cp = c.checkpoint(run, 1, model="sonnet", max=3)
        assert (cp.run, cp.status, cp.model) == (run, "running", "sonnet")
        assert c.done(run).status == "done"
        assert server.api("GET", f"/api/jobs/{run}")["phase"] == "done"
        other = run + "-b"
        c.checkpoint(other, 1)
        assert c.abort(other, "tests keep failing").status == "aborted"
        with pytest.raises(HitlError) as e:
            c.checkpoint(other, 2)
        assert e.value.code == "cancelled" and "aborted" in e.value.message

    def test_a_cancelled_run_stops_at_its_checkpoint(self, server: Server, run: str) -> None:
        c = agent(server)
        c.checkpoint(run, 1)
        server.api("POST", "/api/topics/loop:control", body={"schema": 0, "type": "REQUEST", "request_id": str(uuid.uuid4()), "command": "cancel", "target": {"run_id": run}, "timestamp": "2026-01-01T00:00:00Z", "payload": {}})
        with pytest.raises(HitlError) as e:
            c.checkpoint(run, 2)
        assert e.value.code == "cancelled"

    def test_a_paused_run_waits_at_its_checkpoint_until_resumed(self, server: Server, run: str) -> None:
        c = agent(server)
        c.checkpoint(run, 1)

        def control(cmd: str) -> None:
            server.api("POST", "/api/topics/loop:control", body={"schema": 0, "type": "REQUEST", "request_id": str(uuid.uuid4()), "command": cmd, "target": {"run_id": run}, "timestamp": "2026-01-01T00:00:00Z", "payload": {}})

        control("pause")
        fut = pool.submit(lambda: c.checkpoint(run, 2))
        with pytest.raises(TimeoutError):
            fut.result(timeout=1.5)
        control("resume")
        assert fut.result(timeout=30).status == "running"


class TestEvents:
    def test_events_stream_and_resume_from_the_last_id(self, server: Server, run: str) -> None:
        c = agent(server)
        q1 = c.ask("first", run=run, wait=False)
        seen = []
        for ev in c.events(after=0):
            if ev.data.get("jobId") == run and ev.type == "question_asked":
                seen.append(ev)
                break
        assert seen[0].data["questionId"] == q1.id and seen[0].id
        q2 = c.ask("second", run=run, wait=False)
        nxt = next(ev for ev in c.events(last_event_id=seen[0].id) if ev.type == "question_asked" and ev.data.get("jobId") == run)
        assert nxt.data["questionId"] == q2.id


class TestAsync:
    async def test_ask_and_approval(self, server: Server, person: Person, run: str) -> None:
        import asyncio

        async with AsyncClient(server.url, AGENT_TOKEN) as c:
            task = asyncio.create_task(c.ask("Async?", yes_no=True, run=run))
            q = await asyncio.to_thread(person.question, run)
            person.answer(q["id"], "yes")
            assert await task is True
            d = await c.request_approval("x", op_type="test_deny", run=run)
            assert (d.outcome, d.by) == ("denied", "policy")
            assert (await c.check("test_allow")).decision == "allow"
            q2 = await c.ask("later", run=run, wait=False)
            person.answer(q2.id, "done")
            assert await c.wait(q2.id) == "done"
            assert (await c.checkpoint(run + "-loop", 1)).status == "running"
            assert (await c.done(run + "-loop")).status == "done"
            async for ev in c.events(after=0):
                if ev.data.get("questionId") == q2.id:
                    break
            with pytest.raises(HitlError) as e:
                await c.ask("", run=run)
            assert e.value.code == "invalid"
