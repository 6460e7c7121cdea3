"""What every adapter does the same way: a tool call as a hitl operation, and
checking a person's edit of its input."""

from __future__ import annotations

import json
import re
from typing import Any, Dict, Mapping, Optional

from .._models import Decision

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
