// Fake models on loopback: an OpenAI-compatible chat completions server
// that calls one tool, then answers with what the tool returned.
import { createServer, type Server } from "node:http";

export interface FakeOpenAI {
  url: string;
  /** Every request body the model received. */
  requests: Array<{ messages: Array<{ role: string; content?: unknown; tool_calls?: unknown }> }>;
  close(): Promise<void>;
}

export async function fakeOpenAI(toolName: string, args: unknown): Promise<FakeOpenAI> {
  const requests: FakeOpenAI["requests"] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (b) => { body += b; });
    req.on("end", () => {
      if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: `no ${req.method} ${req.url}` } }));
        return;
      }
      const r = JSON.parse(body);
      requests.push(r);
      const last = r.messages[r.messages.length - 1];
      const message = last.role === "tool"
        ? { role: "assistant", content: `done: ${typeof last.content === "string" ? last.content : JSON.stringify(last.content)}` }
        : { role: "assistant", content: null, tool_calls: [{ id: `call_${requests.length}`, type: "function", function: { name: toolName, arguments: JSON.stringify(args) } }] };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({
        id: `chatcmpl-${requests.length}`, object: "chat.completion", created: 0, model: r.model,
        choices: [{ index: 0, message, finish_reason: last.role === "tool" ? "stop" : "tool_calls" }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const a = server.address();
  const port = typeof a === "object" && a ? a.port : 0;
  return { url: `http://127.0.0.1:${port}/v1`, requests, close: () => new Promise((r) => server.close(() => r())) };
}
