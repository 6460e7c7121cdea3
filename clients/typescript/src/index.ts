export { Client } from "./client.js";
export type { ApiCall, ClientOptions, AskOptions, ApprovalOptions, Decision, DecisionOutcome, CheckpointOptions, EventsOptions } from "./client.js";
export { HitlError, errorCode } from "./errors.js";
export { verifyWebhook, signWebhook } from "./webhook.js";
export type { WebhookHeaders, WebhookEvent, VerifyOptions } from "./webhook.js";
export type * from "./types.js";
// Building blocks of the adapters, for frameworks without one.
export { approveTool, checkTool, respondTool, editProblem, opTypeOf, actionOf, resourceOf, replyMessage, fileWriteOf, editNote } from "./tool.js";
export type { ToolCall, ToolOptions, ToolDecision, JSONSchema, FileWrite } from "./tool.js";
export { writeDiff, editDiff, unified } from "./diff.js";
export { validateSchema } from "./schema.js";
