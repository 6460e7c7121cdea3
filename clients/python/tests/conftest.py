"""A real `hitl serve`, built from this commit, behind every test.

The binary is built once per session (`go build ./cmd/hitl` from the repo
root) unless $HITL_BIN names one. Each server listens on a free loopback
port with its bbolt database in a temp dir, and is stopped on teardown.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Dict, Iterator, List, Mapping, Optional

import httpx
import pytest

REPO = Path(__file__).resolve().parents[3]
AGENT = "agent"
AGENT_TOKEN = "agent-token-0123456789abcdef"
ALICE_TOKEN = "alice-token-0123456789abcdef"
ADMIN_TOKEN = "admin-token-0123456789abcdef"
TOKENS = f"{AGENT}:{AGENT_TOKEN},alice:{ALICE_TOKEN}:answer+control,root:{ADMIN_TOKEN}:admin"

# The policy every test server starts with: tests pick an operation type to
# get the decision they need.
CONFIG = """
timeouts: {min: 1s}
policy:
  rules:
    - {name: test-allow, op_type: test_allow, effect: allow}
    - {name: test-deny, op_type: test_deny, effect: deny}
    - {name: edits-ask, op_type: api_call, effect: ask}
    - {name: safe-echo, op_type: shell, resource: echo allowed-by-policy, effect: allow}
    - {name: no-rm, op_type: shell, resource: rm, effect: deny}
    - {name: printf, op_type: shell, resource: printf, effect: allow}
    - {name: agent-work, op_type: file_write, resource: "/srv/agent-home/work/*", effect: allow}
"""

# The agent's home the tests send (Client(home=...)): ~/work/x is allowed
# only when the policy knows it is /srv/agent-home.
AGENT_HOME = "/srv/agent-home"

# Signs deliveries to a question's callbackUrl; callbackUrls may point at
# loopback receivers only (what the webhook tests start).
CALLBACK_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
WEBHOOKS = """
webhooks_allowed_hosts: [127.0.0.1, localhost]
webhooks_callback_secret_file: {secret}
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def hitl_bin(tmp_path_factory: pytest.TempPathFactory) -> str:
    if os.environ.get("HITL_BIN"):
        return os.environ["HITL_BIN"]
    out = tmp_path_factory.mktemp("bin") / "hitl"
    subprocess.run(["go", "build", "-o", str(out), "./cmd/hitl"], cwd=REPO, check=True)
    return str(out)


class Server:
    """One `hitl serve` process; restart() brings it back on the same port and database."""

    def __init__(self, binary: str, workdir: Path, env: Optional[Mapping[str, str]] = None, config: str = CONFIG) -> None:
        self.binary, self.dir = binary, workdir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        cfg = workdir / "hitl.yaml"
        if "webhooks" not in config:
            secret = workdir / "callback.whsec"
            secret.write_text(CALLBACK_SECRET + "\n")
            secret.chmod(0o600)
            config += WEBHOOKS.format(secret=secret)
        cfg.write_text(config)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("HITL_", "SLACK_"))}
        self.env.update({"HITL_TOKENS": TOKENS, "HITL_CONFIG": str(cfg)})
        self.env.update(env or {})
        self.proc: Optional[subprocess.Popen[bytes]] = None
        self.log = workdir / "serve.log"

    def start(self) -> None:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [self.binary, "serve", "--listen", f"127.0.0.1:{self.port}", "--db", str(self.dir / "hitl.db")],
                cwd=self.dir, env=self.env, stdout=log, stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"hitl serve exited {self.proc.returncode}: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            try:  # readiness: wait on the process a moment rather than spin
                self.proc.wait(timeout=0.05)
            except subprocess.TimeoutExpired:
                pass
        raise RuntimeError("hitl serve did not become ready in 30s")

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def stop(self, sig: int) -> None:
        """Stops the service with signal sig (SIGTERM, SIGINT: a graceful
        stop) and waits for it to exit."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
                raise AssertionError(f"hitl serve did not exit within 60s of signal {sig}: {self.log.read_text()[-2000:]}")

    def questions(self, run: str) -> List[Dict[str, Any]]:
        """Every question of run, whatever its status."""
        return list(self.api("GET", f"/api/jobs/{run}/questions")["questions"])

    def restart(self) -> None:
        self.kill()
        self.start()

    def settled_deliveries(self, qid: str, timeout: float = 30) -> List[Dict[str, Any]]:
        """The webhook outbox's deliveries of question qid, once there is one
        and none is pending (hitl marks one delivered after the receiver
        answered 2xx)."""
        deadline = time.monotonic() + timeout
        while True:
            out = self.api("GET", "/api/webhooks/deliveries", token=ADMIN_TOKEN)["deliveries"]
            mine = [d for d in out if d.get("questionId") == qid]
            if mine and all(d["status"] != "pending" for d in mine):
                return mine
            if time.monotonic() > deadline:
                raise AssertionError(f"deliveries of {qid} still pending after {timeout}s: {mine}")
            threading.Event().wait(0.05)  # poll the condition, up to the deadline

    def api(self, method: str, path: str, token: str = ALICE_TOKEN, body: Any = None) -> Any:
        h = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
        r = httpx.request(method, self.url + path, headers=h, content=json.dumps(body if body is not None else {}) if method != "GET" else None, timeout=30)
        if r.status_code >= 400:
            raise AssertionError(f"{method} {path}: {r.status_code} {r.text}")
        return r.json()


@pytest.fixture(scope="session")
def server(hitl_bin: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(hitl_bin, tmp_path_factory.mktemp("hitl"))
    s.start()
    yield s
    s.kill()


@pytest.fixture
def fresh_server(hitl_bin: str, tmp_path: Path) -> Iterator[Server]:
    """A server of the test's own (one the test may kill, restart or rate-limit)."""
    s = Server(hitl_bin, tmp_path)
    yield s
    s.kill()


@pytest.fixture
def run() -> str:
    return f"t-{uuid.uuid4().hex[:12]}"


class Person:
    """Someone answering from Slack or the web: through hitl's HTTP API, as alice."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.seen: set[str] = set()

    def question(self, run: str, timeout: float = 30) -> Dict[str, Any]:
        """The next question asked in run, waited for on the event stream."""
        h = {"Authorization": "Bearer " + ALICE_TOKEN, "Accept": "text/event-stream"}
        deadline = time.monotonic() + timeout
        with httpx.stream("GET", self.server.url + "/api/events", params={"after": "0"}, headers=h, timeout=httpx.Timeout(timeout)) as resp:
            assert resp.status_code == 200, resp.read()
            for line in resp.iter_lines():
                if time.monotonic() > deadline:
                    break
                if not line.startswith("data:"):
                    continue
                ev = json.loads(line[5:])
                qid = ev.get("questionId", "")
                if ev.get("type") == "question_asked" and ev.get("jobId") == run and qid not in self.seen:
                    self.seen.add(qid)
                    return dict(self.server.api("GET", f"/api/questions/{qid}")["question"])
        raise AssertionError(f"no question was asked in run {run} within {timeout}s")

    def answer(self, qid: str, value: Any, text: Optional[str] = None, edited: Optional[str] = None, always: bool = False) -> Dict[str, Any]:
        resp: Dict[str, Any] = {"value": value}
        if text:
            resp["text"] = text
        if edited is not None:
            resp["edited"] = edited
        if always:
            resp["always"] = True
        return dict(self.server.api("POST", f"/api/questions/{qid}/answer", body={"response": resp}))

    def pending(self, run: str) -> List[Dict[str, Any]]:
        return list(self.server.api("GET", f"/api/questions/pending?jobId={run}")["questions"])


@pytest.fixture
def person(server: Server) -> Person:
    return Person(server)


@pytest.fixture(autouse=True)
def _no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for k in ("HITL_URL", "HITL_TOKEN"):
        monkeypatch.delenv(k, raising=False)
