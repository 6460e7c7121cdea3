// A scriptable MCP client on the official TypeScript SDK, for hitl's Go
// tests (cmd/hitl/mcp_test.go): it starts the server given on its command
// line over stdio, then takes one JSON command per line on stdin and
// writes one JSON event per line on stdout.
//
//   node client.mjs COMMAND ARGS...
//
// Commands:
//   {"id": "l", "op": "list"}
//   {"id": "c", "op": "call", "name": "ask_human", "arguments": {...},
//    "timeout": 2000, "progress": true, "resetTimeoutOnProgress": true}
//   {"id": "c", "op": "abort"}      abort call c (its AbortSignal)
//   {"op": "close"}
// Events: {"event": "connected"}, {"id", "event": "result", "result"},
// {"id", "event": "progress", "progress"}, {"id", "event": "error",
// "message", "code"}.
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = process.argv.slice(2);
const emit = (event) => process.stdout.write(JSON.stringify(event) + "\n");
const failed = (id) => (err) => emit({ id, event: "error", message: String(err?.message ?? err), code: err?.code ?? null });

const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
const client = new Client({ name: "hitl-test-client", version: "1.0.0" });
await client.connect(transport);
emit({ event: "connected", server: client.getServerVersion() });

const calls = new Map();
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const cmd = JSON.parse(line);
  switch (cmd.op) {
    case "list":
      client.listTools().then((result) => emit({ id: cmd.id, event: "result", result }), failed(cmd.id));
      break;
    case "call": {
      const abort = new AbortController();
      calls.set(cmd.id, abort);
      const options = { signal: abort.signal };
      if (cmd.timeout) options.timeout = cmd.timeout;
      if (cmd.resetTimeoutOnProgress) options.resetTimeoutOnProgress = true;
      if (cmd.progress) options.onprogress = (progress) => emit({ id: cmd.id, event: "progress", progress });
      client
        .callTool({ name: cmd.name, arguments: cmd.arguments ?? {} }, undefined, options)
        .then((result) => emit({ id: cmd.id, event: "result", result }), failed(cmd.id));
      break;
    }
    case "abort":
      calls.get(cmd.id)?.abort(new Error("the test aborted the call"));
      break;
    case "close":
      await client.close();
      process.exit(0);
  }
}
await client.close();
