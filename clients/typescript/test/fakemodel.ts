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

export interface FakeAnthropic {
  url: string;
  /** Every /v1/messages request body. */
  requests: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

type Block = { type: "text"; text: string } | { type: "tool_use"; id: string; name: string; input: unknown };

/**
 * An Anthropic-compatible /v1/messages server (streaming and not): a
 * request offering `toolName` that has no tool result yet gets a tool_use
 * of it with input; one carrying a tool result gets "done: <result>";
 * anything else (the CLI's side requests) a short text.
 */
export async function fakeAnthropic(toolName: string, input: unknown): Promise<FakeAnthropic> {
  const requests: FakeAnthropic["requests"] = [];
  let n = 0;
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (b) => { body += b; });
    req.on("end", () => {
      const path = (req.url ?? "").split("?")[0];
      if (req.method === "POST" && path.endsWith("/messages/count_tokens")) {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ input_tokens: 10 }));
        return;
      }
      if (req.method !== "POST" || !path.endsWith("/v1/messages")) {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: `no ${req.method} ${req.url}` } }));
        return;
      }
      const r = JSON.parse(body) as { stream?: boolean; model: string; tools?: Array<{ name: string }>; messages: Array<{ role: string; content: unknown }> };
      requests.push(r);
      const last = r.messages[r.messages.length - 1];
      const results = Array.isArray(last?.content) ? (last.content as Array<{ type: string; content?: unknown }>).filter((b) => b.type === "tool_result") : [];
      let blocks: Block[];
      let stop = "end_turn";
      if (results.length) {
        const c = results[0].content;
        const text = typeof c === "string" ? c : Array.isArray(c) ? c.map((x: { text?: string }) => x.text ?? "").join("") : JSON.stringify(c);
        blocks = [{ type: "text", text: `done: ${text}` }];
      } else if (r.tools?.some((t) => t.name === toolName)) {
        blocks = [{ type: "tool_use", id: `toolu_${++n}`, name: toolName, input }];
        stop = "tool_use";
      } else {
        blocks = [{ type: "text", text: "ok" }];
      }
      const id = `msg_${requests.length}`;
      const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
      if (!r.stream) {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ id, type: "message", role: "assistant", model: r.model, content: blocks, stop_reason: stop, stop_sequence: null, usage }));
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      send("message_start", { type: "message_start", message: { id, type: "message", role: "assistant", model: r.model, content: [], stop_reason: null, stop_sequence: null, usage } });
      blocks.forEach((b, index) => {
        if (b.type === "text") {
          send("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
          send("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: b.text } });
        } else {
          send("content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } });
          send("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } });
        }
        send("content_block_stop", { type: "content_block_stop", index });
      });
      send("message_delta", { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } });
      send("message_stop", { type: "message_stop" });
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const a = server.address();
  const port = typeof a === "object" && a ? a.port : 0;
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}
