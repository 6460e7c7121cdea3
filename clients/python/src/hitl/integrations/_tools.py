"""What every adapter does the same way: a tool call as a hitl operation, and
checking a person's edit of its input."""

from __future__ import annotations

import dataclasses
import json
import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Dict, Generator, Mapping, Optional, Tuple

from .._models import Decision
from .._protocol import canonical_json
from . import _diff

if TYPE_CHECKING:
    from .._async_client import AsyncClient
    from .._client import Client

BUILTIN_OP_TYPES = frozenset({"shell", "file_read", "file_write", "file_delete", "api_call", "spawn_agent", "custom"})
"""hitl's own operation types: a tool named like one gets ``tool_`` in front, so
its JSON input is never decided as a command line, a path or an agent to start."""

_NOT_OP = re.compile(r"[^a-z0-9_.:-]+")


class EditRefused(ValueError):
    """A person's edit that the tool cannot take."""


def op_type_for(tool: str, op_types: Optional[Mapping[str, str]] = None) -> str:
    """The operation type of a framework's tool call: the one ``op_types`` maps
    the tool to, else the tool's own name (lowercase letters, digits and
    ``_.:-``, starting with a letter, as the TypeScript client's ``opTypeOf``).

    The tool's name lets a policy rule, and a rule a person teaches with
    "always", name exactly this tool; its JSON input is the operation's
    resource, so a person may edit it (hitl lets any operation type with a
    resource be edited, ``spawn_agent`` aside). The adapters send it as
    ``prompted`` (the framework was about to ask its person), and a type hitl
    has no default for asks: only a rule a person wrote or taught allows one."""
    if op_types and tool in op_types:
        return op_types[tool]
    t = _NOT_OP.sub("_", tool.lower())
    if not t[:1].isalpha() or t in BUILTIN_OP_TYPES:
        t = "tool_" + t
    return t[:64]


def describe(tool: str, description: Optional[str]) -> str:
    """The operation people read: the agent's own description, naming the tool."""
    d = (description or "").strip()
    if not d:
        return f"Run the tool {tool}"
    return d if tool in d else f"{tool}: {d}"


def edited_args(d: Decision, schema: Optional[Mapping[str, Any]]) -> Dict[str, Any]:
    """The edited input of decision d as tool arguments: a JSON object, valid
    against the tool's JSON schema when the framework gives one."""
    v = d.edited_input
    if isinstance(v, str):
        try:
            v = json.loads(v)
        except json.JSONDecodeError as e:
            raise EditRefused(f"the edit by {d.by} is not JSON ({e.msg} at character {e.pos}); the tool takes a JSON object of arguments") from None
    if not isinstance(v, dict):
        raise EditRefused(f"the edit by {d.by} is {type(v).__name__} JSON, not an object of arguments")
    if schema:
        check_schema(v, schema, d.by)
    return v


def check_schema(v: Any, schema: Mapping[str, Any], by: str) -> None:
    import jsonschema  # an extra of the adapters that edit against a schema

    try:
        jsonschema.validate(v, dict(schema))
    except jsonschema.ValidationError as e:
        where = "/".join(str(p) for p in e.absolute_path) or "the arguments"
        raise EditRefused(f"the edit by {d_by(by)} does not fit the tool's arguments: {where}: {e.message}") from None


def d_by(by: str) -> str:
    return by or "the approver"


def refusal(tool: str, d: Decision) -> str:
    """What the model reads when the tool was not run."""
    if d.outcome == "timed_out":
        return f"Nobody approved {tool} in time; it was not run."
    if d.outcome == "responded":
        return f"Not approved: {d_by(d.by)} replied in hitl instead: {d.message}"
    who = "hitl's policy" if d.by == "policy" else d.by
    why = d.reason or "no reason given"
    return f"{who} denied {tool}: {why}"


_SAFE = re.compile(r"[^A-Za-z0-9._:/@-]")


def run_id(*parts: str) -> str:
    """A run id from framework ids (thread, session): letters, digits and . _ : / @ -."""
    s = _SAFE.sub("-", "-".join(p for p in parts if p))
    return s[:128].strip("-") or "run"


def require_async(client: Any, what: str) -> None:
    """Refuse, before anyone is asked, a client that cannot be awaited where
    an adapter runs in the framework's event loop."""
    from .._async_client import AsyncClient
    from .._errors import INVALID, HitlError

    if not isinstance(client, AsyncClient):
        raise HitlError(INVALID, f"{what} needs an AsyncClient (the framework awaits it in its event loop): "
                        f"pass hitl.AsyncClient(), not {type(client).__name__}")


# ---- framework file tools and the operation sent for a tool call ----

PATH_FIELDS = ("path", "file_path", "filepath", "filename", "file")
CONTENT_FIELDS = ("content", "contents", "text")
_WRITES = re.compile(r"write|create|save", re.I)
_NOT_WHOLE = re.compile(r"append|insert|patch|edit|replace|delete|remove", re.I)

FileWrites = Mapping[str, Optional[Tuple[str, str]]]
"""Tool name → (its path argument, its content argument): the tool writes
that content as the whole file. ``None`` says a tool is not a file write."""


def file_write_of(tool: str, args: Any, declared: Optional[FileWrites] = None) -> Optional[Tuple[str, str]]:
    """(path argument, content argument) of a call that writes a whole file:
    as ``declared``, else a tool named for writing (write, create, save; not
    append, insert, patch, edit, replace, delete, remove) whose arguments
    name a path (``path``, ``file_path``, ``filepath``, ``filename``,
    ``file``) and its content (``content``, ``contents``, ``text``)."""
    if not isinstance(args, Mapping):
        return None
    if declared is not None and tool in declared:
        fw = declared[tool]
        if fw is None or not isinstance(args.get(fw[0]), str) or not isinstance(args.get(fw[1]), str):
            return None
        return fw
    if not _WRITES.search(tool) or _NOT_WHOLE.search(tool):
        return None
    p = next((k for k in PATH_FIELDS if isinstance(args.get(k), str) and args[k]), None)
    c = next((k for k in CONTENT_FIELDS if isinstance(args.get(k), str)), None)
    return (p, c) if p and c else None


@dataclass
class ToolOp:
    """A tool call as the hitl operation sent for it."""

    action: str
    op_type: str
    resource: Optional[str]
    input: Any
    """The call's arguments when they are the resource (as JSON): an edit comes back parsed."""
    reason: str
    extra: Dict[str, Any] = field(default_factory=dict)
    """Operation fields the client's request_approval has no parameter for: noEdit, cwd, diffs."""
    args: Any = None
    """The call's arguments as the tool runs them."""
    repath: Optional[Callable[[str], "ToolOp"]] = None
    """For a file write whose resource is its path: the same call writing at another path."""


def tool_operation(
    name: str,
    args: Any,
    description: Optional[str],
    *,
    op_types: Optional[Mapping[str, str]] = None,
    file_writes: Optional[FileWrites] = None,
    cwd: Optional[str] = None,
    editable: bool = True,
) -> ToolOp:
    """The operation of a framework tool call. A call that writes a whole
    file (``file_write_of``) is a ``file_write`` of its absolute path (the
    type ``op_types`` gives it, if any), with the diff of the file it would
    write, computed here, on the agent's machine, as hitl's Claude Code hook
    does; the policy then decides it by its path, as every other file write.
    Any other call is its tool's own type with its arguments as JSON.
    ``editable=False``: the framework cannot run the tool with other input,
    so no edit is offered (``noEdit``)."""
    no_edit = {} if editable else {"noEdit": True}
    fw = file_write_of(name, args, file_writes)
    if fw is None or not isinstance(args, dict):
        return ToolOp(describe(name, description), op_type_for(name, op_types), None, args, f"tool {name}", dict(no_edit), args)
    where = cwd or os.getcwd()
    path = _diff.absolute(str(args[fw[0]]), where)
    others = {k: v for k, v in args.items() if k not in fw}
    reason = f"tool {name}" + (f", with {canonical_json(others)}" if others else "")
    op_type = op_types[name] if op_types and name in op_types else "file_write"

    def repath(p: str) -> ToolOp:
        return tool_operation(name, {**args, fw[0]: p}, description, op_types=op_types, file_writes={name: fw}, cwd=cwd, editable=editable)

    extra = {**no_edit, "cwd": where, "diffs": [_diff.write_diff(path, str(args[fw[1]]))]}
    return ToolOp(describe(name, description), op_type, path, None, reason, extra, args, repath)


MAX_PATH_EDITS = 3
"""How many times a person may move a file write to another path, each shown its new diff."""

AskFlow = Generator[ToolOp, Decision, Tuple[Decision, ToolOp]]


def ask_flow(op: ToolOp) -> AskFlow:
    """Ask about op (yield it, get its Decision). A person's edit of a file
    write's path is not run on trust: the same write at the new path is asked
    again, with its own diff (the file there), and runs only when approved
    as shown. Returns the decision and the operation it is about; an edit of
    a file write comes back as ``edited`` with the new arguments."""
    first = op
    edited: Optional[Decision] = None
    for _ in range(MAX_PATH_EDITS + 1):
        d = yield op
        if d.outcome == "edited" and op.repath is not None:
            new = op.repath(str(d.edited_input))
            why = (f"{d_by(d.by)} moved this write from {op.resource} to {new.resource}: "
                   f"this is the change at {new.resource}. Approve it, edit the path again, or deny.")
            op, edited = dataclasses.replace(new, reason=why + "\n" + new.reason), d
            continue
        if edited is not None and d.outcome == "approved":
            return dataclasses.replace(d, outcome="edited", edited_input=op.args), op
        return d, op
    return Decision("denied", reason=f"the path of {first.action} was changed {MAX_PATH_EDITS} times without an approval of the last change", by=edited.by if edited else ""), op


def request(client: "Client", op: ToolOp, *, run: Optional[str], timeout: Optional[float]) -> Decision:
    """POST op as an approval (the policy, then a person) and wait for it."""
    from .. import _protocol as p

    req = p.operation(op.action, op_type=op.op_type, resource=op.resource, input=op.input, reason=op.reason, risk=None,
                      run=client._run(client._run_id(run)), prompted=True, timeout=timeout, home=client._st.home)
    req.update(op.extra)
    return client._run(p.request_approval(client._st, req, op.input))  # type: ignore[no-any-return]


async def arequest(client: "AsyncClient", op: ToolOp, *, run: Optional[str], timeout: Optional[float]) -> Decision:
    """``request`` with an AsyncClient."""
    from .. import _protocol as p

    req = p.operation(op.action, op_type=op.op_type, resource=op.resource, input=op.input, reason=op.reason, risk=None,
                      run=await client._run(client._run_id(run)), prompted=True, timeout=timeout, home=client._st.home)
    req.update(op.extra)
    return await client._run(p.request_approval(client._st, req, op.input))


def decide(client: "Client", op: ToolOp, *, run: Optional[str], timeout: Optional[float]) -> Tuple[Decision, ToolOp]:
    """ask_flow driven with a Client."""
    flow = ask_flow(op)
    try:
        cur = next(flow)
        while True:
            cur = flow.send(request(client, cur, run=run, timeout=timeout))
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


async def adecide(client: "AsyncClient", op: ToolOp, *, run: Optional[str], timeout: Optional[float]) -> Tuple[Decision, ToolOp]:
    """ask_flow driven with an AsyncClient."""
    flow = ask_flow(op)
    try:
        cur = next(flow)
        while True:
            cur = flow.send(await arequest(client, cur, run=run, timeout=timeout))
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


def edit_note(tool: str, by: str, ran: Any) -> str:
    """What the model reads when a person changed its call before it ran."""
    return (f"Note: {d_by(by)} changed the input of this {tool} call in hitl before it ran; "
            f"what ran is not what you asked for. It ran with: {ran if isinstance(ran, str) else canonical_json(ran)}")
