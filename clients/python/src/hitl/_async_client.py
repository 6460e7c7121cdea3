"""The asynchronous client: the shared core's calls (_base_client.py) run
with httpx.AsyncClient and asyncio.sleep, the same methods as Client,
awaited."""

from __future__ import annotations

import asyncio
import json
from typing import Any, AsyncIterator, Awaitable, Callable, Concatenate, Coroutine, List, Optional, ParamSpec, TypeVar, Union

import httpx

from . import _protocol as p
from ._base_client import Call, _Base, _decode, public
from ._errors import INTERNAL, UNAVAILABLE
from ._models import Event

P = ParamSpec("P")
T = TypeVar("T")


def async_(flow: Callable[Concatenate[_Base, P], Call[T]]) -> Callable[Concatenate["AsyncClient", P], Coroutine[Any, Any, T]]:
    """AsyncClient's method for the shared core's flow: the same parameters, a coroutine of its result."""

    async def method(self: AsyncClient, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._run(flow(self, *args, **kwargs))

    public(method, flow, "AsyncClient")
    return method


class AsyncClient(_Base):
    """An asyncio hitl client with the same methods as ``Client``."""

    def __init__(
        self,
        url: Optional[str] = None,
        token: Optional[str] = None,
        *,
        http: Optional[httpx.AsyncClient] = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        home: Optional[str] = None,
    ) -> None:
        super().__init__(url, token, home)
        self._http = http or httpx.AsyncClient(timeout=httpx.Timeout(30.0, connect=5.0))
        self._sleep = sleep

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _run(self, flow: Call[T]) -> T:
        try:
            op = next(flow)
            while True:
                if isinstance(op, p.Pause):
                    await self._sleep(op.seconds)
                    op = flow.send(None)
                else:
                    op = flow.send(await self._attempt(op))
        except StopIteration as done:
            result: T = done.value
            return result

    async def _attempt(self, a: p.Attempt) -> Union[p.Reply, p.Down]:
        kw = self._attempt_args(a)
        if a.timeout is not None:
            kw["timeout"] = httpx.Timeout(a.timeout, connect=5.0)
        try:
            resp = await self._http.request(a.method, a.base + a.path, **kw)
        except (httpx.ConnectError, httpx.ConnectTimeout) as e:
            return p.Down(False, str(e) or type(e).__name__)
        except httpx.TransportError as e:
            return p.Down(True, str(e) or type(e).__name__)
        return p.Reply(resp.status_code, resp.headers, _decode(resp))

    # The public calls: each signature and docstring is _Base's (written once).
    whoami = async_(_Base._whoami)
    ask = async_(_Base._ask)
    wait = async_(_Base._wait)
    question = async_(_Base._question)
    cancel = async_(_Base._cancel)
    request_approval = async_(_Base._request_approval)
    check = async_(_Base._check)
    checkpoint = async_(_Base._checkpoint)
    done = async_(_Base._done)
    abort = async_(_Base._abort)

    async def events(self, *, last_event_id: Optional[str] = None, after: Optional[int] = None) -> AsyncIterator[Event]:
        """The live event stream (``GET /api/events``), resumed from the last
        event seen (``Last-Event-ID``) when the connection drops or the
        service restarts. ``after=0`` replays the log from the start."""
        last = last_event_id
        b = p.Backoff(self._st.min_backoff, self._st.max_backoff)
        while True:
            url, h, params = self._events_request(last, after)
            try:
                async with self._http.stream("GET", url, headers=h, params=params, timeout=httpx.Timeout(30.0, read=None)) as resp:
                    if resp.status_code >= 400:
                        await resp.aread()
                        err = p.error_of(p.Reply(resp.status_code, resp.headers, _decode(resp)))
                        if err.code not in (UNAVAILABLE, INTERNAL) and resp.status_code != 429:
                            raise err
                        await self._sleep(err.retry_after or b.next())
                        continue
                    block: List[str] = []
                    async for line in resp.aiter_lines():
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
                await self._sleep(b.next())
            except httpx.TransportError:
                self._st.failed(self._st.current)
                await self._sleep(b.next())
