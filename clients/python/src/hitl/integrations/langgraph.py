"""LangGraph / LangChain: answer ``HumanInTheLoopMiddleware`` interrupts and plain
``interrupt()`` calls through hitl, and run a graph until it ends.

    from hitl import Client
    from hitl.integrations import langgraph as hitl_lg

    result = hitl_lg.run(agent, {"messages": [...]}, {"configurable": {"thread_id": "t1"}}, client=Client())

Decisions, for each ``action_request`` of a ``HITLRequest`` (or a ``per_call``
``tool_approval``): hitl's policy first (``allow`` → approve, ``deny`` → reject),
then a person: approve → ``approve``; approve with an edit → ``edit`` (the edit
is validated as JSON against the tool's schema: the per-call interrupt's
``response_schema``, or ``tools=``), an edit that does not fit → ``reject``
saying why (the tool does not run); deny → ``reject`` with the reason (or
``respond`` when the tool allows only that); a reply in words (``responded``)
→ ``respond`` with the text as the tool's answer when the tool allows
``respond``, else ``reject`` with the text; timeout → ``reject``. A tool that
allows only ``respond`` (an "ask the user" tool) becomes a hitl question whose
answer is the ``respond`` message. ``interrupt("text")`` and
``interrupt({"question": …, "options": [...]})`` become ``ask``.

An action whose ``allowed_decisions`` do not include ``edit`` is sent with
``noEdit`` (no edit is offered; hitl refuses one). A tool call that writes a
whole file (``file_writes=``, or found by ``_tools.file_write_of``) is asked as
a ``file_write`` of its absolute path with the diff of the file it would write,
computed here; moved by a person to another path, it is asked again with the
diff there. After an edit the middleware puts its note before the tool's
result, so the model knows what ran.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from .._async_client import AsyncClient
from .._client import Client
from .._errors import INVALID, TIMED_OUT, HitlError
from .._models import Decision
from . import _tools

ToolSchemas = Union[Mapping[str, Mapping[str, Any]], Sequence[Any]]


def _schemas(tools: Optional[ToolSchemas]) -> Dict[str, Mapping[str, Any]]:
    """name → JSON schema of its arguments, from LangChain tools or a mapping."""
    if tools is None:
        return {}
    if isinstance(tools, Mapping):
        return {str(k): v for k, v in tools.items()}
    out: Dict[str, Mapping[str, Any]] = {}
    for t in tools:
        schema: Any = getattr(t, "tool_call_schema", None)
        if schema is not None and hasattr(schema, "model_json_schema"):
            out[t.name] = schema.model_json_schema()
        elif isinstance(schema, dict):
            out[t.name] = schema
    return out


def _edit_schema(response_schema: Any) -> Optional[Mapping[str, Any]]:
    """The args schema inside a per-call interrupt's decision schema."""
    if not isinstance(response_schema, dict):
        return None
    defs = response_schema.get("$defs", {})
    branches = response_schema.get("oneOf") or response_schema.get("anyOf") or [response_schema]
    for b in branches:
        if "$ref" in b:
            b = defs.get(b["$ref"].split("/")[-1], {})
        props = b.get("properties", {})
        if props.get("type", {}).get("const") == "edit" or props.get("type", {}).get("enum") == ["edit"]:
            ea = props.get("edited_action", {})
            if "$ref" in ea:
                ea = defs.get(ea["$ref"].split("/")[-1], {})
            args = ea.get("properties", {}).get("args")
            if isinstance(args, dict):
                return {**args, "$defs": defs} if defs else args
    return None


def _asks(allowed: Sequence[str]) -> bool:
    """A tool whose only decision is respond is an "ask the user" tool: a question, not an approval."""
    return "respond" in allowed and "approve" not in allowed and "edit" not in allowed


def _question(name: str, description: Optional[str], run: Optional[str], timeout: Optional[float]) -> Dict[str, Any]:
    return {"run": run, "context": {"currentStep": f"tool {name}"}, "timeout": timeout}


@dataclass
class _Ctx:
    """What every decision of one resolve call shares."""

    run: Optional[str]
    op_types: Optional[Mapping[str, str]]
    file_writes: Optional[_tools.FileWrites]
    cwd: Optional[str]
    timeout: Optional[float]


def _op(i: "_Item", c: _Ctx) -> _tools.ToolOp:
    # An action whose review config does not allow edit cannot take one: none is offered (noEdit).
    return _tools.tool_operation(i.name, i.args, i.description, op_types=c.op_types, file_writes=c.file_writes, cwd=c.cwd, editable="edit" in i.allowed)


def _decide(client: Client, i: "_Item", c: _Ctx) -> Dict[str, Any]:
    """One tool call's decision, in the middleware's shape."""
    if _asks(i.allowed):
        answer = client.ask(_tools.describe(i.name, i.description), **_question(i.name, i.description, c.run, c.timeout))
        return {"type": "respond", "message": str(answer)}
    d, _ = _tools.decide(client, _op(i, c), run=c.run, timeout=c.timeout)
    return _to_decision(i.name, i.args, d, i.allowed, i.schema)


async def _adecide(client: AsyncClient, i: "_Item", c: _Ctx) -> Dict[str, Any]:
    if _asks(i.allowed):
        answer = await client.ask(_tools.describe(i.name, i.description), **_question(i.name, i.description, c.run, c.timeout))
        return {"type": "respond", "message": str(answer)}
    d, _ = await _tools.adecide(client, _op(i, c), run=c.run, timeout=c.timeout)
    return _to_decision(i.name, i.args, d, i.allowed, i.schema)


def _to_decision(name: str, args: Dict[str, Any], d: Decision, allowed: Sequence[str], schema: Optional[Mapping[str, Any]]) -> Dict[str, Any]:
    if d.outcome == "edited":
        if "edit" not in allowed:
            return _refuse(name, f"{d.by} edited the input of {name}, which takes no edits; it was not run", allowed, d)
        try:
            new = _tools.edited_args(d, schema)
        except _tools.EditRefused as e:
            return _refuse(name, f"{e}; {name} was not run", allowed, d)
        return {"type": "edit", "edited_action": {"name": name, "args": new}}
    if d.outcome == "approved":
        if "approve" in allowed:
            return {"type": "approve"}
        return {"type": "edit", "edited_action": {"name": name, "args": args}}
    if d.outcome == "responded" and "respond" in allowed:
        return {"type": "respond", "message": d.message}
    return _refuse(name, _tools.refusal(name, d), allowed, d)


def _refuse(name: str, message: str, allowed: Sequence[str], d: Decision) -> Dict[str, Any]:
    if "reject" in allowed:
        return {"type": "reject", "message": message}
    if "respond" in allowed:
        return {"type": "respond", "message": message}
    code = TIMED_OUT if d.outcome == "timed_out" else INVALID
    raise HitlError(code, f"{message}, and {name} allows only {list(allowed)}: no decision can say so")


def resolve(
    value: Any,
    *,
    client: Client,
    run: Optional[str] = None,
    tools: Optional[ToolSchemas] = None,
    op_types: Optional[Mapping[str, str]] = None,
    response_schema: Any = None,
    timeout: Optional[float] = None,
    file_writes: Optional[_tools.FileWrites] = None,
    cwd: Optional[str] = None,
) -> Any:
    """The resume value for one interrupt's ``value``.

    A ``HITLRequest`` (``action_requests`` + ``review_configs``) gets
    ``{"decisions": [...]}`` in order, its approvals asked all at once; a per-call
    ``tool_approval`` one decision; any other value (a string, or
    ``{question, options?, multi?, yes_no?, default?}``) the answer to a hitl
    question. ``tools`` (LangChain tools, or name → JSON schema) and
    ``response_schema`` (the interrupt's) give the schemas edits are checked
    against; ``op_types`` maps tool names to hitl operation types
    (default: the tool's own name, see ``_tools.op_type_for``). A tool call
    that writes a whole file (``file_writes``, tool → (path argument,
    content argument), else found by its name and arguments:
    ``_tools.file_write_of``) is asked as a ``file_write`` of its path with
    the diff of the file it would write, read from ``cwd`` (default: this
    process's working directory)."""
    kind, items, ask = _read(value, tools, response_schema)
    if kind == "ask":
        return client.ask(ask.pop("question"), run=run, timeout=timeout, **ask)
    ctx = _Ctx(run, op_types, file_writes, cwd, timeout)

    def one(i: _Item) -> Dict[str, Any]:
        return _decide(client, i, ctx)

    if kind == "one":
        return one(items[0])
    if not items:
        return {"decisions": []}
    with ThreadPoolExecutor(max_workers=min(8, len(items))) as pool:
        return {"decisions": list(pool.map(one, items))}


async def aresolve(
    value: Any,
    *,
    client: AsyncClient,
    run: Optional[str] = None,
    tools: Optional[ToolSchemas] = None,
    op_types: Optional[Mapping[str, str]] = None,
    response_schema: Any = None,
    timeout: Optional[float] = None,
    file_writes: Optional[_tools.FileWrites] = None,
    cwd: Optional[str] = None,
) -> Any:
    """``resolve`` with an ``AsyncClient``, for async graphs (a sync ``Client``
    is refused before anyone is asked: HitlError ``invalid``)."""
    _tools.require_async(client, "aresolve")
    import asyncio

    kind, items, ask = _read(value, tools, response_schema)
    if kind == "ask":
        return await client.ask(ask.pop("question"), run=run, timeout=timeout, **ask)

    ctx = _Ctx(run, op_types, file_writes, cwd, timeout)

    async def one(i: _Item) -> Dict[str, Any]:
        return await _adecide(client, i, ctx)

    if kind == "one":
        return await one(items[0])
    return {"decisions": list(await asyncio.gather(*(one(i) for i in items)))}


@dataclass
class _Item:
    """One tool call to decide."""

    name: str
    args: Dict[str, Any]
    description: Optional[str]
    allowed: List[str]
    schema: Optional[Mapping[str, Any]]


def _read(value: Any, tools: Optional[ToolSchemas], response_schema: Any) -> Tuple[str, List[_Item], Dict[str, Any]]:
    """What an interrupt value asks for: ("batch", its tool calls), ("one", the per-call
    tool call) or ("ask", the question's arguments)."""
    schemas = _schemas(tools)
    if isinstance(value, Mapping) and "action_requests" in value:
        configs = {c["action_name"]: c for c in value.get("review_configs", [])}
        items = []
        for a in value["action_requests"]:
            name = str(a["name"])
            allowed = list(configs.get(name, {}).get("allowed_decisions", ["approve", "reject"]))
            items.append(_Item(name, dict(a.get("args") or {}), a.get("description"), allowed, schemas.get(name)))
        return "batch", items, {}
    if isinstance(value, Mapping) and value.get("type") == "tool_approval":
        name = str(value["name"])
        allowed = _allowed_of(response_schema) or ["approve", "edit", "reject", "respond"]
        schema = _edit_schema(response_schema) or schemas.get(name)
        return "one", [_Item(name, dict(value.get("args") or {}), value.get("description"), allowed, schema)], {}
    if isinstance(value, str):
        return "ask", [], {"question": value}
    if isinstance(value, Mapping) and isinstance(value.get("question"), str):
        return "ask", [], {"question": value["question"], "options": value.get("options"), "multi": bool(value.get("multi", False)),
                           "yes_no": bool(value.get("yes_no", False)), "default": value.get("default")}
    raise HitlError(INVALID, f"hitl cannot ask a person about this interrupt value: {type(value).__name__} {str(value)[:200]!r}; interrupt with a string, {{question, options}} or HumanInTheLoopMiddleware's request")


def _allowed_of(response_schema: Any) -> List[str]:
    """The decision types a per-call interrupt's response_schema allows."""
    if not isinstance(response_schema, dict):
        return []
    defs = response_schema.get("$defs", {})
    out: List[str] = []
    for b in response_schema.get("oneOf") or response_schema.get("anyOf") or [response_schema]:
        if "$ref" in b:
            b = defs.get(b["$ref"].split("/")[-1], {})
        t = b.get("properties", {}).get("type", {})
        v = t.get("const") or (t.get("enum") or [None])[0]
        if isinstance(v, str):
            out.append(v)
    return out


def _run_of(config: Mapping[str, Any], run: Optional[str]) -> Optional[str]:
    if run is not None:
        return run
    thread = str(config.get("configurable", {}).get("thread_id", ""))
    return _tools.run_id("langgraph", thread) if thread else None


def run(
    graph: Any,
    input: Any,
    config: Optional[Dict[str, Any]] = None,
    *,
    client: Client,
    run: Optional[str] = None,
    tools: Optional[ToolSchemas] = None,
    op_types: Optional[Mapping[str, str]] = None,
    timeout: Optional[float] = None,
    file_writes: Optional[_tools.FileWrites] = None,
    cwd: Optional[str] = None,
) -> Any:
    """Invoke ``graph``, answer every pending interrupt through hitl and resume
    with ``Command(resume=…)`` until the graph ends; return its last result.
    The graph needs a checkpointer (interrupts do). The hitl run defaults to
    ``langgraph-<thread_id>``."""
    from langgraph.types import Command

    cfg = config or {}
    run = _run_of(cfg, run)
    result = graph.invoke(input, cfg)
    while True:
        interrupts = graph.get_state(cfg).interrupts
        if not interrupts:
            return result
        resume = {
            i.id: resolve(i.value, client=client, run=run, tools=tools, op_types=op_types, response_schema=getattr(i, "response_schema", None), timeout=timeout,
                       file_writes=file_writes, cwd=cwd)
            for i in interrupts
        }
        result = graph.invoke(Command(resume=resume), cfg)


async def arun(
    graph: Any,
    input: Any,
    config: Optional[Dict[str, Any]] = None,
    *,
    client: AsyncClient,
    run: Optional[str] = None,
    tools: Optional[ToolSchemas] = None,
    op_types: Optional[Mapping[str, str]] = None,
    timeout: Optional[float] = None,
    file_writes: Optional[_tools.FileWrites] = None,
    cwd: Optional[str] = None,
) -> Any:
    """``run`` for async graphs (``ainvoke``), with an ``AsyncClient``."""
    from langgraph.types import Command

    cfg = config or {}
    run = _run_of(cfg, run)
    result = await graph.ainvoke(input, cfg)
    while True:
        interrupts = (await graph.aget_state(cfg)).interrupts
        if not interrupts:
            return result
        resume = {
            i.id: await aresolve(i.value, client=client, run=run, tools=tools, op_types=op_types, response_schema=getattr(i, "response_schema", None), timeout=timeout,
                       file_writes=file_writes, cwd=cwd)
            for i in interrupts
        }
        result = await graph.ainvoke(Command(resume=resume), cfg)
