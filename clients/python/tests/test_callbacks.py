"""callback_url on ask and request_approval, delivered by hitl's own webhook
worker; home sent with shell and file operations."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any, Dict, Iterator, List

import pytest
from standardwebhooks.webhooks import Webhook

from conftest import AGENT_HOME, AGENT_TOKEN, CALLBACK_SECRET, Person, Server
from hitl import AsyncClient, Client, Decision, HitlError, verify_webhook
from receiver import Receiver


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


def test_an_asked_question_with_a_callback_url_is_delivered_signed(server: Server, person: Person, run: str, receiver: Receiver) -> None:
    c = Client(server.url, AGENT_TOKEN)
    q = c.ask("Ship it?", yes_no=True, run=run, wait=False, callback_url=receiver.url)
    assert person.question(run)["callbackUrl"] == receiver.url
    person.answer(q.id, True, text="go")

    [(h, body)] = receiver.wait(1)
    assert verify_webhook(CALLBACK_SECRET, h, body) == body
    event = Webhook(CALLBACK_SECRET).verify(body, h)  # the library agrees
    assert event["type"] == "question.answered"
    assert (event["data"]["id"], event["data"]["response"]["value"], event["data"]["callbackUrl"]) == (q.id, True, receiver.url)
    assert c.wait(q.id, timeout=10) is True
    [d] = server.settled_deliveries(q.id)
    assert (d["status"], d["id"], d["attempts"]) == ("delivered", h["webhook-id"], 1)
    assert len(receiver.deliveries) == 1


def test_an_approval_with_a_callback_url_is_delivered_and_still_decided(server: Server, person: Person, run: str, receiver: Receiver) -> None:
    c = Client(server.url, AGENT_TOKEN)
    got: List[Decision] = []
    t = threading.Thread(target=lambda: got.append(c.request_approval("Call the billing API", op_type="api_call", input={"amount": 3}, run=run, callback_url=receiver.url)))
    t.start()
    q = person.question(run)
    assert q["callbackUrl"] == receiver.url
    person.answer(q["id"], "approve")
    t.join(timeout=30)
    assert [(d.outcome, d.question_id) for d in got] == [("approved", q["id"])]
    [(h, body)] = receiver.wait(1)
    event = json.loads(verify_webhook(CALLBACK_SECRET, h, body))
    assert (event["type"], event["data"]["id"], event["data"]["response"]["value"]) == ("question.answered", q["id"], "approve")


@pytest.mark.parametrize("url", [
    "http://example.com/hook",      # a host the service does not allow
    "http://10.0.0.7/hook",         # a private address, not listed either
    "ftp://127.0.0.1/hook",         # not http(s)
    "/hook",                        # not absolute
])
def test_a_refused_callback_url_is_invalid_and_nothing_is_asked(server: Server, person: Person, run: str, url: str) -> None:
    c = Client(server.url, AGENT_TOKEN)
    with pytest.raises(HitlError) as e:
        c.ask("Ship it?", run=run, wait=False, callback_url=url)
    assert e.value.code == "invalid", e.value
    with pytest.raises(HitlError) as e:
        c.request_approval("Call the billing API", op_type="api_call", run=run, callback_url=url)
    assert e.value.code == "invalid", e.value
    assert person.pending(run) == []


def test_the_async_client_sends_callback_url(server: Server, person: Person, run: str, receiver: Receiver) -> None:
    async def main() -> str:
        async with AsyncClient(server.url, AGENT_TOKEN) as c:
            with pytest.raises(HitlError) as e:
                await c.ask("Ship it?", run=run, wait=False, callback_url="https://example.com/hook")
            assert e.value.code == "invalid"
            q = await c.ask("Ship it?", run=run, wait=False, callback_url=receiver.url)
            return str(q.id)

    qid = asyncio.run(main())
    person.answer(qid, "yes")
    [(h, body)] = receiver.wait(1)
    assert json.loads(verify_webhook(CALLBACK_SECRET, h, body))["data"]["id"] == qid


def test_home_decides_tilde_paths(server: Server, run: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The policy allows writes under /srv/agent-home/work only: ~/work is
    # allowed when the client says that is its home, and never otherwise.
    line = "printf done > ~/work/out.txt"
    c = Client(server.url, AGENT_TOKEN, home=AGENT_HOME)
    assert c.check("shell", line).decision == "allow"
    assert c.check("file_write", "~/work/out.txt").decision == "allow"
    d = c.request_approval("Write the result", op_type="shell", resource=line, run=run)
    assert (d.outcome, d.by) == ("approved", "policy"), d
    assert c.check("shell", "printf done > ~/elsewhere.txt").decision != "allow"

    no_home = Client(server.url, AGENT_TOKEN, home="")
    assert no_home.check("shell", line).decision != "allow"
    other = Client(server.url, AGENT_TOKEN, home="/home/someone")
    assert other.check("shell", line).decision != "allow"

    monkeypatch.setenv("HOME", AGENT_HOME + "/")  # the default: $HOME
    assert Client(server.url, AGENT_TOKEN).check("file_write", "~/work/out.txt").decision == "allow"
    monkeypatch.setenv("HOME", "relative/home")  # not a home: not sent
    assert Client(server.url, AGENT_TOKEN).check("file_write", "~/work/out.txt").decision != "allow"

    with pytest.raises(HitlError) as e:
        Client(server.url, AGENT_TOKEN, home="relative/home")
    assert e.value.code == "invalid"
