"""The synchronous client: the shared core's calls (_base_client.py) run
with httpx.Client and time.sleep."""

from __future__ import annotations

import json
import time
from typing import Callable, Concatenate, Iterator, List, Optional, ParamSpec, TypeVar, Union

import httpx

from . import _protocol as p
from ._base_client import Call, _Base, _decode, public
from ._errors import INTERNAL, UNAVAILABLE
from ._models import Event

P = ParamSpec("P")
T = TypeVar("T")


def sync(flow: Callable[Concatenate[_Base, P], Call[T]]) -> Callable[Concatenate["Client", P], T]:
    """Client's method for the shared core's flow: the same parameters, run to its result."""

    def method(self: Client, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return self._run(flow(self, *args, **kwargs))

    public(method, flow, "Client")
    return method


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

    def _run(self, flow: Call[T]) -> T:
        try:
            op = next(flow)
            while True:
                if isinstance(op, p.Pause):
                    self._sleep(op.seconds)
                    op = flow.send(None)
                else:
                    op = flow.send(self._attempt(op))
        except StopIteration as done:
            result: T = done.value
            return result

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

    # The public calls: each signature and docstring is _Base's (written once).
    whoami = sync(_Base._whoami)
    ask = sync(_Base._ask)
    wait = sync(_Base._wait)
    question = sync(_Base._question)
    cancel = sync(_Base._cancel)
    request_approval = sync(_Base._request_approval)
    check = sync(_Base._check)
    checkpoint = sync(_Base._checkpoint)
    done = sync(_Base._done)
    abort = sync(_Base._abort)

    def events(self, *, last_event_id: Optional[str] = None, after: Optional[int] = None) -> Iterator[Event]:
        """The live event stream (``GET /api/events``), resumed from the last
        event seen (``Last-Event-ID``) when the connection drops or the
        service restarts. ``after=0`` replays the log from the start."""
        last = last_event_id
        b = p.Backoff(self._st.min_backoff, self._st.max_backoff)
        while True:
            url, h, params = self._events_request(last, after)
            try:
                with self._http.stream("GET", url, headers=h, params=params, timeout=httpx.Timeout(30.0, read=None)) as resp:
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
