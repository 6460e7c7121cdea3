"""hitl.integrations.claude_agent_sdk driving the real Claude Agent SDK and the Claude Code
CLI its wheel bundles, against a fake Anthropic Messages API on loopback and real hitl serve."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, AsyncIterator, Dict, List, Optional

import pytest
from claude_agent_sdk import ClaudeAgentOptions, ResultMessage, query

from conftest import AGENT_TOKEN, Person, Server
from fake_anthropic import FakeAnthropic, Script, one_tool, result_text, tool_results
from hitl import AsyncClient, Client, HitlError
from hitl.integrations.claude_agent_sdk import can_use_tool, operation


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
    ("Write", {"file_path": "/tmp/x", "content": "y"}, ("file_write", "/tmp/x", "Write /tmp/x", 'Input: {"content":"y","file_path":"/tmp/x"}')),
    ("Grep", {"pattern": "TODO"}, ("file_read", "", "Grep TODO in the working directory", "")),
    ("WebFetch", {"url": "https://x.io"}, ("api_call", "https://x.io", "WebFetch https://x.io", "")),
    ("mcp__gh__delete_repo", {"repo": "a/b"}, ("api_call", "mcp__gh__delete_repo", "Call the MCP tool mcp__gh__delete_repo", 'Input: {"repo":"a/b"}')),
    ("Frobnicate", {}, ("custom", "", "Use the tool Frobnicate", "")),
])
def test_tools_map_to_the_operations_hooks_send(tool: str, input: Dict[str, Any], want: tuple[str, str, str, str]) -> None:
    assert operation(tool, input) == want


async def test_an_edit_a_tool_cannot_take_is_denied_saying_so(server: Server, person: Person, run: str) -> None:
    from claude_agent_sdk import PermissionResultDeny, ToolPermissionContext

    async with AsyncClient(server.url, AGENT_TOKEN) as client:
        decide = can_use_tool(client, run=run)
        task = asyncio.create_task(decide("mcp__gh__delete_repo", {"repo": "a/b"}, ToolPermissionContext()))
        q = await asyncio.to_thread(person.question, run)
        assert (q["operation"]["opType"], q["operation"]["resource"]) == ("api_call", "mcp__gh__delete_repo")
        person.answer(q["id"], "approve", edited="mcp__gh__archive_repo")
        got = await asyncio.wait_for(task, 30)
        assert isinstance(got, PermissionResultDeny) and "cannot be applied" in got.message and "api:alice" in got.message


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
