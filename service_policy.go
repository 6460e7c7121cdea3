package hitl

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sync"
	"time"
)

// PolicyState is the policy as stored: the configured rules (from the
// file, or from the last PUT), the rules people taught it, and the hash
// of the file's rules they were taken from, so that a PUT beats the file
// until the file changes.
type PolicyState struct {
	Rules     []PolicyRule `json:"rules"`
	Learned   []PolicyRule `json:"learned"`
	FileHash  string       `json:"fileHash"`
	UpdatedBy string       `json:"updatedBy,omitempty"`
	UpdatedAt *time.Time   `json:"updatedAt,omitempty"`
}

// policyHolder keeps the effective policy in memory for decisions.
type policyHolder struct {
	mu       sync.Mutex
	state    PolicyState
	fileHash string
}

// HashRules identifies a configuration's rules.
func HashRules(rules []PolicyRule) string {
	b, _ := json.Marshal(rules)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// LoadPolicy reads the stored policy, or takes the file's rules when
// nothing is stored or the file changed since the last PUT. Call it once
// at start, before serving.
func (s *Service) LoadPolicy(ctx context.Context, fileRules []PolicyRule) error {
	if err := (Policy{Rules: fileRules}).Validate(); err != nil {
		return Errorf(EINVALID, "policy: %s", ErrorMessage(err))
	}
	hash := HashRules(fileRules)
	st, err := s.store.PolicyState(ctx)
	if err != nil {
		return err
	}
	if st == nil || st.FileHash != hash {
		next := PolicyState{Rules: fileRules, FileHash: hash}
		if st != nil {
			next.Learned = st.Learned
		}
		if err := s.store.PutPolicyState(ctx, &next); err != nil {
			return err
		}
		st = &next
	}
	s.policy.mu.Lock()
	s.policy.state, s.policy.fileHash = *st, hash
	s.policy.mu.Unlock()
	return nil
}

// Policy returns the effective policy (seed 003's GetApprovalPolicy).
func (s *Service) Policy(ctx context.Context) (Policy, error) {
	s.policy.mu.Lock()
	defer s.policy.mu.Unlock()
	st := s.policy.state
	return Policy{Rules: cloneRules(st.Rules), Learned: cloneRules(st.Learned), Default: DefaultPolicy()}, nil
}

func cloneRules(rs []PolicyRule) []PolicyRule {
	if rs == nil {
		return []PolicyRule{}
	}
	return append([]PolicyRule(nil), rs...)
}

// SetPolicy replaces the configured rules (seed 003's
// SetApprovalPolicy), for admins. It is stored: it survives a restart and
// beats the config file until the file's rules change.
func (s *Service) SetPolicy(ctx context.Context, rules []PolicyRule) (Policy, error) {
	p := PrincipalFrom(ctx)
	if err := s.access.Authorize(p, ActionAudit, nil); err != nil {
		return Policy{}, s.refused(ctx, p, ActionAudit, &Question{}, Errorf(EFORBIDDEN, "%s lacks the admin scope: only admins set the policy", p.ID))
	}
	for i := range rules {
		rules[i].Learned, rules[i].ID = false, ""
	}
	if err := (Policy{Rules: rules}).Validate(); err != nil {
		return Policy{}, err
	}
	now := s.clock.Now()
	s.policy.mu.Lock()
	next := s.policy.state
	next.Rules, next.UpdatedBy, next.UpdatedAt = rules, p.ID, &now
	next.FileHash = s.policy.fileHash
	s.policy.mu.Unlock()
	if err := s.store.PutPolicyState(ctx, &next); err != nil {
		return Policy{}, err
	}
	s.policy.mu.Lock()
	s.policy.state = next
	s.policy.mu.Unlock()
	s.auditPolicy(ctx, p.ID, "policy_set", "the policy was set", nil)
	return s.Policy(ctx)
}

// Decide applies the policy to op as the principal in ctx asks it: the
// agent is the principal, never what the request says.
func (s *Service) Decide(ctx context.Context, op Operation) (Decision, error) {
	op.Agent = PrincipalFrom(ctx).ID
	if err := op.Validate(); err != nil {
		return Decision{}, err
	}
	pol, _ := s.Policy(ctx)
	return pol.Decide(op), nil
}

// ApprovalOutcome is what POST /api/approvals answers: the decision and,
// when a person must decide, the question to wait on.
type ApprovalOutcome struct {
	Decision
	QuestionID string    `json:"questionId,omitempty"`
	Question   *Question `json:"question,omitempty"`
}

// PolicyService is seed 003's approval policy as the edges see it.
// *Service implements it; agent.Client implements it over HTTP.
type PolicyService interface {
	Policy(ctx context.Context) (Policy, error)
	SetPolicy(ctx context.Context, rules []PolicyRule) (Policy, error)
	RequestOperation(ctx context.Context, req ApprovalRequest) (ApprovalOutcome, error)
	RevokeRule(ctx context.Context, id string) (PolicyRule, error)
}

var _ PolicyService = (*Service)(nil)

// ApprovalRequest is an operation to approve, with how long to wait and
// where to ask.
type ApprovalRequest struct {
	Operation
	RunID          string   `json:"runId,omitempty"`
	TimeoutMinutes *float64 `json:"timeoutMinutes,omitempty"`
	Channel        string   `json:"channel,omitempty"`
	IdempotencyKey string   `json:"idempotencyKey,omitempty"`
}

// RequestOperation decides op by policy: allow and deny come back at once
// (and are audited as policy_decision events); ask creates an approval
// question for the rule's approvers and quorum, which the caller waits on.
func (s *Service) RequestOperation(ctx context.Context, req ApprovalRequest) (ApprovalOutcome, error) {
	p := PrincipalFrom(ctx)
	if err := s.access.Authorize(p, ActionAsk, nil); err != nil {
		return ApprovalOutcome{}, s.refused(ctx, p, ActionAsk, &Question{JobID: req.RunID}, err)
	}
	d, err := s.Decide(ctx, req.Operation)
	if err != nil {
		return ApprovalOutcome{}, err
	}
	op := req.Operation
	op.Agent = p.ID
	if d.Effect != EffectAsk {
		s.auditPolicy(ctx, p.ID, string(d.Effect), d.Rule, &op)
		return ApprovalOutcome{Decision: d}, nil
	}
	run := req.RunID
	if run == "" {
		run = DefaultRunID("approvals", p)
	}
	n := NewQuestion{Question: op.Description, Type: Approval, TimeoutMinutes: req.TimeoutMinutes,
		Channel: req.Channel, IdempotencyKey: req.IdempotencyKey, Context: &Context{Agent: p.ID, CurrentStep: op.Context}}
	q, _, err := s.create(ctx, run, n, func(q *Question) {
		q.Operation, q.Rule, q.Approvers, q.Quorum = &op, d.Rule, d.Approvers, d.Quorum
		if q.Quorum <= 1 {
			q.Quorum = 0
		}
	})
	if err != nil {
		return ApprovalOutcome{}, err
	}
	return ApprovalOutcome{Decision: d, QuestionID: q.ID, Question: q}, nil
}

// learn adds the narrow rule a person's "approve and always allow" asks
// for, audited.
func (s *Service) learn(ctx context.Context, op Operation, by string) error {
	r := Learn(op, by, s.clock.Now())
	s.policy.mu.Lock()
	next := s.policy.state
	next.Learned = append(cloneRules(next.Learned), r)
	s.policy.mu.Unlock()
	if err := s.store.PutPolicyState(ctx, &next); err != nil {
		return err
	}
	s.policy.mu.Lock()
	s.policy.state.Learned = next.Learned
	s.policy.mu.Unlock()
	s.auditPolicy(ctx, by, "learned", r.Name, &op)
	return nil
}

// RevokeRule removes learned rule id. People who may answer, and admins,
// may.
func (s *Service) RevokeRule(ctx context.Context, id string) (PolicyRule, error) {
	p := PrincipalFrom(ctx)
	if !p.Local && !p.Has(ScopeAnswer) {
		return PolicyRule{}, s.refused(ctx, p, ActionAnswer, &Question{}, lacks(p, ScopeAnswer))
	}
	s.policy.mu.Lock()
	next := s.policy.state
	var gone *PolicyRule
	var kept []PolicyRule
	for _, r := range next.Learned {
		if r.ID == id {
			r := r
			gone = &r
			continue
		}
		kept = append(kept, r)
	}
	next.Learned = kept
	s.policy.mu.Unlock()
	if gone == nil {
		return PolicyRule{}, Errorf(ENOTFOUND, "no learned rule %s (hitl policy rules lists them)", id)
	}
	if err := s.store.PutPolicyState(ctx, &next); err != nil {
		return PolicyRule{}, err
	}
	s.policy.mu.Lock()
	s.policy.state.Learned = next.Learned
	s.policy.mu.Unlock()
	s.auditPolicy(ctx, p.ID, "revoked", gone.Name, nil)
	return *gone, nil
}

// auditPolicy appends a policy_decision event: action is allow, deny,
// learned, revoked or policy_set; reason names the rule.
func (s *Service) auditPolicy(ctx context.Context, actor, action, rule string, op *Operation) {
	ev := &Event{Type: EventPolicyDecision, At: s.clock.Now(), Actor: actor, Action: Action(action), Reason: rule, Operation: op}
	if err := s.store.AppendEvent(context.WithoutCancel(ctx), ev); err == nil {
		s.hub.publish("")
	}
}
