"""A webhook receiver on a loopback port that records what hitl delivers."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Tuple

Delivery = Tuple[Dict[str, str], bytes]


class Receiver:
    """Answers every POST with 204 and keeps (headers, body)."""

    def __init__(self) -> None:
        self.deliveries: List[Delivery] = []
        self.cond = threading.Condition()
        rec = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with rec.cond:
                    rec.deliveries.append(({k.lower(): v for k, v in self.headers.items()}, body))
                    rec.cond.notify_all()
                self.send_response(204)
                self.end_headers()

            def log_message(self, *a: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/hook"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def wait(self, n: int, timeout: float = 30) -> List[Delivery]:
        """The first n deliveries, waited for up to timeout seconds."""
        with self.cond:
            if not self.cond.wait_for(lambda: len(self.deliveries) >= n, timeout=timeout):
                raise AssertionError(f"{len(self.deliveries)} deliveries within {timeout}s, want {n}")
            return list(self.deliveries[:n])

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
