"""An Anthropic-compatible Messages API (/v1/messages, streaming) on loopback, scripted by a test."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional

# script(request body) → content blocks to answer with: {"type": "text", "text": …} or
# {"type": "tool_use", "id": …, "name": …, "input": {…}}
Script = Callable[[Dict[str, Any]], List[Dict[str, Any]]]


def tool_results(body: Dict[str, Any]) -> List[Dict[str, Any]]:
    out = []
    for m in body.get("messages", []):
        if isinstance(m.get("content"), list):
            out += [b for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]
    return out


def result_text(block: Dict[str, Any]) -> str:
    c = block.get("content")
    if isinstance(c, list):
        return " ".join(str(x.get("text", "")) for x in c if isinstance(x, dict))
    return str(c)


class FakeAnthropic:
    def __init__(self, script: Script) -> None:
        self.requests: List[Dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": "not here"}})

            def do_HEAD(self) -> None:
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def _json(self, status: int, v: Any) -> None:
                b = json.dumps(v).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(b)))
                self.end_headers()
                self.wfile.write(b)

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                body = json.loads(raw or b"{}")
                if not self.path.startswith("/v1/messages") or self.path.startswith("/v1/messages/count_tokens"):
                    self._json(200, {"input_tokens": 10})
                    return
                outer.requests.append(body)
                blocks = script(body)
                model = body.get("model", "claude-fake")
                if not body.get("stream"):
                    self._json(200, {"id": "msg_1", "type": "message", "role": "assistant", "model": model, "content": blocks,
                                     "stop_reason": "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn",
                                     "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}})
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()

                def ev(name: str, data: Dict[str, Any]) -> None:
                    self.wfile.write(f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n".encode())

                ev("message_start", {"message": {"id": "msg_1", "type": "message", "role": "assistant", "model": model, "content": [],
                                                 "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}})
                for i, b in enumerate(blocks):
                    if b["type"] == "text":
                        ev("content_block_start", {"index": i, "content_block": {"type": "text", "text": ""}})
                        ev("content_block_delta", {"index": i, "delta": {"type": "text_delta", "text": b["text"]}})
                    else:
                        ev("content_block_start", {"index": i, "content_block": {"type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}})
                        ev("content_block_delta", {"index": i, "delta": {"type": "input_json_delta", "partial_json": json.dumps(b["input"])}})
                    ev("content_block_stop", {"index": i})
                stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
                ev("message_delta", {"delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 1}})
                ev("message_stop", {})
                self.wfile.flush()
                self.close_connection = True

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def one_tool(name: str, input: Dict[str, Any], tool_id: str = "toolu_01") -> Script:
    """Call the tool once (when the request offers it), then answer with what it returned."""

    def script(body: Dict[str, Any]) -> List[Dict[str, Any]]:
        offered = {t.get("name") for t in body.get("tools", []) if isinstance(t, dict)}
        done = tool_results(body)
        if done:
            return [{"type": "text", "text": "done: " + " | ".join(result_text(b) for b in done)}]
        if name in offered:
            return [{"type": "tool_use", "id": tool_id, "name": name, "input": input}]
        return [{"type": "text", "text": "ok"}]

    return script


def last_text(requests: List[Dict[str, Any]]) -> Optional[str]:
    return None
