"""The Claude Agent SDK: a ``can_use_tool`` callback that asks hitl.

    from claude_agent_sdk import ClaudeAgentOptions, query
    from hitl import AsyncClient
    from hitl.integrations.claude_agent_sdk import can_use_tool

    options = ClaudeAgentOptions(**permissions(AsyncClient()))   # can_use_tool and hooks

``permissions`` gives ``can_use_tool`` and the ``PostToolUse`` hook that tells
the model when a person changed a call's input before it ran (the SDK's
allow carries no message): the tool's result is followed by a note naming
who changed it and what ran, so the model's history matches what ran.
``can_use_tool`` alone decides the same way without telling the model.

Each tool call becomes the operation Claude Code's hooks send hitl (the same
mapping, so one policy decides both): Bash → ``shell`` (the command), Write /
Edit / MultiEdit / NotebookEdit → ``file_write`` (the path), Read / Grep / Glob →
``file_read``, WebFetch / WebSearch → ``api_call`` (the URL, the query), MCP tools
→ ``api_call`` named after the tool, Task → ``spawn_agent``, anything else a
``custom`` operation. hitl's policy decides first (as for an agent about to ask
its person), then a person: approved → ``PermissionResultAllow``; approved with
an edit → ``PermissionResultAllow(updated_input=…)`` with the edited command,
path, URL or query in its field (a tool without such a field is sent with
``noEdit``: people are offered no edit; an edit hitl let through anyway is
denied, saying so). Write, Edit and MultiEdit carry the diff of the file they
would change, computed here from the file as it is now (as hitl's Claude Code
hook does); a person who moves such a write to another path is asked again
with the diff at that path, and it runs only when that is approved; denied or timed out → ``PermissionResultDeny(message=…)``
with the person's reason; a reply in words → ``PermissionResultDeny`` with
"Not approved: … replied in hitl instead: <text>" (as hitl's Claude Code hook). ``AskUserQuestion`` becomes one hitl question per
question, the answers going back in ``updated_input["answers"]``.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any, Callable, Coroutine, Dict, List, Mapping, MutableMapping, Optional, Tuple

from .._async_client import AsyncClient
from .._protocol import canonical_json
from . import _diff, _tools

ASK_USER_QUESTION = "AskUserQuestion"

_EDIT_FIELD = {
    "Bash": "command", "Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path", "Read": "file_path",
    "NotebookEdit": "notebook_path", "Grep": "path", "Glob": "path", "WebFetch": "url", "WebSearch": "query",
}


def _preview(input: Mapping[str, Any]) -> str:
    """The tool's input as people read it: a line per argument, a multi-line
    string as its lines (indented), other values as JSON; cut at 1500 characters."""
    if not input:
        return ""
    lines = ["Input:"]
    for k, v in input.items():
        if isinstance(v, str) and "\n" in v:
            lines.append(f"{k}:")
            lines.extend("  " + line for line in v.split("\n"))
        else:
            lines.append(f"{k}: {v if isinstance(v, str) else canonical_json(v)}")
    s = "\n".join(lines)
    return s if len(s) <= 1500 else s[:1500] + " …[cut]"


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


_DIFFED = ("Write", "Edit", "MultiEdit")


def file_diffs(tool: str, input: Mapping[str, Any], cwd: Optional[str] = None) -> List[Dict[str, Any]]:
    """The diff of the file a Write, Edit or MultiEdit call would change, read
    now from this machine (relative paths from cwd); [] for other tools."""
    if tool not in _DIFFED:
        return []
    path = _diff.absolute(str(input.get("file_path") or ""), cwd)
    if tool == "Write":
        return [_diff.write_diff(path, str(input.get("content") or ""))]
    edits = [input] if tool == "Edit" else [e for e in input.get("edits") or [] if isinstance(e, Mapping)]
    return [_diff.edit_diff(path, [(str(e.get("old_string") or ""), str(e.get("new_string") or ""), bool(e.get("replace_all"))) for e in edits])]


def tool_op(tool: str, input: Dict[str, Any], cwd: Optional[str] = None, why: str = "") -> _tools.ToolOp:
    """The operation sent for a Claude Code tool call (``operation``): with the
    diff of a file change, and ``noEdit`` for a tool whose input hitl cannot
    put an edit into."""
    op_type, resource, description, ctx = operation(tool, input)
    extra: Dict[str, Any] = {} if tool in _EDIT_FIELD else {"noEdit": True}
    repath = None
    diffs = file_diffs(tool, input, cwd)
    if diffs:
        where = cwd or os.getcwd()
        resource = str(diffs[0]["path"])
        extra.update(cwd=where, diffs=diffs)
        if diffs[0].get("unified"):
            ctx = ""  # the diff shows the input

        def repath(p: str) -> _tools.ToolOp:
            return tool_op(tool, {**input, _EDIT_FIELD[tool]: p}, cwd, why)
    reason = "\n".join(x for x in (why, ctx) if x)
    return _tools.ToolOp(description, op_type, resource or None, None, reason, extra, input, repath)


def can_use_tool(
    client: AsyncClient,
    *,
    run: Optional[str] = None,
    timeout: Optional[float] = None,
    cwd: Optional[str] = None,
    notes: Optional[MutableMapping[str, str]] = None,
) -> Callable[[str, Dict[str, Any], Any], Coroutine[Any, Any, Any]]:
    """The ``can_use_tool`` callback for ``ClaudeAgentOptions``: hitl's policy,
    then a person, decide each tool call (see the module's doc). ``cwd`` is
    the agent's working directory (relative paths of file diffs; default
    this process's). Each call a person changed leaves what the model
    should be told in ``notes``, by tool use id (``permissions`` reads it
    back in a hook). A sync ``Client`` is refused here, when the callback is
    built, before anyone is asked (HitlError ``invalid``)."""
    _tools.require_async(client, "can_use_tool")
    from claude_agent_sdk import PermissionResultAllow, PermissionResultDeny

    async def decide(tool_name: str, input: Dict[str, Any], context: Any) -> Any:
        if tool_name == ASK_USER_QUESTION:
            return PermissionResultAllow(updated_input=await ask_user_questions(client, input, run=run, timeout=timeout))
        why = str(getattr(context, "decision_reason", None) or getattr(context, "title", None) or "")
        d, op = await _tools.adecide(client, tool_op(tool_name, input, cwd, why), run=run, timeout=timeout)
        if d.outcome == "approved":
            return PermissionResultAllow(updated_input=input)
        if d.outcome == "edited":
            field = _EDIT_FIELD.get(tool_name)
            if field is None:
                return PermissionResultDeny(message=f"{d.by} approved {tool_name} only with an edit ({d.edited_input}) that cannot be applied to its input; it was not run")
            updated = dict(d.edited_input) if isinstance(d.edited_input, dict) else {**input, field: str(d.edited_input)}
            use_id = getattr(context, "tool_use_id", None)
            if notes is not None and use_id:
                notes[use_id] = _tools.edit_note(tool_name, d.by, {field: updated[field]})
            return PermissionResultAllow(updated_input=updated)
        return PermissionResultDeny(message=_tools.refusal(tool_name, d))

    return decide


def permissions(
    client: AsyncClient,
    *,
    run: Optional[str] = None,
    timeout: Optional[float] = None,
    cwd: Optional[str] = None,
) -> Dict[str, Any]:
    """``can_use_tool`` and ``hooks`` for ``ClaudeAgentOptions(**permissions(client))``:
    the callback, and a ``PostToolUse`` hook that adds to the result of a call
    a person changed what the model must know (who changed it, what ran)."""
    from claude_agent_sdk import HookContext, HookInput, HookJSONOutput, HookMatcher

    notes: Dict[str, str] = {}

    async def tell(input: HookInput, tool_use_id: Optional[str], context: HookContext) -> HookJSONOutput:
        note = notes.pop(tool_use_id or str(input.get("tool_use_id", "")), None)
        if note is None:
            return {}
        return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": note}}

    return {
        "can_use_tool": can_use_tool(client, run=run, timeout=timeout, cwd=cwd, notes=notes),
        "hooks": {"PostToolUse": [HookMatcher(matcher=None, hooks=[tell])]},
    }


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
