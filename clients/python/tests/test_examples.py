"""examples/python/langgraph_webhook_resume.py: a saved graph is resumed by a signed webhook delivery."""

from __future__ import annotations

import json
import sqlite3
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple
from wsgiref.simple_server import WSGIRequestHandler, make_server

import httpx
import pytest
from langgraph.checkpoint.sqlite import SqliteSaver
from standardwebhooks.webhooks import Webhook

from conftest import ADMIN_TOKEN, AGENT_TOKEN, CALLBACK_SECRET, REPO, Person, Server
from hitl import Client

sys.path.insert(0, str(REPO / "examples" / "python"))
import langgraph_webhook_resume as example  # noqa: E402

SECRET = CALLBACK_SECRET  # what the test server signs callbackUrl deliveries with


class Quiet(WSGIRequestHandler):
    def log_message(self, *a: Any) -> None:
        pass


def process(db_path: Path, server: Server, deployed: List[Tuple[str, str]], callback_url: str | None = None) -> example.Resumer:
    """What one process of the agent builds: the graph over the saved state, and the resumer."""
    db = sqlite3.connect(str(db_path), check_same_thread=False)
    graph = example.deploy_graph(SqliteSaver(db), lambda v, r: deployed.append((v, r)))
    return example.Resumer(graph, Client(server.url, AGENT_TOKEN), SECRET, db, callback_url)


@pytest.fixture
def receiver(tmp_path: Path, server: Server) -> Iterator[Tuple[str, List[Tuple[str, str]]]]:
    """The webhook handler on loopback, in a process of its own (a fresh graph over the same database)."""
    deployed: List[Tuple[str, str]] = []
    r = process(tmp_path / "deploys.sqlite", server, deployed)
    httpd = make_server("127.0.0.1", 0, r.wsgi, handler_class=Quiet)
    r.callback_url = f"http://127.0.0.1:{httpd.server_address[1]}/hitl"  # questions it asks again after a resume
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield r.callback_url, deployed
    httpd.shutdown()
    httpd.server_close()


def delivery(question: Dict[str, Any], msg_id: str = "msg_2Zx", at: float | None = None) -> Tuple[Dict[str, str], bytes]:
    body = json.dumps({"type": "question.answered", "timestamp": "2026-11-26T18:00:00Z", "data": question}).encode()
    ts = int(time.time() if at is None else at)
    sig = Webhook(SECRET).sign(msg_id, datetime.fromtimestamp(ts, tz=timezone.utc), body.decode())
    return {"webhook-id": msg_id, "webhook-timestamp": str(ts), "webhook-signature": sig, "Content-Type": "application/json"}, body


def test_an_answered_webhook_resumes_the_saved_graph(tmp_path: Path, server: Server, person: Person, receiver: Tuple[str, List[Tuple[str, str]]]) -> None:
    url, deployed = receiver
    started: List[Tuple[str, str]] = []
    thread, asked = process(tmp_path / "deploys.sqlite", server, started).start({"version": "v7"})  # the agent asks and ends
    assert len(asked) == 1 and started == []
    q = person.question(f"deploy-{thread}")
    assert (q["question"], [o["label"] for o in q["options"]]) == ("Deploy v7 to which region?", ["eu-west-1", "us-east-1"])
    answered = person.answer(q["id"], "us-east-1")["question"]

    h, body = delivery(answered)
    for name, (hh, bb) in {
        "tampered body": (h, body.replace(b"us-east-1", b"eu-west-1")),
        "old timestamp": delivery(answered, msg_id="msg_old", at=time.time() - 600),
        "no signature": ({k: v for k, v in h.items() if k != "webhook-signature"}, body),
    }.items():
        r = httpx.post(url, headers=hh, content=bb)
        assert r.status_code == 400, name
    assert deployed == []  # nothing resumed on a delivery that does not verify

    r = httpx.post(url, headers=h, content=body)
    assert (r.status_code, r.text) == (200, "resumed")
    assert deployed == [("v7", "us-east-1")]
    r = httpx.post(url, headers=h, content=body)  # at least once: the retry of the same webhook-id
    assert (r.status_code, r.text) == (200, "already handled") and deployed == [("v7", "us-east-1")]


def test_hitl_delivers_the_answer_and_the_graph_resumes_once(tmp_path: Path, server: Server, person: Person, receiver: Tuple[str, List[Tuple[str, str]]]) -> None:
    """End to end: the agent asks with a callbackUrl and ends; a person
    answers through the API; hitl's own webhook worker delivers the signed
    question.answered to the example's handler, which verifies it and
    resumes the graph: the deploy runs once, a replay of the delivery
    (same webhook-id) runs nothing."""
    url, deployed = receiver
    agent = process(tmp_path / "deploys.sqlite", server, [], callback_url=url)
    thread, asked = agent.start({"version": "v8"})
    q = person.question(f"deploy-{thread}")
    assert (asked, q["callbackUrl"]) == ([q["id"]], url)
    person.answer(q["id"], "eu-west-1")

    [d] = server.settled_deliveries(q["id"])
    assert (d["status"], d["attempts"], d["url"]) == ("delivered", 1, url), d
    assert deployed == [("v8", "eu-west-1")]
    state = agent.graph.get_state({"configurable": {"thread_id": thread}})
    assert (state.values.get("deployed"), state.next, state.interrupts) == ("v8@eu-west-1", (), ())

    replay = server.api("POST", f"/api/webhooks/deliveries/{d['seq']}/replay", token=ADMIN_TOKEN)
    again = [x for x in server.settled_deliveries(q["id"]) if x["seq"] != d["seq"]]
    assert [(x["status"], x["id"]) for x in again] == [("delivered", d["id"])], replay
    assert deployed == [("v8", "eu-west-1")]  # the tool ran exactly once


def test_a_question_no_graph_waits_on_is_404(server: Server, receiver: Tuple[str, List[Tuple[str, str]]]) -> None:
    url, _ = receiver
    h, body = delivery({"id": "q_unknown", "status": "answered"}, msg_id="msg_unknown")
    assert httpx.post(url, headers=h, content=body).status_code == 404
