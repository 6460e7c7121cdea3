"""The client's behaviour, written once for the sync and the async client.

Each call is a generator that yields what it needs done — an HTTP attempt
at one replica (``Attempt``) or a pause (``Pause``) — and receives the
result. ``Client`` runs it with httpx.Client and time.sleep,
``AsyncClient`` with httpx.AsyncClient and asyncio.sleep. Failover across
replicas, Retry-After on 429, and waiting out a restart live here only.
"""

from __future__ import annotations

import json
import os
import random
import time
import uuid
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, Dict, Generator, List, Mapping, Optional, Sequence, Tuple, Union

from ._errors import (
    CANCELLED,
    DEADLINE_EXCEEDED,
    INTERNAL,
    INVALID,
    RATE_LIMITED,
    TIMEOUT,
    TOO_MANY_STREAMS,
    UNAVAILABLE,
    HitlError,
    code_of_status,
)
from ._models import Decision, Question

DEFAULT_URL = "http://127.0.0.1:7070"
LONG_POLL = 60.0  # seconds one wait request asks the service to hold
MAX_RATE_RETRIES = 20


@dataclass(frozen=True)
class Attempt:
    """One HTTP request to the replica ``base``."""

    base: str
    method: str
    path: str
    params: Optional[Mapping[str, str]] = None
    body: Any = None
    has_body: bool = False
    timeout: Optional[float] = None


@dataclass(frozen=True)
class Reply:
    status: int
    headers: Mapping[str, str]
    data: Any


@dataclass(frozen=True)
class Down:
    """The replica did not answer: ``sent`` says the request may have reached it."""

    sent: bool
    message: str


@dataclass(frozen=True)
class Pause:
    seconds: float


Op = Union[Attempt, Pause]
Flow = Generator[Op, Any, Any]


@dataclass
class State:
    """What a client keeps between calls: its replicas and the one in use."""

    urls: List[str]
    token: Optional[str]
    current: int = 0
    default_run: Optional[str] = None
    min_backoff: float = 0.2
    max_backoff: float = 5.0
    long_poll: float = LONG_POLL
    home: Optional[str] = None  # the agent's home, sent with shell and file operations
    retries: List[float] = field(default_factory=list)  # the pauses taken, newest last (for tests)

    def failed(self, i: int) -> None:
        if self.current == i:
            self.current = (i + 1) % len(self.urls)


def parse_urls(url: Optional[str]) -> List[str]:
    urls = [u.strip().rstrip("/") for u in (url or "").split(",") if u.strip()]
    if not urls:
        raise HitlError(INVALID, "no hitl URL: pass url= or set HITL_URL (comma-separated replicas fail over)")
    for u in urls:
        if not (u.startswith("http://") or u.startswith("https://")):
            raise HitlError(INVALID, f"hitl URL {u!r} must start with http:// or https://")
    return urls


def headers(token: Optional[str]) -> Dict[str, str]:
    h = {"Accept": "application/json", "User-Agent": "hitl-client-python"}
    if token:
        h["Authorization"] = "Bearer " + token
    return h


def retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Seconds of a Retry-After header (whole seconds or an HTTP date), else None."""
    if not value:
        return None
    v = value.strip()
    if v.isdigit():
        n = float(v)
        return n if n > 0 else None
    try:
        when = parsedate_to_datetime(v).timestamp()
    except (TypeError, ValueError, IndexError):
        return None
    left = when - (time.time() if now is None else now)
    return left if left > 0 else None


def error_of(r: Reply) -> HitlError:
    data = r.data if isinstance(r.data, dict) else {}
    code = data.get("code") if isinstance(data.get("code"), str) and data.get("code") else code_of_status(r.status)
    msg = data.get("message") or f"HTTP {r.status}"
    by = data.get("answeredBy")
    return HitlError(str(code), str(msg), status=r.status, retry_after=retry_after(r.headers.get("retry-after")), by=by)


class Backoff:
    """Capped exponential backoff with jitter."""

    def __init__(self, lo: float, hi: float) -> None:
        self.lo, self.hi, self.cur = lo, hi, 0.0

    def next(self) -> float:
        self.cur = self.lo if self.cur == 0 else min(self.cur * 2, self.hi)
        return self.cur - random.uniform(0, self.cur / 4)

    def reset(self) -> None:
        self.cur = 0.0


def hollow(r: Reply) -> bool:
    """A 2xx without the JSON object every hitl endpoint answers with: the
    body was empty, cut off or not JSON (a service shutting down, a proxy).
    It is a transport failure: the request may have reached the service."""
    return 200 <= r.status < 300 and not isinstance(r.data, dict)


def request(
    st: State,
    method: str,
    path: str,
    *,
    params: Optional[Mapping[str, str]] = None,
    body: Any = None,
    has_body: bool = False,
    replay: bool = False,
    timeout: Optional[float] = None,
) -> Flow:
    """Send to the replica in use, then to the next ones (each once) as far
    as the request may be repeated: never sent, or safe to repeat (``replay``:
    reads, long polls, creates with an idempotency key, receive, checkpoints)."""
    n = len(st.urls)
    start = st.current
    down: Optional[Down] = None
    for i in range(n):
        at = (start + i) % n
        got = yield Attempt(st.urls[at], method, path, params, body, has_body or body is not None, timeout)
        if isinstance(got, Reply) and got.status not in (502, 503, 504) and not hollow(got):
            return got
        if isinstance(got, Down):
            down = got
        elif hollow(got):
            down = Down(True, f"HTTP {got.status} without the JSON body it documents")
        else:
            down = Down(True, f"HTTP {got.status}")
        st.failed(at)
        if down.sent and not replay:
            break
    assert down is not None
    where = ", ".join(st.urls)
    raise HitlError(UNAVAILABLE, f"hitl is not answering at {where}: {down.message}")


def call(
    st: State,
    method: str,
    path: str,
    *,
    params: Optional[Mapping[str, str]] = None,
    body: Any = None,
    has_body: bool = False,
    replay: bool = False,
    timeout: Optional[float] = None,
) -> Flow:
    """request, then honour 429 (waiting Retry-After and sending again) and
    turn an error response into HitlError."""
    last = HitlError(RATE_LIMITED, "rate limited")
    for _ in range(MAX_RATE_RETRIES):
        r = yield from request(st, method, path, params=params, body=body, has_body=has_body, replay=replay, timeout=timeout)
        if r.status == 429:
            last = error_of(r)
            wait = last.retry_after if last.retry_after is not None else 1.0
            st.retries.append(wait)
            yield Pause(wait)
            continue
        if r.status >= 400:
            raise error_of(r)
        return r.data
    raise last


def segment(what: str, v: str) -> str:
    if not v or "/" in v or v in (".", ".."):
        raise HitlError(INVALID, f"{what} {v!r} is invalid")
    return v


def whoami(st: State) -> Flow:
    return (yield from call(st, "GET", "/api/whoami", replay=True))


def default_run(st: State, user: str) -> Flow:
    if st.default_run is None:
        me = yield from whoami(st)
        st.default_run = f"py-{user}@{me['principal']}"
    return st.default_run


def new_question(
    question: str,
    *,
    options: Optional[Sequence[Union[str, Mapping[str, Any]]]],
    multi: bool,
    yes_no: bool,
    default: Any,
    timeout: Optional[float],
    key: Optional[str],
    context: Optional[Mapping[str, Any]],
    sensitive: bool,
    callback_url: Optional[str] = None,
) -> Dict[str, Any]:
    if options and yes_no:
        raise HitlError(INVALID, "ask takes options or yes_no, not both")
    if multi and not options:
        raise HitlError(INVALID, "multi=True needs options")
    n: Dict[str, Any] = {"question": question}
    if options:
        n["responseType"] = "choice"
        n["options"] = [{"label": o} if isinstance(o, str) else dict(o) for o in options]
        if multi:
            n["multiSelect"] = True
    elif yes_no:
        n["responseType"] = "boolean"
    else:
        n["responseType"] = "text"
    if default is not None:
        n["defaultResponse"] = {"value": default}
    if timeout is not None:
        if timeout <= 0:
            raise HitlError(INVALID, f"timeout must be positive seconds, got {timeout}")
        n["timeoutMinutes"] = timeout / 60.0
    if key:
        n["idempotencyKey"] = key
    if context:
        n["context"] = dict(context)
    if sensitive:
        n["sensitive"] = True
    if callback_url is not None:
        n["callbackUrl"] = callback_url
    return n


# The operation types whose resource may name paths: ~ in them is the
# agent's home, so they go with it (docs/shell-policy.md), as the Go hooks'.
PATH_OPS = ("shell", "file_read", "file_write", "file_delete")


def agent_home(home: Optional[str]) -> Optional[str]:
    """The home sent with path operations: home= given (it must be
    absolute), else $HOME when it is absolute, else none."""
    if home is None:
        h = os.environ.get("HOME", "")
        return os.path.normpath(h) if os.path.isabs(h) else None
    if home == "":
        return None
    if not os.path.isabs(home) or "\x00" in home or "\n" in home:
        raise HitlError(INVALID, f"home {home!r} must be the agent's home directory as an absolute path")
    return os.path.normpath(home)


def failover_key(st: State, key: Optional[str]) -> Optional[str]:
    """A create sent to several replicas carries an idempotency key, so that
    it can be sent again at the next one without asking twice."""
    if key or len(st.urls) < 2:
        return key
    return "failover:" + str(uuid.uuid4())


def create(st: State, run: str, n: Dict[str, Any]) -> Flow:
    n = dict(n)
    key = failover_key(st, n.get("idempotencyKey"))
    if key:
        n["idempotencyKey"] = key
    out = yield from call(st, "POST", f"/api/jobs/{segment('run', run)}/questions", body=n, replay=bool(key))
    return out["question"]


def wait(st: State, qid: str, timeout: Optional[float], clock: Any = time.monotonic) -> Flow:
    """Long-poll until question qid is settled, waiting out restarts and
    unreachable replicas; with timeout, raise deadline_exceeded after it."""
    segment("question id", qid)
    deadline = None if timeout is None else clock() + timeout
    b = Backoff(st.min_backoff, st.max_backoff)
    last: Optional[Mapping[str, Any]] = None
    while True:
        poll = st.long_poll
        if deadline is not None:
            left = deadline - clock()
            if left <= 0:
                raise HitlError(DEADLINE_EXCEEDED, f"question {qid} is still pending after {timeout}s; wait again with wait({qid!r})", question=last)
            poll = max(1.0, min(poll, left))
        try:
            out = yield from call(st, "GET", f"/api/questions/{qid}", params={"wait": f"{int(poll)}s"}, replay=True, timeout=poll + 15)
        except HitlError as e:
            if e.code == TOO_MANY_STREAMS:
                yield Pause(e.retry_after or b.next())
                continue
            if e.code not in (UNAVAILABLE, INTERNAL):
                raise
            yield Pause(b.next())
            continue
        b.reset()
        q = out["question"]
        last = q
        if q.get("status") != "pending":
            return q


def take(st: State, qid: str) -> Flow:
    """Receive a settled question's outcome (frees its key, hands over a
    sensitive answer once), retrying while the service is unreachable."""
    b = Backoff(st.min_backoff, st.max_backoff)
    while True:
        try:
            out = yield from call(st, "POST", f"/api/questions/{qid}/receive", has_body=True, replay=True)
            return out["question"]
        except HitlError as e:
            if e.code not in (UNAVAILABLE, INTERNAL):
                raise
            yield Pause(b.next())


def settle(st: State, q: Mapping[str, Any], timeout: Optional[float]) -> Flow:
    """Wait for q and take its outcome; a question asked again (its
    sensitive answer lost to a restart) is waited on again."""
    while True:
        if q.get("status") == "pending":
            q = yield from wait(st, str(q["id"]), timeout)
        got = yield from take(st, str(q["id"]))
        if got.get("status") == "pending":
            q = got
            continue
        return got


def value_of(q: Mapping[str, Any]) -> Any:
    """What ask returns for a settled question, or the error it raises."""
    status = q.get("status")
    resp = q.get("response") or {}
    if status == "answered" or (status == "timeout" and resp):
        return resp.get("value")
    if status == "timeout":
        raise HitlError(TIMEOUT, f"question {q.get('id')} timed out without an answer", question=q)
    if status == "cancelled":
        by = q.get("respondedBy") or ""
        msg = f"question {q.get('id')} was cancelled" + (f" by {by}" if by else "")
        if q.get("cancelReason"):
            msg += ": " + str(q["cancelReason"])
        raise HitlError(CANCELLED, msg, question=q, by=by or None)
    raise HitlError(INTERNAL, f"question {q.get('id')} is still {status}", question=q)


def ask(st: State, run: str, n: Dict[str, Any], wait_for: bool) -> Flow:
    q = yield from create(st, run, n)
    if not wait_for:
        return Question.of(q)
    got = yield from settle(st, q, None)
    return value_of(got)


def operation(
    action: str,
    *,
    op_type: Optional[str],
    resource: Optional[str],
    input: Any,
    reason: Optional[str],
    risk: Optional[str],
    run: Optional[str],
    prompted: bool,
    timeout: Optional[float],
    home: Optional[str] = None,
    callback_url: Optional[str] = None,
) -> Dict[str, Any]:
    req: Dict[str, Any] = {"operation": action, "opType": op_type or "custom"}
    if home and req["opType"] in PATH_OPS:
        req["home"] = home
    if callback_url is not None:
        req["callbackUrl"] = callback_url
    if resource is None and input is not None:
        resource = input if isinstance(input, str) else canonical_json(input)
    if resource:
        req["resource"] = resource
    if reason:
        req["context"] = reason
    if risk:
        req["risk"] = risk
    if run:
        req["runId"] = run
    if prompted:
        req["prompted"] = True
    if timeout is not None:
        if timeout <= 0:
            raise HitlError(INVALID, f"timeout must be positive seconds, got {timeout}")
        req["timeoutMinutes"] = timeout / 60.0
    return req


def canonical_json(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def request_approval(st: State, req: Dict[str, Any], input: Any) -> Flow:
    req = dict(req)
    key = failover_key(st, req.get("idempotencyKey"))
    if key:
        req["idempotencyKey"] = key
    out = yield from call(st, "POST", "/api/approvals", body=req, replay=bool(key))
    effect, rule = out.get("decision"), str(out.get("rule", ""))
    if effect == "allow":
        return Decision("approved", by="policy", rule=rule)
    if effect == "deny":
        return Decision("denied", reason=f"denied by policy rule {rule}", by="policy", rule=rule)
    q = yield from settle(st, out["question"], None)
    return decision_of(q, req.get("resource"), input, rule)


def decision_of(q: Mapping[str, Any], resource: Optional[str], input: Any, rule: str = "") -> Decision:
    """A settled approval question as a Decision (cancelled raises)."""
    qid, by = str(q.get("id", "")), str(q.get("respondedBy", ""))
    status = q.get("status")
    resp = q.get("response") or {}
    if status == "timeout":
        return Decision("timed_out", by=by or "system", question_id=qid, rule=rule)
    if status == "cancelled":
        value_of(q)
    value, text = resp.get("value"), str(resp.get("text") or "")
    if value == "approve":
        edited = resp.get("edited") or ""
        if edited and edited != resource:
            return Decision("edited", message=text, edited_input=parse_edit(edited, input), by=by, question_id=qid, rule=rule)
        return Decision("approved", message=text, by=by, question_id=qid, rule=rule, always=bool(resp.get("always")))
    if str(value or "").lower() in REPLY_VALUES:
        return Decision("responded", message=text, by=by, question_id=qid, rule=rule)
    return Decision("denied", reason=text, by=by, question_id=qid, rule=rule)


REPLY_VALUES = ("reply", "replied", "respond")
"""The approval values that are a person's reply in words (docs/reply-and-batch.md)."""


def parse_edit(edited: str, input: Any) -> Any:
    """An edit of a structured input is JSON: hand it back parsed."""
    if input is None or isinstance(input, str):
        return edited
    try:
        return json.loads(edited)
    except ValueError:
        return edited  # the adapters refuse it with a clear message


def state_event(run: str, event: str, reason: Optional[str] = None) -> Dict[str, Any]:
    e: Dict[str, Any] = {"schema": 1, "event": event, "run_id": run, "stack": []}
    if reason:
        e["reason"] = reason
    return e


def check_ended(cp: Mapping[str, Any]) -> None:
    if cp.get("status") in ("cancelled", "done", "aborted"):
        msg = f"run {cp.get('runId')} is {cp.get('status')}"
        if cp.get("reason"):
            msg += ": " + str(cp["reason"])
        raise HitlError(CANCELLED, msg)


def checkpoint(st: State, run: str, body: Dict[str, Any]) -> Flow:
    """Report an iteration; while the run is paused the service holds the
    call, and the client reports again until it is not."""
    b = Backoff(st.min_backoff, st.max_backoff)
    while True:
        try:
            cp = yield from call(st, "POST", f"/api/runs/{segment('run', run)}/checkpoint", body=body, replay=True, timeout=st.long_poll + 15)
        except HitlError as e:
            if e.code not in (UNAVAILABLE, INTERNAL):
                raise
            yield Pause(b.next())
            continue
        if cp.get("status") == "paused":
            continue
        check_ended(cp)
        return cp


def parse_sse(lines: Sequence[str]) -> Optional[Tuple[str, str, str]]:
    """One SSE block (its lines, without the blank one) as (id, event, data)."""
    eid, ev, data = "", "message", []
    for line in lines:
        if not line or line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "id":
            eid = value
        elif name == "event":
            ev = value
        elif name == "data":
            data.append(value)
    if not data and not eid:
        return None
    return eid, ev, "\n".join(data)

