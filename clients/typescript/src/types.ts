// Wire shapes of the hitl HTTP API (camelCase, as the service writes them).

export type QuestionType = "blocking" | "non_blocking" | "approval" | "error_recovery";
export type ResponseType = "text" | "choice" | "boolean" | "approval";
export type QuestionStatus = "pending" | "answered" | "timeout" | "cancelled";
export type Effect = "allow" | "ask" | "deny";
export type RunStatus = "running" | "paused" | "waiting_for_input" | "waiting_for_approval" | "cancelled" | "done" | "aborted";

export interface Option { label: string; value?: string; description?: string }

export interface QuestionContext {
  agent?: string;
  issueId?: string;
  jobType?: string;
  projectName?: string;
  currentStep?: string;
  errorDetails?: string;
  suggestedOptions?: string[];
}

export interface Response {
  type: ResponseType;
  value: unknown;
  text?: string;
  redacted?: boolean;
  edited?: string;
  always?: boolean;
}

export interface Operation {
  opType: string;
  operation: string;
  context?: string;
  risk?: string;
  resource?: string;
  agent?: string;
  prompted?: boolean;
  /** The agent cannot run it with other input: no edit is offered or taken. */
  noEdit?: boolean;
  /** The agent's working directory, sent by an edge on the agent's machine. */
  cwd?: string;
  /** A file change's diffs, computed on the agent's machine (docs/diffs.md). */
  diffs?: FileDiff[];
}

/** One file of a file-changing operation, as the person who approves it sees it. */
export interface FileDiff {
  path: string;
  change: "new" | "modify" | "delete";
  movedTo?: string;
  added: number;
  removed: number;
  unified?: string;
  truncated?: boolean;
  problem?: string;
}

export interface Question {
  id: string;
  jobId: string;
  type: QuestionType;
  question: string;
  responseType: ResponseType;
  inputType?: string;
  sensitive?: boolean;
  options?: Option[];
  multiSelect?: boolean;
  context?: QuestionContext;
  status: QuestionStatus;
  response?: Response;
  respondedBy?: string;
  respondedAt?: string;
  timeoutAt?: string | null;
  defaultResponse?: Response;
  cancelReason?: string;
  operation?: Operation;
  rule?: string;
  /** Where hitl POSTs the question's outcome as a signed webhook. */
  callbackUrl?: string;
  createdAt: string;
  [k: string]: unknown;
}

export interface DecisionPart { kind: string; text: string; decision: Effect; rule?: string; [k: string]: unknown }

/** What the policy decides about an operation (POST /api/policy/check). */
export interface PolicyDecision {
  decision: Effect;
  rule: string;
  approvers?: string[];
  quorum?: number;
  parts?: DecisionPart[];
  learnable?: boolean;
}

/** POST /api/approvals: the decision and, for ask, the question to wait on. */
export interface ApprovalOutcome extends PolicyDecision {
  questionId?: string;
  question?: Question;
}

export interface Checkpoint {
  runId: string;
  status: RunStatus;
  model?: string;
  newModel?: string;
  instruction?: string;
  reason?: string;
  interactionThreshold?: number;
  version: number;
}

export interface Whoami { principal: string; scopes: string[]; slackUser?: string }

/** One Server-Sent Event of GET /api/events. */
export interface HitlEvent {
  /** The event log's sequence number (Last-Event-ID). */
  id: string;
  type: string;
  questionId?: string;
  jobId?: string;
  question?: Partial<Question>;
  response?: Response;
  reason?: string;
  status?: RunStatus;
  by?: string;
  at?: string;
  [k: string]: unknown;
}
