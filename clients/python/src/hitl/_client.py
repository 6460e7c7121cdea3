"""The synchronous client."""

from __future__ import annotations

import getpass
import json
import os
import time
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Union

import httpx

from . import _protocol as p
from ._errors import INTERNAL, UNAVAILABLE, HitlError
from ._models import Checkpoint, Decision, Event, PolicyDecision, Question


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


class _Base:
    """What Client and AsyncClient share: configuration and call shapes."""

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


class Client(_Base):
    """A synchronous hitl client.

    ``url`` defaults to ``$HITL_URL`` (comma-separated replicas fail over;
    ``http://127.0.0.1:7070`` when unset), ``token`` to ``$HITL_TOKEN``.
    Questions go to the run given, or to this agent's own run
    ``py-$USER@PRINCIPAL`` (learned from ``GET /api/whoami``).
    """

    def __init__(
        self,
        url: Optional[str] = None,
        token: Optional[str] = None,
        *,
        http: Optional[httpx.Client] = None,
        sleep: Callable[[float], None] = time.sleep,
        home: Optional[str] = None,
    ) -> None:
        super().__init__(url, token, home)
        self._http = http or httpx.Client(timeout=httpx.Timeout(30.0, connect=5.0))
        self._sleep = sleep

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self, flow: p.Flow) -> Any:
        try:
            op = next(flow)
            while True:
                if isinstance(op, p.Pause):
                    self._sleep(op.seconds)
                    op = flow.send(None)
                else:
                    op = flow.send(self._attempt(op))
        except StopIteration as done:
            return done.value

    def _attempt(self, a: p.Attempt) -> Union[p.Reply, p.Down]:
        kw = self._attempt_args(a)
        if a.timeout is not None:
            kw["timeout"] = httpx.Timeout(a.timeout, connect=5.0)
        try:
            resp = self._http.request(a.method, a.base + a.path, **kw)
        except (httpx.ConnectError, httpx.ConnectTimeout) as e:
            return p.Down(False, str(e) or type(e).__name__)
        except httpx.TransportError as e:
            return p.Down(True, str(e) or type(e).__name__)
        return p.Reply(resp.status_code, resp.headers, _decode(resp))

    def _run_id(self, run: Optional[str]) -> str:
        return run or self._run(p.default_run(self._st, self._user))

    def whoami(self) -> Mapping[str, Any]:
        """``{principal, scopes, slackUser?}``: who this client's token is."""
        return self._run(p.whoami(self._st))  # type: ignore[no-any-return]

    def ask(
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
    ) -> Any:
        """Ask a person and wait for the answer: a str, a list of str with
        ``multi``, a bool with ``yes_no``. ``timeout`` (seconds) is the
        question's own; when it runs out the ``default`` is the answer, or
        HitlError ``timed_out`` is raised. ``wait=False`` returns the
        ``Question`` at once (``wait(question.id)`` later). ``callback_url``:
        hitl POSTs the question's outcome there, signed (docs/webhooks.md),
        for an agent that saved its state and ended; a host the service
        does not allow is refused with HitlError ``invalid``."""
        n = p.new_question(question, options=options, multi=multi, yes_no=yes_no, default=default, timeout=timeout, key=key, context=context, sensitive=sensitive, callback_url=callback_url)
        return self._run(p.ask(self._st, self._run_id(run), n, wait))

    def wait(self, question_id: str, timeout: Optional[float] = None) -> Any:
        """Wait for a question asked with ``wait=False`` and return its answer
        as ``ask`` would; after ``timeout`` seconds HitlError
        ``deadline_exceeded`` (the question stays pending)."""

        def flow() -> p.Flow:
            q = yield from p.wait(self._st, question_id, timeout)
            got = yield from p.settle(self._st, q, timeout)
            return p.value_of(got)

        return self._run(flow())

    def question(self, question_id: str) -> Question:
        """The question as it is now."""
        out = self._run(p.call(self._st, "GET", f"/api/questions/{p.segment('question id', question_id)}", replay=True))
        return Question.of(out["question"])

    def cancel(self, question_id: str, reason: Optional[str] = None) -> Question:
        body = {"reason": reason} if reason else {}
        out = self._run(p.call(self._st, "POST", f"/api/questions/{p.segment('question id', question_id)}/cancel", body=body))
        return Question.of(out["question"] if "question" in out else out)

    def request_approval(
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
    ) -> Decision:
        """Ask the policy about an operation, and a person when it says so.

        ``action`` is what people read; ``input`` the operation's exact input
        (shown as its resource, as JSON unless a str); an edit comes back in
        ``Decision.edited_input`` (parsed JSON when ``input`` was structured).
        A policy ``allow`` or ``deny`` returns at once with ``by="policy"``.
        ``callback_url`` also gets the approval's outcome as a signed
        webhook (see ``ask``). Shell and file operations go with the
        agent's home (``Client(home=…)``, default ``$HOME``), so the policy
        reads ``~`` in them as this agent's home."""
        req = p.operation(action, op_type=op_type, resource=resource, input=input, reason=reason, risk=risk, run=self._run_id(run), prompted=prompted, timeout=timeout, home=self._st.home, callback_url=callback_url)
        return self._run(p.request_approval(self._st, req, input))  # type: ignore[no-any-return]

    def check(self, op_type: str, resource: Optional[str] = None, *, action: Optional[str] = None, prompted: bool = False) -> PolicyDecision:
        """What the policy decides about an operation, asking nobody and
        creating nothing."""
        req = p.operation(action or f"{op_type} {resource or ''}".strip(), op_type=op_type, resource=resource, input=None, reason=None, risk=None, run=None, prompted=prompted, timeout=None, home=self._st.home)
        return PolicyDecision.of(self._run(p.call(self._st, "POST", "/api/policy/check", body=req, replay=True)))

    def checkpoint(self, run: str, iter: Optional[int] = None, *, model: Optional[str] = None, max: Optional[int] = None) -> Checkpoint:
        """Report an iteration boundary of a steerable loop: returns at once
        while it runs (a new model or instruction once), blocks while it is
        paused, raises HitlError ``cancelled`` once it was cancelled."""
        body: Dict[str, Any] = {"iter": iter or 0}
        if model:
            body["model"] = model
        if max:
            body["max"] = max
        return Checkpoint.of(self._run(p.checkpoint(self._st, run, body)))

    def done(self, run: str) -> Checkpoint:
        """The loop finished (seed 000's DONE): its pending questions are cancelled."""
        return Checkpoint.of(self._run(p.call(self._st, "POST", "/api/topics/loop:current", body=p.state_event(run, "DONE"))))

    def abort(self, run: str, reason: str) -> Checkpoint:
        """The loop gave up (seed 000's ABORT), saying why."""
        if not reason:
            raise HitlError("invalid", "abort needs a reason")
        return Checkpoint.of(self._run(p.call(self._st, "POST", "/api/topics/loop:current", body=p.state_event(run, "ABORT", reason))))

    def events(self, *, last_event_id: Optional[str] = None, after: Optional[int] = None) -> Iterator[Event]:
        """The live event stream (``GET /api/events``), resumed from the last
        event seen (``Last-Event-ID``) when the connection drops or the
        service restarts. ``after=0`` replays the log from the start."""
        last = last_event_id
        b = p.Backoff(self._st.min_backoff, self._st.max_backoff)
        while True:
            base = self._st.urls[self._st.current]
            h = p.headers(self._st.token)
            h["Accept"] = "text/event-stream"
            params: Dict[str, str] = {}
            if last:
                h["Last-Event-ID"] = last
            elif after is not None:
                params["after"] = str(after)
            try:
                with self._http.stream("GET", base + "/api/events", headers=h, params=params, timeout=httpx.Timeout(30.0, read=None)) as resp:
                    if resp.status_code >= 400:
                        resp.read()
                        err = p.error_of(p.Reply(resp.status_code, resp.headers, _decode(resp)))
                        if err.code not in (UNAVAILABLE, INTERNAL) and resp.status_code != 429:
                            raise err
                        self._sleep(err.retry_after or b.next())
                        continue
                    block: List[str] = []
                    for line in resp.iter_lines():
                        if line:
                            block.append(line)
                            continue
                        ev = p.parse_sse(block)
                        block = []
                        if ev is None:
                            continue
                        eid, typ, data = ev
                        if eid:
                            last = eid
                        b.reset()
                        yield Event(eid, typ, json.loads(data) if data else {})
                # The stream ended (a restart, a proxy): reconnect after a
                # pause, longer each time nothing came through.
                self._sleep(b.next())
            except httpx.TransportError:
                self._st.failed(self._st.current)
                self._sleep(b.next())
