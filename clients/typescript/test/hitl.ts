// Test helpers: a real `hitl serve` built from this commit, on a free
// loopback port with its database in a temp dir.
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync, existsSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client, type Question } from "../src/index.js";

const here = fileURLToPath(new URL(".", import.meta.url));
/** The repository's root (clients/typescript/../..), from src or dist-test. */
export const repoRoot = (() => {
  let d = here;
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(d, "go.mod"))) return d;
    d = resolve(d, "..");
  }
  throw new Error(`no go.mod above ${here}`);
})();

let built: string | undefined;

/** The hitl binary: $HITL_BIN, else built once from the repository. */
export function hitlBinary(): string {
  if (process.env.HITL_BIN) return process.env.HITL_BIN;
  if (built) return built;
  const dir = mkdtempSync(join(tmpdir(), "hitl-bin-"));
  const out = join(dir, "hitl");
  execFileSync("go", ["build", "-o", out, "./cmd/hitl"], { cwd: repoRoot, stdio: "inherit", env: { ...process.env, PATH: `${process.env.PATH}:/usr/local/go/bin` } });
  built = out;
  return out;
}

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once("error", rej);
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      const port = typeof a === "object" && a ? a.port : 0;
      s.close(() => res(port));
    });
  });
}

export const AGENT_TOKEN = "agent-token-0123456789abcdef";
export const PERSON_TOKEN = "person-token-0123456789abcdef";
export const ADMIN_TOKEN = "admin-token-0123456789abcdef";
/** Signs deliveries to a question's callbackUrl; callbackUrls may point at loopback hosts only. */
export const CALLBACK_SECRET = "whsec_" + Buffer.from("callback-secret-of-the-tests-32b").toString("base64");
/** The agent's home the tests send: ~/work/… is allowed only when the policy knows it is /srv/agent-home. */
export const AGENT_HOME = "/srv/agent-home";

export interface ServeOptions {
  /** Extra YAML appended to the config. */
  yaml?: string;
  port?: number;
  dir?: string;
}

/** The policy every test service starts with. */
const policyYAML = `
policy:
  rules:
    - name: lookups-are-safe
      op_type: lookup
      effect: allow
    - name: never-drop-tables
      op_type: drop_table
      effect: deny
    - name: allowed-writes
      op_type: file_write
      resource: "*/allowed.txt"
      effect: allow
    - name: denied-writes
      op_type: file_write
      resource: "*/denied.txt"
      effect: deny
    - name: agent-work
      op_type: file_write
      resource: "/srv/agent-home/work/*"
      effect: allow
    - name: printf
      op_type: shell
      resource: printf
      effect: allow
`;

/** A delivery in hitl's webhook outbox, as GET /api/webhooks/deliveries lists it. */
export interface Delivery { seq: number; id: string; url?: string; questionId?: string; status: string; attempts?: number; lastCode?: number }

/** A running `hitl serve`: its URL, tokens' clients, and how to stop or restart it. */
export class Hitl {
  proc?: ChildProcess;
  log = "";
  private constructor(readonly port: number, readonly dir: string, readonly yaml: string) {}

  get url(): string { return `http://127.0.0.1:${this.port}`; }

  static async start(opts: ServeOptions = {}): Promise<Hitl> {
    const dir = opts.dir ?? mkdtempSync(join(tmpdir(), "hitl-ts-"));
    const h = new Hitl(opts.port ?? (await freePort()), dir, opts.yaml ?? "");
    await h.boot();
    return h;
  }

  /** Starts (again) on the same port and database. */
  async boot(): Promise<void> {
    const cfg = join(this.dir, "config.yaml");
    let webhooks = "";
    if (!this.yaml.includes("webhooks")) {
      const secret = join(this.dir, "callback.whsec");
      writeFileSync(secret, CALLBACK_SECRET + "\n", { mode: 0o600 });
      webhooks = `webhooks_allowed_hosts: [127.0.0.1, localhost]\nwebhooks_callback_secret_file: ${secret}\n`;
    }
    writeFileSync(cfg, `listen: 127.0.0.1:${this.port}
db: ${join(this.dir, "hitl.db")}
sweep_schedule: "@every 1s"
timeouts: {min: 1s}
tokens:
  - {name: agent, token: ${AGENT_TOKEN}, scopes: [ask]}
  - {name: person, token: ${PERSON_TOKEN}, scopes: [answer, control]}
  - {name: admin, token: ${ADMIN_TOKEN}, scopes: [admin]}
${policyYAML}
${webhooks}${this.yaml}
`);
    const env = { ...process.env };
    for (const k of Object.keys(env)) if (k.startsWith("HITL_") && k !== "HITL_BIN") delete env[k];
    const proc = spawn(hitlBinary(), ["serve", "--config", cfg], { env, stdio: ["ignore", "pipe", "pipe"] });
    this.proc = proc;
    proc.stdout!.on("data", (b) => { this.log += b; });
    proc.stderr!.on("data", (b) => { this.log += b; });
    const exited = new Promise<void>((_, rej) => proc.once("exit", (code) => rej(new Error(`hitl serve exited ${code}:\n${this.log}`))));
    exited.catch(() => {});
    const deadline = Date.now() + 30_000;
    for (;;) {
      const up = await Promise.race([
        fetch(this.url + "/healthz").then((r) => r.ok, () => false),
        exited,
      ]);
      if (up) return;
      if (Date.now() > deadline) throw new Error(`hitl serve did not answer /healthz in 30s:\n${this.log}`);
      await new Promise((r) => setTimeout(r, 50)); // poll interval of a readiness wait, bounded by the deadline
    }
  }

  /** Kills the service (SIGKILL: nothing flushed on the way out). */
  async kill(): Promise<void> {
    const p = this.proc;
    if (!p || p.exitCode !== null) return;
    const gone = new Promise((r) => p.once("exit", r));
    p.kill("SIGKILL");
    await gone;
  }

  /** Stops the service with sig (SIGTERM, SIGINT: a graceful stop) and waits for it to exit. */
  async signal(sig: "SIGTERM" | "SIGINT"): Promise<void> {
    const p = this.proc;
    if (!p || p.exitCode !== null) return;
    const gone = new Promise((r) => p.once("exit", r));
    p.kill(sig);
    const t = setTimeout(() => p.kill("SIGKILL"), 60_000);
    await gone;
    clearTimeout(t);
  }

  /** Every question of run, whatever its status. */
  async questions(run: string): Promise<Question[]> {
    const r = await fetch(`${this.url}/api/jobs/${encodeURIComponent(run)}/questions`, { headers: { Authorization: `Bearer ${PERSON_TOKEN}` } });
    if (!r.ok) throw new Error(`GET /api/jobs/${run}/questions: ${r.status} ${await r.text()}`);
    return ((await r.json()) as { questions: Question[] }).questions;
  }

  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }

  agent(opts: { run?: string } = {}): Client {
    return new Client({ url: this.url, token: AGENT_TOKEN, minBackoffMs: 20, maxBackoffMs: 200, ...opts });
  }

  person(): Client {
    return new Client({ url: this.url, token: PERSON_TOKEN });
  }

  admin(): Client {
    return new Client({ url: this.url, token: ADMIN_TOKEN });
  }

  /**
   * Waits until a pending question matching pred exists (as a person
   * watching the inbox would see it) and returns it.
   */
  async pending(pred: (q: Question) => boolean = () => true, timeoutMs = 20_000): Promise<Question> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = await fetch(this.url + "/api/questions/pending", { headers: { Authorization: `Bearer ${PERSON_TOKEN}` } });
      const body = (await r.json()) as { questions?: Question[] };
      const q = body.questions?.find(pred);
      if (q) return q;
      if (Date.now() > deadline) throw new Error(`no pending question matched in ${timeoutMs}ms; pending: ${JSON.stringify(body.questions?.map((x) => x.question))}`);
      await new Promise((r) => setTimeout(r, 25)); // poll interval, bounded by the deadline
    }
  }

  /**
   * The webhook outbox's deliveries of question qid (GET
   * /api/webhooks/deliveries), once there is one and none is pending: hitl
   * marks one delivered after its receiver answered 2xx.
   */
  async settledDeliveries(qid: string, timeoutMs = 30_000): Promise<Delivery[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = await fetch(this.url + "/api/webhooks/deliveries", { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
      const all = ((await r.json()) as { deliveries?: Delivery[] }).deliveries ?? [];
      const mine = all.filter((d) => d.questionId === qid);
      if (mine.length > 0 && mine.every((d) => d.status !== "pending")) return mine;
      if (Date.now() > deadline) throw new Error(`deliveries of ${qid} still pending after ${timeoutMs}ms: ${JSON.stringify(mine)}`);
      await new Promise((r) => setTimeout(r, 50)); // poll interval, bounded by the deadline
    }
  }

  /** Sends delivery seq again (same webhook-id), as `hitl webhooks replay` does. */
  async replay(seq: number): Promise<Delivery> {
    const r = await fetch(`${this.url}/api/webhooks/deliveries/${seq}/replay`, { method: "POST", headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
    if (r.status !== 201) throw new Error(`replay ${seq}: ${r.status} ${await r.text()}`);
    return (await r.json()) as Delivery;
  }

  /** Answers question id as the person would from Slack or the web. */
  async answer(id: string, response: { value: unknown; text?: string; edited?: string; always?: boolean }): Promise<Question> {
    return this.person().answer(id, response);
  }
}
