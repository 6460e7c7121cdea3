"""An OpenAI-compatible Chat Completions server on loopback, scripted by a test."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List

Script = Callable[[List[Dict[str, Any]]], Dict[str, Any]]


def tool_calls(*calls: Dict[str, Any], turn: int = 0) -> Dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": f"call_{turn}_{i}", "type": "function", "function": {"name": c["name"], "arguments": json.dumps(c["args"])}} for i, c in enumerate(calls)
    ]}


def text(s: str) -> Dict[str, Any]:
    return {"role": "assistant", "content": s}


class FakeOpenAI:
    """script(messages) → the assistant message to answer with; requests are recorded."""

    def __init__(self, script: Script) -> None:
        self.requests: List[Dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
                outer.requests.append(body)
                msg = script(body["messages"])
                out = {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": body.get("model", "fake"),
                       "choices": [{"index": 0, "message": msg, "finish_reason": "tool_calls" if msg.get("tool_calls") else "stop"}],
                       "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
                b = json.dumps(out).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(b)))
                self.end_headers()
                self.wfile.write(b)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
