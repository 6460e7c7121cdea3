"""The asynchronous client: the same methods as Client, awaited."""

from __future__ import annotations

import asyncio
import json
from typing import Any, AsyncIterator, Awaitable, Callable, Dict, List, Mapping, Optional, Sequence, Union

import httpx

from . import _protocol as p
from ._client import _Base, _decode
from ._errors import INTERNAL, UNAVAILABLE, HitlError
from ._models import Checkpoint, Decision, Event, PolicyDecision, Question


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

    async def _run(self, flow: p.Flow) -> Any:
        try:
            op = next(flow)
            while True:
                if isinstance(op, p.Pause):
                    await self._sleep(op.seconds)
                    op = flow.send(None)
                else:
                    op = flow.send(await self._attempt(op))
        except StopIteration as done:
            return done.value

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

    async def _run_id(self, run: Optional[str]) -> str:
        if run:
            return run
        got: str = await self._run(p.default_run(self._st, self._user))
        return got

    async def whoami(self) -> Mapping[str, Any]:
        return await self._run(p.whoami(self._st))  # type: ignore[no-any-return]

    async def ask(
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
        """See ``Client.ask``."""
        n = p.new_question(question, options=options, multi=multi, yes_no=yes_no, default=default, timeout=timeout, key=key, context=context, sensitive=sensitive, callback_url=callback_url)
        return await self._run(p.ask(self._st, await self._run_id(run), n, wait))

    async def wait(self, question_id: str, timeout: Optional[float] = None) -> Any:
        """See ``Client.wait``."""

        def flow() -> p.Flow:
            q = yield from p.wait(self._st, question_id, timeout)
            got = yield from p.settle(self._st, q, timeout)
            return p.value_of(got)

        return await self._run(flow())

    async def question(self, question_id: str) -> Question:
        out = await self._run(p.call(self._st, "GET", f"/api/questions/{p.segment('question id', question_id)}", replay=True))
        return Question.of(out["question"])

    async def cancel(self, question_id: str, reason: Optional[str] = None) -> Question:
        body = {"reason": reason} if reason else {}
        out = await self._run(p.call(self._st, "POST", f"/api/questions/{p.segment('question id', question_id)}/cancel", body=body))
        return Question.of(out["question"] if "question" in out else out)

    async def request_approval(
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
        """See ``Client.request_approval``."""
        req = p.operation(action, op_type=op_type, resource=resource, input=input, reason=reason, risk=risk, run=await self._run_id(run), prompted=prompted, timeout=timeout, home=self._st.home, callback_url=callback_url)
        return await self._run(p.request_approval(self._st, req, input))  # type: ignore[no-any-return]

    async def check(self, op_type: str, resource: Optional[str] = None, *, action: Optional[str] = None, prompted: bool = False) -> PolicyDecision:
        """See ``Client.check``."""
        req = p.operation(action or f"{op_type} {resource or ''}".strip(), op_type=op_type, resource=resource, input=None, reason=None, risk=None, run=None, prompted=prompted, timeout=None, home=self._st.home)
        return PolicyDecision.of(await self._run(p.call(self._st, "POST", "/api/policy/check", body=req, replay=True)))

    async def checkpoint(self, run: str, iter: Optional[int] = None, *, model: Optional[str] = None, max: Optional[int] = None) -> Checkpoint:
        """See ``Client.checkpoint``."""
        body: Dict[str, Any] = {"iter": iter or 0}
        if model:
            body["model"] = model
        if max:
            body["max"] = max
        return Checkpoint.of(await self._run(p.checkpoint(self._st, run, body)))

    async def done(self, run: str) -> Checkpoint:
        return Checkpoint.of(await self._run(p.call(self._st, "POST", "/api/topics/loop:current", body=p.state_event(run, "DONE"))))

    async def abort(self, run: str, reason: str) -> Checkpoint:
        if not reason:
            raise HitlError("invalid", "abort needs a reason")
        return Checkpoint.of(await self._run(p.call(self._st, "POST", "/api/topics/loop:current", body=p.state_event(run, "ABORT", reason))))

    async def events(self, *, last_event_id: Optional[str] = None, after: Optional[int] = None) -> AsyncIterator[Event]:
        """See ``Client.events``."""
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
                async with self._http.stream("GET", base + "/api/events", headers=h, params=params, timeout=httpx.Timeout(30.0, read=None)) as resp:
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
