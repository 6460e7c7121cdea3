"""The Claude Agent SDK: a ``can_use_tool`` callback that asks hitl.

    from claude_agent_sdk import ClaudeAgentOptions, query
    from hitl import AsyncClient
    from hitl.integrations.claude_agent_sdk import can_use_tool

    options = ClaudeAgentOptions(can_use_tool=can_use_tool(AsyncClient()))

Each tool call becomes the operation Claude Code's hooks send hitl (the same
mapping, so one policy decides both): Bash → ``shell`` (the command), Write /
Edit / MultiEdit / NotebookEdit → ``file_write`` (the path), Read / Grep / Glob →
``file_read``, WebFetch / WebSearch → ``api_call`` (the URL, the query), MCP tools
→ ``api_call`` named after the tool, Task → ``spawn_agent``, anything else a
``custom`` operation. hitl's policy decides first (as for an agent about to ask
its person), then a person: approved → ``PermissionResultAllow``; approved with
an edit → ``PermissionResultAllow(updated_input=…)`` with the edited command,
path, URL or query in its field (a tool without such a field cannot take an
edit: denied, saying so); denied or timed out → ``PermissionResultDeny(message=…)``
with the person's reason; a reply in words → ``PermissionResultDeny`` with
"Not approved: … replied in hitl instead: <text>" (as hitl's Claude Code hook). ``AskUserQuestion`` becomes one hitl question per
question, the answers going back in ``updated_input["answers"]``.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Coroutine, Dict, List, Mapping, Optional, Tuple

from .._async_client import AsyncClient
from .._protocol import canonical_json
from . import _tools

ASK_USER_QUESTION = "AskUserQuestion"

_EDIT_FIELD = {
    "Bash": "command", "Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path", "Read": "file_path",
    "NotebookEdit": "notebook_path", "Grep": "path", "Glob": "path", "WebFetch": "url", "WebSearch": "query",
}


def _preview(input: Mapping[str, Any]) -> str:
    s = canonical_json(dict(input)) if input else ""
    return ("Input: " + (s if len(s) <= 1500 else s[:1500] + " …[cut]")) if s else ""


def operation(tool: str, input: Mapping[str, Any]) -> Tuple[str, str, str, str]:
    """(op_type, resource, description, context) of a Claude Code tool call: the
    mapping hitl's Claude Code hooks use."""

    def s(k: str) -> str:
        v = input.get(k)
        return v if isinstance(v, str) else ""

    if tool == "Bash":
        cmd = s("command")
        why = s("description")
        return "shell", cmd, f"{why}: {cmd}" if why else f"Run {cmd}", ""
    if tool in ("Write", "Edit", "MultiEdit", "NotebookEdit"):
        path = s(_EDIT_FIELD[tool])
        return "file_write", path, f"{tool} {path}", _preview(input)
    if tool in ("Read", "Grep", "Glob"):
        path = s(_EDIT_FIELD[tool])
        desc = f"Read {path}" if tool == "Read" else f"{tool} {s('pattern')} in {path or 'the working directory'}"
        return "file_read", path, desc, ""
    if tool in ("WebFetch", "WebSearch"):
        r = s(_EDIT_FIELD[tool])
        return "api_call", r, f"{tool} {r}", ""
    if tool in ("Task", "Agent"):
        return "spawn_agent", s("subagent_type"), "Start a subagent: " + (s("description") or s("prompt")), ""
    if tool.startswith("mcp__"):
        return "api_call", tool, f"Call the MCP tool {tool}", _preview(input)
    return "custom", "", f"Use the tool {tool}", _preview(input)


def can_use_tool(
    client: AsyncClient,
    *,
    run: Optional[str] = None,
    timeout: Optional[float] = None,
) -> Callable[[str, Dict[str, Any], Any], Coroutine[Any, Any, Any]]:
    """The ``can_use_tool`` callback for ``ClaudeAgentOptions``: hitl's policy,
    then a person, decide each tool call (see the module's doc). A sync
    ``Client`` is refused here, when the callback is built, before anyone is
    asked (HitlError ``invalid``)."""
    _tools.require_async(client, "can_use_tool")
    from claude_agent_sdk import PermissionResultAllow, PermissionResultDeny

    async def decide(tool_name: str, input: Dict[str, Any], context: Any) -> Any:
        if tool_name == ASK_USER_QUESTION:
            return PermissionResultAllow(updated_input=await ask_user_questions(client, input, run=run, timeout=timeout))
        op_type, resource, description, ctx = operation(tool_name, input)
        d = await client.request_approval(description, op_type=op_type, resource=resource or None, reason=ctx or None, run=run, prompted=True, timeout=timeout)
        if d.outcome == "approved":
            return PermissionResultAllow(updated_input=input)
        if d.outcome == "edited":
            field = _EDIT_FIELD.get(tool_name)
            if field is None:
                return PermissionResultDeny(message=f"{d.by} approved {tool_name} only with an edit ({d.edited_input}) that cannot be applied to its input; it was not run")
            return PermissionResultAllow(updated_input={**input, field: str(d.edited_input)})
        return PermissionResultDeny(message=_tools.refusal(tool_name, d))

    return decide


async def ask_user_questions(client: AsyncClient, input: Mapping[str, Any], *, run: Optional[str] = None, timeout: Optional[float] = None) -> Dict[str, Any]:
    """Ask an AskUserQuestion call's questions through hitl (all at once) and
    return its input with ``answers``: each question's text → the chosen label
    (labels joined by ", " when several may be chosen)."""
    from .._errors import INVALID, HitlError

    questions: List[Mapping[str, Any]] = [q for q in input.get("questions") or [] if isinstance(q, Mapping)]
    if not questions:
        raise HitlError(INVALID, "AskUserQuestion input has no questions")

    async def one(q: Mapping[str, Any]) -> str:
        opts = [{"label": o["label"], "value": o["label"], "description": o.get("description", "")} for o in q.get("options") or [] if isinstance(o, Mapping) and o.get("label")]
        got = await client.ask(
            str(q.get("question", "")), options=opts or None, multi=bool(q.get("multiSelect")) and bool(opts),
            context={"agent": "Claude Agent SDK", "currentStep": str(q.get("header", ""))}, run=run, timeout=timeout,
        )
        return ", ".join(got) if isinstance(got, list) else str(got)

    answers = await asyncio.gather(*(one(q) for q in questions))
    return {**input, "answers": {str(q.get("question", "")): a for q, a in zip(questions, answers)}}
