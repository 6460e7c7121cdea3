"""hitl.integrations.claude_agent_sdk driving the real Claude Agent SDK and the Claude Code
CLI its wheel bundles, against a fake Anthropic Messages API on loopback and real hitl serve."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, AsyncIterator, Dict, List, Optional

import pytest
from claude_agent_sdk import ClaudeAgentOptions, ResultMessage, query

from conftest import AGENT_TOKEN, Person, Server
from fake_anthropic import FakeAnthropic, Script, one_tool, result_text, tool_results
from hitl import AsyncClient, Client, HitlError
from hitl.integrations.claude_agent_sdk import can_use_tool, operation, permissions
from readable import show


async def prompt() -> AsyncIterator[Dict[str, Any]]:
    yield {"type": "user", "message": {"role": "user", "content": "go"}}


async def agent(server: Server, tmp: Path, script: Script, run: str, timeout: Optional[float] = None) -> List[str]:
    """Run the agent to its end; return the tool results the model read."""
    fake = FakeAnthropic(script)
    client = AsyncClient(server.url, AGENT_TOKEN)
    env = {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-test", "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "CLAUDE_CONFIG_DIR": str(tmp / ".claude")}
    opts = ClaudeAgentOptions(cwd=str(tmp), can_use_tool=can_use_tool(client, run=run, timeout=timeout), env=env, model="claude-sonnet-4-5", max_turns=4)
    try:
        async for m in query(prompt=prompt(), options=opts):
            if isinstance(m, ResultMessage):
                assert not m.is_error, m
        return [result_text(b) for r in fake.requests for b in tool_results(r)]
    finally:
        fake.close()
        await client.aclose()


def bash(cmd: str, why: str = "write the report") -> Script:
    return one_tool("Bash", {"command": cmd, "description": why})


async def with_person(server: Server, person: Person, run: str, coro: Any, *answer: Any, **kw: Any) -> tuple[Dict[str, Any], List[str]]:
    task = asyncio.create_task(coro)
    q = await asyncio.to_thread(person.question, run, 90)
    person.answer(q["id"], *answer, **kw)
    return q, await asyncio.wait_for(task, 90)


async def test_approve_runs_the_command(server: Server, person: Person, run: str, tmp_path: Path) -> None:
    q, results = await with_person(server, person, run, agent(server, tmp_path, bash("echo hi > side.txt"), run), "approve")
    assert q["operation"]["opType"] == "shell" and q["operation"]["resource"] == "echo hi > side.txt"
    assert q["operation"]["operation"] == "write the report: echo hi > side.txt" and q["operation"]["prompted"] is True
    assert (tmp_path / "side.txt").read_text() == "hi\n"


async def test_edit_runs_the_edited_command(server: Server, person: Person, run: str, tmp_path: Path) -> None:
    await with_person(server, person, run, agent(server, tmp_path, bash("echo hi > side.txt"), run), "approve", edited="echo edited > side.txt")
    assert (tmp_path / "side.txt").read_text() == "edited\n"


async def test_deny_with_a_reason_reaches_the_model_and_nothing_runs(server: Server, person: Person, run: str, tmp_path: Path) -> None:
    _, results = await with_person(server, person, run, agent(server, tmp_path, bash("echo hi > side.txt"), run), "deny", text="not in this repo")
    assert not (tmp_path / "side.txt").exists()
    assert any("not in this repo" in r for r in results), results


async def test_a_reply_denies_with_its_text_and_nothing_runs(server: Server, person: Person, run: str, tmp_path: Path) -> None:
    _, results = await with_person(server, person, run, agent(server, tmp_path, bash("echo hi > side.txt"), run), "reply", text="write it to notes.txt instead")
    assert not (tmp_path / "side.txt").exists()
    assert any("Not approved: api:alice replied in hitl instead: write it to notes.txt instead" in r for r in results), results


async def test_policy_allow_never_asks(server: Server, person: Person, run: str, tmp_path: Path) -> None:
    results = await agent(server, tmp_path, bash("echo allowed-by-policy", "say it"), run)
    assert any("allowed-by-policy" in r for r in results) and person.pending(run) == []


async def test_policy_deny_never_runs(server: Server, person: Person, run: str, tmp_path: Path) -> None:
    (tmp_path / "precious").mkdir()
    results = await agent(server, tmp_path, bash("rm -rf precious", "clean up"), run)
    assert (tmp_path / "precious").is_dir() and any("no-rm" in r for r in results), results
    assert server.api("GET", f"/api/jobs/{run}/questions")["questions"] == []


async def test_a_timeout_denies(server: Server, run: str, tmp_path: Path) -> None:
    results = await agent(server, tmp_path, bash("echo hi > side.txt"), run, timeout=1)
    assert not (tmp_path / "side.txt").exists() and any("in time" in r for r in results), results


async def test_ask_user_question_is_answered_through_hitl(server: Server, person: Person, run: str, tmp_path: Path) -> None:
    script = one_tool("AskUserQuestion", {"questions": [{"question": "Which region?", "header": "Region", "multiSelect": False,
                                                          "options": [{"label": "eu-west-1", "description": "Ireland"}, {"label": "us-east-1", "description": "Virginia"}]}]})
    q, results = await with_person(server, person, run, agent(server, tmp_path, script, run), "us-east-1")
    assert q["responseType"] == "choice" and [o["label"] for o in q["options"]] == ["eu-west-1", "us-east-1"]
    assert any("us-east-1" in r for r in results), results


@pytest.mark.parametrize("tool, input, want", [
    ("Bash", {"command": "ls -la", "description": "list"}, ("shell", "ls -la", "list: ls -la", "")),
    ("Write", {"file_path": "/tmp/x", "content": "y"}, ("file_write", "/tmp/x", "Write /tmp/x", "Input:\nfile_path: /tmp/x\ncontent: y")),
    ("Grep", {"pattern": "TODO"}, ("file_read", "", "Grep TODO in the working directory", "")),
    ("WebFetch", {"url": "https://x.io"}, ("api_call", "https://x.io", "WebFetch https://x.io", "")),
    ("mcp__gh__delete_repo", {"repo": "a/b"}, ("api_call", "mcp__gh__delete_repo", "Call the MCP tool mcp__gh__delete_repo", "Input:\nrepo: a/b")),
    ("Frobnicate", {}, ("custom", "", "Use the tool Frobnicate", "")),
])
def test_tools_map_to_the_operations_hooks_send(tool: str, input: Dict[str, Any], want: tuple[str, str, str, str]) -> None:
    assert operation(tool, input) == want


async def test_a_tool_that_cannot_take_an_edit_is_asked_with_no_edit(server: Server, person: Person, run: str) -> None:
    """An MCP tool's resource is its name, not an input hitl can put an edit
    into: the approval says noEdit and hitl refuses an edited answer."""
    from claude_agent_sdk import PermissionResultAllow, ToolPermissionContext

    async with AsyncClient(server.url, AGENT_TOKEN) as client:
        decide = can_use_tool(client, run=run)
        task = asyncio.create_task(decide("mcp__gh__delete_repo", {"repo": "a/b"}, ToolPermissionContext()))
        q = await asyncio.to_thread(person.question, run)
        assert (q["operation"]["opType"], q["operation"]["resource"], q["operation"]["noEdit"]) == ("api_call", "mcp__gh__delete_repo", True)
        with pytest.raises(AssertionError, match="400"):
            person.answer(q["id"], "approve", edited="mcp__gh__archive_repo")
        person.answer(q["id"], "approve")
        got = await asyncio.wait_for(task, 30)
        assert isinstance(got, PermissionResultAllow) and got.updated_input == {"repo": "a/b"}


async def test_bash_is_editable(server: Server, person: Person, run: str) -> None:
    from claude_agent_sdk import ToolPermissionContext

    async with AsyncClient(server.url, AGENT_TOKEN) as client:
        task = asyncio.create_task(can_use_tool(client, run=run)("Bash", {"command": "ls"}, ToolPermissionContext()))
        q = await asyncio.to_thread(person.question, run)
        assert "noEdit" not in q["operation"]
        person.answer(q["id"], "deny")
        await asyncio.wait_for(task, 30)


async def permitted(server: Server, tmp: Path, script: Script, run: str) -> FakeAnthropic:
    """Run the agent with permissions() (can_use_tool and its hook) to its end; return the fake model (its requests)."""
    fake = FakeAnthropic(script)
    client = AsyncClient(server.url, AGENT_TOKEN)
    env = {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-test", "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1",
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "CLAUDE_CONFIG_DIR": str(tmp / ".claude")}
    opts = ClaudeAgentOptions(cwd=str(tmp), env=env, model="claude-sonnet-4-5", max_turns=4, **permissions(client, run=run, cwd=str(tmp)))
    try:
        async for m in query(prompt=prompt(), options=opts):
            if isinstance(m, ResultMessage):
                assert not m.is_error, m
        return fake
    finally:
        fake.close()
        await client.aclose()


def after_tool(fake: FakeAnthropic) -> str:
    """Everything the model read after its tool call: the last request's last message."""
    return json.dumps(fake.requests[-1]["messages"][-1], ensure_ascii=False)


async def test_the_model_is_told_of_an_edit(server: Server, person: Person, run: str, tmp_path: Path) -> None:
    """The SDK's allow carries no message: permissions()' PostToolUse hook adds
    to the edited call's result who changed it and what ran."""
    task = asyncio.create_task(permitted(server, tmp_path, bash("echo hi > side.txt"), run))
    q = await asyncio.to_thread(person.question, run, 90)
    person.answer(q["id"], "approve", edited="echo edited > side.txt")
    fake = await asyncio.wait_for(task, 90)
    assert (tmp_path / "side.txt").read_text() == "edited\n"
    seen = after_tool(fake)
    assert "api:alice changed the input of this Bash call" in seen and "echo edited > side.txt" in seen, seen


async def test_no_note_without_an_edit(server: Server, person: Person, run: str, tmp_path: Path) -> None:
    task = asyncio.create_task(permitted(server, tmp_path, bash("echo hi > side.txt"), run))
    person.answer((await asyncio.to_thread(person.question, run, 90))["id"], "approve")
    fake = await asyncio.wait_for(task, 90)
    assert "changed the input" not in after_tool(fake)


async def test_write_is_asked_with_its_diff_and_a_moved_write_again(server: Server, person: Person, run: str, tmp_path: Path) -> None:
    """Write carries the diff of the file it would write (computed by the adapter,
    from the file on this machine); moved to another path, it is asked again with
    the diff there (an existing file: its change), and runs only when a shown
    diff is approved; the model is told where it wrote."""
    (tmp_path / "old.md").write_text("a\nb\n")
    new, old, other = str(tmp_path / "new.md"), str(tmp_path / "old.md"), str(tmp_path / "other.md")
    task = asyncio.create_task(permitted(server, tmp_path, one_tool("Write", {"file_path": new, "content": "a\nB\n"}), run))
    q = await asyncio.to_thread(person.question, run, 90)
    op = q["operation"]
    assert (op["opType"], op["resource"], "noEdit" in op) == ("file_write", new, False)
    assert op["diffs"] == [{"path": new, "change": "new", "added": 2, "removed": 0, "unified": f"--- /dev/null\n+++ b{new}\n@@ -0,0 +1,2 @@\n+a\n+B\n"}]
    assert "(+2 −0)" in show(server, q["id"])
    person.answer(q["id"], "approve", edited=old)
    q2 = await asyncio.to_thread(person.question, run, 90)
    assert q2["operation"]["resource"] == old and "moved this write from" in q2["operation"]["context"]
    assert q2["operation"]["diffs"][0]["unified"] == f"--- a{old}\n+++ b{old}\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n"
    person.answer(q2["id"], "approve", edited=other)
    q3 = await asyncio.to_thread(person.question, run, 90)
    assert (q3["operation"]["resource"], q3["operation"]["diffs"][0]["change"]) == (other, "new")
    assert sorted(p.name for p in tmp_path.glob("*.md")) == ["old.md"]  # nothing ran yet
    person.answer(q3["id"], "approve")
    fake = await asyncio.wait_for(task, 90)
    assert (tmp_path / "other.md").read_text() == "a\nB\n" and (tmp_path / "old.md").read_text() == "a\nb\n" and not (tmp_path / "new.md").exists()
    assert "changed the input of this Write call" in after_tool(fake) and other in after_tool(fake)


def read_then(path: str, name: str, input: Dict[str, Any]) -> Script:
    """Read path (Claude Code edits only a file it has read), then call the tool once, then end."""

    def script(body: Dict[str, Any]) -> List[Dict[str, Any]]:
        done = tool_results(body)
        if len(done) == 0:
            return [{"type": "tool_use", "id": "toolu_read", "name": "Read", "input": {"file_path": path}}]
        if len(done) == 1:
            return [{"type": "tool_use", "id": "toolu_02", "name": name, "input": input}]
        return [{"type": "text", "text": "done"}]

    return script


async def test_edit_is_asked_with_its_diff(server: Server, person: Person, run: str, tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("x = 1\ny = 2\nz = 3\n")
    path = str(tmp_path / "app.py")
    task = asyncio.create_task(permitted(server, tmp_path, read_then(path, "Edit", {"file_path": path, "old_string": "y = 2", "new_string": "y = 20\nw = 4"}), run))
    q = await asyncio.to_thread(person.question, run, 90)
    d = q["operation"]["diffs"][0]
    assert (d["path"], d["change"], d["added"], d["removed"]) == (path, "modify", 2, 1)
    assert d["unified"] == f"--- a{path}\n+++ b{path}\n@@ -1,3 +1,4 @@\n x = 1\n-y = 2\n+y = 20\n+w = 4\n z = 3\n"
    person.answer(q["id"], "approve")
    await asyncio.wait_for(task, 90)
    assert (tmp_path / "app.py").read_text() == "x = 1\ny = 20\nw = 4\nz = 3\n"


async def test_an_mcp_tools_input_reads_as_its_fields(server: Server, person: Person, run: str) -> None:
    from claude_agent_sdk import ToolPermissionContext

    body = "Release notes:\n- faster\n- smaller"
    async with AsyncClient(server.url, AGENT_TOKEN) as client:
        task = asyncio.create_task(can_use_tool(client, run=run)("mcp__notes__post", {"channel": "#ops", "body": body}, ToolPermissionContext()))
        q = await asyncio.to_thread(person.question, run)
        out = show(server, q["id"])
        assert "channel: #ops\n" in out and "body:\n  Release notes:\n  - faster\n  - smaller" in out, out
        assert "\\n" not in out, out
        person.answer(q["id"], "deny")
        await asyncio.wait_for(task, 30)


async def test_ask_user_question_with_several_questions_and_multi_select(server: Server, person: Person, run: str) -> None:
    from claude_agent_sdk import PermissionResultAllow, ToolPermissionContext

    input = {"questions": [
        {"question": "Which envs?", "header": "Envs", "multiSelect": True, "options": [{"label": "dev"}, {"label": "stg"}, {"label": "prod"}]},
        {"question": "Why?", "header": "Reason", "options": []},
    ]}
    async with AsyncClient(server.url, AGENT_TOKEN) as client:
        task = asyncio.create_task(can_use_tool(client, run=run)("AskUserQuestion", input, ToolPermissionContext()))
        for _ in range(2):
            q = await asyncio.to_thread(person.question, run)
            person.answer(q["id"], ["dev", "prod"] if q["question"] == "Which envs?" else "a hotfix")
        got = await asyncio.wait_for(task, 30)
        assert isinstance(got, PermissionResultAllow) and got.updated_input == {**input, "answers": {"Which envs?": "dev, prod", "Why?": "a hotfix"}}


def test_a_sync_client_is_refused_when_the_callback_is_built() -> None:
    """can_use_tool(Client()) fails at once, naming what it needs; nobody is asked."""
    with pytest.raises(HitlError) as e:
        can_use_tool(Client("http://127.0.0.1:9", token=AGENT_TOKEN))  # type: ignore[arg-type]
    assert e.value.code == "invalid"
    assert "can_use_tool needs an AsyncClient" in str(e.value)
