// Package service is the application: what happens when an agent asks and
// a person answers or steers. It is split by aggregate into parts, each
// holding only what it uses (its stores by aggregate, the clock, the
// notifier, the access rules) and calling the others through small
// interfaces; NewService builds them all over one backend:
//
//   - Questions: create, answer, wait, cancel, receive, reassign, remind,
//     time out, prune.
//   - Runs: steering requests, checkpoints (held while paused), coding-agent
//     hook steps and sessions, the interaction threshold, run reads.
//   - Policies: load, set, decide, learn and revoke approval rules.
//   - Guard: rate limits, concurrent streams, the audit of refusals.
//   - Webhooks, SignIns, Observation (stats, alerts), Log (the event log).
//
// Every change is one store transaction with its event; waiters wake on
// the notifier after the commit. The rules themselves live in packages
// access and policy; the service applies them against the record as it is
// inside the transaction.
package service
