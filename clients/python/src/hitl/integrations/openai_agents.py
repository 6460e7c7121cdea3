"""The OpenAI Agents SDK: hitl's policy decides which tool calls interrupt the
run, and a person answers the interruptions.

    from agents import Agent, function_tool
    from hitl import AsyncClient
    from hitl.integrations import openai_agents as hitl_oa

    client = AsyncClient()
    @function_tool(needs_approval=hitl_oa.needs_approval(client, "send_email"))
    async def send_email(to: str, body: str) -> str: ...
    result = await hitl_oa.run(Agent(name="mailer", tools=[send_email]), "…", client=client)

``needs_approval`` asks hitl's policy per call: ``allow`` → no interruption,
``ask`` or ``deny`` → an interruption, which ``resolve`` answers through
``POST /api/approvals`` (a ``deny`` is rejected at once with the rule, an
``ask`` goes to a person). Approved → ``state.approve`` (``always_approve`` when
the person chose "always"); denied, replied to in words or timed out →
``state.reject`` with the reason (or the reply's text) as the model's message. The SDK cannot run a tool with changed
arguments, so people are offered no edit (the approval is sent with ``noEdit``;
hitl refuses an edited answer). A tool call that writes a whole file
(``file_writes``, or found by its name and arguments: ``_tools.file_write_of``)
is asked as a ``file_write`` of its path, with the diff of the file it would
write, read on this machine.
"""

from __future__ import annotations

import json
from typing import Any, Awaitable, Callable, Mapping, Optional, Tuple

from .._async_client import AsyncClient
from .._protocol import canonical_json
from . import _diff, _tools


def needs_approval(
    client: AsyncClient,
    tool_name: str,
    op_type: Optional[str] = None,
    *,
    file_write: Optional[Tuple[str, str]] = None,
    cwd: Optional[str] = None,
) -> Callable[[Any, Mapping[str, Any], str], Awaitable[bool]]:
    """The ``needs_approval`` function of a tool: hitl's policy decides per call
    (as for an agent about to ask its person: only a rule a person wrote or
    taught allows), on the operation ``resolve`` asks about (a file write by
    its path; ``file_write`` declares the tool's (path, content) arguments)."""
    op_types = {tool_name: op_type} if op_type else None
    declared = {tool_name: file_write} if file_write else None

    async def decide(ctx: Any, params: Mapping[str, Any], call_id: str) -> bool:
        args = dict(params)
        fw = _tools.file_write_of(tool_name, args, declared)
        if fw is None:
            kind, resource = _tools.op_type_for(tool_name, op_types), canonical_json(args)
        else:
            kind, resource = op_type or "file_write", _diff.absolute(str(args[fw[0]]), cwd)
        d = await client.check(kind, resource, action=f"Run the tool {tool_name}", prompted=True)
        return d.decision != "allow"

    return decide


def _tool_of(item: Any) -> Any:
    for t in getattr(getattr(item, "agent", None), "tools", None) or []:
        if getattr(t, "name", None) == item.name:
            return t
    return None


async def resolve(
    result: Any,
    *,
    client: AsyncClient,
    run: Optional[str] = None,
    op_types: Optional[Mapping[str, str]] = None,
    timeout: Optional[float] = None,
    file_writes: Optional[_tools.FileWrites] = None,
    cwd: Optional[str] = None,
) -> Any:
    """Answer every ``result.interruptions`` item through hitl; return the
    ``RunState`` to pass to ``Runner.run`` again."""
    state = result.to_state()
    for item in result.interruptions:
        name = str(item.name or "tool")
        try:
            args = json.loads(item.arguments or "{}")
        except ValueError:
            args = item.arguments or ""
        tool = _tool_of(item)
        op = _tools.tool_operation(name, args, getattr(tool, "description", None),
                                   op_types=op_types, file_writes=file_writes, cwd=cwd, editable=False)
        d = await _tools.arequest(client, op, run=run, timeout=timeout)
        if d.outcome == "approved":
            state.approve(item, always_approve=d.always)
        elif d.outcome == "edited":  # hitl refuses an edit of a noEdit approval: never reached, kept fail-closed
            state.reject(item, rejection_message=f"{d.by} approved {name} only with changed arguments ({canonical_json(d.edited_input)}), which this agent cannot run; {name} was not run")
        else:
            state.reject(item, rejection_message=_tools.refusal(name, d))
    return state


async def run(
    agent: Any,
    input: Any,
    *,
    client: AsyncClient,
    run: Optional[str] = None,
    op_types: Optional[Mapping[str, str]] = None,
    timeout: Optional[float] = None,
    file_writes: Optional[_tools.FileWrites] = None,
    cwd: Optional[str] = None,
    **runner_kwargs: Any,
) -> Any:
    """``Runner.run`` until no interruption is left, each answered through hitl."""
    from agents import Runner

    result = await Runner.run(agent, input, **runner_kwargs)
    while result.interruptions:
        state = await resolve(result, client=client, run=run, op_types=op_types, timeout=timeout, file_writes=file_writes, cwd=cwd)
        result = await Runner.run(agent, state, **runner_kwargs)
    return result
