// Package hitl is the vocabulary of hitl, a service that puts a person in
// the loop of autonomous agents: read it first.
//
// It holds the domain's types and their pure value methods, and the
// interfaces the rest of the code depends on. It decides nothing that
// needs a store, a clock or a network, and it imports nothing of the
// module above it: only two small helpers (ids, sketches) and three
// packages below it that complete the vocabulary; none imports this one,
// so its records can name their types:
//
//   - fault: the one error type (Error, with a code such as EINVALID or
//     EFORBIDDEN) that each edge translates once: to an HTTP status, a
//     Slack message, an exit code.
//   - auth: who acts (a Principal, the scopes a token grants, the Actions
//     the rules decide). The rules that decide live in package access.
//   - steer: the steering protocol (pause, resume, cancel, escalate,
//     redirect; a run's status and control state; a coding agent's
//     session of hook calls).
//
// This package's files:
//
//   - question.go, newquestion.go, response.go, answer.go, timeout.go: a
//     question an agent asks (and whose lists it is in), what it may ask,
//     the answers a person may give and how one is checked, and when it
//     times out; batch.go, order.go: answering several at once, and which
//     questions a list shows in what order.
//   - run.go, runrecord.go, runsteering.go, runowner.go: a run (one
//     agent's work), what steering does to it, and who owns it.
//   - reminder.go: a question's reminders and escalation as they fall due.
//   - event.go: the durable event log every edge follows.
//   - store.go and the *store.go files: the store interfaces by aggregate
//     (QuestionStore, RunStore, EventStore, PolicyStore …) that bbolt
//     (package store), PostgreSQL (package postgres) and memory
//     (internal/memstore) each implement whole.
//   - delivery.go, mail.go, webhookoutbox.go, envelope.go, signin.go: the
//     Slack, mail and webhook outboxes and the web sign-ins the stores
//     keep; webhookroute.go: which events become which webhook deliveries.
//   - operation.go, rule.go, learnedrule.go, decisionpart.go,
//     risklabel.go, commandgrant.go, reminderpolicy.go, filediff.go: the
//     approval policy's vocabulary (the Operation an agent asks to do and
//     its Effect, the Rules people write and the PolicyState they are
//     stored as, learned rules, the parts and risk labels of a decision,
//     the grant a command line runs under, a rule's reminders, a file
//     change's diff). Package policy decides over them.
//   - webhookevent.go, webhookdelivery.go, webhookclaim.go: webhooks (the
//     events an endpoint subscribes to and the body they are sent in, a
//     delivery and its status, what one claim of due deliveries may
//     take). Package webhook sends them.
//   - alert.go, rollup.go: an alert as the event log records it, and the
//     rollups the stores keep for stats. Package observe says what each
//     record adds to them, computes stats and says which alerts hold.
//   - clock.go, notifier.go, limiter.go, seal.go, sealkey.go, eventlog.go,
//     directory.go: the small interfaces that are injected (time,
//     wake-ups, rate limits, sealing of sensitive answers, the log as a
//     stream, Slack's user groups).
//   - services.go: the service interfaces the edges take (QuestionService,
//     RunService, PolicyService, WebhookService, AuditService, FloodGuard),
//     which package service implements and client.Client implements over
//     HTTP; checkpoint.go, approval.go, webhookoverview.go, threshold.go,
//     limit.go: the values they carry.
//
// The capabilities: access (who may ask, answer, steer, see, take),
// policy (the approval decision, pure; shell parses the lines it decides),
// runhandle (naming a run by the beginning of its id), observe (stats
// from rollups), diff (unified diffs), eventstream (the event log as a
// live stream), service (the application, one part per aggregate:
// Questions, Runs, Policies, Guard, Webhooks, SignIns, Observation, Log,
// Audit). The edges: api (the HTTP API server, its wire format in
// api/wire), client (the Go SDK), slack (Slack, with blocks its Block
// Kit rendering), web (the web inbox), mcp (the MCP server), hook (what
// the coding-agent hooks run on the agent's machine), email, webhook (the
// delivery worker), watch (the file bridge), metrics, sweeper, sandbox
// (Landlock), store (bbolt), postgres. cmd/hitl wires them.
// docs/architecture.md says where to look first and follows an answer, an
// approval and a pause through the files.
package hitl
