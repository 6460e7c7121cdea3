package hitl

import (
	"slices"
	"time"

	"github.com/hitlbot/hitl/auth"
)

// AuditOf returns the audit record of ev (Seq, Prev and Hash not yet
// set), or nil when ev records no decision and no change of who may
// decide (a reminder, a steering message, an alert). It is the one rule
// of what the audit trail holds of the event log; a sensitive answer's
// value and text never enter it.
func AuditOf(ev *Event) *AuditRecord {
	r := &AuditRecord{At: ev.At.UTC(), Actor: ev.Actor, Edge: ev.Edge, EventSeq: ev.Seq,
		QuestionID: ev.QuestionID, RunID: ev.RunID}
	switch ev.Type {
	case EventQuestionAsked:
		r.Kind = AuditAsked
		if ev.Question != nil {
			r.Question = ev.Question.Question
			r.People = slices.Clone(ev.Question.Assignees)
		}
	case EventQuestionAnswered:
		r.Kind = AuditAnswered
	case EventApprovalAdded:
		r.Kind, r.Answer = AuditApproval, Approve
		if ev.Question != nil && len(ev.Question.Approvals) > 0 {
			r.Text = ev.Question.Approvals[len(ev.Question.Approvals)-1].Text
		}
	case EventQuestionTimeout:
		r.Kind = AuditTimedOut
	case EventQuestionCancelled:
		r.Kind, r.Reason = AuditCancelled, ev.Reason
	case EventQuestionReopened:
		r.Kind, r.Reason = AuditReopened, ev.Reason
	case EventQuestionReassigned, EventQuestionEscalated:
		r.Kind = AuditReassigned
		if ev.Type == EventQuestionEscalated {
			r.Kind = AuditEscalated
		}
		if ev.Question != nil {
			r.People = slices.Clone(ev.Question.Assignees)
			if ev.Type == EventQuestionEscalated {
				r.People = slices.Clone(ev.Question.EscalatedTo)
			}
		}
		r.HandedFrom = slices.Clone(ev.HandedFrom)
	case EventRefused:
		r.Kind, r.Action, r.Reason, r.Count = AuditRefused, string(ev.Action), ev.Reason, max(ev.Count, 1)
	case EventPolicyDecision:
		return policyAudit(ev, r)
	default:
		return nil
	}
	if ev.Response != nil && r.Kind != AuditApproval {
		r.answer(ev.Response)
	}
	return r
}

// answer records resp, leaving out a sensitive one's value and text.
func (r *AuditRecord) answer(resp *Response) {
	if resp.Redacted || resp.Sealed != nil {
		r.Redacted = true
		return
	}
	r.Answer, r.Edited, r.Text = resp.String(), resp.Edited, resp.Text
}

// policyAudit is the record of a policy_decision event: its Action says
// which (allow, deny, learned, revoked, policy_set), Reason names the rule.
func policyAudit(ev *Event, r *AuditRecord) *AuditRecord {
	switch ev.Action {
	case "allow":
		r.Kind = AuditPolicyAllowed
	case "deny":
		r.Kind = AuditPolicyDenied
	case "learned":
		r.Kind = AuditRuleLearned
	case "revoked":
		r.Kind = AuditRuleRevoked
	case "policy_set":
		r.Kind, r.Diff = AuditPolicyChanged, slices.Clone(ev.Diff)
	default:
		return nil
	}
	if r.Kind != AuditPolicyChanged {
		r.Rule = ev.Reason
	}
	if ev.Operation != nil {
		r.Operation = string(ev.Operation.Type) + ": " + ev.Operation.Description
		if res := ev.Operation.Resource; res != "" && res != ev.Operation.Description {
			r.Operation += " (" + res + ")"
		}
	}
	return r
}

// Sign-ins and webhook failures are no event: their edges append them.

// SignInAudit is the record of p signing in (how: token, link, oidc) or,
// with out, signing out.
func SignInAudit(p auth.Principal, how string, out bool, at time.Time) *AuditRecord {
	r := &AuditRecord{At: at.UTC(), Kind: AuditSignedIn, Actor: p.ID, Edge: auth.EdgeWeb, Action: how}
	if out {
		r.Kind = AuditSignedOut
	}
	return r
}
