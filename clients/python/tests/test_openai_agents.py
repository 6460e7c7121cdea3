"""hitl.integrations.openai_agents driving the real OpenAI Agents SDK end to end: a fake
OpenAI-compatible model on loopback, real hitl serve, a person answering through its API."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest
from agents import Agent, OpenAIChatCompletionsModel, function_tool, set_tracing_disabled
from openai import AsyncOpenAI

from conftest import AGENT_TOKEN, Person, Server
from fake_openai import FakeOpenAI, text, tool_calls
from readable import block, show
from hitl import AsyncClient
from hitl.integrations import openai_agents as hitl_oa

set_tracing_disabled(True)


class World:
    def __init__(self, dir: Path | None = None) -> None:
        self.sent: List[Dict[str, Any]] = []
        self.dropped: List[str] = []
        self.dir = dir


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def agent_for(server: Server, world: World, fake: FakeOpenAI) -> tuple[Agent[Any], AsyncClient]:
    client = AsyncClient(server.url, AGENT_TOKEN)

    @function_tool(needs_approval=hitl_oa.needs_approval(client, "send_email"))
    async def send_email(to: str, subject: str) -> str:
        """Send an email to a customer."""
        world.sent.append({"to": to, "subject": subject})
        return f"sent to {to}"

    @function_tool(needs_approval=hitl_oa.needs_approval(client, "get_weather", op_type="test_allow"))
    async def get_weather(city: str) -> str:
        """Today's weather."""
        return f"sunny in {city}"

    @function_tool(needs_approval=hitl_oa.needs_approval(client, "drop_db", op_type="test_deny"))
    async def drop_db(name: str) -> str:
        """Drop a database."""
        world.dropped.append(name)
        return "dropped"

    @function_tool(needs_approval=hitl_oa.needs_approval(client, "write_file", cwd=str(world.dir)))
    async def write_file(path: str, content: str) -> str:
        """Write a file."""
        assert world.dir is not None
        (world.dir / path).write_text(content)
        return f"wrote {path}"

    @function_tool(needs_approval=hitl_oa.needs_approval(client, "post_note"))
    async def post_note(channel: str, body: str) -> str:
        """Post a note."""
        world.sent.append({"channel": channel, "body": body})
        return "posted"

    model = OpenAIChatCompletionsModel(model="fake", openai_client=AsyncOpenAI(base_url=fake.url, api_key="test", max_retries=0))
    return Agent(name="mailer", instructions="help", tools=[send_email, get_weather, drop_db, write_file, post_note], model=model), client


def script(*calls: Dict[str, Any]) -> Any:
    def answer(messages: List[Dict[str, Any]]) -> Dict[str, Any]:
        results = [m["content"] for m in messages if m.get("role") == "tool"]
        return text("done: " + " | ".join(str(r) for r in results)) if results else tool_calls(*calls)

    return answer


@pytest.fixture
def fake_email() -> Iterator[FakeOpenAI]:
    f = FakeOpenAI(script({"name": "send_email", "args": {"to": "all@corp.io", "subject": "hi"}}))
    yield f
    f.close()


OP = {"send_email": "api_call", "get_weather": "test_allow", "drop_db": "test_deny"}


async def drive(server: Server, world: World, fake: FakeOpenAI, run: str, person: Person | None, *answer: Any, timeout: float | None = None, **kw: Any) -> Any:
    agent, client = agent_for(server, world, fake)
    task = asyncio.create_task(hitl_oa.run(agent, "mail everyone", client=client, run=run, op_types=OP, timeout=timeout))
    if person is not None:
        q = await asyncio.to_thread(person.question, run)
        assert world.sent == []  # nothing runs before the person decides
        person.answer(q["id"], *answer, **kw)
    result = await asyncio.wait_for(task, 60)
    await client.aclose()
    return result


async def test_approve_runs_the_tool(server: Server, person: Person, run: str, world: World, fake_email: FakeOpenAI) -> None:
    result = await drive(server, world, fake_email, run, person, "approve")
    assert world.sent == [{"to": "all@corp.io", "subject": "hi"}]
    assert result.final_output == "done: sent to all@corp.io"


async def test_what_the_person_sees(server: Server, person: Person, run: str, world: World, fake_email: FakeOpenAI) -> None:
    agent, client = agent_for(server, world, fake_email)
    task = asyncio.create_task(hitl_oa.run(agent, "go", client=client, run=run, op_types=OP))
    q = await asyncio.to_thread(person.question, run)
    assert q["operation"] == {"opType": "api_call", "operation": "send_email: Send an email to a customer.", "resource": '{"subject":"hi","to":"all@corp.io"}',
                              "context": "tool send_email", "agent": "api:agent", "prompted": True, "noEdit": True}
    person.answer(q["id"], "deny")
    await asyncio.wait_for(task, 60)


async def test_reject_with_a_reason_reaches_the_model(server: Server, person: Person, run: str, world: World, fake_email: FakeOpenAI) -> None:
    result = await drive(server, world, fake_email, run, person, "deny", text="not to everyone")
    assert world.sent == [] and "not to everyone" in result.final_output


async def test_a_reply_rejects_with_its_text(server: Server, person: Person, run: str, world: World, fake_email: FakeOpenAI) -> None:
    result = await drive(server, world, fake_email, run, person, "reply", text="email only the EU list")
    assert world.sent == [] and "Not approved: api:alice replied in hitl instead: email only the EU list" in result.final_output


async def test_no_edit_is_offered_and_an_edited_answer_is_refused(server: Server, person: Person, run: str, world: World, fake_email: FakeOpenAI) -> None:
    """The SDK runs a tool only with the model's arguments: the approval says
    noEdit, hitl refuses an edited answer, and the call runs as asked."""
    agent, client = agent_for(server, world, fake_email)
    task = asyncio.create_task(hitl_oa.run(agent, "go", client=client, run=run, op_types=OP))
    q = await asyncio.to_thread(person.question, run)
    assert q["operation"]["noEdit"] is True
    with pytest.raises(AssertionError, match="400"):
        person.answer(q["id"], "approve", edited='{"to": "me@corp.io", "subject": "hi"}')
    person.answer(q["id"], "approve")
    await asyncio.wait_for(task, 60)
    await client.aclose()
    assert world.sent == [{"to": "all@corp.io", "subject": "hi"}]


async def test_a_file_write_is_asked_with_its_diff(server: Server, person: Person, run: str, world: World) -> None:
    """A tool that writes a whole file is a file_write of its absolute path,
    with the diff of the file it would write, read on the agent's machine."""
    assert world.dir is not None
    (world.dir / "notes.md").write_text("one\ntwo\nthree\n")
    fake = FakeOpenAI(script({"name": "write_file", "args": {"path": "notes.md", "content": "one\n2\nthree\nfour\n"}}))
    agent, client = agent_for(server, world, fake)
    try:
        task = asyncio.create_task(hitl_oa.run(agent, "go", client=client, run=run, cwd=str(world.dir)))
        q = await asyncio.to_thread(person.question, run)
        op = q["operation"]
        path = str(world.dir / "notes.md")
        assert (op["opType"], op["resource"], op["cwd"], op["noEdit"]) == ("file_write", path, str(world.dir), True)
        assert op["diffs"] == [{"path": path, "change": "modify", "added": 2, "removed": 1,
                                "unified": f"--- a{path}\n+++ b{path}\n@@ -1,3 +1,4 @@\n one\n-two\n+2\n three\n+four\n"}]
        assert "(+2 −1)" in show(server, q["id"])
        assert (world.dir / "notes.md").read_text() == "one\ntwo\nthree\n"  # nothing ran before the person decided
        person.answer(q["id"], "approve")
        result = await asyncio.wait_for(task, 60)
        assert (world.dir / "notes.md").read_text() == "one\n2\nthree\nfour\n" and "wrote notes.md" in result.final_output
    finally:
        fake.close()
        await client.aclose()


async def test_a_tools_input_reads_as_its_fields(server: Server, person: Person, run: str, world: World) -> None:
    """The question shows the tool's arguments as key/values, a multi-line
    value as a block with its line breaks, not as escaped JSON."""
    body = "Deployed v2.\nStaging only.\n  - rollback: make undo"
    fake = FakeOpenAI(script({"name": "post_note", "args": {"channel": "#ops", "body": body}}))
    agent, client = agent_for(server, world, fake)
    try:
        task = asyncio.create_task(hitl_oa.run(agent, "go", client=client, run=run))
        q = await asyncio.to_thread(person.question, run)
        out = show(server, q["id"])
        assert "  channel: #ops\n" in out and block("body", body) in out, out
        assert "\\n" not in out, out
        person.answer(q["id"], "deny")
        await asyncio.wait_for(task, 60)
    finally:
        fake.close()
        await client.aclose()


async def test_always_approve_is_passed_to_the_sdk(server: Server, person: Person, run: str, world: World) -> None:
    calls = {"name": "send_email", "args": {"to": "team@corp.io", "subject": "again"}}
    turns = iter([tool_calls(calls), tool_calls(calls, turn=1), text("done")])
    fake = FakeOpenAI(lambda messages: next(turns))
    try:
        await drive(server, world, fake, run, person, "approve", always=True)
        # the second identical call ran without a second question: the SDK's always_approve (and hitl's learned rule)
        assert world.sent == [{"to": "team@corp.io", "subject": "again"}] * 2
        assert person.pending(run) == []
    finally:
        fake.close()


async def test_policy_allow_never_asks_and_deny_never_runs(server: Server, person: Person, run: str, world: World) -> None:
    fake = FakeOpenAI(script({"name": "get_weather", "args": {"city": "Oslo"}}, {"name": "drop_db", "args": {"name": "prod"}}))
    try:
        result = await drive(server, world, fake, run, None)
        assert "sunny in Oslo" in result.final_output and "test-deny" in result.final_output
        assert world.dropped == [] and server.api("GET", f"/api/jobs/{run}/questions")["questions"] == []
    finally:
        fake.close()


async def test_a_timeout_rejects(server: Server, run: str, world: World, fake_email: FakeOpenAI) -> None:
    result = await drive(server, world, fake_email, run, None, timeout=1)
    assert world.sent == [] and "in time" in result.final_output
