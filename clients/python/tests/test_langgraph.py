"""hitl.integrations.langgraph driving LangChain's create_agent + HumanInTheLoopMiddleware
(and a plain interrupt() graph) end to end, with a fake chat model and real hitl serve."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, TypedDict

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt

from conftest import AGENT_TOKEN, Person, Server
from readable import block, show
from hitl import Client, HitlError
from hitl.integrations import langgraph as hitl_lg

pool = ThreadPoolExecutor(max_workers=4)
OP_TYPES = {"get_weather": "test_allow", "drop_db": "test_deny"}


class FakeToolModel(GenericFakeChatModel):
    def bind_tools(self, tools: Sequence[Any], **kw: Any) -> "FakeToolModel":
        return self


class World:
    """The tools' side effects."""

    def __init__(self, dir: Optional[Path] = None) -> None:
        self.sent: List[Dict[str, Any]] = []
        self.dropped: List[str] = []
        self.dir = dir

    def agent(self, calls: List[Dict[str, Any]], mode: str = "batched") -> Any:
        world = self

        @tool
        def send_email(to: str, subject: str, urgent: bool = False) -> str:
            """Send an email."""
            world.sent.append({"to": to, "subject": subject, "urgent": urgent})
            return f"sent to {to}"

        @tool
        def get_weather(city: str) -> str:
            """Today's weather."""
            return f"sunny in {city}"

        @tool
        def drop_db(name: str) -> str:
            """Drop a database."""
            world.dropped.append(name)
            return "dropped"

        @tool
        def post_status(text: str) -> str:
            """Post a status update."""
            world.sent.append({"status": text})
            return "posted"

        @tool
        def ask_user(question: str) -> str:
            """Ask the user."""
            raise AssertionError("ask_user is answered by a person, never run")

        @tool
        def write_file(path: str, content: str) -> str:
            """Write a file."""
            assert world.dir is not None
            (world.dir / path).write_text(content)
            return f"wrote {path}"

        self.tools = [send_email, get_weather, drop_db, post_status, ask_user, write_file]
        model = FakeToolModel(messages=iter([AIMessage(content="", tool_calls=[{**c, "id": c.get("id", f"call_{i}")} for i, c in enumerate(calls)]), AIMessage(content="all done")]))
        interrupt_on: Dict[str, Any] = {
            "send_email": {"allowed_decisions": ["approve", "edit", "reject"], "description": "Email a customer"},
            "get_weather": True,
            "drop_db": {"allowed_decisions": ["approve", "reject"]},
            "ask_user": {"allowed_decisions": ["respond"]},
            "post_status": {"allowed_decisions": ["approve", "reject", "respond"]},
            "write_file": {"allowed_decisions": ["approve", "edit", "reject"]},
        }
        hitl_mw = HumanInTheLoopMiddleware(
            interrupt_on=interrupt_on,
            interrupt_mode=mode,  # type: ignore[arg-type]
        )
        return create_agent(model, tools=self.tools, middleware=[hitl_mw], checkpointer=InMemorySaver())


def tool_messages(result: Dict[str, Any]) -> Dict[str, ToolMessage]:
    return {str(m.name): m for m in result["messages"] if isinstance(m, ToolMessage)}


def start(server: Server, graph: Any, run: str, **kw: Any) -> Any:
    c = Client(server.url, AGENT_TOKEN)
    cfg = {"configurable": {"thread_id": uuid.uuid4().hex}}
    return pool.submit(lambda: hitl_lg.run(graph, {"messages": [{"role": "user", "content": "go"}]}, cfg, client=c, run=run, op_types=OP_TYPES, **kw))


EMAIL = {"name": "send_email", "args": {"to": "all@corp.io", "subject": "hi"}}


@pytest.mark.parametrize("mode", ["batched", "per_call"])
def test_approve_runs_the_tool_as_asked(server: Server, person: Person, run: str, mode: str) -> None:
    w = World()
    fut = start(server, w.agent([EMAIL], mode), run)
    q = person.question(run)
    assert q["operation"]["opType"] == "send_email" and q["operation"]["operation"].startswith("send_email: Email a customer")
    assert q["operation"]["resource"] == '{"subject":"hi","to":"all@corp.io"}' and q["operation"]["prompted"] is True
    assert w.sent == []  # nothing runs before the person decides
    person.answer(q["id"], "approve")
    result = fut.result(timeout=60)
    assert w.sent == [{"to": "all@corp.io", "subject": "hi", "urgent": False}]
    assert tool_messages(result)["send_email"].content == "sent to all@corp.io"


@pytest.mark.parametrize("mode", ["batched", "per_call"])
def test_edit_runs_the_tool_with_the_edited_input(server: Server, person: Person, run: str, mode: str) -> None:
    w = World()
    g = w.agent([EMAIL], mode)
    fut = start(server, g, run, tools=None if mode == "per_call" else w.tools)
    q = person.question(run)
    person.answer(q["id"], "approve", edited='{"to": "me@corp.io", "subject": "hi", "urgent": true}')
    fut.result(timeout=60)
    assert w.sent == [{"to": "me@corp.io", "subject": "hi", "urgent": True}]


@pytest.mark.parametrize("mode", ["batched", "per_call"])
@pytest.mark.parametrize("edit, why", [('{"to": "me@corp.io"}', "'subject' is a required property"), ('{"to": "x", "subject": 3}', "3 is not of type 'string'"), ("to=me", "not JSON"), ("[1]", "not an object")])
def test_an_edit_that_does_not_fit_the_schema_is_refused_and_nothing_runs(server: Server, person: Person, run: str, mode: str, edit: str, why: str) -> None:
    w = World()
    g = w.agent([EMAIL], mode)
    fut = start(server, g, run, tools=None if mode == "per_call" else w.tools)
    q = person.question(run)
    person.answer(q["id"], "approve", edited=edit)
    result = fut.result(timeout=60)
    assert w.sent == []
    msg = tool_messages(result)["send_email"]
    assert msg.status == "error" and why in str(msg.content) and "api:alice" in str(msg.content)


def test_reject_with_a_reason_reaches_the_model_and_nothing_runs(server: Server, person: Person, run: str) -> None:
    w = World()
    fut = start(server, w.agent([EMAIL]), run)
    q = person.question(run)
    person.answer(q["id"], "deny", text="not to everyone")
    result = fut.result(timeout=60)
    assert w.sent == []
    assert "not to everyone" in str(tool_messages(result)["send_email"].content)


@pytest.mark.parametrize("mode", ["batched", "per_call"])
def test_a_reply_is_the_respond_decision_where_allowed_and_nothing_runs(server: Server, person: Person, run: str, mode: str) -> None:
    w = World()
    fut = start(server, w.agent([{"name": "post_status", "args": {"text": "deployed"}}], mode), run)
    q = person.question(run)
    person.answer(q["id"], "reply", text="say it is on staging only")
    msg = tool_messages(fut.result(timeout=60))["post_status"]
    assert w.sent == []
    assert (msg.content, msg.status) == ("say it is on staging only", "success")


def test_a_reply_rejects_with_its_text_where_respond_is_not_allowed(server: Server, person: Person, run: str) -> None:
    w = World()
    fut = start(server, w.agent([EMAIL]), run)
    q = person.question(run)
    person.answer(q["id"], "reply", text="email only the EU list")
    msg = tool_messages(fut.result(timeout=60))["send_email"]
    assert w.sent == []
    assert msg.status == "error" and "Not approved: api:alice replied in hitl instead: email only the EU list" in str(msg.content)


def test_respond_answers_for_an_ask_user_tool(server: Server, person: Person, run: str) -> None:
    w = World()
    fut = start(server, w.agent([{"name": "ask_user", "args": {"question": "Which region?"}}]), run)
    q = person.question(run)
    assert q["responseType"] == "text" and "ask_user" in q["question"]
    person.answer(q["id"], "eu-west-1")
    msg = tool_messages(fut.result(timeout=60))["ask_user"]
    assert (msg.content, msg.status) == ("eu-west-1", "success")


def test_policy_allow_never_asks_and_deny_never_runs(server: Server, person: Person, run: str) -> None:
    w = World()
    result = start(server, w.agent([{"name": "get_weather", "args": {"city": "Oslo"}}, {"name": "drop_db", "args": {"name": "prod"}}]), run).result(timeout=60)
    msgs = tool_messages(result)
    assert msgs["get_weather"].content == "sunny in Oslo"
    assert w.dropped == [] and "test-deny" in str(msgs["drop_db"].content)
    assert person.pending(run) == [] and server.api("GET", f"/api/jobs/{run}/questions")["questions"] == []


def test_a_timeout_rejects_and_nothing_runs(server: Server, run: str) -> None:
    w = World()
    result = start(server, w.agent([EMAIL]), run, timeout=1).result(timeout=60)
    assert w.sent == [] and "in time" in str(tool_messages(result)["send_email"].content)


def test_a_batch_asks_every_item_at_once(server: Server, person: Person, run: str) -> None:
    w = World()
    fut = start(server, w.agent([EMAIL, {"name": "send_email", "args": {"to": "b@corp.io", "subject": "yo"}}]), run)
    a, b = person.question(run), person.question(run)  # both are pending before either is answered
    by_to = {q["operation"]["resource"]: q for q in (a, b)}
    person.answer(by_to['{"subject":"yo","to":"b@corp.io"}']["id"], "deny", text="no")
    person.answer(by_to['{"subject":"hi","to":"all@corp.io"}']["id"], "approve")
    fut.result(timeout=60)
    assert w.sent == [{"to": "all@corp.io", "subject": "hi", "urgent": False}]


class S(TypedDict, total=False):
    db: str
    name: str


def plain_graph() -> Any:
    def pick(state: S) -> S:
        return {"db": interrupt({"question": "Which DB?", "options": ["prod", "staging"]})}

    def name(state: S) -> S:
        return {"name": interrupt("Name the release")}

    g = StateGraph(S)
    g.add_node("pick", pick)
    g.add_node("name", name)
    g.add_edge(START, "pick")
    g.add_edge("pick", "name")
    g.add_edge("name", END)
    return g.compile(checkpointer=InMemorySaver())


def test_plain_interrupts_become_questions(server: Server, person: Person, run: str) -> None:
    c = Client(server.url, AGENT_TOKEN)
    fut = pool.submit(lambda: hitl_lg.run(plain_graph(), {}, {"configurable": {"thread_id": "t1"}}, client=c, run=run))
    q = person.question(run)
    assert q["responseType"] == "choice"
    person.answer(q["id"], "staging")
    q2 = person.question(run)
    assert (q2["question"], q2["responseType"]) == ("Name the release", "text")
    person.answer(q2["id"], "v2.1")
    assert fut.result(timeout=60) == {"db": "staging", "name": "v2.1"}


def test_an_interrupt_value_hitl_cannot_ask_is_a_clear_error(server: Server) -> None:
    with pytest.raises(HitlError) as e:
        hitl_lg.resolve(42, client=Client(server.url, AGENT_TOKEN))
    assert e.value.code == "invalid" and "interrupt" in e.value.message


async def test_async_graphs_with_arun(server: Server, person: Person, run: str) -> None:
    import asyncio

    from hitl import AsyncClient

    w = World()
    graph = w.agent([EMAIL, {"name": "drop_db", "args": {"name": "prod"}}])
    async with AsyncClient(server.url, AGENT_TOKEN) as c:
        task = asyncio.create_task(hitl_lg.arun(graph, {"messages": [{"role": "user", "content": "go"}]}, {"configurable": {"thread_id": uuid.uuid4().hex}},
                                                client=c, run=run, op_types=OP_TYPES, tools=w.tools))
        q = await asyncio.to_thread(person.question, run)
        person.answer(q["id"], "approve", edited='{"to": "me@corp.io", "subject": "hi"}')
        result = await asyncio.wait_for(task, 60)
        assert w.sent == [{"to": "me@corp.io", "subject": "hi", "urgent": False}] and w.dropped == []
        assert "test-deny" in str(tool_messages(result)["drop_db"].content)
        task2 = asyncio.create_task(hitl_lg.arun(plain_graph(), {}, {"configurable": {"thread_id": "t2"}}, client=c, run=run + "-plain"))
        for answer in ("prod", "v3"):
            q = await asyncio.to_thread(person.question, run + "-plain")
            person.answer(q["id"], answer)
        assert await asyncio.wait_for(task2, 60) == {"db": "prod", "name": "v3"}


@pytest.mark.parametrize("name, want", [
    ("send_email", "send_email"), ("deleteFile", "deletefile"), ("mcp__github__create issue", "mcp__github__create_issue"),
    ("42things", "tool_42things"), ("Shell", "tool_shell"), ("file_write", "tool_file_write"), ("spawn_agent", "tool_spawn_agent"), ("x" * 80, "x" * 64),
])
def test_a_tools_operation_type_is_its_own_name(name: str, want: str) -> None:
    from hitl.integrations._tools import op_type_for

    assert op_type_for(name) == want
    assert op_type_for(name, {name: "deploy"}) == "deploy"


@pytest.mark.parametrize("mode", ["batched", "per_call"])
def test_an_action_without_edit_is_asked_with_no_edit(server: Server, person: Person, run: str, mode: str) -> None:
    """post_status allows approve, reject and respond: no edit is offered, and an edited answer is refused."""
    w = World()
    fut = start(server, w.agent([{"name": "post_status", "args": {"text": "deployed"}}], mode), run)
    q = person.question(run)
    assert q["operation"]["noEdit"] is True
    with pytest.raises(AssertionError, match="400"):
        person.answer(q["id"], "approve", edited='{"text": "rolled back"}')
    person.answer(q["id"], "approve")
    fut.result(timeout=60)
    assert w.sent == [{"status": "deployed"}]


@pytest.mark.parametrize("mode", ["batched", "per_call"])
def test_the_model_is_told_of_an_edit(server: Server, person: Person, run: str, mode: str) -> None:
    """The tool's result says a person changed the call and what ran, so the model's history matches what ran."""
    w = World()
    fut = start(server, w.agent([EMAIL], mode), run, tools=None if mode == "per_call" else w.tools)
    q = person.question(run)
    assert "noEdit" not in q["operation"]
    person.answer(q["id"], "approve", edited='{"to": "me@corp.io", "subject": "hi"}')
    msg = tool_messages(fut.result(timeout=60))["send_email"]
    assert w.sent == [{"to": "me@corp.io", "subject": "hi", "urgent": False}]
    assert "replaced this tool call before it ran" in str(msg.content) and "me@corp.io" in str(msg.content), msg.content
    assert "sent to me@corp.io" in str(msg.content)


def test_a_file_write_is_asked_with_its_diff_and_a_moved_write_again(server: Server, person: Person, run: str, tmp_path: Path) -> None:
    """write_file is a file_write of its absolute path with the diff of the file
    it would write; a person who moves it to another path is asked again with
    the diff there (an existing file, overwritten), and the model is told."""
    (tmp_path / "old.md").write_text("keep me\n")
    w = World(tmp_path)
    fut = start(server, w.agent([{"name": "write_file", "args": {"path": "new.md", "content": "line 1\nline 2\n"}}]), run, cwd=str(tmp_path))
    q = person.question(run)
    new, old = str(tmp_path / "new.md"), str(tmp_path / "old.md")
    assert (q["operation"]["opType"], q["operation"]["resource"]) == ("file_write", new)
    assert q["operation"]["diffs"] == [{"path": new, "change": "new", "added": 2, "removed": 0,
                                        "unified": f"--- /dev/null\n+++ b{new}\n@@ -0,0 +1,2 @@\n+line 1\n+line 2\n"}]
    person.answer(q["id"], "approve", edited=old)
    q2 = person.question(run)  # asked again: the same write at old.md, with its own diff
    assert q2["operation"]["resource"] == old and "moved this write from" in q2["operation"]["context"]
    d = q2["operation"]["diffs"][0]
    assert (d["path"], d["change"], d["added"], d["removed"]) == (old, "modify", 2, 1) and "-keep me\n" in d["unified"]
    assert not (tmp_path / "new.md").exists() and (tmp_path / "old.md").read_text() == "keep me\n"  # nothing ran yet
    person.answer(q2["id"], "approve")
    msg = tool_messages(fut.result(timeout=60))["write_file"]
    assert (tmp_path / "old.md").read_text() == "line 1\nline 2\n" and not (tmp_path / "new.md").exists()
    assert "replaced this tool call" in str(msg.content) and old in str(msg.content)


def test_a_moved_write_denied_when_asked_again_never_runs(server: Server, person: Person, run: str, tmp_path: Path) -> None:
    w = World(tmp_path)
    fut = start(server, w.agent([{"name": "write_file", "args": {"path": "new.md", "content": "x\n"}}]), run, cwd=str(tmp_path))
    q = person.question(run)
    person.answer(q["id"], "approve", edited=str(tmp_path / "other.md"))
    person.answer(person.question(run)["id"], "deny", text="not there either")
    msg = tool_messages(fut.result(timeout=60))["write_file"]
    assert list(tmp_path.iterdir()) == [] and "not there either" in str(msg.content)


def test_a_tools_input_reads_as_its_fields(server: Server, person: Person, run: str) -> None:
    body = "Hello,\n\nthe release is out.\n\tBob"
    w = World()
    fut = start(server, w.agent([{"name": "send_email", "args": {"to": "all@corp.io", "subject": body}}]), run)
    q = person.question(run)
    out = show(server, q["id"])
    assert "  to: all@corp.io\n" in out and block("subject", body) in out, out
    assert "\\n" not in out, out
    person.answer(q["id"], "deny")
    fut.result(timeout=60)


@pytest.mark.parametrize("name, args, declared, want", [
    ("write_file", {"path": "a.md", "content": "x"}, None, ("path", "content")),
    ("createFile", {"file_path": "a.md", "text": ""}, None, ("file_path", "text")),
    ("save_note", {"filename": "a.md", "contents": "x", "tags": []}, None, ("filename", "contents")),
    ("append_file", {"path": "a.md", "content": "x"}, None, None),  # adds to the file: a whole-file diff would lie
    ("edit_file", {"path": "a.md", "content": "x"}, None, None),
    ("write_file", {"path": "a.md"}, None, None),  # no content
    ("write_file", {"path": "", "content": "x"}, None, None),  # no path
    ("write_file", {"path": 3, "content": "x"}, None, None),
    ("send_email", {"to": "a", "body": "x"}, None, None),  # not named for writing
    ("put_blob", {"key": "a", "blob": "x"}, {"put_blob": ("key", "blob")}, ("key", "blob")),  # declared
    ("write_file", {"path": "a.md", "content": "x"}, {"write_file": None}, None),  # declared not a file write
    ("put_blob", {"key": 1, "blob": "x"}, {"put_blob": ("key", "blob")}, None),
])
def test_which_calls_are_file_writes(name: str, args: Dict[str, Any], declared: Any, want: Any) -> None:
    from hitl.integrations._tools import file_write_of

    assert file_write_of(name, args, declared) == want
