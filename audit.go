package hitl

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"time"
)

// The audit trail: every decision and every change of who may decide is
// one AuditRecord, append-only and hash-chained. A store derives the
// records of decisions from the events it appends (AuditOf), in the
// event's own transaction, so a decision that was acknowledged has its
// record; the records that are no event (sign-ins, sign-outs, webhook
// failures) are appended on their own (AuditStore.AppendAudit).
//
// Each record carries the hash of the one before (Prev) and its own
// (Hash): Hash is the hex SHA-256 of the record's canonical encoding —
// its JSON with Hash left out, fields in the order declared below, no
// spaces, UTF-8 without HTML escaping (AuditRecord.Canonical). An export
// line is that encoding with ,"hash":"…" added before the closing brace,
// so anybody can recompute the chain from an export.

// AuditKind names what an audit record records.
type AuditKind string

const (
	AuditAsked      AuditKind = "question_asked"
	AuditAnswered   AuditKind = "question_answered"
	AuditApproval   AuditKind = "question_approval" // one vote of a quorum
	AuditTimedOut   AuditKind = "question_timeout"
	AuditCancelled  AuditKind = "question_cancelled"
	AuditReopened   AuditKind = "question_reopened"
	AuditReassigned AuditKind = "question_reassigned"
	AuditEscalated  AuditKind = "question_escalated"
	// AuditPolicyAllowed and AuditPolicyDenied: the policy decided
	// without asking anybody; Rule names the rule.
	AuditPolicyAllowed AuditKind = "policy_allowed"
	AuditPolicyDenied  AuditKind = "policy_denied"
	AuditRuleLearned   AuditKind = "rule_learned"
	AuditRuleRevoked   AuditKind = "rule_revoked"
	// AuditPolicyChanged: the configured rules changed; Diff says how.
	AuditPolicyChanged AuditKind = "policy_changed"
	AuditRefused       AuditKind = "refused"
	AuditSignedIn      AuditKind = "signed_in"
	AuditSignedOut     AuditKind = "signed_out"
	// AuditWebhookFailed: a webhook endpoint's delivery was given up.
	AuditWebhookFailed AuditKind = "webhook_failed"
)

// AuditKinds lists every kind, in the order docs show them.
var AuditKinds = []AuditKind{AuditAsked, AuditAnswered, AuditApproval, AuditTimedOut, AuditCancelled,
	AuditReopened, AuditReassigned, AuditEscalated, AuditPolicyAllowed, AuditPolicyDenied,
	AuditRuleLearned, AuditRuleRevoked, AuditPolicyChanged, AuditRefused, AuditSignedIn,
	AuditSignedOut, AuditWebhookFailed}

// AuditRecord is one entry of the audit trail. It never holds a sensitive
// answer's value or text: Redacted says one was given.
type AuditRecord struct {
	// Seq is the record's place in the chain: 1, 2, 3 … with no gap.
	Seq  uint64    `json:"seq"`
	At   time.Time `json:"at"`
	Kind AuditKind `json:"kind"`
	// Actor is who acted (a principal id, "system" for the service's
	// own transitions); Edge is where: api, web, slack, or none.
	Actor string `json:"actor,omitempty"`
	Edge  string `json:"edge,omitempty"`
	// EventSeq is the event log entry the record was derived from.
	EventSeq   uint64 `json:"eventSeq,omitempty"`
	QuestionID string `json:"questionId,omitempty"`
	RunID      string `json:"runId,omitempty"`
	// Question is the question's text (question_asked).
	Question string `json:"question,omitempty"`
	// Answer is the answer as a person reads it: approve, deny, reply,
	// the choice, the text, yes or no.
	Answer   string `json:"answer,omitempty"`
	Redacted bool   `json:"redacted,omitempty"`
	// Edited is the operation's input as the person edited it; Text the
	// message on grant, the reason on deny, or the reply.
	Edited string `json:"edited,omitempty"`
	Text   string `json:"text,omitempty"`
	// Operation is what the policy decided (policy_*, rule_learned).
	Operation string `json:"operation,omitempty"`
	Rule      string `json:"rule,omitempty"`
	// Action and Reason: a refusal's action and why; a cancellation's
	// reason; a webhook failure's last error.
	Action string `json:"action,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Count is how many refusals the record stands for (a flood).
	Count int `json:"count,omitempty"`
	// People: who may decide after a reassignment or escalation, and
	// who could before (HandedFrom).
	People     []string `json:"people,omitempty"`
	HandedFrom []string `json:"handedFrom,omitempty"`
	// Diff is a policy change, one line per rule: "+ name …", "- name …".
	Diff []string `json:"diff,omitempty"`
	// Target is a webhook endpoint's name.
	Target string `json:"target,omitempty"`
	// Prev is the Hash of record Seq-1 (of the checkpoint that stands for
	// it once it was pruned; "" for record 1).
	Prev string `json:"prev"`
	Hash string `json:"hash,omitempty"`
}

// Canonical is the encoding Hash is the SHA-256 of: r's JSON without Hash.
func (r *AuditRecord) Canonical() []byte {
	c := *r
	c.Hash = ""
	c.At = c.At.UTC()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(&c) // a struct of strings, numbers and a time: never fails
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// ComputeHash returns the hex SHA-256 of r's canonical encoding.
func (r *AuditRecord) ComputeHash() string {
	sum := sha256.Sum256(r.Canonical())
	return hex.EncodeToString(sum[:])
}

// Chain makes r the record after head: its Seq, Prev and Hash.
func (r *AuditRecord) Chain(head AuditHead) {
	r.Seq, r.Prev, r.At = head.Seq+1, head.Hash, r.At.UTC()
	r.Hash = r.ComputeHash()
}

// AuditHead is the end of the chain: the last record's Seq and Hash
// (zero for an empty chain).
type AuditHead struct {
	Seq  uint64 `json:"seq"`
	Hash string `json:"hash"`
}

// AuditCheckpoint stands for the records retention pruned: the last of
// them (Seq, Hash), signed by the service (MAC: HMAC-SHA256 under a key
// derived from the seal key file, AuditCheckpointMessage), so that the
// first record kept still verifies.
type AuditCheckpoint struct {
	Seq  uint64    `json:"seq"`
	Hash string    `json:"hash"`
	At   time.Time `json:"at"`
	MAC  string    `json:"mac"`
}

// AuditCheckpointMessage is what a checkpoint's MAC signs.
func AuditCheckpointMessage(seq uint64, hash string) []byte {
	return []byte("hitl audit checkpoint v1\n" + hash + "\n" + strconv.FormatUint(seq, 10))
}

// AuditFilter selects records: Seq > After, At at or after Since (zero:
// any), at most Limit (0: 100, at most 1000).
type AuditFilter struct {
	After uint64
	Since time.Time
	Limit int
}

// PageSize is f's limit, bounded.
func (f AuditFilter) PageSize() int {
	switch {
	case f.Limit <= 0:
		return 100
	case f.Limit > 1000:
		return 1000
	}
	return f.Limit
}

// AuditStore keeps the audit trail. Records of events are appended by the
// store itself, in the event's transaction (AuditOf); appends are
// serialized so the chain is one chain, whatever the number of processes
// sharing the store.
type AuditStore interface {
	// AppendAudit chains r after the head (setting Seq, Prev, Hash) and
	// appends it, durably.
	AppendAudit(ctx context.Context, r *AuditRecord) error
	// AuditRecords returns up to f.PageSize() records with Seq > f.After
	// (and At not before f.Since), in Seq order, as stored: a reader
	// verifies them. Its cost grows with the page (and with the records
	// before Since, which it skips).
	AuditRecords(ctx context.Context, f AuditFilter) ([]*AuditRecord, error)
	// AuditHead returns the head of the chain and the checkpoint of the
	// pruned records (nil when none were pruned).
	AuditHead(ctx context.Context) (AuditHead, *AuditCheckpoint, error)
	// PruneAudit deletes the records up to cp.Seq and stores cp, in one
	// transaction, and returns how many it deleted. EINVALID when cp.Seq
	// is at or past the head (the head stays) or behind the checkpoint
	// stored.
	PruneAudit(ctx context.Context, cp AuditCheckpoint) (int, error)
}
