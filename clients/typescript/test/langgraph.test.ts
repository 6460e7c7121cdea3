// LangGraph.js driven end to end: langchain's createAgent with
// humanInTheLoopMiddleware and its FakeToolCallingModel, a plain
// interrupt() graph, a real hitl serve, a person answering through the API.
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { createAgent, humanInTheLoopMiddleware, FakeToolCallingModel, tool } from "langchain";
import { MemorySaver, StateGraph, Annotation, START, END, interrupt } from "@langchain/langgraph";
import { z } from "zod";
import { EditNotes, interruptWhen, resolve, run } from "../src/langgraph.js";
import { block, show } from "./readable.js";
import { Hitl } from "./hitl.js";
import { HitlError } from "../src/index.js";

let hitl: Hitl;
before(async () => { hitl = await Hitl.start(); });
after(async () => { await hitl?.stop(); });

const schema = { type: "object", properties: { to: { type: "string" }, body: { type: "string" } }, required: ["to", "body"], additionalProperties: false };

/** An agent whose model calls toolName with args once; the middleware interrupts on it. */
/** opType undefined: the adapter's default, the tool's own name. */
async function agentRun(runId: string, toolName: string, opType: string | undefined, args: Record<string, unknown>, person?: (run: string) => Promise<void>, decisions: Array<"approve" | "edit" | "reject"> = ["approve", "edit", "reject"], timeout?: number, notes?: EditNotes) {
  const client = hitl.agent({ run: runId });
  const ran: unknown[] = [];
  const t = tool(async (input: Record<string, unknown>) => { ran.push(input); return `sent to ${input.to}`; }, {
    name: toolName, description: `Sends an email (${toolName})`, schema: z.object({ to: z.string(), body: z.string() }),
  });
  const agent = createAgent({
    model: new FakeToolCallingModel({ toolCalls: [[{ name: toolName, args, id: "call-1" }], []] }),
    tools: [t],
    checkpointer: new MemorySaver(),
    middleware: [
      humanInTheLoopMiddleware({ interruptOn: { [toolName]: { allowedDecisions: decisions, argsSchema: schema, description: `The agent wants to email ${args.to}`, when: interruptWhen(client, { opType }) } } }),
      ...(notes ? [(await notes.middleware()) as ReturnType<typeof humanInTheLoopMiddleware>] : []),
    ],
  });
  const answering = person?.(runId);
  const result = await run<{ messages: Array<{ content: unknown; getType?: () => string }> }>(agent, { messages: [{ role: "user", content: "send it" }] }, { client, opType, timeout, notes, config: { configurable: { thread_id: runId } } });
  await answering;
  const toolMessages = result.messages.filter((m) => m.getType?.() === "tool").map((m) => String(m.content));
  return { ran, result, toolMessages };
}

describe("langgraph humanInTheLoopMiddleware", () => {
  test("edited: with EditNotes the tool's result tells the model who changed the call and what ran", async () => {
    const r = await agentRun("lg-told", "send_email", undefined, { to: "a@x", body: "hi" }, async (run) => {
      const q = await hitl.pending((q) => q.jobId === run);
      await hitl.answer(q.id, { value: "approve", edited: '{"to":"b@x","body":"hi"}' });
    }, undefined, undefined, new EditNotes());
    assert.deepEqual(r.ran, [{ to: "b@x", body: "hi" }]);
    assert.equal(r.toolMessages.length, 1);
    assert.match(r.toolMessages[0], /^Note: api:person changed the input of this send_email call in hitl before it ran; .*It ran with: \{"to":"b@x","body":"hi"\}\n\nsent to b@x$/s);
  });

  test("approved as asked: no note", async () => {
    const r = await agentRun("lg-not-told", "send_email", undefined, { to: "a@x", body: "hi" }, async (run) => {
      await hitl.answer((await hitl.pending((q) => q.jobId === run)).id, { value: "approve" });
    }, undefined, undefined, new EditNotes());
    assert.deepEqual(r.toolMessages, ["sent to a@x"]);
  });

  test("a tool's input reads as its fields, a multi-line value as a block", async () => {
    const body = "Hello,\n\nthe release is out.\n\tBob";
    await agentRun("lg-readable", "send_email", undefined, { to: "a@x", body }, async (run) => {
      const q = await hitl.pending((q) => q.jobId === run);
      const out = show(hitl, q.id);
      assert.ok(out.includes("  to: a@x\n") && out.includes(block("body", body)), out);
      assert.ok(!out.includes("\\n"), out);
      await hitl.answer(q.id, { value: "deny" });
    });
  });

  test("approved: the tool runs once with the model's args; people see name, args and description", async () => {
    const r = await agentRun("lg-approve", "send_email", undefined, { to: "a@x", body: "hi" }, async (run) => {
      const q = await hitl.pending((q) => q.jobId === run);
      assert.equal(q.question, "send_email: The agent wants to email a@x");
      assert.equal(q.operation?.resource, '{"to":"a@x","body":"hi"}');
      assert.equal(q.operation?.opType, "send_email", "the tool's own name is the operation type");
      await hitl.answer(q.id, { value: "approve" });
    });
    assert.deepEqual(r.ran, [{ to: "a@x", body: "hi" }]);
    assert.deepEqual(r.toolMessages, ["sent to a@x"]);
  });

  test("edited: an edit breaking argsSchema is refused with the reason and asked again; the valid edit runs", async () => {
    const r = await agentRun("lg-edit", "send_email", undefined, { to: "a@x", body: "hi" }, async (run) => {
      const q = await hitl.pending((q) => q.jobId === run);
      await hitl.answer(q.id, { value: "approve", edited: '{"to":"b@x","body":"hi","cc":"boss@x"}' });
      const again = await hitl.pending((x) => x.jobId === run && x.id !== q.id);
      assert.match(again.operation?.context ?? "", /Your edit was refused: it does not match send_email's arguments: cc is not one of the tool's arguments/);
      await hitl.answer(again.id, { value: "approve", edited: '{"to":"b@x","body":"hello"}' });
    });
    assert.deepEqual(r.ran, [{ to: "b@x", body: "hello" }]);
  });

  test("an edit that is not JSON is refused and asked again", async () => {
    const r = await agentRun("lg-edit-bad", "send_email", undefined, { to: "a@x", body: "hi" }, async (run) => {
      const q = await hitl.pending((q) => q.jobId === run);
      await hitl.answer(q.id, { value: "approve", edited: "to b@x please" });
      const again = await hitl.pending((x) => x.jobId === run && x.id !== q.id);
      assert.match(again.operation?.context ?? "", /Your edit was refused: .*not JSON/);
      await hitl.answer(again.id, { value: "deny", text: "never mind" });
    });
    assert.deepEqual(r.ran, []);
  });

  test("rejected with a reason: the tool never runs and the model reads the reason", async () => {
    const r = await agentRun("lg-deny", "send_email", undefined, { to: "a@x", body: "hi" }, async (run) => {
      const q = await hitl.pending((q) => q.jobId === run);
      await hitl.answer(q.id, { value: "deny", text: "wrong person" });
    });
    assert.deepEqual(r.ran, []);
    assert.deepEqual(r.toolMessages, ["send_email was denied: wrong person"]);
  });

  test("a reply in words where respond is not allowed: rejected with the text, the tool never runs", async () => {
    const r = await agentRun("lg-reply", "send_email", undefined, { to: "a@x", body: "hi" }, async (run) => {
      const q = await hitl.pending((q) => q.jobId === run);
      await hitl.answer(q.id, { value: "reply", text: "email the EU list only" });
    });
    assert.deepEqual(r.ran, []);
    assert.deepEqual(r.toolMessages, ["Not approved: api:person replied in hitl instead: email the EU list only"]);
  });

  test("a reply in words where respond is allowed: the respond decision carries the text", async () => {
    // langchain.js's middleware offers approve/edit/reject only; a graph's own HITL request may allow respond.
    const client = hitl.agent({ run: "lg-reply-respond" });
    const req = {
      actionRequests: [{ name: "post_status", args: { text: "deployed" } }, { name: "post_status", args: { text: "rolled back" } }],
      reviewConfigs: [{ actionName: "post_status", allowedDecisions: ["approve", "reject", "respond"] as Array<"approve" | "reject" | "respond"> }],
    };
    const answering = (async () => {
      const q = await hitl.pending((q) => q.jobId === "lg-reply-respond");
      await hitl.answer(q.id, { value: "reply", text: "say it is on staging only" });
      const q2 = await hitl.pending((x) => x.jobId === "lg-reply-respond" && x.id !== q.id);
      await hitl.answer(q2.id, { value: "deny", text: "no" });
    })();
    const out = await resolve(req, { client });
    await answering;
    assert.deepEqual(out, { decisions: [{ type: "respond", message: "say it is on staging only" }, { type: "reject", message: "post_status was denied: no" }] });
  });

  test("policy allow: no interrupt, nobody asked, the tool runs", async () => {
    const r = await agentRun("lg-allow", "lookup", "lookup", { to: "u7", body: "" });
    assert.deepEqual(r.ran, [{ to: "u7", body: "" }]);
    const asked = await hitl.person().call<{ questions: unknown[] }>({ method: "GET", path: "/api/questions", query: { jobId: "lg-allow" }, replay: true });
    assert.equal(asked.questions.length, 0);
  });

  test("policy deny: rejected by the rule, the tool never runs", async () => {
    const r = await agentRun("lg-policy-deny", "drop_table", "drop_table", { to: "users", body: "" });
    assert.deepEqual(r.ran, []);
    assert.match(r.toolMessages[0], /never-drop-tables/);
  });

  test("timeout: nobody answers, the tool never runs", async () => {
    const r = await agentRun("lg-timeout", "send_email", undefined, { to: "a@x", body: "hi" }, undefined, undefined, 1);
    assert.deepEqual(r.ran, []);
    assert.deepEqual(r.toolMessages, ["Nobody approved send_email in time; it was not run."]);
  });

  test("only approve/reject allowed: no edit is offered, hitl refuses one", async () => {
    const r = await agentRun("lg-noedit", "send_email", undefined, { to: "a@x", body: "hi" }, async (run) => {
      const q = await hitl.pending((q) => q.jobId === run);
      assert.equal(q.operation?.noEdit, true);
      await assert.rejects(hitl.answer(q.id, { value: "approve", edited: '{"to":"b@x","body":"hi"}' }),
        (e: unknown) => e instanceof HitlError && e.code === "invalid" && /cannot run this send_email operation with other input/.test(e.message));
      await hitl.answer(q.id, { value: "approve" });
    }, ["approve", "reject"]);
    assert.deepEqual(r.ran, [{ to: "a@x", body: "hi" }]);
  });
});

describe("langgraph, several actions in one interrupt", () => {
  test("each action is its own approval; the decisions go back in order and both tools run", async () => {
    const client = hitl.agent({ run: "lg-two" });
    const ran: unknown[] = [];
    const t = tool(async (input: Record<string, unknown>) => { ran.push(input); return `sent to ${input.to}`; }, {
      name: "send_email", description: "Sends an email", schema: z.object({ to: z.string(), body: z.string() }),
    });
    const agent = createAgent({
      model: new FakeToolCallingModel({ toolCalls: [[{ name: "send_email", args: { to: "a@x", body: "1" }, id: "c1" }, { name: "send_email", args: { to: "b@x", body: "2" }, id: "c2" }], []] }),
      tools: [t], checkpointer: new MemorySaver(),
      middleware: [humanInTheLoopMiddleware({ interruptOn: { send_email: { allowedDecisions: ["approve", "edit", "reject"], argsSchema: schema } } })],
    });
    const answering = (async () => {
      const first = await hitl.pending((q) => q.jobId === "lg-two");
      assert.equal(first.operation?.resource, '{"to":"a@x","body":"1"}');
      await hitl.answer(first.id, { value: "approve" });
      const second = await hitl.pending((q) => q.jobId === "lg-two" && q.id !== first.id);
      assert.equal(second.operation?.resource, '{"to":"b@x","body":"2"}');
      await hitl.answer(second.id, { value: "approve", edited: '{"to":"c@x","body":"2"}' });
    })();
    await run(agent, { messages: [{ role: "user", content: "send both" }] }, { client, opType: "file_write", config: { configurable: { thread_id: "lg-two" } } });
    await answering;
    assert.deepEqual(ran, [{ to: "a@x", body: "1" }, { to: "c@x", body: "2" }]);
  });
});

describe("langgraph interrupt()", () => {
  test("a {question, options} interrupt is asked; the answer resumes the graph", async () => {
    const client = hitl.agent({ run: "lg-plain" });
    const State = Annotation.Root({ db: Annotation<string>() });
    const graph = new StateGraph(State)
      .addNode("pick", () => ({ db: interrupt({ question: "Which database?", options: ["prod", "staging"] }) as string }))
      .addEdge(START, "pick").addEdge("pick", END)
      .compile({ checkpointer: new MemorySaver() });
    const answering = (async () => {
      const q = await hitl.pending((q) => q.jobId === "lg-plain");
      assert.equal(q.responseType, "choice");
      await hitl.answer(q.id, { value: "staging" });
    })();
    const out = await run<{ db: string }>(graph, { db: "" }, { client, config: { configurable: { thread_id: "lg-plain" } } });
    await answering;
    assert.equal(out.db, "staging");
  });

  test("respond: an action that allows only respond is a question; the answer is the tool's result", async () => {
    const client = hitl.agent({ run: "lg-respond" });
    const answering = (async () => {
      const q = await hitl.pending((q) => q.jobId === "lg-respond");
      assert.equal(q.question, "Which color?");
      await hitl.answer(q.id, { value: "blue" });
    })();
    const out = await resolve({ actionRequests: [{ name: "ask_user", args: { question: "Which color?" } }], reviewConfigs: [{ actionName: "ask_user", allowedDecisions: ["respond"] }] }, { client });
    await answering;
    assert.deepEqual(out, { decisions: [{ type: "respond", message: "blue" }] });
  });

  test("an interrupt hitl cannot read is a clear error", async () => {
    await assert.rejects(resolve(42, { client: hitl.agent({ run: "lg-bad" }) }), /hitl cannot answer this interrupt: 42/);
  });
});
