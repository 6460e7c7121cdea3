package hitl_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/auth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var at = time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)

// TestAuditOf: the record of each kind of event, one row per kind; the
// events that record no decision have none; a sensitive answer's value
// never enters the trail.
func TestAuditOf(t *testing.T) {
	q := &hitl.Question{ID: "q_1", RunID: "run-1", Question: "Deploy?", Type: hitl.Approval, Asker: "api:agent", Assignees: []string{"U0ALICE"}}
	answered := func(r hitl.Response, sensitive bool) *hitl.Event {
		c := q.Clone()
		c.Sensitive, c.Response = sensitive, &r
		ev := hitl.NewQuestionEvent(hitl.EventQuestionAnswered, c, "slack:U0ALICE", at)
		ev.Edge = auth.EdgeSlack
		return ev
	}
	voted := q.Clone()
	voted.Approvals = []hitl.Grant{{By: "slack:U0BOB", At: at, Text: "looks fine"}}
	escalated := q.Clone()
	escalated.EscalatedTo = []string{"U0CAROL"}
	cancelled := q.Clone()
	cancelled.CancelReason = "the run was cancelled"
	op := &hitl.Operation{Type: hitl.OpShell, Description: "git status"}
	for _, tc := range []struct {
		name string
		ev   *hitl.Event
		want *hitl.AuditRecord // nil: no record
	}{
		{"a question asked: its text and who may decide", hitl.NewQuestionEvent(hitl.EventQuestionAsked, q, "api:agent", at),
			&hitl.AuditRecord{Kind: hitl.AuditAsked, Actor: "api:agent", Question: "Deploy?", People: []string{"U0ALICE"}}},
		{"an approval with a message: who, where, the verdict, the message", answered(hitl.Response{Value: hitl.Approve, Text: "go"}, false),
			&hitl.AuditRecord{Kind: hitl.AuditAnswered, Actor: "slack:U0ALICE", Edge: "slack", Answer: "approve", Text: "go"}},
		{"an approval with an edit", answered(hitl.Response{Value: hitl.Approve, Edited: "git push --dry-run"}, false),
			&hitl.AuditRecord{Kind: hitl.AuditAnswered, Actor: "slack:U0ALICE", Edge: "slack", Answer: "approve", Edited: "git push --dry-run"}},
		{"a denial with a reason", answered(hitl.Response{Value: hitl.Deny, Text: "not on a Friday"}, false),
			&hitl.AuditRecord{Kind: hitl.AuditAnswered, Actor: "slack:U0ALICE", Edge: "slack", Answer: "deny", Text: "not on a Friday"}},
		{"a reply", answered(hitl.Response{Value: hitl.Reply, Text: "use staging"}, false),
			&hitl.AuditRecord{Kind: hitl.AuditAnswered, Actor: "slack:U0ALICE", Edge: "slack", Answer: "reply", Text: "use staging"}},
		{"a sensitive answer: redacted, never its value or text", answered(hitl.Response{Value: "hunter2", Text: "secret too"}, true),
			&hitl.AuditRecord{Kind: hitl.AuditAnswered, Actor: "slack:U0ALICE", Edge: "slack", Redacted: true}},
		{"one vote of a quorum", hitl.NewQuestionEvent(hitl.EventApprovalAdded, voted, "slack:U0BOB", at),
			&hitl.AuditRecord{Kind: hitl.AuditApproval, Actor: "slack:U0BOB", Answer: "approve", Text: "looks fine", Question: ""}},
		{"a timeout, with the default it used", func() *hitl.Event {
			c := q.Clone()
			c.Response = &hitl.Response{Value: hitl.Deny}
			return hitl.NewQuestionEvent(hitl.EventQuestionTimeout, c, auth.ActorSystem, at)
		}(), &hitl.AuditRecord{Kind: hitl.AuditTimedOut, Actor: "system", Answer: "deny"}},
		{"a cancellation and its reason", hitl.NewQuestionEvent(hitl.EventQuestionCancelled, cancelled, "api:agent", at),
			&hitl.AuditRecord{Kind: hitl.AuditCancelled, Actor: "api:agent", Reason: "the run was cancelled"}},
		{"a reassignment: who may decide now, and before", func() *hitl.Event {
			ev := hitl.NewQuestionEvent(hitl.EventQuestionReassigned, q, "slack:U0BOB", at)
			ev.HandedFrom = []string{"U0BOB"}
			return ev
		}(), &hitl.AuditRecord{Kind: hitl.AuditReassigned, Actor: "slack:U0BOB", People: []string{"U0ALICE"}, HandedFrom: []string{"U0BOB"}}},
		{"an escalation: the people added", hitl.NewQuestionEvent(hitl.EventQuestionEscalated, escalated, auth.ActorSystem, at),
			&hitl.AuditRecord{Kind: hitl.AuditEscalated, Actor: "system", People: []string{"U0CAROL"}}},
		{"a reopening", &hitl.Event{Type: hitl.EventQuestionReopened, QuestionID: "q_1", RunID: "run-1", At: at, Actor: "system", Reason: "lost to a restart"},
			&hitl.AuditRecord{Kind: hitl.AuditReopened, Actor: "system", Reason: "lost to a restart"}},
		{"a refusal flood, counted", &hitl.Event{Type: hitl.EventRefused, QuestionID: "q_1", RunID: "run-1", At: at, Actor: "api:x", Action: auth.ActionAnswer, Reason: "no", Count: 7, Edge: "api"},
			&hitl.AuditRecord{Kind: hitl.AuditRefused, Actor: "api:x", Edge: "api", Action: "answer", Reason: "no", Count: 7}},
		{"one refusal counts one", &hitl.Event{Type: hitl.EventRefused, At: at, Actor: "api:x", Action: auth.ActionAudit, Reason: "no"},
			&hitl.AuditRecord{Kind: hitl.AuditRefused, Actor: "api:x", Action: "audit", Reason: "no", Count: 1}},
		{"the policy allowed without asking: the rule", &hitl.Event{Type: hitl.EventPolicyDecision, At: at, Actor: "api:agent", Action: "allow", Reason: "git-read", Operation: op},
			&hitl.AuditRecord{Kind: hitl.AuditPolicyAllowed, Actor: "api:agent", Rule: "git-read", Operation: "shell: git status"}},
		{"the policy denied without asking", &hitl.Event{Type: hitl.EventPolicyDecision, At: at, Actor: "api:agent", Action: "deny", Reason: "no-rm", Operation: op},
			&hitl.AuditRecord{Kind: hitl.AuditPolicyDenied, Actor: "api:agent", Rule: "no-rm", Operation: "shell: git status"}},
		{"a rule learned", &hitl.Event{Type: hitl.EventPolicyDecision, At: at, Actor: "slack:U0ALICE", Action: "learned", Reason: "r_1 shell git status", Operation: op, Edge: "slack"},
			&hitl.AuditRecord{Kind: hitl.AuditRuleLearned, Actor: "slack:U0ALICE", Edge: "slack", Rule: "r_1 shell git status", Operation: "shell: git status"}},
		{"a rule revoked", &hitl.Event{Type: hitl.EventPolicyDecision, At: at, Actor: "api:admin", Action: "revoked", Reason: "r_1"},
			&hitl.AuditRecord{Kind: hitl.AuditRuleRevoked, Actor: "api:admin", Rule: "r_1"}},
		{"the policy changed: who and the diff", &hitl.Event{Type: hitl.EventPolicyDecision, At: at, Actor: "api:admin", Action: "policy_set", Reason: "the policy was set", Diff: []string{"+ {}"}},
			&hitl.AuditRecord{Kind: hitl.AuditPolicyChanged, Actor: "api:admin", Diff: []string{"+ {}"}}},
		{"a reminder: no record", &hitl.Event{Type: hitl.EventQuestionReminded, At: at}, nil},
		{"a steering message: no record", &hitl.Event{Type: hitl.EventControl, At: at}, nil},
		{"an alert: no record", &hitl.Event{Type: hitl.EventAlert, At: at}, nil},
		{"a status: no record", &hitl.Event{Type: hitl.EventStatus, At: at}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.ev.Seq = 42
			got := hitl.AuditOf(tc.ev)
			if tc.want == nil {
				assert.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			want := *tc.want
			want.At, want.EventSeq = at, 42
			want.QuestionID, want.RunID = tc.ev.QuestionID, tc.ev.RunID
			assert.Equal(t, mustJSON(t, want), mustJSON(t, got))
			assert.NotContains(t, mustJSON(t, got), "hunter2")
			assert.NotContains(t, mustJSON(t, got), "secret too")
		})
	}
}

// TestAuditSignIn: sign-ins and sign-outs are web records of who.
func TestAuditSignIn(t *testing.T) {
	p := auth.TokenPrincipal("alice", []auth.Scope{auth.ScopeAnswer}, "")
	in := hitl.SignInAudit(p, "token", false, at)
	assert.Equal(t, hitl.AuditSignedIn, in.Kind)
	assert.Equal(t, "api:alice", in.Actor)
	assert.Equal(t, "token", in.Action)
	assert.Equal(t, hitl.AuditSignedOut, hitl.SignInAudit(p, "", true, at).Kind)
}

// chain makes n chained records.
func chain(n int) []*hitl.AuditRecord {
	var head hitl.AuditHead
	var out []*hitl.AuditRecord
	for i := range n {
		r := &hitl.AuditRecord{At: at.Add(time.Duration(i) * time.Second), Kind: hitl.AuditAnswered, Actor: "api:p", QuestionID: "q_" + string(rune('a'+i))}
		r.Chain(head)
		head = hitl.AuditHead{Seq: r.Seq, Hash: r.Hash}
		out = append(out, r)
	}
	return out
}

func clone(rs []*hitl.AuditRecord) []*hitl.AuditRecord {
	out := make([]*hitl.AuditRecord, len(rs))
	for i, r := range rs {
		c := *r
		out[i] = &c
	}
	return out
}

// TestAuditHash: what is hashed is the canonical JSON without the hash,
// and Prev is the hash of the record before.
func TestAuditHash(t *testing.T) {
	rs := chain(2)
	assert.Equal(t, "", rs[0].Prev)
	assert.Equal(t, uint64(1), rs[0].Seq)
	assert.Equal(t, rs[0].Hash, rs[1].Prev)
	body := rs[1].Canonical()
	assert.NotContains(t, string(body), `"hash"`)
	sum := sha256.Sum256(body)
	assert.Equal(t, hex.EncodeToString(sum[:]), rs[1].Hash)
	var back hitl.AuditRecord
	require.NoError(t, json.Unmarshal(body, &back))
	back.Hash = rs[1].Hash
	assert.Equal(t, rs[1].Hash, back.ComputeHash(), "a record read back hashes the same")
	r := &hitl.AuditRecord{At: at, Kind: hitl.AuditAsked, Question: "<b>&</b>"}
	assert.True(t, bytes.Contains(r.Canonical(), []byte("<b>&</b>")), "no HTML escaping: another language's JSON encoder makes the same bytes")
}

// TestAuditVerifier: a chain verifies; each way of breaking it names the
// record that was changed, removed or reordered.
func TestAuditVerifier(t *testing.T) {
	key := func(cp hitl.AuditCheckpoint) bool { return cp.MAC == "good" }
	for _, tc := range []struct {
		name    string
		tamper  func(rs []*hitl.AuditRecord) ([]*hitl.AuditRecord, hitl.AuditHead)
		cp      *hitl.AuditCheckpoint
		seq     uint64
		problem string
	}{
		{"untouched: it verifies", nil, nil, 0, ""},
		{"a record's text edited", func(rs []*hitl.AuditRecord) ([]*hitl.AuditRecord, hitl.AuditHead) {
			rs[2].Actor = "api:mallory"
			return rs, head(rs)
		}, nil, 3, hitl.AuditChanged},
		{"a record edited and its hash recomputed: the next one names it", func(rs []*hitl.AuditRecord) ([]*hitl.AuditRecord, hitl.AuditHead) {
			rs[2].Actor = "api:mallory"
			rs[2].Hash = rs[2].ComputeHash()
			return rs, head(chain(5))
		}, nil, 3, hitl.AuditChanged},
		{"the last record edited and rehashed: the head names it", func(rs []*hitl.AuditRecord) ([]*hitl.AuditRecord, hitl.AuditHead) {
			h := head(rs)
			rs[4].Answer = "approve"
			rs[4].Hash = rs[4].ComputeHash()
			return rs, h
		}, nil, 5, hitl.AuditChanged},
		{"a record in the middle removed", func(rs []*hitl.AuditRecord) ([]*hitl.AuditRecord, hitl.AuditHead) {
			return append(rs[:2:2], rs[3:]...), head(rs)
		}, nil, 3, hitl.AuditRemoved},
		{"the first record removed", func(rs []*hitl.AuditRecord) ([]*hitl.AuditRecord, hitl.AuditHead) {
			return rs[1:], head(rs)
		}, nil, 1, hitl.AuditRemoved},
		{"the last record removed", func(rs []*hitl.AuditRecord) ([]*hitl.AuditRecord, hitl.AuditHead) {
			return rs[:4], head(rs)
		}, nil, 5, hitl.AuditRemoved},
		{"two records swapped", func(rs []*hitl.AuditRecord) ([]*hitl.AuditRecord, hitl.AuditHead) {
			rs[1], rs[2] = rs[2], rs[1]
			return rs, head(rs)
		}, nil, 2, hitl.AuditReordered},
		{"a record moved back", func(rs []*hitl.AuditRecord) ([]*hitl.AuditRecord, hitl.AuditHead) {
			return []*hitl.AuditRecord{rs[0], rs[1], rs[3], rs[4], rs[2]}, head(rs)
		}, nil, 3, hitl.AuditReordered},
		{"after a signed checkpoint: verifies", func(rs []*hitl.AuditRecord) ([]*hitl.AuditRecord, hitl.AuditHead) {
			return rs[2:], head(rs)
		}, &hitl.AuditCheckpoint{Seq: 2, Hash: chain(5)[1].Hash, MAC: "good"}, 0, ""},
		{"a checkpoint not signed by the service", func(rs []*hitl.AuditRecord) ([]*hitl.AuditRecord, hitl.AuditHead) {
			return rs[2:], head(rs)
		}, &hitl.AuditCheckpoint{Seq: 2, Hash: chain(5)[1].Hash, MAC: "forged"}, 2, hitl.AuditUnsigned},
		{"a checkpoint whose hash is not the first record's prev", func(rs []*hitl.AuditRecord) ([]*hitl.AuditRecord, hitl.AuditHead) {
			return rs[2:], head(rs)
		}, &hitl.AuditCheckpoint{Seq: 2, Hash: strings.Repeat("0", 64), MAC: "good"}, 2, hitl.AuditUnsigned},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := clone(chain(5))
			h := head(rs)
			if tc.tamper != nil {
				rs, h = tc.tamper(rs)
			}
			v := hitl.NewAuditVerifier(tc.cp, key)
			for _, r := range rs {
				v.Add(r)
			}
			b := v.End(h)
			if tc.problem == "" {
				assert.Nil(t, b)
				return
			}
			require.NotNil(t, b, "the break is found")
			assert.Equal(t, tc.seq, b.Seq, b.Message)
			assert.Equal(t, tc.problem, b.Problem, b.Message)
			assert.Contains(t, b.Message, "record")
		})
	}
}

func head(rs []*hitl.AuditRecord) hitl.AuditHead {
	last := rs[len(rs)-1]
	return hitl.AuditHead{Seq: last.Seq, Hash: last.Hash}
}
