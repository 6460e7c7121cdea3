// A graceful restart of the service (SIGTERM, what systemctl and docker send;
// SIGINT, Ctrl-C) while the client waits: on a question (long poll), on the
// event stream (SSE) and on a checkpoint held while its run is paused. The
// service comes back on the same database; the client gets its answer,
// throws nothing, and nothing is asked twice. Whatever the stopping service
// answers the waiting request with (an empty 200, a 503 with Retry-After, a
// closed connection), the client treats it as "try again".
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { Client } from "../src/index.js";
import { Hitl, AGENT_TOKEN } from "./hitl.js";

for (const sig of ["SIGTERM", "SIGINT"] as const) {
  describe(`a graceful restart (${sig})`, () => {
    test("a waiting ask gets its answer, asked once", { timeout: 60_000 }, async () => {
      const h = await Hitl.start();
      try {
        const c = h.agent({ run: "r-ask" });
        const p = c.ask("Still there after a restart?");
        const q = await h.pending((q) => q.jobId === "r-ask");
        await h.signal(sig);
        await h.boot();
        await h.answer(q.id, { value: "yes" });
        assert.equal(await p, "yes");
        assert.equal((await h.questions("r-ask")).length, 1);
      } finally {
        await h.stop();
      }
    });

    test("the event stream carries on to the answer", { timeout: 60_000 }, async () => {
      const h = await Hitl.start();
      try {
        const c = h.agent({ run: "r-sse" });
        const q = await c.ask("Streamed?", { wait: false });
        const ctl = new AbortController();
        let asked!: () => void;
        const seenAsked = new Promise<void>((r) => { asked = r; });
        const answered = (async () => {
          for await (const ev of c.events({ after: "0", signal: ctl.signal })) {
            if (ev.questionId !== q.id) continue;
            if (ev.type === "question_asked") asked();
            if (ev.type === "question_answered") return ev.id;
          }
          throw new Error("the stream ended");
        })();
        await seenAsked;
        await h.signal(sig);
        await h.boot();
        await h.answer(q.id, { value: "yes" });
        assert.ok(await answered);
        ctl.abort();
        assert.equal(await c.wait(q.id, { timeout: 30 }), "yes");
        assert.equal((await h.questions("r-sse")).length, 1);
      } finally {
        await h.stop();
      }
    });

    test("a checkpoint held while its run is paused returns once resumed", { timeout: 60_000 }, async () => {
      const h = await Hitl.start();
      try {
        const c = h.agent({ run: "r-cp" });
        await c.checkpoint("r-cp", { iter: 1 });
        const control = (command: string) => h.person().call({
          method: "POST", path: "/api/topics/loop:control", replay: false,
          body: { schema: 0, type: "REQUEST", request_id: crypto.randomUUID(), command, target: { run_id: "r-cp" }, timestamp: new Date().toISOString().replace(/\.\d+Z$/, "Z"), payload: {} },
        });
        await control("pause");
        let settled = false;
        const p = c.checkpoint("r-cp", { iter: 2 }).finally(() => { settled = true; });
        await h.signal(sig);
        await h.boot();
        assert.equal(settled, false, "a paused run's checkpoint returned across the restart");
        await control("resume");
        assert.equal((await p).status, "running");
      } finally {
        await h.stop();
      }
    });
  });
}

describe("a 2xx without its JSON object", () => {
  // A stand-in for a proxy or a service on its way out: the first answers of
  // each request are a 200 with an empty, cut or non-JSON body; then it
  // passes the request to the real service.
  for (const [name, body] of [["empty", ""], ["cut", '{"question":{"id":'], ["not JSON", "<html>ok</html>"], ["a list", "[]"]] as const) {
    test(`${name}: retried, never thrown or returned`, { timeout: 60_000 }, async () => {
      const h = await Hitl.start();
      let hollow = 0;
      const proxy: Server = createServer(async (req, res) => {
        if (hollow < 3 && req.method === "GET" && req.url?.startsWith("/api/questions/")) {
          hollow++;
          res.writeHead(200, { "Content-Type": "application/json" });
          res.end(body);
          return;
        }
        const chunks: Buffer[] = [];
        for await (const ch of req) chunks.push(ch as Buffer);
        const r = await fetch(h.url + req.url, { method: req.method, headers: req.headers as Record<string, string>, body: chunks.length ? Buffer.concat(chunks) : undefined });
        res.writeHead(r.status, { "Content-Type": r.headers.get("Content-Type") ?? "application/json" });
        res.end(Buffer.from(await r.arrayBuffer()));
      });
      await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
      try {
        const addr = proxy.address();
        const port = typeof addr === "object" && addr ? addr.port : 0;
        const c = new Client({ url: `http://127.0.0.1:${port}`, token: AGENT_TOKEN, run: "hollow", minBackoffMs: 10, maxBackoffMs: 50 });
        const q = await c.ask("Through a proxy?", { wait: false });
        await h.answer(q.id, { value: "yes" });
        assert.equal(await c.wait(q.id), "yes");
        assert.equal(hollow, 3);
      } finally {
        proxy.close();
        await h.stop();
      }
    });
  }
});
