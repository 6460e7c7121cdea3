"""What Client and AsyncClient share: configuration, and every public call
written once, with its signature and docstring, as a flow (see
_protocol.py).

Each ``_Base._name`` method is the one copy of a public method's signature.
``Client`` exposes it as ``name = sync(_Base._name)``, which runs the flow
with httpx.Client and time.sleep; ``AsyncClient`` as ``name =
async_(_Base._name)``, a coroutine function running it with httpx.AsyncClient
and asyncio.sleep. The type checker reads the parameters through ParamSpec,
so a user's editor and mypy see each method's full signature on both
clients: ``T`` on Client, ``Coroutine[Any, Any, T]`` on AsyncClient. What
cannot be written once (the constructors, close/aclose, the ``events``
iterator, whose I/O differs) is written in each client.
"""

from __future__ import annotations

import getpass
import inspect
import json
import os
import re
from typing import Any, Callable, Dict, Generator, List, Mapping, Optional, Sequence, Tuple, TypeVar, Union

import httpx

from . import _protocol as p
from ._errors import HitlError
from ._models import Checkpoint, Decision, PolicyDecision, Question

T = TypeVar("T")

#: A public call as a flow that returns T.
Call = Generator[p.Op, Any, T]


def _user() -> str:
    try:
        return getpass.getuser() or "agent"
    except Exception:  # no user name on this system
        return "agent"


def _decode(resp: httpx.Response) -> Any:
    """The JSON of a response; None for an empty, truncated or non-JSON 2xx
    (which the flow treats as a transport failure), a message for an error
    page that is not hitl's JSON."""
    try:
        return json.loads(resp.content) if resp.content else None
    except ValueError:
        return None if resp.status_code < 300 else {"message": resp.text[:200]}


def public(method: Callable[..., Any], flow: Callable[..., Any], owner: str) -> None:
    """Gives method (class owner's runner of flow) flow's public name,
    docstring and signature, without the flow's generator return type."""
    for attr in ("__module__", "__doc__"):
        setattr(method, attr, getattr(flow, attr))
    name = flow.__name__.lstrip("_")
    method.__name__ = name
    method.__qualname__ = f"{owner}.{name}"
    sig = inspect.signature(flow)
    ret = sig.return_annotation
    if isinstance(ret, str):
        m = re.fullmatch(r"Call\[(.*)\]", ret)
        ret = m.group(1) if m else ret
    setattr(method, "__signature__", sig.replace(return_annotation=ret))


class _Base:
    """The shared core: configuration, and each public call once."""

    def __init__(self, url: Optional[str], token: Optional[str], home: Optional[str] = None) -> None:
        self._st = p.State(
            urls=p.parse_urls(url if url is not None else os.environ.get("HITL_URL", p.DEFAULT_URL)),
            token=token if token is not None else os.environ.get("HITL_TOKEN") or None,
            home=p.agent_home(home),
        )
        self._user = os.environ.get("USER") or _user()

    @property
    def urls(self) -> List[str]:
        """The replicas this client uses, in order."""
        return list(self._st.urls)

    def _attempt_args(self, a: p.Attempt) -> Dict[str, Any]:
        kw: Dict[str, Any] = {"params": dict(a.params) if a.params else None, "headers": p.headers(self._st.token)}
        if a.has_body:
            kw["content"] = json.dumps({} if a.body is None else a.body).encode()
            kw["headers"]["Content-Type"] = "application/json"
        return kw

    def _events_request(self, last: Optional[str], after: Optional[int]) -> Tuple[str, Dict[str, str], Dict[str, str]]:
        """The URL, headers and query of GET /api/events at the replica in use."""
        h = p.headers(self._st.token)
        h["Accept"] = "text/event-stream"
        params: Dict[str, str] = {}
        if last:
            h["Last-Event-ID"] = last
        elif after is not None:
            params["after"] = str(after)
        return self._st.urls[self._st.current] + "/api/events", h, params

    def _run_id(self, run: Optional[str]) -> Call[str]:
        if run:
            return run
        got: str = yield from p.default_run(self._st, self._user)
        return got

    # ---- the public calls, once ----

    def _whoami(self) -> Call[Mapping[str, Any]]:
        """``{principal, scopes, slackUser?}``: who this client's token is."""
        got: Mapping[str, Any] = yield from p.whoami(self._st)
        return got

    def _ask(
        self,
        question: str,
        *,
        options: Optional[Sequence[Union[str, Mapping[str, Any]]]] = None,
        multi: bool = False,
        yes_no: bool = False,
        default: Any = None,
        timeout: Optional[float] = None,
        run: Optional[str] = None,
        key: Optional[str] = None,
        context: Optional[Mapping[str, Any]] = None,
        sensitive: bool = False,
        wait: bool = True,
        callback_url: Optional[str] = None,
    ) -> Call[Any]:
        """Ask a person and wait for the answer: a str, a list of str with
        ``multi``, a bool with ``yes_no``. ``timeout`` (seconds) is the
        question's own; when it runs out the ``default`` is the answer, or
        HitlError ``timed_out`` is raised. ``wait=False`` returns the
        ``Question`` at once (``wait(question.id)`` later). ``callback_url``:
        hitl POSTs the question's outcome there, signed (docs/webhooks.md),
        for an agent that saved its state and ended; a host the service
        does not allow is refused with HitlError ``invalid``."""
        n = p.new_question(question, options=options, multi=multi, yes_no=yes_no, default=default, timeout=timeout, key=key, context=context, sensitive=sensitive, callback_url=callback_url)
        run_id = yield from self._run_id(run)
        return (yield from p.ask(self._st, run_id, n, wait))

    def _wait(self, question_id: str, timeout: Optional[float] = None) -> Call[Any]:
        """Wait for a question asked with ``wait=False`` and return its answer
        as ``ask`` would; after ``timeout`` seconds HitlError
        ``deadline_exceeded`` (the question stays pending)."""
        q = yield from p.wait(self._st, question_id, timeout)
        got = yield from p.settle(self._st, q, timeout)
        return p.value_of(got)

    def _question(self, question_id: str) -> Call[Question]:
        """The question as it is now."""
        out = yield from p.call(self._st, "GET", f"/api/questions/{p.segment('question id', question_id)}", replay=True)
        return Question.of(out["question"])

    def _cancel(self, question_id: str, reason: Optional[str] = None) -> Call[Question]:
        """Cancel a pending question, saying why."""
        body = {"reason": reason} if reason else {}
        out = yield from p.call(self._st, "POST", f"/api/questions/{p.segment('question id', question_id)}/cancel", body=body)
        return Question.of(out["question"] if "question" in out else out)

    def _request_approval(
        self,
        action: str,
        *,
        op_type: Optional[str] = None,
        resource: Optional[str] = None,
        input: Any = None,
        reason: Optional[str] = None,
        risk: Optional[str] = None,
        run: Optional[str] = None,
        prompted: bool = False,
        timeout: Optional[float] = None,
        callback_url: Optional[str] = None,
    ) -> Call[Decision]:
        """Ask the policy about an operation, and a person when it says so.

        ``action`` is what people read; ``input`` the operation's exact input
        (shown as its resource, as JSON unless a str); an edit comes back in
        ``Decision.edited_input`` (parsed JSON when ``input`` was structured).
        A policy ``allow`` or ``deny`` returns at once with ``by="policy"``.
        ``callback_url`` also gets the approval's outcome as a signed
        webhook (see ``ask``). Shell and file operations go with the
        agent's home (``Client(home=…)``, default ``$HOME``), so the policy
        reads ``~`` in them as this agent's home."""
        run_id = yield from self._run_id(run)
        req = p.operation(action, op_type=op_type, resource=resource, input=input, reason=reason, risk=risk, run=run_id, prompted=prompted, timeout=timeout, home=self._st.home, callback_url=callback_url)
        got: Decision = yield from p.request_approval(self._st, req, input)
        return got

    def _check(self, op_type: str, resource: Optional[str] = None, *, action: Optional[str] = None, prompted: bool = False) -> Call[PolicyDecision]:
        """What the policy decides about an operation, asking nobody and
        creating nothing."""
        req = p.operation(action or f"{op_type} {resource or ''}".strip(), op_type=op_type, resource=resource, input=None, reason=None, risk=None, run=None, prompted=prompted, timeout=None, home=self._st.home)
        return PolicyDecision.of((yield from p.call(self._st, "POST", "/api/policy/check", body=req, replay=True)))

    def _checkpoint(self, run: str, iter: Optional[int] = None, *, model: Optional[str] = None, max: Optional[int] = None) -> Call[Checkpoint]:
        """Report an iteration boundary of a steerable loop: returns at once
        while it runs (a new model or instruction once), blocks while it is
        paused, raises HitlError ``cancelled`` once it was cancelled."""
        body: Dict[str, Any] = {"iter": iter or 0}
        if model:
            body["model"] = model
        if max:
            body["max"] = max
        return Checkpoint.of((yield from p.checkpoint(self._st, run, body)))

    def _done(self, run: str) -> Call[Checkpoint]:
        """The loop finished (seed 000's DONE): its pending questions are cancelled."""
        return Checkpoint.of((yield from p.call(self._st, "POST", "/api/topics/loop:current", body=p.state_event(run, "DONE"))))

    def _abort(self, run: str, reason: str) -> Call[Checkpoint]:
        """The loop gave up (seed 000's ABORT), saying why."""
        if not reason:
            raise HitlError("invalid", "abort needs a reason")
        return Checkpoint.of((yield from p.call(self._st, "POST", "/api/topics/loop:current", body=p.state_event(run, "ABORT", reason))))
