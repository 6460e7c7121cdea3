"""Resume a LangGraph graph when hitl's webhook says a person answered.

An agent that cannot wait (a serverless function, a CI job) runs its graph
until it needs a person, asks hitl without waiting, and ends; its state stays
in a SQLite checkpoint. When the person answers — in Slack, the web inbox or a
terminal — hitl POSTs a signed ``question.answered`` delivery (Standard
Webhooks) to this small WSGI app, which verifies it, loads the graph's state
and resumes it with the answer.

    export HITL_URL=… HITL_TOKEN=… HITL_WEBHOOK_SECRET=whsec_… HITL_CALLBACK_URL=http://127.0.0.1:8080/hitl
    python langgraph_webhook_resume.py serve 8080 &
    python langgraph_webhook_resume.py start v42

Each question carries ``HITL_CALLBACK_URL`` as its ``callbackUrl``, so hitl's
config needs that host allowed and a callback secret (the same whsec_… as
HITL_WEBHOOK_SECRET; docs/webhooks.md):

    webhooks_allowed_hosts: [127.0.0.1]
    webhooks_callback_secret_file: /etc/hitl/callback.whsec

Without HITL_CALLBACK_URL, point a configured endpoint at the handler instead:

    webhooks:
      - {name: resume, url: "http://127.0.0.1:8080/hitl", secret_file: /etc/hitl/resume.secret, events: [question.answered]}

Needs ``pip install "hitl-client[langgraph]" langgraph-checkpoint-sqlite``.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import uuid
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Tuple, TypedDict

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from hitl import Client, HitlError, verify_webhook


class Deploy(TypedDict, total=False):
    version: str
    region: str
    deployed: str


def deploy_graph(saver: SqliteSaver, deploy: Callable[[str, str], None]) -> Any:
    """Pick a region (a person does), then deploy there."""

    def pick(state: Deploy) -> Deploy:
        region = interrupt({"question": f"Deploy {state['version']} to which region?", "options": ["eu-west-1", "us-east-1"]})
        return {"region": region}

    def ship(state: Deploy) -> Deploy:
        deploy(state["version"], state["region"])
        return {"deployed": f"{state['version']}@{state['region']}"}

    g = StateGraph(Deploy)
    g.add_node("pick", pick)
    g.add_node("ship", ship)
    g.add_edge(START, "pick")
    g.add_edge("pick", "ship")
    g.add_edge("ship", END)
    return g.compile(checkpointer=saver)


class Resumer:
    """Starts graph runs that ask hitl without waiting, and resumes them from webhooks.

    Which question belongs to which thread (and interrupt) is kept in the same
    SQLite database as the checkpoints, so any process can resume any run.
    With ``callback_url`` every question asks hitl to POST its outcome there
    (this handler); without it, a configured endpoint must."""

    def __init__(self, graph: Any, client: Client, secret: str, db: sqlite3.Connection, callback_url: Optional[str] = None) -> None:
        self.graph, self.client, self.secret, self.db = graph, client, secret, db
        self.callback_url = callback_url
        db.execute("CREATE TABLE IF NOT EXISTS hitl_waits (question_id TEXT PRIMARY KEY, thread_id TEXT, interrupt_id TEXT)")
        db.execute("CREATE TABLE IF NOT EXISTS hitl_deliveries (webhook_id TEXT PRIMARY KEY)")
        db.commit()

    def _ask_pending(self, thread: str) -> List[str]:
        """Ask hitl (without waiting) every interrupt the thread is stopped at."""
        asked = []
        for it in self.graph.get_state({"configurable": {"thread_id": thread}}).interrupts:
            v = it.value
            q = self.client.ask(v["question"], options=v.get("options"), run=f"deploy-{thread}", key=f"{thread}:{it.id}", wait=False, callback_url=self.callback_url)
            self.db.execute("INSERT OR REPLACE INTO hitl_waits VALUES (?, ?, ?)", (q.id, thread, it.id))
            asked.append(q.id)
        self.db.commit()
        return asked

    def start(self, input: Deploy, thread: Optional[str] = None) -> Tuple[str, List[str]]:
        """Run the graph until it needs a person; return its thread and the questions asked."""
        thread = thread or uuid.uuid4().hex
        self.graph.invoke(input, {"configurable": {"thread_id": thread}})
        return thread, self._ask_pending(thread)

    def handle(self, headers: Mapping[str, str], body: bytes) -> Tuple[int, str]:
        """One webhook delivery: (HTTP status, text)."""
        try:
            verify_webhook(self.secret, headers, body)
        except HitlError as e:
            return 400, e.message
        event = json.loads(body)
        wid = next(v for k, v in headers.items() if k.lower() == "webhook-id")
        if self.db.execute("SELECT 1 FROM hitl_deliveries WHERE webhook_id = ?", (wid,)).fetchone():
            return 200, "already handled"  # deliveries are at least once: a retry repeats the id
        if event.get("type") != "question.answered":
            return 204, ""
        qid = str(event["data"]["id"])
        row = self.db.execute("SELECT thread_id, interrupt_id FROM hitl_waits WHERE question_id = ?", (qid,)).fetchone()
        if row is None:
            return 404, f"no graph waits on {qid}"
        thread, interrupt_id = row
        answer = self.client.wait(qid, timeout=30)  # settled already: takes the outcome at once
        self.graph.invoke(Command(resume={interrupt_id: answer}), {"configurable": {"thread_id": thread}})
        self.db.execute("DELETE FROM hitl_waits WHERE question_id = ?", (qid,))
        self.db.execute("INSERT INTO hitl_deliveries VALUES (?)", (wid,))
        self.db.commit()
        self._ask_pending(thread)  # the graph may need a person again
        return 200, "resumed"

    def wsgi(self, environ: Dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        """The HTTP handler: POST the delivery here."""
        if environ.get("REQUEST_METHOD") != "POST":
            start_response("405 Method Not Allowed", [("Content-Type", "text/plain")])
            return [b"POST a webhook delivery"]
        n = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(n) if n else b""
        headers = {k[5:].replace("_", "-").lower(): str(v) for k, v in environ.items() if k.startswith("HTTP_")}
        status, text = self.handle(headers, body)
        reasons = {200: "OK", 204: "No Content", 400: "Bad Request", 404: "Not Found"}
        start_response(f"{status} {reasons.get(status, '')}", [("Content-Type", "text/plain")])
        return [text.encode()]


def main(argv: List[str]) -> None:
    db = sqlite3.connect(os.environ.get("DEPLOY_DB", "deploys.sqlite"), check_same_thread=False)
    graph = deploy_graph(SqliteSaver(db), lambda v, r: print(f"deploying {v} to {r}"))
    r = Resumer(graph, Client(), os.environ["HITL_WEBHOOK_SECRET"], db, os.environ.get("HITL_CALLBACK_URL") or None)
    if argv[:1] == ["start"]:
        thread, asked = r.start({"version": argv[1] if len(argv) > 1 else "v1"})
        print(f"thread {thread} waits on {', '.join(asked)}")
    elif argv[:1] == ["serve"]:
        from wsgiref.simple_server import make_server

        make_server("127.0.0.1", int(argv[1]) if len(argv) > 1 else 8080, r.wsgi).serve_forever()
    else:
        sys.exit("usage: langgraph_webhook_resume.py start [VERSION] | serve [PORT]")


if __name__ == "__main__":
    main(sys.argv[1:])
